// lower_test.c: fusion, layout and lowering (compiler/lower.c) on small layers whose results are
// worked out by hand in the comments: the im2col gather of a convolution (K tiles: offsets,
// segments, strides, weight rows; a 3-channel first convolution packed into the fewest tiles), the output-stationary padding of K tiles, the zero halo of a
// padded convolution's input, the block-diagonal weights of a grouped convolution, which layers
// fuse (graph_ops.def's GOPF_ACT / GOPF_POOL into GOPF_ABSORBS_*), and aliasing by flatten.
#include "lowered.h"

typedef struct {
  int64_t off;
  uint32_t nseg, seglen, seg_stride, kbase, rows;
} WantTile;

static void check_ktiles(const char *what, const MachOp *op, const WantTile *want, uint32_t n) {
  CHECK(op->n_ktiles == n, "%s: %u K tiles, want %u", what, op->n_ktiles, n);
  for (uint32_t i = 0; i < n && i < op->n_ktiles; i++) {
    const KTile *t = &op->ktiles[i];
    const WantTile *w = &want[i];
    CHECK(t->off == w->off && t->nseg == w->nseg && t->seglen == w->seglen && t->seg_stride == w->seg_stride &&
              t->kbase == w->kbase && t->rows == w->rows,
          "%s: K tile %u is off %lld, %u x %u B stride %u, rows %u.. (%u); want off %lld, %u x %u B stride %u, rows "
          "%u.. (%u)",
          what, i, (long long)t->off, t->nseg, t->seglen, t->seg_stride, t->kbase, t->rows, (long long)w->off, w->nseg,
          w->seglen, w->seg_stride, w->kbase, w->rows);
  }
}

// conv 3x3, 2 channels, 5x5, padding 1, on the default arch (16 rows, 16-byte bus). The input
// gets a halo of 1 all round: rows of 7 pixels, 14 bytes. A kernel row (3 taps x 2 channels) is 6
// contiguous bytes, so a window is 3 runs of 6 bytes, 14 bytes apart. make_ktiles weighs, per
// piece length len, tiles (3 / g pieces per N tile) against bus beats (3 * pieces *
// (len + 15) / 16): len 6 takes g = 16 / 6 = 2 runs per tile and costs max(2, 3.94), less than
// len 3 (max(2, 6.75)) or len 5 (max(2, 7.5)). So: tile 0 = kernel rows 0 and 1 (2 segments of 6
// bytes, 14 apart, weight rows 0..11), tile 1 = kernel row 2 (28 bytes down, rows 12..17).
static void test_gather_contiguous(void) {
  Arch a;
  arch_default(&a);
  char json[2048];
  conv_net(json, sizeof json, 1, 5, 5, 2, 3, 1, 1, 3, "", "", "y");
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    CHECK(mp.n_ops == 1 && mp.ops[0].kind == MOP_GEMM, "one GEMM, not %d ops", mp.n_ops);
    const MachOp *op = &mp.ops[0];
    const DTensor *x = &mp.tensors[op->in[0].t];
    CHECK(!strcmp(x->name, "x") && x->halo_t == 1 && x->halo_b == 1 && x->halo_l == 1 && x->halo_r == 1,
          "input %s halo %d,%d,%d,%d", x->name, x->halo_t, x->halo_b, x->halo_l, x->halo_r);
    CHECK(op->in[0].row_stride == 14 && op->in[0].pix_stride == 2 && op->in[0].img_stride == 98,
          "strides %lld %lld %lld", (long long)op->in[0].row_stride, (long long)op->in[0].pix_stride,
          (long long)op->in[0].img_stride);
    CHECK(op->K == 18 && op->N == 3 && op->oh == 5 && op->ow == 5 && op->pad_t == 1 && op->pad_l == 1,
          "K %lld N %lld map %lldx%lld pad %d,%d", (long long)op->K, (long long)op->N, (long long)op->oh,
          (long long)op->ow, op->pad_t, op->pad_l);
    static const WantTile want[] = {{0, 2, 6, 14, 0, 12}, {28, 1, 6, 0, 12, 6}};
    check_ktiles("conv 3x3 5x5x2 pad 1", op, want, 2);
    // Rows in (ky, kx, ci) order already: the weights are the layer's, unpermuted.
    const Layer *l = &g->layers[0];
    CHECK(!memcmp(op->wmat, l->w, (size_t)(op->K * op->N)), "weights permuted");
    CHECK(op->macs == 5 * 5 * 18 * 3, "%llu MACs", (unsigned long long)op->macs);
  }
  machprog_free(&mp), graph_free(g);
  check_case("lower_gather_contiguous");
}

