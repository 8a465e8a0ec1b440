#!/bin/sh
# view.sh BUILD_DIR: `sasim run --view` and the windows of --pe-trace (docs/VIEW.md). The option
# rules and their messages; --from/--to (and the --vcd-from/--vcd-to aliases) on --pe-trace; the
# page is one self-contained file (no network, no external script), written atomically (nothing
# left when the run or the write fails), capped by --view-max-mb with a warning; cycles and
# outputs unchanged by --view and --pe-trace. Then tests/cli/view_browser.py loads pages in
# headless Chromium (make test installs it: install-deps.sh --browser; without it, SKIP) and
# compares what they show with --pe-trace; its screenshots go to BUILD_DIR/view-test/*.png.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=view
. tests/cli/lib.sh

$SASIM asm docs/exercises/files/01-wavefront.s -o "$T/w.bin" >/dev/null 2>&1 || { fail asm "sasim asm failed"; exit 1; }
$SASIM asm workloads/asm/gemm_tiled.s -o "$T/t.bin" >/dev/null 2>&1 || { fail asm "sasim asm failed"; exit 1; }

# ---- option rules ----
expect needs-detailed 2 '^sasim: run: --view needs --mode detailed' -- $SASIM run "$T/w.bin" --view "$T/v.html"
expect needs-c 2 '^sasim: run: --view needs --mode detailed \(and the C engine\)' -- \
  $SASIM run "$T/w.bin" --mode detailed --engine rtl --view "$T/v.html"
expect no-stdout 2 'view needs a file name' -- $SASIM run "$T/w.bin" --mode detailed --view -
expect max-needs-view 2 '^sasim: run: --view-max-mb needs --view' -- $SASIM run "$T/w.bin" --mode detailed --view-max-mb 4
expect max-too-big 2 'at most 4096' -- $SASIM run "$T/w.bin" --mode detailed --view "$T/v.html" --view-max-mb 5000
expect max-zero 2 'view-max-mb' -- $SASIM run "$T/w.bin" --mode detailed --view "$T/v.html" --view-max-mb 0
expect from-alone 2 '^sasim: run: --from and --to need --pe-trace, --view or --vcd' -- $SASIM run "$T/w.bin" --from 3
expect to-before-from 2 '^sasim: run: --to must be greater than --from' -- \
  $SASIM run "$T/w.bin" --mode detailed --pe-trace --from 20 --to 20
expect from-past-end 1 'v.html: error: --from 500 is past the end of the run \(43 cycles\)' -- \
  $SASIM run "$T/w.bin" --mode detailed --view "$T/v.html" --from 500
if [ -e "$T/v.html" ]; then fail no-file-on-error "v.html written"; else pass no-file-on-error; fi
expect missing-dir 1 'nodir/v.html: error' -- $SASIM run "$T/w.bin" --mode detailed --view "$T/nodir/v.html"
expect run-error 1 'cycle limit 30 reached' -- $SASIM run "$T/w.bin" --mode detailed --view "$T/v.html" --max-cycles 30
if [ -e "$T/v.html" ]; then fail no-file-on-run-error "v.html written"; else pass no-file-on-run-error; fi

# ---- --pe-trace windows: only the active cycles of [from, to); the aliases mean the same ----
$SASIM run "$T/w.bin" --mode detailed --pe-trace 2>/dev/null | grep '^cycle ' | cut -d: -f1 | tr '\n' ' ' >"$T/all"
if [ "$(cat "$T/all")" = "cycle 14 cycle 15 cycle 17 cycle 18 cycle 19 cycle 20 cycle 21 cycle 22 " ]; then
  pass trace-active-cycles; else fail trace-active-cycles "$(cat "$T/all")"; fi
