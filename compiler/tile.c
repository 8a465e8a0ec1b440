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

#include "../isa/sfu_cycles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// max of two cycle counts (never NaN): fmax is a library call that the estimates make millions of
static inline double dmax(double x, double y) { return x > y ? x : y; }

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

int tile_taps_share(const MachOp *op, const Arch *a, Dataflow df) {
  if (op->no_shared_taps || op->kind != MOP_GEMM || df != DF_WS || pooled(op) || op->sh < 1 || op->kh < 2 || op->N > a->cols) return 0;
  if (op->in[0].row_stride <= 0) return 0;
  for (uint32_t k = 0; k < op->n_ktiles; k++)
    if (op->ktiles[k].nseg != 1) return 0;
  return 1;
}

uint32_t tile_tap_places(const MachOp *op, const Arch *a, Dataflow df, uint32_t k0, uint32_t nk, uint32_t rows,
                         uint32_t cols, TapPlace *pl) {
  uint32_t at = 0, tm = rows * cols;
  int share = tile_taps_share(op, a, df);
  int64_t rs = op->in[0].row_stride;
  for (uint32_t i = 0; i < nk; i++) {
    const KTile *kt = &op->ktiles[k0 + i];
    // (a window's offset: kernel row ky * dh image rows down, then its columns, less than a row)
    // (with stride sh the gather's rows are sh image rows apart: the kernel rows a gather serves
    // are those of one residue modulo sh)
    int64_t key = kt->off % rs, dy = kt->off / rs, lo = dy, hi = dy, sh = op->sh;
    uint32_t lead = i, count = 0;
    for (uint32_t j = 0; share && j < nk; j++) {
      const KTile *o = &op->ktiles[k0 + j];
      if (o->off % rs != key || o->off / rs % sh != dy % sh || o->seglen != kt->seglen) continue;
      int64_t d = o->off / rs;
      count++, lo = d < lo ? d : lo, hi = d > hi ? d : hi;
      if (j < lead) lead = j;
    }
    uint64_t copy = (uint64_t)rows + (uint64_t)((hi - lo) / sh);
    TapPlace me = {at, at, rows, kt->off};
    if (share && count > 1 && copy <= (uint64_t)count * rows && copy <= field_max(FLD_OUTER)) {
      if (lead == i) {
        me.lead = (uint32_t)copy, me.off = key + lo * rs;
        me.src = at + (uint32_t)((dy - lo) / sh) * cols;
        at += (uint32_t)copy * cols;
      } else {   // (its leader came first: placed already)
        TapPlace l = {0, 0, 0, 0};
        if (pl) l = pl[lead];
        me.dst = l.dst, me.lead = 0, me.off = 0;
        me.src = l.dst + (uint32_t)((dy - lo) / sh) * cols;
      }
    } else {
      at += tm;
    }
    if (pl) pl[i] = me;
  }
  return at;
}

int64_t tile_ring_overlap(const MachOp *op, const TilePlan *p, uint64_t i) {
  if (i == 0 || i >= tile_m_count(op, p) || !pooled(op)) return 0;
  MTile a = tile_m_at(op, p, i - 1), b = tile_m_at(op, p, i);
  if (a.img != b.img || a.x0 != 0 || b.x0 != 0) return 0;
  int64_t h = a.iy0 + a.irows - b.iy0;
  return h > 0 && h < b.irows && h <= a.irows ? h : 0;
}

// Whether N tile j may write ACC rows [lo, hi) of M tile i: no other N tile's rows that are still
// to be read are there: the whole window of an N tile placed before it in M tile i (its STORE
// comes after all of the step's computes), the halo that the others keep for M tile i.
static int ring_free(const int64_t *end, const int64_t *keep, const int64_t *lo_cur, int64_t j, int64_t lo,
                     int64_t hi, int64_t nN) {
  for (int64_t k = 0; k < nN; k++) {
    int64_t from = k < j ? lo_cur[k] : end[k] - keep[k];
    if (k != j && from < end[k] && lo < end[k] && from < hi) return 0;
  }
  return 1;
}

int tile_ring(const MachOp *op, const TilePlan *p, const Arch *a, RingWin *w) {
  int64_t nN = cdiv(op->N, a->cols), L = a->acc_rows, ow = op->ow;
  uint64_t nm = tile_m_count(op, p);
  if (!pooled(op) || op->kind != MOP_GEMM || nN > 64 || nN < 1) return -1;
  int64_t end[64], keep[64], lo_cur[64];   // per N tile: where its last window ends and (placed
                                           // in this M tile) starts; the ACC rows it keeps
  for (int64_t j = 0; j < nN; j++) end[j] = j * (L / nN), keep[j] = 0;
  int64_t h = 0, hn = nm > 1 ? tile_ring_overlap(op, p, 1) * ow : 0;
  for (uint64_t i = 0; i < nm; i++) {
    int64_t rows = tile_m_at(op, p, i).acc_rows;
    for (int64_t j = 0; j < nN; j++) {
      int64_t lo = -1, halo = 0;
      if (h > 0 && keep[j] == h && end[j] - h + rows <= L && ring_free(end, keep, lo_cur, j, end[j], end[j] - h + rows, nN))
        lo = end[j] - h, halo = h;
      // else a fresh window: where this N tile's last one ended, at the bottom, or after another's
      for (int64_t c = -2; lo < 0 && c < nN; c++) {
        int64_t at = c == -2 ? end[j] : c == -1 ? 0 : end[c];
        if (at + rows <= L && ring_free(end, keep, lo_cur, j, at, at + rows, nN)) lo = at;
      }
      if (lo < 0) return -1;
      w[i * (uint64_t)nN + (uint64_t)j].lo = (uint32_t)lo, w[i * (uint64_t)nN + (uint64_t)j].halo = (uint32_t)(halo / ow);
      lo_cur[j] = lo, end[j] = lo + rows, keep[j] = hn;
    }
    h = hn;
    hn = i + 2 < nm ? tile_ring_overlap(op, p, i + 2) * ow : 0;
  }
  return 0;
}

uint32_t tile_ring_gather_skip(const RingWin *w, uint64_t nN) {
  uint32_t skip = w[0].halo;
  for (uint64_t j = 1; j < nN; j++)
    if (w[j].halo < skip) skip = w[j].halo;
  return skip;
}

static int64_t gcd64(int64_t x, int64_t y) {
  x = x < 0 ? -x : x, y = y < 0 ? -y : y;
  while (y) {
    int64_t t = x % y;
    x = y, y = t;
  }
  return x;
}

// The byte offsets modulo B that the rows of a gather take: off + k*g (mod B) for every k, where g
// divides B and every stride between rows (the view's row and pixel strides times the op's,
// the image stride, and an extra stride, e.g. between a row's segments; 0: none).
typedef struct {
  int64_t off, g;
} Align;

static Align gather_align(const TView *v, int64_t sy, int64_t sx, int64_t off, int64_t extra, uint32_t B) {
  Align al;
  al.g = gcd64(gcd64(gcd64((int64_t)B, v->row_stride * sy), gcd64(v->pix_stride * sx, v->img_stride)), extra);
  if (al.g == 0) al.g = B;
  al.off = (v->c_off + v->byte_off + off) % al.g;
  if (al.off < 0) al.off += al.g;
  return al;
}

