// lower.c: fusion, layout and lowering (lower.h).
//
// Fusion. A relu, relu6 or clip whose rescale is the identity (its scale is its input's) folds
// into the op that produces its input (conv2d, fc, add, or an already fused group), when nothing
// else reads that input: clamps compose exactly on int8 values. A max pool with an identity
// rescale folds into a conv2d group the same way: the machine's pooled STORE takes the maximum of
// the post-processed values, which is what the unfused layers compute (post-processing is
// monotonic). Average pools do not fold: the reference averages int8 values, not accumulators.
//
// Layout. Every tensor that is not internal to a fused group gets a DRAM layout: NHWC with a zero
// halo per image as wide as the padding of every convolution that reads it (so the im2col gather
// never needs a bounds check). Flatten and reshape alias their input's bytes.
//
// Lowering. conv2d and fc become GEMMs (Y[M x N] = X[M x K] W[K x N], M = output pixels,
// K = kh*kw*cin in (ky, kx, ci) order, N = cout); the load unit gathers each K tile of an im2col
// row from the input's layout (docs/COMPILER.md). Grouped and depthwise convolutions put q groups
// side by side in one block-diagonal GEMM, q as large as the array allows. Everything else is an
// element-wise op through the accumulators: LOAD (scaled) into ACC, a second accumulating LOAD
// for add, a post-processed STORE (requantize, activation, max/avg pool, a concat slice).
#include "lower.h"
#include "lower_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/grow.h"

#define ID_MULT (1 << 30)      // the identity (mult, shift) of docs/NETJSON.md
#define ID_SHIFT 30u

int64_t dt_row_stride(const DTensor *t) { return (t->w + t->halo_l + t->halo_r) * t->c; }
int64_t dt_img_stride(const DTensor *t) { return (t->h + t->halo_t + t->halo_b) * dt_row_stride(t); }
uint64_t dt_bytes(const DTensor *t) { return (uint64_t)(t->n * dt_img_stride(t)); }

static int is_identity(Requant r) { return r.mult == ID_MULT && r.shift == ID_SHIFT; }

// An activation as the clamp [lo, hi] it is on int8 values, and back.
static void act_bounds(unsigned act, int8_t lo, int8_t hi, int *a, int *b) {
  *a = act == ACT_RELU ? 0 : act == ACT_CLAMP ? lo : -128;
  *b = act == ACT_CLAMP ? hi : 127;
}
static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// clamp(clamp(x, a, b), c, d) == clamp(x, clamp(a, c, d), clamp(b, c, d)) for a <= b, c <= d.
static void act_compose(unsigned *act, int8_t *lo, int8_t *hi, unsigned act2, int8_t lo2, int8_t hi2) {
  int a, b, c, e;
  act_bounds(*act, *lo, *hi, &a, &b);
  act_bounds(act2, lo2, hi2, &c, &e);
  int nlo = clampi(a, c, e), nhi = clampi(b, c, e);
  *lo = (int8_t)nlo, *hi = (int8_t)nhi;
  *act = nlo == -128 && nhi == 127 ? ACT_NONE : nlo == 0 && nhi == 127 ? ACT_RELU : ACT_CLAMP;
  if (*act != ACT_CLAMP) *lo = -128, *hi = 127;
}

// ---- the lowering context --------------------------------------------------------------------

// The context, Lw, is in lower_int.h (shared with lower_mm.c).

static int oom(Lw *w) { return diag_error(w->d, "%s: error: out of memory", w->g->file); }

// Whether the machine's pooling fields (docs/ISA.md CFG_POOL: KH, KW, SH, SW, PAD_T, PAD_L)
// hold the window of pooling layer l.
static int pool_fits(const Layer *l) {
  return l->kh <= isa_field_max(FLD_KH) && l->kw <= isa_field_max(FLD_KW) && l->sh <= isa_field_max(FLD_SH) &&
         l->sw <= isa_field_max(FLD_SW) && l->pad_t <= isa_field_max(FLD_PAD_T) && l->pad_l <= isa_field_max(FLD_PAD_L);
}

static int fusable_input(const Lw *w, const Layer *l) {
  int t = l->in[0];
  const Tensor *tt = &w->g->tensors[t];
  return tt->producer >= 0 && w->readers[t] == 1 && !w->is_output[t];
}

// Decides the groups: every layer starts its own, unless it folds into its producer's.
static void fuse(Lw *w) {
  const Graph *g = w->g;
  for (int i = 0; i < g->n_layers; i++) {
    const Layer *l = &g->layers[i];
    w->group[i] = i;
    w->gact[i] = l->mach_act, w->glo[i] = l->act_lo, w->ghi[i] = l->act_hi;
    w->gpool[i] = -1;
    w->gtail[i] = i;
    if (!graph_op_is(l->op, GOPF_ACT) && !graph_op_is(l->op, GOPF_POOL)) continue;
    if (!fusable_input(w, l)) continue;
    int head = w->group[g->tensors[l->in[0]].producer];
    LayerOp hop = g->layers[head].op;
    if (graph_op_is(l->op, GOPF_ACT) && is_identity(l->rq[0]) && graph_op_is(hop, GOPF_ABSORBS_ACT)) {
      act_compose(&w->gact[head], &w->glo[head], &w->ghi[head], l->mach_act, l->act_lo, l->act_hi);
    } else if (graph_op_is(l->op, GOPF_POOL) && is_identity(l->rq[0]) && graph_op_is(hop, GOPF_ABSORBS_POOL) &&
               w->gpool[head] < 0 && pool_fits(l)) {
      w->gpool[head] = i;
    } else {
      continue;
    }
    w->group[i] = head;
    w->gtail[head] = i;
  }
}

// ---- tensors ---------------------------------------------------------------------------------

