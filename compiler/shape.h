// shape.h: shape inference and weight materialization over a loaded graph (shape.c).
#ifndef SACC_SHAPE_H
#define SACC_SHAPE_H

#include "graph.h"

// Walks the layers in topological order: computes every output shape and scale, resolves
// "same" padding, checks window and weight sizes, and fills Layer.w/wscale/cin/macs from
// their sources. max_elems caps any tensor. Returns 0, or -1 with errors naming the layer.
int shape_infer(Graph *g, int64_t max_elems, Diag *d);
// splitmix64 (docs/NETJSON.md "Seeded data", the same generator as docs/ASM.md's seed:N).
uint64_t shape_seed_next(uint64_t *state);

#endif
