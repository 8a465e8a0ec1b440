// binfmt_test.c: the program binary format (isa/binfmt.c, docs/BINARY.md). A small GEMM
// program is written (plain and deflated), read back and compared field by field; then the
// reader must reject every truncation, every single-bit flip, and a set of hand-made corrupt
// files whose CRCs are recomputed so that the check under test is the one that fires.
// With BINFMT_CORPUS=<dir> in the environment it also writes the fuzz seed files there
// (tests/fuzz/corpus/loader/ is made that way).
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../isa/program.h"
#include "../common/check.h"
#include "../common/testarch.h"

// Layout of docs/BINARY.md, restated so that the test checks the document.
enum { HDR = 64, ENT = 48, H_NSECT = 12, H_FILE_BYTES = 16, H_TABLE_CRC = 32, H_CRC = 60 };
enum { E_KIND = 8, E_FLAGS = 12, E_OFFSET = 16, E_STORED = 24, E_RAW = 32, E_CRC = 40 };
enum { K_ARCH = 1, K_CODE, K_TENSORS, K_DATA, K_LAYERS, K_MACS };

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void wr64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

// ---- the program under test ----


static void add(Program *p, Insn in) { prog_add_insn(p, &in); }

static void add_tensor(Program *p, const char *name, DType dt, TensorRole role, uint64_t addr, double scale) {
  TensorInfo t;
  memset(&t, 0, sizeof t);
  snprintf(t.name, sizeof t.name, "%s", name);
  t.dtype = dt;
  t.role = role;
  t.ndim = 2;
  t.dims[0] = t.dims[1] = 4;
  t.addr = addr;
  t.scale = scale;
  prog_dense_strides(&t);
  prog_add_tensor(p, &t);
}

// The tiny test machine with a 4 KiB DRAM, and a clock that is not a whole number (so the
// arch's double survives the round trip too).
static Arch tiny_arch(void) {
  Arch a = testarch_tiny();
  a.dram_bytes = 4096;
  a.clock_mhz = 500.5;
  return a;
}

// C[4x4] int32 = A[4x4] int8 x W[4x4] int8, on a 4x4 array.
static Program *gemm_program(void) {
  Arch a = tiny_arch();
  Program *p = prog_new(&a);
  prog_add_layer(p, "gemm");
  Insn in = isa_insn(OP_LAYER);
  add(p, in);
  in = isa_insn(OP_CFG_LOAD);
  in.f[FLD_STRIDE_OUTER] = 4;
  in.f[FLD_MULT] = 1;
  add(p, in);
  for (int m = 0; m < 2; m++) {   // A into SPAD, W into WBUF
    in = isa_insn(OP_LOAD);
    in.f[FLD_MEM] = m ? MEM_WBUF : MEM_SPAD;
    in.f[FLD_DRAM_ADDR] = m ? 16 : 0;
    in.f[FLD_OUTER] = 4;
    in.f[FLD_SEGLEN] = 4;
    in.f[FLD_PUSH] = 1 << UNIT_COMPUTE;
    add(p, in);
  }
  in = isa_insn(OP_PRELOAD);
  in.f[FLD_ROWS] = 4;
  in.f[FLD_POP] = 1 << UNIT_LOAD;
  add(p, in);
  in = isa_insn(OP_COMPUTE);
  in.f[FLD_ROWS] = 4;
  in.f[FLD_POP] = 1 << UNIT_LOAD;
  in.f[FLD_PUSH] = 1 << UNIT_STORE;
  add(p, in);
  in = isa_insn(OP_CFG_STORE);
  in.f[FLD_STRIDE_OUTER] = 16;
  in.f[FLD_CLAMP_LO] = -128;
  in.f[FLD_CLAMP_HI] = 127;
  add(p, in);
  in = isa_insn(OP_STORE);
  in.f[FLD_RAW32] = 1;
  in.f[FLD_DRAM_ADDR] = 64;
  in.f[FLD_OUTER] = 4;
  in.f[FLD_COLS] = 4;
  in.f[FLD_POP] = 1 << UNIT_COMPUTE;
  add(p, in);
  add(p, isa_insn(OP_HALT));
  add_tensor(p, "A", DT_INT8, ROLE_INPUT, 0, 0.5);
  add_tensor(p, "W", DT_INT8, ROLE_CONST, 16, 0.25);
  add_tensor(p, "C", DT_INT32, ROLE_OUTPUT, 64, 0.125);
  uint8_t bytes[512];
  for (int i = 0; i < 16; i++) bytes[i] = (uint8_t)(i + 1);
  prog_add_data(p, 0, bytes, 16);
  for (int i = 0; i < 16; i++) bytes[i] = (uint8_t)(i * 7 - 50);
  prog_add_data(p, 16, bytes, 16);
  memset(bytes, 0, sizeof bytes);   // a zero block, so deflate has something to gain
  prog_add_data(p, 2048, bytes, sizeof bytes);
  return p;
}

