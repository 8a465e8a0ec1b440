// detailed_load.c: the load unit of the detailed engine (TIMING §5). CFG_LOAD and LAYER execute
// in their start cycle. A LOAD latches its fields and the CFG_LOAD registers at its start, then
// a beat generator walks rows (o outer, i inner), segments g and the aligned beats k covering
// each segment, offering one beat per cycle to the read channel from its start cycle on; a
// refused beat (F beats in flight) is offered again the next cycle and the cycle is a stall.
// Every accepted beat carries its destination (LoadBeat) in a ring indexed by the memory's tag.
// A LOAD with GBUF=1 offers its beats (of gbuf.bus_bytes) to the global buffer's read port
// instead, which takes one every cycle (TIMING §5a). Responses of both memories are taken in
// issue order, one per cycle: one that arrives while an earlier beat is still unanswered or
// waiting waits in its ring entry, and its bytes land in the target memory in the first cycle
// after the earlier beat's landed (cycle A_b = max(I_b + L_b, A_(b-1) + 1)).
// The unit is free again the cycle after its last beat was accepted (ready = I_last + 1); the
// LOAD ends when its last beat's response lands (e = A_last; I_last + L with DRAM beats only).
// A transposed LOAD has the same beats; each response's bytes go down one WBUF column instead of
// along a row.
#include <stdlib.h>
#include <string.h>

#include "../isa/numerics.h"
#include "detailed.h"

int det_load_init(Det *m) {
  LoadUnit *L = &m->ld;
  L->fly_cap = det_fly_cap(m->a);
  L->fly = calloc(L->fly_cap, sizeof *L->fly);
  return L->fly ? 0 : -1;
}

void det_load_free(Det *m) { free(m->ld.fly); }

int det_load_can_start(const Det *m, const Insn *in) {
  (void)in;
  return !m->ld.issuing;
}

int det_load_active(const Det *m) { return m->ld.issuing; }

// DRAM address of segment g of row (o, i) of the current LOAD.
static uint64_t seg_addr(const LoadUnit *L) {
  return L->addr + L->o * L->so + L->i * L->si + L->g * L->ss;
}

// Points the generator at the first of the aligned beats covering the current segment.
static void seg_begin(Det *m) {
  LoadUnit *L = &m->ld;
  uint64_t a = seg_addr(L), B = arch_beat_bytes(m->a, L->gbuf);
  L->k = a / B;
  L->k_last = (a + L->seglen - 1) / B;
}

void det_load_start(Det *m, uint32_t k) {
  LoadUnit *L = &m->ld;
  const Insn *in = &m->insns[k];
  switch (in->op) {
  case OP_CFG_LOAD:
    L->stride_outer = (uint64_t)in->f[FLD_STRIDE_OUTER];
    L->stride_inner = (uint64_t)in->f[FLD_STRIDE_INNER];
    L->seg_stride = (uint64_t)in->f[FLD_SEG_STRIDE];
    L->mult = (int32_t)in->f[FLD_MULT];
    L->shift = (uint32_t)in->f[FLD_SHIFT] & 63u;
    det_ready(m, UNIT_LOAD, k);
    det_end(m, UNIT_LOAD, k);
    return;
  case OP_LOAD:
    L->issuing = 1;
    L->insn = k;
    L->mem = (uint8_t)in->f[FLD_MEM];
    L->accum = in->f[FLD_ACCUM] != 0;
    L->transposed = in->f[FLD_TRANSPOSE] != 0;
    L->gbuf = in->f[FLD_GBUF] != 0;
    L->tstride = (uint64_t)in->f[FLD_TSTRIDE];
    L->addr = (uint64_t)in->f[FLD_DRAM_ADDR];
    L->dst = (uint64_t)in->f[FLD_DST];
    L->outer = (uint32_t)in->f[FLD_OUTER];
    L->inner = (uint32_t)in->f[FLD_INNER];
    L->nseg = (uint32_t)in->f[FLD_NSEG];
    L->seglen = (uint32_t)in->f[FLD_SEGLEN];
    L->so = L->stride_outer;
    L->si = L->stride_inner;
    L->ss = L->seg_stride;
    L->ld_mult = L->mult;
    L->ld_shift = L->shift;
    L->o = L->i = L->g = 0;
    seg_begin(m);
    return;
  case OP_LAYER:
    det_ready(m, UNIT_LOAD, k);
    det_end(m, UNIT_LOAD, k);
    return;
  case OP_PRELOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: return;   // not routed to the load unit
  }
}

