// progcheck.c: static checks of a Program against the arch it targets (program.h: prog_check,
// prog_check_insn). Walks the instructions in program order, tracking the per-unit
// configuration registers (there is no control flow), and checks that every on-chip row range
// and DRAM byte range an instruction can touch (its footprint, isa/footprint.h) lies inside its
// memory, that HALT ends the program, that LAYER ids are named, and that tensors and data chunks
// fit in DRAM.
// It does not look for races between units (a program bug, see docs/TIMING.md §1) nor simulate
// token counts (deadlock and token overflow are runtime errors of the simulator).
#include "program.h"

#include "footprint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Saturating unsigned arithmetic: a range that overflows 64 bits is reported as UINT64_MAX,
// which no memory size reaches, so the range check that follows rejects it.
static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

// A register or field value as an unsigned quantity (negative values cannot occur for the
// unsigned fields checked by isa_check_fields; a caller-made state is clamped to 0).
static uint64_t uval(int64_t v) { return v < 0 ? 0 : (uint64_t)v; }

static const char *mem_name(int64_t mem) {
  const char *s = isa_enum_name(ESET_MEM, (unsigned)mem);
  return s ? s : "?";
}

// The arch key that sets the size of a memory.
static const char *space_key(FpSpace sp) {
  switch (sp) {
  case FP_SPAD: return "spad.rows";
  case FP_WBUF: return "wbuf.rows";
  case FP_ACC: return "acc.rows";
  case FP_PARAM: return "param.rows";
  case FP_GBUF: return "gbuf.bytes";
  case FP_DRAM: return "dram.bytes";
  case FP_NUM_SPACES: /* not a space */ break;
  }
  return "?";
}

// Bytes a LOAD may gather into one row of a memory: SPAD rows hold R int8, WBUF and ACC rows C
// int8 (ACC scales them to int32), PARAM rows C little-endian int32.
static uint64_t space_row_bytes(const Arch *a, FpSpace sp) {
  switch (sp) {
  case FP_SPAD: return a->rows;
  case FP_WBUF:
  case FP_ACC: return a->cols;
  case FP_PARAM: return 4ull * a->cols;
  case FP_GBUF:         /* not loaded into */
  case FP_DRAM:         /* not loaded into */
  case FP_NUM_SPACES:   /* not a space */
    break;
  }
  return 0;
}

// Reports rows [first, first + n) of a memory with `limit` rows when they do not fit.
static int check_rows(const char *where, const char *what, const char *mem, uint64_t first, uint64_t n,
                      uint64_t limit, const char *key, Diag *d) {
  uint64_t end = sat_add(first, n);
  if (end <= limit) return 0;
  return diag_error(d, "%s: error: %s %s rows %llu..%llu, beyond %s=%llu", where, what, mem,
                    (unsigned long long)first, (unsigned long long)(end - 1), key, (unsigned long long)limit);
}

// An instruction's footprint, and whether all of it lies inside the memories: the common case,
// in which no range needs a closer look (the loader checks half a million instructions).
typedef struct {
  Footprint fp;
  int inside;
} Foot;

static void foot_of(const Arch *a, const ProgCheckState *st, const Insn *in, Foot *ft) {
  fp_insn(a, st, in, &ft->fp);
  ft->inside = 1;
  for (unsigned k = 0; k < ft->fp.n; k++)
    if (fp_last_run(&ft->fp.a[k]).end > fp_space_size(a, ft->fp.a[k].space)) ft->inside = 0;
}

// The highest run of the accesses of `fp` to space sp that read (write 0) or write (1): the
// last run of a nest is its highest (strides are not negative). Returns 0 when there is none.
static int top_run(const Footprint *fp, FpSpace sp, int write, FpRange *out) {
  int found = 0;
  for (unsigned k = 0; k < fp->n; k++) {
    const FpAccess *x = &fp->a[k];
    if (x->space != sp || x->write != write) continue;
    FpRange r = fp_last_run(x);
    if (!found || r.end >= out->end) *out = r;
    found = 1;
  }
  return found;
}

