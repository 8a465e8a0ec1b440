#!/bin/sh
# build-model.sh MAKE BUILD rtl|rtl-vcd ARCH CONFIG: `make rtl-model` and `make rtl-model-vcd`
# (rtl/rtl.mk). Builds the Verilator model of one arch configuration, given as an arch file
# (ARCH=..., named by `sasim-rtl --config-key`) or a config key (RTL_CONFIG=...), and
#  - refuses an array of more than RTL_MAX_PES processing elements (default 4096, a 64x64 array;
#    the 32x32 large arch builds in about a minute, tpu-like's 256x256 would not finish in a
#    day; docs/RTL.md), unless RTL_ALLOW_LARGE=1;
#  - holds a lock per configuration ($BUILD/<kind>/<config>.lock, flock) while it builds, so
#    that concurrent builds of one model wait for each other instead of writing one directory.
# Exit status 2 for a refused request, else make's.
set -u
make_cmd=$1 build=$2 kind=$3 arch=$4 key=$5
max=${RTL_MAX_PES:-4096}
if [ -n "$arch" ]; then
  key=$("$build/bin/sasim-rtl" --config-key "$arch") || exit 2
  what="$arch"
elif [ -n "$key" ]; then
  what="RTL_CONFIG=$key"
else
  echo "rtl-model: error: give ARCH=arch.json or RTL_CONFIG=<config key> (sasim-rtl --config-key ARCH.json)" >&2
  exit 2
fi
case $key in
  R[0-9]*_C[0-9]*_*) ;;
  *) echo "rtl-model: error: $what: '$key' is not a config key (R<rows>_C<cols>_...)" >&2; exit 2 ;;
esac
rows=${key#R}; rows=${rows%%_*}
cols=${key#*_C}; cols=${cols%%_*}
pes=$((rows * cols))
if [ "$pes" -gt "$max" ] && [ "${RTL_ALLOW_LARGE:-0}" != 1 ]; then
  echo "rtl-model: error: $what: a ${rows}x${cols} array is $pes PEs, more than RTL_MAX_PES=$max: its Verilator model is far too large to build (docs/RTL.md); RTL_ALLOW_LARGE=1 builds it anyway" >&2
  exit 2
fi
mkdir -p "$build/$kind" || exit 1
exec flock "$build/$kind/$key.lock" $make_cmd --no-print-directory BUILD="$build" "$build/$kind/$key/sasim-rtl-model"
