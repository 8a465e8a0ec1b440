#!/bin/sh
# assert.sh BUILD_DIR: the RTL assertions (rtl/sa_assert.svh) fire, and loudly. A test bench
# (tests/rtl/assert_fifo_tb.cpp) around sa_fifo, Verilated with --assert and linked with
# rtl/sa_vl_stop.cpp as every model is (rtl/rtl.mk), plants each of sa_fifo's two violations:
# the run must stop with exit status 1 and the assertion's message (the rule and where) on
# stderr. The same bench's legal sequence and the violations made while rst_ni is low
# (disable iff) must run to the end with status 0. Prints PASS/FAIL lines for tests/run.sh.
# Run from the repository root.
set -u
B=${1:-build}
CLI_PREFIX=rtl-assert
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
. tests/cli/lib.sh
command -v verilator >/dev/null 2>&1 || { echo "FAIL rtl-assert: verilator is not installed (make deps)"; exit 0; }

if ! verilator --cc --exe --build -j 2 --assert -Irtl --top-module sa_fifo -GWidth=8 -GDepth=2 -Mdir "$T/obj" \
     rtl/sa_fifo.sv "$(pwd)/tests/rtl/assert_fifo_tb.cpp" "$(pwd)/rtl/sa_vl_stop.cpp" \
     -CFLAGS "-O1 -DVL_USER_STOP" -o "$T/tb" >"$T/build.log" 2>&1; then
  fail build "verilator: $(grep -m3 -e '%Error' -e 'error:' "$T/build.log" | tr '\n' ' ' | head -c 300)"; exit 0
fi

expect legal 0 '^assert_fifo_tb: done$' -- "$T/tb" legal
expect in-reset 0 '^assert_fifo_tb: done$' -- "$T/tb" reset
for v in push-full:NoPushWhenFull:'push into a full queue' pop-empty:NoPopWhenEmpty:'pop from an empty queue'; do
  s=${v%%:*} v=${v#*:}; a=${v%%:*} msg=${v#*:}
  "$T/tb" "$s" >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -ne 1 ]; then fail "$s" "exit $rc, want 1: $(head -c 300 "$T/err")"
  elif ! grep -qE "^sasim-rtl: error: RTL assertion failed in [A-Za-z0-9_.]*\.$a: sa_fifo: $msg\$" "$T/err"; then
    fail "$s" "no assertion message on stderr: $(head -c 300 "$T/err")"
  elif ! grep -q '^sasim-rtl: error: the RTL model stopped (\$stop at .*sa_fifo.sv:[0-9]*)$' "$T/err"; then
    fail "$s" "no stop message on stderr: $(head -c 300 "$T/err")"
  elif grep -q 'assert_fifo_tb: done' "$T/err"; then
    fail "$s" "the bench ran on after the assertion"
  else pass "$s"; fi
done

# The same in the real top, through the harness: a model of the 2x2 arch (one-slot queues) built
# with sa_top's TestPushWhenFull=1 (make rtl-model-broken), whose fetch unit pushes into full
# queues, runs a random program in lockstep. Its first push into a full queue must stop the run
# (status 1, the message naming the queue) in that cycle, before lockstep compares it (fetch's
# QueueRoom and the queue's own NoPushWhenFull both fail in that cycle; Verilator reports the one
# it evaluates first, which depends on the model's schedule, so either may name it); the
# unbroken model runs the same program to the end.
if [ -x "$B/bin/sasim-rtl" ] && [ -x "$B/tests/rtl/gen_randprog" ]; then
  arch=tests/rtl/arch_2x2.json
  key=$("$B/bin/sasim-rtl" --config-key "$arch")
  if ! make --no-print-directory BUILD="$B" rtl-model-broken RTL_CONFIG="$key" >"$T/mk.log" 2>&1; then
    fail top-build "make rtl-model-broken: $(tail -n 5 "$T/mk.log" | tr '\n' ' ' | head -c 300)"
  elif ! "$B/tests/rtl/gen_randprog" "$arch" 1 1 "$T" >/dev/null 2>"$T/gen.err"; then
    fail top-prog "gen_randprog: $(head -c 300 "$T/gen.err")"
  else
    p=$(ls "$T"/r*.bin | head -n 1)
    expect top-unbroken 0 'cycles' -- "$B/bin/sasim-rtl" run "$p" --engine both
    "$B/rtl-broken/$key/sasim-rtl-model" run "$p" --engine both >"$T/out" 2>"$T/err"; rc=$?
    if [ $rc -ne 1 ]; then fail top-push-full "exit $rc, want 1: $(head -c 300 "$T/err")"
    elif ! grep -qE '^sasim-rtl: error: RTL assertion failed in sa_top\.sa_top\.(u_fetch\.(Load|Compute|Store)QueueRoom: sa_fetch: pushed into a full (load|compute|store) queue|u_q_(load|compute|store)\.NoPushWhenFull: sa_fifo: push into a full queue)$' "$T/err"; then
      fail top-push-full "no assertion message on stderr: $(head -c 300 "$T/err")"
    elif grep -q 'diverge' "$T/err"; then fail top-push-full "lockstep spoke first: $(head -c 300 "$T/err")"
    else pass top-push-full; fi
  fi
fi

# The reorder buffers' size (sa_dma_rob: max(dram.latency, gbuf.latency) + 1 entries, docs/RTL.md
# "The global buffer"): a model of tests/rtl/arch_gbuf.json (DRAM latency 10, buffer latency 5)
# built for a DRAM latency of 5 (its key's DL field) has 6 entries a unit, too few for
# tests/rtl/gbuf_order.s, whose GBUF LOAD issues behind a DRAM LOAD's beats: the run must stop
# with RobRoom (status 1) where the right model runs it to the end.
if [ -x "$B/bin/sasim-rtl" ] && [ -x "$B/bin/sasim" ]; then
  arch=tests/rtl/arch_gbuf.json
  key=$("$B/bin/sasim-rtl" --config-key "$arch")
  small=$(echo "$key" | sed 's/_DL10$/_DL5/')
  if [ "$small" = "$key" ]; then fail rob-key "the key of $arch does not end in _DL10: $key"
  elif ! make --no-print-directory BUILD="$B" rtl-model RTL_CONFIG="$small" >"$T/mk2.log" 2>&1; then
    fail rob-build "make rtl-model: $(tail -n 5 "$T/mk2.log" | tr '\n' ' ' | head -c 300)"
  elif ! (cd tests/rtl && "../../$B/bin/sasim" asm gbuf_order.s -o "$T/order.bin") 2>"$T/asm.err"; then
    fail rob-prog "gbuf_order.s: $(head -c 300 "$T/asm.err")"
  else
    expect rob-right-size 0 'cycles' -- "$B/bin/sasim-rtl" run "$T/order.bin" --engine both
    "$B/rtl/$small/sasim-rtl-model" run "$T/order.bin" --engine rtl >"$T/out" 2>"$T/err"; rc=$?
    if [ $rc -ne 1 ]; then fail rob-undersized "exit $rc, want 1: $(head -c 300 "$T/err")"
    elif ! grep -qE '^sasim-rtl: error: RTL assertion failed in sa_top\.sa_top\.u_(load|store)\.u_rob\.RobRoom: sa_dma_rob: more beats in flight than the reorder buffer holds' "$T/err"; then
      fail rob-undersized "no assertion message on stderr: $(head -c 300 "$T/err")"
    else pass rob-undersized; fi
  fi
fi
