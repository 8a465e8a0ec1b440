// ref.c: the reference interpreter (ref.h). One plain loop nest per op over NHWC int8 tensors;
// all arithmetic is the ISA's (isa/numerics.h: wrap32 accumulation, sa_post requantization,
// sa_load_scale), with the integer parameters quant.c put in the graph. Deliberately naive: no
// im2col, no tiling, nothing shared with the lowering, so it can judge compiled programs.
#include "ref.h"

#include <stdlib.h>
#include <string.h>

#include "../isa/numerics.h"
#include "../isa/sfu_math.h"

// Element (n, y, x, c) of an NHWC tensor t.
static int64_t at4(const Tensor *t, int64_t n, int64_t y, int64_t x, int64_t c) {
  return ((n * t->dims[1] + y) * t->dims[2] + x) * t->dims[3] + c;
}

// The accumulators of one output pixel live in acc[cout] (uint32_t: wrap-around is the
// machine's, and unsigned arithmetic is defined in C). Loop order: output pixel, kernel tap,
// input channel, then the output channels of its group innermost, over contiguous weights, so
// that the compiler vectorizes the inner loop; the sums are the same wrap32 sums in any order.
static void ref_conv2d(const Graph *g, const Layer *l, const int8_t *x, int8_t *y, uint32_t *acc) {
  const Tensor *ti = &g->tensors[l->in[0]], *to = &g->tensors[l->out];
  int64_t cpg = l->cin / l->groups, opg = l->cout / l->groups, cout = l->cout;
  for (int64_t n = 0; n < to->dims[0]; n++)
    for (int64_t oy = 0; oy < to->dims[1]; oy++)
      for (int64_t ox = 0; ox < to->dims[2]; ox++) {
        memset(acc, 0, (size_t)cout * sizeof *acc);
        for (int ky = 0; ky < l->kh; ky++) {
          int64_t iy = oy * l->sh - l->pad_t + (int64_t)ky * l->dh;
          if (iy < 0 || iy >= ti->dims[1]) continue;  // zero padding
          for (int kx = 0; kx < l->kw; kx++) {
            int64_t ix = ox * l->sw - l->pad_l + (int64_t)kx * l->dw;
            if (ix < 0 || ix >= ti->dims[2]) continue;
            const int8_t *xp = x + at4(ti, n, iy, ix, 0);
            const int8_t *wtap = l->w + (int64_t)(ky * l->kw + kx) * cpg * cout;
            for (int64_t grp = 0; grp < l->groups; grp++) {
              uint32_t *ap = acc + grp * opg;
              for (int64_t ci = 0; ci < cpg; ci++) {
                int32_t a = xp[grp * cpg + ci];
                const int8_t *wp = wtap + ci * cout + grp * opg;
                for (int64_t j = 0; j < opg; j++) ap[j] += (uint32_t)(a * wp[j]);
              }
            }
          }
        }
        int8_t *yp = y + at4(to, n, oy, ox, 0);
        for (int64_t oc = 0; oc < cout; oc++)
          yp[oc] = sa_post((int32_t)acc[oc], l->bias_q[oc], l->rq[oc].mult, l->rq[oc].shift, l->mach_act, l->act_lo,
                           l->act_hi);
      }
}

static void ref_fc(const Graph *g, const Layer *l, const int8_t *x, int8_t *y, uint32_t *acc) {
  const Tensor *to = &g->tensors[l->out];
  int64_t cout = l->cout;
  for (int64_t n = 0; n < to->dims[0]; n++) {
    memset(acc, 0, (size_t)cout * sizeof *acc);
    for (int64_t ci = 0; ci < l->cin; ci++) {
      int32_t a = x[n * l->cin + ci];
      const int8_t *wp = l->w + ci * cout;
      for (int64_t oc = 0; oc < cout; oc++) acc[oc] += (uint32_t)(a * wp[oc]);
    }
    for (int64_t oc = 0; oc < cout; oc++)
      y[n * cout + oc] =
          sa_post((int32_t)acc[oc], l->bias_q[oc], l->rq[oc].mult, l->rq[oc].shift, l->mach_act, l->act_lo, l->act_hi);
  }
}

