#!/bin/sh
# outputs.sh BUILD_DIR: the output files of sacc and sasim under hostile conditions (issue 18
# items 4-8, 13; make test-hostile; slow, so not in make test -- the quick cases of each item are
# tests/cli/outputs.sh). Every writer (sasim run --json/--csv/--trace/--output-dir, sacc ref
# --output-dir, sasim disasm -o, sacc compile -o/--json):
#   - killed with SIGKILL at random points: its final name holds the old whole file or the new
#     whole file (never a prefix), and the next run removes the dead writer's temporaries;
#   - on a full file system (a small tmpfs; needs root and mount, else SKIP): exit 1 with the
#     reason (No space left on device), the old file intact, no temporary left;
#   - two at once on the same name: the file is whole, from one writer or the other;
#   - FIFOs: an input FIFO is refused at once; an output FIFO with a reader gets the whole output.
# Every command runs under `timeout`, so a hang fails instead of blocking. KILLS=N sets the number
# of kill points per writer (default 6).
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d)
MNT=
cleanup() { [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
pass() { echo "PASS hostile-outputs-$1"; }
fail() { echo "FAIL hostile-outputs-$1: $2"; }
skip() { echo "SKIP hostile-outputs-$1: $2"; }
TO="timeout 120"
KILLS=${KILLS:-6}
R18=workloads/nets/resnet18.json
LENET=workloads/nets/lenet5.json
EDGE=workloads/nets/edge_outputs.json

$TO $SACC compile $R18 -o "$T/r18.bin" >/dev/null 2>&1 || { fail setup "sacc compile $R18"; exit 0; }
$TO $SACC compile $LENET -o "$T/l.bin" >/dev/null 2>&1 || { fail setup "sacc compile $LENET"; exit 0; }
$TO $SACC compile $R18 --arch workloads/arch/small.json -o "$T/ls.bin" >/dev/null 2>&1 || { fail setup "small arch"; exit 0; }
$TO $SACC compile $EDGE -o "$T/e.bin" >/dev/null 2>&1 || { fail setup "sacc compile $EDGE"; exit 0; }

# The writers: NAME|TARGET (a file, or a directory for a set)|command writing TARGET (as $OUT).
# The references are written by an undisturbed run.
writers() {
  cat <<EOF
trace|t.trace|$SASIM run $T/r18.bin --trace \$OUT
json|r.json|$SASIM run $T/r18.bin --json \$OUT
csv|r.csv|$SASIM run $T/r18.bin --csv \$OUT
disasm|r18.s|$SASIM disasm $T/r18.bin -o \$OUT
compile|r18.bin|$SACC compile $R18 -o \$OUT
compile-json|c.json|$SACC compile $R18 -o $T/scratch.bin --json \$OUT
run-dir|od|$SASIM run $T/e.bin --output-dir \$OUT
ref-dir|rd|$SACC ref $EDGE --output-dir \$OUT
EOF
}
mkdir -p "$T/ref" "$T/k"
writers | while IFS='|' read -r name target cmd; do
  OUT=$T/ref/$target
  eval "$TO $cmd" >/dev/null 2>"$T/err" || fail "reference-$name" "$(head -c 300 "$T/err")"
done

# whole NAME FILE REF: FILE is absent, holds "old", or equals REF byte for byte.
whole() {
  [ -e "$2" ] || return 0
  [ "$(cat "$2" 2>/dev/null | head -c 8)" = old ] && [ "$(wc -c <"$2")" -eq 4 ] && return 0
  cmp -s "$2" "$3" && return 0
  echo "$1: $2 is neither the old file nor the whole new one ($(wc -c <"$2") bytes, want $(wc -c <"$3"))"
  return 1
}

# ---- SIGKILL at random points ----
seed=$$
writers | while IFS='|' read -r name target cmd; do
  bad= i=0
  while [ $i -lt $KILLS ]; do
    i=$((i + 1))
    OUT=$T/k/$target
    rm -rf "$OUT"
    if [ $((i % 2)) -eq 0 ]; then   # an old file (or set) in place, or nothing
      case $name in *-dir) mkdir -p "$OUT"; for f in "$T/ref/$target"/*; do echo old >"$OUT/${f##*/}"; done ;;
                    *) echo old >"$OUT" ;; esac
    fi
    delay=$(awk -v s=$((seed + i)) 'BEGIN { srand(s); printf "%.3f", rand() * 1.5 }')
    export OUT
    sh -c "exec $cmd" >/dev/null 2>&1 &   # $! is the tool itself
    pid=$!
    if [ $((i % 3)) -eq 0 ]; then   # at a random point
      sleep "$delay"
    else   # while it writes: as soon as a temporary, or new bytes at the final name, show up
      n=0
      while [ $n -lt 2000 ] && kill -0 $pid 2>/dev/null; do
        n=$((n + 1))
        case $name in
          *-dir) ls "$OUT" 2>/dev/null | grep -q '\.tmp[0-9]' && break
                 for f in "$OUT"/*.npy; do [ -f "$f" ] && [ "$(head -c 3 "$f")" != old ] && break 2; done ;;
          *) ls "$T/k" | grep -q "^$target\.tmp[0-9]" && [ -s "$(ls -d "$OUT".tmp* 2>/dev/null | head -1)" ] && break
             [ -s "$OUT" ] && [ "$(head -c 3 "$OUT")" != old ] && break ;;
        esac
        sleep 0.005
      done
    fi
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    case $name in
      *-dir) for f in "$T/ref/$target"/*; do whole "$name" "$OUT/${f##*/}" "$f" || bad=1; done ;;
      *) whole "$name" "$OUT" "$T/ref/$target" || bad=1 ;;
    esac
  done
  # Then an undisturbed run: the whole new output, and no temporary of a dead writer left.
  eval "$TO $cmd" >/dev/null 2>"$T/err" || { bad=1; echo "rerun: $(head -c 200 "$T/err")"; }
  case $name in
    *-dir) for f in "$T/ref/$target"/*; do cmp -s "$OUT/${f##*/}" "$f" || { bad=1; echo "rerun: ${f##*/} differs"; }; done
           left=$(ls "$OUT" | grep '\.tmp[0-9]' | tr '\n' ' ') ;;
    *) cmp -s "$OUT" "$T/ref/$target" || { bad=1; echo "rerun: differs"; }
       left=$(ls "$T/k" | grep "^$target\.tmp[0-9]" | tr '\n' ' ') ;;
  esac
  [ -z "$left" ] || { bad=1; echo "stale temporaries left after a run: $left"; }
  [ -z "$bad" ] && pass "kill-$name" || fail "kill-$name" "see the lines above"
