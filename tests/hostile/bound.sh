#!/bin/sh
# bound.sh BUILD_DIR: the big legal inputs and bombs of issue 18 (items 9-12, 14) at full size,
# each under a memory limit (ulimit -v, skipped for a sanitizer build, whose shadow memory it
# would count) and a timeout, asserting a clear error (or success) and bounded memory and time.
# Slow (a minute or two): run by `make test-hostile`, not by make test; the quick versions of
# these cases are in tests/cli/limits.sh. Prints PASS/FAIL lines. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
SACC=$B/bin/sacc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=bound
. tests/cli/lib.sh

# bounded NAME MAX_MB SECONDS STATUS PATTERN -- CMD...: CMD under ulimit -v MAX_MB and a timeout
# of SECONDS must exit with STATUS and print a line matching PATTERN.
bounded() {
  name=$1 mb=$2 secs=$3 want=$4 pat=$5; shift 6
  case $B in *asan*|*san*) lim=unlimited ;; *) lim=$((mb * 1024)) ;; esac
  (ulimit -v $lim 2>/dev/null; exec timeout "$secs" "$@") >"$T/out" 2>&1; rc=$?
  if [ $rc -eq 124 ]; then fail "$name" "did not finish in $secs s"; return; fi
  if [ $rc -ne "$want" ]; then fail "$name" "exit $rc, want $want (limit $mb MB): $(head -c 300 "$T/out")"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out"; then fail "$name" "no line matching /$pat/ in: $(head -c 300 "$T/out")"; return; fi
  pass "$name"
}

# Item 9: the 862-byte program of the issue, one transposed LOAD of 4095 x 4095 rows of 180
# bytes (it allocated and filled 2.95 GB), runs in a few hundred MB.
cat >"$T/tload.s" <<'EOS'
.tensor X dtype=int8 shape=[4096] addr=0 role=input data=seed:1
.tensor Y dtype=int8 shape=[16] addr=8192 role=output
LOAD mem=wbuf transpose=1 tstride=0 dst=0 dram_addr=X outer=4095 inner=4095 nseg=1 seglen=180 push=compute
PRELOAD src=0 rows=4 pop=load
HALT
EOS
$SASIM asm "$T/tload.s" -o "$T/tload.bin"
bounded transposed-load-4095x4095 1024 300 0 ' cycles$' -- $SASIM run "$T/tload.bin"

# Item 10: a deflate bomb inside the format's limits: 512 MiB of zeros in a 1 GiB DRAM, DATA
# deflated to about half a megabyte with consistent sizes and CRCs. Refused before inflating.
printf '.arch {"name": "big", "dram": {"bytes": 1073741824}}\n.tensor Z dtype=int8 shape=[536870912] addr=0 role=input data=zeros\nHALT\n' >"$T/zeros.s"
if $SASIM asm "$T/zeros.s" -o "$T/zeros.bin" 2>"$T/err"; then
  python3 - "$T/zeros.bin" "$T/bomb.bin" <<'EOS'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", b, 12)[0]
ents = [64 + 48 * i for i in range(n)]
data = [e for e in ents if struct.unpack_from("<I", b, e + 8)[0] == 4][0]
off, stored = struct.unpack_from("<QQ", b, data + 16)
z = zlib.compress(bytes(b[off:off + stored]), 9)
out = b[:off] + z + b[off + stored:]
for e in ents:
    o = struct.unpack_from("<Q", out, e + 16)[0]
    if o > off: struct.pack_into("<Q", out, e + 16, o - stored + len(z))
struct.pack_into("<I", out, data + 12, 1)
struct.pack_into("<Q", out, data + 24, len(z))
struct.pack_into("<Q", out, 16, len(out))
for e in ents:
    o, s = struct.unpack_from("<QQ", out, e + 16)
    struct.pack_into("<I", out, e + 40, zlib.crc32(bytes(out[o:o + s])))
