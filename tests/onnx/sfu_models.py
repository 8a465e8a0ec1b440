"""sfu_models.py BUILD [--big] [--table]: networks with the special-function unit's ops (issue 16),
built in PyTorch with seeded random weights (nothing is downloaded), exported to ONNX,
converted by scripts/onnx2net and run by `sacc ref` (the exact integer arithmetic of
docs/NETJSON.md "Exact arithmetic") and its float reference (`sacc check`).

For each network: the scales are calibrated (below), then 20 random inputs go through `sacc ref`; each int8 output times its scale is compared with torch's float
output: the SQNR over the 20 (dB) and the argmax agreement (per row of the last axis) are
printed and checked against each model's floor. The scales are calibrated per tensor as the
largest of N_CALIB other random inputs' (`sacc check --calib` on each), written into the net.json. `sacc compile` then
compiles it (default arch, weight-stationary) and `sasim run` (fast engine) on the last input must write sacc ref's
output bit for bit; for the small ones the detailed engine must print the same outputs and cycles.

Without --big: FullBasicModel (the lecture's conv 1->128 3x3, relu, linear 128->10, softmax),
one BERT-style encoder layer (hidden 256, 4 heads, sequence 128, post-LN, GELU FFN) and a
squeeze-excitation block (h-swish, h-sigmoid). `make test` runs it (skipped without torch).
--big (`make test-transformers`): the 4-layer encoder, the 12-layer ViT-style classifier (hidden
192, 3 heads), torchvision's MobileNetV3-Small and EfficientNet-B0 (random weights with measured
batch-norm statistics: with_bn_statistics).

Prints "PASS sfu-NAME ..." / "FAIL sfu-NAME: why" lines and "N passed, N failed"; exits 1 on a
failure.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

import pipeline   # tests/onnx/pipeline.py: scales_of

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ONNX2NET = os.path.join(ROOT, "scripts", "onnx2net")
N_INPUTS = 20
N_CALIB = 4    # calibration inputs, apart from the N_INPUTS that are measured


class FullBasicModel(nn.Module):
    """The lecture's example: conv 1->128 3x3 on a 1x1x3x3 input (128 values), relu, fc 128->10,
    softmax."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 128, 3)
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=-1)


class Attention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.h, self.d = heads, hidden // heads
        self.q, self.k, self.v, self.o = (nn.Linear(hidden, hidden) for _ in range(4))

    def split(self, t):
        b, s, _ = t.shape
        return t.reshape(b, s, self.h, self.d).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        p = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.d), dim=-1)
        ctx = (p @ v).transpose(1, 2)
        return self.o(ctx.reshape(x.shape))


class EncoderLayer(nn.Module):
    """BERT's post-LN encoder layer: LN(x + attn(x)), LN(h + fc2(gelu(fc1(h))))."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attn = Attention(hidden, heads)
        self.ln1, self.ln2 = nn.LayerNorm(hidden, eps=1e-12), nn.LayerNorm(hidden, eps=1e-12)
        self.fc1, self.fc2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)

    def forward(self, x):
        h = self.ln1(x + self.attn(x))
        return self.ln2(h + self.fc2(nn.functional.gelu(self.fc1(h))))


class Encoder(nn.Module):
    """A BERT-style encoder on the embedded sequence [1, S, hidden]."""

    def __init__(self, layers, hidden=256, heads=4, ffn=1024):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class ViT(nn.Module):
    """A ViT-style classifier: 16x16 patches of 224x224 (a conv), pre-LN encoder blocks with
    GELU, mean pooling over the 196 tokens (no cls token, no position embedding: net.json has no
    constant tensors), LN and a linear head."""

    def __init__(self, layers, hidden=192, heads=3, classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, hidden, 16, 16)
        self.blocks = nn.ModuleList(nn.ModuleDict({
            "ln1": nn.LayerNorm(hidden, eps=1e-6), "attn": Attention(hidden, heads), "ln2": nn.LayerNorm(hidden, eps=1e-6),
            "fc1": nn.Linear(hidden, 4 * hidden), "fc2": nn.Linear(4 * hidden, hidden)}) for _ in range(layers))
        self.ln = nn.LayerNorm(hidden, eps=1e-6)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        for b in self.blocks:
            x = x + b["attn"](b["ln1"](x))
            x = x + b["fc2"](nn.functional.gelu(b["fc1"](b["ln2"](x))))
        return self.head(self.ln(x.mean(dim=1)))


class SEBlock(nn.Module):
    """MobileNetV3's squeeze-excitation inside an h-swish block."""

    def __init__(self, c=32, r=8):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.fc1, self.fc2 = nn.Conv2d(c, r, 1), nn.Conv2d(r, c, 1)
        self.out = nn.Conv2d(c, 16, 1)

    def forward(self, x):
        x = nn.functional.hardswish(self.conv(x))
        s = nn.functional.hardsigmoid(self.fc2(torch.relu(self.fc1(nn.functional.adaptive_avg_pool2d(x, 1)))))
        return self.out(x * s)


