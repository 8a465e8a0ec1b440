#!/bin/sh
# stdio.sh BUILD_DIR: "-" for stdin and stdout. `sacc compile - -o -` (network in, binary out)
# gives the bytes of `sacc compile NET -o FILE`; a piped network's .npy paths are relative to the
# current directory; `sasim run -` reads the program from a pipe; `sasim asm - -o -` and
# `sasim disasm -` round-trip; a binary is never written to a terminal nor read from one (`script`
# gives the tools a terminal); usage errors where stdout or stdin would be used twice.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=stdio
. tests/cli/lib.sh
NET=workloads/nets/lenet5.json
SACC_ABS=$(cd "$B/bin" && pwd)/sacc

$SACC compile $NET -o "$T/file.bin" >/dev/null 2>&1 || fail setup "sacc compile $NET failed"
$SACC compile - -o - <$NET >"$T/pipe.bin" 2>"$T/err"
if [ $? -eq 0 ] && cmp -s "$T/file.bin" "$T/pipe.bin"; then pass compile-stdin-stdout
else fail compile-stdin-stdout "$(head -c 300 "$T/err")"; fi
$SACC compile $NET --emit asm -o - >"$T/pipe.s" 2>"$T/err" && $SACC compile $NET --emit asm -o "$T/file.s" 2>>"$T/err"
cmp -s "$T/pipe.s" "$T/file.s" && pass compile-asm-stdout || fail compile-asm-stdout "$(head -c 300 "$T/err")"

