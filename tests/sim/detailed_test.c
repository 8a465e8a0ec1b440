// detailed_test.c: the detailed engine (sim/detailed*.c) on small hand-built programs. Every
// expected cycle is worked out by hand from docs/TIMING.md in the comments beside it; the data
// is checked against naive loops written here (and, for tiled GEMMs, tests/common/gemmprog's).
// The tests poke the on-chip memories through sim_internal.h to set up operands without LOADs.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/numerics.h"
#include "../../sim/sim_internal.h"
#include "../common/check.h"
#include "../common/insnbuild.h"
#include "../common/testarch.h"
#include "../common/gemmprog.h"

#define U_LOAD 1
#define U_COMPUTE 2
#define U_STORE 4

// Runs p in detailed mode; returns the machine (caller frees) or NULL. *rc gets sim_run's result.
static Sim *run(const Program *p, Diag *d, int *rc) {
  diag_init(d);
  Sim *s = sim_new(p, SIM_DETAILED, d);
  if (!s) {
    *rc = -1;
    return NULL;
  }
  *rc = sim_run(s, d);
  return s;
}

static void check_time(const Sim *s, uint32_t k, uint64_t f, uint64_t st, uint64_t r, uint64_t e, uint64_t stall) {
  const InsnTime *t = &sim_insn_times(s)[k];
  CHECK(t->fetch == f && t->start == st && t->ready == r && t->end == e && t->stall == stall,
        "insn %u: fetch %llu start %llu ready %llu end %llu stall %llu; want %llu %llu %llu %llu %llu", k,
        (unsigned long long)t->fetch, (unsigned long long)t->start, (unsigned long long)t->ready,
        (unsigned long long)t->end, (unsigned long long)t->stall, (unsigned long long)f, (unsigned long long)st,
        (unsigned long long)r, (unsigned long long)e, (unsigned long long)stall);
}

static void check_unit(const Sim *s, Unit u, uint64_t busy, uint64_t wtok, uint64_t wres, uint64_t idle) {
  const UnitStats *us = &sim_stats(s)->unit[u];
  CHECK(us->busy == busy && us->wait_token == wtok && us->wait_resource == wres && us->idle == idle,
        "%s unit: busy %llu wait_token %llu wait_resource %llu idle %llu; want %llu %llu %llu %llu",
        isa_unit_names[u], (unsigned long long)us->busy, (unsigned long long)us->wait_token,
        (unsigned long long)us->wait_resource, (unsigned long long)us->idle, (unsigned long long)busy,
        (unsigned long long)wtok, (unsigned long long)wres, (unsigned long long)idle);
}

// TIMING §11: LOAD of 4 aligned 4-byte rows starting in cycle 1: beats 1..4, ready 5, end 14;
// a PRELOAD popping its token starts in 15.
static void test_worked_example(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  uint8_t bytes[4] = {9, 8, 7, 6};
  prog_add_data(p, 0, bytes, 4);
  Insn in = insn_load(MEM_SPAD, 0, 0, 1, 4, 1, 4);   // strides 0: every row reads bytes 0..3
  in.f[FLD_PUSH] = U_COMPUTE;
  insn_add(p, in);                                       // 0: f 0, s 1, beats 1..4, ready 5, end 14
  in = insn_rows(OP_PRELOAD, 0, 4);
  in.f[FLD_POP] = U_LOAD;
  insn_add(p, in);                                       // 1: f 1, s 15, ready 16, end 15+4-1 = 18
  insn_add(p, isa_insn(OP_HALT));                              // 2: f 2: s = e = 2, ready 3
  Diag d;
  int rc;
  Sim *s = run(p, &d, &rc);
  CHECK(s && rc == 0, "run failed: %s", diag_first(&d));
  if (s && rc == 0) {
    check_time(s, 0, 0, 1, 5, 14, 0);
    check_time(s, 1, 1, 15, 16, 18, 0);
    check_time(s, 2, 2, 2, 3, 2, 0);
    const SimStats *st = sim_stats(s);
    CHECK(st->cycles == 19, "cycles %llu, want 1 + 18", (unsigned long long)st->cycles);
    check_unit(s, UNIT_LOAD, 4, 0, 0, 15);      // busy 1..4
    check_unit(s, UNIT_COMPUTE, 1, 13, 0, 5);   // queued from 2, token at 15: waits 2..14
    check_unit(s, UNIT_STORE, 0, 0, 0, 19);
    CHECK(st->dram_read_beats == 4 && st->dram_read_bytes == 16, "read beats %llu bytes %llu",
          (unsigned long long)st->dram_read_beats, (unsigned long long)st->dram_read_bytes);
    CHECK(st->mem_writes[MEM_ST_SPAD] == 4 && st->mem_reads[MEM_ST_WBUF] == 4, "spad writes %llu wbuf reads %llu",
          (unsigned long long)st->mem_writes[MEM_ST_SPAD], (unsigned long long)st->mem_reads[MEM_ST_WBUF]);
    CHECK(st->unit[UNIT_LOAD].insns == 1 && st->unit[UNIT_COMPUTE].insns == 1, "insns counted");
    for (int r = 0; r < 4; r++)
      CHECK(s->spad[r * 4] == 9 && s->spad[r * 4 + 3] == 6, "SPAD row %d: %d .. %d", r, s->spad[r * 4],
            s->spad[r * 4 + 3]);
  }
  sim_free(s);
  prog_free(p);
  check_case("detailed_worked_example");
}