void det_load_request(Det *m, DramReq *req, DramReq *greq) {
  LoadUnit *L = &m->ld;
  req->valid = greq->valid = 0;
  L->offered = L->issuing;
  if (!L->issuing) return;
  DramReq *r = L->gbuf ? greq : req;
  r->valid = 1;
  r->addr = L->k * (arch_beat_bytes(m->a, L->gbuf));
  r->tag = (L->fly_head + L->fly_count) % L->fly_cap;
}

// Rows of memory `mem` and bytes each holds.
static uint64_t mem_rows(const Det *m, int mem) {
  const Arch *a = m->a;
  switch (sim_mem_stat((uint32_t)mem)) {
  case MEM_ST_SPAD: return a->spad_rows;
  case MEM_ST_WBUF: return a->wbuf_rows;
  case MEM_ST_ACC: return a->acc_rows;
  case MEM_ST_PARAM: return a->param_rows;
  }
  return 0;
}

static uint32_t row_capacity(const Det *m, int mem) {
  const Arch *a = m->a;
  switch (sim_mem_stat((uint32_t)mem)) {
  case MEM_ST_SPAD: return a->rows;
  case MEM_ST_WBUF:
  case MEM_ST_ACC: return a->cols;
  case MEM_ST_PARAM: return 4 * a->cols;
  }
  return 0;
}

// Writes byte value v at byte position pos of row b->row of the target memory.
static void write_byte(Det *m, const LoadBeat *b, uint32_t pos, uint8_t v) {
  Sim *s = m->s;
  uint64_t C = m->a->cols, R = m->a->rows;
  switch (sim_mem_stat(b->mem)) {
  case MEM_ST_SPAD: s->spad[b->row * R + pos] = (int8_t)v; break;
  case MEM_ST_WBUF: s->wbuf[b->row * C + pos] = (int8_t)v; break;
  case MEM_ST_ACC: {
    int32_t *x = &s->acc[b->row * C + pos];
    int32_t scaled = sa_load_scale((int8_t)v, b->mult, b->shift);
    *x = b->accum ? sa_wrap_add32(*x, scaled) : scaled;
    break;
  }
  case MEM_ST_PARAM: {   // little-endian int32, byte pos % 4 of element pos / 4
    uint32_t *x = (uint32_t *)&s->param[b->row * C + pos / 4];
    unsigned sh = 8 * (pos % 4);
    *x = (*x & ~(0xffu << sh)) | ((uint32_t)v << sh);
    break;
  }
  }
}

// A transposed beat lands down WBUF column b->col: byte k of the LOAD row into row b->row + k.
// Nothing is zeroed; the rows it touches count once per block of C LOAD rows (TIMING §10).
static void beat_land_transposed(Det *m, const LoadBeat *b, const uint8_t *data) {
  uint64_t C = m->a->cols;
  for (uint32_t x = 0; x < b->beat_bytes; x++) {
    uint64_t addr = b->beat_addr + x;
    if (addr < b->seg_addr || addr - b->seg_addr >= b->seglen) continue;
    uint64_t row = b->row + b->seg_pos + (addr - b->seg_addr);
    if (row < m->a->wbuf_rows) m->s->wbuf[row * C + b->col] = (int8_t)data[x];
  }
  if (!b->last_of_row) return;
  LayerStats *ls = det_layer(m, b->insn);
  if (b->block_first) {
    ls->mem_writes[MEM_ST_WBUF] += b->row_bytes;
  }
  layer_count_read(ls, b->gbuf, 0, b->row_bytes);
}

