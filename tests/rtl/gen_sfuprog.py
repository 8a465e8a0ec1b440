#!/usr/bin/env python3
"""gen_sfuprog.py ARCH.json SEED COUNT OUTDIR: random legal programs for the special-function unit,
as assembly (OUTDIR/s<SEED+i>.s), for tests/rtl/sfu.sh (RTL and detailed engine in lockstep).

Each program loads random int8 data into up to 24 accumulator rows with a random CFG_LOAD scaling
(small, int8-sized or huge int32 values) and random gamma/beta/shift rows into PARAM, then runs 2
to 7 random SFU instructions (SFU_MAP with every FN, SFU_EW with every EWOP, broadcast or not,
SFU_SOFTMAX, SFU_LAYERNORM, SFU_REDUCE with every RED; rows of one or several segments) between
random CFG_SFUs, in place or into other rows, sometimes with a STORE in the middle that the SFU
waits for (tokens sfu->store->sfu), and stores every used row raw (int32). Every instruction
obeys docs/ISA.md section 7 (a source block is the destination or apart from it; SSTRIDE >= ROWS
for rows of several segments; rows inside ACC and PARAM); the assembler and loader check it.
"""
import json
import random
import sys

FNS = ["identity", "exp", "gelu", "sigmoid", "silu", "hsigmoid", "hswish"]
EWOPS = ["add", "sub", "mul"]
REDS = ["max", "sum", "sumsq"]
# FN, EWOP and RED go round their values across a run's programs (not drawn), so that a few
# dozen programs hold every one of them.
TURN = {"fn": 0, "ewop": 0, "red": 0}


def turn(what, values):
    v = values[TURN[what] % len(values)]
    TURN[what] += 1
    return v


def rows_of(src, rows, S, sstride):
    return {src + r + g * sstride for r in range(rows) for g in range(S)}


def apart_or_equal(a, b):
    return a == b or not (a & b)


