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
expect unknown-command 2 "^sasim: unknown command 'frobnicate'\$" -- $SASIM frobnicate
expect unknown-option 2 "^sasim: run: unknown option '--frob' \\(did you mean --from\\?\\)\$" -- $SASIM run x.bin --frob
expect missing-value 2 '^sasim: run: --json needs a value' -- $SASIM run x.bin --json
expect missing-file 1 'nope.bin.*error' -- $SASIM run "$T/nope.bin"
printf 'hello, not a program' >"$T/junk.bin"
expect bad-magic 1 'junk.bin: \+0x0: error: .*magic' -- $SASIM run "$T/junk.bin"
# Assembly given to run (by its .s name, or text under another name, or on stdin): a note says
# to assemble it first, and the command it gives works; a binary with a bad magic gets no note.
mkdir -p "$T/asm" "$T/arch" && cp workloads/arch/tiny.json "$T/arch/"   # its .arch "../arch/tiny.json"
cp workloads/asm/gemm_small.s "$T/asm/g.s" && cp workloads/asm/gemm_small.s "$T/asm/g.txt"
expect run-asm-hint 1 "^$T/asm/g.s: note: an assembly file\? run \`sasim asm $T/asm/g.s -o $T/asm/g.bin\` first, or \`sasim check $T/asm/g.s\`\$" -- $SASIM run "$T/asm/g.s"
expect run-text-hint 1 "^$T/asm/g.txt: note: an assembly file\? run \`sasim asm $T/asm/g.txt -o $T/asm/g.txt.bin\`" -- $SASIM run "$T/asm/g.txt"
expect run-stdin-asm-hint 1 '^-: note: an assembly file\? run `sasim asm PROG.s -o PROG.bin` first' -- sh -c "$SASIM run - <'$T/asm/g.s'"
expect disasm-asm-hint 1 'g.s: note: an assembly file' -- $SASIM disasm "$T/asm/g.s"
$SASIM run "$T/asm/g.s" 2>&1 | sed -n 's/.*run `\(sasim asm [^`]*\)`.*/\1/p' | sed "s|^sasim|$SASIM|" >"$T/hint.sh"
sh "$T/hint.sh" >"$T/err" 2>&1 && $SASIM run "$T/asm/g.bin" >>"$T/err" 2>&1 && pass run-asm-hint-works ||
  fail run-asm-hint-works "$(cat "$T/hint.sh") $(head -c 300 "$T/err")"
printf '\001\002\003\004\005\006\007\010binary' >"$T/bin.bin"
$SASIM run "$T/bin.bin" >"$T/err" 2>&1
[ $? -eq 1 ] && grep -q 'bad magic' "$T/err" && ! grep -q 'note' "$T/err" && pass bad-magic-binary-no-hint ||
  fail bad-magic-binary-no-hint "$(head -c 300 "$T/err")"
