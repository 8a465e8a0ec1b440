// tile_test.c: tiling (compiler/tile.c). Every plan chosen for the shipped small networks and
// for odd shapes (1, primes, sizes that are not multiples of the array) fits its buffer slots
// and the instruction fields on the default, tiny, large and 2x2 archs, in each dataflow, with
// and without double buffering, and its M tiles cover the output exactly once (checked here
// from the plan, independently of tile.c's own fit test). The field limits bind where the
// buffers would allow more; the chooser's plan is not beaten by the obvious alternatives; the
// model respects the bus and the array's peak, and charges more for what is clearly worse;
// double buffering halves the slots and falls back to one slot when two do not fit. An
// accumulator ring (TilePlan.ring) keeps every halo it reuses intact until its STORE, replayed
// here row by row, and is chosen for ResNet's conv1 with its pool. Shared taps (depthwise
// gathers shared across kernel rows) place every K tile's rows inside a gather of them.
#include <math.h>
#include <stdlib.h>

#include "lowered.h"

static const char *const df_names[] = {[DF_WS] = "ws", [DF_OS] = "os", [DF_IS] = "is"};

static uint64_t fmax_of(FieldId f) { return (uint64_t)isa_field_max(f); }
static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A ring plan's windows (tile_ring), replayed on the accumulator: which N tile's which conv row
// each ACC row holds. A window's halo rows must hold the N tile's conv rows iy0.. (written by the
// band before and not since overwritten), the rows below it are then computed, and at the end of
// each M tile (its STOREs come after all its computes) every window of it must still hold its
// conv rows. Returns the conv rows computed (over all N tiles).
static uint64_t check_ring(const char *what, const MachOp *op, const Arch *a) {
  const TilePlan *p = &op->plan;
  uint64_t nm = tile_m_count(op, p), nN = (uint64_t)cdiv(op->N, a->cols), computed = 0;
  RingWin *w = malloc(nm * nN * sizeof *w);
  int64_t *held = malloc(a->acc_rows * sizeof *held);   // tile * 1e6 + img * 1e4 + conv row, or -1
  CHECK(w && held && tile_ring(op, p, a, w) == 0, "%s: ring does not place", what);
  for (uint32_t r = 0; held && r < a->acc_rows; r++) held[r] = -1;
  for (uint64_t i = 0; i < nm && !check_case_failures(); i++) {
    MTile t = tile_m_at(op, p, i);
    for (int pass = 0; pass < 2; pass++)   // 0: check the halo and compute; 1: after the STOREs' reads
      for (uint64_t j = 0; j < nN && !check_case_failures(); j++) {
        const RingWin *rw = &w[i * nN + j];
        CHECK((uint64_t)rw->lo + t.acc_rows <= a->acc_rows, "%s: window %llu.%llu past the ACC", what,
              (unsigned long long)i, (unsigned long long)j);
        if (check_case_failures()) break;
        for (int64_t y = 0; y < t.irows; y++)
          for (int64_t x = 0; x < op->ow; x++) {
            int64_t want = (int64_t)j * 1000000 + t.img * 10000 + t.iy0 + y, *h = &held[rw->lo + y * op->ow + x];
            if (pass == 1 || y < rw->halo) CHECK(*h == want, "%s: M tile %llu N tile %llu reads ACC row %lld "
                                                    "holding %lld, not %lld", what, (unsigned long long)i,
                                                 (unsigned long long)j, (long long)(rw->lo + y * op->ow + x),
                                                 (long long)*h, (long long)want);
            else *h = want, computed++;
          }
      }
  }
  free(w), free(held);
  return computed / (uint64_t)op->ow;
}