def sfu_insn(rng, A, C, PR):
    """One random SFU instruction (text), or None when the draw does not fit."""
    kind = rng.choice(["map", "map", "ew", "ew", "softmax", "layernorm", "reduce"])
    rows = rng.randint(1, min(A, 6))
    if kind in ("map", "ew"):
        src = rng.randint(0, A - rows)
        dst = src if rng.random() < 0.4 else rng.randint(0, A - rows)
        s, d = rows_of(src, rows, 1, 0), rows_of(dst, rows, 1, 0)
        if not apart_or_equal(s, d):
            return None
        if kind == "map":
            return "SFU_MAP fn=%s src=%d acc_addr=%d rows=%d" % (turn("fn", FNS), src, dst, rows)
        bcast = rng.random() < 0.4
        n2 = 1 if bcast else rows
        src2 = rng.randint(0, A - n2)
        if not apart_or_equal(rows_of(src2, n2, 1, 0), d):
            return None
        return "SFU_EW ewop=%s bcast=%d src=%d src2=%d acc_addr=%d rows=%d" % (
            turn("ewop", EWOPS), int(bcast), src, src2, dst, rows)
    ln = rng.randint(1, 3 * C + 1)
    long_row = rng.random() < 0.15   # up to every used ACC row, one segment each
    if long_row:
        rows = rng.randint(1, 2)
        ln = rng.randint(1, (A // rows) * C)
    S = (ln + C - 1) // C
    if kind == "layernorm":
        if PR < 3:
            return None
        S = min(S, PR // 3)
        ln = rng.randint((S - 1) * C + 1, S * C)
    sstride = (rows if long_row else rng.randint(rows, rows + 3)) if S > 1 else rng.randint(0, rows)
    span = rows + (S - 1) * sstride
    if span > A:
        return None
    src = rng.randint(0, A - span)
    s = rows_of(src, rows, S, sstride)
    if kind == "reduce":
        dst = src if (S == 1 and rng.random() < 0.4) else rng.randint(0, A - rows)
        d = rows_of(dst, rows, 1, 0)
    else:
        dst = src if rng.random() < 0.4 else rng.randint(0, A - span)
        d = rows_of(dst, rows, S, sstride)
    if not apart_or_equal(s, d):
        return None
    common = "src=%d acc_addr=%d rows=%d len=%d sstride=%d" % (src, dst, rows, ln, sstride)
    if kind == "softmax":
        return "SFU_SOFTMAX %s sm_mult=%d sm_shift=%d sm_j=%d" % (
            common, rng.choice([rng.randint(0, 65535), rng.randint(0, 2048)]), rng.randint(0, 31), rng.randint(0, 15))
    if kind == "layernorm":
        return "SFU_LAYERNORM %s pbase=%d" % (common, rng.randint(0, PR - 3 * S))
    return "SFU_REDUCE red=%s %s" % (turn("red", REDS), common)


def cfg_sfu(rng):
    mult = rng.choice([rng.randint(-2**31, 2**31 - 1), rng.randint(1, 2**16), 1 << rng.randint(0, 30)])
    eps = rng.choice([0, rng.randint(0, 1000), rng.randint(0, 2**46)])
    return "CFG_SFU mult=%d shift=%d eps=%d" % (mult, rng.randint(0, 40), eps)


def program(rng, arch):
    C = arch["array"]["cols"]
    A = min(arch["acc"]["rows"], 24)
    PR = min(arch["param"]["rows"], 12)
    x = [rng.randint(-128, 127) for _ in range(A * C)]
    params = []
    for r in range(PR):
        k = r % 3
        for _ in range(C):
            if k == 0:
                params.append(rng.randint(-60, 60))                     # beta
            elif k == 1:
                params.append(rng.choice([rng.randint(-2**20, 2**20), rng.randint(-2**31, 2**31 - 1)]))
            else:
                params.append(rng.choice([rng.randint(0, 40), rng.randint(-2**31, 2**31 - 1)]))
    xa, pa = 0x100, 0x100 + ((A * C + 63) // 64) * 64
    ya = pa + ((PR * 4 * C + 63) // 64) * 64
    out = [".arch " + json.dumps(arch, separators=(",", ":")), ".layer load", ".layer sfu",
           ".tensor X dtype=int8 shape=[%d,%d] addr=%d role=input data=[%s]" % (A, C, xa, ",".join(map(str, x))),
           ".tensor Y dtype=int32 shape=[%d,%d] addr=%d role=output" % (A, C, ya)]
    if PR:
        out.append(".tensor P dtype=int32 shape=[%d,%d] addr=%d role=const data=[%s]" % (
            PR, C, pa, ",".join(map(str, params))))
    out.append("LAYER layer_id=0")
    # ACC: two halves with different scalings (int8-sized, small, or huge int32 values).
    half = A // 2 if A > 1 else A
    for lo, n in ((0, half), (half, A - half)):
        if n <= 0:
            continue
        mult, shift = rng.choice([(1, 0), (rng.randint(1, 3000), rng.randint(0, 8)), (rng.randint(-2**31, 2**31 - 1), 0),
                                  (1 << rng.randint(10, 24), 0)])
        out.append("CFG_LOAD stride_inner=%d mult=%d shift=%d" % (C, mult, shift))
        out.append("LOAD mem=acc dst=%d dram_addr=%d outer=1 inner=%d nseg=1 seglen=%d" % (lo, xa + lo * C, n, C))
    if PR:
        out.append("CFG_LOAD stride_inner=%d" % (4 * C))
        out.append("LOAD mem=param dst=0 dram_addr=%d outer=1 inner=%d nseg=1 seglen=%d" % (pa, PR, 4 * C))
    out[-1] += " push=sfu"   # the last LOAD ends last: its token covers every load
    out.append("LAYER layer_id=1")
    n = rng.randint(2, 7)
    mid = rng.randint(0, n - 1) if rng.random() < 0.5 else -1
    insns, pop = [], "load"
    while len(insns) < n:
        if rng.random() < 0.3:
            out.append(cfg_sfu(rng))
        t = None
        while t is None:
            t = sfu_insn(rng, A, C, PR)
        last = len(insns) == n - 1
        push = "store" if (last or len(insns) == mid) else None
        t += (" pop=" + pop if pop else "") + (" push=" + push if push else "")
        pop = None
        out.append(t)
        insns.append(t)
        if len(insns) - 1 == mid and not last:
            # A STORE of a few rows in the middle; the next SFU instruction waits for it.
            r0 = rng.randint(0, A - 1)
            k = rng.randint(1, A - r0)
            out.append("CFG_STORE stride_inner=%d" % (4 * C))
            out.append("STORE raw32=1 pop=sfu push=sfu src=%d dram_addr=%d outer=1 inner=%d cols=%d" % (r0, ya + r0 * 4 * C, k, C))
            pop = "store"
    out.append("CFG_STORE stride_inner=%d" % (4 * C))
    out.append("STORE raw32=1 pop=sfu src=0 dram_addr=%d outer=1 inner=%d cols=%d" % (ya, A, C))
    out.append("HALT")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 5:
        sys.stderr.write("usage: gen_sfuprog.py ARCH.json SEED COUNT OUTDIR\n")
        return 2
    with open(sys.argv[1]) as f:
        arch = json.load(f)
    arch.pop("comment", None)
    seed, count, outdir = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    for k in TURN:
        TURN[k] = seed
    for i in range(count):
        rng = random.Random(seed + i)
        with open("%s/s%d.s" % (outdir, seed + i), "w") as f:
            f.write(program(rng, arch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
