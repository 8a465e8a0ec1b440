#!/bin/sh
# os.sh BUILD_DIR: the output-stationary mode (COMPUTE_OS) of the RTL model. tests/rtl/os_modes.s
# (tiny arch) through --engine rtl: its output equals os_modes_expected.npy and the compute unit's
# start/ready/end cycles equal the ones its header derives by hand from docs/TIMING.md §6 (the
# drain rule, the mode switch both ways, a partial K block); the same program in lockstep; a
# planted ACC bug (--flip-acc-bit) that lockstep must name. (Random programs mixing COMPUTE_OS
# with the other modes run in lockstep in rtl.sh.) Prints PASS/FAIL lines for tests/run.sh.
# Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-os
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }

if ! $SASIM asm tests/rtl/os_modes.s -o "$T/os.bin" 2>"$T/err"; then
  fail asm "os_modes.s does not assemble: $(head -c 300 "$T/err")"; exit 0
fi
if $SASIM run "$T/os.bin" --engine rtl --trace "$T/trace.json" --output-dir "$T/outdir" >"$T/run" 2>&1; then
  cmp -s "$T/outdir/C.npy" tests/rtl/os_modes_expected.npy && pass output || fail output "C differs from os_modes_expected.npy"
  # name start ready end of each compute-unit instruction (the LAYER copy aside), from the trace.
  python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
for e in ev:
    if e.get("ph") == "X" and e["tid"] == 1 and e["name"] != "LAYER":
        print(e["name"], e["ts"], e["ts"] + e["dur"], e["args"]["end"])' "$T/trace.json" >"$T/times" 2>&1
  cat >"$T/want" <<'TIMES'
COMPUTE_OS 47 55 64
COMPUTE_OS 57 60 68
COMPUTE_OS 60 68 74
PRELOAD 75 76 78
COMPUTE 79 83 89
COMPUTE_OS 90 94 103
TIMES
  cmp -s "$T/times" "$T/want" && pass hand-timed || fail hand-timed "start/ready/end: $(tr '\n' ';' <"$T/times")"
else
  fail run "$(head -c 300 "$T/run")"
fi
expect lockstep 0 'cycles' -- $SASIM run "$T/os.bin" --engine both
# Bit 0 of the 5th ACC write flipped as the lockstep sees it: OS #1 writes PE row 3 of column 0
# in 58, then rows 2 (column 0) and 3 (column 1) in 59, then row 2 of column 1 in 60.
expect planted-acc-bug 1 'diverge at cycle 60, compute unit, insn 5 \(COMPUTE_OS .*array ACC write, column 1: detailed ACC\[2\]\[1\] = (-?[0-9]+), rtl ACC\[2\]\[1\] = -?[0-9]+$' \
  -- $SASIM run "$T/os.bin" --engine both --flip-acc-bit 5
expect flip-acc-needs-both 2 'flip-acc-bit needs --engine both' -- $SASIM run "$T/os.bin" --engine rtl --flip-acc-bit 1

