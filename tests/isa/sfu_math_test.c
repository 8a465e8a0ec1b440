// sfu_math_test.c: the special functions of isa/sfu_math.c against double-precision math, over
// each function's whole input domain (exhaustive for the 16-bit inputs, dense random sampling for
// the 32- and 48-bit ones, random and edge-case rows for softmax and layer norm). Asserts the error
// bounds docs/SFU.md §3 states, monotonicity where the true function is monotone, the symmetry
// identities, softmax row sums and the edge cases.
// `sfu_math_test --table` prints the error table of docs/SFU.md §3 (markdown) instead.
#include "../../isa/sfu_math.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/check.h"

// Error statistics of one function, in output LSBs (and relative where meaningful).
typedef struct {
  const char *name;     // function
  const char *domain;   // input domain, as the table prints it
  const char *unit;     // output LSB
  long n;               // points compared
  double max_abs;       // max |got - want| in LSBs
  double sum_abs;       // for the mean
  double max_rel;       // max |got - want| / |want|, where tracked (want above rel_floor)
  double rel_floor;     // relative error is measured only where |want| >= this many LSBs (0: not tracked)
} ErrStat;

static void err_add(ErrStat *s, double got, double want) {
  double e = fabs(got - want);
  s->n++;
  s->sum_abs += e;
  if (e > s->max_abs) s->max_abs = e;
  if (s->rel_floor > 0 && fabs(want) >= s->rel_floor && e / fabs(want) > s->max_rel) s->max_rel = e / fabs(want);
}

static int table_mode;   // --table: print the table, assert nothing about bounds

static void err_report(const ErrStat *s, double bound_max, double bound_mean, const char *case_name) {
  double mean = s->n ? s->sum_abs / (double)s->n : 0;
  if (table_mode) {
    char rel[32] = "-";
    if (s->rel_floor > 0) snprintf(rel, sizeof rel, "%.2e", s->max_rel);
    printf("| %s | %s | %ld | %s | %.3f | %.4f | %s |\n", s->name, s->domain, s->n, s->unit, s->max_abs, mean, rel);
    return;
  }
  CHECK(s->max_abs <= bound_max, "%s: max error %.4f LSB > bound %.2f", s->name, s->max_abs, bound_max);
  CHECK(mean <= bound_mean, "%s: mean error %.4f LSB > bound %.2f", s->name, mean, bound_mean);
  check_case(case_name);
}

