// sfu_cycles.c: the special-function unit's cycle rule (sfu_cycles.h, docs/TIMING.md 7a).
#include "sfu_cycles.h"

uint64_t sfu_lane_cycles(const Arch *a) {
  uint64_t C = a->cols, L = a->sfu_lanes < a->cols ? a->sfu_lanes : a->cols;
  if (!L) L = 1;
  return (C + L - 1) / L;
}

uint64_t sfu_row_cycles_of(const Arch *a, Opcode op, uint64_t segs) {
  uint64_t k = sfu_lane_cycles(a), S = segs;
  switch (op) {
  case OP_SFU_MAP:
  case OP_SFU_EW: return k;
  case OP_SFU_SOFTMAX: return 3 * S * k + 17;     // max; exps and sum; 17 reciprocal steps; normalise
  case OP_SFU_LAYERNORM: return 2 * S * k + 33;   // sums; 16 root + 17 quotient steps; normalise
  case OP_SFU_REDUCE: return S * k;
  case OP_CFG_SFU:
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_PRELOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_HALT: break;   // no rows
  }
  return 0;
}