// Checks the on-chip rows of fp's reads or writes of sp: their highest run must end inside the
// memory; the message names that run.
static int check_access(const Arch *a, const Foot *ft, FpSpace sp, int write, const char *where, const char *what,
                        Diag *d) {
  FpRange r = {0, 0};
  if (ft->inside || !top_run(&ft->fp, sp, write, &r)) return 0;
  uint64_t limit = fp_space_size(a, sp);
  if (r.end <= limit) return 0;   // the common case: no message to build
  return check_rows(where, what, fp_space_name(sp), r.first, r.end - r.first, limit, space_key(sp), d);
}

// Checks fp's DRAM or global-buffer read or write: its bounding range must end inside the memory.
static int check_dram(const Arch *a, const Foot *ft, int write, const char *where, const char *what, Diag *d) {
  for (unsigned k = 0; !ft->inside && k < ft->fp.n; k++) {
    const FpAccess *x = &ft->fp.a[k];
    if ((x->space != FP_DRAM && x->space != FP_GBUF) || x->write != write) continue;
    FpRange b = fp_bounds(x);
    uint64_t size = fp_space_size(a, x->space);
    if (b.end <= size) continue;
    if (x->space == FP_GBUF && size == 0)
      return diag_error(d, "%s: error: %s the global buffer (GBUF=1), but this arch has none (gbuf.bytes=0)", where,
                        what);
    return diag_error(d, "%s: error: %s %s bytes 0x%llx..0x%llx, beyond %s=0x%llx", where, what,
                      fp_space_name(x->space), (unsigned long long)b.first, (unsigned long long)(b.end - 1),
                      space_key(x->space), (unsigned long long)size);
  }
  return 0;
}

static int check_load(const Arch *a, const Foot *fp, const Insn *in, const char *where, Diag *d) {
  int64_t mem = in->f[FLD_MEM];
  uint64_t nseg = uval(in->f[FLD_NSEG]), seglen = uval(in->f[FLD_SEGLEN]);
  uint64_t row_bytes = nseg * seglen, cap = space_row_bytes(a, fp_mem_space(mem));
  if (in->f[FLD_TSTRIDE] && !in->f[FLD_TRANSPOSE])
    return diag_error(d, "%s: error: LOAD TSTRIDE=%llu needs TRANSPOSE=1", where, (unsigned long long)in->f[FLD_TSTRIDE]);
  if (in->f[FLD_TRANSPOSE]) {
    // Row r goes down WBUF column r mod C, from row DST + (r div C)*TSTRIDE (docs/ISA.md, LOAD).
    if (mem != MEM_WBUF)
      return diag_error(d, "%s: error: LOAD TRANSPOSE=1 needs MEM=WBUF (MEM=%s)", where, mem_name(mem));
    if (check_access(a, fp, FP_WBUF, 1, where, "transposed LOAD writes", d)) return -1;
  } else {
    if (check_access(a, fp, fp_mem_space(mem), 1, where, "LOAD writes", d)) return -1;
  }
  if (!in->f[FLD_TRANSPOSE] && row_bytes > cap)
    return diag_error(d, "%s: error: LOAD row of %llu bytes (NSEG %llu x SEGLEN %llu) exceeds a %s row of %llu bytes",
                      where, (unsigned long long)row_bytes, (unsigned long long)nseg, (unsigned long long)seglen,
                      mem_name(mem), (unsigned long long)cap);
  if (mem == MEM_PARAM && row_bytes % 4)
    return diag_error(d, "%s: error: LOAD row of %llu bytes into PARAM is not a multiple of 4 (int32 parameters)",
                      where, (unsigned long long)row_bytes);
  if (in->f[FLD_ACCUM] && mem != MEM_ACC)
    return diag_error(d, "%s: error: LOAD ACCUM=1 needs MEM=ACC (MEM=%s)", where, mem_name(mem));
  return check_dram(a, fp, 0, where, "LOAD reads", d);
}

static int check_preload(const Arch *a, ProgCheckState *st, const Foot *fp, const Insn *in, const char *where,
                         Diag *d) {
  uint64_t rows = uval(in->f[FLD_ROWS]);
  if (rows > a->rows)
    return diag_error(d, "%s: error: PRELOAD ROWS=%llu exceeds array.rows=%u", where, (unsigned long long)rows,
                      a->rows);
  if (check_access(a, fp, FP_WBUF, 0, where, "PRELOAD reads", d)) return -1;
  st->seen_preload = 1;
  return 0;
}

