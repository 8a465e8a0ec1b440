// shape.h: shape inference and weight materialization over a loaded graph (shape.c).
#ifndef SACC_SHAPE_H
#define SACC_SHAPE_H

#include "graph.h"

// What a network may cost (docs/NETJSON.md "Limits"); the defaults are net_options_default's.
typedef struct {
  int64_t max_elems;      // cap on the element count of any tensor or weight array
  int64_t max_macs;       // 0, or a cap on the network's multiply-accumulates
  int64_t max_bytes;      // 0, or a cap on the bytes of its activations and weights
} ShapeLimits;

// Walks the layers in topological order: computes every output shape, resolves "same"
// padding, checks window and weight sizes, and fills Layer.w (or wf)/cin/macs and the
// batchnorm and bias parameters from their sources. lim caps any tensor, and the running sums
// of MACs and bytes after each layer (so that a small file cannot start hours of work or
// gigabytes of allocation: the error names the layer that passes the limit). Returns 0, or
// -1 with errors naming the layer.
int shape_infer(Graph *g, const ShapeLimits *lim, Diag *d);
// Fills the scales not given (after fold.c): inherited by relu, relu6, clip, maxpool,
// flatten, reshape and a concat of equal scales; otherwise calib[t] (max|x| / 127 from a
// float run, calib.c) when calib is non-NULL, else an error naming the layer or input.
int shape_scales(Graph *g, const double *calib, Diag *d);
// A real in [0, 1) from the top 53 bits of the next splitmix64 value (seeded real data).
double shape_seed_unit(uint64_t *state);
// splitmix64 (docs/NETJSON.md "Seeded data", the same generator as docs/ASM.md's seed:N).
uint64_t shape_seed_next(uint64_t *state);

#endif
