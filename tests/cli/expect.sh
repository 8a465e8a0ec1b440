#!/bin/sh
# expect.sh BUILD_DIR: `sasim run --expect [NAME=]REF.npy` and `--print NAME|all`. A tensor equal
# to its reference exits 0 with an "ok" line; different values, dtype or shape exit 3 with the
# count and the first differing elements; a misspelt tensor name is refused before the run (1);
# --print lays a tensor out as numpy's str() does (checked against texts numpy prints), big
# tensors summarized; both go to stderr when a report takes stdout; both work in the detailed
# mode and, where sasim-rtl is built, on the RTL.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=expect
. tests/cli/lib.sh
NPY="python3 tests/grade/npy.py"

$SASIM asm docs/exercises/files/01-wavefront.s -o "$T/w.bin" >/dev/null 2>&1 || fail setup "sasim asm 01-wavefront.s failed"
$NPY "$T/ok.npy" int32 3,2 21 42 43 86 65 130
$NPY "$T/bad.npy" int32 3,2 21 42 44 86 65 131
$NPY "$T/i64.npy" int64 3,2 21 42 43 86 65 130
$NPY "$T/shape.npy" int32 2,2 21 42 43 86
$NPY "$T/flt.npy" float64 3,2 21 42 43 86 65 130

expect ok 0 '^expect C: ok, 6 elements equal .*ok\.npy$' -- $SASIM run "$T/w.bin" --expect C="$T/ok.npy"
expect ok-no-name 0 '^expect C: ok, 6 elements' -- $SASIM run "$T/w.bin" --expect "$T/ok.npy"
expect values 3 '^expect C: mismatch with .*bad\.npy: 2 of 6 elements differ:$' -- $SASIM run "$T/w.bin" --expect "$T/bad.npy"
if grep -qx '  \[1,0\]: got 43, expected 44' "$T/out" && grep -qx '  \[2,1\]: got 130, expected 131' "$T/out"; then
  pass values-listed
else fail values-listed "no '[1,0]: got 43, expected 44' and '[2,1]: ...' lines in: $(head -c 300 "$T/out")"; fi
expect dtype 3 'mismatch with .*i64\.npy: the tensor is int32 \[3,2\], the reference int64 \[3,2\]$' -- $SASIM run "$T/w.bin" --expect "$T/i64.npy"
expect float 3 'the reference float64 \[3,2\]$' -- $SASIM run "$T/w.bin" --expect "$T/flt.npy"
expect shape 3 'mismatch with .*shape\.npy: the tensor is int32 \[3,2\], the reference int32 \[2,2\]$' -- $SASIM run "$T/w.bin" --expect "$T/shape.npy"
expect two-expects-one-bad 3 '^expect C: ok' -- $SASIM run "$T/w.bin" --expect "$T/ok.npy" --expect C="$T/bad.npy"
expect unknown-name 1 'error: --expect Z=.*: the program has no tensor "Z" \(outputs: C\)' -- $SASIM run "$T/w.bin" --expect Z="$T/ok.npy"
if grep -q cycles "$T/out"; then fail unknown-name-before-run "it ran first: $(head -c 200 "$T/out")"; else pass unknown-name-before-run; fi
expect print-unknown 1 'error: --print Q: the program has no tensor "Q"' -- $SASIM run "$T/w.bin" --print Q
expect missing-ref 1 'nothere\.npy: error: cannot open' -- $SASIM run "$T/w.bin" --expect "$T/nothere.npy"
$SASIM run "$T/w.bin" --expect - <"$T/ok.npy" >"$T/out" 2>&1 && grep -q '^expect C: ok, 6 elements equal -$' "$T/out" &&
  pass stdin || fail stdin "--expect - (stdin): $(head -c 300 "$T/out")"
$SASIM run - --expect C=- <"$T/w.bin" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'stdin (-) can feed only one of the program, the --input and the --expect files' "$T/out" &&
  pass stdin-twice || fail stdin-twice "exit $rc: $(head -c 300 "$T/out")"
expect detailed 3 '2 of 6 elements differ' -- $SASIM run "$T/w.bin" --mode detailed --expect "$T/bad.npy"

# --print: the text numpy prints (np.set_printoptions(linewidth=75); print(a)).
# (The cycles line is left out: the timing is not what this checks.)
$SASIM run "$T/w.bin" --print all --print A 2>&1 | grep -v '^[0-9]* cycles$' >"$T/p.out"
cat >"$T/p.want" <<'TXT'
output C: int32 [3,2] crc32 45a5adbf
C: int32 [3,2]
[[ 21  42]
 [ 43  86]
 [ 65 130]]
A: int8 [3,2]
[[1 2]
 [3 4]
 [5 6]]
TXT
cmp -s "$T/p.out" "$T/p.want" && pass print || fail print "$(diff "$T/p.want" "$T/p.out" | head -6 | tr '\n' '|')"