// COMPUTE_OS reads ROWS scratchpad rows per R-wide K block (blocks KSTRIDE rows apart) and KLEN
// weight-buffer rows, and writes ROWS accumulator rows (docs/TIMING.md §6).
static int check_compute_os(const Arch *a, const Foot *fp, const Insn *in, const char *where, Diag *d) {
  uint64_t rows = uval(in->f[FLD_ROWS]);
  if (rows > a->rows)
    return diag_error(d, "%s: error: COMPUTE_OS ROWS=%llu exceeds array.rows=%u", where, (unsigned long long)rows,
                      a->rows);
  if (check_access(a, fp, FP_SPAD, 0, where, "COMPUTE_OS reads", d)) return -1;
  if (check_access(a, fp, FP_WBUF, 0, where, "COMPUTE_OS reads", d)) return -1;
  if (check_access(a, fp, FP_ACC, 1, where, "COMPUTE_OS writes", d)) return -1;
  return 0;
}

// COMPUTE_IS writes column block b = m div C of its ROWS streamed rows into ACC rows
// ACC_ADDR + b*ASTRIDE .. + COLS-1 (docs/TIMING.md §6).
static int check_compute_is(const Arch *a, const ProgCheckState *st, const Foot *fp, const Insn *in,
                            const char *where, Diag *d) {
  uint64_t cols = uval(in->f[FLD_COLS]);
  if (cols > a->cols)
    return diag_error(d, "%s: error: COMPUTE_IS COLS=%llu exceeds array.cols=%u", where, (unsigned long long)cols,
                      a->cols);
  if (check_access(a, fp, FP_SPAD, 0, where, "COMPUTE_IS reads", d)) return -1;
  if (check_access(a, fp, FP_ACC, 1, where, "COMPUTE_IS writes", d)) return -1;
  if (!st->seen_preload)
    return diag_error(d, "%s: error: COMPUTE_IS before any PRELOAD (no inputs in the array)", where);
  return 0;
}

static int check_compute(const Arch *a, const ProgCheckState *st, const Foot *fp, const char *where, Diag *d) {
  if (check_access(a, fp, FP_SPAD, 0, where, "COMPUTE reads", d)) return -1;
  if (check_access(a, fp, FP_ACC, 1, where, "COMPUTE writes", d)) return -1;
  if (!st->seen_preload) return diag_error(d, "%s: error: COMPUTE before any PRELOAD (no weights in the array)", where);
  return 0;
}

// Pooling geometry: every output row's window must contain at least one input position.
static int check_pool_windows(const ProgCheckState *st, const Insn *in, const char *where, Diag *d) {
  if (st->pad_t >= st->kh)
    return diag_error(d, "%s: error: STORE pooling PAD_T=%lld must be less than KH=%lld", where, (long long)st->pad_t,
                      (long long)st->kh);
  if (st->pad_l >= st->kw)
    return diag_error(d, "%s: error: STORE pooling PAD_L=%lld must be less than KW=%lld", where, (long long)st->pad_l,
                      (long long)st->kw);
  int64_t top = (in->f[FLD_OUTER] - 1) * st->sh - st->pad_t;    // first input row of the last window
  if (top >= st->in_h)
    return diag_error(d, "%s: error: STORE pooling window of output row %lld starts at input row %lld, past IN_H=%lld",
                      where, (long long)(in->f[FLD_OUTER] - 1), (long long)top, (long long)st->in_h);
  int64_t left = (in->f[FLD_INNER] - 1) * st->sw - st->pad_l;   // first input column of the last window
  if (left >= st->in_w)
    return diag_error(d,
                      "%s: error: STORE pooling window of output column %lld starts at input column %lld, past "
                      "IN_W=%lld",
                      where, (long long)(in->f[FLD_INNER] - 1), (long long)left, (long long)st->in_w);
  return 0;
}

