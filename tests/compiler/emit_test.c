// emit_test.c: instruction emission (compiler/emit.c) for one convolution, read back from the
// Program: how many PRELOAD/COMPUTE, COMPUTE_OS, COMPUTE_IS and STOREs each dataflow emits for
// the chosen plan, and which of them start an accumulation (ACCUM=0); that double buffering
// issues the next step's loads before the current step's computes and one slot does not; that
// the configuration registers are written only when they change; and that the first im2col
// LOAD gathers the first M tile from the padded input at the address worked out by hand.
#include "../../compiler/emit.h"
#include "../../compiler/memplan.h"
#include "lowered.h"

static const char *const df_names[] = {[DF_WS] = "ws", [DF_OS] = "os", [DF_IS] = "is"};

typedef struct {
  Graph *g;
  MachProg mp;
  Program *p;
} Emitted;

static int emitted(const char *json, const Arch *a, Dataflow df, int db, Emitted *e) {
  Diag d;
  diag_init(&d);
  MemPlan m;
  EmitStats st;
  e->p = NULL;
  if (lowered(json, a, df, &e->g, &e->mp, NULL, 0) || tile_plan_all(&e->mp, db, &d) || memplan_run(&e->mp, &m, &d) ||
      !(e->p = prog_new(a)) || emit_program(&e->mp, e->p, &st, &d)) {
    diag_print(&d);
    CHECK(0, "emission failed");
    return -1;
  }
  return 0;
}

static void emitted_free(Emitted *e) {
  prog_free(e->p);
  machprog_free(&e->mp);
  graph_free(e->g);
}

static uint64_t cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Counts per opcode, and of compute instructions that start an accumulation, against the plan.
static void check_counts(const char *what, const Emitted *e, const Arch *a, Dataflow df) {
  const MachOp *op = &e->mp.ops[0];
  const TilePlan *pl = &op->plan;
  uint64_t nN = cdiv((uint64_t)op->N, a->cols), nNG = cdiv(nN, pl->g), nKC = cdiv(op->n_ktiles, pl->kc);
  uint64_t nm = tile_m_count(op, pl);
  uint64_t count[ISA_NUM_OPCODES] = {0}, fresh = 0;
  for (uint32_t i = 0; i < e->p->n_insns; i++) {
    Insn in = prog_insn(e->p, i);
    count[in.op]++;
    switch (in.op) {
    case OP_COMPUTE: case OP_COMPUTE_OS: case OP_COMPUTE_IS:
      fresh += !in.f[FLD_ACCUM];
      break;
    case OP_LOAD: case OP_CFG_LOAD: case OP_PRELOAD: case OP_STORE: case OP_CFG_STORE:
    case OP_CFG_POOL: case OP_LAYER: case OP_HALT: case OP_CFG_SFU: case OP_SFU_MAP: case OP_SFU_EW:
    case OP_SFU_SOFTMAX: case OP_SFU_LAYERNORM: case OP_SFU_REDUCE:   // not computes
      break;
    }
  }
  // Per M tile: the ACC row blocks a compute writes (OS: R rows, IS: C pixels).
  uint64_t blocks_r = 0, blocks_c = 0;
  for (uint64_t i = 0; i < nm; i++) {
    MTile t = tile_m_at(op, pl, i);
    blocks_r += cdiv(t.acc_rows, a->rows), blocks_c += cdiv(t.acc_rows, a->cols);
  }
  uint64_t want = 0, want_fresh = 0;
  Opcode compute = OP_COMPUTE;
  switch (df) {
  case DF_WS:   // a PRELOAD + COMPUTE per (M tile, N tile, K tile); K tile 0 starts
    want = nm * nN * op->n_ktiles, want_fresh = nm * nN;
    break;
  case DF_OS:   // a COMPUTE_OS per (R-row block, N tile, K chunk); chunk 0 starts
    compute = OP_COMPUTE_OS, want = blocks_r * nN * nKC, want_fresh = blocks_r * nN;
    break;
  case DF_IS:   // a PRELOAD + COMPUTE_IS per (C-pixel block, N group, K tile); K tile 0 starts
    compute = OP_COMPUTE_IS, want = blocks_c * nNG * op->n_ktiles, want_fresh = blocks_c * nNG;
    break;
  }
  CHECK(count[compute] == want, "%s: %llu %s, want %llu", what, (unsigned long long)count[compute],
        isa_ops[compute].name, (unsigned long long)want);
  CHECK(fresh == want_fresh, "%s: %llu computes with ACCUM=0, want %llu", what, (unsigned long long)fresh,
        (unsigned long long)want_fresh);
  CHECK(count[OP_PRELOAD] == (df == DF_OS ? 0 : want), "%s: %llu PRELOADs", what, (unsigned long long)count[OP_PRELOAD]);
  CHECK(count[OP_STORE] == nm * nN, "%s: %llu STOREs, want %llu", what, (unsigned long long)count[OP_STORE],
        (unsigned long long)(nm * nN));
  CHECK(count[OP_LAYER] == 1 && count[OP_HALT] == 1 && prog_op(e->p, e->p->n_insns - 1) == OP_HALT,
        "%s: LAYER %llu, HALT %llu", what, (unsigned long long)count[OP_LAYER], (unsigned long long)count[OP_HALT]);
  CHECK(count[OP_COMPUTE] + count[OP_COMPUTE_OS] + count[OP_COMPUTE_IS] == want, "%s: computes of another dataflow",
        what);
}

