#!/bin/sh
# timeline.sh BUILD_DIR: `sasim run --timeline` through the RTL model gives the same rows, byte
# for byte, as the fast engine (the rows are derived from the per-instruction times, which the
# RTL must reproduce: docs/TIMING.md "What is contractual"; docs/STATS.md "Timeline"), on the
# tiny arch's asm programs and on tests/rtl/is_modes.s. Prints PASS/FAIL lines for tests/run.sh.
# Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-timeline
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }

for s in workloads/asm/*_tiny*.s tests/rtl/is_modes.s; do
  n=$(basename "$s" .s)
  if ! $SASIM asm "$s" -o "$T/p.bin" >"$T/o" 2>&1; then fail "$n" "sasim asm: $(head -c 200 "$T/o")"; continue; fi
  $SASIM run "$T/p.bin" --timeline "$T/fast.csv" >"$T/o" 2>&1 &&
    $SASIM run "$T/p.bin" --engine rtl --timeline "$T/rtl.csv" >>"$T/o" 2>&1 ||
    { fail "$n" "sasim run: $(head -c 300 "$T/o")"; continue; }
  if cmp -s "$T/fast.csv" "$T/rtl.csv"; then pass "$n"
  else fail "$n" "rtl and fast differ: $(diff "$T/fast.csv" "$T/rtl.csv" | head -3 | tr '\n' ' ')"; fi
done
