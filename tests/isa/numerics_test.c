// numerics_test.c: the machine's integer arithmetic (isa/numerics.h) against hand-computed
// values, and every worked example of docs/ISA.md's "Numerics" section, number for number.
// If an example changes here, change it in docs/ISA.head.md too (and the reverse).
#include "../../isa/numerics.h"

#include <stdint.h>
#include <stdio.h>

#include "../common/check.h"

// Independent reference for round_shift, s in 1..62: floor(p / 2^s) plus 1 when the remainder
// is at least half of 2^s. Plain division, no shifts of negative numbers.
static int64_t ref_round_shift(int64_t p, unsigned s) {
  int64_t d = (int64_t)1 << s;
  int64_t r = ((p % d) + d) % d;   // 0 <= r < d
  int64_t f = (p - r) / d;         // exact: floor(p / d)
  return f + (r >= d / 2 ? 1 : 0);
}

static uint64_t rng_next(uint64_t *x) {   // xorshift64*
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

// The post-processing of a pooled window (docs/ISA.md): max of the post-processed values; or
// the saturated int64 sum of sat32(acc + bias), then requantized. n >= 1.
static int8_t pool_max(const int32_t *acc, int n, int32_t bias, int32_t mult, unsigned shift) {
  int8_t m = -128;
  for (int i = 0; i < n; i++) {
    int8_t v = sa_post(acc[i], bias, mult, shift, ACT_NONE, 0, 0);
    if (v > m) m = v;
  }
  return m;
}

static int8_t pool_avg(const int32_t *acc, int n, int32_t bias, int32_t mult, unsigned shift) {
  int64_t sum = 0;
  for (int i = 0; i < n; i++) sum += sa_sat32((int64_t)acc[i] + bias);
  return sa_activate(sa_requant(sa_sat32(sum), mult, shift), ACT_NONE, 0, 0);
}

static void test_round_shift_hand_picked(void) {
  static const struct {
    int64_t p;
    unsigned s;
    int64_t want;
  } cases[] = {
      {5, 1, 3},   {-5, 1, -2}, {7, 2, 2},   {-7, 2, -2},  {6, 2, 2},   {-6, 2, -1},  {4, 2, 1},
      {-4, 2, -1}, {1, 1, 1},   {-1, 1, 0},  {0, 5, 0},    {3, 0, 3},   {-3, 0, -3},  {-2, 2, 0},
      {-3, 2, -1}, {31, 5, 1},  {15, 5, 0},  {16, 5, 1},   {-16, 5, 0}, {-17, 5, -1}, {1000, 3, 125},
      {1001, 3, 125}, {1003, 3, 125}, {1004, 3, 126}, {-1004, 3, -125}, {-1005, 3, -126},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t got = sa_round_shift(cases[i].p, cases[i].s);
    CHECK(got == cases[i].want, "round_shift(%lld, %u) = %lld, want %lld", (long long)cases[i].p, cases[i].s,
          (long long)got, (long long)cases[i].want);
  }
  check_case("numerics-round-shift-hand-picked");
}

// The extremes a requantization can produce: |p| <= 2^62 (INT32_MIN * INT32_MIN = 2^62) and
// s up to 63 (a PARAM shift uses its low 6 bits). No signed overflow may happen (UBSan).
static void test_round_shift_extremes(void) {
  const int64_t two62 = (int64_t)1 << 62;
  CHECK(sa_round_shift(two62, 63) == 1, "round_shift(2^62, 63) = %lld, want 1 (2^62/2^63 = 0.5 rounds up)",
        (long long)sa_round_shift(two62, 63));
  CHECK(sa_round_shift(two62 - 1, 63) == 0, "round_shift(2^62-1, 63) = %lld, want 0",
        (long long)sa_round_shift(two62 - 1, 63));
  CHECK(sa_round_shift(-two62, 63) == 0, "round_shift(-2^62, 63) = %lld, want 0 (-0.5 rounds up to 0)",
        (long long)sa_round_shift(-two62, 63));
  CHECK(sa_round_shift(-two62 - 1, 63) == -1, "round_shift(-2^62-1, 63) = %lld, want -1",
        (long long)sa_round_shift(-two62 - 1, 63));
  CHECK(sa_round_shift(two62, 62) == 1, "round_shift(2^62, 62) = %lld", (long long)sa_round_shift(two62, 62));
  CHECK(sa_round_shift(-two62, 62) == -1, "round_shift(-2^62, 62) = %lld", (long long)sa_round_shift(-two62, 62));
  CHECK(sa_round_shift(two62, 1) == two62 / 2, "round_shift(2^62, 1) = %lld", (long long)sa_round_shift(two62, 1));
  CHECK(sa_round_shift(two62, 0) == two62, "round_shift(2^62, 0) = %lld", (long long)sa_round_shift(two62, 0));
  CHECK(sa_round_shift(-two62, 0) == -two62, "round_shift(-2^62, 0)");
  CHECK(sa_round_shift(-1, 63) == 0, "round_shift(-1, 63) = %lld", (long long)sa_round_shift(-1, 63));
  CHECK(sa_round_shift(1, 63) == 0, "round_shift(1, 63) = %lld", (long long)sa_round_shift(1, 63));
  // The same extremes through requantization: INT32_MIN * INT32_MIN = 2^62.
  CHECK(sa_requant(INT32_MIN, INT32_MIN, 63) == 1, "requant(INT32_MIN, INT32_MIN, 63) = %d, want 1",
        sa_requant(INT32_MIN, INT32_MIN, 63));
  CHECK(sa_requant(INT32_MIN, INT32_MIN, 0) == INT32_MAX, "requant(INT32_MIN, INT32_MIN, 0) = %d, want INT32_MAX",
        sa_requant(INT32_MIN, INT32_MIN, 0));
  CHECK(sa_requant(INT32_MIN, INT32_MAX, 0) == INT32_MIN, "requant(INT32_MIN, INT32_MAX, 0) = %d",
        sa_requant(INT32_MIN, INT32_MAX, 0));
  CHECK(sa_requant(INT32_MIN, INT32_MAX, 31) == -INT32_MAX, "requant(INT32_MIN, INT32_MAX, 31) = %d, want %d",
        sa_requant(INT32_MIN, INT32_MAX, 31), -INT32_MAX);
  check_case("numerics-round-shift-extremes");
}

// Against the division-based reference, for random p with |p| <= 2^62 and every s in 1..62.
static void test_round_shift_random(void) {
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 200000; i++) {
    uint64_t r = rng_next(&x);
    unsigned bits = (unsigned)(r % 63);           // magnitude class, so small values are common
    int64_t mag = (int64_t)(rng_next(&x) >> (64 - bits - 1) >> 1);   // < 2^bits
    int64_t p = (r >> 8) & 1 ? -mag : mag;
    unsigned s = 1 + (unsigned)((r >> 16) % 62);
    int64_t got = sa_round_shift(p, s), want = ref_round_shift(p, s);
    if (got != want) {
      CHECK(0, "round_shift(%lld, %u) = %lld, reference %lld", (long long)p, s, (long long)got, (long long)want);
      break;
    }
  }
  check_case("numerics-round-shift-random");
}