static int add_dtensor(Lw *w, int gt) {
  MachProg *mp = w->mp;
  if (mp->n_tensors == mp->cap_tensors) {
    size_t cap = grow_cap((size_t)mp->cap_tensors, (size_t)mp->n_tensors + 1, 16, sizeof *mp->tensors, INT_MAX);
    DTensor *n = cap ? realloc(mp->tensors, cap * sizeof *n) : NULL;
    if (!n) return oom(w);
    mp->tensors = n, mp->cap_tensors = (int)cap;
  }
  const Tensor *t = &w->g->tensors[gt];
  if (strlen(t->name) >= PROG_NAME_MAX)
    return diag_error(w->d, "%s: tensor \"%s\": error: name longer than %d characters", w->g->file, t->name,
                      PROG_NAME_MAX - 1);
  DTensor *dt = &mp->tensors[mp->n_tensors];
  memset(dt, 0, sizeof *dt);
  snprintf(dt->name, sizeof dt->name, "%s", t->name);
  dt->graph_tensor = gt;
  dt->rank = t->rank;
  dt->n = t->dims[0];
  dt->h = t->rank == 4 ? t->dims[1] : 1;
  dt->w = t->rank == 4 ? t->dims[2] : 1;
  dt->c = t->rank == 4 ? t->dims[3] : t->dims[1];
  dt->alias = -1;
  dt->role = t->producer < 0 ? ROLE_INPUT : w->is_output[gt] ? ROLE_OUTPUT : ROLE_SCRATCH;
  dt->scale = t->scale;
  dt->first_op = -1;
  dt->last_op = -1;
  w->dt[gt] = mp->n_tensors++;
  return 0;
}

int dt_owner(const MachProg *mp, int i) {
  while (mp->tensors[i].alias >= 0) i = mp->tensors[i].alias;
  return i;
}

// Every network input and every group output gets a DTensor; flatten/reshape alias.
static int make_tensors(Lw *w) {
  const Graph *g = w->g;
  for (int i = 0; i < g->n_tensors; i++) w->dt[i] = -1;
  for (int i = 0; i < g->n_inputs; i++)
    if (add_dtensor(w, g->inputs[i])) return -1;
  for (int i = 0; i < g->n_layers; i++) {
    if (w->group[i] != i) continue;
    const Layer *tail = &g->layers[w->gtail[i]];
    if (add_dtensor(w, tail->out)) return -1;
    const Layer *l = &g->layers[i];
    if (graph_op_is(l->op, GOPF_ALIAS)) w->mp->tensors[w->dt[tail->out]].alias = w->dt[l->in[0]];
  }
  return 0;
}

// Widens the halo of `t` so that a window (kh x kw, stride, dilation, padding) over an input of
// h x w giving oh x ow outputs stays inside it.
static void need_halo(DTensor *t, const Layer *l, int64_t oh, int64_t ow) {
  int64_t bottom = (oh - 1) * l->sh - l->pad_t + (int64_t)(l->kh - 1) * l->dh - (t->h - 1);
  int64_t right = (ow - 1) * l->sw - l->pad_l + (int64_t)(l->kw - 1) * l->dw - (t->w - 1);
  if (l->pad_t > t->halo_t) t->halo_t = l->pad_t;
  if (l->pad_l > t->halo_l) t->halo_l = l->pad_l;
  if (bottom > t->halo_b) t->halo_b = (int)bottom;
  if (right > t->halo_r) t->halo_r = (int)right;
}

// Whether convolution l (output oh x ow) reads outside a tensor of h x w.
static int needs_halo(const Layer *l, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  DTensor t;
  memset(&t, 0, sizeof t);
  t.h = h, t.w = w;
  need_halo(&t, l, oh, ow);
  return t.halo_t || t.halo_b || t.halo_l || t.halo_r;
}

// Whether op reads its input through a zero halo (the im2col gather of a convolution); a pool's
// padding is the STORE's (CFG_POOL PAD_T/PAD_L), an fc's input is dense.
static int reads_halo(LayerOp op) {
  switch (op) {
  case LOP_CONV2D:
    return 1;
  case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL: case LOP_AVGPOOL:
  case LOP_GLOBAL_AVGPOOL: case LOP_ADD: case LOP_CONCAT: case LOP_FLATTEN: case LOP_RESHAPE:
  case LOP_BATCHNORM: case LOP_BIAS:
  case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_GELU: case LOP_SIGMOID: case LOP_SILU:
  case LOP_HARDSWISH: case LOP_HARDSIGMOID: case LOP_MUL: case LOP_SUB: case LOP_MUL_CONST:   // refused before
  case LOP_MATMUL: case LOP_TRANSPOSE:   // read dense rows (lower_mm.c)
    return 0;
  }
  return 0;
}

// A tensor that is read as dense bytes (fc, flatten, reshape) and by a padded convolution keeps
// its dense layout; the convolutions read a padded twin, filled by a copy op after the producer.
static int layout(Lw *w) {
  const Graph *g = w->g;
  MachProg *mp = w->mp;
  int n0 = mp->n_tensors;
  int *dense = calloc((size_t)n0 + 1, sizeof(int));
  w->padded = malloc(((size_t)2 * n0 + 1) * sizeof(int));
  if (!dense || !w->padded) return free(dense), oom(w);
  for (int i = 0; i < 2 * n0; i++) w->padded[i] = -1;
  for (int i = 0; i < g->n_layers; i++) {
    const Layer *l = &g->layers[i];
    if (graph_op_is(l->op, GOPF_DENSE_IN)) dense[dt_owner(mp, w->dt[l->in[0]])] = 1;
  }
  int rc = 0;
  for (int i = 0; i < g->n_layers && !rc; i++) {
    const Layer *l = &g->layers[i];
    if (!reads_halo(l->op) || w->group[i] != i) continue;
    const Tensor *to = &g->tensors[l->out];
    int src = w->dt[l->in[0]];
    int shared = mp->tensors[src].alias >= 0 || dense[src];   // its layout must stay dense
    if (shared && needs_halo(l, mp->tensors[src].h, mp->tensors[src].w, to->dims[1], to->dims[2])) {
      if (w->padded[src] < 0) {
        if (mp->n_tensors == mp->cap_tensors) {
          size_t cap = grow_cap((size_t)mp->cap_tensors, (size_t)mp->n_tensors + 1, 16, sizeof *mp->tensors, INT_MAX);
          DTensor *nt = cap ? realloc(mp->tensors, cap * sizeof *nt) : NULL;
          if (!nt) {
            rc = oom(w);
            break;
          }
          mp->tensors = nt, mp->cap_tensors = (int)cap;
        }
        DTensor *twin = &mp->tensors[mp->n_tensors];
        *twin = mp->tensors[src];
        snprintf(twin->name, sizeof twin->name, "%.*s.pad", PROG_NAME_MAX - 5, mp->tensors[src].name);
        twin->role = ROLE_SCRATCH;
        twin->alias = -1;
        w->padded[src] = mp->n_tensors++;
      }
      src = w->padded[src];
    }
    if (!shared || src != w->dt[l->in[0]]) need_halo(&mp->tensors[src], l, to->dims[1], to->dims[2]);
  }
  free(dense);
  return rc;
}

