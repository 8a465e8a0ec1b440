#!/bin/sh
# macs.sh BUILD_DIR: one definition of MACs and utilization (docs/STATS.md "MACs and
# utilization"). For compiled networks in every dataflow, on the default and the tiny arch, sacc
# and sasim agree on the useful MACs (the network's, carried by the program's MACS section) and
# the array slots, in total and per layer; utilization, slot occupancy and mapping efficiency are
# the stated ratios; a hand-written program without `macs=` counts its array MACs as useful, and
# `.layer NAME macs=N` declares them and survives disasm/asm byte for byte.
set -u
B=${1:-build}
SACC=$B/bin/sacc
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=macs
. tests/cli/lib.sh

cat >"$T/agree.py" <<'EOF'
import json, sys
c, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rc = s["arch_rc"] if "arch_rc" in s else None
why = []
for k in ("useful_macs", "array_slots"):
    if c[k] != s[k]:
        why.append("%s: sacc %d, sasim %d" % (k, c[k], s[k]))
if c["macs"] != c["useful_macs"]:
    why.append("sacc macs %d != useful_macs %d" % (c["macs"], c["useful_macs"]))
cl = {l["name"]: l for l in c["layers"]}
for l in s["layers"]:
    if l["name"] not in cl:
        continue
    for k in ("useful_macs", "array_slots"):
        if cl[l["name"]][k] != l[k]:
            why.append("layer %s %s: sacc %d, sasim %d" % (l["name"], k, cl[l["name"]][k], l[k]))
pes = int(sys.argv[3])
def near(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))
if not near(s["utilization"], s["useful_macs"] / (s["cycles"] * pes)): why.append("utilization")
if not near(s["slot_occupancy"], s["array_slots"] / (s["cycles"] * pes)): why.append("slot_occupancy")
if not near(s["mapping_efficiency"], s["useful_macs"] / s["array_slots"]): why.append("mapping_efficiency")
if not s["useful_macs"] <= s["array_macs"] <= s["array_slots"]: why.append("useful <= array MACs <= slots")
for l in s["layers"]:
    span = l["last_end"] - l["first_start"] + 1
    if not near(l["utilization"], l["useful_macs"] / (span * pes)): why.append("layer %s utilization" % l["name"])
if why:
    print("; ".join(why[:4]))
    sys.exit(1)
EOF
for n in tiny_cnn depthwise lenet5 edge_odd; do
  for a in default tiny; do
    [ $a = default ] && pes=256 || pes=16
    for df in ws os is; do
      k=$n-$df-$a
      if ! $SACC compile workloads/nets/$n.json --dataflow $df --arch workloads/arch/$a.json -o "$T/p.bin" \
           --json "$T/c.json" >"$T/o" 2>&1; then fail "$k" "sacc: $(head -c 200 "$T/o")"; continue; fi
      if ! $SASIM run "$T/p.bin" --json "$T/s.json" >"$T/o" 2>&1; then fail "$k" "sasim: $(head -c 200 "$T/o")"; continue; fi
      if python3 "$T/agree.py" "$T/c.json" "$T/s.json" $pes >"$T/o" 2>&1; then pass "$k"; else fail "$k" "$(head -c 300 "$T/o")"; fi
    done
  done
done

# The text of both tools names both counts and their ratio (the program fused: docs/COMPILER.md
# "Fusion"; 1,083 cycles).
$SACC compile workloads/nets/tiny_cnn.json -o "$T/t.bin" --stats >"$T/c.txt" 2>&1
if grep -qE '^MACs: 19072 useful \(the network.s\), 55296 array slots \(what the mapping occupies, padding included\), mapping efficiency 34\.5%$' "$T/c.txt"
then pass sacc-text; else fail sacc-text "$(grep MACs "$T/c.txt")"; fi
$SASIM run "$T/t.bin" --stats >"$T/s.txt" 2>&1
if grep -qE '^MACs +19072 useful \(the network.s\), 55296 array slots \(mapping efficiency 34\.5%\)$' "$T/s.txt" &&
   grep -qE '^utilization +6\.9% of peak \(useful MACs / \(cycles x 256\)\); array slots occupied 19\.9%$' "$T/s.txt"
then pass sasim-text; else fail sasim-text "$(grep -A1 '^MACs' "$T/s.txt")"; fi

# A hand-written program: no declaration, so useful = array MACs; then declared with macs=.
$SASIM asm workloads/asm/gemm_small.s -o "$T/g.bin" >/dev/null 2>&1
$SASIM run "$T/g.bin" --json "$T/g.json" >/dev/null 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["useful_macs"] == d["array_macs"] == 64 else 1)' "$T/g.json" &&
  pass undeclared || fail undeclared "$(head -c 300 "$T/g.json")"
mkdir -p "$T/asm" "$T/arch" && cp workloads/arch/*.json "$T/arch/"   # its .arch names ../arch/tiny.json
sed 's/^\.layer gemm /.layer gemm macs=48 /' workloads/asm/gemm_small.s >"$T/asm/d.s"
if ! grep -q 'macs=48' "$T/asm/d.s"; then fail declared "no '.layer gemm' line in gemm_small.s"
elif $SASIM asm "$T/asm/d.s" -o "$T/d.bin" >"$T/o" 2>&1 && $SASIM run "$T/d.bin" --json "$T/d.json" >/dev/null 2>&1 &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["useful_macs"] == 48 and d["array_macs"] == 64 and d["layers"][0]["useful_macs"] == 48 else 1)' "$T/d.json"
then pass declared; else fail declared "$(head -c 300 "$T/o")"; fi
$SASIM disasm "$T/d.bin" -o "$T/d2.s" >/dev/null 2>&1 && $SASIM asm "$T/d2.s" -o "$T/d2.bin" >/dev/null 2>&1
if cmp -s "$T/d.bin" "$T/d2.bin" && grep -q '^\.layer gemm macs=48$' "$T/d2.s"; then pass round-trip
else fail round-trip "disasm/asm of a declared program differs"; fi
$SASIM disasm "$T/t.bin" -o "$T/t.s" >/dev/null 2>&1 && $SASIM asm "$T/t.s" -o "$T/t2.bin" --compress >/dev/null 2>&1
if cmp -s "$T/t.bin" "$T/t2.bin"; then pass round-trip-compiled; else fail round-trip-compiled "disasm/asm of a compiled program differs"; fi
# Format versions (bytes 10-11 of the header), the oldest that carries the file: 1.3 for every
# file now (its ARCH section names the SFU's keys), with or without OVERLAP or a MACS section
# (1.0 to 1.2 files still read: tests/isa/binfmt_test's older_versions_read).
v() { od -An -tu2 -j10 -N2 "$1" | tr -d ' '; }
$SACC compile workloads/nets/tiny_cnn.json --dataflow os -o "$T/o.bin" >/dev/null 2>&1
if [ "$(v "$T/t.bin")" = 3 ] && [ "$(v "$T/o.bin")" = 3 ] && [ "$(v "$T/g.bin")" = 3 ]; then pass versions
else fail versions "compiled ws 1.$(v "$T/t.bin"), os 1.$(v "$T/o.bin"), undeclared asm 1.$(v "$T/g.bin")"; fi
expect bad-macs 1 'macs must be >= 0' -- sh -c "printf '.layer a macs=-1\nHALT\n' >'$T/b.s' && $SASIM asm '$T/b.s' -o '$T/b.bin'"
expect bad-key 1 'unexpected text after the layer name' -- sh -c "printf '.layer a flops=3\nHALT\n' >'$T/b.s' && $SASIM asm '$T/b.s' -o '$T/b.bin'"