done

# ---- a full file system ----
if [ "$(id -u)" -ne 0 ]; then
  skip full-disk "not root: cannot mount a small tmpfs"
elif mkdir -p "$T/full" && mount -t tmpfs -o size=2m tmpfs "$T/full" 2>"$T/err"; then
  MNT=$T/full
  writers | while IFS='|' read -r name target cmd; do
    OUT=$MNT/$target
    rm -rf "$MNT"/*
    case $name in *-dir) mkdir -p "$OUT"; for f in "$T/ref/$target"/*; do echo old >"$OUT/${f##*/}"; done ;;
                  *) echo old >"$OUT" ;; esac
    # Fill the disk, leaving a few bytes: every writer runs out of room.
    dd if=/dev/zero of="$MNT/filler" bs=1k count=4096 >/dev/null 2>&1
    rm -f "$MNT/filler.small"; head -c 2000 /dev/zero >"$MNT/filler.small" 2>/dev/null
    eval "$TO $cmd" >/dev/null 2>"$T/err"; rc=$?
    left=$(find "$MNT" -name '*.tmp[0-9]*' | tr '\n' ' ')
    intact=1
    case $name in
      *-dir) for f in "$T/ref/$target"/*; do [ "$(cat "$OUT/${f##*/}")" = old ] || intact=; done ;;
      *) [ "$(cat "$OUT")" = old ] || intact= ;;
    esac
    if [ $rc -ne 1 ]; then fail "full-$name" "exit $rc: $(head -c 200 "$T/err")"
    elif ! grep -q 'No space left on device' "$T/err"; then fail "full-$name" "no reason given: $(head -c 200 "$T/err")"
    elif [ -z "$intact" ]; then fail "full-$name" "the old output was replaced"
    elif [ -n "$left" ]; then fail "full-$name" "temporaries left: $left"
    else pass "full-$name"; fi
  done
else
  skip full-disk "cannot mount a tmpfs here: $(head -c 200 "$T/err")"
fi

