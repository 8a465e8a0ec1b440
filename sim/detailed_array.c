// detailed_array.c: the compute unit of the detailed engine (TIMING §6): the weight shift chain
// that PRELOAD drives, the stream sequencer that COMPUTE drives, and the R x C array of PEs
// itself, stepped once per clock. (COMPUTE_OS, the output-stationary mode: detailed_os.c.)
//
// Weights: two banks per PE (s->bank[b][r * C + c]). A PRELOAD fills bank p mod 2 through a
// shift chain: in each of its R cycles every row of the bank moves one PE down and a weight
// buffer row enters at the top (SRC + R - 1 first, SRC last; zeros for rows >= ROWS), so PE row
// r ends up holding WBUF[SRC + r]. The bank is complete at the edge closing its last shift.
//
// Stream: a COMPUTE reads SPAD[SRC + m] in cycle s + m. Element r of that row waits r cycles in
// row r's skew line, then enters PE (r, 0). Each PE holds an activation register (passed right)
// and a partial-sum register (passed down): PE (r, c) takes the activation from its left
// neighbour's register (or the skew line) and the partial sum from the register above (0 at row
// 0), and latches act and psum + act * weight, where the weight comes from the bank whose select
// bit travels with the activation. The registers of the bottom row are written (or added) into
// ACC[ACC_ADDR + m][c] one cycle later, which is s + m + R + c. A tag travelling with the data
// names the streamed row (its ACC row, ACCUM, COMPUTE, last row), so COMPUTEs stream back to back
// across bank switches. The COMPUTE ends when the last column of its last row is written.
//
// COMPUTE_IS is the same stream; its row tag says "transposed", and between the bottom of the
// array and the accumulator's column banks a rotator sends column c (c < COLS) of row m to
// ACC[ACC_ADDR + (m div C)*ASTRIDE + c][m mod C]; columns >= COLS write nothing. A phase counter
// modulo C, restarted by each COMPUTE_IS, gives the alignment rule (d) of TIMING §6.
//
// Structural conditions, from the unit's registers: a PRELOAD needs the chain idle and its bank
// released (no COMPUTE or COMPUTE_IS started on it is still in the array); a COMPUTE or
// COMPUTE_IS needs the bank of the most recent PRELOAD complete, and no instruction of the other
// kind in the array (the rotator switches only with the array's bottom empty), a COMPUTE_IS also
// the alignment; all need the array out of output-stationary mode (no COMPUTE_OS still in it),
// and a COMPUTE_OS needs it out of weight-stationary mode (no PRELOAD, COMPUTE or COMPUTE_IS still
// running) plus the drain rule of detailed_os.c, which models that mode. The array loop is
// skipped (clock gated) when no data is in it.
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/numerics.h"
#include "detailed.h"

int det_compute_init(Det *m) {
  ComputeUnit *cu = &m->cu;
  uint32_t R = m->a->rows, C = m->a->cols, n = 1;
  while (n < R + C + 2) n *= 2;   // rows in the array at once: at most R + C
  cu->tag_mask = n - 1;
  cu->pe = calloc((size_t)R * C, sizeof *cu->pe);
  cu->skew = calloc((size_t)R * R, sizeof *cu->skew);
  cu->in_row = calloc(R, 1);
  cu->rowtag = calloc(n, sizeof *cu->rowtag);
  cu->wlog = calloc(C, sizeof *cu->wlog);
  cu->snap = calloc((size_t)R * C, sizeof *cu->snap);
  if (det_os_init(m)) return -1;
  return cu->pe && cu->skew && cu->in_row && cu->rowtag && cu->wlog && cu->snap ? 0 : -1;
}

void det_compute_free(Det *m) {
  free(m->cu.pe);
  free(m->cu.skew);
  free(m->cu.in_row);
  free(m->cu.rowtag);
  free(m->cu.wlog);
  free(m->cu.snap);
  det_os_free(m);
}

// The last cycle in which data streamed so far is still in the array (its last ACC write).
static uint64_t drain_cycle(const Det *m) { return m->cu.last_in + m->a->rows + m->a->cols - 1; }

