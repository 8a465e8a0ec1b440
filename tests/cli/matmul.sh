#!/bin/sh
# matmul.sh BUILD_DIR: matmul of two activations, transpose and reshape compiled (issue 16 item 2,
# docs/COMPILER.md "Matmul of two activations"). Attention without the special-function unit
# (tests/compiler/nets/attn_mm_small.json, attn_mm.json and attn_mm_bert.json: projections,
# heads, Q K^T, relu, scores x V, heads back), the corner cases of matmul_edges.json and a B
# inside a zero halo (matmul_halo.json) compile in ws, os and is on the default and tiny archs,
# and `sasim run` prints the outputs of `sacc ref`; the detailed engine agrees with the fast one
# (outputs and cycles); a batch of 2, --dataflow auto, --no-double-buffer and tokens.max 1; a
# 256x256 array (K tiles of 255 for input-stationary, transposes gathering at most 255 channels
# per op); the transposes fold into the matmuls (no op of their own); a transposed operand too far
# apart for the load unit is refused naming the layer.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=matmul
. tests/cli/lib.sh
N=tests/compiler/nets


for n in attn_mm_small attn_mm matmul_edges matmul_halo; do
  for df in ws os is; do
    for a in default tiny; do same_as_ref "$n-$df-$a" $N/$n.json -- --dataflow $df --arch workloads/arch/$a.json; done
  done
done
# A BERT-style layer's attention (hidden 256, 4 heads, sequence 128) on the default arch.
for df in ws os is; do same_as_ref "attn_mm_bert-$df" $N/attn_mm_bert.json -- --dataflow $df; done

# The detailed engine: the same outputs and the same cycles as the fast one.
for n in attn_mm_small matmul_edges; do
  for df in ws os is; do
    c="$n-$df-tiny-detailed"
    if $SACC compile $N/$n.json --dataflow $df --arch workloads/arch/tiny.json -o "$T/d.bin" >"$T/err" 2>&1 &&
       $SASIM run "$T/d.bin" >"$T/fast" 2>"$T/err" && $SASIM run "$T/d.bin" --mode detailed >"$T/det" 2>"$T/err"; then
      if [ -s "$T/fast" ] && cmp -s "$T/fast" "$T/det"; then pass "$c"
      else fail "$c" "fast and detailed differ: $(diff "$T/fast" "$T/det" | head -4 | tr '\n' ' ')"; fi
    else fail "$c" "$(head -c 300 "$T/err")"; fi
  done
done

# A batch of two sequences (the reshapes say -1 for it), the per-op dataflow choice, one buffer
# slot, and a single token per channel.
batched $N/attn_mm_small.json 2 "$T/b2.json"
sed 's/"max": 255/"max": 1/' workloads/arch/tiny.json >"$T/tok1.json"
for df in ws os is; do
  same_as_ref "attn-n2-$df-tiny" "$T/b2.json" -- --dataflow $df --arch workloads/arch/tiny.json
  same_as_ref "attn-tokens-max-1-$df" $N/attn_mm_small.json -- --dataflow $df --arch "$T/tok1.json"
done
for n in attn_mm matmul_edges; do
  same_as_ref "$n-auto" $N/$n.json -- --dataflow auto
  same_as_ref "$n-no-double-buffer-tiny" $N/$n.json -- --no-double-buffer --arch workloads/arch/tiny.json
done

# A 256x256 array: a matmul with K = 300 (input-stationary gathers a byte per K row into a SPAD
# row: K tiles of 255, NSEG's range) and a transpose moving the channel axis over 300 channels
# (a gather of at most 255 channels per op).
python3 - "$T" <<'EOF'
import json, sys
d = sys.argv[1]
a = json.load(open("workloads/arch/default.json"))
a["name"], a["comment"], a["array"] = "wide", "the default arch with a 256x256 array", {"rows": 256, "cols": 256}
json.dump(a, open(d + "/wide.json", "w"))
json.dump({"name": "long_k", "inputs": [{"name": "a", "shape": [1, 2, 4, 300], "scale": 0.05},
                                        {"name": "b", "shape": [1, 2, 300, 5], "scale": 0.05}],
           "layers": [{"name": "m", "op": "matmul", "inputs": ["a", "b"], "output": "m", "scale": 2.0},
                      {"name": "t", "op": "transpose", "perm": [0, 1, 3, 2], "inputs": ["a"], "output": "t"}],
           "outputs": ["m", "t"]}, open(d + "/long_k.json", "w"))
# K^T's rows 1.1 MB apart: a transposed LOAD's STRIDE_OUTER (C rows) cannot reach
json.dump({"name": "far", "inputs": [{"name": "a", "shape": [1, 1, 1, 1100000], "scale": 0.05},
                                     {"name": "k", "shape": [1, 1, 2, 1100000], "scale": 0.05}],
           "layers": [{"name": "kt", "op": "transpose", "perm": [0, 1, 3, 2], "inputs": ["k"], "output": "kt"},
                      {"name": "s", "op": "matmul", "inputs": ["a", "kt"], "output": "s", "scale": 20.0}],
           "outputs": ["s"]}, open(d + "/far.json", "w"))
EOF
for df in ws os is; do
  same_as_ref "long-k-$df-wide" "$T/long_k.json" -- --dataflow $df --arch "$T/wide.json"
  same_as_ref "long-k-$df-tiny" "$T/long_k.json" -- --dataflow $df --arch workloads/arch/tiny.json
done
same_as_ref "edges-wide" $N/matmul_edges.json -- --arch "$T/wide.json"

# The transposes fold into the matmuls: no op for the heads (qh, kh, vh), K^T or the heads put
# back (ob); Q K^T reads K's rows as B^T. A K^T that is also a network output (matmul_edges' bt)
# is a copy of its own.
$SACC compile $N/attn_mm_small.json --dump-ir lower -o "$T/x.bin" >"$T/ir" 2>&1
if grep -qE ' elt (qh|kh|vh|kt|ob):' "$T/ir"; then fail fold-transposes "a transpose has an op: $(grep -E ' elt (qh|kh|vh|kt|ob):' "$T/ir" | head -c 200)"
elif grep -q 'gemm s: .*B from kt (transposed: rows of B\^T)' "$T/ir"; then pass fold-transposes
else fail fold-transposes "no matmul reading K^T as B^T: $(grep 'gemm s' "$T/ir" | head -c 300)"; fi
$SACC compile $N/matmul_edges.json --dump-ir lower -o "$T/x.bin" >"$T/ir" 2>&1
grep -q ' elt bt:' "$T/ir" && grep -q 'gemm m2: .*B from bt (rows)' "$T/ir" && pass no-fold-of-output ||
  fail no-fold-of-output "$(grep -E ' (bt|m2):' "$T/ir" | head -c 300)"

expect stride-refused 1 'far.json: layers\[1\] "s": error: the rows of the transposed operand are 17600000 bytes apart in DRAM, more than CFG_LOAD STRIDE_OUTER can hold' -- \
  $SACC compile "$T/far.json" -o "$T/far.bin"
if [ -e "$T/far.bin" ]; then fail stride-refused-no-output "a program was written"; else pass stride-refused-no-output; fi
# On tiny (4 columns) the C rows fit STRIDE_OUTER, but one row (STRIDE_INNER) does not.
expect stride-inner-refused 1 'far.json: layers\[1\] "s": error: the rows of the transposed operand are 1100000 bytes apart in DRAM, more than CFG_LOAD STRIDE_INNER can hold \(1048575\)' -- \
  $SACC compile "$T/far.json" --arch workloads/arch/tiny.json -o "$T/far.bin"