# ---- two writers of one name at once ----
/usr/bin/python3 - "$T" <<'EOF'
import sys, numpy as np
for i in (1, 2): np.save(f"{sys.argv[1]}/in{i}.npy", np.full((1, 32, 32, 1), 3 * i - 2, dtype=np.int8))
EOF
$SASIM run "$T/r18.bin" --trace "$T/ref/lt.trace" >/dev/null 2>&1
$SASIM run "$T/ls.bin" --trace "$T/ref/lst.trace" >/dev/null 2>&1
$SASIM run "$T/l.bin" --input "x=$T/in1.npy" --output-dir "$T/ref/c1" >/dev/null 2>&1
$SASIM run "$T/l.bin" --input "x=$T/in2.npy" --output-dir "$T/ref/c2" >/dev/null 2>&1
if cmp -s "$T/ref/c1/fc3.npy" "$T/ref/c2/fc3.npy"; then fail concurrent-setup "the two inputs give the same output"; fi
bad=
mkdir -p "$T/c"
for i in 1 2 3 4 5; do
  $TO $SASIM run "$T/r18.bin" --trace "$T/c/cc.trace" >/dev/null 2>&1 &
  p1=$!
  # the second one a little later, so that it starts while the first one writes
  sleep "$(awk -v s=$((seed + 100 + i)) 'BEGIN { srand(s); printf "%.3f", 0.2 + rand() * 0.8 }')"
  $TO $SASIM run "$T/r18.bin" --trace "$T/c/cc.trace" >/dev/null 2>&1 &
  p2=$!
  $TO $SASIM run "$T/r18.bin" --trace "$T/c/cl.trace" >/dev/null 2>&1 &
  p3=$!
  $TO $SASIM run "$T/ls.bin" --trace "$T/c/cl.trace" >/dev/null 2>&1 &
  p4=$!
  $TO $SASIM run "$T/l.bin" --input "x=$T/in1.npy" --output-dir "$T/c/cd" >/dev/null 2>&1 &
  p5=$!
  $TO $SASIM run "$T/l.bin" --input "x=$T/in2.npy" --output-dir "$T/c/cd" >/dev/null 2>&1 &
  p6=$!
  for p in $p1 $p2 $p3 $p4 $p5 $p6; do wait $p || { bad=1; echo "round $i: a writer failed"; }; done
  cmp -s "$T/c/cc.trace" "$T/ref/t.trace" || { bad=1; echo "round $i: cc.trace is not the whole trace"; }
  cmp -s "$T/c/cl.trace" "$T/ref/lt.trace" || cmp -s "$T/c/cl.trace" "$T/ref/lst.trace" ||
    { bad=1; echo "round $i: cl.trace is neither writer's trace"; }
  cmp -s "$T/c/cd/fc3.npy" "$T/ref/c1/fc3.npy" || cmp -s "$T/c/cd/fc3.npy" "$T/ref/c2/fc3.npy" ||
    { bad=1; echo "round $i: cd/fc3.npy is neither writer's output"; }
done
left=$(find "$T/c" -name '*.tmp[0-9]*' | tr '\n' ' ')
[ -z "$left" ] || { bad=1; echo "temporaries left: $left"; }
[ -z "$bad" ] && pass concurrent || fail concurrent "see the lines above"

# ---- FIFOs ----
mkfifo "$T/fifo"
bad=
for cmd in "$SACC compile $T/fifo -o $T/x.bin" "$SACC ref $T/fifo" "$SACC check $T/fifo" "$SASIM run $T/fifo" \
           "$SASIM disasm $T/fifo" "$SASIM asm $T/fifo -o $T/x.bin" "$SASIM run $T/l.bin --arch $T/fifo" \
           "$SASIM run $T/l.bin --input x=$T/fifo" "$SACC compile $LENET --arch $T/fifo -o $T/x.bin" \
           "$SACC compile $LENET --calib $T/fifo -o $T/x.bin" "$SACC ref $LENET --input x=$T/fifo"; do
  timeout 20 $cmd </dev/null >"$T/out" 2>&1; rc=$?
  [ $rc -eq 1 ] && grep -q FIFO "$T/out" || { bad=1; echo "$cmd: exit $rc: $(head -c 200 "$T/out")"; }
done
[ -z "$bad" ] && pass fifo-inputs || fail fifo-inputs "see the lines above"
# An output FIFO with a reader gets the whole output, written in place.
for w in "trace|--trace" "json|--json"; do
  name=${w%%|*}
  timeout 60 cat "$T/fifo" >"$T/fifo.out" &
  reader=$!
  timeout 60 $SASIM run "$T/r18.bin" ${w#*|} "$T/fifo" >/dev/null 2>"$T/err"; rc=$?
  wait $reader
  ref=$T/ref/t.trace; [ "$name" = json ] && ref=$T/ref/r.json
  if [ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fifo.out" "$ref"; then pass "fifo-output-$name"
  else fail "fifo-output-$name" "exit $rc, $(wc -c <"$T/fifo.out") bytes read: $(head -c 200 "$T/err")"; fi
done
