// is_test.c: input-stationary support (COMPUTE_IS and the transposed LOAD) on both engines. Every
// expected cycle is worked out by hand from docs/TIMING.md §5-§6 in the comments beside it (tiny
// arch: R = C = 4, so a stream of M rows has ready = s + M and e = s + M + 6; a PRELOAD has
// e = s + 3); the data is checked against naive loops over the definitions in docs/ISA.md.
// The tests poke WBUF through sim_internal.h to show what a transposed LOAD leaves untouched.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/detailed_step.h"
#include "../../sim/energy.h"
#include "../../sim/sim.h"
#include "../../sim/sim_internal.h"
#include "../common/bothcheck.h"
#include "../common/check.h"
#include "../common/insnbuild.h"
#include "../common/testarch.h"

#define U_LOAD 1
#define U_COMPUTE 2
#define U_STORE 4

static const char *mode_name(int mode) { return mode == SIM_FAST ? "fast" : "detailed"; }

// TIMING §11's input-stationary example: times and counts on both engines.
static Program *example_program(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 3));   // 0: s 1, ready 2, e 4
  insn_add(p, insn_compute_is(0, 0, 6, 8, 3, 0));          // 1: bank complete: s 5, ready 11, e 5 + 6 + 6 = 17
  insn_add(p, isa_insn(OP_HALT));             // 2: f 2; cycles 18
  return p;
}

static void test_example(void) {
  Program *p = example_program();
  static const Want w[] = {{0, 1, 2, 4}, {1, 5, 11, 17}, {2, 2, 3, 2}};
  // busy 1, 5..10; wait_resource 2..4; idle 0, 11..17. 6 x 3 x 3 MACs (K 3, COLS 3), 6 x 16
  // slots, 6 SPAD rows, 3 WBUF rows (PRELOAD), COLS x ceil(6/4) = 6 ACC rows written.
  WantStats ws = {18, 7, 0, 3, 8, 54, 96, 6, 3, 6, 0};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("is_timing_example");
}

// The same example one cycle at a time: every ACC write of the array is row m, column c (c < 3)
// in cycle 9 + m + c to ACC[(m div 4)*8 + c][m mod 4], and nothing else is written.
static void test_example_writes(void) {
  Program *p = example_program();
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, SIM_DETAILED, &d);
  CHECK(s, "%s", diag_first(&d));
  SimDetStep *st = s ? sim_detailed_begin(s, &d) : NULL;
  SimAccWrite acc[4];
  int seen[6][4] = {{0}}, writes = 0, rc = 1;
  while (st && rc == 1) {
    for (int c = 0; c < 4; c++) acc[c].row = UINT64_MAX;
    SimCycleLog log = {.acc = acc};
    rc = sim_detailed_step(st, &log);
    for (uint32_t c = 0; c < 4; c++) {
      if (acc[c].row == UINT64_MAX) continue;
      writes++;
      // The row m this column carries in this cycle, from the stream's timing.
      int64_t m = (int64_t)log.cycle - 9 - (int64_t)c;
      CHECK(c < 3 && m >= 0 && m < 6, "cycle %llu: column %u wrote ACC[%llu][%u]", (unsigned long long)log.cycle, c,
            (unsigned long long)acc[c].row, acc[c].bank);
      if (!(c < 3 && m >= 0 && m < 6)) continue;
      CHECK(acc[c].row == (uint64_t)(m / 4 * 8 + c) && acc[c].bank == (uint32_t)(m % 4) && !acc[c].accum &&
                acc[c].insn == 1,
            "cycle %llu: column %u wrote ACC[%llu][%u] (insn %u); want ACC[%lld][%lld] (insn 1)",
            (unsigned long long)log.cycle, c, (unsigned long long)acc[c].row, acc[c].bank, acc[c].insn,
            (long long)(m / 4 * 8 + c), (long long)(m % 4));
      seen[m][c]++;
    }
    // TIMING §11: in cycle 11 the three columns hit banks 2, 1, 0.
    if (log.cycle == 11)
      CHECK(acc[0].bank == 2 && acc[1].bank == 1 && acc[2].bank == 0 && acc[0].row == 0 && acc[1].row == 1 &&
                acc[2].row == 2,
            "cycle 11: banks %u %u %u", acc[0].bank, acc[1].bank, acc[2].bank);
  }
  CHECK(rc == 0, "run failed: %s", diag_first(&d));
  CHECK(writes == 18, "%d ACC writes, want 6 rows x 3 columns = 18", writes);
  for (int m = 0; m < 6; m++)
    for (int c = 0; c < 3; c++) CHECK(seen[m][c] == 1, "row %d column %d written %d times", m, c, seen[m][c]);
  sim_detailed_end(st);
  sim_free(s);
  prog_free(p);
  check_case("is_example_writes_through_the_rotator");
}

