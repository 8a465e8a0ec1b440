#!/bin/sh
# race.sh BUILD_DIR: races as a user meets them (docs/ISA.md "Races"): `sasim check` on text and
# binaries (exit 0 clean, 1 racy; the report names both instructions, their lines and the fix;
# --json), `sasim run` refusing a racy program and running it with --allow-races after a warning,
# and shipped and compiled programs checking clean. Prints PASS/FAIL lines for tests/run.sh.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
SACC=$B/bin/sacc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=race
. tests/cli/lib.sh

expect help-check 0 '^usage: sasim check PROG.bin\|PROG.s' -- $SASIM help check
expect help-lists-check 0 '^  check ' -- $SASIM --help
expect check-no-file 2 'no program given' -- $SASIM check
expect check-missing 1 'nope.s.*error' -- $SASIM check "$T/nope.s"

# The two examples of issue 14, from text: file:line of the later instruction leads, both named.
expect check-load-order 1 '^tests/race/racy_load_order.s:18: error: race \(RAW\) on WBUF rows 0..2: insn 5 PRELOAD \(compute unit, line 18\) reads them and insn 4 LOAD \(load unit, line 17\) writes them' -- $SASIM check tests/race/racy_load_order.s
expect check-no-pop 1 '^  fix: add pop=load to insn 6 \(it takes the push=compute of insn 4\)$' -- $SASIM check tests/race/racy_no_pop.s
expect check-summary 1 '^tests/race/racy_no_pop.s: 1 race, 0 token errors$' -- $SASIM check tests/race/racy_no_pop.s
expect check-clean-silent 0 '' -- $SASIM check tests/race/clean_same_unit.s
if [ -s "$T/out" ]; then fail check-clean-prints "$(head -c 200 "$T/out")"; else pass check-clean-prints-nothing; fi

# From a binary: no lines, the same instructions.
$SASIM asm tests/race/racy_no_pop.s -o "$T/np.bin" >"$T/asm.out" 2>&1 || fail asm-racy "$(cat "$T/asm.out")"
expect check-bin 1 "^$T/np.bin: error: race \\(RAW\\) on SPAD rows 0..1: insn 6 COMPUTE \\(compute unit\\) reads them and insn 4 LOAD \\(load unit\\) writes them" -- $SASIM check "$T/np.bin"

# --json: valid JSON with both instructions; - replaces the text on stdout.
$SASIM check tests/race/racy_load_order.s --json "$T/r.json" >/dev/null 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["reports"][0]; assert not d["clean"] and r["kind"]=="race" and r["hazard"]=="RAW" and r["memory"]=="WBUF" and r["insn"]["index"]==5 and r["other"]["index"]==4 and r["insn"]["line"]==18' "$T/r.json" 2>"$T/py.err"; then
  pass check-json
else
  fail check-json "$(cat "$T/py.err" "$T/r.json" | head -c 400)"
fi
$SASIM check workloads/asm/gemm_small.s --json - >"$T/c.json" 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["clean"] and d["reports"]==[]' "$T/c.json" 2>/dev/null; then
  pass check-json-clean-stdout
else
  fail check-json-clean-stdout "$(head -c 300 "$T/c.json")"
fi

# sasim run: refused with the report (exit 1, nothing on stdout), or run with a warning.
for e in "" "--mode detailed"; do
  $SASIM run "$T/np.bin" $e >"$T/run.out" 2>"$T/run.err"; rc=$?
  if [ $rc -eq 1 ] && [ ! -s "$T/run.out" ] && grep -q 'error: race (RAW) on SPAD rows 0..1: insn 6 COMPUTE' "$T/run.err" &&
     grep -q "error: refused: the program races (sasim check $T/np.bin; --allow-races runs it anyway)" "$T/run.err"; then
    pass "run-refuses${e:+-detailed}"
  else
    fail "run-refuses${e:+-detailed}" "exit $rc: $(head -c 300 "$T/run.err")"
  fi
  $SASIM run "$T/np.bin" $e --allow-races >"$T/run.out" 2>"$T/run.err"; rc=$?
  if [ $rc -eq 0 ] && grep -q 'cycles$' "$T/run.out" && grep -q 'warning: race (RAW) on SPAD rows 0..1' "$T/run.err" &&
     grep -q 'warning: running a racy program (--allow-races)' "$T/run.err"; then
    pass "run-allow-races-warns${e:+-detailed}"
  else
    fail "run-allow-races-warns${e:+-detailed}" "exit $rc: $(head -c 300 "$T/run.err")"
  fi
done
$SASIM asm workloads/asm/gemm_small.s -o "$T/ok.bin" >/dev/null 2>&1
expect run-clean-no-warning 0 'cycles$' -- $SASIM run "$T/ok.bin"
if grep -qi 'race' "$T/out"; then fail run-clean-silent "$(cat "$T/out")"; else pass run-clean-silent; fi

