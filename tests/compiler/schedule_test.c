// schedule_test.c: the token discipline of compiled programs, checked statically. Every small
// shipped network is compiled (in process) for several archs, in each dataflow (ws, os, is),
// with and without double buffering; each program must be race-free by tests/common/randprog.c's
// independent checker (every pair of conflicting accesses on different units ordered by a chain
// of tokens, every POP after its PUSH in program order, pushes only from instructions whose ends
// are monotonic in their unit) and its token counts must stay within tokens.max. A planted
// missing token must be caught in each dataflow. On archs with tokens.max 1 to 4 (issue 18: the
// compiler used to ignore it, and sasim stopped with "token overflow"), every network compiles to
// a program within that bound (tests/cli/compile.sh runs such programs against `sacc ref`); the
// compiler's own bound check refuses, naming the limit, a program that exceeds it. The small
// networks of the special-function unit's ops (tests/compiler/nets/sfu_*) go through the same
// checks (and workloads/nets' fullbasic and se_block): the unit's accesses are ordered by tokens
// like the other units'.
#include <stdio.h>
#include <string.h>

#include "../../compiler/compile.h"
#include "../../compiler/cli_args.h"
#include "../../compiler/sched.h"
#include "../common/check.h"
#include "../common/randprog.h"

static const char *const nets[] = {"tiny_cnn", "residual", "lenet5", "edge_odd", "edge_channels", "edge_concat",
                                   "edge_depthwise", "edge_dilation", "edge_padding", "edge_residual",
                                   "edge_gap_fc", "edge_activations", "edge_float_bn", "edge_pooling", "depthwise",
                                   // the special-function unit's ops (sfu_rows: not on tiny)
                                   "fullbasic", "se_block",
                                   "tests/compiler/nets/sfu_mlp.json", "tests/compiler/nets/sfu_rows.json",
                                   // matmul of two activations and transposes (B and K^T read from DRAM)
                                   "tests/compiler/nets/attn_mm_small.json", "tests/compiler/nets/matmul_edges.json"};

static const char *const df_name[] = {[DF_WS] = "ws", [DF_OS] = "os", [DF_IS] = "is"};

static Program *compile_net(const char *name, const Arch *a, int db, Dataflow df) {
  char path[256];
  if (strchr(name, '/')) snprintf(path, sizeof path, "%s", name);   // a path, not a shipped net's name
  else snprintf(path, sizeof path, "workloads/nets/%s.json", name);
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  Program *p = NULL;
  if (!cli_load(path, NULL, &g, &d)) {
    CompileOptions co;
    compile_options_default(&co);
    co.double_buffer = db;
    co.dataflow = df, co.dataflow_auto = 0;
    CompileStats st;
    p = compile_graph(g, a, &co, &st, &d);
    compile_stats_free(&st);
  }
  if (!p) {
    diag_print(&d);
    CHECK(0, "%s: compile failed", name);
  }
  graph_free(g);
  return p;
}

