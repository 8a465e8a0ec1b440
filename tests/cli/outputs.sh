#!/bin/sh
# outputs.sh BUILD_DIR: how the tools write and read files (issue 18 items 4-8, 13, 16). Every
# output file is written through a temporary renamed over its name (a hard link to the old file
# keeps the old bytes: the final name was never opened for writing); write errors say why
# (/dev/full); --output-dir is written as a set (one file failing renames none) and replaces a
# planted symlink instead of writing through it; an output that is one of the inputs is refused;
# a dead process's temporaries of the same output are removed; stdout write errors are errors of
# every command; FIFOs given as inputs are refused at once (no hang); names from a binary are
# escaped on output lines, and an arch name has no control character.
# The slow and destructive cases (kill -9, a full tmpfs, concurrent writers) are in
# tests/hostile/outputs.sh (make test-hostile).
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=outputs
. tests/cli/lib.sh
NET=workloads/nets/lenet5.json
EDGE=workloads/nets/edge_outputs.json
TO="timeout 20"   # a FIFO used to hang forever: a hang fails (status 124) instead of blocking

$SACC compile $NET -o "$T/l.bin" >/dev/null 2>&1 || fail setup "sacc compile $NET failed"
$SACC compile $EDGE -o "$T/e.bin" >/dev/null 2>&1 || fail setup "sacc compile $EDGE failed"
cat >"$T/small.json" <<'EOF'
{"inputs": [{"name": "x", "shape": [1, 4], "scale": 0.05}],
 "layers": [{"name": "fc", "op": "fc", "inputs": ["x"], "output": "y", "cout": 2, "scale": 0.1,
             "weights": {"seed": 1}, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOF
$SACC compile "$T/small.json" -o "$T/small.bin" >/dev/null 2>&1 && $SASIM disasm "$T/small.bin" -o "$T/small.s" 2>/dev/null

# ---- item 4: temp + rename for every writer; a hard link to the target keeps the old bytes ----
# replaced NAME TARGET CMD...: TARGET exists (hard-linked from $T/keep) before CMD; after it, TARGET
# holds CMD's output and $T/keep still holds "old".
replaced() {
  name=$1 target=$2; shift 2
  echo old >"$T/keep"; rm -f "$target"; ln "$T/keep" "$target"
  if ! "$@" >"$T/out" 2>&1; then fail "$name" "$(head -c 300 "$T/out")"
  elif [ "$(cat "$T/keep")" != old ]; then fail "$name" "the old file was written in place: $(head -c 80 "$T/keep")"
  elif [ ! -s "$target" ] || [ "$(head -c 4 "$target")" = old ]; then fail "$name" "$target not written"
  else pass "$name"; fi
}
replaced run-json "$T/r.json" $SASIM run "$T/l.bin" --json "$T/r.json"
replaced run-csv "$T/r.csv" $SASIM run "$T/l.bin" --csv "$T/r.csv"
replaced run-trace "$T/r.trace" $SASIM run "$T/l.bin" --trace "$T/r.trace"
mkdir -p "$T/od" "$T/rd"
replaced run-output-dir "$T/od/fc3.npy" $SASIM run "$T/l.bin" --output-dir "$T/od"
replaced ref-output-dir "$T/rd/fc3.npy" $SACC ref $NET --output-dir "$T/rd"
replaced disasm-o "$T/l.s" $SASIM disasm "$T/l.bin" -o "$T/l.s"
replaced compile-json "$T/c.json" $SACC compile $NET -o "$T/l2.bin" --json "$T/c.json"
replaced compile-o "$T/l3.bin" $SACC compile $NET -o "$T/l3.bin"

rm -f "$T/l.s"; $SASIM disasm "$T/l.bin" -o "$T/l.s" 2>/dev/null   # (no longer linked to $T/keep)

# A write error names its reason (it used to be "write failed", or "out of memory" for a report).
for w in "run-json:--json" "run-csv:--csv" "run-trace:--trace"; do
  expect "${w%%:*}-reason" 1 'No space left on device' -- $SASIM run "$T/l.bin" "${w#*:}" /dev/full
done
expect compile-json-reason 1 'No space left on device' -- $SACC compile $NET -o "$T/l2.bin" --json /dev/full
expect disasm-reason 1 'No space left on device' -- $SASIM disasm "$T/l.bin" -o /dev/full

# --output-dir as a set: when one file cannot be written, no file of the set is replaced.
mkdir -p "$T/set"
$SASIM run "$T/e.bin" --output-dir "$T/set" >/dev/null 2>&1
cp "$T/set/conv.npy" "$T/conv.before"; echo old >"$T/set/conv.npy"
rm -f "$T/set/fc.npy"; mkdir "$T/set/fc.npy"   # the last output cannot be written
$SASIM run "$T/e.bin" --output-dir "$T/set" >"$T/out" 2>&1; rc=$?
if [ $rc -eq 0 ]; then fail run-output-dir-set "exit 0 with fc.npy a directory"
elif [ "$(cat "$T/set/conv.npy")" != old ]; then fail run-output-dir-set "conv.npy replaced though the set failed"
elif ls "$T/set" | grep -q '\.tmp'; then fail run-output-dir-set "temporaries left: $(ls "$T/set" | tr '\n' ' ')"
else pass run-output-dir-set; fi
mkdir -p "$T/rset"; echo old >"$T/rset/conv.npy"; mkdir -p "$T/rset/fc.npy"
$SACC ref $EDGE --output-dir "$T/rset" >"$T/out" 2>&1; rc=$?
if [ $rc -eq 0 ]; then fail ref-output-dir-set "exit 0 with fc.npy a directory"
elif [ "$(cat "$T/rset/conv.npy")" != old ]; then fail ref-output-dir-set "conv.npy replaced though the set failed"
else pass ref-output-dir-set; fi

# ---- item 5: a write error on stdout is an error, for every command ----
full() {  # full NAME CMD...: stdout to /dev/full must fail with a message naming stdout
  name=$1; shift
  "$@" >/dev/full 2>"$T/err"; rc=$?
  if [ $rc -ne 0 ] && grep -q 'No space left on device' "$T/err"; then pass "$name"
  else fail "$name" "exit $rc: $(head -c 200 "$T/err")"; fi
}
full stdout-disasm $SASIM disasm "$T/l.bin"
full stdout-run $SASIM run "$T/l.bin"
full stdout-run-stats $SASIM run "$T/l.bin" --stats
full stdout-pe-trace $SASIM run "$T/l.bin" --mode detailed --pe-trace
full stdout-asm $SASIM asm "$T/l.s" -o -
full stdout-ref $SACC ref $NET
full stdout-check $SACC check $NET --dump-ir
full stdout-compile $SACC compile $NET -o "$T/l2.bin" --stats
full stdout-compile-bin $SACC compile $NET -o -
full stdout-help $SASIM --help

# ---- item 6: --output-dir replaces a planted symlink, never writes through it ----
for tool in run ref; do
  mkdir -p "$T/sym$tool"; echo victim >"$T/victim"
  ln -sf "$T/victim" "$T/sym$tool/fc3.npy"
  if [ $tool = run ]; then $SASIM run "$T/l.bin" --output-dir "$T/sym$tool" >"$T/out" 2>&1
  else $SACC ref $NET --output-dir "$T/sym$tool" >"$T/out" 2>&1; fi
  rc=$?
  if [ $rc -ne 0 ]; then fail symlink-$tool "$(head -c 300 "$T/out")"
  elif [ "$(cat "$T/victim")" != victim ]; then fail symlink-$tool "wrote through the symlink into its target"
  elif [ -L "$T/sym$tool/fc3.npy" ] || [ ! -s "$T/sym$tool/fc3.npy" ]; then fail symlink-$tool "fc3.npy not replaced"
  else pass symlink-$tool; fi
done

# ---- item 7: an output that is one of the inputs is refused, the input untouched ----
cp $NET "$T/n.json"; cp "$T/l.bin" "$T/p.bin"; ln "$T/p.bin" "$T/p2.bin"; cp "$T/l.s" "$T/p.s"
same() {  # same NAME FILE CMD...: refused, FILE unchanged
  name=$1 file=$2; shift 2
  cp "$file" "$T/before"
  "$@" >"$T/out" 2>&1; rc=$?
  if [ $rc -eq 0 ]; then fail "$name" "exit 0"
  elif ! grep -q "one of this command's inputs" "$T/out"; then fail "$name" "$(head -c 300 "$T/out")"
  elif ! cmp -s "$file" "$T/before"; then fail "$name" "the input was replaced"
  else pass "$name"; fi
}
same input-compile-o "$T/n.json" $SACC compile "$T/n.json" -o "$T/n.json"
same input-compile-json "$T/n.json" $SACC compile "$T/n.json" -o "$T/x.bin" --json "$T/n.json"
same input-run-json "$T/p.bin" $SASIM run "$T/p.bin" --json "$T/p.bin"
same input-run-trace-hardlink "$T/p.bin" $SASIM run "$T/p.bin" --trace "$T/p2.bin"
same input-run-stdin "$T/p.bin" sh -c "$SASIM run - --csv '$T/p.bin' <'$T/p.bin'"
same input-disasm "$T/p.bin" $SASIM disasm "$T/p.bin" -o "$T/p.bin"
same input-asm "$T/p.s" $SASIM asm "$T/p.s" -o "$T/p.s"
sed 's/"op": "fc"/"op": "relu"/; s/"cout": 2, //; s/"weights": {"seed": 1}, "weight_scale": 0.01//; s/"scale": 0.1,/"scale": 0.1/' \
  "$T/small.json" >"$T/relu.json"
$SACC compile "$T/relu.json" -o "$T/relu.bin" >"$T/out" 2>&1 || fail setup "relu net: $(head -c 300 "$T/out")"
mkdir -p "$T/io"; $SASIM run "$T/relu.bin" --output-dir "$T/io" >/dev/null 2>&1
same input-output-dir "$T/io/y.npy" $SASIM run "$T/relu.bin" --input x="$T/io/y.npy" --output-dir "$T/io"

# ---- item 8: temporaries of dead processes (kill -9) are removed by the next run ----
dead=$(sh -c 'echo $$')   # a PID that has exited
sleep 60 & live=$!
mkdir -p "$T/st"
touch "$T/st/r.json.tmp$dead.0" "$T/st/r.json.tmp$dead.7" "$T/st/r.json.tmp$live.0" "$T/st/x.json.tmp$dead.0"
$SASIM run "$T/l.bin" --json "$T/st/r.json" >"$T/out" 2>&1
left=$(ls "$T/st" | tr '\n' ' ')
kill $live 2>/dev/null
case $left in
  *"r.json.tmp$dead."*) fail stale-temps "a dead process's temporary is left: $left" ;;
  *"r.json.tmp$live.0"*"x.json.tmp$dead.0"*|*"x.json.tmp$dead.0"*"r.json.tmp$live.0"*) pass stale-temps ;;
  *) fail stale-temps "a live process's temporary, or another output's, was removed: $left" ;;