static int check_store(const Arch *a, const ProgCheckState *st, const Foot *fp, const Insn *in, const char *where,
                       Diag *d) {
  uint64_t cols = uval(in->f[FLD_COLS]);
  int raw32 = in->f[FLD_RAW32] != 0;
  if (cols > a->cols)
    return diag_error(d, "%s: error: STORE COLS=%llu exceeds array.cols=%u", where, (unsigned long long)cols, a->cols);
  if (st->pool != POOL_NONE) {
    if (raw32)
      return diag_error(d, "%s: error: STORE RAW32=1 cannot be pooled (POOL=%s)", where,
                        isa_enum_name(ESET_POOL, (unsigned)st->pool) ? isa_enum_name(ESET_POOL, (unsigned)st->pool)
                                                                     : "?");
    if (check_access(a, fp, FP_ACC, 0, where, "STORE pooling reads", d)) return -1;
    if (check_pool_windows(st, in, where, d)) return -1;
  } else if (check_access(a, fp, FP_ACC, 0, where, "STORE reads", d)) {
    return -1;
  }
  if (check_dram(a, fp, 1, where, "STORE writes", d)) return -1;
  // PARAMS=1 names three PARAM rows from PROW. A RAW32 STORE reads none of them (its footprint
  // has no PARAM access), but the register must still point inside PARAM (the engines take its
  // address), so its range is checked for every STORE.
  if (st->st_params) {
    FpRange r = {uval(st->st_prow), sat_add(uval(st->st_prow), 3)};
    top_run(&fp->fp, FP_PARAM, 0, &r);   // the footprint's rows, when it reads them
    if (check_rows(where, "STORE reads", "PARAM", r.first, r.end - r.first, a->param_rows, "param.rows", d)) return -1;
  }
  return 0;
}

// The SFU's rules (docs/ISA.md, "The special-function unit"): every row inside ACC (and PARAM);
// each source either is the destination (in place) or shares no row with it, since the unit
// reads a row's values before it writes them but pipelines rows (so an output row must never be
// a later input row); a row of several segments has them at least ROWS rows apart, so that no
// two rows share a segment.
static int check_sfu(const Arch *a, const Foot *fp, const Insn *in, const char *where, Diag *d) {
  const char *name = isa_ops[in->op].name;
  char what[64];
  snprintf(what, sizeof what, "%s reads", name);
  if (check_access(a, fp, FP_ACC, 0, where, what, d)) return -1;
  if (in->op == OP_SFU_LAYERNORM && check_access(a, fp, FP_PARAM, 0, where, what, d)) return -1;
  snprintf(what, sizeof what, "%s writes", name);
  if (check_access(a, fp, FP_ACC, 1, where, what, d)) return -1;
  uint64_t rows = uval(in->f[FLD_ROWS]), dst = uval(in->f[FLD_ACC_ADDR]);
  if (in->op == OP_SFU_SOFTMAX || in->op == OP_SFU_LAYERNORM || in->op == OP_SFU_REDUCE) {
    uint64_t segs = (uval(in->f[FLD_LEN]) + a->cols - 1) / a->cols, stride = uval(in->f[FLD_SSTRIDE]);
    if (segs > 1 && stride < rows)
      return diag_error(d, "%s: error: %s SSTRIDE=%llu is less than ROWS=%llu with %llu segments per row (LEN=%lld): "
                        "rows would share segments", where, name, (unsigned long long)stride,
                        (unsigned long long)rows, (unsigned long long)segs, (long long)in->f[FLD_LEN]);
  }
  // Sources against the destination: equal, or disjoint.
  for (unsigned i = 0; i < fp->fp.n; i++) {
    const FpAccess *src = &fp->fp.a[i];
    if (src->write || src->space != FP_ACC) continue;
    for (unsigned j = 0; j < fp->fp.n; j++) {
      const FpAccess *out = &fp->fp.a[j];
      if (!out->write || out->space != FP_ACC) continue;
      int same = src->base == out->base && src->len == out->len && src->levels == out->levels &&
                 (src->levels == 0 || (src->count[0] == out->count[0] && src->stride[0] == out->stride[0]));
      uint64_t row;
      if (!same && fp_overlap(src, out, &row))
        return diag_error(d, "%s: error: %s reads ACC row %llu, which it also writes as another row (ACC_ADDR=%llu): "
                          "a source must be the destination itself or apart from it", where, name,
                          (unsigned long long)row, (unsigned long long)dst);
    }
  }
  return 0;
}

