// progcheck_test.c: one case per static rule of prog_check / prog_check_insn (isa/progcheck.c):
// each broken program must give its own message, and the exact fits at the ends of every
// memory must be accepted. The arch is small and lopsided (4x6 array) so that rows and
// columns cannot be confused.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../isa/program.h"
#include "../common/check.h"
#include "../common/insnbuild.h"

#define DRAM 4096
#define GBUF 2048

static uint32_t gbuf_bytes = GBUF;   // the global buffer of small_arch (0: none)

static Arch small_arch(void) {
  Arch a;
  arch_default(&a);
  a.rows = 4;         // SPAD row: 4 bytes
  a.cols = 6;         // WBUF/ACC row: 6 int8, PARAM row: 24 bytes
  a.spad_rows = 64;
  a.wbuf_rows = 32;
  a.acc_rows = 40;
  a.param_rows = 6;
  a.dram_bytes = DRAM;
  a.gbuf_bytes = gbuf_bytes;
  return a;
}

static Insn cfg_load(int64_t so, int64_t si, int64_t ss) {
  Insn in = isa_insn(OP_CFG_LOAD);
  in.f[FLD_STRIDE_OUTER] = so;
  in.f[FLD_STRIDE_INNER] = si;
  in.f[FLD_SEG_STRIDE] = ss;
  in.f[FLD_MULT] = 1;
  return in;
}

static Insn preload(int64_t src, int64_t rows) {
  Insn in = isa_insn(OP_PRELOAD);
  in.f[FLD_SRC] = src;
  in.f[FLD_ROWS] = rows;
  return in;
}

static Insn load_t(int64_t dst, int64_t outer, int64_t inner, int64_t nseg, int64_t seglen, int64_t tstride) {
  Insn in = insn_load(MEM_WBUF, dst, 0, outer, inner, nseg, seglen);
  in.f[FLD_TRANSPOSE] = 1;
  in.f[FLD_TSTRIDE] = tstride;
  return in;
}

static Insn cfg_store(int act, int params, int64_t prow, int64_t lo, int64_t hi, int64_t so, int64_t si) {
  Insn in = isa_insn(OP_CFG_STORE);
  in.f[FLD_ACT] = act;
  in.f[FLD_PARAMS] = params;
  in.f[FLD_PROW] = prow;
  in.f[FLD_CLAMP_LO] = lo;
  in.f[FLD_CLAMP_HI] = hi;
  in.f[FLD_STRIDE_OUTER] = so;
  in.f[FLD_STRIDE_INNER] = si;
  return in;
}

// CFG_POOL: k x k window, stride s, padding pt/pl, input h x w.
static Insn cfg_pool(int pool, int64_t k, int64_t s, int64_t pt, int64_t pl, int64_t h, int64_t w) {
  Insn in = isa_insn(OP_CFG_POOL);
  in.f[FLD_POOL] = pool;
  in.f[FLD_KH] = in.f[FLD_KW] = k;
  in.f[FLD_SH] = in.f[FLD_SW] = s;
  in.f[FLD_PAD_T] = pt;
  in.f[FLD_PAD_L] = pl;
  in.f[FLD_IN_H] = h;
  in.f[FLD_IN_W] = w;
  return in;
}

static Insn layer(int64_t id) {
  Insn in = isa_insn(OP_LAYER);
  in.f[FLD_LAYER_ID] = id;
  return in;
}

// Runs seq[0..n) through prog_check_insn. want == NULL: all must pass. Otherwise the first n-1
// must pass and the last must fail with a message containing `want` and the "t.bin: insn N:
// error: " prefix. Ends the case `name`.
static void expect(const char *name, const Insn *seq, int n, const char *want) {
  Arch a = small_arch();
  Program *p = prog_new(&a);
  prog_add_layer(p, "l0");
  prog_add_layer(p, "l1");
  ProgCheckState st;
  memset(&st, 0, sizeof st);
  for (int i = 0; i < n; i++) {
    Diag d;
    diag_init(&d);
    char where[64];
    snprintf(where, sizeof where, "t.bin: insn %d", i);
    int rc = prog_check_insn(p, &st, &seq[i], where, &d);
    if (!want || i < n - 1) {
      CHECK(rc == 0, "insn %d rejected: %s", i, diag_first(&d));
    } else {
      char prefix[64];
      snprintf(prefix, sizeof prefix, "t.bin: insn %d: error: ", i);
      CHECK(rc == -1, "insn %d accepted, expected \"%s\"", i, want);
      CHECK(d.count == 1, "%d messages", d.count);
      CHECK(!strncmp(diag_first(&d), prefix, strlen(prefix)), "bad prefix: %s", diag_first(&d));
      CHECK(strstr(diag_first(&d), want), "message \"%s\" lacks \"%s\"", diag_first(&d), want);
    }
  }
  prog_free(p);
  check_case(name);
}