// §11 continued: a second COMPUTE_IS waits for stream alignment, a COMPUTE for the first's end.
static void test_alignment(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 3));   // 0: s 1, ready 2, e 4
  insn_add(p, insn_compute_is(0, 0, 6, 8, 3, 0));          // 1: s 5, ready 11, e 17
  insn_add(p, insn_compute_is(6, 16, 4, 8, 4, 0));         // 2: free at 11, (11 - 5) mod 4 = 2: s 13, ready 17, e 23
  insn_add(p, insn_compute(0, 32, 2));             // 3: waits for e + 1 of insn 2: s 24, ready 26, e 32
  insn_add(p, isa_insn(OP_HALT));             // 4: f 4; cycles 33
  static const Want w[] = {{0, 1, 2, 4}, {1, 5, 11, 17}, {2, 13, 17, 23}, {3, 24, 26, 32}, {4, 4, 5, 4}};
  // busy 1, 5..10, 13..16, 24..25 = 13; wait_resource 2..4, 11..12, 17..23 = 12; idle 0, 26..32.
  // MACs (K 3): 6 x 3 x 3 + 4 x 3 x 4 + 2 x 3 x 4; slots 12 x 16; ACC rows 3 x 2 + 4 x 1 + 2
  WantStats ws = {33, 13, 0, 12, 8, 54 + 48 + 24, 192, 12, 3, 12, 0};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("is_alignment_and_compute_behind");
}

// Rule (d)'s other branch: a COMPUTE_IS that becomes startable exactly at e_y + 1, off phase,
// starts there (the previous one has left the array).
static void test_alignment_lapses(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  Insn ld = insn_load(MEM_SPAD, 8, 0, 1, 4, 1, 4);   // 0: beats 1..4, ready 5, e 14: token visible 15
  ld.f[FLD_PUSH] = U_COMPUTE;
  insn_add(p, ld);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 4));     // 1: s 2, ready 3, e 5
  insn_add(p, insn_compute_is(0, 0, 2, 0, 4, 0));            // 2: s 6, ready 8, e 6 + 2 + 6 = 14
  Insn x = insn_compute_is(8, 4, 3, 0, 4, 1);
  x.f[FLD_POP] = U_LOAD;
  insn_add(p, x);                               // 3: token at 15 = e + 1, (15 - 6) mod 4 = 1: s 15, ready 18,
                                                //    e 15 + 3 + 6 = 24
  insn_add(p, isa_insn(OP_HALT));               // 4: f 4; cycles 25
  static const Want w[] = {{0, 1, 5, 14}, {1, 2, 3, 5}, {2, 6, 8, 14}, {3, 15, 18, 24}, {4, 4, 5, 4}};
  // compute: idle 0..1, busy 2, 6..7, 15..17 = 6; wait_resource 3..5; wait_token 8..14; idle 18..24
  // MACs 2 x 4 x 4 + 3 x 4 x 4; slots 5 x 16; ACC rows 4 + 4 written, 4 read (ACCUM)
  WantStats ws = {25, 6, 7, 3, 9, 32 + 48, 80, 5, 4, 8, 4};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("is_alignment_lapses_at_end");
}

// The mode rules: COMPUTE_IS after COMPUTE, COMPUTE after COMPUTE_IS, COMPUTE_OS after COMPUTE_IS.
static void test_mode_rules(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 4));   // 0: s 1, ready 2, e 4
  insn_add(p, insn_compute_is(0, 0, 5, 4, 2, 0));          // 1: s 5, ready 10, e 5 + 5 + 6 = 16
  insn_add(p, insn_compute(0, 20, 2));             // 2: COMPUTE after COMPUTE_IS: s 17, ready 19, e 25
  insn_add(p, insn_compute_is(2, 30, 3, 0, 4, 1));         // 3: rule (c): s 26, ready 29, e 35
  insn_add(p, insn_compute_os(0, 4, 0, 4, 40, 4, 0));         // 4: COMPUTE_OS rule (a): s 36, ready 40, e 36 + 4 + 9 = 49
  insn_add(p, isa_insn(OP_HALT));             // 5: f 5; cycles 50
  static const Want w[] = {{0, 1, 2, 4}, {1, 5, 10, 16}, {2, 17, 19, 25}, {3, 26, 29, 35}, {4, 36, 40, 49}, {5, 5, 6, 5}};
  // busy 1, 5..9, 17..18, 26..28, 36..39 = 15; wait_resource 2..4, 10..16, 19..25, 29..35 = 24;
  // idle 0, 40..49 = 11. MACs (K 4): 5 x 4 x 2 + 2 x 4 x 4 + 3 x 4 x 4 + 4 x 4 x 4; slots 10 x 16 +
  // 4 x 16; SPAD 5 + 2 + 3 + 4; WBUF 4 + 4; ACC rows 2 x 2 + 2 + 4 + 4 written, 4 read
  WantStats ws = {50, 15, 0, 24, 11, 40 + 32 + 48 + 64, 224, 14, 8, 14, 4};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("is_mode_rules");
}