int prog_check_insn(const Program *p, ProgCheckState *st, const Insn *in, const char *where, Diag *d) {
  const Arch *a = &p->arch;
  if (st->seen_halt) return diag_error(d, "%s: error: instruction after HALT", where);
  if (isa_check_fields(in, where, d)) return -1;
  Foot fp;
  foot_of(a, st, in, &fp);
  switch (in->op) {
  case OP_LOAD:
    return check_load(a, &fp, in, where, d);
  case OP_CFG_LOAD:
    st->ld_stride_outer = in->f[FLD_STRIDE_OUTER];
    st->ld_stride_inner = in->f[FLD_STRIDE_INNER];
    st->ld_seg_stride = in->f[FLD_SEG_STRIDE];
    return 0;
  case OP_PRELOAD:
    return check_preload(a, st, &fp, in, where, d);
  case OP_COMPUTE:
    return check_compute(a, st, &fp, where, d);
  case OP_COMPUTE_OS:
    return check_compute_os(a, &fp, in, where, d);
  case OP_COMPUTE_IS:
    return check_compute_is(a, st, &fp, in, where, d);
  case OP_STORE:
    return check_store(a, st, &fp, in, where, d);
  case OP_CFG_STORE:
    st->st_stride_outer = in->f[FLD_STRIDE_OUTER];
    st->st_stride_inner = in->f[FLD_STRIDE_INNER];
    st->st_prow = in->f[FLD_PROW];
    st->st_params = in->f[FLD_PARAMS];
    st->st_act = in->f[FLD_ACT];
    st->st_lo = in->f[FLD_CLAMP_LO];
    st->st_hi = in->f[FLD_CLAMP_HI];
    if (st->st_act == ACT_CLAMP && st->st_lo > st->st_hi)
      return diag_error(d, "%s: error: CFG_STORE ACT=CLAMP needs CLAMP_LO <= CLAMP_HI (%lld > %lld)", where,
                        (long long)st->st_lo, (long long)st->st_hi);
    return 0;
  case OP_CFG_POOL:
    st->pool = in->f[FLD_POOL];
    st->kh = in->f[FLD_KH];
    st->kw = in->f[FLD_KW];
    st->sh = in->f[FLD_SH];
    st->sw = in->f[FLD_SW];
    st->pad_t = in->f[FLD_PAD_T];
    st->pad_l = in->f[FLD_PAD_L];
    st->in_h = in->f[FLD_IN_H];
    st->in_w = in->f[FLD_IN_W];
    return 0;
  case OP_CFG_SFU:   // layer norm's V = n S2 - S1^2 + EPS (< 2^46 without EPS) must stay below 2^48
    if (uval(in->f[FLD_EPS]) >= (1ull << 48) - (1ull << 46))
      return diag_error(d, "%s: error: CFG_SFU EPS=%llu is not below 2^48 - 2^46 = %llu (layer norm's variance sum "
                        "must fit 48 bits)", where, (unsigned long long)uval(in->f[FLD_EPS]),
                        (unsigned long long)((1ull << 48) - (1ull << 46)));
    return 0;
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
    return check_sfu(a, &fp, in, where, d);
  case OP_LAYER:
    if (uval(in->f[FLD_LAYER_ID]) >= p->n_layers)
      return diag_error(d, "%s: error: LAYER_ID=%lld has no name (the program names %u layers)", where,
                        (long long)in->f[FLD_LAYER_ID], p->n_layers);
    return 0;
  case OP_HALT:
    st->seen_halt = 1;
    return 0;
  }
  return diag_error(d, "%s: error: unknown opcode 0x%02x", where, (unsigned)in->op);
}

// The instructions: each checked in order; HALT last and only there.
static int check_code(const Program *p, const char *file, Diag *d) {
  if (p->n_insns == 0) return diag_error(d, "%s: error: empty program (no instructions)", file);
  ProgCheckState st;
  memset(&st, 0, sizeof st);
  int rc = 0;
  char where[512];
  for (uint32_t i = 0; i < p->n_insns; i++) {
    ProgCheckState before = st;
    Insn in = prog_insn(p, i);
    // The place is formatted only for a bad instruction (a NULL Diag records nothing): one
    // snprintf per instruction was a tenth of loading a big program.
    if (!prog_check_insn(p, &st, &in, "", NULL)) continue;
    snprintf(where, sizeof where, "%s: insn %u", file, i);
    st = before;
    prog_check_insn(p, &st, &in, where, d);
    rc = -1;
    if (st.seen_halt) break;   // one "after HALT" message is enough
  }
  if (!st.seen_halt)
    rc = diag_error(d, "%s: insn %u: error: program does not end with HALT", file, p->n_insns - 1);
  return rc;
}

