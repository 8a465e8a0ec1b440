#!/usr/bin/env python3
"""gen-nets.py: writes the shipped networks of workloads/nets/ (docs/NETJSON.md) and their table
in workloads/nets/README.md. Python 3 standard library only.

    python3 scripts/gen-nets.py [OUT_DIR]      (default workloads/nets)

Weights and biases are seeded ({"seed": N}), so every file stays small. The int8 networks get
scales from a statistical model of their activations: seeded int8 weights are uniform over
-128..127 (mean -0.5, mean square 5461.5) and independent of the inputs, so each conv/fc output
is modelled as a normal N(mu, sd^2) whose moments follow from the input's mean and mean square;
relu is applied to that normal exactly, pooling and adds approximately. Each weighted layer
gets He-like weight scales (sqrt(2/K)/73.9) and the output scale that puts |mu| + 4.2 sd at
127, so activations use the int8 range without saturating much; relu6 layers instead fix the
output scale at 6/100 (the clamp at 100 bites in the tails) and derive the weight scale.
`sacc ref NET --layer-stats` shows the outcome (README.md lists it).
"""
import json
import math
import os
import sys

W_MEAN, W_MSQ = -0.5, 5461.5            # seeded int8 weights: uniform over -128..127
B_MEAN, B_VAR = -0.5, (4096 ** 2 - 1) / 12  # seeded int32 bias: uniform over -2048..2047
SPAN = 4.2                              # |mu| + SPAN sd of a tensor maps to 127


