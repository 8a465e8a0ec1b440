"""models.py: small ONNX models built with onnx.helper (no torch) for tests/cli/onnx.sh.

Each builder returns (name, ModelProto); weights are seeded numpy values. Together they cover
the ops scripts/onnx2net converts: Conv (groups, pads, strides, dilations, auto_pad),
BatchNormalization, Relu, Clip (inputs and attributes), MaxPool/AveragePool (padding,
ceil_mode, count_include_pad), GlobalAveragePool, Add (of tensors and of a per-channel
constant), Concat, Flatten, Reshape, Gemm (transB, alpha, beta), MatMul, Identity, Dropout,
Constant, and the Shape/Gather/Unsqueeze/Concat arithmetic of x.view(n, -1). BAD lists models that must be refused, with the message expected.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper


class Builder:
    """Collects nodes and initializers of one graph."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def init(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name))
        return name

    def inits_int(self, name, values):
        self.inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))
        return name

    def weights(self, name, shape, fan_in):
        return self.init(name, self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in))

    def node(self, op, inputs, name=None, **attrs):
        self.count += 1
        out = "%s_out%d" % (op.lower(), self.count)
        self.nodes.append(helper.make_node(op, inputs, [out], name=name or "%s_%d" % (op, self.count), **attrs))
        return out

    def conv(self, x, cin, cout, k, bias=True, group=1, **attrs):
        self.count += 1
        kh, kw = (k, k) if isinstance(k, int) else k
        w = self.weights("w%d" % self.count, [cout, cin // group, kh, kw], kh * kw * cin // group)
        ins = [x, w]
        if bias:
            ins.append(self.init("b%d" % self.count, self.rng.uniform(-0.2, 0.2, cout)))
        return self.node("Conv", ins, kernel_shape=[kh, kw], group=group, **attrs)

    def bn(self, x, c):
        self.count += 1
        r = self.rng
        ins = [x] + [self.init("%s%d" % (p, self.count), v) for p, v in
                     (("gamma", r.uniform(0.5, 1.5, c)), ("beta", r.uniform(-0.3, 0.3, c)),
                      ("mean", r.uniform(-0.2, 0.2, c)), ("var", r.uniform(0.5, 1.5, c)))]
        return self.node("BatchNormalization", ins, epsilon=1e-3)

    def model(self, name, inputs, outputs, opset=13):
        g = helper.make_graph(self.nodes, name,
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
                              self.inits)
        return name, helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def conv_geometry():
    b = Builder(1)
    x = b.conv("input.1", 3, 8, 3, pads=[1, 1, 1, 1])
    x = b.node("Relu", [x])
    y = b.conv(x, 8, 8, 3, strides=[2, 2], pads=[0, 1, 1, 0])      # asymmetric padding, stride 2
    z = b.conv(x, 8, 6, 3, dilations=[2, 2], pads=[2, 2, 2, 2])    # dilation
    v = b.conv(x, 8, 5, [3, 1], auto_pad="SAME_UPPER", strides=[2, 1])  # auto_pad, non-square
    return b.model("conv_geometry", [("input.1", [1, 3, 11, 9])], [y, z, v])


def grouped():
    b = Builder(2)
    x = b.conv("x", 4, 8, 1)
    x = b.node("Relu", [x])
    dw = b.conv(x, 8, 8, 3, group=8, pads=[1, 1, 1, 1])               # depthwise
    mult = b.conv(x, 8, 16, 3, group=8, strides=[2, 2])              # depth multiplier 2
    grp = b.conv(x, 8, 6, 3, group=2, pads=[1, 1, 1, 1], bias=False)  # 2 groups
    return b.model("grouped", [("x", [1, 4, 9, 9])], [dw, mult, grp])


def bn_clip():
    b = Builder(3)
    x = b.conv("x", 3, 8, 3, bias=False, pads=[1, 1, 1, 1])
    x = b.bn(x, 8)
    x = b.node("Clip", [x, b.init("zero_s", np.float32(0)), b.init("six_s", np.float32(6))])  # relu6
    y = b.conv(x, 8, 8, 3, pads=[1, 1, 1, 1])
    y = b.bn(y, 8)
    lo = b.node("Constant", [], value=numpy_helper.from_array(np.array(-0.5, dtype=np.float32)))
    hi = b.node("Constant", [], value=numpy_helper.from_array(np.array(1.5, dtype=np.float32)))
    y = b.node("Clip", [y, lo, hi])
    z = b.node("Clip", [y, b.init("zero2", np.float32(0)), ""])      # min only: a relu
    return b.model("bn_clip", [("x", [1, 3, 8, 8])], [y, z])


def clip_attrs():
    b = Builder(4)
    x = b.conv("x", 3, 6, 3)
    x = b.node("Dropout", [x])
    x = b.node("Clip", [x], min=-0.5, max=1.5)                      # opset 10: attributes
    x = b.node("Identity", [x])
    return b.model("clip_attrs", [("x", [1, 3, 7, 7])], [x], opset=10)


def pools():
    b = Builder(5)
    x = b.conv("x", 3, 6, 3, pads=[1, 1, 1, 1])
    x = b.node("Relu", [x])
    m = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    a1 = b.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1)
    a0 = b.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cat = b.node("Concat", [m, a1, a0], axis=1)
    mc = b.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)       # 9 -> 5
    ac = b.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)   # 9 -> 4
    ap = b.node("AveragePool", [x], kernel_shape=[2, 2])                               # stride 1
    g = b.node("GlobalAveragePool", [x])
    return b.model("pools", [("x", [1, 3, 9, 9])], [cat, mc, ac, ap, g])