// The plan of op fits arch a: buffer slots, instruction fields, and exact cover of the output.
static void check_plan(const char *what, const MachOp *op, const Arch *a, Dataflow df) {
  const TilePlan *p = &op->plan;
  Slots s;
  tile_slots(a, p->slots > 1, &s);
  uint32_t R = a->rows, C = a->cols;
  int64_t nN = cdiv(op->N, C);
  int gemm = op->kind == MOP_GEMM;
  uint32_t g = gemm ? p->g : 1, kc = gemm ? p->kc : 1;
  CHECK(p->slots == 1 || p->slots == 2, "%s: %u slots", what, p->slots);
  CHECK(g >= 1 && g <= nN, "%s: g %u of %lld N tiles", what, g, (long long)nN);
  CHECK(3 * g <= s.param, "%s: %u parameter rows in a slot of %u", what, 3 * g, s.param);
  if (gemm) {
    CHECK(kc >= 1 && kc <= op->n_ktiles, "%s: kc %u of %u K tiles", what, kc, op->n_ktiles);
    for (uint32_t k0 = 0; k0 < op->n_ktiles; k0 += kc) {   // every chunk's weight rows
      uint32_t k1 = k0 + kc < op->n_ktiles ? k0 + kc : op->n_ktiles;
      uint64_t krows = op->ktiles[k1 - 1].kbase + op->ktiles[k1 - 1].rows - op->ktiles[k0].kbase;
      for (uint32_t k = k0; k < k1; k++) CHECK(op->ktiles[k].rows <= R, "%s: K tile of %u rows", what, op->ktiles[k].rows);
      switch (df) {
      case DF_WS: case DF_OS:
        CHECK(g * krows <= s.wbuf, "%s: %llu weight rows in a WBUF slot of %u", what, (unsigned long long)(g * krows), s.wbuf);
        CHECK(krows <= fmax_of(FLD_INNER), "%s: weight LOAD of %llu rows", what, (unsigned long long)krows);
        break;
      case DF_IS:
        CHECK((uint64_t)g * C * (k1 - k0) <= s.spad, "%s: weights overflow a SPAD slot", what);
        break;
      }
    }
  }
  int64_t imgs = op->in[0].n, oh = op->poh, ow = op->pow;
  char *seen = calloc((size_t)(imgs * oh * ow) + 1, 1);
  uint64_t n = tile_m_count(op, p);
  for (uint64_t i = 0; i < n; i++) {
    MTile t = tile_m_at(op, p, i);
    CHECK(t.img >= 0 && t.img < imgs && t.y0 >= 0 && t.rows >= 1 && t.y0 + t.rows <= oh && t.x0 >= 0 && t.cols >= 1 &&
              t.x0 + t.cols <= ow,
          "%s: M tile %llu outside the output", what, (unsigned long long)i);
    if (check_case_failures()) break;
    for (int64_t y = t.y0; y < t.y0 + t.rows; y++)
      for (int64_t x = t.x0; x < t.x0 + t.cols; x++) {
        char *c = &seen[(t.img * oh + y) * ow + x];
        CHECK(!*c, "%s: output (%lld, %lld, %lld) in two M tiles", what, (long long)t.img, (long long)y, (long long)x);
        *c = 1;
      }
    CHECK((uint64_t)t.rows <= fmax_of(FLD_OUTER) && (uint64_t)t.cols <= fmax_of(FLD_INNER),
          "%s: STORE nest %lldx%lld", what, (long long)t.rows, (long long)t.cols);
    CHECK(t.acc_rows <= fmax_of(FLD_ROWS), "%s: %u accumulator rows", what, t.acc_rows);
    if (!p->ring)   // (a ring: check_ring)
      CHECK((uint64_t)t.acc_rows * g <= s.acc, "%s: %u x %u accumulator rows in a slot of %u", what, t.acc_rows, g, s.acc);
    if (op->pool != POOL_NONE)
      CHECK((uint64_t)t.irows <= fmax_of(FLD_IN_H) && (uint64_t)op->ow <= fmax_of(FLD_IN_W),
            "%s: pool input %lldx%lld", what, (long long)t.irows, (long long)op->ow);
    if (!gemm) continue;
    switch (df) {
    case DF_WS: case DF_OS:
      CHECK((uint64_t)t.acc_rows * kc <= s.spad, "%s: %u x %u im2col rows in a SPAD slot of %u", what, t.acc_rows, kc,
            s.spad);
      break;
    case DF_IS:
      CHECK((uint64_t)cdiv(t.acc_rows, C) * kc * R <= s.wbuf, "%s: transposed inputs overflow a WBUF slot", what);
      break;
    }
  }
  for (int64_t k = 0; k < imgs * oh * ow && !check_case_failures(); k++)
    CHECK(seen[k], "%s: output %lld in no M tile", what, (long long)k);
  free(seen);
  if (p->ring) check_ring(what, op, a);
}

