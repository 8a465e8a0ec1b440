// schedule_test.c: the token discipline of compiled programs, checked statically. Every small
// shipped network is compiled (in process) for several archs, in each dataflow (ws, os, is),
// with and without double buffering; each program must be race-free by tests/common/randprog.c's
// independent checker (every pair of conflicting accesses on different units ordered by a chain
// of tokens, every POP after its PUSH in program order, pushes only from instructions whose ends
// are monotonic in their unit) and its token counts must stay within tokens.max. A planted
// missing token must be caught in each dataflow. On archs with tokens.max 1 to 4 (issue 18: the
// compiler used to ignore it, and sasim stopped with "token overflow"), a network either compiles
// to a program within that bound or is refused with an error naming tokens.max; the programs are
// run against `sacc ref` by tests/cli/compile.sh.
#include <stdio.h>
#include <string.h>

#include "../../compiler/compile.h"
#include "../../compiler/cli_args.h"
#include "../common/check.h"
#include "../common/randprog.h"

static const char *const nets[] = {"tiny_cnn", "residual", "lenet5", "edge_odd", "edge_channels", "edge_concat",
                                   "edge_depthwise", "edge_dilation", "edge_padding", "edge_residual",
                                   "edge_gap_fc", "edge_activations", "edge_float_bn", "edge_pooling", "depthwise"};

static const char *const df_name[] = {[DF_WS] = "ws", [DF_OS] = "os", [DF_IS] = "is"};

static int refused;   // compiles refused for tokens.max in the current case

// refusable: a small tokens.max may refuse the network, with an error that names it.
static Program *compile_net(const char *name, const Arch *a, int db, Dataflow df, int refusable) {
  char path[256];
  snprintf(path, sizeof path, "workloads/nets/%s.json", name);
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  Program *p = NULL;
  if (!cli_load(path, NULL, &g, &d)) {
    CompileOptions co;
    compile_options_default(&co);
    co.double_buffer = db;
    co.dataflow = df;
    CompileStats st;
    p = compile_graph(g, a, &co, &st, &d);
    compile_stats_free(&st);
  }
  char want[64];
  snprintf(want, sizeof want, "has tokens.max=%u", a->token_max);
  if (!p && refusable && d.count == 1 && strstr(diag_first(&d), want)) {
    refused++;
  } else if (!p) {
    diag_print(&d);
    CHECK(0, "%s: compile failed", name);
  }
  graph_free(g);
  return p;
}

int main(void) {
  const char *archs[] = {NULL, "workloads/arch/tiny.json", "workloads/arch/large.json", NULL, NULL, NULL, NULL};
  for (size_t ai = 0; ai < sizeof archs / sizeof *archs; ai++) {
    Arch a;
    Diag d;
    diag_init(&d);
    if (archs[ai]) CHECK(!arch_load_file(archs[ai], &a, &d), "%s", archs[ai]);
    else arch_default(&a);
    int small = ai >= 3;   // the default arch with tokens.max 1, 2, 3, 4
    if (small) {
      a.token_max = (uint32_t)(ai - 2);
      snprintf(a.name, sizeof a.name, "tokens%u", a.token_max);
    }
    for (int run = 0; run < 6; run++) {
      int db = run & 1;
      Dataflow df = (Dataflow)(run / 2);
      char name[128];
      snprintf(name, sizeof name, "schedule-races-%s-%s-%s", a.name, db ? "db" : "single", df_name[df]);
      refused = 0;
      for (size_t i = 0; i < sizeof nets / sizeof *nets; i++) {
        Program *p = compile_net(nets[i], &a, db, df, small);
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
      if (small) printf("# %s: %d of %zu networks refused for tokens.max\n", name, refused, sizeof nets / sizeof *nets);
      check_case(name);
    }
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
    Program *p = compile_net("residual", &a, 1, (Dataflow)df, 0);
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
  return check_status();
}
