#!/bin/sh
# batch.sh BUILD_DIR: networks with input batch N > 1 (issue 15 item 6). Each small shipped net
# with its inputs' batch set to 3 compiles in ws, os and is (default and tiny arch) and its
# outputs equal `sacc ref` of the same batched net, in the fast engine and, for a few, the
# detailed one; a fully connected layer reads its weights from DRAM once for the whole batch
# (LeNet-5 fc1's DRAM read bytes at batch 4 within 10% of batch 1's); and the batch really runs
# (an output has N = 3 and the cycles grow with N).
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=batch
. tests/cli/lib.sh


for n in lenet5 tiny_cnn residual depthwise edge_channels edge_odd edge_gap_fc edge_pooling edge_concat; do
  [ -f workloads/nets/$n.json ] || { fail "$n" "no workloads/nets/$n.json"; continue; }
  batched workloads/nets/$n.json 3 "$T/$n.json"
  for df in ws os is; do
    same_as_ref "$n-n3-$df" "$T/$n.json" -- --dataflow $df
    same_as_ref "$n-n3-$df-tiny" "$T/$n.json" -- --dataflow $df --arch workloads/arch/tiny.json
  done
done
for n in tiny_cnn residual depthwise; do
  for df in ws os is; do
    same_as_ref "$n-n3-$df-tiny-detailed" "$T/$n.json" --mode detailed -- --dataflow $df --arch workloads/arch/tiny.json
  done
done

# The batch is real: the output has N = 3, and three inferences cost more than one.
grep -q '^output .* \[3,' "$T/got.all" && pass "output-has-batch" || fail "output-has-batch" "$(head -c 200 "$T/got.all")"
batched workloads/nets/lenet5.json 1 "$T/l1.json"; batched workloads/nets/lenet5.json 4 "$T/l4.json"
for df in ws os is; do
  ok=1
  for k in 1 4; do
    $SACC compile "$T/l$k.json" --dataflow $df -o "$T/l$k.bin" >/dev/null 2>"$T/err" &&
      $SASIM run "$T/l$k.bin" --json "$T/l$k.stats" >/dev/null 2>>"$T/err" || { fail "fc-weights-once-$df" "$(head -c 300 "$T/err")"; ok=0; break; }
  done
  [ $ok = 1 ] || continue
  r=$(python3 -c 'import json,sys
def get(p):
  d = json.load(open(p)); l = [x for x in d["layers"] if x["name"] == "fc1"][0]
  return d["cycles"], l["dram_read_bytes"]
(c1, r1), (c4, r4) = get(sys.argv[1]), get(sys.argv[2])
print("ok" if r4 <= 1.1 * r1 and c4 > c1 else "fc1 read %d bytes at batch 1, %d at batch 4; cycles %d, %d" % (r1, r4, c1, c4))' "$T/l1.stats" "$T/l4.stats")
  [ "$r" = ok ] && pass "fc-weights-once-$df" || fail "fc-weights-once-$df" "$r"
done
