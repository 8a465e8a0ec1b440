// asm_test.c: tests the assembler and disassembler (isa/asm*.c): every instruction and every
// field extreme survives disassemble -> assemble; every shipped program round-trips text ->
// binary -> text -> binary byte for byte; each error names its file:line:col; data= forms
// (seed, list, zeros, .npy); names that need quoting; .data/.bytes chunk boundaries; the
// shipped arch files. Run from the repository root.
#include "../../isa/asm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/npy.h"
#include "../../sim/sim.h"
#include "../common/check.h"
#include "../common/gemmprog.h"
#include "../common/randprog.h"
#include "../common/shipped.h"

// ---- helpers ----

static Program *assemble(const char *text, const char *file) {
  Diag d;
  diag_init(&d);
  Program *p;
  if (asm_assemble(text, strlen(text), file, &p, &d)) {
    CHECK(0, "%s: unexpected error: %s", file, diag_first(&d));
    return NULL;
  }
  return p;
}

// prog_write of p without compression; caller frees.
static uint8_t *write_bin(const Program *p, size_t *n) {
  Diag d;
  diag_init(&d);
  uint8_t *b = NULL;
  if (prog_write(p, 0, &b, n, &d)) {
    CHECK(0, "prog_write: %s", diag_first(&d));
    return NULL;
  }
  return b;
}

// p -> binary -> prog_read -> text -> assemble -> binary: both binaries identical, and the
// text a fixed point of disassemble . assemble. `what` names p in messages.
static void check_round_trip(const Program *p, const char *what) {
  size_t n1 = 0, n3 = 0;
  uint8_t *b1 = write_bin(p, &n1);
  if (!b1) return;
  Diag d;
  diag_init(&d);
  Program *p2 = NULL, *p3 = NULL;
  char *t2 = NULL, *t3 = NULL;
  uint8_t *b3 = NULL;
  if (prog_read(b1, n1, what, &p2, &d)) {
    CHECK(0, "%s: prog_read: %s", what, diag_first(&d));
    goto out;
  }
  t2 = asm_disassemble(p2);
  CHECK(t2 != NULL, "%s: disassemble", what);
  if (!t2) goto out;
  if (asm_assemble(t2, strlen(t2), "disasm.s", &p3, &d)) {
    CHECK(0, "%s: reassembling the disassembly: %s", what, diag_first(&d));
    goto out;
  }
  b3 = write_bin(p3, &n3);
  CHECK(b3 && n1 == n3 && !memcmp(b1, b3, n1), "%s: binaries differ after text -> binary -> text -> binary", what);
  t3 = asm_disassemble(p3);
  CHECK(t3 && !strcmp(t2, t3), "%s: disassembly is not a fixed point", what);
out:
  free(b1);
  free(b3);
  free(t2);
  free(t3);
  prog_free(p2);
  prog_free(p3);
}

// Assembling `text` (as file "t.s") must fail with exactly the message `want`.
static void expect_error(const char *text, const char *want) {
  Diag d;
  diag_init(&d);
  Program *p = (Program *)1;
  int rc = asm_assemble(text, strlen(text), "t.s", &p, &d);
  CHECK(rc == -1 && p == NULL, "accepted: %s", text);
  CHECK(!strcmp(diag_first(&d), want), "\n  got:  %s\n  want: %s", diag_first(&d), want);
  if (rc == 0) prog_free(p);
}

static const char *const HEAD =   // lines 1-4 of many error tests
    ".arch default\n"
    ".tensor X dtype=int8 shape=[16,16] addr=0x100 role=input\n"
    "PRELOAD src=0 rows=16\n"
    "CFG_LOAD stride_inner=16\n";

static void expect_error_after_head(const char *lines, const char *want) {
  char text[2048];
  snprintf(text, sizeof text, "%s%s", HEAD, lines);
  expect_error(text, want);
}

// ---- every instruction, every field at its extremes ----

// The largest machine, so that field extremes pass prog_check_insn where they can.
static Arch big_arch(void) {
  Arch a;
  arch_default(&a);
  a.rows = a.cols = ARCH_MAX_DIM;
  a.spad_rows = a.wbuf_rows = a.acc_rows = a.param_rows = ARCH_MAX_MEM_ROWS;
  a.dram_bytes = 1ull << 32;
  return a;
}


// Adds `in` when it passes prog_check_insn after the program so far; returns 1 if added.
static int try_add(Program *p, ProgCheckState *st, const Insn *in) {
  ProgCheckState save = *st;
  Diag d;
  diag_init(&d);
  if (prog_check_insn(p, st, in, "x", &d)) {
    *st = save;
    return 0;
  }
  return prog_add_insn(p, in) == 0;
}

