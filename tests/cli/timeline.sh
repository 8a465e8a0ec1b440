#!/bin/sh
# timeline.sh BUILD_DIR: `sasim run --timeline` (docs/STATS.md "Timeline") and the trace's slices.
# Exercise 1's program, timed by hand in its answer key (docs/exercises/01-wavefront.md, from
# docs/TIMING.md's rules), gives exactly the rows below in both engines, and so does a program
# of the array's structural waits timed by hand from §6 (bank, IS alignment, mode switches, OS
# drain, a full queue); every shipped asm
# program and a few compiled networks give byte-identical CSV in fast and detailed mode, and
# each row's cause agrees with the cycles it names (a token's push ends the cycle before the
# start, an in-order predecessor is ready at it); the trace's slices carry the layer, the
# operands and the cause, and it states its time unit.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=timeline
. tests/cli/lib.sh

$SASIM asm docs/exercises/files/01-wavefront.s -o "$T/w.bin" >/dev/null 2>&1 || fail setup "sasim asm 01-wavefront.s"
cat >"$T/want" <<'EOF'
insn unit    op         layer fetch avail start ready   end  dram  waited for
   0 load    CFG_LOAD   -         0     1     1     2     1     0  -
   1 load    LOAD       -         1     2     2     4    13     0  -
   2 load    LOAD       -         2     3     4     7    16     0  in order behind insn 1 LOAD
   3 compute PRELOAD    -         3    14    14    15    15     0  token from load (insn 1 LOAD)
   4 compute COMPUTE    -         4    17    17    20    22     0  token from load (insn 2 LOAD)
   5 store   CFG_STORE  -         5     6     6     7     6     0  -
   6 store   STORE      -         6    23    23    33    42     0  token from compute (insn 4 COMPUTE)
   7 fetch   HALT       -         7     7     7     8     7     0  -
EOF
for m in fast detailed; do
  if ! $SASIM run "$T/w.bin" --mode $m --timeline "$T/w.$m.txt" >"$T/out" 2>&1; then
    fail "ex1-rows-$m" "sasim run failed: $(head -c 300 "$T/out")"
  elif [ "$(head -n 1 "$T/w.$m.txt")" != "# timeline of $T/w.bin: 8 instructions, 43 cycles (docs/STATS.md \"Timeline\")" ]; then
    fail "ex1-rows-$m" "header: $(head -n 1 "$T/w.$m.txt")"
  elif tail -n +2 "$T/w.$m.txt" | cmp -s - "$T/want"; then pass "ex1-rows-$m"
  else fail "ex1-rows-$m" "$(tail -n +2 "$T/w.$m.txt" | diff "$T/want" - | head -6 | tr '\n' ' ')"; fi
done

# The array's structural waits, timed by hand with docs/TIMING.md §6 on the tiny arch (R = C = 4,
# compute queue 4), as in §11's examples: the PRELOAD fills its bank in 1..4 (e = s + R - 1);
# the first COMPUTE_IS needs the bank complete (5) and streams 6 rows (ready 11, e = 5 + 6 - 1 +
# 4 + 4 - 1 = 17); the second waits for a cycle aligned mod C with 5 (13); the COMPUTE for the
# last COMPUTE_IS's end + 1 (26; 1 row: e = 26 + 0 + 7 = 33); the COMPUTE_OS (K = 6) for its end
# + 1 (34; ready 34 + max(6, 4 + 4) = 42, e = 34 + 6 + 8 + 4 - 3 = 49); the next (K = 1) for
# s + 1 >= 34 + 6 + 4 (43); the PRELOAD after them for the array to leave OS mode (54). Fetch
# stops at 5 and 13 while the compute queue holds 4 (fetched 6 and 14).
cat >"$T/s.s" <<'EOF'
.arch tiny
PRELOAD src=0 rows=3
COMPUTE_IS src=0 acc_addr=0 rows=6 astride=8 cols=3
COMPUTE_IS src=0 acc_addr=0 rows=6 astride=8 cols=3
COMPUTE src=0 acc_addr=0 rows=1
COMPUTE_OS src=0 kstride=4 wsrc=0 klen=6 acc_addr=0 rows=4
COMPUTE_OS src=0 kstride=4 wsrc=0 klen=1 acc_addr=0 rows=4
PRELOAD src=0 rows=3
HALT
EOF
cat >"$T/want.s" <<'EOF'
insn unit    op         layer fetch avail start ready   end  dram  waited for
   0 compute PRELOAD    -         0     1     1     2     4     0  -
   1 compute COMPUTE_IS -         1     2     5    11    17     0  bank loading (insn 0 PRELOAD)
   2 compute COMPUTE_IS -         2     3    13    19    25     0  rotator alignment (insn 1 COMPUTE_IS)
   3 compute COMPUTE    -         3     4    26    27    33     0  array mode switch (insn 2 COMPUTE_IS)
   4 compute COMPUTE_OS -         4     5    34    42    49     0  array mode switch (insn 3 COMPUTE)
   5 compute COMPUTE_OS -         6     7    43    47    53     0  drain of insn 4 COMPUTE_OS
   6 compute PRELOAD    -        14    15    54    55    57     0  array mode switch (insn 5 COMPUTE_OS)
   7 fetch   HALT       -        15    15    15    16    15     0  -
