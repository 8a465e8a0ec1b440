// footprint_test.c: isa/footprint.c against hand-computed row and byte sets, one case per opcode
// and per edge of its semantics (transposed LOAD blocks with TSTRIDE, gathers of NSEG segments,
// accumulating LOADs, COMPUTE_OS K blocks, COMPUTE_IS column blocks, STORE with PARAMS, RAW32
// and pooling); and the nest helpers (runs, bounds, enumeration, overlap) against brute force.
// The arch is lopsided (4x6 array) so that rows and columns cannot be confused.
#include <stdio.h>
#include <string.h>

#include "../../isa/footprint.h"
#include "../common/check.h"
#include "../common/insnbuild.h"

static Arch small_arch(void) {
  Arch a;
  arch_default(&a);
  a.rows = 4;   // SPAD rows: 4 columns
  a.cols = 6;   // WBUF, ACC, PARAM rows: 6 columns
  a.spad_rows = 64;
  a.wbuf_rows = 32;
  a.acc_rows = 40;
  a.param_rows = 6;
  a.dram_bytes = 4096;
  return a;
}

// The footprint as text: one "R|W SPACE cF-L: first..last first..last ..." per access, runs in
// enumeration order, accesses separated by "; ". Hand-written expectations compare with it.
static const char *render(const Footprint *fp) {
  static char buf[4096];
  size_t n = 0;
  buf[0] = 0;
  for (unsigned k = 0; k < fp->n; k++) {
    const FpAccess *x = &fp->a[k];
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %s c%u-%u:", k ? "; " : "", x->write ? "W" : "R",
                          fp_space_name(x->space), x->col_first, x->col_first + x->col_count - 1);
    FpIter it;
    FpRange r;
    for (fp_iter_start(&it, x); fp_iter_next(&it, &r);)
      n += (size_t)snprintf(buf + n, sizeof buf - n, " %llu..%llu", (unsigned long long)r.first,
                            (unsigned long long)(r.end - 1));
  }
  return buf;
}

static const char *fp_text(const Arch *a, const ProgCheckState *st, Insn in) {
  Footprint fp;
  fp_insn(a, st, &in, &fp);
  return render(&fp);
}

#define EXPECT(got, want) CHECK(!strcmp((got), (want)), "\n  got  %s\n  want %s", (got), (want))

static ProgCheckState zero_state(void) {
  ProgCheckState st;
  memset(&st, 0, sizeof st);
  return st;
}

// A gather: OUTER 2 x INNER 3 rows of NSEG 2 segments of 2 bytes, strides 100, 10, 4.
static void test_load_gather(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  st.ld_stride_outer = 100;
  st.ld_stride_inner = 10;
  st.ld_seg_stride = 4;
  EXPECT(fp_text(&a, &st, insn_load(MEM_SPAD, 5, 1000, 2, 3, 2, 2)),
         "R DRAM c0-0: 1000..1001 1004..1005 1010..1011 1014..1015 1020..1021 1024..1025 1100..1101 1104..1105 "
         "1110..1111 1114..1115 1120..1121 1124..1125; W SPAD c0-3: 5..10");
  // Overlapping segments (SEG_STRIDE 0) and a WBUF target: whole rows written.
  st.ld_seg_stride = 0;
  EXPECT(fp_text(&a, &st, insn_load(MEM_WBUF, 0, 7, 1, 2, 3, 2)),
         "R DRAM c0-0: 7..8 7..8 7..8 17..18 17..18 17..18; W WBUF c0-5: 0..1");
  // PARAM rows are written whole (the bytes past the gathered ones are zeroed).
  EXPECT(fp_text(&a, &st, insn_load(MEM_PARAM, 2, 0, 1, 1, 1, 8)), "R DRAM c0-0: 0..7; W PARAM c0-5: 2..2");
  check_case("load_gather");
}

