#!/bin/sh
# synth.sh BUILD_DIR: a smoke test of make synth's scripts (rtl/synth/), on sa_pe only (a few
# seconds; the array takes longer and is left to make synth): yosys reads the RTL as it is,
# keeps every register of the PE (valid 1 + activation 8 + bank 1 + row tag 4 + partial sum 32
# + two weight banks 16 = 62 for the weight-stationary mode, plus, for the output-stationary one,
# first/last 2 + B operand 8 + drain register 32 = 104 flip-flops; the partial sum doubles as the
# output-stationary accumulator), and the JSON line carries cells and an exact
# transistor estimate. make test installs yosys (rtl/rtl.mk); run by hand without it, this is
# skipped (no PASS or FAIL).
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
CLI_PREFIX=rtl-synth
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
. tests/cli/lib.sh
command -v yosys >/dev/null 2>&1 || { echo "SKIP rtl-synth: yosys is not installed"; exit 0; }
if ! sh rtl/synth/synth.sh pe "$T" >"$T/out" 2>&1; then fail pe "$(tail -n 5 "$T/out")"; exit 0; fi
grep -q 'Estimated number of transistors: *[0-9]' "$T/out" && pass pe-stat || fail pe-stat "no stat -tech cmos in: $(head -c 300 "$T/out")"
tail -n 1 "$T/out" | python3 -c '
import json, sys
m = json.load(sys.stdin)["modules"][0]
ok = m["module"] == "sa_pe" and m["flip_flops"] == 104 and m["cells"] > m["flip_flops"] and m["transistors"] > 0 and m["transistors_exact"]
print("PASS rtl-synth-pe-json" if ok else "FAIL rtl-synth-pe-json: %s" % json.dumps(m)[:300])' || fail pe-json "the last line is not JSON: $(tail -n 1 "$T/out" | head -c 200)"
