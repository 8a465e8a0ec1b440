#!/bin/sh
# fuse.sh BUILD_DIR: cross-layer fusion (docs/COMPILER.md "Fusion": activations kept in the global
# buffer between layers). Every shipped network on the default, tiny and small archs in ws, os, is
# and auto, fused (the default) and with --no-fuse-layers: the outputs equal `sacc ref` bit for bit
# (the large networks, seconds each, on the default arch in ws and auto only). Where the fusion
# dump places a tensor in the GBUF, the run moves GBUF bytes and reads fewer DRAM bytes than the
# unfused program; --no-fuse-layers and gbuf.bytes 0 give no GBUF instruction and the same
# instruction stream; a network whose activations do not fit the buffer stays correct; the fast
# and detailed engines agree on fused programs.
set -u
B=${1:-build}
SACC=$B/bin/sacc SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=fuse
. tests/cli/lib.sh
BIG=" alexnet mobilenetv2 resnet18 resnet50 vgg16 "

# key FILE KEY: a number from a sasim --json file ("dram.read_bytes", "gbuf.read_bytes"), 0 if absent
key() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d.get(k, {}) if isinstance(d, dict) else {}
print(d if isinstance(d, int) else 0)' "$1" "$2"; }

# traffic NAME NET ARCH DF: the fused program moves GBUF bytes and reads fewer DRAM bytes than the
# unfused one when the dump places a tensor in the GBUF (else: none moved)
traffic() {
  name=$1 net=$2 arch=$3 df=$4
  if ! $SACC compile "$net" --arch "$arch" --dataflow "$df" --dump-ir memplan -o "$T/f.bin" >"$T/f.dump" 2>"$T/err" ||
     ! $SACC compile "$net" --arch "$arch" --dataflow "$df" --no-fuse-layers -o "$T/n.bin" >/dev/null 2>>"$T/err" ||
     ! $SASIM run "$T/f.bin" --json "$T/f.json" >/dev/null 2>>"$T/err" ||
     ! $SASIM run "$T/n.bin" --json "$T/n.json" >/dev/null 2>>"$T/err"; then
    fail "$name" "$(head -c 300 "$T/err")"; return
  fi
  placed=$(sed -n 's/^# fusion: .*: \([0-9]*\) activations in the GBUF.*/\1/p' "$T/f.dump")
  g=$(key "$T/f.json" gbuf.read_bytes) gw=$(key "$T/f.json" gbuf.write_bytes)
  fr=$(key "$T/f.json" dram.read_bytes) nr=$(key "$T/n.json" dram.read_bytes)
  ng=$(key "$T/n.json" gbuf.read_bytes)
  if [ -z "$placed" ]; then fail "$name" "no '# fusion:' line in --dump-ir memplan"
  elif [ "$ng" -ne 0 ]; then fail "$name" "--no-fuse-layers moved $ng GBUF bytes"
  elif [ "$placed" -gt 0 ] && { [ "$g" -le 0 ] || [ "$gw" -le 0 ] || [ "$fr" -ge "$nr" ]; }; then
    fail "$name" "$placed tensors in the GBUF, but GBUF read $g B, written $gw B, DRAM read $fr B fused vs $nr B"
  elif [ "$placed" -eq 0 ] && [ "$g" -ne 0 ]; then fail "$name" "no tensor placed, but $g GBUF bytes read"
  else pass "$name"; fi
}

# pair NAME NET ARCH DF: the program fused and with --no-fuse-layers against sacc ref; status 1
# when the arch is too small for the network (every variant refuses it alike, nothing to compare).
pair() {
  if ! $SACC compile "$2" --arch $3 --dataflow $4 --no-fuse-layers -o "$T/c.bin" >/dev/null 2>"$T/err"; then
    grep -q 'no tiling fits\|needs .* bytes of DRAM' "$T/err" && return 1
    fail "$1-$3-$4" "$(head -c 300 "$T/err")"; return 0
  fi
  same_as_ref "$1-$3-$4" "$2" -- --arch $3 --dataflow $4
  same_as_ref "$1-$3-$4-nofuse" "$2" -- --arch $3 --dataflow $4 --no-fuse-layers
}