// An accumulating LOAD into ACC reads and writes the gathered columns only; a plain one writes
// whole rows.
static void test_load_accum(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  st.ld_stride_inner = 4;
  Insn in = insn_load(MEM_ACC, 7, 64, 1, 2, 1, 4);
  EXPECT(fp_text(&a, &st, in), "R DRAM c0-0: 64..67 68..71; W ACC c0-5: 7..8");
  in.f[FLD_ACCUM] = 1;
  EXPECT(fp_text(&a, &st, in), "R DRAM c0-0: 64..67 68..71; R ACC c0-3: 7..8; W ACC c0-3: 7..8");
  check_case("load_accum");
}

// Transposed LOAD: row r = o*INNER + i goes down WBUF column r mod 6 from row DST + (r div 6)*TSTRIDE,
// NSEG*SEGLEN rows long.
static void test_load_transposed(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  Insn in = insn_load(MEM_WBUF, 2, 0, 2, 4, 1, 3);   // 8 rows: a full block of 6, a block of 2
  in.f[FLD_TRANSPOSE] = 1;
  in.f[FLD_TSTRIDE] = 5;
  EXPECT(fp_text(&a, &st, in), "R DRAM c0-0: 0..2 0..2 0..2 0..2 0..2 0..2 0..2 0..2; W WBUF c0-5: 2..4; W WBUF c0-1: 7..9");
  in.f[FLD_OUTER] = 1;   // 13 rows, two segments of 2 bytes: full blocks 0 and 1, then one row
  in.f[FLD_INNER] = 13;
  in.f[FLD_NSEG] = 2;
  in.f[FLD_SEGLEN] = 2;
  st.ld_stride_inner = 4;
  st.ld_seg_stride = 2;
  Footprint fp;
  fp_insn(&a, &st, &in, &fp);
  CHECK(fp.n == 3 && fp_runs(&fp.a[0]) == 26 && fp_bounds(&fp.a[0]).end == 52, "DRAM: 13 rows of 2 segments");
  CHECK(!strcmp(strchr(render(&fp), ';'), "; W WBUF c0-5: 2..5 7..10; W WBUF c0-0: 12..15"), "blocks: %s", render(&fp));
  in.f[FLD_INNER] = 12;   // exactly two blocks: one nest, no partial block
  fp_insn(&a, &st, &in, &fp);
  CHECK(!strcmp(strchr(render(&fp), ';'), "; W WBUF c0-5: 2..5 7..10"), "two full blocks: %s", render(&fp));
  in.f[FLD_TSTRIDE] = 0;   // TSTRIDE 0: the blocks overwrite the same rows
  fp_insn(&a, &st, &in, &fp);
  CHECK(!strcmp(strchr(render(&fp), ';'), "; W WBUF c0-5: 2..5 2..5"), "TSTRIDE 0: %s", render(&fp));
  check_case("load_transposed");
}

static void test_preload_compute(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  EXPECT(fp_text(&a, &st, insn_rows(OP_PRELOAD, 9, 4)), "R WBUF c0-5: 9..12");
  EXPECT(fp_text(&a, &st, insn_compute(3, 20, 5)), "R SPAD c0-3: 3..7; W ACC c0-5: 20..24");
  Insn in = insn_compute(3, 20, 5);
  in.f[FLD_ACCUM] = 1;
  EXPECT(fp_text(&a, &st, in), "R SPAD c0-3: 3..7; R ACC c0-5: 20..24; W ACC c0-5: 20..24");
  check_case("preload_compute");
}

// COMPUTE_OS: K block j (4 K values each) reads SPAD rows SRC + j*KSTRIDE .. + ROWS-1; KLEN 10 is
// two full blocks and one of 2 columns.
static void test_compute_os(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  EXPECT(fp_text(&a, &st, insn_compute_os(1, 8, 4, 10, 30, 3, 0)),
         "R SPAD c0-3: 1..3 9..11; R SPAD c0-1: 17..19; R WBUF c0-5: 4..13; W ACC c0-5: 30..32");
  EXPECT(fp_text(&a, &st, insn_compute_os(1, 8, 4, 8, 30, 3, 1)),
         "R SPAD c0-3: 1..3 9..11; R WBUF c0-5: 4..11; R ACC c0-5: 30..32; W ACC c0-5: 30..32");
  EXPECT(fp_text(&a, &st, insn_compute_os(1, 0, 4, 3, 30, 2, 0)),   // one partial block
         "R SPAD c0-2: 1..2; R WBUF c0-5: 4..6; W ACC c0-5: 30..31");
  check_case("compute_os");
}

