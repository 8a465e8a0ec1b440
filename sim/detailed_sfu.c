// detailed_sfu.c: the special-function unit of the detailed engine (TIMING §7a), one clock at a
// time. CFG_SFU and LAYER execute in their start cycle. A data instruction latches its fields and
// takes its ROWS rows one after the other, each through its phases, one cycle of a phase per
// clock:
//  - SFU_MAP, SFU_EW: the row's C values through the L lanes, k = ceil(C / min(L, C)) cycles;
//  - SFU_SOFTMAX: a pass for the maximum, a pass for the exponentials and their sum (S x k cycles
//    each, S = ceil(LEN / C) segments), 17 cycles of the scalar reciprocal, the normalising pass;
//  - SFU_LAYERNORM: a pass for the sums, 33 cycles of the scalar inverse square root, the
//    normalising pass;
//  - SFU_REDUCE: one pass.
// In the last cycle of a row's last phase its results are computed (sfu_exec.c, from the
// accumulator as it is then: every source value has been read) and enter the pipeline; they are
// written P = sfu.latency cycles later. The instruction ends in the cycle its last row is written
// (e = s + ROWS x (row cycles) + P - 1) and the unit takes its next instruction in the cycle
// after (ready = e + 1): it runs one instruction at a time. The unit's ACC and PARAM ports are its
// own (TIMING §1), so nothing ever stalls it.
#include <stdlib.h>

#include "detailed.h"

int det_sfu_init(Det *m) {
  SfuUnit *su = &m->sfu;
  su->pipe_cap = m->a->sfu_latency + 1;
  su->pipe = calloc(su->pipe_cap, sizeof *su->pipe);
  return su->pipe ? 0 : -1;
}

void det_sfu_free(Det *m) {
  SfuUnit *su = &m->sfu;
  for (uint32_t i = 0; su->pipe && i < su->pipe_cap; i++) free(su->pipe[i].vals);
  free(su->pipe);
}

int det_sfu_can_start(const Det *m, const Insn *in) {
  (void)in;
  return !m->sfu.active;
}

int det_sfu_active(const Det *m) { return m->sfu.active; }

static void add_phase(SfuUnit *su, SfuPhaseKind kind, uint64_t cycles) {
  su->phase_kind[su->n_phases] = kind;
  su->phase_cycles[su->n_phases++] = cycles;
}

// Latches a data instruction: its rows' phases, and room in the pipeline for its results.
// Returns -1 on out of memory.
static int sfu_latch(Det *m, uint32_t k) {
  SfuUnit *su = &m->sfu;
  const Insn *in = &m->insns[k];
  const Arch *a = m->a;
  uint64_t lanes = sfu_lane_cycles(a), pass = sfu_segments(a, in) * lanes, n = sfu_row_out_len(a, in);
  if (n > su->vals_cap) {
    for (uint32_t i = 0; i < su->pipe_cap; i++) {
      int32_t *v = realloc(su->pipe[i].vals, n * sizeof *v);
      if (!v) return -1;
      su->pipe[i].vals = v;
    }
    su->vals_cap = n;
  }
  su->n_phases = 0;
  switch (in->op) {
  case OP_SFU_MAP:
  case OP_SFU_EW: add_phase(su, SFU_PH_LANES, lanes); break;
  case OP_SFU_SOFTMAX:
    add_phase(su, SFU_PH_PASS, pass);    // the maximum
    add_phase(su, SFU_PH_PASS, pass);    // the exponentials and their sum
    add_phase(su, SFU_PH_SCALAR, 17);    // the reciprocal: 17 quotient bits
    add_phase(su, SFU_PH_PASS, pass);    // normalise and write
    break;
  case OP_SFU_LAYERNORM:
    add_phase(su, SFU_PH_PASS, pass);    // S1 and S2
    add_phase(su, SFU_PH_SCALAR, 33);    // the inverse square root: 16 root bits, 17 quotient bits
    add_phase(su, SFU_PH_PASS, pass);    // normalise, the affine, write
    break;
  case OP_SFU_REDUCE: add_phase(su, SFU_PH_PASS, pass); break;
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
  case OP_HALT: return 0;   // not data instructions
  }
  su->active = 1;
  su->insn = k;
  su->rows = (uint32_t)in->f[FLD_ROWS];
  su->row = su->phase = su->written = 0;
  su->cyc = 0;
  sfu_count(a, in, det_layer(m, k));
  return 0;
}

void det_sfu_start(Det *m, uint32_t k) {
  SfuUnit *su = &m->sfu;
  const Insn *in = &m->insns[k];
  switch (in->op) {
  case OP_CFG_SFU: sfu_regs_set(&su->regs, in); break;
  case OP_LAYER: break;
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
    if (sfu_latch(m, k)) m->oom = 1;
    return;
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

static SfuMem acc_of(Det *m) { return (SfuMem){m->s->acc, m->a->cols, 1, m->s->param}; }

// The lanes: one cycle of the current row's phase; a row leaving its last phase enters the pipeline.
static void lanes_step(Det *m) {
  SfuUnit *su = &m->sfu;
  if (su->row >= su->rows) return;
  if (++su->cyc < su->phase_cycles[su->phase]) return;
  su->cyc = 0;
  if (++su->phase < su->n_phases) return;
  su->phase = 0;
  SfuWrite *w = &su->pipe[(su->pipe_head + su->pipe_count) % su->pipe_cap];
  su->pipe_count++;
  w->row = su->row++;
  w->due = m->t + m->a->sfu_latency;
  SfuMem mem = acc_of(m);
  sfu_row_compute(m->a, &su->regs, &m->insns[su->insn], &mem, w->row, w->vals);
}

// The write port: the oldest row in the pipeline, when it is due.
static void write_step(Det *m) {
  SfuUnit *su = &m->sfu;
  if (!su->pipe_count || su->pipe[su->pipe_head].due != m->t) return;
  const SfuWrite *w = &su->pipe[su->pipe_head];
  SfuMem mem = acc_of(m);
  sfu_row_write(m->a, &m->insns[su->insn], &mem, w->row, w->vals);
  su->pipe_head = (su->pipe_head + 1) % su->pipe_cap;
  su->pipe_count--;
  if (++su->written < su->rows) return;
  su->active = 0;
  det_ready(m, UNIT_SFU, su->insn);
  det_end(m, UNIT_SFU, su->insn);
}

void det_sfu_update(Det *m) {
  if (!m->sfu.active) return;
  m->inside[UNIT_SFU] = 1;
  lanes_step(m);
  write_step(m);
}
