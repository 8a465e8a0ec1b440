#!/bin/sh
# scalesim.sh BUILD_DIR: scripts/scalesim2net (docs/IMPORTERS.md). Every shipped topology in
# workloads/scalesim/ converts and passes `sacc check`, and sacc counts the MACs SCALE-Sim's
# formula gives (the script's count): so every layer has SCALE-Sim's OFMAP size. The smallest
# topology and a hand-written one (depthwise, fc, a stride that leaves a partial window, a
# separate width stride, extra columns) and a GEMM topology compile and run on sasim equal to
# `sacc ref`. Errors.
# The big topologies are checked only in an optimized build (sacc check runs two references).
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
S2N=scripts/scalesim2net
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=scalesim
. tests/cli/lib.sh
case $B in *asan*) small_only=1 ;; *) small_only=0 ;; esac
if ! /usr/bin/python3 -c 'import csv' 2>/dev/null; then fail python3 "/usr/bin/python3 is missing"; exit 0; fi

outputs() { grep '^output ' "$1" | sort; }
macs_of_script() { sed -n 's/.*layers, \([0-9]*\) MACs$/\1/p' "$1"; }

for f in workloads/scalesim/*.csv; do
  n=$(basename "$f" .csv)
  if [ $small_only = 1 ] && [ "$n" != lenet5 ]; then continue; fi
  if ! $S2N "$f" -o "$T/$n.json" 2>"$T/conv"; then fail "topology-$n" "scalesim2net: $(head -c 300 "$T/conv")"; continue; fi
  if ! $SACC check "$T/$n.json" --dump-ir >"$T/check" 2>&1; then fail "topology-$n" "sacc check: $(tail -c 300 "$T/check")"; continue; fi
  want=$(macs_of_script "$T/conv")
  got=$(sed -n 's/^total macs=//p' "$T/check")
  if [ -n "$want" ] && [ "$want" = "$got" ]; then pass "topology-$n"
  else fail "topology-$n" "sacc counts $got MACs, SCALE-Sim's formula $want"; fi
done

# A topology of every kind of row, with SCALE-Sim's habits: spaces, trailing commas, an extra
# column, a blank line.
cat >"$T/mixed.csv" <<'EOF'
Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides, Stride width, Extra,
conv_odd, 9, 8, 3, 3, 3, 5, 2, 2, 1,
Conv_DP, 10, 10, 3, 3, 6, 1, 1,

conv_DP_mult, 7, 7, 3, 3, 4, 2, 2,
rect, 12, 9, 3, 2, 4, 6, 2, 1,
fc, 1, 1, 1, 1, 40, 7, 1,
fc_as_conv, 3, 3, 3, 3, 8, 5, 1,
EOF
# A GEMM topology (SCALE-Sim's "Layer, M, N, K" format): fcs with batch M.
printf 'Layer, M, N, K,\ng1, 5, 7, 12,\nDP_not_depthwise, 3, 9, 4,\n' >"$T/gemm.csv"
for n in lenet5 mixed gemm; do
  case $n in mixed|gemm) src=$T/$n.csv ;; *) src=workloads/scalesim/$n.csv ;; esac
  if $S2N "$src" -o "$T/r.json" 2>"$T/conv" && $SACC ref "$T/r.json" >"$T/ref" 2>&1 &&
     $SACC compile "$T/r.json" -o "$T/r.bin" >"$T/err" 2>&1 && $SASIM run "$T/r.bin" >"$T/sim" 2>&1 &&
     [ -n "$(outputs "$T/ref")" ] && [ "$(outputs "$T/ref")" = "$(outputs "$T/sim")" ]
  then pass "run-$n"; else fail "run-$n" "$(cat "$T/conv" "$T/err" | head -c 300)"; fi
done
# The shapes SCALE-Sim gives the mixed rows (OFMAP = ceil((IFMAP - filter) / stride) + 1).
$S2N "$T/mixed.csv" -o "$T/m.json" 2>/dev/null
$SACC check "$T/m.json" --dump-ir >"$T/check" 2>&1
ok=1
for want in 'conv_odd .*-> \[1,4,4,5\]' 'Conv_DP .*-> \[1,8,8,6\]' 'conv_DP_mult .*-> \[1,3,3,8\]' \
            'rect .*-> \[1,6,8,6\]' 'fc .*\[1,40\] -> \[1,7\]' 'fc_as_conv .*-> \[1,1,1,5\]'; do
  grep -qE "^$want" "$T/check" || { ok=0; fail shapes "no line /$want/ in sacc check --dump-ir"; }
done
[ $ok = 1 ] && pass shapes
$S2N "$T/gemm.csv" -o "$T/g.json" 2>"$T/conv"
$SACC check "$T/g.json" --dump-ir >"$T/check" 2>&1
if grep -qE '^g1 +fc +\[5,12\] -> \[5,7\]' "$T/check" && grep -qE '^DP_not_depthwise +fc +\[3,4\] -> \[3,9\]' "$T/check" &&
   [ "$(sed -n 's/^total macs=//p' "$T/check")" = "$(macs_of_script "$T/conv")" ]
then pass gemm-shapes; else fail gemm-shapes "$(head -c 300 "$T/check")"; fi

# --layers, the 64-layer limit, errors.
expect layers 0 '"name": "C3"' -- $S2N workloads/scalesim/lenet5.csv --layers 2-3
expect layers-range 1 'layers 4-9: want FIRST-LAST within 1-5' -- $S2N workloads/scalesim/lenet5.csv --layers 4-9
{ echo "Layer, H, W, FH, FW, C, N, S,"; i=0; while [ $i -lt 65 ]; do echo "l$i, 4, 4, 1, 1, 2, 2, 1,"; i=$((i + 1)); done; } >"$T/long.csv"
expect too-many 1 'long.csv: error: 65 layers; a net.json holds at most 64 inputs' -- $S2N "$T/long.csv"
expect part 0 '"name": "l64"' -- $S2N "$T/long.csv" --layers 60-65
printf 'Layer, H, W, FH, FW, C, N, S,\nok, 8, 8, 3, 3, 1, 1, 1,\nbig, 5, 5, 7, 7, 3, 4, 1,\n' >"$T/big.csv"
expect filter-too-big 1 'big.csv:3: error: filter 7x7 is larger than the IFMAP 5x5' -- $S2N "$T/big.csv"
printf 'Layer, H, W, FH, FW, C, N, S,\nbad, 8, eight, 3, 3, 1, 1, 1,\n' >"$T/nan.csv"
expect not-a-number 1 "nan.csv:2: error: IFMAP width 'eight' is not a positive integer" -- $S2N "$T/nan.csv"
printf 'Layer, H, W, FH, FW, C, N, S,\nshort, 8, 8, 3, 3, 1,\n' >"$T/short.csv"
expect short-row 1 'short.csv:2: error: want 8 columns' -- $S2N "$T/short.csv"
expect missing-file 1 'nosuch.csv: error: cannot read' -- $S2N "$T/nosuch.csv"
expect help 0 'usage: scalesim2net' -- $S2N --help
expect no-args 2 'usage: scalesim2net' -- $S2N
rm -f "$T/none.json"
$S2N "$T/big.csv" -o "$T/none.json" 2>/dev/null
if [ -e "$T/none.json" ] || ls -a "$T" | grep -q '^\.none\.json'; then fail no-partial-output "a file was left"
else pass no-partial-output; fi
