#!/bin/sh
# energy.sh BUILD_DIR: the energy and area reports of `sasim run` as scripts read them (the JSON
# keys other tools rely on, the CSV columns, the --stats sections), and --energy FILE: a table
# with one figure changed changes that component only, a bad table stops the run with its place.
# Prints PASS/FAIL lines for tests/run.sh. Run from the repository root.
set -u
B=${1:-build}
SASIM=$B/bin/sasim
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CLI_PREFIX=energy
. tests/cli/lib.sh

if ! $SASIM asm workloads/asm/gemm_tiled.s -o "$T/g.bin" >"$T/out" 2>&1; then
  fail asm "$(head -c 300 "$T/out")"; exit 0
fi
expect stats 0 '^power .* mW average at 1000 MHz; [0-9.]+ TOPS/W' -- $SASIM run "$T/g.bin" --stats
grep -qE '^energy +[0-9.]+ uJ per inference \(table default-45nm, 45nm\)' "$T/out" && grep -qE '^area +[0-9.]+ mm2 at 45nm' "$T/out" &&
  grep -qE '^  leakage ' "$T/out" && grep -qE '^  pe_array ' "$T/out" && grep -qE 'energy_uJ$' "$T/out" &&
  pass stats-sections || fail stats-sections "no energy, area or per-layer energy in: $(head -c 300 "$T/out")"

# The clock section: the arch's clock beside the one its RTL is estimated to make (sim/clock.c),
# and a warning when the arch claims more; an arch at 100 MHz claims less and gets none.
grep -qE '^clock +1000 MHz' "$T/out" && grep -qE '^  estimated +[0-9]+ MHz at 45 nm, set by [a-z_]+ \(pe_array [0-9]+ ps' "$T/out" &&
  grep -qE '^  warning: the arch claims 1000 MHz, [0-9.]+x the [0-9]+ MHz this RTL is estimated to make$' "$T/out" &&
  pass stats-clock || fail stats-clock "no clock section or warning in: $(grep -A3 '^clock' "$T/out" | head -c 300)"
sed 's/^\.arch default$/.arch {"name": "slow", "clock_mhz": 100}/' workloads/asm/gemm_tiled.s >"$T/slow.s"
if $SASIM asm "$T/slow.s" -o "$T/slow.bin" >/dev/null 2>&1 && $SASIM run "$T/slow.bin" --stats >"$T/slow.out" 2>&1 &&
   grep -qE '^clock +100 MHz' "$T/slow.out" && ! grep -q 'warning: the arch claims' "$T/slow.out"; then pass stats-clock-slow-arch
else fail stats-clock-slow-arch "$(grep -A3 '^clock' "$T/slow.out" 2>/dev/null | head -c 300)"; fi

# The special-function unit: a program without its instructions has no SFU row, column or block
# (its table reads as before the unit), the unit's area is the machine's and always shown; a
# program with one (here CFG_SFU only) gets the row, the block and the sfu energy line.
! grep -qE '^(sfu |SFU )|busy_sfu|sfu_nJ|^  sfu .* pJ' "$T/out" && grep -qE '^  sfu +[0-9.]+ mm2' "$T/out" &&
  pass stats-no-sfu || fail stats-no-sfu "an SFU line in a program without the unit, or no sfu area: $(grep -i sfu "$T/out" | head -c 300)"
printf '.arch tiny\nCFG_SFU mult=1073741824 shift=19\nHALT\n' >"$T/cfg.s"
if $SASIM asm "$T/cfg.s" -o "$T/cfg.bin" >/dev/null 2>&1 && $SASIM run "$T/cfg.bin" --stats >"$T/cfg.out" 2>&1 &&
   grep -qE '^sfu +1 +0 +0 +1 +1$' "$T/cfg.out" && grep -qE '^SFU +4 lanes, pipeline 6: 0 values through the lanes' "$T/cfg.out" &&
   grep -qE '^  operations +none' "$T/cfg.out" && grep -qE '^  sfu +0.0 pJ' "$T/cfg.out"; then pass stats-sfu-block
else fail stats-sfu-block "$(grep -i -A2 sfu "$T/cfg.out" 2>/dev/null | head -c 400)"; fi

# docs/STATS.md quotes the SFU block of workloads/asm/sfu_softmax.s: it must be what sasim prints.
if $SASIM asm workloads/asm/sfu_softmax.s -o "$T/sm.bin" >/dev/null 2>&1 && $SASIM run "$T/sm.bin" --stats >"$T/sm.out" 2>&1; then
  sed -n '/^SFU /,/^  energy /p' "$T/sm.out" >"$T/sm.block"
  sed -n '/^## The special-function unit in the table/,/^## /p' docs/STATS.md | sed -n '/^SFU /,/^  energy /p' >"$T/sm.doc"
  if [ -s "$T/sm.block" ] && cmp -s "$T/sm.block" "$T/sm.doc" && grep -qE ' busy_sfu +sfu_nJ +energy_uJ$' "$T/sm.out"; then
    pass stats-sfu-doc-block
  else fail stats-sfu-doc-block "docs/STATS.md's SFU block differs from sasim's: $(diff "$T/sm.doc" "$T/sm.block" | head -6 | tr '\n' ' ')"; fi
