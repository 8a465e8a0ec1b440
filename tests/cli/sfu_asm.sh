#!/bin/sh
# sfu_asm.sh BUILD_DIR: the special-function unit's instructions on both engines (issue 16), on
# the hand-written programs workloads/asm/sfu_*.s. For each: the output equals what
# tests/cli/sfu_ref.py computes (docs/SFU.md section 2 and docs/ISA.md 6.8 re-implemented in
# Python integers, independently of the C code), the cycles and the SFU's unit states equal the
# figures worked by hand in the program's header from docs/TIMING.md (7a for the SFU), and the
# fast and detailed engines give the same --json, every figure. One program's counters (sfu.*,
# ACC traffic) are checked against values worked by hand below.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=sfu-asm
. tests/cli/lib.sh

# name cycles sfu_busy sfu_wait_token sfu_idle (the arithmetic is in each .s file's header)
while read -r name cycles busy wait idle; do
  s=workloads/asm/$name.s
  if ! python3 tests/cli/sfu_ref.py "$s" "$T/$name.npy" >"$T/err" 2>&1; then
    fail "$name-model" "sfu_ref.py: $(head -c 300 "$T/err")"; continue
  fi
  # The shipped expected output (workloads/asm/NAME_expected.npy) is the model's, byte for byte.
  if cmp -s "$T/$name.npy" "workloads/asm/${name}_expected.npy"; then pass "$name-shipped-expected"
  else fail "$name-shipped-expected" "workloads/asm/${name}_expected.npy differs from tests/cli/sfu_ref.py's output"; fi
  if ! $SASIM asm "$s" -o "$T/$name.bin" >"$T/err" 2>&1; then fail "$name-asm" "$(head -c 300 "$T/err")"; continue; fi
  for m in fast detailed; do
    $SASIM run "$T/$name.bin" --mode $m --expect Y="$T/$name.npy" --json "$T/$name.$m.json" >"$T/out" 2>&1; rc=$?
    if [ $rc -eq 0 ] && grep -q '^expect Y: ok' "$T/out"; then pass "$name-$m-values"
    else fail "$name-$m-values" "exit $rc: $(grep -v '^sasim: running' "$T/out" | head -c 400)"; fi
    got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); u=d["units"]["sfu"]
print(d["cycles"], u["busy"], u["wait_token"], u["idle"])' "$T/$name.$m.json" 2>&1)
    if [ "$got" = "$cycles $busy $wait $idle" ]; then pass "$name-$m-cycles"
    else fail "$name-$m-cycles" "cycles, sfu busy, wait_token, idle: got $got, worked by hand $cycles $busy $wait $idle"; fi
  done
  if python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b): d.pop("program", None)
sys.exit(a != b)' "$T/$name.fast.json" "$T/$name.detailed.json"; then pass "$name-engines-agree"
  else fail "$name-engines-agree" "the fast and detailed --json differ"; fi
done <<'EOF'
sfu_map 162 40 22 100
sfu_softmax 226 123 13 90
sfu_layernorm 335 173 70 92
sfu_ew 227 34 21 172
sfu_reduce 254 60 22 172
EOF

# sfu_softmax.s's counters, by hand (docs/TIMING.md 7a and 10, C = 4, ROWS = 2, LEN = 6, S = 2,
# two SFU_SOFTMAX): elems 2 x 3 ROWS S C = 96, exp 2 x 2 ROWS LEN = 48, norm 2 x ROWS LEN = 24,
# reduce 2 x 2 ROWS LEN = 48, recip 2 x ROWS = 4, the others 0; ACC read rows 2 x 3 ROWS S = 24
# plus the STORE's 8 = 32, written 4 (LOAD) + 2 x ROWS S = 12. sfu_layernorm.s: elems
# 2 x 2 ROWS S C = 64, norm 24, reduce 2 x ROWS LEN = 24, rsqrt 4, PARAM read rows 2 x 3 ROWS S = 24.
check_counts() {  # name "key=value ..."
  got=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
out = []
for kv in sys.argv[2].split():
    k, v = kv.split("=")
    x = d
    for p in k.split("."): x = x[p]
    if x != int(v): out.append("%s=%s (want %s)" % (k, x, v))
print(" ".join(out))' "$T/$1.detailed.json" "$2" 2>&1)
  if [ -z "$got" ]; then pass "$1-counters"; else fail "$1-counters" "$got"; fi
}
check_counts sfu_softmax "sfu.elems=96 sfu.exp=48 sfu.norm=24 sfu.reduce=48 sfu.recip=4 sfu.rsqrt=0 sfu.gelu=0 sfu.sigmoid=0 sfu.hard=0 sfu.ew_add=0 sfu.ew_mul=0 onchip.acc.read_rows=32 onchip.acc.write_rows=12"
check_counts sfu_layernorm "sfu.elems=64 sfu.norm=24 sfu.reduce=24 sfu.rsqrt=4 sfu.recip=0 sfu.exp=0 onchip.param.read_rows=24"
# sfu_map.s: 6 x 1 row and 1 x 2 rows of C = 4: gelu 4, sigmoid + silu 8, hsigmoid + hswish +
# identity 12, exp 8, elems 32. sfu_ew.s: add + sub + add 2+2+1 rows = 20, mul 2 x 2 rows = 16,
# ACC reads 2 x 2 x 3 + (2 + 1) + 2 (in place) = 17 plus the STORE's 16 = 33.
check_counts sfu_map "sfu.elems=32 sfu.gelu=4 sfu.sigmoid=8 sfu.hard=12 sfu.exp=8"
check_counts sfu_ew "sfu.elems=36 sfu.ew_add=20 sfu.ew_mul=16 onchip.acc.read_rows=33"

