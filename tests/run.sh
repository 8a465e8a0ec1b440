#!/bin/sh
# run.sh BUILD_DIR...: runs every test binary, CLI script and fuzz-corpus replay for each build
# directory, and prints one summary line "N passed, N failed" (last line of `make test`).
# Each test prints "PASS <name>" or "FAIL <name>: <why>" lines; a binary that crashes or exits
# non-zero without printing FAIL counts as one failure. "SKIP <name>: <why>" lines (a test that
# cannot run here, e.g. tests/cli/onnx.sh without python3-onnx) are shown and count nothing.
#
# The entries (one test binary, one replay, one script) of all build directories form one list,
# run by SA_TEST_JOBS workers at once (default: the host's processors online; 1 runs them one
# after another). Each entry's output goes to a file of its own, and the results are printed in
# the list's order whatever the order they finish in: FAIL and SKIP lines on stdout, then on
# stderr one line per entry with its counts and its wall seconds; at the end, on stderr, the ten
# slowest entries, then the summary line on stdout. The workers take the entries known to be long
# (HEAVY, below) first, so that none of them starts last and leaves one core idle at the end.
set -u
pass=0; fail=0
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
jobs=${SA_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $jobs in ''|*[!0-9]*|0) echo "run.sh: SA_TEST_JOBS must be a positive number, got '$jobs'" >&2; exit 2 ;; esac

# The list: entry i has $W/$i.label (what the lines call it) and $W/$i.cmd (the command, one
# argument a line).
n=0
add() {  # add LABEL CMD...
  n=$((n + 1)); printf '%s\n' "$1" >"$W/$n.label"; shift
  : >"$W/$n.cmd"; for a in "$@"; do printf '%s\n' "$a" >>"$W/$n.cmd"; done
}
for b in "$@"; do
  for t in $(find "$b/tests" -type f -name '*_test' 2>/dev/null | sort); do
    add "$b:${t#$b/tests/}" "$t"
  done
  for r in $(find "$b/tests/fuzz" -type f -name 'replay_fuzz_*' 2>/dev/null | sort); do
    name=${r##*/replay_}
    add "$b:fuzz-replay/$name" "$r" "tests/fuzz/corpus/${name#fuzz_}"
  done
  for s in $(ls tests/cli/*.sh 2>/dev/null | grep -v '/lib.sh$' | sort); do
    add "$b:${s#tests/}" sh "$s" "$b"
  done
  # The RTL model's tests run where it was built (make rtl: the plain build, never build-asan).
  if [ -x "$b/bin/sasim-rtl" ]; then
    for s in $(ls tests/rtl/*.sh 2>/dev/null | sort); do
      add "$b:${s#tests/}" sh "$s" "$b"
    done
  fi
done

# The order the workers take the entries in: the long ones first (measured with this script's
# timing lines; docs/TESTING.md "Wall time"), longest first, then the others in list order.
HEAVY="tests/rtl/rtl.sh tests/rtl/assert.sh tests/cli/fuse.sh tests/rtl/sfu.sh tests/rtl/nets.sh
tests/cli/costmodel.sh tests/rtl/sfu_math.sh tests/rtl/lint.sh tests/rtl/area.sh tests/cli/dataflows.sh
tests/cli/threads.sh tests/cli/docfigures.sh tests/cli/compile.sh tests/sim/engines_test"
: >"$W/order"
for h in $HEAVY; do
  for b in "$@"; do
    i=1; while [ $i -le $n ]; do
      case $(cat "$W/$i.label") in "$b:${h#tests/}") echo $i >>"$W/order" ;; esac
      i=$((i + 1))
    done
  done
done
i=1; while [ $i -le $n ]; do grep -qx "$i" "$W/order" || echo $i >>"$W/order"; i=$((i + 1)); done

now() { t=$(date +%s.%N 2>/dev/null); case $t in *N*|'') date +%s ;; *) echo "$t" ;; esac; }

# SA_TEST_READY=FILE (make test): the entries of the first build directory wait until FILE
# exists (the Makefile builds the RTL models meanwhile, then writes the build's exit status there);
# the workers run the other build directories' entries in the meantime.
ready=${SA_TEST_READY:-}
first=${1:-}
waits() {  # waits I: entry I cannot start yet
  [ -n "$ready" ] && [ ! -e "$ready" ] && case $(cat "$W/$1.label") in "$first:"*) true ;; *) false ;; esac
}

# A worker takes the next entry nobody has taken (mkdir is atomic), runs it, and leaves its
# status and wall seconds in $W/$i.rc and $W/$i.time, then $W/$i.done. Entries that must wait
# are passed over and taken on a later round.
worker() {
  while :; do
    i=
    for j in $(cat "$W/order"); do
      [ -e "$W/$j.taken" ] && continue
      waits "$j" && continue
      mkdir "$W/$j.taken" 2>/dev/null && { i=$j; break; }
    done
    if [ -z "$i" ]; then
      left=0; for j in $(cat "$W/order"); do [ -e "$W/$j.taken" ] || left=1; done
      [ $left = 0 ] && return
      sleep 1; continue
    fi
    t0=$(now)
    set --; while IFS= read -r a; do set -- "$@" "$a"; done <"$W/$i.cmd"
    "$@" >"$W/$i.log" 2>&1 </dev/null
    echo $? >"$W/$i.rc"
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$W/$i.time"
    : >"$W/$i.done"
  done
}
k=0 workers=
while [ $k -lt "$jobs" ]; do worker & workers="$workers $!" k=$((k + 1)); done
# Interrupted or killed: the workers stop taking entries, and $W goes (the EXIT trap).
trap 'kill $workers 2>/dev/null; exit 1' INT TERM

# The results in list order, each as soon as it and all before it are done. Before the first
# build directory's first entry: the model build's progress lines (FILE.log), and a FAIL if it
# failed.
i=1 shown=0
while [ $i -le $n ]; do
  while [ ! -e "$W/$i.done" ]; do sleep 1; done
  label=$(cat "$W/$i.label") log=$W/$i.log rc=$(cat "$W/$i.rc") secs=$(cat "$W/$i.time")
  if [ -n "$ready" ] && [ $shown = 0 ]; then
    shown=1
    grep '^rtl: ' "$ready.log" >&2 2>/dev/null
    st=$(cat "$ready" 2>/dev/null)
    if [ "$st" != 0 ]; then
      fail=$((fail + 1)); echo "  [$first:make rtl] FAIL: exited with status $st"; tail -n 20 "$ready.log" 2>/dev/null | sed 's/^/    /'
    fi
  fi
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  grep '^FAIL ' "$log" | sed "s|^|  [$label] |"
  grep '^SKIP ' "$log" | sed "s|^|  [$label] |"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "  [$label] FAIL: exited with status $rc"; tail -n 20 "$log" | sed 's/^/    /'
  fi
  pass=$((pass + p)); fail=$((fail + f))
  printf '%-48s %5d passed %3d failed %7.1f s\n' "$label" "$p" "$f" "$secs" >&2
  printf '%s %s\n' "$secs" "$label" >>"$W/times"
  i=$((i + 1))
done
wait
if [ $n -gt 0 ]; then
  echo "slowest entries (wall seconds, $jobs at once):" >&2
  sort -rn "$W/times" | head -n 10 | awk '{ printf "  %7.1f s  %s\n", $1, $2 }' >&2
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
