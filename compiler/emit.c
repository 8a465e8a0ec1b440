// emit.c: instruction emission (emit.h).
//
// Each op is a sequence of steps. A GEMM step is one (M tile, N group, K chunk): it loads the
// chunk's im2col rows into a SPAD slot (unless they are still there from the previous N group),
// the weight rows of its N tiles into a WBUF slot, the parameters at the first chunk, then runs a
// PRELOAD + COMPUTE pair per (N tile, K tile) (output-stationary: a COMPUTE_OS per N tile and
// R-row block over the whole chunk; input-stationary: the operands swapped, see below), and
// after the last chunk stores each N tile, post-processed (and max-pooled when a pool is
// fused). An element-wise step is one (M tile, channel tile): LOADs into an ACC slot (scaled;
// the second input of an add accumulates), for the special-function ops one instruction of
// the unit on those rows (lower_sfu.c: a softmax or layernorm step holds every channel tile of
// its rows), and a post-processed STORE. Slots rotate through the
// buffer halves; with two halves the loads of step i+1 are issued (in program order) before
// the computes of step i, so the load unit runs a step ahead and the store unit a step behind:
// double buffering. With one half every step waits for the previous one. Tokens between the
// units come from the declared accesses (sched.c).
#include "emit.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const MachProg *mp;
  const Arch *a;
  const Slots *sl;                  // the current op's buffer slots
  Program *p;
  Sched *s;
  Diag *d;
  int oom;                          // out of memory, or an instruction refused (message in d)
  uint32_t next[4];                 // slot rotation: spad, wbuf, acc, param
  // configuration registers as the units will hold them
  int64_t ld[5];                    // CFG_LOAD: stride_outer, stride_inner, seg_stride, mult, shift
  int64_t st[7];                    // CFG_STORE: act, params, prow, lo, hi, stride_outer, stride_inner
  int64_t pl[9];                    // CFG_POOL: pool, kh, kw, sh, sw, pad_t, pad_l, in_h, in_w
  int64_t sf[3];                    // CFG_SFU: mult, shift, eps
  // the current op's step state
  uint32_t a_slot, p_slot, acc_slot;
  uint32_t ring_a[2], ring_w[2], ring_p[2];
  RingWin *ringw;                   // a ring plan's windows (tile_ring), M tile by M tile; or NULL
  uint64_t ring_nN;                 // (its N tiles per M tile)
} Em;

static Insn mk(Opcode op) { return isa_insn(op); }

static void emit(Em *e, const Insn *in, const Access *acc, int n, const Access *dep, int nd) {
  if (e->oom) return;
  if (sched_emit(e->s, in, acc, n, dep, nd) >= 0) return;
  char where[64];   // a value the encoding cannot hold is a compiler bug: say which
  snprintf(where, sizeof where, "sacc: insn %u", e->p->n_insns);
  if (isa_check_fields(in, where, e->d) == 0) diag_error(e->d, "sacc: error: out of memory");
  e->oom = 1;
}

static uint32_t rotate(Em *e, int mem) { return e->sl->slots > 1 ? e->next[mem]++ % 2 : 0; }

static void cfg_load(Em *e, int64_t so, int64_t si, int64_t ss, int64_t mult, int64_t shift) {
  int64_t v[5] = {so, si, ss < 0 ? e->ld[2] : ss, mult, shift};  // ss < 0: keep it
  if (!memcmp(v, e->ld, sizeof v)) return;
  memcpy(e->ld, v, sizeof v);
  Insn in = mk(OP_CFG_LOAD);
  in.f[FLD_STRIDE_OUTER] = v[0], in.f[FLD_STRIDE_INNER] = v[1], in.f[FLD_SEG_STRIDE] = v[2];
  in.f[FLD_MULT] = v[3], in.f[FLD_SHIFT] = v[4];
  emit(e, &in, NULL, 0, NULL, 0);
}

static void cfg_store(Em *e, const MachOp *op, int64_t prow) {
  int params = lower_sfu_store_params(op);   // 0: softmax and layernorm results are int8 already
  int64_t v[7] = {op->act, params, params ? prow : 0, op->act == ACT_CLAMP ? op->lo : 0, op->act == ACT_CLAMP ? op->hi : 0,
                  op->out.row_stride, op->out.pix_stride};
  if (!memcmp(v, e->st, sizeof v)) return;
  memcpy(e->st, v, sizeof v);
  Insn in = mk(OP_CFG_STORE);
  in.f[FLD_ACT] = v[0], in.f[FLD_PARAMS] = v[1], in.f[FLD_PROW] = v[2], in.f[FLD_CLAMP_LO] = v[3];
  in.f[FLD_CLAMP_HI] = v[4], in.f[FLD_STRIDE_OUTER] = v[5], in.f[FLD_STRIDE_INNER] = v[6];
  emit(e, &in, NULL, 0, NULL, 0);
}

static void cfg_pool(Em *e, const MachOp *op, const MTile *t) {
  int64_t v[9] = {POOL_NONE, 1, 1, 1, 1, 0, 0, 1, 1};
  if (op->pool != POOL_NONE) {
    int64_t pad_t = t->iy0 - (t->y0 * op->psh - op->ppt);
    int64_t w[9] = {op->pool, op->pkh, op->pkw, op->psh, op->psw, pad_t, op->ppl, t->irows, op->ow};
    memcpy(v, w, sizeof v);
  } else if (e->pl[0] == POOL_NONE) {
    return;   // the other pooling registers do not matter
  }
  if (!memcmp(v, e->pl, sizeof v)) return;
  memcpy(e->pl, v, sizeof v);
  Insn in = mk(OP_CFG_POOL);
  in.f[FLD_POOL] = v[0], in.f[FLD_KH] = v[1], in.f[FLD_KW] = v[2], in.f[FLD_SH] = v[3], in.f[FLD_SW] = v[4];
  in.f[FLD_PAD_T] = v[5], in.f[FLD_PAD_L] = v[6], in.f[FLD_IN_H] = v[7], in.f[FLD_IN_W] = v[8];
  emit(e, &in, NULL, 0, NULL, 0);
}

static Access on_chip(int mem, uint64_t lo, uint64_t n, int write) {
  Access a = {mem, lo, lo + n, write};
  return a;
}

// The DRAM bytes a LOAD or STORE nest can touch: [addr, addr + span).
static Access dram(int64_t addr, int64_t outer, int64_t so, int64_t inner, int64_t si, int64_t tail, int write) {
  Access a = {SMEM_DRAM, (uint64_t)addr, (uint64_t)(addr + (outer - 1) * so + (inner - 1) * si + tail), write};
  return a;
}

