// memplan_test.c: DRAM planning (compiler/memplan.c) on the shipped small networks and ResNet-18.
// Checks the invariants rather than addresses: tensors alive at the same time never share a byte;
// a tensor with a zero halo lies only on bytes no earlier tensor wrote, or exactly on the block of
// a dead tensor with the same layout (so its halo is still zero); constants and inputs overlap
// nothing; and reuse pays: the peak is below the sum of all activations on a deep network.
// Fusion's placement in the global buffer keeps the same invariants there (check_fuse).
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

// Fusion (memplan_fuse): the activations it puts in the global buffer lie inside it at beat-aligned
// addresses, are neither network inputs nor outputs, share no byte with a tensor alive at the same
// time, and a tensor with a halo that lies on bytes an earlier tensor of another layout or place
// wrote has its halo zeroed (gbuf_zero). Returns how many it placed (-1: planning failed).
static int check_fuse(const char *name, uint32_t gbuf_bytes, int fuse) {
  char path[256];
  snprintf(path, sizeof path, "workloads/nets/%s.json", name);
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  Arch a;
  arch_default(&a);
  a.gbuf_bytes = gbuf_bytes;
  MachProg mp;
  memset(&mp, 0, sizeof mp);
  MemPlan m;
  int placed = -1;
  int ok = !cli_load(path, NULL, &g, &d) && !lower_graph(g, &a, DF_WS, NULL, 0, &mp, &d) && !tile_plan_all(&mp, 1, &d);
  if (ok) {
    mp.fuse_layers = fuse;
    placed = memplan_fuse(&mp, &d);
    ok = placed >= 0 && !tile_plan_all(&mp, 1, &d) && !memplan_run(&mp, &m, &d);
  }
  if (!ok) diag_print(&d);
  CHECK(ok, "%s: fused planning failed", name);
  int n = 0;
  for (int i = 0; ok && i < mp.n_tensors; i++) {
    const DTensor *t = &mp.tensors[i];
    if (t->alias >= 0 || !t->gbuf) continue;
    n++;
    uint64_t t0 = t->gbuf_base, t1 = t0 + dt_bytes(t);
    CHECK(t->base == t0 && t1 <= a.gbuf_bytes && t0 % a.gbuf_bus_bytes == 0, "%s: %s at GBUF 0x%llx..0x%llx (gbuf.bytes %u)",
          name, t->name, (unsigned long long)t0, (unsigned long long)t1, a.gbuf_bytes);
    CHECK(t->role == ROLE_SCRATCH && t->first_op >= 0 && t->last_op < mp.n_ops, "%s: %s is a network input or output",
          name, t->name);
    for (int j = 0; j < mp.n_tensors; j++) {
      const DTensor *u = &mp.tensors[j];
      if (j == i || u->alias >= 0 || !u->gbuf || !overlap(t0, t1, u->gbuf_base, u->gbuf_base + dt_bytes(u))) continue;
      int disjoint = t->last_op < u->first_op || u->last_op < t->first_op;
      CHECK(disjoint, "%s: %s and %s share GBUF bytes while both alive", name, t->name, u->name);
      if (has_halo(t) && u->last_op < t->first_op) {
        int same = u->gbuf_base == t0 && u->n == t->n && u->h == t->h && u->w == t->w && u->c == t->c &&
                   u->halo_t == t->halo_t && u->halo_b == t->halo_b && u->halo_l == t->halo_l && u->halo_r == t->halo_r;
        CHECK(same || t->gbuf_zero, "%s: %s lies on bytes %s wrote, but its halo is not zeroed", name, t->name, u->name);
      }
    }
  }
  CHECK(!ok || n == placed, "%s: memplan_fuse says %d placed, %d are", name, placed, n);
  machprog_free(&mp);
  graph_free(g);
  return placed;
}

int main(void) {
  CHECK(check_fuse("resnet18", 128 << 10, 1) >= 10, "resnet18: fewer than 10 activations in 128 KiB");
  CHECK(check_fuse("mobilenetv2", 128 << 10, 1) > 0, "mobilenetv2: nothing in the GBUF");
  CHECK(check_fuse("lenet5", 4 << 10, 1) > 0, "lenet5: nothing in 4 KiB");
  CHECK(check_fuse("residual", 1 << 10, 1) >= 0, "residual: 1 KiB");
  check_case("memplan-fuse-invariants");
  CHECK(check_fuse("resnet18", 0, 1) == 0, "gbuf.bytes 0: something placed");
  CHECK(check_fuse("resnet18", 128 << 10, 0) == 0, "--no-fuse-layers: something placed");
  check_case("memplan-fuse-none");

  const char *small[] = {"tiny_cnn", "residual", "lenet5", "edge_residual", "edge_concat", "edge_padding",
                         "edge_reshape", "edge_depthwise", "edge_pooling"};
  for (size_t i = 0; i < sizeof small / sizeof *small; i++) check_net(small[i], 0);
  check_case("memplan-small-nets");
  check_net("mobilenetv2", 1);
  check_case("memplan-mobilenetv2-reuse");
  return check_status();
}
