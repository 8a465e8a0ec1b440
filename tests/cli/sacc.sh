#!/bin/sh
# sacc.sh BUILD_DIR: the sacc command line: --help, exit codes, errors with their location, and
# every example net in workloads/nets/ checked and run through the reference interpreter.
set -u
B=${1:-build}
SACC=$B/bin/sacc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=sacc
. tests/cli/lib.sh
expect help 0 '^usage: sacc' -- $SACC --help
expect no-args 2 'usage' -- $SACC
expect unknown-command 2 'frob' -- $SACC frob
expect missing-file 1 'nope.json: error' -- $SACC check "$T/nope.json"
printf '{"name": "x",\n  "layers": [ }\n' >"$T/bad.json"
expect bad-json 1 'bad.json:2:[0-9]+: error' -- $SACC check "$T/bad.json"
printf '{"name":"x","inputs":[{"name":"x","shape":[1,4,4,3],"scale":0.1}],"layers":[{"name":"l1","op":"frobnicate","inputs":["x"],"output":"y","scale":0.1}],"outputs":["y"]}\n' >"$T/op.json"
expect unknown-op 1 'layers\[0\] "l1": error: .*frobnicate' -- $SACC check "$T/op.json"
for n in workloads/nets/*.json; do
  b=$(basename "$n" .json)
  expect "check-$b" 0 '' -- $SACC check "$n" --dump-ir
  expect "ref-$b" 0 '^output .*crc32 [0-9a-f]{8}$' -- $SACC ref "$n" --output-dir "$T/$b"
  ls "$T/$b"/*.npy >/dev/null 2>&1 && pass "ref-writes-npy-$b" || fail "ref-writes-npy-$b" "no .npy written"
done