int det_compute_active(const Det *m) {
  const ComputeUnit *cu = &m->cu;
  return cu->chain_busy || cu->streaming || (cu->any_in && drain_cycle(m) > m->t) || cu->os.users;
}

// PRELOAD rule (b): no stream reads the bank any more, and its last stream's last row was read
// at least C cycles ago (the row-gated chain reaches PE row r in cycle s + r; that row's last use
// is in cycle last + r + C - 1).
static int bank_released(const Det *m, int b) {
  const ComputeUnit *cu = &m->cu;
  return !(cu->streaming && cu->st_bank == b) && m->t >= cu->bank_free_at[b];
}

// Weight-stationary work (a PRELOAD or a COMPUTE) has not ended yet.
static int ws_busy(const ComputeUnit *cu) {
  return cu->chain_busy || cu->bank_users[0] || cu->bank_users[1];
}

// COMPUTE_IS rule (d): aligned with the last COMPUTE_IS's stream (the phase counter is at 0), or
// that one has left the array (COMPUTE_ISs end in order, so then none is in it).
static int is_aligned(const ComputeUnit *cu) { return cu->is_users == 0 || cu->is_phase == 0; }

int det_compute_can_start(const Det *m, const Insn *in) {
  const ComputeUnit *cu = &m->cu;
  if (cu->os.seq) return 0;   // the previous instruction has rows left to read
  // A stream's rows hold the unit, unless it is an OVERLAP stream: then only another stream waits.
  if (cu->streaming && (!cu->st_overlap || (in->op != OP_PRELOAD && in->op != OP_LAYER))) return 0;
  switch (in->op) {
  case OP_PRELOAD: return !cu->chain_busy && bank_released(m, cu->next_bank) && !cu->os.users;
  case OP_COMPUTE: return cu->bank_valid[cu->cur_bank] && !cu->os.users && !cu->is_users;
  case OP_COMPUTE_IS: return cu->bank_valid[cu->cur_bank] && !cu->os.users && !cu->ws_users && is_aligned(cu);
  case OP_COMPUTE_OS: return !ws_busy(cu) && det_os_can_start(m, in);
  case OP_LAYER: return 1;
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: break;   // not routed to the compute unit
  }
  return 1;
}

const char *det_compute_blocker(const Det *m, const Insn *in) {
  const ComputeUnit *cu = &m->cu;
  static const char *const os_mode = "the array to leave output-stationary mode";
  static const char *const no_weights = "weights (no PRELOAD filled its bank)";
  static const char *const stream = "the stream sequencer (the previous COMPUTE still reads its rows)";
  switch (in->op) {
  case OP_PRELOAD:
    if (cu->os.users) return os_mode;
    if (cu->streaming && !cu->st_overlap) return stream;
    return cu->chain_busy ? "the weight shift chain" : "its weight bank to be released by the array";
  case OP_COMPUTE:
    if (cu->streaming) return stream;
    if (cu->os.users) return os_mode;
    if (!cu->bank_valid[cu->cur_bank]) return no_weights;
    if (cu->is_users) return "the array to leave input-stationary mode (a COMPUTE_IS in it)";
    return "nothing";
  case OP_COMPUTE_IS:
    if (cu->streaming) return stream;
    if (cu->os.users) return os_mode;
    if (!cu->bank_valid[cu->cur_bank]) return no_weights;
    if (cu->ws_users) return "the array to leave weight-stationary mode (a COMPUTE in it)";
    if (!is_aligned(cu))
      return "stream alignment with the previous COMPUTE_IS (a start a multiple of array.cols cycles after it)";
    return "nothing";
  case OP_COMPUTE_OS:
    return ws_busy(cu) ? "the array to leave weight-stationary mode" : "the previous COMPUTE_OS's drain";
  case OP_LAYER: return "nothing";
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: break;   // not routed to the compute unit
  }
  return "nothing";
}

