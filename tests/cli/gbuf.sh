#!/bin/sh
# gbuf.sh BUILD_DIR: the global buffer (GBUF=1 LOADs and STOREs) from the sasim command line:
# programs that name a buffer the arch does not have, or bytes beyond it, are refused with the
# loader's message (assembly and binary alike); workloads/asm/gbuf_fuse.s runs the same on both
# engines, and the report, --json, --timeline and --trace show the buffer's traffic.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=gbuf
. tests/cli/lib.sh

# A LOAD with gbuf=1 on an arch without a global buffer: refused by the assembler, by `check`,
# and, in a binary (made with a 4 KiB buffer, then its ARCH section edited to gbuf.bytes 0 with
# the CRCs fixed), by the loader of `run`, with the same message naming the instruction.
cat >"$T/none.s" <<'EOF'
.arch {"name":"g","array":{"rows":4,"cols":4},"gbuf":{"bytes":0}}
LOAD mem=spad dst=0 dram_addr=0 outer=1 inner=1 nseg=1 seglen=4 gbuf=1
HALT
EOF
msg='error: LOAD reads the global buffer \(GBUF=1\), but this arch has none \(gbuf\.bytes=0\)$'
expect asm-refuses-none 1 "^$T/none.s:2:1: $msg" -- $SASIM asm "$T/none.s" -o "$T/none.bin"
expect check-refuses-none 1 "^$T/none.s:2:1: $msg" -- $SASIM check "$T/none.s"
sed 's/"bytes":0/"bytes":4096/' "$T/none.s" >"$T/some.s"
$SASIM asm "$T/some.s" -o "$T/some.bin" >/dev/null 2>&1 || fail setup "sasim asm some.s failed"
python3 - "$T/some.bin" "$T/none.bin" <<'EOF'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
old, new = b'"gbuf": {\n    "bytes": 4096,', b'"gbuf": {\n    "bytes": 0,   '
i = b.find(old)
b[i:i + len(old)] = new
nsect = struct.unpack_from('<I', b, 12)[0]
for k in range(nsect):   # the section holding the edit, the section table, the header
    e = 64 + 48 * k
    off, stored = struct.unpack_from('<QQ', b, e + 16)
    if off <= i < off + stored:
        struct.pack_into('<I', b, e + 40, zlib.crc32(bytes(b[off:off + stored])))
struct.pack_into('<I', b, 32, zlib.crc32(bytes(b[64:64 + 48 * nsect])))
struct.pack_into('<I', b, 60, zlib.crc32(bytes(b[0:60])))
open(sys.argv[2], 'wb').write(b)
EOF
expect load-refuses-none 1 "^$T/none.bin: \+0x[0-9a-f]+ \(insn 0\): $msg" -- $SASIM run "$T/none.bin"
expect disasm-refuses-none 1 "\(insn 0\): $msg" -- $SASIM disasm "$T/none.bin"

# A STORE into the buffer that runs past its end.
cat >"$T/beyond.s" <<'EOF'
.arch {"name":"g","array":{"rows":4,"cols":4},"gbuf":{"bytes":64}}
STORE src=0 dram_addr=62 outer=1 inner=1 cols=4 gbuf=1
HALT
EOF
expect asm-refuses-beyond 1 "^$T/beyond.s:2:1: error: STORE writes GBUF bytes 0x3e\.\.0x41, beyond gbuf\.bytes=0x40\$" \
  -- $SASIM asm "$T/beyond.s" -o "$T/beyond.bin"
sed 's/dram_addr=62/dram_addr=60/' "$T/beyond.s" >"$T/fits.s"
expect asm-accepts-last-bytes 0 '' -- $SASIM asm "$T/fits.s" -o "$T/fits.bin"

# The shipped fused program: both engines give the same statistics, outputs and GBUF figures.
$SASIM asm workloads/asm/gbuf_fuse.s -o "$T/f.bin" >/dev/null 2>&1 || fail setup "sasim asm gbuf_fuse.s failed"
$SASIM run "$T/f.bin" --json "$T/fast.json" >"$T/fast.out" 2>&1
$SASIM run "$T/f.bin" --mode detailed --json "$T/det.json" >"$T/det.out" 2>&1
if cmp -s "$T/fast.json" "$T/det.json" && grep -q '^output Z: int32 \[3,4\] crc32 4510eb1b$' "$T/det.out"; then
  pass fuse-engines-agree
else fail fuse-engines-agree "fast and detailed differ: $(diff "$T/fast.json" "$T/det.json" | head -4 | tr '\n' ' ')"; fi
expect fuse-expected 0 '^expect Z: ok, 12 elements equal' -- $SASIM run "$T/f.bin" --expect Z=workloads/asm/gbuf_fuse_expected.npy
if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
g, l = d["gbuf"], d["layers"]
assert (g["read_bytes"], g["read_beats"], g["write_bytes"], g["write_beats"]) == (12, 6, 8, 4), g
assert d["cycles"] == 124 and d["dram"]["read_bytes"] == 40 and d["dram"]["write_bytes"] == 48
assert [(x["gbuf_read_bytes"], x["gbuf_write_bytes"], x["gbuf_read_beats"], x["gbuf_write_beats"]) for x in l] == [(0, 8, 0, 4), (12, 0, 6, 0)]
' "$T/fast.json"; then pass fuse-json; else fail fuse-json "gbuf.* keys in $(cat "$T/fast.json" | head -c 300)"; fi
expect fuse-stats-line 0 '^GBUF           read 12 B in 6 beats, write 8 B in 4 beats$' -- $SASIM run "$T/f.bin" --stats
expect fuse-stats-columns 0 '^conv +ws +107 +48 +2\.8% +16 +48 +12 +0 ' -- $SASIM run "$T/f.bin" --stats
expect fuse-timeline 0 '^  12 load    LOAD gbuf  conv +12 +13 +57 +63 +72 +0  in order behind insn 11 LOAD$' \
  -- $SASIM run "$T/f.bin" --timeline -
expect fuse-trace 0 '"name":"STORE gbuf in flight"' -- $SASIM run "$T/f.bin" --trace -
# A program without GBUF=1 shows neither the line nor the columns: its table reads as before
# (but for the buffer's area, which is the machine's: docs/PPA.md).
$SASIM asm workloads/asm/gemm_small.s -o "$T/g.bin" >/dev/null 2>&1
if $SASIM run "$T/g.bin" --stats >"$T/g.out" 2>&1 && ! grep -v '^  gbuf  *[0-9.]* mm2 ' "$T/g.out" | grep -q 'GBUF\|gbuf'; then pass no-gbuf-no-line
else fail no-gbuf-no-line "$(grep -i gbuf "$T/g.out" | head -2)"; fi
