// detailed_store.c: the store unit of the detailed engine (TIMING §7). CFG_STORE, CFG_POOL and
// LAYER execute in their start cycle. A STORE latches its fields, the CFG_STORE/CFG_POOL
// registers and (PARAMS=1) the three PARAM rows at its start, then runs three stages at once:
//  - front end: output row j = o*INNER + i takes W cycles, one window position per cycle in
//    row-major order (W = KH*KW when pooled, else 1); a position inside the input reads one ACC
//    row, a padding position reads nothing. A row starts only when the FIFO had a free slot at
//    the start of the cycle (a slot is held from the row's first read until its last beat is
//    issued). Post-processing is folded into the window reduction (sa_post per value for
//    NONE/MAX, the biased int64 sum for AVG, the raw int32 for RAW32);
//  - the post-processing pipeline: S stages carrying the slot number; a row whose last read was in cycle x
//    is ready to write from cycle x + S;
//  - the write port: the oldest FIFO row, once ready, offers its aligned beats (byte strobes on
//    the row's bytes) to the write channel, one per cycle; a refused beat is a stall cycle.
// A STORE with GBUF=1 writes its rows' beats (of gbuf.bus_bytes) through the global buffer's
// write port instead, which takes one every cycle (TIMING §5a). Acknowledgements of both memories
// are taken in issue order, one per cycle (one that arrives early waits for the earlier beats':
// A_b = max(I_b + L_b, A_(b-1) + 1)).
// The unit is free again the cycle after the last beat of the last row was accepted; the STORE
// ends with that beat's acknowledgement (e = A_last).
#include <stdlib.h>
#include <string.h>

#include "../isa/numerics.h"
#include "detailed.h"

int det_store_init(Det *m) {
  StoreUnit *su = &m->su;
  uint32_t C = m->a->cols, D = m->a->store_fifo_rows ? m->a->store_fifo_rows : 1;
  uint32_t S = m->a->post_latency ? m->a->post_latency : 1;
  su->fly_cap = det_fly_cap(m->a);
  su->fly = calloc(su->fly_cap, sizeof *su->fly);
  su->slot = calloc(D, sizeof *su->slot);
  su->pipe = malloc(S * sizeof *su->pipe);
  su->bias = calloc(C, sizeof *su->bias);
  su->mult = calloc(C, sizeof *su->mult);
  su->shift = calloc(C, sizeof *su->shift);
  su->win = calloc(C, sizeof *su->win);
  if (!su->fly || !su->slot || !su->pipe || !su->bias || !su->mult || !su->shift || !su->win) return -1;
  for (uint32_t k = 0; k < S; k++) su->pipe[k] = -1;
  for (uint32_t k = 0; k < D; k++)
    if (!(su->slot[k].bytes = calloc(4 * (size_t)C, 1))) return -1;
  return 0;
}

void det_store_free(Det *m) {
  StoreUnit *su = &m->su;
  if (su->slot)
    for (uint32_t k = 0; k < (m->a->store_fifo_rows ? m->a->store_fifo_rows : 1); k++) free(su->slot[k].bytes);
  free(su->slot);
  free(su->fly);
  free(su->pipe);
  free(su->bias);
  free(su->mult);
  free(su->shift);
  free(su->win);
}

int det_store_can_start(const Det *m, const Insn *in) {
  (void)in;
  return !m->su.active;
}

int det_store_active(const Det *m) { return m->su.active; }

static uint32_t fifo_depth(const Det *m) { return m->a->store_fifo_rows ? m->a->store_fifo_rows : 1; }
static uint32_t post_depth(const Det *m) { return m->a->post_latency ? m->a->post_latency : 1; }

// Latches the bias, multiplier and shift of every column (identity unless PARAMS=1).
static void params_latch(Det *m) {
  StoreUnit *su = &m->su;
  uint64_t C = m->a->cols, prow = (uint64_t)su->prow;
  int use = su->params && !su->raw32;
  for (uint64_t c = 0; c < C; c++) {
    su->bias[c] = 0;
    su->mult[c] = 1;
    su->shift[c] = 0;
    if (use && prow + 2 < m->a->param_rows) {
      su->bias[c] = m->s->param[prow * C + c];
      su->mult[c] = m->s->param[(prow + 1) * C + c];
      su->shift[c] = (uint32_t)m->s->param[(prow + 2) * C + c] & 63u;
    }
  }
  if (use) {
    det_layer(m, su->insn)->mem_reads[MEM_ST_PARAM] += 3;
  }
}