// The GEMM program plus the rest of the ISA: a PARAM load, an accumulating ACC load, a clamped,
// parameterised, max-pooled STORE.
static Program *rich_program(void) {
  Program *p = gemm_program();
  p->n_insns--;   // HALT goes last again below
  Insn in = isa_insn(OP_LOAD);
  in.f[FLD_MEM] = MEM_PARAM;
  in.f[FLD_DRAM_ADDR] = 512;
  in.f[FLD_OUTER] = 3;
  in.f[FLD_SEGLEN] = 16;
  add(p, in);
  in = isa_insn(OP_LOAD);
  in.f[FLD_MEM] = MEM_ACC;
  in.f[FLD_ACCUM] = 1;
  in.f[FLD_SEGLEN] = 4;
  add(p, in);
  in = isa_insn(OP_CFG_POOL);
  in.f[FLD_POOL] = POOL_MAX;
  in.f[FLD_KH] = in.f[FLD_KW] = in.f[FLD_SH] = in.f[FLD_SW] = 2;
  in.f[FLD_IN_H] = in.f[FLD_IN_W] = 2;
  add(p, in);
  in = isa_insn(OP_CFG_STORE);
  in.f[FLD_ACT] = ACT_CLAMP;
  in.f[FLD_PARAMS] = 1;
  in.f[FLD_CLAMP_LO] = -5;
  in.f[FLD_CLAMP_HI] = 5;
  add(p, in);
  in = isa_insn(OP_STORE);
  in.f[FLD_DRAM_ADDR] = 256;
  in.f[FLD_COLS] = 4;
  add(p, in);
  add(p, isa_insn(OP_HALT));
  prog_add_layer(p, "pool");
  const uint64_t macs[] = {48, 0};   // a MACS section (format 1.1)
  prog_set_layer_macs(p, macs);
  return p;
}

// Every field of two programs is equal (reports the first difference).
static void check_same(const Program *a, const Program *b) {
  CHECK(arch_equal(&a->arch, &b->arch), "arch differs");
  CHECK(a->n_insns == b->n_insns, "n_insns %u vs %u", a->n_insns, b->n_insns);
  for (uint32_t i = 0; i < a->n_insns && i < b->n_insns; i++) {
    Insn x = prog_insn(a, i), y = prog_insn(b, i);
    CHECK(x.op == y.op, "insn %u op", i);
    for (int f = 0; f < FLD_COUNT; f++)   // FLD_OP is the opcode again, filled in by the decoder only
      if (f != FLD_OP)
        CHECK(x.f[f] == y.f[f], "insn %u field %s: %lld vs %lld", i, isa_fields[f].name, (long long)x.f[f],
              (long long)y.f[f]);
  }
  CHECK(a->n_tensors == b->n_tensors, "n_tensors");
  for (uint32_t i = 0; i < a->n_tensors && i < b->n_tensors; i++) {
    const TensorInfo *x = &a->tensors[i], *y = &b->tensors[i];
    CHECK(!strcmp(x->name, y->name), "tensor %u name", i);
    CHECK(x->dtype == y->dtype && x->role == y->role && x->ndim == y->ndim, "tensor %u dtype/role/ndim", i);
    CHECK(!memcmp(x->dims, y->dims, sizeof x->dims), "tensor %u dims", i);
    CHECK(!memcmp(x->strides, y->strides, sizeof x->strides), "tensor %u strides", i);
    CHECK(x->addr == y->addr, "tensor %u addr", i);
    CHECK(!memcmp(&x->scale, &y->scale, sizeof x->scale), "tensor %u scale %g vs %g", i, x->scale, y->scale);
  }
  CHECK(a->n_chunks == b->n_chunks, "n_chunks");
  for (uint32_t i = 0; i < a->n_chunks && i < b->n_chunks; i++) {
    CHECK(a->chunks[i].addr == b->chunks[i].addr && a->chunks[i].len == b->chunks[i].len, "chunk %u addr/len", i);
    if (a->chunks[i].len == b->chunks[i].len)
      CHECK(!memcmp(a->chunks[i].bytes, b->chunks[i].bytes, a->chunks[i].len), "chunk %u bytes", i);
  }
  CHECK(a->n_layers == b->n_layers, "n_layers");
  for (uint32_t i = 0; i < a->n_layers && i < b->n_layers; i++)
    CHECK(!strcmp(a->layer_names[i], b->layer_names[i]), "layer %u name", i);
  CHECK(!a->layer_macs == !b->layer_macs, "useful MACs declared in one only");
  for (uint32_t i = 0; a->layer_macs && b->layer_macs && i < a->n_layers && i < b->n_layers; i++)
    CHECK(a->layer_macs[i] == b->layer_macs[i], "layer %u useful MACs", i);
}

// ---- byte patching ----

typedef struct {
  uint8_t *p;
  size_t len;
} File;

static File file_of(const Program *prog, int compress) {
  File f = {NULL, 0};
  Diag d;
  diag_init(&d);
  if (prog_write(prog, compress, &f.p, &f.len, &d)) CHECK(0, "prog_write: %s", diag_first(&d));
  return f;
}

static File gemm_file(int compress) {
  Program *p = gemm_program();
  File f = file_of(p, compress);
  prog_free(p);
  return f;
}

static uint8_t *entry_of(File f, int kind) {
  uint32_t n = rd32(f.p + H_NSECT);
  for (uint32_t i = 0; i < n && HDR + (i + 1) * ENT <= f.len; i++)
    if (rd32(f.p + HDR + i * ENT + E_KIND) == (uint32_t)kind) return f.p + HDR + i * ENT;
  return NULL;
}

static uint8_t *section_of(File f, int kind) { return f.p + rd64(entry_of(f, kind) + E_OFFSET); }

// Recomputes every section CRC (where the entry's range lies inside the file), the table CRC and
// the header CRC, so that only the deliberate corruption remains.
static void fix_crcs(File f) {
  uint32_t n = rd32(f.p + H_NSECT);
  for (uint32_t i = 0; i < n; i++) {
    uint8_t *e = f.p + HDR + i * ENT;
    uint64_t off = rd64(e + E_OFFSET), stored = rd64(e + E_STORED);
    if (off <= f.len && stored <= f.len - off) wr32(e + E_CRC, (uint32_t)crc32(0, f.p + off, (uInt)stored));
  }
  wr32(f.p + H_TABLE_CRC, (uint32_t)crc32(0, f.p + HDR, n * ENT));
  wr32(f.p + H_CRC, (uint32_t)crc32(0, f.p, H_CRC));
}