struct.pack_into("<I", out, 32, zlib.crc32(bytes(out[64:64 + 48 * n])))
struct.pack_into("<I", out, 60, zlib.crc32(bytes(out[:60])))
open(sys.argv[2], "wb").write(out)
EOS
  rm -f "$T/zeros.bin"
  bounded bomb-run 300 60 1 'section DATA: 0x[0-9a-f]+ deflated bytes would inflate to 0x[0-9a-f]+, more than 16 times' -- $SASIM run "$T/bomb.bin"
  bounded bomb-disasm 300 60 1 'section DATA: 0x[0-9a-f]+ deflated bytes would inflate' -- $SASIM disasm "$T/bomb.bin" -o "$T/bomb.s"
  [ -e "$T/bomb.s" ] && fail bomb-disasm-no-output "bomb.s was written" || pass bomb-disasm-no-output
else
  fail bomb-asm "$(head -c 300 "$T/err")"
fi

# Item 11: endless and huge inputs stop at their head or their size.
bounded stdin-dev-zero 300 30 1 '^-: \+0x0: error: bad magic' -- sh -c "cat /dev/zero | $SASIM run -"
bounded stdin-asm-dev-zero 300 30 1 '^-: error: not a text file' -- sh -c "cat /dev/zero | $SASIM asm - -o '$T/z.bin'"
if truncate -s 3G "$T/sparse.npy" 2>/dev/null; then
  bounded npy-sparse-3g 300 30 1 'sparse.npy: error: not a .npy file \(bad magic\)' -- \
    $SASIM run "$T/tload.bin" --input "X=$T/sparse.npy"
  truncate -s 2G "$T/sparse.json"
  bounded net-sparse-2g 300 30 1 'more than the limit of a net.json' -- $SACC check "$T/sparse.json"
else
  echo "SKIP $CLI_PREFIX-sparse: truncate -s 3G failed in $T"
fi

# Item 12: work and memory refused up front. 1.1e12 MACs (hours before); 24 layers of 2^28 int8
# weights (6 GiB) stop at the layer that passes 2 GiB.
cat >"$T/bigk.json" <<'EOS'
{"name": "k", "inputs": [{"name": "x", "shape": [1, 1024, 1024, 1], "scale": 0.05}],
 "layers": [{"name": "big", "op": "conv2d", "inputs": ["x"], "output": "y", "kernel": 1024, "padding": "same",
             "cout": 1, "weights": {"seed": 1}, "scale": 0.1, "weight_scale": 0.01}],
 "outputs": ["y"]}
EOS
for c in check ref; do
  bounded "macs-$c" 500 60 1 'layers\[0\] "big": error: the network needs 1.1e\+12 MACs' -- $SACC $c "$T/bigk.json"
done
bounded macs-compile 500 60 1 'layers\[0\] "big": error: the network needs 1.1e\+12 MACs' -- $SACC compile "$T/bigk.json" -o "$T/k.bin"
python3 -c "
import json
layers = [{'name': 'fc%d' % i, 'op': 'fc', 'inputs': ['x' if i == 0 else 'y%d' % (i - 1)], 'output': 'y%d' % i,
           'cout': 16384, 'weights': {'seed': i}, 'scale': 0.1, 'weight_scale': 0.01} for i in range(24)]
print(json.dumps({'name': 'w', 'inputs': [{'name': 'x', 'shape': [1, 16384], 'scale': 0.05}], 'layers': layers,
                  'outputs': ['y23']}))" >"$T/bigw.json"
bounded bytes-check 3000 300 1 'layers\[7\] "fc7": error: the network needs 2.1[0-9]*e\+09 bytes of activations and weights' -- \
  $SACC check "$T/bigw.json"

# Item 14: 480k tensors assemble in seconds (hash lookups), not hours.
awk 'BEGIN {
  n = 480000
  for (i = 0; i < n; i++) printf ".tensor t%d dtype=int8 shape=[4] addr=%d role=scratch\n", i, i * 4
  print "CFG_LOAD stride_outer=0 stride_inner=4 seg_stride=0"
  for (i = 0; i < n; i += 100) printf "LOAD mem=spad dst=0 dram_addr=t%d outer=1 inner=1 nseg=1 seglen=4\n", i
  print "HALT"
}' >"$T/many.s"
bounded asm-480k-tensors 2000 60 0 '' -- $SASIM asm "$T/many.s" -o "$T/many.bin"