// What check_code adds to prog_check_insn over every instruction: a HALT at the end.
static int check_code_end(const Program *p, const ProgCheckState *st, const char *file, Diag *d) {
  if (p->n_insns == 0) return diag_error(d, "%s: error: empty program (no instructions)", file);
  if (!st->seen_halt) return diag_error(d, "%s: insn %u: error: program does not end with HALT", file, p->n_insns - 1);
  return 0;
}

static int cmp_tensor_name(const void *x, const void *y) {
  const TensorInfo *a = *(const TensorInfo *const *)x, *b = *(const TensorInfo *const *)y;
  return strcmp(a->name, b->name);
}

// One tensor on its own. `t->name` is known to be a NUL-terminated, non-empty string.
static int check_tensor(const Arch *a, const TensorInfo *t, const char *file, Diag *d) {
  if (t->ndim < 1 || t->ndim > PROG_MAX_DIMS)
    return diag_error(d, "%s: tensor \"%s\": error: ndim %u out of range [1, %d]", file, t->name, t->ndim,
                      PROG_MAX_DIMS);
  for (uint32_t i = 0; i < t->ndim; i++)
    if (t->dims[i] < 1) return diag_error(d, "%s: tensor \"%s\": error: dims[%u] is 0", file, t->name, i);
  if (t->dtype != DT_INT8 && t->dtype != DT_INT32)
    return diag_error(d, "%s: tensor \"%s\": error: invalid dtype %d", file, t->name, (int)t->dtype);
  if (t->role != ROLE_INPUT && t->role != ROLE_OUTPUT && t->role != ROLE_CONST && t->role != ROLE_SCRATCH)
    return diag_error(d, "%s: tensor \"%s\": error: invalid role %d", file, t->name, (int)t->role);
  if (!isfinite(t->scale) || t->scale < 0)
    return diag_error(d, "%s: tensor \"%s\": error: scale %g is not a finite number >= 0", file, t->name, t->scale);
  // Its dense size must fit in DRAM too: strides may overlap elements (even be 0), but every tool
  // that copies a tensor in or out allocates elements x element size bytes.
  uint64_t bytes = prog_dtype_size(t->dtype);
  for (uint32_t i = 0; i < t->ndim; i++) bytes = sat_mul(bytes, t->dims[i]);
  if (bytes > a->dram_bytes)
    return diag_error(d, "%s: tensor \"%s\": error: %llu bytes of elements exceed dram.bytes=0x%llx", file, t->name,
                      (unsigned long long)bytes, (unsigned long long)a->dram_bytes);
  for (uint32_t i = 0; i < t->ndim; i++)
    if (t->strides[i] > a->dram_bytes)
      return diag_error(d, "%s: tensor \"%s\": error: strides[%u]=%llu exceeds dram.bytes=0x%llx", file, t->name, i,
                        (unsigned long long)t->strides[i], (unsigned long long)a->dram_bytes);
  uint64_t end = t->addr;
  for (uint32_t i = 0; i < t->ndim; i++) end = sat_add(end, sat_mul(t->dims[i] - 1u, t->strides[i]));
  end = sat_add(end, prog_dtype_size(t->dtype));
  if (end > a->dram_bytes)
    return diag_error(d, "%s: tensor \"%s\": error: spans DRAM bytes 0x%llx..0x%llx, beyond dram.bytes=0x%llx", file,
                      t->name, (unsigned long long)t->addr, (unsigned long long)(end - 1),
                      (unsigned long long)a->dram_bytes);
  return 0;
}