// ---- ops -------------------------------------------------------------------------------------

static MachOp *new_op(Lw *w, MopKind kind, int layer, const char *what) {
  MachProg *mp = w->mp;
  if (mp->n_ops == mp->cap_ops) {
    size_t cap = grow_cap((size_t)mp->cap_ops, (size_t)mp->n_ops + 1, 16, sizeof *mp->ops, INT_MAX);
    MachOp *n = cap ? realloc(mp->ops, cap * sizeof *n) : NULL;
    if (!n) return NULL;
    mp->ops = n, mp->cap_ops = (int)cap;
  }
  int index = mp->n_ops++;
  MachOp *op = &mp->ops[index];
  memset(op, 0, sizeof *op);
  op->kind = kind;
  op->df = w->op_df && index < w->n_op_df ? w->op_df[index] : mp->dataflow;
  op->df_est[0] = op->df_est[1] = op->df_est[2] = -1;   // none made (--dataflow auto fills them)
  op->layer = layer;
  snprintf(op->what, sizeof op->what, "%s", what);
  op->in_mult[0] = op->in_mult[1] = ID_MULT;
  op->in_shift[0] = op->in_shift[1] = ID_SHIFT;
  op->lo = -128, op->hi = 127;
  return op;
}

// A view of the whole DTensor i. An alias (flatten, reshape) has its owner's bytes, which are
// dense, in its own shape.
static TView view_of(const MachProg *mp, int i) {
  const DTensor *t = &mp->tensors[i];
  TView v;
  memset(&v, 0, sizeof v);
  v.t = i;
  v.n = t->n, v.h = t->h, v.w = t->w, v.c = t->c;
  v.img_stride = t->alias >= 0 ? t->h * t->w * t->c : dt_img_stride(t);
  v.row_stride = t->alias >= 0 ? t->w * t->c : dt_row_stride(t);
  v.pix_stride = t->c;
  return v;
}

// fc: the [N, K] input as one image of N rows of K bytes (dense), the output likewise.
static TView rows_view(const MachProg *mp, int i, int64_t n, int64_t k) {
  TView v = view_of(mp, i);
  v.n = 1, v.h = n, v.w = 1, v.c = k;
  v.img_stride = n * k;
  v.row_stride = k;
  v.pix_stride = k;
  return v;
}

static int alloc_params(MachOp *op, int64_t n) {
  op->bias = calloc((size_t)n + 1, sizeof(int32_t));
  op->mult = calloc((size_t)n + 1, sizeof(int32_t));
  op->shift = calloc((size_t)n + 1, sizeof(int32_t));
  return op->bias && op->mult && op->shift ? 0 : -1;
}

// lower_int.h's entry points to the helpers above, for lower_mm.c.
int lw_oom(Lw *w) { return oom(w); }
MachOp *lw_new_op(Lw *w, MopKind kind, int layer, const char *what) { return new_op(w, kind, layer, what); }
TView lw_view_of(const MachProg *mp, int i) { return view_of(mp, i); }
int lw_alloc_params(MachOp *op, int64_t n) { return alloc_params(op, n); }

// Whether dataflow df stores every K tile of the weights as array.rows rows (COMPUTE_OS reads K
// in R-wide blocks), the rows past the tile's zero.
static int pads_ktiles(Dataflow df) {
  switch (df) {
  case DF_OS: return 1;
  case DF_WS: case DF_IS: return 0;
  }
  return 0;
}

// How many of `runs` runs one tile can take when its segments are len bytes long: R / len, at
// most the runs there are and NSEG's range, and one when the runs are too far apart for SEG_STRIDE.
static int64_t runs_per_tile(int64_t len, int64_t runs, uint32_t R, int64_t spacing) {
  int64_t g = (int64_t)R / len;
  if (g > runs) g = runs;
  if (g > (int64_t)isa_field_max(FLD_NSEG)) g = isa_field_max(FLD_NSEG);
  if (g > 1 && spacing > (int64_t)isa_field_max(FLD_SEG_STRIDE)) g = 1;
  return g;
}

