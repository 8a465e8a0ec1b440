// ref_float.c: the float reference interpreter (ref_float.h). Plain float loops, one per op,
// written apart from ref.c's integer loops (nothing shared: the two judge each other). Real
// weights: Layer.wf for float weights, else int8 w times the channel's weight scale. The
// fused activations are the real functions (relu, min(max(x, 0), 6), clip).
#include "ref_float.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t idx4(const Tensor *t, int64_t n, int64_t y, int64_t x, int64_t c) {
  return ((n * t->dims[1] + y) * t->dims[2] + x) * t->dims[3] + c;
}

static float act_real(const Layer *l, double v) {
  switch (l->act_kind) {
  case ACT_KIND_NONE: break;
  case ACT_KIND_RELU: v = v > 0 ? v : 0; break;
  case ACT_KIND_RELU6: v = v < 0 ? 0 : v > 6 ? 6 : v; break;
  case ACT_KIND_CLIP: v = v < l->clip_lo ? l->clip_lo : v > l->clip_hi ? l->clip_hi : v; break;
  }
  return (float)v;
}

// Per output channel: the real weight factor (1 for float weights) and the real bias.
static int channel_params(const Graph *g, const Layer *l, double *wmul, double *bias, Diag *d) {
  double s_in = g->tensors[l->in[0]].scale;
  for (int64_t c = 0; c < l->cout; c++) {
    double s_w = l->w_is_float ? 1 : l->wscale[l->n_wscale == 1 ? 0 : c];
    wmul[c] = s_w;
    bias[c] = l->bias_add ? l->bias_add[c] : 0;
    if (l->b_src.kind == SRC_NONE) continue;
    if (l->b_is_float) {
      bias[c] += l->b_src.reals[c];
    } else {
      if (!(s_in > 0))
        return graph_layer_error(g, l, d, "an integer \"bias\" needs the input's scale (give it, or use \"bias_float\")");
      bias[c] += (double)l->b_src.values[c] * s_in * s_w;
    }
  }
  return 0;
}

// conv2d and fc (fc is a 1x1 conv over a 1x1 map of cin channels).
static int conv_real(const Graph *g, const Layer *l, const float *x, float *y, Diag *d) {
  const Tensor *ti = &g->tensors[l->in[0]], *to = &g->tensors[l->out];
  int is_fc = l->op == LOP_FC;
  int64_t cout = l->cout, cpg = is_fc ? l->cin : l->cin / l->groups, opg = is_fc ? cout : cout / l->groups;
  int64_t groups = is_fc ? 1 : l->groups, oh = is_fc ? 1 : to->dims[1], ow = is_fc ? 1 : to->dims[2];
  double *wmul = malloc((size_t)cout * sizeof(double) + 1), *bias = malloc((size_t)cout * sizeof(double) + 1);
  float *acc = malloc((size_t)cout * sizeof(float) + 1), *wr = malloc((size_t)l->w_count * sizeof(float) + 1);
  int rc = !wmul || !bias || !acc || !wr ? graph_layer_error(g, l, d, "out of memory") : 0;
  if (!rc) rc = channel_params(g, l, wmul, bias, d);
  for (int64_t i = 0; !rc && i < l->w_count; i++) wr[i] = l->w_is_float ? l->wf[i] : (float)l->w[i];
  for (int64_t n = 0; !rc && n < to->dims[0]; n++)
    for (int64_t oy = 0; oy < oh; oy++)
      for (int64_t ox = 0; ox < ow; ox++) {
        for (int64_t c = 0; c < cout; c++) acc[c] = 0;
        for (int ky = 0; ky < l->kh; ky++)
          for (int kx = 0; kx < l->kw; kx++) {
            const float *xp;
            if (is_fc) {
              xp = x + n * l->cin;
            } else {
              int64_t iy = oy * l->sh - l->pad_t + (int64_t)ky * l->dh, ix = ox * l->sw - l->pad_l + (int64_t)kx * l->dw;
              if (iy < 0 || iy >= ti->dims[1] || ix < 0 || ix >= ti->dims[2]) continue;
              xp = x + idx4(ti, n, iy, ix, 0);
            }
            const float *wt = wr + (int64_t)(ky * l->kw + kx) * cpg * cout;
            for (int64_t gi = 0; gi < groups; gi++)
              for (int64_t ci = 0; ci < cpg; ci++) {
                float a = xp[gi * cpg + ci];
                const float *wp = wt + ci * cout + gi * opg;
                float *ap = acc + gi * opg;
                for (int64_t j = 0; j < opg; j++) ap[j] += a * wp[j];
              }
          }
        float *yp = y + ((n * oh + oy) * ow + ox) * cout;
        for (int64_t c = 0; c < cout; c++) yp[c] = act_real(l, acc[c] * wmul[c] + bias[c]);
      }
  free(wmul), free(bias), free(acc), free(wr);
  return rc;
}