EOF
$SASIM asm "$T/s.s" -o "$T/s.bin" >"$T/out" 2>&1 || fail setup "sasim asm: $(head -c 300 "$T/out")"
for m in fast detailed; do
  $SASIM run "$T/s.bin" --mode $m --timeline - 2>/dev/null | tail -n +2 >"$T/s.$m.txt"
  if cmp -s "$T/s.$m.txt" "$T/want.s"; then pass "array-rows-$m"
  else fail "array-rows-$m" "$(diff "$T/want.s" "$T/s.$m.txt" | head -6 | tr '\n' ' ')"; fi
done

# stdout carries the timeline alone; the cycles and outputs go to stderr.
$SASIM run "$T/w.bin" --timeline - >"$T/so" 2>"$T/se"
if tail -n +2 "$T/so" | cmp -s - "$T/want" && grep -q '^43 cycles$' "$T/se"; then pass stdout-alone
else fail stdout-alone "$(head -c 300 "$T/so")"; fi

# The formats: by extension, or forced; the JSON's rows equal the CSV's.
$SASIM run "$T/w.bin" --timeline "$T/w.csv" >/dev/null 2>&1
$SASIM run "$T/w.bin" --timeline "$T/w.json" >/dev/null 2>&1
$SASIM run "$T/w.bin" --timeline - --timeline-format csv 2>/dev/null >"$T/forced.csv"
if cmp -s "$T/w.csv" "$T/forced.csv" && head -n 1 "$T/w.csv" | grep -qx 'insn,unit,op,layer,fetch,avail,start,ready,end,dram_stall,cause,wait_insn,wait_unit,asm' &&
   grep -qx '6,store,STORE,"",6,23,23,33,42,0,token,4,compute,"STORE pop=compute push=- raw32=1 src=0 dram_addr=0x300 outer=1 inner=3 cols=2 gbuf=0"' "$T/w.csv"
then pass csv; else fail csv "$(head -c 400 "$T/w.csv")"; fi
python3 - "$T/w.json" "$T/w.csv" >"$T/o" 2>&1 <<'EOF'
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert j["cycles"] == 43 and len(j["insns"]) == len(rows) == 8, "counts"
for a, b in zip(j["insns"], rows):
    for k in ("insn", "fetch", "avail", "start", "ready", "end", "dram_stall"):
        assert str(a[k]) == b[k], (k, a, b)
    for k in ("unit", "op", "cause", "asm"):
        assert a[k] == b[k], (k, a, b)
    assert (a["wait_insn"] is None) == (b["wait_insn"] == ""), a
assert j["insns"][3]["waited_for"] == "token from load (insn 1 LOAD)", j["insns"][3]
EOF
if [ $? -eq 0 ]; then pass json; else fail json "$(tail -n 3 "$T/o" | tr '\n' ' ')"; fi

# Every shipped asm program and some compiled networks: fast and detailed give the same bytes,
# and each cause is consistent with the cycles (check.py).
cat >"$T/check.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k in ("insn", "fetch", "avail", "start", "ready", "end", "dram_stall"):
        r[k] = int(r[k])
why = []
for r in rows:
    if r["op"] == "HALT":
        continue
    if not (r["fetch"] < r["avail"] <= r["start"] < r["ready"]):
        why.append("insn %d: fetch %d avail %d start %d ready %d" % (r["insn"], r["fetch"], r["avail"], r["start"], r["ready"]))
    c, w = r["cause"], int(r["wait_insn"]) if r["wait_insn"] else None
    if c == "token" and rows[w]["end"] + 1 != r["start"]:
        why.append("insn %d: token of insn %d visible at %d, start %d" % (r["insn"], w, rows[w]["end"] + 1, r["start"]))
    # (a LAYER's copy in the compute or store queue has its own cycles, not those of its row)
    if c == "in_order" and (w >= r["insn"] or rows[w]["op"] != "LAYER" and rows[w]["ready"] != r["start"]):
        why.append("insn %d: behind insn %d ready at %d, start %d" % (r["insn"], w, rows[w]["ready"], r["start"]))
    if c in ("none", "queue") and r["start"] != r["fetch"] + 1:
        why.append("insn %d: cause %s but start %d, fetch %d" % (r["insn"], c, r["start"], r["fetch"]))
    if c == "array":
        why.append("insn %d: a structural wait no rule explains" % r["insn"])