// relu, relu6, clip: one value at a time, rescaled by rq[0] then activated.
static void ref_activation(const Graph *g, const Layer *l, const int8_t *x, int8_t *y) {
  int64_t count = graph_tensor_count(&g->tensors[l->out]);
  for (int64_t i = 0; i < count; i++) y[i] = sa_post(x[i], 0, l->rq[0].mult, l->rq[0].shift, l->mach_act, l->act_lo, l->act_hi);
}

// maxpool, avgpool, global_avgpool: the window of (oy, ox) holds the input positions inside
// the map (padding is never in it); max takes the largest int8, avg sums them as int32.
static void ref_pool(const Graph *g, const Layer *l, const int8_t *x, int8_t *y) {
  const Tensor *ti = &g->tensors[l->in[0]], *to = &g->tensors[l->out];
  int is_max = l->op == LOP_MAXPOOL;
  int pt = l->op == LOP_GLOBAL_AVGPOOL ? 0 : l->pad_t, pl = l->op == LOP_GLOBAL_AVGPOOL ? 0 : l->pad_l;
  for (int64_t n = 0; n < to->dims[0]; n++)
    for (int64_t oy = 0; oy < to->dims[1]; oy++)
      for (int64_t ox = 0; ox < to->dims[2]; ox++)
        for (int64_t c = 0; c < to->dims[3]; c++) {
          int32_t best = -128;
          int64_t sum = 0, positions = 0;
          for (int ky = 0; ky < l->kh; ky++)
            for (int kx = 0; kx < l->kw; kx++) {
              int64_t iy = oy * l->sh - pt + ky, ix = ox * l->sw - pl + kx;
              if (iy < 0 || iy >= ti->dims[1] || ix < 0 || ix >= ti->dims[2]) continue;
              int8_t v = x[at4(ti, n, iy, ix, c)];
              if (v > best) best = v;
              sum += v;
              positions++;
            }
          Requant r = l->rq[is_max || l->n_rq == 1 ? 0 : positions - 1];
          int32_t v = is_max ? best : sa_sat32(sum);
          y[at4(to, n, oy, ox, c)] = sa_post(v, 0, r.mult, r.shift, l->mach_act, l->act_lo, l->act_hi);
        }
}

// add: both inputs loaded into a common int32 domain (LOAD with MULT/SHIFT, the second
// accumulating), then post-processed to the output scale.
static void ref_add(const Graph *g, const Layer *l, const int8_t *a, const int8_t *b, int8_t *y) {
  int64_t count = graph_tensor_count(&g->tensors[l->out]);
  for (int64_t i = 0; i < count; i++) {
    int32_t acc = sa_load_scale(a[i], l->rq[0].mult, l->rq[0].shift);
    acc = sa_wrap_add32(acc, sa_load_scale(b[i], l->rq[1].mult, l->rq[1].shift));
    y[i] = sa_post(acc, 0, l->out_rq.mult, l->out_rq.shift, l->mach_act, l->act_lo, l->act_hi);
  }
}

// concat along the last axis; each input requantized by its own rq[k].
static void ref_concat(const Graph *g, const Layer *l, int8_t *const *ins, int8_t *y) {
  const Tensor *to = &g->tensors[l->out];
  int64_t cout = to->dims[to->rank - 1], rows = graph_tensor_count(to) / cout, off = 0;
  for (int k = 0; k < l->n_in; k++) {
    const Tensor *t = &g->tensors[l->in[k]];
    int64_t c = t->dims[t->rank - 1];
    for (int64_t r = 0; r < rows; r++)
      for (int64_t i = 0; i < c; i++)
        y[r * cout + off + i] = sa_post(ins[k][r * c + i], 0, l->rq[k].mult, l->rq[k].shift, ACT_NONE, -128, 127);
    off += c;
  }
}

// ---- the special-function unit's ops (docs/NETJSON.md "Exact arithmetic", docs/SFU.md) ----

static int16_t sat16(int64_t v) { return (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v); }

// An int8 value at scale s_in into the functions' Q4.11: sat16(round_shift(q * mult, shift)).
static int16_t to_q411(int8_t q, Requant r) { return sat16(sa_round_shift((int64_t)q * r.mult, r.shift)); }