// Lowers and tiles json for every arch, dataflow and buffering; checks every op's plan. Returns
// how many plannings succeeded. must_fit 0 lets the 2x2 arch (buffers of a few rows) refuse.
static int plan_everywhere(const char *name, const char *json, int must_fit) {
  int planned = 0;
  for (int ai = 0; ai < TEST_N_ARCHS; ai++) {
    Arch a;
    if (test_arch(ai, &a)) {
      CHECK(0, "arch %d does not load", ai);
      continue;
    }
    for (int run = 0; run < 6; run++) {
      Dataflow df = (Dataflow)(run / 2);
      int db = run & 1;
      Graph *g;
      MachProg mp;
      char msg[512];
      if (lowered(json, &a, df, &g, &mp, msg, sizeof msg)) {
        CHECK(0, "%s: %s", name, msg);
      } else {
        Diag d;
        diag_init(&d);
        if (tile_plan_all(&mp, db, &d)) {
          CHECK(strstr(diag_first(&d), "no tiling fits"), "%s on %s: %s", name, a.name, diag_first(&d));
          CHECK(!must_fit && ai == TEST_N_ARCHS - 1, "%s on %s %s: %s", name, a.name, df_names[df], diag_first(&d));
        } else {
          planned++;
          for (int i = 0; i < mp.n_ops; i++) {
            char what[256];
            snprintf(what, sizeof what, "%s on %s, %s, %s, op %d (%s)", name, a.name, df_names[df],
                     db ? "double-buffered" : "single", i, mp.ops[i].what);
            check_plan(what, &mp.ops[i], &a, df);
            if (!db) CHECK(mp.ops[i].plan.slots == 1, "%s: two slots without double buffering", what);
          }
        }
      }
      machprog_free(&mp);
      graph_free(g);
    }
  }
  return planned;
}

static void test_shipped(void) {
  static const char *const nets[] = {"tiny_cnn", "residual", "lenet5", "edge_odd", "edge_channels", "edge_concat",
                                     "edge_depthwise", "edge_dilation", "edge_padding", "edge_residual",
                                     "edge_gap_fc", "edge_activations", "edge_float_bn", "edge_pooling",
                                     "depthwise", "edge_reshape"};
  for (size_t i = 0; i < sizeof nets / sizeof *nets; i++) {
    char path[256];
    snprintf(path, sizeof path, "workloads/nets/%s.json", nets[i]);
    FILE *f = fopen(path, "rb");
    CHECK(f, "%s: cannot open", path);
    if (!f) continue;
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    plan_everywhere(nets[i], text, 0);
  }
  check_case("tile_plans_fit_shipped_nets");
}

