// detailed_sfu.c: the special-function unit of the detailed engine (TIMING §7a). CFG_SFU and
// LAYER execute in their start cycle.
#include "detailed.h"

int det_sfu_init(Det *m) {
  (void)m;
  return 0;
}

void det_sfu_free(Det *m) { (void)m; }

int det_sfu_can_start(const Det *m, const Insn *in) {
  (void)m;
  (void)in;
  return 1;
}

int det_sfu_active(const Det *m) {
  (void)m;
  return 0;
}

void det_sfu_start(Det *m, uint32_t k) {
  SfuUnit *su = &m->sfu;
  const Insn *in = &m->insns[k];
  switch (in->op) {
  case OP_CFG_SFU:
    su->mult = in->f[FLD_MULT];
    su->shift = in->f[FLD_SHIFT];
    su->eps = in->f[FLD_EPS];
    break;
  case OP_LAYER: break;
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE: return;   // refused before the run (sim_run) until the unit is modelled
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_PRELOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_HALT: return;   // not routed to the special-function unit
  }
  det_ready(m, UNIT_SFU, k);
  det_end(m, UNIT_SFU, k);
}

void det_sfu_update(Det *m) { (void)m; }