# Big tensors: summarized (1,200 and 2,000 elements), wrapped (2x3x30), numpy's layout to the byte.
cat >"$T/big.s" <<TXT
.arch "$(pwd)/workloads/arch/tiny.json"
.tensor X dtype=int32 shape=[40,50] addr=0x0 role=input
.tensor Y dtype=int8 shape=[2,3,30] addr=0x4000 role=input
.tensor Z dtype=int8 shape=[1200] addr=0x8000 role=input
.tensor W dtype=int32 shape=[1] addr=0x9000 role=output
HALT
TXT
$SASIM asm "$T/big.s" -o "$T/big.bin" >/dev/null 2>&1 || fail setup "sasim asm big.s failed"
$NPY "$T/x.npy" int32 40,50 --range -20000 37
$NPY "$T/y.npy" int8 2,3,30 --range -90 1
$NPY "$T/z.npy" int8 1200 --range -128 1 256
$SASIM run "$T/big.bin" --input X="$T/x.npy" --input Y="$T/y.npy" --input Z="$T/z.npy" --print X --print Y --print Z \
  2>&1 | grep -v '^[0-9]* cycles$' >"$T/b.out"
cat >"$T/b.want" <<'TXT'
output W: int32 [1] crc32 2144df1c
X: int32 [40,50] (2000 elements, 36 shown: each axis longer than 6 shows its first and last 3)
[[-20000 -19963 -19926 ... -18261 -18224 -18187]
 [-18150 -18113 -18076 ... -16411 -16374 -16337]
 [-16300 -16263 -16226 ... -14561 -14524 -14487]
 ...
 [ 48450  48487  48524 ...  50189  50226  50263]
 [ 50300  50337  50374 ...  52039  52076  52113]
 [ 52150  52187  52224 ...  53889  53926  53963]]
Y: int8 [2,3,30]
[[[-90 -89 -88 -87 -86 -85 -84 -83 -82 -81 -80 -79 -78 -77 -76 -75 -74
   -73 -72 -71 -70 -69 -68 -67 -66 -65 -64 -63 -62 -61]
  [-60 -59 -58 -57 -56 -55 -54 -53 -52 -51 -50 -49 -48 -47 -46 -45 -44
   -43 -42 -41 -40 -39 -38 -37 -36 -35 -34 -33 -32 -31]
  [-30 -29 -28 -27 -26 -25 -24 -23 -22 -21 -20 -19 -18 -17 -16 -15 -14
   -13 -12 -11 -10  -9  -8  -7  -6  -5  -4  -3  -2  -1]]

 [[  0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16
    17  18  19  20  21  22  23  24  25  26  27  28  29]
  [ 30  31  32  33  34  35  36  37  38  39  40  41  42  43  44  45  46
    47  48  49  50  51  52  53  54  55  56  57  58  59]
  [ 60  61  62  63  64  65  66  67  68  69  70  71  72  73  74  75  76
    77  78  79  80  81  82  83  84  85  86  87  88  89]]]
Z: int8 [1200] (1200 elements, 6 shown: each axis longer than 6 shows its first and last 3)
[-128 -127 -126 ...   45   46   47]
TXT
cmp -s "$T/b.out" "$T/b.want" && pass print-big || fail print-big "$(diff "$T/b.want" "$T/b.out" | head -6 | tr '\n' '|')"

# With a report on stdout, --print and --expect go to stderr with the other text.
$SASIM run "$T/w.bin" --json - --print C --expect "$T/bad.npy" >"$T/j.out" 2>"$T/j.err"; rc=$?
if [ $rc -eq 3 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/j.out" 2>/dev/null &&
   grep -q '^ \[ 43  86\]$' "$T/j.err" && grep -q '2 of 6 elements differ' "$T/j.err"; then pass json-stdout
else fail json-stdout "exit $rc; stderr: $(head -c 200 "$T/j.err")"; fi

# The RTL model, where it is built (a shipped arch's model: gemm_small.s runs on tiny): the same
# comparison after the same run.
if [ -x "$B/bin/sasim-rtl" ]; then
  $SASIM asm workloads/asm/gemm_small.s -o "$T/small.bin" >/dev/null 2>&1 || fail setup "sasim asm gemm_small.s failed"
  $NPY "$T/small-bad.npy" int32 4,4 5 6 7 13 13 14 15 33 -1 0 1 1 -3 -8 -1 15
  expect rtl-ok 0 '^expect C: ok, 16 elements' -- $SASIM run "$T/small.bin" --engine rtl --expect workloads/asm/gemm_small_expected.npy
  expect rtl 3 '^  \[3,3\]: got 14, expected 15$' -- $SASIM run "$T/small.bin" --engine rtl --expect "$T/small-bad.npy" --print C
  grep -q '^ \[-3 -8 -1 14\]\]$' "$T/out" && pass rtl-print || fail rtl-print "no last row of C in: $(head -c 300 "$T/out")"
else
  echo "SKIP expect-rtl: $B/bin/sasim-rtl not built (make rtl)"
fi
help_parses help-parses "$SASIM" run "$T/w.bin"
