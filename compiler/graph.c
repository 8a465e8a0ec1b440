// graph.c: small services on the graph IR (graph.h): the op table (graph_ops.def), lookups,
// layer error messages, the readable dump of `sacc check --dump-ir`, and freeing. Building the graph is net.c's job.
#include "graph.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const GraphOpInfo graph_ops[LOP_COUNT] = {
#define GOP(name, json, in_min, in_max, scale, flags, keys) [LOP_##name] = {json, in_min, in_max, scale, flags, keys},
#include "graph_ops.def"
#undef GOP
};

const char *graph_op_name(LayerOp op) { return (unsigned)op < LOP_COUNT ? graph_ops[op].name : "?"; }

int graph_op_parse(const char *s) {
  for (int i = 0; i < LOP_COUNT; i++)
    if (!strcmp(graph_ops[i].name, s)) return i;
  return -1;
}

int graph_tensor_find(const Graph *g, const char *name) {
  for (int i = 0; i < g->n_tensors; i++)
    if (!strcmp(g->tensors[i].name, name)) return i;
  return -1;
}

int64_t graph_tensor_count(const Tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

int graph_layer_error(const Graph *g, const Layer *l, Diag *d, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return diag_error(d, "%s: layers[%d] \"%s\": error: %s", g->file, l->json_index, l->name, msg);
}

static void dump_shape(const Tensor *t, FILE *f) {
  fputc('[', f);
  for (int i = 0; i < t->rank; i++) fprintf(f, "%s%lld", i ? "," : "", (long long)t->dims[i]);
  fputc(']', f);
}

void graph_dump(const Graph *g, FILE *f) {
  fprintf(f, "net %s: %d layers, %d tensors\n", g->name ? g->name : "?", g->n_layers, g->n_tensors);
  for (int i = 0; i < g->n_inputs; i++) {
    const Tensor *t = &g->tensors[g->inputs[i]];
    fprintf(f, "input %s ", t->name);
    dump_shape(t, f);
    fprintf(f, " scale=%.17g\n", t->scale);   // exact: 17 digits round-trip a double
  }
  int64_t total = 0;
  for (int i = 0; i < g->n_layers; i++) {
    const Layer *l = &g->layers[i];
    fprintf(f, "%-12s %-14s ", l->name, graph_op_name(l->op));
    for (int k = 0; k < l->n_in; k++) {
      if (k) fputs(" + ", f);
      dump_shape(&g->tensors[l->in[k]], f);
    }
    const Tensor *o = &g->tensors[l->out];
    fputs(" -> ", f);
    dump_shape(o, f);
    fprintf(f, " %s scale=%.17g", o->name, o->scale);
    if (graph_op_is(l->op, GOPF_WINDOW))
      fprintf(f, " k=%dx%d s=%dx%d pad=%d,%d,%d,%d", l->kh, l->kw, l->sh, l->sw, l->pad_t, l->pad_b, l->pad_l,
              l->pad_r);
    if (l->dh > 1 || l->dw > 1) fprintf(f, " dil=%dx%d", l->dh, l->dw);   // conv2d only (net.c)
    if (l->groups > 1) fprintf(f, " groups=%d", l->groups);
    if (l->mach_act == ACT_RELU) fputs(" act=relu", f);
    if (l->mach_act == ACT_CLAMP) fprintf(f, " act=clamp[%d,%d]", l->act_lo, l->act_hi);
    if (l->rq && l->n_rq > 0) fprintf(f, " rq0=%d>>%u", (int)l->rq[0].mult, l->rq[0].shift);
    if (l->op == LOP_SOFTMAX) fprintf(f, " arg=%u>>%u out=2^-%u", l->sm_mult, l->sm_shift, 7 + l->sm_out);
    if (l->op == LOP_LAYERNORM) fprintf(f, " eps_q=%lld", (long long)l->eps_q);
    if (graph_op_is(l->op, GOPF_SFU) && l->out_rq.mult)
      fprintf(f, " out_rq=%d>>%u", (int)l->out_rq.mult, l->out_rq.shift);
    if (l->macs) fprintf(f, " macs=%lld", (long long)l->macs);
    fputc('\n', f);
    total += l->macs;
  }
  fprintf(f, "outputs:");
  for (int i = 0; i < g->n_outputs; i++) fprintf(f, " %s", g->tensors[g->outputs[i]].name);
  fprintf(f, "\ntotal macs=%lld\n", (long long)total);
}

void source_free(Source *s) {
  free(s->values);
  free(s->reals);
  if (s->kind == SRC_NPY) npy_free(&s->npy);
  memset(s, 0, sizeof *s);
}

void graph_layer_free(Layer *l) {
  free(l->name);
  free(l->in);
  source_free(&l->w_src);
  source_free(&l->b_src);
  free(l->wscale);
  free(l->w);
  free(l->rq);
  free(l->bias_q);
  free(l->wf);
  free(l->bias_add);
  for (int k = 0; k < BN_COUNT; k++) {
    source_free(&l->bn_src[k]);
    free(l->bn[k]);
  }
  memset(l, 0, sizeof *l);
}

void graph_free(Graph *g) {
  if (!g) return;
  for (int i = 0; i < g->n_tensors; i++) free(g->tensors[i].name);
  for (int i = 0; i < g->n_layers; i++) graph_layer_free(&g->layers[i]);
  free(g->tensors);
  free(g->layers);
  free(g->inputs);
  free(g->outputs);
  free(g->file);
  free(g->name);
  free(g);
}