static void test_odd_shapes(void) {
  char json[4096];
  int planned = 0;
  conv_net(json, sizeof json, 1, 1, 1, 1, 1, 1, 0, 1, "", "", "y");
  planned += plan_everywhere("conv 1x1 of one value", json, 1);
  conv_net(json, sizeof json, 1, 7, 13, 3, 3, 1, 1, 5, "", "", "y");
  planned += plan_everywhere("conv 3x3 7x13x3 -> 5", json, 0);
  conv_net(json, sizeof json, 2, 11, 9, 17, 3, 2, 1, 19, "", "", "y");
  planned += plan_everywhere("conv 3x3/2 2x11x9x17 -> 19", json, 0);
  conv_net(json, sizeof json, 1, 9, 9, 20, 3, 1, 1, 20, ", \"groups\": 20", "", "y");
  planned += plan_everywhere("depthwise 3x3 9x9x20", json, 0);
  conv_net(json, sizeof json, 1, 9, 9, 3, 3, 1, 1, 6, "",
           ", {\"name\": \"p\", \"op\": \"maxpool\", \"inputs\": [\"y\"], \"output\": \"z\", \"kernel\": 3, "
           "\"stride\": 2}",
           "z");
  planned += plan_everywhere("conv 3x3 + fused maxpool 3x3/2", json, 0);
  conv_net(json, sizeof json, 1, 5, 7, 3, 1, 1, 0, 3, "",
           ", {\"name\": \"p\", \"op\": \"avgpool\", \"inputs\": [\"y\"], \"output\": \"z\", \"kernel\": 3, "
           "\"stride\": 1, \"padding\": 1, \"count_include_pad\": false, \"scale\": 0.1}",
           "z");
  planned += plan_everywhere("avgpool 3x3 excluding the padding", json, 0);
  const char *fc = "{\"inputs\": [{\"name\": \"x\", \"shape\": [3, 37], \"scale\": 0.1}], \"layers\": ["
                   "{\"name\": \"f\", \"op\": \"fc\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, "
                   "\"cout\": 23, \"weights\": {\"seed\": 2}, \"weight_scale\": 0.01}], \"outputs\": [\"y\"]}";
  planned += plan_everywhere("fc 3x37 -> 23", fc, 1);
  const char *add = "{\"inputs\": [{\"name\": \"a\", \"shape\": [1, 3, 5, 33], \"scale\": 0.1}, "
                    "{\"name\": \"b\", \"shape\": [1, 3, 5, 33], \"scale\": 0.05}], \"layers\": ["
                    "{\"name\": \"s\", \"op\": \"add\", \"inputs\": [\"a\", \"b\"], \"output\": \"y\", \"scale\": 0.2}], "
                    "\"outputs\": [\"y\"]}";
  planned += plan_everywhere("add 3x5x33", add, 1);
  // 8 networks x 4 archs x 6 runs; the 2x2 arch refuses a few.
  CHECK(planned >= 8 * 3 * 6, "only %d of %d plannings succeeded", planned, 8 * 4 * 6);
  check_case("tile_plans_fit_odd_shapes");
}

// An arch whose buffers would hold more than the instruction fields can count.
static void big_arch(Arch *a) {
  arch_default(a);
  a->spad_rows = a->acc_rows = a->wbuf_rows = 65536;
}

// One op of json lowered for a; *mp and *g freed by the caller.
static MachOp *one_op(const char *json, const Arch *a, Dataflow df, Graph **g, MachProg *mp) {
  if (lowered(json, a, df, g, mp, NULL, 0) || mp->n_ops != 1) {
    CHECK(0, "lowering failed or gave %d ops", mp->n_ops);
    return NULL;
  }
  return &mp->ops[0];
}

static void test_field_limits(void) {
  Arch a;
  big_arch(&a);
  char json[4096];
  Graph *g;
  MachProg mp;
  // A row of 5000 pixels fits an accumulator slot of 32768 rows, but a STORE's INNER counts 4095.
  conv_net(json, sizeof json, 1, 1, 5000, 4, 1, 1, 0, 4, "", "", "y");
  MachOp *op = one_op(json, &a, DF_WS, &g, &mp);
  if (op) {
    TilePlan p = {.band_rows = 1, .band_cols = 5000, .kc = 1, .g = 1};
    CHECK(tile_estimate(op, &a, DF_WS, 1, &p) == -1, "a 5000-pixel M tile exceeds INNER");
    p.band_cols = 2500;
    CHECK(tile_estimate(op, &a, DF_WS, 1, &p) == 0, "a 2500-pixel M tile fits");
    Diag d;
    diag_init(&d);
    CHECK(!tile_plan_all(&mp, 1, &d), "%s", diag_first(&d));
    CHECK(op->plan.band_cols <= fmax_of(FLD_INNER), "chosen band of %u columns", op->plan.band_cols);
  }
  machprog_free(&mp), graph_free(g);
  // A column of 5000 rows: OUTER counts 4095.
  conv_net(json, sizeof json, 1, 5000, 1, 4, 1, 1, 0, 4, "", "", "y");
  if ((op = one_op(json, &a, DF_WS, &g, &mp))) {
    TilePlan p = {.band_rows = 5000, .band_cols = 1, .kc = 1, .g = 1};
    CHECK(tile_estimate(op, &a, DF_WS, 1, &p) == -1, "a 5000-row M tile exceeds OUTER");
    p.band_rows = 2500;
    CHECK(tile_estimate(op, &a, DF_WS, 1, &p) == 0, "a 2500-row M tile fits");
  }
  machprog_free(&mp), graph_free(g);
  // A pool's input width is IN_W (12 bits) whatever the band: no plan fits, and the error says so.
  const char *pool = "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 2, 5000, 4], \"scale\": 0.1}], \"layers\": ["
                     "{\"name\": \"p\", \"op\": \"maxpool\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 2}], "
                     "\"outputs\": [\"y\"]}";
  if ((op = one_op(pool, &a, DF_WS, &g, &mp))) {
    Diag d;
    diag_init(&d);
    CHECK(tile_plan_all(&mp, 1, &d) == -1 && strstr(diag_first(&d), "sacc: op 0 (p): error: no tiling fits arch"),
          "a pool over 5000 columns: %s", diag_first(&d));
  }
  machprog_free(&mp), graph_free(g);
  check_case("tile_field_limits");
}

