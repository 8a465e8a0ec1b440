#!/bin/sh
# vcd.sh BUILD_DIR: sasim run --engine rtl --vcd (the traced model variant, docs/RTL.md). A
# cycle window gives a valid VCD (header, $enddefinitions, value changes of declared signals)
# whose timestamps all lie inside the window, smaller than the whole run's; --vcd-units keeps
# only the named scopes; the array's valid bits show the wavefront (PE (r,c) starts r+c cycles
# after PE (0,0)); tracing changes no result; bad options are refused. Checked with
# tests/rtl/vcd_check.py. Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-vcd
. tests/cli/lib.sh
CHECK="python3 tests/rtl/vcd_check.py"

$SASIM asm workloads/asm/gemm_small.s -o "$T/g.bin" || { fail asm "gemm_small.s does not assemble"; exit 0; }
$SASIM run "$T/g.bin" --engine rtl >"$T/plain.out" 2>"$T/plain.err" || { fail plain "$(head -c 300 "$T/plain.err")"; exit 0; }
cycles=$(sed -n 's/^\([0-9]*\) cycles$/\1/p' "$T/plain.out")

# The whole run, every scope: the reference for size and for the scope list.
if $SASIM run "$T/g.bin" --engine rtl --vcd "$T/all.vcd" >"$T/all.out" 2>"$T/err" &&
   $CHECK "$T/all.vcd" --window 0 $((cycles * 10)) >"$T/all.chk"; then
  if cmp -s "$T/plain.out" "$T/all.out" && grep -q "timestamps from #0 to #$((cycles * 10 - 5))\$" "$T/all.chk" &&
     grep -q 'scope sa_top.sa_top.u_load$' "$T/all.chk"; then pass whole-run
  else fail whole-run "outputs differ or the trace misses cycles or scopes: $(head -n 1 "$T/all.chk")"; fi
else fail whole-run "$(head -c 300 "$T/err") $(cat "$T/all.chk" 2>/dev/null)"; fi

# A window [20, 40): two timestamps per cycle (10t settled, 10t+5 after the edge), none outside.
if $SASIM run "$T/g.bin" --engine rtl --vcd "$T/w.vcd" --vcd-from 20 --vcd-to 40 >"$T/w.out" 2>"$T/err" &&
   $CHECK "$T/w.vcd" --window 200 400 >"$T/w.chk"; then
  if ! cmp -s "$T/plain.out" "$T/w.out"; then fail window "tracing changed the run: $(head -c 200 "$T/w.out")"
  elif ! grep -q ', 40 timestamps from #200 to #395$' "$T/w.chk"; then fail window "$(head -n 1 "$T/w.chk")"
  elif [ "$(wc -c <"$T/w.vcd")" -ge "$(wc -c <"$T/all.vcd")" ]; then fail window "the window's VCD is not smaller than the whole run's"
  else pass window; fi
else fail window "$(head -c 300 "$T/err") $(cat "$T/w.chk" 2>/dev/null)"; fi

# --vcd-units array: sa_top's own signals and the array, nothing of the other units.
if $SASIM run "$T/g.bin" --engine rtl --vcd "$T/a.vcd" --vcd-units array >/dev/null 2>"$T/err" &&
   $CHECK "$T/a.vcd" --first-high u_pe.valid_q >"$T/a.chk"; then
  other=$(grep '^scope ' "$T/a.chk" | grep -v -e '^scope sa_top$' -e '^scope sa_top.sa_top$' -e '^scope sa_top.sa_top.u_compute.u_array' | head -n 3)
  if [ -z "$other" ] && grep -q 'u_array.g_row\[3\].g_col\[3\].u_pe' "$T/a.chk"; then pass units-array
  else fail units-array "unexpected scopes: $other"; fi
  # The wavefront: PE (r,c) sees its first valid row r+c cycles after PE (0,0).
  t00=$(sed -n 's/^first-high .*g_row\[0\]\.g_col\[0\]\.u_pe\.valid_q \([0-9]*\)$/\1/p' "$T/a.chk")
  bad=""
  for r in 0 1 2 3; do
    for c in 0 1 2 3; do
      t=$(sed -n "s/^first-high .*g_row\\[$r\\]\\.g_col\\[$c\\]\\.u_pe\\.valid_q \\([0-9]*\\)\$/\\1/p" "$T/a.chk")
      [ -n "$t" ] && [ -n "$t00" ] && [ "$t" -eq $((t00 + 10 * (r + c))) ] || bad="$bad ($r,$c)=${t:-never}"
    done
  done
  [ -z "$bad" ] && pass wavefront || fail wavefront "PE (0,0) at #${t00:-never}, off the diagonal:$bad"
else fail units-array "$(head -c 300 "$T/err") $(cat "$T/a.chk" 2>/dev/null)"; fi

expect units-several 0 'cycles' -- $SASIM run "$T/g.bin" --engine rtl --vcd "$T/s.vcd" --vcd-units load,store
if $CHECK "$T/s.vcd" >"$T/s.chk" && grep -q 'scope sa_top.sa_top.u_store$' "$T/s.chk" &&
   ! grep -q 'scope sa_top.sa_top.u_compute' "$T/s.chk"; then pass units-several-scopes
else fail units-several-scopes "$(head -n 3 "$T/s.chk")"; fi

# --from/--to are the same options as --vcd-from/--vcd-to (the window of --pe-trace and --view too).
if $SASIM run "$T/g.bin" --engine rtl --vcd "$T/w2.vcd" --from 20 --to 40 >/dev/null 2>"$T/err" && cmp -s "$T/w.vcd" "$T/w2.vcd"
then pass from-to-aliases; else fail from-to-aliases "--from 20 --to 40 differs from --vcd-from 20 --vcd-to 40"; fi

# Lockstep with a waveform: the comparison still runs and passes.
expect lockstep 0 "^$cycles cycles" -- $SASIM run "$T/g.bin" --engine both --vcd "$T/b.vcd" --vcd-from 10 --vcd-to 12

# Refused options.
expect bad-unit 2 "vcd-units: expected a comma-separated list of .*, got 'load,fpu'" -- $SASIM run "$T/g.bin" --engine rtl --vcd "$T/x.vcd" --vcd-units load,fpu
expect empty-unit 2 "vcd-units: expected a comma-separated list of .*, got 'load,'" -- $SASIM run "$T/g.bin" --engine rtl --vcd "$T/x.vcd" --vcd-units load,
expect window-empty 2 'to must be greater than --from' -- $SASIM run "$T/g.bin" --engine rtl --vcd "$T/x.vcd" --vcd-from 5 --vcd-to 5
expect from-needs-vcd 2 'need --pe-trace, --view or --vcd' -- $SASIM run "$T/g.bin" --engine rtl --vcd-from 5
expect vcd-needs-rtl 2 'need --engine rtl or both' -- $SASIM run "$T/g.bin" --vcd "$T/x.vcd"
expect unwritable 1 'no-such-dir/x.vcd: error: cannot write the waveform' -- $SASIM run "$T/g.bin" --engine rtl --vcd "$T/no-such-dir/x.vcd"