if why:
    print("; ".join(why[:4]))
    sys.exit(1)
EOF
same_modes() {  # NAME PROG.bin
  $SASIM run "$2" --timeline "$T/f.csv" >"$T/o" 2>&1 &&
    $SASIM run "$2" --mode detailed --timeline "$T/d.csv" >>"$T/o" 2>&1 || { fail "$1" "sasim run: $(head -c 300 "$T/o")"; return; }
  if ! cmp -s "$T/f.csv" "$T/d.csv"; then fail "$1" "fast and detailed differ: $(diff "$T/f.csv" "$T/d.csv" | head -3 | tr '\n' ' ')"
  elif ! python3 "$T/check.py" "$T/f.csv" >"$T/o" 2>&1; then fail "$1" "$(head -c 400 "$T/o")"
  else pass "$1"; fi
}
for s in workloads/asm/*.s; do
  n=$(basename "$s" .s)
  $SASIM asm "$s" -o "$T/a.bin" >/dev/null 2>&1 || { fail "modes-$n" "sasim asm $s"; continue; }
  same_modes "modes-$n" "$T/a.bin"
done
for c in "tiny_cnn ws" "tiny_cnn is" "depthwise os" "edge_gap_fc ws" "edge_pooling is"; do
  set -- $c
  $SACC compile "workloads/nets/$1.json" --dataflow "$2" --arch workloads/arch/tiny.json -o "$T/n.bin" >/dev/null 2>&1 ||
    { fail "modes-$1-$2" "sacc compile"; continue; }
  same_modes "modes-$1-$2" "$T/n.bin"
done

# The trace: a slice per instruction at its start, as long as start..ready, with the layer, the
# operands and the cause in its args; the time unit stated, no displayTimeUnit.
$SASIM asm workloads/asm/gemm_tiled.s -o "$T/g.bin" >/dev/null 2>&1
$SASIM run "$T/g.bin" --trace "$T/g.trace" --timeline "$T/g.json" >/dev/null 2>&1
python3 - "$T/g.trace" "$T/g.json" >"$T/o" 2>&1 <<'EOF'
import json, sys
tr = json.load(open(sys.argv[1]))
tl = {r["insn"]: r for r in json.load(open(sys.argv[2]))["insns"]}
assert "displayTimeUnit" not in tr, "displayTimeUnit"
od = tr["otherData"]
assert od["time_unit"] == "cycles" and od["clock_mhz"] > 0 and od["cycles"] > 0, od
slices = [e for e in tr["traceEvents"] if e.get("ph") == "X"]
assert len(slices) == len(tl) - 1, "one slice per instruction but HALT"
for e in slices:
    a, r = e["args"], tl[e["args"]["insn"]]
    assert e["ts"] == r["start"] and e["dur"] == r["ready"] - r["start"], (e, r)
    assert a["layer"] == r["layer"] == "gemm_tiled" and e["cat"] == "gemm_tiled", a
    assert a["asm"] == r["asm"] and a["waited_for"] == r["waited_for"], (a, r)
    for k in ("fetch", "avail", "start", "ready", "end"):
        assert a[k] == r[k], (k, a, r)
load = [e for e in slices if e["name"] == "LOAD"][0]["args"]["operands"]
assert load["mem"] == "SPAD" or load["mem"] == "WBUF", load
assert isinstance(load["dram_addr"], int) and "push" in load and "pop" in load, load
comp = [e for e in slices if e["name"] == "COMPUTE"][0]["args"]["operands"]
assert comp["pop"] == "load" and set(comp) >= {"src", "acc_addr", "rows", "accum"}, comp
EOF
if [ $? -eq 0 ]; then pass trace-args; else fail trace-args "$(tail -n 3 "$T/o" | tr '\n' ' ')"; fi

expect format-alone 2 '--timeline-format needs --timeline' -- $SASIM run "$T/w.bin" --timeline-format csv
expect format-bad 2 'xml' -- $SASIM run "$T/w.bin" --timeline - --timeline-format xml
expect two-stdout 2 'stdout \(-\) can take only one' -- $SASIM run "$T/w.bin" --timeline - --json -