// conv 3x3, dilation 2, 4 channels, 7x7, no padding: the taps of a kernel row are 2 pixels (8
// bytes) apart, so each kernel row is a line of 3 runs of 4 bytes (rows of 7 x 4 = 28 bytes).
// len 4 (the whole channel run) with g = 3 segments costs max(3, 10.7), less than len 2 or 3;
// one K tile per kernel row: 3 segments of 4 bytes, 8 apart, at 0, 2 * 28 and 4 * 28 bytes,
// 12 weight rows each. Output-stationary stores every K tile as 16 rows (COMPUTE_OS reads K in
// 16-row blocks): weight rows 0, 16, 32, the 4 rows after each tile zero.
static void test_gather_dilated(void) {
  Arch a;
  arch_default(&a);
  char json[2048];
  conv_net(json, sizeof json, 1, 7, 7, 4, 3, 1, 0, 5, ", \"dilation\": 2", "", "y");
  for (int df = DF_WS; df <= DF_OS; df++) {
    Graph *g;
    MachProg mp;
    if (!lowered(json, &a, (Dataflow)df, &g, &mp, NULL, 0)) {
      const MachOp *op = &mp.ops[0];
      CHECK(op->oh == 3 && op->ow == 3 && op->in[0].row_stride == 28, "map %lldx%lld, row %lld B", (long long)op->oh,
            (long long)op->ow, (long long)op->in[0].row_stride);
      int os = df == DF_OS;
      WantTile want[] = {{0, 3, 4, 8, 0, 12}, {56, 3, 4, 8, os ? 16 : 12, 12}, {112, 3, 4, 8, os ? 32 : 24, 12}};
      check_ktiles(os ? "dilated conv, os" : "dilated conv, ws", op, want, 3);
      const Layer *l = &g->layers[0];
      CHECK(op->K == (os ? 48 : 36), "%lld weight rows stored", (long long)op->K);
      for (int t = 0; t < 3; t++)
        for (int r = 0; r < (os ? 16 : 12); r++)
          for (int n = 0; n < 5; n++) {
            int8_t got = op->wmat[((os ? 16 : 12) * t + r) * 5 + n];
            int8_t w = r < 12 ? l->w[(12 * t + r) * 5 + n] : 0;
            CHECK(got == w, "%s: weight row %d of tile %d, column %d: %d, want %d", os ? "os" : "ws", r, t, n, got, w);
          }
    }
    machprog_free(&mp), graph_free(g);
  }
  check_case("lower_gather_dilated");
}