static uint64_t rng_next(uint64_t *x) {   // xorshift64*
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

static double qx(int v) { return v / 2048.0; }   // Q4.11 to real
static double phi_ref(double a) { return 0.5 * (1.0 + erf(a / sqrt(2.0))); }
static double recip_val(SfuRecip r) { return ldexp((double)r.mant, -(int)r.shift); }

static void test_exp(void) {
  ErrStat s = {"exp", "x in [-16, 0] Q4.11 (32769)", "2^-15", 0, 0, 0, 0, 64};
  int mono = 1;
  uint16_t prev = 0;
  for (int x = -32768; x <= 0; x++) {
    uint16_t y = sfu_exp((int16_t)x);
    err_add(&s, y, exp(qx(x)) * 32768.0);
    if (y < prev) mono = 0;
    prev = y;
  }
  if (!table_mode) {
    CHECK(sfu_exp(0) == 32768, "exp(0) = %u, want 32768", sfu_exp(0));
    CHECK(sfu_exp(1) == 32768 && sfu_exp(32767) == 32768, "exp of x > 0 is not exp(0)");
    CHECK(sfu_exp(-32768) == 0, "exp(-16) = %u, want 0", sfu_exp(-32768));
    CHECK(mono, "exp is not monotone");
  }
  err_report(&s, 2.5, 0.3, "sfu-exp-exhaustive");
}

static void test_gelu(void) {
  ErrStat s = {"gelu", "x in [-16, 16) Q4.11 (65536)", "2^-11", 0, 0, 0, 0, 0};
  int mono = 1;
  int16_t prev = 0;
  for (int x = -32768; x <= 32767; x++) {
    int16_t y = sfu_gelu((int16_t)x);
    err_add(&s, y, x * phi_ref(qx(x)));
    // GELU falls to its minimum at x = -0.7518 and rises after: check both sides, away from it.
    // On the falling tail the output is a few LSBs that round by steps of |x| Phi(x): it may step
    // back by 1 LSB (x Phi(x) is the product of two rounded quantities), never by more.
    if (x > -32768 && x <= -1700 && y > prev + 1) mono = 0;
    if (x > -1400 && y < prev) mono = 0;
    prev = y;
  }
  if (!table_mode) {
    CHECK(sfu_gelu(0) == 0, "gelu(0) = %d", sfu_gelu(0));
    CHECK(sfu_gelu(32767) == 32767 && sfu_gelu(8192) == 8192, "gelu(x >= 4) is not x");
    CHECK(sfu_gelu(-32768) == 0, "gelu(-16) = %d, want 0", sfu_gelu(-32768));
    CHECK(mono, "gelu is not monotone on x >= -0.68 (rising), or steps back by more than 1 LSB on x <= -0.83");
    for (uint32_t a = 0; a <= 32768; a++) CHECK(sfu_phi(a) <= 65536, "phi(%u) = %u > 1", a, sfu_phi(a));
  }
  err_report(&s, 1.0, 0.1, "sfu-gelu-exhaustive");
}

static void test_sigmoid(void) {
  ErrStat s = {"sigmoid", "x in [-16, 16) Q4.11 (65536)", "2^-15", 0, 0, 0, 0, 64};
  int mono = 1, sym = 1;
  uint16_t prev = 0;
  for (int x = -32768; x <= 32767; x++) {
    uint16_t y = sfu_sigmoid((int16_t)x);
    err_add(&s, y, 32768.0 / (1.0 + exp(-qx(x))));
    if (y < prev) mono = 0;
    prev = y;
    if (x > -32768 && (uint32_t)y + sfu_sigmoid((int16_t)-x) != 32768u) sym = 0;
  }
  if (!table_mode) {
    CHECK(sfu_sigmoid(0) == 16384, "sigmoid(0) = %u", sfu_sigmoid(0));
    CHECK(mono, "sigmoid is not monotone");
    CHECK(sym, "sigmoid(x) + sigmoid(-x) != 1 exactly");
  }
  err_report(&s, 1.5, 0.3, "sfu-sigmoid-exhaustive");
}

static void test_silu(void) {
  ErrStat s = {"silu", "x in [-16, 16) Q4.11 (65536)", "2^-11", 0, 0, 0, 0, 0};
  int mono = 1;
  int16_t prev = 0;
  for (int x = -32768; x <= 32767; x++) {
    int16_t y = sfu_silu((int16_t)x);
    err_add(&s, y, x / (1.0 + exp(-qx(x))));
    if (x > -32768 && x <= -2900 && y > prev + 1) mono = 0;   // minimum at x = -1.2785; tail as GELU's
    if (x > -2300 && y < prev) mono = 0;
    prev = y;
  }
  if (!table_mode) CHECK(mono, "silu is not monotone on x >= -1.12 (rising), or steps back by more than 1 LSB on x <= -1.42");
  err_report(&s, 1.0, 0.25, "sfu-silu-exhaustive");
}

static void test_hard(void) {
  ErrStat s = {"h-sigmoid", "x in [-16, 16) Q4.11 (65536)", "2^-15", 0, 0, 0, 0, 0};
  ErrStat w = {"h-swish", "x in [-16, 16) Q4.11 (65536)", "2^-11", 0, 0, 0, 0, 0};
  int mono = 1;
  uint16_t prev = 0;
  for (int x = -32768; x <= 32767; x++) {
    double c = fmin(fmax(qx(x) + 3.0, 0.0), 6.0);
    uint16_t y = sfu_hsigmoid((int16_t)x);
    err_add(&s, y, c / 6.0 * 32768.0);
    err_add(&w, sfu_hswish((int16_t)x), x * c / 6.0);
    if (y < prev) mono = 0;
    prev = y;
  }
  if (!table_mode) CHECK(mono, "h-sigmoid is not monotone");
  err_report(&s, 0.5, 0.26, "sfu-hsigmoid-exhaustive");   // exactly rounded: at most half an LSB
  err_report(&w, 0.5, 0.26, "sfu-hswish-exhaustive");
}

static void test_recip(void) {
  ErrStat s = {"reciprocal", "v in [1, 2^16) all, [2^16, 2^32) 10^6 random", "relative", 0, 0, 0, 0, 1e-300};
  uint64_t seed = 0x5fc0ffee1234ull;
  double prev = INFINITY;
  int mono = 1;
  for (uint32_t v = 1; v < 65536; v++) {
    double r = recip_val(sfu_recip(v));
    err_add(&s, r * v, 1.0);   // relative error, as |r v - 1|
    if (r > prev) mono = 0;
    prev = r;
  }
  for (int i = 0; i < 1000000; i++) {
    uint32_t v = (uint32_t)(rng_next(&seed) >> (32 + (i & 15)));
    if (v < 65536) v += 65536;
    SfuRecip r = sfu_recip(v);
    if (!table_mode) CHECK(r.mant >= 32768 && r.mant <= 65536 && r.shift >= 16 && r.shift <= 47, "recip(%u) out of format", v);
    err_add(&s, recip_val(r) * v, 1.0);
  }
  if (!table_mode) CHECK(mono, "recip is not monotone on [1, 2^16)");
  // Relative errors are tiny: the bounds are in units of 2^-15 (the ErrStat holds plain relative).
  s.max_abs *= 32768.0;
  s.sum_abs *= 32768.0;
  s.unit = "2^-15 relative";
  s.rel_floor = 0;
  err_report(&s, 1.0, 0.3, "sfu-recip");
}

static void test_rsqrt(void) {
  ErrStat s = {"inverse sqrt", "v in [1, 2^16) all, [2^16, 2^48) 10^6 random", "2^-15 relative", 0, 0, 0, 0, 0};
  uint64_t seed = 0x1234abcdull;
  double prev = INFINITY;
  int mono = 1, isq = 1;
  for (uint32_t v = 1; v < 65536; v++) {
    double r = recip_val(sfu_rsqrt(v));
    err_add(&s, r * sqrt((double)v) * 32768.0, 32768.0);
    if (r > prev) mono = 0;
    prev = r;
  }
  for (int i = 0; i < 1000000; i++) {
    uint64_t v = rng_next(&seed) >> (16 + (i % 32));
    if (v < 65536) v += 65536;
    SfuRecip r = sfu_rsqrt(v);
    if (!table_mode) CHECK(r.mant >= 32768 && r.mant <= 65536 && r.shift >= 16 && r.shift <= 39, "rsqrt out of format");
    err_add(&s, recip_val(r) * sqrt((double)v) * 32768.0, 32768.0);
    uint32_t m = (uint32_t)rng_next(&seed);
    uint64_t q = sfu_isqrt32(m);
    if (!(q * q <= m && (q + 1) * (q + 1) > m)) isq = 0;
  }
  uint32_t edge[] = {0, 1, 2, 3, 4, 65535, 65536, 0xfffe0001u, 0xfffe0000u, 0xffffffffu};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
    uint64_t q = sfu_isqrt32(edge[i]);
    if (!(q * q <= edge[i] && (q + 1) * (q + 1) > edge[i])) isq = 0;
  }
  if (!table_mode) {
    CHECK(mono, "rsqrt is not monotone on [1, 2^16)");
    CHECK(isq, "isqrt32 is not floor(sqrt(m))");
    CHECK(sfu_rsqrt(0).mant == 0 && sfu_rsqrt((uint64_t)1 << 48).mant == 0, "rsqrt outside [1, 2^48) not refused");
  }
  err_report(&s, 1.0, 0.3, "sfu-rsqrt");
}

