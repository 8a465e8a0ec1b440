#!/bin/sh
# sfu.sh BUILD_DIR: the special-function unit of the RTL (rtl/sa_sfu_unit.sv) against the C
# detailed engine, in lockstep (--engine both: every cycle's unit states, fetches, DRAM beats and
# instruction times, then the statistics, sfu.* and units.sfu included, and all of DRAM; the
# harness also checks the unit's ACC/PARAM row probes against sim/sfu_exec.c's counts).
#  - SA_RTL_SFU_RANDOM (default 20) random SFU programs (tests/rtl/gen_sfuprog.py) on each of six
#    models: tiny (4 lanes = C, latency 6), tiny_sfu (2 lanes, latency 3), sfu_2x2 (1 lane,
#    latency 1, a one-slot queue), sfu_3lane (3 lanes on 4 columns, latency 2), small (8x8) and
#    default (16x16); across each arch's programs every SFU opcode, FN, EWOP and RED, a broadcast
#    and a row of several segments must occur;
#  - the hand-written programs (workloads/asm/sfu_*.s, exercise 9's attention head) on arches
#    other than their own (their .arch line replaced): tiny and sfu_3lane.
# workloads/asm/sfu_*.s on their own arch run in tests/rtl/rtl.sh with every shipped program.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-sfu
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }
n=${SA_RTL_SFU_RANDOM:-20}

for arch in workloads/arch/tiny.json tests/rtl/arch_tiny_sfu.json tests/rtl/arch_sfu_2x2.json \
            tests/rtl/arch_sfu_3lane.json workloads/arch/small.json workloads/arch/default.json; do
  a=$(basename "$arch" .json); a=${a#arch_}
  d="$T/r-$a"; mkdir -p "$d"
  if ! python3 tests/rtl/gen_sfuprog.py "$arch" 1 "$n" "$d" 2>"$T/gen.err"; then
    fail "random-$a" "gen_sfuprog.py: $(head -c 300 "$T/gen.err")"; continue
  fi
  bad=0 first=""
  for s in "$d"/s*.s; do
    p=${s%.s}.bin
    if ! $SASIM asm "$s" -o "$p" >"$T/out" 2>&1 || ! "$B/bin/sasim-rtl" run "$p" --engine both >"$T/out" 2>&1; then
      bad=$((bad + 1)); [ -n "$first" ] || first="$(basename "$s"): $(head -c 400 "$T/out")"
    fi
  done
  missing=""
  for w in SFU_MAP SFU_EW SFU_SOFTMAX SFU_LAYERNORM SFU_REDUCE CFG_SFU fn=identity fn=exp fn=gelu fn=sigmoid \
           fn=silu fn=hsigmoid fn=hswish ewop=add ewop=sub ewop=mul red=max red=sum red=sumsq bcast=1 \
           'len=[0-9]* sstride=[0-9]* .*pbase' 'STORE .*pop=sfu push=sfu'; do
    cat "$d"/s*.s | grep -q -- "$w" || missing="$missing '$w'"
  done
  # A row of several segments: LEN > C somewhere.
  c=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['array']['cols'])" "$arch")
  segs=$(cat "$d"/s*.s | grep -o 'len=[0-9]*' | awk -F= -v c="$c" '$2 > c { k++ } END { print k + 0 }')
  [ "$segs" -gt 0 ] || missing="$missing 'LEN > C'"
  if [ $bad -ne 0 ]; then fail "random-$a" "$bad of $n programs diverge; first: $first"
  elif [ -n "$missing" ]; then fail "random-$a" "never generated:$missing (raise SA_RTL_SFU_RANDOM)"
  else pass "random-$a-$n-programs"; fi
done

# The hand-written programs on other arches: the .arch line replaced by the arch file.
for arch in workloads/arch/tiny.json tests/rtl/arch_sfu_3lane.json; do
  a=$(basename "$arch" .json); a=${a#arch_}
  inline=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('comment',None); print(json.dumps(d,separators=(',',':')))" "$arch")
  for s in workloads/asm/sfu_*.s docs/exercises/files/09-attention.s; do
    b=$(basename "$s" .s)
    awk -v arch="$inline" '/^\.arch / { print ".arch " arch; next } { print }' "$s" >"$T/$b-$a.s"
    if $SASIM asm "$T/$b-$a.s" -o "$T/$b-$a.bin" >"$T/out" 2>&1 &&
       "$B/bin/sasim-rtl" run "$T/$b-$a.bin" --engine both >"$T/out" 2>&1; then
      pass "$b-on-$a"
    else
      fail "$b-on-$a" "$(head -c 400 "$T/out")"
    fi
  done
done