def phi(z):
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def cdf(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def relu_moments(mu, sd):
    """Mean and mean square of relu(X), X ~ N(mu, sd^2)."""
    if sd <= 0:
        return max(mu, 0), max(mu, 0) ** 2
    z = mu / sd
    m = mu * cdf(z) + sd * phi(z)
    q = (mu * mu + sd * sd) * cdf(z) + mu * sd * phi(z)
    return m, q


def conv_out(h, k, s, lo, hi, d=1):
    return (h + lo + hi - ((k - 1) * d + 1)) // s + 1


def same_pad(h, k, s, d=1):
    out = (h + s - 1) // s
    total = max((out - 1) * s + (k - 1) * d + 1 - h, 0)
    return total // 2, total - total // 2


class Net:
    """Builds one net.json. Tensors are dicts: name, shape, s (scale or None), mu and q (real
    mean and mean square, the model above)."""

    def __init__(self, name, shape, scale, seed, comment=None, quantized=True):
        self.name, self.seed, self.quantized = name, seed, quantized
        self.layers, self.macs, self.weights = [], 0, 0
        self.count = {}
        # the seeded sacc ref input: int8 uniform over -128..127 times the scale
        self.x = dict(name="x", shape=list(shape), s=scale, mu=-0.5 * scale, q=W_MSQ * scale * scale)
        inp = {"name": "x", "shape": list(shape)}
        if scale is not None:
            inp["scale"] = scale
        self.inputs = [inp]
        self.comment = comment

    def _name(self, base):
        self.count[base] = self.count.get(base, 0) + 1
        return "%s%d" % (base, self.count[base])

    def _seed(self):
        self.seed += 1
        return self.seed

    def _add(self, layer, out):
        self.layers.append(layer)
        return out

    def _tensor(self, name, shape, s, mu, q):
        return dict(name=name, shape=shape, s=s, mu=mu, q=q)

    def conv(self, x, cout, k=3, stride=1, pad=0, groups=1, dil=1, act="relu", bias=True, name=None, kind="conv"):
        """conv2d (kind "conv") or fc (kind "fc", k ignored); pad: int, [t, b, l, r] or "same"."""
        name = name or self._name(kind)
        n = x["shape"][0]
        if kind == "fc":
            cin = 1
            for v in x["shape"][1:]:
                cin *= v
            K, shape = cin, [n, cout]
        else:
            h, w, cin = x["shape"][1:]
            if pad == "same":
                t, b = same_pad(h, k, stride, dil)
                l, r = same_pad(w, k, stride, dil)
            elif isinstance(pad, int):
                t = b = l = r = pad
            else:
                t, b, l, r = pad
            K = k * k * cin // groups
            shape = [n, conv_out(h, k, stride, t, b, dil), conv_out(w, k, stride, l, r, dil), cout]
        out_count = 1
        for v in shape:
            out_count *= v
        self.macs += out_count * K
        self.weights += K * cout
        layer = {"name": name, "op": "conv2d" if kind == "conv" else "fc", "inputs": [x["name"]], "output": name}
        if kind == "conv":
            layer["kernel"] = k
            if stride != 1:
                layer["stride"] = stride
            if pad != 0:
                layer["padding"] = pad
            if dil != 1:
                layer["dilation"] = dil
            if groups != 1:
                layer["groups"] = groups
        layer["cout"] = cout
        if not self.quantized:  # float weights: sacc quantizes them and calibrates the scales
            layer["weights"] = {"seed": self._seed(), "float": True}
            if bias:
                layer["bias"] = {"seed": self._seed(), "float": True}
            if act != "none":
                layer["activation"] = act
            return self._add(layer, self._tensor(name, shape, None, 0, 0))
        layer["weights"] = {"seed": self._seed()}
        s_in = x["s"]
        m_in, q_in = x["mu"] / s_in, x["q"] / s_in ** 2  # in input units
        mu_acc = K * W_MEAN * m_in + (B_MEAN if bias else 0)
        # The seeded weights' mean of -0.5 shifts every sum by -0.5 K mean(x), which would
        # push relu layers towards mostly zeros on deep fan-ins; the bias "offset" cancels it.
        offset = int(round(-mu_acc)) if bias else 0
        mu_acc += offset
        var_acc = K * (W_MSQ * q_in - W_MEAN ** 2 * m_in ** 2) + (B_VAR if bias else 0)
        sd_acc = math.sqrt(max(var_acc, 1.0))
        if act == "relu6":
            s_out = 0.06
            s_w = s_out * 127 / SPAN / (s_in * sd_acc)
        else:
            s_w = math.sqrt(2.0 / K) / 73.9
            s_out = s_in * s_w * (abs(mu_acc) + SPAN * sd_acc) / 127
        s_w = float("%.4g" % s_w)
        s_out = float("%.4g" % s_out)
        layer["scale"] = s_out
        layer["weight_scale"] = s_w
        if bias:
            layer["bias"] = {"seed": self._seed()}
            if offset:
                layer["bias"]["offset"] = offset
        if act != "none":
            layer["activation"] = act
        mu, sd = mu_acc * s_in * s_w, sd_acc * s_in * s_w
        m, q = relu_moments(mu, sd) if act in ("relu", "relu6") else (mu, mu * mu + sd * sd)
        return self._add(layer, self._tensor(name, shape, s_out, m, q))

    def fc(self, x, cout, act="relu", bias=True, name=None):
        return self.conv(x, cout, act=act, bias=bias, name=name, kind="fc")

    def batchnorm(self, x, name=None):
        name = name or self._name("bn")
        layer = {"name": name, "op": "batchnorm", "inputs": [x["name"]], "output": name}
        for key in ("gamma", "beta", "mean", "var"):
            layer[key] = {"seed": self._seed()}
        return self._add(layer, self._tensor(name, list(x["shape"]), None, 0, 0))

    def act(self, x, op="relu", name=None, **attrs):
        name = name or self._name(op)
        layer = {"name": name, "op": op, "inputs": [x["name"]], "output": name}
        layer.update(attrs)
        return self._add(layer, self._tensor(name, list(x["shape"]), x["s"], *relu_moments(x["mu"], math.sqrt(max(x["q"] - x["mu"] ** 2, 0)))))

    def pool(self, x, op, k, stride=None, pad=0, scale=None, count_include_pad=None, name=None):
        name = name or self._name("pool")
        h, w, c = x["shape"][1:]
        stride = stride or k
        t, b, l, r = [pad] * 4 if isinstance(pad, int) else pad
        shape = [x["shape"][0], conv_out(h, k, stride, t, b), conv_out(w, k, stride, l, r), c]
        layer = {"name": name, "op": op, "inputs": [x["name"]], "output": name, "kernel": k}
        if stride != k:
            layer["stride"] = stride
        if pad != 0:
            layer["padding"] = pad
        if count_include_pad is not None:
            layer["count_include_pad"] = count_include_pad
        mu, q = x["mu"], x["q"]
        sd = math.sqrt(max(q - mu * mu, 0))
        if op == "maxpool":  # max of n values of a relu'd normal: shift the mean by ~1 sd
            n = k * k
            c_n = {1: 0.0, 4: 1.03, 9: 1.49}.get(n, 1.5)
            mu, sd = mu + c_n * sd, sd * 0.6
            s = x["s"] if scale is None else scale
        else:  # neighbours are correlated: the spread shrinks less than by sqrt(n)
            sd = sd / (k * k) ** 0.25
            s = scale
        if self.quantized and s is None:
            s = float("%.4g" % ((abs(mu) + SPAN * sd) / 127))
        if self.quantized and (op != "maxpool" or scale is not None):
            layer["scale"] = s
        return self._add(layer, self._tensor(name, shape, s, mu, mu * mu + sd * sd))

    def gap(self, x, name=None):
        name = name or self._name("gap")
        n, h, w, c = x["shape"]
        layer = {"name": name, "op": "global_avgpool", "inputs": [x["name"]], "output": name}
        mu, q = x["mu"], x["q"]
        sd = math.sqrt(max(q - mu * mu, 0)) * 0.7  # channels differ by their weights: little averages out
        s = None
        if self.quantized:
            s = float("%.4g" % ((abs(mu) + SPAN * sd) / 127))
            layer["scale"] = s
        return self._add(layer, self._tensor(name, [n, 1, 1, c], s, mu, mu * mu + sd * sd))

    def add(self, a, b, act="relu", name=None):
        name = name or self._name("add")
        layer = {"name": name, "op": "add", "inputs": [a["name"], b["name"]], "output": name}
        mu = a["mu"] + b["mu"]
        var = max(a["q"] - a["mu"] ** 2, 0) + max(b["q"] - b["mu"] ** 2, 0)
        sd = math.sqrt(var)
        s = None
        if self.quantized:
            s = float("%.4g" % ((abs(mu) + SPAN * sd) / 127))
            layer["scale"] = s
        if act != "none":
            layer["activation"] = act
        m, q = relu_moments(mu, sd) if act == "relu" else (mu, mu * mu + var)
        return self._add(layer, self._tensor(name, list(a["shape"]), s, m, q))

    def concat(self, xs, scale=None, name=None):
        name = name or self._name("cat")
        layer = {"name": name, "op": "concat", "inputs": [x["name"] for x in xs], "output": name}
        if scale is not None:
            layer["scale"] = scale
        s = scale if scale is not None else xs[0]["s"]
        shape = list(xs[0]["shape"])
        shape[-1] = sum(x["shape"][-1] for x in xs)
        mu = sum(x["mu"] for x in xs) / len(xs)
        q = sum(x["q"] for x in xs) / len(xs)
        return self._add(layer, self._tensor(name, shape, s, mu, q))

    def flatten(self, x, name=None):
        name = name or self._name("flat")
        n = 1
        for v in x["shape"][1:]:
            n *= v
        return self._add({"name": name, "op": "flatten", "inputs": [x["name"]], "output": name},
                         self._tensor(name, [x["shape"][0], n], x["s"], x["mu"], x["q"]))

    def reshape(self, x, shape, name=None):
        name = name or self._name("reshape")
        return self._add({"name": name, "op": "reshape", "inputs": [x["name"]], "output": name, "shape": shape},
                         self._tensor(name, [v for v in shape], x["s"], x["mu"], x["q"]))

    def write(self, path, outputs):
        lines = ['{', '  "name": %s,' % json.dumps(self.name)]
        if self.comment:
            lines.append('  "comment": %s,' % json.dumps(self.comment))
        lines.append('  "inputs": [%s],' % ", ".join(json.dumps(i) for i in self.inputs))
        lines.append('  "layers": [')
        lines.append(",\n".join("    " + json.dumps(l) for l in self.layers))
        lines.append('  ],')
        lines.append('  "outputs": [%s]' % ", ".join(json.dumps(o["name"]) for o in outputs))
        lines.append('}')
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")


# ---- the classic networks --------------------------------------------------------------------

def lenet5():
    n = Net("lenet5", [1, 32, 32, 1], 0.02, 1000,
            "LeNet-5 (LeCun 1998) with relu and average-pool subsampling")
    x = n.conv(n.x, 6, k=5, name="conv1")
    x = n.pool(x, "avgpool", 2, name="pool1")
    x = n.conv(x, 16, k=5, name="conv2")
    x = n.pool(x, "avgpool", 2, name="pool2")
    x = n.flatten(x, name="flat")
    x = n.fc(x, 120, name="fc1")
    x = n.fc(x, 84, name="fc2")
    x = n.fc(x, 10, act="none", name="fc3")
    return n, [x]


def alexnet():
    n = Net("alexnet", [1, 224, 224, 3], 0.02, 2000, "AlexNet, the torchvision single-tower variant")
    x = n.conv(n.x, 64, k=11, stride=4, pad=2, name="conv1")
    x = n.pool(x, "maxpool", 3, 2, name="pool1")
    x = n.conv(x, 192, k=5, pad=2, name="conv2")
    x = n.pool(x, "maxpool", 3, 2, name="pool2")
    x = n.conv(x, 384, k=3, pad=1, name="conv3")
    x = n.conv(x, 256, k=3, pad=1, name="conv4")
    x = n.conv(x, 256, k=3, pad=1, name="conv5")
    x = n.pool(x, "maxpool", 3, 2, name="pool5")
    x = n.flatten(x, name="flat")
    x = n.fc(x, 4096, name="fc6")
    x = n.fc(x, 4096, name="fc7")
    x = n.fc(x, 1000, act="none", name="fc8")
    return n, [x]


def vgg16():
    n = Net("vgg16", [1, 224, 224, 3], 0.02, 3000, "VGG-16 (configuration D)")
    x = n.x
    for stage, (c, reps) in enumerate([(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)], 1):
        for r in range(1, reps + 1):
            x = n.conv(x, c, k=3, pad=1, name="conv%d_%d" % (stage, r))
        x = n.pool(x, "maxpool", 2, name="pool%d" % stage)
    x = n.flatten(x, name="flat")
    x = n.fc(x, 4096, name="fc6")
    x = n.fc(x, 4096, name="fc7")
    x = n.fc(x, 1000, act="none", name="fc8")
    return n, [x]


def resnet18():
    """Float weights and batchnorm layers: sacc folds, quantizes and calibrates (no scales)."""
    n = Net("resnet18", [1, 224, 224, 3], 0.02, 4000,
            "ResNet-18 with float weights and batch norm layers: sacc folds the batch norms, "
            "quantizes the weights and calibrates every activation scale", quantized=False)

    def cbn(x, cout, k, stride, pad, relu, name):
        x = n.conv(x, cout, k=k, stride=stride, pad=pad, act="none", bias=False, name=name)
        x = n.batchnorm(x, name=name + "_bn")
        return n.act(x, "relu", name=name + "_relu") if relu else x

    x = cbn(n.x, 64, 7, 2, 3, True, "conv1")
    x = n.pool(x, "maxpool", 3, 2, 1, name="pool1")
    for stage, c in enumerate([64, 128, 256, 512], 1):
        for blk in range(2):
            stride = 2 if stage > 1 and blk == 0 else 1
            base = "layer%d_%d" % (stage, blk)
            y = cbn(x, c, 3, stride, 1, True, base + "_conv1")
            y = cbn(y, c, 3, 1, 1, False, base + "_conv2")
            if stride != 1 or x["shape"][3] != c:
                x = cbn(x, c, 1, stride, 0, False, base + "_down")
            x = n.add(y, x, name=base + "_add")
    x = n.gap(x, name="gap")
    x = n.flatten(x, name="flat")
    x = n.fc(x, 1000, act="none", name="fc")
    return n, [x]


def resnet50():
    n = Net("resnet50", [1, 224, 224, 3], 0.02, 5000, "ResNet-50 v1.5 (stride in the 3x3 convolutions)")
    x = n.conv(n.x, 64, k=7, stride=2, pad=3, name="conv1")
    x = n.pool(x, "maxpool", 3, 2, 1, name="pool1")
    for stage, (c, reps) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)], 1):
        for blk in range(reps):
            stride = 2 if stage > 1 and blk == 0 else 1
            base = "layer%d_%d" % (stage, blk)
            y = n.conv(x, c, k=1, name=base + "_conv1")
            y = n.conv(y, c, k=3, stride=stride, pad=1, name=base + "_conv2")
            y = n.conv(y, 4 * c, k=1, act="none", name=base + "_conv3")
            if blk == 0:
                x = n.conv(x, 4 * c, k=1, stride=stride, act="none", name=base + "_down")
            x = n.add(y, x, name=base + "_add")
    x = n.gap(x, name="gap")
    x = n.flatten(x, name="flat")
    x = n.fc(x, 1000, act="none", name="fc")
    return n, [x]


