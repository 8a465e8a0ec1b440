// qerror.c: quantization error (qerror.h). Both references run on the same real input: the
// float one (ref_float.c) on it directly, the integer one (ref.c) on it rounded to the input's
// int8 grid; each tensor of the int8 run, times its scale, is compared with the float tensor.
#include "qerror.h"

#include <math.h>
#include <stdlib.h>

#include "../isa/numerics.h"
#include "calib.h"
#include "ref.h"
#include "ref_float.h"

void qerror_measure(const int8_t *q, double s, const float *f, int64_t count, QError *out) {
  double max_abs = 0, err2 = 0, sig2 = 0;
  for (int64_t i = 0; i < count; i++) {
    double e = q[i] * s - f[i];
    max_abs = fmax(max_abs, fabs(e));
    err2 += e * e;
    sig2 += (double)f[i] * f[i];
  }
  out->max_abs = max_abs;
  out->rms = count ? sqrt(err2 / (double)count) : 0;
  out->sqnr_db = err2 > 0 ? 10 * log10(sig2 / err2) : INFINITY;
}

static void print_line(FILE *f, const char *what, const char *name, const Graph *g, int t, const RefValues *v,
                       const RefFloat *r) {
  QError e;
  qerror_measure(v->data[t], g->tensors[t].scale, r->data[t], graph_tensor_count(&g->tensors[t]), &e);
  fprintf(f, "%s %s: max_abs %.4g rms %.4g sqnr %.1f dB\n", what, name, e.max_abs, e.rms, e.sqnr_db);
}

int qerror_report(const Graph *g, const NetOptions *opt, int per_layer, FILE *f, Diag *d) {
  float *in[64] = {0};
  int8_t *q[64] = {0};
  RefValues v = {0};
  RefFloat r = {0};
  int rc = 0;
  for (int i = 0; i < g->n_inputs && !rc; i++) {
    const Tensor *t = &g->tensors[g->inputs[i]];
    int64_t count = graph_tensor_count(t);
    in[i] = malloc((size_t)count * sizeof(float) + 1);
    q[i] = malloc((size_t)count + 1);
    if (!in[i] || !q[i]) {
      rc = diag_error(d, "%s: error: out of memory", g->file);
      break;
    }
    calib_input(g, opt, i, in[i]);
    for (int64_t k = 0; k < count; k++) {
      double x = round(in[i][k] / t->scale);
      q[i][k] = sa_sat8(x > 1e9 ? 1000000000 : x < -1e9 ? -1000000000 : (int32_t)x);
    }
  }
  if (!rc) rc = ref_run(g, (const int8_t *const *)q, &v, d);
  if (!rc) rc = ref_float_run(g, (const float *const *)in, &r, d);
  if (!rc) {
    fprintf(f, "quantization error against the float reference (%s input):\n", opt->calib ? "calibration" : "generated");
    for (int i = 0; per_layer && i < g->n_layers; i++) print_line(f, "layer", g->layers[i].name, g, g->layers[i].out, &v, &r);
    for (int i = 0; i < g->n_outputs; i++) print_line(f, "output", g->tensors[g->outputs[i]].name, g, g->outputs[i], &v, &r);
  }
  ref_values_free(&v);
  ref_float_free(&r);
  for (int i = 0; i < 64; i++) free(in[i]), free(q[i]);
  return rc;
}