// A gathered, unaligned LOAD on an 8-wide machine with F = 4, L = 10: 6 beats, two of them
// held back until the slots of the first beats free up; then ACC (scaled, overwrite and
// accumulate), PARAM (int32 little-endian) and the zeroed rest of each row.
static void test_load_gather(void) {
  Arch a = testarch_tiny();
  a.rows = a.cols = 8;
  Program *p = prog_new(&a);
  uint8_t dram[64];
  for (int i = 0; i < 64; i++) dram[i] = (uint8_t)(i + 100);
  int8_t accv[4] = {-3, 5, 127, -128};
  uint8_t par[8] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  prog_add_data(p, 0, dram, 64);
  prog_add_data(p, 200, accv, 4);
  prog_add_data(p, 300, par, 8);
  Insn in = isa_insn(OP_CFG_LOAD);   // 0: f 0, s 1, ready 2, end 1
  in.f[FLD_STRIDE_OUTER] = 16;
  in.f[FLD_SEG_STRIDE] = 5;
  in.f[FLD_MULT] = 3;
  in.f[FLD_SHIFT] = 1;
  insn_add(p, in);
  // 1: rows 2, 3 of SPAD; row o: segments [1+16o, +3) and [6+16o, +3).
  // Beats (B = 4): row 0: k 0 | k 1, 2; row 1: k 4 | k 5, 6 -> 6 beats.
  // f 1, s 2: beats in 2, 3, 4, 5; F = 4 in flight until 12: beats 5, 6 in 12, 13.
  // ready 14, end 13 + 10 = 23, stall 6..11 = 6 cycles.
  insn_add(p, insn_load(MEM_SPAD, 2, 1, 2, 1, 2, 3));
  insn_add(p, insn_load(MEM_ACC, 0, 200, 1, 1, 1, 4));   // 2: ACC row 0 := scaled, rest 0
  in = insn_load(MEM_ACC, 1, 200, 1, 1, 1, 4);      // 3: ACC row 1 += scaled, rest unchanged
  in.f[FLD_ACCUM] = 1;
  insn_add(p, in);
  insn_add(p, insn_load(MEM_PARAM, 0, 300, 1, 1, 1, 8));   // 4: PARAM row 0 := {1, -1, 0 ...}
  insn_add(p, isa_insn(OP_HALT));
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, SIM_DETAILED, &d);
  CHECK(s != NULL, "sim_new: %s", diag_first(&d));
  if (s) {
    memset(s->spad, 0x7f, 64 * 8);
    for (int i = 0; i < 16; i++) s->acc[i] = 1000;
    for (int i = 0; i < 8; i++) s->param[i] = 55;
    int rc = sim_run(s, &d);
    CHECK(rc == 0, "run: %s", diag_first(&d));
    check_time(s, 0, 0, 1, 2, 1, 0);
    check_time(s, 1, 1, 2, 14, 23, 6);
    // insn 2 (1 beat): s 14; the response of the beat of 4 frees a slot in 14: beat 14, ready
    // 15, end 24. insn 3: likewise s 15, beat 15, end 25. insn 4 (2 beats, bytes 300..307 ->
    // k 75, 76): s 16, but the beats of 12..15 fill the F = 4 slots until 22: beats 22, 23,
    // ready 24, end 33, stall 16..21 = 6.
    check_time(s, 2, 2, 14, 15, 24, 0);
    check_time(s, 3, 3, 15, 16, 25, 0);
    check_time(s, 4, 4, 16, 24, 33, 6);
    CHECK(sim_stats(s)->cycles == 34, "cycles %llu", (unsigned long long)sim_stats(s)->cycles);
    // busy: 1 + (12 - 6) + 1 + 1 + (8 - 6); stalls 6 + 6; idle 0 and 24..33.
    check_unit(s, UNIT_LOAD, 11, 0, 12, 11);
    const int8_t *r2 = s->spad + 2 * 8, *r3 = s->spad + 3 * 8;
    int8_t want2[8] = {101, 102, 103, 106, 107, 108, 0, 0};
    int8_t want3[8] = {117, 118, 119, 122, 123, 124, 0, 0};
    CHECK(!memcmp(r2, want2, 8), "SPAD row 2: %d %d %d %d %d %d %d %d", r2[0], r2[1], r2[2], r2[3], r2[4], r2[5],
          r2[6], r2[7]);
    CHECK(!memcmp(r3, want3, 8), "SPAD row 3: %d .. %d", r3[0], r3[7]);
    CHECK(s->spad[4 * 8] == 0x7f && s->spad[1 * 8 + 7] == 0x7f, "rows outside the LOAD changed");
    // round_shift(3x, 1) = floor((3x + 1) / 2): -3 -> -4, 5 -> 8, 127 -> 191, -128 -> -192.
    int32_t want_acc0[8] = {-4, 8, 191, -192, 0, 0, 0, 0};
    int32_t want_acc1[8] = {996, 1008, 1191, 808, 1000, 1000, 1000, 1000};
    CHECK(!memcmp(s->acc, want_acc0, sizeof want_acc0), "ACC row 0: %d %d %d %d %d", s->acc[0], s->acc[1],
          s->acc[2], s->acc[3], s->acc[4]);
    CHECK(!memcmp(s->acc + 8, want_acc1, sizeof want_acc1), "ACC row 1: %d %d %d %d %d", s->acc[8], s->acc[9],
          s->acc[10], s->acc[11], s->acc[12]);
    CHECK(s->param[0] == 1 && s->param[1] == -1 && s->param[2] == 0 && s->param[7] == 0, "PARAM row 0: %d %d %d %d",
          s->param[0], s->param[1], s->param[2], s->param[7]);
    const SimStats *st = sim_stats(s);
    CHECK(st->dram_read_beats == 6 + 1 + 1 + 2, "read beats %llu", (unsigned long long)st->dram_read_beats);
    CHECK(st->dram_read_bytes == 2 * 6 + 4 + 4 + 8, "read bytes %llu", (unsigned long long)st->dram_read_bytes);
    CHECK(st->mem_writes[MEM_ST_SPAD] == 2 && st->mem_writes[MEM_ST_ACC] == 2 && st->mem_reads[MEM_ST_ACC] == 1 &&
              st->mem_writes[MEM_ST_PARAM] == 1,
          "row counts");
  }
  sim_free(s);
  prog_free(p);
  check_case("detailed_load_gather");
}