# Bad SFU instructions: every new field's range and the load-time rules, each refused with the
# file, line and instruction (exit 1).
bad() {  # name pattern line
  printf '.arch tiny\n%s\nHALT\n' "$3" >"$T/bad.s"
  expect "$1" 1 "$2" -- $SASIM asm "$T/bad.s" -o "$T/bad.bin"
}
bad fn "bad\.s:2:12: error: unknown fn 'tanh' \(expected identity, exp, gelu, sigmoid, silu, hsigmoid or hswish\)" \
  "SFU_MAP fn=tanh src=0 acc_addr=0 rows=1"
bad ewop "bad\.s:2:13: error: unknown ewop 'div' \(expected add, sub or mul\)" "SFU_EW ewop=div src=0 src2=1 acc_addr=0 rows=1"
bad red "bad\.s:2:16: error: unknown red 'min' \(expected max, sum or sumsq\)" "SFU_REDUCE red=min src=0 acc_addr=0 rows=1 len=4 sstride=0"
bad len "bad\.s:2:43: error: len=0 out of range \[1, 65535\]" "SFU_LAYERNORM src=0 acc_addr=0 rows=1 len=0 sstride=0 pbase=0"
bad sm-shift "error: sm_shift=32 out of range \[0, 31\]" "SFU_SOFTMAX src=0 acc_addr=0 rows=1 len=4 sstride=0 sm_mult=1 sm_shift=32 sm_j=0"
bad sm-j "error: sm_j=16 out of range \[0, 15\]" "SFU_SOFTMAX src=0 acc_addr=0 rows=1 len=4 sstride=0 sm_mult=1 sm_shift=0 sm_j=16"
bad eps "bad\.s:2:1: error: CFG_SFU EPS=211106232532992 is not below 2\^48 - 2\^46" "CFG_SFU eps=211106232532992"
bad own-unit "error: pop names its own unit: SFU_MAP runs on the sfu unit" "SFU_MAP pop=sfu fn=exp src=0 acc_addr=0 rows=1"
bad overlap "bad\.s:2:1: error: SFU_MAP reads ACC row 2, which it also writes as another row \(ACC_ADDR=2\)" \
  "SFU_MAP fn=exp src=0 acc_addr=2 rows=4"
bad sstride "bad\.s:2:1: error: SFU_SOFTMAX SSTRIDE=1 is less than ROWS=2 with 2 segments per row \(LEN=5\)" \
  "SFU_SOFTMAX src=0 acc_addr=0 rows=2 len=5 sstride=1 sm_mult=1 sm_shift=0 sm_j=0"
bad acc-rows "bad\.s:2:1: error: SFU_REDUCE reads ACC rows 63..64, beyond acc.rows=64" \
  "SFU_REDUCE red=sum src=60 acc_addr=0 rows=2 len=5 sstride=3"
bad param-rows "bad\.s:2:1: error: SFU_LAYERNORM reads PARAM rows 6..8, beyond param.rows=8" \
  "SFU_LAYERNORM src=0 acc_addr=0 rows=1 len=4 sstride=0 pbase=6"

# --timeline rows of SFU instructions (sfu_map.s, times in its header): the first SFU_MAP waits for
# the LOAD's token, the next ones for the unit (in order), the STORE for the last SFU_MAP's token;
# the same rows on both engines.
for m in fast detailed; do
  $SASIM run "$T/sfu_map.bin" --mode $m --timeline "$T/tl.$m.txt" >/dev/null 2>&1
done
if grep -qE '^ +4 sfu +SFU_MAP +sfu_map +4 +27 +27 +32 +31 +0  token from load \(insn 2 LOAD\)$' "$T/tl.fast.txt" &&
   grep -qE '^ +5 sfu +SFU_MAP +sfu_map +5 +6 +32 +37 +36 +0  in order behind insn 4 SFU_MAP$' "$T/tl.fast.txt" &&
   grep -qE '^ +13 store +STORE +sfu_map +13 +65 +65 +152 +161 +48  token from sfu \(insn 11 SFU_MAP\)$' "$T/tl.fast.txt"; then
  pass timeline-rows
else fail timeline-rows "$(sed -n '6,8p;16p' "$T/tl.fast.txt" | tr '\n' '|')"; fi
if cmp -s "$T/tl.fast.txt" "$T/tl.detailed.txt"; then pass timeline-engines-agree
else fail timeline-engines-agree "$(diff "$T/tl.fast.txt" "$T/tl.detailed.txt" | head -4 | tr '\n' ' ')"; fi