def with_bn_statistics(model):
    """A torchvision model with random weights has batch-norm running statistics of 0 and 1, and
    its activations shrink layer after layer (to 1e-9 at MobileNetV3-Small's output), far
    below the special-function unit's Q4.11 resolution (2^-11). As after training, the running
    statistics are measured: 4 batches of 8 random inputs in training mode (cumulative average)."""
    for mod in model.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.reset_running_stats()
            mod.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 3, 224, 224))
    return model


def mobilenet_v3_small():
    import torchvision
    return with_bn_statistics(torchvision.models.mobilenet_v3_small())


def efficientnet_b0():
    import torchvision
    return with_bn_statistics(torchvision.models.efficientnet_b0())


# name, constructor, input shape, opset, SQNR floor (dB), argmax agreement floor
SMALL = [
    ("fullbasic", FullBasicModel, [1, 1, 3, 3], 13, 25.0, 0.9),
    ("encoder1", lambda: Encoder(1), [1, 128, 256], 14, 25.0, 0.9),
    ("se_block", SEBlock, [1, 3, 16, 16], 14, 25.0, 0.9),
]
BIG = [
    ("encoder4", lambda: Encoder(4), [1, 128, 256], 17, 25.0, 0.9),
    ("vit12", lambda: ViT(12), [1, 3, 224, 224], 17, 25.0, 0.8),
    ("mobilenet_v3_small", mobilenet_v3_small, [1, 3, 224, 224], 14, 12.0, 0.5),
    ("efficientnet_b0", efficientnet_b0, [1, 3, 224, 224], 14, 12.0, 0.5),
]


