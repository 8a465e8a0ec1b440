// shape.h: shape inference and weight materialization over a loaded graph (shape.c).
#ifndef SACC_SHAPE_H
#define SACC_SHAPE_H

#include "graph.h"

// Walks the layers in topological order: computes every output shape, resolves "same"
// padding, checks window and weight sizes, and fills Layer.w (or wf)/cin/macs and the
// batchnorm and bias parameters from their sources. max_elems caps any tensor. Returns 0, or
// -1 with errors naming the layer.
int shape_infer(Graph *g, int64_t max_elems, Diag *d);
// Fills the scales not given (after fold.c): inherited by relu, relu6, clip, maxpool,
// flatten, reshape and a concat of equal scales; otherwise calib[t] (max|x| / 127 from a
// float run, calib.c) when calib is non-NULL, else an error naming the layer or input.
int shape_scales(Graph *g, const double *calib, Diag *d);
// A real in [0, 1) from the top 53 bits of the next splitmix64 value (seeded real data).
double shape_seed_unit(uint64_t *state);
// splitmix64 (docs/NETJSON.md "Seeded data", the same generator as docs/ASM.md's seed:N).
uint64_t shape_seed_next(uint64_t *state);

#endif