static void test_every_insn(void) {
  Arch a = big_arch();
  Program *p = prog_new(&a);
  prog_add_layer(p, "l0");
  ProgCheckState st;
  memset(&st, 0, sizeof st);
  Insn pre = isa_insn(OP_PRELOAD);
  try_add(p, &st, &pre);
  int per_op[ISA_NUM_OPCODES] = {0}, fields_tried = 0, fields_added = 0;
  for (int op = 0; op < ISA_NUM_OPCODES; op++) {
    if (!isa_ops[op].name || op == OP_HALT) continue;
    Insn base = isa_insn((Opcode)op);
    per_op[op] += try_add(p, &st, &base);
    for (int f = 0; f < FLD_COUNT; f++) {
      if (f == FLD_OP || !isa_has_field((Opcode)op, (FieldId)f)) continue;
      const FieldInfo *fi = &isa_fields[f];
      int64_t vals[3] = {isa_field_min((FieldId)f), isa_field_max((FieldId)f), 0};
      int nv = 2;
      if (fi->kind == K_E) {   // every symbol
        nv = 0;
        for (int e = 0; e < isa_num_enums && nv < 3; e++)
          if (isa_enums[e].set == fi->eset) vals[nv++] = isa_enums[e].value;
      } else if (fi->kind == K_UNITS) {   // every unit but its own, all of them
        nv = 0;
        vals[nv++] = 7 & ~(1 << isa_ops[op].unit);
        vals[nv++] = (1 << ((isa_ops[op].unit + 1) % 3));
      }
      for (int k = 0; k < nv; k++) {
        Insn in = base;
        in.f[f] = vals[k];
        if (f == FLD_LAYER_ID) in.f[f] = 0;
        fields_tried++;
        if (try_add(p, &st, &in)) {
          fields_added++;
          per_op[op]++;
        }
      }
    }
  }
  Insn halt = isa_insn(OP_HALT);
  per_op[OP_HALT] = try_add(p, &st, &halt);
  for (int op = 0; op < ISA_NUM_OPCODES; op++)
    if (isa_ops[op].name) CHECK(per_op[op] > 0, "no %s instruction in the test program", isa_ops[op].name);
  CHECK(fields_added * 4 >= fields_tried * 3, "only %d of %d field extremes are legal", fields_added, fields_tried);
  check_round_trip(p, "every_insn");
  // The disassembly names every field of every format: reassembled instructions are equal.
  char *text = asm_disassemble(p);
  Program *q = text ? assemble(text, "every.s") : NULL;
  CHECK(q && q->n_insns == p->n_insns, "instruction count");
  for (uint32_t i = 0; q && i < p->n_insns && i < q->n_insns; i++)
    CHECK(!memcmp(&p->code[i], &q->code[i], sizeof(InsnWord)), "insn %u (%s) differs", i, isa_ops[prog_op(p, i)].name);
  free(text);
  prog_free(q);
  prog_free(p);
  check_case("asm_every_insn_and_field_extreme");
}

// COMPUTE_OS in text: operands in any order and case, then disassembled and assembled again.
static void test_compute_os_text(void) {
  const char *a = ".arch default\nCOMPUTE_OS pop=load push=store accum=1 src=3 acc_addr=9 rows=4 wsrc=7 klen=6 kstride=5\nHALT\n";
  const char *b = ".arch default\ncompute_os KSTRIDE=0x5 klen=6 Wsrc=7 rows=4 acc_addr=9 src=3 accum=1 push=store pop=load\nhalt\n";
  Program *p = assemble(a, "a.s"), *q = assemble(b, "b.s");
  CHECK(p && q, "compute_os does not assemble");
  if (p && q) {
    Insn in = prog_insn(p, 0);
    const int64_t *f = in.f;
    CHECK(in.op == OP_COMPUTE_OS && f[FLD_SRC] == 3 && f[FLD_ACC_ADDR] == 9 && f[FLD_ROWS] == 4 &&
              f[FLD_WSRC] == 7 && f[FLD_KLEN] == 6 && f[FLD_KSTRIDE] == 5 && f[FLD_ACCUM] == 1 &&
              f[FLD_POP] == 1 && f[FLD_PUSH] == 4,
          "compute_os fields");
    CHECK(!memcmp(&p->code[0], &q->code[0], sizeof(InsnWord)), "spellings give different COMPUTE_OS");
    check_round_trip(p, "compute_os");
  }
  prog_free(p);
  prog_free(q);
  check_case("asm_compute_os_round_trip");
}

// Spellings that must give the same instruction.
static void test_spellings(void) {
  const char *a =
      ".arch default\n.tensor T dtype=int8 shape=[4] addr=0x40 role=input\n"
      "LOAD pop=- push=compute|store mem=wbuf dst=3 dram_addr=0x44 outer=1 inner=2 nseg=1 seglen=4\n"
      "CFG_LOAD mult=-5 shift=7\nPRELOAD src=0 rows=1\nCFG_STORE act=clamp clamp_lo=-128 clamp_hi=127\nHALT\n";
  const char *b =
      ".ARCH default ; comment\n  .tensor T   dtype=int8 shape=[ 4 ] addr=64 role=input   # another\n"
      "\tload  seglen=4 nseg=1 inner=2 outer=1 dram_addr=T+4 DST=0x3 mem=WBUF push=STORE,compute\n"
      "cfg_load shift=0x7 mult=-0x5\r\nPreload rows=1\ncfg_store act=Clamp clamp_hi=0x7f clamp_lo=-128\nhalt";
  Program *p = assemble(a, "a.s"), *q = assemble(b, "b.s");
  if (p && q) {
    size_t n1 = 0, n2 = 0;
    uint8_t *b1 = write_bin(p, &n1), *b2 = write_bin(q, &n2);
    CHECK(b1 && b2 && n1 == n2 && !memcmp(b1, b2, n1), "spellings give different binaries");
    Insn q0 = prog_insn(q, 0), q1 = prog_insn(q, 1);
    CHECK(q0.f[FLD_PUSH] == 6 && q0.f[FLD_DRAM_ADDR] == 0x44 && q1.f[FLD_MULT] == -5,
          "field values");
    free(b1);
    free(b2);
  }
  prog_free(p);
  prog_free(q);
  check_case("asm_spellings");
}

