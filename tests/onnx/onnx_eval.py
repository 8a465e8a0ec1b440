"""onnx_eval.py: a small float64 numpy evaluator of ONNX graphs, the oracle of tests/cli/onnx.sh.

It reads the ONNX model itself and shares nothing with scripts/onnx2net: NCHW throughout, plain
window loops, ONNX semantics as the operator documents state them (ceil_mode, count_include_pad,
auto_pad, Gemm alpha/beta/trans). Only the ops the test models use are implemented.
"""
import math

import numpy as np
from onnx import helper, numpy_helper


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _out_size(size, k, s, lo, hi, d, ceil):
    span = size + lo + hi - ((k - 1) * d + 1)
    n = (math.ceil(span / s) if ceil else span // s) + 1
    if ceil and (n - 1) * s >= size + lo:   # the last window must start inside the input
        n -= 1
    return n


def _pads(a, x, kernel, strides, dil):
    """[top, left, bottom, right] after auto_pad."""
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        p = [0] * 4
        for i in range(2):
            out = -(-x.shape[2 + i] // strides[i])
            total = max((out - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - x.shape[2 + i], 0)
            small = total // 2
            p[i], p[2 + i] = (small, total - small) if auto == "SAME_UPPER" else (total - small, small)
        return p
    if auto == "VALID":
        return [0] * 4
    return list(a.get("pads", [0] * 4))


def _windows(x, kernel, strides, dil, pads, ceil, fill):
    """Yields (i, j, patch) for every kernel offset: patch [N, C, OH, OW] of the padded input."""
    oh = _out_size(x.shape[2], kernel[0], strides[0], pads[0], pads[2], dil[0], ceil)
    ow = _out_size(x.shape[3], kernel[1], strides[1], pads[1], pads[3], dil[1], ceil)
    # pad generously at the end so ceil-mode windows can run past the input
    extra_h = max(0, (oh - 1) * strides[0] + (kernel[0] - 1) * dil[0] + 1 - (x.shape[2] + pads[0]))
    extra_w = max(0, (ow - 1) * strides[1] + (kernel[1] - 1) * dil[1] + 1 - (x.shape[3] + pads[1]))
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], extra_h), (pads[1], extra_w)), constant_values=fill)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            hi, wj = i * dil[0], j * dil[1]
            yield i, j, xp[:, :, hi:hi + strides[0] * (oh - 1) + 1:strides[0], wj:wj + strides[1] * (ow - 1) + 1:strides[1]]


def conv(x, w, b, a):
    strides = list(a.get("strides", [1, 1]))
    dil = list(a.get("dilations", [1, 1]))
    kernel = list(w.shape[2:])
    pads = _pads(a, x, kernel, strides, dil)
    group = a.get("group", 1)
    m, cg = w.shape[0], w.shape[1]
    mg = m // group
    out = None
    for i, j, patch in _windows(x, kernel, strides, dil, pads, False, 0.0):
        if out is None:
            out = np.zeros((x.shape[0], m) + patch.shape[2:])
        for g in range(group):
            out[:, g * mg:(g + 1) * mg] += np.einsum("nchw,mc->nmhw", patch[:, g * cg:(g + 1) * cg],
                                                     w[g * mg:(g + 1) * mg, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def pool(x, a, kind):
    kernel = list(a["kernel_shape"])
    strides = list(a.get("strides", [1, 1]))
    pads = _pads(a, x, kernel, strides, [1, 1])
    ceil = a.get("ceil_mode", 0)
    if kind == "max":
        return np.max([p for _, _, p in _windows(x, kernel, strides, [1, 1], pads, ceil, -np.inf)], axis=0)
    total = np.sum([p for _, _, p in _windows(x, kernel, strides, [1, 1], pads, ceil, 0.0)], axis=0)
    if a.get("count_include_pad", 0):
        # padded positions count; positions past the padding (ceil mode) do not
        ones = np.pad(np.ones_like(x), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=1.0)
        count = np.sum([p for _, _, p in _windows(ones, kernel, strides, [1, 1], [0] * 4, ceil, 0.0)], axis=0)
    else:
        count = np.sum([p for _, _, p in _windows(np.ones_like(x), kernel, strides, [1, 1], pads, ceil, 0.0)], axis=0)
    return total / count


def run(model, feeds):
    """Evaluates model on feeds (name -> array); returns {output name: float64 array}."""
    env = {i.name: numpy_helper.to_array(i).astype(np.float64) if numpy_helper.to_array(i).dtype.kind == "f"
           else numpy_helper.to_array(i) for i in model.graph.initializer}
    env.update({k: np.asarray(v, dtype=np.float64) for k, v in feeds.items()})
    for node in model.graph.node:
        a = _attrs(node)
        ins = [env[n] if n else None for n in node.input]
        op = node.op_type
        if op == "Conv":
            y = conv(ins[0], ins[1], ins[2] if len(ins) > 2 else None, a)
        elif op == "BatchNormalization":
            xx, s, bb, mean, var = ins
            sh = (1, -1, 1, 1) if xx.ndim == 4 else (1, -1)
            y = (xx - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + a.get("epsilon", 1e-5)) * s.reshape(sh) + bb.reshape(sh)
        elif op == "Relu":
            y = np.maximum(ins[0], 0)
        elif op == "Clip":
            lo = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("min", -np.inf)
            hi = ins[2] if len(ins) > 2 and ins[2] is not None else a.get("max", np.inf)
            y = np.clip(ins[0], lo, hi)
        elif op == "MaxPool":
            y = pool(ins[0], a, "max")
        elif op == "AveragePool":
            y = pool(ins[0], a, "avg")
        elif op == "GlobalAveragePool":
            y = ins[0].mean(axis=(2, 3), keepdims=True)
        elif op == "Add":
            y = ins[0] + ins[1]
        elif op == "Concat":
            y = np.concatenate([np.atleast_1d(v) for v in ins], axis=a["axis"])
        elif op == "Flatten":
            ax = a.get("axis", 1)
            y = ins[0].reshape(int(np.prod(ins[0].shape[:ax])), -1)
        elif op == "Reshape":
            y = ins[0].reshape([d if d != 0 else ins[0].shape[i] for i, d in enumerate(ins[1])])
        elif op == "Gemm":
            aa = ins[0].T if a.get("transA", 0) else ins[0]
            bb = ins[1].T if a.get("transB", 0) else ins[1]
            y = a.get("alpha", 1.0) * aa @ bb
            if len(ins) > 2 and ins[2] is not None:
                y = y + a.get("beta", 1.0) * ins[2]
        elif op == "MatMul":
            y = ins[0] @ ins[1]
        elif op == "Shape":
            y = np.array(ins[0].shape, dtype=np.int64)
        elif op == "Gather":
            y = np.take(ins[0], ins[1], axis=a.get("axis", 0))
        elif op == "Unsqueeze":
            y = ins[0]
            for ax in sorted(int(v) for v in ins[1]):
                y = np.expand_dims(y, ax)
        elif op in ("Identity", "Dropout"):
            y = ins[0]
        elif op == "Constant":
            y = numpy_helper.to_array(a["value"])
        else:
            raise NotImplementedError(op)
        env[node.output[0]] = y
    return {o.name: env[o.name] for o in model.graph.output}
