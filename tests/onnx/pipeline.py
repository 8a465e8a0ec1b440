"""pipeline.py: checks one converted network end to end (used by run_models.py and torch_models.py).

Given a net.json written by scripts/onnx2net, a float input x (NCHW, as the ONNX model takes
it) and the model's float outputs computed independently (numpy or torch), it
  1. calibrates on x (`sacc check --calib`; its --dump-ir gives the calibrated scales),
  2. runs `sacc ref` on x rounded to the input's scale and compares its int8 outputs, times
     their scales, with the float outputs: the SQNR must be high (a transposed weight or a
     wrong padding gives about 0 dB),
  3. compiles the network (`sacc compile`, same calibration), runs it on `sasim run` with the
     same input, and requires the output lines (name, shape, crc32) to equal `sacc ref`'s.
"""
import json
import math
import os
import re
import subprocess

import numpy as np


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (what, p.returncode, p.stdout[-400:].replace("\n", " ")))
    return p.stdout


def to_nhwc(a):
    return a.transpose(0, 2, 3, 1) if a.ndim == 4 else a


def scales_of(dump):
    """{tensor: scale} from `sacc check --dump-ir` (input lines and each layer's output)."""
    s = {}
    for m in re.finditer(r"^input (\S+) \S+ scale=(\S+)", dump, re.M):
        s[m.group(1)] = float(m.group(2))
    for m in re.finditer(r"-> \S+ (\S+) scale=(\S+)", dump):
        s[m.group(1)] = float(m.group(2))
    return s


def output_lines(text):
    return sorted(l for l in text.splitlines() if l.startswith("output "))


def sqnr_db(ref, got):
    err = np.sum((ref - got) ** 2)
    sig = np.sum(ref ** 2)
    return float("inf") if err == 0 else 10 * math.log10(sig / err)


def check_net(build, net_path, x, ref_outputs, tmp, arch=None):
    """Returns ({output: sqnr dB}, crc_equal, sacc ref output lines). ref_outputs are in the
    order of the net's "outputs" (the ONNX graph outputs' order)."""
    sacc, sasim = os.path.join(build, "bin", "sacc"), os.path.join(build, "bin", "sasim")
    with open(net_path) as f:
        net = json.load(f)
    inp = net["inputs"][0]["name"]
    xn = to_nhwc(np.asarray(x, dtype=np.float32))
    calib = os.path.join(tmp, "calib.npy")
    np.save(calib, np.ascontiguousarray(xn))
    scales = scales_of(run([sacc, "check", net_path, "--calib", calib, "--dump-ir"], "sacc check"))
    xq = np.clip(np.round(xn / scales[inp]), -128, 127).astype(np.int8)
    xq_path = os.path.join(tmp, "xq.npy")
    np.save(xq_path, np.ascontiguousarray(xq))
    outdir = os.path.join(tmp, "ref")
    os.makedirs(outdir, exist_ok=True)
    ref_text = run([sacc, "ref", net_path, "--calib", calib, "--input", xq_path, "--output-dir", outdir], "sacc ref")
    sqnr = {}
    for name, want in zip(net["outputs"], ref_outputs):
        q = np.load(os.path.join(outdir, name + ".npy")).astype(np.float64)
        want = to_nhwc(np.asarray(want, dtype=np.float64))
        if q.shape != want.shape:
            raise RuntimeError("output %s: sacc shape %s, model %s" % (name, q.shape, want.shape))
        sqnr[name] = sqnr_db(want, q * scales[name])
    binary = os.path.join(tmp, "net.bin")
    cmd = [sacc, "compile", net_path, "--calib", calib, "-o", binary] + (["--arch", arch] if arch else [])
    run(cmd, "sacc compile")
    cmd = [sasim, "run", binary, "--input", "%s=%s" % (inp, xq_path)]
    sim_text = run(cmd, "sasim run")
    ref_lines = output_lines(ref_text)
    return sqnr, bool(ref_lines) and ref_lines == output_lines(sim_text), ref_lines