// pop=sfu / push=sfu: the own-unit bit of the word (docs/ISA.md section 3), through text, binary
// and the disassembly and back; an instruction naming its own unit is refused.
static void test_sfu_unit_sets(void) {
  const char *t =
      ".arch {\"array\": {\"rows\": 4, \"cols\": 4}}\n.tensor X dtype=int8 shape=[4,4] addr=0x100 role=input data=zeros\n"
      "LOAD push=sfu mem=acc dst=0 dram_addr=X outer=1 inner=4 nseg=1 seglen=4\n"
      "SFU_MAP pop=load push=store|compute fn=gelu src=0 acc_addr=0 rows=4\n"
      "PRELOAD pop=sfu src=0 rows=1\n"
      "STORE pop=sfu push=sfu raw32=1 src=0 dram_addr=X outer=1 inner=1 cols=4\n"
      "SFU_EW pop=store ewop=add src=0 src2=1 acc_addr=0 rows=1\nHALT\n";
  Program *p = assemble(t, "sfu.s");
  if (p) {
    Insn ld = prog_insn(p, 0), map = prog_insn(p, 1), pre = prog_insn(p, 2), st = prog_insn(p, 3);
    CHECK(ld.f[FLD_PUSH] == 1 << UNIT_SFU && isa_word_bits(&p->code[0], isa_fields[FLD_PUSH].lsb, 3) == 1,
          "LOAD push=sfu: set %lld", (long long)ld.f[FLD_PUSH]);
    CHECK(map.f[FLD_POP] == 1 << UNIT_LOAD && map.f[FLD_PUSH] == (1 << UNIT_STORE | 1 << UNIT_COMPUTE) &&
              isa_word_bits(&p->code[1], isa_fields[FLD_PUSH].lsb, 3) == 6,
          "SFU_MAP pop=load push=store|compute");
    CHECK(pre.f[FLD_POP] == 1 << UNIT_SFU && isa_word_bits(&p->code[2], isa_fields[FLD_POP].lsb, 3) == 2,
          "PRELOAD pop=sfu is the compute bit");
    CHECK(st.f[FLD_POP] == 1 << UNIT_SFU && st.f[FLD_PUSH] == 1 << UNIT_SFU &&
              isa_word_bits(&p->code[3], isa_fields[FLD_POP].lsb, 3) == 4,
          "STORE pop=sfu push=sfu is the store bit");
    char *text = asm_disassemble(p);
    CHECK(text && strstr(text, "LOAD pop=- push=sfu ") && strstr(text, "SFU_MAP pop=load push=compute|store ") &&
              strstr(text, "PRELOAD pop=sfu ") && strstr(text, "STORE pop=sfu push=sfu "),
          "disassembly names the SFU:\n%s", text ? text : "(null)");
    free(text);
    check_round_trip(p, "sfu unit sets");
  }
  prog_free(p);
  expect_error_after_head("LOAD pop=load mem=acc dst=0 dram_addr=X outer=1 inner=1 nseg=1 seglen=1\n",
                          "t.s:5:10: error: pop names its own unit: LOAD runs on the load unit");
  expect_error_after_head("SFU_MAP push=sfu fn=exp src=0 acc_addr=0 rows=1\n",
                          "t.s:5:14: error: push names its own unit: SFU_MAP runs on the sfu unit");
  expect_error_after_head("SFU_MAP pop=8 fn=exp src=0 acc_addr=0 rows=1\n",
                          "t.s:5:13: error: pop names its own unit: SFU_MAP runs on the sfu unit");
  check_case("asm_sfu_unit_sets");
}

// ---- random and generated programs ----

static void test_random_programs(void) {
  for (uint64_t seed = 1; seed <= 40; seed++) {
    Diag d;
    diag_init(&d);
    RandProgOptions o = {.min_insns = 5, .max_insns = 60, .with_sfu = seed > 20, .with_gbuf = seed % 2};
    Program *p = randprog_generate(seed, &o, &d);
    CHECK(p != NULL, "randprog seed %llu: %s", (unsigned long long)seed, diag_first(&d));
    if (!p) continue;
    char what[64];
    snprintf(what, sizeof what, "randprog seed %llu", (unsigned long long)seed);
    check_round_trip(p, what);
    prog_free(p);
  }
  static const GemmSpec specs[] = {
      {.M = 7, .K = 5, .N = 6, .raw32 = 1, .seed = 3},
      {.M = 40, .K = 20, .N = 24, .act = ACT_RELU, .double_buffer = 1, .seed = 9},
      {.M = 33, .K = 70, .N = 17, .act = ACT_CLAMP, .clamp_lo = -5, .clamp_hi = 90, .double_buffer = 1, .seed = 4,
       .tile_m = 8, .k_tiles = 1}};
  Arch tiny;
  arch_default(&tiny);
  tiny.rows = tiny.cols = 4;
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    Diag d;
    diag_init(&d);
    Program *p = gemmprog_build(&tiny, &specs[i], &d);
    CHECK(p != NULL, "gemmprog %zu: %s", i, diag_first(&d));
    if (p) check_round_trip(p, "gemmprog");
    prog_free(p);
  }
  check_case("asm_round_trip_generated_programs");
}

// ---- shipped programs and arch files ----