// Aligned beats that a segment of len bytes at byte offset al.off + delta touches, averaged over
// the offsets al allows (exact when g = B: every row alike).
static double seg_beats(Align al, int64_t delta, int64_t len, uint32_t B) {
  int64_t n = (int64_t)B / al.g, sum = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t o = ((al.off + delta + k * al.g) % (int64_t)B + B) % (int64_t)B;
    sum += (o + len + B - 1) / B;
  }
  return (double)sum / (double)n;
}

// Per-op figures that do not depend on the plan.
#define MAX_KT_SUMS 2048
typedef struct {
  double a_beats;       // GEMM: beats of one im2col row (all K tiles)
  double store_beats;   // beats of the whole output
  double store_cycles;  // the store unit's cycles for it: per output row the beats, or the pool
                        // window's accumulator reads (one per cycle) when more
  double elt_beats;     // ELT: beats of one input pixel row (all N tiles, all inputs)
  double elt_bcast_beats;   // ELT: beats of a broadcast input's one row (all N tiles)
  // Of those, the beats on the global buffer (fusion: MachOp.in_gbuf): its own port, one beat a
  // cycle, never slowed by DRAM's in-flight limit, not DRAM traffic.
  int a_gbuf;               // GEMM: the gather reads the global buffer
  double elt_gbeats, elt_bcast_gbeats;
  // GEMM: kt_beats[k]: the beats of K tiles 0..k-1 of one im2col row (n_ktiles <= MAX_KT_SUMS)
  double kt_beats[MAX_KT_SUMS + 1];
} OpCost;

// The beat size of a view's memory: the global buffer's or DRAM's.

// GEMM: the beats one im2col row's K tile k gathers.
static double ktile_beats(const MachOp *op, const Arch *a, uint32_t k) {
  uint32_t B = arch_beat_bytes(a, op->in_gbuf[0]);
  const KTile *kt = &op->ktiles[k];
  Align ka = gather_align(&op->in[0], op->sh, op->sw, kt->off - op->pad_t * op->in[0].row_stride -
                                                      op->pad_l * op->in[0].pix_stride,
                          kt->nseg > 1 ? (int64_t)kt->seg_stride : 0, B);
  return kt->nseg * seg_beats(ka, 0, kt->seglen, B);
}

static void op_cost(const MachOp *op, const Arch *a, OpCost *c) {
  uint32_t C = a->cols, B = arch_beat_bytes(a, op->out_gbuf);
  int64_t nN = cdiv(op->N, C), out_rows = n_images(op) * out_h(op) * out_w(op);
  memset(c, 0, sizeof *c);
  // (the write channel's in-flight limit, as step_cost's; the global buffer's port has none)
  double slow = a->dram_inflight < a->dram_latency && !op->out_gbuf ? (double)a->dram_latency / a->dram_inflight : 1.0;
  Align al = gather_align(&op->out, 1, 1, 0, 0, B);
  for (int64_t j = 0; j < nN; j++) {
    int64_t w = op->N - j * C < C ? op->N - j * C : C;
    double beats = seg_beats(al, j * C, w, B);
    c->store_beats += (double)out_rows * beats;
    c->store_cycles += (double)out_rows * dmax(beats * slow, pooled(op) ? (double)op->pkh * op->pkw : 1.0);
  }
  switch (op->kind) {
  case MOP_GEMM:
    c->a_gbuf = op->in_gbuf[0];
    for (uint32_t k = 0; k < op->n_ktiles; k++) {
      c->a_beats += ktile_beats(op, a, k);
      if (k < MAX_KT_SUMS) c->kt_beats[k + 1] = c->a_beats;
    }
    break;
  case MOP_ELT:
    for (int k = 0; k < op->n_in; k++) {
      B = arch_beat_bytes(a, op->in_gbuf[k]);
      Align ia = gather_align(&op->in[k], 1, 1, 0, 0, B);
      for (int64_t j = 0; j < nN; j++) {
        int64_t w = op->N - j * C < C ? op->N - j * C : C;
        // (a broadcast operand, SFU_EW's gate, is one row per step, not one per pixel)
        double b = seg_beats(ia, j * C, w, B);
        *(op->bcast && k == 1 ? &c->elt_bcast_beats : &c->elt_beats) += b;
        if (op->in_gbuf[k]) *(op->bcast && k == 1 ? &c->elt_bcast_gbeats : &c->elt_gbeats) += b;
      }
    }
    break;
  }
}

// The M tiles of a plan as classes of equal accumulator rows: a plan's tiles are one size but the
// last of each image (bands) or of each row (pieces), and with a pool the bands the padding clips.
// The model costs each class on its own, since a step's compute rounds its rows up (to R-row
// blocks in OS, C-pixel blocks in IS, the pair's floor in WS): the mean tile of a 21, 21, 7 split
// is one 16-row OS block, its tiles five. At most MAX_CLASSES (more only with a pool: merged into
// the last, a rare case). *max: the most rows any tile needs.
#define MAX_CLASSES 8
typedef struct {
  uint32_t rows;   // accumulator rows of a tile of the class
  double count;    // tiles of the class (all images)
} MClass;

static int m_add(MClass *cl, int n, uint32_t rows, double count) {
  for (int k = 0; k < n; k++)
    if (cl[k].rows == rows) return cl[k].count += count, n;
  if (n == MAX_CLASSES) {   // merge into the last class, keeping the rows total
    cl[n - 1].rows = (uint32_t)((cl[n - 1].rows * cl[n - 1].count + rows * count) / (cl[n - 1].count + count));
    cl[n - 1].count += count;
    return n;
  }
  cl[n].rows = rows, cl[n].count = count;
  return n + 1;
}

// What a ring's COMPUTEs wait for STOREs, in all: a window whose new rows overlap a window of the
// two M tiles before it waits for that window's STORE. Replayed with the array computing a
// step's N tiles in order (a cycle per row per K tile) and the store unit taking store cycles per
// window, each after its own N tile's computes (tile_ring's placement keeps the rest apart).
static double ring_stall(const MachOp *op, const TilePlan *p, const RingWin *w, uint64_t nm, uint64_t nN,
                         double store) {
  double cend = 0, send = 0, work = 0, done[3][64] = {{0}};   // (done: the STOREs' ends, M tiles i, i-1, i-2)
  for (uint64_t i = 0; i < nm; i++) {
    uint32_t full = tile_m_at(op, p, i).acc_rows, prev = i ? tile_m_at(op, p, i - 1).acc_rows : 0;
    uint32_t prev2 = i > 1 ? tile_m_at(op, p, i - 2).acc_rows : 0;
    for (uint64_t j = 0; j < nN; j++) {
      uint64_t lo = w[i * nN + j].lo + (uint64_t)w[i * nN + j].halo * (uint64_t)op->ow, hi = w[i * nN + j].lo + full;
      double start = cend;
      for (int b = 1; b <= 2 && (uint64_t)b <= i; b++)
        for (uint64_t k = 0; k < nN; k++) {
          uint64_t plo = w[(i - (uint64_t)b) * nN + k].lo, phi = plo + (b == 1 ? prev : prev2);
          if (lo < phi && plo < hi) start = dmax(start, done[b][k]);
        }
      double c = (double)(hi - lo) * op->n_ktiles;
      cend = start + c, work += c;
      send = dmax(send, cend) + store, done[0][j] = send;
    }
    for (uint64_t k = 0; k < nN; k++) done[2][k] = done[1][k], done[1][k] = done[0][k];
  }
  return cend - work;
}

