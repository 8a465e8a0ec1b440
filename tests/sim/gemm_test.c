// gemm_test.c: tiled GEMM programs (tests/common/gemmprog.c) on both engines against the naive
// reference: odd shapes (1, primes, non-multiples of the array), three arches down to a 2x2 array
// with tiny buffers, raw int32 and int8 with every activation, double buffering on and off; and
// double buffering must save cycles on a GEMM with several load phases. Every program must also
// pass the static race checker of tests/common/randprog.c (each conflicting pair of accesses
// ordered by tokens), since a missing token need not change the outcome of one run.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/sim.h"
#include "../common/check.h"
#include "../common/testarch.h"
#include "../common/gemmprog.h"
#include "../common/randprog.h"

// Detailed runs only below this many MACs (it steps every PE every cycle).
#define DETAILED_MAX_MACS 40000ull



// The default arch with 1 MiB of DRAM instead of 256 MiB (each run allocates and compares its
// DRAM; under AddressSanitizer 256 MiB per run dominates the test's time).
static void arch_default_small_dram(Arch *a) {
  arch_default(a);
  a->dram_bytes = 1 << 20;
}

static const char *spec_name(const GemmSpec *g, char *buf, size_t n) {
  static const char *acts[] = {"none", "relu", "clamp"};
  snprintf(buf, n, "%ux%ux%u %s%s%s tile_m=%u k_tiles=%u", g->M, g->K, g->N, g->raw32 ? "raw32" : "int8+",
           g->raw32 ? "" : acts[g->act % 3], g->double_buffer ? " db" : "", g->tile_m, g->k_tiles);
  return buf;
}

// Builds, runs and compares C with the reference. Returns the cycle count, 0 on a failure.
static uint64_t run_gemm(const Arch *a, const GemmSpec *g, SimMode mode) {
  char name[128];
  spec_name(g, name, sizeof name);
  const char *eng = mode == SIM_FAST ? "fast" : "detailed";
  Diag d;
  diag_init(&d);
  Program *p = gemmprog_build(a, g, &d);
  CHECK(p != NULL, "%s on %s: build failed: %s", name, a->name, diag_first(&d));
  if (!p) return 0;
  CHECK(randprog_check_races(p, &d) == 0, "%s on %s: %s", name, a->name, diag_first(&d));
  CHECK(randprog_token_bound(p) <= a->token_max, "%s on %s: token bound %u > tokens.max %u", name, a->name,
        randprog_token_bound(p), a->token_max);
  Sim *s = sim_new(p, mode, &d);
  CHECK(s != NULL, "%s on %s: sim_new: %s", name, a->name, diag_first(&d));
  uint64_t cycles = 0;
  if (s && sim_run(s, &d) != 0) {
    CHECK(0, "%s on %s (%s): run failed: %s", name, a->name, eng, diag_first(&d));
  } else if (s) {
    uint64_t nb = gemmprog_c_bytes(g);
    uint8_t *got = malloc(nb), *want = malloc(nb);
    GemmData dat;
    if (got && want && !gemmprog_data_new(g, &dat)) {
      gemmprog_reference(g, dat.A, dat.B, dat.bias, dat.mult, dat.shift, want);
      sim_get_tensor(s, prog_find_tensor(p, "C"), got);
      size_t es = g->raw32 ? 4 : 1;
      for (uint64_t i = 0; i < nb; i += es)
        if (memcmp(got + i, want + i, es)) {
          uint64_t e = i / es;
          long long gv = g->raw32 ? ((int32_t *)(void *)got)[e] : (int8_t)got[e];
          long long wv = g->raw32 ? ((int32_t *)(void *)want)[e] : (int8_t)want[e];
          CHECK(0, "%s on %s (%s): C[%llu][%llu] = %lld, reference %lld", name, a->name, eng,
                (unsigned long long)(e / g->N), (unsigned long long)(e % g->N), gv, wv);
          break;
        }
      gemmprog_data_free(&dat);
      cycles = sim_stats(s)->cycles;
      uint64_t macs = (uint64_t)g->M * g->K * g->N;
      CHECK(sim_stats(s)->macs >= macs, "%s on %s (%s): %llu MACs counted, the GEMM has %llu", name, a->name, eng,
            (unsigned long long)sim_stats(s)->macs, (unsigned long long)macs);
    } else {
      CHECK(0, "out of memory");
    }
    free(got);
    free(want);
  }
  sim_free(s);
  prog_free(p);
  return check_case_failures() ? 0 : cycles;
}