// Queue space (TIMING §2): with a load queue of depth 1 the second LOAD is fetched only in the
// cycle after the first one leaves the queue.
static void test_fetch_queue_space(void) {
  Arch a = testarch_tiny();
  a.queue_depth[UNIT_LOAD] = 1;
  Program *p = prog_new(&a);
  insn_add(p, insn_load(MEM_SPAD, 0, 0, 1, 1, 1, 4));   // 0: f 0, s 1, beat 1, ready 2, end 11
  insn_add(p, insn_load(MEM_SPAD, 1, 4, 1, 1, 1, 4));   // 1: in the queue at the start of 1: f 2, s 3, end 13
  insn_add(p, isa_insn(OP_HALT));                           // 2: f 3
  Diag d;
  int rc;
  Sim *s = run(p, &d, &rc);
  CHECK(s && rc == 0, "run failed: %s", diag_first(&d));
  if (s && rc == 0) {
    check_time(s, 0, 0, 1, 2, 11, 0);
    check_time(s, 1, 2, 3, 4, 13, 0);
    check_time(s, 2, 3, 3, 4, 3, 0);
    CHECK(sim_stats(s)->fetch_stall == 1, "fetch_stall %llu", (unsigned long long)sim_stats(s)->fetch_stall);
    CHECK(sim_stats(s)->cycles == 14, "cycles %llu", (unsigned long long)sim_stats(s)->cycles);
    check_unit(s, UNIT_LOAD, 2, 0, 0, 12);
  }
  sim_free(s);
  prog_free(p);
  check_case("detailed_fetch_queue_space");
}

// Naive ACC[acc + m][c] (+)= sum_r SPAD[src + m][r] * WBUF[wsrc + r][c], r < k.
static void gemm_ref(const Sim *s, int32_t *acc, uint32_t src, uint32_t accr, uint32_t M, uint32_t wsrc, uint32_t k,
                     int accum) {
  uint32_t R = s->arch->rows, C = s->arch->cols;
  for (uint32_t m = 0; m < M; m++)
    for (uint32_t c = 0; c < C; c++) {
      int32_t sum = 0;
      for (uint32_t r = 0; r < k; r++)
        sum = sa_wrap_add32(sum, (int32_t)s->spad[(src + m) * R + r] * s->wbuf[(wsrc + r) * C + c]);
      int32_t *x = &acc[(accr + m) * C + c];
      *x = accum ? sa_wrap_add32(*x, sum) : sum;
    }
}

