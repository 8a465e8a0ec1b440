#!/bin/sh
# sweep.sh BUILD_DIR: scripts/sweep (docs/SWEEP.md) on LeNet-5 and the 4x4 arch, a few seconds.
# A 4-point grid with two points whose scratchpad cannot hold a layer: the CSV's columns, sacc's
# error in those rows while the sweep goes on, figures equal to a direct sacc + sasim run; resume
# (a second run computes nothing, a deleted result is recomputed alone); the Slurm path without
# Slurm (sweep.sbatch's array, --point, --gather, --compare); the Pareto column and the plot, with
# a stand-in sasim that adds made-up energy and area figures (the sweep's logic, not the models);
# spec and flag errors. tests/slurm/ runs the same sweep on a real one-node Slurm cluster.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=sweep
. tests/cli/lib.sh
PY=/usr/bin/python3
SWEEP="$PY scripts/sweep --sacc $SACC --sasim $SASIM"

# col FILE.csv COLUMN: the column's values, one per line, in row order.
col() { $PY -c 'import csv,sys; [print(r[sys.argv[2]]) for r in csv.DictReader(open(sys.argv[1]))]' "$1" "$2"; }

cat >"$T/spec.json" <<'EOF'
{"name": "t", "base_arch": "workloads/arch/tiny.json", "arch": {"array.cols": [4, 8], "spad.rows": [1, 64]},
 "nets": ["lenet5"], "dataflows": ["ws"]}
EOF
O=$T/sw
if $SWEEP "$T/spec.json" --out "$O" --jobs 2 --no-plot >"$T/run1.out" 2>&1; then pass run
else fail run "exit $?: $(tail -c 400 "$T/run1.out")"; fi
CSV=$O/results.csv

want="index,id,net,dataflow,array.rows,array.cols,spad.rows,wbuf.rows,acc.rows,dram.bus_bytes,clock_mhz,status,cycles,time_us,utilization,useful_macs,array_slots,mapping_efficiency,dram_read_bytes,dram_write_bytes,dram_saved_bytes,energy_pj,power_mw,tops_per_w,area_mm2,pareto,compile_s,sim_s"
got=$(head -n 1 "$CSV" 2>/dev/null)
[ "$got" = "$want" ] && pass columns || fail columns "header is $got"
[ "$(col "$CSV" index | tr '\n' ' ')" = "0 1 2 3 " ] && pass rows || fail rows "indexes $(col "$CSV" index | tr '\n' ' ')"

# Grid order: array.cols outer, spad.rows inner; spad.rows 1 cannot hold a conv1 tile.
st=$(col "$CSV" status | cut -c1-40 | tr '\n' '|')
case $st in "error: sacc: op 0 (conv1): error: no til|ok|error: sacc: op 0 (conv1): error: no til|ok|") pass error-rows ;;
  *) fail error-rows "statuses: $st" ;; esac
if [ -z "$(col "$CSV" cycles | sed -n 1p)" ] && [ -n "$(col "$CSV" cycles | sed -n 2p)" ]; then pass error-row-empty
else fail error-row-empty "cycles column: $(col "$CSV" cycles | tr '\n' ' ')"; fi
grep -q 'points run.*2 with errors' "$T/run1.out" && pass error-count || fail error-count "$(tail -c 300 "$T/run1.out")"

# The figures of row 3 (8 columns, spad.rows 64) are those of sacc + sasim run by hand.
sed 's/"cols": 4/"cols": 8/' workloads/arch/tiny.json >"$T/a8.json"
if $SACC compile workloads/nets/lenet5.json --arch "$T/a8.json" --dataflow ws -o "$T/l.bin" >/dev/null 2>&1 &&
   $SASIM run "$T/l.bin" --json "$T/l.json" >/dev/null 2>&1; then
  direct=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["cycles"], d["dram"]["read_bytes"], d["dram"]["write_bytes"])' "$T/l.json")
  swept="$(col "$CSV" cycles | sed -n 4p) $(col "$CSV" dram_read_bytes | sed -n 4p) $(col "$CSV" dram_write_bytes | sed -n 4p)"
  [ "$direct" = "$swept" ] && pass figures || fail figures "sweep row 3: $swept, direct run: $direct"
else
  fail figures "the direct sacc + sasim run failed"
fi

# Energy and area: filled when sasim reports them, else empty with one warning each.
if grep -q '"energy"' "$T/l.json" 2>/dev/null; then
  [ -n "$(col "$CSV" energy_pj | sed -n 2p)" ] && pass energy-column || fail energy-column "empty though sasim reports energy"