// Whether the tensor a view reads or writes lives in the global buffer (memplan_fuse).
static int view_gbuf(const MachProg *mp, const TView *v) { return mp->tensors[dt_owner(mp, v->t)].gbuf; }

// A LOAD or STORE of view v: in the global buffer (GBUF=1, the access in its bytes) or in DRAM.
static void mem_of(const MachProg *mp, const TView *v, Insn *in, Access *acc) {
  if (!view_gbuf(mp, v)) return;
  in->f[FLD_GBUF] = 1;
  acc->mem = SMEM_GBUF;
}

static int64_t at(const MachProg *mp, const TView *v, int64_t img, int64_t y, int64_t x) {
  return (int64_t)mp->tensors[v->t].addr + img * v->img_stride + y * v->row_stride + x * v->pix_stride + v->c_off + v->byte_off;
}

static Insn load(int64_t mem, int64_t dst, int64_t addr, int64_t outer, int64_t inner, int64_t nseg, int64_t seglen) {
  Insn in = mk(OP_LOAD);
  in.f[FLD_MEM] = mem, in.f[FLD_DST] = dst, in.f[FLD_DRAM_ADDR] = addr;
  in.f[FLD_OUTER] = outer, in.f[FLD_INNER] = inner, in.f[FLD_NSEG] = nseg, in.f[FLD_SEGLEN] = seglen;
  return in;
}

// Parameter rows of N tiles j0 .. j0+n-1 into PARAM rows from base.
static void load_params_at(Em *e, const MachOp *op, int64_t j0, int64_t n, uint32_t base) {
  uint32_t C = e->a->cols;
  e->p_slot = base;
  cfg_load(e, 4 * C, 0, -1, e->ld[3], e->ld[4]);
  Insn in = load(MEM_PARAM, e->p_slot, (int64_t)op->p_addr + j0 * 12 * C, 3 * n, 1, 1, 4 * C);
  Access acc = on_chip(SMEM_PARAM, e->p_slot, (uint64_t)(3 * n), 1);
  emit(e, &in, &acc, 1, NULL, 0);
}

// ... into a fresh PARAM slot.
static void load_params(Em *e, const MachOp *op, int64_t j0, int64_t n) {
  load_params_at(e, op, j0, n, rotate(e, 3) * e->sl->param);
}

static void store_tile(Em *e, const MachOp *op, const MTile *t, int64_t j, uint32_t src, uint32_t prow) {
  uint32_t C = e->a->cols;
  int64_t cols = op->N - j * C < C ? op->N - j * C : C;
  cfg_store(e, op, prow);
  cfg_pool(e, op, t);
  Insn in = mk(OP_STORE);
  int64_t addr = at(e->mp, &op->out, t->img, t->y0, t->x0) + j * C;
  in.f[FLD_SRC] = src, in.f[FLD_DRAM_ADDR] = addr;
  in.f[FLD_OUTER] = t->rows, in.f[FLD_INNER] = t->cols, in.f[FLD_COLS] = cols;
  Access acc[3] = {on_chip(SMEM_ACC, src, t->acc_rows, 0),
                   dram(addr, t->rows, op->out.row_stride, t->cols, op->out.pix_stride, cols, 1),
                   on_chip(SMEM_PARAM, prow, 3, 0)};
  mem_of(e->mp, &op->out, &in, &acc[1]);
  emit(e, &in, acc, lower_sfu_store_params(op) ? 3 : 2, NULL, 0);
}

// ---- GEMM ------------------------------------------------------------------------------------

typedef struct {
  uint64_t nm;
  int64_t nN, nNG, nKC;
  uint32_t g, kc;
} GemmShape;

static GemmShape gemm_shape(const MachOp *op, uint32_t C) {
  GemmShape s;
  s.nm = tile_m_count(op, &op->plan);
  s.nN = (op->N + C - 1) / C;
  s.g = op->plan.g, s.kc = op->plan.kc;
  s.nNG = (s.nN + s.g - 1) / s.g;
  s.nKC = (op->n_ktiles + s.kc - 1) / s.kc;
  return s;
}

typedef struct {
  MTile t;
  uint64_t m;                      // the M tile's index
  int64_t ng, kci, j0, gn;         // N group, K chunk, its first N tile and N tile count
  uint32_t k0, nk;                 // K tiles k0 .. k0+nk-1
  uint32_t kb0, krows;             // their weight rows kb0 .. kb0+krows-1
} GemmStep;

static GemmStep gemm_step(const MachOp *op, const GemmShape *s, uint64_t i) {
  GemmStep st;
  st.kci = (int64_t)(i % (uint64_t)s->nKC);
  st.ng = (int64_t)(i / (uint64_t)s->nKC % (uint64_t)s->nNG);
  st.m = i / (uint64_t)(s->nKC * s->nNG);
  st.t = tile_m_at(op, &op->plan, st.m);
  st.j0 = st.ng * s->g;
  st.gn = s->nN - st.j0 < s->g ? s->nN - st.j0 : s->g;
  st.k0 = (uint32_t)st.kci * s->kc;
  st.nk = op->n_ktiles - st.k0 < s->kc ? op->n_ktiles - st.k0 : s->kc;
  st.kb0 = op->ktiles[st.k0].kbase;
  const KTile *last = &op->ktiles[st.k0 + st.nk - 1];
  st.krows = last->kbase + last->rows - st.kb0;
  return st;
}

// The conv rows a step gathers: the M tile's, less (ring plan) the top rows that none of its N
// tiles computes. Their rows sit in SPAD acc_rows apart, K tile after K tile.
static MTile gathered(const Em *e, const MachOp *op, const GemmStep *st) {
  MTile g = st->t;
  if (!e->ringw) return g;
  uint32_t skip = tile_ring_gather_skip(e->ringw + st->m * e->ring_nN, e->ring_nN);
  g.iy0 += skip, g.irows -= skip, g.acc_rows = (uint32_t)(g.irows * op->ow);
  return g;
}

