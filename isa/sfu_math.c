// sfu_math.c: the integer special functions of sfu_math.h, as docs/SFU.md §2 specifies them.
// Each function is written step by step in the widths the hardware has (rtl/sa_sfu_*.sv); the
// comments give each intermediate's range. No floating point; no signed overflow and no shift
// of a negative value (UBSan-clean over every input, tests/isa/sfu_math_test.c).
#include "sfu_math.h"

#include <stddef.h>

// One segment of a piecewise quadratic: p(u) = c0 + floor(u (c1 + floor(c2 u / 2^S)) / 2^(S+G)),
// u the offset inside the segment (S bits), c1 and c2 carrying G guard bits.
typedef struct {
  int32_t c0, c1, c2;
} SfuPoly;

// 2^-f on f in [k/4, (k+1)/4), k = 0..3, output Q0.16; S = 13, G = 4. Fitted offline (minimax
// of the integer evaluation); segment 0 is pinned to c0 = 65536 so that exp(0) is exactly 1.
static const SfuPoly EXP2_POLY[4] = {
    {65536, -181306, 14514},
    {55108, -152394, 12150},
    {46340, -128148, 10216},
    {38967, -107759, 8591},
};
#define EXP2_S 13
#define EXP2_G 4
#define LOG2E_Q16 94548u   // round(2^16 log2 e)

// Phi(a) on a in [k/4, (k+1)/4), k = 0..15, output Q0.16; S = 9 (a in Q.11), G = 4.
static const SfuPoly PHI_POLY[16] = {
    {32766, 105178, -1610}, {39236, 101862, -4546}, {45315, 92614, -6691}, {50684, 79057, -7772},
    {55139, 63360, -7789},  {58613, 47678, -6973},  {61159, 33688, -5671}, {62912, 22351, -4231},
    {64046, 13925, -2913},  {64736, 8147, -1859},   {65130, 4476, -1102},  {65341, 2309, -608},
    {65448, 1119, -313},    {65499, 509, -150},     {65521, 218, -68},     {65531, 87, -28},
};
#define PHI_S 9
#define PHI_G 4

// Arithmetic shift right (floor(v / 2^s)) without shifting a negative value.
static int32_t sfu_asr(int32_t v, unsigned s) { return v >= 0 ? v >> s : ~(~v >> s); }

// |products| stay below 2^31 for the tables above (docs/SFU.md gives the widths).
static int32_t sfu_poly(const SfuPoly *c, uint32_t u, unsigned s, unsigned g) {
  int32_t inner = c->c1 + sfu_asr(c->c2 * (int32_t)u, s);
  return c->c0 + sfu_asr(inner * (int32_t)u, s + g);
}

// Number of significant bits of v (0 for 0).
static unsigned sfu_bitlen(uint64_t v) {
  unsigned n = 0;
  while (v) {
    n++;
    v >>= 1;
  }
  return n;
}

uint16_t sfu_exp(int16_t x) {
  uint32_t a = x >= 0 ? 0u : (uint32_t)(-(int32_t)x);   // -x in Q.11, 0..32768 (16 bits)
  uint32_t t = a * LOG2E_Q16;                             // a log2 e in Q.27, < 2^32
  uint32_t z = t >> 27;                                   // integer part, 0..23
  uint32_t f = (t >> 12) & 0x7fffu;                       // fraction, Q.15
  uint32_t k = f >> 13, u = f & 0x1fffu;                  // segment 0..3, offset 13 bits
  uint32_t p = (uint32_t)sfu_poly(&EXP2_POLY[k], u, EXP2_S, EXP2_G);   // 2^-f in Q.16, 17 bits
  return (uint16_t)((p + (1u << z)) >> (z + 1));          // round(p / 2^(z+1)): Q.15
}

uint32_t sfu_phi(uint32_t a) {
  if (a >= 4u << SFU_X_FRAC) return 65536u;
  uint32_t p = (uint32_t)sfu_poly(&PHI_POLY[a >> PHI_S], a & ((1u << PHI_S) - 1), PHI_S, PHI_G);
  return p > 65536u ? 65536u : p;
}

