// randprog.c: seeded random legal programs (randprog.h). The race analysis is the product's
// (isa/racecheck.h: knowledge vectors, dominating pushers); the generator runs its incremental
// tracker as it emits, and asks it which instructions a candidate must wait for.
//
// The generator draws an instruction, computes which instructions it must wait for, and adds
// the tokens: it pops the channel's pending push when that push covers the need, or moves the
// pending push (never popped yet) to a later dominating instruction, or adds a push to the
// earliest dominating instruction that covers the need. At most one push per channel is pending
// in program order, and every pop follows its push in program order, so fetch can always make
// progress (no deadlock). An instruction whose needs cannot be met yet is dropped and another
// drawn.
#include "randprog.h"

#include <stdlib.h>
#include <string.h>

#include "../../isa/footprint.h"
#include "../../isa/racecheck.h"

#define UNIT_BIT(u) (1 << (u))
#define PAGE_BYTES 4096u
#define MAX_TRIES 64           // candidates drawn before falling back to a plain CFG_LOAD

// --- Random numbers -----------------------------------------------------------------------------

typedef struct {
  uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r) {   // splitmix64
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rng_below(Rng *r, uint64_t n) { return n ? rng_next(r) % n : 0; }        // [0, n)
static uint64_t rng_range(Rng *r, uint64_t lo, uint64_t hi) { return lo + rng_below(r, hi - lo + 1); }
static int rng_chance(Rng *r, unsigned percent) { return rng_below(r, 100) < percent; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

int randprog_check_races(const Program *p, Diag *d) {
  RcReports r = {0};
  if (prog_check(p, "randprog", d) || racecheck_run(p, &r, d)) return -1;   // racecheck_run trusts its input
  int rc = 0;
  char buf[1024];
  for (uint32_t i = 0; i < r.n && rc == 0; i++)   // the token bound is randprog_token_bound's
    if (r.r[i].kind != RC_OVERFLOW) rc = diag_error(d, "%s", racecheck_format(p, &r.r[i], "randprog", NULL, 0, buf, sizeof buf));
  if (rc == 0 && r.dropped) rc = diag_error(d, "randprog: error: %llu races", (unsigned long long)r.dropped);
  racecheck_reports_free(&r);
  return rc;
}

uint32_t randprog_token_bound(const Program *p) { return racecheck_token_bound(p); }

// --- The generator ------------------------------------------------------------------------------

typedef struct {
  Rng rng;
  Program *p;
  const Arch *a;
  RcTracker t;
  uint64_t win;              // DRAM bytes used: [0, win)
  uint64_t gwin;             // global buffer bytes used: [0, gwin) (0: no GBUF accesses)
  uint32_t lim[FP_DRAM];     // rows used of each on-chip memory
  int no_os;                 // RandProgOptions.no_compute_os
  int with_is;               // RandProgOptions.with_is
  int with_sfu;              // RandProgOptions.with_sfu
  int with_gbuf;             // RandProgOptions.with_gbuf
  Diag *d;
} Gen;

void randprog_arch(uint64_t seed, Arch *a) {
  Rng r = {seed ^ 0x5eed0a4c4ull};
  arch_default(a);
  snprintf(a->name, sizeof a->name, "rand-%llx", (unsigned long long)seed);
  a->rows = (uint32_t)rng_range(&r, 1, 8);
  a->cols = (uint32_t)rng_range(&r, 1, 8);
  a->spad_rows = (uint32_t)rng_range(&r, 1, 48);
  a->wbuf_rows = (uint32_t)rng_range(&r, 1, 24);
  a->acc_rows = (uint32_t)rng_range(&r, 1, 48);
  a->param_rows = (uint32_t)rng_range(&r, 3, 9);
  a->dram_bytes = 4096u * rng_range(&r, 1, 3);
  a->bus_bytes = 1u << rng_range(&r, 0, 4);
  a->dram_latency = (uint32_t)rng_range(&r, 1, 30);
  a->dram_inflight = (uint32_t)rng_range(&r, 1, 8);
  for (int u = 0; u < UNIT_SFU; u++) a->queue_depth[u] = (uint32_t)rng_range(&r, 1, 8);
  a->store_fifo_rows = (uint32_t)rng_range(&r, 1, 4);
  a->post_latency = (uint32_t)rng_range(&r, 1, 4);
  a->token_max = 255;
  // The SFU's parameters from a stream of their own, so that the draws above (and the programs of
  // a seed without SFU instructions) are those of the machine before the SFU.
  Rng rs = {seed ^ 0x5f0a11ull};
  a->queue_depth[UNIT_SFU] = (uint32_t)rng_range(&rs, 1, 8);
  a->sfu_lanes = (uint32_t)rng_range(&rs, 1, 9);
  a->sfu_latency = (uint32_t)rng_range(&rs, 1, 8);
}

void randprog_arch_gbuf(uint64_t seed, Arch *a) {
  Rng r = {seed ^ 0x6b0full};
  a->gbuf_bytes = 1024u * (uint32_t)rng_range(&r, 1, 8);
  a->gbuf_bus_bytes = 1u << rng_range(&r, 0, 4);
  a->gbuf_latency = (uint32_t)rng_range(&r, 1, 40);
}

static Insn blank(Opcode op) {
  Insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  return in;
}

// A stride: zero, small, a bus multiple or anything up to an eighth of the window.
static int64_t pick_stride(Gen *g) {
  uint64_t k = rng_below(&g->rng, 100);
  if (k < 20) return 0;
  if (k < 55) return (int64_t)rng_range(&g->rng, 1, 40);
  if (k < 75) return (int64_t)(g->a->bus_bytes * rng_range(&g->rng, 1, 8));
  return (int64_t)rng_range(&g->rng, 1, max_u64(1, g->win / 8));
}

// A DRAM address for an access spanning `span` bytes; sometimes aligned to the bus.
static int64_t pick_addr(Gen *g, uint64_t span) {
  uint64_t a = rng_below(&g->rng, g->win - span + 1);
  if (rng_chance(&g->rng, 30)) a -= a % g->a->bus_bytes;
  return (int64_t)a;
}

// The address of a LOAD's or STORE's first byte, spanning `span` bytes: with with_gbuf, 40% of
// those that fit the buffer's window go to the global buffer (GBUF=1), the others to DRAM.
static int64_t pick_target(Gen *g, Insn *in, uint64_t span) {
  if (g->with_gbuf && g->gwin && span <= g->gwin && rng_chance(&g->rng, 40)) {
    in->f[FLD_GBUF] = 1;
    uint64_t a = rng_below(&g->rng, g->gwin - span + 1);
    if (rng_chance(&g->rng, 30)) a -= a % g->a->gbuf_bus_bytes;
    return (int64_t)a;
  }
  return pick_addr(g, span);
}

static uint64_t load_span(const ProgCheckState *st, const Insn *in) {
  const int64_t *f = in->f;
  return (uint64_t)((f[FLD_OUTER] - 1) * st->ld_stride_outer + (f[FLD_INNER] - 1) * st->ld_stride_inner +
                    (f[FLD_NSEG] - 1) * st->ld_seg_stride + f[FLD_SEGLEN]);
}

static uint64_t store_span(const ProgCheckState *st, const Insn *in) {
  const int64_t *f = in->f;
  return (uint64_t)((f[FLD_OUTER] - 1) * st->st_stride_outer + (f[FLD_INNER] - 1) * st->st_stride_inner +
                    f[FLD_COLS] * (f[FLD_RAW32] ? 4 : 1));
}

// A transposed LOAD into WBUF: often more rows than C (blocks TSTRIDE apart, sometimes
// overlapping) and rows longer than C bytes.
static int gen_load_transposed(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  uint64_t lim = g->lim[FP_WBUF], C = g->a->cols;
  *in = blank(OP_LOAD);
  in->f[FLD_MEM] = MEM_WBUF;
  in->f[FLD_TRANSPOSE] = 1;
  in->f[FLD_OUTER] = (int64_t)rng_range(r, 1, 4);
  in->f[FLD_INNER] = (int64_t)rng_range(r, 1, 6);
  uint64_t nseg = rng_range(r, 1, min_u64(3, lim));
  in->f[FLD_NSEG] = (int64_t)nseg;
  in->f[FLD_SEGLEN] = (int64_t)rng_range(r, 1, max_u64(1, min_u64(lim, 2 * g->a->rows + 2) / nseg));
  const ProgCheckState *st = &g->t.st;
  if (load_span(st, in) > g->win) in->f[FLD_OUTER] = 1;
  if (load_span(st, in) > g->win) in->f[FLD_INNER] = 1;
  if (load_span(st, in) > g->win) {
    in->f[FLD_SEGLEN] *= in->f[FLD_NSEG];
    in->f[FLD_NSEG] = 1;
  }
  uint64_t nbytes = (uint64_t)(in->f[FLD_NSEG] * in->f[FLD_SEGLEN]);
  uint64_t blocks = ((uint64_t)(in->f[FLD_OUTER] * in->f[FLD_INNER]) + C - 1) / C;
  uint64_t k = rng_below(r, 100);
  uint64_t tstride = k < 50 ? nbytes : k < 75 ? rng_range(r, 0, 2 * nbytes) : rng_below(r, nbytes);
  if (blocks > 1 && (blocks - 1) * tstride + nbytes > lim) tstride = (lim - nbytes) / (blocks - 1);
  in->f[FLD_TSTRIDE] = (int64_t)tstride;
  in->f[FLD_DST] = (int64_t)rng_below(r, lim - ((blocks - 1) * tstride + nbytes) + 1);
  in->f[FLD_DRAM_ADDR] = pick_target(g, in, load_span(st, in));
  return 0;
}

static int gen_load(Gen *g, Insn *in) {
  const Arch *a = g->a;
  Rng *r = &g->rng;
  *in = blank(OP_LOAD);
  int64_t mem = (int64_t)rng_below(r, 4);
  if (mem == MEM_WBUF && g->with_is && rng_chance(r, 40)) return gen_load_transposed(g, in);
  uint32_t lim = g->lim[fp_mem_space(mem)];
  uint64_t cap = mem == MEM_SPAD ? a->rows : mem == MEM_PARAM ? 4ull * a->cols : a->cols;
  uint64_t outer = rng_range(r, 1, min_u64(4, lim)), inner = rng_range(r, 1, max_u64(1, min_u64(6, lim / outer)));
  uint64_t nseg, seglen;
  if (mem == MEM_PARAM) {   // whole int32 parameters
    nseg = rng_range(r, 1, min_u64(3, a->cols));
    seglen = 4 * rng_range(r, 1, a->cols / nseg);
  } else {
    nseg = rng_range(r, 1, min_u64(3, cap));
    seglen = rng_range(r, 1, cap / nseg);
  }
  in->f[FLD_MEM] = mem;
  in->f[FLD_ACCUM] = mem == MEM_ACC && rng_chance(r, 50);
  in->f[FLD_OUTER] = (int64_t)outer;
  in->f[FLD_INNER] = (int64_t)inner;
  in->f[FLD_NSEG] = (int64_t)nseg;
  in->f[FLD_SEGLEN] = (int64_t)seglen;
  const ProgCheckState *st = &g->t.st;
  if (load_span(st, in) > g->win) in->f[FLD_OUTER] = 1;
  if (load_span(st, in) > g->win) in->f[FLD_INNER] = 1;
  if (load_span(st, in) > g->win) {
    in->f[FLD_SEGLEN] *= in->f[FLD_NSEG];   // one segment of the same row bytes
    in->f[FLD_NSEG] = 1;
  }
  in->f[FLD_DST] = (int64_t)rng_below(r, lim - (uint64_t)(in->f[FLD_OUTER] * in->f[FLD_INNER]) + 1);
  in->f[FLD_DRAM_ADDR] = pick_target(g, in, load_span(st, in));
  return 0;
}

static int gen_cfg_load(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  *in = blank(OP_CFG_LOAD);
  in->f[FLD_STRIDE_OUTER] = pick_stride(g);
  in->f[FLD_STRIDE_INNER] = pick_stride(g);
  in->f[FLD_SEG_STRIDE] = pick_stride(g);
  uint64_t k = rng_below(r, 100);
  in->f[FLD_MULT] = k < 40 ? 1 : k < 70 ? (int64_t)rng_range(r, 0, 600) - 300 : (int64_t)(int32_t)rng_next(r);
  in->f[FLD_SHIFT] = rng_chance(r, 40) ? 0 : (int64_t)rng_range(r, 0, 63);
  return 0;
}

static int gen_preload(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  *in = blank(OP_PRELOAD);
  uint64_t rows = min_u64(g->a->rows, g->lim[FP_WBUF]);
  if (rng_chance(r, 50)) rows = rng_range(r, 1, rows);
  in->f[FLD_ROWS] = (int64_t)rows;
  in->f[FLD_SRC] = (int64_t)rng_below(r, g->lim[FP_WBUF] - rows + 1);
  return 0;
}

static int gen_compute(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  if (!g->t.st.seen_preload) return -1;
  *in = blank(OP_COMPUTE);
  uint64_t rows = rng_range(r, 1, min_u64(12, min_u64(g->lim[FP_SPAD], g->lim[FP_ACC])));
  in->f[FLD_ROWS] = (int64_t)rows;
  in->f[FLD_SRC] = (int64_t)rng_below(r, g->lim[FP_SPAD] - rows + 1);
  in->f[FLD_ACC_ADDR] = (int64_t)rng_below(r, g->lim[FP_ACC] - rows + 1);
  in->f[FLD_ACCUM] = rng_chance(r, 50);
  in->f[FLD_OVERLAP] = rng_chance(r, 40);   // a PRELOAD behind it may start while it streams
  return 0;
}

// An output-stationary GEMM step: ROWS <= R output rows, KLEN often not a multiple of R (and
// often below it: back-to-back ones then wait for the drain), blocks KSTRIDE apart.
static int gen_compute_os(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  uint64_t R = g->a->rows, spad = g->lim[FP_SPAD], wbuf = g->lim[FP_WBUF], acc = g->lim[FP_ACC];
  if (g->no_os) return -1;
  *in = blank(OP_COMPUTE_OS);
  uint64_t rows = rng_range(r, 1, min_u64(R, min_u64(spad, acc)));
  if (rng_chance(r, 40)) rows = min_u64(R, min_u64(spad, acc));
  uint64_t klen = rng_range(r, 1, min_u64(wbuf, rng_chance(r, 30) ? R : 3 * R + 2));
  uint64_t blocks = (klen + R - 1) / R;
  // Blocks must fit: SRC + (blocks - 1) * KSTRIDE + rows <= spad (KSTRIDE 0 always does).
  uint64_t max_stride = blocks > 1 ? (spad - rows) / (blocks - 1) : 2 * R;
  uint64_t kstride = rng_chance(r, 50) ? min_u64(rows, max_stride) : rng_range(r, 0, min_u64(max_stride, 3 * R));
  in->f[FLD_ROWS] = (int64_t)rows;
  in->f[FLD_KLEN] = (int64_t)klen;
  in->f[FLD_KSTRIDE] = (int64_t)kstride;
  in->f[FLD_SRC] = (int64_t)rng_below(r, spad - ((blocks - 1) * kstride + rows) + 1);
  in->f[FLD_WSRC] = (int64_t)rng_below(r, wbuf - klen + 1);
  in->f[FLD_ACC_ADDR] = (int64_t)rng_below(r, acc - rows + 1);
  in->f[FLD_ACCUM] = rng_chance(r, 50);
  return 0;
}

// An input-stationary stream: ROWS often not a multiple of C (the next one then waits for
// alignment), COLS < C, column blocks ASTRIDE apart (sometimes overlapping).
static int gen_compute_is(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  uint64_t C = g->a->cols, spad = g->lim[FP_SPAD], acc = g->lim[FP_ACC];
  if (!g->t.st.seen_preload) return -1;
  *in = blank(OP_COMPUTE_IS);
  uint64_t rows = rng_range(r, 1, min_u64(3 * C + 2, spad));
  uint64_t cols = min_u64(acc, rng_chance(r, 50) ? C : rng_range(r, 1, C));
  uint64_t blocks = (rows + C - 1) / C, k = rng_below(r, 100);
  uint64_t astride = k < 40 ? cols : k < 70 ? rng_range(r, 0, 2 * C) : rng_range(r, 0, cols);
  if (blocks > 1 && (blocks - 1) * astride + cols > acc) astride = (acc - cols) / (blocks - 1);
  in->f[FLD_ROWS] = (int64_t)rows;
  in->f[FLD_COLS] = (int64_t)cols;
  in->f[FLD_ASTRIDE] = (int64_t)astride;
  in->f[FLD_SRC] = (int64_t)rng_below(r, spad - rows + 1);
  in->f[FLD_ACC_ADDR] = (int64_t)rng_below(r, acc - ((blocks - 1) * astride + cols) + 1);
  in->f[FLD_ACCUM] = rng_chance(r, 50);
  in->f[FLD_OVERLAP] = rng_chance(r, 40);
  return 0;
}

static int gen_store(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  const ProgCheckState *st = &g->t.st;
  *in = blank(OP_STORE);
  int pooled = st->pool != POOL_NONE;
  in->f[FLD_RAW32] = !pooled && rng_chance(r, 35);
  in->f[FLD_COLS] = (int64_t)rng_range(r, 1, g->a->cols);
  uint32_t lim = g->lim[FP_ACC];
  if (pooled) {   // output rows whose windows start inside the input (prog_check's rule)
    uint64_t in_rows = (uint64_t)(st->in_h * st->in_w);
    if (in_rows > lim) return -1;
    uint64_t oh = (uint64_t)((st->in_h - 1 + st->pad_t) / st->sh + 1), ow = (uint64_t)((st->in_w - 1 + st->pad_l) / st->sw + 1);
    in->f[FLD_OUTER] = (int64_t)rng_range(r, 1, min_u64(oh, 4));
    in->f[FLD_INNER] = (int64_t)rng_range(r, 1, min_u64(ow, 4));
    in->f[FLD_SRC] = (int64_t)rng_below(r, lim - in_rows + 1);
  } else {
    uint64_t outer = rng_range(r, 1, min_u64(4, lim));
    in->f[FLD_OUTER] = (int64_t)outer;
    in->f[FLD_INNER] = (int64_t)rng_range(r, 1, max_u64(1, min_u64(6, lim / outer)));
    in->f[FLD_SRC] = (int64_t)rng_below(r, lim - (uint64_t)(in->f[FLD_OUTER] * in->f[FLD_INNER]) + 1);
  }
  if (store_span(st, in) > g->win) in->f[FLD_OUTER] = 1;
  if (store_span(st, in) > g->win) in->f[FLD_INNER] = 1;
  in->f[FLD_DRAM_ADDR] = pick_target(g, in, store_span(st, in));
  return 0;
}

static int gen_cfg_store(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  *in = blank(OP_CFG_STORE);
  in->f[FLD_ACT] = (int64_t)rng_below(r, 3);
  in->f[FLD_PARAMS] = rng_chance(r, 50);
  in->f[FLD_PROW] = (int64_t)rng_below(r, g->lim[FP_PARAM] - 2);
  int64_t lo = (int8_t)rng_next(r), hi = (int8_t)rng_next(r);
  if (in->f[FLD_ACT] == ACT_CLAMP && lo > hi) {
    int64_t x = lo;
    lo = hi;
    hi = x;
  }
  in->f[FLD_CLAMP_LO] = lo;
  in->f[FLD_CLAMP_HI] = hi;
  in->f[FLD_STRIDE_OUTER] = pick_stride(g);
  in->f[FLD_STRIDE_INNER] = pick_stride(g);
  return 0;
}

static int gen_cfg_pool(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  *in = blank(OP_CFG_POOL);
  in->f[FLD_POOL] = (int64_t)rng_below(r, 3);
  in->f[FLD_KH] = (int64_t)rng_range(r, 1, rng_chance(r, 10) ? 15 : 3);
  in->f[FLD_KW] = (int64_t)rng_range(r, 1, 3);
  in->f[FLD_SH] = (int64_t)rng_range(r, 1, 3);
  in->f[FLD_SW] = (int64_t)rng_range(r, 1, rng_chance(r, 10) ? 15 : 3);
  in->f[FLD_PAD_T] = (int64_t)rng_below(r, (uint64_t)in->f[FLD_KH]);
  in->f[FLD_PAD_L] = (int64_t)rng_below(r, (uint64_t)in->f[FLD_KW]);
  uint64_t h = rng_range(r, 1, min_u64(6, g->lim[FP_ACC]));
  in->f[FLD_IN_H] = (int64_t)h;
  in->f[FLD_IN_W] = (int64_t)rng_range(r, 1, max_u64(1, min_u64(6, g->lim[FP_ACC] / h)));
  return 0;
}

// ---- the special-function unit ----

static int gen_cfg_sfu(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  *in = blank(OP_CFG_SFU);
  uint64_t k = rng_below(r, 100);
  // MULT/SHIFT: often a scale that keeps small accumulators inside Q4.11, sometimes anything.
  in->f[FLD_MULT] = k < 40 ? (int64_t)1 << rng_range(r, 20, 30) : k < 70 ? (int64_t)rng_range(r, 0, 4096) - 2048
                                                                         : (int64_t)(int32_t)rng_next(r);
  in->f[FLD_SHIFT] = (int64_t)rng_range(r, 0, 63);
  in->f[FLD_EPS] = rng_chance(r, 50) ? (int64_t)rng_below(r, 1000) : (int64_t)rng_below(r, (3ull << 46) - 1);
  return 0;
}

// Rows [a, a + na) and [b, b + nb) share none.
static int apart(uint64_t a, uint64_t na, uint64_t b, uint64_t nb) { return a + na <= b || b + nb <= a; }

// A destination for sources spanning [src, src + ext) (and [src2, src2 + ext2)): the first
// source itself (in place) or rows apart from every source, spanning dext; -1 if none fits.
static int64_t pick_dst(Gen *g, uint64_t src, uint64_t ext, uint64_t src2, uint64_t ext2, uint64_t dext,
                        int may_be_src) {
  uint64_t lim = g->lim[FP_ACC];
  if (may_be_src && rng_chance(&g->rng, 40)) return (int64_t)src;
  if (dext > lim) return -1;
  for (int tries = 0; tries < 8; tries++) {
    uint64_t d = rng_below(&g->rng, lim - dext + 1);
    if (apart(d, dext, src, ext) && apart(d, dext, src2, ext2)) return (int64_t)d;
  }
  return may_be_src ? (int64_t)src : -1;
}

static int gen_sfu_map(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  uint64_t lim = g->lim[FP_ACC], rows = rng_range(r, 1, min_u64(8, lim)), src = rng_below(r, lim - rows + 1);
  *in = blank(OP_SFU_MAP);
  in->f[FLD_FN] = (int64_t)rng_below(r, 7);
  in->f[FLD_ROWS] = (int64_t)rows;
  in->f[FLD_SRC] = (int64_t)src;
  in->f[FLD_ACC_ADDR] = pick_dst(g, src, rows, src, rows, rows, 1);
  return 0;
}

static int gen_sfu_ew(Gen *g, Insn *in) {
  Rng *r = &g->rng;
  uint64_t lim = g->lim[FP_ACC], rows = rng_range(r, 1, min_u64(8, lim)), bcast = rng_chance(r, 30);
  uint64_t src = rng_below(r, lim - rows + 1), n2 = bcast ? 1 : rows, src2 = rng_below(r, lim - n2 + 1);
  *in = blank(OP_SFU_EW);
  in->f[FLD_EWOP] = (int64_t)rng_below(r, 3);
  in->f[FLD_BCAST] = (int64_t)bcast;
  in->f[FLD_ROWS] = (int64_t)rows;
  in->f[FLD_SRC] = (int64_t)src;
  in->f[FLD_SRC2] = (int64_t)src2;
  // In place only when the second source is then the destination too, or apart from it.
  int in_place_ok = (src2 == src && n2 == rows) || apart(src, rows, src2, n2);
  int64_t dst = pick_dst(g, src, rows, src2, n2, rows, in_place_ok);
  if (dst < 0) return -1;
  in->f[FLD_ACC_ADDR] = dst;
  return 0;
}

// SFU_SOFTMAX, SFU_LAYERNORM, SFU_REDUCE: rows of LEN values over S = ceil(LEN / C) segments
// SSTRIDE >= ROWS apart (any SSTRIDE with one segment).
static int gen_sfu_row(Gen *g, Insn *in, Opcode op) {
  Rng *r = &g->rng;
  uint64_t C = g->a->cols, lim = g->lim[FP_ACC];
  uint64_t len = rng_range(r, 1, 3 * C + 1), S = (len + C - 1) / C, rows = rng_range(r, 1, 4);
  uint64_t sstride = S > 1 ? rng_range(r, rows, rows + 3) : rng_below(r, 4);
  uint64_t ext = (S - 1) * sstride + rows;   // the rows a source or destination block spans
  if (ext > lim) return -1;
  if (op == OP_SFU_LAYERNORM && 3 * S > g->lim[FP_PARAM]) return -1;
  uint64_t src = rng_below(r, lim - ext + 1);
  *in = blank(op);
  in->f[FLD_ROWS] = (int64_t)rows;
  in->f[FLD_LEN] = (int64_t)len;
  in->f[FLD_SSTRIDE] = (int64_t)sstride;
  in->f[FLD_SRC] = (int64_t)src;
  // A reduction writes ROWS rows; it is in place only when its source is those rows (S = 1).
  uint64_t dext = op == OP_SFU_REDUCE ? rows : ext;
  int64_t dst = pick_dst(g, src, ext, src, ext, dext, op != OP_SFU_REDUCE || S == 1);
  if (dst < 0) return -1;
  in->f[FLD_ACC_ADDR] = dst;
  if (op == OP_SFU_SOFTMAX) {
    in->f[FLD_SM_MULT] = (int64_t)(rng_chance(r, 50) ? rng_range(r, 1, 512) : rng_below(r, 65536));
    in->f[FLD_SM_SHIFT] = (int64_t)rng_below(r, 32);
    in->f[FLD_SM_J] = (int64_t)rng_below(r, 16);
  } else if (op == OP_SFU_LAYERNORM) {
    in->f[FLD_PBASE] = (int64_t)rng_below(r, g->lim[FP_PARAM] - 3 * S + 1);
  } else {
    in->f[FLD_RED] = (int64_t)rng_below(r, 3);
  }
  return 0;
}

static int gen_sfu(Gen *g, Insn *in) {
  uint64_t k = rng_below(&g->rng, 100);
  if (k < 15) return gen_cfg_sfu(g, in);
  if (k < 40) return gen_sfu_map(g, in);
  if (k < 60) return gen_sfu_ew(g, in);
  if (k < 75) return gen_sfu_row(g, in, OP_SFU_SOFTMAX);
  if (k < 88) return gen_sfu_row(g, in, OP_SFU_LAYERNORM);
  return gen_sfu_row(g, in, OP_SFU_REDUCE);
}

static int gen_layer(Gen *g, Insn *in) {
  if (!g->p->n_layers) return -1;
  *in = blank(OP_LAYER);
  in->f[FLD_LAYER_ID] = (int64_t)rng_below(&g->rng, g->p->n_layers);
  return 0;
}

// Draws one candidate instruction (no tokens yet). Returns -1 when the kind drawn is impossible now.
static int gen_candidate(Gen *g, Insn *in) {
  if (g->with_sfu && rng_chance(&g->rng, 22)) return gen_sfu(g, in);
  uint64_t k = rng_below(&g->rng, 100);
  if (k < 26) return gen_load(g, in);
  if (k < 34) return gen_cfg_load(g, in);
  if (k < 44) return gen_preload(g, in);
  if (k < 58) return g->with_is && rng_chance(&g->rng, 45) ? gen_compute_is(g, in) : gen_compute(g, in);
  if (k < 66) return gen_compute_os(g, in);
  if (k < 82) return gen_store(g, in);
  if (k < 89) return gen_cfg_store(g, in);
  if (k < 96) return gen_cfg_pool(g, in);
  return gen_layer(g, in);
}

// The earliest dominating instruction of unit u with index >= need, or -1.
static int32_t find_pusher(const RcTracker *t, int u, int32_t need) {
  for (uint32_t i = 0; i < t->n_unit[u]; i++) {
    uint32_t x = t->unit_insns[u][i];
    if ((int32_t)x >= need && t->info[x].dominating) return (int32_t)x;
  }
  return -1;
}

// Adds the tokens `in` (next instruction, unit v) needs, plus random harmless ones, editing the
// pushes of earlier instructions where needed. Returns -1, changing nothing, when a need cannot
// be met yet.
static int place_tokens(Gen *g, Insn *in, int v) {
  RcTracker *t = &g->t;
  int32_t need_of[NUM_UNITS];
  rc_tracker_needs(t, v, in, need_of);
  if (t->oom) return -1;
  int32_t k[NUM_UNITS];
  memcpy(k, t->K[v], sizeof k);
  int32_t move_from[NUM_UNITS], push_at[NUM_UNITS];   // planned edits of channel u->v
  int pop = 0;
  for (int u = 0; u < NUM_UNITS; u++) {
    move_from[u] = push_at[u] = -1;
    if (u == v) continue;
    RcChan *c = &t->ch[u][v];
    uint32_t pending = c->n - c->popped;   // 0 or 1 by construction
    int32_t need = need_of[u];
    if (need <= k[u]) {
      if (pending && rng_chance(&g->rng, 25)) {   // a harmless extra pop
        pop |= UNIT_BIT(u);
        rc_merge_knowledge(k, &t->info[c->idx[c->popped]], u, (int32_t)c->idx[c->popped]);
      }
      continue;
    }
    if (pending && (int32_t)c->idx[c->popped] >= need) {
      pop |= UNIT_BIT(u);
      rc_merge_knowledge(k, &t->info[c->idx[c->popped]], u, (int32_t)c->idx[c->popped]);
      continue;
    }
    int32_t at = find_pusher(t, u, need);
    if (at < 0) return -1;
    if (pending) move_from[u] = (int32_t)c->idx[c->popped];
    push_at[u] = at;
    pop |= UNIT_BIT(u);
    rc_merge_knowledge(k, &t->info[at], u, at);
  }
  // Commit the edits: move or add the pushes on earlier instructions.
  for (int u = 0; u < NUM_UNITS; u++) {
    if (push_at[u] < 0) continue;
    RcChan *c = &t->ch[u][v];
    if (move_from[u] >= 0) {
      InsnWord *w = &g->p->code[move_from[u]];
      isa_word_set(w, FLD_PUSH, isa_word_field(w, FLD_PUSH) & ~(int64_t)UNIT_BIT(v));
      c->idx[c->popped] = (uint32_t)push_at[u];
    } else if (rc_chan_append(c, (uint32_t)push_at[u])) {
      t->oom = 1;
      return -1;
    }
    InsnWord *w = &g->p->code[push_at[u]];
    isa_word_set(w, FLD_PUSH, isa_word_field(w, FLD_PUSH) | UNIT_BIT(v));
  }
  in->f[FLD_POP] = pop;
  // Harmless extra pushes, on channels with nothing pending, from an instruction that may push.
  if (rc_is_dominating(t, v, in->op, k[v]))
    for (int w = 0; w < NUM_UNITS; w++)
      if (w != v && t->ch[v][w].n == t->ch[v][w].popped && rng_chance(&g->rng, 10)) in->f[FLD_PUSH] |= UNIT_BIT(w);
  return 0;
}

static int emit(Gen *g, const Insn *in) {
  if (prog_add_insn(g->p, in)) return diag_error(g->d, "randprog: error: out of memory");
  RcReports r = {0};
  int rc = rc_tracker_apply(&g->t, g->p->n_insns - 1, &r, g->d);
  if (rc == 0 && r.n) {
    char buf[1024];
    rc = diag_error(g->d, "randprog: internal error: %s", racecheck_format(g->p, &r.r[0], "randprog", NULL, 0, buf, sizeof buf));
  }
  racecheck_reports_free(&r);
  return rc;
}

// One more instruction: a candidate whose tokens can be placed, else a plain CFG_LOAD.
static int gen_one(Gen *g) {
  Insn in;
  for (int tries = 0; tries < MAX_TRIES; tries++) {
    if (gen_candidate(g, &in)) continue;
    ProgCheckState st = g->t.st;   // the tracker may only see accesses inside the memories
    if (prog_check_insn(g->p, &st, &in, "randprog: candidate", g->d))
      return diag_error(g->d, "randprog: internal error: illegal candidate %s", isa_ops[in.op].name);
    Unit u = isa_ops[in.op].unit;
    if (u < NUM_UNITS && place_tokens(g, &in, (int)u)) {
      if (g->t.oom) return diag_error(g->d, "randprog: error: out of memory");
      continue;
    }
    return emit(g, &in);
  }
  gen_cfg_load(g, &in);
  return emit(g, &in);
}

// Initial DRAM: random chunks with random gaps over the window.
static int gen_data(Gen *g) {
  uint8_t buf[512];
  uint64_t at = rng_below(&g->rng, 64);
  while (at < g->win) {
    uint64_t len = min_u64(rng_range(&g->rng, 1, sizeof buf), g->win - at);
    for (uint64_t i = 0; i < len; i++) buf[i] = (uint8_t)rng_next(&g->rng);
    if (prog_add_data(g->p, at, buf, len)) return -1;
    at += len + rng_below(&g->rng, 96);
  }
  return 0;
}

Program *randprog_generate(uint64_t seed, const RandProgOptions *o, Diag *d) {
  Gen g;
  memset(&g, 0, sizeof g);
  g.rng.s = seed;
  g.d = d;
  g.no_os = o && o->no_compute_os;
  g.with_is = o && o->with_is;
  g.with_sfu = o && o->with_sfu;
  g.with_gbuf = o && o->with_gbuf;
  Arch arch;
  if (o && o->arch) {
    arch = *o->arch;
  } else {
    randprog_arch(seed, &arch);
    if (g.with_gbuf) randprog_arch_gbuf(seed, &arch);
  }
  uint32_t lo = o && o->min_insns ? o->min_insns : 20, hi = o && o->max_insns ? o->max_insns : 200;
  if (hi < lo) hi = lo;
  uint32_t n = (uint32_t)rng_range(&g.rng, lo, hi);
  g.p = prog_new(&arch);
  if (!g.p) {
    diag_error(d, "randprog: error: out of memory");
    return NULL;
  }
  g.a = &g.p->arch;
  g.win = min_u64(g.a->dram_bytes, 1u << 16);
  g.gwin = min_u64(g.a->gbuf_bytes, 1u << 16);
  for (int sp = 0; sp < FP_DRAM; sp++) g.lim[sp] = (uint32_t)min_u64(fp_space_size(g.a, (FpSpace)sp), 256);
  int rc = 0;
  uint32_t n_layers = (uint32_t)rng_below(&g.rng, 4);
  char name[PROG_NAME_MAX];
  for (uint32_t i = 0; i < n_layers && rc == 0; i++) {
    snprintf(name, sizeof name, "layer%u", i);
    rc = prog_add_layer(g.p, name);
  }
  if (rc == 0) rc = gen_data(&g);
  if (rc) diag_error(d, "randprog: error: out of memory");
  if (rc == 0 && rc_tracker_init(&g.t, g.p, n + 1, 1, 1)) rc = diag_error(d, "randprog: error: out of memory");
  while (rc == 0 && g.p->n_insns < n) rc = gen_one(&g);
  if (rc == 0) {
    Insn halt = blank(OP_HALT);
    rc = emit(&g, &halt);
  }
  rc_tracker_free(&g.t);
  if (rc == 0) {
    uint32_t need = randprog_token_bound(g.p);
    if (!(o && o->arch))
      g.p->arch.token_max = (uint32_t)max_u64(1, need + rng_below(&g.rng, 3));
    else if (need > g.p->arch.token_max)
      rc = diag_error(d, "randprog: error: seed %llu needs tokens.max >= %u, arch \"%s\" has %u",
                      (unsigned long long)seed, need, g.a->name, g.a->token_max);
  }
  if (rc == 0 && (prog_check(g.p, "randprog", d) || randprog_check_races(g.p, d)))
    rc = diag_error(d, "randprog: internal error: seed %llu generated an illegal program", (unsigned long long)seed);
  if (rc) {
    prog_free(g.p);
    return NULL;
  }
  return g.p;
}

// --- Listing ------------------------------------------------------------------------------------

static void dump_units(FILE *f, int64_t mask) {
  if (!mask) {
    fputc('-', f);
    return;
  }
  const char *sep = "";
  for (int u = 0; u < NUM_UNITS; u++)
    if ((mask >> u) & 1) {
      fprintf(f, "%s%s", sep, isa_unit_names[u]);
      sep = "|";
    }
}

void randprog_dump(const Program *p, FILE *f) {
  const Arch *a = &p->arch;
  fprintf(f,
          "arch %s: array %ux%u, spad %u, wbuf %u, acc %u, param %u rows; dram %llu bytes, bus %u, latency %u, "
          "inflight %u; gbuf %u bytes, bus %u, latency %u; queues %u/%u/%u/%u; fifo %u, post %u; sfu lanes %u, "
          "latency %u; tokens.max %u\n",
          a->name, a->rows, a->cols, a->spad_rows, a->wbuf_rows, a->acc_rows, a->param_rows,
          (unsigned long long)a->dram_bytes, a->bus_bytes, a->dram_latency, a->dram_inflight, a->gbuf_bytes,
          a->gbuf_bus_bytes, a->gbuf_latency, a->queue_depth[0], a->queue_depth[1], a->queue_depth[2],
          a->queue_depth[3], a->store_fifo_rows, a->post_latency, a->sfu_lanes, a->sfu_latency, a->token_max);
  for (uint32_t i = 0; i < p->n_insns; i++) {
    const Insn insn = prog_insn(p, i), *in = &insn;
    fprintf(f, "%5u: %-9s", i, isa_ops[in->op].name ? isa_ops[in->op].name : "?");
    for (int fl = 0; fl < FLD_COUNT; fl++) {
      if (fl == FLD_OP || !isa_has_field(in->op, (FieldId)fl)) continue;
      const FieldInfo *fi = &isa_fields[fl];
      fprintf(f, " %s=", fi->name);
      switch (fi->kind) {
      case K_UNITS:
        dump_units(f, in->f[fl]);
        break;
      case K_E: {
        const char *s = isa_enum_name(fi->eset, (unsigned)in->f[fl]);
        fprintf(f, "%s", s ? s : "?");
        break;
      }
      case K_U:
      case K_S:
      case K_CNT:
        fprintf(f, "%lld", (long long)in->f[fl]);
        break;
      }
    }
    fputc('\n', f);
  }
}