// Where N tile j of a step's M tile accumulates: ACC rows *dst .. *dst + rows - 1, from the SPAD
// rows *off after each K tile's first gathered row (a ring window below its halo, else the
// slot's N tile j).
static uint32_t acc_target(const Em *e, const MachOp *op, const GemmStep *st, int64_t jl, uint32_t gtm, uint32_t *dst,
                           uint32_t *off) {
  if (!e->ringw) {
    *dst = e->acc_slot + (uint32_t)jl * st->t.acc_rows, *off = 0;
    return st->t.acc_rows;
  }
  const RingWin *w = &e->ringw[st->m * e->ring_nN + (uint64_t)(st->j0 + jl)];
  uint32_t rows = st->t.acc_rows - w->halo * (uint32_t)op->ow;
  *dst = w->lo + w->halo * (uint32_t)op->ow, *off = gtm - rows;
  return rows;
}

// The gather of a step's im2col rows, shared by SPAD loads (WS, OS) and transposed WBUF loads
// (IS): the pixel nest rows x cols, so and si bytes apart, from base (a fused pool needs the
// whole input width of its band).
typedef struct {
  int64_t rows, cols, base, so, si;
  const TView *v;                  // the tensor it reads
} Gather;

static Gather im2col_gather(const Em *e, const MachOp *op, const MTile *t) {
  const TView *v = &op->in[0];
  int pooled = op->pool != POOL_NONE;
  Gather g;
  int64_t x0 = pooled ? 0 : t->x0;
  g.rows = pooled ? t->irows : t->rows, g.cols = pooled ? op->ow : t->cols;
  g.base = at(e->mp, v, t->img, t->iy0 * op->sh - op->pad_t, x0 * op->sw - op->pad_l);
  g.so = op->sh * v->row_stride, g.si = op->sw * v->pix_stride;
  g.v = v;
  return g;
}

// The LOAD of K tile kt's im2col rows into mem at dst (its load registers set first); *src gets
// the DRAM bytes it reads.
static Insn gather_load(Em *e, const Gather *g, const KTile *kt, int64_t mem, uint32_t dst, Access *src) {
  cfg_load(e, g->so, g->si, kt->nseg > 1 ? (int64_t)kt->seg_stride : -1, e->ld[3], e->ld[4]);
  int64_t addr = g->base + kt->off;
  *src = dram(addr, g->rows, g->so, g->cols, g->si, (int64_t)(kt->nseg - 1) * kt->seg_stride + kt->seglen, 0);
  Insn in = load(mem, dst, addr, g->rows, g->cols, kt->nseg, kt->seglen);
  mem_of(e->mp, g->v, &in, src);
  return in;
}

// matmul (MachOp.b_act): the group's weight rows kb0 .. kb0+krows-1 of its N tiles from the B
// operand in DRAM into WBUF at w, in the layout of the constants' load below. B's rows: a LOAD of
// C bytes of each row, the last N tile's (when shorter) by a LOAD of its own (the rest of its
// WBUF rows zero). B^T's rows (a folded transpose): a transposed LOAD, row n of B^T down column
// n mod C, N tile after N tile TSTRIDE = krows rows apart (columns past N keep stale values that
// no STORE reads).
static void load_b_wbuf(Em *e, const MachOp *op, const GemmStep *st, uint32_t w) {
  uint32_t C = e->a->cols;
  int64_t ks = op->b_kstride, ns = op->b_nstride;
  int64_t base = at(e->mp, &op->in[1], 0, 0, 0) + (int64_t)st->kb0 * ks + st->j0 * C * ns;
  int64_t last = op->N - (st->j0 + st->gn - 1) * C;   // channels of the group's last N tile
  int64_t nfull = last < C ? st->gn - 1 : st->gn;
  for (int part = 0; part < 2; part++) {
    int64_t tiles = part ? (last < C) : nfull, chans = part ? last : C;
    if (!tiles) continue;
    uint32_t dst = w + (uint32_t)(part ? nfull : 0) * st->krows;
    int64_t addr = base + (part ? nfull : 0) * C * ns;
    Insn in;
    Access acc[2] = {on_chip(SMEM_WBUF, dst, (uint64_t)(tiles * st->krows), 1), {0}};
    if (ns == 1) {
      cfg_load(e, C, ks, -1, e->ld[3], e->ld[4]);
      in = load(MEM_WBUF, dst, addr, tiles, st->krows, 1, chans);
      acc[1] = dram(addr, tiles, C, st->krows, ks, chans, 0);
    } else {
      cfg_load(e, C * ns, ns, -1, e->ld[3], e->ld[4]);
      in = load(MEM_WBUF, dst, addr, tiles, chans, 1, st->krows);
      in.f[FLD_TRANSPOSE] = 1, in.f[FLD_TSTRIDE] = st->krows;
      acc[1] = dram(addr, tiles, C * ns, chans, ns, st->krows, 0);
    }
    mem_of(e->mp, &op->in[1], &in, &acc[1]);
    emit(e, &in, acc, 2, NULL, 0);
  }
}

// Shared taps (tile.h): where a step's K tiles put their rows in the SPAD slot; NULL when the op
// gathers tile by tile (or out of memory: e->oom set). The caller frees it.
static TapPlace *tap_places(Em *e, const MachOp *op, const GemmStep *st) {
  if (e->ringw || !tile_taps_share(op, e->a, op->df)) return NULL;
  TapPlace *pl = malloc(st->nk * sizeof *pl);
  if (!pl) {
    if (!e->oom) diag_error(e->d, "sacc: error: out of memory");
    e->oom = 1;
    return NULL;
  }
  tile_tap_places(op, e->a, op->df, st->k0, st->nk, (uint32_t)st->t.rows, (uint32_t)st->t.cols, pl);
  return pl;
}

