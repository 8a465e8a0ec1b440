// fast_test.c: the fast engine against cycle numbers worked out by hand from docs/TIMING.md,
// and its arithmetic against a naive loop. (engines_test.c checks it against the detailed one.)
#include <string.h>

#include "../../sim/sim.h"
#include "../common/check.h"
#include "../common/testarch.h"



#define U_LOAD 1
#define U_COMPUTE 2
#define U_STORE 4

// A 4x4x4 GEMM with RAW32 output whose every cycle is derived by hand in the comments.
static Program *hand_gemm(int8_t A[4][4], int8_t W[4][4]) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  Insn in = isa_insn(OP_CFG_LOAD);            // 0: fetch 0, start 1, ready 2
  in.f[FLD_STRIDE_INNER] = 4;
  prog_add_insn(p, &in);
  in = isa_insn(OP_LOAD);                     // 1: fetch 1, start 2, beats 2..5, ready 6, end 15
  in.f[FLD_MEM] = MEM_SPAD;
  in.f[FLD_OUTER] = 1;
  in.f[FLD_INNER] = 4;
  in.f[FLD_NSEG] = 1;
  in.f[FLD_SEGLEN] = 4;
  prog_add_insn(p, &in);
  in.f[FLD_MEM] = MEM_WBUF;             // 2: start 6; F=4 slots busy until 12: beats 12..15,
  in.f[FLD_DRAM_ADDR] = 64;             //    stall 6, ready 16, end 25 -> token visible 26
  in.f[FLD_PUSH] = U_COMPUTE;
  prog_add_insn(p, &in);
  in = isa_insn(OP_PRELOAD);                  // 3: start 26, ready 27, end 29
  in.f[FLD_ROWS] = 4;
  in.f[FLD_POP] = U_LOAD;
  prog_add_insn(p, &in);
  in = isa_insn(OP_COMPUTE);                  // 4: start 30 (bank complete), ready 34,
  in.f[FLD_ROWS] = 4;                   //    end 30+4-1+4+4-1 = 40 -> token visible 41
  in.f[FLD_PUSH] = U_STORE;
  prog_add_insn(p, &in);
  in = isa_insn(OP_CFG_STORE);                // 5: fetch 5, start 6, ready 7
  in.f[FLD_STRIDE_INNER] = 16;
  prog_add_insn(p, &in);
  in = isa_insn(OP_STORE);                    // 6: start 41; rows ready 43, 44, 49, 59;
  in.f[FLD_RAW32] = 1;                  //    beats 43-46, 53-56, 63-66, 73-76 (3 x 6 stall)
  in.f[FLD_DRAM_ADDR] = 128;            //    ready 77, end 86
  in.f[FLD_OUTER] = 1;
  in.f[FLD_INNER] = 4;
  in.f[FLD_COLS] = 4;
  in.f[FLD_POP] = U_COMPUTE;
  prog_add_insn(p, &in);
  in = isa_insn(OP_HALT);                     // 7: fetch 7; cycles = 87
  prog_add_insn(p, &in);
  prog_add_data(p, 0, A, 16);
  prog_add_data(p, 64, W, 16);
  return p;
}