// PRELOAD rule (b) applies to COMPUTE_IS streams too: an OVERLAP COMPUTE_IS lets the PRELOAD of
// the other bank start at once, and the next PRELOAD of its own bank waits until C cycles after
// its last row is read.
static void test_preload_waits(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 4));   // 0: bank 0: s 1, ready 2, e 4
  Insn x = insn_compute_is(0, 0, 3, 0, 4, 0);
  x.f[FLD_OVERLAP] = 1;
  insn_add(p, x);                             // 1: s 5, ready 6 (OVERLAP), rows read 5..7, e 5 + 2 + 7 = 14
  insn_add(p, insn_rows(OP_PRELOAD, 4, 4));   // 2: bank 1: chain free at 5, unit at 6: s 6, ready 7, e 9
  insn_add(p, insn_rows(OP_PRELOAD, 8, 2));   // 3: bank 0: chain free at 10, bank from 7 + 4 = 11: s 11, e 14
  insn_add(p, insn_compute_is(4, 8, 1, 0, 4, 0));          // 4: bank 0 complete: s 15 (y ended 14), ready 16, e 22
  insn_add(p, isa_insn(OP_HALT));             // 5: f 5; cycles 23
  static const Want w[] = {{0, 1, 2, 4}, {1, 5, 6, 14}, {2, 6, 7, 9}, {3, 11, 12, 14}, {4, 15, 16, 22}, {5, 5, 6, 5}};
  // busy 1, 5, 6, 7 (insn 1's stream), 11, 15 = 6; wait_resource 2..4, 8..10, 12..14 = 9; idle 0,
  // 16..22 = 8. MACs 3 x 4 x 4 + 1 x 2 x 4; SPAD 4; WBUF 4 + 4 + 2; ACC rows 4 + 4
  WantStats ws = {23, 6, 0, 9, 8, 48 + 8, 64, 4, 10, 8, 0};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("is_preload_waits_for_bank");
}

