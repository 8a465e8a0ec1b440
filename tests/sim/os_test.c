// os_test.c: COMPUTE_OS, the output-stationary mode of the array, on both engines. Every expected
// cycle is worked out by hand from docs/TIMING.md §6 in the comments beside it (tiny arch: R = C
// = 4, so e = s + K + 2R + C - 3 = s + K + 9 and ready = s + max(K, (J-1)*R + M)); the data is
// checked against a naive loop over the definition in docs/ISA.md, and the shipped
// workloads/asm/gemm_os_tiny.s against its numpy result.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../isa/npy.h"
#include "../../sim/sim.h"
#include "../common/check.h"
#include "../common/insnbuild.h"
#include "../common/testarch.h"

#define U_LOAD 1
#define U_COMPUTE 2
#define U_STORE 4

static Insn os(uint64_t src, uint64_t kstride, uint64_t wsrc, int klen, uint64_t acc, int rows, int accum) {
  Insn in = isa_insn(OP_COMPUTE_OS);
  in.f[FLD_SRC] = (int64_t)src;
  in.f[FLD_KSTRIDE] = (int64_t)kstride;
  in.f[FLD_WSRC] = (int64_t)wsrc;
  in.f[FLD_KLEN] = klen;
  in.f[FLD_ACC_ADDR] = (int64_t)acc;
  in.f[FLD_ROWS] = rows;
  in.f[FLD_ACCUM] = accum;
  return in;
}

typedef struct {
  uint64_t f, s, r, e;
} Want;

typedef struct {
  uint64_t cycles, busy, wait_resource, idle;   // the compute unit's states (no token waits here)
  uint64_t macs, pe_cycles, spad_reads, wbuf_reads, acc_writes, acc_reads;
} WantStats;

// Runs p on both engines and checks every instruction's times and the compute unit's figures.
static void check_both(const Program *p, const Want *w, const WantStats *ws) {
  for (int mode = SIM_FAST; mode <= SIM_DETAILED; mode++) {
    const char *mn = mode == SIM_FAST ? "fast" : "detailed";
    Diag d;
    diag_init(&d);
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s && sim_run(s, &d) == 0, "%s: run failed: %s", mn, diag_first(&d));
    if (!s) continue;
    const InsnTime *t = sim_insn_times(s);
    for (uint32_t k = 0; k < p->n_insns; k++)
      CHECK(t[k].fetch == w[k].f && t[k].start == w[k].s && t[k].ready == w[k].r && t[k].end == w[k].e &&
                t[k].stall == 0,
            "%s: insn %u (%s): f %llu s %llu ready %llu e %llu stall %llu; want %llu %llu %llu %llu 0", mn, k,
            isa_ops[prog_op(p, k)].name, (unsigned long long)t[k].fetch, (unsigned long long)t[k].start,
            (unsigned long long)t[k].ready, (unsigned long long)t[k].end, (unsigned long long)t[k].stall,
            (unsigned long long)w[k].f, (unsigned long long)w[k].s, (unsigned long long)w[k].r,
            (unsigned long long)w[k].e);
    const SimStats *st = sim_stats(s);
    const UnitStats *u = &st->unit[UNIT_COMPUTE];
    uint64_t got[10] = {st->cycles, u->busy, u->wait_resource, u->idle, st->macs, st->pe_cycles,
                        st->mem_reads[MEM_ST_SPAD], st->mem_reads[MEM_ST_WBUF], st->mem_writes[MEM_ST_ACC],
                        st->mem_reads[MEM_ST_ACC]};
    uint64_t want[10] = {ws->cycles,  ws->busy,       ws->wait_resource, ws->idle,       ws->macs,
                         ws->pe_cycles, ws->spad_reads, ws->wbuf_reads,    ws->acc_writes, ws->acc_reads};
    static const char *names[10] = {"cycles", "compute busy", "compute wait_resource", "compute idle", "macs",
                                    "pe_cycles", "spad reads", "wbuf reads", "acc writes", "acc reads"};
    for (int i = 0; i < 10; i++)
      CHECK(got[i] == want[i], "%s: %s %llu, want %llu", mn, names[i], (unsigned long long)got[i],
            (unsigned long long)want[i]);
    CHECK(u->wait_token == 0, "%s: compute wait_token %llu", mn, (unsigned long long)u->wait_token);
    sim_free(s);
  }
}

