// quant.c: turns the real rescale factors of every layer into the machine's integer (mult,
// shift) pairs (docs/ISA.md section 6.7, docs/NETJSON.md "Integer arithmetic"), quantizes float
// weights per output channel and float biases into the accumulator scale, and maps
// activations to ACT codes and clamp bounds.
// The reference interpreter (ref.c) and the lowering read only these integers.
#include "quant.h"

#include <math.h>
#include <stdlib.h>

int quant_factor(double f, Requant *out) {
  if (!isfinite(f) || !(f > 0)) return -1;
  int e;
  double m = frexp(f, &e);  // f = m * 2^e, 0.5 <= m < 1
  int64_t mult = llround(ldexp(m, 31));
  if (mult == (int64_t)1 << 31) mult >>= 1, e++;
  int shift = 31 - e;
  if (shift < 0 || shift > 63) return -1;
  out->mult = (int32_t)mult;
  out->shift = (unsigned)shift;
  return 0;
}

double quant_value(Requant r) { return ldexp((double)r.mult, -(int)r.shift); }

static int factor(const Graph *g, const Layer *l, double f, const char *what, int index, Requant *out, Diag *d) {
  if (quant_factor(f, out))
    return graph_layer_error(g, l, d, "rescale factor %g (%s %d) is outside the machine's range [2^-33, 2^31)", f, what,
                             index);
  return 0;
}