# Every racy example is refused by run; every shipped program checks clean.
bad=
for s in tests/race/racy_*.s; do
  $SASIM asm "$s" -o "$T/x.bin" >/dev/null 2>&1 || { bad="$bad $s(asm)"; continue; }
  $SASIM run "$T/x.bin" >/dev/null 2>&1 && bad="$bad $s"
done
if [ -z "$bad" ]; then pass run-refuses-every-racy-example; else fail run-refuses-every-racy-example "ran:$bad"; fi
bad=
for s in workloads/asm/*.s; do $SASIM check "$s" >"$T/c.out" 2>&1 || bad="$bad $s"; done
if [ -z "$bad" ]; then pass shipped-asm-clean; else fail shipped-asm-clean "$bad"; fi

# Compiled programs check clean in all three dataflows (sacc checks too: it would have failed).
if [ -x "$SACC" ]; then
  bad=
  for net in tiny_cnn lenet5 edge_residual edge_pooling; do
    for df in ws os is; do
      for arch in default tiny; do
        if ! $SACC compile workloads/nets/$net.json --dataflow $df --arch workloads/arch/$arch.json -o "$T/n.bin" >"$T/n.out" 2>&1; then
          bad="$bad $net/$df/$arch(compile: $(head -c 100 "$T/n.out"))"
        elif ! $SASIM check "$T/n.bin" >"$T/n.out" 2>&1 || [ -s "$T/n.out" ]; then
          bad="$bad $net/$df/$arch"
        fi
      done
    done
  done
  if [ -z "$bad" ]; then pass compiled-nets-clean; else fail compiled-nets-clean "$bad"; fi
fi

# Runtime errors name the program and the instruction (index as sasim disasm counts, its text).
$SASIM asm tests/race/racy_unmatched_pop.s -o "$T/dl.bin" >/dev/null 2>&1
for m in fast detailed; do
  $SASIM run "$T/dl.bin" --allow-races --mode $m >"$T/dl.out" 2>"$T/dl.err"; rc=$?
  if [ $rc -eq 1 ] && grep -q "^$T/dl.bin: error: deadlock at cycle [0-9]*: store waits at insn 8 (STORE)" "$T/dl.err" &&
     grep -q "^$T/dl.bin: insn 8: note: STORE pop=load|compute push=- raw32=1 " "$T/dl.err"; then
    pass "deadlock-names-program-and-insn-$m"
  else
    fail "deadlock-names-program-and-insn-$m" "exit $rc: $(tail -c 400 "$T/dl.err")"
  fi
done

# The RTL engines share sasim run's loader: they refuse too (where the model is built).
if [ -x "$B/bin/sasim-rtl" ]; then
  for e in rtl both; do
    expect "run-refuses-engine-$e" 1 'error: refused: the program races' -- $SASIM run "$T/np.bin" --engine $e
  done
fi

# The special-function unit: an SFU_MAP reading the rows a COMPUTE writes without a token is a
# race, reported with the fix; the program fixed as it says checks clean and runs the same on both engines.
expect check-sfu 1 '^tests/race/racy_raw_sfu.s:19: error: race \(RAW\) on ACC rows 0..1: insn 8 SFU_MAP \(sfu unit, line 19\) reads them and insn 6 COMPUTE \(compute unit, line 17\) writes them' -- $SASIM check tests/race/racy_raw_sfu.s
expect check-sfu-fix 1 '^  fix: add push=sfu to insn 6 and pop=compute to insn 8$' -- $SASIM check tests/race/racy_raw_sfu.s
$SASIM asm tests/race/racy_raw_sfu.s -o "$T/rs.bin" >/dev/null 2>&1
expect run-refuses-sfu 1 'error: refused: the program races' -- $SASIM run "$T/rs.bin"
expect check-sfu-fixed 0 '' -- $SASIM check tests/race/clean_sfu.s
if [ -s "$T/out" ]; then fail check-sfu-fixed-silent "$(head -c 200 "$T/out")"; else pass check-sfu-fixed-silent; fi
$SASIM asm tests/race/clean_sfu.s -o "$T/cs.bin" >/dev/null 2>&1
$SASIM run "$T/cs.bin" --print C >"$T/cs.fast" 2>&1
$SASIM run "$T/cs.bin" --mode detailed --print C 2>/dev/null >"$T/cs.det"
# C = A x B = [[0, -1], [3, -4]], GELU in Q4.11: 0, -325 (-1 Phi(-1) 2048), 6136, 0 (worked from docs/SFU.md 2.3)
if grep -q '^\[\[   0 -325\]$' "$T/cs.fast" && grep -q '^ \[6136    0\]\]$' "$T/cs.fast" && cmp -s "$T/cs.fast" "$T/cs.det"; then
  pass run-sfu-fixed
else fail run-sfu-fixed "fast: $(tr '\n' ' ' <"$T/cs.fast") detailed: $(tr '\n' ' ' <"$T/cs.det")"; fi
