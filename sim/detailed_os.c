// detailed_os.c: the output-stationary mode of the detailed engine's array (COMPUTE_OS, TIMING
// §6), stepped once per clock. detailed_array.c owns the compute unit and calls in here; the
// weight-stationary registers and the weight banks are not used in this mode (the mode-switch
// rule keeps the two modes from sharing the array in any cycle).
//
// Sequencer: step k (cycle s + k, k < KLEN) reads WBUF[WSRC + k]; step j*R + r (j < J, r < ROWS)
// reads SPAD[SRC + j*KSTRIDE + r] into row r's input shift register, which feeds element i to
// PE (r, 0) in step j*R + r + i (only while j*R + i < KLEN; the read element 0 goes straight in).
// Element c of a WBUF row waits c cycles in column c's skew line, then enters PE (0, c).
//
// PE (r, c) takes A from its left neighbour's register (or row r's shift register) and B from
// the register above (or column c's skew line) and latches both; when B is valid it multiplies
// (rows >= ROWS carry no A: they multiply zero) and adds into its own accumulator, the first
// product (k = 0) replacing it. The last product (k = KLEN - 1) goes into the PE's drain register
// instead, so the accumulator is free for the next COMPUTE_OS at once.
//
// Drain, per column: the cycle after the bottom PE's drain register is loaded, the column starts
// draining. In drain cycle j (j < R) the bottom drain register holds PE row R - 1 - j's sum, which
// is written (added when ACCUM) to ACC[ACC_ADDR + R - 1 - j][c] when that row is < ROWS; at the end
// of the cycle drain registers r > j take the one above. The instruction ends with the last drain
// cycle of column C - 1. The drain rule (b) of §6 is what makes the next instruction's drain-
// register loads land only in registers that have stopped shifting (asserted below).
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/numerics.h"
#include "detailed.h"

int det_os_init(Det *m) {
  OsArray *os = &m->cu.os;
  uint32_t R = m->a->rows, C = m->a->cols, n = 1;
  while (n < 2 * R + C + 2) n *= 2;   // instructions in the array at once: at most 2R + C
  os->ins_mask = n - 1;
  os->ins = calloc(n, sizeof *os->ins);
  os->brow = calloc(C, 1);
  os->bskew = calloc((size_t)C * C, sizeof *os->bskew);
  os->rowreg = calloc((size_t)R * R, 1);
  os->rowpos = calloc(R, sizeof *os->rowpos);
  os->rown = calloc(R, sizeof *os->rown);
  os->pe = calloc((size_t)R * C, sizeof *os->pe);
  os->dr = calloc((size_t)R * C, sizeof *os->dr);
  os->dj = malloc(C * sizeof *os->dj);
  os->wlog = calloc(C, sizeof *os->wlog);
  if (!os->ins || !os->brow || !os->bskew || !os->rowreg || !os->rowpos || !os->rown || !os->pe || !os->dr ||
      !os->dj || !os->wlog)
    return -1;
  for (uint32_t c = 0; c < C; c++) os->dj[c] = -1;
  return 0;
}

void det_os_free(Det *m) {
  OsArray *os = &m->cu.os;
  free(os->ins);
  free(os->brow);
  free(os->bskew);
  free(os->rowreg);
  free(os->rowpos);
  free(os->rown);
  free(os->pe);
  free(os->dr);
  free(os->dj);
  free(os->wlog);
}

int det_os_can_start(const Det *m, const Insn *in) {
  const OsArray *os = &m->cu.os;
  return m->t + (uint64_t)in->f[FLD_KLEN] >= os->gate;
}

void det_os_start(Det *m, uint32_t k) {
  OsArray *os = &m->cu.os;
  const Insn *in = &m->insns[k];
  uint32_t R = m->a->rows;
  os->seq = 1;
  os->seq_tag = os->ins_next++ & os->ins_mask;
  os->ins[os->seq_tag] = (OsInsn){.insn = k,
                                  .acc_addr = (uint64_t)in->f[FLD_ACC_ADDR],
                                  .rows = (uint32_t)in->f[FLD_ROWS],
                                  .accum = in->f[FLD_ACCUM] != 0};
  os->step = 0;
  os->klen = (uint64_t)in->f[FLD_KLEN];
  os->wsrc = (uint64_t)in->f[FLD_WSRC];
  os->src = (uint64_t)in->f[FLD_SRC];
  os->kstride = (uint64_t)in->f[FLD_KSTRIDE];
  os->rows = (uint32_t)in->f[FLD_ROWS];
  uint64_t J = (os->klen + R - 1) / R, spad_steps = (J - 1) * R + os->rows;
  os->len = os->klen > spad_steps ? os->klen : spad_steps;
  os->gate = m->t + os->klen + R;
  os->users++;
}