#define N(arr) ((int)(sizeof(arr) / sizeof(arr)[0]))

static void test_fields(void) {
  Insn a[] = {insn_load(MEM_SPAD, 0, 0, 0, 1, 1, 1)};   // OUTER is a count >= 1
  expect("fields_checked_first", a, N(a), "OUTER=0 out of range");
  Insn b[] = {insn_store(0, 0, 1, 1, 1, 0)};
  b[0].f[FLD_POP] = 1 << UNIT_STORE;
  expect("fields_own_unit_token", b, N(b), "names its own unit");
}

static void test_load_rows(void) {
  Insn ok[] = {insn_load(MEM_SPAD, 60, 0, 2, 2, 1, 4), insn_load(MEM_WBUF, 30, 0, 1, 2, 1, 6), insn_load(MEM_ACC, 0, 0, 5, 8, 1, 6),
               insn_load(MEM_PARAM, 5, 0, 1, 1, 1, 24)};
  expect("load_rows_exact_fit", ok, N(ok), NULL);
  Insn sp[] = {insn_load(MEM_SPAD, 61, 0, 2, 2, 1, 4)};
  expect("load_spad_rows", sp, N(sp), "LOAD writes SPAD rows 61..64, beyond spad.rows=64");
  Insn wb[] = {insn_load(MEM_WBUF, 31, 0, 1, 2, 1, 1)};
  expect("load_wbuf_rows", wb, N(wb), "beyond wbuf.rows=32");
  Insn ac[] = {insn_load(MEM_ACC, 1, 0, 5, 8, 1, 1)};
  expect("load_acc_rows", ac, N(ac), "beyond acc.rows=40");
  Insn pr[] = {insn_load(MEM_PARAM, 6, 0, 1, 1, 1, 4)};
  expect("load_param_rows", pr, N(pr), "beyond param.rows=6");
  Insn big[] = {insn_load(MEM_ACC, 65535, 0, 4095, 4095, 1, 1)};
  expect("load_rows_huge", big, N(big), "beyond acc.rows=40");
}

static void test_load_row_bytes(void) {
  Insn ok[] = {insn_load(MEM_SPAD, 0, 0, 1, 1, 2, 2), insn_load(MEM_WBUF, 0, 0, 1, 1, 3, 2), insn_load(MEM_ACC, 0, 0, 1, 1, 1, 6),
               insn_load(MEM_PARAM, 0, 0, 1, 1, 3, 8)};
  expect("load_row_bytes_exact_fit", ok, N(ok), NULL);
  Insn sp[] = {insn_load(MEM_SPAD, 0, 0, 1, 1, 1, 5)};
  expect("load_spad_row_bytes", sp, N(sp), "LOAD row of 5 bytes (NSEG 1 x SEGLEN 5) exceeds a SPAD row of 4 bytes");
  Insn wb[] = {insn_load(MEM_WBUF, 0, 0, 1, 1, 7, 1)};
  expect("load_wbuf_row_bytes", wb, N(wb), "exceeds a WBUF row of 6 bytes");
  Insn ac[] = {insn_load(MEM_ACC, 0, 0, 1, 1, 1, 7)};
  expect("load_acc_row_bytes", ac, N(ac), "exceeds a ACC row of 6 bytes");
  Insn pa[] = {insn_load(MEM_PARAM, 0, 0, 1, 1, 1, 28)};
  expect("load_param_row_bytes", pa, N(pa), "exceeds a PARAM row of 24 bytes");
  Insn p4[] = {insn_load(MEM_PARAM, 0, 0, 1, 1, 2, 3)};
  expect("load_param_multiple_of_4", p4, N(p4), "not a multiple of 4");
}

static void test_load_accum(void) {
  Insn ok[] = {insn_load(MEM_ACC, 0, 0, 1, 1, 1, 6)};
  ok[0].f[FLD_ACCUM] = 1;
  expect("load_accum_acc", ok, N(ok), NULL);
  Insn bad[] = {insn_load(MEM_SPAD, 0, 0, 1, 1, 1, 4)};
  bad[0].f[FLD_ACCUM] = 1;
  expect("load_accum_needs_acc", bad, N(bad), "LOAD ACCUM=1 needs MEM=ACC");
}