// Fast always; detailed too when small; the two must also agree on the cycle count.
static void run_both(const Arch *a, const GemmSpec *g) {
  uint64_t cf = run_gemm(a, g, SIM_FAST);
  if ((uint64_t)g->M * g->K * g->N <= DETAILED_MAX_MACS) {
    uint64_t cd = run_gemm(a, g, SIM_DETAILED);
    CHECK(!cf || !cd || cf == cd, "%ux%ux%u on %s: fast %llu cycles, detailed %llu", g->M, g->K, g->N, a->name,
          (unsigned long long)cf, (unsigned long long)cd);
  }
}

static GemmSpec spec(uint32_t M, uint32_t K, uint32_t N, int variant, uint64_t seed) {
  GemmSpec g;
  memset(&g, 0, sizeof g);
  g.M = M;
  g.K = K;
  g.N = N;
  g.raw32 = variant & 1;
  g.double_buffer = (variant >> 1) & 1;
  g.act = g.raw32 ? ACT_NONE : (unsigned)((variant >> 2) % 3);
  g.clamp_lo = -20;
  g.clamp_hi = 90;
  g.seed = seed;
  return g;
}

static const uint32_t odd[] = {1, 3, 7, 17, 33};
#define N_ODD (sizeof odd / sizeof odd[0])

// Every (M, K, N) in {1, 3, 7, 17, 33}^3 on an arch, cycling through the output variants.
static void test_odd_shapes(const Arch *a, const char *case_name, int forced_tiles) {
  int v = 0;
  for (size_t i = 0; i < N_ODD; i++)
    for (size_t j = 0; j < N_ODD; j++)
      for (size_t k = 0; k < N_ODD; k++, v++) {
        GemmSpec g = spec(odd[i], odd[j], odd[k], v % 12, 1000 + (uint64_t)v);
        if (forced_tiles) {   // several m-tiles and K chunks even on a big arch
          g.tile_m = 5;
          g.k_tiles = 1;
        }
        run_both(a, &g);
        if (check_case_failures()) goto done;
      }
done:
  check_case(case_name);
}

// All twelve variants (raw32 / int8 x 3 activations, db on/off) on a few shapes.
static void test_variants(const Arch *a, const char *case_name) {
  static const uint32_t shapes[][3] = {{1, 1, 1}, {4, 4, 4}, {9, 13, 6}, {20, 11, 9}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int v = 0; v < 12; v++) {
      GemmSpec g = spec(shapes[s][0], shapes[s][1], shapes[s][2], v, 77 + s);
      run_both(a, &g);
    }
  check_case(case_name);
}

// Larger shapes on the default arch, fast engine (and detailed on the smallest).
static void test_default_arch(void) {
  Arch a;
  arch_default_small_dram(&a);
  static const uint32_t shapes[][3] = {{16, 16, 16}, {33, 17, 33}, {64, 100, 40}, {100, 300, 50}, {7, 1000, 3}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int v = 0; v < 4; v++) {
      GemmSpec g = spec(shapes[s][0], shapes[s][1], shapes[s][2], v | 4, 5 + s);
      run_both(&a, &g);
      g.tile_m = 13;
      g.k_tiles = 2;
      run_both(&a, &g);
    }
  check_case("gemm: default 16x16 arch, tiled shapes");
}

