#!/bin/sh
# sasim.sh BUILD_DIR: the sasim command line as a user meets it: --help, exit codes, error
# messages that name the file and the problem, outputs written, fast == detailed on shipped programs.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=cli
. tests/cli/lib.sh

expect help 0 '^usage: sasim <command>' -- $SASIM --help
expect help-run 0 '^usage: sasim run' -- $SASIM run --help
expect help-asm 0 '^usage: sasim asm' -- $SASIM asm --help
expect help-disasm 0 '^usage: sasim disasm' -- $SASIM disasm --help
expect no-args 2 '^usage' -- $SASIM
expect unknown-command 2 'unknown command frobnicate' -- $SASIM frobnicate
expect unknown-option 2 'unknown option --frob' -- $SASIM run x.bin --frob
expect missing-value 2 '--json needs a value' -- $SASIM run x.bin --json
expect missing-file 1 'nope.bin.*error' -- $SASIM run "$T/nope.bin"
printf 'hello, not a program' >"$T/junk.bin"
expect bad-magic 1 'junk.bin: \+0x0: error: .*magic' -- $SASIM run "$T/junk.bin"
expect engine-unknown 2 'engine frob: expected c, rtl or both' -- $SASIM run x.bin --engine frob
[ -x "$B/bin/sasim-rtl" ] || expect engine-rtl-missing 1 'build it with make rtl' -- $SASIM run x.bin --engine rtl

for s in workloads/asm/*.s; do
  n=$(basename "$s" .s)
  expect "asm-$n" 0 '' -- $SASIM asm "$s" -o "$T/$n.bin"
  [ -f "$T/$n.bin" ] || continue
  # disassemble and reassemble: the binaries must be identical
  $SASIM disasm "$T/$n.bin" -o "$T/$n.dis.s" && $SASIM asm "$T/$n.dis.s" -o "$T/$n.re.bin" &&
    cmp -s "$T/$n.bin" "$T/$n.re.bin" && pass "roundtrip-$n" || fail "roundtrip-$n" "disasm/asm is not byte-identical"
  $SASIM run "$T/$n.bin" --json "$T/$n.fast.json" --output-dir "$T/$n.fast" >"$T/$n.fast.out" 2>"$T/$n.fast.err" &&
    $SASIM run "$T/$n.bin" --mode detailed --json "$T/$n.det.json" --output-dir "$T/$n.det" >"$T/$n.det.out" 2>"$T/$n.det.err"
  if [ $? -ne 0 ]; then fail "run-$n" "$(cat "$T/$n.fast.err" "$T/$n.det.err" | head -c 300)"; continue; fi
  python3 -m json.tool "$T/$n.fast.json" >/dev/null 2>&1 && pass "json-valid-$n" || fail "json-valid-$n" "not JSON"
  # same statistics (minus the mode-independent label) and same output files from both engines
  if cmp -s "$T/$n.fast.json" "$T/$n.det.json" && diff -r "$T/$n.fast" "$T/$n.det" >/dev/null &&
     cmp -s "$T/$n.fast.out" "$T/$n.det.out"; then pass "fast-equals-detailed-$n"
  else fail "fast-equals-detailed-$n" "stats, outputs or checksums differ"; fi
  ls "$T/$n.fast"/*.npy >/dev/null 2>&1 && pass "outputs-written-$n" || fail "outputs-written-$n" "no .npy in --output-dir"
done

if [ -f "$T/gemm_tiled.bin" ]; then
  expect arch-mismatch 1 'arch mismatch' -- $SASIM run "$T/gemm_tiled.bin" --arch workloads/arch/tiny.json
  expect arch-match 0 'cycles' -- $SASIM run "$T/gemm_tiled.bin" --arch workloads/arch/default.json
  expect max-cycles 1 'cycle limit 100 reached' -- $SASIM run "$T/gemm_tiled.bin" --max-cycles 100
  expect max-cycles-bad 2 'max-cycles abc' -- $SASIM run "$T/gemm_tiled.bin" --max-cycles abc
  expect stats-table 0 '^cycles +[0-9]+' -- $SASIM run "$T/gemm_tiled.bin" --stats
  python3 -c "import numpy; numpy.save('$T/bad.npy', numpy.zeros((3,3), dtype='int8'))" 2>/dev/null &&
    expect input-shape 1 'bad.npy: error: .*dimension|bad.npy: error: .*dtype' -- $SASIM run "$T/gemm_tiled.bin" --input "A=$T/bad.npy"
  expect input-unknown 1 'no tensor "nosuch"' -- $SASIM run "$T/gemm_tiled.bin" --input "nosuch=$T/bad.npy"
  $SASIM run "$T/gemm_tiled.bin" --trace "$T/trace.json" >/dev/null 2>&1 &&
    python3 -c "import json,sys; d=json.load(open('$T/trace.json')); sys.exit(0 if len(d['traceEvents'])>5 else 1)" &&
    pass trace-json || fail trace-json "trace is not valid Chrome trace JSON"
  # a truncated binary is refused with its offset
  head -c 100 "$T/gemm_tiled.bin" >"$T/trunc.bin"
  expect truncated 1 'trunc.bin: \+0x[0-9a-f]+: error: .*trunc' -- $SASIM run "$T/trunc.bin"
else
  fail gemm-tiled "workloads/asm/gemm_tiled.s did not assemble"
fi
