#!/bin/sh
# asmdoc.sh BUILD_DIR: docs/ASM.md's examples agree with the tools, so they cannot drift: the
# complete example assembles to workloads/asm/gemm_small.s's binary; its disassembly is what
# `sasim disasm` prints (every field, TRANSPOSE and TSTRIDE included; `...` in the .arch line
# stands for any text); the Errors block is what `sasim asm tests/isa/data/asm_errors.s`
# prints; the loop excerpt is in workloads/asm/gemm_tiled_loops.s; the line counts quoted for
# the loop programs (ASM.md, docs/exercises/answers/08-loops.md) are the files'; race reports of a loop
# name the body's lines. Prints PASS/FAIL lines for tests/run.sh.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=asmdoc
. tests/cli/lib.sh

if ! command -v python3 >/dev/null 2>&1; then echo "SKIP asmdoc: python3 not found"; exit 0; fi

# The fenced blocks of docs/ASM.md, one file each: $T/block.N (N from 1), in order.
python3 - "$T" <<'EOF' || { fail blocks "cannot split docs/ASM.md"; exit 1; }
import sys
out = sys.argv[1]
lines = open('docs/ASM.md', encoding='utf-8').read().split('\n')
n, cur = 0, None
for l in lines:
    if l.startswith('```'):
        if cur is None:
            cur = []
        else:
            n += 1
            open(f'{out}/block.{n}', 'w').write('\n'.join(cur) + '\n')
            cur = None
    elif cur is not None:
        cur.append(l)
EOF
# The first block that starts with (or contains) a given line.
block_with() { grep -lxF -- "$1" "$T"/block.* 2>/dev/null | sort -t. -k2 -n | head -n 1; }

# 1. The complete example is the shipped file (its comments shortened): the same binary.
b=$(block_with '; C[4,4] (int32) = A[4,4] (int8) x B[4,4] (int8)')
if [ -n "$b" ] && sed "s|\"../arch/tiny.json\"|\"$PWD/workloads/arch/tiny.json\"|" "$b" >"$T/ex.s" &&
  $SASIM asm "$T/ex.s" -o "$T/ex.bin" >"$T/err" 2>&1 && $SASIM asm workloads/asm/gemm_small.s -o "$T/gs.bin" >>"$T/err" 2>&1 &&
  cmp -s "$T/ex.bin" "$T/gs.bin"; then pass example-is-gemm_small
else fail example-is-gemm_small "the example block does not assemble to workloads/asm/gemm_small.s's binary: $(head -c 200 "$T/err")"; fi

# 2. Its disassembly, line by line ('...' in the doc matches any text).
b=$(block_with '$ sasim disasm small.bin')
if [ -z "$b" ]; then fail disasm "no block with '\$ sasim disasm small.bin'"
elif ! $SASIM asm workloads/asm/gemm_small.s -o "$T/small.bin" >"$T/err" 2>&1 ||
  ! $SASIM disasm "$T/small.bin" >"$T/disasm" 2>"$T/err"; then fail disasm "$(head -c 200 "$T/err")"
else
  sed -n '/^\$ sasim disasm small.bin$/,$p' "$b" | sed 1d >"$T/want"
  if python3 - "$T/want" "$T/disasm" <<'EOF'; then pass disasm-matches-sasim-disasm; else fail disasm-matches-sasim-disasm "see above"; fi
import re, sys
want = open(sys.argv[1]).read().rstrip('\n').split('\n')
got = open(sys.argv[2]).read().rstrip('\n').split('\n')
bad = [(i, w, g) for i, (w, g) in enumerate(zip(want, got))
       if not re.fullmatch('.*'.join(re.escape(p) for p in w.split('...')), g)]
if len(want) != len(got) or bad:
    for i, w, g in bad[:3]:
        print(f'  line {i + 1}: doc "{w}"\n          sasim "{g}"')
    if len(want) != len(got):
        print(f'  {len(want)} lines in the doc, {len(got)} from sasim disasm')
    sys.exit(1)
EOF
fi

# 3. The Errors block is the assembler's output for tests/isa/data/asm_errors.s.
b=$(block_with "tests/isa/data/asm_errors.s:4:60: error: 3 values given, tensor 'A' has 4 elements")
$SASIM asm tests/isa/data/asm_errors.s -o "$T/e.bin" >"$T/e.out" 2>&1
if [ -n "$b" ] && cmp -s "$b" "$T/e.out"; then pass errors-block-is-asm-output
else fail errors-block-is-asm-output "$(diff "${b:-/dev/null}" "$T/e.out" | head -6 | tr '\n' ' ')"; fi

# 4. The loop excerpt: every line but '...' is a line of gemm_tiled_loops.s.
b=$(block_with '.rep KT, kt')
missing=""
if [ -n "$b" ]; then
  while IFS= read -r l; do
    [ "$l" = "  ..." ] && continue
    grep -qxF -- "$l" workloads/asm/gemm_tiled_loops.s || missing="$missing [$l]"
  done <"$b"
fi
if [ -n "$b" ] && [ -z "$missing" ]; then pass loop-excerpt-in-gemm_tiled_loops
else fail loop-excerpt-in-gemm_tiled_loops "not in the file:${missing:- no block}"; fi

# 5. The line counts the docs quote, and the loop programs' claim: the same bytes as the flat ones.
lines() { wc -l <"$1" | tr -d ' '; }
if grep -q "in $(lines workloads/asm/gemm_tiled_loops.s) lines instead of $(lines workloads/asm/gemm_tiled.s)" docs/ASM.md; then
  pass line-counts-asm-md
else fail line-counts-asm-md "docs/ASM.md does not say 'in $(lines workloads/asm/gemm_tiled_loops.s) lines instead of $(lines workloads/asm/gemm_tiled.s)'"; fi
if grep -q "is $(lines docs/exercises/answers/files/08-gemm-loops.s) lines with its comments, the flat one $(lines docs/exercises/answers/files/08-gemm-flat.s)" docs/exercises/answers/08-loops.md; then
  pass line-counts-exercise-8
else fail line-counts-exercise-8 "docs/exercises/answers/08-loops.md quotes other line counts"; fi
if $SASIM asm workloads/asm/gemm_tiled_loops.s -o "$T/l.bin" >"$T/err" 2>&1 &&
  $SASIM asm workloads/asm/gemm_tiled.s -o "$T/f.bin" >>"$T/err" 2>&1 && cmp -s "$T/l.bin" "$T/f.bin"; then
  pass gemm_tiled_loops-same-bytes
else fail gemm_tiled_loops-same-bytes "$(head -c 200 "$T/err")"; fi

# 6. ASM.md: "`sasim check` and race reports give each instruction the line of the loop body it
# came from" (and sasim asm, the iteration: section "Errors in loops").
expect check-loop-body-lines 1 '^tests/isa/data/asm_race_loop.s:14: error: race \(WAR\) on SPAD rows 0..3: insn 6 LOAD \(load unit, line 14\) writes them and insn 5 COMPUTE \(compute unit, line 15\) reads them' -- $SASIM check tests/isa/data/asm_race_loop.s
