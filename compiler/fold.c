// fold.c: constant folding (fold.h). A batchnorm y = gamma * (x - mean) / sqrt(var + eps) + beta
// is the per-channel affine map y = a x + b, a = gamma / sqrt(var + eps), b = beta - a mean; a
// bias layer is a = 1, b = bias. Folded into the conv2d/fc producing x:
// - float weights: w[.., c] *= a[c], real bias = a[c] * bias + b[c];
// - int8 weights: the per-channel weight scale takes |a[c]| (s_w' = s_w |a|, exact); a negative
//   a[c] negates the channel's int8 weights (-128 becomes 127, the one inexact value) and its
//   integer bias, which stays in accumulator units; a[c] = 0 zeroes the channel.
// The real offsets go to Layer.bias_add, which quant.c adds to the bias. Then the folded layer
// and the tensor between the two disappear: the conv/fc writes the folded layer's output.
#include "fold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Layers (not yet folded) reading tensor t, plus one if t is a network output.
static int readers(const Graph *g, const char *dead, int t) {
  int count = 0;
  for (int i = 0; i < g->n_layers; i++)
    for (int k = 0; k < g->layers[i].n_in && !dead[i]; k++) count += g->layers[i].in[k] == t;
  for (int i = 0; i < g->n_outputs; i++) count += g->outputs[i] == t;
  return count;
}

// Applies y = a[c] x + b[c] to the output channels of conv/fc layer p.
static int fold_affine(const Graph *g, Layer *p, const double *a, const double *b, Diag *d) {
  int64_t cout = p->cout;
  if (!p->bias_add && !(p->bias_add = calloc((size_t)cout + 1, sizeof(double))))
    return graph_layer_error(g, p, d, "out of memory");
  if (!p->w_is_float && p->n_wscale != cout) {  // per-channel scales from here on
    double *ws = malloc((size_t)cout * sizeof(double) + 1);
    if (!ws) return graph_layer_error(g, p, d, "out of memory");
    for (int64_t c = 0; c < cout; c++) ws[c] = p->wscale[0];
    free(p->wscale);
    p->wscale = ws;
    p->n_wscale = (int)cout;
  }
  for (int64_t c = 0; c < cout; c++) {
    double f = a[c];
    if (p->w_is_float) {
      for (int64_t i = c; i < p->w_count; i += cout) p->wf[i] = (float)(p->wf[i] * f);
    } else {
      if (f < 0)
        for (int64_t i = c; i < p->w_count; i += cout) p->w[i] = p->w[i] == -128 ? 127 : (int8_t)-p->w[i];
      if (f == 0)
        for (int64_t i = c; i < p->w_count; i += cout) p->w[i] = 0;
      if (f != 0) p->wscale[c] *= fabs(f);
    }
    if (p->b_src.kind != SRC_NONE) {  // shape_infer left the bias inline, cout values
      if (p->b_is_float) p->b_src.reals[c] *= f;
      else p->b_src.values[c] = f > 0 ? p->b_src.values[c] : f < 0 ? -p->b_src.values[c] : 0;
    }
    p->bias_add[c] = f * p->bias_add[c] + b[c];
  }
  return 0;
}