static void store_latch(Det *m, uint32_t k) {
  StoreUnit *su = &m->su;
  const Insn *in = &m->insns[k];
  su->active = 1;
  su->insn = k;
  su->raw32 = in->f[FLD_RAW32] != 0;
  su->gbuf = in->f[FLD_GBUF] != 0;
  su->B = arch_beat_bytes(m->a, su->gbuf);
  su->src = (uint64_t)in->f[FLD_SRC];
  su->addr = (uint64_t)in->f[FLD_DRAM_ADDR];
  su->outer = (uint32_t)in->f[FLD_OUTER];
  su->inner = (uint32_t)in->f[FLD_INNER];
  su->cols = (uint32_t)in->f[FLD_COLS] < m->a->cols ? (uint32_t)in->f[FLD_COLS] : m->a->cols;
  su->nrows = su->outer * su->inner;
  su->nbytes = su->raw32 ? 4 * su->cols : su->cols;
  su->l_act = su->act;
  su->l_lo = su->lo;
  su->l_hi = su->hi;
  su->l_so = su->so;
  su->l_si = su->si;
  su->l_pool = su->raw32 ? POOL_NONE : su->pool;   // RAW32 is never pooled (prog_check)
  su->l_kw = su->kw;
  su->l_sh = su->sh;
  su->l_sw = su->sw;
  su->l_pad_t = su->pad_t;
  su->l_pad_l = su->pad_l;
  su->l_in_h = su->in_h;
  su->l_in_w = su->in_w;
  su->W = su->l_pool == POOL_NONE ? 1 : (uint32_t)(su->kh * su->kw);
  su->fe_busy = 0;
  su->rows_started = su->rows_written = su->beats_done = 0;
  params_latch(m);
}

void det_store_start(Det *m, uint32_t k) {
  StoreUnit *su = &m->su;
  const Insn *in = &m->insns[k];
  switch (in->op) {
  case OP_STORE: store_latch(m, k); return;
  case OP_CFG_STORE:
    su->act = in->f[FLD_ACT];
    su->params = in->f[FLD_PARAMS];
    su->prow = in->f[FLD_PROW];
    su->lo = in->f[FLD_CLAMP_LO];
    su->hi = in->f[FLD_CLAMP_HI];
    su->so = in->f[FLD_STRIDE_OUTER];
    su->si = in->f[FLD_STRIDE_INNER];
    break;
  case OP_CFG_POOL:
    su->pool = in->f[FLD_POOL];
    su->kh = in->f[FLD_KH];
    su->kw = in->f[FLD_KW];
    su->sh = in->f[FLD_SH];
    su->sw = in->f[FLD_SW];
    su->pad_t = in->f[FLD_PAD_T];
    su->pad_l = in->f[FLD_PAD_L];
    su->in_h = in->f[FLD_IN_H];
    su->in_w = in->f[FLD_IN_W];
    break;
  case OP_LAYER: break;
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_PRELOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: return;   // not routed to the store unit
  }
  det_ready(m, UNIT_STORE, k);
  det_end(m, UNIT_STORE, k);
}

// DRAM address of output row j.
static uint64_t row_addr(const StoreUnit *su, uint32_t j) {
  return su->addr + (uint64_t)(j / su->inner) * (uint64_t)su->l_so + (uint64_t)(j % su->inner) * (uint64_t)su->l_si;
}

static uint32_t row_beats(const Det *m, uint32_t j) {
  uint64_t a = row_addr(&m->su, j), B = m->su.B;
  return (uint32_t)((a + m->su.nbytes - 1) / B - a / B + 1);
}