// prog_read must fail, leave *out NULL, and its first message must contain `want`.
static void expect_reject(File f, const char *want) {
  Diag d;
  diag_init(&d);
  Program *out = (Program *)&d;   // any non-NULL value: the reader must reset it
  int rc = prog_read(f.p, f.len, "prog.bin", &out, &d);
  CHECK(rc == -1, "accepted, expected \"%s\"", want);
  CHECK(out == NULL, "*out not NULL after an error");
  CHECK(d.count >= 1, "no message");
  CHECK(strstr(diag_first(&d), want), "message \"%s\" lacks \"%s\"", diag_first(&d), want);
  if (!rc) prog_free(out);
}

static Program *expect_accept(File f) {
  Diag d;
  diag_init(&d);
  Program *out = NULL;
  int rc = prog_read(f.p, f.len, "prog.bin", &out, &d);
  CHECK(rc == 0 && out, "rejected: %s", diag_first(&d));
  return out;
}

// First occurrence of string s in the n bytes at p, or NULL.
static char *find(uint8_t *p, size_t n, const char *s) {
  size_t k = strlen(s);
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(p + i, s, k)) return (char *)p + i;
  return NULL;
}

// ---- cases ----

// f with its DATA section (stored plain) replaced by the zlib stream of the same bytes, as a
// hostile writer would make it: the offsets, sizes, flags and CRCs are all consistent.
static File deflated_copy(File f) {
  uint8_t *e = entry_of(f, K_DATA);
  uint64_t off = rd64(e + E_OFFSET), stored = rd64(e + E_STORED);
  uLongf zlen = compressBound((uLong)stored);
  uint8_t *z = malloc(zlen);
  File g = {NULL, 0};
  if (!z || compress2(z, &zlen, f.p + off, (uLong)stored, 9) != Z_OK) {
    free(z);
    CHECK(0, "compress2");
    return g;
  }
  g.len = f.len - stored + zlen;
  g.p = malloc(g.len);
  memcpy(g.p, f.p, off);
  memcpy(g.p + off, z, zlen);
  memcpy(g.p + off + zlen, f.p + off + stored, f.len - off - stored);
  free(z);
  uint32_t n = rd32(g.p + H_NSECT);
  for (uint32_t i = 0; i < n; i++) {   // sections after DATA move by the difference
    uint8_t *ge = g.p + HDR + i * ENT;
    if (rd64(ge + E_OFFSET) > off) wr64(ge + E_OFFSET, rd64(ge + E_OFFSET) - stored + zlen);
  }
  uint8_t *ge = entry_of(g, K_DATA);
  wr32(ge + E_FLAGS, 1);
  wr64(ge + E_STORED, zlen);
  wr64(g.p + H_FILE_BYTES, g.len);
  fix_crcs(g);
  return g;
}

// A deflate bomb inside every size limit (issue 18 item 10): 32 MiB of zeros in a 64 MiB DRAM
// deflate to 32 KiB. The reader refuses DATA that inflates more than 16 times and past 16 MiB
// before allocating it, and the writer stores such DATA plain, so that it never writes a file
// the reader refuses.
static void test_deflate_bomb(void) {
  Arch a = tiny_arch();
  a.dram_bytes = 64u << 20;
  Program *p = prog_new(&a);
  Insn halt = {.op = OP_HALT};
  add(p, halt);
  uint8_t *zeros = calloc(1, 32u << 20);
  prog_add_data_owned(p, 0, zeros, 32u << 20);
  File plain = file_of(p, 0);
  File bomb = deflated_copy(plain);
  CHECK(bomb.len < 64 * 1024, "the bomb is %zu bytes", bomb.len);
  uint64_t off = rd64(entry_of(bomb, K_DATA) + E_OFFSET);
  char want[200];
  snprintf(want, sizeof want, "prog.bin: +0x%llx: error: section DATA: 0x%llx deflated bytes would inflate to 0x%llx",
           (unsigned long long)off, (unsigned long long)rd64(entry_of(bomb, K_DATA) + E_STORED),
           (unsigned long long)rd64(entry_of(bomb, K_DATA) + E_RAW));
  expect_reject(bomb, want);
  File w = file_of(p, 1);
  CHECK(rd32(entry_of(w, K_DATA) + E_FLAGS) == 0, "the writer deflated DATA 1000 times");
  prog_free(expect_accept(w));
  // Inside the free allowance: 15 MiB of zeros still deflate, at any ratio.
  p->chunks[0].len = 15u << 20;
  File small = file_of(p, 1);
  CHECK(rd32(entry_of(small, K_DATA) + E_FLAGS) == 1, "15 MiB of zeros not deflated");
  prog_free(expect_accept(small));
  free(plain.p);
  free(bomb.p);
  free(w.p);
  free(small.p);
  prog_free(p);
  check_case("deflate_bomb_refused");
}