// The K tiles of a GEMM's im2col row (lower.h KTile) for arch a (R rows, C columns, B-byte bus).
// The input bytes of one output pixel's window form `lines` lines of `per_line` runs of `run`
// contiguous bytes, runs of a line `spacing` bytes apart: one line of kh whole kernel rows when a
// kernel row is contiguous, else kh lines of kw taps of cin bytes. A run is cut into `full` pieces
// of len bytes and a remainder of rem = run - full*len bytes. A body tile takes the same len-byte
// piece of g consecutive runs (g*len <= R: one LOAD row of g segments); a remainder tile takes the
// rem-byte tail of g2 = R / rem consecutive runs, more than g, since its segments are shorter. So a
// 3-channel 7x7 kernel (runs of 21 bytes) on 16 rows is 7 tiles of 16 bytes and 3 tiles of 3 tails
// of 5 (16+16+16+16+16+16+16+15+15+5 rows: 10 tiles, the least for 147 rows) instead of 7 x (16 +
// 5). The (len, g) kept makes the fewest tiles per N tile while the gather's expected beats stay
// below the array's work (max of the two, per output pixel); the weight rows are then permuted to
// tile order.
static int make_ktiles(MachOp *op, const Arch *a, Dataflow df) {
  uint32_t R = a->rows, B = a->bus_bytes;
  const TView *in = &op->in[0];
  int64_t cin = in->c;
  int contiguous = (op->dw == 1 || op->kw == 1) && cin == in->pix_stride;
  int64_t run = contiguous ? op->kw * cin : cin;
  int64_t lines = contiguous ? 1 : op->kh, per_line = contiguous ? op->kh : op->kw;
  int64_t spacing = contiguous ? op->dh * in->row_stride : op->dw * in->pix_stride;
  int64_t nN = (op->N + a->cols - 1) / a->cols;   // N tiles: each K tile is streamed once per N tile
  int64_t best_len = 0, best_g = 0, best_g2 = 0;
  double best = 0;
  for (int64_t len = 1; len <= run && len <= R; len++) {
    int64_t g = runs_per_tile(len, per_line, R, spacing);
    int64_t full = run / len, rem = run - full * len;
    int64_t g2 = rem ? runs_per_tile(rem, per_line, R, spacing) : 1;
    double tiles = (double)lines * (double)((per_line + g - 1) / g * full + (rem ? (per_line + g2 - 1) / g2 : 0));
    double beats = (double)lines * (double)per_line *
                   ((double)full * (double)((len + B - 1) / B) + (double)((rem + B - 1) / B));
    double cost = tiles * (double)nN > beats ? tiles * (double)nN : beats;
    if (!best_len || cost < best || (cost == best && len > best_len))
      best = cost, best_len = len, best_g = g, best_g2 = g2;
  }
  int64_t full = run / best_len, rem = run - full * best_len;
  int64_t cap = lines * ((per_line + best_g - 1) / best_g * full + (rem ? (per_line + best_g2 - 1) / best_g2 : 0));
  op->ktiles = calloc((size_t)cap + 1, sizeof(KTile));
  if (!op->ktiles) return -1;
  uint32_t n = 0, kbase = 0;
  for (int64_t line = 0; line < lines; line++)
    for (int pass = 0; pass < 2; pass++) {     // the body pieces, then the remainders
      int64_t step = pass ? best_g2 : best_g, p0 = pass ? full * best_len : 0, p1 = pass ? run : full * best_len;
      int64_t len = pass ? rem : best_len;
      if (!len) continue;
      for (int64_t r = 0; r < per_line; r += step) {
        int64_t g = per_line - r < step ? per_line - r : step;
        int64_t ky = contiguous ? r : line, kx = contiguous ? 0 : r;
        int64_t off = ky * op->dh * in->row_stride + kx * op->dw * in->pix_stride;
        int64_t first = contiguous ? r : line * op->kw + r;    // index of the first run in (ky, kx) order
        for (int64_t p = p0; p < p1; p += len) {
          KTile *t = &op->ktiles[n++];
          t->off = off + p, t->nseg = (uint32_t)g;
          t->seglen = (uint32_t)len;
          t->seg_stride = g > 1 ? (uint32_t)spacing : 0;
          t->kbase = kbase, t->rows = t->nseg * t->seglen;
          t->orig = (uint32_t)(first * run + p), t->orig_stride = (uint32_t)run;
          kbase += pads_ktiles(df) ? R : t->rows;
        }
      }
    }
  op->n_ktiles = n;
  int64_t k_stored = pads_ktiles(df) ? (int64_t)n * R : op->K;
  // The weight rows in K tile order. Often that is the order they are in already (one segment
  // per tile, or segments back to back): then nothing moves (a copy of every weight otherwise).
  int same = k_stored == op->K;
  for (uint32_t i = 0; i < n && same; i++) {
    const KTile *t = &op->ktiles[i];
    same = t->orig == t->kbase && (t->nseg == 1 || t->orig_stride == t->seglen);
  }
  if (same) return 0;
  int8_t *perm = calloc((size_t)(k_stored * op->N) + 1, 1);
  if (!perm) return -1;
  op->K = k_stored;
  for (uint32_t i = 0; i < n; i++) {
    const KTile *t = &op->ktiles[i];
    for (uint32_t sg = 0; sg < t->nseg; sg++)
      memcpy(perm + (int64_t)(t->kbase + sg * t->seglen) * op->N,
             op->wmat + (int64_t)(t->orig + sg * t->orig_stride) * op->N, (size_t)(t->seglen * op->N));
  }
  free(op->wmat);
  op->wmat = perm;
  return 0;
}

static void set_pool(MachOp *op, const Layer *p, int64_t in_h, int64_t in_w, int64_t oh, int64_t ow) {
  op->pkh = p->kh, op->pkw = p->kw, op->psh = p->sh, op->psw = p->sw;
  op->ppt = p->pad_t, op->ppl = p->pad_l;
  switch (p->op) {
  case LOP_MAXPOOL:
    op->pool = POOL_MAX;
    break;
  case LOP_AVGPOOL:
    op->pool = POOL_AVG;
    break;
  case LOP_GLOBAL_AVGPOOL:   // the whole map, no padding
    op->pool = POOL_AVG;
    op->ppt = op->ppl = 0;
    break;
  case LOP_CONV2D: case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_ADD: case LOP_CONCAT:
  case LOP_FLATTEN: case LOP_RESHAPE: case LOP_BATCHNORM: case LOP_BIAS:   // not pools
  case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_GELU: case LOP_SIGMOID: case LOP_SILU:
  case LOP_HARDSWISH: case LOP_HARDSIGMOID: case LOP_MUL: case LOP_SUB: case LOP_MUL_CONST: case LOP_MATMUL:
  case LOP_TRANSPOSE:
    op->pool = POOL_NONE;
    break;
  }
  op->oh = in_h, op->ow = in_w;
  op->poh = oh, op->pow = ow;
}