// Softmax rows: random rows of several lengths and scales, and the edge cases.
static void softmax_ref(const int8_t *q, int n, uint32_t mult, unsigned shift, double *p) {
  int mx = q[0];
  for (int i = 1; i < n; i++) mx = q[i] > mx ? q[i] : mx;
  double scale = ldexp((double)mult, -(int)shift - 11), sum = 0;
  for (int i = 0; i < n; i++) sum += p[i] = exp((q[i] - mx) * scale);
  for (int i = 0; i < n; i++) p[i] /= sum;
}

#define ROW_N 1024
static void test_softmax(void) {
  ErrStat s = {"softmax row", "random int8 rows, n 1..1024, scale 2^-6..2^-1", "2^-7", 0, 0, 0, 0, 0};
  static int8_t q[ROW_N], out[ROW_N];
  static double p[ROW_N];
  uint64_t seed = 42;
  long worst_sum = 0;
  for (int r = 0; r < 3000; r++) {
    int n = 1 + (int)(rng_next(&seed) % (r < 2000 ? 16 : ROW_N));
    unsigned shift = 5 + (unsigned)(rng_next(&seed) % 6);   // scale = 2048 / 2^shift / 2048 = 2^-shift
    uint32_t mult = 2048;                                    // so mult / 2^shift / 2048 = 2^-shift
    for (int i = 0; i < n; i++) q[i] = (int8_t)(rng_next(&seed) >> 56);
    CHECK(sfu_softmax_row(q, n, mult, shift, out) == 0, "softmax_row refused n=%d", n);
    softmax_ref(q, n, mult, shift, p);
    long sum = 0;
    for (int i = 0; i < n; i++) {
      err_add(&s, out[i], fmin(p[i] * 128.0, 127.0));
      sum += out[i];
    }
    // Each output is rounded on its own, so the sum may miss 128 by up to half an LSB per
    // element (plus the exp's error): bounded by n/2 + 1, and at most 2 for rows up to 4 long.
    long dev = sum > 128 ? sum - 128 : 128 - sum;
    if (n == 1) dev = 0;   // a lone element is 127 (128 does not fit)
    if (!table_mode) CHECK(dev <= n / 2 + 1 && (n > 4 || dev <= 2), "softmax row n=%d sums to %ld", n, sum);
    if (n <= 16 && dev > worst_sum) worst_sum = dev;
  }
  if (!table_mode) {
    // Edge cases: all equal, one huge value, the most negative inputs, a single element.
    memset(q, -128, 8);
    sfu_softmax_row(q, 8, 65535, 0, out);
    for (int i = 0; i < 8; i++) CHECK(out[i] == 16, "all-equal row: out[%d] = %d, want 16", i, out[i]);
    memset(q, -128, 8);
    q[3] = 127;
    sfu_softmax_row(q, 8, 2048, 4, out);   // scale 1/16: exp(-255/16) ~ 1e-7
    for (int i = 0; i < 8; i++) CHECK(out[i] == (i == 3 ? 127 : 0), "one-huge row: out[%d] = %d", i, out[i]);
    q[0] = 5;
    CHECK(sfu_softmax_row(q, 1, 2048, 4, out) == 0 && out[0] == 127, "one-element row: %d, want 127", out[0]);
    memset(q, 127, 8);
    sfu_softmax_row(q, 8, 0, 0, out);   // scale 0: uniform whatever the values
    for (int i = 0; i < 8; i++) CHECK(out[i] == 16, "scale 0: out[%d] = %d", i, out[i]);
    static int8_t big[SFU_ROW_MAX], bigout[SFU_ROW_MAX];
    memset(big, -128, sizeof big);
    CHECK(sfu_softmax_row(big, SFU_ROW_MAX, 65535, 0, bigout) == 0 && bigout[0] == 0 && bigout[SFU_ROW_MAX - 1] == 0,
          "longest all-equal row");   // 1/65536 rounds to 0
    CHECK(sfu_softmax_row(q, 0, 1, 0, out) == -1 && sfu_softmax_row(q, 8, 65536, 0, out) == -1 &&
              sfu_softmax_row(q, 8, 1, 32, out) == -1 && sfu_softmax_row(big, SFU_ROW_MAX + 1, 1, 0, bigout) == -1,
          "softmax_row accepted an out-of-range n, mult or shift");
  }
  err_report(&s, 0.6, 0.2, "sfu-softmax-rows");
}

