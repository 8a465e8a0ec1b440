#!/usr/bin/env python3
"""sfu_ref.py: the special-function unit's instructions re-implemented independently of the C code,
in plain Python integers, from docs/SFU.md section 2 (the functions) and docs/ISA.md section 6.8
(how the instructions apply them), for the hand-written programs workloads/asm/sfu_*.s.

  sfu_ref.py PROG.s OUT.npy     models PROG.s (one of the programs below) and writes the
                                expected contents of its output tensor Y

Each program is modelled by a short function naming its instructions; the input tensors are
read from the .s file's `.tensor NAME ... data=[...]` lines, so the data cannot drift."""
import re
import struct
import sys

# ---- docs/SFU.md section 1: notation ----------------------------------------------------------


def asr(v, s):
    return v >> s  # Python's >> on ints is floor division by 2^s for either sign


def rnd(m, s):
    assert m >= 0 and s >= 1
    return (m + (1 << (s - 1))) >> s


def bitlen(v):
    return v.bit_length()


def poly(c, u, S, G):
    c0, c1, c2 = c
    return c0 + asr(u * (c1 + asr(c2 * u, S)), S + G)


# ---- section 2.1 ------------------------------------------------------------------------------


def recip(v):
    if v == 0:
        return (0, 16)
    e = bitlen(v) - 16
    m = v >> e if e >= 0 else v << -e
    return ((1 << 31) // m, 31 + e)


def isqrt32(m):
    root = rem = 0
    for i in range(15, -1, -1):
        rem = 4 * rem + ((m >> (2 * i)) & 3)
        root = 2 * root
        if rem >= 2 * root + 1:
            rem -= 2 * root + 1
            root += 1
    return root


def rsqrt(v):
    if v == 0 or v >= 1 << 48:
        return (0, 16)
    j = (32 - bitlen(v)) // 2
    m = v << (2 * j) if j >= 0 else v >> (-2 * j)
    s = isqrt32(m)
    return ((1 << 31) // s, 31 - j)


# ---- 2.2 exp ----------------------------------------------------------------------------------
EXP2 = [(65536, -181306, 14514), (55108, -152394, 12150), (46340, -128148, 10216), (38967, -107759, 8591)]


def exp_q(x):
    a = -x if x < 0 else 0
    t = a * 94548
    z = t >> 27
    f = (t >> 12) & 0x7FFF
    k, u = f >> 13, f & 0x1FFF
    p = poly(EXP2[k], u, 13, 4)
    return rnd(p, z + 1)


# ---- 2.3 Phi and GELU -------------------------------------------------------------------------
PHI = [(32766, 105178, -1610), (39236, 101862, -4546), (45315, 92614, -6691), (50684, 79057, -7772),
       (55139, 63360, -7789), (58613, 47678, -6973), (61159, 33688, -5671), (62912, 22351, -4231),
       (64046, 13925, -2913), (64736, 8147, -1859), (65130, 4476, -1102), (65341, 2309, -608),
       (65448, 1119, -313), (65499, 509, -150), (65521, 218, -68), (65531, 87, -28)]


def phi_q(a):
    if a >= 8192:
        return 65536
    return min(65536, poly(PHI[a >> 9], a & 511, 9, 4))


def gelu_q(x):
    a = abs(x)
    P = phi_q(a)
    return rnd(a * P, 16) if x >= 0 else -rnd(a * (65536 - P), 16)


# ---- 2.4 sigmoid, SiLU ------------------------------------------------------------------------


def sn_of(x):
    a = abs(x)
    E = exp_q(-a)
    D = 32768 + E
    return a, (E * 65536 + D) // (2 * D)


def sigmoid_q(x):
    a, sn = sn_of(x)
    return 32768 - sn if x >= 0 else sn


def silu_q(x):
    a, sn = sn_of(x)
    return rnd(a * (32768 - sn), 15) if x >= 0 else -rnd(a * sn, 15)


# ---- 2.5 h-sigmoid, h-swish -------------------------------------------------------------------


def hsigmoid_q(x):
    c = min(max(x + 6144, 0), 12288)
    return (16 * c + 3) // 6


def hswish_q(x):
    c = min(max(x + 6144, 0), 12288)
    m = (2 * abs(x) * c + 12288) // 24576
    return m if x >= 0 else -m


# ---- docs/ISA.md 6.1 and 6.8 ------------------------------------------------------------------


def wrap32(v):
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def sat(v, bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return min(max(v, lo), hi)


def round_shift(p, s):
    return p if s == 0 else (p + (1 << (s - 1))) >> s


FN = {"identity": lambda v: v, "exp": exp_q, "gelu": gelu_q, "sigmoid": sigmoid_q, "silu": silu_q,
      "hsigmoid": hsigmoid_q, "hswish": hswish_q}


class Machine:
    """The accumulator (rows x C int32), PARAM, and the CFG_SFU registers."""

    def __init__(self, C, acc_rows, param_rows=8):
        self.C = C
        self.acc = [[0] * C for _ in range(acc_rows)]
        self.param = [[0] * C for _ in range(param_rows)]
        self.mult = self.shift = self.eps = 0

    def load_acc(self, dst, values, mult=1, shift=0):  # LOAD mem=acc, rows of C int8 values
        for i in range(0, len(values), self.C):
            self.acc[dst + i // self.C] = [sat(round_shift(v * mult, shift), 32) for v in values[i:i + self.C]]

    def load_param(self, dst, words):  # LOAD mem=param, rows of C int32 words
        for i in range(0, len(words), self.C):
            self.param[dst + i // self.C] = list(words[i:i + self.C])

    def cfg_sfu(self, mult=0, shift=0, eps=0):
        self.mult, self.shift, self.eps = mult, shift, eps

    def sfu_map(self, fn, src, acc_addr, rows):
        out = [[FN[fn](sat(round_shift(a * self.mult, self.shift), 16)) for a in self.acc[src + i]] for i in range(rows)]
        for i in range(rows):
            self.acc[acc_addr + i] = out[i]

    def sfu_ew(self, op, src, src2, acc_addr, rows, bcast=0):
        f = {"add": lambda a, b: wrap32(a + b), "sub": lambda a, b: wrap32(a - b), "mul": lambda a, b: sat(a * b, 32)}[op]
        out = [[f(a, b) for a, b in zip(self.acc[src + i], self.acc[src2 + (0 if bcast else i)])] for i in range(rows)]
        for i in range(rows):
            self.acc[acc_addr + i] = out[i]

    def _place(self, base, r, j, sstride):  # value j of row r: (row, column)
        return base + r + (j // self.C) * sstride, j % self.C

    def _values(self, src, r, n, sstride):
        return [self.acc[row][c] for row, c in (self._place(src, r, j, sstride) for j in range(n))]

    def _put(self, dst, r, sstride, ys):
        for j, y in enumerate(ys):
            row, c = self._place(dst, r, j, sstride)
            self.acc[row][c] = y

    def sfu_softmax(self, src, acc_addr, rows, len, sstride, sm_mult, sm_shift, sm_j):
        for r in range(rows):
            q = [sat(v, 8) for v in self._values(src, r, len, sstride)]
            M = max(q)
            xs = [-min(32768, rnd((M - qi) * sm_mult, sm_shift) if sm_shift else (M - qi) * sm_mult) for qi in q]
            e = [exp_q(x) for x in xs]
            m, s = recip(sum(e))
            t = s - 7 - sm_j
            self._put(acc_addr, r, sstride, [min(127, rnd(ei * m, t)) for ei in e])

    def sfu_layernorm(self, src, acc_addr, rows, len, sstride, pbase):
        n = len
        for r in range(rows):
            x = [sat(v, 8) for v in self._values(src, r, n, sstride)]
            S1, S2 = sum(x), sum(v * v for v in x)
            V = n * S2 - S1 * S1 + self.eps
            m, s = rsqrt(V)
            ys = []
            for j, xj in enumerate(x):
                if V == 0:
                    z = 0
                else:
                    d = n * xj - S1
                    mag = min(32767, rnd(abs(d) * m, s - 11))
                    z = mag if d >= 0 else -mag
                seg, c = j // self.C, j % self.C
                beta, gamma, sh = (self.param[pbase + 3 * seg + k][c] for k in range(3))
                ys.append(sat(sat(round_shift(z * gamma, sh % 64) + beta, 32), 8))
            self._put(acc_addr, r, sstride, ys)

    def sfu_reduce(self, red, src, acc_addr, rows, len, sstride):
        outs = []
        for r in range(rows):
            v = self._values(src, r, len, sstride)
            y = {"max": max(v), "sum": sat(sum(v), 32), "sumsq": sat(sum(a * a for a in v), 32)}[red]
            outs.append([y] + [0] * (self.C - 1))
        for r in range(rows):
            self.acc[acc_addr + r] = outs[r]


# ---- the programs -----------------------------------------------------------------------------


def prog_sfu_map(t):
    m = Machine(4, 64)
    m.load_acc(0, t["X"])
    m.cfg_sfu(mult=1 << 30, shift=23)   # x * 128: an int8 at scale 1/16 as Q4.11
    m.sfu_map("gelu", 0, 0, 1)
    m.sfu_map("sigmoid", 1, 1, 1)
    m.sfu_map("silu", 2, 2, 1)
    m.sfu_map("hsigmoid", 3, 3, 1)
    m.sfu_map("hswish", 4, 4, 1)
    m.sfu_map("exp", 5, 5, 2)
    m.cfg_sfu(mult=-(1 << 30), shift=20)   # -x * 1024: a negated, coarser scale (saturates at |x| > 32)
    m.sfu_map("identity", 7, 8, 1)
    return [v for row in m.acc[:9] for v in row], [9, 4]


def prog_sfu_softmax(t):
    m = Machine(4, 64)
    m.load_acc(0, t["X"])
    m.sfu_softmax(src=0, acc_addr=4, rows=2, len=6, sstride=2, sm_mult=128, sm_shift=0, sm_j=0)
    m.sfu_softmax(src=0, acc_addr=0, rows=2, len=6, sstride=2, sm_mult=300, sm_shift=2, sm_j=1)
    return [v for row in m.acc[:8] for v in row], [8, 4]


def prog_sfu_layernorm(t):
    m = Machine(4, 64)
    m.load_acc(0, t["X"])
    m.load_param(0, t["P"])
    m.cfg_sfu(eps=0)
    m.sfu_layernorm(src=0, acc_addr=4, rows=2, len=6, sstride=2, pbase=0)
    m.cfg_sfu(eps=5000)
    m.sfu_layernorm(src=0, acc_addr=0, rows=2, len=6, sstride=2, pbase=0)
    return [v for row in m.acc[:8] for v in row], [8, 4]


def prog_sfu_ew(t):
    m = Machine(4, 64)
    m.load_acc(0, t["X"][:16])
    m.load_acc(4, t["X"][16:], mult=1 << 24)
    m.sfu_ew("add", 4, 6, 8, 2)
    m.sfu_ew("sub", 4, 6, 10, 2)
    m.sfu_ew("mul", 0, 4, 12, 2)
    m.sfu_ew("mul", 0, 3, 14, 2, bcast=1)
    m.sfu_ew("add", 0, 1, 0, 1)
    return [v for row in m.acc[:16] for v in row], [16, 4]


def prog_sfu_reduce(t):
    m = Machine(4, 64)
    m.load_acc(0, t["X"][:24], mult=1 << 20)
    m.load_acc(6, t["X"][24:])
    m.sfu_reduce("max", 0, 8, 2, 10, 2)
    m.sfu_reduce("sum", 0, 10, 2, 10, 2)
    m.sfu_reduce("sumsq", 0, 12, 2, 10, 2)
    m.sfu_reduce("sumsq", 6, 14, 2, 4, 0)
    m.sfu_reduce("sum", 6, 6, 2, 3, 0)
    return [v for row in m.acc[:16] for v in row], [16, 4]


PROGS = {"sfu_map": prog_sfu_map, "sfu_softmax": prog_sfu_softmax, "sfu_layernorm": prog_sfu_layernorm,
         "sfu_ew": prog_sfu_ew, "sfu_reduce": prog_sfu_reduce}


def tensors_of(path):
    out = {}
    for line in open(path):
        mt = re.match(r"\.tensor\s+(\w+)\s.*data=\[([^\]]*)\]", line)
        if mt:
            out[mt.group(1)] = [int(v) for v in mt.group(2).replace(" ", "").split(",") if v]
    return out


def write_npy_int32(path, values, shape):
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in shape).rstrip(" ")
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%di" % len(values), *values))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name = re.sub(r"\.s$", "", sys.argv[1].split("/")[-1])
    if name not in PROGS:
        sys.exit("sfu_ref.py: no model of %s (models: %s)" % (name, ", ".join(sorted(PROGS))))
    values, shape = PROGS[name](tensors_of(sys.argv[1]))
    write_npy_int32(sys.argv[2], values, shape)


if __name__ == "__main__":
    main()
