// sfu_math.h: the integer special functions of the special-function unit (docs/SFU.md),
// bit for bit: exp, softmax, GELU, sigmoid, SiLU, h-sigmoid, h-swish, reciprocal, inverse
// square root, layer norm. Integer-only (no floating point), no undefined behaviour for any
// input of the stated domains; every intermediate fits the hardware width docs/SFU.md states.
// rtl/sa_sfu_*.sv implement the same bits (tests/rtl/sfu_math.sh compares them).
// The special-function unit's instructions apply them (docs/ISA.md 6.8, sim/sfu_exec.c).
//
// Formats (value = integer / 2^frac):
//   Q4.11  int16, real x = v / 2048, range [-16, 16): inputs of exp, GELU, sigmoid and friends,
//          outputs of GELU, SiLU, h-swish and layer norm.
//   Q0.15  uint16 in [0, 32768], real p = v / 32768: outputs of exp, sigmoid, h-sigmoid.
// Rounding: every result is rounded half away from zero (computed on a magnitude, so it is
// floor(m + 1/2)); the steps inside a polynomial truncate towards minus infinity (arithmetic shift).
#ifndef SA_SFU_MATH_H
#define SA_SFU_MATH_H

#include <stdint.h>

#define SFU_X_FRAC 11        // fraction bits of Q4.11
#define SFU_P_ONE 32768u     // 1.0 in Q0.15
#define SFU_ROW_MAX 65536    // longest softmax / layer-norm row (keeps the sums in 32 and 48 bits)

// A reciprocal (or reciprocal square root) as mantissa and shift: value ~= mant / 2^shift,
// mant in [2^15, 2^16], shift in [16, 47].
typedef struct {
  uint32_t mant;   // 17 bits at most
  unsigned shift;  // 6 bits
} SfuRecip;

// exp(x) for x <= 0 (x > 0 is taken as 0): Q4.11 in, Q0.15 out, exp(0) = 32768 exactly.
uint16_t sfu_exp(int16_t x);
// Gaussian CDF Phi(a) = (1 + erf(a / sqrt 2)) / 2 for a >= 0 in Q.11 (0..32768), out Q0.16
// (0..65536): piecewise quadratic, clipped to 1 for a >= 4.
uint32_t sfu_phi(uint32_t a);
// GELU(x) = x Phi(x): Q4.11 in and out.
int16_t sfu_gelu(int16_t x);
// sigmoid(x) = 1 / (1 + exp(-x)): Q4.11 in, Q0.15 out; sigmoid(x) + sigmoid(-x) = 32768 exactly.
uint16_t sfu_sigmoid(int16_t x);
// SiLU(x) = x sigmoid(x): Q4.11 in and out.
int16_t sfu_silu(int16_t x);
// h-sigmoid(x) = relu6(x + 3) / 6: Q4.11 in, Q0.15 out.
uint16_t sfu_hsigmoid(int16_t x);
// h-swish(x) = x relu6(x + 3) / 6: Q4.11 in and out.
int16_t sfu_hswish(int16_t x);

// 1 / v for v >= 1 (v == 0 gives mant 0, shift 16: the callers never pass it).
SfuRecip sfu_recip(uint32_t v);
// floor(sqrt(m)) for any 32-bit m: the 16-step digit-by-digit square root.
uint32_t sfu_isqrt32(uint32_t m);
// 1 / sqrt(v) for 1 <= v < 2^48 (v == 0 or v >= 2^48 give mant 0, shift 16).
SfuRecip sfu_rsqrt(uint64_t v);

// Softmax of one int8 row. The logits' scale enters as mult / 2^shift = scale * 2048 (the step
// from an int8 difference to Q4.11): mult 0..65535, shift 0..31. Output int8 at scale 1/128,
// in [0, 127]. The steps, exposed for the RTL bench:
//   sfu_softmax_arg: d = max - q (0..255) to the exp input, -min(32768, round(d mult / 2^shift)).
//   sfu_softmax_norm: one exp value e (Q0.15) times the row's reciprocal of the sum, to int8.
int16_t sfu_softmax_arg(uint32_t d, uint32_t mult, unsigned shift);
int8_t sfu_softmax_norm(uint32_t e, SfuRecip r);
// n in 1..SFU_ROW_MAX, mult <= 65535, shift <= 31; returns -1 (out untouched) otherwise.
int sfu_softmax_row(const int8_t *q, int n, uint32_t mult, unsigned shift, int8_t *out);

// Layer norm of one int8 row, without the affine part: z_i = (x_i - mean) / std (population
// std, eps 0; a row of equal values gives z = 0), Q4.11 out, magnitude saturated to 32767.
// sfu_layernorm_elem: one element from d = n x_i - sum(x) and the row's rsqrt(n^2 var).
int16_t sfu_layernorm_elem(int32_t d, SfuRecip rs);
// n in 1..SFU_ROW_MAX; returns -1 (z untouched) otherwise.
int sfu_layernorm_row(const int8_t *x, int n, int16_t *z);

#endif