static void test_round_trip(void) {
  Program *p = gemm_program(), *r = rich_program();
  for (int compress = 0; compress <= 1; compress++) {
    File rf = file_of(r, compress);
    Program *rq = expect_accept(rf);
    if (rq) check_same(r, rq);
    prog_free(rq);
    free(rf.p);
    File f = file_of(p, compress);
    CHECK(f.len > HDR && !memcmp(f.p, PROG_MAGIC, 8), "no magic");
    uint32_t flags = rd32(entry_of(f, K_DATA) + E_FLAGS);
    CHECK(flags == (compress ? 1u : 0u), "DATA flags %u with compress=%d", flags, compress);
    Program *q = expect_accept(f);
    if (q) check_same(p, q);
    // Writing what was read gives the same bytes (deterministic, canonical).
    File g = q ? file_of(q, compress) : (File){NULL, 0};
    CHECK(g.len == f.len && g.p && !memcmp(f.p, g.p, f.len), "rewrite differs");
    free(g.p);
    prog_free(q);
    free(f.p);
  }
  File plain = file_of(p, 0), packed = file_of(p, 1);
  CHECK(packed.len < plain.len, "deflated file (%zu) not smaller than plain (%zu)", packed.len, plain.len);
  free(plain.p);
  free(packed.p);
  prog_free(p);
  prog_free(r);
  check_case("round_trip");
}

static void test_save_load(void) {
  char dir[] = "/tmp/binfmt_test_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  char path[128], bad[160];
  snprintf(path, sizeof path, "%s/p.bin", dir);
  snprintf(bad, sizeof bad, "%s/no/such/dir/p.bin", dir);
  Program *p = gemm_program();
  Diag d;
  diag_init(&d);
  CHECK(prog_save(p, path, 1, &d) == 0, "save: %s", diag_first(&d));
  CHECK(prog_save(p, path, 0, &d) == 0, "save over an existing file: %s", diag_first(&d));
  Program *q = NULL;
  CHECK(prog_load(path, &q, &d) == 0 && q, "load: %s", diag_first(&d));
  if (q) check_same(p, q);
  prog_free(q);
  CHECK(prog_save(p, bad, 0, &d) == -1, "save into a missing directory succeeded");
  CHECK(strstr(diag_first(&d), "cannot create"), "message: %s", diag_first(&d));
  diag_init(&d);
  q = (Program *)&d;
  CHECK(prog_load(bad, &q, &d) == -1 && q == NULL, "load of a missing file");
  CHECK(strstr(diag_first(&d), "cannot open"), "message: %s", diag_first(&d));
  // Only p.bin is left: no temporary file.
  int entries = 0;
  DIR *dh = opendir(dir);
  for (struct dirent *e; dh && (e = readdir(dh));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) entries++;
  if (dh) closedir(dh);
  CHECK(entries == 1, "%d files in %s", entries, dir);
  unlink(path);
  rmdir(dir);
  prog_free(p);
  check_case("save_load");
}

// A Program holds encoded words, so an instruction the format cannot carry never gets in (the
// check prog_write() made before programs were kept encoded).
static void test_write_rejects(void) {
  Program *p = gemm_program();
  Insn in = prog_insn(p, 2), before = in;
  CHECK(in.op == OP_LOAD, "insn 2 is %s", isa_ops[in.op].name);
  in.f[FLD_OUTER] = 0;   // a count of 0 cannot be encoded faithfully
  uint32_t n = p->n_insns;
  CHECK(prog_add_insn(p, &in) == -1 && p->n_insns == n, "added an unencodable instruction");
  CHECK(prog_set_insn(p, 2, &in) == -1, "set an unencodable instruction");
  in.f[FLD_OUTER] = 1, in.f[FLD_DST] = 1 << 16;   // one bit too many
  CHECK(prog_set_insn(p, 2, &in) == -1, "set DST=65536 in a 16-bit field");
  Insn after = prog_insn(p, 2);
  CHECK(!memcmp(&after, &before, sizeof after), "a refused instruction changed the program");
  Diag d;
  diag_init(&d);
  CHECK(isa_check_fields(&in, "prog_write: insn 2", &d) == -1 &&
            strstr(diag_first(&d), "prog_write: insn 2: error: LOAD DST=65536 out of range"),
        "message: %s", diag_first(&d));
  prog_free(p);
  check_case("write_rejects_bad_fields");
}

static void test_truncation(void) {
  for (int compress = 0; compress <= 1; compress++) {
    File f = gemm_file(compress);
    int accepted = 0, unclear = 0;
    for (size_t n = 0; n < f.len; n++) {
      uint8_t *copy = malloc(n ? n : 1);   // exact size, so ASan sees any read past the end
      memcpy(copy, f.p, n);
      Diag d;
      diag_init(&d);
      Program *out = NULL;
      if (!prog_read(n ? copy : NULL, n, "prog.bin", &out, &d)) {
        accepted++;
        prog_free(out);
      } else if (!strstr(diag_first(&d), "error: truncated")) {
        if (!unclear) CHECK(0, "cut at %zu: %s", n, diag_first(&d));
        unclear++;
      }
      free(copy);
    }
    CHECK(accepted == 0, "%d truncated files accepted", accepted);
    free(f.p);
  }
  // The message names the section cut and the sizes.
  File f = gemm_file(0);
  uint64_t code_end = rd64(entry_of(f, K_CODE) + E_OFFSET) + rd64(entry_of(f, K_CODE) + E_STORED);
  char want[128];
  snprintf(want, sizeof want, "error: truncated: section CODE needs 0x%llx bytes, file has 0x%llx",
           (unsigned long long)code_end, (unsigned long long)(code_end - 1));
  f.len = code_end - 1;
  expect_reject(f, want);
  f.len = 20;
  expect_reject(f, "prog.bin: +0x14: error: truncated: header needs 0x40 bytes, file has 0x14");
  free(f.p);
  check_case("truncation_every_offset");
}

