#!/bin/sh
# area.sh BUILD_DIR: the area model's PE array against yosys (docs/PPA.md): sa_array is
# synthesized at 2x2 (one of the sizes scripts/calibrate-area fits on) and 3x3 (not one of
# them) with rtl/synth/synth.sh, its transistor estimate turned into mm2 with the table's
# um2_per_transistor and logic_utilization, and `sasim run --json`'s area.components.pe_array
# for a program on that array must be within TOL (10%) of it. The same check with the table's
# per-PE coefficient 20% off must fail, so a wrong coefficient is seen. The special-function
# unit's scalar part: sa_sfu_recip + sa_sfu_rsqrt synthesized (a few seconds) against the table's
# sfu_scalar_transistors, within TOL, and 20% off must fail (the lane's sa_sfu_math takes three
# CPU minutes, so it is left to scripts/calibrate-area). About 20-40 s; skipped (no PASS or FAIL)
# without yosys. After an RTL change of the PE or the SFU blocks: scripts/calibrate-area.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
TOL=0.10
CLI_PREFIX=rtl-area
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
. tests/cli/lib.sh
command -v yosys >/dev/null 2>&1 || { echo "SKIP rtl-area: yosys is not installed"; exit 0; }

python3 -c '
import json, sys
t = json.load(open("workloads/energy/default.json"))
t["area"]["pe_array_transistors"]["pe"] *= 1.2
json.dump(t, open(sys.argv[1], "w"))' "$T/wrong.json"

for size in 2x2 3x3; do
  r=${size%x*} c=${size#*x}
  if ! sh rtl/synth/synth.sh "$size" "$T/synth-$size" >"$T/synth.out" 2>&1; then
    fail "synth-$size" "$(tail -n 5 "$T/synth.out")"; continue
  fi
  tail -n 1 "$T/synth.out" >"$T/synth-$size.json"
  printf '.arch {"name": "a%s", "array": {"rows": %s, "cols": %s}}\nHALT\n' "$size" "$r" "$c" >"$T/p.s"
  if ! $SASIM asm "$T/p.s" -o "$T/p.bin" >"$T/out" 2>&1 || ! $SASIM run "$T/p.bin" --json "$T/model.json" >>"$T/out" 2>&1 ||
     ! $SASIM run "$T/p.bin" --energy "$T/wrong.json" --json "$T/wrong-model.json" >>"$T/out" 2>&1; then
    fail "model-$size" "$(head -c 300 "$T/out")"; continue
  fi
  python3 - "$size" "$T/synth-$size.json" "$T/model.json" "$T/wrong-model.json" "$TOL" <<'EOF'
import json, sys
size, synth, model, wrong, tol = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
t = json.load(open("workloads/energy/default.json"))["area"]
tr = [m for m in json.load(open(synth))["modules"] if m["module"] == "sa_array"][0]["transistors"]
synth_mm2 = tr * t["um2_per_transistor"]["value"] / t["logic_utilization"]["value"] * 1e-6
got = json.load(open(model))["area"]["components"]["pe_array"]
bad = json.load(open(wrong))["area"]["components"]["pe_array"]
err, err_bad = (got - synth_mm2) / synth_mm2, (bad - synth_mm2) / synth_mm2
print("# %s: yosys %d transistors = %.5f mm2; model %.5f mm2 (%+.1f%%); with pe x1.2 %.5f mm2 (%+.1f%%)"
      % (size, tr, synth_mm2, got, 100 * err, bad, 100 * err_bad))
print("PASS rtl-area-%s" % size if abs(err) <= tol else
      "FAIL rtl-area-%s: model %.5f mm2 is %+.1f%% off yosys's %.5f mm2 (tolerance %.0f%%; scripts/calibrate-area refits)"
      % (size, got, 100 * err, synth_mm2, 100 * tol))
print("PASS rtl-area-%s-wrong-coefficient-fails" % size if abs(err_bad) > tol else
      "FAIL rtl-area-%s-wrong-coefficient-fails: a 20%% wrong per-PE coefficient is still within %.0f%% (%+.1f%%)"
      % (size, 100 * tol, 100 * err_bad))
EOF
done

# The SFU's scalar reciprocal and inverse square root, as scripts/calibrate-area synthesizes them.
sum=0
for top in sa_sfu_recip sa_sfu_rsqrt; do
  if ! yosys -q -l "$T/$top.log" -p "read_verilog -sv -I rtl rtl/sa_sfu_isqrt.sv rtl/sa_sfu_recip.sv rtl/sa_sfu_rsqrt.sv; \
hierarchy -top $top; script rtl/synth/cmos.ys; tee -q -o $T/$top.json stat -json -tech cmos" >"$T/$top.out" 2>&1; then
    fail "synth-$top" "$(tail -n 5 "$T/$top.out")"; sum=-1; break
  fi
  n=$(python3 -c 'import json,sys; print(int(str(json.load(open(sys.argv[1]))["design"]["estimated_num_transistors"]).rstrip("+")))' "$T/$top.json")
  sum=$((sum + n))
done
if [ "$sum" -ge 0 ]; then
  python3 - "$sum" "$TOL" <<'EOF'
import json, sys
tr, tol = int(sys.argv[1]), float(sys.argv[2])
table = json.load(open("workloads/energy/default.json"))["area"]["sfu_scalar_transistors"]["value"]
err, err_bad = (table - tr) / tr, (1.2 * table - tr) / tr
print("# sfu scalar: yosys sa_sfu_recip + sa_sfu_rsqrt %d transistors; table %d (%+.1f%%)" % (tr, table, 100 * err))
print("PASS rtl-area-sfu-scalar" if abs(err) <= tol else
      "FAIL rtl-area-sfu-scalar: the table's sfu_scalar_transistors %d is %+.1f%% off yosys's %d (tolerance %.0f%%; "
      "scripts/calibrate-area --sfu-only refits)" % (table, 100 * err, tr, 100 * tol))
print("PASS rtl-area-sfu-scalar-wrong-fails" if abs(err_bad) > tol else
      "FAIL rtl-area-sfu-scalar-wrong-fails: 20%% off is still within %.0f%%" % (100 * tol))
EOF
fi
