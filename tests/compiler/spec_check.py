#!/usr/bin/env python3
"""spec_check.py SACC NET.json [LAYERS]: an independent reading of docs/NETJSON.md
("Float weights and calibration", "Exact arithmetic of the float path", "Integer arithmetic").

From the doc's rules alone (nothing of compiler/ is imported or read), this script generates the
seeded float weights, biases and batchnorm parameters, folds, runs the float calibration pass in
the stated precision and order (float32 sums, no fused multiply-add), derives every calibrated
scale and the multiplier of each layer, and compares them with `sacc check --dump-ir` (scales
printed exactly, %.17g): every scale must be the same double and every `rq0` the same
(mult, shift). With LAYERS, only the first LAYERS layers of the network are checked (the file
is cut there: the calibration of a layer depends only on the layers before it).
Supported: conv2d (groups 1, dilation 1), fc, batchnorm, bias, relu, maxpool, add,
global_avgpool, flatten: enough for edge_float_bn and ResNet-18. Prints PASS/FAIL lines.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

M64 = (1 << 64) - 1


class SplitMix:
    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def unit(self):  # top 53 bits, in [0, 1)
        return (self.next() >> 11) * 2.0 ** -53


def round_away(x):
    """Rounds halves away from zero (C round/llround), on doubles."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return t


def factor(f):
    """(mult, shift) of a real factor: f = m 2^e, mult = round(m 2^31) (halves away)."""
    m, e = math.frexp(f)
    mult = round_away(math.ldexp(m, 31))
    if mult == 1 << 31:
        mult, e = mult >> 1, e + 1
    return mult, 31 - e


def seeded_reals(src, n, lo, span):
    if "seed" not in src:
        raise SystemExit("spec_check: only seeded parameters are supported")
    r = SplitMix(src["seed"])
    return np.array([lo + span * r.unit() for _ in range(n)], dtype=np.float64)


