#!/bin/sh
# costmodel.sh BUILD_DIR [--table]: the compiler's cost model (tile.c: est_cycles per layer in
# sacc compile --json) against the simulated cycles (sasim run --json, fast engine), per layer.
# Covered: every small shipped network in ws, os and is on the default arch and on
# workloads/arch/tiny.json (both with a global buffer: fused, docs/COMPILER.md "Fusion"; a few of
# them also with --no-fuse-layers, as arch "default-nofuse" / "tiny-nofuse"); ResNet-18, ResNet-50, MobileNetV2 and AlexNet in ws, os and is on
# the default arch; VGG-16 in ws (the default dataflow) only, its three runs taking 20 s of the
# budget. About 25 s of CPU in all. tests/cli/costmodel.py holds the bound (3% of the layer's
# cycles + an absolute allowance) and prints one PASS/FAIL line per case and the worst layer.
# With --table it prints every layer's estimate beside its simulated cycles instead.
# Under the sanitizers (a BUILD_DIR named *asan*) the big networks run in five cases, not sixteen.
# SA_COSTMODEL_NETS="a.json b.json" runs those networks in all three dataflows, default arch only.
set -u
B=${1:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
BIG=" alexnet mobilenetv2 resnet18 resnet50 vgg16 "   # seconds each, not milliseconds
run() {   # run NET ARCH DF [nofuse]: nofuse compiles with --no-fuse-layers (case arch "ARCH-nofuse")
  k=$(basename "$1" .json).$3.$2${4:+-$4}
  if ! $B/bin/sacc compile "$1" --dataflow $3 --arch workloads/arch/$2.json -o "$T/$k.bin" ${4:+--no-fuse-layers} \
       --json "$T/$k.sacc.json" >"$T/err" 2>&1; then
    if [ $2 = tiny ] && grep -q 'no tiling fits' "$T/err"; then return; fi   # too big for it
    echo "FAIL costmodel-$k: sacc compile: $(head -c 200 "$T/err")"; return
  fi
  if ! $B/bin/sasim run "$T/$k.bin" --json "$T/$k.sim.json" >/dev/null 2>"$T/err"; then
    echo "FAIL costmodel-$k: sasim run: $(head -c 200 "$T/err")"; rm -f "$T/$k.sim.json"
  fi
  rm -f "$T/$k.bin"
}
if [ -n "${SA_COSTMODEL_NETS:-}" ]; then
  for n in $SA_COSTMODEL_NETS; do for df in ws os is; do run "$n" default $df; done; done
else
  for n in workloads/nets/*.json; do
    case "$BIG" in *" $(basename "$n" .json) "*) continue ;; esac
    for arch in default tiny; do for df in ws os is; do run "$n" $arch $df; done; done
  done
  case $B in
  *asan*)   # under the sanitizers the big networks' paths, not their figures (the plain build's):
    # ResNet-18 in the three dataflows, MobileNetV2's shared taps, AlexNet's fully connected layers
    for df in ws os is; do run workloads/nets/resnet18.json default $df; done
    run workloads/nets/mobilenetv2.json default ws
    run workloads/nets/alexnet.json default is ;;
  *)
    for b in resnet18 resnet50 mobilenetv2 alexnet; do
      for df in ws os is; do run workloads/nets/$b.json default $df; done
    done
    run workloads/nets/vgg16.json default ws ;;
  esac
  # The default, tiny and small archs have a global buffer, so the runs above are fused (docs/
  # COMPILER.md "Fusion"); these are the same networks with every activation in DRAM.
  for b in resnet18 mobilenetv2 lenet5; do run workloads/nets/$b.json default ws nofuse; done
  for b in lenet5 residual; do for df in ws os is; do run workloads/nets/$b.json tiny $df nofuse; done; done
fi
# scripts/est-vs-sim, the same join for one network: its rows add up to the simulated cycles
if out=$(scripts/est-vs-sim workloads/nets/tiny_cnn.json --sacc $B/bin/sacc --sasim $B/bin/sasim --csv "$T/e.csv" 2>&1) &&
   $B/bin/sacc compile workloads/nets/tiny_cnn.json -o "$T/e.bin" >/dev/null 2>&1 &&
   cyc=$($B/bin/sasim run "$T/e.bin" | sed -n 's/^\([0-9]*\) cycles$/\1/p') &&
   echo "$out" | awk -v c="$cyc" '$1 == "(net)" { net = $3 } $1 != "layer" && $1 != "(net)" { s += $4 }
     END { exit !(net == c && s == c - 1) }' && [ "$(wc -l <"$T/e.csv")" -eq "$(echo "$out" | wc -l)" ]
then echo "PASS costmodel-est-vs-sim"
else echo "FAIL costmodel-est-vs-sim: the per-layer rows do not add up to sasim's cycles: $out" | head -c 600; echo; fi
if [ "${2:-}" = --table ]; then python3 tests/cli/costmodel.py --table "$T"; else python3 tests/cli/costmodel.py "$T"; fi