else fail stats-sfu-doc-block "sfu_softmax.s did not run: $(head -c 300 "$T/sm.out")"; fi

# The global buffer: a program without GBUF=1 transfers has no GBUF or DRAM saved line, no gbuf
# energy line and no dram_saved column, while the buffer's area is listed; a program with them
# (workloads/asm/gbuf_fuse.s) gets them, and docs/STATS.md quotes its two lines as sasim prints them.
! grep -qE '^GBUF |^DRAM saved|^  gbuf .* pJ|dram_saved|saved_uJ' "$T/out" && grep -qE '^  gbuf +[0-9.]+ mm2' "$T/out" &&
  pass stats-no-gbuf || fail stats-no-gbuf "a GBUF line in a program without GBUF transfers, or no gbuf area: $(grep -i gbuf "$T/out" | head -c 300)"
if $SASIM asm workloads/asm/gbuf_fuse.s -o "$T/gf.bin" >/dev/null 2>&1 && $SASIM run "$T/gf.bin" --stats >"$T/gf.out" 2>&1; then
  sed -n '/^GBUF /,/^DRAM saved /p' "$T/gf.out" >"$T/gf.block"
  sed -n '/^## The global buffer in the table/,/^## /p' docs/STATS.md | sed -n '/^GBUF /,/^DRAM saved /p' >"$T/gf.doc"
  if [ -s "$T/gf.block" ] && cmp -s "$T/gf.block" "$T/gf.doc" && grep -qE '^  gbuf +40.4 pJ' "$T/gf.out" &&
     grep -qE ' dram_wr +gbuf_rd +gbuf_wr dram_saved +saved_uJ +busy_ld' "$T/gf.out" && grep -qE '^fc .* 8 +0.003 ' "$T/gf.out"; then
    pass stats-gbuf-block
  else fail stats-gbuf-block "docs/STATS.md's GBUF lines differ from sasim's, or no gbuf line/columns: $(diff "$T/gf.doc" "$T/gf.block" | head -6 | tr '\n' ' ') $(grep -i 'gbuf\|saved' "$T/gf.out" | head -c 300)"; fi
else fail stats-gbuf-block "gbuf_fuse.s did not run: $(head -c 300 "$T/gf.out")"; fi
# An arch whose buffer beats are narrower than DRAM's prices the saving on the useful bytes: "at least".
mkdir -p "$T/asm" "$T/arch"
sed 's/"bus_bytes": 4, "latency": 10/"bus_bytes": 8, "latency": 10/' workloads/arch/tiny.json >"$T/arch/tiny.json"
cp workloads/asm/gbuf_fuse.s "$T/asm/gf8.s"
if grep -q '"bus_bytes": 8, "latency": 10' "$T/arch/tiny.json" && $SASIM asm "$T/asm/gf8.s" -o "$T/gf8.bin" >/dev/null 2>&1 && $SASIM run "$T/gf8.bin" --stats >"$T/gf8.out" 2>&1 &&
   grep -qE '^DRAM saved +20 B kept on chip \(GBUF read \+ written\): at least 3.250 nJ of DRAM \(its bytes at 162.5 pJ/B\)' "$T/gf8.out"; then
  pass stats-gbuf-narrow
else fail stats-gbuf-narrow "$(grep -i 'arch\|saved\|error' "$T/gf8.out" "$T/gf8.s" 2>/dev/null | head -c 400)"; fi

expect json 0 '' -- $SASIM run "$T/g.bin" --json "$T/d.json" --csv "$T/d.csv"
python3 - "$T/d.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
e, a = d["energy"], d["area"]
comps = ["mac", "pe_regs", "spad", "wbuf", "acc", "param", "gbuf", "dram", "post", "sfu", "leakage"]
why = []
if sorted(e["components"]) != sorted(comps): why.append("energy components %s" % sorted(e["components"]))
if abs(sum(e["components"].values()) - e["total_pj"]) > 1e-6 * e["total_pj"]: why.append("components do not add up")
for k in ("node", "total_pj", "power_mw", "tops_per_w"):
    if k not in e: why.append("no energy." + k)