static void test_load_dram(void) {
  // last byte + 1 = addr + 2*100 + 3*10 + 1*3 + 2 = addr + 235
  Insn ok[] = {cfg_load(100, 10, 3), insn_load(MEM_SPAD, 0, DRAM - 235, 3, 4, 2, 2)};
  expect("load_dram_exact_fit", ok, N(ok), NULL);
  Insn bad[] = {cfg_load(100, 10, 3), insn_load(MEM_SPAD, 0, DRAM - 234, 3, 4, 2, 2)};
  expect("load_dram_end", bad, N(bad), "LOAD reads DRAM bytes 0xf16..0x1000, beyond dram.bytes=0x1000");
  // The largest strides and address.
  Insn huge[] = {cfg_load(isa_field_max(FLD_STRIDE_OUTER), isa_field_max(FLD_STRIDE_INNER),
                          isa_field_max(FLD_SEG_STRIDE)),
                 insn_load(MEM_SPAD, 0, isa_field_max(FLD_DRAM_ADDR), 64, 1, 4, 1)};
  expect("load_dram_huge", huge, N(huge), "LOAD reads DRAM bytes 0xffffffff..");
  // Strides of an earlier CFG_LOAD are the ones used.
  Insn later[] = {cfg_load(4000, 0, 0), cfg_load(1, 0, 0), insn_load(MEM_SPAD, 0, 0, 2, 1, 1, 4)};
  expect("load_uses_latest_cfg", later, N(later), NULL);
  Insn first[] = {cfg_load(1, 0, 0), cfg_load(4093, 0, 0), insn_load(MEM_SPAD, 0, 0, 2, 1, 1, 4)};
  expect("load_uses_latest_cfg_bad", first, N(first), "beyond dram.bytes");
}

// GBUF=1: the same address arithmetic against gbuf.bytes, and none at all without a buffer.
static void test_gbuf(void) {
  Insn ok[] = {cfg_load(100, 10, 3), insn_load(MEM_SPAD, 0, GBUF - 235, 3, 4, 2, 2)};
  ok[1].f[FLD_GBUF] = 1;
  expect("load_gbuf_exact_fit", ok, N(ok), NULL);
  Insn bad[] = {cfg_load(100, 10, 3), insn_load(MEM_SPAD, 0, GBUF - 234, 3, 4, 2, 2)};
  bad[1].f[FLD_GBUF] = 1;
  expect("load_gbuf_end", bad, N(bad), "LOAD reads GBUF bytes 0x716..0x800, beyond gbuf.bytes=0x800");
  Insn dram_ok[] = {cfg_load(100, 10, 3), insn_load(MEM_SPAD, 0, DRAM - 235, 3, 4, 2, 2)};
  expect("load_gbuf0_reads_dram", dram_ok, N(dram_ok), NULL);   // GBUF=0 past gbuf.bytes: DRAM
  Insn st_ok[] = {cfg_store(ACT_NONE, 0, 0, 0, 0, 300, 30), insn_store(0, GBUF - 1416, 5, 8, 6, 0)};
  st_ok[1].f[FLD_GBUF] = 1;
  expect("store_gbuf_exact_fit", st_ok, N(st_ok), NULL);
  Insn st_bad[] = {cfg_store(ACT_NONE, 0, 0, 0, 0, 300, 30), insn_store(0, GBUF - 1415, 5, 8, 6, 0)};
  st_bad[1].f[FLD_GBUF] = 1;
  expect("store_gbuf_end", st_bad, N(st_bad), "STORE writes GBUF bytes 0x279..0x800, beyond gbuf.bytes=0x800");
  Insn raw[] = {insn_store(0, GBUF - 23, 1, 1, 6, 1)};
  raw[0].f[FLD_GBUF] = 1;
  expect("store_raw32_gbuf_end", raw, N(raw), "beyond gbuf.bytes=0x800");
  gbuf_bytes = 0;
  Insn none[] = {insn_load(MEM_SPAD, 0, 0, 1, 1, 1, 1)};
  none[0].f[FLD_GBUF] = 1;
  expect("load_gbuf_none", none, N(none), "LOAD reads the global buffer (GBUF=1), but this arch has none (gbuf.bytes=0)");
  Insn st_none[] = {insn_store(0, 0, 1, 1, 1, 0)};
  st_none[0].f[FLD_GBUF] = 1;
  expect("store_gbuf_none", st_none, N(st_none), "STORE writes the global buffer (GBUF=1), but this arch has none");
  gbuf_bytes = GBUF;
}

static void test_preload_compute(void) {
  Insn ok[] = {preload(28, 4), insn_compute(60, 36, 4)};
  expect("preload_compute_exact_fit", ok, N(ok), NULL);
  Insn rows[] = {preload(0, 5)};
  expect("preload_rows", rows, N(rows), "PRELOAD ROWS=5 exceeds array.rows=4");
  Insn wb[] = {preload(29, 4)};
  expect("preload_wbuf", wb, N(wb), "PRELOAD reads WBUF rows 29..32, beyond wbuf.rows=32");
  Insn sp[] = {preload(0, 4), insn_compute(61, 0, 4)};
  expect("compute_spad", sp, N(sp), "COMPUTE reads SPAD rows 61..64, beyond spad.rows=64");
  Insn ac[] = {preload(0, 4), insn_compute(0, 37, 4)};
  expect("compute_acc", ac, N(ac), "COMPUTE writes ACC rows 37..40, beyond acc.rows=40");
  Insn nopre[] = {insn_compute(0, 0, 1)};
  expect("compute_before_preload", nopre, N(nopre), "COMPUTE before any PRELOAD");
}