static void test_bit_flips(void) {
  for (int compress = 0; compress <= 1; compress++) {
    File f = gemm_file(compress);
    int accepted = 0;
    for (size_t i = 0; i < f.len; i++)
      for (int b = 0; b < 8; b++) {
        f.p[i] ^= (uint8_t)(1u << b);
        Diag d;
        diag_init(&d);
        Program *out = NULL;
        int rc = prog_read(f.p, f.len, "prog.bin", &out, &d);
        if (rc == 0) {
          if (!accepted) CHECK(0, "flip of bit %d at 0x%zx accepted", b, i);
          accepted++;
          prog_free(out);
        } else {
          CHECK(out == NULL && d.count >= 1, "flip at 0x%zx: no message or *out set", i);
        }
        f.p[i] ^= (uint8_t)(1u << b);
      }
    CHECK(accepted == 0, "%d single-bit flips accepted (compress=%d)", accepted, compress);
    free(f.p);
  }
  check_case("every_bit_flip_rejected");
}

static void test_header(void) {
  File f = gemm_file(0);
  f.p[0] ^= 0x20;
  expect_reject(f, "prog.bin: +0x0: error: bad magic (not a sacc program)");
  f.p[0] ^= 0x20;
  f.p[8] = PROG_VERSION_MAJOR + 1;   // newer major, correct header CRC
  fix_crcs(f);
  char want[96];
  int minor = f.p[10];   // 4: every file is written as 1.4 (its ARCH names the global buffer's keys)
  CHECK(minor == 4, "a program without useful MACs written as 1.%d", minor);
  snprintf(want, sizeof want, "+0x8: error: format version %d.%d is newer than this reader's", PROG_VERSION_MAJOR + 1,
           minor);
  expect_reject(f, want);
  f.p[8] = 0;
  fix_crcs(f);
  snprintf(want, sizeof want, "format version 0.%d is not supported", minor);
  expect_reject(f, want);
  f.p[8] = PROG_VERSION_MAJOR;
  f.p[10] = PROG_VERSION_MINOR + 7;   // newer minor of the same major: accepted
  fix_crcs(f);
  prog_free(expect_accept(f));
  f.p[10] = (uint8_t)minor;
  f.p[40] = 1;   // a reserved header byte
  fix_crcs(f);
  expect_reject(f, "+0x28: error: reserved header byte is not zero");
  f.p[40] = 0;
  fix_crcs(f);
  f.p[H_CRC] ^= 1;
  expect_reject(f, "+0x3c: error: header crc mismatch");
  f.p[H_CRC] ^= 1;
  f.p[HDR + 3] ^= 1;
  expect_reject(f, "+0x40: error: section table crc mismatch");
  f.p[HDR + 3] ^= 1;
  prog_free(expect_accept(f));   // all restored
  free(f.p);
  check_case("header_magic_version_crc");
}

static void test_table(void) {
  File f = gemm_file(0);
  uint8_t *code = entry_of(f, K_CODE), *tens = entry_of(f, K_TENSORS);
  wr32(code + E_KIND, 9);
  fix_crcs(f);
  expect_reject(f, "error: unknown section kind 9");
  wr32(code + E_KIND, K_CODE);
  memcpy(tens, "CODE\0\0\0\0", 8);
  wr32(tens + E_KIND, K_CODE);
  fix_crcs(f);
  expect_reject(f, "error: duplicate section CODE (also table entry 1)");
  memcpy(tens, "TENSORS\0", 8);
  wr32(tens + E_KIND, K_TENSORS);
  code[3] = 'X';
  fix_crcs(f);
  expect_reject(f, "section of kind 2 (CODE) is named \"CODX\"");
  code[3] = 'E';
  wr32(code + E_FLAGS, 2);
  fix_crcs(f);
  expect_reject(f, "section CODE: unknown flags 0x2");
  wr32(code + E_FLAGS, 0);
  wr64(code + E_RAW, rd64(code + E_STORED) + 16);
  fix_crcs(f);
  expect_reject(f, "section CODE: raw size");
  wr64(code + E_RAW, rd64(code + E_STORED));
  wr32(f.p + H_NSECT, 1);   // only ARCH left
  fix_crcs(f);
  expect_reject(f, "error: no CODE section");
  wr32(f.p + H_NSECT, 5);
  fix_crcs(f);
  prog_free(expect_accept(f));
  // A section CRC, with the header and table intact.
  uint64_t data_off = rd64(entry_of(f, K_DATA) + E_OFFSET);
  f.p[data_off + 5] ^= 0x10;
  char want[80];
  snprintf(want, sizeof want, "prog.bin: +0x%llx: error: section DATA: crc mismatch (stored 0x",
           (unsigned long long)data_off);
  expect_reject(f, want);
  free(f.p);
  check_case("section_table");
}

static void test_layout(void) {
  File f = gemm_file(0);
  uint8_t *arch = entry_of(f, K_ARCH), *code = entry_of(f, K_CODE);
  uint64_t code_off = rd64(code + E_OFFSET);
  wr64(code + E_OFFSET, rd64(arch + E_OFFSET) + 8);   // inside ARCH
  fix_crcs(f);
  expect_reject(f, "error: section CODE overlaps section ARCH");
  wr64(code + E_OFFSET, 100);   // inside the table
  fix_crcs(f);
  expect_reject(f, "error: section CODE overlaps the section table");
  wr64(code + E_OFFSET, 8);   // inside the header
  fix_crcs(f);
  expect_reject(f, "error: section CODE overlaps the header");
  wr64(code + E_OFFSET, code_off);
  fix_crcs(f);
  prog_free(expect_accept(f));
  // A file longer than its header says, and one whose header owns up to the extra bytes.
  File g = {malloc(f.len + 16), f.len + 16};
  memcpy(g.p, f.p, f.len);
  memset(g.p + f.len, 0, 16);
  expect_reject(g, "0x10 bytes after the end of the file");
  wr64(g.p + H_FILE_BYTES, g.len);
  fix_crcs(g);
  expect_reject(g, "error: 0x10 unused bytes after the last section");
  // Sections past the end of the file, with CRCs that would match.
  wr64(code + E_STORED, UINT64_MAX - 4);
  fix_crcs(f);
  expect_reject(f, "error: truncated: section CODE needs 0xffffffffffffffff bytes");
  free(g.p);
  free(f.p);
  check_case("section_layout");
}