// Bad specs are refused with a message, not built.
static void test_refusals(void) {
  Arch a;
  a = testarch_tiny();
  Diag d;
  GemmSpec g = spec(0, 3, 3, 0, 1);
  diag_init(&d);
  CHECK(gemmprog_build(&a, &g, &d) == NULL && d.count, "M=0 accepted");
  g = spec(300, 300, 300, 0, 1);   // 90 KB of A + B + C does not fit 64 KB
  diag_init(&d);
  CHECK(gemmprog_build(&a, &g, &d) == NULL && strstr(diag_first(&d), "DRAM"), "oversized GEMM accepted: %s",
        diag_first(&d));
  g = spec(3, 3, 3, 4 * 2, 1);
  g.clamp_lo = 5;
  g.clamp_hi = -5;
  diag_init(&d);
  CHECK(gemmprog_build(&a, &g, &d) == NULL && d.count, "clamp lo > hi accepted");
  check_case("gemm: impossible specs are refused");
}

// The reference itself, on numbers worked by hand.
static void test_reference(void) {
  int8_t A[2 * 3] = {1, 2, 3, -4, 5, -6};
  int8_t B[3 * 2] = {7, -8, 9, 10, -11, 12};
  int32_t want[4] = {1 * 7 + 2 * 9 + 3 * -11, 1 * -8 + 2 * 10 + 3 * 12, -4 * 7 + 5 * 9 + -6 * -11,
                     -4 * -8 + 5 * 10 + -6 * 12};
  int32_t got[4];
  GemmSpec g = spec(2, 3, 2, 1, 0);
  gemmprog_reference(&g, A, B, NULL, NULL, NULL, got);
  for (int i = 0; i < 4; i++) CHECK(got[i] == want[i], "raw C[%d] = %d, want %d", i, got[i], want[i]);
  // int8: (acc + bias) * mult >> shift with rounding, then relu and saturation.
  int32_t bias[2] = {10, 0}, mult[2] = {3, 1000}, shift[2] = {2, 0};
  int8_t q[4];
  g = spec(2, 3, 2, 4, 0);   // int8 + relu
  gemmprog_reference(&g, A, B, bias, mult, shift, q);
  CHECK(q[0] == 2, "(-8 + 10) * 3 = 6, rounded >> 2 = 2: got %d", q[0]);
  CHECK(q[1] == 127, "48 * 1000 saturates to 127: got %d", q[1]);
  CHECK(q[2] == 70, "(83 + 10) * 3 = 279, rounded >> 2 = 70: got %d", q[2]);
  CHECK(q[3] == 127, "10 * 1000 saturates to 127: got %d", q[3]);
  g.act = ACT_CLAMP;   // clamp to [-20, 90]
  gemmprog_reference(&g, A, B, bias, mult, shift, q);
  CHECK(q[1] == 90 && q[2] == 70, "clamp: got %d %d, want 90 70", q[1], q[2]);
  bias[0] = -100;      // (-8 - 100) * 3 = -324 >> 2 = -81: relu 0, none -81, clamp -20
  g.act = ACT_NONE;
  gemmprog_reference(&g, A, B, bias, mult, shift, q);
  CHECK(q[0] == -81, "no activation: got %d, want -81", q[0]);
  g.act = ACT_RELU;
  gemmprog_reference(&g, A, B, bias, mult, shift, q);
  CHECK(q[0] == 0, "relu: got %d, want 0", q[0]);
  check_case("gemm: naive reference on hand-worked numbers");
}

// Double buffering overlaps loads and stores with compute: strictly fewer cycles.
static void test_double_buffer_speedup(void) {
  Arch a;
  arch_default_small_dram(&a);
  GemmSpec g = spec(128, 256, 64, 0, 99);
  g.k_tiles = 4;
  uint64_t off = run_gemm(&a, &g, SIM_FAST);
  g.double_buffer = 1;
  uint64_t on = run_gemm(&a, &g, SIM_FAST);
  CHECK(on && off && on < off, "double buffering: %llu cycles, without: %llu", (unsigned long long)on,
        (unsigned long long)off);
  Arch t;
  t = testarch_tiny();
  g = spec(33, 33, 17, 1, 98);
  uint64_t toff = run_gemm(&t, &g, SIM_DETAILED);
  g.double_buffer = 1;
  uint64_t ton = run_gemm(&t, &g, SIM_DETAILED);
  CHECK(ton && toff && ton < toff, "tiny arch, detailed: double buffering %llu cycles, without %llu",
        (unsigned long long)ton, (unsigned long long)toff);
  printf("# double buffering: default %llu -> %llu cycles, tiny %llu -> %llu\n", (unsigned long long)off,
         (unsigned long long)on, (unsigned long long)toff, (unsigned long long)ton);
  check_case("gemm: double buffering takes fewer cycles");
}

