// shape.c: shape inference (shape.h). In topological order, computes each layer's output shape
// and scale, resolves "same" padding (TensorFlow's rule: out = ceil(in / stride), the extra
// padding row or column at the bottom/right), rejects impossible windows, and materializes
// weights and biases from their sources (inline, .npy or seed) once the input channels are
// known, checking their sizes. Numbers for the machine are quant.c's job.
#include "shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/sfu_math.h"

uint64_t shape_seed_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double shape_seed_unit(uint64_t *state) { return (double)(shape_seed_next(state) >> 11) * 0x1p-53; }

static void set_shape(Tensor *t, int rank, int64_t a, int64_t b, int64_t c, int64_t d) {
  t->rank = rank;
  t->dims[0] = a, t->dims[1] = b, t->dims[2] = c, t->dims[3] = d;
}

// "same" padding along one axis: total = max((out-1)*s + eff_k - in, 0), the odd one at the end.
static void same_pad(int64_t in, int k_eff, int s, int *lo, int *hi) {
  int64_t out = (in + s - 1) / s;
  int64_t total = (out - 1) * s + k_eff - in;
  if (total < 0) total = 0;
  *lo = (int)(total / 2);
  *hi = (int)(total - total / 2);
}

// The window ops (conv2d, maxpool, avgpool): output height and width.
static int window_shape(const Graph *g, Layer *l, const Tensor *in, int64_t *oh, int64_t *ow, Diag *d) {
  if (in->rank != 4) return graph_layer_error(g, l, d, "%s needs a rank-4 NHWC input", graph_op_name(l->op));
  int ekh = (l->kh - 1) * l->dh + 1, ekw = (l->kw - 1) * l->dw + 1;
  if (l->pad_same) {
    same_pad(in->dims[1], ekh, l->sh, &l->pad_t, &l->pad_b);
    same_pad(in->dims[2], ekw, l->sw, &l->pad_l, &l->pad_r);
  }
  int64_t ph = in->dims[1] + l->pad_t + l->pad_b, pw = in->dims[2] + l->pad_l + l->pad_r;
  if (ekh > ph || ekw > pw) {
    if (l->dh > 1 || l->dw > 1)
      return graph_layer_error(g, l, d, "dilated kernel %dx%d exceeds padded input %lldx%lld", ekh, ekw, (long long)ph,
                               (long long)pw);
    return graph_layer_error(g, l, d, "kernel %dx%d exceeds padded input %lldx%lld", l->kh, l->kw, (long long)ph,
                             (long long)pw);
  }
  if (l->op != LOP_CONV2D && (l->pad_t >= l->kh || l->pad_b >= l->kh || l->pad_l >= l->kw || l->pad_r >= l->kw))
    return graph_layer_error(g, l, d, "padding %d,%d,%d,%d must be smaller than the window %dx%d", l->pad_t, l->pad_b,
                             l->pad_l, l->pad_r, l->kh, l->kw);
  *oh = (ph - ekh) / l->sh + 1;
  *ow = (pw - ekw) / l->sw + 1;
  return 0;
}