// A ring plan (tile_ring): a tile's rows are the rows its N tiles compute, on average (the
// windows they pool are whole: *max), or -1 when the ring cannot be placed. *stall: ring_stall.
static int m_classes_ring(const MachOp *op, const TilePlan *p, const Arch *a, const OpCost *oc, MClass *cl,
                          uint32_t *max, double *stall) {
  uint64_t nm = tile_m_count(op, p), nN = (uint64_t)cdiv(op->N, a->cols);
  RingWin *w = malloc(nm * nN * sizeof *w);
  if (!w || tile_ring(op, p, a, w)) return free(w), -1;
  *stall = ring_stall(op, p, w, nm, nN, oc->store_cycles / (double)(nm * nN));
  int n = 0;
  *max = 0;
  for (uint64_t i = 0; i < nm; i++) {
    uint32_t full = tile_m_at(op, p, i).acc_rows;
    uint64_t sum = 0;
    for (uint64_t j = 0; j < nN; j++) sum += full - w[i * nN + j].halo * (uint64_t)op->ow;
    n = m_add(cl, n, (uint32_t)((sum + nN / 2) / nN), 1.0);
    if (full > *max) *max = full;
  }
  free(w);
  return n;
}

static int m_classes(const MachOp *op, const TilePlan *p, const Arch *a, const OpCost *oc, MClass *cl, uint32_t *max,
                     double *stall) {
  uint64_t per_img = tile_m_count(op, p) / (uint64_t)n_images(op);
  double imgs = (double)n_images(op);
  int n = 0;
  *max = 0;
  *stall = 0;
  if (p->ring) return m_classes_ring(op, p, a, oc, cl, max, stall);
  if (pooled(op)) {
    for (uint64_t i = 0; i < per_img; i++) n = m_add(cl, n, tile_m_at(op, p, i).acc_rows, imgs);
  } else {
    MTile first = tile_m_at(op, p, 0), last = tile_m_at(op, p, per_img - 1);
    // bands: the last of an image is short; pieces: the last of each row
    double lasts = pieces_per_row(op, p) > 1 ? (double)out_h(op) : 1.0;
    n = m_add(cl, n, first.acc_rows, ((double)per_img - lasts) * imgs);
    n = m_add(cl, n, last.acc_rows, lasts * imgs);
  }
  int k = 0;
  for (int j = 0; j < n; j++)
    if (cl[j].count > 0) {
      cl[k++] = cl[j];
      if (cl[j].rows > *max) *max = cl[j].rows;
    }
  return k;
}

// Cycles of one PRELOAD + stream pair of m rows in a long chain (docs/TIMING.md section 6).
static double ws_pair(double m, uint32_t R, uint32_t C, int overlap) {
  return overlap ? dmax(dmax(m, R + 1.0), (m + R + C - 1.0) / 2) : m + R;
}

// Fetch is in order, and with two slots a step's computes come after the next step's loads in
// the program (emit.c). When those loads are more than the load queue holds, fetch reaches the
// computes only once the load unit has started all but Q_load of them; the first of them that
// writes the slot the step before used (the weight LOAD) waits for that step's last compute to
// end. So the compute unit idles for the cycles the loads between that one and the last Q_load
// take: returned here (0 when the queue holds them), for the load sequence emit.c writes per
// step: [CFG_LOAD, parameter LOAD] at a chunk's first step (with_params), then WS/OS: CFG_LOAD,
// the weight LOAD (pb, w: beats), CFG_LOAD, kc gather LOADs (a beats each), IS: CFG_LOAD, kc
// weight LOADs, CFG_LOAD, kc transposed gathers. gathers = 0: no gather (one chunk, a later N
// group). A CFG_LOAD takes a cycle. params_last: the parameter LOAD after the gathers (shared
// taps, emit.c).
static double fetch_block(Dataflow df, uint32_t kc, int with_params, double pb, double w, double a, int gathers,
                          uint32_t q, int params_last) {
  double dur[2 * 64 + 8];
  int n = 0, first = -1;
  if (kc > 64) return 0;
  if (with_params && !params_last) dur[n++] = 1, dur[n++] = pb;
  dur[n++] = 1;
  switch (df) {
  case DF_WS:
  case DF_OS: first = n, dur[n++] = w; break;
  case DF_IS:
    first = n;
    for (uint32_t k = 0; k < kc; k++) dur[n++] = w / kc;
    break;
  }
  if (gathers) {
    dur[n++] = 1;
    for (uint32_t k = 0; k < kc; k++) dur[n++] = a;
  }
  if (with_params && params_last) dur[n++] = 1, dur[n++] = pb;
  double t = 0;
  for (int j = first; j <= n - 2 - (int)q; j++) t += dur[j];
  return t;
}

// The special-function unit's cycles on one step of tm pixels (isa/sfu_cycles.h, TIMING 7a).
static double sfu_step_cycles(const MachOp *op, const Arch *a, double tm) {
  Opcode insn = OP_HALT;   // (no rows)
  switch (op->sfu) {
  case SFUK_NONE: return 0;
  case SFUK_MAP: insn = OP_SFU_MAP; break;
  case SFUK_EW: insn = OP_SFU_EW; break;
  case SFUK_SOFTMAX: insn = OP_SFU_SOFTMAX; break;
  case SFUK_LAYERNORM: insn = OP_SFU_LAYERNORM; break;
  }
  return tm * (double)sfu_row_cycles_of(a, insn, (uint64_t)cdiv(op->N, a->cols)) + a->sfu_latency;
}

// A chunk's gathers (shared taps, tile.h): the SPAD rows they load, how many, the rows of the
// first, and the K tiles from the first that reads the last gather to the chunk's end (those
// streams run after the last gather lands). Per K tile when the op does not share taps.
// a_row: the beats per gathered row of the chunk's own K tiles (a 3-channel conv's last K tile
// gathers a segment per channel: AlexNet's conv1 11 beats a pixel against 1 for the others), or
// 0 for the op's mean (shared taps).
typedef struct {
  double rows, n, first, tail_k, a_row;
} TapCost;

static TapCost tap_cost(const MachOp *op, const Arch *a, Dataflow df, const TilePlan *p, uint32_t tm, uint32_t k0,
                        uint32_t nk) {
  TapCost c = {(double)nk * tm, nk, tm, 1, 0};
  uint32_t cols = pieces_per_row(op, p) > 1 ? tm : (uint32_t)out_w(op), rows = cols ? tm / cols : 0;
  if (!tile_taps_share(op, a, df) || !rows || rows * cols != tm) return c;
  TapPlace *pl = malloc(nk * sizeof *pl);
  if (!pl) return c;
  c.rows = tile_tap_places(op, a, df, k0, nk, rows, cols, pl);
  c.n = 0;
  uint32_t last = 0;
  for (uint32_t i = 0; i < nk; i++)
    if (pl[i].lead) {
      if (c.n == 0) c.first = (double)pl[i].lead * cols;
      c.n++, last = i;
    }
  c.tail_k = 0;   // (emit.c streams the K tiles gather by gather: the last gather's are last)
  for (uint32_t i = 0; i < nk; i++)
    if (pl[i].dst == pl[last].dst) c.tail_k++;
  free(pl);
  return c;
}