// One sequencer step: the WBUF row of step k (into brow / b_in) and the SPAD row of this step.
static void seq_step(Det *m) {
  OsArray *os = &m->cu.os;
  uint32_t R = m->a->rows, C = m->a->cols;
  os->b_in.b_valid = 0;
  if (!os->seq) return;
  m->inside[UNIT_COMPUTE] = 1;
  uint64_t k = os->step;
  if (k < os->klen) {
    memcpy(os->brow, m->s->wbuf + (os->wsrc + k) * C, C);
    LayerStats *ls = det_layer(m, os->ins[os->seq_tag].insn);
    ls->mem_reads[MEM_ST_WBUF]++;
    ls->pe_cycles += (uint64_t)R * C;   // the slots this k step will use (pe_step counts the slots, a check)
    os->b_in = (OsPe){.b_valid = 1, .first = k == 0, .last = k + 1 == os->klen, .tag = os->seq_tag};
  }
  uint64_t j = k / R, r = k % R;
  if (r < os->rows && j * R < os->klen) {
    memcpy(os->rowreg + r * R, m->s->spad + (os->src + j * os->kstride + r) * R, R);
    det_layer(m, os->ins[os->seq_tag].insn)->mem_reads[MEM_ST_SPAD]++;
    os->rowpos[r] = 0;
    os->rown[r] = (uint32_t)(os->klen - j * R < R ? os->klen - j * R : R);
  }
  if (++os->step == os->len) {
    os->seq = 0;
    det_ready(m, UNIT_COMPUTE, os->ins[os->seq_tag].insn);
  }
}

// The drains of this cycle: each draining column writes its bottom drain register, then its
// registers below the drain front take the one above (at the clock edge).
static int drain_step(Det *m) {
  OsArray *os = &m->cu.os;
  uint32_t R = m->a->rows, C = m->a->cols;
  int n = 0;
  for (uint32_t c = 0; c < C; c++) {
    os->wlog[c].row = UINT64_MAX;
    if (os->dj[c] < 0) continue;
    uint32_t j = (uint32_t)os->dj[c], row = R - 1 - j;
    const OsDrain *b = &m->cu.os.dr[(size_t)(R - 1) * C + c];
    assert(b->valid);
    const OsInsn *oi = &os->ins[b->tag];
    if (row < oi->rows) {
      uint64_t at = oi->acc_addr + row;
      int32_t *x = &m->s->acc[at * C + c];
      *x = oi->accum ? sa_wrap_add32(*x, b->v) : b->v;
      os->wlog[c] = (AccWrite){.row = at, .bank = c, .sum = b->v, .accum = oi->accum};
      if (m->log && m->log->acc)
        m->log->acc[c] = (SimAccWrite){.row = at, .value = b->v, .accum = oi->accum, .bank = c, .insn = oi->insn};
      n++;
      if (c == 0) {
        LayerStats *ls = det_layer(m, oi->insn);
        ls->mem_writes[MEM_ST_ACC]++;
        if (oi->accum) ls->mem_reads[MEM_ST_ACC]++;
      }
    }
    if (j + 1 == R && c + 1 == C) {
      os->users--;
      det_end(m, UNIT_COMPUTE, oi->insn);
    }
    for (uint32_t r = R - 1; r > j; r--) os->dr[(size_t)r * C + c] = os->dr[(size_t)(r - 1) * C + c];
    os->dr[(size_t)j * C + c].valid = 0;   // drained; free for the next instruction's sum
    os->dj[c] = j + 1 == R ? -1 : (int32_t)(j + 1);
  }
  return n;
}

