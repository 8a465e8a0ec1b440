// racecheck.c (bench): how long the static race checker (isa/racecheck.h) takes.
//   build/bench/racecheck PROG.bin...   times racecheck_run on each program (load excluded)
//   build/bench/racecheck --synthetic N  builds an N-instruction double-buffered GEMM loop on the
//                                        default arch (race-free) and times the check
// Prints instructions, reports, the best of 3 runs in seconds and the peak heap the check holds
// is not measured here (use /usr/bin/time -f %M). A benchmark, not a test: nothing is asserted.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../isa/racecheck.h"
#include "../tests/common/insnbuild.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int time_check(const Program *p, const char *name) {
  double best = 1e30;
  uint64_t found = 0;
  for (int rep = 0; rep < 3; rep++) {
    Diag d;
    diag_init(&d);
    RcReports r = {0};
    double t0 = now_s();
    if (racecheck_run(p, &r, &d)) {
      diag_print(&d);
      return 1;
    }
    double t = now_s() - t0;
    if (t < best) best = t;
    found = racecheck_total(&r);
    racecheck_reports_free(&r);
  }
  printf("%s: %u instructions, %llu reports, check %.3f s (best of 3)\n", name, p->n_insns, (unsigned long long)found,
         best);
  return 0;
}

static Insn tok(Insn in, int64_t pop, int64_t push) {
  in.f[FLD_POP] = pop;
  in.f[FLD_PUSH] = push;
  return in;
}

#define BIT(u) ((int64_t)1 << (u))

// Tiles of a weight-stationary GEMM, double-buffered in SPAD, WBUF and ACC: LOAD W, LOAD A,
// PRELOAD, COMPUTE, STORE, with the tokens that order them and free the buffers.
static Program *synthetic(uint32_t n) {
  Arch a;
  arch_default(&a);
  Program *p = prog_new(&a);
  if (!p || prog_reserve_insns(p, n)) {
    prog_free(p);
    return NULL;
  }
  int64_t R = a.rows, C = a.cols;
  Insn cfg = isa_insn(OP_CFG_LOAD);
  cfg.f[FLD_STRIDE_INNER] = C;
  insn_add(p, cfg);
  Insn cfs = isa_insn(OP_CFG_STORE);
  cfs.f[FLD_STRIDE_INNER] = C;
  insn_add(p, cfs);
  for (uint32_t t = 0; p->n_insns + 6 < n; t++) {
    int64_t b = t % 2, again = t >= 2;
    int64_t w = (int64_t)(t % 1024) * R * C, x = 0x1000000 + (int64_t)(t % 1024) * R * C;
    int64_t y = 0x2000000 + (int64_t)(t % 4096) * R * C;
    // The WBUF and SPAD halves are free once the COMPUTE of tile t-2 has ended.
    insn_add(p, tok(insn_load(MEM_WBUF, b * R, w, 1, R, 1, C), again ? BIT(UNIT_COMPUTE) : 0, BIT(UNIT_COMPUTE)));
    insn_add(p, tok(insn_load(MEM_SPAD, b * R, x, 1, R, 1, R), 0, BIT(UNIT_COMPUTE)));
    insn_add(p, tok(insn_rows(OP_PRELOAD, (uint64_t)(b * R), (int)R), BIT(UNIT_LOAD), 0));
    // The ACC half is free once the STORE of tile t-2 has ended.
    insn_add(p, tok(insn_compute(b * R, b * R, R), BIT(UNIT_LOAD) | (again ? BIT(UNIT_STORE) : 0),
                    BIT(UNIT_STORE) | BIT(UNIT_LOAD)));
    insn_add(p, tok(insn_store(b * R, y, 1, R, C, 0), BIT(UNIT_COMPUTE), BIT(UNIT_COMPUTE)));
  }
  insn_add(p, isa_insn(OP_HALT));
  return p;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: racecheck PROG.bin... | racecheck --synthetic N\n");
    return 2;
  }
  if (!strcmp(argv[1], "--synthetic")) {
    uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000000;
    Program *p = synthetic(n);
    if (!p) {
      fprintf(stderr, "racecheck: error: cannot build the synthetic program\n");
      return 1;
    }
    int rc = time_check(p, "synthetic");
    prog_free(p);
    return rc;
  }
  for (int i = 1; i < argc; i++) {
    Diag d;
    diag_init(&d);
    Program *p = NULL;
    if (prog_load(argv[i], &p, &d)) {
      diag_print(&d);
      return 1;
    }
    int rc = time_check(p, argv[i]);
    prog_free(p);
    if (rc) return rc;
  }
  return 0;
}
