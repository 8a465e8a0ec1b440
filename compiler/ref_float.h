// ref_float.h: the float reference (ref_float.c): the network computed in real numbers with
// float loops, from the real weights (float weights as given and folded, int8 weights times
// their scales) and real biases, no quantization of activations. Used to calibrate activation
// scales (calib.c) and to measure the int8 network's quantization error (sacc check).
#ifndef SACC_REF_FLOAT_H
#define SACC_REF_FLOAT_H

#include "graph.h"

typedef struct {
  int n;
  float **data;      // data[t]: graph_tensor_count(t) reals, NHWC; NULL before computed
} RefFloat;

// Runs the (folded) graph on inputs[i] (real values of network input i, Graph.inputs order).
// Needs no activation scale, except where an integer bias must be turned into a real one
// (then the layer's input scale; an error names the layer when it is not known).
int ref_float_run(const Graph *g, const float *const *inputs, RefFloat *out, Diag *d);
void ref_float_free(RefFloat *v);

#endif
