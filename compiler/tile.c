// tile.c: M tiles, and the cost model that picks each op's plan (tile.h).
//
// The model follows docs/TIMING.md at the granularity of a tile:
//   compute  weight-stationary: one PRELOAD + COMPUTE pair per (M tile, N tile, K tile). With
//            the PRELOADs behind the streams (COMPUTE OVERLAP) a pair takes
//            max(TM, R + 1, (TM + R + C - 1) / 2) cycles (docs/TIMING.md section 6: the chain,
//            in-order issue, and a bank refilled C cycles after its stream's last row), so
//            short tiles leave the array idle; without (--no-preload-overlap), TM + R.
//            Output-stationary: one COMPUTE_OS per (R-row block of the M tile, N tile) over
//            the K chunk, K cycles each, so an M tile that is not a multiple of R wastes rows.
//            Input-stationary: one PRELOAD + COMPUTE_IS pair per (C-pixel block of the M tile,
//            K tile), streaming the N group's channels, so a block short of C pixels wastes
//            columns and a small N group leaves the array idle;
//   reads    one DRAM beat per cycle: every gathered segment costs the aligned beats it touches
//            (exactly when the layout keeps the alignment fixed, else the expectation
//            (len + B - 1) / B), weight rows C bytes, parameter rows 4C bytes;
//   writes   one beat per cycle, every output row of every N tile its own beats.
// With double buffering the three overlap: cycles ~ max(compute, reads, writes) plus the first
// load and the last store. Without, they add up. Candidates that do not fit the buffer slots
// or the instruction fields are skipped.
#include "tile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// The largest value instruction field f holds (isa/isa_fields.def).
static uint64_t field_max(FieldId f) { return (uint64_t)isa_field_max(f); }