// Every PE latches its operands, bottom-right first so that each reads its left and upper
// neighbours' registers as they were at the start of the cycle.
static void pe_step(Det *m) {
  OsArray *os = &m->cu.os;
  uint32_t R = m->a->rows, C = m->a->cols;
  uint64_t macs = 0, slots = 0;
  int64_t tag = -1;   // instruction whose layer `macs` is counted for
  for (uint32_t r = R; r-- > 0;)
    for (uint32_t c = C; c-- > 0;) {
      OsPe *p = &os->pe[(size_t)r * C + c];
      // A from the left
      if (c) {
        const OsPe *l = &os->pe[(size_t)r * C + c - 1];
        p->a = l->a;
        p->a_valid = l->a_valid;
      } else if (os->rowpos[r] < os->rown[r]) {
        p->a = os->rowreg[(size_t)r * R + os->rowpos[r]++];
        p->a_valid = 1;
      } else {
        p->a_valid = 0;
      }
      // B from above
      const OsPe *u = r ? &os->pe[(size_t)(r - 1) * C + c] : c ? &os->bskew[(size_t)c * C + c - 1] : &os->b_in;
      int8_t b = r || c ? u->b : os->brow[0];
      p->b_valid = u->b_valid;
      if (!p->b_valid) continue;
      p->b = b;
      p->first = u->first;
      p->last = u->last;
      p->tag = u->tag;
      const OsInsn *oi = &os->ins[p->tag];
      assert(r >= oi->rows || p->a_valid);   // A and B of the same k meet in every PE
      int32_t prod = r < oi->rows ? sa_wrap_mul8(p->a, b) : 0;
      int32_t sum = sa_wrap_add32(p->first ? 0 : p->acc, prod);
      p->n = p->first ? 1 : p->n + 1;
      if (p->last) {
        OsDrain *d = &os->dr[(size_t)r * C + c];
        assert(!d->valid);   // rule (b): this register has stopped shifting the previous sums
        *d = (OsDrain){.v = sum, .valid = 1, .tag = p->tag};
        p->holds = 0;
        assert(r + 1 < R || os->dj[c] < 0);   // rule (b): the previous drain of the column is over
      } else {
        p->acc = sum;
        p->holds = 1;
      }
      slots++;
      if (r < oi->rows) {
        if (tag != (int64_t)p->tag && macs) {
          det_layer(m, os->ins[tag].insn)->macs += macs;
          macs = 0;
        }
        tag = p->tag;
        macs++;
      }
    }
  if (macs) det_layer(m, os->ins[tag].insn)->macs += macs;
  m->pe_slots += slots;
  // A column whose bottom PE just loaded its drain register drains from the next cycle.
  for (uint32_t c = 0; c < C; c++) {
    const OsPe *p = &os->pe[(size_t)(R - 1) * C + c];
    if (p->b_valid && p->last) os->dj[c] = 0;
  }
}

// The B skew lines shift; element c of the WBUF row read this cycle enters column c's line.
static void skew_shift(Det *m) {
  OsArray *os = &m->cu.os;
  uint32_t C = m->a->cols;
  for (uint32_t c = 1; c < C; c++) {
    OsPe *line = &os->bskew[(size_t)c * C];
    for (uint32_t i = c - 1; i > 0; i--) line[i] = line[i - 1];
    line[0] = os->b_in;
    line[0].b = os->brow[c];
  }
}

// The snapshot of this cycle for the array observers (array_snap.h): each PE's operands when it
// multiplied, its own sum (the stationary output) and its drain register.
static void observe_os(Det *m, int writes) {
  const OsArray *os = &m->cu.os;
  uint32_t R = m->a->rows, C = m->a->cols;
  for (uint32_t i = 0; i < R * C; i++) {
    const OsPe *p = &os->pe[i];
    const OsDrain *d = &os->dr[i];
    SnapPe *q = &m->cu.snap[i];
    *q = (SnapPe){.state = p->b_valid ? SNAP_PE_MAC : p->holds ? SNAP_PE_HOLD : SNAP_PE_EMPTY,
                  .dr_valid = d->valid,
                  .dr = d->valid ? d->v : 0};
    if (p->b_valid) {
      q->act = p->a_valid ? p->a : 0;
      q->b = p->b;
      q->drained = p->last;
    }
    if (q->state != SNAP_PE_EMPTY) {
      q->n = p->n;
      q->sum = p->b_valid && p->last ? d->v : p->acc;   // drained: the finished sum, now in the drain register
    }
  }
  det_observe(m, SNAP_OS, os->wlog, writes, 0);
}

void det_os_update(Det *m) {
  OsArray *os = &m->cu.os;
  if (!os->users) return;   // no COMPUTE_OS in the array: clock gated
  seq_step(m);
  int writes = drain_step(m);
  pe_step(m);
  skew_shift(m);
  if (det_observing(m)) observe_os(m, writes);
}
