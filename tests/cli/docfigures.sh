#!/bin/sh
# docfigures.sh BUILD_DIR: the figures README.md and docs/*.md quote, recomputed from the tools
# (tests/cli/docfigures.py: every number marked <!-- fig: NET [SACC_OPTION...] KEY --> is
# compiled and simulated again and compared; one PASS/FAIL line per figure). First the checker
# itself: a planted wrong figure must fail with the file, line, both values and the way to
# update; --update must rewrite it so that it passes; a marker after no number is refused.
# A sanitizer build checks only the small runs' figures (the others take minutes there).
set -u
B=${1:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=docfigures
. tests/cli/lib.sh

# The true figure, from the tools themselves (so the self-test does not pin a cycle count).
$B/bin/sacc compile workloads/nets/lenet5.json --arch tiny -o "$T/l.bin" >/dev/null 2>&1
true_cycles=$($B/bin/sasim run "$T/l.bin" 2>/dev/null | sed -n 's/^\([0-9]*\) cycles$/\1/p' |
  python3 -c 'import sys; print(format(int(sys.stdin.read()), ","))')
printf 'LeNet-5 on tiny runs in 1,234<!-- fig: lenet5 --arch tiny cycles --> cycles.\n' >"$T/planted.md"
python3 tests/cli/docfigures.py --build "$B" "$T/planted.md" >"$T/out" 2>&1; rc=$?
line=$(grep '^FAIL ' "$T/out")
case $rc:$line in
  1:*"planted.md line 1 says 1,234, the tools give $true_cycles ("*"sacc compile workloads/nets/lenet5.json --arch tiny"*"--update"*)
    pass selftest-planted ;;
  *) fail selftest-planted "exit $rc: $(head -c 400 "$T/out")" ;;
esac
python3 tests/cli/docfigures.py --build "$B" --update "$T/planted.md" >/dev/null 2>&1
if python3 tests/cli/docfigures.py --build "$B" "$T/planted.md" >"$T/out2" 2>&1 && grep -q "$true_cycles<!-- fig:" "$T/planted.md"; then
  pass selftest-update
else fail selftest-update "$(cat "$T/planted.md") $(head -c 300 "$T/out2")"; fi
printf 'no number here <!-- fig: lenet5 cycles -->\n' >"$T/bad.md"
python3 tests/cli/docfigures.py --build "$B" "$T/bad.md" >"$T/out3" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "bad.md:1: .*follows no number" "$T/out3" && pass selftest-markup ||
  fail selftest-markup "exit $rc: $(head -c 300 "$T/out3")"

case $B in
  *asan*) python3 tests/cli/docfigures.py --build "$B" --small ;;
  *) python3 tests/cli/docfigures.py --build "$B" ;;
esac