// conv2d or fc (head of group i): one GEMM per block of q groups.
static int lower_gemm(Lw *w, int i, int layer_id, const char *what) {
  const Graph *g = w->g;
  const Layer *l = &g->layers[i];
  MachProg *mp = w->mp;
  const Layer *tail = &g->layers[w->gtail[i]];
  int in = w->dt[l->in[0]], out = w->dt[tail->out];
  const Tensor *to = &g->tensors[l->out];
  int is_fc = l->op == LOP_FC;
  if (!is_fc && w->padded[in] >= 0) in = w->padded[in];   // a conv reads the padded twin
  int64_t groups = is_fc ? 1 : l->groups, cpg = l->cin / groups, opg = l->cout / groups;
  int64_t q = 1;
  if (groups > 1) {
    int64_t qc = (int64_t)w->a->cols / opg, qr = (int64_t)w->a->rows / cpg;
    q = qc < qr ? qc : qr;
    if (q < 1) q = 1;
  }
  for (int64_t g0 = 0; g0 < groups; g0 += q) {
    int64_t gq = groups - g0 < q ? groups - g0 : q;
    MachOp *op = new_op(w, MOP_GEMM, layer_id, what);
    if (!op) return oom(w);
    op->n_in = 1;
    if (is_fc) {
      op->in[0] = rows_view(mp, in, to->dims[0], l->cin);
      op->out = rows_view(mp, out, to->dims[0], l->cout);
      op->kh = op->kw = op->sh = op->sw = op->dh = op->dw = 1;
      op->oh = to->dims[0], op->ow = 1;
    } else {
      op->in[0] = view_of(mp, in);
      op->out = view_of(mp, out);
      op->kh = l->kh, op->kw = l->kw, op->sh = l->sh, op->sw = l->sw, op->dh = l->dh, op->dw = l->dw;
      op->pad_t = l->pad_t, op->pad_l = l->pad_l;
      op->oh = to->dims[1], op->ow = to->dims[2];
    }
    op->in[0].c = gq * cpg, op->in[0].c_off = g0 * cpg;
    op->out.c = gq * opg, op->out.c_off = g0 * opg;
    op->poh = op->oh, op->pow = op->ow;
    if (w->gpool[i] >= 0) {
      const Layer *p = &g->layers[w->gpool[i]];
      const Tensor *tp = &g->tensors[p->out];
      set_pool(op, p, op->oh, op->ow, tp->dims[1], tp->dims[2]);
    }
    op->act = w->gact[i], op->lo = w->glo[i], op->hi = w->ghi[i];
    int64_t taps = (int64_t)op->kh * op->kw, cin_g = op->in[0].c;
    op->K = taps * cin_g;
    op->N = op->out.c;
    op->macs = (uint64_t)(to->dims[0] * op->oh * op->ow * taps * cpg * op->N);
    op->wmat = calloc((size_t)(op->K * op->N) + 1, 1);
    if (!op->wmat || alloc_params(op, op->N)) return oom(w);
    // Block-diagonal weights: row (tap, ci) feeds columns j only within its group (ci / cpg ==
    // j / opg), a contiguous run of the layer's weights.
    for (int64_t t = 0; t < taps; t++)
      for (int64_t ci = 0; ci < cin_g; ci++) {
        int64_t j0 = ci / cpg * opg, j1 = j0 + opg < op->N ? j0 + opg : op->N;
        if (j0 < j1)
          memcpy(op->wmat + (t * cin_g + ci) * op->N + j0, l->w + (t * cpg + ci % cpg) * l->cout + g0 * opg + j0,
                 (size_t)(j1 - j0));
      }
    for (int64_t j = 0; j < op->N; j++) {
      int64_t oc = g0 * opg + j;
      op->bias[j] = l->bias_q[oc];
      op->mult[j] = l->rq[oc].mult;
      op->shift[j] = (int32_t)l->rq[oc].shift;
    }
    if (make_ktiles(op, w->a, op->df)) return oom(w);
  }
  return 0;
}

// An element-wise op of group head i over one input (k: which input of the layer).
static MachOp *elt_op(Lw *w, int i, int layer_id, const char *what, int k, Requant post) {
  const Layer *l = &w->g->layers[i];
  MachOp *op = new_op(w, MOP_ELT, layer_id, what);
  if (!op) return NULL;
  op->n_in = 1;
  op->in[0] = view_of(w->mp, w->dt[l->in[k]]);
  op->out = view_of(w->mp, w->dt[w->g->layers[w->gtail[i]].out]);
  op->oh = op->poh = op->in[0].h, op->ow = op->pow = op->in[0].w;
  op->out.c = op->in[0].c;
  op->act = w->gact[i], op->lo = w->glo[i], op->hi = w->ghi[i];
  op->N = op->out.c;
  if (alloc_params(op, op->N)) return NULL;
  for (int64_t j = 0; j < op->N; j++) op->mult[j] = post.mult, op->shift[j] = (int32_t)post.shift;
  return op;
}

// Runs of output positions (along one axis) whose windows hold the same number of input
// positions: runs[k] .. runs[k+1]-1 for k < *n. Returns the count of each run in cnt.
static int count_runs(int64_t out, int64_t in, int k, int s, int pad, int64_t *runs, int *cnt, int max) {
  int n = 0;
  for (int64_t o = 0; o < out; o++) {
    int c = 0;
    for (int j = 0; j < k; j++) c += o * s - pad + j >= 0 && o * s - pad + j < in;
    if (n && cnt[n - 1] == c) continue;
    if (n == max) return -1;
    runs[n] = o, cnt[n++] = c;
  }
  runs[n] = out;
  return n;
}

// avgpool with count_include_pad=false: each window divides by the positions inside the input.
// Output positions are grouped in rectangles of equal row and column counts; each rectangle is
// its own element-wise op over the input rows and columns its windows touch, with its own
// multiplier (rq[count - 1]).
static int lower_avgpool_exclusive(Lw *w, int i, int layer_id, const char *what) {
  const Graph *g = w->g;
  const Layer *l = &g->layers[i];
  const Tensor *ti = &g->tensors[l->in[0]], *to = &g->tensors[l->out];
  int64_t H = ti->dims[1], W = ti->dims[2], OH = to->dims[1], OW = to->dims[2];
  int64_t ry[64], rx[64];
  int cy[64], cx[64];
  int ny = count_runs(OH, H, l->kh, l->sh, l->pad_t, ry, cy, 63), nx = count_runs(OW, W, l->kw, l->sw, l->pad_l, rx, cx, 63);
  if (ny < 0 || nx < 0) return graph_layer_error(g, l, w->d, "too many distinct window sizes for the lowering");
  for (int a = 0; a < ny; a++)
    for (int b = 0; b < nx; b++) {
      MachOp *op = elt_op(w, i, layer_id, what, 0, l->rq[cy[a] * cx[b] - 1]);
      if (!op) return oom(w);
      int64_t ya = ry[a], yb = ry[a + 1], xa = rx[b], xb = rx[b + 1];
      int64_t r_lo = ya * l->sh - l->pad_t, r_hi = (yb - 1) * l->sh - l->pad_t + l->kh;
      int64_t c_lo = xa * l->sw - l->pad_l, c_hi = (xb - 1) * l->sw - l->pad_l + l->kw;
      int64_t r0 = r_lo < 0 ? 0 : r_lo, r1 = r_hi > H ? H : r_hi, c0 = c_lo < 0 ? 0 : c_lo, c1 = c_hi > W ? W : c_hi;
      set_pool(op, l, r1 - r0, c1 - c0, yb - ya, xb - xa);
      op->ppt = (int)(r0 - r_lo), op->ppl = (int)(c0 - c_lo);
      op->in[0].h = r1 - r0, op->in[0].w = c1 - c0;
      op->in[0].byte_off = r0 * op->in[0].row_stride + c0 * op->in[0].pix_stride;
      op->out.h = yb - ya, op->out.w = xb - xa;
      op->out.byte_off = ya * op->out.row_stride + xa * op->out.pix_stride;
    }
  return 0;
}