// The TapCost of a class's full chunks (averaged over the nKC - 1 of them) or its last chunk.
static TapCost tap_cost_avg(const MachOp *op, const Arch *a, const OpCost *oc, Dataflow df, const TilePlan *p,
                            uint32_t tm, int full) {
  int64_t nKC = cdiv(op->n_ktiles, p->kc);
  uint32_t k_last = (uint32_t)(nKC - 1) * p->kc, n_last = op->n_ktiles - k_last;
  int own = op->n_ktiles <= MAX_KT_SUMS && !tile_taps_share(op, a, df);   // (a_row: else the mean)
  if (!full) {
    TapCost t = tap_cost(op, a, df, p, tm, k_last, n_last);
    if (own) t.a_row = (oc->kt_beats[op->n_ktiles] - oc->kt_beats[k_last]) / n_last;
    return t;
  }
  TapCost s = {0, 0, 0, 0, 0};
  for (int64_t c = 0; c + 1 < nKC; c++) {
    TapCost t = tap_cost(op, a, df, p, tm, (uint32_t)c * p->kc, p->kc);
    s.rows += t.rows, s.n += t.n, s.first += t.first, s.tail_k += t.tail_k;
  }
  double n = nKC > 1 ? (double)(nKC - 1) : 1;
  s.rows /= n, s.n /= n, s.first /= n, s.tail_k /= n, s.a_row = 0;
  if (own && k_last > 0) s.a_row = oc->kt_beats[k_last] / k_last;
  return s;
}

// One step of a tile class: what each unit spends on it, and its instructions.
typedef struct {
  double compute, load, store;   // cycles of the compute unit, beats read and written
  double head;                   // beats loaded before the step's first stream can start
  double plast;                  // a parameter LOAD last in the step's loads (shared taps): its
                                 // beats, which alone wait for the STOREs of the group two before
  double tail;                   // compute after the step's last load lands (its last stream)
  double stall;                  // compute idle while fetch waits on the load queue (fetch_block)
  double block[2];               // the fetch_block of its own loads, without and with parameters
  double beats;                  // beats read (load, before the in-flight limit)
  double fetch_late;             // share of the compute done before fetch reaches the STOREs after it
  double early;                  // cycles before its last stream ends that its slot starts to free
  double insns;                  // instructions
  double gbeats;                 // beats read from the global buffer
  double lat_head, lat_load;     // from the last beat of its head / of its loads issued to the
                                 // data landed: L, or L_g when only global-buffer beats are
                                 // loaded (responses in issue order, one per cycle, TIMING 5a:
                                 // G GBUF beats right after the last DRAM one land in the G
                                 // cycles after its response, so max(L, L_g) after the last)
  double early_head, early_load; // how much sooner than head + lat_head / load + lat_load its
                                 // head / loads land: a DRAM channel of F < L in flight moves
                                 // F / L beats a cycle in a long run, but a step's burst issues
                                 // its first F beats one a cycle (burst_issue)
} Step;

// The cycles a burst of b DRAM beats takes to issue on an idle channel of F in flight and
// latency L: F beats one a cycle, each next F once the first of those is answered.
static double burst_issue(double b, uint32_t F, uint32_t L) {
  int64_t n = (int64_t)(b + 0.5);
  return n < 1 ? 0 : (double)((n - 1) / F * L + (n - 1) % F + 1);
}

