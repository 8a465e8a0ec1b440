// lower_mm_test.c: matmul of two activations and transpose (compiler/lower_mm.c), on a small
// attention block worked out by hand: x [1, 1, 6, 8] -> q, k, v (1x1 convolutions, 8 channels)
// -> reshape [1, 6, 2, 4] -> transpose [0, 2, 1, 3] (heads: [1, 2, 6, 4]) -> K^T (transpose
// [0, 1, 3, 2]: [1, 2, 4, 6]) -> s = Q K^T [1, 2, 6, 6] -> relu -> o = s V [1, 2, 6, 4] ->
// transpose [0, 2, 1, 3] back. Checked: one GEMM per head whose operands are read (and result
// written) in place with the strides of the folded transposes (no transpose op at all: the heads
// are 4-byte pieces of the 8-byte token rows, K^T is read as rows of B^T), the relu fused into the
// matmul, an unfoldable K^T (a network output) as a gather copy reading the folded heads, and the
// K tiles of a long K (R-row pieces; input-stationary with B's rows at most NSEG's range on a
// 256-row array).
#include "lowered.h"

#define LAYER(name, op, in, more) "{\"name\": \"" name "\", \"op\": \"" op "\", \"inputs\": [" in "], \"output\": \"" name "\"" more "}"
#define PROJ(name) LAYER(name, "conv2d", "\"x\"", ", \"kernel\": 1, \"cout\": 8, \"weights\": {\"seed\": 1}, \"weight_scale\": 0.01, \"scale\": 0.1")
#define HEADS(t) LAYER(t "s", "reshape", "\"" t "\"", ", \"shape\": [1, 6, 2, 4]"), \
                 LAYER(t "h", "transpose", "\"" t "s\"", ", \"perm\": [0, 2, 1, 3]")

static const char *attention(int kt_is_output) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 1, 6, 8], \"scale\": 0.1}], \"layers\": [%s, %s, %s, %s, %s, "
           "%s, %s, %s, %s, %s, %s, %s, %s, %s]," " \"outputs\": [\"ob\"%s]}",
           PROJ("q"), PROJ("k"), PROJ("v"), HEADS("q"), HEADS("k"), HEADS("v"),
           LAYER("kt", "transpose", "\"kh\"", ", \"perm\": [0, 1, 3, 2]"),
           LAYER("s", "matmul", "\"qh\", \"kt\"", ", \"scale\": 0.5"), LAYER("r", "relu", "\"s\"", ""),
           LAYER("o", "matmul", "\"r\", \"vh\"", ", \"scale\": 0.5"),
           LAYER("ob", "transpose", "\"o\"", ", \"perm\": [0, 2, 1, 3]"), kt_is_output ? ", \"kt\"" : "");
  return buf;
}

static int find_tensor(const MachProg *mp, const char *name) {
  for (int i = 0; i < mp->n_tensors; i++)
    if (!strcmp(mp->tensors[i].name, name)) return i;
  return -1;
}

// The first op whose `what` is name, or -1.
static int find_op(const MachProg *mp, const char *name) {
  for (int i = 0; i < mp->n_ops; i++)
    if (!strcmp(mp->ops[i].what, name)) return i;
  return -1;
}