// COMPUTE_OS needs no PRELOAD; KLEN = 10 on 4 array rows is J = 3 blocks, the last at SRC + 2*KSTRIDE.
static void test_compute_os(void) {
  Insn ok[] = {insn_compute_os(0, 30, 22, 10, 36, 4, 0)};   // SPAD 60..63, WBUF 22..31, ACC 36..39
  expect("compute_os_exact_fit", ok, N(ok), NULL);
  Insn rows[] = {insn_compute_os(0, 4, 0, 4, 0, 5, 0)};
  expect("compute_os_rows", rows, N(rows), "COMPUTE_OS ROWS=5 exceeds array.rows=4");
  Insn sp[] = {insn_compute_os(1, 30, 0, 10, 0, 4, 0)};
  expect("compute_os_spad", sp, N(sp), "COMPUTE_OS reads SPAD rows 61..64, beyond spad.rows=64");
  Insn wb[] = {insn_compute_os(0, 4, 23, 10, 0, 4, 0)};
  expect("compute_os_wbuf", wb, N(wb), "COMPUTE_OS reads WBUF rows 23..32, beyond wbuf.rows=32");
  Insn wbk[] = {insn_compute_os(0, 0, 0, 33, 0, 1, 0)};   // KLEN alone past the weight buffer
  expect("compute_os_klen", wbk, N(wbk), "COMPUTE_OS reads WBUF rows 0..32, beyond wbuf.rows=32");
  Insn ac[] = {insn_compute_os(0, 4, 0, 4, 37, 4, 0)};
  expect("compute_os_acc", ac, N(ac), "COMPUTE_OS writes ACC rows 37..40, beyond acc.rows=40");
  Insn k0[] = {insn_compute_os(0, 4, 0, 0, 0, 4, 0)};
  expect("compute_os_klen_zero", k0, N(k0), "KLEN=0 out of range");
}

// Input-stationary: a transposed LOAD writes column blocks of C = 6 LOAD rows TSTRIDE rows apart,
// each NSEG*SEGLEN rows long (longer than a WBUF row is fine); COMPUTE_IS writes COLS ACC rows
// per block of C streamed rows, ASTRIDE apart.
static void test_input_stationary(void) {
  Insn ok[] = {load_t(2, 2, 4, 4, 5, 10), preload(0, 4), insn_compute_is(52, 30, 12, 4, 6, 0)};
  expect("is_exact_fit", ok, N(ok), NULL);    // WBUF 12..31; SPAD 52..63; ACC 34..39
  Insn lt[] = {load_t(3, 2, 4, 4, 5, 10)};
  expect("is_load_wbuf", lt, N(lt), "transposed LOAD writes WBUF rows 13..32, beyond wbuf.rows=32");
  Insn lm[] = {insn_load(MEM_SPAD, 0, 0, 1, 1, 1, 4)};
  lm[0].f[FLD_TRANSPOSE] = 1;
  expect("is_load_needs_wbuf", lm, N(lm), "LOAD TRANSPOSE=1 needs MEM=WBUF");
  Insn ls[] = {insn_load(MEM_WBUF, 0, 0, 1, 1, 1, 4)};
  ls[0].f[FLD_TSTRIDE] = 3;
  expect("is_tstride_needs_transpose", ls, N(ls), "LOAD TSTRIDE=3 needs TRANSPOSE=1");
  Insn ac[] = {preload(0, 4), insn_compute_is(52, 31, 12, 4, 6, 0)};
  expect("is_compute_acc", ac, N(ac), "COMPUTE_IS writes ACC rows 35..40, beyond acc.rows=40");
  Insn sp[] = {preload(0, 4), insn_compute_is(53, 0, 12, 4, 6, 0)};
  expect("is_compute_spad", sp, N(sp), "COMPUTE_IS reads SPAD rows 53..64, beyond spad.rows=64");
  Insn co[] = {preload(0, 4), insn_compute_is(0, 0, 1, 0, 7, 0)};
  expect("is_compute_cols", co, N(co), "COMPUTE_IS COLS=7 exceeds array.cols=6");
  Insn np[] = {insn_compute_is(0, 0, 1, 0, 1, 0)};
  expect("is_compute_before_preload", np, N(np), "COMPUTE_IS before any PRELOAD");
}

// ---- the special-function unit (docs/ISA.md sections 6.8, 7) ----

static Insn sfu_map(int64_t src, int64_t dst, int64_t rows) {
  Insn in = isa_insn(OP_SFU_MAP);
  in.f[FLD_SRC] = src;
  in.f[FLD_ACC_ADDR] = dst;
  in.f[FLD_ROWS] = rows;
  return in;
}