def mobilenetv2():
    n = Net("mobilenetv2", [1, 224, 224, 3], 0.02, 6000, "MobileNetV2 (width 1.0)")
    x = n.conv(n.x, 32, k=3, stride=2, pad=1, act="relu6", name="conv1")
    cin = 32
    blocks = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    for b, (t, c, reps, s) in enumerate(blocks, 1):
        for r in range(reps):
            stride = s if r == 0 else 1
            base = "block%d_%d" % (b, r)
            y = x
            if t != 1:
                y = n.conv(y, cin * t, k=1, act="relu6", name=base + "_expand")
            y = n.conv(y, cin * t, k=3, stride=stride, pad=1, groups=cin * t, act="relu6", name=base + "_dw")
            y = n.conv(y, c, k=1, act="none", name=base + "_project")
            x = n.add(y, x, act="none", name=base + "_add") if stride == 1 and cin == c else y
            cin = c
    x = n.conv(x, 1280, k=1, act="relu6", name="conv_last")
    x = n.gap(x, name="gap")
    x = n.flatten(x, name="flat")
    x = n.fc(x, 1000, act="none", name="fc")
    return n, [x]


# ---- small edge cases: each a few layers, milliseconds in sacc ref ----------------------------

def edge_odd():
    n = Net("edge_odd", [1, 13, 13, 5], 0.03, 100, "odd sizes: 13x13 and 7x7 maps, a 7x7 kernel over a whole 7x7 map, 5, 17, 33 and 3 channels, stride 2")
    a = n.conv(n.x, 17, k=3, stride=2, pad=1, name="c13")   # 13x13 -> 7x7
    b = n.conv(a, 3, k=7, name="c7")                         # 7x7 kernel on 7x7 -> 1x1
    c = n.conv(a, 33, k=3, name="c5")                        # 7x7 -> 5x5, 33 channels
    return n, [b, c]