// A transposed LOAD: 10 rows (more than C) of 6 bytes (more than a WBUF row), 2 segments of 3;
// row r lands down column r mod 4 from WBUF row 3 + (r div 4)*10. WBUF is filled with 0x5a
// before the run: every other byte must keep it. Times and counts are those of the beats.
static void test_transposed_load(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  uint8_t dram[0x100];
  for (size_t i = 0; i < sizeof dram; i++) dram[i] = (uint8_t)(i * 7 + 1);
  prog_add_data(p, 0, dram, sizeof dram);
  Insn c = isa_insn(OP_CFG_LOAD);
  c.f[FLD_STRIDE_OUTER] = 64;
  c.f[FLD_STRIDE_INNER] = 8;
  c.f[FLD_SEG_STRIDE] = 4;
  insn_add(p, c);                                   // 0: s 1
  Insn ld = insn_load(MEM_WBUF, 3, 0, 2, 5, 2, 3);
  ld.f[FLD_TRANSPOSE] = 1;
  ld.f[FLD_TSTRIDE] = 10;
  insn_add(p, ld);                                  // 1: 20 beats (one per segment), 4 per 10 cycles:
                                                    //    2..5, 12..15, ..., 42..45: ready 46, e 55,
                                                    //    stall 44 - 20 = 24
  insn_add(p, isa_insn(OP_HALT));                   // 2: f 2; cycles 56
  for (int mode = SIM_FAST; mode <= SIM_DETAILED; mode++) {
    const char *mn = mode_name(mode);
    Diag d;
    diag_init(&d);
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s, "%s", diag_first(&d));
    if (!s) continue;
    memset(s->wbuf, 0x5a, (size_t)a.wbuf_rows * a.cols);
    CHECK(sim_run(s, &d) == 0, "%s: run failed: %s", mn, diag_first(&d));
    const InsnTime *t = sim_insn_times(s);
    CHECK(t[1].start == 2 && t[1].ready == 46 && t[1].end == 55 && t[1].stall == 24,
          "%s: LOAD s %llu ready %llu e %llu stall %llu; want 2 46 55 24", mn, (unsigned long long)t[1].start,
          (unsigned long long)t[1].ready, (unsigned long long)t[1].end, (unsigned long long)t[1].stall);
    const SimStats *st = sim_stats(s);
    CHECK(st->cycles == 56 && st->dram_read_beats == 20 && st->dram_read_bytes == 60,
          "%s: cycles %llu beats %llu bytes %llu; want 56 20 60", mn, (unsigned long long)st->cycles,
          (unsigned long long)st->dram_read_beats, (unsigned long long)st->dram_read_bytes);
    // ceil(10 / 4) blocks x 6 rows each
    CHECK(st->mem_writes[MEM_ST_WBUF] == 18, "%s: WBUF row writes %llu, want 18", mn,
          (unsigned long long)st->mem_writes[MEM_ST_WBUF]);
    // The energy model prices exactly those 18 row writes for WBUF (and nothing for the array).
    EnergyTable et;
    energy_default(&et);
    EnergyReport er;
    CHECK(energy_of(st, &a, &et, &er) == 0, "energy_of failed");
    double want_pj = 18 * et.sram_write_factor * energy_sram_row_pj(&et, &a, MEM_ST_WBUF) * et.scale_energy;
    CHECK(er.run.pj[EN_WBUF] > 0 && er.run.pj[EN_WBUF] < want_pj * 1.000001 && er.run.pj[EN_WBUF] > want_pj * 0.999999 &&
              er.run.pj[EN_MAC] == 0 && er.run.pj[EN_ACC] == 0,
          "%s: energy wbuf %g pJ (want %g), mac %g, acc %g", mn, er.run.pj[EN_WBUF], want_pj, er.run.pj[EN_MAC],
          er.run.pj[EN_ACC]);
    energy_report_free(&er);
    int8_t want[64 * 4];
    memset(want, 0x5a, sizeof want);
    for (int r = 0; r < 10; r++)
      for (int b = 0; b < 6; b++) {
        int o = r / 5, i = r % 5, addr = o * 64 + i * 8 + (b / 3) * 4 + b % 3;
        want[(3 + (r / 4) * 10 + b) * 4 + r % 4] = (int8_t)dram[addr];
      }
    for (int row = 0; row < 64; row++)
      for (int col = 0; col < 4; col++)
        CHECK(s->wbuf[row * 4 + col] == want[row * 4 + col], "%s: WBUF[%d][%d] = %d, want %d", mn, row, col,
              s->wbuf[row * 4 + col], want[row * 4 + col]);
    sim_free(s);
  }
  prog_free(p);
  check_case("is_transposed_load_landing");
}

// The definitions of docs/ISA.md, as plain loops over the machine's memories (R = C = 4).
static void naive_transposed_load(int8_t *wbuf, const uint8_t *dram, const Insn *in, uint64_t so, uint64_t si) {
  for (int64_t r = 0; r < in->f[FLD_OUTER] * in->f[FLD_INNER]; r++)
    for (int64_t b = 0; b < in->f[FLD_SEGLEN]; b++) {   // NSEG 1
      uint64_t addr = (uint64_t)in->f[FLD_DRAM_ADDR] + (uint64_t)(r / in->f[FLD_INNER]) * so +
                      (uint64_t)(r % in->f[FLD_INNER]) * si + (uint64_t)b;
      wbuf[(in->f[FLD_DST] + (r / 4) * in->f[FLD_TSTRIDE] + b) * 4 + r % 4] = (int8_t)dram[addr];
    }
}

static void naive_is(const int8_t *spad, const int8_t *bank, int32_t *acc, const Insn *in) {
  for (int64_t m = 0; m < in->f[FLD_ROWS]; m++)
    for (int64_t c = 0; c < in->f[FLD_COLS]; c++) {
      int64_t sum = 0;
      for (int k = 0; k < 4; k++) sum += (int64_t)spad[(in->f[FLD_SRC] + m) * 4 + k] * bank[k * 4 + c];
      int32_t *o = &acc[(in->f[FLD_ACC_ADDR] + (m / 4) * in->f[FLD_ASTRIDE] + c) * 4 + m % 4];
      int64_t v = in->f[FLD_ACCUM] ? (int64_t)*o + sum : sum;
      *o = (int32_t)(uint32_t)(uint64_t)v;   // wraps modulo 2^32 like the machine
    }
}

