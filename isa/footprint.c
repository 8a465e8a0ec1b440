// footprint.c: the memory footprint of each instruction (footprint.h), and the helpers that
// enumerate, bound and intersect its affine nests. The semantics are docs/ISA.md's (the doc
// strings of isa_ops.def); this file states them as row and byte sets, nothing else.
#include "footprint.h"

#include <string.h>

// The on-chip spaces are numbered as the MEM field's values, so fp_mem_space is a cast.
_Static_assert(FP_SPAD == (int)MEM_SPAD, "FP_SPAD is MEM_SPAD");
_Static_assert(FP_WBUF == (int)MEM_WBUF, "FP_WBUF is MEM_WBUF");
_Static_assert(FP_ACC == (int)MEM_ACC, "FP_ACC is MEM_ACC");
_Static_assert(FP_PARAM == (int)MEM_PARAM, "FP_PARAM is MEM_PARAM");
_Static_assert(FP_GBUF == (int)MEM_PARAM + 1, "every MEM value has a space, and GBUF follows them");

// --- Building accesses --------------------------------------------------------------------------

static uint64_t u(int64_t v) { return (uint64_t)v; }   // a field or register, known >= 0

// Appends a plain run of `len` rows or bytes at `base`, whole rows; returns it for more levels.
static FpAccess *add(const Arch *a, Footprint *fp, FpSpace sp, int write, uint64_t base, uint64_t len) {
  FpAccess *x = &fp->a[fp->n++];
  x->space = sp;
  x->write = write;
  x->base = base;
  x->len = len;
  x->levels = 0;
  x->col_first = 0;
  x->col_count = fp_space_cols(a, sp);
  return x;
}

static void add_level(FpAccess *x, uint64_t count, uint64_t stride) {
  x->count[x->levels] = count;
  x->stride[x->levels] = stride;
  x->levels++;
}

// Runs of `len` rows at base + b*stride for the blocks b of `items` items taken `per_block` at
// a time; item k of a block touches column k. Full blocks touch columns [0, per_block), the
// last partial one fewer: two accesses when it is partial, in block order.
static void add_blocks(const Arch *a, Footprint *fp, FpSpace sp, int write, uint64_t base, uint64_t stride,
                       uint64_t len, uint64_t items, uint64_t per_block) {
  uint64_t full = items / per_block, rest = items % per_block;
  if (full) {
    FpAccess *x = add(a, fp, sp, write, base, len);
    if (full > 1) add_level(x, full, stride);
    x->col_count = (uint32_t)per_block;
  }
  if (rest) {
    FpAccess *x = add(a, fp, sp, write, base + full * stride, len);
    x->col_count = (uint32_t)rest;
  }
}