def edge_padding():
    n = Net("edge_padding", [1, 9, 11, 3], 0.03, 200, "asymmetric explicit padding and \"same\" with strides 1 and 2")
    a = n.conv(n.x, 8, k=3, pad=[0, 2, 1, 0], name="asym")
    b = n.conv(n.x, 5, k=4, stride=2, pad="same", name="same_s2")   # even kernel: the odd pad at the end
    c = n.conv(n.x, 4, k=5, pad="same", act="none", name="same_s1")
    return n, [a, b, c]


def edge_dilation():
    n = Net("edge_dilation", [1, 12, 12, 4], 0.03, 300, "dilated convolutions: dilation 2 with explicit padding, dilation 3 with \"same\"")
    a = n.conv(n.x, 6, k=3, dil=2, pad=2, name="dil2")
    b = n.conv(a, 5, k=3, dil=3, pad="same", name="dil3_same")
    return n, [b]


def edge_channels():
    n = Net("edge_channels", [1, 6, 6, 3], 0.03, 400, "channel counts off every power of two: 3 -> 5 -> 17 -> 33 -> fc 7")
    x = n.conv(n.x, 5, k=3, pad=1, name="c5")
    x = n.conv(x, 17, k=1, name="c17")
    x = n.conv(x, 33, k=3, name="c33")
    x = n.flatten(x, name="flat")
    x = n.fc(x, 7, act="none", name="fc7")
    return n, [x]