// Fills l->w (count int8 values, expected dims want[0..rank-1]) from l->w_src, or l->wf (real
// values) when the weights are float; fan_in scales seeded real weights (variance 1/fan_in).
static int load_weights(const Graph *g, Layer *l, int rank, const int64_t *want, int64_t count, int64_t fan_in,
                        Diag *d) {
  Source *s = &l->w_src;
  if (s->kind == SRC_NPY) {
    if (s->npy.ndim != (uint32_t)rank)
      return graph_layer_error(g, l, d, "weights file has %u dimensions, need %d", s->npy.ndim, rank);
    for (int i = 0; i < rank; i++)
      if (s->npy.dims[i] != (uint64_t)want[i])
        return graph_layer_error(g, l, d, "weights file has dimension %d of %llu, need %lld", i,
                                 (unsigned long long)s->npy.dims[i], (long long)want[i]);
  }
  if (s->kind == SRC_INLINE && s->count != count)
    return graph_layer_error(g, l, d, "\"weights\" has %lld values, need %lld", (long long)s->count, (long long)count);
  l->w_count = count;
  uint64_t state = s->seed;
  if (l->w_is_float) {
    l->wf = malloc((size_t)count * sizeof(float) + 1);
    if (!l->wf) return graph_layer_error(g, l, d, "out of memory");
    double amp = sqrt(3.0 / (double)fan_in);  // uniform on [-amp, amp): variance 1/fan_in
    for (int64_t i = 0; i < count; i++) {
      switch (s->kind) {
      case SRC_INLINE: l->wf[i] = (float)s->reals[i]; break;
      case SRC_SEED: l->wf[i] = (float)((2 * shape_seed_unit(&state) - 1) * amp); break;
      case SRC_NPY:
        if (s->npy.type == NPY_F32) l->wf[i] = ((const float *)s->npy.data)[i];
        else l->wf[i] = (float)((const double *)s->npy.data)[i];
        break;
      case SRC_NONE: l->wf[i] = 0; break;   // not reached: net.c requires "weights"
      }
      if (!isfinite(l->wf[i]))
        return graph_layer_error(g, l, d, "weight %lld is not a finite float32 value", (long long)i);
    }
    return 0;
  }
  l->w = malloc((size_t)count + 1);
  if (!l->w) return graph_layer_error(g, l, d, "out of memory");
  for (int64_t i = 0; i < count; i++) {
    switch (s->kind) {
    case SRC_INLINE: l->w[i] = (int8_t)s->values[i]; break;
    case SRC_NPY: l->w[i] = ((const int8_t *)s->npy.data)[i]; break;
    case SRC_SEED:
    case SRC_NONE:   // (not reached: net.c requires "weights")
      l->w[i] = (int8_t)(uint8_t)shape_seed_next(&state);
      break;
    }
  }
  return 0;
}

// Materializes a per-channel real parameter (batchnorm, bias op) as count doubles in *out;
// a seeded one is lo + span * u with u uniform in [0, 1).
static int load_reals(const Graph *g, Layer *l, const char *key, Source *s, int64_t count, double lo, double span,
                      double **out, Diag *d) {
  if (s->kind == SRC_INLINE && s->count != count)
    return graph_layer_error(g, l, d, "\"%s\" has %lld values, need %lld (the channels)", key, (long long)s->count,
                             (long long)count);
  if (s->kind == SRC_NPY && (s->npy.ndim != 1 || s->npy.dims[0] != (uint64_t)count))
    return graph_layer_error(g, l, d, "\"%s\" file must have shape [%lld]", key, (long long)count);
  if (!(*out = malloc((size_t)count * sizeof(double) + 1))) return graph_layer_error(g, l, d, "out of memory");
  uint64_t state = s->seed;
  for (int64_t i = 0; i < count; i++) {
    double v = 0;
    switch (s->kind) {
    case SRC_INLINE: v = s->reals[i]; break;
    case SRC_SEED: v = lo + span * shape_seed_unit(&state); break;
    case SRC_NPY: v = s->npy.type == NPY_F32 ? ((const float *)s->npy.data)[i] : ((const double *)s->npy.data)[i]; break;
    case SRC_NONE: break;   // not reached: net.c's get_reals requires the key
    }
    if (!isfinite(v)) return graph_layer_error(g, l, d, "\"%s\"[%lld] is not finite", key, (long long)i);
    (*out)[i] = v;
  }
  return 0;
}