// The 3-channel first convolution (ResNet's conv1: 7x7, stride 2, padding 3) on a 32x32 image and
// the default arch (16 rows, 16-byte bus). The input gets a halo of 3 on the left and 2 on the
// right (the last window ends there): rows of 37 pixels, 111 bytes. A kernel row is a run of 21
// contiguous bytes, 7 runs 111 bytes apart. make_ktiles cuts
// each run into a 16-byte body piece (one tile each: 7 tiles of 16 rows) and a 5-byte tail, and
// gathers the tails of 3 kernel rows per tile (3 segments of 5 bytes, 111 apart: 15 rows): tails of
// rows 0-2, 3-5 and 6 alone. 10 tiles for 147 weight rows, the least there can be (147 / 16 = 9.2),
// so 147 of 160 array rows hold weights (91.9%); one segment length per LOAD cut it into 7 x (16 +
// 5) = 14 tiles before (65.6%). The cost: 64 output channels are 4 N tiles, so 10 tiles cost 40
// array cycles per output pixel against 14 bus beats of gather (7 x 1 + 3 x 2 + 1). Weight row
// kbase + s * 5 + b of a tail tile is the layer's row (r + s) * 21 + 16 + b. Output-stationary
// stores every tile as 16 rows: 160 rows, the tails' last rows zero.
static void test_gather_first_conv(void) {
  Arch a;
  arch_default(&a);
  char json[2048];
  conv_net(json, sizeof json, 1, 32, 32, 3, 7, 2, 3, 64, "", "", "y");
  for (int df = DF_WS; df <= DF_OS; df++) {
    Graph *g;
    MachProg mp;
    int os = df == DF_OS;
    if (!lowered(json, &a, (Dataflow)df, &g, &mp, NULL, 0)) {
      const MachOp *op = &mp.ops[0];
      CHECK(op->in[0].row_stride == 111 && op->in[0].pix_stride == 3 && op->oh == 16 && op->ow == 16,
            "row %lld B, pixel %lld B, map %lldx%lld", (long long)op->in[0].row_stride,
            (long long)op->in[0].pix_stride, (long long)op->oh, (long long)op->ow);
      WantTile want[10];
      uint32_t orig[10];
      for (uint32_t ky = 0; ky < 7; ky++)
        want[ky] = (WantTile){ky * 111, 1, 16, 0, os ? 16 * ky : 16 * ky, 16}, orig[ky] = 21 * ky;
      want[7] = (WantTile){16, 3, 5, 111, 112, 15}, orig[7] = 16;
      want[8] = (WantTile){3 * 111 + 16, 3, 5, 111, os ? 128 : 127, 15}, orig[8] = 3 * 21 + 16;
      want[9] = (WantTile){6 * 111 + 16, 1, 5, 0, os ? 144 : 142, 5}, orig[9] = 6 * 21 + 16;
      check_ktiles(os ? "conv1 7x7/2 on 3 channels, os" : "conv1 7x7/2 on 3 channels, ws", op, want, 10);
      uint32_t used = 0;
      for (uint32_t i = 0; i < op->n_ktiles; i++) used += op->ktiles[i].rows;
      CHECK(used == 147 && op->n_ktiles * a.rows == 160, "%u weight rows in %u tiles of %u", used, op->n_ktiles,
            a.rows);
      CHECK(op->K == (os ? 160 : 147), "%lld weight rows stored", (long long)op->K);
      // Every weight row where its tile says, the layer's row orig + s * 21 + b; the rest zero.
      const Layer *l = &g->layers[0];
      for (uint32_t i = 0; i < 10 && i < op->n_ktiles; i++) {
        const KTile *t = &op->ktiles[i];
        CHECK(t->orig == orig[i] && t->orig_stride == 21, "tile %u: orig %u stride %u, want %u, 21", i, t->orig,
              t->orig_stride, orig[i]);
        uint32_t span = os ? 16 : t->rows;
        for (uint32_t r = 0; r < span; r++)
          for (int n = 0; n < 64; n++) {
            int8_t got = op->wmat[(int64_t)(t->kbase + r) * 64 + n];
            int8_t w = r < t->rows ? l->w[(orig[i] + r / 5 * 21 * (t->seglen == 5) + r % t->seglen) * 64 + n] : 0;
            if (got != w) {
              CHECK(0, "%s: tile %u weight row %u column %d: %d, want %d", os ? "os" : "ws", i, r, n, got, w);
              r = span;
              break;
            }
          }
      }
    }
    machprog_free(&mp), graph_free(g);
  }
  // AlexNet's conv1 (11x11, stride 4, 3 channels): runs of 33 bytes, two 16-byte body pieces each
  // (22 tiles) and the 1-byte tails of all 11 kernel rows in one tile (11 segments of 1 byte):
  // 23 tiles for 363 rows, the least (363 / 16 = 22.7), not 33.
  conv_net(json, sizeof json, 1, 35, 35, 3, 11, 4, 2, 64, "", "", "y");
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    const MachOp *op = &mp.ops[0];
    const KTile *last = &op->ktiles[op->n_ktiles - 1];
    CHECK(op->n_ktiles == 23 && op->ktiles[0].seglen == 16 && op->ktiles[21].seglen == 16 && last->nseg == 11 &&
              last->seglen == 1 && last->off == 32 && last->seg_stride == op->in[0].row_stride && last->kbase == 352,
          "11x11 on 3 channels: %u tiles, the last %u x %u B at %lld, stride %u, rows %u..", op->n_ktiles, last->nseg,
          last->seglen, (long long)last->off, last->seg_stride, last->kbase);
  }
  machprog_free(&mp), graph_free(g);
  check_case("lower_gather_first_conv");
}