static int fold_layer(Graph *g, int li, char *dead, Diag *d) {
  Layer *l = &g->layers[li];
  int t = l->in[0], pi = g->tensors[t].producer;
  Layer *p = pi >= 0 ? &g->layers[pi] : NULL;
  if (!p || !graph_op_is(p->op, GOPF_WEIGHTS) || readers(g, dead, t) != 1)
    return graph_layer_error(g, l, d, "%s must follow a conv2d or fc whose output it alone reads", graph_op_name(l->op));
  if (p->act_kind != ACT_KIND_NONE)
    return graph_layer_error(g, l, d, "%s cannot fold through the activation of layers[%d] \"%s\"",
                             graph_op_name(l->op), p->json_index, p->name);
  int64_t cout = l->cout;
  double *a = malloc((size_t)cout * sizeof(double) + 1), *b = malloc((size_t)cout * sizeof(double) + 1);
  if (!a || !b) {
    free(a), free(b);
    return graph_layer_error(g, l, d, "out of memory");
  }
  for (int64_t c = 0; c < cout; c++) {
    switch (l->op) {
    case LOP_BIAS:
      a[c] = 1, b[c] = l->bias_add[c];
      break;
    case LOP_BATCHNORM:
      a[c] = l->bn[BN_GAMMA][c] / sqrt(l->bn[BN_VAR][c] + l->bn_eps);
      b[c] = l->bn[BN_BETA][c] - a[c] * l->bn[BN_MEAN][c];
      break;
    case LOP_CONV2D: case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL:
    case LOP_AVGPOOL: case LOP_GLOBAL_AVGPOOL: case LOP_ADD: case LOP_CONCAT: case LOP_FLATTEN:
    case LOP_RESHAPE: case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_GELU: case LOP_SIGMOID: case LOP_SILU:
    case LOP_HARDSWISH: case LOP_HARDSIGMOID: case LOP_MUL: case LOP_SUB: case LOP_MUL_CONST: case LOP_MATMUL:
    case LOP_TRANSPOSE:   // not GOPF_FRONT_END: fold_graph never passes them
      a[c] = 1, b[c] = 0;
      break;
    }
  }
  int rc = fold_affine(g, p, a, b, d);
  free(a), free(b);
  if (rc) return -1;
  p->out = l->out;  // p now writes the folded layer's output; tensor t is left unread
  g->tensors[l->out].producer = pi;
  dead[li] = 1;
  return 0;
}

// Drops the folded layers and the tensors nobody writes or reads any more; renumbers.
static int compact(Graph *g, const char *dead, Diag *d) {
  int *lmap = malloc((size_t)g->n_layers * sizeof(int) + 1), *tmap = malloc((size_t)g->n_tensors * sizeof(int) + 1);
  char *used = calloc((size_t)g->n_tensors + 1, 1);
  if (!lmap || !tmap || !used) {
    free(lmap), free(tmap), free(used);
    return diag_error(d, "%s: error: out of memory", g->file);
  }
  int nl = 0, nt = 0;
  for (int i = 0; i < g->n_layers; i++) {
    lmap[i] = dead[i] ? -1 : nl++;
    if (dead[i]) continue;
    used[g->layers[i].out] = 1;
    for (int k = 0; k < g->layers[i].n_in; k++) used[g->layers[i].in[k]] = 1;
  }
  for (int i = 0; i < g->n_inputs; i++) used[g->inputs[i]] = 1;
  for (int t = 0; t < g->n_tensors; t++) {
    tmap[t] = used[t] ? nt : -1;
    if (!used[t]) {
      free(g->tensors[t].name);
      continue;
    }
    Tensor tt = g->tensors[t];
    if (tt.producer >= 0) tt.producer = lmap[tt.producer];
    g->tensors[nt++] = tt;
  }
  for (int i = 0, k = 0; i < g->n_layers; i++) {
    if (dead[i]) {
      graph_layer_free(&g->layers[i]);
      continue;
    }
    Layer l = g->layers[i];
    l.out = tmap[l.out];
    for (int j = 0; j < l.n_in; j++) l.in[j] = tmap[l.in[j]];
    g->layers[k++] = l;
  }
  for (int i = 0; i < g->n_inputs; i++) g->inputs[i] = tmap[g->inputs[i]];
  for (int i = 0; i < g->n_outputs; i++) g->outputs[i] = tmap[g->outputs[i]];
  g->n_layers = nl;
  g->n_tensors = nt;
  free(lmap), free(tmap), free(used);
  return 0;
}

int fold_graph(Graph *g, Diag *d) {
  int any = 0;
  for (int i = 0; i < g->n_layers; i++) any |= graph_op_is(g->layers[i].op, GOPF_FRONT_END);
  if (!any) return 0;
  char *dead = calloc((size_t)g->n_layers + 1, 1);
  if (!dead) return diag_error(d, "%s: error: out of memory", g->file);
  int rc = 0;
  for (int i = 0; i < g->n_layers && !rc; i++)
    if (graph_op_is(g->layers[i].op, GOPF_FRONT_END)) rc = fold_layer(g, i, dead, d);
  if (!rc) rc = compact(g, dead, d);
  free(dead);
  return rc;
}
