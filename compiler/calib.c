// calib.c: activation scale calibration (calib.h). Symmetric per tensor, zero point 0, as the
// machine's int8 tensors are: scale = max|x| / 127 over the calibration input, so that the
// largest value seen maps to 127 and nothing saturates on that input. The values come from
// the float reference (ref_float.c), which needs no scales.
#include "calib.h"

#include <math.h>
#include <stdlib.h>

#include "ref_float.h"
#include "shape.h"

void calib_input(const Graph *g, const NetOptions *opt, int i, float *out) {
  const Tensor *t = &g->tensors[g->inputs[i]];
  int64_t count = graph_tensor_count(t);
  if (opt->calib && opt->calib[i]) {
    for (int64_t k = 0; k < count; k++) out[k] = opt->calib[i][k];
    return;
  }
  double s = t->scale > 0 ? t->scale : 1.0 / 128;
  uint64_t state = 1 + (uint64_t)i;
  for (int64_t k = 0; k < count; k++) out[k] = (float)(s * (int8_t)(uint8_t)shape_seed_next(&state));
}

int calib_scales(Graph *g, const NetOptions *opt, Diag *d) {
  int need = opt->calib != NULL;
  for (int i = 0; i < g->n_layers; i++) need |= g->layers[i].w_is_float;
  if (!need) return shape_scales(g, NULL, d);
  int64_t macs = 0;
  for (int i = 0; i < g->n_layers; i++) macs += g->layers[i].macs;
  if (opt->max_calib_macs && macs > opt->max_calib_macs)
    return diag_error(d, "%s: error: calibration would take %lld MACs, more than the limit %lld", g->file,
                      (long long)macs, (long long)opt->max_calib_macs);
  float *in[64] = {0};
  double *calib = calloc((size_t)g->n_tensors + 1, sizeof(double));
  RefFloat v = {0};
  int rc = calib ? 0 : diag_error(d, "%s: error: out of memory", g->file);
  for (int i = 0; i < g->n_inputs && !rc; i++) {
    if (!(in[i] = malloc((size_t)graph_tensor_count(&g->tensors[g->inputs[i]]) * sizeof(float) + 1)))
      rc = diag_error(d, "%s: error: out of memory", g->file);
    else calib_input(g, opt, i, in[i]);
  }
  if (!rc) rc = ref_float_run(g, (const float *const *)in, &v, d);
  for (int t = 0; t < g->n_tensors && !rc; t++) {
    double m = 0;
    int64_t count = graph_tensor_count(&g->tensors[t]);
    for (int64_t k = 0; v.data[t] && k < count; k++) m = fmax(m, fabs(v.data[t][k]));
    calib[t] = m > 0 ? m / 127 : 1;  // an all-zero tensor: any positive scale is exact
  }
  ref_float_free(&v);
  for (int i = 0; i < 64; i++) free(in[i]);
  if (!rc) rc = shape_scales(g, calib, d);
  free(calib);
  return rc;
}