static void check_shipped(Program *p, const char *path, void *ctx) {
  (void)ctx;
  check_round_trip(p, path);
  Diag d;
  diag_init(&d);
  CHECK(randprog_check_races(p, &d) == 0, "%s: %s", path, diag_first(&d));
  CHECK(randprog_token_bound(p) <= p->arch.token_max, "%s: tokens may overflow", path);
}

static void test_shipped_programs(void) {
  int count = shipped_each_program(check_shipped, NULL);
  CHECK(count >= 3, "only %d programs in workloads/asm (run from the repository root)", count);
  check_case("asm_round_trip_and_race_free_shipped_programs");
}

// Each shipped GEMM, run on both simulator engines, leaves in C exactly the result shipped next
// to it (computed by an independent numpy model when the program was written).
static void test_shipped_expected(void) {
  static const struct {
    const char *s, *npy;
    NpyType type;
  } progs[] = {{"workloads/asm/gemm_small.s", "workloads/asm/gemm_small_expected.npy", NPY_I32},
               {"workloads/asm/gemm_tiled.s", "workloads/asm/gemm_tiled_expected.npy", NPY_I8},
               {"workloads/asm/gemm_raw_tiny_odd.s", "workloads/asm/gemm_raw_tiny_odd_expected.npy", NPY_I32},
               {"workloads/asm/gemm_os_tiny.s", "workloads/asm/gemm_os_tiny_expected.npy", NPY_I32}};
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
    Diag d;
    diag_init(&d);
    Program *p;
    NpyArray arr;
    if (asm_assemble_file(progs[i].s, &p, &d)) {
      CHECK(0, "%s", diag_first(&d));
      continue;
    }
    if (npy_read(progs[i].npy, &arr, &d)) {
      CHECK(0, "%s", diag_first(&d));
      prog_free(p);
      continue;
    }
    const TensorInfo *c = prog_find_tensor(p, "C");
    int shape_ok = c && c->role == ROLE_OUTPUT && arr.type == progs[i].type && arr.ndim == c->ndim &&
                   arr.dims[0] == c->dims[0] && arr.dims[1] == c->dims[1] &&
                   (c->dtype == DT_INT32) == (arr.type == NPY_I32);
    CHECK(shape_ok, "%s: output C does not match %s", progs[i].s, progs[i].npy);
    for (int mode = SIM_FAST; shape_ok && mode <= SIM_DETAILED; mode++) {
      Sim *sim = sim_new(p, (SimMode)mode, &d);
      uint8_t *out = calloc(arr.count, npy_type_size(arr.type));
      if (!sim || !out || sim_run(sim, &d) || sim_get_tensor(sim, c, out))
        CHECK(0, "%s: simulation failed: %s", progs[i].s, diag_first(&d));
      else
        CHECK(!memcmp(out, arr.data, arr.count * npy_type_size(arr.type)), "%s: C differs from %s (%s mode)",
              progs[i].s, progs[i].npy, mode == SIM_FAST ? "fast" : "detailed");
      free(out);
      sim_free(sim);
    }
    npy_free(&arr);
    prog_free(p);
  }
  check_case("asm_shipped_programs_compute_expected_results");
}

static void test_arch_files(void) {
  static const char *const names[] = {"tiny", "default", "large", "tpu-like"};
  Arch arch[4];
  for (int i = 0; i < 4; i++) {
    char path[256];
    snprintf(path, sizeof path, "workloads/arch/%s.json", names[i]);
    Diag d;
    diag_init(&d);
    CHECK(arch_load_file(path, &arch[i], &d) == 0, "%s", diag_first(&d));
    CHECK(!strcmp(arch[i].name, names[i]), "%s: name '%s'", path, arch[i].name);
  }
  Arch def;
  arch_default(&def);
  CHECK(arch_equal(&arch[1], &def), "default.json differs from arch_default()");
  CHECK(arch[0].rows == 4 && arch[0].cols == 4 && arch[0].spad_rows == 64 && arch[0].wbuf_rows == 32 &&
            arch[0].acc_rows == 64 && arch[0].param_rows == 8 && arch[0].bus_bytes == 4 && arch[0].dram_latency == 10 &&
            arch[0].dram_inflight == 4 && arch[0].queue_depth[0] == 4 && arch[0].store_fifo_rows == 2 &&
            arch[0].dram_bytes == 1u << 20,
        "tiny.json values");
  CHECK(arch[2].rows == 32 && arch[2].bus_bytes == 32 && arch[2].spad_rows == 16384 && arch[2].wbuf_rows == 4096 &&
            arch[2].acc_rows == 4096 && arch[2].dram_latency == 100 && arch[2].dram_inflight == 128 &&
            arch[2].dram_bytes == 512ull << 20,
        "large.json values");
  CHECK(arch[3].rows == 256 && arch[3].cols == 256 && arch[3].bus_bytes == 64 && arch[3].spad_rows == 16384 &&
            arch[3].wbuf_rows == 4096 && arch[3].acc_rows == 8192 && arch[3].dram_latency == 200 &&
            arch[3].dram_inflight == 256 && arch[3].dram_bytes == 2ull << 30,
        "tpu-like.json values");
  // .arch "file" resolves relative to the source; inline JSON works too.
  Program *p = assemble(".arch \"../arch/tiny.json\"\nHALT\n", "workloads/asm/x.s");
  CHECK(p && arch_equal(&p->arch, &arch[0]), ".arch relative path");
  prog_free(p);
  p = assemble(".arch {\"name\": \"x;#\", \"array\": {\"rows\": 2, \"cols\": 3}} ; 2x3\nHALT\n", "t.s");
  CHECK(p && p->arch.rows == 2 && p->arch.cols == 3 && !strcmp(p->arch.name, "x;#"), "inline arch");
  if (p) check_round_trip(p, "inline arch");
  prog_free(p);
  check_case("asm_arch_files");
}