static Insn sfu_ew(int64_t src, int64_t src2, int64_t dst, int64_t rows, int bcast) {
  Insn in = isa_insn(OP_SFU_EW);
  in.f[FLD_SRC] = src;
  in.f[FLD_SRC2] = src2;
  in.f[FLD_ACC_ADDR] = dst;
  in.f[FLD_ROWS] = rows;
  in.f[FLD_BCAST] = bcast;
  return in;
}

static Insn sfu_row(Opcode op, int64_t src, int64_t dst, int64_t rows, int64_t len, int64_t sstride) {
  Insn in = isa_insn(op);
  in.f[FLD_SRC] = src;
  in.f[FLD_ACC_ADDR] = dst;
  in.f[FLD_ROWS] = rows;
  in.f[FLD_LEN] = len;
  in.f[FLD_SSTRIDE] = sstride;
  return in;
}

static void test_sfu(void) {
  // C = 6: LEN = 13 is S = 3 segments; ROWS = 2 rows SSTRIDE = 2 apart span 2*2 + 2 = 6 ACC rows.
  Insn ok[] = {sfu_map(0, 0, 40), sfu_map(0, 20, 20), sfu_ew(0, 0, 0, 40, 0), sfu_ew(0, 39, 0, 39, 1),
               sfu_row(OP_SFU_SOFTMAX, 34, 34, 2, 13, 2), sfu_row(OP_SFU_SOFTMAX, 0, 34, 2, 13, 2),
               sfu_row(OP_SFU_LAYERNORM, 0, 6, 2, 12, 2), sfu_row(OP_SFU_REDUCE, 0, 38, 2, 13, 2),
               sfu_row(OP_SFU_REDUCE, 38, 38, 2, 6, 0)};
  ok[6].f[FLD_PBASE] = 0;   // 2 segments: PARAM rows 0..5 = param.rows
  Insn cfg = isa_insn(OP_CFG_SFU);
  cfg.f[FLD_EPS] = (1ll << 48) - (1ll << 46) - 1;
  Insn ok2[] = {cfg};
  expect("sfu_exact_fits", ok, N(ok), NULL);
  expect("sfu_eps_largest", ok2, N(ok2), NULL);
  cfg.f[FLD_EPS]++;
  Insn eps[] = {cfg};
  expect("sfu_eps_range", eps, N(eps), "CFG_SFU EPS=211106232532992 is not below 2^48 - 2^46");
  Insn m1[] = {sfu_map(1, 0, 40)};
  expect("sfu_map_reads_acc", m1, N(m1), "SFU_MAP reads ACC rows 1..40, beyond acc.rows=40");
  Insn m2[] = {sfu_map(0, 1, 40)};
  expect("sfu_map_writes_acc", m2, N(m2), "SFU_MAP writes ACC rows 1..40, beyond acc.rows=40");
  Insn m3[] = {sfu_map(0, 35, 6)};
  expect("sfu_map_dst_past_acc", m3, N(m3), "SFU_MAP writes ACC rows 35..40, beyond acc.rows=40");
  Insn o1[] = {sfu_map(0, 2, 4)};
  expect("sfu_overlap", o1, N(o1), "SFU_MAP reads ACC row 2, which it also writes as another row (ACC_ADDR=2): a "
                                   "source must be the destination itself or apart from it");
  Insn o2[] = {sfu_ew(0, 5, 4, 4, 0)};
  expect("sfu_ew_src2_overlap", o2, N(o2), "SFU_EW reads ACC row 5, which it also writes as another row (ACC_ADDR=4)");
  Insn o3[] = {sfu_ew(0, 5, 4, 4, 1)};   // BCAST: SRC2 is one row, 5, inside the destination 4..7
  expect("sfu_ew_bcast_overlap", o3, N(o3), "SFU_EW reads ACC row 5, which it also writes as another row");
  Insn o4[] = {sfu_ew(0, 40, 4, 4, 1)};
  expect("sfu_ew_src2_past_acc", o4, N(o4), "SFU_EW reads ACC rows 40..40, beyond acc.rows=40");
  Insn o5[] = {sfu_row(OP_SFU_REDUCE, 0, 0, 2, 13, 2)};   // 3 segments in, 2 rows out at the first
  expect("sfu_reduce_overlap", o5, N(o5), "SFU_REDUCE reads ACC row 0, which it also writes as another row");
  Insn o6[] = {sfu_row(OP_SFU_SOFTMAX, 0, 1, 2, 13, 2)};
  expect("sfu_softmax_overlap", o6, N(o6), "SFU_SOFTMAX reads ACC row 1, which it also writes as another row");
  Insn s1[] = {sfu_row(OP_SFU_SOFTMAX, 0, 0, 3, 13, 2)};
  expect("sfu_sstride_rows", s1, N(s1), "SFU_SOFTMAX SSTRIDE=2 is less than ROWS=3 with 3 segments per row (LEN=13): "
                                        "rows would share segments");
  Insn s2[] = {sfu_row(OP_SFU_REDUCE, 0, 30, 3, 6, 0)};   // one segment: SSTRIDE unused
  expect("sfu_sstride_one_segment", s2, N(s2), NULL);
  Insn r1[] = {sfu_row(OP_SFU_LAYERNORM, 30, 30, 2, 13, 4)};   // 30 + 2*4 + 1 = 39: inside; PARAM 0..8 is not
  expect("sfu_layernorm_param", r1, N(r1), "SFU_LAYERNORM reads PARAM rows 0..8, beyond param.rows=6");
  Insn r2[] = {sfu_row(OP_SFU_SOFTMAX, 31, 31, 2, 13, 4)};   // segments at 31, 35, 39; row 1's last at 40
  expect("sfu_rows_past_acc", r2, N(r2), "SFU_SOFTMAX reads ACC rows 39..40, beyond acc.rows=40");
  Insn r3[] = {sfu_row(OP_SFU_REDUCE, 0, 39, 2, 6, 0)};
  expect("sfu_reduce_dst_past_acc", r3, N(r3), "SFU_REDUCE writes ACC rows 39..40, beyond acc.rows=40");
}