def residual_gemm():
    b = Builder(6)
    x = b.conv("x", 4, 8, 3, pads=[1, 1, 1, 1])
    x = b.node("Relu", [x])
    y = b.conv(x, 8, 8, 3, pads=[1, 1, 1, 1])
    s = b.node("Add", [x, y])
    s = b.node("Relu", [s])
    c = b.node("Concat", [s, x], axis=-3)
    g = b.node("GlobalAveragePool", [c])
    f = b.node("Flatten", [g])
    w = b.weights("fc_w", [5, 16], 16)
    out = b.node("Gemm", [f, w, b.init("fc_b", b.rng.uniform(-0.2, 0.2, [1, 5]))], transB=1, alpha=0.5, beta=2.0)
    return b.model("residual_gemm", [("x", [1, 4, 6, 6])], [out])


def fc_flatten(flat_output=False):
    b = Builder(7)
    x = b.conv("x", 3, 6, 3, strides=[2, 2])
    x = b.node("Relu", [x])                                          # [1, 6, 4, 4]
    f = b.node("Flatten", [x])                                       # CHW order: rows permuted
    h = b.node("Gemm", [f, b.weights("g_w", [96, 12], 96), b.init("g_b", b.rng.uniform(-0.1, 0.1, 12))])
    h = b.node("Relu", [h])
    m = b.node("MatMul", [h, b.weights("mm_w", [12, 7], 12)])
    m = b.node("Add", [m, b.init("mm_b", b.rng.uniform(-0.2, 0.2, 7))])   # bias layer
    if flat_output:   # the flattened map itself as an output: its element order is CHW
        return b.model("bad_flat_output", [("x", [1, 3, 9, 9])], [m, f])
    return b.model("fc_flatten", [("x", [1, 3, 9, 9])], [m])


def fc_reshape():
    b = Builder(8)
    x = b.conv("x", 3, 4, 3, pads=[1, 1, 1, 1])
    x = b.node("Relu", [x])
    shape = b.node("Constant", [], value=numpy_helper.from_array(np.array([1, -1], dtype=np.int64)))
    r = b.node("Reshape", [x, shape])
    m = b.node("MatMul", [r, b.weights("mm_w", [4 * 5 * 5, 6], 100)])
    return b.model("fc_reshape", [("x", [1, 3, 5, 5])], [m])


def view_flatten():
    """x.view(x.size(0), -1) as older torch exports write it: Shape, Gather, Unsqueeze, Concat,
    Reshape, all folded to a constant shape."""
    b = Builder(13)
    x = b.conv("x", 3, 4, 3)
    x = b.node("Relu", [x])                                          # [1, 4, 4, 4]
    shape = b.node("Shape", [x])
    n = b.node("Gather", [shape, b.inits_int("zero_i", 0)], axis=0)
    n = b.node("Unsqueeze", [n, b.inits_int("axes0", [0])])
    cat = b.node("Concat", [n, b.inits_int("minus1", [-1])], axis=0)
    r = b.node("Reshape", [x, cat])
    out = b.node("Gemm", [r, b.weights("v_w", [6, 64], 64)], transB=1)
    return b.model("view_flatten", [("x", [1, 3, 6, 6])], [out])


GOOD = [conv_geometry, grouped, bn_clip, clip_attrs, pools, residual_gemm, fc_flatten, fc_reshape, view_flatten]


def bad_op():
    b = Builder(9)
    x = b.conv("x", 3, 4, 3)
    y = b.node("Tanh", [x], name="the_tanh")
    return b.model("bad_op", [("x", [1, 3, 6, 6])], [y])


def bad_flat_output():
    return fc_flatten(flat_output=True)


def bad_weights():
    b = Builder(10)
    y = b.node("Conv", ["x", "w"], name="dyn_conv", kernel_shape=[3, 3])   # weights as a graph input
    return b.model("bad_weights", [("x", [1, 3, 6, 6]), ("w", [1, 3, 3, 3])], [y])


def bad_clip():
    b = Builder(11)
    x = b.conv("x", 3, 4, 3)
    y = b.node("Clip", [x, b.init("lo", np.float32(-1)), ""], name="half_clip")
    return b.model("bad_clip", [("x", [1, 3, 6, 6])], [y])


def bad_avg_ceil():
    b = Builder(12)
    x = b.conv("x", 3, 4, 3)
    y = b.node("AveragePool", [x], name="ceil_avg", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
               ceil_mode=1, count_include_pad=1)
    return b.model("bad_avg_ceil", [("x", [1, 3, 10, 10])], [y])   # 8x8: ceil gives 5, floor 4


# (builder, pattern the error message must match)
BAD = [(bad_op, r'node "the_tanh" \(Tanh\): error: unsupported op Tanh'),
       (bad_flat_output, r'graph output .* is a flattened 6x4x4 map'),
       (bad_weights, r'node "dyn_conv" \(Conv\): error: weight .* is not a constant'),
       (bad_clip, r'node "half_clip" \(Clip\): error: a clip needs both min and max'),
       (bad_avg_ceil, r'node "ceil_avg" \(AveragePool\): error: ceil_mode=1 with count_include_pad=1')]
