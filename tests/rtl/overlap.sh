#!/bin/sh
# overlap.sh BUILD_DIR: weights preloaded behind compute (COMPUTE's OVERLAP bit and PRELOAD rule
# (b), docs/TIMING.md §6) on the RTL model. tests/rtl/overlap_chain.s (tiny arch, TIMING §11's
# chain of four PRELOAD/COMPUTE pairs) through --engine rtl: its output equals
# overlap_chain_expected.npy (numpy), the start/ready/end cycles of its load- and compute-unit
# instructions equal the ones its header derives by hand (each PRELOAD under the stream before
# it, the streams back to back), statistics JSON equal to the detailed engine's, and lockstep;
# the same program without overlap=1 in lockstep and exactly 3 x R = 12 cycles longer (each
# PRELOAD then waits for the stream before it). (Random programs with OVERLAP streams run in
# lockstep in rtl.sh.) Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-overlap
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }

sed -e 's/ overlap=1//' -e 's/^\.arch .*/.arch tiny/' tests/rtl/overlap_chain.s >"$T/in_order.s"
if ! $SASIM asm tests/rtl/overlap_chain.s -o "$T/ov.bin" 2>"$T/err" ||
   ! $SASIM asm "$T/in_order.s" -o "$T/io.bin" 2>>"$T/err"; then
  fail asm "overlap_chain.s does not assemble: $(head -c 300 "$T/err")"; exit 0
fi
if $SASIM run "$T/ov.bin" --engine rtl --trace "$T/trace.json" --json "$T/rtl.json" --output-dir "$T/outdir" >"$T/run" 2>&1; then
  cmp -s "$T/outdir/C.npy" tests/rtl/overlap_chain_expected.npy && pass output || fail output "C differs from overlap_chain_expected.npy"
  # name start ready end of each load- and compute-unit instruction, from the trace.
  python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
for e in ev:
    if e.get("ph") == "X" and e["tid"] in (0, 1) and e["name"] != "LAYER":
        print(e["name"], e["ts"], e["ts"] + e["dur"], e["args"]["end"])' "$T/trace.json" >"$T/times" 2>&1
  cat >"$T/want" <<'TIMES'
CFG_LOAD 1 2 1
LOAD 2 36 45
LOAD 36 116 125
PRELOAD 126 127 129
COMPUTE 130 131 144
PRELOAD 131 132 134
COMPUTE 138 139 152
PRELOAD 141 142 144
COMPUTE 146 147 160
PRELOAD 149 150 152
COMPUTE 154 162 168
TIMES
  cmp -s "$T/times" "$T/want" && pass hand-timed || fail hand-timed "start/ready/end: $(tr '\n' ';' <"$T/times")"
  $SASIM run "$T/ov.bin" --mode detailed --json "$T/det.json" >/dev/null 2>&1
  cmp -s "$T/rtl.json" "$T/det.json" && pass json-equal || fail json-equal "rtl and detailed --json differ"
else
  fail run "$(head -c 300 "$T/run")"
fi
expect lockstep 0 'cycles' -- $SASIM run "$T/ov.bin" --engine both
expect lockstep-in-order 0 'cycles' -- $SASIM run "$T/io.bin" --engine both
# Cycles of both forms on the RTL: the in-order chain takes R = 4 more per pair after the first.
a=$($SASIM run "$T/ov.bin" --engine rtl --json - 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["cycles"])' 2>/dev/null)
b=$($SASIM run "$T/io.bin" --engine rtl --json - 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["cycles"])' 2>/dev/null)
if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -eq 12 ]; then pass in-order-12-longer
else fail in-order-12-longer "cycles with overlap $a, without $b (want a difference of 12)"; fi
