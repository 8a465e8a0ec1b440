#!/bin/sh
# costmodel.sh BUILD_DIR [--table]: the compiler's cost model (tile.c: est_cycles per layer in
# sacc compile --json) against the simulated cycles (sasim run --json, fast engine). Every small
# shipped network (as tests/cli/perf.sh) in ws, os and is, on the default arch and on
# workloads/arch/tiny.json where it fits there, must keep est/sim within the bounds stated in
# tests/cli/costmodel.py and docs/TESTING.md, per layer and for the whole net. With --table it
# prints every layer's est, sim and ratio instead (the measurement the bounds come from).
set -u
B=${1:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
BIG=" alexnet mobilenetv2 resnet18 resnet50 vgg16 "   # seconds each, not milliseconds
[ -n "${SA_COSTMODEL_NETS:-}" ] && BIG=""
for n in ${SA_COSTMODEL_NETS:-workloads/nets/*.json}; do
  b=$(basename "$n" .json)
  case "$BIG" in *" $b "*) continue ;; esac
  for arch in default tiny; do
    for df in ws os is; do
      k=$b.$df.$arch
      if ! $B/bin/sacc compile "$n" --dataflow $df --arch workloads/arch/$arch.json -o "$T/$k.bin" \
           --json "$T/$k.sacc.json" >"$T/err" 2>&1; then
        if [ $arch = tiny ] && grep -q 'no tiling fits' "$T/err"; then continue; fi   # too big for it
        echo "FAIL costmodel-$k: sacc compile: $(head -c 200 "$T/err")"; continue
      fi
      if ! $B/bin/sasim run "$T/$k.bin" --json "$T/$k.sim.json" >/dev/null 2>"$T/err"; then
        echo "FAIL costmodel-$k: sasim run: $(head -c 200 "$T/err")"; rm -f "$T/$k.sim.json"; continue
      fi
    done
  done
done
if [ "${2:-}" = --table ]; then python3 tests/cli/costmodel.py --table "$T"; else python3 tests/cli/costmodel.py "$T"; fi
