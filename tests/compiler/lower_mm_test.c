// lower_mm_test.c: matmul of two activations and transpose (compiler/lower_mm.c), on a small
// attention block worked out by hand: x [1, 1, 6, 8] -> q, k, v (1x1 convolutions, 8 channels)
// -> reshape [1, 6, 2, 4] -> transpose [0, 2, 1, 3] (heads: [1, 2, 6, 4]) -> K^T (transpose
// [0, 1, 3, 2]: [1, 2, 4, 6]) -> s = Q K^T [1, 2, 6, 6] -> relu -> o = s V [1, 2, 6, 4].
// Checked: one GEMM per head whose B is read from DRAM (the strides and offsets of each head),
// K^T folded away (no op; Q K^T reads K's rows as B^T), the relu fused into the matmul, the
// transposes as strided copies (a gather when the channel axis moves), the K tiles of a long K
// (R-row pieces; input-stationary with B's rows at most NSEG's range on a 256-row array), and
// the result of an unfoldable K^T (also a network output).
#include "lowered.h"

#define LAYER(name, op, in, more) "{\"name\": \"" name "\", \"op\": \"" op "\", \"inputs\": [" in "], \"output\": \"" name "\"" more "}"
#define PROJ(name) LAYER(name, "conv2d", "\"x\"", ", \"kernel\": 1, \"cout\": 8, \"weights\": {\"seed\": 1}, \"weight_scale\": 0.01, \"scale\": 0.1")
#define HEADS(t) LAYER(t "s", "reshape", "\"" t "\"", ", \"shape\": [1, 6, 2, 4]"), \
                 LAYER(t "h", "transpose", "\"" t "s\"", ", \"perm\": [0, 2, 1, 3]")

static const char *attention(int kt_is_output) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 1, 6, 8], \"scale\": 0.1}], \"layers\": [%s, %s, %s, %s, %s, %s, "
           "%s, %s, %s, %s, %s, %s, %s]," " \"outputs\": [\"o\"%s]}",
           PROJ("q"), PROJ("k"), PROJ("v"), HEADS("q"), HEADS("k"), HEADS("v"),
           LAYER("kt", "transpose", "\"kh\"", ", \"perm\": [0, 1, 3, 2]"),
           LAYER("s", "matmul", "\"qh\", \"kt\"", ", \"scale\": 0.5"), LAYER("r", "relu", "\"s\"", ""),
           LAYER("o", "matmul", "\"r\", \"vh\"", ", \"scale\": 0.5"), kt_is_output ? ", \"kt\"" : "");
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
  // q, k, v; qh, kh, vh; s per head (2); o per head (2): no op for kt.
  CHECK(mp.n_ops == 10, "%d ops, want 10", mp.n_ops);
  CHECK(find_op(&mp, "kt") < 0, "kt has an op: it should fold into s");
  int kt = find_tensor(&mp, "kt"), kh = find_tensor(&mp, "kh"), vh = find_tensor(&mp, "vh");
  CHECK(kt >= 0 && kh >= 0 && vh >= 0 && mp.tensors[kt].alias == kh && mp.tensors[kt].transposed,
        "kt is not a transposed alias of kh");
  int s = find_op(&mp, "s+r");   // the relu fused into the matmul
  CHECK(s >= 0 && s + 1 < mp.n_ops && !strcmp(mp.ops[s + 1].what, "s+r"), "s+r: no two GEMMs");
  for (int h = 0; s >= 0 && h < 2 && s + h < mp.n_ops; h++) {
    const MachOp *op = &mp.ops[s + h];
    // kh is [1, 2, 6, 4]: head h's rows from byte 24 h; B^T = K's rows (4 bytes, one per token).
    CHECK(op->kind == MOP_GEMM && op->b_act && op->act == ACT_RELU && op->K == 4 && op->N == 6 && op->oh == 6,
          "s head %d: kind %d b_act %d act %u K %lld N %lld M %lld", h, op->kind, op->b_act, op->act,
          (long long)op->K, (long long)op->N, (long long)op->oh);
    CHECK(op->in[1].t == kh && op->in[1].byte_off == 24 * h && op->b_kstride == 1 && op->b_nstride == 4,
          "s head %d: B from tensor %d +%lld, strides k %lld n %lld", h, op->in[1].t, (long long)op->in[1].byte_off,
          (long long)op->b_kstride, (long long)op->b_nstride);
    CHECK(op->in[0].byte_off == 24 * h && op->in[0].row_stride == 4 && op->out.byte_off == 36 * h &&
              op->out.row_stride == 6 && op->macs == 6 * 4 * 6,
          "s head %d: A +%lld rows %lld, Y +%lld rows %lld", h, (long long)op->in[0].byte_off,
          (long long)op->in[0].row_stride, (long long)op->out.byte_off, (long long)op->out.row_stride);
    CHECK(op->wmat == NULL && op->n_ktiles == 1 && op->ktiles[0].rows == 4 && op->mult[5] == g->layers[10].rq[0].mult,
          "s head %d: constants or K tiles", h);
  }
  int o = find_op(&mp, "o");
  for (int h = 0; o >= 0 && h < 2 && o + h < mp.n_ops; h++) {
    const MachOp *op = &mp.ops[o + h];
    // V's rows: B[k][n] = vh[h][k][n], row k 4 bytes on.
    CHECK(op->b_act && op->in[1].t == vh && op->in[1].byte_off == 24 * h && op->b_kstride == 4 &&
              op->b_nstride == 1 && op->K == 6 && op->N == 4 && op->act == ACT_NONE,
          "o head %d: B +%lld strides k %lld n %lld K %lld N %lld", h, (long long)op->in[1].byte_off,
          (long long)op->b_kstride, (long long)op->b_nstride, (long long)op->K, (long long)op->N);
  }
  // qh = transpose [0, 2, 1, 3] of qs [1, 6, 2, 4]: output (head y, token x) reads qs at
  // 4 y + 8 x, channels contiguous.
  int qh = find_op(&mp, "qh");
  CHECK(qh >= 0 && mp.ops[qh].kind == MOP_ELT && mp.ops[qh].in[0].row_stride == 4 &&
            mp.ops[qh].in[0].pix_stride == 8 && mp.ops[qh].in[0].c_stride == 0 && mp.ops[qh].in[0].h == 2 &&
            mp.ops[qh].in[0].w == 6,
        "qh: not a strided copy");
  machprog_free(&mp), graph_free(g);
  char name[64];
  snprintf(name, sizeof name, "lower_mm_attention_%s", lower_dataflow_name(df));
  check_case(name);
}

// K^T that is also a network output: a copy of its own (each output channel a gather of one
// byte per token, 4 bytes apart), and Q K^T reads it as B's rows.
static void test_unfolded(void) {
  Arch a;
  arch_default(&a);
  Graph *g;
  MachProg mp;
  if (!lowered(attention(1), &a, DF_WS, &g, &mp, NULL, 0)) {
    int kt = find_op(&mp, "kt"), s = find_op(&mp, "s+r"), t = find_tensor(&mp, "kt");
    CHECK(kt >= 0 && mp.ops[kt].in[0].c_stride == 4 && mp.ops[kt].in[0].pix_stride == 1 && mp.ops[kt].out.c == 6,
          "kt: not a gather copy");
    CHECK(s >= 0 && mp.ops[s].in[1].t == t && mp.ops[s].b_kstride == 6 && mp.ops[s].b_nstride == 1 &&
              !mp.tensors[t].transposed && mp.tensors[t].alias < 0,
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
