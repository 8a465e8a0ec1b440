// lower_mm.c: matmul of two activations and transpose (issue 16 item 2; docs/COMPILER.md
// "Matmul of two activations").
//
// matmul [.., M, K] x [.., K, P] is one GEMM per batch (the axes before the last two: the image
// and the heads): Y = A B, A the first input's M rows of K bytes on the streamed side (as an fc
// layer's input), B the second input's K x P, read from DRAM where its producer stored it
// instead of from the program's constants (MachOp.b_act; emit.c loads it). Weight- and
// output-stationary put B's rows in WBUF with an ordinary LOAD (WBUF row k = B[k][n0 .. n0+C-1]);
// input-stationary streams B^T from SPAD, one row per output column (a gather of one byte per K
// row). When B is a transpose of the last two axes (K^T in Q K^T) that nothing else reads, the
// transpose is folded away: column n of B is row n of the transpose's input, so weight- and
// output-stationary fill WBUF with a transposed LOAD (TRANSPOSE=1: each row read goes down a
// column) and input-stationary loads B^T's rows with an ordinary LOAD.
//
// transpose is data movement: an element-wise op whose LOAD reads the input with its axes'
// strides permuted into accumulator rows (identity scale) and whose STORE writes the output in
// its own layout. When the channel (last) axis moves, each accumulator row is a gather of one
// byte per channel (NSEG = channels, SEGLEN = 1, SEG_STRIDE = the stride of the axis that
// becomes the channels). reshape needs nothing: it aliases its input's bytes (lower.c).
#include "lower_int.h"

#include <stdlib.h>
#include <string.h>

#define ID_MULT (1 << 30)      // the identity (mult, shift) of docs/NETJSON.md
#define ID_SHIFT 30u

void lower_mm_strides(const MachProg *mp, int i, int64_t s[4]) {
  const DTensor *t = &mp->tensors[i];
  if (t->permuted) {   // its alias is never permuted itself (lower_mm_fold composes the chain)
    int64_t o[4];
    lower_mm_strides(mp, t->alias, o);
    for (int k = 0; k < 4; k++) s[k] = o[t->perm[k]];
    return;
  }
  TView v = lw_view_of(mp, i);
  s[0] = v.img_stride, s[1] = v.row_stride, s[2] = v.pix_stride, s[3] = 1;
  if (t->rank == 2) s[1] = s[2] = 0;
}

// A graph perm as a permutation of the four NHWC axes (rank 2: axis 0 is N, axis 1 is C).
static void perm4(const Layer *l, int rank, int p[4]) {
  if (rank == 4) {
    for (int k = 0; k < 4; k++) p[k] = l->perm[k];
    return;
  }
  p[0] = l->perm[0] ? 3 : 0, p[1] = 1, p[2] = 2, p[3] = l->perm[1] ? 3 : 0;
}

// Whether graph tensor t, whose NHWC axis k is axis q[k] of a dense tensor, can stay unmaterialized:
// it is no network output and every reader is a matmul that reads it with contiguous rows (the
// first operand: the channels contiguous; the second: its rows (B) or its columns (B^T)) or a
// transpose (folded in turn, or a copy that reads it with the composed strides).
static int fold_ok(const Lw *w, int t, const int q[4]) {
  const Graph *g = w->g;
  if (w->is_output[t] || !w->readers[t]) return 0;
  int ka = g->tensors[t].rank == 4 ? 2 : 0;   // the NHWC axis of a matmul operand's rows
  for (int j = 0; j < g->n_layers; j++) {
    const Layer *r = &g->layers[j];
    for (int k = 0; k < r->n_in; k++) {
      if (r->in[k] != t) continue;
      switch (r->op) {
      case LOP_MATMUL:
        if (!(q[3] == 3 || (k == 1 && q[ka] == 3))) return 0;
        break;
      case LOP_TRANSPOSE:
        break;
      case LOP_CONV2D: case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL:
      case LOP_AVGPOOL: case LOP_GLOBAL_AVGPOOL: case LOP_ADD: case LOP_CONCAT: case LOP_FLATTEN:
      case LOP_RESHAPE: case LOP_BATCHNORM: case LOP_BIAS: case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_GELU:
      case LOP_SIGMOID: case LOP_SILU: case LOP_HARDSWISH: case LOP_HARDSIGMOID: case LOP_MUL: case LOP_SUB:
      case LOP_MUL_CONST:
        return 0;   // reads the tensor's own layout
      }
    }
  }
  return 1;
}