// Configuration instructions are emitted only when a register changes.
static void check_cfg_cache(const char *what, const Program *p) {
  static const FieldId fl[] = {FLD_STRIDE_OUTER, FLD_STRIDE_INNER, FLD_SEG_STRIDE, FLD_MULT, FLD_SHIFT};
  static const FieldId fs[] = {FLD_ACT, FLD_PARAMS, FLD_PROW, FLD_CLAMP_LO, FLD_CLAMP_HI, FLD_STRIDE_OUTER,
                               FLD_STRIDE_INNER};
  int64_t last_l[5] = {0}, last_s[7] = {0};   // the machine starts with every register 0
  for (uint32_t i = 0; i < p->n_insns; i++) {
    Insn in = prog_insn(p, i);
    int same = 1;
    switch (in.op) {
    case OP_CFG_LOAD:
      for (int k = 0; k < 5; k++) same &= in.f[fl[k]] == last_l[k], last_l[k] = in.f[fl[k]];
      break;
    case OP_CFG_STORE:
      for (int k = 0; k < 7; k++) same &= in.f[fs[k]] == last_s[k], last_s[k] = in.f[fs[k]];
      break;
    case OP_LOAD: case OP_PRELOAD: case OP_COMPUTE: case OP_COMPUTE_OS: case OP_COMPUTE_IS:
    case OP_STORE: case OP_CFG_POOL: case OP_LAYER: case OP_HALT: case OP_CFG_SFU: case OP_SFU_MAP:
    case OP_SFU_EW: case OP_SFU_SOFTMAX: case OP_SFU_LAYERNORM: case OP_SFU_REDUCE:   // not cached here
      same = 0;
      break;
    }
    CHECK(!same, "%s: insn %u rewrites %s with the values it holds", what, i, isa_ops[in.op].name);
  }
}

static void test_counts(void) {
  char json[2048];
  conv_net(json, sizeof json, 1, 14, 14, 24, 3, 1, 1, 40, "", "", "y");
  for (int ai = 0; ai < 3; ai++) {
    Arch a;
    if (test_arch(ai, &a)) continue;
    for (int df = DF_WS; df <= DF_IS; df++)
      for (int db = 0; db < 2; db++) {
        Emitted e;
        char what[128];
        snprintf(what, sizeof what, "conv 3x3 14x14x24 -> 40 on %s, %s, %s", a.name, df_names[df],
                 db ? "double-buffered" : "single");
        if (!emitted(json, &a, (Dataflow)df, db, &e)) {
          check_counts(what, &e, &a, (Dataflow)df);
          check_cfg_cache(what, e.p);
        }
        emitted_free(&e);
      }
  }
  check_case("emit_counts_and_accumulation");
}