// PRELOAD/COMPUTE structural conditions (TIMING §6) with three bank switches, the ACC results
// against a naive loop, MAC and array-slot counts, and the PE trace's first and last cycles.
static void test_compute_banks(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 4));   // 0: f 0, s 1, ready 2, end 4 (bank 0)
  Insn in = insn_rows(OP_COMPUTE, 0, 3);   // 1: f 1, bank 0 complete after 4: s 5, ready 8,
  insn_add(p, in);                            //    end 5 + 3 - 1 + 4 + 4 - 1 = 14
  insn_add(p, insn_rows(OP_PRELOAD, 4, 3));   // 2: f 2, s 8 (unit ready; chain free since 5), end 11 (bank 1)
  in = insn_rows(OP_COMPUTE, 3, 2);        // 3: f 3, bank 1 complete after 11: s 12, ready 14, end 20
  in.f[FLD_ACC_ADDR] = 3;
  insn_add(p, in);
  insn_add(p, insn_rows(OP_PRELOAD, 8, 4));   // 4: f 4; bank 0 free from 7 + C = 11 (COMPUTE 1's last row
                                              //    read in 7), the unit from 14: s 14, end 17
  in = insn_rows(OP_COMPUTE, 5, 1);        // 5: queue full at the start of 5 (insns 1-4): f 6;
  in.f[FLD_ACCUM] = 1;                   //    s 18, ready 19, end 18 + 0 + 4 + 4 - 1 = 25
  insn_add(p, in);
  insn_add(p, isa_insn(OP_HALT));                 // 6: f 7
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, SIM_DETAILED, &d);
  CHECK(s != NULL, "sim_new: %s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case("detailed_compute_banks");
    return;
  }
  for (int i = 0; i < 64 * 4; i++) {
    s->spad[i] = (int8_t)((i * 37 + 11) % 255 - 127);
    s->wbuf[i] = (int8_t)((i * 53 + 5) % 255 - 127);
  }
  int32_t want[64 * 4];
  for (int i = 0; i < 64 * 4; i++) want[i] = s->acc[i] = i - 100;
  gemm_ref(s, want, 0, 0, 3, 0, 4, 0);
  gemm_ref(s, want, 3, 3, 2, 4, 3, 0);
  gemm_ref(s, want, 5, 0, 1, 8, 4, 1);
  FILE *trace = tmpfile();
  CHECK(trace && sim_set_pe_trace(s, trace, &d) == 0, "sim_set_pe_trace: %s", diag_first(&d));
  int rc = sim_run(s, &d);
  CHECK(rc == 0, "run: %s", diag_first(&d));
  check_time(s, 0, 0, 1, 2, 4, 0);
  check_time(s, 1, 1, 5, 8, 14, 0);
  check_time(s, 2, 2, 8, 9, 11, 0);
  check_time(s, 3, 3, 12, 14, 20, 0);
  check_time(s, 4, 4, 14, 15, 17, 0);
  check_time(s, 5, 6, 18, 19, 25, 0);
  const SimStats *st = sim_stats(s);
  CHECK(st->cycles == 26, "cycles %llu", (unsigned long long)st->cycles);
  CHECK(st->fetch_stall == 1, "fetch_stall %llu", (unsigned long long)st->fetch_stall);
  // busy 1, 5-7, 8, 12-13, 14, 18; bank waits 2-4, 9-11, 15-17; idle 0, 19-25.
  check_unit(s, UNIT_COMPUTE, 9, 0, 9, 8);
  CHECK(st->macs == 3 * 4 * 4 + 2 * 3 * 4 + 1 * 4 * 4, "macs %llu", (unsigned long long)st->macs);
  CHECK(st->pe_cycles == 6 * 16, "pe_cycles %llu", (unsigned long long)st->pe_cycles);
  CHECK(st->mem_reads[MEM_ST_WBUF] == 11 && st->mem_reads[MEM_ST_SPAD] == 6 && st->mem_writes[MEM_ST_ACC] == 6 &&
            st->mem_reads[MEM_ST_ACC] == 1,
        "row counts: wbuf %llu spad %llu acc w %llu r %llu", (unsigned long long)st->mem_reads[MEM_ST_WBUF],
        (unsigned long long)st->mem_reads[MEM_ST_SPAD], (unsigned long long)st->mem_writes[MEM_ST_ACC],
        (unsigned long long)st->mem_reads[MEM_ST_ACC]);
  int bad = -1;
  for (int i = 0; i < 64 * 4 && bad < 0; i++)
    if (s->acc[i] != want[i]) bad = i;
  CHECK(bad < 0, "ACC[%d][%d] = %d, want %d", bad / 4, bad % 4, bad < 0 ? 0 : s->acc[bad], bad < 0 ? 0 : want[bad]);
  // The trace: first active cycle 1 (PRELOAD 0 shifts the first weight row in), last 25 (the
  // last ACC write). In cycle 5 COMPUTE 1's first row enters PE (0,0): its act grid's row r0
  // starts with SPAD[0][0], its psum grid's with SPAD[0][0] * WBUF[0][0].
  char line[512], first[512] = "", last[512] = "", act0[512] = "", psum0[512] = "";
  rewind(trace);
  int in5 = 0, grid = 0;   // inside cycle 5's block; 1 after its "act" heading, 2 after "psum"
  while (fgets(line, sizeof line, trace)) {
    if (!strncmp(line, "cycle ", 6)) {
      if (!first[0]) snprintf(first, sizeof first, "%s", line);
      snprintf(last, sizeof last, "%s", line);
      in5 = !strncmp(line, "cycle 5:", 8);
      grid = 0;
    } else if (in5 && !strncmp(line, "  act ", 6)) {
      grid = 1;
    } else if (in5 && !strncmp(line, "  psum ", 7)) {
      grid = 2;
    } else if (in5 && grid && !strncmp(line, "  r0 ", 5)) {
      snprintf(grid == 1 ? act0 : psum0, sizeof line, "%s", line);
      grid = 0;
    }
  }
  fclose(trace);
  CHECK(!strncmp(first, "cycle 1: weight-stationary (bank 0), 0 of 16 PEs busy, PRELOAD shifting a row in", 80),
        "first trace line: %s", first);
  CHECK(!strncmp(last, "cycle 25:", 9), "last trace line: %s", last);
  int a00 = 0, p00 = 0;
  CHECK(sscanf(act0, " r0 %d", &a00) == 1 && a00 == s->spad[0], "cycle 5, act row 0 should start with %d: %s",
        s->spad[0], act0);
  CHECK(sscanf(psum0, " r0 %d", &p00) == 1 && p00 == s->spad[0] * s->wbuf[0],
        "cycle 5, psum row 0 should start with %d: %s", s->spad[0] * s->wbuf[0], psum0);
  sim_free(s);
  prog_free(p);
  check_case("detailed_compute_banks");
}

