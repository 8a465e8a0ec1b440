// footprint.h: which on-chip rows and DRAM bytes an instruction reads and writes, given the
// per-unit configuration registers in force (ProgCheckState, tracked in program order).
// The one statement of every instruction's memory footprint: progcheck's bounds checks and the
// static race checker (tests/common/randprog.c) both read it. The compiler's scheduler keeps its
// own access lists on purpose, so that the checker can still catch it.
//
// An access is an affine nest: up to FP_MAX_LEVELS loop levels (outermost first), each with a
// count and a stride, around a run of `len` consecutive rows (or bytes):
//   elements  base + i_0*stride[0] + ... + i_{L-1}*stride[L-1] + j,   i_k < count[k], j < len.
// In each row of an on-chip access it touches columns [col_first, col_first + col_count) (the
// whole row unless the instruction touches only some columns: a transposed LOAD writes WBUF
// column r mod ARRAY_COLS, COMPUTE_IS writes the first columns of each ACC row, COMPUTE_OS reads
// the first columns of the SPAD rows of a partial K block). Strides are never negative, so the
// run at the last point of the nest is the highest one.
//
// The set is exact at row (byte) granularity except where noted in fp_insn(). Nothing here
// allocates; fields must have passed isa_check_fields() (no count is 0).
#ifndef SA_FOOTPRINT_H
#define SA_FOOTPRINT_H

#include <stdint.h>

#include "arch.h"
#include "isa.h"
#include "program.h"

// The memories. The on-chip ones a LOAD writes are numbered as the MEM field's values (static
// asserts in footprint.c), so a LOAD's MEM field names its space. The global buffer (GBUF=1 on a
// LOAD or STORE) is on chip and, like DRAM, byte-addressed: its elements are bytes.
typedef enum { FP_SPAD, FP_WBUF, FP_ACC, FP_PARAM, FP_GBUF, FP_DRAM, FP_NUM_SPACES } FpSpace;

#define FP_MAX_LEVELS 3     // LOAD's DRAM gather: OUTER, INNER, NSEG
#define FP_MAX_ACCESSES 6   // COMPUTE_IS, COMPUTE_OS and SFU_LAYERNORM use 5

typedef struct {
  FpSpace space;                   // which memory
  int write;                       // 1: written, 0: read
  uint64_t base;                   // first row (on-chip) or byte (DRAM)
  uint64_t len;                    // consecutive rows or bytes of each run, >= 1
  unsigned levels;                 // loop levels used, 0..FP_MAX_LEVELS
  uint64_t count[FP_MAX_LEVELS];   // iterations of each level, >= 1, outermost first
  uint64_t stride[FP_MAX_LEVELS];  // rows or bytes between iterations of each level
  uint32_t col_first, col_count;   // columns touched in each row (DRAM: 0, 1)
} FpAccess;

// Every access of one instruction: reads first, then writes (an instruction that reads and
// writes a row, as an accumulating COMPUTE, lists the read first).
typedef struct {
  unsigned n;                      // accesses used
  FpAccess a[FP_MAX_ACCESSES];
} Footprint;

// Rows or bytes [first, end).
typedef struct {
  uint64_t first, end;
} FpRange;

// The footprint of `in` on arch `a` with the configuration registers `st` as they stand before
// `in` (its own CFG_* effects are prog_check_insn's to track). Configuration, LAYER and HALT
// instructions touch no memory (out->n == 0).
void fp_insn(const Arch *a, const ProgCheckState *st, const Insn *in, Footprint *out);

// The space of a MEM field value (MEM_SPAD ... MEM_PARAM).
static inline FpSpace fp_mem_space(int64_t mem) { return (FpSpace)mem; }
// "SPAD", "WBUF", "ACC", "PARAM", "GBUF", "DRAM".
const char *fp_space_name(FpSpace sp);
// Rows of an on-chip space in arch a; for FP_GBUF and FP_DRAM, their bytes.
static inline uint64_t fp_space_size(const Arch *a, FpSpace sp) {
  switch (sp) {
  case FP_SPAD: return a->spad_rows;
  case FP_WBUF: return a->wbuf_rows;
  case FP_ACC: return a->acc_rows;
  case FP_PARAM: return a->param_rows;
  case FP_GBUF: return a->gbuf_bytes;
  case FP_DRAM: return a->dram_bytes;
  case FP_NUM_SPACES: /* not a space */ break;
  }
  return 0;
}
// Columns of a row of an on-chip space (SPAD rows hold ARRAY_ROWS values, the others
// ARRAY_COLS); 1 for the byte-addressed GBUF and DRAM.
static inline uint32_t fp_space_cols(const Arch *a, FpSpace sp) {
  switch (sp) {
  case FP_SPAD: return a->rows;
  case FP_WBUF:
  case FP_ACC:
  case FP_PARAM: return a->cols;
  case FP_GBUF:
  case FP_DRAM: return 1;
  case FP_NUM_SPACES: /* not a space */ break;
  }
  return 0;
}

// Runs in the nest (the product of the counts), and elements (runs x len).
uint64_t fp_runs(const FpAccess *x);
uint64_t fp_elems(const FpAccess *x);
// The run at the last point of the nest: the highest one.
static inline FpRange fp_last_run(const FpAccess *x) {
  uint64_t s = x->base;
  for (unsigned k = 0; k < x->levels; k++) s += (x->count[k] - 1) * x->stride[k];
  FpRange r = {s, s + x->len};
  return r;
}
// The bounding range: from base to the end of the last run.
static inline FpRange fp_bounds(const FpAccess *x) {
  FpRange r = {x->base, fp_last_run(x).end};
  return r;
}

// Enumerates the runs in nest order (the outermost level slowest), without allocating:
//   FpIter it; FpRange r;
//   for (fp_iter_start(&it, x); fp_iter_next(&it, &r);) ...
typedef struct {
  const FpAccess *x;
  uint64_t i[FP_MAX_LEVELS];       // the current point
  int done;
} FpIter;
void fp_iter_start(FpIter *it, const FpAccess *x);
int fp_iter_next(FpIter *it, FpRange *run);   // 1 and the next run, or 0 when there is none

// Whether x and y touch a common element (same space, a common row or byte, and for on-chip
// rows a common column); *first (may be NULL) is then the lowest such row or byte. Exact: cost
// in runs of the access with fewer runs times the outer points of the other (bounding ranges
// are compared first).
int fp_overlap(const FpAccess *x, const FpAccess *y, uint64_t *first);
// Whether x and y conflict: they overlap and at least one of them writes.
int fp_conflict(const FpAccess *x, const FpAccess *y, uint64_t *first);

#endif
