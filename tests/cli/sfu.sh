#!/bin/sh
# sfu.sh BUILD_DIR: the special-function unit's ops (issue 16, docs/NETJSON.md "Sequences and
# transformer ops"). tests/compiler/nets/sfu_ops.json (every op) runs on `sacc ref` with the
# outputs of tests/golden/sfu_ops.ref.txt (the exact integer arithmetic, frozen), `sacc check`
# accepts it, and the program `sacc compile` makes of it prints those outputs in ws, os and is
# (the tiny arch refuses its layernorm, naming the layer; tests/cli/sfu_compile.sh has more).
# With python3-onnx: onnx2net's errors on the new ops name the node. With PyTorch (make
# test-onnx installs it): tests/onnx/sfu_models.py, FullBasicModel, a BERT-style encoder layer
# and a squeeze-excitation block against torch's float output, each compiled and run in sasim
# (its output equal to sacc ref's); without it, SKIP.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
PY=/usr/bin/python3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=sfu
. tests/cli/lib.sh
NET=tests/compiler/nets/sfu_ops.json

$SACC ref $NET >"$T/ref.out" 2>&1
if cmp -s "$T/ref.out" tests/golden/sfu_ops.ref.txt; then pass ref-golden
else fail ref-golden "sacc ref outputs differ: $(diff tests/golden/sfu_ops.ref.txt "$T/ref.out" | head -4 | tr '\n' ' ')"; fi
expect check 0 'sqnr' -- $SACC check $NET
# Compiled in every dataflow, the program prints the golden outputs; on the tiny arch (8 PARAM
# rows) the layernorm's 16 channels need 12 parameter rows: refused naming the layer.
for df in ws os is; do
  if $SACC compile $NET --dataflow $df -o "$T/x.bin" >"$T/err" 2>&1 && $SASIM run "$T/x.bin" >"$T/run.out" 2>"$T/err"; then
    grep '^output ' "$T/run.out" | sort >"$T/got"; grep '^output ' tests/golden/sfu_ops.ref.txt | sort >"$T/want"
    if cmp -s "$T/got" "$T/want"; then pass "compile-run-$df"
    else fail "compile-run-$df" "outputs differ from tests/golden/sfu_ops.ref.txt: $(diff "$T/want" "$T/got" | head -4 | tr '\n' ' ')"; fi
  else fail "compile-run-$df" "$(head -c 300 "$T/err")"; fi
done
rm -f "$T/x.bin"
expect compile-refused-tiny 1 'sfu_ops.json: layers\[0\] "ln": error: layernorm row of 16 values needs 12 parameter rows \(3 per 4 channels\), more than arch "tiny" has \(param.rows 8\)' -- \
  $SACC compile $NET --arch workloads/arch/tiny.json -o "$T/x.bin"
if [ -e "$T/x.bin" ]; then fail compile-no-output "a program was written"; else pass compile-no-output; fi

if ! $PY -c 'import onnx, numpy' >/dev/null 2>&1; then
  echo "SKIP sfu-onnx2net: python3-onnx not installed (make deps-onnx)"
else
  # onnx2net refusals on the new ops: each names the node and its op type
  $PY - "$T" <<'PYEOF'
import sys
import onnx
from onnx import TensorProto, helper
d = sys.argv[1]
def save(name, nodes, inits=(), shape=(1, 8, 16), out_shape=None):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "%s/%s.onnx" % (d, name))
save("softmax_axis", [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)])
save("hsig_alpha", [helper.make_node("HardSigmoid", ["x"], ["y"], name="hs", alpha=0.2)])
save("mul_tensor", [helper.make_node("Mul", ["x", "c"], ["y"], name="mc")],
     [helper.make_tensor("c", TensorProto.FLOAT, [1, 8, 16], [0.5] * 128)])
save("erf_alone", [helper.make_node("Erf", ["x"], ["y"], name="erf")])
save("transpose_batch", [helper.make_node("Transpose", ["x"], ["y"], name="tb", perm=[1, 0, 2])])
save("gelu_tanh", [helper.make_node("Gelu", ["x"], ["y"], name="gt", approximate="tanh")])
PYEOF
  expect onnx2net-softmax-axis 1 'node "sm" \(Softmax\): error: Softmax along axis 1: only the last' -- \
    scripts/onnx2net "$T/softmax_axis.onnx" -o "$T/o.json"
  expect onnx2net-hardsigmoid-alpha 1 'node "hs" \(HardSigmoid\): error: HardSigmoid alpha 0.2' -- \
    scripts/onnx2net "$T/hsig_alpha.onnx" -o "$T/o.json"
  expect onnx2net-mul-constant 1 'node "mc" \(Mul\): error: multiplying by a constant of shape \[1, 8, 16\]' -- \
    scripts/onnx2net "$T/mul_tensor.onnx" -o "$T/o.json"
  expect onnx2net-erf-alone 1 'node "erf" \(Erf\): error: unsupported op Erf' -- \
    scripts/onnx2net "$T/erf_alone.onnx" -o "$T/o.json"
  expect onnx2net-transpose-batch 1 'node "tb" \(Transpose\): error: Transpose \[1, 0, 2\]' -- \
    scripts/onnx2net "$T/transpose_batch.onnx" -o "$T/o.json"
  expect onnx2net-gelu-tanh 1 'node "gt" \(Gelu\): error: Gelu approximate=tanh' -- \
    scripts/onnx2net "$T/gelu_tanh.onnx" -o "$T/o.json"
fi

if ! $PY -c 'import torch, onnx' >/dev/null 2>&1; then
  echo "SKIP sfu-torch-models: PyTorch not installed (sh scripts/install-deps.sh --onnx --torch)"
  exit 0
fi
$PY tests/onnx/sfu_models.py "$B" >"$T/models.out" 2>&1; rc=$?
grep -E '^(PASS|FAIL) ' "$T/models.out"
if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$T/models.out"; then fail torch-models "exit $rc: $(tail -c 300 "$T/models.out")"; fi