// The copy of DTensor src into its padded twin (identity scale, no activation).
static int copy_to_twin(Lw *w, int src, int layer_id) {
  MachProg *mp = w->mp;
  char what[96];
  snprintf(what, sizeof what, "copy %.40s -> padded", mp->tensors[src].name);
  MachOp *op = new_op(w, MOP_ELT, layer_id, what);
  if (!op) return oom(w);
  op->n_in = 1;
  op->in[0] = view_of(mp, src);
  op->out = view_of(mp, w->padded[src]);
  op->oh = op->poh = op->in[0].h, op->ow = op->pow = op->in[0].w;
  op->N = op->out.c;
  if (alloc_params(op, op->N)) return oom(w);
  for (int64_t j = 0; j < op->N; j++) op->mult[j] = ID_MULT, op->shift[j] = (int32_t)ID_SHIFT;
  return 0;
}

static int lower_layer(Lw *w, int i, int layer_id) {
  const Graph *g = w->g;
  const Layer *l = &g->layers[i];
  char what[96];
  snprintf(what, sizeof what, "%s", l->name);
  for (int j = i + 1; j < g->n_layers; j++)
    if (w->group[j] == i) snprintf(what + strlen(what), sizeof what - strlen(what), "+%s", g->layers[j].name);
  MachOp *op;
  switch (l->op) {
  case LOP_CONV2D:
  case LOP_FC:
    return lower_gemm(w, i, layer_id, what);
  case LOP_ADD:
    if (!(op = elt_op(w, i, layer_id, what, 0, l->out_rq))) return oom(w);
    op->n_in = 2;
    op->in[1] = view_of(w->mp, w->dt[l->in[1]]);
    op->in_mult[0] = l->rq[0].mult, op->in_shift[0] = l->rq[0].shift;
    op->in_mult[1] = l->rq[1].mult, op->in_shift[1] = l->rq[1].shift;
    return 0;
  case LOP_RELU: case LOP_RELU6: case LOP_CLIP:
    return elt_op(w, i, layer_id, what, 0, l->rq[0]) ? 0 : oom(w);
  case LOP_MAXPOOL: case LOP_AVGPOOL: case LOP_GLOBAL_AVGPOOL: {
    const Tensor *to = &g->tensors[l->out];
    int fold = l->op == LOP_GLOBAL_AVGPOOL && !pool_fits(l);   // a map over 15x15: lower_sfu.c folds it
    if (!pool_fits(l) && !fold)
      return graph_layer_error(g, l, w->d, "pooling window %dx%d (stride %dx%d, padding %d,%d) exceeds the "
                                           "machine's pooling limits (%lld)", l->kh, l->kw, l->sh, l->sw, l->pad_t,
                               l->pad_l, (long long)isa_field_max(FLD_KH));
    if (l->op == LOP_AVGPOOL && l->n_rq > 1) return lower_avgpool_exclusive(w, i, layer_id, what);
    if (!(op = elt_op(w, i, layer_id, what, 0, l->rq[0]))) return oom(w);
    set_pool(op, l, op->in[0].h, op->in[0].w, to->dims[1], to->dims[2]);
    return fold ? lower_fold_pool(g, l, w->a, op, w->d) : 0;
  }
  case LOP_CONCAT: {
    int64_t off = 0;
    for (int k = 0; k < l->n_in; k++) {
      if (!(op = elt_op(w, i, layer_id, what, k, l->rq[k]))) return oom(w);
      op->out.c_off = off;
      op->act = ACT_NONE, op->lo = -128, op->hi = 127;
      off += op->in[0].c;
    }
    return 0;
  }
  case LOP_FLATTEN: case LOP_RESHAPE:
  case LOP_BATCHNORM: case LOP_BIAS:  // folded away by net_prepare (fold.c)
    return 0;
  case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_GELU: case LOP_SIGMOID: case LOP_SILU:
  case LOP_HARDSWISH: case LOP_HARDSIGMOID: case LOP_MUL: case LOP_SUB: case LOP_MUL_CONST:   // lower_sfu.c
    if (!(op = elt_op(w, i, layer_id, what, 0, l->out_rq))) return oom(w);   // parameters: lower_sfu_op
    if (l->n_in == 2) op->n_in = 2, op->in[1] = view_of(w->mp, w->dt[l->in[1]]);
    return lower_sfu_op(g, l, w->a, op, w->d);
  case LOP_MATMUL:
    return lower_matmul(w, i, layer_id, what);
  case LOP_TRANSPOSE:
    return lower_transpose(w, i, layer_id, what);
  }
  return graph_layer_error(g, l, w->d, "internal error: op %s is not lowered", graph_op_name(l->op));
}

// Liveness of every DTensor over the ops (through aliases, on the owner).
static void liveness(MachProg *mp) {
  for (int o = 0; o < mp->n_ops; o++) {
    MachOp *op = &mp->ops[o];
    DTensor *out = &mp->tensors[dt_owner(mp, op->out.t)];
    if (out->first_op < 0) out->first_op = o;
    if (out->last_op < o) out->last_op = o;
    for (int k = 0; k < op->n_in; k++) {
      DTensor *t = &mp->tensors[dt_owner(mp, op->in[k].t)];
      if (t->last_op < o) t->last_op = o;
    }
  }
  for (int i = 0; i < mp->n_tensors; i++) {
    DTensor *t = &mp->tensors[i];
    if (t->role == ROLE_OUTPUT || t->role == ROLE_INPUT) mp->tensors[dt_owner(mp, i)].last_op = mp->n_ops;
    if (t->role == ROLE_INPUT) t->first_op = -1;
  }
}