// The chosen plan against the obvious alternatives (one M tile, one-row bands, one chunk of K,
// chunks of one K tile, one N group, N groups of one tile): none is cheaper by more than the
// chooser's 0.5% tie margin. And physical bounds: no plan beats the bus or the array's peak.
static void check_choice(const char *what, const MachOp *op, const Arch *a, Dataflow df, int db) {
  int64_t nN = cdiv(op->N, a->cols);
  int64_t oh = op->pool != POOL_NONE ? op->poh : op->oh, ow = op->pool != POOL_NONE ? op->pow : op->ow;
  uint32_t nK = op->kind == MOP_GEMM ? op->n_ktiles : 1;
  int64_t bands[2] = {oh, 1};
  uint32_t kcs[2] = {nK, 1};
  int64_t gs[2] = {nN < 64 ? nN : 64, 1};
  int tried = 0;
  for (int b = 0; b < 2; b++)
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 2; j++) {
        TilePlan p = {.band_rows = (uint32_t)bands[b], .band_cols = (uint32_t)ow, .kc = kcs[k], .g = (uint32_t)gs[j]};
        if (op->kind != MOP_GEMM) p.kc = p.g = 1;
        if (tile_estimate(op, a, df, db, &p)) continue;
        tried++;
        CHECK(op->plan.est_cycles <= p.est_cycles * 1.005 + 1e-9,
              "%s: chosen plan (%.0f cycles) beaten by band %u kc %u g %u (%.0f cycles)", what, op->plan.est_cycles,
              p.band_rows, p.kc, p.g, p.est_cycles);
        CHECK(p.est_cycles >= p.est_read_bytes / a->bus_bytes && p.est_cycles >= p.est_write_bytes / a->bus_bytes,
              "%s: %.0f cycles for %.0f B read, %.0f B written on a %u-byte bus", what, p.est_cycles,
              p.est_read_bytes, p.est_write_bytes, a->bus_bytes);
        CHECK(p.est_cycles >= (double)op->macs / ((double)a->rows * a->cols), "%s: %.0f cycles for %llu MACs", what,
              p.est_cycles, (unsigned long long)op->macs);
      }
  (void)tried;
}

static void test_choice(void) {
  char json[4096];
  for (int ai = 0; ai < 3; ai++) {
    Arch a;
    if (test_arch(ai, &a)) continue;
    for (int df = DF_WS; df <= DF_IS; df++)
      for (int db = 0; db < 2; db++) {
        conv_net(json, sizeof json, 1, 14, 14, 24, 3, 1, 1, 40, "", "", "y");
        Graph *g;
        MachProg mp;
        Diag d;
        diag_init(&d);
        if (lowered(json, &a, (Dataflow)df, &g, &mp, NULL, 0) || tile_plan_all(&mp, db, &d)) {
          CHECK(0, "conv on %s: %s", a.name, diag_first(&d));
        } else {
          char what[128];
          snprintf(what, sizeof what, "conv 3x3 14x14x24 -> 40 on %s, %s, %s", a.name, df_names[df],
                   db ? "double-buffered" : "single");
          check_choice(what, &mp.ops[0], &a, (Dataflow)df, db);
        }
        machprog_free(&mp), graph_free(g);
      }
  }
  check_case("tile_chooses_the_cheapest");
}

