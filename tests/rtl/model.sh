#!/bin/sh
# model.sh BUILD_DIR: building an RTL model is an explicit step (issue 18 item 19). sasim never
# starts a Verilator build by itself: on an arch without a model it stops with a message naming
# the command; `make rtl-model ARCH=...` refuses an array past RTL_MAX_PES PEs (docs/RTL.md),
# and holds a lock per configuration while it builds. Prints PASS/FAIL lines for tests/run.sh.
# Run from the repository root (tests/run.sh runs it where sasim-rtl was built).
set -u
B=${1:-build}
SASIM=$B/bin/sasim
CLI_PREFIX=rtl-model
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
. tests/cli/lib.sh
[ -x "$B/bin/sasim-rtl" ] || { fail built "no $B/bin/sasim-rtl (make rtl)"; exit 0; }

# An arch no test builds a model for: sasim says how to build it, and builds nothing.
printf '.arch {"name": "nomodel", "array": {"rows": 3, "cols": 5}}\nHALT\n' >"$T/p.s"
$SASIM asm "$T/p.s" -o "$T/p.bin"
printf '{"name": "nomodel", "array": {"rows": 3, "cols": 5}}\n' >"$T/nomodel.json"
key=$("$B/bin/sasim-rtl" --config-key "$T/nomodel.json")
expect missing 1 "^sasim-rtl: error: no RTL model for arch \"nomodel\" \\($key\\); build it first: make rtl-model ARCH=" -- \
  timeout 20 $SASIM run "$T/p.bin" --engine rtl
[ -e "$B/rtl/$key" ] && fail missing-builds-nothing "$B/rtl/$key was created" || pass missing-builds-nothing
expect missing-vcd 1 "^sasim-rtl: error: no traced RTL model for arch \"nomodel\" \\($key\\); build it first: make rtl-model-vcd ARCH=" -- \
  timeout 20 $SASIM run "$T/p.bin" --engine rtl --vcd "$T/x.vcd"

# The size guard: tpu-like's 256x256 array is refused before anything is built.
expect too-large 2 'rtl-model: error: .*tpu-like.json: a 256x256 array is 65536 PEs, more than RTL_MAX_PES=4096' -- \
  make --no-print-directory BUILD="$B" rtl-model ARCH=workloads/arch/tpu-like.json
k=$("$B/bin/sasim-rtl" --config-key workloads/arch/tpu-like.json)
[ -e "$B/rtl/$k" ] && fail too-large-builds-nothing "$B/rtl/$k was created" || pass too-large-builds-nothing
expect needs-arch 2 'rtl-model: error: give ARCH=arch.json or RTL_CONFIG=' -- make --no-print-directory BUILD="$B" rtl-model

# The lock: while another build of the tiny model holds it, make rtl-model waits for it.
k=$("$B/bin/sasim-rtl" --config-key workloads/arch/tiny.json)
if [ -x "$B/rtl/$k/sasim-rtl-model" ]; then
  flock "$B/rtl/$k.lock" sleep 6 &
  sleep 1
  t0=$(date +%s)
  make --no-print-directory BUILD="$B" rtl-model ARCH=workloads/arch/tiny.json >"$T/out" 2>&1
  rc=$? t1=$(date +%s)
  wait
  if [ $rc -ne 0 ]; then fail lock "make rtl-model failed: $(head -c 300 "$T/out")"
  elif [ $((t1 - t0)) -lt 4 ]; then fail lock "make rtl-model did not wait for the lock ($((t1 - t0)) s)"
  else pass lock; fi
else
  fail lock "no tiny model in $B/rtl/$k (make rtl)"
fi