static void test_store(void) {
  // 5x8 rows from ACC 0 exactly fill acc.rows=40; last DRAM byte + 1 = addr + 4*300 + 7*30 + 6.
  Insn ok[] = {cfg_store(ACT_RELU, 1, 3, 0, 0, 300, 30), insn_store(0, DRAM - 1416, 5, 8, 6, 0)};
  expect("store_exact_fit", ok, N(ok), NULL);
  Insn cols[] = {insn_store(0, 0, 1, 1, 7, 0)};
  expect("store_cols", cols, N(cols), "STORE COLS=7 exceeds array.cols=6");
  Insn acc[] = {insn_store(1, 0, 5, 8, 6, 0)};
  expect("store_acc_rows", acc, N(acc), "STORE reads ACC rows 1..40, beyond acc.rows=40");
  Insn dram[] = {cfg_store(ACT_NONE, 0, 0, 0, 0, 300, 30), insn_store(0, DRAM - 1415, 5, 8, 6, 0)};
  expect("store_dram_end", dram, N(dram), "STORE writes DRAM bytes");
  Insn raw_ok[] = {insn_store(0, DRAM - 24, 1, 1, 6, 1)};
  expect("store_raw32_exact_fit", raw_ok, N(raw_ok), NULL);
  Insn raw[] = {insn_store(0, DRAM - 23, 1, 1, 6, 1)};
  expect("store_raw32_dram_end", raw, N(raw), "beyond dram.bytes=0x1000");
  Insn prow[] = {cfg_store(ACT_NONE, 1, 4, 0, 0, 0, 0), insn_store(0, 0, 1, 1, 1, 0)};
  expect("store_param_rows", prow, N(prow), "STORE reads PARAM rows 4..6, beyond param.rows=6");
  Insn prow_off[] = {cfg_store(ACT_NONE, 0, 4, 0, 0, 0, 0), insn_store(0, 0, 1, 1, 1, 0)};
  expect("store_param_rows_unused", prow_off, N(prow_off), NULL);
}

static void test_store_pool(void) {
  // 4x4 input at ACC rows 24..39, 2x2 windows, stride 2, padding 1: outputs 3x3 (last window
  // starts at input row 3, inside).
  Insn ok[] = {cfg_pool(POOL_MAX, 2, 2, 1, 1, 4, 4), insn_store(24, 0, 3, 3, 6, 0)};
  expect("pool_exact_fit", ok, N(ok), NULL);
  Insn raw[] = {cfg_pool(POOL_AVG, 2, 2, 0, 0, 2, 2), insn_store(0, 0, 1, 1, 6, 1)};
  expect("pool_raw32", raw, N(raw), "STORE RAW32=1 cannot be pooled (POOL=AVG)");
  Insn acc[] = {cfg_pool(POOL_MAX, 2, 2, 0, 0, 4, 4), insn_store(25, 0, 2, 2, 6, 0)};
  expect("pool_acc_rows", acc, N(acc), "STORE pooling reads ACC rows 25..40, beyond acc.rows=40");
  Insn pt[] = {cfg_pool(POOL_MAX, 2, 2, 0, 0, 4, 4), insn_store(0, 0, 1, 1, 6, 0)};
  pt[0].f[FLD_PAD_T] = 2;
  expect("pool_pad_t", pt, N(pt), "PAD_T=2 must be less than KH=2");
  Insn pl[] = {cfg_pool(POOL_MAX, 3, 2, 0, 3, 4, 4), insn_store(0, 0, 1, 1, 6, 0)};
  expect("pool_pad_l", pl, N(pl), "PAD_L=3 must be less than KW=3");
  // Without padding, a third window row would start at input row 4: all of it outside.
  Insn rows[] = {cfg_pool(POOL_MAX, 2, 2, 0, 0, 4, 4), insn_store(0, 0, 3, 2, 6, 0)};
  expect("pool_window_rows", rows, N(rows), "window of output row 2 starts at input row 4, past IN_H=4");
  Insn cols[] = {cfg_pool(POOL_MAX, 2, 2, 0, 0, 4, 4), insn_store(0, 0, 2, 3, 6, 0)};
  expect("pool_window_cols", cols, N(cols), "window of output column 2 starts at input column 4, past IN_W=4");
  // After CFG_POOL NONE, rows count as OUTER*INNER again.
  Insn none[] = {cfg_pool(POOL_MAX, 2, 2, 1, 1, 4, 4), cfg_pool(POOL_NONE, 1, 1, 0, 0, 1, 1), insn_store(0, 0, 5, 8, 6, 1)};
  expect("pool_none_again", none, N(none), NULL);
}