else
  n=$(grep -c 'warning: .*no "energy"' "$T/run1.out")
  [ "$n" = 1 ] && [ -z "$(col "$CSV" energy_pj | sed -n 2p)" ] && pass energy-missing || fail energy-missing "$n warnings"
fi

# Resume: nothing is recomputed (result files untouched); a removed result is run alone.
ls -l --time-style=+%s.%N "$O"/points/*/result.json >"$T/stamps1"
$SWEEP "$T/spec.json" --out "$O" --jobs 2 --no-plot >"$T/run2.out" 2>&1
ls -l --time-style=+%s.%N "$O"/points/*/result.json >"$T/stamps2"
if grep -q '4 of 4 points finished before; running 0' "$T/run2.out" && cmp -s "$T/stamps1" "$T/stamps2"; then pass resume
else fail resume "$(head -c 300 "$T/run2.out")"; fi
id2=$(col "$CSV" id | sed -n 2p)
cp "$CSV" "$T/first.csv"
rm "$O/points/$id2/result.json"
$SWEEP "$T/spec.json" --out "$O" --no-plot >"$T/run3.out" 2>&1
if grep -q '3 of 4 points finished before; running 1' "$T/run3.out" && grep -q '^\[4/4\] lenet5 4x4 spad.rows=64' "$T/run3.out"
then pass resume-one; else fail resume-one "$(head -c 300 "$T/run3.out")"; fi
expect resume-same-csv 0 "agree: 4 rows" -- $PY scripts/sweep --compare "$T/first.csv" "$CSV"

# The Slurm path by hand: the array lists the unfinished points; each task runs --point I.
rm "$O/points/$id2/result.json" "$O/points/$(col "$CSV" id | sed -n 4p)/result.json"
$SWEEP "$T/spec.json" --out "$O" --slurm --sbatch=--time=5 >"$T/slurm.out" 2>&1
sb=$O/sweep.sbatch
if grep -q '^#SBATCH --array=1,3$' "$sb" && grep -q '^#SBATCH --time=5$' "$sb" &&
   grep -q -- '--point "$SLURM_ARRAY_TASK_ID" --out' "$sb" && grep -q -- '--gather' "$O/gather.sbatch"
then pass slurm-script; else fail slurm-script "$(cat "$sb" "$T/slurm.out" | head -c 500)"; fi
for i in 1 3; do SLURM_ARRAY_TASK_ID=$i sh -c "$(grep '^exec ' "$sb" | sed 's/^exec //')" >>"$T/points.out" 2>&1; done
rm "$CSV"
$PY scripts/sweep --gather "$O" --no-plot >"$T/gather.out" 2>&1
expect slurm-gather 0 "agree: 4 rows" -- $PY scripts/sweep --compare "$T/first.csv" "$CSV"
expect point-again 0 "finished before" -- $PY scripts/sweep --point 1 --out "$O"
expect point-range 1 "error: --point 9: the plan has points 0 to 3" -- $PY scripts/sweep --point 9 --out "$O"
# --compare notices a changed figure.
sed '3s/,ok,\([0-9]*\),/,ok,1\1,/' "$T/first.csv" >"$T/changed.csv"
expect compare-differs 1 "row 1 .* cycles" -- $PY scripts/sweep --compare "$T/first.csv" "$T/changed.csv"

# Pareto and plots with a stand-in sasim: area = array.cols mm2, energy 2e8 pJ on a 4-byte bus
# and 1e8 pJ on an 8-byte one. A wider bus is faster on this arch, so each 4-byte point is
# beaten by its 8-byte twin in all three objectives: the front is the 8-byte points.
cat >"$T/fake-sasim" <<EOF
#!/bin/sh
$SASIM "\$@" || exit \$?
exec $PY - "\$@" <<'PY'
import json, os, sys
a = sys.argv[1:]
j = a[a.index("--json") + 1]
arch = json.load(open(os.path.join(os.path.dirname(a[1]), "arch.json")))
d = json.load(open(j))
d["energy"] = {"total_pj": 2e8 if arch["dram"]["bus_bytes"] == 4 else 1e8, "components": {}, "power_mw": 1, "tops_per_w": 1}
d["area"] = {"total_mm2": float(arch["array"]["cols"]), "components": {}}
json.dump(d, open(j, "w"))
PY
EOF
chmod +x "$T/fake-sasim"
P=$T/pareto
$PY scripts/sweep --sacc $SACC --sasim "$T/fake-sasim" --nets lenet5 --base-arch tiny \
  --arch array.cols=4,8 --arch dram.bus_bytes=4,8 --out "$P" >"$T/pareto.out" 2>&1