void det_compute_start(Det *m, uint32_t k) {
  ComputeUnit *cu = &m->cu;
  const Insn *in = &m->insns[k];
  switch (in->op) {
  case OP_PRELOAD: {
    int b = cu->next_bank;
    cu->next_bank ^= 1;
    cu->cur_bank = b;
    cu->bank_valid[b] = 0;
    cu->bank_gen[b]++;
    cu->bank_k[b] = (uint32_t)in->f[FLD_ROWS] < m->a->rows ? (uint32_t)in->f[FLD_ROWS] : m->a->rows;
    cu->chain_busy = 1;
    cu->chain_insn = k;
    cu->chain_step = 0;
    cu->chain_src = (uint64_t)in->f[FLD_SRC];
    cu->chain_rows = (uint32_t)in->f[FLD_ROWS];
    cu->chain_bank = b;
    det_ready(m, UNIT_COMPUTE, k);
    return;
  }
  case OP_COMPUTE:
  case OP_COMPUTE_IS: {
    int is = in->op == OP_COMPUTE_IS;
    cu->streaming = 1;
    cu->st_insn = k;
    cu->st_m = 0;
    cu->st_rows = (uint32_t)in->f[FLD_ROWS];
    cu->st_src = (uint64_t)in->f[FLD_SRC];
    cu->st_acc = (uint64_t)in->f[FLD_ACC_ADDR];
    cu->st_accum = in->f[FLD_ACCUM] != 0;
    cu->st_bank = (uint8_t)cu->cur_bank;
    cu->st_transposed = (uint8_t)is;
    cu->st_overlap = in->f[FLD_OVERLAP] != 0;
    if (cu->st_overlap) det_ready(m, UNIT_COMPUTE, k);
    cu->st_cols = is ? (uint32_t)in->f[FLD_COLS] : m->a->cols;
    cu->st_astride = is ? (uint64_t)in->f[FLD_ASTRIDE] : 0;
    cu->bank_users[cu->cur_bank]++;
    if (is) {
      cu->is_users++;
      cu->is_phase = 0;   // restarted: this cycle is phase 0
    } else {
      cu->ws_users++;
    }
    return;
  }
  case OP_COMPUTE_OS:
    det_os_start(m, k);
    return;
  case OP_LAYER:
    det_ready(m, UNIT_COMPUTE, k);
    det_end(m, UNIT_COMPUTE, k);
    return;
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: return;   // not routed to the compute unit
  }
}

// One cycle of the weight chain, step j: rows 1 .. j of the bank take the row above, the next
// weight buffer row enters row 0; rows below j keep their weights (row-gated: PE row r is first
// written at the end of cycle s + r).
static void chain_shift(Det *m) {
  ComputeUnit *cu = &m->cu;
  uint32_t R = m->a->rows, C = m->a->cols;
  int8_t *w = m->s->bank[cu->chain_bank];
  memmove(w + C, w, (size_t)cu->chain_step * C);
  LayerStats *ls = det_layer(m, cu->chain_insn);
  ls->preload_shifts++;
  uint32_t j = R - 1 - cu->chain_step;   // weight row entering now: SRC + j
  if (j < cu->chain_rows) {
    ls->mem_reads[MEM_ST_WBUF]++;
    if (cu->chain_src + j < m->a->wbuf_rows)
      memcpy(w, m->s->wbuf + (cu->chain_src + j) * C, C);
    else
      memset(w, 0, C);
  } else {
    memset(w, 0, C);
  }
  if (++cu->chain_step == R) {
    cu->chain_busy = 0;
    cu->bank_valid[cu->chain_bank] = 1;
    det_end(m, UNIT_COMPUTE, cu->chain_insn);
  }
}

