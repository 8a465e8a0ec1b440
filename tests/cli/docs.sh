#!/bin/sh
# docs.sh BUILD_DIR: checks that the generated files are up to date with isa/isa_*.def and
# docs/ISA.head.md: docs/ISA.md must equal `gen_isa doc docs/ISA.head.md` and rtl/sa_isa_pkg.sv
# must equal `gen_isa sv`. Run from the repository root (tests/run.sh does). Prints one
# PASS/FAIL line; `make docs` regenerates both files.
set -u
build=${1:?usage: sh tests/cli/docs.sh BUILD_DIR}
gen="$build/bin/gen_isa"
name=docs-isa-uptodate

if [ ! -x "$gen" ]; then
  echo "FAIL $name: $gen is not built (make BUILD=$build $gen)"
  exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

stale=""
if ! "$gen" doc docs/ISA.head.md >"$tmp/ISA.md"; then
  echo "FAIL $name: $gen doc docs/ISA.head.md failed"
  exit 1
fi
if ! "$gen" sv >"$tmp/sa_isa_pkg.sv"; then
  echo "FAIL $name: $gen sv failed"
  exit 1
fi
cmp -s "$tmp/ISA.md" docs/ISA.md || stale="$stale docs/ISA.md"
cmp -s "$tmp/sa_isa_pkg.sv" rtl/sa_isa_pkg.sv || stale="$stale rtl/sa_isa_pkg.sv"

if [ -n "$stale" ]; then
  echo "FAIL $name: run make docs (out of date:$stale)"
  exit 1
fi
echo "PASS $name"