// A max-pooled STORE (3x3 input, 2x2 window, stride 2, padding 1 above and left) with PARAMS and
// ReLU, cycle by cycle; and the data against a naive loop.
static void test_store_maxpool(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  Insn in = isa_insn(OP_CFG_POOL);   // 0: f 0, s 1
  in.f[FLD_POOL] = POOL_MAX;
  in.f[FLD_KH] = in.f[FLD_KW] = 2;
  in.f[FLD_SH] = in.f[FLD_SW] = 2;
  in.f[FLD_PAD_T] = in.f[FLD_PAD_L] = 1;
  in.f[FLD_IN_H] = in.f[FLD_IN_W] = 3;
  insn_add(p, in);
  in = isa_insn(OP_CFG_STORE);       // 1: f 1, s 2
  in.f[FLD_ACT] = ACT_RELU;
  in.f[FLD_PARAMS] = 1;
  in.f[FLD_PROW] = 2;
  in.f[FLD_STRIDE_OUTER] = 8;
  in.f[FLD_STRIDE_INNER] = 4;
  insn_add(p, in);
  // 2: f 2, s 3; W = 4, S = 2, D = 2; one aligned beat per row at 0x100 + 8o + 4i.
  // Row 0 reads 3-6, ready 3+3+2 = 8, beat 8. Row 1 reads 7-10, ready 12, beat 12.
  // Row 2: slot of row 0 free from 9: reads 11-14, ready 16, beat 16.
  // Row 3: slot of row 1 free from 13: reads 15-18, ready 20, beat 20. ready 21, end 30.
  in = isa_insn(OP_STORE);
  in.f[FLD_SRC] = 10;
  in.f[FLD_DRAM_ADDR] = 0x100;
  in.f[FLD_OUTER] = in.f[FLD_INNER] = 2;
  in.f[FLD_COLS] = 4;
  in.f[FLD_PUSH] = U_LOAD;
  insn_add(p, in);
  in = isa_insn(OP_CFG_LOAD);        // 3: f 3, waits for the STORE's token: s 31, end 31
  in.f[FLD_POP] = U_STORE;
  insn_add(p, in);
  insn_add(p, isa_insn(OP_HALT));         // 4: f 4
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, SIM_DETAILED, &d);
  CHECK(s != NULL, "sim_new: %s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case("detailed_store_maxpool");
    return;
  }
  for (int i = 0; i < 64 * 4; i++) s->acc[i] = (i * 7919) % 601 - 300;
  for (int c = 0; c < 4; c++) {
    s->param[2 * 4 + c] = 10 * c - 15;   // bias
    s->param[3 * 4 + c] = 3 + c;         // multiplier
    s->param[4 * 4 + c] = 64 + 2;        // shift: low 6 bits -> 2
  }
  int8_t want[2][2][4];
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < 2; i++)
      for (int c = 0; c < 4; c++) {
        int best = -1000;
        for (int ky = 0; ky < 2; ky++)
          for (int kx = 0; kx < 2; kx++) {
            int y = 2 * o - 1 + ky, x = 2 * i - 1 + kx;
            if (y < 0 || y >= 3 || x < 0 || x >= 3) continue;
            int v = sa_post(s->acc[(10 + y * 3 + x) * 4 + c], 10 * c - 15, 3 + c, 2, ACT_RELU, 0, 0);
            if (v > best) best = v;
          }
        want[o][i][c] = (int8_t)best;
      }
  int rc = sim_run(s, &d);
  CHECK(rc == 0, "run: %s", diag_first(&d));
  check_time(s, 2, 2, 3, 21, 30, 0);
  check_time(s, 3, 3, 31, 32, 31, 0);
  const SimStats *st = sim_stats(s);
  CHECK(st->cycles == 32, "cycles %llu", (unsigned long long)st->cycles);
  check_unit(s, UNIT_STORE, 2 + 18, 0, 0, 12);   // CFGs 1, 2; STORE 3..20
  check_unit(s, UNIT_LOAD, 1, 27, 0, 4);          // queued from 4, token at 31
  CHECK(st->mem_reads[MEM_ST_ACC] == 1 + 2 + 2 + 4 && st->mem_reads[MEM_ST_PARAM] == 3,
        "ACC reads %llu (want 9), PARAM reads %llu (want 3)", (unsigned long long)st->mem_reads[MEM_ST_ACC],
        (unsigned long long)st->mem_reads[MEM_ST_PARAM]);
  CHECK(st->dram_write_beats == 4 && st->dram_write_bytes == 16, "write beats %llu bytes %llu",
        (unsigned long long)st->dram_write_beats, (unsigned long long)st->dram_write_bytes);
  const uint8_t *dram = sim_dram(s);
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < 2; i++)
      CHECK(!memcmp(dram + 0x100 + 8 * o + 4 * i, want[o][i], 4), "output (%d, %d): %d %d %d %d, want %d %d %d %d",
            o, i, (int8_t)dram[0x100 + 8 * o + 4 * i], (int8_t)dram[0x101 + 8 * o + 4 * i],
            (int8_t)dram[0x102 + 8 * o + 4 * i], (int8_t)dram[0x103 + 8 * o + 4 * i], want[o][i][0], want[o][i][1],
            want[o][i][2], want[o][i][3]);
  CHECK(dram[0x104 + 8] == want[1][1][0] && dram[0x100 + 16] == 0, "bytes outside the rows written");
  sim_free(s);
  prog_free(p);
  check_case("detailed_store_maxpool");
}

