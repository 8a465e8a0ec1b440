// calib.h: activation scale calibration (calib.c) and the real-valued inputs it runs on.
#ifndef SACC_CALIB_H
#define SACC_CALIB_H

#include "net.h"

// Fills out (the element count of network input i, Graph.inputs order) with the calibration
// input: opt->calib[i] when given, else the input `sacc ref` generates by default (int8 from
// splitmix64 seeded with 1 + i) times the input's scale (1/128 when it has none yet).
void calib_input(const Graph *g, const NetOptions *opt, int i, float *out);
// After folding and weight quantization: when the network has float weights or opt->calib is
// given, runs the float reference on the calibration input and sets every scale not given to
// max|x| / 127 of its tensor (or inherits it, see shape_scales); otherwise a missing scale is
// an error. Then every tensor has its scale.
int calib_scales(Graph *g, const NetOptions *opt, Diag *d);

#endif