static void test_saturation_edges(void) {
  CHECK(sa_sat32(INT32_MAX) == INT32_MAX, "sat32(INT32_MAX)");
  CHECK(sa_sat32((int64_t)INT32_MAX + 1) == INT32_MAX, "sat32(INT32_MAX+1)");
  CHECK(sa_sat32(INT32_MIN) == INT32_MIN, "sat32(INT32_MIN)");
  CHECK(sa_sat32((int64_t)INT32_MIN - 1) == INT32_MIN, "sat32(INT32_MIN-1)");
  CHECK(sa_sat32(INT64_MAX) == INT32_MAX, "sat32(INT64_MAX)");
  CHECK(sa_sat32(INT64_MIN) == INT32_MIN, "sat32(INT64_MIN)");
  CHECK(sa_sat32(-5) == -5, "sat32(-5)");
  CHECK(sa_sat8(127) == 127 && sa_sat8(128) == 127 && sa_sat8(INT32_MAX) == 127, "sat8 upper edge");
  CHECK(sa_sat8(-128) == -128 && sa_sat8(-129) == -128 && sa_sat8(INT32_MIN) == -128, "sat8 lower edge");
  CHECK(sa_sat8(0) == 0 && sa_sat8(-1) == -1, "sat8 identity");
  CHECK(sa_wrap_add32(INT32_MAX, 1) == INT32_MIN, "wrap_add32(INT32_MAX, 1) = %d", sa_wrap_add32(INT32_MAX, 1));
  CHECK(sa_wrap_add32(INT32_MIN, -1) == INT32_MAX, "wrap_add32(INT32_MIN, -1)");
  CHECK(sa_wrap_add32(INT32_MIN, INT32_MIN) == 0, "wrap_add32(INT32_MIN, INT32_MIN)");
  CHECK(sa_wrap_add32(-7, 3) == -4, "wrap_add32(-7, 3)");
  CHECK(sa_wrap_mul8(-128, -128) == 16384, "wrap_mul8(-128, -128) = %d", sa_wrap_mul8(-128, -128));
  CHECK(sa_wrap_mul8(-128, 127) == -16256, "wrap_mul8(-128, 127)");
  CHECK(sa_wrap_mul8(127, 127) == 16129, "wrap_mul8(127, 127)");
  check_case("numerics-saturation-edges");
}