int16_t sfu_gelu(int16_t x) {
  uint32_t a = x >= 0 ? (uint32_t)x : (uint32_t)(-(int32_t)x);   // 0..32768
  uint32_t phi = sfu_phi(a);                                       // Phi(|x|), Q.16
  if (x >= 0) return (int16_t)((a * phi + 0x8000u) >> 16);        // a phi < 2^31
  uint32_t m = (a * (65536u - phi) + 0x8000u) >> 16;               // |x| Phi(-|x|)
  return (int16_t)-(int32_t)m;
}

// sigmoid(-a) for a = |x|, Q0.15 in [0, 16384]: round(E 2^15 / (2^15 + E)), E = exp(-a).
static uint32_t sfu_sigmoid_neg(uint32_t a) {
  uint32_t e = sfu_exp((int16_t)-(int32_t)a);   // 0..32768
  uint32_t d = SFU_P_ONE + e;                    // 2^15..2^16
  return ((e << 16) + d) / (d << 1);             // numerator <= 2^31 + 2^16
}

uint16_t sfu_sigmoid(int16_t x) {
  uint32_t a = x >= 0 ? (uint32_t)x : (uint32_t)(-(int32_t)x);
  uint32_t sn = sfu_sigmoid_neg(a);
  return (uint16_t)(x >= 0 ? SFU_P_ONE - sn : sn);
}

int16_t sfu_silu(int16_t x) {
  uint32_t a = x >= 0 ? (uint32_t)x : (uint32_t)(-(int32_t)x);
  uint32_t sn = sfu_sigmoid_neg(a);
  if (x >= 0) return (int16_t)((a * (SFU_P_ONE - sn) + 0x4000u) >> 15);   // < 2^30
  return (int16_t)-(int32_t)((a * sn + 0x4000u) >> 15);
}

// relu6(x + 3) in Q.11: 0..12288.
static uint32_t sfu_relu6_plus3(int16_t x) {
  int32_t c = (int32_t)x + (3 << SFU_X_FRAC);
  return c < 0 ? 0u : c > (6 << SFU_X_FRAC) ? (6u << SFU_X_FRAC) : (uint32_t)c;
}

uint16_t sfu_hsigmoid(int16_t x) {
  uint32_t c = sfu_relu6_plus3(x);
  return (uint16_t)((16u * c + 3u) / 6u);   // round(c 2^15 / 12288) = round(8c / 3)
}

int16_t sfu_hswish(int16_t x) {
  uint32_t c = sfu_relu6_plus3(x);
  uint32_t a = x >= 0 ? (uint32_t)x : (uint32_t)(-(int32_t)x);
  uint32_t m = (2u * a * c + 12288u) / 24576u;   // round(|x| c / 12288); 2 a c < 2^30
  return (int16_t)(x >= 0 ? (int32_t)m : -(int32_t)m);
}

SfuRecip sfu_recip(uint32_t v) {
  SfuRecip r = {0, 16};
  if (v == 0) return r;
  int e = (int)sfu_bitlen(v) - 16;                             // -15..16
  uint32_t m = e >= 0 ? v >> e : v << -e;                      // [2^15, 2^16), truncated
  r.mant = (1u << 31) / m;                                     // (2^15, 2^16]
  r.shift = (unsigned)(31 + e);                                // 16..47
  return r;
}

uint32_t sfu_isqrt32(uint32_t m) {
  // Digit by digit, one result bit per step from the top: the restoring square root.
  uint32_t root = 0;
  uint64_t rem = 0;
  for (int i = 15; i >= 0; i--) {
    rem = (rem << 2) | ((m >> (2 * i)) & 3u);   // bring down two bits
    uint64_t trial = ((uint64_t)root << 2) | 1u;  // (2 root + 1) shifted: 4 root + 1
    root <<= 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1u;
    }
  }
  return root;
}