// COMPUTE_IS: streamed row m writes column m mod 6 of ACC rows ACC_ADDR + (m div 6)*ASTRIDE + c,
// c < COLS. ROWS 14: blocks of 6, 6 and 2 streamed rows.
static void test_compute_is(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  EXPECT(fp_text(&a, &st, insn_compute_is(2, 3, 14, 10, 4, 0)),
         "R SPAD c0-3: 2..15; W ACC c0-5: 3..6 13..16; W ACC c0-1: 23..26");
  EXPECT(fp_text(&a, &st, insn_compute_is(2, 3, 14, 10, 4, 1)),
         "R SPAD c0-3: 2..15; R ACC c0-5: 3..6 13..16; R ACC c0-1: 23..26; W ACC c0-5: 3..6 13..16; "
         "W ACC c0-1: 23..26");
  EXPECT(fp_text(&a, &st, insn_compute_is(0, 0, 5, 0, 6, 0)), "R SPAD c0-3: 0..4; W ACC c0-4: 0..5");
  EXPECT(fp_text(&a, &st, insn_compute_is(0, 0, 12, 2, 3, 0)), "R SPAD c0-3: 0..11; W ACC c0-5: 0..2 2..4");
  check_case("compute_is");
}

// STORE: ACC rows SRC .. + OUTER*INNER - 1 (COLS columns), the three PARAM rows of PROW when
// PARAMS=1 (not for RAW32), DRAM rows of COLS bytes (4*COLS for RAW32) at the strides.
static void test_store(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  st.st_stride_outer = 100;
  st.st_stride_inner = 8;
  EXPECT(fp_text(&a, &st, insn_store(4, 200, 2, 3, 5, 0)),
         "R ACC c0-4: 4..9; W DRAM c0-0: 200..204 208..212 216..220 300..304 308..312 316..320");
  st.st_params = 1;
  st.st_prow = 2;
  EXPECT(fp_text(&a, &st, insn_store(4, 200, 1, 2, 5, 0)), "R ACC c0-4: 4..5; R PARAM c0-4: 2..4; W DRAM c0-0: 200..204 208..212");
  EXPECT(fp_text(&a, &st, insn_store(4, 200, 1, 2, 3, 1)), "R ACC c0-2: 4..5; W DRAM c0-0: 200..211 208..219");
  // Pooled: the whole IN_H x IN_W input from SRC (a superset of the windows' rows).
  st.st_params = 0;
  st.pool = POOL_MAX;
  st.kh = st.kw = st.sh = st.sw = 2;
  st.in_h = 4;
  st.in_w = 3;
  EXPECT(fp_text(&a, &st, insn_store(10, 0, 2, 1, 6, 0)), "R ACC c0-5: 10..21; W DRAM c0-0: 0..5 100..105");
  check_case("store");
}

// Configuration, LAYER and HALT touch no memory; every named opcode has a footprint whose minimal
// instruction stays inside the memories of a 1-row machine's ranges.
static void test_no_memory_and_table(void) {
  Arch a = small_arch();
  ProgCheckState st = zero_state();
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name) continue;
    Footprint fp;
    Insn in = isa_insn((Opcode)op);
    fp_insn(&a, &st, &in, &fp);
    int memory = isa_ops[op].timing != T_CONFIG && isa_ops[op].timing != T_HALT;
    CHECK(memory ? fp.n > 0 : fp.n == 0, "%s: %u accesses", isa_ops[op].name, fp.n);
    for (unsigned k = 0; k < fp.n; k++) {
      FpRange b = fp_bounds(&fp.a[k]);
      CHECK(b.end <= fp_space_size(&a, fp.a[k].space) && fp.a[k].col_count >= 1 &&
                fp.a[k].col_first + fp.a[k].col_count <= fp_space_cols(&a, fp.a[k].space),
            "%s access %u: %s", isa_ops[op].name, k, render(&fp));
      CHECK(k == 0 || fp.a[k - 1].write <= fp.a[k].write, "%s: reads come before writes", isa_ops[op].name);
    }
  }
  check_case("no_memory_and_table");
}

