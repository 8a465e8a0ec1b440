#!/bin/sh
# sfu_compile.sh BUILD_DIR: the special-function unit's ops compiled and run (issue 16;
# docs/COMPILER.md "Special functions"). Small networks: workloads/nets/fullbasic (the
# lectures' FullBasicModel: conv 1->128, relu, fc 128->10, softmax), workloads/nets/se_block (a
# squeeze-excitation block: global_avgpool over 20x17, folded since the STORE pools at most
# 15x15, fc, relu, fc, hardsigmoid, mul broadcast, hardswish),
# tests/compiler/nets/sfu_mlp (layernorm, GELU MLP, sub, silu, sigmoid, mul, mul_const on a
# [1,1,7,8] sequence) and sfu_rows (softmax over rows of 300 values, layernorms of 40 and 200 channels, a rank-2 softmax) compile
# in ws, os, is and auto, on the default and tiny archs (sfu_rows: the default and large archs; tiny
# refuses it naming the layer), run in sasim (fast; a few in the detailed engine, single-buffered,
# batched, with tokens.max 1), and print the outputs of `sacc ref` bit for bit. The programs use
# the unit (SFU_* instructions, sfu token channels in --dump-ir schedule), and the shapes the
# unit cannot take are refused naming the layer.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=sfu-compile
. tests/cli/lib.sh
N=tests/compiler/nets
TINY=workloads/arch/tiny.json
# net NAME: its file (fullbasic and se_block ship in workloads/nets, the others are tests')
net() { case $1 in fullbasic|se_block) echo workloads/nets/$1.json ;; *) echo $N/sfu_$1.json ;; esac; }


for n in fullbasic se_block mlp rows; do
  for df in ws os is; do
    same_as_ref "$n-$df" $(net $n) -- --dataflow $df
    if [ $n = rows ]; then same_as_ref "$n-$df-large" $(net $n) -- --dataflow $df --arch workloads/arch/large.json
    else same_as_ref "$n-$df-tiny" $(net $n) -- --dataflow $df --arch $TINY; fi
  done
  same_as_ref "$n-detailed" $(net $n) --mode detailed --
  same_as_ref "$n-auto" $(net $n) -- --dataflow auto
  same_as_ref "$n-single-buffered" $(net $n) -- --no-double-buffer
done
for n in se_block mlp fullbasic; do
  same_as_ref "$n-tiny-detailed" $(net $n) --mode detailed -- --arch $TINY
  batched $(net $n) 3 "$T/$n.n3.json"   # M tiles of several images: the gate broadcast per image
  same_as_ref "$n-n3" "$T/$n.n3.json"
  same_as_ref "$n-n3-tiny" "$T/$n.n3.json" -- --arch $TINY
done
# tokens.max 1: the SFU's channels get spacers like the others (docs/COMPILER.md "Token bound")
for a in default tiny; do
  sed "s/\"max\": 255/\"max\": 1/" workloads/arch/$a.json >"$T/tok.json"
  for n in se_block mlp; do
    same_as_ref "$n-tokens-max-1-$a" $(net $n) -- --arch "$T/tok.json"
    same_as_ref "$n-tokens-max-1-$a-detailed" $(net $n) --mode detailed -- --arch "$T/tok.json"
  done
done