# Under the sanitizers (a build directory named *asan*) the matrix is thinned to what reaches
# every code path, at a third of its runs (docs/TESTING.md "What the sanitizer pass runs"): each
# small network in each dataflow, fused and with --no-fuse-layers, on one arch per dataflow that
# turns with the network (network i, dataflow j: arch (i + j) mod 3 of default, tiny, small, or
# the next one that fits), so that every network meets the three archs and every arch x
# dataflow x fusion case is run by several networks. Of the large networks only ResNet-18 in ws
# runs against sacc ref (one sanitized reference at ImageNet scale: its ops are those of the small
# networks); costmodel.sh compiles and runs every large one fused in ws, os and is under the
# sanitizers too. The plain build runs the whole matrix.
case $B in *asan*) asan=1 ;; *) asan=0 ;; esac
i=0
for n in workloads/nets/*.json; do
  b=$(basename "$n" .json)
  case "$BIG" in
    *" $b "*)
      for df in ws auto; do
        [ $asan = 1 ] && { [ $b != resnet18 ] || [ $df != ws ]; } && continue
        same_as_ref "$b-default-$df" "$n" -- --dataflow $df
      done
      continue ;;
  esac
  if [ $asan = 0 ]; then
    for arch in default tiny small; do for df in ws os is auto; do pair "$b" "$n" $arch $df; done; done
    continue
  fi
  j=0
  for df in ws os is auto; do
    k=0
    while [ $k -lt 3 ]; do
      case $(( (i + j + k) % 3 )) in 0) arch=default ;; 1) arch=tiny ;; *) arch=small ;; esac
      pair "$b" "$n" $arch $df && break
      k=$((k + 1))
    done
    j=$((j + 1))
  done
  i=$((i + 1))
done

# Traffic: a network whose tensors fit, and ResNet-18 (its later stages fit 128 KiB).
traffic traffic-tiny_cnn workloads/nets/tiny_cnn.json default ws
traffic traffic-residual-os workloads/nets/residual.json small os
traffic traffic-lenet5-tiny workloads/nets/lenet5.json tiny ws
traffic traffic-resnet18 workloads/nets/resnet18.json default ws

# Activations that do not fit: ResNet-18's early tensors are larger than the default GBUF (the
# dump says so) and its outputs still match; on a 1 KiB buffer nothing of VGG-16's fits.
# (The same dump serves the per-tensor check at the end: one ResNet-18 compile for both.)
$SACC compile workloads/nets/resnet18.json --dump-ir memplan -o "$T/r.bin" >"$T/r.dump" 2>&1; r_rc=$?
if grep -q '^fuse layer1_0_conv1_relu: DRAM, .*(larger than the GBUF)' "$T/r.dump" &&
   grep -q '^fuse layer4_0_conv1_relu: GBUF' "$T/r.dump"; then pass "too-large-stays-in-dram"
else fail "too-large-stays-in-dram" "$(grep '^fuse layer[14]_0_conv1_relu' "$T/r.dump" | head -c 300)"; fi
sed 's/"gbuf": {"bytes": [0-9]*/"gbuf": {"bytes": 1024/' workloads/arch/default.json >"$T/kib.json"
same_as_ref lenet5-gbuf-1kib workloads/nets/lenet5.json -- --arch "$T/kib.json"

# gbuf.bytes 0 and --no-fuse-layers: no GBUF instruction, and the same instructions (the arch line
# aside) as each other.
sed 's/"gbuf": {"bytes": [0-9]*/"gbuf": {"bytes": 0/' workloads/arch/default.json >"$T/nogbuf.json"
for b in residual mobilenetv2; do
  n=workloads/nets/$b.json
  $SACC compile "$n" --arch "$T/nogbuf.json" --emit asm -o "$T/z.s" 2>"$T/err" &&
  $SACC compile "$n" --no-fuse-layers --emit asm -o "$T/nf.s" 2>>"$T/err" &&
  $SACC compile "$n" --emit asm -o "$T/f.s" 2>>"$T/err" || { fail "nogbuf-$b" "$(head -c 300 "$T/err")"; continue; }
  grep -v '^[.;]' "$T/z.s" >"$T/z.i"; grep -v '^[.;]' "$T/nf.s" >"$T/nf.i"
  if grep -q 'gbuf=1' "$T/z.s" "$T/nf.s"; then fail "nogbuf-$b" "a GBUF instruction with gbuf.bytes 0 or --no-fuse-layers"
  elif ! cmp -s "$T/z.i" "$T/nf.i"; then fail "nogbuf-$b" "gbuf.bytes 0 and --no-fuse-layers emit different instructions"
  elif ! grep -q 'gbuf=1' "$T/f.s"; then fail "nogbuf-$b" "the fused program has no GBUF instruction"
  else pass "nogbuf-$b"; fi
done

# Both engines agree on fused programs (cycles and outputs; the detailed engine is the per-cycle one).
for c in "tiny_cnn default" "residual small" "lenet5 tiny" "edge_residual tiny"; do
  set -- $c
  if $SACC compile workloads/nets/$1.json --arch $2 -o "$T/e.bin" >/dev/null 2>"$T/err" &&
     $SASIM run "$T/e.bin" >"$T/fast" 2>>"$T/err" && $SASIM run "$T/e.bin" --mode detailed >"$T/det" 2>>"$T/err"; then
    if cmp -s "$T/fast" "$T/det"; then pass "engines-$1-$2"
    else fail "engines-$1-$2" "fast and detailed differ: $(diff "$T/fast" "$T/det" | head -4 | tr '\n' ' ')"; fi
  else fail "engines-$1-$2" "$(head -c 300 "$T/err")"; fi
done

# The option is in the table (--help) and the dump names the choice per tensor.
expect help 0 'no-fuse-layers' -- $SACC compile --help
if [ $r_rc -ne 0 ]; then fail dump-per-tensor "exit $r_rc, want 0: $(head -c 300 "$T/r.dump")"
elif grep -qE '^fuse layer4_1_conv2_bn: (GBUF|DRAM), [0-9]+ B, saves [0-9]+ B read \+ [0-9]+ B written' "$T/r.dump"; then pass dump-per-tensor
else fail dump-per-tensor "no line for layer4_1_conv2_bn in: $(head -c 300 "$T/r.dump")"; fi
