"""torch_models.py BUILD: `make test-onnx`. torchvision ResNet-18 and MobileNetV2 with random
weights (weights=None, torch.manual_seed; nothing is downloaded) are exported to ONNX, converted
by scripts/onnx2net, compiled by `sacc compile`, run on `sasim run`, and checked:

- the sasim outputs' crc32 equal `sacc ref`'s (tests/onnx/pipeline.py);
- the int8 network's output against torch's float output on the same input: the SQNR is
  printed and must exceed MIN_SQNR_DB (a conversion error gives about 0 dB).

Prints "PASS torch-NAME ..." / "FAIL torch-NAME: why" lines, a timing per step, and the usual
summary line "N passed, N failed"; exits 1 on a failure.
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torchvision

import pipeline

MIN_SQNR_DB = 20.0
ONNX2NET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "onnx2net")
MODELS = [("resnet18", torchvision.models.resnet18), ("mobilenet_v2", torchvision.models.mobilenet_v2)]


def export(name, ctor, path):
    """Exports the model with seeded random weights; returns (input, torch's float output)."""
    torch.manual_seed(0)
    model = ctor(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        want = model(x).numpy()
        torch.onnx.export(model, x, path, opset_version=13, input_names=["x"], output_names=["logits"])
    return x.numpy(), want


def check(build, name, ctor, tmp):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    onnx_path, net = os.path.join(d, name + ".onnx"), os.path.join(d, name + ".json")
    t0 = time.time()
    x, want = export(name, ctor, onnx_path)
    t1 = time.time()
    p = subprocess.run([ONNX2NET, onnx_path, "-o", net], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    t2 = time.time()
    if p.returncode != 0:
        return "FAIL torch-%s: onnx2net: %s" % (name, p.stdout.strip()[-400:])
    print("  %s" % p.stdout.strip())
    try:
        sqnr, crc_ok, lines = pipeline.check_net(build, net, x, [want], d)
    except RuntimeError as e:
        return "FAIL torch-%s: %s" % (name, e)
    t3 = time.time()
    print("  %s: export %.1f s, onnx2net %.1f s, sacc check+ref+compile and sasim run %.1f s"
          % (name, t1 - t0, t2 - t1, t3 - t2))
    print("  " + "\n  ".join(lines))
    db = list(sqnr.values())[0]
    if not db > MIN_SQNR_DB:
        return "FAIL torch-%s: SQNR %.1f dB against torch's float output (want > %g)" % (name, db, MIN_SQNR_DB)
    if not crc_ok:
        return "FAIL torch-%s: sasim run outputs differ from sacc ref" % name
    return "PASS torch-%s: sasim = sacc ref; SQNR %.1f dB against torch's float output" % (name, db)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    passed = failed = 0
    print("torch %s, torchvision %s" % (torch.__version__, torchvision.__version__))
    with tempfile.TemporaryDirectory() as tmp:
        for name, ctor in MODELS:
            line = check(build, name, ctor, tmp)
            print(line, flush=True)
            passed += line.startswith("PASS")
            failed += not line.startswith("PASS")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