def edge_depthwise():
    n = Net("edge_depthwise", [1, 10, 10, 6], 0.03, 500, "depthwise (groups = cin), multiplier 2 (cout = 2 cin), grouped conv")
    a = n.conv(n.x, 6, k=3, pad=1, groups=6, name="dw")
    b = n.conv(a, 12, k=3, stride=2, pad="same", groups=6, name="dw_x2")
    c = n.conv(b, 9, k=1, groups=3, name="grouped")
    return n, [c]


def edge_residual():
    n = Net("edge_residual", [1, 7, 7, 8], 0.03, 600, "residual add with relu; and an add without activation")
    a = n.conv(n.x, 8, k=3, pad=1, name="c1")
    b = n.conv(a, 8, k=3, pad=1, act="none", name="c2")
    s = n.add(b, n.x, name="sum_relu")
    t = n.add(s, a, act="none", name="sum_plain")
    return n, [t]


def edge_concat():
    n = Net("edge_concat", [1, 5, 5, 4], 0.03, 700, "concat of equal scales (copy) and of different scales (rescale)")
    a = n.conv(n.x, 3, k=1, name="a")
    b = n.conv(n.x, 5, k=3, pad=1, name="b")
    b["s"] = a["s"]
    n.layers[-1]["scale"] = a["s"]   # same scale as a: the concat is a copy
    c = n.conv(n.x, 6, k=3, pad=1, act="none", name="c")
    eq = n.concat([a, b], name="cat_equal")
    diff = n.concat([a, c, n.x], scale=c["s"], name="cat_rescale")
    return n, [eq, diff]