// Normalizes the bias to SRC_INLINE with cout values (integers) or reals; none stays SRC_NONE.
static int load_bias(const Graph *g, Layer *l, Diag *d) {
  Source *s = &l->b_src;
  if (s->kind == SRC_NONE) return 0;
  if (s->kind == SRC_INLINE) {
    if (s->count != l->cout)
      return graph_layer_error(g, l, d, "\"%s\" has %lld values, need cout = %lld", l->b_is_float ? "bias_float" : "bias",
                               (long long)s->count, (long long)l->cout);
    return 0;
  }
  Source nb = {.kind = SRC_INLINE, .count = l->cout};
  if (l->b_is_float) nb.reals = malloc((size_t)l->cout * sizeof(double));
  else nb.values = malloc((size_t)l->cout * sizeof(int64_t));
  if (!nb.reals && !nb.values) return graph_layer_error(g, l, d, "out of memory");
  if (s->kind == SRC_NPY && (s->npy.ndim != 1 || s->npy.dims[0] != (uint64_t)l->cout)) {
    source_free(&nb);
    return graph_layer_error(g, l, d, "bias file must have shape [%lld]", (long long)l->cout);
  }
  uint64_t state = s->seed;
  for (int64_t i = 0; i < l->cout; i++) {
    switch (s->kind) {
    case SRC_SEED:
      if (s->real_seed) nb.reals[i] = (shape_seed_unit(&state) - 0.5) * 0.2;
      else nb.values[i] = (int64_t)(shape_seed_next(&state) & 0xfff) - 2048 + s->offset;
      break;
    case SRC_NPY:
      if (s->npy.type == NPY_I32) nb.values[i] = ((const int32_t *)s->npy.data)[i];
      else if (s->npy.type == NPY_F32) nb.reals[i] = ((const float *)s->npy.data)[i];
      else nb.reals[i] = ((const double *)s->npy.data)[i];
      break;
    case SRC_NONE: case SRC_INLINE:   // returned above
      break;
    }
  }
  source_free(s);
  *s = nb;
  return 0;
}

static int infer_conv(const Graph *g, Layer *l, const Tensor *in, Tensor *out, int64_t max_elems, Diag *d) {
  int64_t oh = 0, ow = 0;
  if (window_shape(g, l, in, &oh, &ow, d)) return -1;
  l->cin = in->dims[3];
  if (l->cin % l->groups || l->cout % l->groups)
    return graph_layer_error(g, l, d, "groups %d must divide cin %lld and cout %lld", l->groups, (long long)l->cin,
                             (long long)l->cout);
  int64_t cpg = l->cin / l->groups;
  int64_t want[4] = {l->kh, l->kw, cpg, l->cout};
  if ((double)l->kh * l->kw * (double)cpg * (double)l->cout > (double)max_elems) return graph_layer_error(g, l, d, "weights have more than %lld values", (long long)max_elems);
  if (!l->w_is_float && l->n_wscale != 1 && l->n_wscale != l->cout)
    return graph_layer_error(g, l, d, "\"weight_scale\" needs 1 or %lld values", (long long)l->cout);
  set_shape(out, 4, in->dims[0], oh, ow, l->cout);
  if (load_weights(g, l, 4, want, want[0] * want[1] * want[2] * want[3], want[0] * want[1] * want[2], d)) return -1;
  return load_bias(g, l, d);
}

static int infer_fc(const Graph *g, Layer *l, const Tensor *in, Tensor *out, int64_t max_elems, Diag *d) {
  l->cin = graph_tensor_count(in) / in->dims[0];
  int64_t want[2] = {l->cin, l->cout};
  if ((double)l->cin * (double)l->cout > (double)max_elems)
    return graph_layer_error(g, l, d, "weights have more than %lld values", (long long)max_elems);
  set_shape(out, 2, in->dims[0], l->cout, 0, 0);
  if (load_weights(g, l, 2, want, l->cin * l->cout, l->cin, d)) return -1;
  return load_bias(g, l, d);
}

