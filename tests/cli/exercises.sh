#!/bin/sh
# exercises.sh BUILD_DIR: runs the check command of every classroom exercise (docs/exercises/)
# with the tools of BUILD_DIR and compares its output with the exercise's answer key
# (scripts/check-exercises). One PASS/FAIL line per check. Run from the repository root.
set -u
build=${1:?usage: sh tests/cli/exercises.sh BUILD_DIR}
if ! command -v python3 >/dev/null 2>&1; then
  echo "FAIL exercises: python3 not found (scripts/check-exercises needs it)"
  exit 1
fi
exec python3 scripts/check-exercises --build "$build"