// Where the answer is clear, the model says so: the same plan costs less with two slots than
// with one (loads and stores overlap the computes), and splitting K into chunks with N groups of
// one tile reads the im2col rows once per N group instead of once.
static void test_clear_comparisons(void) {
  Arch a;
  arch_default(&a);
  char json[4096];
  Graph *g;
  MachProg mp;
  conv_net(json, sizeof json, 1, 28, 28, 32, 3, 1, 1, 64, "", "", "y");
  MachOp *op = one_op(json, &a, DF_WS, &g, &mp);
  if (op) {
    TilePlan two = {.band_rows = 4, .band_cols = 28, .kc = op->n_ktiles, .g = 2}, one = two;
    CHECK(!tile_estimate(op, &a, DF_WS, 1, &two) && !tile_estimate(op, &a, DF_WS, 0, &one), "plans fit");
    CHECK(two.slots == 2 && one.slots == 1, "slots %u, %u", two.slots, one.slots);
    CHECK(two.est_cycles < one.est_cycles, "double-buffered %.0f cycles, single %.0f", two.est_cycles, one.est_cycles);
    CHECK(op->n_ktiles > 1 && cdiv(op->N, a.cols) > 1, "K tiles %u, N %lld", op->n_ktiles, (long long)op->N);
    TilePlan whole = {.band_rows = 4, .band_cols = 28, .kc = op->n_ktiles, .g = 1}, split = whole;
    split.kc = 1;
    CHECK(!tile_estimate(op, &a, DF_WS, 1, &whole) && !tile_estimate(op, &a, DF_WS, 1, &split), "plans fit");
    CHECK(split.est_read_bytes > whole.est_read_bytes, "K in chunks reads %.0f B, K whole %.0f B",
          split.est_read_bytes, whole.est_read_bytes);
  }
  machprog_free(&mp), graph_free(g);
  check_case("tile_clear_comparisons");
}

// Slots: double buffering halves every buffer; an op whose smallest M tile needs more than half
// the accumulators runs single-buffered, and one that needs more than all of them is refused.
static void test_slots(void) {
  Arch a;
  arch_default(&a);
  Slots s;
  tile_slots(&a, 1, &s);
  CHECK(s.slots == 2 && s.spad == 4096 && s.wbuf == 1024 && s.acc == 1024 && s.param == 32, "default, two slots");
  tile_slots(&a, 0, &s);
  CHECK(s.slots == 1 && s.spad == 8192 && s.wbuf == 2048 && s.acc == 2048 && s.param == 64, "default, one slot");
  CHECK(!test_arch(1, &a), "tiny");
  char json[1024];
  Graph *g;
  MachProg mp;
  Diag d;
  // A 2x2 max pool over 24 columns: one pooled row needs 2 x 24 = 48 accumulator rows; tiny has 64.
  const char *fmt = "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 4, %d, 4], \"scale\": 0.1}], \"layers\": ["
                    "{\"name\": \"p\", \"op\": \"maxpool\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 2}], "
                    "\"outputs\": [\"y\"]}";
  snprintf(json, sizeof json, fmt, 24);
  diag_init(&d);
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    CHECK(!tile_plan_all(&mp, 1, &d), "%s", diag_first(&d));
    CHECK(mp.ops[0].plan.slots == 1, "48 accumulator rows in slots of 32: %u slots", mp.ops[0].plan.slots);
    check_plan("maxpool over 24 columns on tiny", &mp.ops[0], &a, DF_WS);
  }
  machprog_free(&mp), graph_free(g);
  snprintf(json, sizeof json, fmt, 16);   // 32 rows: two slots fit
  diag_init(&d);
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    CHECK(!tile_plan_all(&mp, 1, &d), "%s", diag_first(&d));
    CHECK(mp.ops[0].plan.slots == 2, "32 accumulator rows in slots of 32: %u slots", mp.ops[0].plan.slots);
  }
  machprog_free(&mp), graph_free(g);
  snprintf(json, sizeof json, fmt, 40);   // 80 rows: nothing fits
  diag_init(&d);
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0))
    CHECK(tile_plan_all(&mp, 1, &d) == -1 &&
              !strcmp(diag_first(&d), "sacc: op 0 (p): error: no tiling fits arch \"tiny\" (array 4x4, spad 32, "
                                      "wbuf 16, acc 32, param 4 rows per buffer slot)"),
          "80 accumulator rows on tiny: %s", diag_first(&d));
  machprog_free(&mp), graph_free(g);
  check_case("tile_buffer_slots");
}