// The response to beat b arrived: its bytes land; when it completes its row, the bytes of the
// row past NSEG * SEGLEN become zero (an accumulating ACC load leaves them unchanged) and the
// row counts as written.
static void beat_land(Det *m, const LoadBeat *b, const uint8_t *data) {
  uint32_t cap = row_capacity(m, b->mem);
  if (b->transposed) {
    beat_land_transposed(m, b, data);
    return;
  }
  if (b->row < mem_rows(m, b->mem)) {
    for (uint32_t x = 0; x < b->beat_bytes; x++) {
      uint64_t addr = b->beat_addr + x;
      if (addr < b->seg_addr || addr - b->seg_addr >= b->seglen) continue;
      uint64_t pos = b->seg_pos + (addr - b->seg_addr);
      if (pos < cap) write_byte(m, b, (uint32_t)pos, data[x]);
    }
    if (b->last_of_row && !(b->mem == MEM_ACC && b->accum)) {
      LoadBeat zero = {.mem = b->mem, .row = b->row};   // ACC: 0 scales to 0
      for (uint32_t pos = b->row_bytes; pos < cap; pos++) write_byte(m, &zero, pos, 0);
    }
  }
  if (!b->last_of_row) return;
  LayerStats *ls = det_layer(m, b->insn);
  ls->mem_writes[sim_mem_stat(b->mem)]++;
  if (b->mem == MEM_ACC && b->accum) {
    ls->mem_reads[MEM_ST_ACC]++;
  }
  layer_count_read(ls, b->gbuf, 0, b->row_bytes);
}

// Moves the generator past the beat just accepted. Returns 0 when the LOAD has no beat left.
static int generator_advance(Det *m) {
  LoadUnit *L = &m->ld;
  if (++L->k <= L->k_last) return 1;
  if (++L->g == L->nseg) {
    L->g = 0;
    if (++L->i == L->inner) {
      L->i = 0;
      if (++L->o == L->outer) return 0;
    }
  }
  seg_begin(m);
  return 1;
}

// A response of either memory: its data waits in the beat's ring entry.
static void beat_arrive(LoadUnit *L, const DramResp *resp) {
  if (!resp->valid) return;
  LoadBeat *b = &L->fly[resp->tag % L->fly_cap];
  memcpy(b->data, resp->data, b->beat_bytes);
  b->arrived = 1;
}

void det_load_update(Det *m, const DramResp *resp, const DramResp *gresp, int accepted) {
  LoadUnit *L = &m->ld;
  beat_arrive(L, resp);
  beat_arrive(L, gresp);
  if (L->fly_count && L->fly[L->fly_head].arrived) {   // in issue order, one beat per cycle: the
    const LoadBeat *b = &L->fly[L->fly_head];         // oldest, once answered
    beat_land(m, b, b->data);
    if (b->last_of_insn) det_end(m, UNIT_LOAD, b->insn);
    L->fly_head = (L->fly_head + 1) % L->fly_cap;
    L->fly_count--;
    m->landed = 1;
  }
  if (!L->offered) return;
  m->inside[UNIT_LOAD] = 1;
  if (!accepted) {
    m->stall[UNIT_LOAD] = 1;
    m->s->times[L->insn].stall++;
    return;
  }
  LoadBeat *b = &L->fly[(L->fly_head + L->fly_count) % L->fly_cap];
  L->fly_count++;
  int last_of_row = L->k == L->k_last && L->g + 1 == L->nseg;
  uint64_t r = (uint64_t)L->o * L->inner + L->i, C = m->a->cols;
  uint32_t B = arch_beat_bytes(m->a, L->gbuf);
  *b = (LoadBeat){
      .insn = L->insn,
      .gbuf = L->gbuf,
      .beat_bytes = B,
      .mem = L->mem,
      .accum = L->accum,
      .last_of_row = (uint8_t)last_of_row,
      .last_of_insn = (uint8_t)(last_of_row && L->i + 1 == L->inner && L->o + 1 == L->outer),
      .transposed = L->transposed,
      .block_first = r % C == 0,
      .col = (uint32_t)(r % C),
      .row = L->transposed ? L->dst + (r / C) * L->tstride : L->dst + r,
      .beat_addr = L->k * B,
      .seg_addr = seg_addr(L),
      .seg_pos = L->g * L->seglen,
      .seglen = L->seglen,
      .row_bytes = L->nseg * L->seglen,
      .mult = L->ld_mult,
      .shift = L->ld_shift,
  };
  layer_count_read(det_layer(m, L->insn), L->gbuf, 1, 0);
  if (!generator_advance(m)) {
    L->issuing = 0;
    det_ready(m, UNIT_LOAD, L->insn);
  }
}
