// sfu_math_tb.cpp: Verilator bench of rtl/sa_sfu_math.sv against isa/sfu_math.c (tests/rtl/sfu_math.sh
// builds it). Every op of the datapath is compared with the C function, bit for bit: exhaustively over
// the 16-bit inputs (x in Q4.11 for the element functions; every d, mult step and e for softmax),
// on 10^6 random inputs plus edge values for the wide ones (reciprocal, inverse sqrt, softmax
// normalisation, layer-norm element). Prints one PASS/FAIL line per op and "vectors N" at the end.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "Vsa_sfu_math.h"
#include "verilated.h"

extern "C" {
#include "sfu_math.h"
}

namespace {

enum : uint8_t { OP_EXP, OP_GELU, OP_SIGMOID, OP_SILU, OP_HSIGMOID, OP_HSWISH, OP_RECIP, OP_RSQRT,
                 OP_SOFTMAX_ARG, OP_SOFTMAX_NORM, OP_LAYERNORM_ELEM };

uint64_t rng_state = 0x9e3779b97f4a7c15ull;
uint64_t rng() {  // xorshift64*
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

long vectors = 0;
int failed_ops = 0;

struct Op {
  const char *name;
  long fails = 0;
  char first[200] = "";
};

uint32_t eval(Vsa_sfu_math *m, uint8_t op, uint64_t a, uint32_t mant, unsigned shift) {
  m->op_i = op;
  m->a_i = a;
  m->mant_i = mant;
  m->shift_i = shift;
  m->eval();
  vectors++;
  return m->y_o;
}

void compare(Op &o, uint32_t got, uint32_t want, uint64_t a, uint32_t mant, unsigned shift) {
  if (got == want) return;
  if (o.fails++ == 0)
    snprintf(o.first, sizeof o.first, "a=%" PRIu64 " mant=%u shift=%u: rtl %u (0x%x), c %u (0x%x)", a, mant, shift,
             got, got, want, want);
}

void report(const Op &o, long n) {
  if (o.fails == 0) {
    printf("PASS rtl-sfu-%s (%ld vectors)\n", o.name, n);
  } else {
    printf("FAIL rtl-sfu-%s: %ld of %ld differ; first %s\n", o.name, o.fails, n, o.first);
    failed_ops++;
  }
}

uint32_t packed(SfuRecip r) { return (r.shift << 17) | r.mant; }

// The sixteen-bit element functions: every x.
void element(Vsa_sfu_math *m, uint8_t op, const char *name, uint32_t (*c)(int16_t)) {
  Op o;
  o.name = name;
  for (int x = -32768; x <= 32767; x++) {
    uint64_t a = (uint16_t)x;
    compare(o, eval(m, op, a, 0, 0), c((int16_t)x), a, 0, 0);
  }
  report(o, 65536);
}

uint32_t c_exp(int16_t x) { return sfu_exp(x); }
uint32_t c_gelu(int16_t x) { return (uint32_t)(int32_t)sfu_gelu(x); }
uint32_t c_sigmoid(int16_t x) { return sfu_sigmoid(x); }
uint32_t c_silu(int16_t x) { return (uint32_t)(int32_t)sfu_silu(x); }
uint32_t c_hsigmoid(int16_t x) { return sfu_hsigmoid(x); }
uint32_t c_hswish(int16_t x) { return (uint32_t)(int32_t)sfu_hswish(x); }

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  long random_n = argc > 1 ? strtol(argv[1], nullptr, 10) : 1000000;
  Vsa_sfu_math *m = new Vsa_sfu_math;

  element(m, OP_EXP, "exp", c_exp);
  element(m, OP_GELU, "gelu", c_gelu);
  element(m, OP_SIGMOID, "sigmoid", c_sigmoid);
  element(m, OP_SILU, "silu", c_silu);
  element(m, OP_HSIGMOID, "hsigmoid", c_hsigmoid);
  element(m, OP_HSWISH, "hswish", c_hswish);

  {  // reciprocal: every v < 2^16, then random 32-bit ones of every length, and the ends
    Op o;
    o.name = "recip";
    long n = 0;
    for (uint32_t v = 0; v < 65536; v++, n++) compare(o, eval(m, OP_RECIP, v, 0, 0), packed(sfu_recip(v)), v, 0, 0);
    for (long i = 0; i < random_n; i++, n++) {
      uint32_t v = (uint32_t)(rng() >> (32 + i % 32));
      compare(o, eval(m, OP_RECIP, v, 0, 0), packed(sfu_recip(v)), v, 0, 0);
    }
    for (uint32_t v : {0xffffffffu, 0x80000000u, 0x7fffffffu, 0x10000u, 0x1ffffu}) {
      compare(o, eval(m, OP_RECIP, v, 0, 0), packed(sfu_recip(v)), v, 0, 0);
      n++;
    }
    report(o, n);
  }
  {  // inverse square root: every v < 2^16, random 48-bit ones of every length, the ends
    Op o;
    o.name = "rsqrt";
    long n = 0;
    for (uint64_t v = 0; v < 65536; v++, n++) compare(o, eval(m, OP_RSQRT, v, 0, 0), packed(sfu_rsqrt(v)), v, 0, 0);
    for (long i = 0; i < random_n; i++, n++) {
      uint64_t v = rng() >> (16 + i % 48);
      compare(o, eval(m, OP_RSQRT, v, 0, 0), packed(sfu_rsqrt(v)), v, 0, 0);
    }
    for (uint64_t v : {0xffffffffffffull, 0x800000000000ull, 0xffffffffull, 0x100000000ull, 0x3fffffffull}) {
      compare(o, eval(m, OP_RSQRT, v, 0, 0), packed(sfu_rsqrt(v)), v, 0, 0);
      n++;
    }
    report(o, n);
  }
  {  // softmax argument: every d (0..255) and shift (0..31) with 96 mults (0..16, each power of two
     // and its neighbours, 65535, and random ones)
    Op o;
    o.name = "softmax-arg";
    uint32_t mults[96];
    int nm = 0;
    for (uint32_t v = 0; v <= 16; v++) mults[nm++] = v;
    for (int b = 5; b < 16; b++) {
      mults[nm++] = (1u << b) - 1;
      mults[nm++] = 1u << b;
      mults[nm++] = (1u << b) + 1;
    }
    mults[nm++] = 65535;
    while (nm < 96) mults[nm++] = (uint32_t)(rng() >> 48);
    long n = 0;
    for (uint32_t d = 0; d < 256; d++)
      for (unsigned s = 0; s < 32; s++)
        for (int i = 0; i < nm; i++, n++) {
          uint32_t want = (uint32_t)(int32_t)sfu_softmax_arg(d, mults[i], s);
          compare(o, eval(m, OP_SOFTMAX_ARG, d, mults[i], s), want, d, mults[i], s);
        }
    report(o, n);
  }
  {  // softmax normalisation: every e (0..32768) with random row reciprocals, then random pairs
    Op o;
    o.name = "softmax-norm";
    long n = 0;
    for (uint32_t e = 0; e <= 32768; e++, n++) {
      SfuRecip r = sfu_recip(32768u + (uint32_t)(rng() >> (33 + e % 31)));   // a sum >= 2^15
      compare(o, eval(m, OP_SOFTMAX_NORM, e, r.mant, r.shift), (uint32_t)(int32_t)sfu_softmax_norm(e, r), e, r.mant,
              r.shift);
    }
    for (long i = 0; i < random_n; i++, n++) {
      uint32_t e = (uint32_t)(rng() % 32769);
      uint32_t sum = e + (uint32_t)(rng() >> (33 + i % 31));
      if (sum < 32768u) sum = 32768u + e;
      SfuRecip r = sfu_recip(sum);
      compare(o, eval(m, OP_SOFTMAX_NORM, e, r.mant, r.shift), (uint32_t)(int32_t)sfu_softmax_norm(e, r), e, r.mant,
              r.shift);
    }
    report(o, n);
  }
  {  // layer-norm element: random d (|d| < 2^24) with the rsqrt of random V (1..2^46)
    Op o;
    o.name = "layernorm-elem";
    long n = 0;
    for (long i = 0; i < random_n; i++, n++) {
      int32_t d = (int32_t)(rng() >> (40 + i % 24)) * ((i & 1) ? -1 : 1);
      uint64_t v = rng() >> (18 + i % 46);
      if (v == 0) v = 1;
      SfuRecip r = sfu_rsqrt(v);
      uint64_t a = (uint64_t)(uint32_t)d & 0x1ffffffu;
      compare(o, eval(m, OP_LAYERNORM_ELEM, a, r.mant, r.shift), (uint32_t)(int32_t)sfu_layernorm_elem(d, r), a,
              r.mant, r.shift);
    }
    report(o, n);
  }
  printf("sfu_math_tb: vectors %ld\n", vectors);
  delete m;
  return failed_ops ? 1 : 0;
}