// ---- what the ISA can encode -------------------------------------------------------------------

// A DRAM stride emit.c will put in a CFG_LOAD or CFG_STORE field: it must fit the field
// (isa/isa_fields.def), else the layer is too large for the machine and the error says why.
static int stride_fits(const Lw *w, const Layer *l, int64_t bytes, Opcode op, FieldId f, const char *what) {
  if (bytes <= isa_field_max(f)) return 0;
  return graph_layer_error(w->g, l, w->d, "%s %lld bytes apart in DRAM, more than %s %s can hold (%lld)", what,
                           (long long)bytes, isa_ops[op].name, isa_fields[f].name, (long long)isa_field_max(f));
}

static int view_fits(const Lw *w, const Layer *l, const TView *v, int64_t sh, int64_t sw, Opcode op, const char *rows,
                     const char *pixels) {
  return stride_fits(w, l, sh * v->row_stride, op, FLD_STRIDE_OUTER, rows) ||
         stride_fits(w, l, sw * v->pix_stride, op, FLD_STRIDE_INNER, pixels);
}

// The strides of the ops lowered from layer l (ops first.. of mp): the same values emit.c
// configures (weights: K*C or, input-stationary, K; im2col: the input's scaled by the conv
// stride; element-wise inputs and every output as they are). The other fields are kept in
// range by tiling (tile.c) and memory planning.
static int ops_encodable(const Lw *w, const Layer *l, int first) {
  const MachProg *mp = w->mp;
  for (int i = first; i < mp->n_ops; i++) {
    const MachOp *op = &mp->ops[i];
    switch (op->kind) {
    case MOP_GEMM: {
      int64_t wrow = op->b_act ? 0 : op->df == DF_IS ? op->K : op->K * (int64_t)w->a->cols;  // matmul: lower_mm.c
      if (stride_fits(w, l, wrow, OP_CFG_LOAD, FLD_STRIDE_OUTER, "the weight rows are") ||
          view_fits(w, l, &op->in[0], op->sh, op->sw, OP_CFG_LOAD, "the input rows are", "the input pixels are"))
        return -1;
      break;
    }
    case MOP_ELT:
      for (int k = 0; k < op->n_in; k++)
        if (view_fits(w, l, &op->in[k], 1, 1, OP_CFG_LOAD, "the input rows are", "the input pixels are")) return -1;
      break;
    }
    if (view_fits(w, l, &op->out, 1, 1, OP_CFG_STORE, "the output rows are", "the output pixels are")) return -1;
  }
  return 0;
}

// A special-function op (GOPF_SFU) that lower_sfu.c does not lower would run in sacc ref but
// not on the machine: the first one is refused by name (none today: it lowers every one).
static int sfu_refuse(const Graph *g, Diag *d) {
  for (int i = 0; i < g->n_layers; i++)
    if (graph_op_is(g->layers[i].op, GOPF_SFU) && !lower_sfu_lowers(g->layers[i].op))
      return graph_layer_error(g, &g->layers[i], d,
                               "%s is not lowered onto the machine yet (docs/COMPILER.md); "
                               "sacc ref runs this network, sacc compile cannot",
                               graph_op_name(g->layers[i].op));
  return 0;
}

int lower_graph(const Graph *g, const Arch *a, Dataflow df, const Dataflow *op_df, int n_op_df, MachProg *mp,
                Diag *d) {
  memset(mp, 0, sizeof *mp);
  if (sfu_refuse(g, d)) return -1;
  mp->arch = a;
  mp->dataflow = df;
  mp->per_op = op_df != NULL;
  Lw w = {.g = g, .a = a, .mp = mp, .d = d, .op_df = op_df, .n_op_df = n_op_df};
  size_t nl = (size_t)g->n_layers + 1, nt = (size_t)g->n_tensors + 1;
  w.group = calloc(nl, sizeof(int));
  w.gact = calloc(nl, sizeof(unsigned));
  w.glo = calloc(nl, 1);
  w.ghi = calloc(nl, 1);
  w.gpool = calloc(nl, sizeof(int));
  w.gtail = calloc(nl, sizeof(int));
  w.readers = calloc(nt, sizeof(int));
  w.is_output = calloc(nt, sizeof(int));
  w.dt = calloc(nt, sizeof(int));
  mp->layer_names = calloc(nl + (size_t)g->n_inputs, sizeof *mp->layer_names);   // + input copies
  int rc = 0;
  if (!w.group || !w.gact || !w.glo || !w.ghi || !w.gpool || !w.gtail || !w.readers || !w.is_output || !w.dt ||
      !mp->layer_names)
    rc = oom(&w);
  if (!rc) {
    for (int i = 0; i < g->n_layers; i++)
      for (int k = 0; k < g->layers[i].n_in; k++) w.readers[g->layers[i].in[k]]++;
    for (int i = 0; i < g->n_outputs; i++) w.is_output[g->outputs[i]] = 1;
    fuse(&w);
    rc = make_tensors(&w) ? -1 : 0;
    if (!rc) lower_mm_fold(&w);
    rc = rc || layout(&w) ? -1 : 0;
  }
  for (int i = 0; i < g->n_inputs && !rc; i++) {   // padded twins of network inputs come first
    int t = w.dt[g->inputs[i]];
    if (w.padded[t] < 0) continue;
    int id = mp->n_layers++;
    snprintf(mp->layer_names[id], PROG_NAME_MAX, "%s", mp->tensors[w.padded[t]].name);
    rc = copy_to_twin(&w, t, id);
  }
  for (int i = 0; i < g->n_layers && !rc; i++) {
    if (w.group[i] != i) continue;
    const Layer *l = &g->layers[i];
    if (graph_op_is(l->op, GOPF_ALIAS) || lower_mm_folded(&w, i)) continue;
    int id = mp->n_layers++;
    snprintf(mp->layer_names[id], PROG_NAME_MAX, "%.*s", PROG_NAME_MAX - 1, l->name);
    int first = mp->n_ops;
    rc = lower_layer(&w, i, id) || ops_encodable(&w, l, first) ? -1 : 0;
    int out = rc ? -1 : dt_owner(mp, w.dt[g->layers[w.gtail[i]].out]);
    for (int t = 0; t < mp->n_tensors && !rc; t++)   // its padded twins, and its aliases' ones
      if (w.padded[t] >= 0 && dt_owner(mp, t) == out) rc = copy_to_twin(&w, t, id);
  }
  if (!rc) liveness(mp);
  free(w.group), free(w.gact), free(w.glo), free(w.ghi), free(w.gpool), free(w.gtail);
  free(w.readers), free(w.is_output), free(w.dt), free(w.padded);
  return rc;
}