static void test_attention(Dataflow df) {
  Arch a;
  arch_default(&a);
  Graph *g;
  MachProg mp;
  if (lowered(attention(0), &a, df, &g, &mp, NULL, 0)) {
    CHECK(0, "the attention block does not lower in %s", lower_dataflow_name(df));
    graph_free(g);
    check_case("lower_mm_attention");
    return;
  }
  // q, k, v; s per head (2); o per head (2): no op for a transpose.
  CHECK(mp.n_ops == 7, "%d ops, want 7", mp.n_ops);
  static const char *const folded[] = {"qh", "kh", "vh", "kt", "ob"};
  for (int k = 0; k < 5; k++) CHECK(find_op(&mp, folded[k]) < 0, "%s has an op: it should fold", folded[k]);
  // qh, kh, vh, kt: permuted aliases of the reshapes qs, ks, vs (dense [1, 6, 2, 4]: strides 48,
  // 8, 4, 1); qh's axes are qs's 0, 2, 1, 3, kt's (kh then K^T) 0, 2, 3, 1. o is a permuted alias
  // of ob (the matmul writes the transpose's output in place).
  int qh = find_tensor(&mp, "qh"), qs = find_tensor(&mp, "qs"), kt = find_tensor(&mp, "kt"), ks = find_tensor(&mp, "ks");
  int vh = find_tensor(&mp, "vh"), o = find_tensor(&mp, "o"), ob = find_tensor(&mp, "ob");
  CHECK(qh >= 0 && qs >= 0 && kt >= 0 && ks >= 0 && vh >= 0 && o >= 0 && ob >= 0, "tensors missing");
  if (qh >= 0 && qs >= 0 && kt >= 0 && ks >= 0 && o >= 0 && ob >= 0) {
    const DTensor *tq = &mp.tensors[qh], *tk = &mp.tensors[kt], *to = &mp.tensors[o];
    CHECK(tq->permuted && tq->alias == qs && tq->perm[1] == 2 && tq->perm[2] == 1 && tq->perm[3] == 3,
          "qh: permuted %d alias %d", tq->permuted, tq->alias);
    CHECK(tk->permuted && tk->alias == ks && tk->perm[1] == 2 && tk->perm[2] == 3 && tk->perm[3] == 1,
          "kt: permuted %d alias %d perm %d %d %d", tk->permuted, tk->alias, tk->perm[1], tk->perm[2], tk->perm[3]);
    CHECK(to->permuted && to->alias == ob && !mp.tensors[ob].permuted && mp.tensors[ob].alias < 0,
          "o: permuted %d alias %d", to->permuted, to->alias);
  }
  int s = find_op(&mp, "s+r");   // the relu fused into the matmul
  CHECK(s >= 0 && s + 1 < mp.n_ops && !strcmp(mp.ops[s + 1].what, "s+r"), "s+r: no two GEMMs");
  for (int h = 0; s >= 0 && h < 2 && s + h < mp.n_ops; h++) {
    const MachOp *op = &mp.ops[s + h];
    // Head h: 4 bytes at 4 h of each 8-byte token row, for Q (A's rows) and K (B^T's rows).
    CHECK(op->kind == MOP_GEMM && op->b_act && op->act == ACT_RELU && op->K == 4 && op->N == 6 && op->oh == 6,
          "s head %d: kind %d b_act %d act %u K %lld N %lld M %lld", h, op->kind, op->b_act, op->act,
          (long long)op->K, (long long)op->N, (long long)op->oh);
    CHECK(op->in[1].t == kt && op->in[1].byte_off == 4 * h && op->b_kstride == 1 && op->b_nstride == 8,
          "s head %d: B from tensor %d +%lld, strides k %lld n %lld", h, op->in[1].t, (long long)op->in[1].byte_off,
          (long long)op->b_kstride, (long long)op->b_nstride);
    CHECK(op->in[0].t == qh && op->in[0].byte_off == 4 * h && op->in[0].row_stride == 8 && op->out.byte_off == 36 * h &&
              op->out.row_stride == 6 && op->macs == 6 * 4 * 6,
          "s head %d: A +%lld rows %lld, Y +%lld rows %lld", h, (long long)op->in[0].byte_off,
          (long long)op->in[0].row_stride, (long long)op->out.byte_off, (long long)op->out.row_stride);
    CHECK(op->wmat == NULL && op->n_ktiles == 1 && op->ktiles[0].rows == 4 && op->mult[5] == g->layers[10].rq[0].mult,
          "s head %d: constants or K tiles", h);
  }
  int om = find_op(&mp, "o");
  for (int h = 0; om >= 0 && h < 2 && om + h < mp.n_ops; h++) {
    const MachOp *op = &mp.ops[om + h];
    // V's rows: B[k][n] = v[k][4 h + n], a token row 8 bytes on; Y written into ob the same way.
    CHECK(op->b_act && op->in[1].t == vh && op->in[1].byte_off == 4 * h && op->b_kstride == 8 &&
              op->b_nstride == 1 && op->K == 6 && op->N == 4 && op->act == ACT_NONE,
          "o head %d: B +%lld strides k %lld n %lld K %lld N %lld", h, (long long)op->in[1].byte_off,
          (long long)op->b_kstride, (long long)op->b_nstride, (long long)op->K, (long long)op->N);
    CHECK(op->out.t == o && op->out.byte_off == 4 * h && op->out.row_stride == 8 && op->in[0].row_stride == 6,
          "o head %d: Y +%lld rows %lld", h, (long long)op->out.byte_off, (long long)op->out.row_stride);
  }
  machprog_free(&mp), graph_free(g);
  char name[64];
  snprintf(name, sizeof name, "lower_mm_attention_%s", lower_dataflow_name(df));
  check_case(name);
}