static void pool_real(const Graph *g, const Layer *l, const float *x, float *y) {
  const Tensor *ti = &g->tensors[l->in[0]], *to = &g->tensors[l->out];
  int gap = l->op == LOP_GLOBAL_AVGPOOL;
  int64_t pt = gap ? 0 : l->pad_t, pl = gap ? 0 : l->pad_l;
  for (int64_t n = 0; n < to->dims[0]; n++)
    for (int64_t oy = 0; oy < to->dims[1]; oy++)
      for (int64_t ox = 0; ox < to->dims[2]; ox++)
        for (int64_t c = 0; c < to->dims[3]; c++) {
          double best = -INFINITY, sum = 0;
          int64_t inside = 0;
          for (int64_t ky = 0; ky < l->kh; ky++)
            for (int64_t kx = 0; kx < l->kw; kx++) {
              int64_t iy = oy * l->sh - pt + ky, ix = ox * l->sw - pl + kx;
              if (iy < 0 || iy >= ti->dims[1] || ix < 0 || ix >= ti->dims[2]) continue;
              double v = x[idx4(ti, n, iy, ix, c)];
              best = v > best ? v : best;
              sum += v;
              inside++;
            }
          double count = gap || l->count_include_pad ? (double)l->kh * l->kw : (double)inside;
          y[idx4(to, n, oy, ox, c)] = (float)(l->op == LOP_MAXPOOL ? best : sum / count);
        }
}

// The special-function ops in float: the real functions (GELU with erf, the exact sigmoid).
static float fn_real(LayerOp op, double x) {
  switch (op) {
  case LOP_GELU: return (float)(0.5 * x * (1 + erf(x / sqrt(2.0))));
  case LOP_SIGMOID: return (float)(1 / (1 + exp(-x)));
  case LOP_SILU: return (float)(x / (1 + exp(-x)));
  case LOP_HARDSWISH: return (float)(x * fmin(fmax(x + 3, 0), 6) / 6);
  case LOP_HARDSIGMOID: return (float)(fmin(fmax(x + 3, 0), 6) / 6);
  case LOP_CONV2D: case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL: case LOP_AVGPOOL:
  case LOP_GLOBAL_AVGPOOL: case LOP_ADD: case LOP_CONCAT: case LOP_FLATTEN: case LOP_RESHAPE: case LOP_BATCHNORM:
  case LOP_BIAS: case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_MUL: case LOP_SUB: case LOP_MUL_CONST:
  case LOP_MATMUL: case LOP_TRANSPOSE:
    break;
  }
  return (float)x;
}

// softmax and layernorm along the last axis, one row at a time in double.
static void row_real(const Graph *g, const Layer *l, const float *x, float *y) {
  const Tensor *to = &g->tensors[l->out];
  int64_t c = to->dims[to->rank - 1], rows = graph_tensor_count(to) / c;
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * c;
    float *yr = y + r * c;
    if (l->op == LOP_SOFTMAX) {
      double m = -INFINITY, sum = 0;
      for (int64_t i = 0; i < c; i++) m = fmax(m, xr[i]);
      for (int64_t i = 0; i < c; i++) sum += exp((double)xr[i] - m);
      for (int64_t i = 0; i < c; i++) yr[i] = (float)(exp((double)xr[i] - m) / sum);
      continue;
    }
    double mean = 0, var = 0;
    for (int64_t i = 0; i < c; i++) mean += xr[i];
    mean /= (double)c;
    for (int64_t i = 0; i < c; i++) var += ((double)xr[i] - mean) * ((double)xr[i] - mean);
    var /= (double)c;
    double inv = 1 / sqrt(var + l->bn_eps);
    for (int64_t i = 0; i < c; i++) yr[i] = (float)(((double)xr[i] - mean) * inv * l->bn[BN_GAMMA][i] + l->bn[BN_BETA][i]);
  }
}

static void matmul_real(const Graph *g, const Layer *l, const float *a, const float *b, float *y) {
  const Tensor *to = &g->tensors[l->out];
  int r = to->rank;
  int64_t m = to->dims[r - 2], p = to->dims[r - 1], k = l->cin, batches = graph_tensor_count(to) / (m * p);
  for (int64_t bt = 0; bt < batches; bt++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < p; j++) {
        double acc = 0;
        for (int64_t t = 0; t < k; t++) acc += (double)a[(bt * m + i) * k + t] * b[(bt * k + t) * p + j];
        y[(bt * m + i) * p + j] = (float)acc;
      }
}

// mul (the second input broadcast where it has size 1) and sub.
static void binary_real(const Graph *g, const Layer *l, const float *a, const float *b, float *y) {
  const Tensor *to = &g->tensors[l->out], *tb = &g->tensors[l->in[1]];
  int64_t count = graph_tensor_count(to);
  for (int64_t i = 0; i < count; i++) {
    int64_t rest = i, off = 0, stride = 1;
    for (int k = to->rank - 1; k >= 0; k--) {
      if (tb->dims[k] != 1) off += (rest % to->dims[k]) * stride;
      rest /= to->dims[k];
      stride *= tb->dims[k];
    }
    y[i] = l->op == LOP_MUL ? a[i] * b[off] : a[i] - b[off];
  }
}