void machprog_free(MachProg *mp) {
  if (!mp) return;
  for (int i = 0; i < mp->n_ops; i++) {
    MachOp *op = &mp->ops[i];
    free(op->wmat), free(op->bias), free(op->mult), free(op->shift), free(op->ktiles);
  }
  free(mp->ops);
  free(mp->tensors);
  free(mp->layer_names);
  memset(mp, 0, sizeof *mp);
}

// ---- dumps -----------------------------------------------------------------------------------

static const char *role_name(TensorRole r) {
  switch (r) {
  case ROLE_INPUT: return "input";
  case ROLE_OUTPUT: return "output";
  case ROLE_CONST: return "const";
  case ROLE_SCRATCH: return "scratch";
  }
  return "scratch";
}

const char *lower_mop_name(MopKind k) {
  switch (k) {
  case MOP_GEMM: return "gemm";
  case MOP_ELT: return "elt";
  }
  return "?";
}

const char *lower_dataflow_name(Dataflow df) {
  switch (df) {
  case DF_WS: return "ws";
  case DF_OS: return "os";
  case DF_IS: return "is";
  }
  return "?";
}

void lower_dump_layout(const MachProg *mp, FILE *f) {
  fprintf(f, "# layout: %d DRAM tensors (NHWC int8, zero halo top,bottom,left,right)\n", mp->n_tensors);
  for (int i = 0; i < mp->n_tensors; i++) {
    const DTensor *t = &mp->tensors[i];
    fprintf(f, "tensor %-20s %-7s [%lld,%lld,%lld,%lld]", t->name, role_name(t->role), (long long)t->n,
            (long long)t->h, (long long)t->w, (long long)t->c);
    if (t->alias >= 0 && t->permuted)   // a transpose folded into matmuls (lower_mm.c)
      fprintf(f, " alias of %s axes %d,%d,%d,%d", mp->tensors[t->alias].name, t->perm[0], t->perm[1], t->perm[2],
              t->perm[3]);
    else if (t->alias >= 0)
      fprintf(f, " alias of %s", mp->tensors[t->alias].name);
    else
      fprintf(f, " halo %d,%d,%d,%d row %lld B image %lld B", t->halo_t, t->halo_b, t->halo_l, t->halo_r,
              (long long)dt_row_stride(t), (long long)dt_img_stride(t));
    fprintf(f, " live ops %d..%d\n", t->first_op, t->last_op);
  }
}

static const char *act_name(unsigned a) { return a == ACT_RELU ? "relu" : a == ACT_CLAMP ? "clamp" : "none"; }

void lower_dump_ops(const MachProg *mp, FILE *f) {
  fprintf(f, "# lower: %d machine ops\n", mp->n_ops);
  for (int i = 0; i < mp->n_ops; i++) {
    const MachOp *op = &mp->ops[i];
    const TView *o = &op->out;
    fprintf(f, "op %d layer %d %s %s:", i, op->layer, lower_mop_name(op->kind), op->what);
    for (int k = 0; k < op->n_in; k++)
      fprintf(f, " %s[c %lld+%lld]", mp->tensors[op->in[k].t].name, (long long)op->in[k].c_off,
              (long long)op->in[k].c);
    fprintf(f, " -> %s[c %lld+%lld]", mp->tensors[o->t].name, (long long)o->c_off, (long long)o->c);
    switch (op->kind) {
    case MOP_GEMM:
      fprintf(f, " M=%lld K=%lld N=%lld window %dx%d/%dx%d dil %dx%d pad %d,%d ktiles %u",
              (long long)(op->in[0].n * op->oh * op->ow), (long long)op->K, (long long)op->N, op->kh, op->kw, op->sh,
              op->sw, op->dh, op->dw, op->pad_t, op->pad_l, op->n_ktiles);
      if (op->n_ktiles)
        fprintf(f, " (first: %u x %u B, stride %u)", op->ktiles[0].nseg, op->ktiles[0].seglen, op->ktiles[0].seg_stride);
      if (op->b_act)   // matmul: B from DRAM (lower_mm.c)
        fprintf(f, " B from %s (%s)", mp->tensors[op->in[1].t].name, op->b_nstride != 1 ? "transposed: rows of B^T" : "rows");
      break;
    case MOP_ELT:
      if (op->in[0].c_stride)   // a transpose moving the channel axis (lower_mm.c)
        fprintf(f, " gather a byte per channel, %lld B apart", (long long)op->in[0].c_stride);
      if (op->n_in == 2)
        fprintf(f, " scales %d>>%u, %d>>%u", op->in_mult[0], op->in_shift[0], op->in_mult[1], op->in_shift[1]);
      if (op->sfu != SFUK_NONE) fprintf(f, " %s%s", lower_sfu_name(op), op->bcast ? " bcast" : "");
      if (op->fold_w) fprintf(f, " folded %lldx%lld", (long long)op->oh, (long long)op->fold_w);
      break;
    }
    if (op->pool != POOL_NONE)
      fprintf(f, " %spool %dx%d/%dx%d pad %d,%d -> %lldx%lld", op->pool == POOL_MAX ? "max" : "avg", op->pkh, op->pkw,
              op->psh, op->psw, op->ppt, op->ppl, (long long)op->poh, (long long)op->pow);
    fprintf(f, " act %s", act_name(op->act));
    if (op->act == ACT_CLAMP) fprintf(f, " [%d,%d]", op->lo, op->hi);
    fprintf(f, " mult %d>>%d\n", op->mult ? op->mult[0] : 0, op->shift ? op->shift[0] : 0);
  }
}