static void test_activation(void) {
  CHECK(sa_activate(-5, ACT_NONE, 0, 0) == -5, "none keeps -5");
  CHECK(sa_activate(300, ACT_NONE, 0, 0) == 127, "none saturates 300 to 127");
  CHECK(sa_activate(-300, ACT_NONE, 0, 0) == -128, "none saturates -300 to -128");
  CHECK(sa_activate(-5, ACT_RELU, 0, 0) == 0, "relu(-5)");
  CHECK(sa_activate(INT32_MIN, ACT_RELU, 0, 0) == 0, "relu(INT32_MIN)");
  CHECK(sa_activate(300, ACT_RELU, 0, 0) == 127, "relu(300) then sat8");
  CHECK(sa_activate(50, ACT_CLAMP, 0, 96) == 50, "clamp inside");
  CHECK(sa_activate(200, ACT_CLAMP, 0, 96) == 96, "clamp high");
  CHECK(sa_activate(-300, ACT_CLAMP, -20, 96) == -20, "clamp low");
  CHECK(sa_activate(-20, ACT_CLAMP, -20, 96) == -20 && sa_activate(96, ACT_CLAMP, -20, 96) == 96, "clamp bounds inclusive");
  CHECK(sa_activate(5, ACT_CLAMP, 7, 7) == 7 && sa_activate(9, ACT_CLAMP, 7, 7) == 7, "clamp to one value");
  check_case("numerics-activation");
}