SfuRecip sfu_rsqrt(uint64_t v) {
  SfuRecip r = {0, 16};
  if (v == 0 || v >> 48) return r;
  int j = (32 - (int)sfu_bitlen(v));                         // -16..31; halve it, rounding down
  j = j >= 0 ? j / 2 : -((1 - j) / 2);                       // floor(j / 2): -8..15
  uint32_t m = (uint32_t)(j >= 0 ? v << (2 * j) : v >> (-2 * j));   // [2^30, 2^32), truncated
  uint32_t s = sfu_isqrt32(m);                               // [2^15, 2^16)
  r.mant = (1u << 31) / s;                                   // (2^15, 2^16]
  r.shift = (unsigned)(31 - j);                              // 16..39
  return r;
}

int16_t sfu_softmax_arg(uint32_t d, uint32_t mult, unsigned shift) {
  uint32_t p = d * mult;                                     // 255 * 65535 < 2^24
  uint32_t a = shift ? (p + (1u << (shift - 1))) >> shift : p;
  if (a > 32768u) a = 32768u;
  return (int16_t)-(int32_t)a;
}

int8_t sfu_softmax_norm(uint32_t e, SfuRecip r) {
  // e / sum in units of 1/128: e mant / 2^(shift - 7), shift - 7 in 24..40; e mant <= 2^31.
  unsigned sh = r.shift - 7;
  uint64_t q = ((uint64_t)e * r.mant + ((uint64_t)1 << (sh - 1))) >> sh;
  return (int8_t)(q > 127u ? 127u : q);
}

int sfu_softmax_row(const int8_t *q, int n, uint32_t mult, unsigned shift, int8_t *out) {
  if (n < 1 || n > SFU_ROW_MAX || mult > 65535u || shift > 31u) return -1;
  int8_t mx = q[0];
  for (int i = 1; i < n; i++)
    if (q[i] > mx) mx = q[i];
  uint32_t sum = 0;                                          // <= 65536 * 32768 = 2^31
  for (int i = 0; i < n; i++) sum += sfu_exp(sfu_softmax_arg((uint32_t)(mx - q[i]), mult, shift));
  SfuRecip r = sfu_recip(sum);                               // sum >= 32768: shift >= 31
  // The hardware keeps the row's exps (a second pass reads them back); recomputing is the same bits.
  for (int i = 0; i < n; i++) out[i] = sfu_softmax_norm(sfu_exp(sfu_softmax_arg((uint32_t)(mx - q[i]), mult, shift)), r);
  return 0;
}

int16_t sfu_layernorm_elem(int32_t d, SfuRecip rs) {
  // z = d / sqrt(V) in Q.11 = |d| mant / 2^(shift - 11), shift - 11 in 5..28; |d| mant < 2^41.
  uint64_t a = d >= 0 ? (uint64_t)d : (uint64_t)(-(int64_t)d);
  unsigned sh = rs.shift - SFU_X_FRAC;
  uint64_t m = (a * rs.mant + ((uint64_t)1 << (sh - 1))) >> sh;
  if (m > 32767u) m = 32767u;
  return (int16_t)(d >= 0 ? (int32_t)m : -(int32_t)m);
}

int sfu_layernorm_row(const int8_t *x, int n, int16_t *z) {
  if (n < 1 || n > SFU_ROW_MAX) return -1;
  int32_t s1 = 0;      // |sum| <= 2^23
  uint32_t s2 = 0;     // sum of squares <= 2^30
  for (int i = 0; i < n; i++) {
    s1 += x[i];
    s2 += (uint32_t)((int32_t)x[i] * x[i]);
  }
  // V = n S2 - S1^2 = n^2 var >= 0, in a 48-bit accumulator (< 2^46).
  uint64_t v = (uint64_t)n * s2 - (uint64_t)((int64_t)s1 * s1);
  SfuRecip rs = sfu_rsqrt(v);
  for (int i = 0; i < n; i++)
    z[i] = v == 0 ? 0 : sfu_layernorm_elem(n * (int32_t)x[i] - s1, rs);   // |d| < 2^24
  return 0;
}