def edge_pooling():
    n = Net("edge_pooling", [1, 9, 9, 5], 0.03, 800, "max and average pooling with padding, overlapping windows, count_include_pad both ways")
    x = n.conv(n.x, 5, k=3, pad=1, name="c")
    a = n.pool(x, "maxpool", 3, 2, 1, name="max_pad")
    b = n.pool(x, "avgpool", 3, 2, 1, name="avg_incl")
    c = n.pool(x, "avgpool", 2, 2, [0, 1, 0, 1], count_include_pad=False, name="avg_excl")
    d = n.pool(x, "maxpool", 2, name="max_plain")
    return n, [a, b, c, d]


def edge_gap_fc():
    n = Net("edge_gap_fc", [1, 7, 7, 16], 0.03, 900, "global average pooling, flatten, fc; fc straight on a rank-4 map")
    x = n.conv(n.x, 24, k=3, pad=1, name="c")
    g = n.gap(x, name="gap")
    f = n.flatten(g, name="flat")
    y = n.fc(f, 10, act="none", name="fc")
    z = n.fc(x, 4, act="relu", name="fc_map")   # fc reads all of H*W*C, NHWC order
    return n, [y, z]


def edge_activations():
    n = Net("edge_activations", [1, 6, 6, 4], 0.05, 1100, "relu6 fused and standalone, clip fused and standalone, relu standalone")
    a = n.conv(n.x, 8, k=3, pad=1, act="relu6", name="c_relu6")
    b = n.conv(n.x, 8, k=3, pad=1, act="none", name="c_lin")
    r6 = n.act(b, "relu6", name="relu6")
    cl = n.act(b, "clip", name="clip", min=-0.5, max=1.5)
    r = n.act(b, "relu", name="relu")
    c = n.conv(n.x, 4, k=1, act="clip", name="c_clip")
    n.layers[-1].update({"min": -1.0, "max": 2.0})
    return n, [a, r6, cl, r, c]


