#!/bin/sh
# install-deps.sh: makes sure the system packages the build needs are present.
# As root it installs them with apt-get; otherwise it prints the exact command and fails.
# jansson and zlib count as present when a test program compiles and links with the flags make
# uses (pkg-config's, PKG_CONFIG_PATH honoured, or the overrides JANSSON_CFLAGS, JANSSON_LIBS,
# ZLIB_CFLAGS, ZLIB_LIBS; README.md "Building without root"): then neither root nor apt-get is
# needed. Without a C compiler, the headers are looked for in /usr/include and /usr/local/include.
# Usage: sh scripts/install-deps.sh [--rtl [--synth]]   (--rtl adds verilator; --synth also yosys)
#        sh scripts/install-deps.sh --onnx [--torch]   (python3-onnx, python3-numpy for scripts/onnx2net;
#                                                      --torch also python3-torchvision, for make test-onnx)
#        sh scripts/install-deps.sh --plot              (python3-matplotlib for scripts/sweep's plots)
#        sh scripts/install-deps.sh --fpga              (yosys, nextpnr-ice40, fpga-icestorm for make fpga)
#        sh scripts/install-deps.sh --browser           (chromium, chromium-driver: tests/cli/view.sh loads the
#                                                      page of sasim run --view in headless Chromium)
set -u
# make -j runs several of these at once (build, RTL, ONNX and plot deps): apt-get takes the dpkg lock
# and fails the others, so run one at a time; each checks what is missing only once it holds the lock.
if [ -z "${SA_DEPS_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
  SA_DEPS_LOCKED=1 exec flock "${TMPDIR:-/tmp}/sacc-install-deps.lock" sh "$0" "$@"
fi
need=""
have_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/include/x86_64-linux-gnu/$1" ] || [ -f "/usr/local/include/$1" ]; }
# pkg_flags LIB --cflags|--libs: what pkg-config says, if it knows LIB.
pkg_flags() { ${PKG_CONFIG:-pkg-config} --exists "$1" 2>/dev/null && ${PKG_CONFIG:-pkg-config} "$2" "$1" 2>/dev/null; }
[ -n "${JANSSON_CFLAGS+set}" ] || JANSSON_CFLAGS=$(pkg_flags jansson --cflags)
[ -n "${JANSSON_LIBS+set}" ] || JANSSON_LIBS=$(pkg_flags jansson --libs || echo -ljansson)
[ -n "${ZLIB_CFLAGS+set}" ] || ZLIB_CFLAGS=$(pkg_flags zlib --cflags)
[ -n "${ZLIB_LIBS+set}" ] || ZLIB_LIBS=$(pkg_flags zlib --libs || echo -lz)
# have_lib HEADER CALL CFLAGS LIBS: a program including HEADER and calling CALL compiles and links.
have_lib() {
  cc=${CC:-cc}
  command -v "$cc" >/dev/null 2>&1 || { have_header "$1"; return; }
  d=$(mktemp -d) || return 1
  printf '#include <%s>\nint main(void) { return %s != 0 ? 0 : 1; }\n' "$1" "$2" >"$d/t.c"
  # shellcheck disable=SC2086  # the flags are word lists
  $cc $3 "$d/t.c" -o "$d/t" $4 >"$d/log" 2>&1; rc=$?
  rm -rf "$d"
  return $rc
}
base=""
have_lib zlib.h 'zlibVersion()' "$ZLIB_CFLAGS" "$ZLIB_LIBS" || base="$base zlib1g-dev"
have_lib jansson.h 'jansson_version_str()' "$JANSSON_CFLAGS" "$JANSSON_LIBS" || base="$base libjansson-dev"
need=$base
if [ "${1:-}" = "--rtl" ]; then
  command -v verilator >/dev/null 2>&1 || need="$need verilator"
  [ "${2:-}" = "--synth" ] && { command -v yosys >/dev/null 2>&1 || need="$need yosys"; }
fi
if [ "${1:-}" = "--onnx" ]; then
  /usr/bin/python3 -c 'import onnx, numpy' >/dev/null 2>&1 || need="$need python3-onnx python3-numpy"
  [ "${2:-}" = "--torch" ] && { /usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1 || need="$need python3-torchvision"; }
fi
if [ "${1:-}" = "--plot" ]; then
  /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || need="$need python3-matplotlib"
fi
if [ "${1:-}" = "--fpga" ]; then
  command -v yosys >/dev/null 2>&1 || need="$need yosys"
  command -v nextpnr-ice40 >/dev/null 2>&1 || need="$need nextpnr-ice40"
  command -v icepack >/dev/null 2>&1 || need="$need fpga-icestorm"
fi
if [ "${1:-}" = "--browser" ]; then
  [ -x /usr/bin/chromium ] || need="$need chromium"
  [ -x /usr/bin/chromedriver ] || need="$need chromium-driver"
fi
[ -z "$need" ] && exit 0
echo "install-deps: missing Debian packages:$need" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: running apt-get update && apt-get install -y$need" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >&2 || {
    echo "install-deps: error: apt-get failed; install by hand: apt-get install$need" >&2; exit 1; }
  exit 0
fi
echo "install-deps: error: on Debian or Ubuntu, as root, run: apt-get update && apt-get install -y$need" >&2
if [ -n "$base" ]; then
  echo "install-deps: (jansson, zlib: not found with: ${CC:-cc} $JANSSON_CFLAGS $ZLIB_CFLAGS ... $JANSSON_LIBS $ZLIB_LIBS)" | tr -s ' ' >&2
  echo "install-deps: without root: with Homebrew, brew install jansson zlib pkg-config; or build jansson and zlib into a prefix of your own and point the build at it: make PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, or make JANSSON_CFLAGS=-IPREFIX/include JANSSON_LIBS=\"-LPREFIX/lib -ljansson\" (ZLIB_CFLAGS, ZLIB_LIBS alike; README.md \"Building without root\")" >&2
fi
exit 1