# The programs use the unit: each op's instruction, and tokens to and from the SFU.
$SACC compile $N/sfu_rows.json --emit asm -o "$T/rows.s" >/dev/null 2>&1
$SACC compile $N/sfu_mlp.json --emit asm -o "$T/mlp.s" >/dev/null 2>&1
$SACC compile workloads/nets/se_block.json --emit asm -o "$T/se.s" >/dev/null 2>&1
# has NAME FILE PATTERN: FILE (a program's assembly) has a line matching PATTERN.
has() {
  if grep -qE -- "$3" "$2"; then pass "$1"; else fail "$1" "no line /$3/ in $2"; fi
}
has asm-softmax-long "$T/rows.s" 'SFU_SOFTMAX .* len=300 sstride=[0-9]+ sm_mult=41943 sm_shift=8 sm_j=0'
has asm-softmax-scale "$T/rows.s" 'SFU_SOFTMAX .* len=300 .* sm_j=3'
has asm-softmax-rank2 "$T/rows.s" 'SFU_SOFTMAX .* len=37 '
# (the tile's rows are the cost model's choice; a row's segments are a tile's rows apart)
has asm-layernorm-rows "$T/rows.s" 'SFU_LAYERNORM .* rows=([0-9]+) len=40 sstride=\1 pbase='
has asm-layernorm-eps "$T/rows.s" 'CFG_SFU .* eps=640'
# the 200-channel layernorm's 39 PARAM rows (more than a 32-row slot) are loaded once, at row 0
n=$(grep -cE 'LOAD .*mem=param .*outer=39 ' "$T/rows.s")
if [ "$n" = 1 ] && grep -qE 'LOAD .*mem=param .*dst=0 .*outer=39 ' "$T/rows.s"; then pass asm-layernorm-params-once
else fail asm-layernorm-params-once "$n LOADs of its 39 PARAM rows, want one, at row 0"; fi
has asm-gelu "$T/mlp.s" 'SFU_MAP .* fn=gelu'
has asm-silu "$T/mlp.s" 'SFU_MAP .* fn=silu'
has asm-sigmoid "$T/mlp.s" 'SFU_MAP .* fn=sigmoid'
has asm-sub "$T/mlp.s" 'SFU_EW .* ewop=sub bcast=0'
has asm-mul "$T/mlp.s" 'SFU_EW .* ewop=mul bcast=0'
has asm-hsigmoid "$T/se.s" 'SFU_MAP .* fn=hsigmoid'
has asm-hswish "$T/se.s" 'SFU_MAP .* fn=hswish'
has asm-mul-bcast "$T/se.s" 'SFU_EW .* ewop=mul bcast=1'
# the assembly round trip holds for SFU programs too
$SACC compile $N/sfu_mlp.json -o "$T/mlp.bin" >/dev/null 2>&1
if $SASIM asm "$T/mlp.s" -o "$T/mlp2.bin" --compress >/dev/null 2>&1 && cmp -s "$T/mlp.bin" "$T/mlp2.bin"; then pass emit-asm
else fail emit-asm "sasim asm of --emit asm is not the same binary"; fi
expect schedule-sfu-tokens 0 '^tokens load -> sfu: [1-9]' -- $SACC compile workloads/nets/se_block.json --dump-ir schedule -o "$T/x.bin"
expect schedule-sfu-store-tokens 0 '^tokens sfu -> store: [1-9]' -- $SACC compile workloads/nets/se_block.json --dump-ir schedule -o "$T/x.bin"
expect lower-dump 0 'SFU_EW bcast' -- $SACC compile workloads/nets/se_block.json --dump-ir lower -o "$T/x.bin"
# the squeeze over 20x17 (the STORE pools at most 15x15) is folded: 15x15 accumulator rows, 2x15 on tiny
expect pool-folded 0 'op 0 layer 0 elt pool: .* folded 15x15 avgpool 15x15/1x1' -- $SACC compile workloads/nets/se_block.json --dump-ir lower -o "$T/x.bin"
expect pool-folded-tiny 0 'op 0 layer 0 elt pool: .* folded 2x15 avgpool 2x15/1x1' -- $SACC compile workloads/nets/se_block.json --dump-ir lower --arch $TINY -o "$T/x.bin"

# What the unit cannot take is refused naming the layer (and no program is written).
rm -f "$T/no.bin"
expect rows-tiny-refused 1 'sfu_rows.json: layers\[0\] "sm": error: softmax row of 300 values spans 75 accumulator rows of 4 values, more than arch "tiny" has' -- \
  $SACC compile $N/sfu_rows.json --arch $TINY -o "$T/no.bin"
if [ -e "$T/no.bin" ]; then fail rows-tiny-no-output "a program was written"; else pass rows-tiny-no-output; fi
cat >"$T/ln.json" <<'EOF'
{"name": "ln_wide", "inputs": [{"name": "x", "shape": [1, 1, 2, 40], "scale": 0.05}],
 "layers": [{"name": "norm", "op": "layernorm", "inputs": ["x"], "output": "y", "scale": 0.03}], "outputs": ["y"]}
EOF
expect layernorm-params-refused 1 'ln.json: layers\[0\] "norm": error: layernorm row of 40 values needs 30 parameter rows \(3 per 4 channels\), more than arch "tiny" has \(param.rows 8\)' -- \
  $SACC compile "$T/ln.json" --arch $TINY -o "$T/no.bin"
cat >"$T/bc.json" <<'EOF'
{"name": "bcast_w", "inputs": [{"name": "x", "shape": [1, 3, 4, 8], "scale": 0.05}, {"name": "g", "shape": [1, 3, 1, 8], "scale": 0.05}],
 "layers": [{"name": "gate", "op": "mul", "inputs": ["x", "g"], "output": "y", "scale": 0.01}], "outputs": ["y"]}
EOF
expect mul-broadcast-refused 1 'bc.json: layers\[0\] "gate": error: mul broadcasts its second input \[1,3,1,8\] in a way the special-function unit cannot' -- \
  $SACC compile "$T/bc.json" -o "$T/no.bin"
if $SACC ref "$T/bc.json" >/dev/null 2>&1; then pass mul-broadcast-ref-runs; else fail mul-broadcast-ref-runs "sacc ref refused it"; fi