def run(cmd, what, ok=(0,)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode not in ok:
        raise RuntimeError("%s failed (%d): %s" % (what, p.returncode, p.stdout[-500:].replace("\n", " ")))
    return p.returncode, p.stdout


def to_net(a):
    """An ONNX-layout array in net.json's layout (NCHW -> NHWC; [1, S, F] -> [1, 1, S, F])."""
    if a.ndim == 4:
        return a.transpose(0, 2, 3, 1)
    if a.ndim == 3:
        return a.reshape(a.shape[0], 1, a.shape[1], a.shape[2])
    return a


def set_scales(net, scales):
    """Writes the calibrated scales into the net.json (inputs and every layer's output)."""
    with open(net) as f:
        j = json.load(f)
    for t in j["inputs"]:
        t["scale"] = scales[t["name"]]
    for l in j["layers"]:   # a layer folded into the next one (bias, batchnorm) has no scale of its own
        if l["output"] in scales:
            l["scale"] = scales[l["output"]]
    with open(net, "w") as f:
        json.dump(j, f)


def layer_sqnr(dump):
    """[(layer, op, sqnr dB)] from the per-layer error lines of `sacc check --dump-ir`."""
    ops = dict(re.findall(r"^(\S+)\s+([a-z_0-9]+)\s+\[", dump, re.M))
    return [(m.group(1), ops.get(m.group(1), "?"), float(m.group(2)))
            for m in re.finditer(r"^layer (\S+): .* sqnr (\S+) dB", dump, re.M)]


def check(build, tmp, name, ctor, shape, opset, min_db, min_agree, table):
    sacc = os.path.join(build, "bin", "sacc")
    d = os.path.join(tmp, name)
    os.makedirs(d)
    onnx_path, net = os.path.join(d, name + ".onnx"), os.path.join(d, name + ".json")
    t0 = time.time()
    torch.manual_seed(0)
    model = ctor().eval()
    xs = [torch.randn(*shape) for _ in range(N_INPUTS)]
    with torch.no_grad():
        want = [model(x).numpy() for x in xs]
        torch.onnx.export(model, xs[0], onnx_path, opset_version=opset, input_names=["x"], output_names=["y"])
    run([ONNX2NET, onnx_path, "-o", net], "onnx2net")
    calib = os.path.join(d, "calib.npy")
    scales = {}
    for c in range(N_CALIB):   # per tensor, the largest scale over N_CALIB other inputs
        np.save(calib, np.ascontiguousarray(to_net(torch.randn(*shape).numpy()).astype(np.float32)))
        _, dump = run([sacc, "check", net, "--calib", calib, "--dump-ir"], "sacc check")
        for k, v in pipeline.scales_of(dump).items():
            scales[k] = max(v, scales.get(k, 0))
    set_scales(net, scales)
    _, dump = run([sacc, "check", net, "--calib", calib, "--dump-ir"], "sacc check")
    err = sig = 0.0
    agree = rows = 0
    for i, x in enumerate(xs):
        xq = np.clip(np.round(to_net(x.numpy()) / scales["x"]), -128, 127).astype(np.int8)
        xq_path = os.path.join(d, "xq.npy")
        np.save(xq_path, np.ascontiguousarray(xq))
        out = os.path.join(d, "out")
        run([sacc, "ref", net, "--calib", calib, "--input", xq_path, "--output-dir", out], "sacc ref")
        q = np.load(os.path.join(out, "y.npy")).astype(np.float64) * scales["y"]
        w = to_net(want[i].astype(np.float64))
        q = q.reshape(w.shape)
        err += float(np.sum((q - w) ** 2))
        sig += float(np.sum(w ** 2))
        w2, q2 = w.reshape(-1, w.shape[-1]), q.reshape(-1, w.shape[-1])
        agree += int(np.sum(np.argmax(w2, axis=1) == np.argmax(q2, axis=1)))
        rows += w2.shape[0]
    db = float("inf") if err == 0 else 10 * math.log10(sig / err)
    frac = agree / rows
    # The machine: compiled, the program's output on the last input equals sacc ref's, bit for bit.
    binp = os.path.join(d, "net.bin")
    run([sacc, "compile", net, "--calib", calib, "-o", binp], "sacc compile")
    simout = os.path.join(d, "simout")
    _, simtext = run([os.path.join(build, "bin", "sasim"), "run", binp, "--input", xq_path, "--output-dir", simout],
                     "sasim run")
    cycles = re.search(r"^(\d+) cycles$", simtext, re.M)
    with open(os.path.join(out, "y.npy"), "rb") as f1, open(os.path.join(simout, "y.npy"), "rb") as f2:
        if f1.read() != f2.read():
            return "FAIL sfu-%s: sasim's output differs from sacc ref's" % name
    if name in [m[0] for m in SMALL]:   # the detailed engine too: the same output and cycles
        _, dtext = run([os.path.join(build, "bin", "sasim"), "run", binp, "--input", xq_path, "--mode", "detailed"],
                       "sasim run --mode detailed")
        _, ftext = run([os.path.join(build, "bin", "sasim"), "run", binp, "--input", xq_path], "sasim run")
        keep = lambda t: [l for l in t.splitlines() if l.startswith("output ") or l.endswith(" cycles")]
        if keep(dtext) != keep(ftext):
            return "FAIL sfu-%s: the detailed engine differs from the fast one: %s against %s" % (
                name, keep(dtext), keep(ftext))
    print("  %s: %d layers, %.1f s; SQNR %.1f dB over %d inputs, argmax agreement %.3f (%d/%d rows)"
          % (name, len(layer_sqnr(dump)), time.time() - t0, db, N_INPUTS, frac, agree, rows))
    if table:
        worst = sorted(layer_sqnr(dump), key=lambda t: t[2])[:8]
        for lname, op, s in layer_sqnr(dump):
            mark = " <" if (lname, op, s) in worst else ""
            print("    %-40s %-14s %6.1f dB%s" % (lname, op, s, mark))
    if not db >= min_db:
        return "FAIL sfu-%s: SQNR %.1f dB against torch's float output (want >= %g)" % (name, db, min_db)
    if not frac >= min_agree:
        return "FAIL sfu-%s: argmax agreement %.3f (want >= %g)" % (name, frac, min_agree)
    return "PASS sfu-%s: SQNR %.1f dB, argmax agreement %.3f over %d inputs; compiled, sasim == sacc ref (%s cycles%s)" % (
        name, db, frac, N_INPUTS, "{:,}".format(int(cycles.group(1))) if cycles else "?",
        ", detailed the same" if name in [m[0] for m in SMALL] else "")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    build = args[0] if args else "build"
    models = BIG if "--big" in sys.argv else SMALL
    only = os.environ.get("SFU_MODELS")
    if only:
        models = [m for m in SMALL + BIG if m[0] in only.split(",")]
    passed = failed = 0
    print("torch %s" % torch.__version__)
    with tempfile.TemporaryDirectory() as tmp:
        for m in models:
            try:
                line = check(build, tmp, *m, table="--table" in sys.argv)
            except RuntimeError as e:
                line = "FAIL sfu-%s: %s" % (m[0], e)
            print(line, flush=True)
            passed += line.startswith("PASS")
            failed += not line.startswith("PASS")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