esac
mkdir -p "$T/sd"; touch "$T/sd/fc3.npy.tmp$dead.0"
$SASIM run "$T/l.bin" --output-dir "$T/sd" >/dev/null 2>&1
[ -e "$T/sd/fc3.npy.tmp$dead.0" ] && fail stale-temps-output-dir "left: $(ls "$T/sd" | tr '\n' ' ')" || pass stale-temps-output-dir

# ---- item 13: a FIFO as an input is refused at once ----
mkfifo "$T/fifo"
fifo() {  # fifo NAME CMD...: refused (not a hang) with a message naming the FIFO
  name=$1; shift
  $TO "$@" >"$T/out" 2>&1 </dev/null; rc=$?
  if [ $rc -eq 1 ] && grep -q 'FIFO' "$T/out"; then pass "$name"; else fail "$name" "exit $rc: $(head -c 300 "$T/out")"; fi
}
fifo fifo-net $SACC compile "$T/fifo" -o "$T/x.bin"
fifo fifo-ref $SACC ref "$T/fifo"
fifo fifo-prog $SASIM run "$T/fifo"
fifo fifo-disasm $SASIM disasm "$T/fifo"
fifo fifo-asm $SASIM asm "$T/fifo" -o "$T/x.bin"
fifo fifo-arch $SACC compile $NET --arch "$T/fifo" -o "$T/x.bin"
fifo fifo-run-arch $SASIM run "$T/l.bin" --arch "$T/fifo"
fifo fifo-input $SASIM run "$T/l.bin" --input "x=$T/fifo"
fifo fifo-energy $SASIM run "$T/l.bin" --energy "$T/fifo"
fifo fifo-calib $SACC compile $NET --calib "$T/fifo" -o "$T/x.bin"
cat >"$T/wf.json" <<EOF
{"inputs": [{"name": "x", "shape": [1, 4], "scale": 0.05}],
 "layers": [{"name": "fc", "op": "fc", "inputs": ["x"], "output": "y", "cout": 2, "scale": 0.1,
             "weights": {"file": "$T/fifo"}, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOF
fifo fifo-weights $SACC compile "$T/wf.json" -o "$T/x.bin"
$SASIM disasm "$T/l.bin" -o "$T/l.s" 2>/dev/null
sed "s|^\.arch .*|.arch \"$T/fifo\"|" "$T/l.s" >"$T/fa.s"
fifo fifo-asm-arch $SASIM asm "$T/fa.s" -o "$T/x.bin"
sed "s|^\.tensor x dtype=int8 shape=\[1,4\] addr=0x100 role=input scale=0.05|& data=\"$T/fifo\"|" "$T/small.s" >"$T/fd.s"
fifo fifo-asm-data $SASIM asm "$T/fd.s" -o "$T/x.bin"
# stdin stays usable: a pipe given as -
$TO sh -c "cat '$T/l.bin' | $SASIM run -" >"$T/out" 2>&1 && pass fifo-stdin-pipe || fail fifo-stdin-pipe "$(head -c 300 "$T/out")"

# ---- item 16: names from a binary are escaped on output lines; arch names have no control character ----
sed 's/^\.tensor y /.tensor "y\\x1b[2K\\x0doutput z: int8 [4] crc32 00000000\\nq\\x07\\\\" /' "$T/small.s" >"$T/esc.s"
if ! $SASIM asm "$T/esc.s" -o "$T/esc.bin" >"$T/out" 2>&1; then fail escape-output-name "asm: $(head -c 300 "$T/out")"
else
  $SASIM run "$T/esc.bin" >"$T/out" 2>&1
  if [ "$(grep -c '^output' "$T/out")" -ne 1 ]; then fail escape-output-name "a forged output line: $(cat -A "$T/out" | head -c 300)"
  elif LC_ALL=C grep -q "$(printf '[\001-\037\177]')" "$T/out"; then fail escape-output-name "control bytes printed: $(cat -A "$T/out")"
  elif ! grep -qF 'output y\x1b[2K\x0doutput z: int8 [4] crc32 00000000\x0aq\x07\x5c: int8 [1,2] crc32' "$T/out"; then
    fail escape-output-name "not escaped as \\xNN: $(cat -A "$T/out" | head -c 300)"
  else pass escape-output-name; fi
fi
sed 's/"name":"default"/"name":"de\\u001b[2Kf\\nx"/' "$T/small.s" >"$T/escarch.s"
expect escape-arch-asm 1 'name: (error: )?control character U\+001B' -- $SASIM asm "$T/escarch.s" -o "$T/x.bin"
printf '{"name": "a\\rb"}' >"$T/escarch.json"
printf '{"name": "a\\u009bb"}' >"$T/escarch1.json"
expect escape-arch-c1 1 'name: error: control character U\+009B' -- $SACC compile $NET --arch "$T/escarch1.json" -o "$T/x.bin"
expect escape-arch-json 1 'name: error: control character U\+000D' -- $SACC compile $NET --arch "$T/escarch.json" -o "$T/x.bin"
# A bad name in net.json is echoed escaped in the error (it used to print the ESC and newline).
cat >"$T/escnet.json" <<'JSON'
{"inputs": [{"name": "x", "shape": [1, 4], "scale": 0.05}],
 "layers": [{"name": "fc", "op": "fc", "inputs": ["x"], "output": "y\u001b[2K\routput z\nq", "cout": 2, "scale": 0.1,
             "weights": {"seed": 1}, "weight_scale": 0.01}],
 "outputs": ["y\u001b[2K\routput z\nq"]}
JSON
$SACC check "$T/escnet.json" >"$T/out" 2>&1; rc=$?
if [ $rc -ne 1 ]; then fail escape-net-name "exit $rc"
elif LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$T/out" || [ "$(wc -l <"$T/out")" -ne 1 ]; then
  fail escape-net-name "control bytes in the message: $(cat -A "$T/out" | head -c 300)"
elif ! grep -qF 'bad name "y\x1b[2K\x0doutput z\x0aq"' "$T/out"; then fail escape-net-name "$(cat -A "$T/out" | head -c 300)"
else pass escape-net-name; fi
sed 's/"weight_scale": 0.01}/"weight_scale": 0.01, "bad\\u0007key": 1}/' "$T/small.json" >"$T/esckey.json"
expect escape-net-key 1 'unknown key "bad\\x07key"' -- $SACC check "$T/esckey.json"