def edge_reshape():
    n = Net("edge_reshape", [1, 4, 4, 6], 0.03, 1200, "reshape between rank 4 and rank 2, with -1")
    x = n.conv(n.x, 8, k=3, pad=1, name="c")
    r = n.reshape(x, [1, 8, 2, 8], name="r4")
    y = n.conv(r, 4, k=2, stride=2, name="c2")
    f = n.reshape(y, [1, -1], name="r2")
    f["shape"] = [1, 4 * 1 * 4]
    z = n.fc(f, 5, act="none", name="fc")
    return n, [z]


def edge_outputs():
    n = Net("edge_outputs", [1, 6, 6, 4], 0.05, 1400,
            "every op as a network output, some also read by later layers (no fusion across an output)")
    c = n.conv(n.x, 8, k=3, pad=1, act="none", name="conv")
    r = n.act(c, "relu", name="relu")
    r6 = n.act(c, "relu6", name="relu6")
    cl = n.act(c, "clip", name="clip", min=-0.5, max=1.0)
    mp = n.pool(r, "maxpool", 2, name="maxpool")
    ap = n.pool(r, "avgpool", 3, stride=1, pad=1, name="avgpool")
    g = n.gap(r, name="gap")
    c1 = n.conv(n.x, 8, k=1, act="none", name="conv1x1")
    a = n.add(c, c1, act="none", name="add")
    cat = n.concat([r, r6], name="concat")
    fl = n.flatten(mp, name="flatten")
    r4 = n.reshape(c, [1, 12, 3, 8], name="reshape44")
    r2 = n.reshape(ap, [1, 288], name="reshape42")
    f2 = n.flatten(r, name="flatten_r")
    r24 = n.reshape(f2, [1, 6, 12, 4], name="reshape24")
    f = n.fc(fl, 5, act="none", name="fc")
    return n, [c, r, r6, cl, mp, ap, g, a, cat, fl, r4, r2, r24, f]


def edge_float_bn():
    n = Net("edge_float_bn", [1, 8, 8, 3], 0.03, 1300,
            "float weights, batchnorm and bias folding, calibrated scales", quantized=False)
    x = n.conv(n.x, 8, k=3, pad=1, act="none", bias=True, name="c1")
    x = n.batchnorm(x, name="bn1")
    x = n.act(x, "relu", name="r1")
    y = n.conv(x, 8, k=3, pad=1, act="none", bias=False, name="c2")
    y = n.batchnorm(y, name="bn2")
    n.layers.append({"name": "b2", "op": "bias", "inputs": ["bn2"], "output": "b2", "bias": {"seed": 1399}})
    y = dict(y, name="b2")
    s = n.add(y, x, name="sum")
    g = n.gap(s, name="gap")
    f = n.flatten(g, name="flat")
    z = n.fc(f, 5, act="none", name="fc")
    z2 = n.fc(f, 5, act="none", bias=False, name="fc_bn")
    z2 = n.batchnorm(z2, name="fc_bn_bn")
    return n, [z, z2]


# The hand-written examples (not generated): name, input, layers, MACs, weights, what.
HAND = [("tiny_cnn", "1x8x8x3", 5, 19072, 2008, "hand-written: conv + maxpool + strided conv with asymmetric padding + fc"),
        ("residual", "1x6x6x8", 4, 41472, 1152, "hand-written: residual add of different scales, global average pool "
         "(hand-picked scales: 3% of conv_a saturates, `sacc check` 14.5 dB)"),
        ("depthwise", "1x9x9x4", 5, 6900, 276, "hand-written: depthwise, dilation, concat, avgpool without padding count "
         "(hand-picked scales: 14% of dw saturates, 13 dB)"),
        ("fullbasic", "1x3x3x1", 4, 2432, 2432, "hand-written: the lectures' FullBasicModel (conv 1->128 3x3, relu, fc "
         "128->10, softmax on the special-function unit), float weights, calibrated scales"),
        ("se_block", "1x20x17x24", 8, 288, 288, "hand-written: a squeeze-excitation block (global average pool over "
         "20x17, folded; fc, relu, fc, h-sigmoid gate, mul broadcast over the map, h-swish on the special-function unit)")]