static void test_cfg_store_layer(void) {
  Insn ok[] = {cfg_store(ACT_CLAMP, 0, 0, -5, -5, 0, 0), cfg_store(ACT_RELU, 0, 0, 5, -5, 0, 0)};
  expect("clamp_equal_ok", ok, N(ok), NULL);
  Insn bad[] = {cfg_store(ACT_CLAMP, 0, 0, 5, -5, 0, 0)};
  expect("clamp_lo_gt_hi", bad, N(bad), "CFG_STORE ACT=CLAMP needs CLAMP_LO <= CLAMP_HI (5 > -5)");
  Insn l_ok[] = {layer(0), layer(1)};
  expect("layer_named", l_ok, N(l_ok), NULL);
  Insn l_bad[] = {layer(2)};
  expect("layer_unnamed", l_bad, N(l_bad), "LAYER_ID=2 has no name (the program names 2 layers)");
  Insn after[] = {isa_insn(OP_HALT), layer(0)};
  expect("insn_after_halt", after, N(after), "instruction after HALT");
}

// ---- whole programs (prog_check) ----

static Program *valid_program(void) {
  Arch a = small_arch();
  Program *p = prog_new(&a);
  prog_add_layer(p, "l0");
  Insn code[] = {layer(0), cfg_load(4, 0, 0), insn_load(MEM_SPAD, 0, 0, 4, 1, 1, 4), insn_load(MEM_WBUF, 0, 64, 4, 1, 1, 6),
                 preload(0, 4), insn_compute(0, 0, 4), insn_store(0, 128, 4, 1, 6, 0), isa_insn(OP_HALT)};
  for (int i = 0; i < N(code); i++) prog_add_insn(p, &code[i]);
  TensorInfo t = {.name = "A", .dtype = DT_INT8, .role = ROLE_INPUT, .ndim = 2, .dims = {4, 4}, .addr = 0};
  prog_dense_strides(&t);
  prog_add_tensor(p, &t);
  TensorInfo c = {.name = "C", .dtype = DT_INT32, .role = ROLE_OUTPUT, .ndim = 1, .dims = {8}, .addr = DRAM - 32,
                  .scale = 0.5};
  prog_dense_strides(&c);
  prog_add_tensor(p, &c);
  uint8_t bytes[16] = {1, 2, 3};
  prog_add_data(p, 0, bytes, 16);
  prog_add_data(p, 16, bytes, 16);          // adjacent: fine
  prog_add_data(p, DRAM - 16, bytes, 16);   // at the very end: fine
  return p;
}

// prog_check(p) must fail with `want` in its first message (or pass when want is NULL). Frees p.
static void expect_prog(const char *name, Program *p, const char *want) {
  Diag d;
  diag_init(&d);
  int rc = prog_check(p, "t.bin", &d);
  if (!want) {
    CHECK(rc == 0, "rejected: %s", diag_first(&d));
  } else {
    CHECK(rc == -1, "accepted, expected \"%s\"", want);
    CHECK(strstr(diag_first(&d), want), "message \"%s\" lacks \"%s\"", diag_first(&d), want);
  }
  prog_free(p);
  check_case(name);
}