static void gemm_loads(Em *e, const MachOp *op, const GemmShape *s, uint64_t i) {
  GemmStep st = gemm_step(op, s, i);
  uint32_t C = e->a->cols;
  int ring = (int)(i % 2);
  // (shared taps: the parameters, which only the STOREs read, come after the step's weights and
  // gathers, so that their wait for the STOREs of the step before the last (their PARAM slot's
  // readers) holds up none of the loads the step's streams need)
  int params_last = tile_taps_share(op, e->a, op->df);
  if (st.kci == 0 && !params_last) load_params(e, op, st.j0, st.gn);
  // Weights: N tile j's rows kb0 .. kb0+krows-1, j after j, packed in a WBUF slot.
  uint32_t w = rotate(e, 1) * e->sl->wbuf;
  e->ring_w[ring] = w;
  Insn in;
  if (op->b_act) {
    load_b_wbuf(e, op, &st, w);
  } else {
    cfg_load(e, op->K * C, C, -1, e->ld[3], e->ld[4]);
    in = load(MEM_WBUF, w, (int64_t)op->w_addr + st.j0 * op->K * C + (int64_t)st.kb0 * C, st.gn, st.krows, 1, C);
    Access acc = on_chip(SMEM_WBUF, w, (uint64_t)(st.gn * st.krows), 1);
    emit(e, &in, &acc, 1, NULL, 0);
  }
  // im2col rows, unless the whole K of this M tile is still in SPAD (one chunk, later N group).
  if (!(s->nKC == 1 && st.ng > 0)) {
    e->a_slot = rotate(e, 0) * e->sl->spad;
    MTile gt = gathered(e, op, &st);
    Gather g = im2col_gather(e, op, &gt);
    TapPlace *pl = tap_places(e, op, &st);
    if (pl) {   // shared taps: a gather per leading K tile, of its image rows
      for (uint32_t k = 0; k < st.nk; k++) {
        if (!pl[k].lead) continue;
        KTile kt = op->ktiles[st.k0 + k];
        Gather gk = g;
        kt.off = pl[k].off, gk.rows = pl[k].lead;
        uint32_t dst = e->a_slot + pl[k].dst;
        Access a2[2] = {on_chip(SMEM_SPAD, dst, (uint64_t)pl[k].lead * (uint64_t)g.cols, 1), {0}};
        in = gather_load(e, &gk, &kt, MEM_SPAD, dst, &a2[1]);
        emit(e, &in, a2, 2, NULL, 0);
      }
      free(pl);
    } else {
      for (uint32_t k = 0; k < st.nk && !e->oom; k++) {
        uint32_t dst = e->a_slot + k * gt.acc_rows;
        Access a2[2] = {on_chip(SMEM_SPAD, dst, gt.acc_rows, 1), {0}};
        in = gather_load(e, &g, &op->ktiles[st.k0 + k], MEM_SPAD, dst, &a2[1]);
        emit(e, &in, a2, 2, NULL, 0);
      }
    }
  }
  if (st.kci == 0 && params_last) load_params(e, op, st.j0, st.gn);
  e->ring_p[ring] = e->p_slot;
  e->ring_a[ring] = e->a_slot;
}

static void gemm_computes(Em *e, const MachOp *op, const GemmShape *s, uint64_t i) {
  GemmStep st = gemm_step(op, s, i);
  int ring = (int)(i % 2);
  if (st.kci == 0) e->acc_slot = rotate(e, 2) * e->sl->acc;
  uint32_t gtm = gathered(e, op, &st).acc_rows;
  TapPlace *pl = tap_places(e, op, &st);
  uint32_t *order = malloc((st.nk + 1) * sizeof *order);
  if (!order) {
    if (!e->oom) diag_error(e->d, "sacc: error: out of memory");
    e->oom = 1;
  }
  // (shared taps: the K tiles gather by gather, in the order the gathers land)
  for (uint32_t h = 0, n = 0; order && h < st.nk; h++) {
    if (!pl) order[n++] = h;
    else if (pl[h].lead)
      for (uint32_t k = h; k < st.nk; k++)
        if (pl[k].dst == pl[h].dst) order[n++] = k;
  }
  for (int64_t jl = 0; jl < st.gn && !e->oom; jl++) {
    uint32_t base, off, tm = acc_target(e, op, &st, jl, gtm, &base, &off);
    for (uint32_t ki = 0; ki < st.nk; ki++) {
      uint32_t k = order[ki];
      const KTile *kt = &op->ktiles[st.k0 + k];
      uint32_t wsrc = e->ring_w[ring] + (uint32_t)jl * st.krows + (kt->kbase - st.kb0);
      Access wread = on_chip(SMEM_WBUF, wsrc, kt->rows, 0);
      Insn in = mk(OP_PRELOAD);
      in.f[FLD_SRC] = wsrc, in.f[FLD_ROWS] = kt->rows;
      emit(e, &in, NULL, 0, &wread, 1);
      in = mk(OP_COMPUTE);
      uint32_t src = e->ring_a[ring] + (pl ? pl[k].src : k * gtm) + off, dst = base;
      in.f[FLD_SRC] = src, in.f[FLD_ACC_ADDR] = dst, in.f[FLD_ROWS] = tm;
      in.f[FLD_ACCUM] = !(st.kci == 0 && ki == 0);
      Access acc[3] = {on_chip(SMEM_SPAD, src, tm, 0), wread, on_chip(SMEM_ACC, dst, tm, 1)};
      emit(e, &in, acc, 3, NULL, 0);
    }
  }
  free(order);
  free(pl);
}

// Output-stationary: one COMPUTE_OS per (N tile, R-row block of the M tile) over the chunk's K
// tiles, which sit in SPAD tm rows apart and in WBUF R rows apart (lower.c pads them to R).
static void gemm_computes_os(Em *e, const MachOp *op, const GemmShape *s, uint64_t i) {
  GemmStep st = gemm_step(op, s, i);
  uint32_t R = e->a->rows;
  int ring = (int)(i % 2);
  if (st.kci == 0) e->acc_slot = rotate(e, 2) * e->sl->acc;
  uint32_t gtm = gathered(e, op, &st).acc_rows;
  Access aread = on_chip(SMEM_SPAD, e->ring_a[ring], (uint64_t)st.nk * gtm, 0);
  for (int64_t jl = 0; jl < st.gn; jl++) {
    uint32_t base, off, tm = acc_target(e, op, &st, jl, gtm, &base, &off);
    for (uint32_t m0 = 0; m0 < tm; m0 += R) {
      uint32_t wsrc = e->ring_w[ring] + (uint32_t)jl * st.krows, dst = base + m0;
      uint32_t rows = tm - m0 < R ? tm - m0 : R;
      Insn in = mk(OP_COMPUTE_OS);
      in.f[FLD_SRC] = e->ring_a[ring] + off + m0, in.f[FLD_KSTRIDE] = gtm, in.f[FLD_WSRC] = wsrc;
      in.f[FLD_KLEN] = st.krows, in.f[FLD_ACC_ADDR] = dst, in.f[FLD_ROWS] = rows;
      in.f[FLD_ACCUM] = st.kci != 0;
      Access acc[3] = {aread, on_chip(SMEM_WBUF, wsrc, st.krows, 0), on_chip(SMEM_ACC, dst, rows, 1)};
      emit(e, &in, acc, 3, NULL, 0);
    }
  }
}

