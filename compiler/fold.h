// fold.h: constant folding (fold.c): batchnorm and bias layers folded into the conv2d or fc
// that produces their input, so that later passes see only the ops the machine runs.
#ifndef SACC_FOLD_H
#define SACC_FOLD_H

#include "graph.h"

// Folds every batchnorm and bias layer (after shape_infer, before quantization) and removes
// it and the tensor it read from the graph. Errors name the layer: the producer must be a
// conv2d or fc without a fused activation, and the folded layer its only reader.
int fold_graph(Graph *g, Diag *d);

#endif