// Every example of docs/ISA.md, "Numerics".
static void test_doc_examples(void) {
  // Requantization, round half up: 976 * 2^20 / 2^25 = 30.5 -> 31.
  CHECK(sa_post(1000, -24, 1 << 20, 25, ACT_NONE, 0, 0) == 31, "example requant: %d, want 31",
        sa_post(1000, -24, 1 << 20, 25, ACT_NONE, 0, 0));
  // Negative tie: -30.5 -> -30 (towards +infinity, not away from zero).
  CHECK(sa_post(-1000, 24, 1 << 20, 25, ACT_NONE, 0, 0) == -30, "example negative tie: %d, want -30",
        sa_post(-1000, 24, 1 << 20, 25, ACT_NONE, 0, 0));
  // Bias add saturates: 2147483600 + 100 -> 2147483647; / 2^24 = 127.99999994 -> 128 -> int8 127.
  CHECK(sa_sat32((int64_t)2147483600 + 100) == INT32_MAX, "example bias saturation");
  CHECK(sa_requant(INT32_MAX, 1, 24) == 128, "example bias saturation requant: %d, want 128",
        sa_requant(INT32_MAX, 1, 24));
  CHECK(sa_post(2147483600, 100, 1, 24, ACT_NONE, 0, 0) == 127, "example bias saturation result");
  // Activations.
  CHECK(sa_post(-5000, 0, 1 << 20, 20, ACT_RELU, 0, 0) == 0, "example relu");
  CHECK(sa_post(200, 0, 1 << 20, 20, ACT_CLAMP, 0, 96) == 96, "example clamp");
  CHECK(sa_post(300, 0, 1, 0, ACT_RELU, 0, 0) == 127, "example relu then sat8");
  // PARAM shift word 71 (0x47): low 6 bits = 7; 1000 / 128 = 7.8125 -> 8. Word -1 -> 63.
  CHECK((71u & 63u) == 7u && ((uint32_t)-1 & 63u) == 63u, "example shift low bits");
  CHECK(sa_post(1000, 0, 1, 71u & 63u, ACT_NONE, 0, 0) == 8, "example param shift: %d, want 8",
        sa_post(1000, 0, 1, 71u & 63u, ACT_NONE, 0, 0));
  // LOAD into ACC: -3 * 5 = -15, round_shift(-15, 1) = -7.5 -> -7.
  CHECK(sa_load_scale(-3, 5, 1) == -7, "example load scale: %d, want -7", sa_load_scale(-3, 5, 1));
  CHECK(sa_load_scale(127, INT32_MAX, 0) == INT32_MAX, "example load scale saturates");
  CHECK(sa_load_scale(-128, INT32_MIN, 0) == INT32_MAX, "load scale -128 * INT32_MIN saturates");
  CHECK(sa_load_scale(-128, INT32_MAX, 0) == INT32_MIN, "load scale -128 * INT32_MAX saturates");
  // An accumulating LOAD wraps: INT32_MAX + 1 -> INT32_MIN.
  CHECK(sa_wrap_add32(INT32_MAX, sa_load_scale(1, 1, 0)) == INT32_MIN, "example accumulating load wraps");
  // COMPUTE accumulation wraps: 2147483000 + 127*127 = 2147499129 -> -2147468167.
  CHECK(sa_wrap_add32(2147483000, sa_wrap_mul8(127, 127)) == -2147468167, "example compute wrap: %d",
        sa_wrap_add32(2147483000, sa_wrap_mul8(127, 127)));
  // MAX pool of {10, -20, 35, 7}, bias 5, mult 2^30, shift 31 (x0.5): {8, -7, 20, 6} -> 20.
  const int32_t win[4] = {10, -20, 35, 7};
  CHECK(sa_post(10, 5, 1 << 30, 31, ACT_NONE, 0, 0) == 8 && sa_post(-20, 5, 1 << 30, 31, ACT_NONE, 0, 0) == -7 &&
            sa_post(35, 5, 1 << 30, 31, ACT_NONE, 0, 0) == 20 && sa_post(7, 5, 1 << 30, 31, ACT_NONE, 0, 0) == 6,
        "example max pool elements");
  CHECK(pool_max(win, 4, 5, 1 << 30, 31) == 20, "example max pool: %d, want 20", pool_max(win, 4, 5, 1 << 30, 31));
  // Negative multiplier: {-7, 8, -20, -6} -> 8 (not post(max acc) = -20).
  CHECK(pool_max(win, 4, 5, -(1 << 30), 31) == 8, "example max pool, negative mult: %d, want 8",
        pool_max(win, 4, 5, -(1 << 30), 31));
  // AVG pool, 3x3 window at a corner with padding 1: 4 positions inside.
  // sum of (acc + 10) = 1040; mult 238609294 (2^31/9), shift 31: 115.5555... -> 116.
  const int32_t avg_win[4] = {100, 200, 300, 400};
  CHECK(pool_avg(avg_win, 4, 10, 238609294, 31) == 116, "example avg pool: %d, want 116",
        pool_avg(avg_win, 4, 10, 238609294, 31));
  CHECK(sa_requant(1040, 238609294, 31) == 116, "example avg pool requant");
  // AVG sum saturates: 2 x INT32_MAX -> INT32_MAX, mult 1, shift 0 -> 127.
  const int32_t big[2] = {INT32_MAX, INT32_MAX};
  CHECK(pool_avg(big, 2, 0, 1, 0) == 127, "example avg pool saturates");
  // Each position saturates before the sum: sat32(INT32_MAX + 1000) + (-INT32_MAX + 1000) = 1000,
  // 1000 / 16 = 62.5 -> 63 (an unsaturated sum would give 2000 / 16 = 125).
  const int32_t mix[2] = {INT32_MAX, -INT32_MAX};
  CHECK(pool_avg(mix, 2, 1000, 1, 4) == 63, "avg: sat32 per position: %d, want 63", pool_avg(mix, 2, 1000, 1, 4));
  check_case("numerics-doc-examples");
}

int main(void) {
  test_round_shift_hand_picked();
  test_round_shift_extremes();
  test_round_shift_random();
  test_saturation_edges();
  test_activation();
  test_doc_examples();
  return check_status();
}