// ---- GEMM, input-stationary ------------------------------------------------------------------
//
// The weight-stationary array on the transposed problem (docs/DATAFLOWS.md). The step's im2col
// rows go down WBUF columns through transposed LOADs: pixel p of the M tile into column p mod C,
// K tile k of its block of C pixels (mb = p div C) at rows a_slot + mb*nk*R + k*R. The group's
// weights go into SPAD, one row per output channel: SPAD[w_slot + k*J + j] = K tile k of
// channel j0*C + j (the constants hold W^T). Per (block, K tile) a PRELOAD puts the block's
// pixels in a bank and a COMPUTE_IS streams the channels past them; its rotator writes pixel
// mb*C + c, channel j to ACC[acc_slot + (j div C)*tm + mb*C + c][j mod C], the layout a
// weight-stationary COMPUTE leaves, so the stores are the same.

// The channels of a step's N group: the rows each COMPUTE_IS streams. Rounding them up to a
// multiple of C (stale SPAD rows writing accumulator columns no STORE reads) would keep
// back-to-back COMPUTE_ISs aligned modulo C without waiting (TIMING.md section 6, COMPUTE_IS
// rule (d)); but the PRELOAD between two of them already costs R cycles, and the aligned start
// the shorter stream waits for is never later than the longer stream's: measured on the
// default arch, the exact count is as fast or faster (LeNet-5 16,322 cycles against 16,418;
// MobileNetV2, ResNet-18, AlexNet 8 to 24 cycles less) and spends no MACs on the padding.
static uint32_t is_stream_rows(const MachOp *op, const GemmStep *st, uint32_t C) {
  int64_t left = op->N - st->j0 * C;
  return (uint32_t)(left < st->gn * C ? left : st->gn * C);
}

static void gemm_loads_is(Em *e, const MachOp *op, const GemmShape *s, uint64_t i) {
  GemmStep st = gemm_step(op, s, i);
  uint32_t R = e->a->rows, C = e->a->cols;
  int ring = (int)(i % 2);
  if (st.kci == 0) load_params(e, op, st.j0, st.gn);
  e->ring_p[ring] = e->p_slot;
  // W^T: per K tile, its rows of each of the group's channels, one SPAD row per channel.
  uint32_t J = is_stream_rows(op, &st, C);
  uint32_t w = rotate(e, 0) * e->sl->spad;
  e->ring_w[ring] = w;
  if (!op->b_act) cfg_load(e, op->K, 0, -1, e->ld[3], e->ld[4]);
  for (uint32_t k = 0; k < st.nk; k++) {
    const KTile *kt = &op->ktiles[st.k0 + k];
    uint32_t dst = w + k * J;
    int64_t addr = (int64_t)op->w_addr + st.j0 * C * op->K + kt->kbase;
    Insn in = load(MEM_SPAD, dst, addr, J, 1, 1, kt->rows);
    Access a2[2] = {on_chip(SMEM_SPAD, dst, (uint64_t)J, 1), dram(addr, J, op->K, 1, 0, kt->rows, 0)};
    if (op->b_act) {   // matmul: column n of B from DRAM, K tile kt of it
      int64_t ks = op->b_kstride, ns = op->b_nstride;
      addr = at(e->mp, &op->in[1], 0, 0, 0) + st.j0 * C * ns + (int64_t)kt->kbase * ks;
      if (ks == 1) {   // B^T's rows (a folded transpose): contiguous
        cfg_load(e, ns, 0, -1, e->ld[3], e->ld[4]);
        in = load(MEM_SPAD, dst, addr, J, 1, 1, kt->rows);
        a2[1] = dram(addr, J, ns, 1, 0, kt->rows, 0);
      } else {         // B's rows: a gather of one byte per K row
        cfg_load(e, ns, 0, ks, e->ld[3], e->ld[4]);
        in = load(MEM_SPAD, dst, addr, J, 1, kt->rows, 1);
        a2[1] = dram(addr, J, ns, 1, 0, (int64_t)(kt->rows - 1) * ks + 1, 0);
      }
      mem_of(e->mp, &op->in[1], &in, &a2[1]);
    }
    emit(e, &in, a2, 2, NULL, 0);
  }
  // A^T, unless the whole K of this M tile is still in WBUF (one chunk, later N group).
  if (!(s->nKC == 1 && st.ng > 0)) {
    e->a_slot = rotate(e, 1) * e->sl->wbuf;
    Gather g = im2col_gather(e, op, &st.t);
    uint32_t nmb = (st.t.acc_rows + C - 1) / C, tstride = st.nk * R;
    Access *acc = malloc(((size_t)nmb + 1) * sizeof *acc);
    if (!acc) {
      e->oom = 1;
      diag_error(e->d, "sacc: error: out of memory");
      return;
    }
    for (uint32_t k = 0; k < st.nk; k++) {
      const KTile *kt = &op->ktiles[st.k0 + k];
      uint32_t dst = e->a_slot + k * R;
      Insn in = gather_load(e, &g, kt, MEM_WBUF, dst, &acc[nmb]);
      in.f[FLD_TRANSPOSE] = 1, in.f[FLD_TSTRIDE] = tstride;
      for (uint32_t mb = 0; mb < nmb; mb++) acc[mb] = on_chip(SMEM_WBUF, dst + mb * tstride, kt->rows, 1);
      emit(e, &in, acc, (int)nmb + 1, NULL, 0);
    }
    free(acc);
  }
  e->ring_a[ring] = e->a_slot;
}

static void gemm_computes_is(Em *e, const MachOp *op, const GemmShape *s, uint64_t i) {
  GemmStep st = gemm_step(op, s, i);
  uint32_t R = e->a->rows, C = e->a->cols;
  int ring = (int)(i % 2);
  if (st.kci == 0) e->acc_slot = rotate(e, 2) * e->sl->acc;
  uint32_t tm = st.t.acc_rows, J = is_stream_rows(op, &st, C), nmb = (tm + C - 1) / C;
  uint32_t blocks = (J + C - 1) / C;   // N tiles the stream covers, each a run of accumulator rows
  Access *acc = malloc(((size_t)blocks + 2) * sizeof *acc);
  if (!acc) {
    e->oom = 1;
    diag_error(e->d, "sacc: error: out of memory");
    return;
  }
  for (uint32_t mb = 0; mb < nmb; mb++) {
    uint32_t cols = tm - mb * C < C ? tm - mb * C : C;
    for (uint32_t k = 0; k < st.nk; k++) {
      const KTile *kt = &op->ktiles[st.k0 + k];
      uint32_t wsrc = e->ring_a[ring] + (mb * st.nk + k) * R;
      Access wread = on_chip(SMEM_WBUF, wsrc, kt->rows, 0);
      Insn in = mk(OP_PRELOAD);
      in.f[FLD_SRC] = wsrc, in.f[FLD_ROWS] = kt->rows;
      emit(e, &in, NULL, 0, &wread, 1);
      in = mk(OP_COMPUTE_IS);
      uint32_t src = e->ring_w[ring] + k * J, dst = e->acc_slot + mb * C;
      in.f[FLD_SRC] = src, in.f[FLD_ACC_ADDR] = dst, in.f[FLD_ROWS] = J;
      in.f[FLD_ASTRIDE] = tm, in.f[FLD_COLS] = cols;
      in.f[FLD_ACCUM] = !(st.kci == 0 && k == 0);
      acc[0] = on_chip(SMEM_SPAD, src, J, 0), acc[1] = wread;
      for (uint32_t b = 0; b < blocks; b++) acc[2 + b] = on_chip(SMEM_ACC, dst + b * tm, cols, 1);
      emit(e, &in, acc, (int)blocks + 2, NULL, 0);
    }
  }
  free(acc);
}