# A piped network with weights in a .npy file: the path is relative to the current directory.
mkdir -p "$T/w"
cat >"$T/w/net.json" <<'EOF'
{"inputs": [{"name": "x", "shape": [1, 4], "scale": 0.05}],
 "layers": [{"name": "fc", "op": "fc", "inputs": ["x"], "output": "y", "cout": 2, "scale": 0.1,
             "weights": {"file": "w.npy"}, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOF
cat >"$T/npy.py" <<'EOF'
import struct, sys   # a (4, 2) int8 .npy, standard library only
h = "{'descr': '|i1', 'fortran_order': False, 'shape': (4, 2), }"
h += " " * (63 - (10 + len(h)) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + bytes(range(8)))
EOF
/usr/bin/python3 "$T/npy.py" "$T/w/w.npy"
if $SACC compile "$T/w/net.json" -o "$T/w/file.bin" >"$T/err" 2>&1; then
  (cd "$T/w" && "$SACC_ABS" compile - -o - <net.json >pipe.bin 2>err) && cmp -s "$T/w/file.bin" "$T/w/pipe.bin" &&
    pass npy-relative-cwd || fail npy-relative-cwd "$(head -c 300 "$T/w/err")"
  (cd "$T" && "$SACC_ABS" compile - -o - <w/net.json >pipe.bin 2>err)
  [ $? -eq 1 ] && grep -q 'w.npy' "$T/err" && pass npy-relative-missing || fail npy-relative-missing "$(head -c 300 "$T/err")"
else
  fail npy-net "the .npy test network does not compile: $(head -c 300 "$T/err")"
fi

expect run-stdin 0 '^output fc3: int8 \[1,10\] crc32' -- sh -c "$SASIM run - <'$T/file.bin'"
direct=$($SASIM run "$T/file.bin" 2>/dev/null)
piped=$($SACC compile $NET -o - 2>/dev/null | $SASIM run - 2>/dev/null)
[ -n "$direct" ] && [ "$direct" = "$piped" ] && pass run-pipe || fail run-pipe "direct: $direct piped: $piped"
expect run-stdin-json 0 '"program": "-"' -- sh -c "$SASIM run - --json - <'$T/file.bin'"
# A report on stdout (-) has it to itself, so a pipe parses it; the text lines go to stderr.
cat >"$T/parse.py" <<'EOF'
import csv, json, sys   # parse.py json|csv: stdin must be exactly one JSON document / one CSV table
if sys.argv[1] == "json":
    json.load(sys.stdin)
else:
    rows = list(csv.reader(sys.stdin))
    bad = [r for r in rows if len(r) != len(rows[0])]
    if len(rows) < 2 or bad: sys.exit("not one table: %r" % (bad or rows)[:2])
EOF
for rep in json:json csv:csv trace:json; do
  opt=${rep%%:*} kind=${rep#*:}
  $SASIM run "$T/file.bin" --$opt - 2>"$T/err.$opt" | /usr/bin/python3 "$T/parse.py" $kind 2>"$T/perr.$opt"
  [ $? -eq 0 ] && grep -q '^output fc3: int8 \[1,10\] crc32' "$T/err.$opt" && grep -q 'cycles$' "$T/err.$opt" &&
    pass run-$opt-stdout-parses || fail run-$opt-stdout-parses "$(head -c 300 "$T/perr.$opt") / $(head -c 300 "$T/err.$opt")"
done
$SASIM run "$T/file.bin" --stats --json - 2>"$T/err" | /usr/bin/python3 "$T/parse.py" json 2>"$T/perr"
[ $? -eq 0 ] && grep -q '^output fc3' "$T/err" && pass run-stats-json-stdout || fail run-stats-json-stdout "$(head -c 300 "$T/perr")"
$SASIM disasm - <"$T/file.bin" >"$T/dis.s" 2>"$T/err" && $SASIM asm - -o - --compress <"$T/dis.s" >"$T/re.bin" 2>>"$T/err"
cmp -s "$T/re.bin" "$T/file.bin" && pass asm-disasm-stdio || fail asm-disasm-stdio "$(head -c 300 "$T/err")"
: >"$T/empty"
# "-" is stdin even where a file named "-" exists.
mkdir -p "$T/dash" && echo junk >"$T/dash/-"
SASIM_ABS=$(cd "$(dirname "$SASIM")" && pwd)/sasim
expect run-stdin-not-file-dash 0 '^output fc3: int8 \[1,10\] crc32' -- sh -c "cd '$T/dash' && '$SASIM_ABS' run - <'$T/file.bin'"
expect run-stdin-empty 1 '^-: \+0x0: error: truncated' -- sh -c "$SASIM run - <'$T/empty'"
expect run-stdin-garbage 1 '^-: .*error' -- sh -c "echo hello | $SASIM run -"

# Usage errors.
expect compile-stdin-needs-o 2 'stdin \(-\) needs -o' -- sh -c "$SACC compile - <$NET"
expect compile-stdout-stats 2 'would mix into it' -- $SACC compile $NET -o - --stats
expect compile-stdout-json 2 'would mix into it' -- $SACC compile $NET -o - --json -
expect compile-stdout-dump 2 'would mix into it' -- $SACC compile $NET -o - --dump-ir tiling
expect run-stdin-twice 2 'stdin \(-\) can feed only one' -- $SASIM run - --input x=-
expect run-stdin-rtl 2 'reads the program twice' -- $SASIM run - --engine rtl
expect run-two-reports-stdout 2 'stdout \(-\) can take only one of --json, --csv, --trace and --timeline' -- $SASIM run "$T/file.bin" --json - --trace -
expect run-json-csv-stdout 2 'stdout \(-\) can take only one' -- $SASIM run "$T/file.bin" --csv - --json -
# -o into a device or a FIFO writes into it: the temporary-file-and-rename of a regular file
# would replace it (as root, /dev/null itself).
mkfifo "$T/fifo" 2>/dev/null && {
  cat "$T/fifo" >"$T/from-fifo" &
  reader=$!
  $SACC compile $NET -o "$T/fifo" >"$T/err" 2>&1; rc=$?
  if [ -p "$T/fifo" ]; then wait $reader; else kill $reader 2>/dev/null; fi   # replaced: cat waits forever
  [ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/from-fifo" "$T/file.bin" && pass compile-to-fifo ||
    fail compile-to-fifo "exit $rc: $(head -c 300 "$T/err")"
  cat "$T/fifo" >"$T/from-fifo.s" &
  reader=$!
  $SACC compile $NET --emit asm -o "$T/fifo" >"$T/err" 2>&1; rc=$?
  if [ -p "$T/fifo" ]; then wait $reader; else kill $reader 2>/dev/null; fi
  [ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/from-fifo.s" "$T/file.s" && pass asm-to-fifo ||
    fail asm-to-fifo "exit $rc: $(head -c 300 "$T/err")"
}

# A terminal on stdout (binary) or stdin: refused. `script` (util-linux) runs the command on a pty.
if command -v script >/dev/null 2>&1; then
  script -qec "$SACC compile $NET -o -" /dev/null >"$T/tty.out" 2>&1 </dev/null
  rc=$?
  [ $rc -eq 1 ] && grep -q 'refusing to write a binary to a terminal' "$T/tty.out" && pass compile-tty-refused ||
    fail compile-tty-refused "exit $rc: $(head -c 300 "$T/tty.out")"
  script -qec "$SASIM asm workloads/asm/gemm_small.s -o -" /dev/null >"$T/tty.out" 2>&1 </dev/null
  rc=$?
  [ $rc -eq 1 ] && grep -q 'refusing to write a binary to a terminal' "$T/tty.out" && pass asm-tty-refused ||
    fail asm-tty-refused "exit $rc: $(head -c 300 "$T/tty.out")"
  script -qec "$SACC compile $NET --emit asm -o -" /dev/null >"$T/tty.out" 2>&1 </dev/null
  rc=$?
  [ $rc -eq 0 ] && grep -q '^\.arch' "$T/tty.out" && pass asm-text-tty-allowed ||
    fail asm-text-tty-allowed "exit $rc: $(head -c 300 "$T/tty.out")"
  script -qec "$SASIM run -" /dev/null >"$T/tty.out" 2>&1 </dev/null
  rc=$?
  [ $rc -eq 1 ] && grep -q 'refusing to read stdin from a terminal' "$T/tty.out" && pass run-tty-stdin-refused ||
    fail run-tty-stdin-refused "exit $rc: $(head -c 300 "$T/tty.out")"
else
  echo "stdio.sh: no script(1): terminal checks skipped" >&2
fi