// Two COMPUTE_OS, K not a multiple of R: ready counts the scratchpad reads of the last block.
static void test_single(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, os(0, 4, 0, 6, 0, 4, 0));   // 0: M 4, K 6, J 2: s 1, ready 1 + max(6, 4 + 4) = 9, e 1 + 6 + 9 = 16
  insn_add(p, os(8, 5, 6, 5, 4, 3, 1));   // 1: M 3, K 5, J 2: unit free at 9; drain rule s + 5 >= 1 + 6 + 4:
                                     //    s 9, ready 9 + max(5, 4 + 3) = 16, e 9 + 5 + 9 = 23
  insn_add(p, isa_insn(OP_HALT));         // 2: f 2, s = e = 2, ready 3; cycles 24
  static const Want w[] = {{0, 1, 9, 16}, {1, 9, 16, 23}, {2, 2, 3, 2}};
  // busy 1..15, idle 0 and 16..23; MACs 4*6*4 + 3*5*4; slots K*R*C = 6*16 + 5*16; SPAD M*J = 8 + 6;
  // WBUF K = 6 + 5; ACC rows written 4 + 3, read 3 (ACCUM)
  WantStats ws = {24, 15, 0, 9, 156, 176, 14, 11, 7, 3};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("os_single_and_partial_block");
}

// Back to back with K < R: each waits for the previous drain (rule (b): s + K >= s_o + K_o + R).
static void test_drain_rule(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, os(0, 0, 0, 2, 0, 2, 0));   // 0: M 2, K 2: s 1, ready 1 + max(2, 2) = 3, e 1 + 2 + 9 = 12
  insn_add(p, os(4, 0, 2, 3, 4, 4, 0));   // 1: M 4, K 3: unit free at 3, rule (b) s + 3 >= 1 + 2 + 4: s 4,
                                     //    ready 4 + 4 = 8, e 4 + 3 + 9 = 16 (drains 10+c..13+c follow
                                     //    insn 0's 6+c..9+c without a gap)
  insn_add(p, os(8, 0, 5, 1, 8, 1, 0));   // 2: M 1, K 1: unit free at 8, rule (b) s + 1 >= 4 + 3 + 4: s 10,
                                     //    ready 11, e 10 + 1 + 9 = 20
  insn_add(p, isa_insn(OP_HALT));         // 3: f 3; cycles 21
  static const Want w[] = {{0, 1, 3, 12}, {1, 4, 8, 16}, {2, 10, 11, 20}, {3, 3, 4, 3}};
  // busy 1-2, 4-7, 10; wait_resource 3, 8, 9; idle 0 and 11..20
  WantStats ws = {21, 7, 3, 11, 2 * 2 * 4 + 4 * 3 * 4 + 1 * 1 * 4, (2 + 3 + 1) * 16, 2 + 4 + 1, 6, 7, 0};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("os_drain_rule_back_to_back");
}