static void test_layernorm(void) {
  ErrStat s = {"layer norm row", "random int8 rows, n 2..1024 (z within +-16)", "2^-11", 0, 0, 0, 0, 0};
  static int8_t x[ROW_N];
  static int16_t z[ROW_N];
  uint64_t seed = 7;
  for (int r = 0; r < 3000; r++) {
    int n = 2 + (int)(rng_next(&seed) % (r < 2000 ? 32 : ROW_N - 1));
    int spread = 1 + (int)(rng_next(&seed) % 256);   // narrow and wide rows
    int base = (int)(rng_next(&seed) % 256) - 128;
    for (int i = 0; i < n; i++) {
      int v = base + (int)(rng_next(&seed) % (uint64_t)spread) - spread / 2;
      x[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    CHECK(sfu_layernorm_row(x, n, z) == 0, "layernorm_row refused n=%d", n);
    double mean = 0, var = 0;
    for (int i = 0; i < n; i++) mean += x[i];
    mean /= n;
    for (int i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= n;
    for (int i = 0; i < n; i++) {
      double want = var == 0 ? 0 : (x[i] - mean) / sqrt(var) * 2048.0;
      if (fabs(want) < 32767) err_add(&s, z[i], want);
      else if (!table_mode) CHECK(z[i] == (want > 0 ? 32767 : -32767), "layernorm saturation: %d", z[i]);
    }
  }
  if (!table_mode) {
    memset(x, -128, 16);
    sfu_layernorm_row(x, 16, z);
    for (int i = 0; i < 16; i++) CHECK(z[i] == 0, "all-equal row: z[%d] = %d", i, z[i]);
    memset(x, 0, 16);
    x[5] = 127;   // one huge value: z = sqrt(15) there, -1/sqrt(15) elsewhere
    sfu_layernorm_row(x, 16, z);
    CHECK(z[5] == (int16_t)lround(sqrt(15.0) * 2048) && z[0] == (int16_t)-lround(2048 / sqrt(15.0)),
          "one-huge row: z = %d, %d", z[5], z[0]);
    static int8_t big[SFU_ROW_MAX];
    static int16_t bz[SFU_ROW_MAX];
    for (int i = 0; i < SFU_ROW_MAX; i++) big[i] = (int8_t)(i & 1 ? 127 : -128);   // widest sums
    CHECK(sfu_layernorm_row(big, SFU_ROW_MAX, bz) == 0 && bz[0] == -2048 && bz[1] == 2048, "longest row: %d %d",
          bz[0], bz[1]);
    CHECK(sfu_layernorm_row(x, 0, z) == -1 && sfu_layernorm_row(big, SFU_ROW_MAX + 1, bz) == -1,
          "layernorm_row accepted an out-of-range n");
  }
  err_report(&s, 1.0, 0.3, "sfu-layernorm-rows");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--table") == 0) {
    table_mode = 1;
    printf("| function | inputs compared | points | output LSB | max abs error (LSB) | mean abs error (LSB) | max relative (true value >= 64 LSB) |\n");
    printf("|---|---|---|---|---|---|---|\n");
  } else if (argc > 1) {
    fprintf(stderr, "usage: sfu_math_test [--table]\n");
    return 2;
  }
  test_exp();
  test_gelu();
  test_sigmoid();
  test_silu();
  test_hard();
  test_recip();
  test_rsqrt();
  test_softmax();
  test_layernorm();
  return table_mode ? 0 : check_status();
}
