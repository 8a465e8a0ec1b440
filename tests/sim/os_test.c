// os_test.c: COMPUTE_OS, the output-stationary mode of the array, on both engines. Every expected
// cycle is worked out by hand from docs/TIMING.md §6 in the comments beside it (tiny arch: R = C
// = 4, so e = s + K + 2R + C - 3 = s + K + 9 and ready = s + max(K, (J-1)*R + M)); the data is
// checked against a naive loop over the definition in docs/ISA.md, and the shipped
// workloads/asm/gemm_os_tiny.s against its numpy result.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/sim.h"
#include "../common/bothcheck.h"
#include "../common/check.h"
#include "../common/insnbuild.h"
#include "../common/testarch.h"

#define U_LOAD 1
#define U_COMPUTE 2
#define U_STORE 4

// Two COMPUTE_OS, K not a multiple of R: ready counts the scratchpad reads of the last block.
static void test_single(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_compute_os(0, 4, 0, 6, 0, 4, 0));   // 0: M 4, K 6, J 2: s 1, ready 1 + max(6, 4 + 4) = 9, e 1 + 6 + 9 = 16
  insn_add(p, insn_compute_os(8, 5, 6, 5, 4, 3, 1));   // 1: M 3, K 5, J 2: unit free at 9; drain rule s + 5 >= 1 + 6 + 4:
                                     //    s 9, ready 9 + max(5, 4 + 3) = 16, e 9 + 5 + 9 = 23
  insn_add(p, isa_insn(OP_HALT));         // 2: f 2, s = e = 2, ready 3; cycles 24
  static const Want w[] = {{0, 1, 9, 16}, {1, 9, 16, 23}, {2, 2, 3, 2}};
  // busy 1..15, idle 0 and 16..23; MACs 4*6*4 + 3*5*4; slots K*R*C = 6*16 + 5*16; SPAD M*J = 8 + 6;
  // WBUF K = 6 + 5; ACC rows written 4 + 3, read 3 (ACCUM)
  WantStats ws = {24, 15, 0, 0, 9, 156, 176, 14, 11, 7, 3};
  check_both(p, w, &ws);
  prog_free(p);
  check_case("os_single_and_partial_block");
}

// Back to back with K < R: each waits for the previous drain (rule (b): s + K >= s_o + K_o + R).
static void test_drain_rule(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  insn_add(p, insn_compute_os(0, 0, 0, 2, 0, 2, 0));   // 0: M 2, K 2: s 1, ready 1 + max(2, 2) = 3, e 1 + 2 + 9 = 12
  insn_add(p, insn_compute_os(4, 0, 2, 3, 4, 4, 0));   // 1: M 4, K 3: unit free at 3, rule (b) s + 3 >= 1 + 2 + 4: s 4,
                                     //    ready 4 + 4 = 8, e 4 + 3 + 9 = 16 (drains 10+c..13+c follow
                                     //    insn 0's 6+c..9+c without a gap)
  insn_add(p, insn_compute_os(8, 0, 5, 1, 8, 1, 0));   // 2: M 1, K 1: unit free at 8, rule (b) s + 1 >= 4 + 3 + 4: s 10,
                                     //    ready 11, e 10 + 1 + 9 = 20
  insn_add(p, isa_insn(OP_HALT));         // 3: f 3; cycles 21
  static const Want w[] = {{0, 1, 3, 12}, {1, 4, 8, 16}, {2, 10, 11, 20}, {3, 3, 4, 3}};
  // busy 1-2, 4-7, 10; wait_resource 3, 8, 9; idle 0 and 11..20
  WantStats ws = {21, 7, 0, 3, 11, 2 * 2 * 4 + 4 * 3 * 4 + 1 * 1 * 4, (2 + 3 + 1) * 16, 2 + 4 + 1, 6, 7, 0};
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
  insn_add(p, insn_compute_os(0, 4, 0, 4, 8, 4, 0));       // 2: rule (a) s >= 13 + 1: s 14, ready 18, e 14 + 4 + 9 = 27
  insn_add(p, insn_rows(OP_PRELOAD, 4, 2));   // 3: rule (c) s >= 27 + 1: s 28, ready 29, e 31 (bank 1)
  c = insn_rows(OP_COMPUTE, 4, 3);
  c.f[FLD_ACC_ADDR] = 16;
  insn_add(p, c);                             // 4: bank 1 complete: s 32, ready 35, e 32 + 3 - 1 + 7 = 41
  insn_add(p, isa_insn(OP_HALT));             // 5: f 5; cycles 42
  static const Want w[] = {{0, 1, 2, 4}, {1, 5, 7, 13}, {2, 14, 18, 27}, {3, 28, 29, 31}, {4, 32, 35, 41}, {5, 5, 6, 5}};
  // busy 1, 5-6, 14-17, 28, 32-34 = 11; wait_resource 2-4, 7-13, 18-27, 29-31 = 23; idle 0, 35-41
  // MACs: 2*4*4 (bank 0: K 4) + 4*4*4 + 3*2*4 (bank 1: K 2); slots 2*16 + 4*16 + 3*16
  // SPAD 2 + 4 + 3; WBUF 4 + 4 + 2; ACC 2 + 4 + 3
  WantStats ws = {42, 11, 0, 23, 8, 32 + 64 + 24, 144, 9, 10, 9, 0};
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
  test_random_bytes(dram, sizeof dram, 12345);
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
  Insn o1 = insn_compute_os(2, 5, 3, 10, 7, 3, 1), o2 = insn_compute_os(1, 0, 0, 3, 12, 4, 0);
  o1.f[FLD_POP] = U_LOAD;
  o2.f[FLD_PUSH] = U_STORE;
  insn_add(p, o1);
  insn_add(p, o2);
  in = isa_insn(OP_CFG_STORE);
  in.f[FLD_STRIDE_INNER] = 16;
  insn_add(p, in);
  in = insn_store(7, 0x400, 1, 9, 4, 1);   // ACC 7..15 -> 0x400 as int32
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
    check_raw32(s, 0x400, acc + 7 * 4, 9 * 4, 7, 4, mode == SIM_FAST ? "fast" : "detailed");
    sim_free(s);
  }
  prog_free(p);
  check_case("os_data_against_naive_loop");
}

// The shipped output-stationary GEMM leaves C and D equal to its numpy result on both engines.
static void test_shipped(void) {
  check_shipped_cd("workloads/asm/gemm_os_tiny.s", "workloads/asm/gemm_os_tiny_expected.npy", 16);
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