// Weight-stationary -> output-stationary -> weight-stationary: each switch waits for the array.
static void test_mode_switch(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_rows(OP_PRELOAD, 0, 4));   // 0: s 1, ready 2, e 4 (bank 0)
  Insn c = insn_rows(OP_COMPUTE, 0, 2);
  c.f[FLD_ACC_ADDR] = 0;
  insn_add(p, c);                             // 1: bank complete: s 5, ready 7, e 5 + 2 - 1 + 4 + 4 - 1 = 13
  insn_add(p, os(0, 4, 0, 4, 8, 4, 0));       // 2: rule (a) s >= 13 + 1: s 14, ready 18, e 14 + 4 + 9 = 27
  insn_add(p, insn_rows(OP_PRELOAD, 4, 2));   // 3: rule (c) s >= 27 + 1: s 28, ready 29, e 31 (bank 1)
  c = insn_rows(OP_COMPUTE, 4, 3);
  c.f[FLD_ACC_ADDR] = 16;
  insn_add(p, c);                             // 4: bank 1 complete: s 32, ready 35, e 32 + 3 - 1 + 7 = 41
  insn_add(p, isa_insn(OP_HALT));             // 5: f 5; cycles 42
  static const Want w[] = {{0, 1, 2, 4}, {1, 5, 7, 13}, {2, 14, 18, 27}, {3, 28, 29, 31}, {4, 32, 35, 41}, {5, 5, 6, 5}};
  // busy 1, 5-6, 14-17, 28, 32-34 = 11; wait_resource 2-4, 7-13, 18-27, 29-31 = 23; idle 0, 35-41
  // MACs: 2*4*4 (bank 0: K 4) + 4*4*4 + 3*2*4 (bank 1: K 2); slots 2*16 + 4*16 + 3*16
  // SPAD 2 + 4 + 3; WBUF 4 + 4 + 2; ACC 2 + 4 + 3
  WantStats ws = {42, 11, 23, 8, 32 + 64 + 24, 144, 9, 10, 9, 0};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("os_mode_switch_both_ways");
}

// ACC[acc + m][c] (+)= sum_k A[m][k] * WBUF[wsrc + k][c], A[m][j*R + i] = SPAD[src + j*kstride + m][i].
static void naive_os(const Arch *a, const int8_t *spad, const int8_t *wbuf, int32_t *acc, const Insn *in) {
  uint32_t R = a->rows, C = a->cols;
  for (int64_t m = 0; m < in->f[FLD_ROWS]; m++)
    for (uint32_t c = 0; c < C; c++) {
      int64_t sum = 0;
      for (int64_t k = 0; k < in->f[FLD_KLEN]; k++) {
        int8_t x = spad[(in->f[FLD_SRC] + (k / R) * in->f[FLD_KSTRIDE] + m) * R + k % R];
        sum += (int64_t)x * wbuf[(in->f[FLD_WSRC] + k) * C + c];
      }
      int32_t *o = &acc[(in->f[FLD_ACC_ADDR] + m) * C + c];
      int64_t v = in->f[FLD_ACCUM] ? (int64_t)*o + sum : sum;
      *o = (int32_t)(uint32_t)(uint64_t)v;   // wraps modulo 2^32 like the machine
    }
}