def pad_of(l, k):
    p = l.get("padding", 0)
    if isinstance(p, int):
        return p, p, p, p
    raise SystemExit("spec_check: padding %r not supported" % (p,))


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def run(sacc_path, net_path, limit):
    net = json.load(open(net_path))
    layers = net["layers"][:limit] if limit else net["layers"]
    with tempfile.TemporaryDirectory() as tmp:
        cut = dict(net, layers=layers, outputs=[layers[-1]["output"]] if limit else net["outputs"])
        path = os.path.join(tmp, "net.json")
        json.dump(cut, open(path, "w"))
        p = subprocess.run([sacc_path, "check", path, "--dump-ir"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
    if p.returncode:
        raise SystemExit("sacc check failed: " + p.stdout[-300:])
    dump = p.stdout

    # --- the float graph: inputs (docs: the seeded calibration input) ---
    val, scale = {}, {}
    for i, t in enumerate(net["inputs"]):
        s = t.get("scale", 1.0 / 128)
        r = SplitMix(1 + i)
        n = int(np.prod(t["shape"]))
        q = np.array([((r.next() & 0xFF) ^ 0x80) - 0x80 for _ in range(n)], dtype=np.float64)
        val[t["name"]] = (s * q).astype(np.float32).reshape(t["shape"])   # double product, rounded to float32
        scale[t["name"]] = s
    # --- fold: each conv/fc collects the (a, b) of the batchnorm / bias layers after it ---
    chain_of, final = {}, {}   # tensor -> the conv/fc writing it after folding; conv name -> its output
    for l in layers:
        op, x = l["op"], l["inputs"][0]
        if op in ("conv2d", "fc"):
            l["_folds"] = []
            chain_of[l["output"]] = l
            final[l["name"]] = l["output"]
        elif op in ("batchnorm", "bias"):
            c = chain_of.pop(x)
            cout = c["cout"]
            if op == "batchnorm":
                g = seeded_reals(l["gamma"], cout, 0.5, 1)
                beta = seeded_reals(l["beta"], cout, -0.25, 0.5)
                mean = seeded_reals(l["mean"], cout, -0.25, 0.5)
                var = seeded_reals(l["var"], cout, 0.5, 1)
                fa = g / np.sqrt(var + l.get("epsilon", 1e-5))
                fb = beta - fa * mean
            else:
                fa = np.ones(cout)
                fb = seeded_reals(l["bias"], cout, -0.1, 0.2)
            c["_folds"].append((fa, fb))
            chain_of[l["output"]] = c
            final[c["name"]] = l["output"]
            l["_folded"] = True
    # --- the float pass, layer by layer in file order ---
    want_scale, want_rq = {}, {}
    for l in layers:
        if l.get("_folded"):
            continue
        op = l["op"]
        x = val[l["inputs"][0]]
        out = l["output"]
        if op in ("conv2d", "fc"):
            out = final[l["name"]]
            cout = l["cout"]
            if op == "conv2d":
                kh, kw = pair(l.get("kernel", 1))
                if l.get("groups", 1) != 1 or pair(l.get("dilation", 1)) != (1, 1):
                    raise SystemExit("spec_check: groups/dilation not supported")
                cin = x.shape[3]
                fan_in, wshape = kh * kw * cin, (kh, kw, cin, cout)
            else:
                cin = int(np.prod(x.shape[1:]))
                fan_in, wshape = cin, (cin, cout)
            ws = l["weights"]
            if not (isinstance(ws, dict) and ws.get("float") and "seed" in ws):
                raise SystemExit("spec_check: only seeded float weights are supported")
            r = SplitMix(ws["seed"])
            amp = math.sqrt(3.0 / fan_in)
            w = np.array([(2 * r.unit() - 1) * amp for _ in range(int(np.prod(wshape)))])
            w = w.astype(np.float32).reshape(wshape)     # (2u - 1) amp in double, then float32
            bias_real, bias_add = np.zeros(cout), np.zeros(cout)
            if "bias" in l:
                r = SplitMix(l["bias"]["seed"])
                bias_real = np.array([(r.unit() - 0.5) * 0.2 for _ in range(cout)])
            for fa, fb in l["_folds"]:
                w = (w.astype(np.float64) * fa).astype(np.float32)   # w[.., c] *= a[c]: double product, float32
                bias_real = bias_real * fa
                bias_add = fa * bias_add + fb
            bias = bias_add + bias_real            # double: the folded offsets, plus the conv's own bias
            if op == "conv2d":
                sh, sw = pair(l.get("stride", 1))
                pt, pb, pl, pr = pad_of(l, kh)
                n, h, wd, _ = x.shape
                oh, ow = (h + pt + pb - kh) // sh + 1, (wd + pl + pr - kw) // sw + 1
                xp = np.zeros((n, h + pt + pb, wd + pl + pr, cin), dtype=np.float32)
                xp[:, pt:pt + h, pl:pl + wd, :] = x
                acc = np.zeros((n, oh, ow, cout), dtype=np.float32)
                for ky in range(kh):
                    for kx in range(kw):
                        win = xp[:, ky:ky + (oh - 1) * sh + 1:sh, kx:kx + (ow - 1) * sw + 1:sw, :]
                        for ci in range(cin):
                            acc += win[:, :, :, ci:ci + 1] * w[ky, kx, ci, :]   # float32 product, float32 sum
            else:
                xf = x.reshape(x.shape[0], -1)
                acc = np.zeros((xf.shape[0], cout), dtype=np.float32)
                for ci in range(cin):
                    acc += xf[:, ci:ci + 1] * w[ci, :]
            y = act(l, acc.astype(np.float64) + bias).astype(np.float32)   # bias added once, in double
            val[out] = y
            calibrate(out, y, scale)
            wabs = float(np.abs(w.reshape(-1, cout)[:, 0]).max())
            s_w0 = wabs / 127 if wabs > 0 else 1.0
            want_rq[l["name"]] = factor(scale[l["inputs"][0]] * s_w0 / scale[out])
        elif op == "relu":
            val[out] = np.maximum(x, 0).astype(np.float32)
            scale[out] = scale[l["inputs"][0]]
            want_rq[l["name"]] = factor(scale[l["inputs"][0]] / scale[out])
        elif op == "maxpool":
            kh, kw = pair(l["kernel"])
            sh, sw = pair(l.get("stride", 1))
            pt, pb, pl, pr = pad_of(l, kh)
            n, h, wd, c = x.shape
            oh, ow = (h + pt + pb - kh) // sh + 1, (wd + pl + pr - kw) // sw + 1
            xp = np.full((n, h + pt + pb, wd + pl + pr, c), -np.inf, dtype=np.float32)
            xp[:, pt:pt + h, pl:pl + wd, :] = x
            y = np.full((n, oh, ow, c), -np.inf, dtype=np.float32)
            for ky in range(kh):
                for kx in range(kw):
                    y = np.maximum(y, xp[:, ky:ky + (oh - 1) * sh + 1:sh, kx:kx + (ow - 1) * sw + 1:sw, :])
            val[out] = y
            scale[out] = scale[l["inputs"][0]]
            want_rq[l["name"]] = factor(scale[l["inputs"][0]] / scale[out])
        elif op == "add":
            yv = val[l["inputs"][1]]
            y = act(l, x.astype(np.float64) + yv.astype(np.float64)).astype(np.float32)
            val[out] = y
            calibrate(out, y, scale)
            sa, sb = scale[l["inputs"][0]], scale[l["inputs"][1]]
            want_rq[l["name"]] = factor(sa / math.ldexp(max(sa, sb), -20))
        elif op == "global_avgpool":
            n, h, wd, c = x.shape
            s = np.zeros((n, c), dtype=np.float64)
            for yy in range(h):
                for xx in range(wd):
                    s += x[:, yy, xx, :].astype(np.float64)      # double sum, row-major order
            y = (s / float(h * wd)).astype(np.float32).reshape(n, 1, 1, c)
            val[out] = y
            calibrate(out, y, scale)
            want_rq[l["name"]] = factor(scale[l["inputs"][0]] / (scale[out] * h * wd))
        elif op == "flatten":
            val[out] = x.reshape(x.shape[0], -1)
            scale[out] = scale[l["inputs"][0]]
        else:
            raise SystemExit("spec_check: op %s not supported" % op)
        want_scale[out] = scale[out]

    # --- compare with the dump ---
    got_scale, got_rq = {}, {}
    for m in re.finditer(r"^input (\S+) \S+ scale=(\S+)", dump, re.M):
        got_scale[m.group(1)] = float(m.group(2))
    for m in re.finditer(r"^(\S+) +\S+ .*-> \S+ (\S+) scale=(\S+)(.*)$", dump, re.M):
        got_scale[m.group(2)] = float(m.group(3))
        r = re.search(r" rq0=(\d+)>>(\d+)", m.group(4))
        if r:
            got_rq[m.group(1)] = (int(r.group(1)), int(r.group(2)))
    name = os.path.basename(net_path)[:-5] + ("-%d" % limit if limit else "")
    bad = []
    for t, s in want_scale.items():
        if got_scale.get(t) != s:
            bad.append("scale of %s: doc %r, sacc %r" % (t, s, got_scale.get(t)))
    for l, r in want_rq.items():
        if got_rq.get(l) != r:
            bad.append("rq0 of %s: doc %r, sacc %r" % (l, r, got_rq.get(l)))
    if bad or not want_rq:
        print("FAIL spec-%s: %s" % (name, "; ".join(bad[:4]) or "nothing compared"))
        return 1
    print("PASS spec-%s (%d scales, %d multipliers equal)" % (name, len(want_scale), len(want_rq)))
    return 0


def act(l, y):
    a = l.get("activation", "none")
    if a == "relu":
        return np.maximum(y, 0)
    if a == "none":
        return y
    raise SystemExit("spec_check: activation %s not supported" % a)


def calibrate(t, y, scale):
    m = float(np.abs(y).max()) if y.size else 0.0
    scale[t] = m / 127 if m > 0 else 1.0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0))
