#!/bin/sh
# spec.sh BUILD_DIR: the float path of docs/NETJSON.md ("Exact arithmetic of the float path") is
# exact enough for a second implementation: tests/compiler/spec_check.py re-derives, from the
# doc's rules alone, every calibrated scale and multiplier of edge_float_bn and of ResNet-18
# (its first 25 layers in a sanitizer build) and compares them with `sacc check --dump-ir`.
set -u
B=${1:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=spec
. tests/cli/lib.sh
PY=/usr/bin/python3
if ! $PY -c 'import numpy' >/dev/null 2>&1; then echo "SKIP spec: python3-numpy is missing"; exit 0; fi
case $B in *asan*) r18=25 ;; *) r18= ;; esac
for args in "workloads/nets/edge_float_bn.json" "workloads/nets/resnet18.json $r18"; do
  # shellcheck disable=SC2086
  $PY tests/compiler/spec_check.py "$B/bin/sacc" $args 2>&1
done
# The dump prints scales exactly: 17 significant digits.
if $B/bin/sacc check workloads/nets/edge_float_bn.json --dump-ir 2>&1 | grep -q '^input x \[1,8,8,3\] scale=0.029999999999999999$'
then pass dump-ir-exact-scale; else fail dump-ir-exact-scale "sacc check --dump-ir does not print 0.03 as 0.029999999999999999"; fi
