// memplan_test.c: DRAM planning (compiler/memplan.c) on the shipped small networks and ResNet-18.
// Checks the invariants rather than addresses: tensors alive at the same time never share a byte;
// a tensor with a zero halo lies only on bytes no earlier tensor wrote, or exactly on the block of
// a dead tensor with the same layout (so its halo is still zero); constants and inputs overlap
// nothing; and reuse pays: the peak is below the sum of all activations on a deep network.
#include <stdio.h>
#include <string.h>

#include "../../compiler/lower.h"
#include "../../compiler/memplan.h"
#include "../../compiler/cli_args.h"
#include "../../compiler/tile.h"
#include "../common/check.h"

static int has_halo(const DTensor *t) { return t->halo_t || t->halo_b || t->halo_l || t->halo_r; }

static int overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }

static void check_net(const char *name, int expect_reuse) {
  char path[256];
  snprintf(path, sizeof path, "workloads/nets/%s.json", name);
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  Arch a;
  arch_default(&a);
  MachProg mp;
  memset(&mp, 0, sizeof mp);
  MemPlan m;
  int ok = !cli_load(path, NULL, &g, &d) && !lower_graph(g, &a, DF_WS, NULL, 0, &mp, &d) &&
           !tile_plan_all(&mp, 1, &d) && !memplan_run(&mp, &m, &d);
  if (!ok) diag_print(&d);
  CHECK(ok, "%s: planning failed", name);
  for (int i = 0; ok && i < mp.n_tensors; i++) {
    const DTensor *t = &mp.tensors[i];
    if (t->alias >= 0) continue;
    uint64_t t0 = t->base, t1 = t->base + dt_bytes(t);
    CHECK(t0 >= m.const_bytes, "%s: tensor %s at 0x%llx overlaps the constants", name, t->name,
          (unsigned long long)t0);
    CHECK(t1 <= m.dram_top, "%s: tensor %s ends above the DRAM top", name, t->name);
    for (int j = 0; j < mp.n_tensors; j++) {
      const DTensor *u = &mp.tensors[j];
      if (j == i || u->alias >= 0) continue;
      uint64_t u0 = u->base, u1 = u->base + dt_bytes(u);
      if (!overlap(t0, t1, u0, u1)) continue;
      // Live ranges [first_op, last_op] (inputs from -1): sharing bytes needs disjoint ranges.
      int disjoint = t->last_op < u->first_op || u->last_op < t->first_op;
      CHECK(disjoint, "%s: %s (ops %d..%d) and %s (ops %d..%d) share DRAM while both alive", name, t->name,
            t->first_op, t->last_op, u->name, u->first_op, u->last_op);
      // u written before t is allocated: t's halo must not sit on u's bytes unless the layouts match.
      if (has_halo(t) && u->first_op < t->first_op) {
        int same = u0 == t0 && u->n == t->n && u->h == t->h && u->w == t->w && u->c == t->c &&
                   u->halo_t == t->halo_t && u->halo_b == t->halo_b && u->halo_l == t->halo_l && u->halo_r == t->halo_r;
        CHECK(same, "%s: %s has a halo but reuses bytes of %s with another layout", name, t->name, u->name);
      }
    }
  }
  if (ok && expect_reuse)
    CHECK(m.act_peak_bytes < m.act_total_bytes, "%s: no reuse (peak %llu, total %llu)", name,
          (unsigned long long)m.act_peak_bytes, (unsigned long long)m.act_total_bytes);
  machprog_free(&mp);
  graph_free(g);
}

int main(void) {
  const char *small[] = {"tiny_cnn", "residual", "lenet5", "edge_residual", "edge_concat", "edge_padding",
                         "edge_reshape", "edge_depthwise", "edge_pooling"};
  for (size_t i = 0; i < sizeof small / sizeof *small; i++) check_net(small[i], 0);
  check_case("memplan-small-nets");
  check_net("mobilenetv2", 1);
  check_case("memplan-mobilenetv2-reuse");
  return check_status();
}
