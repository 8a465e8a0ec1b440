#!/bin/sh
# dataflows.sh BUILD_DIR: `sacc compile --dataflow` end to end. Every shipped network compiled
# output-stationary (COMPUTE_OS) and input-stationary (transposed LOAD + PRELOAD + COMPUTE_IS)
# must give the reference's output bytes, tests/golden/NAME.ref.txt, as the weight-stationary
# build does (compile.sh); also on the 4x4 tiny arch, double-buffered or not; fast and detailed
# engines agree on OS and IS programs; each is really another program (other instructions,
# other cycles); usage errors. The big networks run only in an optimized build.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=dataflow
. tests/cli/lib.sh
BIG="alexnet vgg16 resnet18 resnet50 mobilenetv2"
case $B in *asan*) small_only=1 ;; *) small_only=0 ;; esac
cyc() { sed -n 's/^\([0-9][0-9]*\) cycles$/\1/p' "$1"; }

for f in workloads/nets/*.json; do
  n=$(basename "$f" .json)
  case " $BIG " in *" $n "*) [ $small_only = 1 ] && continue ;; esac
  golden_net "os-default-$n" "$f" --dataflow os
done
for n in tiny_cnn residual edge_odd edge_channels edge_depthwise edge_pooling depthwise; do
  golden_net "os-tiny-$n" "workloads/nets/$n.json" --dataflow os --arch workloads/arch/tiny.json
done
for f in workloads/nets/*.json; do
  n=$(basename "$f" .json)
  case " $BIG " in *" $n "*) [ $small_only = 1 ] && continue ;; esac
  golden_net "is-default-$n" "$f" --dataflow is
done
for n in tiny_cnn residual edge_odd edge_channels edge_depthwise edge_pooling edge_gap_fc depthwise; do
  golden_net "is-tiny-$n" "workloads/nets/$n.json" --dataflow is --arch workloads/arch/tiny.json
  golden_net "is-tiny-single-$n" "workloads/nets/$n.json" --dataflow is --arch workloads/arch/tiny.json \
    --no-double-buffer
done

# The OS program is another program: COMPUTE_OS instead of PRELOAD/COMPUTE, other cycles; and the
# two engines agree on it figure for figure.
$SACC compile workloads/nets/lenet5.json --dataflow os -o "$T/os.s" --emit asm >/dev/null 2>&1
$SACC compile workloads/nets/lenet5.json --dataflow ws -o "$T/ws.s" --emit asm >/dev/null 2>&1
if grep -q '^COMPUTE_OS ' "$T/os.s" && ! grep -qE '^(PRELOAD|COMPUTE) ' "$T/os.s" &&
   grep -q '^PRELOAD ' "$T/ws.s" && ! grep -q '^COMPUTE_OS ' "$T/ws.s"
then pass os-insns; else fail os-insns "the OS program should use COMPUTE_OS only, the WS one PRELOAD/COMPUTE only"; fi
$SACC compile workloads/nets/lenet5.json --dataflow os -o "$T/os.bin" >/dev/null 2>&1
$SACC compile workloads/nets/lenet5.json --dataflow ws -o "$T/ws.bin" >/dev/null 2>&1
$SASIM run "$T/os.bin" --json "$T/f.json" >"$T/os.out" 2>&1
$SASIM run "$T/ws.bin" >"$T/ws.out" 2>&1
$SASIM run "$T/os.bin" --mode detailed --json "$T/d.json" >/dev/null 2>&1
if [ -s "$T/f.json" ] && cmp -s "$T/f.json" "$T/d.json"; then pass os-engines-agree
else fail os-engines-agree "fast and detailed stats differ on an OS program"; fi
if [ -n "$(cyc "$T/os.out")" ] && [ "$(cyc "$T/os.out")" != "$(cyc "$T/ws.out")" ]; then pass os-cycles-differ
else fail os-cycles-differ "OS $(cyc "$T/os.out") vs WS $(cyc "$T/ws.out") cycles"; fi

# The IS program: transposed LOADs into WBUF and COMPUTE_IS, no COMPUTE or COMPUTE_OS; its
# own cycles; fast and detailed engines agree on it, on the default and the tiny arch.
$SACC compile workloads/nets/lenet5.json --dataflow is -o "$T/is.s" --emit asm >/dev/null 2>&1
if grep -q '^COMPUTE_IS ' "$T/is.s" && grep -q '^LOAD .*mem=wbuf .*transpose=1' "$T/is.s" &&
   ! grep -qE '^(COMPUTE|COMPUTE_OS) ' "$T/is.s" && ! grep -q '^COMPUTE_IS ' "$T/ws.s"
then pass is-insns; else fail is-insns "the IS program should use transposed LOADs and COMPUTE_IS only"; fi
for a in default tiny; do
  $SACC compile workloads/nets/tiny_cnn.json --dataflow is --arch workloads/arch/$a.json -o "$T/is.bin" >/dev/null 2>&1
  $SASIM run "$T/is.bin" --json "$T/f.json" >/dev/null 2>&1
  $SASIM run "$T/is.bin" --mode detailed --json "$T/d.json" >/dev/null 2>&1
  if [ -s "$T/f.json" ] && cmp -s "$T/f.json" "$T/d.json"; then pass is-engines-agree-$a
  else fail is-engines-agree-$a "fast and detailed stats differ on an IS program"; fi
done
$SACC compile workloads/nets/lenet5.json --dataflow is -o "$T/is.bin" >/dev/null 2>&1
$SASIM run "$T/is.bin" >"$T/is.out" 2>&1
if [ -n "$(cyc "$T/is.out")" ] && [ "$(cyc "$T/is.out")" != "$(cyc "$T/ws.out")" ]; then pass is-cycles-differ
else fail is-cycles-differ "IS $(cyc "$T/is.out") vs WS $(cyc "$T/ws.out") cycles"; fi
# --dump-ir tiling names the dataflow it planned for.
$SACC compile workloads/nets/lenet5.json --dataflow is --dump-ir tiling -o "$T/x.bin" >"$T/tiling" 2>&1
grep -q '^# tiling: .*input-stationary' "$T/tiling" && pass is-dump || fail is-dump "$(head -c 200 "$T/tiling")"

expect usage-bad 2 "^sacc: compile: --dataflow: expected ws, os, is or auto, got 'xs'\$" -- $SACC compile workloads/nets/lenet5.json --dataflow xs -o "$T/x.bin"
expect usage-missing 2 "^sacc: compile: --dataflow needs a value" -- $SACC compile workloads/nets/lenet5.json --dataflow