// The cost of one step of a tile of tm accumulator rows over a K chunk of kc tiles (the plan's
// nNG N groups and nKC K chunks; step_store beats stored per step; drain the array's).
static Step step_cost(const MachOp *op, const Arch *a, Dataflow df, const Slots *s, const OpCost *oc,
                      const TilePlan *p, double tm, uint32_t kc, int64_t nNG, int64_t nKC, double step_store,
                      double drain, int gathers, const TapCost *tc) {
  uint32_t R = a->rows, C = a->cols, B = a->bus_bytes;
  int64_t nN = cdiv(op->N, C);
  Step st = {.store = step_store};
  // The DRAM channels hold at most F beats for L cycles each (docs/TIMING.md section 5): with
  // F < L a channel moves F / L beats per cycle (the tiny arch: 0.4), not one. The global
  // buffer's beats (g_load of the loads, g_head of the head) go one a cycle (TIMING 5a).
  double slow = a->dram_inflight < a->dram_latency ? (double)a->dram_latency / a->dram_inflight : 1.0;
  double g_load = 0, g_head = 0, g_tail = 1;   // (g_tail 0: GBUF beats not last in the step)
  switch (op->kind) {
  case MOP_GEMM: {
    double g_avg = (double)nN / nNG, kc_avg = kc, k_rows = (double)op->K * kc / op->n_ktiles;
    double w_beats = 0;
    double outer = 1, last = 0;   // the stream loops outside the K tiles; the last pair
    switch (df) {
    case DF_IS: {
      // Per (C-pixel block of the M tile, K tile): a PRELOAD and a COMPUTE_IS streaming the
      // group's channels (jp cycles), a pair costing what a weight-stationary one does (the
      // PRELOAD behind the stream with OVERLAP, else after it). Starts are aligned modulo C
      // (rule (d)): the period rounds up to a multiple of C.
      double jp = (double)op->N / nNG;
      double pair = ws_pair(jp, R, C, s->overlap);
      pair = ceil(pair / C) * C;
      st.compute = ceil(tm / C) * kc_avg * pair;
      // a row per channel per K tile, of the tile's rows (unaligned: expected beats)
      // (W^T rows K bytes apart, a K tile at a multiple of R: those strides set the alignment)
      Align wa = {0, gcd64(gcd64((int64_t)B, op->K), (int64_t)R)};
      w_beats = (double)op->N / nNG * kc_avg * seg_beats(wa, 0, (op->K + op->n_ktiles - 1) / op->n_ktiles, B);
      st.insns = 2.0 * ceil(tm / C) * kc + kc;
      outer = ceil(tm / C), last = pair;
      // (each K tile's W^T rows have their own LOAD, which waits only for the streams that read
      // them: with one pixel block, the step's k-th, so the next-but-one step's weight loads
      // start after its first stream, not its last)
      if (outer == 1 && kc > 1) st.early = st.compute * (kc - 1) / kc;
      break;
    }
    case DF_OS:
      // One COMPUTE_OS per (N tile, R-row block of the M tile) over the chunk's K (kc tiles of R
      // rows): a block takes K cycles; the drain (2R + C) shows only at the end of a step.
      st.compute = g_avg * ceil(tm / R) * kc_avg * R;
      w_beats = g_avg * kc_avg * R * (double)cdiv(C, B);   // K tiles padded to R rows
      st.insns = p->g * ceil(tm / R);
      outer = 1, last = st.compute;
      break;
    case DF_WS:
      st.compute = g_avg * kc_avg * ws_pair(tm, R, C, s->overlap);
      w_beats = g_avg * k_rows * (double)cdiv(C, B);
      st.insns = 2.0 * p->g * kc;
      outer = g_avg, last = ws_pair(tm, R, C, s->overlap) * tc->tail_k;
      break;
    }
    // (the gathers: kc of a_tile beats, or with shared taps tc's, a_first beats the first)
    double pb = 3.0 * g_avg * cdiv(4 * C, B), a_row = tc->a_row > 0 ? tc->a_row : oc->a_beats / op->n_ktiles;
    double a_all = tc->rows * a_row, a_first = tc->first * a_row, n_gath = tc->n;
    int plast = tile_taps_share(op, a, df);   // (emit.c: the parameters after the gathers)
    st.plast = plast ? pb / nKC : 0;
    st.load = (gathers ? a_all : 0) + w_beats + pb / nKC;
    if (oc->a_gbuf && gathers) g_load = a_all, g_head = df == DF_OS ? g_load : a_first;
    // A WS or IS stream waits for its own K tile's gather only (the tokens follow the declared
    // rows), so a step's streams start once the parameters, the weights and the first gather
    // are in, and after the last gather only the loops outside the K tiles remain (the later N
    // tiles in WS, the later pixel blocks in IS). A COMPUTE_OS reads all of the chunk.
    if (df == DF_OS) st.head = st.load, st.tail = st.compute;
    else st.head = st.plast > 0 ? 0 : pb / nKC, st.head += w_beats + (gathers ? a_first : 0), st.tail = st.compute * (1 - 1 / outer) + last;
    if (s->slots > 1) {   // the next step's loads ahead of this one's computes (fetch_block)
      double a_one = n_gath > 0 ? a_all / n_gath : 0;
      double at = oc->a_gbuf ? a_one / slow : a_one;   // (scaled by slow below with the DRAM ones)
      uint32_t ng = (uint32_t)(n_gath + 0.5);
      double with = fetch_block(df, ng, 1, pb, w_beats, at, gathers, a->queue_depth[UNIT_LOAD], plast);
      double without = nKC > 1 ? fetch_block(df, ng, 0, pb, w_beats, at, gathers, a->queue_depth[UNIT_LOAD], plast) : 0;
      double blocked = (with + (double)(nKC - 1) * without) / (double)nKC;
      st.block[0] = nKC > 1 ? without : with, st.block[1] = with;
      if (blocked > 0) st.stall = drain + blocked;
    }
    // Fetch reaches the STOREs after a step's computes only when the compute queue holds the
    // last Q_compute of them: with more, the stores start no earlier than the compute unit
    // starting the one Q_compute from the end.
    double ncomp = st.insns;
    if (ncomp > a->queue_depth[UNIT_COMPUTE]) st.fetch_late = (ncomp - a->queue_depth[UNIT_COMPUTE]) / ncomp;
    st.insns += 4 + kc;   // and the step's loads, stores and configuration, roughly
    break;
  }
  case MOP_ELT: {
    // A channel step of an element-wise op (lower_sfu.c): its inputs, its PARAM rows (layer
    // norm's are loaded once for the layer: left out), and the special-function unit's cycles,
    // which run after the step's loads (a plain element-wise op has none).
    double nsteps = (double)lower_sfu_channel_steps(op, C);
    double tml = op->fold_w ? (double)(op->in[0].h * op->in[0].w) : tm;   // a folded pool loads the whole map
    st.load = (tml * oc->elt_beats + oc->elt_bcast_beats) / nsteps +
              (lower_sfu_params_once(op) ? 0 : lower_sfu_param_rows(op, C) * cdiv(4 * C, B));
    st.head = st.load;
    g_load = g_head = (tml * oc->elt_gbeats + oc->elt_bcast_gbeats) / nsteps;
    if (!op->in_gbuf[op->n_in - 1]) g_tail = 0;   // (a DRAM input loaded last: its latency shows)
    st.compute = st.tail = sfu_step_cycles(op, a, tm);
    st.insns = 6;
    break;
  }
  }
  st.beats = st.load - g_load;   // DRAM's
  st.gbeats = g_load;
  double L = a->dram_latency, Lg = a->gbuf_latency;
  st.lat_head = g_head > 0 && g_tail ? (st.head > g_head ? dmax(L, Lg) : Lg) : L;
  st.lat_load = g_load > 0 && g_tail ? (st.load > g_load ? dmax(L, Lg) : Lg) : L;
  // (with F < L the last F DRAM beats issue L - F cycles before the slot rule lets the next DRAM
  // beat go: GBUF beats after them use those cycles first)
  double dram_issue = (st.load - g_load) * slow, hidden = 0;
  if (slow > 1 && st.load > g_load) hidden = fmin(g_load, L - a->dram_inflight);
  st.load = dram_issue + g_load - hidden;
  if (slow > 1) st.early_load = dmax(0, dram_issue - hidden - burst_issue(st.beats, a->dram_inflight, a->dram_latency));
  // (the head's GBUF beats follow its last DRAM beat, which issues L - F cycles before the slot
  // rule's next one: the head lands L after that beat or L_g after its own, whichever is later)
  double dram_head_beats = st.head - g_head, dram_head = dram_head_beats * slow;
  if (g_head > 0 && slow > 1 && st.head > g_head) dram_head = dmax(st.head - g_head, dram_head - (L - a->dram_inflight));
  st.head = dram_head + g_head;
  if (slow > 1) st.early_head = dmax(0, dram_head - burst_issue(dram_head_beats, a->dram_inflight, a->dram_latency));
  st.block[0] *= slow, st.block[1] *= slow;   // (stores: the caller)
  st.plast *= slow;
  return st;
}

