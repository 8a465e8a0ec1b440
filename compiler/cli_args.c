// cli_args.c: command-line helpers shared by the sacc commands (cli_args.h).
#include "cli_args.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

// Which network input a `[NAME=]FILE` argument is for: NAME's, or the first one not yet taken.
// Sets *t (index into Graph.inputs) and *file; -1 with a message when there is none.
int cli_pick_input(const Graph *g, const char *arg, const char *opt, void *const *taken, int *t, const char **file,
                      Diag *d) {
  const char *eq = strchr(arg, '=');
  *t = -1;
  *file = eq ? eq + 1 : arg;
  if (eq) {
    char name[80];
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    for (int i = 0; i < g->n_inputs; i++)
      if (!strcmp(g->tensors[g->inputs[i]].name, name)) *t = i;
    if (*t < 0) return diag_error(d, "sacc: error: %s %s: the network has no input \"%s\"", opt, arg, name);
  } else {
    for (int i = 0; i < g->n_inputs && *t < 0; i++)
      if (!taken[i]) *t = i;
    if (*t < 0) return diag_error(d, "sacc: error: more %s files than network inputs", opt);
  }
  if (taken[*t]) return diag_error(d, "sacc: error: input \"%s\" given twice", g->tensors[g->inputs[*t]].name);
  return 0;
}


void cli_calib_free(CliCalib *c) {
  for (int i = 0; c && i < 64; i++) free(c->data[i]), c->data[i] = NULL;
}

void cli_net_options(const CliCalib *c, NetOptions *opt) {
  net_options_default(opt);
  if (c && c->n) opt->calib = (const float *const *)c->data;
  if (c && c->allow_large) opt->max_macs = opt->max_bytes = 0;
}

static int read_calib(const Graph *g, CliCalib *c, Diag *d) {
  for (int k = 0; k < c->n; k++) {
    int t;
    const char *file;
    if (cli_pick_input(g, c->args[k], "--calib", (void *const *)c->data, &t, &file, d)) return -1;
    NpyArray a;
    if (npy_read(file, &a, d)) return -1;
    const Tensor *tt = &g->tensors[g->inputs[t]];
    int ok = (a.type == NPY_F32 || a.type == NPY_F64) && a.ndim == (uint32_t)tt->rank;
    for (int i = 0; ok && i < tt->rank; i++) ok = a.dims[i] == (uint64_t)tt->dims[i];
    int64_t count = graph_tensor_count(tt);
    if (ok && !(c->data[t] = malloc((size_t)count * sizeof(float) + 1))) ok = 0;
    int64_t bad = -1;   // the first element that is not a finite float32 value
    double bad_value = 0;
    for (int64_t i = 0; ok && bad < 0 && i < count; i++) {
      double v = a.type == NPY_F32 ? ((const float *)a.data)[i] : ((const double *)a.data)[i];
      if (!isfinite(v) || fabs(v) > FLT_MAX) bad = i, bad_value = v;   // (float)v would be undefined
      else c->data[t][i] = (float)v;
    }
    npy_free(&a);
    if (!ok)
      return diag_error(d, "%s: error: input \"%s\" needs a float32 or float64 array of the tensor's shape", file,
                        tt->name);
    if (bad >= 0)
      return diag_error(d, "%s: error: input \"%s\": element %lld is %g, not a finite float32 value", file,
                        tt->name, (long long)bad, bad_value);
  }
  return 0;
}

// Loads and prepares a network; calib (may be NULL) holds the --calib arguments and receives
// their data, which calibrates the scales a network leaves out.
int cli_load(const char *path, CliCalib *calib, Graph **g, Diag *d) {
  NetOptions opt;
  cli_net_options(NULL, &opt);
  if (net_load(path, &opt, g, d)) return -1;
  if (calib && calib->n && read_calib(*g, calib, d)) return -1;
  cli_net_options(calib, &opt);
  return net_prepare(*g, &opt, d);
}
