// qerror.h: the int8 network's quantization error against the float reference (qerror.c),
// as `sacc check` reports it.
#ifndef SACC_QERROR_H
#define SACC_QERROR_H

#include <stdio.h>

#include "net.h"

typedef struct {
  double max_abs;    // largest |int8 value * scale - float value|
  double rms;        // root mean square of that difference
  double sqnr_db;    // 10 log10(sum float^2 / sum difference^2); INFINITY when exact
} QError;

// The error of int8 values q (scale s) against reals f, count elements each.
void qerror_measure(const int8_t *q, double s, const float *f, int64_t count, QError *out);
// Runs both references on the calibration input (calib_input; the int8 run gets it quantized
// with the input's scale) and prints one line per network output, and per layer when
// per_layer. Returns -1 (errors in d) when a reference fails.
int qerror_report(const Graph *g, const NetOptions *opt, int per_layer, FILE *f, Diag *d);

#endif