void fp_insn(const Arch *a, const ProgCheckState *st, const Insn *in, Footprint *out) {
  const int64_t *f = in->f;
  out->n = 0;
  switch (in->op) {
  case OP_LOAD: {
    // DRAM (GBUF): row r = o*INNER + i gathers NSEG segments of SEGLEN bytes.
    FpAccess *x = add(a, out, f[FLD_GBUF] ? FP_GBUF : FP_DRAM, 0, u(f[FLD_DRAM_ADDR]), u(f[FLD_SEGLEN]));
    add_level(x, u(f[FLD_OUTER]), u(st->ld_stride_outer));
    add_level(x, u(f[FLD_INNER]), u(st->ld_stride_inner));
    add_level(x, u(f[FLD_NSEG]), u(st->ld_seg_stride));
    uint64_t rows = u(f[FLD_OUTER]) * u(f[FLD_INNER]), row_bytes = u(f[FLD_NSEG]) * u(f[FLD_SEGLEN]);
    if (f[FLD_TRANSPOSE]) {   // row r: down WBUF column r mod C from row DST + (r div C)*TSTRIDE
      add_blocks(a, out, FP_WBUF, 1, u(f[FLD_DST]), u(f[FLD_TSTRIDE]), row_bytes, rows, a->cols);
    } else if (fp_mem_space(f[FLD_MEM]) == FP_ACC && f[FLD_ACCUM]) {   // adds into the first NSEG*SEGLEN columns
      uint32_t cols = (uint32_t)(row_bytes < a->cols ? row_bytes : a->cols);
      add(a, out, FP_ACC, 0, u(f[FLD_DST]), rows)->col_count = cols;
      add(a, out, FP_ACC, 1, u(f[FLD_DST]), rows)->col_count = cols;
    } else {   // whole rows: the bytes past the gathered ones are zeroed
      add(a, out, fp_mem_space(f[FLD_MEM]), 1, u(f[FLD_DST]), rows);
    }
    break;
  }
  case OP_PRELOAD:
    add(a, out, FP_WBUF, 0, u(f[FLD_SRC]), u(f[FLD_ROWS]));
    break;
  case OP_COMPUTE:
    add(a, out, FP_SPAD, 0, u(f[FLD_SRC]), u(f[FLD_ROWS]));
    if (f[FLD_ACCUM]) add(a, out, FP_ACC, 0, u(f[FLD_ACC_ADDR]), u(f[FLD_ROWS]));
    add(a, out, FP_ACC, 1, u(f[FLD_ACC_ADDR]), u(f[FLD_ROWS]));
    break;
  case OP_COMPUTE_OS:
    // K block j reads SPAD rows SRC + j*KSTRIDE .. + ROWS-1, column k mod R of the K index k
    // (the last block, when KLEN is not a multiple of R, its first columns); WBUF row k per k.
    add_blocks(a, out, FP_SPAD, 0, u(f[FLD_SRC]), u(f[FLD_KSTRIDE]), u(f[FLD_ROWS]), u(f[FLD_KLEN]), a->rows);
    add(a, out, FP_WBUF, 0, u(f[FLD_WSRC]), u(f[FLD_KLEN]));
    if (f[FLD_ACCUM]) add(a, out, FP_ACC, 0, u(f[FLD_ACC_ADDR]), u(f[FLD_ROWS]));
    add(a, out, FP_ACC, 1, u(f[FLD_ACC_ADDR]), u(f[FLD_ROWS]));
    break;
  case OP_COMPUTE_IS:
    // Streamed row m: ACC rows ACC_ADDR + (m div C)*ASTRIDE + c, c < COLS, column m mod C.
    add(a, out, FP_SPAD, 0, u(f[FLD_SRC]), u(f[FLD_ROWS]));
    if (f[FLD_ACCUM])
      add_blocks(a, out, FP_ACC, 0, u(f[FLD_ACC_ADDR]), u(f[FLD_ASTRIDE]), u(f[FLD_COLS]), u(f[FLD_ROWS]), a->cols);
    add_blocks(a, out, FP_ACC, 1, u(f[FLD_ACC_ADDR]), u(f[FLD_ASTRIDE]), u(f[FLD_COLS]), u(f[FLD_ROWS]), a->cols);
    break;
  case OP_STORE: {
    int raw = f[FLD_RAW32] != 0;
    uint64_t cols = u(f[FLD_COLS]);
    // A pooled STORE reads the rows of its output windows; stated as the whole input (IN_H x
    // IN_W rows from SRC), a superset: the one over-approximation in this file.
    uint64_t rows = raw || st->pool == POOL_NONE ? u(f[FLD_OUTER]) * u(f[FLD_INNER]) : u(st->in_h) * u(st->in_w);
    add(a, out, FP_ACC, 0, u(f[FLD_SRC]), rows)->col_count = (uint32_t)cols;
    if (!raw && st->st_params) add(a, out, FP_PARAM, 0, u(st->st_prow), 3)->col_count = (uint32_t)cols;
    FpAccess *x = add(a, out, f[FLD_GBUF] ? FP_GBUF : FP_DRAM, 1, u(f[FLD_DRAM_ADDR]), cols * (raw ? 4 : 1));
    add_level(x, u(f[FLD_OUTER]), u(st->st_stride_outer));
    add_level(x, u(f[FLD_INNER]), u(st->st_stride_inner));
    break;
  }
  case OP_SFU_MAP:
    add(a, out, FP_ACC, 0, u(f[FLD_SRC]), u(f[FLD_ROWS]));
    add(a, out, FP_ACC, 1, u(f[FLD_ACC_ADDR]), u(f[FLD_ROWS]));
    break;
  case OP_SFU_EW:
    add(a, out, FP_ACC, 0, u(f[FLD_SRC]), u(f[FLD_ROWS]));
    add(a, out, FP_ACC, 0, u(f[FLD_SRC2]), f[FLD_BCAST] ? 1 : u(f[FLD_ROWS]));
    add(a, out, FP_ACC, 1, u(f[FLD_ACC_ADDR]), u(f[FLD_ROWS]));
    break;
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
    // Value j of row r: ACC row SRC + (j div C)*SSTRIDE + r, column j mod C; the partial last
    // segment touches its first columns. Softmax and layer norm write the same places from
    // ACC_ADDR, the reduction one row per row (all its columns). Layer norm reads 3 PARAM rows
    // per segment.
    add_blocks(a, out, FP_ACC, 0, u(f[FLD_SRC]), u(f[FLD_SSTRIDE]), u(f[FLD_ROWS]), u(f[FLD_LEN]), a->cols);
    if (in->op == OP_SFU_LAYERNORM)
      add(a, out, FP_PARAM, 0, u(f[FLD_PBASE]), 3 * ((u(f[FLD_LEN]) + a->cols - 1) / a->cols));
    if (in->op == OP_SFU_REDUCE)
      add(a, out, FP_ACC, 1, u(f[FLD_ACC_ADDR]), u(f[FLD_ROWS]));
    else
      add_blocks(a, out, FP_ACC, 1, u(f[FLD_ACC_ADDR]), u(f[FLD_SSTRIDE]), u(f[FLD_ROWS]), u(f[FLD_LEN]), a->cols);
    break;
  case OP_CFG_SFU:     /* registers only */
  case OP_CFG_LOAD:    /* registers only */
  case OP_CFG_STORE:   /* registers only */
  case OP_CFG_POOL:    /* registers only */
  case OP_LAYER:       /* bookkeeping */
  case OP_HALT:        /* no memory */
    break;
  }
}