// An average-pooled STORE (2x2 input, 2x2 window, no padding, stride 2) with a clamp: sum of
// sat32(acc + bias), then requantized; COLS 3 of 4 (the fourth byte is not written).
static void test_store_avgpool(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  Insn in = isa_insn(OP_CFG_POOL);
  in.f[FLD_POOL] = POOL_AVG;
  in.f[FLD_KH] = in.f[FLD_KW] = in.f[FLD_SH] = in.f[FLD_SW] = 2;
  in.f[FLD_IN_H] = in.f[FLD_IN_W] = 2;
  insn_add(p, in);
  in = isa_insn(OP_CFG_STORE);
  in.f[FLD_ACT] = ACT_CLAMP;
  in.f[FLD_CLAMP_LO] = -5;
  in.f[FLD_CLAMP_HI] = 20;
  in.f[FLD_PARAMS] = 1;
  insn_add(p, in);
  in = isa_insn(OP_STORE);
  in.f[FLD_DRAM_ADDR] = 0x203;   // unaligned: bytes 0x203..0x205 -> two beats with strobes
  in.f[FLD_OUTER] = in.f[FLD_INNER] = 1;
  in.f[FLD_COLS] = 3;
  insn_add(p, in);
  insn_add(p, isa_insn(OP_HALT));
  prog_add_data(p, 0x200, (uint8_t[8]){0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee}, 8);
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, SIM_DETAILED, &d);
  CHECK(s != NULL, "sim_new: %s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case("detailed_store_avgpool");
    return;
  }
  int32_t accv[4][4] = {{10, 40, INT32_MAX, 1}, {20, -80, INT32_MAX, 1}, {30, 8, 5, 1}, {41, 0, 0, 1}};
  memcpy(s->acc, accv, sizeof accv);
  int32_t bias[4] = {1, 0, 100, 0}, mult[4] = {1, 1, 1, 1}, shift[4] = {2, 0, 31, 0};
  memcpy(s->param, bias, 16);
  memcpy(s->param + 4, mult, 16);
  memcpy(s->param + 8, shift, 16);
  // Column 0: (11 + 21 + 31 + 42) = 105, round_shift(105, 2) = 26 -> clamp 20.
  // Column 1: 40 - 80 + 8 + 0 = -32 -> clamp -5.
  // Column 2: sat32(MAX + 100) twice + 105 + 100 -> sat32 = MAX; round_shift(MAX, 31) = 1.
  int8_t want[3] = {20, -5, 1};
  int rc = sim_run(s, &d);
  CHECK(rc == 0, "run: %s", diag_first(&d));
  // s 3; reads 3-6, ready 3+3+2 = 8; beats 8, 9; ready 10, end 19.
  check_time(s, 2, 2, 3, 10, 19, 0);
  const uint8_t *dram = sim_dram(s);
  CHECK(dram[0x202] == 0xee && dram[0x206] == 0xee, "strobes: neighbours written (%02x %02x)", dram[0x202],
        dram[0x206]);
  CHECK(!memcmp(dram + 0x203, want, 3), "avg pool: %d %d %d, want %d %d %d", (int8_t)dram[0x203],
        (int8_t)dram[0x204], (int8_t)dram[0x205], want[0], want[1], want[2]);
  CHECK(sim_stats(s)->dram_write_beats == 2 && sim_stats(s)->dram_write_bytes == 3, "write beats %llu bytes %llu",
        (unsigned long long)sim_stats(s)->dram_write_beats, (unsigned long long)sim_stats(s)->dram_write_bytes);
  sim_free(s);
  prog_free(p);
  check_case("detailed_store_avgpool");
}

// RAW32: 16 bytes per row = 4 beats; the second row waits for write slots (F = 4, L = 10).
static void test_store_raw32(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  Insn in = isa_insn(OP_CFG_STORE);   // 0: f 0, s 1
  in.f[FLD_STRIDE_INNER] = 16;
  insn_add(p, in);
  // 1: f 1, s 2. Row 0 read 2, ready 4: beats 4-7. Row 1 read 3, ready 5; its first beat waits
  // for the slot of beat 4: issues 14, then 15, 16, 17 (slots of 5, 6, 7). ready 18, end 27,
  // stall 8..13 = 6.
  in = isa_insn(OP_STORE);
  in.f[FLD_RAW32] = 1;
  in.f[FLD_SRC] = 6;
  in.f[FLD_DRAM_ADDR] = 0x400;
  in.f[FLD_OUTER] = 1;
  in.f[FLD_INNER] = 2;
  in.f[FLD_COLS] = 4;
  insn_add(p, in);
  insn_add(p, isa_insn(OP_HALT));
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, SIM_DETAILED, &d);
  CHECK(s != NULL, "sim_new: %s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case("detailed_store_raw32");
    return;
  }
  int32_t v[8] = {1, -1, 0x12345678, INT32_MIN, 7, 8, -9, 10};
  memcpy(s->acc + 6 * 4, v, sizeof v);
  int rc = sim_run(s, &d);
  CHECK(rc == 0, "run: %s", diag_first(&d));
  check_time(s, 1, 1, 2, 18, 27, 6);
  check_unit(s, UNIT_STORE, 1 + 16 - 6, 0, 6, 28 - 17);
  CHECK(sim_stats(s)->cycles == 28, "cycles %llu", (unsigned long long)sim_stats(s)->cycles);
  const uint8_t *dram = sim_dram(s);
  for (int k = 0; k < 8; k++) {
    uint32_t got = (uint32_t)dram[0x400 + 4 * k] | (uint32_t)dram[0x401 + 4 * k] << 8 |
                   (uint32_t)dram[0x402 + 4 * k] << 16 | (uint32_t)dram[0x403 + 4 * k] << 24;
    CHECK(got == (uint32_t)v[k], "element %d: 0x%08x, want 0x%08x", k, got, (uint32_t)v[k]);
  }
  CHECK(sim_stats(s)->mem_reads[MEM_ST_PARAM] == 0, "RAW32 reads no PARAM rows");
  sim_free(s);
  prog_free(p);
  check_case("detailed_store_raw32");
}