// ---- data ----

static void test_data_forms(void) {
  // seed:N is splitmix64, low byte per int8 element, low 32 bits per int32 (docs/ASM.md).
  Program *p = assemble(
      ".tensor A dtype=int8 shape=[2,2] addr=0 role=input data=seed:1\n"
      ".tensor B dtype=int32 shape=[1] addr=0x10 role=input data=seed:1\n"
      ".tensor Z dtype=int32 shape=[3] addr=0x20 role=scratch data=zeros\n"
      ".tensor L dtype=int32 shape=[2] addr=0x30 role=const data=[-2147483648, 0x7fffffff]\n"
      ".tensor N dtype=int8 shape=[2,2] addr=0x40 role=const data=i1_2x2.npy\n"
      ".tensor M dtype=int32 shape=[2,3] addr=0x50 role=const data=\"i4_2x3.npy\"\n"
      ".tensor F dtype=int32 shape=[2,1] addr=0x70 role=const data=i2_v3.npy scale=0.25\n"
      "HALT\n",
      "tests/isa/data/t.s");
  if (p) {
    CHECK(p->n_chunks == 7, "chunks: %u", p->n_chunks);
    const uint8_t a[4] = {0xc1, 0x67, 0x5e, 0x0b}, b[4] = {0xc1, 0x5c, 0x02, 0x89};
    CHECK(!memcmp(p->chunks[0].bytes, a, 4), "seed:1 int8: %02x %02x", p->chunks[0].bytes[0], p->chunks[0].bytes[1]);
    CHECK(!memcmp(p->chunks[1].bytes, b, 4), "seed:1 int32: %02x %02x %02x %02x", p->chunks[1].bytes[0],
          p->chunks[1].bytes[1], p->chunks[1].bytes[2], p->chunks[1].bytes[3]);
    CHECK(p->chunks[2].len == 12 && !p->chunks[2].bytes[0] && !p->chunks[2].bytes[11], "zeros");
    const uint8_t l[8] = {0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f};
    CHECK(!memcmp(p->chunks[3].bytes, l, 8), "inline list");
    const uint8_t n[4] = {1, 0xfe, 3, 0xfc};
    CHECK(p->chunks[4].addr == 0x40 && !memcmp(p->chunks[4].bytes, n, 4), "int8 npy");
    CHECK(p->chunks[5].len == 24 && p->chunks[5].bytes[4] == 0xfe && p->chunks[5].bytes[20] == 0x80 &&
              p->chunks[5].bytes[23] == 0xff,
          "int32 npy");
    const uint8_t f[8] = {7, 0, 0, 0, 0xd4, 0xfe, 0xff, 0xff};
    CHECK(!memcmp(p->chunks[6].bytes, f, 8) && p->tensors[6].scale == 0.25, "int16 npy into int32, scale");
    check_round_trip(p, "data forms");
  }
  prog_free(p);
  check_case("asm_tensor_data");
}

static void test_chunks(void) {
  // Adjacent .data lines are separate chunks; .bytes continues the chunk above it, also across
  // blank and comment lines.
  Program *p = assemble(".data 0x10 01 02\n.data 0x12 03\n\n; note\n.bytes 04 05\n.data 0x20\nHALT\n", "t.s");
  if (p) {
    CHECK(p->n_chunks == 3, "chunks: %u", p->n_chunks);
    CHECK(p->chunks[0].addr == 0x10 && p->chunks[0].len == 2, "chunk 0");
    CHECK(p->chunks[1].addr == 0x12 && p->chunks[1].len == 3 && p->chunks[1].bytes[2] == 5, "chunk 1");
    CHECK(p->chunks[2].addr == 0x20 && p->chunks[2].len == 0, "chunk 2 (empty)");
    check_round_trip(p, "chunks");
  }
  prog_free(p);
  // A long chunk spans several lines in the disassembly and comes back whole.
  char text[4096];
  int n = snprintf(text, sizeof text, ".data 0x100");
  for (int i = 0; i < 100; i++) n += snprintf(text + n, sizeof text - (size_t)n, " %02x", i);
  snprintf(text + n, sizeof text - (size_t)n, "\nHALT\n");
  p = assemble(text, "t.s");
  if (p) {
    char *dis = asm_disassemble(p);
    CHECK(dis && strstr(dis, "\n.bytes 20 21"), "long chunk continues with .bytes:\n%s", dis ? dis : "");
    free(dis);
    check_round_trip(p, "long chunk");
  }
  prog_free(p);
  check_case("asm_data_chunks");
}

static void test_names(void) {
  // Names that are not plain words are quoted, with escapes, and come back the same.
  Program *p = assemble(".layer \"\"\n.layer \"conv 1/relu\\\"x\\\\\"\n.layer a.b_c\n"
                        ".tensor \"in put#1\\x01\" dtype=int8 shape=[1] addr=0 role=input\n"
                        "LAYER layer_id=2\nHALT\n",
                        "t.s");
  if (p) {
    CHECK(p->n_layers == 3 && !p->layer_names[0][0] && !strcmp(p->layer_names[1], "conv 1/relu\"x\\") &&
              !strcmp(p->layer_names[2], "a.b_c"),
          "layer names");
    CHECK(!strcmp(p->tensors[0].name, "in put#1\x01"), "tensor name");
    check_round_trip(p, "names");
  }
  prog_free(p);
  check_case("asm_quoted_names");
}