// ResNet's conv1 (7x7/2, 3 channels, 64 out) with its 3x3/2 max pool on the default arch, and a
// batch of two: the plan is a ring in WS and OS (not IS), its windows are sound, and it computes
// far fewer conv rows than the bands' 167 of 112 per image (the row between two bands twice).
static void test_ring(void) {
  static const char *const pool = ", {\"name\": \"p\", \"op\": \"maxpool\", \"inputs\": [\"y\"], "
                                   "\"output\": \"z\", \"kernel\": 3, \"stride\": 2, \"padding\": 1}";
  char json[4096];
  Arch a;
  CHECK(test_arch(0, &a) == 0, "default arch");
  for (int n = 1; n <= 2; n++)
    for (int df = DF_WS; df <= DF_IS; df++) {
      conv_net(json, sizeof json, n, 224, 224, 3, 7, 2, 3, 64, "", pool, "z");
      Graph *g;
      MachProg mp;
      Diag d;
      diag_init(&d);
      char what[128];
      snprintf(what, sizeof what, "conv1+pool batch %d %s", n, df_names[df]);
      if (lowered(json, &a, (Dataflow)df, &g, &mp, NULL, 0) || tile_plan_all(&mp, 1, &d)) {
        CHECK(0, "%s: %s", what, diag_first(&d));
      } else {
        const MachOp *op = &mp.ops[0];
        CHECK(op->pool != POOL_NONE, "%s: pool not fused", what);
        CHECK(op->plan.ring == (df != DF_IS), "%s: ring %u", what, op->plan.ring);
        check_plan(what, op, &a, (Dataflow)df);
        if (op->plan.ring) {
          uint64_t rows = check_ring(what, op, &a) / 4 / (uint64_t)n;   // per N tile and image
          CHECK(rows >= 112 && rows <= 125, "%s: %llu conv rows computed per N tile for 112", what,
                (unsigned long long)rows);
        }
      }
      machprog_free(&mp), graph_free(g);
    }
  check_case("tile_ring_keeps_its_halos");
}

// Shared taps (tile.h tile_tap_places) on depthwise 3x3 layers (stride 1 and 2, dilation 1 and
// 2) of 16 channels per GEMM: only WS shares; every K tile's rows lie in a gather that starts at
// an image row of the same columns, a whole number of strides above the tile's own first row
// (checked here from the K tile offsets, independently of tile.c); gathers do not overlap; a
// chunk never uses more rows than one gather per tile; a stride-1 chunk of all 9 taps loads 3
// gathers of rows + 2 (dilation 1) image rows, a stride-2 one 6. A 32-channel conv shares nothing.
static void check_taps(const char *what, const MachOp *op, const Arch *a, uint32_t k0, uint32_t nk, uint32_t rows,
                       uint32_t cols, int shared) {
  TapPlace pl[64];
  if (nk > 64) return;
  uint32_t used = tile_tap_places(op, a, DF_WS, k0, nk, rows, cols, pl), tm = rows * cols;
  CHECK(used <= nk * tm, "%s: %u SPAD rows for %u tiles of %u", what, used, nk, tm);
  int64_t rs = op->in[0].row_stride;
  for (uint32_t i = 0; i < nk; i++) {
    const KTile *kt = &op->ktiles[k0 + i];
    if (!shared) {
      CHECK(pl[i].lead == rows && pl[i].src == i * tm && pl[i].dst == i * tm && pl[i].off == kt->off,
            "%s: tile %u not in place", what, i);
      continue;
    }
    int found = 0;
    for (uint32_t j = 0; j < nk; j++) {
      if (!pl[j].lead || pl[j].off % rs != kt->off % rs || kt->off < pl[j].off) continue;
      int64_t down = (kt->off - pl[j].off) / rs;   // image rows below the gather's first
      if (down % op->sh || pl[i].src != pl[j].dst + (uint32_t)(down / op->sh) * cols) continue;
      found = 1;
      CHECK(down / op->sh + rows <= pl[j].lead, "%s: tile %u runs past its gather", what, i);
    }
    CHECK(found, "%s: tile %u (off %lld) reads no gather of its rows", what, i, (long long)kt->off);
    for (uint32_t j = 0; j < nk; j++)   // gathers are disjoint
      if (j != i && pl[i].lead && pl[j].lead)
        CHECK(pl[i].dst + pl[i].lead * cols <= pl[j].dst || pl[j].dst + pl[j].lead * cols <= pl[i].dst,
              "%s: gathers %u and %u overlap", what, i, j);
  }
}