static void test_arch_section(void) {
  File f = gemm_file(0);
  uint8_t *text = section_of(f, K_ARCH);
  size_t n = rd64(entry_of(f, K_ARCH) + E_STORED);
  CHECK(text[0] == '{', "ARCH does not start with '{'");
  text[0] = '[';   // not JSON any more, CRCs fixed
  fix_crcs(f);
  char want[64];
  snprintf(want, sizeof want, "prog.bin: +0x%llx: section ARCH:", (unsigned long long)(text - f.p));
  expect_reject(f, want);
  text[0] = '{';
  char *rows = find(text, n, "\"rows\": 4");
  CHECK(rows != NULL, "no \"rows\": 4 in ARCH");
  if (rows) {
    rows[8] = '0';   // valid JSON, invalid arch
    fix_crcs(f);
    expect_reject(f, "section ARCH: array.rows: error: 0 is out of range");
  }
  free(f.p);
  check_case("arch_section_invalid");
}

static void test_code_section(void) {
  File f = gemm_file(0);
  uint8_t *code = section_of(f, K_CODE);
  uint8_t *w3 = code + 3 * ISA_WORD_BYTES;   // the second LOAD
  uint8_t saved = w3[0];
  w3[0] = (uint8_t)((w3[0] & 0xc0) | 0x2a);
  fix_crcs(f);
  char want[96];
  snprintf(want, sizeof want, "prog.bin: +0x%llx (insn 3): error: unknown opcode 0x2a",
           (unsigned long long)(w3 - f.p));
  expect_reject(f, want);
  w3[0] = saved;
  uint8_t *halt = code + 8 * ISA_WORD_BYTES;
  halt[15] = 0x80;
  fix_crcs(f);
  snprintf(want, sizeof want, "+0x%llx (insn 8): error: HALT has reserved bits set", (unsigned long long)(halt - f.p));
  expect_reject(f, want);
  halt[15] = 0;
  // LOAD's DRAM_ADDR (bits 32..63) moved near the end of the 32-bit range: out of DRAM.
  wr32(w3 + 4, 0xfffffff0u);
  fix_crcs(f);
  snprintf(want, sizeof want, "prog.bin: +0x%llx (insn 3): error: LOAD reads DRAM bytes 0xfffffff0..",
           (unsigned long long)(w3 - f.p));
  expect_reject(f, want);
  wr32(w3 + 4, 16);
  // HALT replaced by LAYER 0: the program no longer ends.
  halt[0] = OP_LAYER;
  fix_crcs(f);
  expect_reject(f, "prog.bin: insn 8: error: program does not end with HALT");
  halt[0] = OP_HALT;
  fix_crcs(f);
  prog_free(expect_accept(f));
  free(f.p);
  check_case("code_section");
}

static void test_records(void) {
  File f = gemm_file(0);
  uint8_t *tens = section_of(f, K_TENSORS), *data = section_of(f, K_DATA), *layers = section_of(f, K_LAYERS);
  wr32(tens, 4);   // count says 4 records, the section holds 3
  fix_crcs(f);
  expect_reject(f, "section TENSORS: 4 tensors take 0x304 bytes, the section has 0x244");
  wr32(tens, 3);
  uint8_t *rec0 = tens + 4;
  wr64(rec0 + 176, 4090);   // A at 4090: its 16 bytes pass the end of DRAM
  fix_crcs(f);
  expect_reject(f, "prog.bin: tensor \"A\": error: spans DRAM bytes 0xffa..0x1009, beyond dram.bytes=0x1000");
  wr64(rec0 + 176, 0);
  wr32(rec0 + 64, 9);
  fix_crcs(f);
  expect_reject(f, "section TENSORS: tensor \"A\": invalid dtype 9");
  wr32(rec0 + 64, DT_INT8);
  wr32(rec0 + 80 + 4 * 5, 1);   // a dimension beyond ndim
  fix_crcs(f);
  expect_reject(f, "tensor \"A\": dimension 5 beyond ndim 2 is not zero");
  wr32(rec0 + 80 + 4 * 5, 0);
  memset(rec0, 'x', PROG_NAME_MAX);
  fix_crcs(f);
  expect_reject(f, "section TENSORS: tensor 0: name is not NUL-terminated");
  memset(rec0, 0, PROG_NAME_MAX);
  rec0[0] = 'A';
  rec0[10] = 'z';   // garbage after the NUL
  fix_crcs(f);
  expect_reject(f, "tensor 0: bytes after the name are not zero");
  rec0[10] = 0;
  wr32(data, 2);   // count says 2 chunks, the section holds 3
  fix_crcs(f);
  expect_reject(f, "section DATA: 0x210 bytes after the last chunk");
  wr32(data, 3);
  wr64(data + 4, 4090);   // chunk 0 (16 bytes) at 4090
  fix_crcs(f);
  expect_reject(f, "prog.bin: data chunk 0: error: 16 bytes at 0xffa pass the end of DRAM");
  wr64(data + 4, 0);
  wr64(data + 12, 1ull << 40);   // chunk 0 claims more bytes than the section has
  fix_crcs(f);
  expect_reject(f, "section DATA: chunk 0: 0x10000000000 bytes, but");
  wr64(data + 12, 16);
  memset(layers + 4, 'y', PROG_NAME_MAX);
  fix_crcs(f);
  expect_reject(f, "section LAYERS: layer 0: name is not NUL-terminated");
  memset(layers + 4, 0, PROG_NAME_MAX);
  memcpy(layers + 4, "gemm", 4);
  fix_crcs(f);
  prog_free(expect_accept(f));
  free(f.p);
  check_case("records_checked");
}

