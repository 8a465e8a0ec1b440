// layer_dataflow.h: which dataflow each layer of a program ran in, read from its code: a layer's
// COMPUTE instructions are weight-stationary, COMPUTE_OS output-, COMPUTE_IS input-stationary
// (docs/DATAFLOWS.md). With --dataflow auto the compiler picks per layer; the stats show it.
#ifndef SA_LAYER_DATAFLOW_H
#define SA_LAYER_DATAFLOW_H

#include <stdint.h>

#include "../isa/program.h"

enum { DF_WS = 1, DF_OS = 2, DF_IS = 4 };

// mask[i] for the layers 0..n_layers-1 and mask[n_layers] for instructions before the first
// LAYER: the DF_* bits of the compute instructions attributed to it (each unit attributes what
// follows a LAYER in its queue to that layer, so program order is the compute unit's order).
// Returns a calloc'd array of p->n_layers + 1 entries, or NULL when out of memory.
uint8_t *layer_dataflows(const Program *p);
// "ws", "os", "is", several joined by '+' ("ws+os"), or "-" for a layer without computes.
const char *layer_dataflow_label(uint8_t mask);

#endif