// A function result (Q4.11 or Q0.15) to int8 at the output scale: sat8(round_shift(v * mult, shift)).
static int8_t from_fn(int32_t v, Requant r) { return sa_sat8(sa_sat32(sa_round_shift((int64_t)v * r.mult, r.shift))); }

static void ref_function(const Graph *g, const Layer *l, const int8_t *x, int8_t *y) {
  int64_t count = graph_tensor_count(&g->tensors[l->out]);
  for (int64_t i = 0; i < count; i++) {
    int16_t v = to_q411(x[i], l->rq[0]);
    int32_t f = 0;
    switch (l->op) {
    case LOP_GELU: f = sfu_gelu(v); break;
    case LOP_SIGMOID: f = sfu_sigmoid(v); break;
    case LOP_SILU: f = sfu_silu(v); break;
    case LOP_HARDSWISH: f = sfu_hswish(v); break;
    case LOP_HARDSIGMOID: f = sfu_hsigmoid(v); break;
    case LOP_CONV2D: case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL: case LOP_AVGPOOL:
    case LOP_GLOBAL_AVGPOOL: case LOP_ADD: case LOP_CONCAT: case LOP_FLATTEN: case LOP_RESHAPE: case LOP_BATCHNORM:
    case LOP_BIAS: case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_MUL: case LOP_SUB: case LOP_MUL_CONST:
    case LOP_MATMUL: case LOP_TRANSPOSE:   // not element functions (ref_layer does not call this for them)
      break;
    }
    y[i] = from_fn(f, l->out_rq);
  }
}

// softmax along the last axis, row by row: sfu_softmax_row's steps (docs/SFU.md §2.6) with the
// normalisation shift s - 7 - sm_out for the output scale 2^-(7 + sm_out): at 1/128 (sm_out 0)
// exactly sfu_softmax_row, which tests/compiler/ref_test checks.
static void ref_softmax(const Graph *g, const Layer *l, const int8_t *x, int8_t *y) {
  const Tensor *to = &g->tensors[l->out];
  int64_t c = to->dims[to->rank - 1], rows = graph_tensor_count(to) / c;
  for (int64_t r = 0; r < rows; r++) {
    const int8_t *q = x + r * c;
    int m = -128;
    for (int64_t i = 0; i < c; i++) m = q[i] > m ? q[i] : m;
    uint32_t sum = 0;   // at most 65536 * 32768 = 2^31
    for (int64_t i = 0; i < c; i++) sum += sfu_exp(sfu_softmax_arg((uint32_t)(m - q[i]), l->sm_mult, l->sm_shift));
    SfuRecip rc = sfu_recip(sum);
    unsigned sh = rc.shift - 7 - l->sm_out;   // >= 31 - 7 - 15 = 9
    for (int64_t i = 0; i < c; i++) {
      uint64_t e = sfu_exp(sfu_softmax_arg((uint32_t)(m - q[i]), l->sm_mult, l->sm_shift));
      uint64_t v = (e * rc.mant + ((uint64_t)1 << (sh - 1))) >> sh;
      y[r * c + i] = (int8_t)(v > 127 ? 127 : v);
    }
  }
}

// layernorm along the last axis: the sums of sfu_layernorm_row, epsilon added to V, one rsqrt,
// z_i = sfu_layernorm_elem (Q4.11), then per channel y = sat8(round_shift(z gmult, shift) + beta_q).
static void ref_layernorm(const Graph *g, const Layer *l, const int8_t *x, int8_t *y) {
  const Tensor *to = &g->tensors[l->out];
  int64_t c = to->dims[to->rank - 1], rows = graph_tensor_count(to) / c;
  for (int64_t r = 0; r < rows; r++) {
    const int8_t *xr = x + r * c;
    int64_t s1 = 0, s2 = 0;
    for (int64_t i = 0; i < c; i++) s1 += xr[i], s2 += (int64_t)xr[i] * xr[i];
    int64_t v = c * s2 - s1 * s1 + l->eps_q;   // < 2^46 + 2^47
    SfuRecip rs = sfu_rsqrt((uint64_t)v);
    for (int64_t i = 0; i < c; i++) {
      int16_t z = v == 0 ? 0 : sfu_layernorm_elem((int32_t)(c * xr[i] - s1), rs);
      int64_t o = sa_round_shift((int64_t)z * l->rq[i].mult, l->rq[i].shift) + l->bias_q[i];
      y[r * c + i] = sa_sat8(sa_sat32(o));
    }
  }
}

