#!/bin/sh
# limits.sh BUILD_DIR: bounded cost on large legal inputs and bombs (issue 18 items 9-12, 14, 18):
# the quick cases, each under a memory ulimit or a timeout far above what the bounded code needs;
# the slow and big ones are in tests/hostile/bound.sh. Prints PASS/FAIL lines for tests/run.sh.
# Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
SACC=$B/bin/sacc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=limits
. tests/cli/lib.sh

# Item 14: the assembler finds tensor names by hash. 240k .tensor lines, each also named by a
# LOAD's dram_addr, took 100 s when each lookup walked the list; now about a second.
awk 'BEGIN {
  n = 240000
  for (i = 0; i < n; i++) printf ".tensor t%d dtype=int8 shape=[4] addr=%d role=scratch\n", i, i * 4
  print "CFG_LOAD stride_outer=0 stride_inner=4 seg_stride=0"
  for (i = 0; i < n; i += 1000) printf "LOAD mem=spad dst=0 dram_addr=t%d outer=1 inner=1 nseg=1 seglen=4\n", i
  print "HALT"
}' >"$T/many.s"
expect asm-240k-tensors 0 '' -- timeout 30 $SASIM asm "$T/many.s" -o "$T/many.bin"
{ sed '$d' "$T/many.s"; echo '.tensor t65537 dtype=int8 shape=[4] addr=0 role=scratch'; echo HALT; } >"$T/dup.s"
expect asm-duplicate-tensor 1 'dup.s:240242:9: error: duplicate tensor .t65537.' -- timeout 30 $SASIM asm "$T/dup.s" -o "$T/dup.bin"

# peak NAME MAX_MB STATUS PATTERN -- CMD...: like expect, and the command's peak resident memory
# (GNU time) must stay under MAX_MB. SKIP when GNU time is missing.
peak() {
  name=$1 max_mb=$2 want=$3 pat=$4; shift 5
  if ! [ -x /usr/bin/time ]; then echo "SKIP $CLI_PREFIX-$name: no /usr/bin/time"; return; fi
  /usr/bin/time -f 'peak_kb %M' -o "$T/time" "$@" >"$T/out" 2>&1; rc=$?
  kb=$(sed -n 's/^peak_kb //p' "$T/time")
  if [ $rc -ne "$want" ]; then fail "$name" "exit $rc, want $want: $(head -c 300 "$T/out")"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out"; then fail "$name" "no line matching /$pat/ in: $(head -c 300 "$T/out")"; return; fi
  if [ "${kb:-0}" -gt $((max_mb * 1024)) ]; then fail "$name" "peak memory $((kb / 1024)) MB, want < $max_mb MB"; return; fi
  pass "$name"
}

# Item 9: a transposed LOAD of 4095 x 1024 rows of 180 bytes (754 MB gathered at once before) is
# streamed through a scratch the size of WBUF, in both engines.
cat >"$T/tload.s" <<'EOS'
.tensor X dtype=int8 shape=[4096] addr=0 role=input data=seed:1
.tensor Y dtype=int8 shape=[16] addr=8192 role=output
LOAD mem=wbuf transpose=1 tstride=0 dst=0 dram_addr=X outer=4095 inner=1024 nseg=1 seglen=180 push=compute
PRELOAD src=0 rows=4 pop=load
HALT
EOS
expect tload-asm 0 '' -- $SASIM asm "$T/tload.s" -o "$T/tload.bin"
peak tload-fast 200 0 '^50319[0-9]+ cycles' -- $SASIM run "$T/tload.bin"

# Item 11: an input is refused from its head and its size before it is read whole. Each case took
# seconds and gigabytes before (/dev/zero on stdin grew until out of memory).
peak stdin-zeros 100 1 '^-: \+0x0: error: bad magic' -- sh -c "head -c 1000000000 /dev/zero | timeout 60 $SASIM run -"
$SASIM asm workloads/asm/gemm_is_tiny.s -o "$T/small.bin" 2>/dev/null
peak stdin-longer 100 1 '^-: error: at least [0-9]+ bytes, more than its header gives' -- \
  sh -c "{ cat '$T/small.bin'; head -c 1000000000 /dev/zero; } | timeout 60 $SASIM run -"