$SASIM run "$T/w.bin" --mode detailed --pe-trace --from 15 --to 20 2>/dev/null | grep '^cycle ' | cut -d: -f1 | tr '\n' ' ' >"$T/win"
if [ "$(cat "$T/win")" = "cycle 15 cycle 17 cycle 18 cycle 19 " ]; then pass trace-window; else fail trace-window "$(cat "$T/win")"; fi
$SASIM run "$T/w.bin" --mode detailed --pe-trace --vcd-from 15 --vcd-to 20 2>/dev/null >"$T/alias"
$SASIM run "$T/w.bin" --mode detailed --pe-trace --from 15 --to 20 2>/dev/null >"$T/plain"
if cmp -s "$T/alias" "$T/plain"; then pass trace-window-aliases; else fail trace-window-aliases "--vcd-from/--vcd-to differ from --from/--to"; fi
# the first cycle of a window shows the stationary weights (here the bank PRELOAD filled)
if grep -A3 '^cycle 17:' "$T/plain" | grep -q '^  weight  c0 c1$'; then fail trace-window-weights "cycle 17 repeats the weights"
elif $SASIM run "$T/w.bin" --mode detailed --pe-trace --from 17 2>/dev/null | sed -n '2,4p' | tr -s ' ' | tr '\n' '|' |
  grep -qx ' weight c0 c1| r0 1 2| r1 10 20|'; then pass trace-window-weights
else fail trace-window-weights "the window's first cycle does not show the weights"; fi
# 16x16: one line per PE row, no line past 121 characters (was 276)
w=$($SASIM run "$T/t.bin" --mode detailed --pe-trace 2>/dev/null | awk '{ if (length($0) > m) m = length($0) } END { print m }')
if [ "$w" -le 121 ]; then pass trace-16x16-width; else fail trace-16x16-width "longest line $w characters"; fi

# ---- the page ----
if $SASIM run "$T/w.bin" --mode detailed --view "$T/v.html" >"$T/out" 2>"$T/err"; then pass view-written
else fail view-written "$(head -c 300 "$T/err")"; fi
if grep -Eiq '<script[^>]+src=|<link|https?://|@import|url\(' "$T/v.html"; then fail self-contained "$(grep -Eio '<script[^>]+src=|<link|https?://|@import|url\(' "$T/v.html" | head -3)"
else pass self-contained; fi
if grep -q '"frames":\[{"t":14,' "$T/v.html" && grep -q '"rows":2,"cols":2,"from":0,"to":43,"cycles":43' "$T/v.html"; then
  pass view-data; else fail view-data "the data block lacks the run's first frame or its header"; fi
ls "$T" | grep -q '\.tmp' && fail no-temporaries "$(ls "$T")" || pass no-temporaries
# cycles, outputs and statistics as without --view and --pe-trace
$SASIM run "$T/t.bin" --mode detailed --json "$T/a.json" >"$T/a.out" 2>/dev/null
$SASIM run "$T/t.bin" --mode detailed --json "$T/b.json" --view "$T/t.html" --pe-trace --from 100 --to 200 2>/dev/null |
  grep -v '^cycle \|^  ' >"$T/b.out"
if cmp -s "$T/a.out" "$T/b.out" && cmp -s "$T/a.json" "$T/b.json"; then pass same-figures
else fail same-figures "$(diff "$T/a.out" "$T/b.out" | head -3)"; fi
# the cap: a smaller one stops recording with a warning, and the page says so
if [ -x "$B/bin/sacc" ] && $B/bin/sacc compile workloads/nets/tiny_cnn.json --dataflow is -o "$T/c.bin" >/dev/null 2>&1; then
  $SASIM run "$T/c.bin" --mode detailed --view "$T/c.html" --view-max-mb 1 >/dev/null 2>"$T/err"; rc=$?
  size=$(wc -c <"$T/c.html")
  if [ $rc -eq 0 ] && grep -q 'c.html: warning: view capped at 1 MB: cycles \[0, [0-9]*) recorded' "$T/err" &&
     grep -q '"capped":true,"cap_mb":1' "$T/c.html" && [ "$size" -lt 1300000 ]; then pass view-cap
  else fail view-cap "exit $rc, $size bytes: $(head -c 300 "$T/err")"; fi
  $SASIM run "$T/c.bin" --mode detailed --view "$T/c2.html" >/dev/null 2>"$T/err"
  if grep -q capped "$T/err" || ! grep -q '"capped":false' "$T/c2.html"; then fail view-uncapped "$(head -c 300 "$T/err")"
  else pass view-uncapped; fi
else
  fail view-cap "sacc compile tiny_cnn failed"
fi

python3 tests/cli/view_browser.py "$B" "$B/view-test"