static int8_t clamp8(double v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

static void quant_act(Layer *l, double s_out) {
  l->mach_act = ACT_NONE;
  l->act_lo = -128, l->act_hi = 127;
  switch (l->act_kind) {
  case ACT_KIND_NONE: break;
  case ACT_KIND_RELU: l->mach_act = ACT_RELU; break;
  case ACT_KIND_RELU6:
    l->mach_act = ACT_CLAMP;
    l->act_lo = 0, l->act_hi = clamp8(round(6.0 / s_out));
    break;
  case ACT_KIND_CLIP:
    l->mach_act = ACT_CLAMP;
    l->act_lo = clamp8(round(l->clip_lo / s_out)), l->act_hi = clamp8(round(l->clip_hi / s_out));
    break;
  }
}

static int alloc_rq(const Graph *g, Layer *l, int n, Diag *d) {
  l->n_rq = n;
  l->rq = calloc((size_t)n + 1, sizeof(Requant));
  return l->rq ? 0 : graph_layer_error(g, l, d, "out of memory");
}

// conv2d and fc: one factor per output channel, biases into the accumulator scale.
static int quant_weighted(const Graph *g, Layer *l, double s_in, double s_out, Diag *d) {
  if (alloc_rq(g, l, (int)l->cout, d)) return -1;
  l->bias_q = calloc((size_t)l->cout + 1, sizeof(int32_t));
  if (!l->bias_q) return graph_layer_error(g, l, d, "out of memory");
  for (int64_t c = 0; c < l->cout; c++) {
    double s_w = l->wscale[l->n_wscale == 1 ? 0 : c];
    if (factor(g, l, s_in * s_w / s_out, "s_in * s_w / s_out, channel", (int)c, &l->rq[c], d)) return -1;
    double real = l->bias_add ? l->bias_add[c] : 0;  // real units
    int64_t whole = 0;                                 // accumulator units
    if (l->b_src.kind != SRC_NONE && l->b_is_float) real += l->b_src.reals[c];
    else if (l->b_src.kind != SRC_NONE) whole = l->b_src.values[c];
    double b = (double)whole + round(real / (s_in * s_w));
    if (!(b >= INT32_MIN && b <= INT32_MAX))
      return graph_layer_error(g, l, d, "bias %g of channel %lld does not fit int32 in the accumulator scale %g",
                               (double)whole * s_in * s_w + real, (long long)c, s_in * s_w);
    l->bias_q[c] = (int32_t)b;
  }
  return 0;
}

// softmax: the logits' scale as sfu_softmax_row's (mult, shift), mult / 2^shift = s_in * 2048
// with mult in 1..65535: the largest shift (at most 31) whose rounded mult still fits 16 bits.
static int quant_softmax(const Graph *g, Layer *l, double s_in, double s_out, Diag *d) {
  int e;
  frexp(s_out, &e);   // s_out = 2^(e-1), checked by shape.c
  l->sm_out = (unsigned)(1 - e - SOFTMAX_K_MIN);
  double f = s_in * 2048;
  if (!(f <= 65535.0))
    return graph_layer_error(g, l, d, "softmax input scale %g is too coarse for the unit (at most 65535 / 2048 = 32)", s_in);
  int shift = 31;
  while (shift > 0 && llround(ldexp(f, shift)) > 65535) shift--;
  long long m = llround(ldexp(f, shift));
  if (m < 1 || m > 65535)
    return graph_layer_error(g, l, d, "softmax input scale %g is too fine for the unit (at least 2^-42)", s_in);
  l->sm_mult = (uint32_t)m;
  l->sm_shift = (unsigned)shift;
  return 0;
}

// layernorm: per channel, gamma / (2048 s_out) as a signed (mult, shift) (gamma 0: mult 0) and
// beta as round(beta / s_out) in int32; epsilon in the integer units of V = n^2 var / s_in^2.
static int quant_layernorm(const Graph *g, Layer *l, double s_in, double s_out, Diag *d) {
  int64_t c = l->cout;
  if (alloc_rq(g, l, (int)c, d)) return -1;
  if (!(l->bias_q = calloc((size_t)c + 1, sizeof(int32_t)))) return graph_layer_error(g, l, d, "out of memory");
  for (int64_t i = 0; i < c; i++) {
    double gm = l->bn[BN_GAMMA][i], b = round(l->bn[BN_BETA][i] / s_out);
    if (gm != 0 && factor(g, l, fabs(gm) / (2048 * s_out), "|gamma| / (2048 s_out), channel", (int)i, &l->rq[i], d))
      return -1;
    if (gm < 0) l->rq[i].mult = -l->rq[i].mult;
    l->bias_q[i] = (int32_t)(b > INT32_MAX ? INT32_MAX : b < INT32_MIN ? INT32_MIN : b);
  }
  double e = round(l->bn_eps * (double)c * (double)c / (s_in * s_in));
  l->eps_q = !(e < 0x1p47) ? ((int64_t)1 << 47) : (int64_t)e;
  return 0;
}

static int quant_layer(const Graph *g, Layer *l, Diag *d) {
  double s_in = g->tensors[l->in[0]].scale, s_out = g->tensors[l->out].scale;
  quant_act(l, s_out);
  switch (l->op) {
  case LOP_CONV2D:
  case LOP_FC:
    return quant_weighted(g, l, s_in, s_out, d);
  case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL:
    return alloc_rq(g, l, 1, d) || factor(g, l, s_in / s_out, "s_in / s_out, input", 0, &l->rq[0], d) ? -1 : 0;
  case LOP_GLOBAL_AVGPOOL:
    return alloc_rq(g, l, 1, d) ||
                   factor(g, l, s_in / (s_out * l->kh * l->kw), "s_in / (s_out * window), input", 0, &l->rq[0], d)
               ? -1 : 0;
  case LOP_AVGPOOL: {
    int n = l->count_include_pad ? 1 : l->kh * l->kw;  // rq[k-1]: a window of k positions
    if (alloc_rq(g, l, n, d)) return -1;
    for (int k = 1; k <= n; k++) {
      int div = l->count_include_pad ? l->kh * l->kw : k;
      if (factor(g, l, s_in / (s_out * div), "s_in / (s_out * window), window size", div, &l->rq[k - 1], d)) return -1;
    }
    return 0;
  }
  case LOP_ADD:
  case LOP_SUB: {  // sub: add's common domain, the second input subtracted
    double s_b = g->tensors[l->in[1]].scale;
    double s_acc = ldexp(s_in > s_b ? s_in : s_b, -QUANT_ADD_BITS);
    if (alloc_rq(g, l, 2, d)) return -1;
    if (factor(g, l, s_in / s_acc, "s_in / s_acc, input", 0, &l->rq[0], d) ||
        factor(g, l, s_b / s_acc, "s_in / s_acc, input", 1, &l->rq[1], d) ||
        factor(g, l, s_acc / s_out, "s_acc / s_out, output", 0, &l->out_rq, d))
      return -1;
    return 0;
  }
  case LOP_CONCAT:
    if (alloc_rq(g, l, l->n_in, d)) return -1;
    for (int k = 0; k < l->n_in; k++)
      if (factor(g, l, g->tensors[l->in[k]].scale / s_out, "s_in / s_out, input", k, &l->rq[k], d)) return -1;
    return 0;
  case LOP_FLATTEN:
  case LOP_RESHAPE:
    return 0;
  case LOP_BATCHNORM:
  case LOP_BIAS:
    break;
  case LOP_SOFTMAX: return quant_softmax(g, l, s_in, s_out, d);
  case LOP_LAYERNORM: return quant_layernorm(g, l, s_in, s_out, d);
  case LOP_GELU: case LOP_SILU: case LOP_HARDSWISH:     // Q4.11 results
  case LOP_SIGMOID: case LOP_HARDSIGMOID: {             // Q0.15 results
    int q15 = l->op == LOP_SIGMOID || l->op == LOP_HARDSIGMOID;
    return alloc_rq(g, l, 1, d) || factor(g, l, s_in * 2048, "s_in * 2048, input", 0, &l->rq[0], d) ||
                   factor(g, l, 1 / ((q15 ? 32768 : 2048) * s_out), q15 ? "1 / (32768 s_out), output" : "1 / (2048 s_out), output",
                          0, &l->out_rq, d)
               ? -1 : 0;
  }
  case LOP_MUL:
  case LOP_MATMUL: {
    double s_b = g->tensors[l->in[1]].scale;
    return alloc_rq(g, l, 1, d) || factor(g, l, s_in * s_b / s_out, "s_a * s_b / s_out, output", 0, &l->rq[0], d) ? -1 : 0;
  }
  case LOP_MUL_CONST:
    return alloc_rq(g, l, 1, d) || factor(g, l, s_in * l->factor / s_out, "s_in * factor / s_out, input", 0, &l->rq[0], d)
               ? -1 : 0;
  case LOP_TRANSPOSE:
    return 0;
  }
  return graph_layer_error(g, l, d, "internal error: op %s was not folded", graph_op_name(l->op));
}

// Float weights: symmetric per output channel, scale = max|w_c| / 127 (1 for an all-zero
// channel), w = round(w / scale), which stays within -127..127.
static int quant_layer_weights(const Graph *g, Layer *l, Diag *d) {
  int64_t cout = l->cout;
  free(l->wscale);
  l->wscale = malloc((size_t)cout * sizeof(double) + 1);
  l->w = malloc((size_t)l->w_count + 1);
  if (!l->wscale || !l->w) return graph_layer_error(g, l, d, "out of memory");
  l->n_wscale = (int)cout;
  for (int64_t c = 0; c < cout; c++) {
    double m = 0;
    for (int64_t i = c; i < l->w_count; i += cout) m = fmax(m, fabs(l->wf[i]));
    double s = m > 0 ? m / 127 : 1;
    l->wscale[c] = s;
    for (int64_t i = c; i < l->w_count; i += cout) {
      double q = round(l->wf[i] / s);
      l->w[i] = (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
    }
  }
  return 0;
}

int quant_weights(Graph *g, Diag *d) {
  for (int i = 0; i < g->n_layers; i++)
    if (g->layers[i].w_is_float && quant_layer_weights(g, &g->layers[i], d)) return -1;
  return 0;
}

int quant_graph(Graph *g, Diag *d) {
  for (int i = 0; i < g->n_layers; i++)
    if (quant_layer(g, &g->layers[i], d)) return -1;
  return 0;
}