// --- Nest helpers against brute force -----------------------------------------------------------

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return rs % n;
}

static FpAccess random_access(void) {
  FpAccess x;
  memset(&x, 0, sizeof x);
  x.space = FP_ACC;
  x.write = (int)rnd(2);
  x.base = rnd(40);
  x.len = 1 + rnd(5);
  x.levels = (unsigned)rnd(FP_MAX_LEVELS + 1);
  for (unsigned k = 0; k < x.levels; k++) {
    x.count[k] = 1 + rnd(4);
    x.stride[k] = rnd(4) ? rnd(20) : 0;
  }
  x.col_first = (uint32_t)rnd(4);
  x.col_count = 1 + (uint32_t)rnd(3);
  return x;
}

#define SPAN 400   // every random element lies below this

static void mark(const FpAccess *x, uint8_t set[SPAN]) {
  memset(set, 0, SPAN);
  FpIter it;
  FpRange r;
  for (fp_iter_start(&it, x); fp_iter_next(&it, &r);)
    for (uint64_t e = r.first; e < r.end; e++) set[e] = 1;
}

static void test_helpers_brute_force(void) {
  uint8_t sx[SPAN], sy[SPAN];
  int overlaps = 0;
  for (int t = 0; t < 20000; t++) {
    FpAccess x = random_access(), y = random_access();
    mark(&x, sx);
    mark(&y, sy);
    // Runs, elements, bounds and the last run, against the enumeration.
    uint64_t runs = 0, lo = UINT64_MAX, hi = 0;
    FpIter it;
    FpRange r, last = {0, 0};
    for (fp_iter_start(&it, &x); fp_iter_next(&it, &r); runs++) {
      if (r.first < lo) lo = r.first;
      if (r.end > hi) hi = r.end;
      last = r;
    }
    FpRange b = fp_bounds(&x), lr = fp_last_run(&x);
    CHECK(runs == fp_runs(&x) && fp_elems(&x) == runs * x.len, "runs %llu", (unsigned long long)runs);
    CHECK(b.first == lo && b.end == hi, "bounds %llu..%llu, brute %llu..%llu", (unsigned long long)b.first,
          (unsigned long long)b.end, (unsigned long long)lo, (unsigned long long)hi);
    CHECK(lr.first == last.first && lr.end == last.end && lr.end == hi, "last run");
    // Overlap: the lowest common element, when the columns meet.
    uint64_t want = UINT64_MAX;
    int cols = x.col_first < y.col_first + y.col_count && y.col_first < x.col_first + x.col_count;
    for (uint64_t e = 0; cols && e < SPAN && want == UINT64_MAX; e++)
      if (sx[e] && sy[e]) want = e;
    uint64_t got = UINT64_MAX;
    int ov = fp_overlap(&x, &y, &got);
    CHECK(ov == (want != UINT64_MAX) && (!ov || got == want), "overlap %d at %llu, brute force %llu", ov,
          (unsigned long long)got, (unsigned long long)want);
    CHECK(fp_conflict(&x, &y, NULL) == (ov && (x.write || y.write)), "conflict");
    y.space = FP_SPAD;
    CHECK(!fp_overlap(&x, &y, NULL), "different spaces never overlap");
    overlaps += ov;
    if (check_case_failures()) break;
  }
  CHECK(overlaps > 2000 && overlaps < 18000, "both outcomes drawn: %d overlaps", overlaps);
  check_case("helpers_brute_force");
}

int main(void) {
  test_load_gather();
  test_load_accum();
  test_load_transposed();
  test_preload_compute();
  test_compute_os();
  test_compute_is();
  test_store();
  test_no_memory_and_table();
  test_helpers_brute_force();
  return check_status();
}
