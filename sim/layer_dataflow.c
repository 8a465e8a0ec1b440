// layer_dataflow.c: the dataflow of each layer, from its compute instructions (layer_dataflow.h).
#include "layer_dataflow.h"

#include <stdlib.h>

uint8_t *layer_dataflows(const Program *p) {
  uint8_t *mask = calloc((size_t)p->n_layers + 1, 1);
  if (!mask) return NULL;
  uint32_t layer = p->n_layers;   // before the first LAYER: the "(none)" row
  for (uint32_t k = 0; k < p->n_insns; k++) {
    Insn in = prog_insn(p, k);
    if (in.op == OP_LAYER)
      layer = in.f[FLD_LAYER_ID] < p->n_layers ? (uint32_t)in.f[FLD_LAYER_ID] : p->n_layers;
    else if (in.op == OP_COMPUTE)
      mask[layer] |= DF_WS;
    else if (in.op == OP_COMPUTE_OS)
      mask[layer] |= DF_OS;
    else if (in.op == OP_COMPUTE_IS)
      mask[layer] |= DF_IS;
  }
  return mask;
}

const char *layer_dataflow_label(uint8_t mask) {
  static const char *const label[8] = {"-", "ws", "os", "ws+os", "is", "ws+is", "os+is", "ws+os+is"};
  return label[mask & 7];
}