// Index into b of element i of the output: each axis where b has size 1 reads its position 0.
static int64_t bcast_index(const Tensor *to, const Tensor *b, int64_t i) {
  int64_t off = 0, stride = 1;
  for (int k = to->rank - 1; k >= 0; k--) {
    int64_t pos = i % to->dims[k];
    i /= to->dims[k];
    if (b->dims[k] != 1) off += pos * stride;
    stride *= b->dims[k];
  }
  return off;
}

// mul: the int16 product requantized, y = sat8(round_shift(a b mult, shift)); sub: add's two
// LOADs with the second negated, y = sat8(round_shift(L(a) - L(b), out)).
static void ref_binary(const Graph *g, const Layer *l, const int8_t *a, const int8_t *b, int8_t *y) {
  const Tensor *to = &g->tensors[l->out], *tb = &g->tensors[l->in[1]];
  int64_t count = graph_tensor_count(to);
  int same = graph_tensor_count(tb) == count;
  for (int64_t i = 0; i < count; i++) {
    int8_t bv = b[same ? i : bcast_index(to, tb, i)];
    if (l->op == LOP_MUL) {
      y[i] = sa_post(sa_wrap_mul8(a[i], bv), 0, l->rq[0].mult, l->rq[0].shift, ACT_NONE, -128, 127);
    } else {
      int32_t acc = sa_load_scale(a[i], l->rq[0].mult, l->rq[0].shift);
      acc = sa_wrap_add32(acc, (int32_t)(0u - (uint32_t)sa_load_scale(bv, l->rq[1].mult, l->rq[1].shift)));
      y[i] = sa_post(acc, 0, l->out_rq.mult, l->out_rq.shift, ACT_NONE, -128, 127);
    }
  }
}

// matmul: per batch (every axis before the last two), wrap32 sums of int8 products like a
// COMPUTE, then STORE's requantization.
static void ref_matmul(const Graph *g, const Layer *l, const int8_t *a, const int8_t *b, int8_t *y) {
  const Tensor *to = &g->tensors[l->out];
  int r = to->rank;
  int64_t m = to->dims[r - 2], p = to->dims[r - 1], k = l->cin, batches = graph_tensor_count(to) / (m * p);
  for (int64_t bt = 0; bt < batches; bt++) {
    const int8_t *ab = a + bt * m * k, *bb = b + bt * k * p;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < p; j++) {
        uint32_t acc = 0;
        for (int64_t t = 0; t < k; t++) acc += (uint32_t)(ab[i * k + t] * bb[t * p + j]);
        y[(bt * m + i) * p + j] = sa_post((int32_t)acc, 0, l->rq[0].mult, l->rq[0].shift, ACT_NONE, -128, 127);
      }
  }
}

// transpose: output element (i0..i3) is input element (i_perm^-1 ...): pure data movement.
static void ref_transpose(const Graph *g, const Layer *l, const int8_t *x, int8_t *y) {
  const Tensor *ti = &g->tensors[l->in[0]], *to = &g->tensors[l->out];
  int r = to->rank;
  int64_t istride[GRAPH_MAX_RANK], s = 1, count = graph_tensor_count(to);
  for (int k = r - 1; k >= 0; k--) istride[k] = s, s *= ti->dims[k];
  for (int64_t i = 0; i < count; i++) {
    int64_t rest = i, off = 0;
    for (int k = r - 1; k >= 0; k--) {
      off += (rest % to->dims[k]) * istride[l->perm[k]];
      rest /= to->dims[k];
    }
    y[i] = x[off];
  }
}