// A one-row FIFO: row j's front end may start only the cycle after row j - 1's last beat
// issued (free_j = Ilast_(j-1) + 1), so P_j = Ilast_(j-1) + 1 and Rdy_j = P_j + S.
static void test_store_fifo(void) {
  for (uint32_t S = 1; S <= 2; S++) {
    Arch a = testarch_tiny();
    a.store_fifo_rows = 1;
    a.post_latency = S;
    Program *p = prog_new(&a);
    Insn in = isa_insn(OP_CFG_STORE);   // 0: f 0, s 1
    in.f[FLD_STRIDE_INNER] = 4;
    insn_add(p, in);
    in = isa_insn(OP_STORE);            // 1: f 1, s 2, three aligned one-beat rows
    in.f[FLD_DRAM_ADDR] = 0x40;
    in.f[FLD_OUTER] = 1;
    in.f[FLD_INNER] = 3;
    in.f[FLD_COLS] = 4;
    insn_add(p, in);
    insn_add(p, isa_insn(OP_HALT));
    Diag d;
    int rc;
    Sim *s = run(p, &d, &rc);
    CHECK(s && rc == 0, "S %u: run failed: %s", S, diag_first(&d));
    if (s && rc == 0) {
      // S = 1: row 0 read 2, beat 3; row 1 read 4, beat 5; row 2 read 6, beat 7: ready 8, end 17.
      // S = 2: row 0 read 2, beat 4; row 1 read 5, beat 7; row 2 read 8, beat 10: ready 11, end 20.
      uint64_t last = S == 1 ? 7 : 10;
      check_time(s, 1, 1, 2, last + 1, last + 10, 0);
      check_unit(s, UNIT_STORE, 1 + last - 1, 0, 0, last + 11 - last);
    }
    sim_free(s);
    prog_free(p);
  }
  check_case("detailed_store_fifo");
}

// LAYER goes to all three queues and each copy takes a cycle in its unit; statistics per layer.
static void test_layers(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  prog_add_layer(p, "conv1");
  prog_add_layer(p, "fc");
  Insn in = isa_insn(OP_LAYER);
  insn_add(p, in);                          // 0: f 0; copies s 1 in each unit
  insn_add(p, insn_rows(OP_PRELOAD, 0, 2));   // 1: f 1, s 2, ready 3, end 5
  in.f[FLD_LAYER_ID] = 1;
  insn_add(p, in);                          // 2: f 2, copies s 3
  insn_add(p, isa_insn(OP_HALT));                 // 3: f 3
  Diag d;
  int rc;
  Sim *s = run(p, &d, &rc);
  CHECK(s && rc == 0, "run failed: %s", diag_first(&d));
  if (s && rc == 0) {
    check_time(s, 0, 0, 1, 2, 1, 0);
    check_time(s, 1, 1, 2, 3, 5, 0);
    check_time(s, 2, 2, 3, 4, 3, 0);
    const SimStats *st = sim_stats(s);
    CHECK(st->cycles == 6, "cycles %llu", (unsigned long long)st->cycles);
    CHECK(st->unit[UNIT_LOAD].insns == 2 && st->unit[UNIT_COMPUTE].insns == 3 && st->unit[UNIT_STORE].insns == 2,
          "insns %llu %llu %llu", (unsigned long long)st->unit[0].insns, (unsigned long long)st->unit[1].insns,
          (unsigned long long)st->unit[2].insns);
    const LayerStats *l0 = &st->layers[0], *l1 = &st->layers[1], *none = &st->layers[2];
    CHECK(l0->seen && l0->first_start == 1 && l0->last_end == 5, "conv1 span %llu..%llu",
          (unsigned long long)l0->first_start, (unsigned long long)l0->last_end);
    CHECK(l0->busy[UNIT_COMPUTE] == 2 && l0->busy[UNIT_LOAD] == 1 && l0->busy[UNIT_STORE] == 1, "conv1 busy");
    CHECK(l1->seen && l1->first_start == 3 && l1->last_end == 3 && l1->busy[UNIT_COMPUTE] == 1, "fc span/busy");
    CHECK(!none->seen && none->busy[UNIT_LOAD] == 0, "(none) layer used");
    check_unit(s, UNIT_COMPUTE, 3, 0, 0, 3);
  }
  sim_free(s);
  prog_free(p);
  check_case("detailed_layers");
}

