// sfu_test.c: the special-function unit's cycle rules (docs/TIMING.md 7a) on both engines, over
// lane counts below, equal to, above and not dividing the array's columns, several pipeline
// depths and every instruction. Each case runs CFG_SFU (f 0, s 1) then one SFU instruction (f 1,
// s 2: the unit is ready 1 cycle after CFG_SFU) then HALT (f 2), so by TIMING 7a and 8:
//   k = ceil(C / min(L, C)), S = ceil(LEN / C), per row: k (MAP, EW), 3 S k + 17 (softmax),
//   2 S k + 33 (layer norm), S k (reduction); D = ROWS * per row + P;
//   s = 2, ready = 2 + D, e = 1 + D, cycles = 1 + max(2, e) = D + 2;
//   the SFU busy 1 + D cycles (CFG_SFU and the instruction), idle 1 (cycle 0), no waits.
// The formula is written here again on purpose (the engines take it from sim/sfu_exec.c and
// sim/detailed_sfu.c); the accumulator is zero, so every instruction's operands are in range.
#include <stdio.h>
#include <string.h>

#include "../../sim/sim.h"
#include "../common/check.h"

static uint64_t cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static Insn sfu(Opcode op, uint32_t rows, uint32_t len, uint32_t sstride) {
  Insn in = isa_insn(op);
  in.f[FLD_ROWS] = rows;
  in.f[FLD_SRC] = 0;
  in.f[FLD_ACC_ADDR] = op == OP_SFU_REDUCE ? 200 : 0;   // in place (a reduction: apart from its rows)
  if (isa_has_field(op, FLD_LEN)) {
    in.f[FLD_LEN] = len;
    in.f[FLD_SSTRIDE] = sstride;
  }
  if (op == OP_SFU_EW) in.f[FLD_SRC2] = 0;
  return in;
}

static uint64_t per_row(Opcode op, uint64_t k, uint64_t S) {
  if (op == OP_SFU_SOFTMAX) return 3 * S * k + 17;
  if (op == OP_SFU_LAYERNORM) return 2 * S * k + 33;
  if (op == OP_SFU_REDUCE) return S * k;
  return k;   // SFU_MAP, SFU_EW
}

static void run_case(uint32_t cols, uint32_t lanes, uint32_t lat, Opcode op, uint32_t rows, uint32_t len) {
  Arch a;
  arch_default(&a);
  a.rows = 4;
  a.cols = cols;
  a.acc_rows = 256;
  a.param_rows = 64;
  a.sfu_lanes = lanes;
  a.sfu_latency = lat;
  a.dram_bytes = 1u << 20;   // the program touches no DRAM: a small one keeps 1,890 machines cheap
  uint64_t S = op == OP_SFU_MAP || op == OP_SFU_EW ? 1 : cdiv(len, cols);
  uint64_t k = cdiv(cols, lanes < cols ? lanes : cols);
  uint64_t D = rows * per_row(op, k, S) + lat;
  Program *p = prog_new(&a);
  Insn cfg = isa_insn(OP_CFG_SFU);
  cfg.f[FLD_MULT] = 1;
  Insn in = sfu(op, rows, len, rows);   // SSTRIDE = ROWS: the segments of a row ROWS rows apart
  Diag d;
  diag_init(&d);
  CHECK(p && prog_add_insn(p, &cfg) == 0 && prog_add_insn(p, &in) == 0, "building the program");
  Insn halt = isa_insn(OP_HALT);
  prog_add_insn(p, &halt);
  CHECK(prog_check(p, "sfu_test", &d) == 0, "%s: %s", isa_ops[op].name, diag_first(&d));
  for (int mode = SIM_FAST; mode <= SIM_DETAILED; mode++) {
    diag_init(&d);
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s && sim_run(s, &d) == 0, "run failed: %s", diag_first(&d));
    if (s && !check_case_failures()) {
      const InsnTime *t = sim_insn_times(s);
      const SimStats *st = sim_stats(s);
      const UnitStats *u = &st->unit[UNIT_SFU];
      CHECK(t[1].start == 2 && t[1].ready == 2 + D && t[1].end == 1 + D && st->cycles == D + 2 && u->busy == 1 + D &&
                u->idle == 1 && u->wait_token == 0 && u->wait_resource == 0,
            "%s C=%u L=%u P=%u ROWS=%u LEN=%u (%s): s %llu ready %llu e %llu cycles %llu busy %llu idle %llu, want "
            "s 2 ready %llu e %llu cycles %llu busy %llu idle 1",
            isa_ops[op].name, cols, lanes, lat, rows, len, mode == SIM_FAST ? "fast" : "detailed",
            (unsigned long long)t[1].start, (unsigned long long)t[1].ready, (unsigned long long)t[1].end,
            (unsigned long long)st->cycles, (unsigned long long)u->busy, (unsigned long long)u->idle,
            (unsigned long long)(2 + D), (unsigned long long)(1 + D), (unsigned long long)(D + 2),
            (unsigned long long)(1 + D));
    }
    sim_free(s);
  }
  prog_free(p);
}

int main(void) {
  static const Opcode ops[] = {OP_SFU_MAP, OP_SFU_EW, OP_SFU_SOFTMAX, OP_SFU_LAYERNORM, OP_SFU_REDUCE};
  static const uint32_t cols[] = {1, 4, 6, 16};
  int n = 0;
  for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
    for (uint32_t lanes = 1; lanes <= cols[c] + 2; lanes += (cols[c] > 6 ? 5 : 1))
      for (uint32_t lat = 1; lat <= 7; lat += 3)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
          for (uint32_t rows = 1; rows <= 3; rows += 2) {
            // LEN: one partial segment, exactly two, and two and a bit.
            static const uint32_t lens[] = {1, 0, 1};
            for (int li = 0; li < 3; li++) {
              uint32_t len = li == 0 ? 1 : li == 1 ? 2 * cols[c] : 2 * cols[c] + lens[li];
              if ((ops[o] == OP_SFU_LAYERNORM) && 3 * cdiv(len, cols[c]) > 64) continue;
              run_case(cols[c], lanes, lat, ops[o], rows, len);
              n++;
            }
          }
  printf("# %d cases (each on both engines)\n", n);
  check_case("sfu: cycles of every instruction over lanes, latency and segments (TIMING 7a)");

  // A longer row: softmax of 1000 values on 16 columns with 4 lanes, P = 6 (the default SFU):
  // S = 63, k = 4, per row 3 * 63 * 4 + 17 = 773, two rows: D = 1546 + 6 = 1552.
  run_case(16, 4, 6, OP_SFU_SOFTMAX, 2, 1000);
  check_case("sfu: a softmax row of 1000 values (D = 1552)");
  return check_status();
}