static void test_hand_timing(void) {
  int8_t A[4][4], W[4][4];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      A[i][j] = (int8_t)(i * 37 - j * 51 + 3);
      W[i][j] = (int8_t)(j * 29 - i * 43 - 7);
    }
  Program *p = hand_gemm(A, W);
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, SIM_FAST, &d);
  CHECK(s && sim_run(s, &d) == 0, "run failed: %s", diag_first(&d));
  if (!s) return;
  const InsnTime *t = sim_insn_times(s);
  static const uint64_t want[8][5] = {
      // fetch start ready end stall
      {0, 1, 2, 1, 0},    {1, 2, 6, 15, 0},   {2, 6, 16, 25, 6},  {3, 26, 27, 29, 0},
      {4, 30, 34, 40, 0}, {5, 6, 7, 6, 0},    {6, 41, 77, 86, 18}, {7, 7, 8, 7, 0},
  };
  for (int k = 0; k < 8; k++) {
    uint64_t got[5] = {t[k].fetch, t[k].start, t[k].ready, t[k].end, t[k].stall};
    for (int j = 0; j < 5; j++)
      CHECK(got[j] == want[k][j], "insn %d field %d: got %llu want %llu", k, j, (unsigned long long)got[j],
            (unsigned long long)want[k][j]);
  }
  const SimStats *st = sim_stats(s);
  CHECK(st->cycles == 87, "cycles %llu", (unsigned long long)st->cycles);
  const UnitStats *su = &st->unit[UNIT_STORE];
  CHECK(su->busy == 19 && su->wait_resource == 18 && su->wait_token == 34 && su->idle == 16,
        "store unit busy %llu wr %llu wt %llu idle %llu", (unsigned long long)su->busy,
        (unsigned long long)su->wait_resource, (unsigned long long)su->wait_token, (unsigned long long)su->idle);
  for (int u = 0; u < NUM_UNITS; u++) {
    const UnitStats *x = &st->unit[u];
    CHECK(x->busy + x->wait_resource + x->wait_token + x->idle == st->cycles, "unit %d states do not add up", u);
  }
  CHECK(st->macs == 64 && st->dram_read_beats == 8 && st->dram_write_beats == 16, "work counters");
  const uint8_t *dram = sim_dram(s);
  for (int m = 0; m < 4; m++)
    for (int c = 0; c < 4; c++) {
      int32_t want_v = 0, got_v;
      for (int k = 0; k < 4; k++) want_v += A[m][k] * W[k][c];
      memcpy(&got_v, dram + 128 + 16 * m + 4 * c, 4);
      CHECK(got_v == want_v, "C[%d][%d] = %d, want %d", m, c, got_v, want_v);
    }
  sim_free(s);
  prog_free(p);
  check_case("fast-hand-timing-gemm4");
}

// Runs p on one engine; returns 1 and its first message in msg when the run fails, else 0.
static int run_error(const Program *p, SimMode mode, char *msg, size_t cap) {
  Diag d;
  diag_init(&d);
  Sim *s = sim_new(p, mode, &d);
  int failed = !s || sim_run(s, &d) != 0;
  snprintf(msg, cap, "%s", diag_first(&d));
  sim_free(s);
  return failed;
}

// Two tokens pushed while tokens.max is 1 and never popped: an overflow, not a silent pass.
static void test_token_overflow(void) {
  Arch a = testarch_tiny();
  a.token_max = 1;
  Program *p = prog_new(&a);
  Insn in = isa_insn(OP_CFG_LOAD);
  in.f[FLD_PUSH] = U_STORE;
  prog_add_insn(p, &in);
  prog_add_insn(p, &in);
  in = isa_insn(OP_HALT);
  prog_add_insn(p, &in);
  char msg[512];
  CHECK(run_error(p, SIM_FAST, msg, sizeof msg), "overflow not detected");
  CHECK(strstr(msg, "token overflow on channel load->store"), "message: %s", msg);
  prog_free(p);
  check_case("fast-token-overflow");
}

// A pop that no push can satisfy: a deadlock report naming the unit, not a hang.
static void test_deadlock(void) {
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  Insn in = isa_insn(OP_CFG_STORE);
  in.f[FLD_POP] = U_LOAD;
  prog_add_insn(p, &in);
  in = isa_insn(OP_HALT);
  prog_add_insn(p, &in);
  char msg[512];
  CHECK(run_error(p, SIM_FAST, msg, sizeof msg), "deadlock not detected");
  CHECK(strstr(msg, "deadlock") && strstr(msg, "store waits at insn 0"), "message: %s", msg);
  prog_free(p);
  check_case("fast-deadlock");
}