int ref_layer(const Graph *g, const Layer *l, RefValues *v, Diag *d) {
  const Tensor *to = &g->tensors[l->out];
  int64_t count = graph_tensor_count(to);
  for (int k = 0; k < l->n_in; k++)
    if (!v->data[l->in[k]]) return graph_layer_error(g, l, d, "internal error: input %d not computed", k);
  int8_t *y = malloc((size_t)count + 1);
  if (!y) return graph_layer_error(g, l, d, "out of memory");
  int8_t *x = v->data[l->in[0]];
  uint32_t *acc = NULL;  // conv2d / fc: the accumulators of one output pixel
  if (graph_op_is(l->op, GOPF_WEIGHTS) && !(acc = malloc((size_t)l->cout * sizeof *acc + 1))) {
    free(y);
    return graph_layer_error(g, l, d, "out of memory");
  }
  switch (l->op) {
  case LOP_CONV2D: ref_conv2d(g, l, x, y, acc); break;
  case LOP_FC: ref_fc(g, l, x, y, acc); break;
  case LOP_RELU: case LOP_RELU6: case LOP_CLIP: ref_activation(g, l, x, y); break;
  case LOP_MAXPOOL: case LOP_AVGPOOL: case LOP_GLOBAL_AVGPOOL: ref_pool(g, l, x, y); break;
  case LOP_ADD: ref_add(g, l, x, v->data[l->in[1]], y); break;
  case LOP_CONCAT: {
    int8_t *ins[64];
    for (int k = 0; k < l->n_in && k < 64; k++) ins[k] = v->data[l->in[k]];
    ref_concat(g, l, ins, y);
    break;
  }
  case LOP_FLATTEN: case LOP_RESHAPE: memcpy(y, x, (size_t)count); break;
  case LOP_GELU: case LOP_SIGMOID: case LOP_SILU: case LOP_HARDSWISH: case LOP_HARDSIGMOID:
    ref_function(g, l, x, y);
    break;
  case LOP_SOFTMAX: ref_softmax(g, l, x, y); break;
  case LOP_LAYERNORM: ref_layernorm(g, l, x, y); break;
  case LOP_MUL: case LOP_SUB: ref_binary(g, l, x, v->data[l->in[1]], y); break;
  case LOP_MUL_CONST: ref_activation(g, l, x, y); break;
  case LOP_MATMUL: ref_matmul(g, l, x, v->data[l->in[1]], y); break;
  case LOP_TRANSPOSE: ref_transpose(g, l, x, y); break;
  case LOP_BATCHNORM: case LOP_BIAS:  // fold.c removed them
    free(acc);
    free(y);
    return graph_layer_error(g, l, d, "internal error: op %s was not folded", graph_op_name(l->op));
  }
  free(acc);
  free(v->data[l->out]);
  v->data[l->out] = y;
  return 0;
}

int ref_run(const Graph *g, const int8_t *const *inputs, RefValues *out, Diag *d) {
  out->n = g->n_tensors;
  out->data = calloc((size_t)g->n_tensors + 1, sizeof(int8_t *));
  if (!out->data) return diag_error(d, "%s: error: out of memory", g->file);
  for (int i = 0; i < g->n_inputs; i++) {
    int t = g->inputs[i];
    size_t count = (size_t)graph_tensor_count(&g->tensors[t]);
    if (!(out->data[t] = malloc(count + 1))) return diag_error(d, "%s: error: out of memory", g->file);
    memcpy(out->data[t], inputs[i], count);
  }
  for (int i = 0; i < g->n_layers; i++)
    if (ref_layer(g, &g->layers[i], out, d)) return -1;
  return 0;
}

void ref_values_free(RefValues *v) {
  if (!v->data) return;
  for (int i = 0; i < v->n; i++) free(v->data[i]);
  free(v->data);
  v->data = NULL;
}

void ref_stats(const int8_t *x, int64_t count, RefStats *out) {
  int64_t sum = 0, zeros = 0, sat = 0;
  int lo = 127, hi = -128;
  for (int64_t i = 0; i < count; i++) {
    int v = x[i];
    sum += v;
    zeros += v == 0;
    sat += v == 127 || v == -128;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  double n = count > 0 ? (double)count : 1;
  *out = (RefStats){lo, hi, (double)sum / n, 100.0 * (double)zeros / n, 100.0 * (double)sat / n};
}