static void test_program_halt(void) {
  expect_prog("program_valid", valid_program(), NULL);
  Arch a = small_arch();
  expect_prog("program_empty", prog_new(&a), "t.bin: error: empty program");
  Program *p = valid_program();
  p->n_insns--;
  expect_prog("program_no_halt", p, "t.bin: insn 6: error: program does not end with HALT");
  p = valid_program();
  Insn h = isa_insn(OP_HALT);
  prog_add_insn(p, &h);
  expect_prog("program_two_halts", p, "t.bin: insn 8: error: instruction after HALT");
  p = valid_program();
  isa_word_set(&p->code[2], FLD_DST, 61);
  expect_prog("program_reports_insn", p, "t.bin: insn 2: error: LOAD writes SPAD rows 61..64");
  p = valid_program();
  p->arch.rows = 0;
  expect_prog("program_bad_arch", p, "array.rows");
}

static void test_program_tensors(void) {
  Program *p = valid_program();
  p->tensors[0].name[0] = 0;
  expect_prog("tensor_empty_name", p, "t.bin: tensor 0: error: empty name");
  p = valid_program();
  memset(p->tensors[1].name, 'x', PROG_NAME_MAX);
  expect_prog("tensor_name_unterminated", p, "t.bin: tensor 1: error: name is not NUL-terminated");
  p = valid_program();
  strcpy(p->tensors[1].name, "A");
  expect_prog("tensor_duplicate", p, "t.bin: tensor \"A\": error: duplicate name");
  p = valid_program();
  p->tensors[0].ndim = 0;
  expect_prog("tensor_ndim_0", p, "tensor \"A\": error: ndim 0 out of range [1, 8]");
  p = valid_program();
  p->tensors[0].ndim = 9;
  expect_prog("tensor_ndim_9", p, "ndim 9 out of range");
  p = valid_program();
  p->tensors[0].dims[1] = 0;
  expect_prog("tensor_dim_0", p, "tensor \"A\": error: dims[1] is 0");
  p = valid_program();
  p->tensors[0].dtype = (DType)3;
  expect_prog("tensor_dtype", p, "invalid dtype 3");
  p = valid_program();
  p->tensors[0].role = (TensorRole)0;
  expect_prog("tensor_role", p, "invalid role 0");
  p = valid_program();
  p->tensors[0].scale = NAN;
  expect_prog("tensor_scale_nan", p, "is not a finite number >= 0");
  p = valid_program();
  p->tensors[0].scale = INFINITY;
  expect_prog("tensor_scale_inf", p, "is not a finite number >= 0");
  p = valid_program();
  p->tensors[0].scale = -1;
  expect_prog("tensor_scale_negative", p, "scale -1 is not");
  p = valid_program();
  p->tensors[1].addr = DRAM - 31;
  expect_prog("tensor_past_dram", p, "tensor \"C\": error: spans DRAM bytes 0xfe1..0x1000, beyond dram.bytes=0x1000");
  p = valid_program();
  p->tensors[0].strides[0] = UINT64_MAX / 2;   // (4-1) * stride would overflow 64 bits
  expect_prog("tensor_span_overflow", p, "tensor \"A\": error: strides[0]=9223372036854775807 exceeds dram.bytes");
  p = valid_program();   // stride 0: a tiny span, but 2^62 elements to copy in or out
  p->tensors[0].ndim = 2;
  p->tensors[0].dims[0] = p->tensors[0].dims[1] = 2147483648u;
  p->tensors[0].strides[0] = p->tensors[0].strides[1] = 0;
  expect_prog("tensor_elements_exceed_dram", p, "tensor \"A\": error: 4611686018427387904 bytes of elements exceed");
  p = valid_program();
  p->tensors[0].addr = UINT64_MAX;
  expect_prog("tensor_addr_overflow", p, "tensor \"A\": error: spans DRAM");
}

static void test_program_data(void) {
  Program *p = valid_program();
  p->chunks[2].addr = DRAM - 15;
  expect_prog("data_past_dram", p, "t.bin: data chunk 2: error: 16 bytes at 0xff1 pass the end of DRAM");
  p = valid_program();
  p->chunks[2].addr = UINT64_MAX - 4;
  expect_prog("data_addr_overflow", p, "data chunk 2: error");
  p = valid_program();
  p->chunks[1].addr = 15;
  expect_prog("data_overlap", p, "t.bin: data chunk 1: error: bytes 0xf..0x1e overlap data chunk 0 (0x0..0xf)");
  // An overlap hidden behind an empty chunk in address order is still found.
  p = valid_program();
  uint8_t b[4] = {0};
  prog_add_data(p, 4, b, 0);
  prog_add_data(p, 8, b, 4);
  expect_prog("data_overlap_past_empty", p, "overlap data chunk 0");
}

int main(void) {
  test_fields();
  test_load_rows();
  test_load_row_bytes();
  test_load_accum();
  test_load_dram();
  test_gbuf();
  test_preload_compute();
  test_compute_os();
  test_input_stationary();
  test_sfu();
  test_store();
  test_store_pool();
  test_cfg_store_layer();
  test_program_halt();
  test_program_tensors();
  test_program_data();
  return check_status();
}