README_HEAD = """# workloads/nets: the shipped networks

Every file here is a net.json (docs/NETJSON.md). All but the five hand-written examples are
written by `python3 scripts/gen-nets.py` (standard library only), which also writes this page:
edit the script, not the files. Weights and biases are seeded (`{"seed": N}`), so the files stay
a few kilobytes; `sacc ref NET.json` prints the reference output's crc32 (the goldens are
`tests/golden/NET.ref.txt`), `sacc ref NET.json --layer-stats` the health of every layer, and
`sacc check NET.json` the int8 network's error against the float reference.

- The big networks have batch 1 and ImageNet-sized inputs (224x224x3), LeNet-5 32x32x1.
  `alexnet`, `vgg16`, `resnet50`, `mobilenetv2` and `lenet5` are int8 networks with scales
  chosen by the script's statistical model (see its header): in `--layer-stats`, relu layers
  show 50% to 65% zeros (the relu of a zero-mean sum; random weights give some channels a
  negative offset) and at most 2% of any layer saturates (most layers: none).
- `resnet18` is the float network: float weights (`{"seed": N, "float": true}`), batch norm
  layers with seeded float parameters, and no activation scales at all. `sacc` folds each
  batchnorm into its convolution, quantizes the weights per output channel and calibrates
  every scale on the calibration input (`--calib`, or the generated one). `edge_float_bn` is
  its small twin (also a standalone `bias` layer, a batchnorm after an fc).
- The `edge_*` networks are small (milliseconds in `sacc ref`), each aimed at a few
  corner cases of the lowering, listed below.
- `sacc check` (SQNR of the int8 output against the float reference, generated input): lenet5
  28.8 dB, alexnet 32.5, vgg16 30.9, resnet18 35.8, resnet50 24.3, mobilenetv2 31.2; every
  small generated network is above 20 dB (tests/compiler/ref_float_test.c checks it).

"""

README_TAIL = """
Timings of `sacc ref` (the int8 reference, one core, `-O3`, an x86-64 server, quiet machine):
resnet50 0.6 s, vgg16 2.2 s, alexnet 0.3 s, mobilenetv2 0.15 s, resnet18 0.8 s (with its
calibration run); `sacc check` runs both references, about twice that.
"""

BIG = [lenet5, alexnet, vgg16, resnet18, resnet50, mobilenetv2]
EDGE = [edge_odd, edge_padding, edge_dilation, edge_channels, edge_depthwise, edge_residual, edge_concat,
        edge_pooling, edge_gap_fc, edge_activations, edge_reshape, edge_outputs, edge_float_bn]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "workloads/nets"
    os.makedirs(out, exist_ok=True)
    rows = []
    for make in BIG + EDGE:
        n, outputs = make()
        n.write(os.path.join(out, n.name + ".json"), outputs)
        shape = "x".join(str(v) for v in n.x["shape"])
        rows.append((n.name, shape, len(n.layers), n.macs, n.weights, n.comment or ""))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(README_HEAD)
        f.write("| net | input (NHWC) | layers | MACs | weights | what it exercises |\n|---|---|---|---|---|---|\n")
        for r in rows + HAND:
            f.write("| `%s` | %s | %d | %s | %s | %s |\n" % (r[0], r[1], r[2], "{:,}".format(r[3]), "{:,}".format(r[4]), r[5]))
        f.write(README_TAIL)
    print("wrote %d networks to %s" % (len(rows), out))


if __name__ == "__main__":
    main()