// The cycles per unit in a long run of units, from the step-level recurrence of the emitted
// program with two slots (emit.c; docs/TIMING.md). A unit is seq[0..n-1], its steps in order, in
// N groups of group_len steps (K chunks): an N group's first step loads its parameters, its last
// stores its outputs (`stores` STOREs, one per N tile, each after its own N tile's streams in
// WS and OS; IS streams all N tiles at once: stores 1). The loads of step j+1 start when the load unit is done with step j's,
// step j-1's last stream has released the slot and, at a group's first step (its parameter
// LOAD), the stores of the group two before are done; step j's first stream waits for its head,
// for fetch (fetch_block: the next step's loads ahead of it) and, at a group's first step, for
// the first store of the group two before (the accumulator rows its first N tile reuses); it ends no earlier than a tail after
// its last load lands; a group's stores follow its last step, each N tile's after its own streams. SIM_UNITS units are run and the
// last two averaged (a chain over every other step repeats every two units). *first gets the
// first unit's end, from its first load. -1 when n is too long to run.
#define SIM_UNITS 4
#define SIM_MAX_STEPS 64
#define SIM_OP_UNITS 4
#define SIM_OPS 3
#define SIM_MAX_UNITS (SIM_OPS * SIM_OP_UNITS)
#define SIM_END_UNITS 32
static double unit_sim(const Step *const *seq, int n, int group_len, double group_store, double stores, double lat_st,
                       double drain, double post, int64_t op_units, double *first /* OUT */) {
  if (n > SIM_MAX_STEPS || n < 1) return -1;
  // An op of few units runs as whole ops (SIM_OPS of them): at an op's end the next op's first
  // loads come after the last step's computes in the program, not before them.
  int ops = op_units <= SIM_OP_UNITS, units = ops ? SIM_OPS * (int)op_units : SIM_UNITS;
  int total = units * n, op_len = ops ? (int)op_units * n : 0;
  double ls[SIM_MAX_UNITS * SIM_MAX_STEPS + 1], crel[SIM_MAX_UNITS * SIM_MAX_STEPS + 1];
  double send[SIM_MAX_UNITS * SIM_MAX_STEPS + 1], send1[SIM_MAX_UNITS * SIM_MAX_STEPS + 1];   // (send1: a group's first STORE)
  double lfree = 0, cfree = 0, sfree = 0, unit_end[SIM_MAX_UNITS] = {0}, fetched = 0;
  ls[0] = 0;
  for (int j = 0; j < total; j++) {
    int pos = j % n, grp = j / group_len;
    int bnd = op_len && (j + 1) % op_len == 0;   // the op's last step
    const Step *st = seq[pos];
    lfree = ls[j] + st->load;
    // (a parameter LOAD last in the step: only it waits for the stores of the group two before)
    if (st->plast > 0 && j % group_len == 0 && grp >= 2) lfree = dmax(lfree - st->plast, send[grp - 2]) + st->plast;
    double fetch = 0, t = 0;
    int pos1 = (j + 1) % n, grp1 = (j + 1) / group_len, starts1 = (j + 1) % group_len == 0;
    const Step *st1 = seq[pos1];
    if (j + 1 < total) {   // the next step's loads
      t = lfree;
      if (j >= 1) t = dmax(t, crel[j - 1] - seq[(j - 1) % n]->early);
      if (!bnd) t = dmax(t, fetched);
      if (starts1 && grp1 >= 2 && !(st1->plast > 0)) t = dmax(t, send[grp1 - 2]);
      ls[j + 1] = t;
      if (!bnd && st1->block[starts1] > 0) fetch = t + st1->block[starts1] + 1;
    }
    double cs = dmax(dmax(cfree, ls[j] + st->head + st->lat_head - st->early_head), fetch);
    if (j % group_len == 0 && grp >= 2) cs = dmax(cs, send1[grp - 2]);
    // (fetch reaches the loads of step j+2, or at an op's end those of step j+1, only after
    // these computes, the same way as the STOREs below: with more than the compute queue holds,
    // once the unit starts the one Q_compute from the end)
    fetched = cs + st->compute * st->fetch_late;
    if (bnd && j + 1 < total) ls[j + 1] = dmax(t, fetched);
    double ce = dmax(cs + st->compute, ls[j] + st->load - st->plast + st->lat_load - st->early_load + st->tail);
    cfree = ce, crel[j] = ce + drain;
    if (j % group_len == group_len - 1) {
      // (a STORE waits for its own N tile's streams: the first one ends when the first N tile's do)
      double ss = dmax(dmax(sfree, crel[j] - st->compute * (1 - 1 / stores) + post), cs + st->compute * st->fetch_late);
      sfree = dmax(ss + group_store, crel[j] + post + group_store / stores);
      send[grp] = sfree + lat_st, send1[grp] = ss + group_store / stores + lat_st;
    }
    if (pos == n - 1) unit_end[j / n] = ce;
  }
  *first = unit_end[0];
  int span = ops ? 2 * (int)op_units : 2;   // the last two ops, or the last two units
  return (unit_end[units - 1] - unit_end[units - 1 - span]) / span;
}


