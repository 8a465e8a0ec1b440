// overlap_test.c: weights preloaded behind compute (docs/TIMING.md §6, COMPUTE's OVERLAP bit and
// PRELOAD rule (b)) on both engines. Each test is a weight-stationary chain of PRELOAD/COMPUTE
// pairs on the tiny arch (R = C = 4, compute queue 4); every expected cycle is worked out by hand
// in the comments: a PRELOAD has ready = s + 1, e = s + 3; a stream of M rows reads its rows in
// s .. s + M - 1, has ready = s + M (s + 1 with OVERLAP) and e = s + M + 6; PRELOAD rule (b) frees
// a bank C = 4 cycles after its last stream's last row read. The accumulator is checked against a
// naive GEMM per pair on both engines.
#include <stdio.h>
#include <string.h>

#include "../../sim/sim.h"
#include "../../sim/sim_internal.h"
#include "../common/bothcheck.h"
#include "../common/check.h"
#include "../common/insnbuild.h"
#include "../common/testarch.h"

enum { PAIRS = 4 };

// PAIRS pairs: PRELOAD k of WBUF rows 4k .. 4k+3, COMPUTE k of SPAD rows k*M .. into ACC rows k*M ..;
// OVERLAP on every COMPUTE but the last when overlap is set.
static Program *chain(int M, int overlap) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  for (int k = 0; k < PAIRS; k++) {
    insn_add(p, insn_rows(OP_PRELOAD, (uint64_t)(4 * k), 4));
    Insn c = insn_compute(k * M, k * M, M);
    c.f[FLD_OVERLAP] = overlap && k + 1 < PAIRS;
    insn_add(p, c);
  }
  insn_add(p, isa_insn(OP_HALT));
  return p;
}

// Runs p on both engines with pseudo-random SPAD and WBUF and checks every ACC row it writes.
static void check_data(const Program *p, int M) {
  for (int mode = SIM_FAST; mode <= SIM_DETAILED; mode++) {
    const char *mn = mode == SIM_FAST ? "fast" : "detailed";
    Diag d;
    diag_init(&d);
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s, "%s: %s", mn, diag_first(&d));
    if (!s) continue;
    const Arch *a = &p->arch;
    test_random_bytes((uint8_t *)s->spad, (size_t)a->spad_rows * a->rows, 7);
    test_random_bytes((uint8_t *)s->wbuf, (size_t)a->wbuf_rows * a->cols, 11);
    CHECK(sim_run(s, &d) == 0, "%s: run failed: %s", mn, diag_first(&d));
    for (int k = 0; k < PAIRS; k++)
      for (int m = 0; m < M; m++)
        for (int c = 0; c < 4; c++) {
          int32_t want = 0;
          for (int r = 0; r < 4; r++) want += s->spad[(k * M + m) * 4 + r] * s->wbuf[(4 * k + r) * 4 + c];
          int32_t got = s->acc[(k * M + m) * 4 + c];
          CHECK(got == want, "%s: pair %d: ACC[%d][%d] = %d, want %d", mn, k, k * M + m, c, got, want);
        }
    sim_free(s);
  }
}

// M = 8 >= R + C - 1: with OVERLAP a pair costs M = 8 cycles (COMPUTEs in 5, 13, 21, 29).
static void test_chain_overlap(void) {
  Program *p = chain(8, 1);
  static const Want w[] = {
      {0, 1, 2, 4},     // PRELOAD 0: bank 0 complete at the end of 4
      {1, 5, 6, 19},    // COMPUTE 0: s 5, ready 6 (OVERLAP), rows 5..12, e 5 + 8 + 6
      {2, 6, 7, 9},     // PRELOAD 1 (bank 1) behind it at once: unit ready 6, chain free since 5
      {3, 13, 14, 27},  // COMPUTE 1: the stream sequencer is free at 5 + 8 = 13 (bank 1 since 10)
      {4, 16, 17, 19},  // PRELOAD 2 (bank 0): COMPUTE 0's last row read in 12: free from 12 + 4
      {6, 21, 22, 35},  // COMPUTE 2: stream free at 21 (bank 0 since 20); fetched at s_1 + 1 = 6
      {7, 24, 25, 27},  // PRELOAD 3 (bank 1): COMPUTE 1's last row in 20: from 24
      {14, 29, 37, 43}, // COMPUTE 3 (no OVERLAP): s 29, ready 37; fetched at s_3 + 1 = 14
      {15, 15, 16, 15}, // HALT
  };
  // busy 1, 5..36 (the four streams back to back, the PRELOADs inside them) = 33; wait_resource
  // 2..4 = 3; idle 0, 37..43 = 8. 4 x 8 x 4 x 4 MACs and slots; 32 SPAD, 16 WBUF rows; 32 ACC rows.
  WantStats ws = {44, 33, 0, 3, 8, 512, 512, 32, 16, 32, 0};
  check_both(p, w, &ws);
  check_data(p, 8);
  prog_free(p);
  check_case("overlap_chain_m8");
}