// Random operands: SPAD rows by a LOAD, the inputs by a transposed LOAD (7 pixels of 3 bytes),
// ACC rows by a LOAD; PRELOAD 3 rows; COMPUTE_IS accumulating with ROWS 6 (not a multiple of 4),
// ASTRIDE 5, COLS 3; a second one overwriting with ROWS 9, ASTRIDE 1 < COLS 4 (its blocks
// overlap: the later row wins); STORE RAW32 of every ACC row touched; both engines against loops.
static void test_data(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  uint8_t dram[0x200];
  test_random_bytes(dram, sizeof dram, 777);
  prog_add_data(p, 0, dram, sizeof dram);
  Insn in = isa_insn(OP_CFG_LOAD);
  in.f[FLD_STRIDE_INNER] = 4;
  in.f[FLD_MULT] = 1;
  insn_add(p, in);
  insn_add(p, insn_load(MEM_SPAD, 0, 0, 1, 16, 1, 4));       // SPAD 0..15 := bytes 0x00..0x3f
  Insn tl = insn_load(MEM_WBUF, 2, 0x80, 1, 7, 1, 3);         // pixel r: bytes 0x80 + 4r .. +2, down column r mod 4
  tl.f[FLD_TRANSPOSE] = 1;
  tl.f[FLD_TSTRIDE] = 3;
  insn_add(p, tl);
  Insn la = insn_load(MEM_ACC, 20, 0x100, 1, 8, 1, 4);        // ACC 20..27 := bytes 0x100..0x11f as int8
  la.f[FLD_PUSH] = U_COMPUTE;
  insn_add(p, la);
  Insn pre = insn_rows(OP_PRELOAD, 2, 3);                // bank row k = WBUF[2 + k]: pixels 0..3, k < 3
  pre.f[FLD_POP] = U_LOAD;
  insn_add(p, pre);
  Insn i1 = insn_compute_is(1, 20, 6, 5, 3, 1), i2 = insn_compute_is(7, 40, 9, 1, 4, 0);
  i2.f[FLD_PUSH] = U_STORE;
  insn_add(p, i1);
  insn_add(p, i2);
  in = isa_insn(OP_CFG_STORE);
  in.f[FLD_STRIDE_INNER] = 16;
  insn_add(p, in);
  Insn stq = insn_store(20, 0x400, 1, 28, 4, 1);   // ACC 20..47 -> 0x400 as int32
  stq.f[FLD_POP] = U_COMPUTE;
  insn_add(p, stq);
  insn_add(p, isa_insn(OP_HALT));
  // The expected machine state, from the bytes.
  int8_t spad[16 * 4], wbuf[64 * 4], bank[16];
  int32_t acc[64 * 4];
  memcpy(spad, dram, sizeof spad);
  memset(wbuf, 0, sizeof wbuf);
  naive_transposed_load(wbuf, dram, &tl, 0, 4);
  memset(bank, 0, sizeof bank);
  memcpy(bank, wbuf + 2 * 4, 3 * 4);   // rows >= ROWS are zero
  memset(acc, 0, sizeof acc);
  for (int i = 0; i < 32; i++) acc[20 * 4 + i] = (int8_t)dram[0x100 + i];
  naive_is(spad, bank, acc, &i1);
  naive_is(spad, bank, acc, &i2);
  for (int mode = SIM_FAST; mode <= SIM_DETAILED; mode++) {
    Diag d;
    diag_init(&d);
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s && sim_run(s, &d) == 0, "run failed: %s", diag_first(&d));
    if (!s) continue;
    check_raw32(s, 0x400, acc + 20 * 4, 28 * 4, 20, 4, mode_name(mode));
    CHECK(!memcmp(s->wbuf, wbuf, sizeof wbuf), "%s: WBUF differs from the transposed landing", mode_name(mode));
    sim_free(s);
  }
  prog_free(p);
  check_case("is_data_against_naive_loops");
}

// The shipped input-stationary GEMM leaves C (input-stationary) and D (the same GEMM
// weight-stationary) both equal to its numpy result on both engines.
static void test_shipped(void) {
  check_shipped_cd("workloads/asm/gemm_is_tiny.s", "workloads/asm/gemm_is_tiny_expected.npy", 30);
  check_case("is_shipped_gemm_is_tiny");
}

int main(void) {
  test_example();
  test_example_writes();
  test_alignment();
  test_alignment_lapses();
  test_mode_rules();
  test_preload_waits();
  test_transposed_load();
  test_data();
  test_shipped();
  return check_status();
}