static void test_deflate(void) {
  File f = gemm_file(1);
  uint8_t *e = entry_of(f, K_DATA);
  uint64_t raw = rd64(e + E_RAW), off = rd64(e + E_OFFSET);
  char want[128];
  wr64(e + E_RAW, raw + 1);   // raw size says one byte more than the stream holds
  fix_crcs(f);
  snprintf(want, sizeof want, "prog.bin: +0x%llx: error: section DATA: inflates to 0x%llx bytes, its raw size says 0x%llx",
           (unsigned long long)off, (unsigned long long)raw, (unsigned long long)(raw + 1));
  expect_reject(f, want);
  wr64(e + E_RAW, raw - 1);   // one byte less
  fix_crcs(f);
  expect_reject(f, "section DATA: inflates to more than its raw size");
  wr64(e + E_RAW, 1ull << 40);   // a decompression bomb's claim: refused before allocating
  fix_crcs(f);
  expect_reject(f, "section DATA: raw size 0x10000000000 is impossible for");
  wr64(e + E_RAW, raw);
  uint8_t *ce = entry_of(f, K_CODE);   // only DATA may be deflated (memory proportional to size)
  wr32(ce + E_FLAGS, 1);
  fix_crcs(f);
  expect_reject(f, "section CODE: only the DATA section may be deflated");
  wr32(ce + E_FLAGS, 0);
  f.p[off + 7] ^= 0x55;   // corrupt stream, CRC recomputed
  fix_crcs(f);
  expect_reject(f, "section DATA:");
  f.p[off + 7] ^= 0x55;
  fix_crcs(f);
  prog_free(expect_accept(f));
  free(f.p);
  // A deflated DATA section whose raw size is within deflate's ratio but above the DATA limit
  // (4 + 16 x 2^20 chunk headers + dram.bytes): 20000 noisy bytes keep the stored size large.
  Program *p = gemm_program();
  uint8_t *big = calloc(1, 40000);
  uint32_t x = 1;
  for (int i = 0; i < 20000; i++) big[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
  prog_add_data(p, 4096, big, 40000);   // past DRAM, but the writer does not judge that
  File g = file_of(p, 1);
  e = entry_of(g, K_DATA);
  CHECK(rd32(e + E_FLAGS) == 1, "DATA not deflated");
  uint64_t limit = 4 + (1ull << 20) * 16 + 4096;
  wr64(e + E_RAW, limit + 1);
  fix_crcs(g);
  snprintf(want, sizeof want, "section DATA: raw size 0x%llx exceeds the limit 0x%llx", (unsigned long long)limit + 1,
           (unsigned long long)limit);
  expect_reject(g, want);
  free(big);
  free(g.p);
  prog_free(p);
  check_case("deflate_sizes");
}

// ---- fuzz seeds ----

// MACS (format 1.1): written only when the program declares useful MACs (every file is 1.4
// now); read back; its count must be the LAYERS section's and its sum must fit 63 bits.
static void test_macs(void) {
  Program *p = rich_program();
  File f = file_of(p, 0);
  CHECK(f.p[10] == 4 && rd32(f.p + H_NSECT) == 6, "version 1.%u, %u sections", f.p[10], rd32(f.p + H_NSECT));
  CHECK(rd32(section_of(f, K_MACS)) == 2 && rd64(section_of(f, K_MACS) + 4) == 48, "MACS section contents");
  Program *q = expect_accept(f);
  if (q) check_same(p, q);
  prog_free(q);
  wr32(section_of(f, K_MACS), 1);   // one layer's MACs in 12 bytes: the size check first
  fix_crcs(f);
  expect_reject(f, "section MACS: 1 layers take 0xc bytes, the section has 0x14");
  free(f.p);
  prog_add_layer(p, "third");   // a layer added after the declaration declares 0
  CHECK(p->layer_macs && p->layer_macs[2] == 0 && p->layer_macs[0] == 48, "prog_add_layer keeps the declaration");
  File g = file_of(p, 0);
  q = expect_accept(g);
  if (q) check_same(p, q);
  prog_free(q);
  free(g.p);
  const uint64_t big[] = {INT64_MAX, 1, 0};
  prog_set_layer_macs(p, big);
  g = file_of(p, 0);
  expect_reject(g, "layer 1: the useful MACs add up past 2^63");
  free(g.p);
  prog_set_layer_macs(p, NULL);   // no declaration: no MACS section, 5 sections (still 1.4)
  g = file_of(p, 0);
  CHECK(g.p[10] == 4 && rd32(g.p + H_NSECT) == 5, "undeclared: version 1.%u, %u sections", g.p[10], rd32(g.p + H_NSECT));
  q = expect_accept(g);
  CHECK(q && !q->layer_macs, "undeclared MACs read back as declared");
  prog_free(q);
  free(g.p);
  prog_free(p);
  check_case("macs_section");
}

// Files written by older writers (1.0 to 1.3; kept in the fuzz corpus) still read, with no global
// buffer (their ARCH sections name none, and a missing gbuf.bytes would otherwise take the
// default's), and are written back as 1.4 meaning the same program.
static void test_older_versions(void) {
  static const struct {
    const char *path;
    int minor;
  } olds[] = {{"tests/fuzz/corpus/loader/gemm_plain.bin", 0},
              {"tests/fuzz/corpus/loader/rich_deflate.bin", 1},
              {"tests/fuzz/corpus/loader/overlap_v12.bin", 2},
              {"tests/fuzz/corpus/loader/sfu_all.bin", 3}};
  for (size_t i = 0; i < sizeof olds / sizeof olds[0]; i++) {
    FILE *fp = fopen(olds[i].path, "rb");
    CHECK(fp != NULL, "%s: cannot open (run from the repository root)", olds[i].path);
    if (!fp) continue;
    static uint8_t buf[1 << 16];
    File f = {buf, fread(buf, 1, sizeof buf, fp)};
    fclose(fp);
    CHECK(f.len > 16 && f.p[10] == olds[i].minor, "%s: not a 1.%d file", olds[i].path, olds[i].minor);
    Program *q = expect_accept(f);
    if (!q) continue;
    CHECK(q->arch.gbuf_bytes == 0, "%s: a 1.%d file read with gbuf.bytes=%u", olds[i].path, olds[i].minor,
          q->arch.gbuf_bytes);
    File g = file_of(q, 0);
    CHECK(g.p && g.p[10] == 4, "%s: rewritten as 1.%u", olds[i].path, g.p ? g.p[10] : 0u);
    Program *r = g.p ? expect_accept(g) : NULL;
    if (r) check_same(q, r);
    prog_free(r);
    prog_free(q);
    free(g.p);
  }
  check_case("older_versions_read");
}

static void dump(const char *dir, const char *name, File f) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "wb");
  if (!fp || fwrite(f.p, 1, f.len, fp) != f.len) CHECK(0, "cannot write %s", path);
  if (fp) fclose(fp);
}

