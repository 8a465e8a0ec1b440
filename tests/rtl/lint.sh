#!/bin/sh
# lint.sh: verilator --lint-only -Wall over the whole sa_top, without and with the assertions
# (--assert), in a few configurations (the default parameters; a 2x2 with one-slot queues, a
# 1-byte bus, a one-lane SFU of latency 1, no global buffer and DRAM latency 1; a 16x16 with 5 SFU
# lanes, which do not divide 16, and a 1000-byte global buffer of 64-byte beats (wider than DRAM's)
# and latency 5, above DRAM's 3 (it then sizes the reorder buffers);
# the 32x32 large arch, whose 128-byte PARAM rows once hit Verilator's 64-iteration unroll
# limit): no warning may appear (waivers live in rtl/lint.vlt, and for the assertions in
# rtl/lint_assert.vlt, each with its reason). Prints PASS/FAIL lines for tests/run.sh.
set -u
command -v verilator >/dev/null 2>&1 || { echo "FAIL rtl-lint: verilator is not installed (make deps)"; exit 0; }
SV="rtl/sa_isa_pkg.sv rtl/sa_pkg.sv $(ls rtl/sa_*.sv | grep -v -e sa_isa_pkg.sv -e sa_pkg.sv)"
T=$(mktemp); trap 'rm -f "$T"' EXIT
n=0
for cfg in "" \
  "-GArrayRows=2 -GArrayCols=2 -GBusBytes=1 -GMaxInflight=1 -GLoadQueue=1 -GComputeQueue=1 -GStoreQueue=1 -GFifoRows=1 -GPostLatency=1 -GSpadRows=8 -GWbufRows=4 -GAccRows=6 -GParamRows=6 -GSfuQueue=1 -GSfuLanes=1 -GSfuLatency=1 -GGbufBytes=0 -GGbufBusBytes=1 -GGbufLatency=1 -GDramLatency=1" \
  "-GArrayRows=16 -GArrayCols=16 -GBusBytes=16 -GMaxInflight=128 -GSpadRows=8192 -GWbufRows=2048 -GAccRows=2048 -GParamRows=64 -GPostLatency=3 -GFifoRows=4 -GSfuLanes=5 -GSfuLatency=3 -GGbufBytes=1000 -GGbufBusBytes=64 -GGbufLatency=5 -GDramLatency=3" \
  "$(sh rtl/config.sh R32_C32_SP16384_WB4096_AC4096_PA64_B32_F128_QL32_QC32_QS32_QF32_D8_S3_T255_L32_P6_G524288_GB32_GL2_DL100)"; do
  n=$((n + 1))
  # Twice: the design alone (Verilator ignores assertions without --assert) under rtl/lint.vlt,
  # then with the assertions, which need one more waiver (rtl/lint_assert.vlt says why).
  # shellcheck disable=SC2086
  if verilator --lint-only -Wall -Irtl --top-module sa_top rtl/lint.vlt $SV $cfg >"$T" 2>&1; then
    echo "PASS rtl-lint-$n"
  else
    echo "FAIL rtl-lint-$n: $(grep -m3 '%' "$T" | tr '\n' ' ')"
  fi
  # shellcheck disable=SC2086
  if verilator --lint-only -Wall --assert -Irtl --top-module sa_top rtl/lint.vlt rtl/lint_assert.vlt $SV $cfg >"$T" 2>&1; then
    echo "PASS rtl-lint-assert-$n"
  else
    echo "FAIL rtl-lint-assert-$n: $(grep -m3 '%' "$T" | tr '\n' ' ')"
  fi
done
