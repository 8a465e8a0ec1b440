#!/bin/sh
# gbuf.sh BUILD_DIR: the global buffer in the RTL (rtl/sa_gbuf.sv, TIMING 5a) against the C
# engines. tests/rtl/gbuf_order.s (int8, RAW32 and pooled STOREs into the buffer; a GBUF LOAD
# behind a DRAM LOAD; ACC LOADs from it, one accumulating onto rows a DRAM LOAD still writes; a
# DRAM LOAD behind a GBUF one; a transposed GBUF LOAD) and workloads/asm/gbuf_fuse.s run on three
# models: tiny (gbuf.bus_bytes = dram.bus_bytes = 4, latency 2 against DRAM's 10), small (8 and 8,
# 2 against 50) and tests/rtl/arch_gbuf.json (1000 bytes, 8-byte beats on a 4-byte DRAM bus,
# latency 5), each in lockstep (--engine both: every cycle's GBUF and DRAM beats, unit states,
# times; then the statistics, the GBUF's and DRAM's bytes), then --engine rtl's output lines and
# JSON statistics (gbuf.* counters included, some beats each way) against the fast engine's.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=rtl-gbuf
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }

R=$(pwd)
# gbuf_used JSON: the run read and wrote the global buffer.
gbuf_used() {
  python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["gbuf"]; sys.exit(0 if g["read_beats"] and g["write_beats"] else 1)' "$1"
}
for arch in workloads/arch/tiny.json workloads/arch/small.json tests/rtl/arch_gbuf.json; do
  a=$(basename "$arch" .json)
  for s in tests/rtl/gbuf_order.s workloads/asm/gbuf_fuse.s; do
    n=$(basename "$s" .s)-$a
    sed "s|^\.arch .*|.arch \"$R/$arch\"|" "$s" >"$T/$n.s"
    $SASIM asm "$T/$n.s" -o "$T/$n.bin" 2>"$T/$n.err" || { fail "asm-$n" "$(head -c 300 "$T/$n.err")"; continue; }
    expect "lockstep-$n" 0 'cycles' -- $SASIM run "$T/$n.bin" --engine both
    $SASIM run "$T/$n.bin" --mode fast --json "$T/$n.f.json" >"$T/$n.f.out" 2>/dev/null
    if $SASIM run "$T/$n.bin" --engine rtl --json "$T/$n.r.json" >"$T/$n.r.out" 2>"$T/$n.r.err" &&
       cmp -s "$T/$n.f.json" "$T/$n.r.json" && cmp -s "$T/$n.f.out" "$T/$n.r.out" &&
       gbuf_used "$T/$n.r.json"
    then pass "rtl-vs-fast-$n"
    else fail "rtl-vs-fast-$n" "$(head -c 300 "$T/$n.r.err") $(diff "$T/$n.f.out" "$T/$n.r.out" | head -c 200) $(diff "$T/$n.f.json" "$T/$n.r.json" | head -c 300)"; fi
  done
done