// The same chain without OVERLAP (the in-order timing of format 1.0): a pair costs M + R = 12.
static void test_chain_in_order(void) {
  Program *p = chain(8, 0);
  static const Want w[] = {
      {0, 1, 2, 4},     {1, 5, 13, 19},   // COMPUTE 0 holds the unit for its 8 rows
      {2, 13, 14, 16},  {3, 17, 25, 31},  // PRELOAD 1 only then; COMPUTE 1 waits for its bank
      {4, 25, 26, 28},  {6, 29, 37, 43},  //
      {14, 37, 38, 40}, {18, 41, 49, 55}, // fetch: s_2 + 1 = 14, s_3 + 1 = 18
      {19, 19, 20, 19},
  };
  // busy 1, 5..13, 17..25, 29..37, 41..48 = 36; wait_resource 2..4, 14..16, 26..28, 38..40 = 12;
  // idle 0, 49..55 = 8
  WantStats ws = {56, 36, 0, 12, 8, 512, 512, 32, 16, 32, 0};
  check_both(p, w, &ws);
  check_data(p, 8);
  prog_free(p);
  check_case("overlap_chain_in_order");
}

// M = 2 < R: the chain bounds it. PRELOAD k+1 starts one cycle after COMPUTE k (in order) and
// COMPUTE k+1 R cycles after that: a pair costs R + 1 = 5 (in order: M + R = 6).
static void test_chain_short(void) {
  Program *p = chain(2, 1);
  static const Want w[] = {
      {0, 1, 2, 4},   {1, 5, 6, 13},    // COMPUTE 0: rows 5..6
      {2, 6, 7, 9},   {3, 10, 11, 18},  // COMPUTE 1 waits for bank 1 (complete at the end of 9)
      {4, 11, 12, 14}, {6, 15, 16, 23}, // PRELOAD 2: bank 0 free from 6 + 4 = 10, chain from 10, unit 11
      {7, 16, 17, 19}, {11, 20, 22, 28},// PRELOAD 3: bank 1 free from 11 + 4 = 15; fetch s_3 + 1 = 11
      {12, 12, 13, 12},
  };
  // busy 1, 5..6, 10..11, 15..16, 20..21 = 9; wait_resource 2..4, 7..9, 12..14, 17..19 = 12;
  // idle 0, 22..28 = 8. 4 x 2 x 4 x 4 MACs and slots; 8 SPAD, 16 WBUF rows; 8 ACC rows.
  WantStats ws = {29, 9, 0, 12, 8, 128, 128, 8, 16, 8, 0};
  check_both(p, w, &ws);
  check_data(p, 2);
  prog_free(p);
  check_case("overlap_chain_m2");
}

// What may start while an OVERLAP stream runs: a LAYER and a PRELOAD, not another COMPUTE.
static void test_stream_holds_compute(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 4));   // 0: s 1, e 4
  Insn c = insn_compute(0, 0, 6);
  c.f[FLD_OVERLAP] = 1;
  insn_add(p, c);                             // 1: s 5, ready 6, rows 5..10, e 17
  CHECK(prog_add_layer(p, "l0") == 0, "prog_add_layer");
  Insn l = isa_insn(OP_LAYER);
  insn_add(p, l);                             // 2: LAYER: load copy s 3; compute copy at 6
  c = insn_compute(6, 6, 2);
  c.f[FLD_OVERLAP] = 1;
  insn_add(p, c);                             // 3: waits for the stream sequencer: s 11, ready 12, e 19
  insn_add(p, insn_rows(OP_PRELOAD, 4, 4));   // 4: bank 1: s 12, ready 13, e 15
  insn_add(p, isa_insn(OP_HALT));             // 5: f 5
  static const Want w[] = {{0, 1, 2, 4}, {1, 5, 6, 17}, {2, 3, 4, 3}, {3, 11, 12, 19}, {4, 12, 13, 15}, {5, 5, 6, 5}};
  // busy 1, 5..10 (LAYER in 6), 11, 12 = 9; wait_resource 2..4 = 3; idle 0, 13..19 = 8.
  WantStats ws = {20, 9, 0, 3, 8, 8 * 16, 8 * 16, 8, 8, 8, 0};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("overlap_stream_holds_compute");
}

int main(void) {
  test_chain_overlap();
  test_chain_in_order();
  test_chain_short();
  test_stream_holds_compute();
  return check_status();
}
