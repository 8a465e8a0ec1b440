"""run_models.py BUILD TMP: the small ONNX models of models.py through scripts/onnx2net, sacc and
sasim (tests/cli/onnx.sh runs it). Prints "PASS onnx-NAME" / "FAIL onnx-NAME: why" lines.

Per model: the conversion's float semantics against onnx_eval.py (SQNR of `sacc ref`'s int8
output against the numpy float evaluation, > MIN_SQNR_DB), and the compiled program on
`sasim run` against `sacc ref` (equal crc32). Per refused model: exit status 1, the expected
message, and no output file left behind.
"""
import os
import re
import subprocess
import sys

import numpy as np
import onnx

import models
import onnx_eval
import pipeline

MIN_SQNR_DB = 25.0
ONNX2NET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "onnx2net")


def convert(model_path, net_path):
    return subprocess.run([ONNX2NET, model_path, "-o", net_path], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)


def check_good(build, tmp, builder):
    name, model = builder()
    d = os.path.join(tmp, name)
    os.makedirs(d)
    path = os.path.join(d, name + ".onnx")
    onnx.save(model, path)
    net = os.path.join(d, name + ".json")
    p = convert(path, net)
    if p.returncode != 0:
        return "FAIL onnx-%s: onnx2net: %s" % (name, p.stdout.strip()[-300:])
    shape = [dim.dim_value for dim in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(len(name)).standard_normal(shape)
    want = onnx_eval.run(model, {model.graph.input[0].name: x})
    try:
        sqnr, crc_ok, _ = pipeline.check_net(build, net, x, [want[o.name] for o in model.graph.output], d)
    except RuntimeError as e:
        return "FAIL onnx-%s: %s" % (name, e)
    low = {k: round(v, 1) for k, v in sqnr.items() if not v > MIN_SQNR_DB}
    if low:
        return "FAIL onnx-%s: SQNR against the numpy evaluation below %g dB: %s" % (name, MIN_SQNR_DB, low)
    if not crc_ok:
        return "FAIL onnx-%s: sasim run outputs differ from sacc ref" % name
    return "PASS onnx-%s (SQNR %s dB)" % (name, ", ".join("%.1f" % v for v in sqnr.values()))


def check_bad(tmp, builder, pattern):
    name, model = builder()
    path = os.path.join(tmp, name + ".onnx")
    onnx.save(model, path)
    net = os.path.join(tmp, name + ".json")
    p = convert(path, net)
    if p.returncode != 1:
        return "FAIL onnx-%s: exit %d, want 1: %s" % (name, p.returncode, p.stdout.strip()[-300:])
    if not re.search(pattern, p.stdout):
        return "FAIL onnx-%s: no match for /%s/ in: %s" % (name, pattern, p.stdout.strip()[-300:])
    left = [f for f in os.listdir(tmp) if f.startswith(name + ".json") or f.startswith("." + name)
            or f.startswith(name + "_weights")]
    if left:
        return "FAIL onnx-%s: files left behind: %s" % (name, left)
    return "PASS onnx-%s" % name


def main():
    build, tmp = sys.argv[1], sys.argv[2]
    for b in models.GOOD:
        print(check_good(build, tmp, b), flush=True)
    for b, pattern in models.BAD:
        print(check_bad(tmp, b, pattern), flush=True)


if __name__ == "__main__":
    main()
