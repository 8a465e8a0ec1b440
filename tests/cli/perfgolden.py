#!/usr/bin/env python3
# perfgolden.py DIR GOLDEN_DIR: the performance goldens of tests/cli/perf.sh (not run by itself).
# DIR holds, per compiled case K (<net>.<dataflow>[.<arch>]): K.json (sasim run --json) and K.asm
# (sasim disasm). Each case becomes a flat object, one "dotted.key": value per line, sorted:
#   cycles, useful_macs, array_macs, array_slots, utilization, fetch_stall, dram.*     the run
#   units.<u>.{insns,busy,wait_token,wait_resource,idle}          per unit
#   program.insns, program.op.<OPCODE>                            the program's size and mix
#   layer.<NN>.<name>.{first_start,last_end,span,useful_macs,array_macs,dram_read_bytes,dram_write_bytes,
#                      busy.<u>,wait_token.<u>,wait_resource.<u>} per LAYER marker (NN: its index)
# and is compared with GOLDEN_DIR/K.perf.json: one "PASS perf-K" or "FAIL perf-K: ..." line per
# case; a FAIL names the fields that moved, from what to what (headline figures first, then the
# other totals, then the layers; the first few, then how many more). With SA_GOLDEN_UPDATE=1 the
# goldens are rewritten first ("wrote F" on stderr). A golden with no case in DIR (and no K.failed
# marker: its run failed and said so) fails too: its network was removed, renamed or moved to BIG.
import json
import os
import re
import sys

UNITS = ("load", "compute", "store", "sfu")
RUN_KEYS = ("cycles", "useful_macs", "array_macs", "array_slots", "utilization", "fetch_stall")
DRAM_KEYS = ("read_bytes", "write_bytes", "read_beats", "write_beats")
UNIT_KEYS = ("insns", "busy", "wait_token", "wait_resource", "idle")
LAYER_KEYS = ("first_start", "last_end", "useful_macs", "array_macs", "dram_read_bytes", "dram_write_bytes")
LAYER_UNIT_KEYS = ("busy", "wait_token", "wait_resource")
SHOW = 6  # moved fields named in one FAIL line
FIRST = ("cycles", "program.insns", "dram.read_bytes", "dram.write_bytes", "utilization")  # named first


def flatten(stats, asm_lines):
    f = {}
    for k in RUN_KEYS:
        f[k] = stats[k]
    for k in DRAM_KEYS:
        f["dram." + k] = stats["dram"][k]
    for u in UNITS:
        for k in UNIT_KEYS:
            f["units.%s.%s" % (u, k)] = stats["units"][u][k]
    m = re.match(r"; (\d+) instructions", asm_lines[0]) if asm_lines else None
    if not m:
        raise ValueError("sasim disasm: no '; N instructions' header")
    f["program.insns"] = int(m.group(1))
    for line in asm_lines[1:]:
        op = line.split(" ", 1)[0].strip()
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", op):
            f["program.op." + op] = f.get("program.op." + op, 0) + 1
    layers = stats.get("layers", [])
    width = len(str(max(len(layers) - 1, 0)))
    for i, l in enumerate(layers):
        p = "layer.%0*d.%s." % (max(width, 2), i, l["name"])
        for k in LAYER_KEYS:
            f[p + k] = l[k]
        f[p + "span"] = l["last_end"] - l["first_start"]
        for k in LAYER_UNIT_KEYS:
            for u in UNITS:
                f[p + k + "." + u] = l["units"][u][k]
    return f


def dumps(f):
    return json.dumps(f, indent=2, sort_keys=True) + "\n"


def order(k):  # the headline figures, then the other totals, then the layers
    return (FIRST.index(k) if k in FIRST else len(FIRST), k.startswith("layer."), k)


def moved(want, got):
    out = []
    for k in sorted(set(want) | set(got), key=order):
        if k not in got:
            out.append("%s %s -> (gone)" % (k, want[k]))
        elif k not in want:
            out.append("%s (new) -> %s" % (k, got[k]))
        elif want[k] != got[k]:
            a, b = want[k], got[k]
            rel = " (%+.1f%%)" % (100.0 * (b - a) / a) if isinstance(a, (int, float)) and a else ""
            out.append("%s %s -> %s%s" % (k, a, b, rel))
    return out


def main():
    d, gdir = sys.argv[1], sys.argv[2]
    update = os.environ.get("SA_GOLDEN_UPDATE", "0") == "1"
    cases = sorted(n[:-5] for n in os.listdir(d) if n.endswith(".json"))
    for k in cases:
        g = os.path.join(gdir, k + ".perf.json")
        try:
            with open(os.path.join(d, k + ".json")) as fh:
                stats = json.load(fh)
            with open(os.path.join(d, k + ".asm")) as fh:
                asm = fh.read().splitlines()
            got = flatten(stats, asm)
        except (OSError, ValueError, KeyError) as e:
            print("FAIL perf-%s: cannot read the run's statistics: %s" % (k, e))
            continue
        if update:
            with open(g, "w") as fh:
                fh.write(dumps(got))
            print("wrote " + g, file=sys.stderr)
        try:
            with open(g) as fh:
                want = json.load(fh)
        except OSError:
            print("FAIL perf-%s: no %s (run make golden)" % (k, g))
            continue
        diff = moved(want, got)
        if not diff:
            print("PASS perf-" + k)
            continue
        more = " ... and %d more" % (len(diff) - SHOW) if len(diff) > SHOW else ""
        print("FAIL perf-%s: %d field(s) moved from %s: %s%s" %
              (k, len(diff), g, "; ".join(diff[:SHOW]), more))
    for n in sorted(os.listdir(gdir)):
        k = n[:-len(".perf.json")]
        if n.endswith(".perf.json") and k not in cases and not os.path.exists(os.path.join(d, k + ".failed")):
            print("FAIL perf-%s: %s has no case (network removed or renamed? delete the golden)" %
                  (k, os.path.join(gdir, n)))


if __name__ == "__main__":
    main()
