#!/bin/sh
# install-deps.sh: makes sure the system packages the build needs are present.
# As root it installs them with apt-get; otherwise it prints the exact command and fails.
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
have_header zlib.h || need="$need zlib1g-dev"
have_header jansson.h || need="$need libjansson-dev"
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
echo "install-deps: error: as root, run: apt-get update && apt-get install -y$need" >&2
exit 1