// Random operands through LOADs, two COMPUTE_OS (one accumulating onto loaded ACC rows with K = 10,
// blocks 5 rows apart; one with K = 3 < R and KSTRIDE 0), STORE RAW32; both engines against the loop.
static void test_data(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  uint8_t dram[0x200];
  uint64_t x = 12345;
  for (size_t i = 0; i < sizeof dram; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    dram[i] = (uint8_t)(x >> 56);
  }
  prog_add_data(p, 0, dram, sizeof dram);
  Insn in = isa_insn(OP_CFG_LOAD);
  in.f[FLD_STRIDE_INNER] = 4;
  in.f[FLD_MULT] = 1;
  insn_add(p, in);
  in = isa_insn(OP_LOAD);   // SPAD 0..19 := bytes 0x00..0x4f
  in.f[FLD_MEM] = MEM_SPAD;
  in.f[FLD_OUTER] = 1;
  in.f[FLD_INNER] = 20;
  in.f[FLD_NSEG] = 1;
  in.f[FLD_SEGLEN] = 4;
  insn_add(p, in);
  in.f[FLD_MEM] = MEM_WBUF;   // WBUF 0..12 := bytes 0x80..0xb3
  in.f[FLD_DRAM_ADDR] = 0x80;
  in.f[FLD_INNER] = 13;
  insn_add(p, in);
  in.f[FLD_MEM] = MEM_ACC;   // ACC 7..9 := bytes 0x100..0x10b as int8 (MULT 1, SHIFT 0)
  in.f[FLD_DRAM_ADDR] = 0x100;
  in.f[FLD_DST] = 7;
  in.f[FLD_INNER] = 3;
  in.f[FLD_PUSH] = U_COMPUTE;
  insn_add(p, in);
  Insn o1 = os(2, 5, 3, 10, 7, 3, 1), o2 = os(1, 0, 0, 3, 12, 4, 0);
  o1.f[FLD_POP] = U_LOAD;
  o2.f[FLD_PUSH] = U_STORE;
  insn_add(p, o1);
  insn_add(p, o2);
  in = isa_insn(OP_CFG_STORE);
  in.f[FLD_STRIDE_INNER] = 16;
  insn_add(p, in);
  in = isa_insn(OP_STORE);   // ACC 7..15 -> 0x400 as int32
  in.f[FLD_RAW32] = 1;
  in.f[FLD_SRC] = 7;
  in.f[FLD_DRAM_ADDR] = 0x400;
  in.f[FLD_OUTER] = 1;
  in.f[FLD_INNER] = 9;
  in.f[FLD_COLS] = 4;
  in.f[FLD_POP] = U_COMPUTE;
  insn_add(p, in);
  insn_add(p, isa_insn(OP_HALT));
  // The expected machine state, from the bytes.
  int8_t spad[20 * 4], wbuf[13 * 4];
  int32_t acc[16 * 4];
  memcpy(spad, dram, sizeof spad);
  memcpy(wbuf, dram + 0x80, sizeof wbuf);
  memset(acc, 0, sizeof acc);
  for (int i = 0; i < 12; i++) acc[7 * 4 + i] = (int8_t)dram[0x100 + i];
  naive_os(&a, spad, wbuf, acc, &o1);
  naive_os(&a, spad, wbuf, acc, &o2);
  for (int mode = SIM_FAST; mode <= SIM_DETAILED; mode++) {
    Diag d;
    diag_init(&d);
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s && sim_run(s, &d) == 0, "run failed: %s", diag_first(&d));
    if (!s) continue;
    const uint8_t *out = sim_dram(s) + 0x400;
    for (int i = 0; i < 9 * 4; i++) {
      int32_t v = (int32_t)((uint32_t)out[4 * i] | (uint32_t)out[4 * i + 1] << 8 | (uint32_t)out[4 * i + 2] << 16 |
                            (uint32_t)out[4 * i + 3] << 24);
      CHECK(v == acc[7 * 4 + i], "%s: ACC[%d][%d] = %d, want %d", mode == SIM_FAST ? "fast" : "detailed", 7 + i / 4,
            i % 4, v, acc[7 * 4 + i]);
    }
    sim_free(s);
  }
  prog_free(p);
  check_case("os_data_against_naive_loop");
}

// The shipped output-stationary GEMM leaves C and D equal to its numpy result on both engines.
static void test_shipped(void) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  NpyArray want;
  int ok = asm_assemble_file("workloads/asm/gemm_os_tiny.s", &p, &d) == 0;
  CHECK(ok, "%s", diag_first(&d));
  if (ok && npy_read("workloads/asm/gemm_os_tiny_expected.npy", &want, &d)) {
    CHECK(0, "%s", diag_first(&d));
    ok = 0;
  }
  for (int mode = SIM_FAST; ok && mode <= SIM_DETAILED; mode++) {
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s && sim_run(s, &d) == 0, "run failed: %s", diag_first(&d));
    for (const char *name = "C"; s && name; name = *name == 'C' ? "D" : NULL) {
      const TensorInfo *t = prog_find_tensor(p, name);
      int32_t got[16];
      CHECK(t && want.type == NPY_I32 && want.count == 16 && sim_get_tensor(s, t, got) == 0, "tensor %s", name);
      if (t && want.count == 16)
        CHECK(!memcmp(got, want.data, sizeof got), "%s mode: %s differs from gemm_os_tiny_expected.npy",
              mode == SIM_FAST ? "fast" : "detailed", name);
    }
    sim_free(s);
  }
  if (ok) npy_free(&want);
  prog_free(p);
  check_case("os_shipped_gemm_os_tiny");
}

int main(void) {
  test_single();
  test_drain_rule();
  test_mode_switch();
  test_data();
  test_shipped();
  return check_status();
}