// With two slots the WBUF load of step 1 comes before the first COMPUTE (the load unit runs a
// step ahead); with one slot only step 0's does.
static void test_double_buffer_order(void) {
  Arch a;
  arch_default(&a);
  char json[2048];
  conv_net(json, sizeof json, 1, 28, 28, 32, 3, 1, 1, 64, "", "", "y");
  for (int db = 0; db < 2; db++) {
    Emitted e;
    if (!emitted(json, &a, DF_WS, db, &e)) {
      const MachOp *op = &e.mp.ops[0];
      uint64_t steps = tile_m_count(op, &op->plan) * cdiv(cdiv((uint64_t)op->N, a.cols), op->plan.g) *
                       cdiv(op->n_ktiles, op->plan.kc);
      CHECK(steps > 1, "%llu steps", (unsigned long long)steps);
      int wloads = 0;
      for (uint32_t i = 0; i < e.p->n_insns; i++) {
        Insn in = prog_insn(e.p, i);
        if (in.op == OP_COMPUTE) break;
        wloads += in.op == OP_LOAD && in.f[FLD_MEM] == MEM_WBUF;
      }
      CHECK(wloads == (db ? 2 : 1), "%s: %d weight loads before the first COMPUTE", db ? "two slots" : "one slot",
            wloads);
    }
    emitted_free(&e);
  }
  check_case("emit_double_buffer_order");
}

// The conv of lower_test's contiguous case (3x3, 2 channels, 5x5, padding 1; input rows of 7
// pixels, 14 bytes): the first SPAD LOAD gathers K tile 0 (2 segments of 6 bytes, 14 apart) of
// the first M tile from one row and one pixel before its origin (the halo): x.addr - 14 - 2.
static void test_first_gather(void) {
  Arch a;
  arch_default(&a);
  char json[2048];
  conv_net(json, sizeof json, 1, 5, 5, 2, 3, 1, 1, 3, "", "", "y");
  Emitted e;
  if (!emitted(json, &a, DF_WS, 1, &e)) {
    const MachOp *op = &e.mp.ops[0];
    const DTensor *x = &e.mp.tensors[op->in[0].t];
    MTile t = tile_m_at(op, &op->plan, 0);
    Insn cfg = {0}, ld = {0};
    for (uint32_t i = 0; i < e.p->n_insns; i++) {
      Insn in = prog_insn(e.p, i);
      if (in.op == OP_CFG_LOAD) cfg = in;
      if (in.op == OP_LOAD && in.f[FLD_MEM] == MEM_SPAD) {
        ld = in;
        break;
      }
    }
    int64_t want = (int64_t)x->addr + (t.y0 - 1) * 14 + (t.x0 - 1) * 2;
    CHECK(ld.op == OP_LOAD && ld.f[FLD_DRAM_ADDR] == want && ld.f[FLD_OUTER] == t.rows && ld.f[FLD_INNER] == t.cols &&
              ld.f[FLD_NSEG] == 2 && ld.f[FLD_SEGLEN] == 6,
          "LOAD addr %lld (want %lld) %lld x %lld rows of %lld x %lld B", (long long)ld.f[FLD_DRAM_ADDR],
          (long long)want, (long long)ld.f[FLD_OUTER], (long long)ld.f[FLD_INNER], (long long)ld.f[FLD_NSEG],
          (long long)ld.f[FLD_SEGLEN]);
    CHECK(cfg.f[FLD_STRIDE_OUTER] == 14 && cfg.f[FLD_STRIDE_INNER] == 2 && cfg.f[FLD_SEG_STRIDE] == 14,
          "CFG_LOAD strides %lld %lld %lld", (long long)cfg.f[FLD_STRIDE_OUTER], (long long)cfg.f[FLD_STRIDE_INNER],
          (long long)cfg.f[FLD_SEG_STRIDE]);
  }
  emitted_free(&e);
  check_case("emit_first_gather");
}

int main(void) {
  test_counts();
  test_double_buffer_order();
  test_first_gather();
  return check_status();
}
