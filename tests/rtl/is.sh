#!/bin/sh
# is.sh BUILD_DIR: the input-stationary path (COMPUTE_IS, the transposed LOAD) of the RTL model.
# tests/rtl/is_modes.s (tiny arch) through --engine rtl: its output equals is_modes_expected.npy
# (numpy's X x W), the start/ready/end cycles of its compute and load instructions equal the
# ones its header derives by hand from docs/TIMING.md §5 and §6 (TIMING §11's worked example, the
# mode rules both ways, stream alignment, PRELOAD rule (b) counting a COMPUTE_IS), and its row
# counts those of TIMING §10; the same program in lockstep, statistics JSON equal to the
# detailed engine's; a planted ACC bug (--flip-acc-bit) in a transposed write that lockstep must
# name with its bank. (Random programs with COMPUTE_IS and transposed LOADs run in lockstep in
# rtl.sh.) Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-is
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }

if ! $SASIM asm tests/rtl/is_modes.s -o "$T/is.bin" 2>"$T/err"; then
  fail asm "is_modes.s does not assemble: $(head -c 300 "$T/err")"; exit 0
fi
if $SASIM run "$T/is.bin" --engine rtl --trace "$T/trace.json" --json "$T/rtl.json" --output-dir "$T/outdir" >"$T/run" 2>&1; then
  cmp -s "$T/outdir/C.npy" tests/rtl/is_modes_expected.npy && pass output || fail output "C differs from is_modes_expected.npy"
  # name start ready end of each load- and compute-unit instruction but CFG_LOAD, from the trace.
  python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
for e in ev:
    if e.get("ph") == "X" and e["tid"] in (0, 1) and e["name"] not in ("LAYER", "CFG_LOAD"):
        print(e["name"], e["ts"], e["ts"] + e["dur"], e["args"]["end"])' "$T/trace.json" >"$T/times" 2>&1
  cat >"$T/want" <<'TIMES'
PRELOAD 1 2 4
COMPUTE_IS 5 11 17
COMPUTE_IS 13 17 23
COMPUTE 24 28 34
COMPUTE_IS 35 40 46
COMPUTE_OS 47 51 60
PRELOAD 61 62 64
COMPUTE_IS 65 66 72
PRELOAD 66 67 69
PRELOAD 70 71 73
LOAD 51 75 84
LOAD 75 102 111
LOAD 102 114 123
PRELOAD 124 125 127
COMPUTE_IS 128 134 140
PRELOAD 134 135 137
COMPUTE_IS 140 146 152
PRELOAD 146 147 149
COMPUTE_IS 152 158 164
PRELOAD 158 159 161
COMPUTE_IS 164 170 176
TIMES
  cmp -s "$T/times" "$T/want" && pass hand-timed || fail hand-timed "start/ready/end: $(tr '\n' ';' <"$T/times")"
  # TIMING §10: the transposed LOAD writes ceil(6/4) x 6 = 12 WBUF rows (the only WBUF writes);
  # ACC rows written: COLS x ceil(ROWS/4) per COMPUTE_IS (6 + 4 + 4 + 4, then 8 + 8 + 4 + 4),
  # 4 each for the COMPUTE and the COMPUTE_OS, 50 in all, 12 of them read too (ACCUM = 1);
  # MACs: ROWS x K x COLS per COMPUTE_IS, 476 with the COMPUTE's 48 and the COMPUTE_OS's 64.
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
o = j["onchip"]
print(o["wbuf"]["write_rows"], o["acc"]["write_rows"], o["acc"]["read_rows"] - 14, j["array_macs"])' "$T/rtl.json" >"$T/counts" 2>&1
  [ "$(cat "$T/counts")" = "12 50 12 476" ] && pass counts || fail counts "wbuf writes, acc writes, acc reads - 14 (STORE), MACs: $(cat "$T/counts")"
  $SASIM run "$T/is.bin" --mode detailed --json "$T/det.json" >/dev/null 2>&1
  cmp -s "$T/rtl.json" "$T/det.json" && pass json-equal || fail json-equal "rtl and detailed --json differ"
else
  fail run "$(head -c 300 "$T/run")"
fi
expect lockstep 0 'cycles' -- $SASIM run "$T/is.bin" --engine both
# Bit 0 of the 6th ACC write flipped as the lockstep sees it: IS #1 (s = 5) writes row 0 of
# column 0 in 9, rows 1, 0 of columns 0, 1 in 10, then rows 2, 1, 0 of columns 0, 1, 2 in 11:
# the 6th is row 0, column 2, ACC[32 + 2][0 mod 4] (the rotator's bank 0, not the column's).
expect planted-acc-bug 1 'diverge at cycle 11, compute unit, insn 1 \(COMPUTE_IS .*array ACC write, column 2: detailed ACC\[34\]\[0\] = 0, rtl ACC\[34\]\[0\] = 1$' \
  -- $SASIM run "$T/is.bin" --engine both --flip-acc-bit 6