if truncate -s 3G "$T/sparse.npy" 2>/dev/null; then
  cat >"$T/sparse_net.json" <<EOS
{"name": "s", "inputs": [{"name": "x", "shape": [1, 4, 4, 4], "scale": 0.05}],
 "layers": [{"name": "c", "op": "conv2d", "inputs": ["x"], "output": "y", "kernel": 1, "cout": 4,
             "weights": {"file": "sparse.npy"}, "scale": 0.1, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOS
  peak npy-sparse-3g 100 1 'sparse.npy: error: not a .npy file \(bad magic\)' -- timeout 60 $SACC check "$T/sparse_net.json"
  peak input-sparse-3g 100 1 'sparse.npy: error: not a .npy file \(bad magic\)' -- timeout 60 $SASIM run "$T/small.bin" --input "$T/sparse.npy"
  # a valid .npy header followed by gigabytes: refused from its size, before reading
  python3 -c "
import sys
h = b\"{'descr': '|i1', 'fortran_order': False, 'shape': (4, 1, 1, 4), }\"
h += b' ' * (64 - (10 + len(h) + 1) % 64) + b'\\n'
open(sys.argv[1], 'wb').write(b'\\x93NUMPY\\x01\\x00' + len(h).to_bytes(2, 'little') + h + bytes(16))" "$T/long.npy" &&
    truncate -s 3G "$T/long.npy"
  sed 's/sparse.npy/long.npy/' "$T/sparse_net.json" >"$T/long_net.json"
  peak npy-longer-than-header 100 1 'long.npy: error: 3221225472 bytes, more than its .npy header gives \(144 bytes\)' -- \
    timeout 60 $SACC check "$T/long_net.json"
  truncate -s 2G "$T/sparse.json"
  peak net-sparse-2g 100 1 'sparse.json: error: 2147483648 bytes, more than the limit of a net.json' -- timeout 60 $SACC check "$T/sparse.json"
  truncate -s 100M "$T/zeros.json"
  peak net-nul 100 1 'zeros.json: error: not a text file' -- timeout 60 $SACC check "$T/zeros.json"
  peak asm-nul 100 1 'zeros.json: error: not a text file' -- timeout 60 $SASIM asm "$T/zeros.json" -o "$T/z.bin"
  peak arch-big 100 1 'sparse.json: error: 2147483648 bytes, more than the limit of an arch file' -- timeout 60 $SACC compile "$T/long_net.json" --arch "$T/sparse.json" -o "$T/z.bin"
else
  echo "SKIP $CLI_PREFIX-sparse-files: truncate -s 3G failed in $T"
fi

# Item 12: a 300-byte net of 1.1e12 MACs is refused up front by check, ref and compile (they ran
# for hours, compile asked for 16 GiB), naming the layer and the figure; --allow-large runs it.
cat >"$T/bigk.json" <<'EOS'
{"name": "k", "inputs": [{"name": "x", "shape": [1, 1024, 1024, 1], "scale": 0.05}],
 "layers": [{"name": "big", "op": "conv2d", "inputs": ["x"], "output": "y", "kernel": 1024, "padding": "same",
             "cout": 1, "weights": {"seed": 1}, "scale": 0.1, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOS
for c in check ref compile; do
  o=
  [ $c = compile ] && o="-o $T/bigk.bin"
  peak "macs-$c" 200 1 'bigk.json: layers\[0\] "big": error: the network needs 1.1e\+12 MACs up to this layer \(1.1e\+12 in it\), more than the limit of 1e\+11' -- \
    timeout 60 $SACC $c "$T/bigk.json" $o
done
expect macs-allow-large 124 '' -- timeout 3 $SACC check "$T/bigk.json" --allow-large

# Item 18: nets the ISA cannot encode are refused by the lowering, naming the layer, the value
# and the field's limit (they gave "sacc: insn 3: error: CFG_LOAD STRIDE_OUTER=... out of range").
cat >"$T/k1024.json" <<'EOS'
{"name": "k", "inputs": [{"name": "x", "shape": [1, 1024, 1024, 1], "scale": 0.05}],
 "layers": [{"name": "wide", "op": "conv2d", "inputs": ["x"], "output": "y", "kernel": 1024,
             "cout": 1, "weights": {"seed": 1}, "scale": 0.1, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOS
expect isa-weights-stride 1 'k1024.json: layers\[0\] "wide": error: the weight rows are 16777216 bytes apart in DRAM, more than CFG_LOAD STRIDE_OUTER can hold \(16777215\)' -- \
  $SACC compile "$T/k1024.json" -o "$T/k.bin"
cat >"$T/cout.json" <<'EOS'
{"name": "c", "inputs": [{"name": "x", "shape": [1, 1, 2, 1], "scale": 0.05}],
 "layers": [{"name": "deep", "op": "conv2d", "inputs": ["x"], "output": "y", "kernel": 1,
             "cout": 1048576, "weights": {"seed": 1}, "scale": 0.1, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOS
expect isa-store-stride 1 'cout.json: layers\[0\] "deep": error: the output pixels are 1048576 bytes apart in DRAM, more than CFG_STORE STRIDE_INNER can hold \(1048575\)' -- \
  $SACC compile "$T/cout.json" -o "$T/c.bin"
# One name limit everywhere: 63 characters pass check, ref and compile; 64 fail all three alike.
n63=abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk
for n in $n63 ${n63}l; do
  sed "s/\"wide\"/\"$n\"/; s/1024/4/g" "$T/k1024.json" >"$T/name.json"
  want=0 pat=
  [ ${#n} -gt 63 ] && want=1 pat="bad name \"$n\" \\(1 to 63 of"
  for c in check ref compile; do
    o=
    [ $c = compile ] && o="-o $T/name.bin"
    expect "name-${#n}-$c" $want "$pat" -- $SACC $c "$T/name.json" $o
  done
done
