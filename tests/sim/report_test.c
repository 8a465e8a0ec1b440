// report_test.c: the Chrome trace (report_trace) draws each instruction's slice and, for those
// that go on after their unit is ready, a tail: DRAM beats in flight after a LOAD or STORE,
// array rows draining after a COMPUTE, COMPUTE_OS or COMPUTE_IS. Run from the repository root.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../sim/report.h"
#include "../../sim/sim.h"
#include "../common/check.h"

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

// Each op in ops whose instructions end after they are ready has one tail per such instruction.
static void check_tails(const char *path, const Opcode *ops, int n_ops) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  int ok = asm_assemble_file(path, &p, &d) == 0;
  CHECK(ok, "%s: %s", path, diag_first(&d));
  Sim *s = ok ? sim_new(p, SIM_FAST, &d) : NULL;
  CHECK(!ok || s, "%s: %s", path, diag_first(&d));
  if (s && sim_run(s, &d) == 0) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && report_trace(f, s) == 0, "report_trace failed");
    if (f) fclose(f);
    const InsnTime *t = sim_insn_times(s);
    for (int i = 0; text && i < n_ops; i++) {
      int want = 0;
      for (uint32_t k = 0; k < p->n_insns; k++) want += prog_op(p, k) == ops[i] && t[k].end >= t[k].ready;
      char b[64], e[64];
      const char *what = ops[i] == OP_LOAD || ops[i] == OP_STORE ? "in flight" : "drain";
      snprintf(b, sizeof b, "\"%s %s\",\"cat\":\"tail\",\"ph\":\"b\"", isa_ops[ops[i]].name, what);
      snprintf(e, sizeof e, "\"%s %s\",\"cat\":\"tail\",\"ph\":\"e\"", isa_ops[ops[i]].name, what);
      CHECK(want > 0, "%s: no %s ends after it is ready (the test needs one)", path, isa_ops[ops[i]].name);
      CHECK(count(text, b) == want && count(text, e) == want, "%s: %d %s tails begin, %d end, %d expected", path,
            count(text, b), isa_ops[ops[i]].name, count(text, e), want);
    }
    free(text);
  } else if (s) {
    CHECK(0, "%s: %s", path, diag_first(&d));
  }
  sim_free(s);
  prog_free(p);
}

int main(void) {
  static const Opcode is_ops[] = {OP_LOAD, OP_STORE, OP_COMPUTE_IS};
  check_tails("workloads/asm/gemm_is_tiny.s", is_ops, 3);
  static const Opcode os_ops[] = {OP_COMPUTE_OS};
  check_tails("workloads/asm/gemm_os_tiny.s", os_ops, 1);
  static const Opcode ws_ops[] = {OP_COMPUTE};
  check_tails("workloads/asm/gemm_small.s", ws_ops, 1);
  check_case("trace: a tail after every LOAD, STORE and COMPUTE* that ends after it is ready");
  return check_status();
}