static void transpose_real(const Graph *g, const Layer *l, const float *x, float *y) {
  const Tensor *ti = &g->tensors[l->in[0]], *to = &g->tensors[l->out];
  int64_t istride[GRAPH_MAX_RANK], s = 1, count = graph_tensor_count(to);
  for (int k = to->rank - 1; k >= 0; k--) istride[k] = s, s *= ti->dims[k];
  for (int64_t i = 0; i < count; i++) {
    int64_t rest = i, off = 0;
    for (int k = to->rank - 1; k >= 0; k--) {
      off += (rest % to->dims[k]) * istride[l->perm[k]];
      rest /= to->dims[k];
    }
    y[i] = x[off];
  }
}

static int layer_real(const Graph *g, const Layer *l, RefFloat *v, Diag *d) {
  int64_t count = graph_tensor_count(&g->tensors[l->out]);
  float *y = malloc((size_t)count * sizeof(float) + 1);
  if (!y) return graph_layer_error(g, l, d, "out of memory");
  const float *x = v->data[l->in[0]];
  int rc = 0;
  switch (l->op) {
  case LOP_CONV2D: case LOP_FC: rc = conv_real(g, l, x, y, d); break;
  case LOP_RELU: case LOP_RELU6: case LOP_CLIP:
    for (int64_t i = 0; i < count; i++) y[i] = act_real(l, x[i]);
    break;
  case LOP_MAXPOOL: case LOP_AVGPOOL: case LOP_GLOBAL_AVGPOOL: pool_real(g, l, x, y); break;
  case LOP_ADD:
    for (int64_t i = 0; i < count; i++) y[i] = act_real(l, (double)x[i] + v->data[l->in[1]][i]);
    break;
  case LOP_CONCAT: {
    const Tensor *to = &g->tensors[l->out];
    int64_t cout = to->dims[to->rank - 1], rows = count / cout, off = 0;
    for (int k = 0; k < l->n_in; k++) {
      const Tensor *t = &g->tensors[l->in[k]];
      int64_t c = t->dims[t->rank - 1];
      for (int64_t r = 0; r < rows; r++) memcpy(y + r * cout + off, v->data[l->in[k]] + r * c, (size_t)c * sizeof(float));
      off += c;
    }
    break;
  }
  case LOP_FLATTEN: case LOP_RESHAPE: memcpy(y, x, (size_t)count * sizeof(float)); break;
  case LOP_GELU: case LOP_SIGMOID: case LOP_SILU: case LOP_HARDSWISH: case LOP_HARDSIGMOID:
    for (int64_t i = 0; i < count; i++) y[i] = fn_real(l->op, x[i]);
    break;
  case LOP_SOFTMAX: case LOP_LAYERNORM: row_real(g, l, x, y); break;
  case LOP_MUL: case LOP_SUB: binary_real(g, l, x, v->data[l->in[1]], y); break;
  case LOP_MUL_CONST:
    for (int64_t i = 0; i < count; i++) y[i] = (float)(x[i] * l->factor);
    break;
  case LOP_MATMUL: matmul_real(g, l, x, v->data[l->in[1]], y); break;
  case LOP_TRANSPOSE: transpose_real(g, l, x, y); break;
  case LOP_BATCHNORM: case LOP_BIAS:
    rc = graph_layer_error(g, l, d, "internal error: op %s was not folded", graph_op_name(l->op));
    break;
  }
  if (rc) {
    free(y);
    return -1;
  }
  v->data[l->out] = y;
  return 0;
}

int ref_float_run(const Graph *g, const float *const *inputs, RefFloat *out, Diag *d) {
  out->n = g->n_tensors;
  out->data = calloc((size_t)g->n_tensors + 1, sizeof(float *));
  if (!out->data) return diag_error(d, "%s: error: out of memory", g->file);
  for (int i = 0; i < g->n_inputs; i++) {
    int t = g->inputs[i];
    size_t count = (size_t)graph_tensor_count(&g->tensors[t]);
    if (!(out->data[t] = malloc(count * sizeof(float) + 1))) return diag_error(d, "%s: error: out of memory", g->file);
    memcpy(out->data[t], inputs[i], count * sizeof(float));
  }
  for (int i = 0; i < g->n_layers; i++)
    if (layer_real(g, &g->layers[i], out, d)) return -1;
  return 0;
}

void ref_float_free(RefFloat *v) {
  if (!v->data) return;
  for (int i = 0; i < v->n; i++) free(v->data[i]);
  free(v->data);
  v->data = NULL;
}