// Runs p on both engines; both must fail with the same first message containing want.
static void expect_same_error(const char *name, Program *p, const char *want) {
  char msg[2][512];
  for (int e = 0; e < 2; e++)
    CHECK(run_error(p, e ? SIM_DETAILED : SIM_FAST, msg[e], sizeof msg[e]), "%s engine: no error",
          e ? "detailed" : "fast");
  CHECK(!strcmp(msg[0], msg[1]), "fast \"%s\" vs detailed \"%s\"", msg[0], msg[1]);
  CHECK(strstr(msg[0], want), "message \"%s\" lacks \"%s\"", msg[0], want);
  prog_free(p);
  check_case(name);
}

// Overflows found by differential fuzzing, where the fast engine once reported a later overflow
// on another channel, or a deadlock, instead of the first overflow.
static void test_overflow_agreement(void) {
  Arch a = testarch_tiny();
  a.token_max = 1;
  Program *p = prog_new(&a);   // two pushes become visible while compute waits for a token forever
  Insn in = isa_insn(OP_LOAD);
  in.f[FLD_SEGLEN] = 4;
  in.f[FLD_PUSH] = U_COMPUTE;
  prog_add_insn(p, &in);
  in.f[FLD_DST] = 1;
  prog_add_insn(p, &in);
  in = isa_insn(OP_PRELOAD);
  in.f[FLD_POP] = U_STORE;
  prog_add_insn(p, &in);
  in = isa_insn(OP_HALT);
  prog_add_insn(p, &in);
  expect_same_error("engines-agree-overflow-before-deadlock", p, "token overflow on channel load->compute at cycle 13");

  a = testarch_tiny();
  a.rows = 8;
  a.queue_depth[1] = a.queue_depth[2] = 1;
  a.token_max = 1;
  p = prog_new(&a);   // compute->load overflows later than store->load
  Insn pre = isa_insn(OP_PRELOAD), pool = isa_insn(OP_CFG_POOL);
  pre.f[FLD_PUSH] = U_LOAD;
  pool.f[FLD_PUSH] = U_LOAD;
  prog_add_insn(p, &pre);
  prog_add_insn(p, &pool);
  prog_add_insn(p, &pre);
  pre.f[FLD_PUSH] = 0;
  prog_add_insn(p, &pre);
  prog_add_insn(p, &pool);
  in = isa_insn(OP_HALT);
  prog_add_insn(p, &in);
  expect_same_error("engines-agree-earliest-overflow", p, "token overflow on channel store->load at cycle 13");
}

// --max-cycles: the hand-timed GEMM needs 87 cycles; both engines run it with a limit of 87 and
// refuse it, with the same message, with a limit of 86.
static void test_cycle_limit(void) {
  int8_t A[4][4] = {{1}}, W[4][4] = {{1}};
  Program *p = hand_gemm(A, W);
  for (int e = 0; e < 2; e++)
    for (uint64_t limit = 86; limit <= 87; limit++) {
      Diag d;
      diag_init(&d);
      Sim *s = sim_new(p, e ? SIM_DETAILED : SIM_FAST, &d);
      sim_set_max_cycles(s, limit);
      int rc = s ? sim_run(s, &d) : -1;
      if (limit == 87)
        CHECK(rc == 0 && sim_stats(s)->cycles == 87, "engine %d: limit 87 refused: %s", e, diag_first(&d));
      else
        CHECK(rc != 0 && !strcmp(diag_first(&d), "sim: error: cycle limit 86 reached (--max-cycles)"),
              "engine %d: limit 86: %s", e, rc ? diag_first(&d) : "accepted");
      sim_free(s);
    }
  prog_free(p);
  check_case("cycle-limit-both-engines");
}

int main(void) {
  test_hand_timing();
  test_token_overflow();
  test_deadlock();
  test_overflow_agreement();
  test_cycle_limit();
  return check_status();
}