void lower_mm_fold(Lw *w) {
  const Graph *g = w->g;
  MachProg *mp = w->mp;
  // Transposes into matmuls, in graph order, so that a chain (heads, then K^T) composes: the
  // folded output's alias is the first tensor of the chain that is stored.
  for (int i = 0; i < g->n_layers; i++) {
    const Layer *l = &g->layers[i];
    if (l->op != LOP_TRANSPOSE) continue;
    int in = w->dt[l->in[0]], p[4], q[4];
    const DTensor *ti = &mp->tensors[in];
    perm4(l, g->tensors[l->in[0]].rank, p);
    for (int k = 0; k < 4; k++) q[k] = ti->permuted ? ti->perm[p[k]] : p[k];
    if (!fold_ok(w, l->out, q)) continue;
    DTensor *t = &mp->tensors[w->dt[l->out]];
    t->alias = ti->permuted ? ti->alias : in;
    t->permuted = 1;
    memcpy(t->perm, q, sizeof q);
  }
  // A matmul's output that only a transpose keeping the channels reads (the heads put back into
  // the sequence): the matmul writes the transpose's output, its rows where the transpose puts them.
  for (int i = 0; i < g->n_layers; i++) {
    const Layer *l = &g->layers[i];
    int src = l->in[0], prod = g->tensors[src].producer, p[4];
    if (l->op != LOP_TRANSPOSE || mp->tensors[w->dt[l->out]].permuted || prod < 0) continue;
    perm4(l, g->tensors[src].rank, p);
    int head = w->group[prod];
    if (p[3] != 3 || g->layers[head].op != LOP_MATMUL || w->gtail[head] != prod || w->readers[src] != 1 ||
        w->is_output[src])
      continue;
    DTensor *t = &mp->tensors[w->dt[src]];
    t->alias = w->dt[l->out];
    t->permuted = 1;
    for (int k = 0; k < 4; k++) t->perm[p[k]] = k;   // the inverse: the output's axis k is the input's p[k]
  }
}

int lower_mm_folded(const Lw *w, int i) {
  const Layer *l = &w->g->layers[i];
  if (l->op != LOP_TRANSPOSE) return 0;
  const DTensor *in = &w->mp->tensors[w->dt[l->in[0]]], *out = &w->mp->tensors[w->dt[l->out]];
  return out->permuted || (in->permuted && in->alias == w->dt[l->out]);
}

// A byte stride that emit.c puts in instruction field f of op: it must fit, else the error names
// the layer, the operand and the field.
static int fits(const Lw *w, const Layer *l, int64_t bytes, Opcode op, FieldId f, const char *what) {
  if (bytes <= isa_field_max(f)) return 0;
  return graph_layer_error(w->g, l, w->d, "%s %lld bytes apart in DRAM, more than %s %s can hold (%lld)", what,
                           (long long)bytes, isa_ops[op].name, isa_fields[f].name, (long long)isa_field_max(f));
}

// The rows of one batch of a matmul operand or result: `rows` rows of `cols` bytes, `stride`
// bytes apart, from byte `off` of DTensor t (a view like an fc layer's: one image of rows x 1).
static TView batch_rows(const MachProg *mp, int t, int64_t rows, int64_t cols, int64_t stride, int64_t off) {
  TView v = lw_view_of(mp, t);
  v.n = 1, v.h = rows, v.w = 1, v.c = cols, v.c_off = 0;
  v.img_stride = rows * stride, v.row_stride = v.pix_stride = stride;
  v.byte_off = off;
  return v;
}

