#!/bin/sh
# sacc.sh BUILD_DIR: the sacc command line: --help, exit codes, errors with their location, and
# every example net in workloads/nets/ checked and run through the reference interpreter (the
# ImageNet-sized ones only in a plain build: under the sanitizers they would take minutes).
set -u
B=${1:-build}
SACC=$B/bin/sacc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=sacc
. tests/cli/lib.sh
expect help 0 '^usage: sacc <command>' -- $SACC --help
expect no-args 2 'usage' -- $SACC
expect unknown-command 2 "^sacc: unknown command 'frob'\$" -- $SACC frob
# Usage errors name the tool, the command and the option, and end with the usage line (exit 2).
L=workloads/nets/lenet5.json
for c in check ref compile; do
  expect "help-$c" 0 "^usage: sacc $c NET.json \\[options\\]\$" -- $SACC $c --help
  expect "help-cmd-$c" 0 "^usage: sacc $c NET.json" -- $SACC help $c
  help_parses "help-parses-$c" $SACC $c
done
expect help-short 0 '^  --dump-ir graph\|fuse\|layout\|lower\|tiling\|memplan\|schedule\|all$' -- $SACC compile -h
expect suggest-option 2 "^sacc: compile: unknown option '--dataflw' \\(did you mean --dataflow\\?\\)\$" -- $SACC compile $L --dataflw ws
expect suggest-command 2 "^sacc: unknown command 'compil' \\(did you mean compile\\?\\)\$" -- $SACC compil $L
expect usage-line 2 '^usage: sacc compile NET.json \[options\]$' -- $SACC compile $L --dataflw ws
expect bad-dataflow 2 "^sacc: compile: --dataflow: expected ws, os, is or auto, got 'xs'\$" -- $SACC compile $L --dataflow xs
expect bad-emit 2 "^sacc: compile: --emit: expected bin or asm, got 'elf'\$" -- $SACC compile $L --emit elf
expect missing-value 2 '^sacc: compile: --seed needs a value' -- $SACC compile $L --seed
expect bad-seed 2 "^sacc: ref: --seed: expected an integer, got '1x'\$" -- $SACC ref $L --seed 1x
expect repeated 2 '^sacc: compile: -o given twice$' -- $SACC compile $L -o "$T/a.bin" -o "$T/b.bin"
expect wrong-command 2 "^sacc: check: unknown option '--dataflow' \\(sacc compile takes it, not sacc check\\)\$" -- $SACC check $L --dataflow ws
expect wrong-command-2 2 "^sacc: check: unknown option '--seed' \\(sacc ref and sacc compile take it, not sacc check\\)\$" -- $SACC check $L --seed 2
expect two-nets 2 "^sacc: ref: unexpected argument 'b.json' \\(sacc ref takes one NET.json\\)\$" -- $SACC ref $L b.json
expect no-net 2 '^sacc: check: needs a network file \(NET.json\)$' -- $SACC check --dump-ir
expect option-equals 0 '' -- $SACC compile $L --dataflow=os -o "$T/eq.bin"
expect missing-file 1 'nope.json: error' -- $SACC check "$T/nope.json"
printf '{"name": "x",\n  "layers": [ }\n' >"$T/bad.json"
expect bad-json 1 'bad.json:2:[0-9]+: error' -- $SACC check "$T/bad.json"
printf '{"name":"x","inputs":[{"name":"x","shape":[1,4,4,3],"scale":0.1}],"layers":[{"name":"l1","op":"frobnicate","inputs":["x"],"output":"y","scale":0.1}],"outputs":["y"]}\n' >"$T/op.json"
expect unknown-op 1 'layers\[0\] "l1": error: .*frobnicate' -- $SACC check "$T/op.json"
printf '{"inputs":[{"name":"x","shape":[1,4,4,3],"scale":0.1}],"layers":[{"name":"r","op":"relu","inputs":["x"],"output":"a"},{"name":"bn1","op":"batchnorm","inputs":["a"],"output":"y","gamma":[1,1,1],"beta":[0,0,0],"mean":[0,0,0],"var":[1,1,1]}],"outputs":["y"]}\n' >"$T/bn.json"
expect batchnorm-place 1 'bn.json: layers\[1\] "bn1": error: batchnorm must follow a conv2d or fc whose output it alone reads' -- $SACC check "$T/bn.json"
printf '{"inputs":[{"name":"x","shape":[1,4,4,3]}],"layers":[{"name":"c","op":"conv2d","inputs":["x"],"output":"y","kernel":3,"cout":2,"weights":{"seed":1,"float":true},"weight_scale":0.1}],"outputs":["y"]}\n' >"$T/fw.json"
expect float-weight-scale 1 'fw.json: layers\[0\] "c": error: float weights take no "weight_scale"' -- $SACC check "$T/fw.json"
N=workloads/nets/edge_float_bn.json
expect check-qerror 0 '^output fc: max_abs [0-9.e-]+ rms [0-9.e-]+ sqnr [0-9.]+ dB$' -- $SACC check $N
expect check-qerror-layers 0 '^layer c2: max_abs .* dB$' -- $SACC check $N --dump-ir
expect ref-layer-stats 0 '^c1 +conv2d +-?[0-9]+ +[0-9]+ +-?[0-9.]+ +[0-9.]+ +[0-9.]+$' -- $SACC ref $N --layer-stats
# --calib: a float32 input changes the calibrated scales, hence the outputs; a wrong dtype is refused
npy() {  # npy FILE DESCR (e.g. <f4 or |i1) VALUES-EXPR: a (1, 8, 8, 3) array, standard library only
  python3 -c 'import struct, sys
f, d, expr = sys.argv[1:]
v = eval(expr)
h = "{'"'"'descr'"'"': '"'"'%s'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (1, 8, 8, 3), }" % d
h += " " * (63 - (10 + len(h)) % 64) + "\n"
body = struct.pack("<%d%s" % (len(v), {"<f4": "f", "<f8": "d", "|i1": "b"}[d]), *v)
open(f, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + body)' "$@"
}
npy "$T/c.npy" '<f4' '[-3 + 6 * i / 191 for i in range(192)]'
npy "$T/i8.npy" '|i1' '[0] * 192'
expect calib 0 '^output fc: int8 \[1,5\] crc32' -- $SACC ref $N --calib "$T/c.npy"
if [ "$(grep '^output fc:' "$T/out")" != "$(grep '^output fc:' tests/golden/edge_float_bn.ref.txt)" ]; then pass calib-changes-scales
else fail calib-changes-scales "the same output with and without --calib"; fi
expect calib-check 0 '\(calibration input\)' -- $SACC check $N --calib x="$T/c.npy"
expect calib-dtype 1 'i8.npy: error: input "x" needs a float32 or float64 array' -- $SACC check $N --calib "$T/i8.npy"
expect calib-name 1 'the network has no input "nope"' -- $SACC check $N --calib nope="$T/c.npy"
# Calibration data that is not finite float32 is refused, naming the element (it used to give
# "rms nan sqnr inf dB" and a binary; issue 18 item 3): NaN, infinity, and a float64 beyond float32.
npy "$T/nan.npy" '<f4' '[0.5] * 7 + [float("nan")] + [0.5] * 184'
npy "$T/inf.npy" '<f4' '[float("-inf")] + [0.5] * 191'
npy "$T/big.npy" '<f8' '[0.5] * 100 + [1e300] + [0.5] * 91'
expect calib-nan 1 'nan.npy: error: input "x": element 7 is nan, not a finite float32 value' -- $SACC compile $N --calib "$T/nan.npy" -o "$T/nan.bin"
[ -e "$T/nan.bin" ] && fail calib-nan-no-output "a binary was written" || pass calib-nan-no-output
expect calib-inf 1 'inf.npy: error: input "x": element 0 is -inf, not a finite float32 value' -- $SACC check $N --calib "$T/inf.npy"
expect calib-f64-range 1 'big.npy: error: input "x": element 100 is 1e\+300, not a finite float32 value' -- $SACC ref $N --calib "$T/big.npy"
case $B in *san*) big='^(alexnet|vgg16|resnet18|resnet50|mobilenetv2)$' ;; *) big='^$' ;; esac
for n in workloads/nets/*.json; do
  b=$(basename "$n" .json)
  if echo "$b" | grep -qE "$big"; then continue; fi
  expect "check-$b" 0 '' -- $SACC check "$n" --dump-ir
  expect "ref-$b" 0 '^output .*crc32 [0-9a-f]{8}$' -- $SACC ref "$n" --output-dir "$T/$b"
  ls "$T/$b"/*.npy >/dev/null 2>&1 && pass "ref-writes-npy-$b" || fail "ref-writes-npy-$b" "no .npy written"
done