static int same_shape(const Tensor *a, const Tensor *b) {
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

static void shape_str(const Tensor *t, char *buf, size_t len) {
  size_t used = 0;
  for (int i = 0; i < t->rank && used < len; i++) {
    int w = snprintf(buf + used, len - used, "%s%lld", i ? "x" : "", (long long)t->dims[i]);
    if (w > 0) used += (size_t)w;
  }
}

// The special-function ops of one input keep its shape; softmax and layernorm work along the
// last (channel) axis, whose length is a row of the unit (1..SFU_ROW_MAX); layernorm loads its
// per-channel gamma (default 1) and beta (default 0).
static int infer_unary(const Graph *g, Layer *l, const Tensor *in, Tensor *out, int64_t max_elems, Diag *d) {
  (void)max_elems;
  *out = (Tensor){out->name, in->rank, {in->dims[0], in->dims[1], in->dims[2], in->dims[3]}, out->scale, out->producer};
  if (l->op != LOP_SOFTMAX && l->op != LOP_LAYERNORM) return 0;
  if (l->axis != -1 && l->axis != in->rank - 1)
    return graph_layer_error(g, l, d, "%s is along the last axis only (axis -1 or %d), not %d", graph_op_name(l->op),
                             in->rank - 1, l->axis);
  int64_t c = in->dims[in->rank - 1];
  if (c > SFU_ROW_MAX)
    return graph_layer_error(g, l, d, "%s row of %lld values, longer than the unit's %d", graph_op_name(l->op),
                             (long long)c, SFU_ROW_MAX);
  if (l->op == LOP_SOFTMAX) return 0;
  l->cout = c;
  static const char *const keys[2] = {"gamma", "beta"};
  for (int k = BN_GAMMA; k <= BN_BETA; k++) {
    if (l->bn_src[k].kind != SRC_NONE) {
      if (load_reals(g, l, keys[k], &l->bn_src[k], c, k == BN_GAMMA ? 0.5 : -0.25, k == BN_GAMMA ? 1 : 0.5, &l->bn[k], d))
        return -1;
      continue;
    }
    if (!(l->bn[k] = malloc((size_t)c * sizeof(double) + 1))) return graph_layer_error(g, l, d, "out of memory");
    for (int64_t i = 0; i < c; i++) l->bn[k][i] = k == BN_GAMMA ? 1 : 0;
  }
  return 0;
}

// mul and sub: two tensors of one rank; sub needs equal shapes, mul lets the second input
// broadcast along any axis where it has size 1 ([N,1,1,C] against [N,H,W,C]: squeeze-excitation).
static int infer_binary(const Graph *g, Layer *l, const Tensor *a, const Tensor *b, Tensor *out, Diag *d) {
  int ok = a->rank == b->rank;
  for (int i = 0; ok && i < a->rank; i++)
    ok = a->dims[i] == b->dims[i] || (l->op == LOP_MUL && b->dims[i] == 1);
  if (!ok) {
    char sa[64] = "", sb[64] = "";
    shape_str(a, sa, sizeof sa), shape_str(b, sb, sizeof sb);
    return graph_layer_error(g, l, d, "%s of shapes %s and %s: %s", graph_op_name(l->op), sa, sb,
                             l->op == LOP_MUL ? "the second must equal the first or be 1 along each axis"
                                              : "they must be equal");
  }
  *out = (Tensor){out->name, a->rank, {a->dims[0], a->dims[1], a->dims[2], a->dims[3]}, out->scale, out->producer};
  return 0;
}

// matmul of two activations: [.., M, K] x [.., K, P] -> [.., M, P] over the last two axes,
// batched over the leading ones (rank 4: [N, heads, M, K]), which must be equal.
static int infer_matmul(const Graph *g, Layer *l, const Tensor *a, const Tensor *b, Tensor *out, Diag *d) {
  char sa[64] = "", sb[64] = "";
  shape_str(a, sa, sizeof sa), shape_str(b, sb, sizeof sb);
  if (a->rank != b->rank)
    return graph_layer_error(g, l, d, "matmul of rank %d (%s) and rank %d (%s)", a->rank, sa, b->rank, sb);
  int r = a->rank;
  for (int i = 0; i < r - 2; i++)
    if (a->dims[i] != b->dims[i])
      return graph_layer_error(g, l, d, "matmul batch axis %d differs: %s and %s", i, sa, sb);
  if (a->dims[r - 1] != b->dims[r - 2])
    return graph_layer_error(g, l, d, "matmul inner dimensions differ: %s x %s (%lld against %lld)", sa, sb,
                             (long long)a->dims[r - 1], (long long)b->dims[r - 2]);
  *out = (Tensor){out->name, r, {a->dims[0], a->dims[1], a->dims[2], a->dims[3]}, out->scale, out->producer};
  out->dims[r - 1] = b->dims[r - 1];
  l->cin = a->dims[r - 1];  // the inner dimension K (MACs: shape_infer, once the output is checked)
  return 0;
}

static int infer_layer(const Graph *g, Layer *l, int64_t max_elems, Diag *d) {
  Tensor *in = &g->tensors[l->in[0]], *out = &g->tensors[l->out];
  int64_t oh = 0, ow = 0;
  switch (l->op) {
  case LOP_CONV2D: return infer_conv(g, l, in, out, max_elems, d);
  case LOP_FC: return infer_fc(g, l, in, out, max_elems, d);
  case LOP_BATCHNORM:
  case LOP_BIAS: {  // per-channel parameters over the last dimension
    l->cout = in->dims[in->rank - 1];
    *out = (Tensor){out->name, in->rank, {in->dims[0], in->dims[1], in->dims[2], in->dims[3]}, out->scale, out->producer};
    if (l->op == LOP_BIAS) return load_reals(g, l, "bias", &l->b_src, l->cout, -0.1, 0.2, &l->bias_add, d);
    static const char *const keys[BN_COUNT] = {"gamma", "beta", "mean", "var"};
    static const double lo[BN_COUNT] = {0.5, -0.25, -0.25, 0.5}, span[BN_COUNT] = {1, 0.5, 0.5, 1};
    for (int k = 0; k < BN_COUNT; k++)
      if (load_reals(g, l, keys[k], &l->bn_src[k], l->cout, lo[k], span[k], &l->bn[k], d)) return -1;
    for (int64_t c = 0; c < l->cout; c++)
      if (!(l->bn[BN_VAR][c] + l->bn_eps > 0))
        return graph_layer_error(g, l, d, "var + epsilon of channel %lld is %g, must be positive", (long long)c,
                                 l->bn[BN_VAR][c] + l->bn_eps);
    return 0;
  }
  case LOP_RELU:
  case LOP_RELU6:
  case LOP_CLIP:
    *out = (Tensor){out->name, in->rank, {in->dims[0], in->dims[1], in->dims[2], in->dims[3]}, out->scale, out->producer};
    return 0;
  case LOP_MAXPOOL:
  case LOP_AVGPOOL:
    if (window_shape(g, l, in, &oh, &ow, d)) return -1;
    set_shape(out, 4, in->dims[0], oh, ow, in->dims[3]);
    return 0;
  case LOP_GLOBAL_AVGPOOL:
    if (in->rank != 4) return graph_layer_error(g, l, d, "global_avgpool needs a rank-4 NHWC input");
    l->kh = (int)in->dims[1], l->kw = (int)in->dims[2];  // the window is the whole map
    if ((int64_t)l->kh * l->kw > (1 << 24)) return graph_layer_error(g, l, d, "window of more than 2^24 positions");
    set_shape(out, 4, in->dims[0], 1, 1, in->dims[3]);
    return 0;
  case LOP_ADD: {
    const Tensor *b = &g->tensors[l->in[1]];
    if (!same_shape(in, b)) {
      char sa[64] = "", sb[64] = "";
      shape_str(in, sa, sizeof sa), shape_str(b, sb, sizeof sb);
      return graph_layer_error(g, l, d, "add of different shapes %s and %s", sa, sb);
    }
    *out = (Tensor){out->name, in->rank, {in->dims[0], in->dims[1], in->dims[2], in->dims[3]}, out->scale, out->producer};
    return 0;
  }
  case LOP_CONCAT: {
    int64_t c = 0;
    for (int k = 0; k < l->n_in; k++) {
      const Tensor *t = &g->tensors[l->in[k]];
      int same = t->rank == in->rank;
      for (int i = 0; same && i < t->rank - 1; i++) same = t->dims[i] == in->dims[i];
      if (!same) {
        char sa[64] = "", sb[64] = "";
        shape_str(in, sa, sizeof sa), shape_str(t, sb, sizeof sb);
        return graph_layer_error(g, l, d, "concat input %d has shape %s, incompatible with %s", k, sb, sa);
      }
      c += t->dims[t->rank - 1];
    }
    *out = (Tensor){out->name, in->rank, {in->dims[0], in->dims[1], in->dims[2], in->dims[3]}, out->scale, out->producer};
    out->dims[out->rank - 1] = c;
    return 0;
  }
  case LOP_FLATTEN:
    set_shape(out, 2, in->dims[0], graph_tensor_count(in) / in->dims[0], 0, 0);
    return 0;
  case LOP_RESHAPE: {
    int64_t total = graph_tensor_count(in), known = 1;
    int wild = -1;
    for (int i = 0; i < l->reshape_rank; i++) {
      if (l->reshape_dims[i] < 0) wild = i;
      else known *= l->reshape_dims[i];
      if (known > total) break;
    }
    out->rank = l->reshape_rank;
    for (int i = 0; i < l->reshape_rank; i++) out->dims[i] = l->reshape_dims[i];
    if (wild >= 0 && known <= total && total % known == 0) out->dims[wild] = total / known;
    if (known > total || (wild >= 0 && total % known) || (wild < 0 && known != total)) {
      char sa[64] = "";
      shape_str(in, sa, sizeof sa);
      return graph_layer_error(g, l, d, "cannot reshape %s (%lld elements) to the given shape", sa, (long long)total);
    }
    return 0;
  }
  case LOP_SOFTMAX:
  case LOP_LAYERNORM:
  case LOP_GELU: case LOP_SIGMOID: case LOP_SILU: case LOP_HARDSWISH: case LOP_HARDSIGMOID:
  case LOP_MUL_CONST:
    return infer_unary(g, l, in, out, max_elems, d);
  case LOP_MUL:
  case LOP_SUB:
    return infer_binary(g, l, in, &g->tensors[l->in[1]], out, d);
  case LOP_MATMUL:
    return infer_matmul(g, l, in, &g->tensors[l->in[1]], out, d);
  case LOP_TRANSPOSE:
    if (l->reshape_rank != in->rank)
      return graph_layer_error(g, l, d, "\"perm\" has %d axes, the input has rank %d", l->reshape_rank, in->rank);
    out->rank = in->rank;
    for (int i = 0; i < in->rank; i++) out->dims[i] = in->dims[l->perm[i]];
    return 0;
  }
  return graph_layer_error(g, l, d, "internal error: op %d", (int)l->op);
}

// softmax's output scale is a power of two 2^-k, k in 7..22 (the unit's normalisation shift,
// docs/NETJSON.md): given, or calibrated as the smallest such scale that does not saturate the
// largest probability seen (max p / 127 rounded up to 2^-k), or 1/128 without calibration.
static int softmax_scale(const Graph *g, Layer *l, Tensor *out, const double *calib, Diag *d) {
  if (out->scale != 0) {
    int e;
    double m = frexp(out->scale, &e);   // scale = 0.5 * 2^e for a power of two
    if (m != 0.5 || 1 - e < SOFTMAX_K_MIN || 1 - e > SOFTMAX_K_MAX)
      return graph_layer_error(g, l, d, "softmax's output scale must be a power of two from 2^-%d to 2^-%d, not %g",
                               SOFTMAX_K_MIN, SOFTMAX_K_MAX, out->scale);
    return 0;
  }
  int k = SOFTMAX_K_MIN;
  if (calib)
    while (k < SOFTMAX_K_MAX && ldexp(1.0, -(k + 1)) >= calib[l->out]) k++;
  out->scale = ldexp(1.0, -k);
  return 0;
}

// The output scale: given, inherited from the input by ops that may keep it, calibrated (calib
// non-NULL: max|x| / 127 of the float reference per tensor), or an error.
static int infer_scale(const Graph *g, Layer *l, const double *calib, Diag *d) {
  Tensor *out = &g->tensors[l->out];
  double s_in = g->tensors[l->in[0]].scale;
  switch (graph_ops[l->op].scale) {
  case SCALE_KEEP:
    if (out->scale != 0 && out->scale != s_in)
      return graph_layer_error(g, l, d, "a %s keeps its input's scale %g, not %g", graph_op_name(l->op), s_in, out->scale);
    out->scale = s_in;
    return 0;
  case SCALE_INPUT:
    if (out->scale == 0) out->scale = s_in;
    return 0;
  case SCALE_INPUTS: {
    int same = 1;
    for (int k = 1; k < l->n_in; k++) same &= g->tensors[l->in[k]].scale == s_in;
    if (out->scale == 0 && same) out->scale = s_in;
    if (out->scale == 0 && !calib) return graph_layer_error(g, l, d, "inputs have different scales: give the output \"scale\"");
    break;
  }
  case SCALE_OWN:
    if (out->scale == 0 && !calib) return graph_layer_error(g, l, d, "missing \"scale\" of the output");
    break;
  case SCALE_PROB:
    if (l->op == LOP_SOFTMAX) return softmax_scale(g, l, out, calib, d);
    if (out->scale == 0) out->scale = GRAPH_PROB_SCALE;
    return 0;
  case SCALE_FACTOR:
    if (out->scale == 0) out->scale = s_in * l->factor;
    return 0;
  }
  if (out->scale == 0) out->scale = calib[l->out];
  return 0;
}

int shape_scales(Graph *g, const double *calib, Diag *d) {
  for (int i = 0; i < g->n_inputs; i++) {
    Tensor *t = &g->tensors[g->inputs[i]];
    if (t->scale == 0 && !calib) return diag_error(d, "%s: inputs[%d] \"%s\": error: missing \"scale\"", g->file, i, t->name);
    if (t->scale == 0) t->scale = calib[g->inputs[i]];
  }
  for (int i = 0; i < g->n_layers; i++)
    if (infer_scale(g, &g->layers[i], calib, d)) return -1;
  return 0;
}

// Checks the running cost after layer l against lim (see shape.h).
static int check_budget(const Graph *g, const Layer *l, const ShapeLimits *lim, int64_t macs, int64_t bytes,
                        int64_t layer_bytes, Diag *d) {
  if (lim->max_macs && macs > lim->max_macs)
    return graph_layer_error(g, l, d,
                             "the network needs %.3g MACs up to this layer (%.3g in it), more than the limit of %.3g "
                             "(docs/NETJSON.md \"Limits\"; --allow-large lifts it)",
                             (double)macs, (double)l->macs, (double)lim->max_macs);
  if (lim->max_bytes && bytes > lim->max_bytes)
    return graph_layer_error(g, l, d,
                             "the network needs %.3g bytes of activations and weights up to this layer (%.3g in it), "
                             "more than the limit of %.3g (docs/NETJSON.md \"Limits\"; --allow-large lifts it)",
                             (double)bytes, (double)layer_bytes, (double)lim->max_bytes);
  return 0;
}

int shape_infer(Graph *g, const ShapeLimits *lim, Diag *d) {
  int64_t max_elems = lim->max_elems, macs = 0, bytes = 0;
  for (int i = 0; i < g->n_inputs; i++) bytes += graph_tensor_count(&g->tensors[g->inputs[i]]);
  for (int i = 0; i < g->n_layers; i++) {
    Layer *l = &g->layers[i];
    if (infer_layer(g, l, max_elems, d)) return -1;
    Tensor *out = &g->tensors[l->out];
    int64_t count = 1;
    for (int k = 0; k < out->rank; k++) {
      if (out->dims[k] < 1) return graph_layer_error(g, l, d, "empty output");
      count *= out->dims[k];
      if (count > max_elems)
        return graph_layer_error(g, l, d, "output has more than %lld elements", (long long)max_elems);
    }
    if (graph_op_is(l->op, GOPF_WEIGHTS))  // each output value takes w_count / cout products
      l->macs = count * (l->w_count / l->cout);
    if (l->op == LOP_MATMUL) l->macs = count * l->cin;  // both below max_elems
    // int8 activations, weights as float32 or int8 (each term below 2^31 * 4: no overflow)
    int64_t layer_bytes = count + l->w_count * (l->w_is_float ? 4 : 1);
    macs = l->macs > INT64_MAX - macs ? INT64_MAX : macs + l->macs;
    bytes = layer_bytes > INT64_MAX - bytes ? INT64_MAX : bytes + layer_bytes;
    if (check_budget(g, l, lim, macs, bytes, layer_bytes, d)) return -1;
  }
  return 0;
}