int main(void) {
  // The shipped archs, then the default (queues 16) and tiny (queues 4) with small tokens.max.
  static const struct {
    const char *path;   // NULL: the default arch
    uint32_t token_max; // 0: the arch's own
  } archs[] = {{NULL, 0}, {"workloads/arch/tiny.json", 0}, {"workloads/arch/large.json", 0}, {NULL, 1}, {NULL, 2},
               {NULL, 3}, {NULL, 4}, {"workloads/arch/tiny.json", 1}, {"workloads/arch/tiny.json", 2}};
  for (size_t ai = 0; ai < sizeof archs / sizeof *archs; ai++) {
    Arch a;
    Diag d;
    diag_init(&d);
    if (archs[ai].path) CHECK(!arch_load_file(archs[ai].path, &a, &d), "%s", archs[ai].path);
    else arch_default(&a);
    if (archs[ai].token_max) {
      a.token_max = archs[ai].token_max;
      char base[sizeof a.name];
      snprintf(base, sizeof base, "%s", a.name);
      snprintf(a.name, sizeof a.name, "%.40s-tokens%u", base, a.token_max);
    }
    for (int run = 0; run < 6; run++) {
      int db = run & 1;
      Dataflow df = (Dataflow)(run / 2);
      char name[128];
      snprintf(name, sizeof name, "schedule-races-%s-%s-%s", a.name, db ? "db" : "single", df_name[df]);
      for (size_t i = 0; i < sizeof nets / sizeof *nets; i++) {
        if (a.cols < 16 && strstr(nets[i], "sfu_rows")) continue;   // its rows do not fit (sfu_compile.sh)
        Program *p = compile_net(nets[i], &a, db, df);
        if (!p) continue;
        Diag rd;
        diag_init(&rd);
        if (randprog_check_races(p, &rd)) {
          diag_print(&rd);
          CHECK(0, "%s on %s: race", nets[i], a.name);
        }
        uint32_t bound = randprog_token_bound(p);
        CHECK(bound <= a.token_max, "%s: token bound %u > tokens.max %u", nets[i], bound, a.token_max);
        prog_free(p);
      }
      check_case(name);
    }
  }
  // The compiler's bound check refuses a program past tokens.max, naming the channel and the
  // limit: the usual placement of residual's tokens exceeds 1 on the default arch.
  {
    Arch a;
    arch_default(&a);
    Program *p = compile_net("residual", &a, 1, DF_WS);
    if (p) {
      a.token_max = 1;
      Diag rd;
      diag_init(&rd);
      CHECK(sched_check_token_bound(p, &a, &rd) != 0 && strstr(diag_first(&rd), "token channel ") &&
                strstr(diag_first(&rd), "but arch \"default\" has tokens.max=1"),
            "bound check: %s", diag_first(&rd));
      CHECK(sched_check_token_bound(p, &p->arch, &rd) == 0, "bound check refuses the arch's own limit");
      prog_free(p);
    }
    check_case("schedule-bound-check-refuses");
  }
  // The checker sees a missing token: drop the first POP of the compute unit.
  Arch a;
  arch_default(&a);
  for (int df = DF_WS; df <= DF_IS; df++) {
    Opcode first = OP_PRELOAD;   // the compute unit's first instruction of a step
    const char *name = "schedule-planted-missing-token";
    switch ((Dataflow)df) {
    case DF_WS: break;
    case DF_OS: first = OP_COMPUTE_OS, name = "schedule-planted-missing-token-os"; break;
    case DF_IS: name = "schedule-planted-missing-token-is"; break;
    }
    Program *p = compile_net("residual", &a, 1, (Dataflow)df);
    if (p) {
      uint32_t i = 0;
      while (i < p->n_insns && !(prog_op(p, i) == first && prog_insn(p, i).f[FLD_POP])) i++;
      CHECK(i < p->n_insns, "no %s pops a token", isa_ops[first].name);
      if (i < p->n_insns) isa_word_set(&p->code[i], FLD_POP, 0);
      Diag rd;
      diag_init(&rd);
      CHECK(randprog_check_races(p, &rd) != 0, "a dropped POP went unnoticed");
      prog_free(p);
    }
    check_case(name);
  }
  // ... and on the special-function unit: an SFU_MAP that does not wait for its LOAD, and a
  // STORE that does not wait for the unit.
  for (int k = 0; k < 2; k++) {
    Program *p = compile_net("se_block", &a, 1, DF_WS);
    if (p) {
      Opcode want = k ? OP_STORE : OP_SFU_MAP;
      uint32_t i = 0;
      while (i < p->n_insns && !(prog_op(p, i) == want && (prog_insn(p, i).f[FLD_POP] >> (k ? UNIT_SFU : UNIT_LOAD)) & 1))
        i++;
      CHECK(i < p->n_insns, "no %s pops a token", isa_ops[want].name);
      if (i < p->n_insns) isa_word_set(&p->code[i], FLD_POP, 0);
      Diag rd;
      diag_init(&rd);
      CHECK(randprog_check_races(p, &rd) != 0, "a dropped POP of %s went unnoticed", isa_ops[want].name);
      prog_free(p);
    }
    check_case(k ? "schedule-planted-missing-token-sfu-store" : "schedule-planted-missing-token-sfu");
  }
  return check_status();
}