if abs(e["tops_per_w"] - 2 * d["array_macs"] / e["total_pj"]) > 1e-9 * e["tops_per_w"]: why.append("tops_per_w")
if abs(e["power_mw"] - e["total_pj"] / d["time_us"] / 1000) > 1e-9 * e["power_mw"]: why.append("power_mw")
if sorted(a["components"]) != sorted(["pe_array", "spad", "wbuf", "acc", "param", "gbuf", "post", "sfu", "control"]): why.append("area components")
if e["components"]["gbuf"] != 0 or e["dram_saved_pj"] != 0 or d["gbuf"]["dram_saved_bytes"] != 0: why.append("gbuf energy or saving in a program without GBUF instructions")
if e["components"]["sfu"] != 0: why.append("sfu energy %s in a program without SFU instructions" % e["components"]["sfu"])
if a["node"] != "45nm" or abs(sum(a["components"].values()) - a["total_mm2"]) > 1e-9: why.append("area total/node")
c = d["clock"]
if c["arch_mhz"] != 1000 or not (0 < c["estimated_mhz"] < c["arch_mhz"]) or c["arch_faster_than_estimate"] is not True: why.append("clock %s" % c)
if sorted(c["block_ps"]) != ["pe_array", "post", "rotator"] or abs(1e6 / max(c["block_ps"].values()) - c["estimated_mhz"]) > 1e-6: why.append("clock blocks")
if c["critical_block"] != max(c["block_ps"], key=c["block_ps"].get): why.append("critical block")
for l in d["layers"]:
    if "energy_pj" not in l or sorted(l.get("energy_components", {})) != sorted(comps): why.append("layer " + l["name"])
    if l.get("dram_saved_bytes") != 0 or l.get("dram_saved_pj") != 0: why.append("layer %s dram_saved" % l["name"])
print("FAIL energy-json-keys: " + "; ".join(why) if why else "PASS energy-json-keys")
EOF
head -n 1 "$T/d.csv" | grep -q ',dram_saved_bytes,energy_pj,energy_mac_pj,energy_pe_regs_pj,.*,energy_gbuf_pj,.*,energy_leakage_pj,dram_saved_pj,dataflow$' && pass csv-columns ||
  fail csv-columns "header: $(head -n 1 "$T/d.csv")"

# --energy: MAC energy doubled; everything else as before.
python3 -c '
import json, sys
t = json.load(open("workloads/energy/default.json"))
t["energy"]["int8_mult_pj"]["value"] += 0.3   # a MAC: 0.5 + 0.1, twice 0.3
t["name"] = "mac-x2"
json.dump(t, open(sys.argv[1], "w"), indent=2)' "$T/mac2.json"
expect override 0 '' -- $SASIM run "$T/g.bin" --energy "$T/mac2.json" --json "$T/m.json"
python3 - "$T/d.json" "$T/m.json" <<'EOF'
import json, sys
x, y = (json.load(open(f))["energy"] for f in sys.argv[1:3])
ok = y["table"] == "mac-x2" and abs(y["components"]["mac"] - 2 * x["components"]["mac"]) < 1e-9 and x["components"]["mac"] > 0
ok = ok and all(y["components"][k] == v for k, v in x["components"].items() if k != "mac")
print("PASS energy-override-mac" if ok else "FAIL energy-override-mac: %s vs %s" % (x["components"], y["components"]))
EOF
expect default-file 0 '' -- $SASIM run "$T/g.bin" --energy workloads/energy/default.json --json "$T/f.json"
cmp -s "$T/d.json" "$T/f.json" && pass default-file-same || fail default-file-same "--energy default.json differs from the built-in table"

# A table without the special-function unit's area (its four entries at 0) prices the machine as
# before the unit: no sfu area, and area and leakage as the sum of the other components.
python3 -c '
import json, sys
t = json.load(open("workloads/energy/default.json"))
for k in ("sfu_lane_transistors", "sfu_scalar_transistors", "sfu_control_transistors", "flip_flop_transistors"):
    t["area"][k]["value"] = 0
json.dump(t, open(sys.argv[1], "w"), indent=2)' "$T/nosfu.json"
expect no-sfu-table 0 '' -- $SASIM run "$T/g.bin" --energy "$T/nosfu.json" --json "$T/n.json"
python3 - "$T/d.json" "$T/n.json" <<'EOF'
import json, sys
x, y = (json.load(open(f)) for f in sys.argv[1:3])
ok = y["area"]["components"]["sfu"] == 0 and x["area"]["components"]["sfu"] > 0
ok = ok and abs(x["area"]["total_mm2"] - y["area"]["total_mm2"] - x["area"]["components"]["sfu"]) < 1e-9
ok = ok and y["energy"]["components"]["leakage"] < x["energy"]["components"]["leakage"]
ok = ok and all(y["energy"]["components"][k] == v for k, v in x["energy"]["components"].items() if k != "leakage")
print("PASS energy-no-sfu-area" if ok else "FAIL energy-no-sfu-area: %s vs %s" % (x["area"], y["area"]))
EOF

sed 's/"value": 162.5/"value": -1/' workloads/energy/default.json >"$T/bad.json"
expect bad-table 1 'bad.json:[0-9]+:[0-9]+: energy.dram_byte_pj.value: error: -1 is out of range' -- $SASIM run "$T/g.bin" --energy "$T/bad.json"
expect missing-table 1 'nope.json.*error' -- $SASIM run "$T/g.bin" --energy "$T/nope.json"
expect energy-needs-value 2 '--energy needs a value' -- $SASIM run "$T/g.bin" --energy