// --- Spaces -------------------------------------------------------------------------------------

const char *fp_space_name(FpSpace sp) {
  switch (sp) {
  case FP_SPAD: return "SPAD";
  case FP_WBUF: return "WBUF";
  case FP_ACC: return "ACC";
  case FP_PARAM: return "PARAM";
  case FP_GBUF: return "GBUF";
  case FP_DRAM: return "DRAM";
  case FP_NUM_SPACES: /* not a space */ break;
  }
  return "?";
}

// --- Nests --------------------------------------------------------------------------------------

uint64_t fp_runs(const FpAccess *x) {
  uint64_t n = 1;
  for (unsigned k = 0; k < x->levels; k++) n *= x->count[k];
  return n;
}

uint64_t fp_elems(const FpAccess *x) { return fp_runs(x) * x->len; }

void fp_iter_start(FpIter *it, const FpAccess *x) {
  it->x = x;
  memset(it->i, 0, sizeof it->i);
  it->done = 0;
}

int fp_iter_next(FpIter *it, FpRange *run) {
  const FpAccess *x = it->x;
  if (it->done) return 0;
  uint64_t s = x->base;
  for (unsigned k = 0; k < x->levels; k++) s += it->i[k] * x->stride[k];
  *run = (FpRange){s, s + x->len};
  // Advance the odometer, the innermost level fastest.
  unsigned k = x->levels;
  while (k > 0 && ++it->i[k - 1] == x->count[k - 1]) it->i[--k] = 0;
  if (k == 0) it->done = 1;
  return 1;
}

// The lowest element of y inside [s, e), or UINT64_MAX when there is none. y's outer levels are
// enumerated; its innermost level (count c, stride t, run len L) is solved: the first i with
// p + i*t + L > s starts the lowest run that reaches past s.
static uint64_t lowest_in(const FpAccess *y, uint64_t s, uint64_t e) {
  unsigned outer = y->levels ? y->levels - 1 : 0;
  uint64_t c = y->levels ? y->count[outer] : 1, t = y->levels ? y->stride[outer] : 0, L = y->len;
  uint64_t i[FP_MAX_LEVELS] = {0}, best = UINT64_MAX;
  for (;;) {
    uint64_t p = y->base;
    for (unsigned k = 0; k < outer; k++) p += i[k] * y->stride[k];
    uint64_t first = 0;   // index of the innermost iteration
    if (p + L <= s) first = t ? (s - p - L) / t + 1 : c;
    if (first < c) {
      uint64_t start = p + first * t;
      if (start < e) {
        uint64_t lo = start > s ? start : s;
        if (lo < best) best = lo;
      }
    }
    unsigned k = outer;
    while (k > 0 && ++i[k - 1] == y->count[k - 1]) i[--k] = 0;
    if (k == 0) break;
  }
  return best;
}

int fp_overlap(const FpAccess *x, const FpAccess *y, uint64_t *first) {
  if (x->space != y->space) return 0;
  if (x->col_first >= y->col_first + y->col_count || y->col_first >= x->col_first + x->col_count) return 0;
  FpRange bx = fp_bounds(x), by = fp_bounds(y);
  if (bx.end <= by.first || by.end <= bx.first) return 0;
  if (fp_runs(y) < fp_runs(x)) {   // enumerate the access with fewer runs
    const FpAccess *z = x;
    x = y;
    y = z;
  }
  uint64_t best = UINT64_MAX;
  FpIter it;
  FpRange r;
  for (fp_iter_start(&it, x); fp_iter_next(&it, &r);) {
    if (r.first >= best) continue;
    uint64_t lo = lowest_in(y, r.first, r.end < best ? r.end : best);
    if (lo < best) best = lo;
  }
  if (best == UINT64_MAX) return 0;
  if (first) *first = best;
  return 1;
}

int fp_conflict(const FpAccess *x, const FpAccess *y, uint64_t *first) {
  return (x->write || y->write) && fp_overlap(x, y, first);
}