// conv 1x1 with 2 groups of 2 channels on a 16x16 array: both groups go into one GEMM
// (q = min(16 / 2, 16 / 2) = 8 >= 2) whose weight matrix is block-diagonal: input channel ci
// feeds output channels of its own group only.
static void test_grouped(void) {
  Arch a;
  arch_default(&a);
  char json[2048];
  conv_net(json, sizeof json, 1, 3, 3, 4, 1, 1, 0, 4, ", \"groups\": 2", "", "y");
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    CHECK(mp.n_ops == 1, "%d GEMMs", mp.n_ops);
    const MachOp *op = &mp.ops[0];
    const Layer *l = &g->layers[0];   // weights [1][1][cin/groups = 2][cout = 4]
    CHECK(op->K == 4 && op->N == 4, "K %lld N %lld", (long long)op->K, (long long)op->N);
    for (int ci = 0; ci < 4; ci++)
      for (int j = 0; j < 4; j++) {
        int8_t want = ci / 2 == j / 2 ? l->w[(ci % 2) * 4 + j] : 0;
        CHECK(op->wmat[ci * 4 + j] == want, "weight [%d][%d] = %d, want %d", ci, j, op->wmat[ci * 4 + j], want);
      }
  }
  machprog_free(&mp), graph_free(g);
  check_case("lower_grouped_block_diagonal");
}

// Lowers json and returns the op count (-1 on error); the first op in *first.
static int ops_of(const char *json, MachOp *first, char *msg, size_t len) {
  Arch a;
  arch_default(&a);
  Graph *g;
  MachProg mp;
  int n = lowered(json, &a, DF_WS, &g, &mp, msg, len) ? -1 : mp.n_ops;
  if (n > 0) {
    *first = mp.ops[0];
    first->wmat = NULL, first->bias = first->mult = first->shift = NULL, first->ktiles = NULL;   // freed below
  }
  machprog_free(&mp), graph_free(g);
  return n;
}

#define RELU(scale) \
  ", {\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"y\"], \"output\": \"r\"" scale "}"
#define POOL(op, k) \
  ", {\"name\": \"p\", \"op\": \"" op "\", \"inputs\": [\"r\"], \"output\": \"p\", \"kernel\": " k ", \"scale\": 0.2}"

static void test_fusion(void) {
  char json[4096], msg[512];
  MachOp op;
  // relu keeps the conv's scale (identity rescale): it folds; so does a 2x2 max pool after it.
  conv_net(json, sizeof json, 1, 8, 8, 3, 3, 1, 1, 4, "", RELU("") POOL("maxpool", "2"), "p");
  CHECK(ops_of(json, &op, NULL, 0) == 1 && op.act == ACT_RELU && op.pool == POOL_MAX && op.pkh == 2 &&
            !strcmp(op.what, "c+r+p"),
        "conv+relu+maxpool: %s act %u pool %u", op.what, op.act, op.pool);
  // An average pool does not fold (the reference averages int8 values, the STORE accumulators).
  conv_net(json, sizeof json, 1, 8, 8, 3, 3, 1, 1, 4, "", RELU("") POOL("avgpool", "2"), "p");
  CHECK(ops_of(json, &op, NULL, 0) == 2 && op.act == ACT_RELU && op.pool == POOL_NONE, "conv+relu, then avgpool");
  // A relu with its own scale rescales: it is an op of its own.
  conv_net(json, sizeof json, 1, 8, 8, 3, 3, 1, 1, 4, "", RELU(", \"scale\": 0.1"), "r");
  CHECK(ops_of(json, &op, NULL, 0) == 2 && op.act == ACT_NONE, "relu with its own scale");
  // A relu whose input is also a network output cannot fold (the output needs the raw values).
  snprintf(json, sizeof json,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 4, 4, 8], \"scale\": 0.1}], \"layers\": ["
           "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, \"kernel\": 1, "
           "\"cout\": 8, \"weights\": {\"seed\": 1}, \"weight_scale\": 0.01}" RELU("") "], \"outputs\": [\"y\", \"r\"]}");
  CHECK(ops_of(json, &op, NULL, 0) == 2, "relu of a network output");
  // add absorbs a relu6: a clamp to [0, round(6 / 0.2)] = [0, 30].
  snprintf(json, sizeof json,
           "{\"inputs\": [{\"name\": \"a\", \"shape\": [1, 2, 2, 4], \"scale\": 0.1}, {\"name\": \"b\", \"shape\": [1, "
           "2, 2, 4], \"scale\": 0.1}], \"layers\": [{\"name\": \"s\", \"op\": \"add\", \"inputs\": [\"a\", \"b\"], "
           "\"output\": \"y\", \"scale\": 0.2}, {\"name\": \"r\", \"op\": \"relu6\", \"inputs\": [\"y\"], \"output\": "
           "\"r\"}], \"outputs\": [\"r\"]}");
  CHECK(ops_of(json, &op, NULL, 0) == 1 && op.kind == MOP_ELT && op.act == ACT_CLAMP && op.lo == 0 && op.hi == 30,
        "add+relu6: act %u [%d, %d]", op.act, op.lo, op.hi);
  // A max pool wider than the pooling fields (4 bits) neither folds nor lowers.
  conv_net(json, sizeof json, 1, 16, 16, 3, 1, 1, 0, 4, "", RELU("") POOL("maxpool", "16"), "p");
  CHECK(ops_of(json, &op, msg, sizeof msg) == -1 &&
            !strcmp(msg, "net.json: layers[2] \"p\": error: pooling window 16x16 (stride 16x16, padding 0,0) exceeds "
                         "the machine's pooling limits (15)"),
        "maxpool 16x16: %s", msg);
  check_case("lower_fusion");
}