static void write_corpus(const char *dir) {
  mkdir(dir, 0777);
  File f = gemm_file(0);
  dump(dir, "gemm_plain.bin", f);
  File z = gemm_file(1);
  dump(dir, "gemm_deflate.bin", z);
  Arch a = tiny_arch();
  Program *p = prog_new(&a);
  prog_add_insn(p, &(Insn){.op = OP_HALT});
  File h = file_of(p, 0);
  dump(dir, "halt_only.bin", h);
  prog_free(p);
  p = rich_program();
  File rf = file_of(p, 1);
  dump(dir, "rich_deflate.bin", rf);
  free(rf.p);
  rf = file_of(p, 0);
  wr32(section_of(rf, K_MACS), 1);
  fix_crcs(rf);
  dump(dir, "macs_count.bin", rf);
  free(rf.p);
  prog_free(p);
  File t = {f.p, f.len / 2};
  dump(dir, "truncated.bin", t);
  File c = {malloc(f.len), f.len};
  memcpy(c.p, f.p, f.len);
  c.p[0] = 'X';
  dump(dir, "bad_magic.bin", c);
  memcpy(c.p, f.p, f.len);
  c.p[8] = 9;
  fix_crcs(c);
  dump(dir, "newer_major.bin", c);
  memcpy(c.p, f.p, f.len);
  c.p[rd64(entry_of(c, K_DATA) + E_OFFSET) + 6] ^= 1;
  dump(dir, "data_crc.bin", c);
  memcpy(c.p, f.p, f.len);
  uint8_t *w = section_of(c, K_CODE) + 3 * ISA_WORD_BYTES;
  w[0] = (uint8_t)((w[0] & 0xc0) | 0x2a);
  fix_crcs(c);
  dump(dir, "bad_opcode.bin", c);
  memcpy(c.p, f.p, f.len);
  wr32(w + 4, 0xfffffff0u);
  fix_crcs(c);
  dump(dir, "load_past_dram.bin", c);
  memcpy(c.p, f.p, f.len);
  wr64(entry_of(c, K_CODE) + E_OFFSET, rd64(entry_of(c, K_ARCH) + E_OFFSET) + 8);
  fix_crcs(c);
  dump(dir, "overlap.bin", c);
  memcpy(c.p, f.p, f.len);
  wr32(section_of(c, K_TENSORS), 7);
  fix_crcs(c);
  dump(dir, "tensor_count.bin", c);
  File zc = {malloc(z.len), z.len};
  memcpy(zc.p, z.p, z.len);
  wr64(entry_of(zc, K_DATA) + E_RAW, rd64(entry_of(zc, K_DATA) + E_RAW) + 1);
  fix_crcs(zc);
  dump(dir, "deflate_raw_lies.bin", zc);
  memcpy(zc.p, z.p, z.len);
  zc.p[rd64(entry_of(zc, K_DATA) + E_OFFSET) + 9] ^= 0x40;
  fix_crcs(zc);
  dump(dir, "deflate_corrupt.bin", zc);
  free(zc.p);
  free(c.p);
  free(h.p);
  free(z.p);
  free(f.p);
  check_case("write_corpus");
}

int main(void) {
  const char *corpus = getenv("BINFMT_CORPUS");
  if (corpus) {
    write_corpus(corpus);
    return check_status();
  }
  test_round_trip();
  test_save_load();
  test_write_rejects();
  test_truncation();
  test_bit_flips();
  test_header();
  test_table();
  test_layout();
  test_arch_section();
  test_code_section();
  test_records();
  test_macs();
  test_deflate();
  test_deflate_bomb();
  test_older_versions();
  return check_status();
}