void tile_slots(const Arch *a, int double_buffer, Slots *s) {
  s->slots = double_buffer ? 2 : 1;
  s->overlap = 1;
  s->spad = a->spad_rows / s->slots;
  s->wbuf = a->wbuf_rows / s->slots;
  s->acc = a->acc_rows / s->slots;
  s->param = a->param_rows / s->slots;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int pooled(const MachOp *op) { return op->pool != POOL_NONE; }

// Output map the M tiles cover (pooled when the op pools).
static int64_t out_h(const MachOp *op) { return pooled(op) ? op->poh : op->oh; }
static int64_t out_w(const MachOp *op) { return pooled(op) ? op->pow : op->ow; }
static int64_t n_images(const MachOp *op) { return op->in[0].n; }

static int64_t pieces_per_row(const MachOp *op, const TilePlan *p) {
  return p->band_cols < out_w(op) ? cdiv(out_w(op), p->band_cols) : 1;
}

uint64_t tile_m_count(const MachOp *op, const TilePlan *p) {
  int64_t per = pieces_per_row(op, p) > 1 ? out_h(op) * pieces_per_row(op, p) : cdiv(out_h(op), p->band_rows);
  return (uint64_t)(n_images(op) * per);
}

MTile tile_m_at(const MachOp *op, const TilePlan *p, uint64_t i) {
  MTile t;
  int64_t pieces = pieces_per_row(op, p);
  int64_t per = pieces > 1 ? out_h(op) * pieces : cdiv(out_h(op), p->band_rows);
  t.img = (int64_t)i / per;
  int64_t k = (int64_t)i % per;
  if (pieces > 1) {
    t.y0 = k / pieces, t.rows = 1;
    t.x0 = (k % pieces) * p->band_cols;
    t.cols = out_w(op) - t.x0 < p->band_cols ? out_w(op) - t.x0 : p->band_cols;
  } else {
    t.y0 = k * p->band_rows;
    t.rows = out_h(op) - t.y0 < p->band_rows ? out_h(op) - t.y0 : p->band_rows;
    t.x0 = 0, t.cols = out_w(op);
  }
  if (pooled(op)) {
    int64_t lo = t.y0 * op->psh - op->ppt, hi = (t.y0 + t.rows - 1) * op->psh - op->ppt + op->pkh;
    if (lo < 0) lo = 0;
    if (hi > op->oh) hi = op->oh;
    t.iy0 = lo, t.irows = hi - lo;
    t.acc_rows = (uint32_t)(t.irows * op->ow);
  } else {
    t.iy0 = t.y0, t.irows = t.rows;
    t.acc_rows = (uint32_t)(t.rows * t.cols);
  }
  return t;
}

// Aligned beats that a segment of len bytes at offset off (mod B) touches; off < 0: unknown.
static double seg_beats(int64_t off, int64_t len, uint32_t B) {
  if (off < 0) return (double)(len + B - 1) / B;
  return (double)((off % B + len + B - 1) / B);
}

// Byte offset modulo B that every row of a gather keeps, or -1 when rows differ.
static int64_t fixed_align(const TView *v, int64_t sy, int64_t sx, int64_t off, uint32_t B) {
  if ((v->row_stride * sy) % B || (v->pix_stride * sx) % B || v->img_stride % B) return -1;
  int64_t o = (v->c_off + v->byte_off + off) % (int64_t)B;
  return o < 0 ? o + B : o;
}

// Per-op figures that do not depend on the plan.
typedef struct {
  double a_beats;       // GEMM: beats of one im2col row (all K tiles)
  double store_beats;   // beats of the whole output
  double elt_beats;     // ELT: beats of one input pixel row (all N tiles, all inputs)
} OpCost;

static void op_cost(const MachOp *op, const Arch *a, OpCost *c) {
  uint32_t C = a->cols, B = a->bus_bytes;
  int64_t nN = cdiv(op->N, C), out_rows = n_images(op) * out_h(op) * out_w(op);
  memset(c, 0, sizeof *c);
  int64_t al = fixed_align(&op->out, 1, 1, 0, B);
  for (int64_t j = 0; j < nN; j++) {
    int64_t w = op->N - j * C < C ? op->N - j * C : C;
    c->store_beats += (double)out_rows * seg_beats(al < 0 ? -1 : (al + j * C) % B, w, B);
  }
  switch (op->kind) {
  case MOP_GEMM:
    for (uint32_t k = 0; k < op->n_ktiles; k++) {
      const KTile *kt = &op->ktiles[k];
      int64_t ka = fixed_align(&op->in[0], op->sh, op->sw, kt->off - op->pad_t * op->in[0].row_stride -
                                                           op->pad_l * op->in[0].pix_stride, B);
      double per_seg = seg_beats(ka, kt->seglen, B);
      if (kt->nseg > 1 && ka >= 0 && kt->seg_stride % B) per_seg = seg_beats(-1, kt->seglen, B);
      c->a_beats += kt->nseg * per_seg;
    }
    break;
  case MOP_ELT:
    for (int k = 0; k < op->n_in; k++) {
      int64_t ia = fixed_align(&op->in[k], 1, 1, 0, B);
      for (int64_t j = 0; j < nN; j++) {
        int64_t w = op->N - j * C < C ? op->N - j * C : C;
        c->elt_beats += seg_beats(ia < 0 ? -1 : (ia + j * C) % B, w, B);
      }
    }
    break;
  }
}

// Accumulator rows over all M tiles of a plan (pool bands that overlap count twice), and the
// most any one tile needs (*max; a band clipped by the padding needs fewer).
static double m_rows_total(const MachOp *op, const TilePlan *p, uint32_t *max) {
  MTile t0 = tile_m_at(op, p, 0);
  *max = t0.acc_rows;
  if (!pooled(op)) return (double)(n_images(op) * out_h(op) * out_w(op));
  uint64_t per_img = tile_m_count(op, p) / (uint64_t)n_images(op);
  double m = 0;
  for (uint64_t i = 0; i < per_img; i++) {
    uint32_t r = tile_m_at(op, p, i).acc_rows;
    m += r;
    if (r > *max) *max = r;
  }
  return m * (double)n_images(op);
}

// Cycles of one PRELOAD + stream pair of m rows in a long chain (docs/TIMING.md section 6).
static double ws_pair(double m, uint32_t R, uint32_t C, int overlap) {
  return overlap ? fmax(fmax(m, R + 1.0), (m + R + C - 1.0) / 2) : m + R;
}

// The special-function unit's cycles on one step of tm pixels (docs/TIMING.md section 7a).
static double sfu_step_cycles(const MachOp *op, const Arch *a, double tm) {
  uint32_t C = a->cols, L = a->sfu_lanes < C ? a->sfu_lanes : C;
  double k = (double)cdiv(C, L > 0 ? L : 1), S = (double)cdiv(op->N, C);
  switch (op->sfu) {
  case SFUK_NONE: return 0;
  case SFUK_MAP: case SFUK_EW: return tm * k + a->sfu_latency;
  case SFUK_SOFTMAX: return tm * (3 * S * k + 17) + a->sfu_latency;
  case SFUK_LAYERNORM: return tm * (2 * S * k + 33) + a->sfu_latency;
  }
  return 0;
}

// Evaluates plan p for op; fills the estimates. Returns 0 when it fits, -1 when not.
static int estimate(const MachOp *op, const Arch *a, Dataflow df, const Slots *s, const OpCost *oc,
                    double m_total, uint32_t m_max, TilePlan *p) {
  uint32_t R = a->rows, C = a->cols, B = a->bus_bytes;
  uint64_t nm = tile_m_count(op, p);
  MTile t0 = tile_m_at(op, p, 0);
  // A STORE's OUTER x INNER nest covers the tile; a COMPUTE streams its ROWS accumulator rows.
  if ((uint64_t)t0.rows > field_max(FLD_OUTER) || (uint64_t)t0.cols > field_max(FLD_INNER) ||
      m_max > field_max(FLD_ROWS))
    return -1;
  // A pooled band: the loads' OUTER x INNER and the pool's IN_H x IN_W are the whole pre-pool band.
  if (pooled(op) && ((uint64_t)t0.irows > field_max(FLD_OUTER) || (uint64_t)t0.irows > field_max(FLD_IN_H) ||
                     (uint64_t)op->ow > field_max(FLD_INNER) || (uint64_t)op->ow > field_max(FLD_IN_W)))
    return -1;
  double tm = m_total / (double)nm;
  int64_t nN = cdiv(op->N, C);
  double lat = a->dram_latency, drain = R + C;
  double steps = 0, step_compute = 0, step_load = 0, reads;
  double computes = 0;   // instructions per step
  double lump = 0;       // a period's floor when one gather serves many N groups (below)
  switch (op->kind) {
  case MOP_GEMM: {
    if (p->g < 1 || p->kc < 1 || p->g > nN || p->kc > op->n_ktiles) return -1;
    if ((uint64_t)m_max * p->g > s->acc || 3u * p->g > s->param) return -1;
    switch (df) {
    case DF_IS: {   // inputs in WBUF (blocks of C pixels, R rows per K tile), weights in SPAD
      uint64_t tstride = (uint64_t)p->kc * R;
      // (the weight LOAD's OUTER is the group's channels; TSTRIDE the transposed LOAD's)
      if ((uint64_t)p->g * C * p->kc > s->spad || (uint64_t)p->g * C > field_max(FLD_OUTER)) return -1;
      if ((uint64_t)cdiv(m_max, C) * tstride > s->wbuf || tstride > field_max(FLD_TSTRIDE)) return -1;
      break;
    }
    case DF_WS:
    case DF_OS:
      if ((uint64_t)m_max * p->kc > s->spad) return -1;
      // (the weight LOAD's INNER is the chunk's weight rows)
      if ((uint64_t)p->kc * R > field_max(FLD_INNER) || (uint64_t)p->g * p->kc * R > s->wbuf) return -1;
      break;
    }
    int64_t nNG = cdiv(nN, p->g), nKC = cdiv(op->n_ktiles, p->kc);
    steps = (double)nm * nNG * nKC;
    double g_avg = (double)nN / nNG, kc_avg = (double)op->n_ktiles / nKC;
    double a_share = nKC == 1 ? 1.0 / nNG : 1.0;   // one chunk: the rows stay for every N group
    double w_beats = 0;
    switch (df) {
    case DF_IS: {
      // Per (C-pixel block of the M tile, K tile): a PRELOAD and a COMPUTE_IS streaming the
      // group's channels (jp cycles), a pair costing what a weight-stationary one does (the
      // PRELOAD behind the stream with OVERLAP, else after it). Starts are aligned modulo C
      // (rule (d)): the period rounds up to a multiple of C.
      double jp = (double)op->N / nNG;
      double pair = ws_pair(jp, R, C, s->overlap);
      pair = ceil(pair / C) * C;
      step_compute = ceil(tm / C) * kc_avg * pair;
      // a row per channel per K tile, of the tile's rows (unaligned: expected beats)
      w_beats = (double)op->N / nNG * kc_avg * ((double)op->K / op->n_ktiles + B - 1) / B;
      computes = 2.0 * ceil(tm / C) * p->kc + p->kc;
      break;
    }
    case DF_OS:
      // One COMPUTE_OS per (N tile, R-row block of the M tile) over the chunk's K (kc tiles of R
      // rows): a block takes K cycles; the drain (2R + C) shows only at the end of a step.
      step_compute = g_avg * (double)cdiv((int64_t)tm, R) * kc_avg * R;
      drain = 2.0 * R + C;
      w_beats = g_avg * (double)op->K / nKC * (double)cdiv(C, B);
      computes = p->g * ceil(tm / R);
      break;
    case DF_WS:
      step_compute = g_avg * kc_avg * ws_pair(tm, R, C, s->overlap);
      w_beats = g_avg * (double)op->K / nKC * (double)cdiv(C, B);
      computes = 2.0 * p->g * p->kc;
      break;
    }
    step_load = a_share * tm * oc->a_beats / nKC + w_beats + 3.0 * g_avg * cdiv(4 * C, B) / nKC;
    // One K chunk for all N groups: an M tile's gather comes whole, and it is emitted after the
    // parameter and weight loads of the tile's first group, which wait for the slot of the step
    // two before (the tile's next-to-last group: its compute and store) to be free. So the gather
    // hides behind one group's compute, not nNG: the tile takes (nNG - 1) computes + the gather,
    // a store and the DRAM latency. That matters only where the gather alone outlasts a group's
    // compute, i.e. where short segments make it slow (a 3-channel first convolution: VGG-16's
    // conv1_1 had 4 groups of 896 pixels behind a 6,700-cycle gather); elsewhere the estimate is
    // left as it was.
    double gather = tm * oc->a_beats;
    if (s->slots > 1 && nKC == 1 && nNG > 1 && gather > step_compute)
      lump = ((double)(nNG - 1) * step_compute + gather + oc->store_beats / steps + lat) / (double)nNG;
    computes = computes + 4 + p->kc;   // and the step's loads, stores and configuration, roughly
    break;
  }
  case MOP_ELT: {
    // (an SFU op's step: its ACC and PARAM rows, channel steps and the unit's cycles, lower_sfu.c)
    uint32_t prows = lower_sfu_param_rows(op, C);
    int once = lower_sfu_params_once(op);   // loaded once for all steps, anywhere in PARAM
    if (lower_sfu_acc_rows(op, m_max, C) > s->acc || prows > (once ? a->param_rows : s->param)) return -1;
    int64_t nsteps = lower_sfu_channel_steps(op, C);
    steps = (double)nm * nsteps;
    double tml = op->fold_w ? (double)(op->in[0].h * op->in[0].w) : tm;   // a folded pool loads the whole map
    step_load = tml * oc->elt_beats / nsteps + prows * cdiv(4 * C, B) / (once ? steps : 1.0);
    step_compute = sfu_step_cycles(op, a, tm);
    drain = a->post_latency;
    computes = 6;   // instructions per step
    break;
  }
  }
  reads = steps * step_load;
  double step_store = oc->store_beats / steps;
  // Two slots: the load of step i+1 waits for step i-1 to be done with its slot, so a period
  // also covers half of (compute + load + DRAM latency + drain). One slot: everything in series.
  double period;
  if (s->slots > 1)
    period = fmax(fmax(fmax(step_compute, step_load), fmax(step_store, (step_compute + step_load + lat + drain) / 2)),
                  lump);
  else
    period = step_load + lat + step_compute + drain + step_store + lat;
  p->est_cycles = steps * period + step_load + 2 * lat + drain + step_store;
  p->est_read_bytes = reads * B;
  p->est_write_bytes = oc->store_beats * B;
  p->est_insns = steps * computes;
  return 0;
}

static int better(const TilePlan *x, const TilePlan *y) {
  // Within 0.5% the plan with fewer instructions wins (faster to compile and to simulate).
  double cx = x->est_cycles, cy = y->est_cycles;
  if (fabs(cx - cy) > 0.005 * fmin(cx, cy)) return cx < cy;
  if (x->est_insns != y->est_insns) return x->est_insns < y->est_insns;
  return x->est_read_bytes + x->est_write_bytes < y->est_read_bytes + y->est_write_bytes;
}

// Enumerates candidate plans into best[0..keep-1] (sorted, best first). Returns how many.
static int search(const MachOp *op, const Arch *a, Dataflow df, const Slots *s, TilePlan *best, int keep) {
  int n = 0;
  int64_t oh = out_h(op), ow = out_w(op);
  int64_t nN = cdiv(op->N, a->cols);
  uint32_t nK = op->kind == MOP_GEMM ? op->n_ktiles : 1;
  // Band heights: one per distinct band count; then single-row pieces (not with a pool).
  int64_t bands[512];
  int nb = 0;
  for (int64_t cnt = 1; cnt <= oh && nb < 400; cnt++) {
    int64_t rows = cdiv(oh, cnt);
    if (nb && bands[nb - 1] == rows) continue;
    bands[nb++] = rows;
    if (rows == 1) break;
  }
  int64_t pieces[64];
  int np = 0;
  if (!pooled(op))
    for (int64_t k = 2; k <= ow && np < 60; k = k < 8 ? k + 1 : k * 2) pieces[np++] = cdiv(ow, k);
  uint32_t kcs[32];
  int nkc = 0;
  OpCost oc;
  op_cost(op, a, &oc);
  for (uint32_t k = 1; k < nK && nkc < 30; k *= 2) kcs[nkc++] = k;
  kcs[nkc++] = nK;
  for (int bi = 0; bi < nb + np; bi++) {
    TilePlan p;
    memset(&p, 0, sizeof p);
    p.band_rows = (uint32_t)(bi < nb ? bands[bi] : 1);
    p.band_cols = (uint32_t)(bi < nb ? ow : pieces[bi - nb]);
    uint32_t m_max;
    double m_total = m_rows_total(op, &p, &m_max);
    for (int ki = 0; ki < nkc; ki++)
      for (int64_t g = 1; g <= (op->kind == MOP_GEMM ? nN : 1) && g <= 64; g++) {
        p.kc = op->kind == MOP_GEMM ? kcs[ki] : 1;
        p.g = (uint32_t)g;
        if (op->kind != MOP_GEMM && ki) continue;
        if (estimate(op, a, df, s, &oc, m_total, m_max, &p)) continue;
        int at = n < keep ? n : keep;
        while (at > 0 && better(&p, &best[at - 1])) at--;
        if (at >= keep) continue;
        memmove(best + at + 1, best + at, (size_t)((n < keep ? n : keep - 1) - at) * sizeof *best);
        best[at] = p;
        if (n < keep) n++;
      }
  }
  return n;
}

int tile_estimate(const MachOp *op, const Arch *a, Dataflow df, int double_buffer, TilePlan *p) {
  Slots s;
  tile_slots(a, double_buffer, &s);
  OpCost oc;
  op_cost(op, a, &oc);
  uint32_t m_max;
  double m_total = m_rows_total(op, p, &m_max);
  p->slots = s.slots;
  return estimate(op, a, df, &s, &oc, m_total, m_max, p);
}

int tile_plan_all(MachProg *mp, int double_buffer, Diag *d) {
  Slots s;
  tile_slots(mp->arch, double_buffer, &s);
  s.overlap = !mp->no_preload_overlap;
  for (int i = 0; i < mp->n_ops; i++) {
    MachOp *op = &mp->ops[i];
    TilePlan best[1];
    Slots one;
    tile_slots(mp->arch, 0, &one);
    one.overlap = s.overlap;
    int found = search(op, mp->arch, op->df, &s, best, 1);
    if (found) best[0].slots = s.slots;
    else if (s.slots > 1 && (found = search(op, mp->arch, op->df, &one, best, 1)))
      best[0].slots = 1;  // single-buffered
    if (!found)
      return diag_error(d, "sacc: op %d (%s): error: no tiling fits arch \"%s\" (array %ux%u, spad %u, wbuf %u, "
                           "acc %u, param %u rows per buffer slot)", i, op->what, mp->arch->name, mp->arch->rows,
                        mp->arch->cols, s.spad, s.wbuf, s.acc, s.param);
    op->plan = best[0];
  }
  return 0;
}

static void dump_plan(const MachOp *op, const TilePlan *p, const char *tag, FILE *f) {
  fprintf(f, "  %s band %ux%u", tag, p->band_rows, p->band_cols);
  if (p->slots == 1) fprintf(f, " single-buffered");
  if (op->kind == MOP_GEMM) fprintf(f, " kc %u g %u", p->kc, p->g);
  fprintf(f, " m-tiles %llu est %.0f cycles, read %.0f B, write %.0f B\n",
          (unsigned long long)tile_m_count(op, p), p->est_cycles, p->est_read_bytes, p->est_write_bytes);
}

static const char *dataflow_long_name(Dataflow df) {
  switch (df) {
  case DF_WS: return "weight-stationary";
  case DF_OS: return "output-stationary";
  case DF_IS: return "input-stationary";
  }
  return "?";
}

void tile_dump(const MachProg *mp, int double_buffer, FILE *f) {
  Slots s;
  tile_slots(mp->arch, double_buffer, &s);
  fprintf(f, "# tiling: arch %s, %s, %u buffer slot(s): spad %u, wbuf %u, acc %u, param %u rows each\n",
          mp->arch->name, mp->per_op ? "dataflow per op (--dataflow auto: the lowest estimate; --layer-dataflow)" : dataflow_long_name(mp->dataflow),
          s.slots, s.spad, s.wbuf, s.acc, s.param);
  for (int i = 0; i < mp->n_ops; i++) {
    const MachOp *op = &mp->ops[i];
    fprintf(f, "op %d %s %s", i, lower_mop_name(op->kind), op->what);
    if (mp->per_op && op->kind == MOP_GEMM) {   // the choice and, under auto, what it was made on
      fprintf(f, " [%s", lower_dataflow_name(op->df));
      if (op->df_est[DF_WS] >= 0 || op->df_est[DF_OS] >= 0 || op->df_est[DF_IS] >= 0) {
        fprintf(f, "; est");
        for (Dataflow df = DF_WS; df <= DF_IS; df++)
          if (op->df_est[df] >= 0) fprintf(f, " %s %.0f", lower_dataflow_name(df), op->df_est[df]);
          else fprintf(f, " %s -", lower_dataflow_name(df));
      }
      fprintf(f, "]");
    }
    fprintf(f, "\n");
    dump_plan(op, &op->plan, "chosen", f);
    TilePlan best[4];
    Slots os;
    tile_slots(mp->arch, op->plan.slots > 1, &os);
    os.overlap = !mp->no_preload_overlap;
    int n = search(op, mp->arch, op->df, &os, best, 4);
    for (int k = 0; k < n; k++) {
      best[k].slots = op->plan.slots;
      if (memcmp(&best[k], &op->plan, sizeof op->plan)) dump_plan(op, &best[k], "next  ", f);
    }
  }
}