void det_store_request(Det *m, DramReq *dreq, DramReq *greq) {
  StoreUnit *su = &m->su;
  dreq->valid = greq->valid = su->offered = 0;
  if (!su->active || !su->fifo_count || su->slot[su->fifo_head].state != SLOT_READY) return;
  DramReq *req = su->gbuf ? greq : dreq;
  const FifoSlot *h = &su->slot[su->fifo_head];
  uint64_t a = row_addr(su, h->row), B = su->B;
  uint64_t beat = (a / B + su->beats_done) * B;
  for (uint32_t x = 0; x < B; x++) {
    uint64_t byte = beat + x;
    int in_row = byte >= a && byte - a < su->nbytes;
    req->strobe[x] = (uint8_t)in_row;
    req->data[x] = in_row ? h->bytes[byte - a] : 0;
  }
  req->addr = beat;
  req->tag = (su->fly_head + su->fly_count) % su->fly_cap;
  req->valid = su->offered = 1;
}

// The write port after the channel's answer. Returns 1 when it freed the head FIFO slot.
static int write_port(Det *m, int accepted) {
  StoreUnit *su = &m->su;
  if (!su->offered) return 0;
  if (!accepted) {
    m->stall[UNIT_STORE] = 1;
    m->s->times[su->insn].stall++;
    return 0;
  }
  FifoSlot *h = &su->slot[su->fifo_head];
  int row_done = ++su->beats_done == row_beats(m, h->row);
  StoreAck *ack = &su->fly[(su->fly_head + su->fly_count) % su->fly_cap];
  su->fly_count++;
  *ack = (StoreAck){.insn = su->insn, .last = (uint8_t)(row_done && su->rows_written + 1 == su->nrows)};
  layer_count_write(det_layer(m, su->insn), su->gbuf, 1, 0);
  if (!row_done) return 0;
  h->state = SLOT_FREE;
  su->fifo_head = (su->fifo_head + 1) % fifo_depth(m);
  su->beats_done = 0;
  su->rows_written++;
  layer_count_write(det_layer(m, su->insn), su->gbuf, 0, su->nbytes);
  return 1;
}

// Front end: window position fe_pos of row fe_row. A position inside the input reads its ACC
// row and folds it into win[].
static void window_read(Det *m) {
  StoreUnit *su = &m->su;
  uint64_t C = m->a->cols, j = su->fe_row, row;
  if (su->l_pool == POOL_NONE) {
    row = su->src + j;
  } else {
    int64_t o = (int64_t)(j / su->inner), i = (int64_t)(j % su->inner);
    int64_t y = o * su->l_sh - su->l_pad_t + su->fe_pos / su->l_kw;
    int64_t x = i * su->l_sw - su->l_pad_l + su->fe_pos % su->l_kw;
    if (y < 0 || y >= su->l_in_h || x < 0 || x >= su->l_in_w) return;   // padding: nothing read
    row = su->src + (uint64_t)(y * su->l_in_w + x);
  }
  LayerStats *ls = det_layer(m, su->insn);
  ls->mem_reads[MEM_ST_ACC]++;
  if (!su->raw32) {
    ls->post_elems += su->cols;
  }
  const int32_t *acc = row < m->a->acc_rows ? &m->s->acc[row * C] : NULL;
  for (uint32_t c = 0; c < su->cols; c++) {
    int32_t v = acc ? acc[c] : 0;
    switch (su->raw32 ? POOL_NONE : su->l_pool) {
    case POOL_MAX: {
      int8_t p = sa_post(v, su->bias[c], su->mult[c], su->shift[c], (unsigned)su->l_act, (int8_t)su->l_lo,
                         (int8_t)su->l_hi);
      if (p > su->win[c]) su->win[c] = p;
      break;
    }
    case POOL_AVG: su->win[c] += sa_sat32((int64_t)v + su->bias[c]); break;
    default: su->win[c] = v; break;
    }
  }
}