// Evaluates plan p for op; fills the estimates. Returns 0 when it fits, -1 when not. end_free: the
// next op does not wait for this one's output, so the op's end shows (unit_sim).
static int estimate(const MachOp *op, const Arch *a, Dataflow df, const Slots *s, const OpCost *oc,
                    const MClass *cl, int ncl, uint32_t m_max, double stall, int end_free, TilePlan *p) {
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
  int64_t nN = cdiv(op->N, C);
  double lat = a->dram_latency, drain = R + C;
  double lat_st = op->out_gbuf ? a->gbuf_latency : lat;   // a STORE's last acknowledgement
  int64_t nNG = 1, nKC = 1;   // N groups, K chunks
  switch (op->kind) {
  case MOP_GEMM:
    if (p->g < 1 || p->kc < 1 || p->g > nN || p->kc > op->n_ktiles) return -1;
    // (a ring uses the whole accumulator: its N tiles' windows, placed by tile_ring)
    if ((!p->ring && (uint64_t)m_max * p->g > s->acc) || 3u * p->g > s->param) return -1;
    // (and one step per band: all N tiles, one K chunk. With several N groups the next band's
    // gather comes behind the last group's computes in the program and the band waits for it,
    // which the model does not see: AlexNet's conv1 in groups of 1 estimated 316,568 cycles and
    // ran 359,685, slower than no ring)
    if (p->ring && (df == DF_IS || p->kc != op->n_ktiles || p->g != nN || s->slots < 2)) return -1;
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
      if (tile_taps_share(op, a, df)) {   // (shared taps: each chunk's gathers, never more)
        for (uint32_t k0 = 0; k0 < op->n_ktiles; k0 += p->kc) {
          uint32_t nk = op->n_ktiles - k0 < p->kc ? op->n_ktiles - k0 : p->kc;
          if (tile_tap_places(op, a, df, k0, nk, (uint32_t)t0.rows, (uint32_t)t0.cols, NULL) > s->spad) return -1;
        }
      } else if ((uint64_t)m_max * p->kc > s->spad) {
        return -1;
      }
      // (the weight LOAD's INNER is the chunk's weight rows)
      if ((uint64_t)p->kc * R > field_max(FLD_INNER) || (uint64_t)p->g * p->kc * R > s->wbuf) return -1;
      break;
    }
    nNG = cdiv(nN, p->g), nKC = cdiv(op->n_ktiles, p->kc);
    if (df == DF_OS) drain = 2.0 * R + C;
    break;
  case MOP_ELT: {
    // (an SFU op's step: its ACC and PARAM rows and channel steps, lower_sfu.c; a plain
    // element-wise op is SFUK_NONE: a step per channel tile, 3 PARAM rows)
    uint32_t prows = lower_sfu_param_rows(op, C);
    int once = lower_sfu_params_once(op);   // loaded once for all steps, anywhere in PARAM
    if (lower_sfu_acc_rows(op, m_max, C) > s->acc || prows > (once ? a->param_rows : s->param)) return -1;
    nNG = lower_sfu_channel_steps(op, C);
    drain = a->post_latency;
    break;
  }
  }
  // A step's share of the stores: their cycles, and per STORE its CFG_STORE and the S cycles
  // before its first beat (one STORE per N tile of a group, at its last K chunk).
  double steps = (double)nm * nNG * nKC;
  double step_store = oc->store_cycles / steps +
                      (op->kind == MOP_GEMM ? (double)nN / nNG / nKC : 1.0) * (a->post_latency + 1.0);
  double total = 0, reads = 0, insns = 0, greads = 0;
  // K chunks: nKC - 1 of kc tiles and a last one of the rest, costed apart like the M classes
  // (a 9-tile K in chunks of 8 is a long step and a short one, not two of 4.5).
  uint32_t kc_last = op->kind == MOP_GEMM ? op->n_ktiles - (uint32_t)(nKC - 1) * p->kc : 1;
  double first_head = 0, first_lat = lat, last_store = (double)nKC * step_store;
  for (int c = 0; c < ncl; c++) {
    // One unit: an (M tile, N group) of the class, its nKC steps; with one K chunk and several
    // N groups, an M tile: its groups' steps, the first with the gather (the rows stay in SPAD for
    // the others).
    Step full = {.store = 0}, last, bare = {.store = 0};
    int one_gather = nKC == 1 && nNG > 1;
    TapCost tc_full = {0, 0, 0, 1, 0}, tc_last = {(double)kc_last * cl[c].rows, kc_last, cl[c].rows, 1, 0};
    if (op->kind == MOP_GEMM) tc_full = tap_cost_avg(op, a, oc, df, p, cl[c].rows, 1), tc_last = tap_cost_avg(op, a, oc, df, p, cl[c].rows, 0);
    if (nKC > 1) full = step_cost(op, a, df, s, oc, p, cl[c].rows, p->kc, nNG, nKC, step_store, drain, 1, &tc_full);
    last = step_cost(op, a, df, s, oc, p, cl[c].rows, kc_last, nNG, nKC, step_store, drain, 1, &tc_last);
    if (one_gather) bare = step_cost(op, a, df, s, oc, p, cl[c].rows, kc_last, nNG, nKC, step_store, drain, 0, &tc_last);
    double nf = (double)(nKC - 1), units = cl[c].count * nNG, unit;
    if (c == 0) first_head = nKC > 1 ? full.head : last.head, first_lat = (nKC > 1 ? full : last).lat_head;
    double load = nf * full.load + last.load, compute = nf * full.compute + last.compute;
    double beats = nf * full.beats + last.beats, unit_insns = nf * full.insns + last.insns;
    double gbeats = nf * full.gbeats + last.gbeats;
    if (one_gather) {   // per N group, on average
      double ng = (double)nNG;
      load = (last.load + (ng - 1) * bare.load) / ng, beats = (last.beats + (ng - 1) * bare.beats) / ng;
      gbeats = (last.gbeats + (ng - 1) * bare.gbeats) / ng;
      unit_insns = (last.insns + (ng - 1) * bare.insns) / ng;
    }
    reads += units * beats, insns += units * unit_insns, greads += units * gbeats;
    if (s->slots > 1) {
      // Two slots: the loads of step j+2 wait for step j's last stream to end (its slot), which
      // ends a tail after its last load landed: w(j) = load + L + tail + drain from one step's
      // load start to the next-but-one's. And step j+2's first stream waits for its head (the
      // loads before it, L after them): h(j) = head + L + compute + drain. These chains link
      // every other step: with nKC even, the unit's even steps and its odd steps each form one
      // (the unit takes at least either sum); with nKC odd one chain runs through all steps of
      // two units (half the sum each). When every step loads parameters (one K chunk, or an
      // element-wise op), the parameter LOAD of step j+2 waits for step j's STOREs: w(j) grows
      // by the post-processing, the store and its latency.
      double extra = (op->kind == MOP_ELT || nKC == 1) ? (op->kind == MOP_GEMM ? a->post_latency : 0) + step_store + lat_st : 0;
      double wf = full.load + full.lat_load - full.early_load + full.tail + drain;
      double wl = last.load + last.lat_load - last.early_load + last.tail + drain + extra;
      double hf = full.head + full.lat_head - full.early_head + full.compute + drain - full.early;
      double hl = last.head + last.lat_head - last.early_head + last.compute + drain - last.early;
      double wchain, hchain;
      if (nKC % 2 == 0) {   // steps 0, 2, .. nKC-2 full; 1, 3, .. nKC-3 full and nKC-1 the last
        wchain = dmax(nKC / 2 * wf, (nKC / 2 - 1) * wf + wl);
        hchain = dmax(nKC / 2 * hf, (nKC / 2 - 1) * hf + hl);
      } else {
        wchain = (nf * wf + wl) / 2, hchain = (nf * hf + hl) / 2;
      }
      double first_end = 0, post = op->kind == MOP_GEMM ? a->post_latency : 0;
      const Step *seq[SIM_MAX_STEPS];
      int n = one_gather ? (int)nNG : (int)nKC;
      for (int k = 0; k < n && k < SIM_MAX_STEPS; k++)
        seq[k] = one_gather ? (k ? &bare : &last) : (k == nKC - 1 ? &last : &full);
      int64_t op_units = one_gather ? (int64_t)nm : (int64_t)nm * nNG;
      double nst = op->kind == MOP_GEMM && df != DF_IS ? (double)nN / nNG : 1.0;
      unit = unit_sim(seq, n, one_gather ? 1 : (int)nKC, (double)nKC * step_store, nst, lat_st, drain, post,
                      op_units, &first_end);
      if (unit >= 0 && end_free && op_units > SIM_OP_UNITS && op_units <= SIM_END_UNITS) {
        // An op of many units: the run above is its steady state, but at the op's end the next
        // op's first loads still come after its last step's computes in the program. What that
        // costs per op is what a short op of the same parity (the chains link every other
        // step) takes beyond as many steady units. Only when the next op could load ahead
        // (end_free: it does not read this op's output, else it waits for the stores anyway,
        // tile_handover's part), and not above SIM_END_UNITS units, where it is about a percent
        // or less, for the compiler's time: the plan search runs this per candidate.
        int64_t k = op_units % 2 ? 3 : 4;
        double f2, short_op = unit_sim(seq, n, one_gather ? 1 : (int)nKC, (double)nKC * step_store, nst, lat_st,
                                       drain, post, k, &f2);
        if (short_op >= 0) unit += dmax(0, short_op - unit) * (double)k / (double)op_units;
      }
      if (unit >= 0 && one_gather) unit /= (double)nNG, first_end -= unit * (double)(nNG - 1);
      if (c == 0 && unit >= 0) first_head = dmax(0, first_end - unit - (nKC > 1 ? full : last).lat_head);
      if (unit < 0)
        unit = dmax(dmax(dmax(load, compute + nf * full.stall + last.stall), (double)nKC * step_store),
                    dmax(wchain, hchain));
      // (never below what one unit's loads, streams and stores take: four units of the
      // recurrence may not have settled)
      unit = dmax(unit, dmax(dmax(load, one_gather ? (last.compute + (nNG - 1) * bare.compute) / nNG : compute),
                             (double)nKC * step_store));
    } else {   // one slot: everything in series
      unit = load + compute + (double)nKC * (last.lat_load + lat_st + drain + step_store);
    }
    total += units * unit;
  }
  // Fill: an op's first loads run under the previous op's last step, its last stores under the
  // next op's first: in a sequence of ops what shows is the array's drain.
  p->est_cycles = total + drain + stall;   // (stall: a ring's COMPUTEs waiting for STOREs)
  p->est_start = first_head + first_lat;
  p->est_head = first_head;
  p->est_end = last_store + (op->kind == MOP_GEMM ? a->post_latency : 0) + lat_st;
  p->est_read_bytes = reads * B;
  p->est_write_bytes = op->out_gbuf ? 0 : oc->store_beats * B;
  p->est_gbuf_bytes = greads * a->gbuf_bus_bytes + (op->out_gbuf ? oc->store_beats * a->gbuf_bus_bytes : 0);
  p->est_insns = insns;
  return 0;
}