// Tensors: each valid, names non-empty, NUL-terminated and unique (sorted, so n log n).
static int check_tensors(const Program *p, const char *file, Diag *d) {
  int rc = 0;
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    const TensorInfo *t = &p->tensors[i];
    if (!memchr(t->name, 0, sizeof t->name))
      rc = diag_error(d, "%s: tensor %u: error: name is not NUL-terminated", file, i);
    else if (!t->name[0])
      rc = diag_error(d, "%s: tensor %u: error: empty name", file, i);
    else if (check_tensor(&p->arch, t, file, d))
      rc = -1;
  }
  if (rc || p->n_tensors < 2) return rc;
  const TensorInfo **sorted = malloc(p->n_tensors * sizeof *sorted);
  if (!sorted) return diag_error(d, "%s: error: out of memory", file);
  for (uint32_t i = 0; i < p->n_tensors; i++) sorted[i] = &p->tensors[i];
  qsort(sorted, p->n_tensors, sizeof *sorted, cmp_tensor_name);
  for (uint32_t i = 1; i < p->n_tensors; i++)
    if (!strcmp(sorted[i - 1]->name, sorted[i]->name)) {
      rc = diag_error(d, "%s: tensor \"%s\": error: duplicate name", file, sorted[i]->name);
      break;
    }
  free(sorted);
  return rc;
}

static int cmp_chunk_addr(const void *x, const void *y) {
  const DataChunk *a = *(const DataChunk *const *)x, *b = *(const DataChunk *const *)y;
  return a->addr < b->addr ? -1 : a->addr > b->addr;
}

// Data chunks: inside DRAM and disjoint (sorted by address, so n log n).
static int check_chunks(const Program *p, const char *file, Diag *d) {
  uint64_t dram = p->arch.dram_bytes;
  for (uint32_t i = 0; i < p->n_chunks; i++) {
    const DataChunk *c = &p->chunks[i];
    if (c->len > dram || c->addr > dram - c->len)
      return diag_error(d, "%s: data chunk %u: error: %llu bytes at 0x%llx pass the end of DRAM (dram.bytes=0x%llx)",
                        file, i, (unsigned long long)c->len, (unsigned long long)c->addr, (unsigned long long)dram);
  }
  if (p->n_chunks < 2) return 0;
  const DataChunk **sorted = malloc(p->n_chunks * sizeof *sorted);
  if (!sorted) return diag_error(d, "%s: error: out of memory", file);
  for (uint32_t i = 0; i < p->n_chunks; i++) sorted[i] = &p->chunks[i];
  qsort(sorted, p->n_chunks, sizeof *sorted, cmp_chunk_addr);
  int rc = 0;
  const DataChunk *last = NULL;   // the non-empty chunk reaching furthest so far
  for (uint32_t i = 0; i < p->n_chunks; i++) {
    const DataChunk *b = sorted[i];
    if (!b->len) continue;
    if (last && last->addr + last->len > b->addr) {
      rc = diag_error(d, "%s: data chunk %u: error: bytes 0x%llx..0x%llx overlap data chunk %u (0x%llx..0x%llx)", file,
                      (unsigned)(b - p->chunks), (unsigned long long)b->addr,
                      (unsigned long long)(b->addr + b->len - 1), (unsigned)(last - p->chunks),
                      (unsigned long long)last->addr, (unsigned long long)(last->addr + last->len - 1));
      break;
    }
    if (!last || b->addr + b->len > last->addr + last->len) last = b;
  }
  free(sorted);
  return rc;
}

static int check_layers(const Program *p, const char *file, Diag *d) {
  for (uint32_t i = 0; i < p->n_layers; i++)
    if (!memchr(p->layer_names[i], 0, PROG_NAME_MAX))
      return diag_error(d, "%s: layer %u: error: name is not NUL-terminated", file, i);
  return 0;
}

// prog_check; with `code_done`, the instructions were checked already and it is the final state.
static int check_all(const Program *p, const ProgCheckState *code_done, const char *file, Diag *d) {
  if (arch_validate(&p->arch, file, d)) return -1;
  int rc = 0;
  if (check_layers(p, file, d)) rc = -1;
  if (code_done ? check_code_end(p, code_done, file, d) : check_code(p, file, d)) rc = -1;
  if (check_tensors(p, file, d)) rc = -1;
  if (check_chunks(p, file, d)) rc = -1;
  return rc;
}

int prog_check(const Program *p, const char *file, Diag *d) { return check_all(p, NULL, file, d); }

int prog_check_rest(const Program *p, const ProgCheckState *st, const char *file, Diag *d) {
  return check_all(p, st, file, d);
}
