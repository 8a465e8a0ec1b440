// ref.h: the reference interpreter (ref.c): plain integer loops over NHWC int8 tensors, one
// function per op, following docs/ISA.md section 6 through isa/numerics.h. It shares no code
// with lowering or tiling; its outputs are the expected results of any compiled program.
#ifndef SACC_REF_H
#define SACC_REF_H

#include "graph.h"

// Values of every tensor of a graph, indexed like Graph.tensors.
typedef struct {
  int n;
  int8_t **data;      // data[t]: graph_tensor_count(t) int8 values, or NULL before computed
} RefValues;

// Runs the whole graph. inputs[i] holds the data of network input i (Graph.inputs order),
// copied. On success *out holds every tensor (ref_values_free).
int ref_run(const Graph *g, const int8_t *const *inputs, RefValues *out, Diag *d);
void ref_values_free(RefValues *v);
// Runs one layer whose inputs are in v (exposed for tests).
int ref_layer(const Graph *g, const Layer *l, RefValues *v, Diag *d);

// Summary of one int8 tensor (sacc ref --layer-stats): is the network numerically healthy?
typedef struct {
  int min, max;
  double mean;
  double zeros_pct;     // share of exact zeros, in percent
  double sat_pct;       // share of -128 or 127 (saturated), in percent
} RefStats;
void ref_stats(const int8_t *x, int64_t count, RefStats *out);

#endif