// The stream sequencer reads SPAD[SRC + m] into in_row; *in gets the control entering with it.
// Returns 1 when a row was read this cycle.
static int stream_read(Det *m, PeReg *in) {
  ComputeUnit *cu = &m->cu;
  uint32_t R = m->a->rows;
  if (!cu->streaming) return 0;
  m->inside[UNIT_COMPUTE] = 1;
  uint64_t row = cu->st_src + cu->st_m;
  if (row < m->a->spad_rows)
    memcpy(cu->in_row, m->s->spad + row * R, R);
  else
    memset(cu->in_row, 0, R);
  LayerStats *ls = det_layer(m, cu->st_insn);
  ls->mem_reads[MEM_ST_SPAD]++;
  ls->pe_cycles += (uint64_t)R * m->a->cols;   // the slots this row will use (pe_step counts the slots, a check)
  uint32_t tag = cu->tag_next++ & cu->tag_mask, C = m->a->cols, mm = cu->st_m;
  cu->rowtag[tag] = (RowTag){.insn = cu->st_insn,
                             .acc_row = cu->st_transposed ? cu->st_acc + (mm / C) * cu->st_astride : cu->st_acc + mm,
                             .accum = cu->st_accum,
                             .last = mm + 1 == cu->st_rows,
                             .bank = cu->st_bank,
                             .transposed = cu->st_transposed,
                             .block_first = mm % C == 0,
                             .acc_bank = mm % C,
                             .cols = cu->st_cols,
                             .k = cu->bank_k[cu->st_bank],
                             .gen = cu->bank_gen[cu->st_bank]};
  *in = (PeReg){.valid = 1, .bank = cu->st_bank, .tag = tag};
  cu->any_in = 1;
  cu->last_in = m->t;
  if (++cu->st_m == cu->st_rows) {
    cu->streaming = 0;
    cu->bank_free_at[cu->st_bank] = m->t + C;
    if (!cu->st_overlap) det_ready(m, UNIT_COMPUTE, cu->st_insn);
  }
  return 1;
}

// The bottom row's registers (computed last cycle) go into the accumulator. Returns writes done.
static int acc_write(Det *m) {
  ComputeUnit *cu = &m->cu;
  uint32_t R = m->a->rows, C = m->a->cols;
  int n = 0;
  for (uint32_t c = 0; c < C; c++) {
    const PeReg *b = &cu->pe[(size_t)(R - 1) * C + c];
    cu->wlog[c].row = UINT64_MAX;
    if (!b->valid) continue;
    RowTag *rt = &cu->rowtag[b->tag];
    if (rt->last && c == C - 1) {   // the instruction ends with its last row's last column
      cu->bank_users[rt->bank]--;
      if (rt->transposed)
        cu->is_users--;
      else
        cu->ws_users--;
      det_end(m, UNIT_COMPUTE, rt->insn);
    }
    if (c >= rt->cols) continue;   // COMPUTE_IS: a column past COLS spends its cycle, writes nothing
    // The rotator: weight-stationary column c feeds bank c; a COMPUTE_IS row m feeds bank m mod C.
    uint64_t row = rt->transposed ? rt->acc_row + c : rt->acc_row;
    uint32_t bank = rt->transposed ? rt->acc_bank : c;
    cu->wlog[c] = (AccWrite){.row = row, .bank = bank, .sum = b->psum, .accum = rt->accum, .transposed = rt->transposed};
    if (m->log && m->log->acc)
      m->log->acc[c] = (SimAccWrite){.row = row, .value = b->psum, .accum = rt->accum, .bank = bank, .insn = rt->insn};
    n++;
    if (row < m->a->acc_rows) {
      int32_t *x = &m->s->acc[row * C + bank];
      *x = rt->accum ? sa_wrap_add32(*x, b->psum) : b->psum;
    }
    // Row counts (TIMING §10): a COMPUTE writes one ACC row per streamed row; a COMPUTE_IS
    // touches COLS rows per column block, counted at the block's first row.
    if (rt->transposed ? rt->block_first : c == 0) {
      LayerStats *ls = det_layer(m, rt->insn);
      ls->mem_writes[MEM_ST_ACC]++;
      if (rt->accum) {
        ls->mem_reads[MEM_ST_ACC]++;
      }
    }
  }
  return n;
}

