#!/bin/sh
# exercises.sh BUILD_DIR: runs the check command of every classroom exercise (docs/exercises/)
# with the tools of BUILD_DIR and compares its output with the exercise's answer key
# (docs/exercises/answers/, by scripts/check-exercises). The checker runs twice at the same
# time, as two students on one server would: the check commands make their own directories
# (mktemp -d), so the runs must not collide. One PASS/FAIL line per check and run, then one for
# the pair. Run from the repository root.
set -u
build=${1:?usage: sh tests/cli/exercises.sh BUILD_DIR}
if ! command -v python3 >/dev/null 2>&1; then
  echo "FAIL exercises: python3 not found (scripts/check-exercises needs it)"
  exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 scripts/check-exercises --build "$build" >"$tmp/a" 2>&1 & pa=$!
python3 scripts/check-exercises --build "$build" >"$tmp/b" 2>&1 & pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
cat "$tmp/a"
sed -E 's/^(PASS|FAIL|SKIP|WAIT) ([^:]*)/\1 \2 (concurrent run)/' "$tmp/b"
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
  echo "PASS exercises-concurrent: two checkers at once, same results"
else
  echo "FAIL exercises-concurrent: exit statuses $ra and $rb, or the two runs differ"
fi
[ $ra -eq 0 ] && [ $rb -eq 0 ]