// flatten aliases its input's bytes; an fc reads them dense, so the conv's output has no halo
// even when a padded conv reads it too (that one reads a padded twin, filled by a copy op).
static void test_alias_and_twin(void) {
  Arch a;
  arch_default(&a);
  char json[4096];
  conv_net(json, sizeof json, 1, 4, 4, 2, 1, 1, 0, 2, "",
           ", {\"name\": \"f\", \"op\": \"flatten\", \"inputs\": [\"y\"], \"output\": \"f\"}"
           ", {\"name\": \"k\", \"op\": \"conv2d\", \"inputs\": [\"y\"], \"output\": \"k\", \"scale\": 0.2, \"kernel\": 3, "
           "\"padding\": 1, \"cout\": 2, \"weights\": {\"seed\": 3}, \"weight_scale\": 0.01}",
           "f\", \"k");
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    int y = -1, f = -1, twin = -1;
    for (int i = 0; i < mp.n_tensors; i++) {
      if (!strcmp(mp.tensors[i].name, "y")) y = i;
      if (!strcmp(mp.tensors[i].name, "f")) f = i;
      if (!strcmp(mp.tensors[i].name, "y.pad")) twin = i;
    }
    CHECK(y >= 0 && f >= 0 && twin >= 0, "tensors y %d, f %d, y.pad %d", y, f, twin);
    if (y >= 0 && f >= 0 && twin >= 0) {
      CHECK(mp.tensors[f].alias == y && dt_owner(&mp, f) == y, "flatten aliases y");
      const DTensor *ty = &mp.tensors[y], *tp = &mp.tensors[twin];
      CHECK(!ty->halo_t && !ty->halo_b && !ty->halo_l && !ty->halo_r, "y is dense");
      CHECK(tp->halo_t == 1 && tp->halo_b == 1 && tp->halo_l == 1 && tp->halo_r == 1, "y.pad has a halo of 1");
      // ops: conv c, the copy into y.pad, conv k reading y.pad.
      CHECK(mp.n_ops == 3 && mp.ops[1].kind == MOP_ELT && mp.ops[1].out.t == twin && mp.ops[2].in[0].t == twin,
            "%d ops", mp.n_ops);
    }
  }
  machprog_free(&mp), graph_free(g);
  check_case("lower_alias_and_padded_twin");
}

int main(void) {
  test_gather_contiguous();
  test_gather_dilated();
  test_gather_first_conv();
  test_grouped();
  test_fusion();
  test_alias_and_twin();
  return check_status();
}