// Every PE latches its new registers, bottom-right first so that each reads its left and upper
// neighbours' registers as they were at the start of the cycle. `in` enters PE (0, 0).
static int pe_step(Det *m, const PeReg *in) {
  ComputeUnit *cu = &m->cu;
  uint32_t R = m->a->rows, C = m->a->cols;
  int live = 0;
  uint64_t macs = 0, slots = 0;
  int64_t tag = -1;   // tag whose layer `macs` is counted for
  for (uint32_t r = R; r-- > 0;)
    for (uint32_t c = C; c-- > 0;) {
      PeReg *p = &cu->pe[(size_t)r * C + c];
      PeReg x = c ? cu->pe[(size_t)r * C + c - 1] : r ? cu->skew[(size_t)r * R + r - 1] : *in;
      if (c == 0 && r == 0) x.act = cu->in_row[0];
      if (!x.valid) {
        p->valid = 0;
        continue;
      }
      const PeReg *up = r ? &cu->pe[(size_t)(r - 1) * C + c] : NULL;
      assert(!up || (up->valid && up->tag == x.tag));
      // PRELOAD rule (b): the bank row this datum multiplies with is the one it was streamed
      // for (a refill of the bank, if any, has not reached row r yet).
      assert(cu->rowtag[x.tag].gen == cu->bank_gen[x.bank] ||
             (cu->chain_busy && cu->chain_bank == x.bank && cu->chain_step <= r &&
              cu->rowtag[x.tag].gen + 1 == cu->bank_gen[x.bank]));
      int32_t w = m->s->bank[x.bank][(size_t)r * C + c];
      p->psum = sa_wrap_add32(up ? up->psum : 0, sa_wrap_mul8(x.act, (int8_t)w));
      p->act = x.act;
      p->bank = x.bank;
      p->tag = x.tag;
      p->valid = 1;
      live++;
      slots++;
      if (r < cu->rowtag[x.tag].k && c < cu->rowtag[x.tag].cols) {
        if (tag != x.tag && macs) {
          det_layer(m, cu->rowtag[tag].insn)->macs += macs;
          macs = 0;
        }
        tag = x.tag;
        macs++;
      }
    }
  if (macs) det_layer(m, cu->rowtag[tag].insn)->macs += macs;
  m->pe_slots += slots;
  return live;
}

// The skew lines shift; element r of the row read this cycle enters row r's line.
static void skew_shift(Det *m, const PeReg *in) {
  ComputeUnit *cu = &m->cu;
  uint32_t R = m->a->rows;
  for (uint32_t r = 1; r < R; r++) {
    PeReg *line = &cu->skew[(size_t)r * R];
    for (uint32_t k = r - 1; k > 0; k--) line[k] = line[k - 1];
    line[0] = *in;
    line[0].act = cu->in_row[r];
  }
}

// The snapshot of this cycle for the array observers (array_snap.h): each PE's registers and
// the weight it multiplies with (its datum's bank, the current bank when empty).
static void observe_array(Det *m, int writes, int chain) {
  const ComputeUnit *cu = &m->cu;
  uint32_t R = m->a->rows, C = m->a->cols;
  int transposed = cu->st_transposed;   // when the array is empty: the kind of the last stream
  for (uint32_t i = 0; i < R * C; i++) {
    const PeReg *p = &cu->pe[i];
    uint8_t bank = p->valid ? p->bank : (uint8_t)cu->cur_bank;
    if (p->valid) transposed = cu->rowtag[p->tag].transposed;
    cu->snap[i] = (SnapPe){.state = p->valid ? SNAP_PE_MAC : SNAP_PE_EMPTY,
                           .bank = bank,
                           .act = p->valid ? p->act : 0,
                           .weight = m->s->bank[bank][i],
                           .sum = p->valid ? p->psum : 0};
  }
  det_observe(m, transposed ? SNAP_IS : SNAP_WS, cu->wlog, writes, chain);
}

void det_compute_update(Det *m) {
  ComputeUnit *cu = &m->cu;
  cu->is_phase = cu->is_phase + 1 == m->a->cols ? 0 : cu->is_phase + 1;   // the value for the next cycle
  int chain = cu->chain_busy;
  if (chain) chain_shift(m);
  det_os_update(m);
  PeReg in = {0};
  int have_in = stream_read(m, &in);
  int writes = 0, live = 0;
  if (have_in || (cu->any_in && m->t <= drain_cycle(m))) {   // else the array is empty: clock gated
    writes = acc_write(m);
    live = pe_step(m, &in);
    skew_shift(m, &in);
  }
  if ((live || writes || chain) && det_observing(m)) observe_array(m, writes, chain);
}
