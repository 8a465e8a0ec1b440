#!/usr/bin/env python3
# costmodel.py [--table] DIR: the tiling cost model against the simulator, for tests/cli/costmodel.sh
# (not run by itself). DIR holds, per case K = <net>.<dataflow>.<arch>: K.sacc.json (sacc compile
# --json: "est_cycles" of the net and of each layer, the sum of its ops' estimates, tile.c) and
# K.sim.json (sasim run --json: "cycles", and per layer first_start/last_end). For every layer the
# ratio est / span (span = last_end - first_start, the simulated cycles from its first instruction's
# start to its last one's end) must lie in the arch's "layer" bound, and for the net est / cycles in
# its "net" bound (BOUNDS); one PASS/FAIL line per case, a FAIL naming what is out of bounds with
# est, sim and ratio.
# --table prints every layer (net, dataflow, arch, layer, est, sim, ratio) and the extremes instead.
#
# The bounds are what the current model meets, with a little margin (docs/TESTING.md gives the
# measured worst cases and where the model is wrong); they are to be tightened as the model
# improves, never loosened to let a change through.
import json
import os
import sys

# est / sim, [low, high], per arch: measured extremes (small shipped nets, ws/os/is, 2026-11-25)
# with about 10% margin. "layer": est / simulated span of each layer; "net": est (the sum over the
# ops) / simulated cycles of the whole net.
BOUNDS = {
    "default": {"layer": (0.27, 1.80), "net": (0.85, 2.70)},  # measured 0.30 .. 1.63, net 0.95 .. 2.45
    "tiny": {"layer": (0.18, 0.93), "net": (0.37, 0.87)},     # measured 0.20 .. 0.84, net 0.41 .. 0.79
}


def load(d, k):
    with open(os.path.join(d, k + ".sacc.json")) as fh:
        # sacc's object has "layers" twice (the count, then the list): keep the list
        c = json.load(fh, object_pairs_hook=lambda kv: {a: b for a, b in kv
                                                        if not (a == "layers" and isinstance(b, int))})
    with open(os.path.join(d, k + ".sim.json")) as fh:
        s = json.load(fh)
    return c, s


def rows(c, s):
    """(layer name, est, simulated span) per layer, in LAYER order."""
    ce, sl = c["layers"], s["layers"]
    if [x["name"] for x in ce] != [x["name"] for x in sl]:
        raise ValueError("sacc and sasim name different layers: %s vs %s" %
                         ([x["name"] for x in ce], [x["name"] for x in sl]))
    return [(a["name"], a["est_cycles"], b["last_end"] - b["first_start"]) for a, b in zip(ce, sl)]


def ratio(est, sim):
    return est / sim if sim > 0 else float("inf")


def inside(r, bound):
    return bound[0] <= r <= bound[1]


def main():
    table = sys.argv[1] == "--table"
    d = sys.argv[-1]
    cases = sorted(n[:-len(".sim.json")] for n in os.listdir(d) if n.endswith(".sim.json"))
    worst = {}  # what -> (ratio, description), lowest and highest
    if table:
        print("%-18s %-3s %-8s %-16s %9s %9s %6s" % ("net", "df", "arch", "layer", "est", "sim", "ratio"))
    for k in cases:
        net, df, arch = k.rsplit(".", 2)
        lb, nb = BOUNDS[arch]["layer"], BOUNDS[arch]["net"]
        try:
            c, s = load(d, k)
            rs = rows(c, s)
        except (OSError, ValueError, KeyError) as e:
            print("FAIL costmodel-%s: %s" % (k, e))
            continue
        bad = []
        for name, est, sim in rs:
            r = ratio(est, sim)
            desc = "%s %s %s %s: est %.0f, sim %d, ratio %.2f" % (net, df, arch, name, est, sim, r)
            for w in ("layer_lo", "layer_hi"):
                if w not in worst or (r < worst[w][0] if w.endswith("lo") else r > worst[w][0]):
                    worst[w] = (r, desc)
            if table:
                print("%-18s %-3s %-8s %-16s %9.0f %9d %6.2f" % (net, df, arch, name, est, sim, r))
            if not inside(r, lb):
                bad.append("%s est %.0f sim %d ratio %.2f" % (name, est, sim, r))
        est, sim = c["est_cycles"], s["cycles"]
        r = ratio(est, sim)
        desc = "%s %s %s (net): est %.0f, sim %d, ratio %.2f" % (net, df, arch, est, sim, r)
        for w in ("net_lo", "net_hi"):
            if w not in worst or (r < worst[w][0] if w.endswith("lo") else r > worst[w][0]):
                worst[w] = (r, desc)
        if table:
            print("%-18s %-3s %-8s %-16s %9.0f %9d %6.2f" % (net, df, arch, "(net)", est, sim, r))
        if not inside(r, nb):
            bad.insert(0, "net est %.0f sim %d ratio %.2f (net bound [%.2f, %.2f])" % (est, sim, r, *nb))
        if table:
            continue
        if bad:
            print("FAIL costmodel-%s: est/sim out of bounds (layer bound [%.2f, %.2f]): %s" %
                  (k, lb[0], lb[1], "; ".join(bad)))
        else:
            print("PASS costmodel-" + k)
    if table:
        for w in ("layer_lo", "layer_hi", "net_lo", "net_hi"):
            if w in worst:
                print("# %-8s %s" % (w, worst[w][1]))


if __name__ == "__main__":
    main()
