#!/bin/sh
# rtl.sh BUILD_DIR: the RTL model (sasim-rtl) against the C detailed engine. Every shipped program
# (workloads/asm/*.s) through --engine rtl and --engine both: identical output lines (CRC32 of
# every output), statistics JSON and output files; SA_RTL_RANDOM (default 200) random legal
# programs (tests/common/randprog.c) split over 2x2 and tiny, and SA_RTL_SMALL_RANDOM (default 20)
# on the 8x8 small arch, each in lockstep (--engine
# both compares every cycle's unit states, fetches, DRAM beats, array ACC writes and instruction
# times, then the statistics and all of DRAM; COMPUTE_OS, COMPUTE_IS and transposed LOADs among
# them); and a planted bug (--flip-write-bit) that lockstep must report.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }

for s in workloads/asm/*.s; do
  n=$(basename "$s" .s)
  $SASIM asm "$s" -o "$T/$n.bin" || { fail "asm-$n" "does not assemble"; continue; }
  $SASIM run "$T/$n.bin" --mode detailed --json "$T/$n.c.json" --output-dir "$T/$n.c" >"$T/$n.c.out" 2>/dev/null
  if $SASIM run "$T/$n.bin" --engine rtl --json "$T/$n.r.json" --output-dir "$T/$n.r" >"$T/$n.r.out" 2>"$T/$n.r.err" &&
     cmp -s "$T/$n.c.json" "$T/$n.r.json" && cmp -s "$T/$n.c.out" "$T/$n.r.out" && diff -r "$T/$n.c" "$T/$n.r" >/dev/null
  then pass "shipped-$n"
  else fail "shipped-$n" "rtl differs from detailed: $(head -c 300 "$T/$n.r.err") $(diff "$T/$n.c.out" "$T/$n.r.out" | head -c 200)"; fi
  expect "lockstep-$n" 0 'cycles' -- $SASIM run "$T/$n.bin" --engine both
done

# The --stats table and the exit status come through sasim's exec of sasim-rtl unchanged.
if [ -f "$T/gemm_small.bin" ]; then
  expect stats-table 0 '^cycles +[0-9]+' -- $SASIM run "$T/gemm_small.bin" --engine rtl --stats
  expect max-cycles 1 'cycle limit 50 reached' -- $SASIM run "$T/gemm_small.bin" --engine rtl --max-cycles 50
  # A planted bug: bit 0 of the first written byte flipped on its way to DRAM. Lockstep stops at
  # that beat and names the cycle, the STORE and both values.
  expect planted-bug 1 'diverge at cycle [0-9]+, store unit, insn [0-9]+ \(STORE .*DRAM write beat: detailed 0x[0-9a-f]+ \[.*\], rtl' \
    -- $SASIM run "$T/gemm_small.bin" --engine both --flip-write-bit 1
fi

# Random programs in lockstep: SA_RTL_RANDOM (default 200) split over 2x2 and tiny, and
# SA_RTL_SMALL_RANDOM (default 20) on the 8x8 small arch, one Verilator model each. gen_randprog
# mixes weight-stationary work with COMPUTE_OS, COMPUTE_IS and transposed LOADs; on the small
# arch each of the three must occur (os.sh and is.sh test those paths by hand). On every arch
# some PRELOAD must come right behind a stream with overlap=1 (in the compute queue: other
# units' instructions and LAYERs aside), the form that shifts weights in under a stream, and
# LOADs and STOREs on the global buffer must occur (gen_randprog draws them mixed with DRAM ones:
# on 2x2 its buffer answers in 1 cycle with beats twice DRAM's, on tiny and small in 2).
total=${SA_RTL_RANDOM:-200}
per=$(( (total + 1) / 2 ))
for spec in tests/rtl/arch_2x2.json:$per workloads/arch/tiny.json:$per workloads/arch/small.json:${SA_RTL_SMALL_RANDOM:-20}; do
  arch=${spec%:*} n=${spec##*:}
  a=$(basename "$arch" .json)
  mkdir -p "$T/r-$a"
  if ! "$B/tests/rtl/gen_randprog" "$arch" 1 "$n" "$T/r-$a" 2>"$T/gen.err"; then
    fail "random-$a" "gen_randprog: $(head -c 300 "$T/gen.err")"; continue
  fi
  bad=0 first="" os=0 is=0 tr=0 ov=0 sf=0 gl=0 gs=0
  for p in "$T/r-$a"/r*.bin; do
    $SASIM disasm "$p" >"$T/dis"
    os=$((os + $(grep -c '^COMPUTE_OS' "$T/dis"))) is=$((is + $(grep -c '^COMPUTE_IS' "$T/dis")))
    tr=$((tr + $(grep -c '^LOAD .*transpose=1' "$T/dis")))
    sf=$((sf + $(grep -c '^SFU_' "$T/dis")))
    gl=$((gl + $(grep -c '^LOAD .*gbuf=1' "$T/dis"))) gs=$((gs + $(grep -c '^STORE .*gbuf=1' "$T/dis")))
    ov=$((ov + $(awk '/^COMPUTE(_IS)? .*overlap=1/ { o = 1; next } /^PRELOAD/ { n += o } /^(PRELOAD|COMPUTE)/ { o = 0 } END { print n + 0 }' "$T/dis")))
    if ! "$B/bin/sasim-rtl" run "$p" --engine both >"$T/out" 2>&1; then
      bad=$((bad + 1)); [ -n "$first" ] || first="seed $(basename "$p" .bin | tr -d r): $(head -c 400 "$T/out")"
    fi
  done
  if [ $bad -ne 0 ]; then fail "random-$a" "$bad of $n programs diverge; first: $first"
  elif [ "$a" = small ] && { [ $os -eq 0 ] || [ $is -eq 0 ] || [ $tr -eq 0 ]; }; then
    fail "random-$a" "$os COMPUTE_OS, $is COMPUTE_IS and $tr transposed LOADs in $n random programs"
  elif [ $ov -eq 0 ]; then fail "random-$a" "no PRELOAD behind an overlap=1 stream in $n random programs"
  elif [ $sf -eq 0 ]; then fail "random-$a" "no SFU instruction in $n random programs"
  elif [ $gl -eq 0 ] || [ $gs -eq 0 ]; then fail "random-$a" "$gl GBUF LOADs and $gs GBUF STOREs in $n random programs"
  else pass "random-$a-$n-programs-$os-compute-os-$is-compute-is-$tr-transposed-loads-$ov-preloads-behind-streams-$sf-sfu-$gl-gbuf-loads-$gs-gbuf-stores"; fi
done