// The window is complete: the row's bytes, as they will be written, go into its FIFO slot.
static void window_finish(Det *m) {
  StoreUnit *su = &m->su;
  uint8_t *out = su->slot[su->fe_slot].bytes;
  for (uint32_t c = 0; c < su->cols; c++) {
    int64_t w = su->win[c];
    if (su->raw32) {
      uint32_t u = (uint32_t)(int32_t)w;
      for (int b = 0; b < 4; b++) out[4 * c + (uint32_t)b] = (uint8_t)(u >> (8 * b));
      continue;
    }
    int8_t q;
    switch (su->l_pool) {
    case POOL_MAX: q = (int8_t)(w < INT8_MIN ? INT8_MIN : w); break;   // a window always has an input
    case POOL_AVG:
      q = sa_activate(sa_requant(sa_sat32(w), su->mult[c], su->shift[c]), (unsigned)su->l_act, (int8_t)su->l_lo,
                      (int8_t)su->l_hi);
      break;
    default:
      q = sa_post((int32_t)w, su->bias[c], su->mult[c], su->shift[c], (unsigned)su->l_act, (int8_t)su->l_lo,
                  (int8_t)su->l_hi);
      break;
    }
    out[c] = (uint8_t)q;
  }
}

// Front end for this cycle; occ0 is the FIFO occupancy at the start of the cycle. Returns the
// slot entering the post-processing pipeline (-1 none); *alloc = 1 when a row took a slot.
static int32_t front_end(Det *m, uint32_t occ0, int *alloc) {
  StoreUnit *su = &m->su;
  *alloc = 0;
  if (!su->fe_busy && su->rows_started < su->nrows && occ0 < fifo_depth(m)) {
    su->fe_busy = 1;
    su->fe_slot = su->fifo_tail;
    su->fifo_tail = (su->fifo_tail + 1) % fifo_depth(m);
    su->slot[su->fe_slot].state = SLOT_FILL;
    su->slot[su->fe_slot].row = su->rows_started;
    su->fe_row = su->rows_started++;
    su->fe_pos = 0;
    for (uint32_t c = 0; c < m->a->cols; c++) su->win[c] = su->l_pool == POOL_MAX ? INT64_MIN : 0;
    *alloc = 1;
  }
  if (!su->fe_busy) return -1;
  window_read(m);
  if (++su->fe_pos < su->W) return -1;
  window_finish(m);
  su->fe_busy = 0;
  su->slot[su->fe_slot].state = SLOT_PIPE;
  return (int32_t)su->fe_slot;
}

// The post-processing pipeline moves one stage; a slot reaching the last stage is ready from next cycle.
static void pipe_shift(Det *m, int32_t in) {
  StoreUnit *su = &m->su;
  uint32_t S = post_depth(m);
  if (!su->pipe_count && in < 0) return;
  for (uint32_t k = S - 1; k > 0; k--) su->pipe[k] = su->pipe[k - 1];
  su->pipe[0] = in;
  if (in >= 0) su->pipe_count++;
  if (su->pipe[S - 1] >= 0) {
    su->slot[su->pipe[S - 1]].state = SLOT_READY;
    su->pipe[S - 1] = -1;
    su->pipe_count--;
  }
}

void det_store_update(Det *m, const DramResp *resp, const DramResp *gresp, int accepted) {
  StoreUnit *su = &m->su;
  if (resp->valid) su->fly[resp->tag % su->fly_cap].arrived = 1;
  if (gresp->valid) su->fly[gresp->tag % su->fly_cap].arrived = 1;
  if (su->fly_count && su->fly[su->fly_head].arrived) {   // acknowledgements in issue order,
    const StoreAck *ack = &su->fly[su->fly_head];         // one per cycle
    if (ack->last) det_end(m, UNIT_STORE, ack->insn);
    su->fly_head = (su->fly_head + 1) % su->fly_cap;
    su->fly_count--;
    m->landed = 1;
  }
  if (!su->active) return;
  m->inside[UNIT_STORE] = 1;
  uint32_t occ0 = su->fifo_count;
  int freed = write_port(m, accepted), alloc;
  int32_t done = front_end(m, occ0, &alloc);
  pipe_shift(m, done);
  su->fifo_count = occ0 + (uint32_t)alloc - (uint32_t)freed;
  if (su->rows_written == su->nrows) {
    su->active = 0;
    det_ready(m, UNIT_STORE, su->insn);
  }
}