static void gemm_stores(Em *e, const MachOp *op, const GemmShape *s, uint64_t i) {
  GemmStep st = gemm_step(op, s, i);
  if (st.kci != s->nKC - 1) return;
  int ring = (int)(i % 2);
  for (int64_t jl = 0; jl < st.gn; jl++) {
    uint32_t src = e->ringw ? e->ringw[st.m * e->ring_nN + (uint64_t)(st.j0 + jl)].lo
                            : e->acc_slot + (uint32_t)jl * st.t.acc_rows;
    store_tile(e, op, &st.t, st.j0 + jl, src, e->ring_p[ring] + 3 * (uint32_t)jl);
  }
}

// ---- element-wise ----------------------------------------------------------------------------

// A step's LOADs into its ACC slot: the first input (scaled), then the second (add: accumulated
// into the same rows; SFU_EW: into the rows after them, one row when broadcast). A softmax or
// layernorm step loads every segment of its rows (channel tiles j.., t.acc_rows rows apart).
static void elt_loads(Em *e, const MachOp *op, int64_t nN, uint64_t i) {
  uint32_t C = e->a->cols;
  int64_t j = (int64_t)(i % (uint64_t)nN), segs = lower_sfu_segments(op, C);
  MTile t = tile_m_at(op, &op->plan, i / (uint64_t)nN);
  int ring = (int)(i % 2);
  uint32_t prows = lower_sfu_param_rows(op, C);
  if (prows && lower_sfu_params_once(op)) {   // the same rows for every step: loaded once, into
    // the next slot when they fit one (not waiting for the previous op's readers), else from row 0
    if (i == 0) load_params_at(e, op, j, prows / 3, prows <= e->sl->param ? rotate(e, 3) * e->sl->param : 0);
  } else if (prows) {
    load_params(e, op, j, prows / 3);
  }
  e->ring_p[ring] = e->p_slot;
  uint32_t dst = rotate(e, 2) * e->sl->acc;
  e->ring_a[ring] = dst;
  int pooled = op->pool != POOL_NONE;
  int64_t cols = pooled ? op->ow : t.cols, x0 = pooled ? 0 : t.x0;
  if (op->fold_w) {   // a folded global pool: pixel (y, x) accumulates into row (y mod FH)*FW + x mod FW
    const TView *v = &op->in[0];
    int64_t fh = op->oh, fw = op->fold_w, seg = op->N - j * C < C ? op->N - j * C : C;
    cfg_load(e, v->row_stride, v->pix_stride, -1, op->in_mult[0], op->in_shift[0]);
    for (int64_t y = 0; y < v->h; y++)
      for (int64_t xa = 0; xa < v->w; xa += fw) {
        int64_t n = v->w - xa < fw ? v->w - xa : fw, addr = at(e->mp, v, t.img, y, xa) + j * C;
        uint32_t d = dst + (uint32_t)((y % fh) * fw);
        Insn in = load(MEM_ACC, d, addr, 1, n, 1, seg);
        in.f[FLD_ACCUM] = y >= fh || xa > 0;
        Access acc[2] = {on_chip(SMEM_ACC, d, (uint64_t)n, 1), dram(addr, 1, 0, n, v->pix_stride, seg, 0)};
        mem_of(e->mp, v, &in, &acc[1]);
        emit(e, &in, acc, 2, NULL, 0);
      }
    return;
  }
  for (int k = 0; k < op->n_in; k++) {
    const TView *v = &op->in[k];
    int64_t cs = v->c_stride > 1 ? v->c_stride : 1;   // > 1: a transpose's gather, a byte per channel
    cfg_load(e, v->row_stride, v->pix_stride, cs > 1 ? cs : -1, op->in_mult[k], op->in_shift[k]);
    int second = k > 0 && op->sfu == SFUK_EW;
    for (int64_t s = 0; s < segs; s++) {
      int64_t jj = j + s, seg = op->N - jj * C < C ? op->N - jj * C : C;
      uint32_t d = dst + (uint32_t)s * t.acc_rows + (second ? t.acc_rows : 0);
      int64_t rows = t.irows, pix = cols, img = t.img, y0 = t.iy0, xs = x0;
      if (second && op->bcast) rows = pix = 1, img = v->n == 1 ? 0 : t.img, y0 = xs = 0;
      int64_t addr = at(e->mp, v, img, y0, xs) + jj * C * cs;
      Insn in = cs > 1 ? load(MEM_ACC, d, addr, rows, pix, seg, 1) : load(MEM_ACC, d, addr, rows, pix, 1, seg);
      in.f[FLD_ACCUM] = k > 0 && !second;
      Access acc[2] = {on_chip(SMEM_ACC, d, second && op->bcast ? 1 : t.acc_rows, 1),
                       dram(addr, rows, v->row_stride, pix, v->pix_stride, (seg - 1) * cs + 1, 0)};
      mem_of(e->mp, v, &in, &acc[1]);
      emit(e, &in, acc, 2, NULL, 0);
    }
  }
}

static void cfg_sfu(Em *e, int64_t mult, int64_t shift, int64_t eps) {
  int64_t v[3] = {mult, shift, eps};
  if (!memcmp(v, e->sf, sizeof v)) return;
  memcpy(e->sf, v, sizeof v);
  Insn in = mk(OP_CFG_SFU);
  in.f[FLD_MULT] = v[0], in.f[FLD_SHIFT] = v[1], in.f[FLD_EPS] = v[2];
  emit(e, &in, NULL, 0, NULL, 0);
}