static void test_shared_taps(void) {
  Arch a;
  CHECK(test_arch(0, &a) == 0, "default arch");
  char json[4096];
  for (int stride = 1; stride <= 2; stride++)
    for (int dil = 1; dil <= 2; dil++) {
      char extra[96];
      snprintf(extra, sizeof extra, ", \"groups\": 32, \"dilation\": %d", dil);
      conv_net(json, sizeof json, 1, 14, 14, 32, 3, stride, dil, 32, extra, "", "y");
      Graph *g;
      MachProg mp;
      if (lowered(json, &a, DF_WS, &g, &mp, NULL, 0) || mp.n_ops != 2) {
        CHECK(0, "depthwise stride %d dilation %d: lowering failed", stride, dil);
        continue;
      }
      const MachOp *op = &mp.ops[0];
      char what[96];
      snprintf(what, sizeof what, "depthwise 3x3 stride %d dilation %d", stride, dil);
      CHECK(tile_taps_share(op, &a, DF_WS) && !tile_taps_share(op, &a, DF_OS) && !tile_taps_share(op, &a, DF_IS),
            "%s: shares in WS only", what);
      CHECK(op->n_ktiles == 9, "%s: %u K tiles", what, op->n_ktiles);
      uint32_t ow = (uint32_t)op->ow;
      for (uint32_t rows = 1; rows <= 7; rows += 3)
        for (uint32_t kc = 1; kc <= 9; kc++)
          for (uint32_t k0 = 0; k0 < 9; k0 += kc) {
            uint32_t nk = 9 - k0 < kc ? 9 - k0 : kc;
            check_taps(what, op, &a, k0, nk, rows, ow, 1);
          }
      TapPlace pl[9];
      uint32_t used = tile_tap_places(op, &a, DF_WS, 0, 9, 4, ow, pl), n = 0;
      for (int i = 0; i < 9; i++) n += pl[i].lead > 0;
      // (per kx: stride 1, one gather of the 4 rows + 2 dil; stride 2, dilation 1: ky 0 and 2 in
      // one gather of 4 + 1 rows, ky 1 in one of 4; stride 2, dilation 2: ky * 2 all even, one
      // gather of 4 + 2)
      uint32_t want_n = stride == 2 && dil == 1 ? 6 : 3;
      uint32_t want = stride == 1 ? 3 * (4 + 2 * (uint32_t)dil) * ow : dil == 1 ? (3 * 5 + 3 * 4) * ow : 3 * 6 * ow;
      CHECK(used == want && n == want_n, "%s: %u gathers of %u rows (want %u of %u)", what, n, used, want_n, want);
      machprog_free(&mp), graph_free(g);
    }
  conv_net(json, sizeof json, 1, 14, 14, 16, 3, 1, 1, 32, "", "", "y");   // 32 channels: 2 N tiles
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0) && mp.n_ops == 1) {
    const MachOp *op = &mp.ops[0];
    CHECK(!tile_taps_share(op, &a, DF_WS), "a 32-channel conv shares no taps");
    check_taps("conv 3x3 32 channels", op, &a, 0, op->n_ktiles < 9 ? op->n_ktiles : 9, 7, (uint32_t)op->ow, 0);
    machprog_free(&mp), graph_free(g);
  } else {
    CHECK(0, "conv 3x3 32 channels: lowering failed");
  }
  check_case("tile_shared_taps");
}

int main(void) {
  test_shipped();
  test_odd_shapes();
  test_field_limits();
  test_choice();
  test_clear_comparisons();
  test_slots();
  test_ring();
  test_shared_taps();
  return check_status();
}