uint64_t tile_in_bytes(const MachOp *op, const Arch *a, int k) {
  const TilePlan *p = &op->plan;
  uint64_t nm = tile_m_count(op, p), sum = 0;
  int64_t N = op->N;
  switch (op->kind) {
  case MOP_GEMM: {
    if (k == 1) return op->b_act ? nm * (uint64_t)(op->K * N) : 0;   // matmul: B per M tile
    if (k != 0) return 0;
    uint64_t per_pix = 0;
    for (uint32_t j = 0; j < op->n_ktiles; j++) per_pix += (uint64_t)op->ktiles[j].nseg * op->ktiles[j].seglen;
    // (with several K chunks every step gathers its chunk: each N group again)
    int64_t nKC = cdiv(op->n_ktiles, p->kc), reps = nKC > 1 ? cdiv(cdiv(N, a->cols), p->g) : 1;
    uint64_t nN = (uint64_t)cdiv(N, a->cols);
    RingWin *w = p->ring ? malloc(nm * nN * sizeof *w) : NULL;
    if (w && tile_ring(op, p, a, w)) free(w), w = NULL;
    for (uint64_t i = 0; i < nm; i++) {
      MTile t = tile_m_at(op, p, i);
      uint64_t pix = pooled(op) ? (uint64_t)(t.irows * op->ow) : (uint64_t)(t.rows * t.cols);
      if (w) pix -= (uint64_t)tile_ring_gather_skip(w + i * nN, nN) * (uint64_t)op->ow;
      sum += pix * per_pix;
    }
    free(w);
    return sum * (uint64_t)reps;
  }
  case MOP_ELT:
    if (k >= op->n_in) return 0;
    if (k == 1 && op->bcast) return nm * (uint64_t)N;
    for (uint64_t i = 0; i < nm; i++) {
      MTile t = tile_m_at(op, p, i);
      if (op->fold_w) sum += (uint64_t)(op->in[0].h * op->in[0].w) * (uint64_t)N;
      else sum += (uint64_t)(t.irows * (pooled(op) ? op->ow : t.cols)) * (uint64_t)N;
    }
    return sum;
  }
  return 0;
}

uint64_t tile_out_bytes(const MachOp *op) { return (uint64_t)(n_images(op) * out_h(op) * out_w(op) * op->N); }

// The tensor whose bytes t names (a flatten or reshape aliases its owner's).
static int owner(const MachProg *mp, int t) {
  while (t >= 0 && mp->tensors[t].alias >= 0) t = mp->tensors[t].alias;
  return t;
}

// Whether op i reads what op i-1 writes (one image: with a batch the first tile of the one is
// not the last of the other).
static int reads_prev(const MachProg *mp, int i) {
  if (i <= 0 || i >= mp->n_ops) return 0;
  const MachOp *prev = &mp->ops[i - 1], *cur = &mp->ops[i];
  int reads = 0;
  for (int k = 0; k < cur->n_in; k++) reads |= owner(mp, cur->in[k].t) == owner(mp, prev->out.t);
  return reads && n_images(cur) == 1;
}

double tile_handover(const MachProg *mp, int i) {
  if (!reads_prev(mp, i)) return 0;
  const MachOp *prev = &mp->ops[i - 1], *cur = &mp->ops[i];
  if (tile_m_count(prev, &prev->plan) > 1 && tile_m_count(cur, &cur->plan) > 1) return 0;
  return prev->plan.est_end + cur->plan.est_start - cur->plan.est_head;
}

// What the choice of plan p for op i makes the run wait beyond p's own estimate, for ranking
// the candidates (tile_plan_all plans the ops in order, so op i-1's plan is known): a single M
// tile per image needs the whole output of the op before (when it reads it and that op's plan
// has several tiles), and makes the op after wait for its whole output (when that one reads it).
static double handover_rank(const MachProg *mp, int i, const TilePlan *p) {
  if (!mp) return 0;
  const MachOp *op = &mp->ops[i];
  if (tile_m_count(op, p) > 1) return 0;
  double r = 0, lat = mp->arch->dram_latency;
  if (reads_prev(mp, i) && tile_m_count(&mp->ops[i - 1], &mp->ops[i - 1].plan) > 1)
    r += mp->ops[i - 1].plan.est_end + lat;
  if (reads_prev(mp, i + 1)) r += p->est_end + lat;
  return r;
}

static int better(const TilePlan *x, const TilePlan *y) {
  // Within 0.5% the plan that moves fewer DRAM bytes wins (DRAM is most of the energy: compute-
  // bound layers have many plans of the same cycles, ResNet-18's layer2_0_conv2 one reading 2.4
  // MB and one 3.9 MB), then, within 1% of bytes, the one with fewer instructions (faster to
  // compile and to simulate).
  double cx = x->est_rank, cy = y->est_rank;
  if (fabs(cx - cy) > 0.005 * fmin(cx, cy)) return cx < cy;
  double bx = x->est_read_bytes + x->est_write_bytes, by = y->est_read_bytes + y->est_write_bytes;
  if (fabs(bx - by) > 0.01 * fmin(bx, by)) return bx < by;
  // (then the fewer global-buffer bytes: cheaper than DRAM's, not free; 0 for both without fusion)
  double gx = x->est_gbuf_bytes, gy = y->est_gbuf_bytes;
  if (fabs(gx - gy) > 0.01 * fmin(gx, gy)) return gx < gy;
  if (x->est_insns != y->est_insns) return x->est_insns < y->est_insns;
  return bx < by;
}

// Enumerates candidate plans into best[0..keep-1] (sorted, best first). Returns how many.
// mp, i: the program and the op's index, for handover_rank (NULL: no neighbours).
static int search(const MachProg *mp, int i, const MachOp *op, const Arch *a, Dataflow df, const Slots *s,
                  TilePlan *best, int keep) {
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
    for (p.ring = 0; p.ring < 2; p.ring++) {
    // (a ring only where bands share conv rows: a pool window taller than its stride)
    if (p.ring && (op->kind != MOP_GEMM || df == DF_IS || s->slots < 2 || !tile_ring_overlap(op, &p, 1))) continue;
    uint32_t m_max;
    MClass cl[MAX_CLASSES];
    double stall;
    int ncl = m_classes(op, &p, a, &oc, cl, &m_max, &stall);
    if (ncl < 0) continue;
    for (int ki = 0; ki < nkc; ki++)
      for (int64_t g = 1; g <= (op->kind == MOP_GEMM ? nN : 1) && g <= 64; g++) {
        p.kc = op->kind == MOP_GEMM ? kcs[ki] : 1;
        p.g = (uint32_t)g;
        if (op->kind != MOP_GEMM && ki) continue;
        if (estimate(op, a, df, s, &oc, cl, ncl, m_max, stall, !mp || (i + 1 < mp->n_ops && !reads_prev(mp, i + 1)), &p))
          continue;
        p.est_rank = p.est_cycles + handover_rank(mp, i, &p);
        int at = n < keep ? n : keep;
        while (at > 0 && better(&p, &best[at - 1])) at--;
        if (at >= keep) continue;
        memmove(best + at + 1, best + at, (size_t)((n < keep ? n : keep - 1) - at) * sizeof *best);
        best[at] = p;
        if (n < keep) n++;
      }
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
  MClass cl[MAX_CLASSES];
  double stall;
  int ncl = m_classes(op, p, a, &oc, cl, &m_max, &stall);
  if (ncl < 0) return -1;
  p->slots = s.slots;
  return estimate(op, a, df, &s, &oc, cl, ncl, m_max, stall, 1, p);
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
    int found = search(mp, i, op, mp->arch, op->df, &s, best, 1);
    if (found) best[0].slots = s.slots;
    else if (s.slots > 1 && (found = search(mp, i, op, mp->arch, op->df, &one, best, 1)))
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
  if (p->ring) fprintf(f, " ring");
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
    int n = search(mp, i, op, mp->arch, op->df, &os, best, 4);
    for (int k = 0; k < n; k++) {
      best[k].slots = op->plan.slots;
      if (memcmp(&best[k], &op->plan, sizeof op->plan)) dump_plan(op, &best[k], "next  ", f);
    }
  }
}