// The special-function unit's instruction of a step (lower_sfu.c), in place on the step's ACC
// rows: it reads what the LOADs wrote and the STOREs read what it wrote (tokens from sched.c).
static void elt_sfu(Em *e, const MachOp *op, int64_t nN, uint64_t i) {
  uint32_t C = e->a->cols;
  MTile t = tile_m_at(op, &op->plan, i / (uint64_t)nN);
  int ring = (int)(i % 2);
  uint32_t src = e->ring_a[ring], rows = t.acc_rows;
  uint64_t span = lower_sfu_acc_rows(op, rows, C), written = span;
  Insn in = mk(OP_SFU_MAP);
  Access acc[3];
  int n = 0;
  switch (op->sfu) {
  case SFUK_NONE: return;
  case SFUK_MAP:
    cfg_sfu(e, op->sfu_mult, op->sfu_shift, e->sf[2]);
    in.f[FLD_FN] = op->sfu_fn;
    break;
  case SFUK_EW:
    in = mk(OP_SFU_EW);
    in.f[FLD_EWOP] = op->sfu_fn, in.f[FLD_BCAST] = op->bcast, in.f[FLD_SRC2] = src + rows;
    written = rows;
    break;
  case SFUK_SOFTMAX:
    in = mk(OP_SFU_SOFTMAX);
    in.f[FLD_LEN] = op->N, in.f[FLD_SSTRIDE] = rows;
    in.f[FLD_SM_MULT] = op->sfu_mult, in.f[FLD_SM_SHIFT] = op->sfu_shift, in.f[FLD_SM_J] = op->sm_j;
    break;
  case SFUK_LAYERNORM:
    cfg_sfu(e, e->sf[0], e->sf[1], (int64_t)op->eps);
    in = mk(OP_SFU_LAYERNORM);
    in.f[FLD_LEN] = op->N, in.f[FLD_SSTRIDE] = rows, in.f[FLD_PBASE] = e->ring_p[ring];
    acc[n++] = on_chip(SMEM_PARAM, e->ring_p[ring], lower_sfu_param_rows(op, C), 0);
    break;
  }
  in.f[FLD_SRC] = src, in.f[FLD_ACC_ADDR] = src, in.f[FLD_ROWS] = rows;
  acc[n++] = on_chip(SMEM_ACC, src, span, 0);
  acc[n++] = on_chip(SMEM_ACC, src, written, 1);
  emit(e, &in, acc, n, NULL, 0);
}

static void elt_stores(Em *e, const MachOp *op, int64_t nN, uint64_t i) {
  uint32_t C = e->a->cols;
  int64_t j = (int64_t)(i % (uint64_t)nN);
  MTile t = tile_m_at(op, &op->plan, i / (uint64_t)nN);
  int ring = (int)(i % 2);
  for (int64_t s = 0; s < lower_sfu_segments(op, C); s++)
    store_tile(e, op, &t, j + s, e->ring_a[ring] + (uint32_t)s * t.acc_rows, e->ring_p[ring]);
}

// ---- zero halos in the global buffer ------------------------------------------------------------
//
// A tensor in the GBUF whose bytes an earlier tensor wrote (memplan_fuse, DTensor.gbuf_zero) gets
// its halo zeroed before its first writer runs: accumulator rows of zeros (a LOAD of the DRAM
// zero block, INNER rows with STRIDE_INNER 0, each row's tail zero-filled) stored without
// post-processing over the halo. Per image the halo is three runs of bytes: the top rows and the
// first row's left columns, then for each row its right columns and the next row's left ones
// (a nest, a row apart), then the last row's right columns and the bottom rows; a run goes out
// as pieces of gcd(bytes, C) bytes.

static int64_t gcd_i64(int64_t x, int64_t y) {
  while (y) {
    int64_t t = x % y;
    x = y, y = t;
  }
  return x;
}

static void zero_nest(Em *e, int64_t addr, int64_t outer, int64_t so, int64_t bytes, uint32_t z) {
  if (bytes <= 0 || outer <= 0) return;
  int64_t piece = gcd_i64(bytes, e->a->cols), n = bytes / piece;
  int64_t omax = isa_field_max(FLD_OUTER), imax = isa_field_max(FLD_INNER);
  int64_t ichunk = n < z ? n : z;
  if (ichunk > imax) ichunk = imax;
  int64_t v[7] = {ACT_NONE, 0, 0, 0, 0, so, piece};
  if (memcmp(v, e->st, sizeof v)) {
    memcpy(e->st, v, sizeof v);
    Insn in = mk(OP_CFG_STORE);
    in.f[FLD_ACT] = v[0], in.f[FLD_PARAMS] = v[1], in.f[FLD_PROW] = v[2], in.f[FLD_CLAMP_LO] = v[3];
    in.f[FLD_CLAMP_HI] = v[4], in.f[FLD_STRIDE_OUTER] = v[5], in.f[FLD_STRIDE_INNER] = v[6];
    emit(e, &in, NULL, 0, NULL, 0);
  }
  for (int64_t i0 = 0; i0 < n; i0 += ichunk) {
    int64_t ni = n - i0 < ichunk ? n - i0 : ichunk, oc = z / ni;
    if (oc > omax) oc = omax;
    for (int64_t o0 = 0; o0 < outer; o0 += oc) {
      int64_t no = outer - o0 < oc ? outer - o0 : oc, at = addr + o0 * so + i0 * piece;
      Insn in = mk(OP_STORE);
      in.f[FLD_SRC] = 0, in.f[FLD_DRAM_ADDR] = at, in.f[FLD_GBUF] = 1;
      in.f[FLD_OUTER] = no, in.f[FLD_INNER] = ni, in.f[FLD_COLS] = piece;
      Access acc[2] = {on_chip(SMEM_ACC, 0, (uint64_t)(no * ni), 0), dram(at, no, so, ni, piece, piece, 1)};
      acc[1].mem = SMEM_GBUF;
      emit(e, &in, acc, 2, NULL, 0);
    }
  }
}