int lower_matmul(Lw *w, int i, int layer_id, const char *what) {
  const Graph *g = w->g;
  const Layer *l = &g->layers[i];
  MachProg *mp = w->mp;
  const Tensor *to = &g->tensors[l->out];
  int r = to->rank;
  int64_t M = to->dims[r - 2], P = to->dims[r - 1], K = l->cin;
  int64_t nb0 = r == 4 ? to->dims[0] : 1, nb1 = r == 4 ? to->dims[1] : 1;
  int ta = w->dt[l->in[0]], tb = w->dt[l->in[1]], tout = w->dt[g->layers[w->gtail[i]].out];
  int64_t sa[4], sb[4], so[4];
  int ka = r == 4 ? 2 : 0;   // the NHWC axis of the rows of A, B and Y (B^T's: axis 3)
  lower_mm_strides(mp, ta, sa), lower_mm_strides(mp, tb, sb), lower_mm_strides(mp, tout, so);
  int64_t ks = sb[ka], ns = sb[3];   // B[k][n] at k*ks + n*ns: B's rows (ns 1) or B^T's (ks 1)
  if (sa[3] != 1 || so[3] != 1 || (ks != 1 && ns != 1))
    return graph_layer_error(g, l, w->d, "internal error: matmul operands with no contiguous rows");
  uint32_t R = w->a->rows, C = w->a->cols;
  if (ns != 1) {   // a transposed LOAD (WS, OS: C rows apart, then 1) or B^T rows (IS: 1 apart)
    if (fits(w, l, ns * C, OP_CFG_LOAD, FLD_STRIDE_OUTER, "the rows of the transposed operand are") ||
        fits(w, l, ns, OP_CFG_LOAD, FLD_STRIDE_INNER, "the rows of the transposed operand are"))
      return -1;
  } else if (fits(w, l, ks, OP_CFG_LOAD, FLD_STRIDE_INNER, "the rows of the second operand are") ||
             fits(w, l, ks, OP_CFG_LOAD, FLD_SEG_STRIDE, "the rows of the second operand are")) {
    return -1;
  }
  // K tiles: R-row pieces of A's rows (the last shorter), contiguous, so the weight rows of a
  // chunk are B's rows in order in every dataflow. Input-stationary with B's rows gathers one byte
  // per K row into a SPAD row: a tile is then at most NSEG's range.
  for (int64_t b0 = 0; b0 < nb0; b0++)
    for (int64_t b1 = 0; b1 < nb1; b1++) {
      MachOp *op = lw_new_op(w, MOP_GEMM, layer_id, what);
      if (!op) return lw_oom(w);
      op->n_in = 2;
      op->in[0] = batch_rows(mp, ta, M, K, sa[ka], b0 * sa[0] + b1 * sa[1]);
      op->in[1] = batch_rows(mp, tb, K, P, ks, b0 * sb[0] + b1 * sb[1]);
      op->in[1].c_stride = ns > 1 ? ns : 0;
      op->out = batch_rows(mp, tout, M, P, so[ka], b0 * so[0] + b1 * so[1]);
      op->kh = op->kw = op->sh = op->sw = op->dh = op->dw = 1;
      op->oh = op->poh = M, op->ow = op->pow = 1;
      op->K = K, op->N = P;
      op->macs = (uint64_t)(M * K * P);
      op->act = w->gact[i], op->lo = w->glo[i], op->hi = w->ghi[i];
      op->b_act = 1, op->b_kstride = ks, op->b_nstride = ns;
      if (lw_alloc_params(op, P)) return lw_oom(w);
      for (int64_t j = 0; j < P; j++) op->mult[j] = l->rq[0].mult, op->shift[j] = (int32_t)l->rq[0].shift;
      int64_t len = R;
      if (op->df == DF_IS && ks != 1 && len > isa_field_max(FLD_NSEG)) len = isa_field_max(FLD_NSEG);
      int64_t n = (K + len - 1) / len;
      op->ktiles = calloc((size_t)n + 1, sizeof(KTile));
      if (!op->ktiles) return lw_oom(w);
      for (int64_t t = 0; t < n; t++) {
        KTile *kt = &op->ktiles[t];
        uint32_t rows = (uint32_t)(K - t * len < len ? K - t * len : len);
        kt->off = t * len, kt->nseg = 1, kt->seglen = rows;
        kt->kbase = kt->orig = (uint32_t)(t * len), kt->rows = rows, kt->orig_stride = rows;
      }
      op->n_ktiles = (uint32_t)n;
    }
  return 0;
}

int lower_transpose(Lw *w, int i, int layer_id, const char *what) {
  const Graph *g = w->g;
  const Layer *l = &g->layers[i];
  MachProg *mp = w->mp;
  int tin = w->dt[l->in[0]], tout = w->dt[l->out];
  int p[4];
  int64_t s[4];
  perm4(l, g->tensors[l->in[0]].rank, p);
  lower_mm_strides(mp, tin, s);
  TView out = lw_view_of(mp, tout), in = lw_view_of(mp, tin);
  in.n = out.n, in.h = out.h, in.w = out.w, in.c = out.c;
  in.img_stride = s[p[0]], in.row_stride = s[p[1]], in.pix_stride = s[p[2]];
  in.c_stride = s[p[3]] > 1 ? s[p[3]] : 0;
  // A gather fills an accumulator row with NSEG one-byte segments: on an array wider than NSEG's
  // range the channels go in pieces of that many, an op each.
  int64_t piece = out.c;
  if (in.c_stride) {
    if (fits(w, l, in.c_stride, OP_CFG_LOAD, FLD_SEG_STRIDE, "the input's values along the new channel axis are"))
      return -1;
    if (w->a->cols > isa_field_max(FLD_NSEG)) piece = isa_field_max(FLD_NSEG);
  }
  for (int64_t c0 = 0; c0 < out.c; c0 += piece) {
    MachOp *op = lw_new_op(w, MOP_ELT, layer_id, what);
    if (!op) return lw_oom(w);
    op->n_in = 1;
    op->in[0] = in, op->out = out;
    op->in[0].c = op->out.c = out.c - c0 < piece ? out.c - c0 : piece;
    op->in[0].byte_off = c0 * (in.c_stride ? in.c_stride : 1);
    op->out.c_off = c0;
    op->oh = op->poh = in.h, op->ow = op->pow = in.w;
    op->N = op->out.c;
    if (lw_alloc_params(op, op->N)) return lw_oom(w);
    for (int64_t j = 0; j < op->N; j++) op->mult[j] = ID_MULT, op->shift[j] = (int32_t)ID_SHIFT;
  }
  return 0;
}
