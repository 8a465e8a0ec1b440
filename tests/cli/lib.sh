# lib.sh: shared by the CLI test scripts (sourced, not run: tests/run.sh runs only *.sh files
# other than this one). Needs $T (a scratch directory) and a prefix in $CLI_PREFIX.
pass() { echo "PASS $CLI_PREFIX-$1"; }
fail() { echo "FAIL $CLI_PREFIX-$1: $2"; }
# expect NAME STATUS PATTERN -- CMD...: exit status and an output line matching PATTERN
expect() {
  name=$1 want=$2 pat=$3; shift 4
  "$@" >"$T/out" 2>&1; rc=$?
  if [ $rc -ne "$want" ]; then fail "$name" "exit $rc, want $want: $(head -c 300 "$T/out")"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out"; then fail "$name" "no line matching /$pat/ in: $(head -c 300 "$T/out")"; return; fi
  pass "$name"
}