pc=$P/results.csv
cyc=$(col "$pc" cycles | tr '\n' ' ')
set -- $cyc
if [ $# -ne 4 ] || [ "$2" -ge "$1" ] || [ "$4" -ge "$3" ]; then
  fail pareto "a wider bus should be faster here; cycles: $cyc $(tail -c 300 "$T/pareto.out")"
else
  [ "$(col "$pc" pareto | tr '\n' ' ')" = "0 1 0 1 " ] && pass pareto || fail pareto "pareto column: $(col "$pc" pareto | tr '\n' ' ')"
fi
if grep -q 'warning' "$T/pareto.out"; then fail no-warning "$(grep warning "$T/pareto.out")"; else pass no-warning; fi
if $PY -c 'import matplotlib' 2>/dev/null; then
  png=$P/pareto-lenet5.png
  if [ -s "$png" ] && [ "$(head -c 4 "$png" | od -An -c | tr -d ' ')" = "211PNG" ]; then pass plot
  else fail plot "no PNG: $(tail -c 300 "$T/pareto.out")"; fi
else
  grep -q 'matplotlib is not installed' "$T/pareto.out" && pass plot-skipped || fail plot-skipped "no message"
fi

# Errors: the spec's keys are checked; an arch key sacc does not know fails every point.
echo '{"nets": ["lenet5"], "archs": {}}' >"$T/bad.json"
expect bad-spec-key 1 "error: .*unknown key\(s\) archs" -- $SWEEP "$T/bad.json" --out "$T/bad"
expect no-such-net 1 "error: net 'nosuchnet': no such file" -- $SWEEP --nets nosuchnet --out "$T/bad"
expect unknown-arch-key 1 "no point ran; the first error: error: .*unknown key" -- \
  $SWEEP --nets lenet5 --base-arch tiny --arch dram.speed=1 --out "$T/bad2" --no-plot
expect bad-arch-flag 1 "expected KEY=V1,V2" -- $SWEEP --nets lenet5 --arch array.rows --out "$T/bad"
expect no-grid 2 "give a SPEC file or --nets" -- $PY scripts/sweep

# The global buffer's keys are arch keys like any other: gbuf.bytes 0 (none) and 4 KiB on the tiny
# arch; the buffer keeps bytes on chip (dram_saved_bytes), reads less DRAM and adds area.
$SWEEP --nets lenet5 --base-arch tiny --arch gbuf.bytes=0,4096 --out "$T/gb" --no-plot >"$T/gb.out" 2>&1
gb=$T/gb/results.csv
set -- $(col "$gb" dram_saved_bytes | tr '\n' ' ') $(col "$gb" dram_read_bytes | tr '\n' ' ') $(col "$gb" area_mm2 | tr '\n' ' ')
if [ $# -eq 6 ] && [ "$(col "$gb" gbuf.bytes | tr '\n' ' ')" = "0 4096 " ] && [ "$1" = 0 ] && [ "$2" -gt 0 ] &&
   [ "$4" -lt "$3" ] && $PY -c 'import sys; sys.exit(not float(sys.argv[2]) > float(sys.argv[1]))' "$5" "$6"; then
  pass gbuf-axis
else fail gbuf-axis "saved/read/area: $* $(tail -c 300 "$T/gb.out")"; fi

# Dataflows: where this sacc and sasim run output-stationary programs (probed on LeNet-5), a
# ws,os grid gives two ok rows; else the os row carries the error (sacc or sasim says why).
$SWEEP --nets lenet5 --base-arch tiny --dataflows ws,os --out "$T/df" --no-plot >"$T/df.out" 2>&1
if $SACC compile workloads/nets/lenet5.json --dataflow os -o "$T/os.bin" >/dev/null 2>&1 &&
   $SASIM run "$T/os.bin" >/dev/null 2>&1; then
  [ "$(col "$T/df/results.csv" status | tr '\n' ' ')" = "ok ok " ] &&
    [ "$(col "$T/df/results.csv" dataflow | tr '\n' ' ')" = "ws os " ] && pass dataflows ||
    fail dataflows "$(cut -d, -f4,12-13 "$T/df/results.csv" | tr '\n' ' ')"
else
  st=$(col "$T/df/results.csv" status | tr '\n' '|')
  case $st in "ok|error: "*) pass dataflow-os-missing ;; *) fail dataflow-os-missing "statuses: $st" ;; esac
fi