// Operands at the extremes of int8: every product -128 x -128 = 16384 and every product
// -128 x 127 = -16256, where the fast engine's pairwise 16-bit sums of products are largest and
// smallest (sim/fast.c PAIR_BIAS), and a mix. On the default arch and on an odd 7x5 one (rows
// left over after the blocks of four: a pair and a single row; a column after the pairs).
static void test_extreme_operands(void) {
  Arch arches[2];
  arch_default_small_dram(&arches[0]);
  arch_default_small_dram(&arches[1]);
  arches[1].rows = 7, arches[1].cols = 5;
  for (int ai = 0; ai < 2; ai++)
    for (int pattern = 0; pattern < 3; pattern++) {
      const Arch *a = &arches[ai];
      GemmSpec g = spec(19, 2 * a->rows + 3, a->cols + 5, 1, 7);   // raw32: the sums themselves
      Diag d;
      diag_init(&d);
      Program *p = gemmprog_build(a, &g, &d);
      CHECK(p != NULL, "build failed: %s", diag_first(&d));
      if (!p) continue;
      GemmData dat;
      if (gemmprog_data_new(&g, &dat)) {
        prog_free(p);
        CHECK(0, "out of memory");
        continue;
      }
      for (uint32_t i = 0; i < g.M * g.K; i++) dat.A[i] = pattern == 1 && i % 3 == 0 ? 127 : -128;
      for (uint32_t i = 0; i < g.K * g.N; i++) dat.B[i] = pattern == 2 ? 127 : -128;   // 2: -128 x 127
      uint64_t nb = gemmprog_c_bytes(&g);
      int32_t *want = malloc(nb), *got = malloc(nb);
      if (want && got) gemmprog_reference(&g, dat.A, dat.B, dat.bias, dat.mult, dat.shift, want);
      for (int mode = 0; mode < 2 && want && got; mode++) {
        Sim *sim = sim_new(p, mode ? SIM_DETAILED : SIM_FAST, &d);
        int ok = sim && !sim_set_tensor(sim, "A", dat.A, (uint64_t)g.M * g.K, &d) &&
                 !sim_set_tensor(sim, "B", dat.B, (uint64_t)g.K * g.N, &d) && !sim_run(sim, &d);
        CHECK(ok, "%s pattern %d: %s", a->name, pattern, diag_first(&d));
        if (ok) {
          sim_get_tensor(sim, prog_find_tensor(p, "C"), got);
          for (uint64_t e = 0; e < nb / 4; e++)
            if (got[e] != want[e]) {
              CHECK(0, "%dx%d pattern %d (%s): C[%llu] = %d, reference %d", a->rows, a->cols, pattern,
                    mode ? "detailed" : "fast", (unsigned long long)e, got[e], want[e]);
              break;
            }
        }
        sim_free(sim);
      }
      free(want);
      free(got);
      gemmprog_data_free(&dat);
      prog_free(p);
    }
  check_case("gemm: int8 extremes (-128, 127) on 16x16 and 7x5");
}

int main(void) {
  Arch tiny, two, def;
  tiny = testarch_tiny();
  two = testarch_2x2();
  arch_default_small_dram(&def);
  test_reference();
  test_refusals();
  test_odd_shapes(&tiny, "gemm: odd shapes on 4x4", 0);
  test_odd_shapes(&two, "gemm: odd shapes on 2x2 with tiny buffers", 0);
  test_odd_shapes(&def, "gemm: odd shapes on 16x16, forced small tiles", 1);
  test_variants(&tiny, "gemm: every output variant on 4x4");
  test_variants(&two, "gemm: every output variant on 2x2");
  test_default_arch();
  test_extreme_operands();
  test_double_buffer_speedup();
  return check_status();
}
