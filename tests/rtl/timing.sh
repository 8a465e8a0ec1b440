#!/bin/sh
# timing.sh BUILD_DIR: the PE's critical path does not grow unnoticed (docs/PPA.md, Clock).
# rtl/synth/timing.py maps sa_pe with yosys (about 2 s) and times it with the 45 nm gate table;
# the path must have exactly LEVELS logic levels and a delay at most MARGIN (5%) above DELAY_PS,
# both as measured when the figures below were last updated (a shorter delay passes), must
# start and end at named RTL signals (a register or port, not a yosys-made net), and the JSON
# line must carry them. The
# same check against a table whose gates are 10% slower must fail, so the margin can be seen
# to bite. A change that lengthens the PE's path (a deeper adder, logic in front of the
# multiplier) fails here: either restore the clock or update LEVELS and DELAY_PS with the new
# figures (and docs/PPA.md's tables, and scripts/timing-fit --write). Skipped without yosys.
# The FPGA flow (make fpga, minutes) is not run here.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
LEVELS=24
DELAY_PS=1698.1
MARGIN=0.05
CLI_PREFIX=rtl-timing
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
. tests/cli/lib.sh
: "$B"
command -v yosys >/dev/null 2>&1 || { echo "SKIP rtl-timing: yosys is not installed"; exit 0; }

python3 -c '
import json, sys
t = json.load(open("workloads/energy/delay-45nm.json"))
for g in t["gate_ps"].values():
    g["value"] *= 1.1
json.dump(t, open(sys.argv[1], "w"))' "$T/slow.json"

check() {   # check NAME DELAYS_FILE WANT(pass|fail)
  name=$1 delays=$2 want=$3
  if ! python3 rtl/synth/timing.py --only pe --out "$T/$name" --delays "$delays" >"$T/$name.out" 2>&1; then
    fail "$name" "timing.py failed: $(tail -n 3 "$T/$name.out")"; return
  fi
  tail -n 1 "$T/$name.out" | python3 -c '
import json, re, sys
name, want, levels, delay, margin = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
try:
    b = json.load(sys.stdin)["blocks"][0]
except (ValueError, KeyError, IndexError) as e:
    print("FAIL rtl-timing-%s: the last line is not the JSON line (%s)" % (name, e)); sys.exit()
named = all(re.match(r"^[a-z][a-z0-9_]*(\[\d+\])?( \((input|output|enable)\))?$", b.get(k, "")) for k in ("start", "end"))
ok = (b.get("module") == "sa_pe" and b.get("levels") == levels and named and
      b["delay_ps"] <= delay * (1 + margin) and
      abs(b["clock_mhz"] - 1e6 / b["delay_ps"]) < 0.1)
what = "%d levels, %.1f ps (%.1f MHz), %s -> %s; want %d levels, %.1f ps .. +%.0f%%" % (
    b.get("levels", -1), b.get("delay_ps", 0), b.get("clock_mhz", 0), b.get("start"), b.get("end"),
    levels, delay, 100 * margin)
print("# %s: %s" % (name, what))
if (ok and want == "pass") or (not ok and want == "fail"):
    print("PASS rtl-timing-%s" % name)
else:
    print("FAIL rtl-timing-%s: %s" % (name, what if want == "pass" else "a 10%% slower gate table still passes: " + what))
' "$name" "$want" "$LEVELS" "$DELAY_PS" "$MARGIN"
}
check pe workloads/energy/delay-45nm.json pass
check pe-slower-gates-fail "$T/slow.json" fail
grep -q '^sa_pe .* -> ' "$T/pe.out" && pass pe-table || fail pe-table "no table line for sa_pe in: $(head -c 300 "$T/pe.out")"