// ---- errors, each at its file:line:col ----

static void test_errors(void) {
  expect_error_after_head("FOO x=1\n", "t.s:5:1: error: unknown mnemonic 'FOO'");
  // A misspelt mnemonic or operand: the nearest of the ISA table's, when it is a likely misspelling.
  expect_error_after_head("COMPUT rows=1\n", "t.s:5:1: error: unknown mnemonic 'COMPUT' (did you mean COMPUTE?)");
  expect_error_after_head("laod\n", "t.s:5:1: error: unknown mnemonic 'laod' (did you mean LOAD?)");
  expect_error_after_head("COMPUTEIS rows=1\n", "t.s:5:1: error: unknown mnemonic 'COMPUTEIS' (did you mean COMPUTE_IS?)");
  expect_error_after_head("LOADS\n", "t.s:5:1: error: unknown mnemonic 'LOADS' (did you mean LOAD?)");
  expect_error_after_head("HAL\n", "t.s:5:1: error: unknown mnemonic 'HAL'");   // 3 letters: too short to guess
  expect_error_after_head("COMPUTE rosw=1\n",
                          "t.s:5:9: error: unknown operand 'rosw' for COMPUTE (did you mean rows?; operands: pop "
                          "push accum overlap src acc_addr rows)");
  expect_error_after_head("LOAD mem=wbuf dram_adr=0\n",
                          "t.s:5:15: error: unknown operand 'dram_adr' for LOAD (did you mean dram_addr?; operands: pop "
                          "push mem accum transpose dst dram_addr outer inner nseg seglen tstride gbuf)");
  expect_error_after_head("COMPUTE rows=1 bogus=3\n",
                          "t.s:5:16: error: unknown operand 'bogus' for COMPUTE (operands: pop push accum overlap src "
                          "acc_addr rows)");
  expect_error_after_head("COMPUTE rows=1 dst=3\n",
                          "t.s:5:16: error: unknown operand 'dst' for COMPUTE (operands: pop push accum overlap src "
                          "acc_addr rows)");
  expect_error_after_head("  COMPUTE rows=1 src=0 rows=2\n", "t.s:5:24: error: duplicate operand 'rows'");
  expect_error_after_head("COMPUTE rows=65536\n", "t.s:5:14: error: rows=65536 out of range [1, 65535]");
  expect_error_after_head("COMPUTE rows=0\n", "t.s:5:14: error: rows=0 out of range [1, 65535]");
  expect_error_after_head("COMPUTE_OS rows=1 klen=0\n", "t.s:5:24: error: klen=0 out of range [1, 65535]");
  expect_error_after_head("COMPUTE_OS rows=1 klen=1 dst=3\n",
                          "t.s:5:26: error: unknown operand 'dst' for COMPUTE_OS (operands: pop push accum src "
                          "acc_addr rows wsrc klen kstride)");
  expect_error_after_head("CFG_STORE clamp_lo=-129\n", "t.s:5:20: error: clamp_lo=-129 out of range [-128, 127]");
  expect_error_after_head("COMPUTE rows=12x\n", "t.s:5:14: error: rows: expected a number, got '12x'");
  expect_error_after_head("LOAD mem=dram outer=1 inner=1 nseg=1 seglen=1\n",
                          "t.s:5:10: error: unknown mem 'dram' (expected spad, wbuf, acc or param)");
  expect_error_after_head("CFG_STORE act=sigmoid\n",
                          "t.s:5:15: error: unknown act 'sigmoid' (expected none, relu or clamp)");
  expect_error_after_head("LOAD push=compute|load outer=1 inner=1 nseg=1 seglen=1\n",
                          "t.s:5:19: error: push names its own unit: LOAD runs on the load unit");
  expect_error_after_head("STORE pop=compute,lod outer=1 inner=1 cols=1\n",
                          "t.s:5:19: error: unknown unit 'lod' in pop (expected load, compute, store, sfu, joined by "
                          "'|', or -)");
  expect_error_after_head("COMPUTE src=0 acc_addr=0\n", "t.s:5:1: error: COMPUTE: missing operand rows");
  expect_error_after_head("LOAD outer=1 inner=1 seglen=1\n", "t.s:5:1: error: LOAD: missing operand nseg");
  expect_error_after_head("LOAD dram_addr=Y+4 outer=1 inner=1 nseg=1 seglen=1\n",
                          "t.s:5:16: error: undeclared tensor 'Y' (declare it with .tensor before its use)");
  expect_error_after_head("LOAD dram_addr=X-0x101 outer=1 inner=1 nseg=1 seglen=1\n",
                          "t.s:5:16: error: dram_addr=-1 out of range [0, 4294967295]");
  expect_error_after_head(".arch default\n",
                          "t.s:5:1: error: .arch must come before any instruction, .tensor or .data");
  expect_error("HALT\n.arch \"tiny.json\"\n",
               "t.s:2:1: error: .arch must come before any instruction, .tensor or .data");
  expect_error(".arch default\n.arch default\n", "t.s:2:1: error: duplicate .arch");
  // prog_check_insn catches a DRAM range past dram.bytes (256 MiB) and points at the line.
  expect_error_after_head("\nLOAD mem=spad dram_addr=0xfffffff0 outer=1 inner=2 nseg=1 seglen=16\n",
                          "t.s:6:1: error: LOAD reads DRAM bytes 0xfffffff0..0x10000000f, beyond "
                          "dram.bytes=0x10000000");
  expect_error_after_head("   STORE src=2047 outer=1 inner=2 cols=1\n",
                          "t.s:5:4: error: STORE reads ACC rows 2047..2048, beyond acc.rows=2048");
  expect_error(".layer a\nLAYER layer_id=1\nHALT\n",
               "t.s:2:1: error: LAYER_ID=1 has no name (the program names 1 layers)");
  expect_error("PRELOAD rows=1\n", "t.s:1:1: error: program does not end with HALT");
  expect_error("; nothing\n", "t.s:1:1: error: no instructions (a program ends with HALT)");
  expect_error("HALT\nHALT\n", "t.s:2:1: error: instruction after HALT");
  expect_error("COMPUTE rows=1 key = 3\nHALT\n", "t.s:1:16: error: expected key=value, got 'key'");
  expect_error("COMPUTE rows=\nHALT\n", "t.s:1:14: error: missing value after 'rows='");
  expect_error(".frob 1\n", "t.s:1:1: error: unknown directive '.frob'");
  expect_error("HALT \x01\n", "t.s:1:6: error: invalid character 0x01");
  // .tensor
  expect_error(".tensor A dtype=int8 shape=[2,2] addr=0 role=input data=[1,2,3]\n",
               "t.s:1:57: error: 3 values given, tensor 'A' has 4 elements");
  expect_error(".tensor A dtype=int8 shape=[2,2] addr=0 role=input data=[1,2,3,200]\n",
               "t.s:1:64: error: value 200 does not fit int8");
  expect_error(".tensor A dtype=int8 shape=[2,0] addr=0 role=input\n",
               "t.s:1:31: error: shape value 0 out of range [1, 4294967295]");
  expect_error(".tensor A dtype=int8 shape=[] addr=0 role=input\n", "t.s:1:28: error: empty shape");
  expect_error(".tensor A dtype=int8 shape=[2,,3] addr=0 role=input\n", "t.s:1:31: error: empty list item");
  expect_error(".tensor A dtype=int8 shape=[2 3] addr=0 role=input\n", "t.s:1:31: error: expected ',' or ']' in list");
  expect_error(".tensor A dtype=int8 shape=[2,3 addr=0 role=input\n", "t.s:1:28: error: missing ']'");
  expect_error(".tensor A dtype=int16 shape=[2] addr=0 role=input\n",
               "t.s:1:17: error: unknown dtype 'int16' (expected int8 or int32)");
  expect_error(".tensor A dtype=int8 shape=[2] role=input\n", "t.s:1:9: error: tensor 'A' lacks addr=");
  expect_error(".tensor A dtype=int8 shape=[2] addr=0 role=input size=3\n",
               "t.s:1:50: error: unknown .tensor key 'size' (keys: dtype shape addr role strides scale data)");
  expect_error(".tensor A dtype=int8 shape=[2] addr=0 role=input\n.tensor A dtype=int8 shape=[2] addr=9 role=input\n",
               "t.s:2:9: error: duplicate tensor 'A'");
  expect_error(".tensor A dtype=int32 shape=[2] addr=0xffffffc role=input\n",
               "t.s:1:38: error: tensor 'A' spans DRAM bytes 0xffffffc..0x10000003, beyond dram.bytes=0x10000000");
  expect_error(".tensor A dtype=int8 shape=[2,2] addr=0 role=input strides=[4,1] data=zeros\n",
               "t.s:1:71: error: data= needs a dense tensor (strides= differ from the row-major ones); use .data");
  expect_error(".tensor A dtype=int8 shape=[2] addr=0 role=input scale=-1\n",
               "t.s:1:56: error: scale: expected a finite number >= 0, got '-1'");
  // data from .npy: shape and exact conversion (relative to the source file).
  Diag d;
  diag_init(&d);
  Program *p;
  const char *bad_shape = ".tensor A dtype=int8 shape=[4] addr=0 role=input data=i1_2x2.npy\nHALT\n";
  CHECK(asm_assemble(bad_shape, strlen(bad_shape), "tests/isa/data/t.s", &p, &d) == -1 &&
            !strcmp(diag_first(&d),
                    "tests/isa/data/t.s:1:55: error: i1_2x2.npy has shape [2,2], tensor 'A' has shape [4]"),
        "npy shape: %s", diag_first(&d));
  diag_init(&d);
  const char *bad_val = ".tensor A dtype=int8 shape=[4] addr=0 role=input data=u1_4.npy\nHALT\n";
  CHECK(asm_assemble(bad_val, strlen(bad_val), "tests/isa/data/t.s", &p, &d) == -1 &&
            !strcmp(diag_first(&d),
                    "tests/isa/data/t.s:1:55: error: u1_4.npy: element 3 does not convert exactly to int8"),
        "npy value: %s", diag_first(&d));
  diag_init(&d);
  const char *frac = ".tensor A dtype=int32 shape=[4] addr=0 role=input data=f8_v2.npy\nHALT\n";
  CHECK(asm_assemble(frac, strlen(frac), "tests/isa/data/t.s", &p, &d) == -1 &&
            strstr(diag_first(&d), "f8_v2.npy: element 2 does not convert exactly to int32"),
        "npy fraction: %s", diag_first(&d));
  diag_init(&d);
  const char *fort = ".tensor A dtype=int32 shape=[2,2] addr=0 role=input data=fortran.npy\nHALT\n";
  CHECK(asm_assemble(fort, strlen(fort), "tests/isa/data/t.s", &p, &d) == -1 &&
            strstr(diag_first(&d), "tests/isa/data/t.s:1:58: error: bad data: tests/isa/data/fortran.npy: npy array "
                                   "is in Fortran order"),
        "npy fortran: %s", diag_first(&d));
  diag_init(&d);
  CHECK(asm_assemble(".arch \"nope.json\"\n", 18, "t.s", &p, &d) == -1 &&
            !strcmp(diag_first(&d), "t.s:1:7: error: bad arch: nope.json: cannot open: No such file or directory"),
        "missing arch: %s", diag_first(&d));
  diag_init(&d);
  const char *bad_arch = ".arch {\"array\": {\"rows\": 0}}\n";
  CHECK(asm_assemble(bad_arch, strlen(bad_arch), "t.s", &p, &d) == -1 &&
            !strcmp(diag_first(&d), "t.s:1:7: error: bad arch: inline arch: array.rows: 0 is out of range [1, 256]"),
        "bad inline arch: %s", diag_first(&d));
  // .data / .bytes
  expect_error(".bytes 00\n", "t.s:1:1: error: .bytes must follow a .data or .bytes line");
  expect_error(".data 0x10 00\nHALT\n.bytes 01\n", "t.s:3:1: error: .bytes must follow a .data or .bytes line");
  expect_error(".data 0x10 0 1\n", "t.s:1:12: error: expected a byte as two hex digits, got '0'");
  expect_error(".data 0xffffffe 00 01 02\n",
               "t.s:1:23: error: data at 0xffffffe (3 bytes) passes the end of DRAM (dram.bytes=0x10000000)");
  expect_error(".data 0x10 01 02\n\n.tensor A dtype=int8 shape=[4] addr=0x11 role=input data=zeros\nHALT\n",
               "t.s:3:1: error: data at 0x11..0x14 overlaps the data of line 1 (0x10..0x11)");
  expect_error(".data 0x20 01 02\n.data 0x10 00\n.bytes 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10\nHALT\n",
               "t.s:2:1: error: data at 0x10..0x20 overlaps the data of line 1 (0x20..0x21)");
  check_case("asm_errors_with_location");

  // Several errors are all reported, each with its line.
  const char *two = "FOO\nCOMPUTE\nHALT\n";
  diag_init(&d);
  CHECK(asm_assemble(two, strlen(two), "t.s", &p, &d) == -1 && d.count == 2 &&
            !strcmp(d.msg[1], "t.s:2:1: error: COMPUTE: missing operand rows"),
        "second error: %d '%s'", d.count, d.msg[1]);
  check_case("asm_errors_several");
}

