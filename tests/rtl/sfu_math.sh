#!/bin/sh
# sfu_math.sh BUILD_DIR: the special-function datapath rtl/sa_sfu_math.sv against the C functions
# of isa/sfu_math.c, bit for bit (docs/SFU.md §4): verilator --lint-only -Wall on it, then a bench
# (tests/rtl/sfu_math_tb.cpp, linked with BUILD_DIR's isa/sfu_math.o) that compares every op
# exhaustively over the 16-bit inputs and on 10^6 random wide ones. Prints PASS/FAIL lines for
# tests/run.sh. Run from the repository root. SFU_RANDOM=N changes the random count.
set -u
B=${1:-build}
CLI_PREFIX=rtl-sfu
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
. tests/cli/lib.sh
command -v verilator >/dev/null 2>&1 || { echo "FAIL rtl-sfu: verilator is not installed (make deps)"; exit 0; }
[ -f "$B/isa/sfu_math.o" ] || { fail build "$B/isa/sfu_math.o is missing (make all)"; exit 0; }
SV=$(ls rtl/sa_sfu_*.sv | grep -v -e sa_sfu_unit.sv -e sa_sfu_lane.sv)

# shellcheck disable=SC2086
if verilator --lint-only -Wall -Irtl --top-module sa_sfu_math rtl/lint.vlt $SV >"$T/lint.log" 2>&1; then
  pass lint
else
  fail lint "$(grep -m3 '%' "$T/lint.log" | tr '\n' ' ' | head -c 300)"
fi

# shellcheck disable=SC2086
if ! verilator --cc --exe --build -j 2 -Irtl --top-module sa_sfu_math -Mdir "$T/obj" $SV \
     "$(pwd)/tests/rtl/sfu_math_tb.cpp" -CFLAGS "-O1 -I$(pwd)/isa" -LDFLAGS "$(cd "$B" && pwd)/isa/sfu_math.o" \
     -o "$T/tb" >"$T/build.log" 2>&1; then
  fail build "verilator: $(grep -m3 -e '%Error' -e 'error:' "$T/build.log" | tr '\n' ' ' | head -c 300)"; exit 0
fi
"$T/tb" "${SFU_RANDOM:-1000000}" 2>&1 | tee "$T/out"
grep -q '^sfu_math_tb: vectors [0-9]*$' "$T/out" || fail bench "the bench did not run to the end: $(tail -n 3 "$T/out")"
