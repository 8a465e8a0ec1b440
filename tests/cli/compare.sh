#!/bin/sh
# compare.sh BUILD_DIR: scripts/compare-dataflows end to end on LeNet-5 (seconds): the three dataflows
# (ws, os, is) compiled and run, the same-output check, summary.csv with one row per dataflow whose figures
# equal what sasim reports for the same program, layers.csv with a row per (layer, dataflow), the
# markdown table, the plots (PNG) when matplotlib is installed, and usage errors.
set -u
B=${1:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=compare
. tests/cli/lib.sh
PY=/usr/bin/python3
CMP="$PY scripts/compare-dataflows --sacc $B/bin/sacc --sasim $B/bin/sasim"

if ! $CMP workloads/nets/lenet5.json --out "$T/c" >"$T/out" 2>"$T/err"; then
  fail run "$(tail -c 400 "$T/err")"; exit 0
fi
pass run
grep -q '^| cycles | ' "$T/out" && grep -q 'same output bytes' "$T/out" && pass markdown || fail markdown "$(head -c 300 "$T/out")"
# --no-fuse-layers compiles with every activation in DRAM: the WS row is that program's run.
$B/bin/sacc compile workloads/nets/lenet5.json --dataflow ws --no-fuse-layers -o "$T/nf.bin" >/dev/null 2>&1
$B/bin/sasim run "$T/nf.bin" --json "$T/nf.json" >/dev/null 2>&1
if $CMP workloads/nets/lenet5.json --no-fuse-layers --dataflows ws --no-plots --out "$T/nf" >/dev/null 2>"$T/err" &&
   $PY -c 'import csv, json, sys
s = next(csv.DictReader(open(sys.argv[1]))); d = json.load(open(sys.argv[2]))
assert int(s["cycles"]) == d["cycles"] and int(s["dram_read_bytes"]) == d["dram"]["read_bytes"]' "$T/nf/summary.csv" "$T/nf.json"
then pass no-fuse-layers; else fail no-fuse-layers "$(tail -c 300 "$T/err")"; fi
# The summary's cycles and DRAM bytes are sasim's own figures for the program compiled that way.
$B/bin/sacc compile workloads/nets/lenet5.json --dataflow os -o "$T/os.bin" >/dev/null 2>&1
$B/bin/sasim run "$T/os.bin" --json "$T/os.json" >/dev/null 2>&1
$PY - "$T/c/summary.csv" "$T/c/layers.csv" "$T/os.json" <<'PY' && pass csv || fail csv "summary/layers CSV do not match sasim"
import csv, json, sys
s = {r["dataflow"]: r for r in csv.DictReader(open(sys.argv[1]))}
layers = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
assert set(s) == {"ws", "os", "is"}, s.keys()
assert int(s["os"]["cycles"]) == d["cycles"] and int(s["os"]["dram_read_bytes"]) == d["dram"]["read_bytes"]
assert int(s["ws"]["cycles"]) != int(s["os"]["cycles"]) and int(s["is"]["cycles"]) != int(s["ws"]["cycles"])
assert all(0 < float(s[k]["utilization"]) <= 1 for k in s)
assert len(layers) == 3 * len(d["layers"]), (len(layers), len(d["layers"]))
PY
if $PY -c 'import matplotlib' 2>/dev/null; then
  ok=1
  for p in cycles_per_layer utilization; do
    [ "$(head -c 4 "$T/c/$p.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] || ok=0
  done
  [ $ok = 1 ] && pass plots || fail plots "missing PNG files in $(ls "$T/c")"
else
  echo "SKIP compare-plots: python3-matplotlib is not installed"
fi
expect bad-dataflow 1 "unknown xs" -- $CMP workloads/nets/lenet5.json --dataflows ws,xs --out "$T/x"
expect missing-net 1 "error:" -- $CMP "$T/none.json" --out "$T/y"
