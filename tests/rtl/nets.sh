#!/bin/sh
# nets.sh BUILD_DIR: compiled networks on the RTL (issue 5): small shipped networks (LeNet-5, a
# residual block, a depthwise block, the depthwise edge case, and with the special-function unit
# the lecture's FullBasicModel (softmax) and a squeeze-excitation block (sigmoid, broadcast
# multiply), issue 16) compiled by `sacc compile` for
# a 4x4 (tiny) and an 8x8 (small) arch, fused (the compiler's default: activations between layers
# in the global buffer; residual and tiny_cnn must use it) in each dataflow (weight-, output- and input-stationary,
# `--dataflow ws|os|is`; SA_RTL_DATAFLOWS picks), run with --engine both: the RTL and the detailed engine
# in lockstep, compared every cycle and at the end (times, statistics, DRAM). Then the RTL's
# statistics JSON (total cycles, per unit, per layer) and output files must equal the C fast
# engine's byte for byte, and its output lines (CRC32 per tensor) the reference interpreter's
# (tests/golden/NAME.ref.txt). Prints PASS/FAIL lines for tests/run.sh. Run from the repo root.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-net
. tests/cli/lib.sh
NETS=${SA_RTL_NETS:-"lenet5 residual depthwise edge_depthwise fullbasic se_block tiny_cnn"}
# Networks the compiler fuses (activations kept in the global buffer, docs/COMPILER.md "Fusion"):
# their runs must read and write it, so the RTL's GBUF path is what lockstep checks.
FUSED="residual tiny_cnn"
gbuf_used() {
  python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["gbuf"]; sys.exit(0 if g["read_beats"] and g["write_beats"] else 1)' "$1"
}
DATAFLOWS=${SA_RTL_DATAFLOWS:-"ws os is"}
outputs() { grep '^output ' "$1" | sort; }

for df in $DATAFLOWS; do
for arch in workloads/arch/tiny.json workloads/arch/small.json; do
  a=$(basename "$arch" .json)
  for n in $NETS; do
    t="$n-$a" d="$T/$n-$a-$df"
    [ "$df" = ws ] || t="$t-$df"
    if ! $SACC compile "workloads/nets/$n.json" --arch "$arch" --dataflow "$df" -o "$d.bin" >"$T/err" 2>&1; then
      fail "$t" "sacc compile: $(head -c 300 "$T/err")"; continue
    fi
    $SASIM run "$d.bin" --json "$d.c.json" --output-dir "$d.c" >"$d.c.out" 2>"$T/err" ||
      { fail "$t" "sasim run (fast): $(head -c 300 "$T/err")"; continue; }
    if ! $SASIM run "$d.bin" --engine both --json "$d.r.json" --output-dir "$d.r" >"$d.r.out" 2>"$T/err"; then
      fail "$t" "lockstep: $(head -c 400 "$T/err")"; continue
    fi
    outputs "$d.r.out" >"$T/got"
    outputs "tests/golden/$n.ref.txt" >"$T/want"
    if ! cmp -s "$d.c.json" "$d.r.json"; then
      fail "$t" "statistics differ from the fast engine's: $(diff "$d.c.json" "$d.r.json" | head -n 4 | tr '\n' ' ')"
    elif ! cmp -s "$d.c.out" "$d.r.out" || ! diff -r "$d.c" "$d.r" >/dev/null; then
      fail "$t" "outputs differ from the fast engine's: $(diff "$d.c.out" "$d.r.out" | head -n 4 | tr '\n' ' ')"
    elif [ ! -s "$T/want" ] || ! cmp -s "$T/got" "$T/want"; then
      fail "$t" "outputs differ from the reference: $(diff "$T/want" "$T/got" | head -n 4 | tr '\n' ' ')"
    elif case " $FUSED " in *" $n "*) ! gbuf_used "$d.r.json" ;; *) false ;; esac; then
      fail "$t" "not fused: the run does not use the global buffer"
    else
      pass "$t"
    fi
  done
done
done

# A batch of two (issue 15 item 6): the residual block with input N = 2 on the tiny arch, each
# dataflow, in lockstep; outputs equal the reference interpreter's of the same batched net.
batched workloads/nets/residual.json 2 "$T/residual_n2.json"
$B/bin/sacc ref "$T/residual_n2.json" >"$T/n2.ref" 2>"$T/err" || fail "residual-n2" "sacc ref: $(head -c 300 "$T/err")"
for df in $DATAFLOWS; do
  t="residual-n2-tiny-$df" d="$T/n2-$df"
  if ! $SACC compile "$T/residual_n2.json" --arch workloads/arch/tiny.json --dataflow "$df" -o "$d.bin" >"$T/err" 2>&1; then
    fail "$t" "sacc compile: $(head -c 300 "$T/err")"; continue
  fi
  if ! $SASIM run "$d.bin" --engine both >"$d.out" 2>"$T/err"; then fail "$t" "lockstep: $(head -c 400 "$T/err")"; continue; fi
  outputs "$d.out" >"$T/got"; outputs "$T/n2.ref" >"$T/want"
  if [ -s "$T/want" ] && cmp -s "$T/got" "$T/want"; then pass "$t"
  else fail "$t" "outputs differ from sacc ref: $(diff "$T/want" "$T/got" | head -n 4 | tr '\n' ' ')"; fi
done

# All three dataflows in one program (LeNet-5 on the tiny arch, conv2 input-stationary and fc1
# output-stationary by --layer-dataflow, the rest weight-stationary), in lockstep; outputs equal
# the reference's.
t=lenet5-tiny-mixed d="$T/mixed"
if ! $SACC compile workloads/nets/lenet5.json --arch workloads/arch/tiny.json --dataflow ws --layer-dataflow conv2=is \
     --layer-dataflow fc1=os -o "$d.bin" >"$T/err" 2>&1; then
  fail "$t" "sacc compile: $(head -c 300 "$T/err")"
elif ! $SASIM run "$d.bin" --engine both >"$d.out" 2>"$T/err"; then
  fail "$t" "lockstep: $(head -c 400 "$T/err")"
else
  outputs "$d.out" >"$T/got"; outputs tests/golden/lenet5.ref.txt >"$T/want"
  if [ -s "$T/want" ] && cmp -s "$T/got" "$T/want"; then pass "$t"
  else fail "$t" "outputs differ from the reference: $(diff "$T/want" "$T/got" | head -n 4 | tr '\n' ' ')"; fi
fi