expect engine-unknown 2 "^sasim: run: --engine: expected c, rtl or both, got 'frob'\$" -- $SASIM run x.bin --engine frob
[ -x "$B/bin/sasim-rtl" ] || expect engine-rtl-missing 1 'build it with make rtl' -- $SASIM run x.bin --engine rtl
# Usage errors name the tool, the command and the option, and end with the usage line (exit 2).
expect usage-line 2 '^usage: sasim run PROG.bin \[options\]$' -- $SASIM run x.bin --frob
expect suggest-option 2 "^sasim: run: unknown option '--mod' \\(did you mean --mode\\?\\)\$" -- $SASIM run x.bin --mod fast
expect suggest-command 2 "^sasim: unknown command 'rnu' \\(did you mean run\\?\\)\$" -- $SASIM rnu x.bin
expect mode-unknown 2 "^sasim: run: --mode: expected fast or detailed, got 'slow'\$" -- $SASIM run x.bin --mode slow
expect vcd-units-unknown 2 "^sasim: run: --vcd-units: expected a comma-separated list of fetch, load, compute, store or array, got 'load,fpu'\$" -- $SASIM run x.bin --engine rtl --vcd x.vcd --vcd-units load,fpu
expect repeated 2 '^sasim: run: --mode given twice$' -- $SASIM run x.bin --mode fast --mode detailed
expect flag-value 2 "^sasim: run: --stats takes no value \\(got 'yes'\\)\$" -- $SASIM run x.bin --stats=yes
expect two-programs 2 "^sasim: run: unexpected argument 'y.bin' \\(sasim run takes one PROG.bin\\)\$" -- $SASIM run x.bin y.bin
expect no-program 2 '^sasim: run: no program given \(PROG.bin\)$' -- $SASIM run --stats
expect wrong-command 2 "^sasim: run: unknown option '--compress' \\(sasim asm takes it, not sasim run\\)\$" -- $SASIM run x.bin --compress
expect wrong-command-disasm 2 "^sasim: disasm: unknown option '--compress' \\(sasim asm takes it, not sasim disasm\\)\$" -- $SASIM disasm x.bin --compress
expect asm-needs-o 2 '^sasim: asm: needs -o PROG.bin$' -- $SASIM asm x.s
# .arch NAME: a shipped arch by name, from any directory: the binary of .arch "path/NAME.json".
mkdir -p "$T/named" && sed 's|^\.arch "../arch/tiny.json"|.arch tiny|' workloads/asm/gemm_small.s >"$T/named/g.s"
SASIM_ABS=$(cd "$B/bin" && pwd)/sasim
if grep -q '^\.arch tiny ' "$T/named/g.s" && $SASIM asm workloads/asm/gemm_small.s -o "$T/named/path.bin" >"$T/err" 2>&1 &&
   (cd "$T/named" && "$SASIM_ABS" asm g.s -o name.bin) >>"$T/err" 2>&1 && cmp -s "$T/named/path.bin" "$T/named/name.bin"
then pass asm-arch-by-name; else fail asm-arch-by-name "$(head -c 300 "$T/err")"; fi
sed -i 's|^\.arch tiny|.arch tinyy|' "$T/named/g.s"
expect asm-arch-unknown-name 1 'g.s:26:7: error: bad arch: tinyy: not a shipped arch \(shipped: default, large, small, tiny' -- sh -c "cd '$T/named' && '$SASIM_ABS' asm g.s -o x.bin"
printf '.arch default\nCOMPUT rows=1\nCOMPUTE rosw=1\n' >"$T/typo.s"
expect asm-suggest-mnemonic 1 "typo.s:2:1: error: unknown mnemonic 'COMPUT' \\(did you mean COMPUTE\\?\\)\$" -- $SASIM asm "$T/typo.s" -o "$T/typo.bin"
expect asm-suggest-operand 1 "typo.s:3:9: error: unknown operand 'rosw' for COMPUTE \\(did you mean rows\\?; operands:" -- $SASIM asm "$T/typo.s" -o "$T/typo.bin"
expect asm-o-value 2 '^sasim: asm: -o needs a value' -- $SASIM asm x.s -o
expect disasm-repeated 2 '^sasim: disasm: -o given twice$' -- $SASIM disasm x.bin -o a.s -o b.s
expect dash-dash 1 '^--x.bin: error' -- $SASIM disasm -- --x.bin
i=0 many=
while [ $i -le 64 ]; do many="$many --input x$i=y.npy"; i=$((i + 1)); done
expect input-65 2 '^sasim: run: --input given more than 64 times$' -- $SASIM run x.bin $many
expect help-command 0 '^usage: sasim disasm PROG.bin' -- $SASIM help disasm
expect help-short 0 '^  --vcd-units fetch,load,compute,store,array$' -- $SASIM run -h
expect help-unknown 2 "^sasim: unknown command 'frob'\$" -- $SASIM help frob
for c in run asm disasm; do help_parses "help-parses-$c" $SASIM $c; done

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
  expect max-cycles-bad 2 "^sasim: run: --max-cycles: expected a positive whole number, got 'abc'\$" -- $SASIM run "$T/gemm_tiled.bin" --max-cycles abc
  expect max-cycles-zero 2 "^sasim: run: --max-cycles: expected a positive whole number, got '0'\$" -- $SASIM run "$T/gemm_tiled.bin" --max-cycles 0
  expect option-equals 1 'cycle limit 100 reached' -- $SASIM run "$T/gemm_tiled.bin" --max-cycles=100
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