// Two pushes into a channel of capacity 1 with nobody popping: the second push would be visible
// at cycle 3 with a count of 2.
static void test_token_overflow(void) {
  Arch a = testarch_tiny();
  a.token_max = 1;
  Program *p = prog_new(&a);
  Insn in = isa_insn(OP_CFG_LOAD);
  in.f[FLD_PUSH] = U_COMPUTE;
  insn_add(p, in);   // f 0, s 1, e 1: count 1 from 2
  insn_add(p, in);   // f 1, s 2, e 2: count 2 from 3
  insn_add(p, isa_insn(OP_HALT));
  Diag d;
  int rc;
  Sim *s = run(p, &d, &rc);
  CHECK(rc == -1, "overflow not reported");
  CHECK(strstr(diag_first(&d), "token overflow on channel load->compute at cycle 3") != NULL, "message: %s",
        diag_first(&d));
  sim_free(s);
  prog_free(p);
  check_case("detailed_token_overflow");
}

// A POP that nothing ever satisfies, and fetch blocked behind it.
static void test_deadlock(void) {
  Arch a = testarch_tiny();
  a.queue_depth[UNIT_COMPUTE] = 1;
  Program *p = prog_new(&a);
  Insn in = insn_rows(OP_PRELOAD, 0, 1);
  in.f[FLD_POP] = U_STORE;
  insn_add(p, in);
  insn_add(p, in);
  insn_add(p, isa_insn(OP_HALT));
  Diag d;
  int rc;
  Sim *s = run(p, &d, &rc);
  CHECK(rc == -1, "deadlock not reported");
  const char *msg = diag_first(&d);
  CHECK(strstr(msg, "deadlock at cycle") != NULL, "message: %s", msg);
  CHECK(strstr(msg, "compute waits at insn 0 (PRELOAD) for a token on store->compute") != NULL, "message: %s", msg);
  CHECK(strstr(msg, "fetch waits at insn 1 (PRELOAD) for space in the compute queue") != NULL, "message: %s", msg);
  sim_free(s);
  prog_free(p);
  check_case("detailed_deadlock");
}

// Tiled GEMMs from tests/common/gemmprog on small and odd arrays, against its naive loop.
static void test_gemm_programs(void) {
  struct {
    uint32_t R, C, M, K, N;
    int raw32, dbuf;
  } cases[] = {
      {2, 2, 3, 5, 3, 1, 0},  {4, 4, 7, 9, 6, 0, 1}, {3, 5, 5, 7, 11, 1, 1},
      {8, 8, 9, 17, 10, 0, 1}, {1, 1, 2, 3, 2, 0, 0},
  };
  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
    Arch a = testarch_tiny();
    a.rows = cases[n].R;
    a.cols = cases[n].C;
    a.param_rows = 8;
    GemmSpec g;
    memset(&g, 0, sizeof g);
    g.M = cases[n].M;
    g.K = cases[n].K;
    g.N = cases[n].N;
    g.raw32 = cases[n].raw32;
    g.double_buffer = cases[n].dbuf;
    g.act = ACT_RELU;
    g.seed = 1000 + n;
    Diag d;
    diag_init(&d);
    Program *p = gemmprog_build(&a, &g, &d);
    CHECK(p != NULL, "case %zu: gemmprog_build: %s", n, diag_first(&d));
    if (!p) continue;
    GemmData dat;
    uint64_t nb = gemmprog_c_bytes(&g);
    uint8_t *want = malloc(nb), *got = malloc(nb);
    if (gemmprog_data_new(&g, &dat) || !want || !got) abort();
    gemmprog_reference(&g, dat.A, dat.B, dat.bias, dat.mult, dat.shift, want);
    int rc;
    Sim *s = run(p, &d, &rc);
    CHECK(s && rc == 0, "case %zu: run: %s", n, diag_first(&d));
    if (s && rc == 0) {
      sim_get_tensor(s, prog_find_tensor(p, "C"), got);
      CHECK(!memcmp(got, want, nb), "case %zu (%ux%u, %ux%ux%u): C differs from the naive loop", n, a.rows, a.cols,
            g.M, g.K, g.N);
      const SimStats *st = sim_stats(s);
      for (int u = 0; u < NUM_UNITS; u++) {
        const UnitStats *us = &st->unit[u];
        CHECK(us->busy + us->wait_token + us->wait_resource + us->idle == st->cycles, "case %zu: %s states sum",
              n, isa_unit_names[u]);
      }
    }
    sim_free(s);
    gemmprog_data_free(&dat);
    free(want);
    free(got);
    prog_free(p);
  }
  check_case("detailed_gemm_programs");
}

int main(void) {
  test_worked_example();
  test_load_gather();
  test_fetch_queue_space();
  test_compute_banks();
  test_store_maxpool();
  test_store_avgpool();
  test_store_raw32();
  test_store_fifo();
  test_layers();
  test_token_overflow();
  test_deadlock();
  test_gemm_programs();
  return check_status();
}
