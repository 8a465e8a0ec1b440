#!/bin/sh
# run.sh BUILD_DIR...: runs every test binary, CLI script and fuzz-corpus replay for each build
# directory, and prints one summary line "N passed, N failed" (last line of `make test`).
# Each test prints "PASS <name>" or "FAIL <name>: <why>" lines; a binary that crashes or exits
# non-zero without printing FAIL counts as one failure. "SKIP <name>: <why>" lines (a test that
# cannot run here, e.g. tests/cli/onnx.sh without python3-onnx) are shown and count nothing.
set -u
pass=0; fail=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
count() {  # $1 label, then the command
  label=$1; shift
  "$@" >"$log" 2>&1; rc=$?
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  grep '^FAIL ' "$log" | sed "s|^|  [$label] |"
  grep '^SKIP ' "$log" | sed "s|^|  [$label] |"
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "  [$label] FAIL: exited with status $rc"; tail -n 20 "$log" | sed 's/^/    /'
  fi
  pass=$((pass + p)); fail=$((fail + f))
  printf '%-48s %5d passed %3d failed\n' "$label" "$p" "$f" >&2
}
for b in "$@"; do
  for t in $(find "$b/tests" -type f -name '*_test' 2>/dev/null | sort); do
    count "$b:${t#$b/tests/}" "$t"
  done
  for r in $(find "$b/tests/fuzz" -type f -name 'replay_fuzz_*' 2>/dev/null | sort); do
    name=${r##*/replay_}
    count "$b:fuzz-replay/$name" "$r" "tests/fuzz/corpus/${name#fuzz_}"
  done
  for s in $(ls tests/cli/*.sh 2>/dev/null | grep -v '/lib.sh$' | sort); do
    count "$b:${s#tests/}" sh "$s" "$b"
  done
  # The RTL model's tests run where it was built (make rtl: the plain build, never build-asan).
  if [ -x "$b/bin/sasim-rtl" ]; then
    for s in $(ls tests/rtl/*.sh 2>/dev/null | sort); do
      count "$b:${s#tests/}" sh "$s" "$b"
    done
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