static void test_no_files(void) {
  AsmOptions o;
  asm_options_default(&o);
  o.allow_files = 0;
  Diag d;
  diag_init(&d);
  Program *p;
  const char *t1 = ".arch \"workloads/arch/tiny.json\"\nHALT\n";
  CHECK(asm_assemble_opts(t1, strlen(t1), "t.s", &o, &p, &d) == -1 &&
            !strcmp(diag_first(&d), "t.s:1:7: error: file access is disabled (\"workloads/arch/tiny.json\")"),
        "arch file: %s", diag_first(&d));
  diag_init(&d);
  const char *t1n = ".arch tiny\nHALT\n";   // a shipped arch by name is a file too
  CHECK(asm_assemble_opts(t1n, strlen(t1n), "t.s", &o, &p, &d) == -1 &&
            !strcmp(diag_first(&d), "t.s:1:7: error: file access is disabled (.arch tiny)"),
        "arch name: %s", diag_first(&d));
  diag_init(&d);
  const char *t2 = ".tensor A dtype=int8 shape=[2,2] addr=0 role=input data=tests/isa/data/i1_2x2.npy\nHALT\n";
  CHECK(asm_assemble_opts(t2, strlen(t2), "t.s", &o, &p, &d) == -1 && strstr(diag_first(&d), "file access is disabled"),
        "npy file: %s", diag_first(&d));
  // The data cap.
  o.allow_files = 1;
  o.max_data_bytes = 100;
  diag_init(&d);
  const char *t3 = ".tensor A dtype=int8 shape=[64] addr=0 role=input data=zeros\n"
                   ".tensor B dtype=int8 shape=[64] addr=64 role=input data=zeros\nHALT\n";
  CHECK(asm_assemble_opts(t3, strlen(t3), "t.s", &o, &p, &d) == -1 &&
            !strcmp(diag_first(&d), "t.s:2:57: error: initial data exceeds 100 bytes in total"),
        "data cap: %s", diag_first(&d));
  check_case("asm_options");
}

int main(void) {
  test_every_insn();
  test_spellings();
  test_sfu_unit_sets();
  test_random_programs();
  test_shipped_programs();
  test_shipped_expected();
  test_compute_os_text();
  test_arch_files();
  test_data_forms();
  test_chunks();
  test_names();
  test_errors();
  test_no_files();
  return check_status();
}