// K^T that is also a network output: a copy of its own, reading the folded heads kh in k's bytes
// (each output channel, a token, a gather of one byte per token 8 bytes apart), and Q K^T reads
// it as B's rows.
static void test_unfolded(void) {
  Arch a;
  arch_default(&a);
  Graph *g;
  MachProg mp;
  if (!lowered(attention(1), &a, DF_WS, &g, &mp, NULL, 0)) {
    int kt = find_op(&mp, "kt"), s = find_op(&mp, "s+r"), t = find_tensor(&mp, "kt"), kh = find_tensor(&mp, "kh");
    CHECK(kt >= 0 && mp.ops[kt].in[0].t == kh && mp.ops[kt].in[0].c_stride == 8 && mp.ops[kt].in[0].pix_stride == 1 &&
              mp.ops[kt].in[0].row_stride == 4 && mp.ops[kt].out.c == 6,
          "kt: not a gather copy of kh");
    CHECK(s >= 0 && mp.ops[s].in[1].t == t && mp.ops[s].b_kstride == 6 && mp.ops[s].b_nstride == 1 &&
              !mp.tensors[t].permuted && mp.tensors[t].alias < 0,
          "s: B not kt's rows");
  } else {
    CHECK(0, "does not lower");
  }
  machprog_free(&mp), graph_free(g);
  check_case("lower_mm_unfolded_kt");
}

// K = 300: R-row K tiles (16 rows on the default arch: 18 of 16 and one of 12); on a 256-row
// array, 256 + 44, except input-stationary with B's rows, whose SPAD rows gather a byte per K row:
// 255 + 45 (NSEG holds 255).
static void test_long_k(void) {
  static const char json[] =
      "{\"inputs\": [{\"name\": \"a\", \"shape\": [1, 1, 4, 300], \"scale\": 0.1}, {\"name\": \"b\", \"shape\": [1, 1, "
      "300, 5], \"scale\": 0.1}], \"layers\": [" LAYER("m", "matmul", "\"a\", \"b\"", ", \"scale\": 2") "], "
      "\"outputs\": [\"m\"]}";
  static const struct {
    uint32_t rows;
    Dataflow df;
    uint32_t n, first, last;
  } cases[] = {{16, DF_WS, 19, 16, 12}, {16, DF_IS, 19, 16, 12}, {256, DF_OS, 2, 256, 44}, {256, DF_IS, 2, 255, 45}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    Arch a;
    arch_default(&a);
    a.rows = a.cols = cases[c].rows;
    Graph *g;
    MachProg mp;
    if (!lowered(json, &a, cases[c].df, &g, &mp, NULL, 0)) {
      const MachOp *op = &mp.ops[0];
      uint32_t n = op->n_ktiles;
      CHECK(mp.n_ops == 1 && n == cases[c].n && op->ktiles[0].rows == cases[c].first &&
                op->ktiles[n - 1].rows == cases[c].last && op->ktiles[n - 1].kbase == 300 - cases[c].last &&
                op->ktiles[n - 1].off == 300 - cases[c].last,
            "R %u %s: %u K tiles, first %u rows, last %u rows at %u", cases[c].rows, lower_dataflow_name(cases[c].df),
            n, op->ktiles[0].rows, op->ktiles[n - 1].rows, op->ktiles[n - 1].kbase);
    } else {
      CHECK(0, "R %u: does not lower", cases[c].rows);
    }
    machprog_free(&mp), graph_free(g);
  }
  check_case("lower_mm_long_k");
}

int main(void) {
  test_attention(DF_WS);
  test_attention(DF_OS);
  test_attention(DF_IS);
  test_unfolded();
  test_long_k();
  return check_status();
}
