#!/bin/sh
# perf.sh BUILD_DIR: performance pinned by goldens. Every small shipped network (workloads/nets,
# less the large ones in BIG) is compiled in each dataflow (sacc compile --dataflow ws|os|is) for
# the default arch and for workloads/arch/tiny.json (small buffers: many tiles, DRAM-bound) and
# simulated (sasim run --json, fast engine); its cycles, instructions per unit and per opcode,
# DRAM bytes, MACs and utilization, and per layer span, DRAM bytes and unit busy/wait cycles
# must equal tests/golden/<net>.<dataflow>.perf.json (default arch) or
# <net>.<dataflow>.tiny.perf.json (tests/cli/perfgolden.py builds and compares them). A FAIL
# names each field that moved, from what to what. `make golden` (SA_GOLDEN_UPDATE=1) rewrites
# the goldens; review the diff like code (docs/TESTING.md).
set -u
B=${1:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
BIG=" alexnet mobilenetv2 resnet18 resnet50 vgg16 "   # seconds each, not milliseconds
for n in workloads/nets/*.json; do
  b=$(basename "$n" .json)
  case "$BIG" in *" $b "*) continue ;; esac
  for arch in default tiny; do
    for df in ws os is; do
      k=$b.$df; [ $arch = default ] || k=$k.$arch
      if ! $B/bin/sacc compile "$n" --dataflow $df --arch workloads/arch/$arch.json -o "$T/$k.bin" \
           >"$T/err" 2>&1; then
        echo "FAIL perf-$k: sacc compile: $(head -c 200 "$T/err")"; touch "$T/$k.failed"; continue
      fi
      if ! $B/bin/sasim disasm "$T/$k.bin" >"$T/$k.asm" 2>"$T/err"; then
        echo "FAIL perf-$k: sasim disasm: $(head -c 200 "$T/err")"; touch "$T/$k.failed"; continue
      fi
      if ! $B/bin/sasim run "$T/$k.bin" --json "$T/$k.json" >/dev/null 2>"$T/err"; then
        echo "FAIL perf-$k: sasim run: $(head -c 200 "$T/err")"; rm -f "$T/$k.json"; touch "$T/$k.failed"
        continue
      fi
    done
  done
done
python3 tests/cli/perfgolden.py "$T" tests/golden
