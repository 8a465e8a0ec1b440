#!/bin/sh
# onnx.sh BUILD_DIR: scripts/onnx2net (docs/IMPORTERS.md). Small ONNX models built with
# onnx.helper (tests/onnx/models.py) are converted, checked numerically against a numpy float
# evaluation of the ONNX graph (tests/onnx/onnx_eval.py), compiled and run on sasim against
# `sacc ref` (tests/onnx/pipeline.py); refused models must name the node and op. Also usage
# errors and a missing file. Needs Debian's python3-onnx (make test installs it: install-deps.sh
# --onnx); without it the script says SKIP and counts nothing.
set -u
B=${1:-build}
PY=/usr/bin/python3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=onnx
. tests/cli/lib.sh

if ! $PY -c 'import onnx, numpy' >/dev/null 2>&1; then
  echo "SKIP onnx: python3-onnx not installed (make deps-onnx)"
  exit 0
fi

expect help 0 'usage: onnx2net' -- scripts/onnx2net --help
expect no-args 2 'usage: onnx2net' -- scripts/onnx2net
expect bad-shape 2 'bad shape' -- scripts/onnx2net "$T/x.onnx" -o "$T/x.json" --input-shape 1,x,3
expect missing-file 1 "nosuch.onnx: error: cannot read the model" -- scripts/onnx2net "$T/nosuch.onnx" -o "$T/x.json"
printf 'not a model' >"$T/junk.onnx"
expect junk-file 1 "junk.onnx: error: cannot read the model" -- scripts/onnx2net "$T/junk.onnx" -o "$T/x.json"
if [ -e "$T/x.json" ] || ls -a "$T" | grep -q '^\.x\.json'; then fail no-partial-output "a file was left"
else pass no-partial-output; fi

mkdir "$T/models"
$PY tests/onnx/run_models.py "$B" "$T/models"