static void zero_halo(Em *e, const DTensor *t) {
  uint32_t z = e->a->acc_rows < 256 ? e->a->acc_rows : 256;   // zero accumulator rows 0 .. z-1
  if ((int64_t)z > isa_field_max(FLD_INNER)) z = (uint32_t)isa_field_max(FLD_INNER);
  cfg_load(e, 0, 0, -1, e->ld[3], e->ld[4]);
  Insn in = load(MEM_ACC, 0, (int64_t)e->mp->zero_addr, 1, z, 1, 1);
  Access acc[2] = {on_chip(SMEM_ACC, 0, z, 1), dram((int64_t)e->mp->zero_addr, 1, 0, 1, 0, 1, 0)};
  emit(e, &in, acc, 2, NULL, 0);
  if (e->pl[0] != POOL_NONE) {   // no pooling
    int64_t v[9] = {POOL_NONE, 1, 1, 1, 1, 0, 0, 1, 1};
    memcpy(e->pl, v, sizeof v);
    Insn p = mk(OP_CFG_POOL);
    p.f[FLD_POOL] = v[0], p.f[FLD_KH] = v[1], p.f[FLD_KW] = v[2], p.f[FLD_SH] = v[3], p.f[FLD_SW] = v[4];
    p.f[FLD_PAD_T] = v[5], p.f[FLD_PAD_L] = v[6], p.f[FLD_IN_H] = v[7], p.f[FLD_IN_W] = v[8];
    emit(e, &p, NULL, 0, NULL, 0);
  }
  int64_t row = dt_row_stride(t), c = t->c;
  for (int64_t img = 0; img < t->n; img++) {
    int64_t base = (int64_t)t->base + img * dt_img_stride(t), first = (int64_t)t->addr + img * dt_img_stride(t);
    zero_nest(e, base, 1, 0, t->halo_t * row + t->halo_l * c, z);
    zero_nest(e, first + t->w * c, t->h - 1, row, (t->halo_r + t->halo_l) * c, z);
    zero_nest(e, first + (t->h - 1) * row + t->w * c, 1, 0, t->halo_r * c + t->halo_b * row, z);
  }
}

// ---- the program -----------------------------------------------------------------------------

static void emit_op(Em *e, const MachOp *op) {
  uint32_t C = e->a->cols;
  Slots sl;
  tile_slots(e->a, op->plan.slots > 1, &sl);
  e->sl = &sl;
  int ahead = sl.slots > 1;
  switch (op->kind) {
  case MOP_GEMM: {
    GemmShape s = gemm_shape(op, C);
    uint64_t n = s.nm * (uint64_t)(s.nNG * s.nKC);
    void (*loads)(Em *, const MachOp *, const GemmShape *, uint64_t) = gemm_loads;
    void (*computes)(Em *, const MachOp *, const GemmShape *, uint64_t) = gemm_computes;
    switch (op->df) {
    case DF_WS: break;
    case DF_OS: computes = gemm_computes_os; break;
    case DF_IS: loads = gemm_loads_is, computes = gemm_computes_is; break;
    }
    if (op->plan.ring) {   // the accumulator ring's windows (tile.h tile_ring)
      e->ring_nN = (uint64_t)s.nN;
      e->ringw = malloc(s.nm * e->ring_nN * sizeof *e->ringw);
      if (!e->ringw || tile_ring(op, &op->plan, e->a, e->ringw)) {
        free(e->ringw), e->ringw = NULL;
        e->oom = 1;
        diag_error(e->d, "sacc: op %s: error: out of memory, or its accumulator ring does not fit", op->what);
        break;
      }
    }
    loads(e, op, &s, 0);
    for (uint64_t i = 0; i < n && !e->oom; i++) {
      if (ahead && i + 1 < n) loads(e, op, &s, i + 1);
      computes(e, op, &s, i);
      gemm_stores(e, op, &s, i);
      if (!ahead && i + 1 < n) loads(e, op, &s, i + 1);
    }
    free(e->ringw), e->ringw = NULL;
    break;
  }
  case MOP_ELT: {
    int64_t nN = lower_sfu_channel_steps(op, C);
    uint64_t n = tile_m_count(op, &op->plan) * (uint64_t)nN;
    elt_loads(e, op, nN, 0);
    for (uint64_t i = 0; i < n && !e->oom; i++) {
      if (ahead && i + 1 < n) elt_loads(e, op, nN, i + 1);
      elt_sfu(e, op, nN, i);
      elt_stores(e, op, nN, i);
      if (!ahead && i + 1 < n) elt_loads(e, op, nN, i + 1);
    }
    break;
  }
  }
}

// One emission of the whole program into p (from instruction 0), with the scheduler's late
// pushes on or off.
static int emit_pass(const MachProg *mp, Program *p, int late_push, EmitStats *st, Diag *d) {
  Em e;
  memset(&e, 0, sizeof e);
  e.mp = mp, e.a = mp->arch, e.p = p, e.d = d;
  p->n_insns = 0;
  // The register caches start as the machine does: every register 0 (docs/ISA.md section 1).
  e.s = sched_new(p);
  if (!e.s) return diag_error(d, "sacc: error: out of memory");
  sched_set_late_push(e.s, late_push);
  sched_set_overlap(e.s, !mp->no_preload_overlap);
  int layer = -1;
  for (int o = 0; o < mp->n_ops && !e.oom; o++) {
    const MachOp *op = &mp->ops[o];
    if (op->layer != layer) {
      layer = op->layer;
      Insn in = mk(OP_LAYER);
      in.f[FLD_LAYER_ID] = layer;
      emit(&e, &in, NULL, 0, NULL, 0);
    }
    for (int i = 0; i < mp->n_tensors; i++) {
      const DTensor *t = &mp->tensors[i];
      if (t->gbuf && t->gbuf_zero && t->first_op == o) zero_halo(&e, t);
    }
    emit_op(&e, op);
  }
  Insn halt = mk(OP_HALT);
  emit(&e, &halt, NULL, 0, NULL, 0);
  if (st) {
    memset(st, 0, sizeof *st);
    for (uint32_t i = 0; i < p->n_insns; i++) {
      Unit u = isa_ops[prog_op(p, i)].unit;
      for (int k = 0; k < NUM_UNITS; k++)
        if (u == (Unit)k || u == UNIT_ALL) st->insns[k]++;
    }
    sched_token_counts(e.s, st->tokens);
  }
  sched_free(e.s);
  return e.oom ? -1 : 0;
}

int emit_program(const MachProg *mp, Program *p, EmitStats *st, Diag *d) {
  // A channel must never exceed tokens.max (docs/COMPILER.md "Token bound"): when the usual
  // placement could, the program is emitted again with late pushes; if that can still exceed it,
  // the compile fails naming the channel and the limit.
  if (emit_pass(mp, p, 0, st, d)) return -1;
  Diag quiet;
  diag_init(&quiet);
  if (!sched_check_token_bound(p, mp->arch, &quiet)) return 0;
  if (emit_pass(mp, p, 1, st, d)) return -1;
  return sched_check_token_bound(p, mp->arch, d);
}
