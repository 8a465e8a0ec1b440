// numerics.h: the machine's integer arithmetic, bit for bit (docs/ISA.md, "Numerics").
// Both simulator engines call these; the RTL implements the same expressions. Everything is
// computed so that no signed overflow happens in C (UBSan stays quiet): wraps go through uint32_t.
#ifndef SA_NUMERICS_H
#define SA_NUMERICS_H

#include <stdint.h>

#include "isa.h"   // ACT_NONE, ACT_RELU, ACT_CLAMP: the ACT field's values (isa_enums.def)

// Two's complement wrap-around addition, as the 32-bit accumulators do.
static inline int32_t sa_wrap_add32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t sa_wrap_mul8(int8_t a, int8_t b) { return (int32_t)a * (int32_t)b; }  // exact in 16 bits

static inline int32_t sa_sat32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}
static inline int8_t sa_sat8(int32_t v) { return v > 127 ? 127 : v < -128 ? -128 : (int8_t)v; }

// Rounding arithmetic right shift: floor((p + 2^(s-1)) / 2^s) for s in 1..63 (round half up,
// towards +infinity); p itself for s == 0. Computed as floor(p / 2^s) plus the bit just below
// the cut, which never overflows (|p| <= 2^62 by construction: int32 x int32).
static inline int64_t sa_round_shift(int64_t p, unsigned s) {
  if (s == 0) return p;
  int64_t floor_q = p >= 0 ? p >> s : ~(~p >> s);
  return floor_q + (int64_t)(((uint64_t)p >> (s - 1)) & 1u);
}

// int8 loaded into the accumulator: sat32(round_shift(x * mult, shift)).
static inline int32_t sa_load_scale(int8_t x, int32_t mult, unsigned shift) {
  return sa_sat32(sa_round_shift((int64_t)x * mult, shift));
}

// Requantization of one int32 value v (already biased): sat32(round_shift(v * mult, shift)).
static inline int32_t sa_requant(int32_t v, int32_t mult, unsigned shift) {
  return sa_sat32(sa_round_shift((int64_t)v * mult, shift));
}

// Activation on int32 then saturation to int8. act: ACT_NONE, ACT_RELU, or ACT_CLAMP to [lo, hi].
static inline int8_t sa_activate(int32_t v, unsigned act, int8_t lo, int8_t hi) {
  if (act == ACT_RELU && v < 0) v = 0;
  if (act == ACT_CLAMP) v = v < lo ? lo : v > hi ? hi : v;
  return sa_sat8(v);
}

// The whole post-processing of one accumulator value (no pooling, or one element of a max pool).
static inline int8_t sa_post(int32_t acc, int32_t bias, int32_t mult, unsigned shift, unsigned act, int8_t lo,
                             int8_t hi) {
  int32_t v = sa_sat32((int64_t)acc + bias);
  return sa_activate(sa_requant(v, mult, shift), act, lo, hi);
}

#endif
