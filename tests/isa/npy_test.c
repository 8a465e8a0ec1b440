// npy_test.c: tests isa/npy.c on files numpy wrote (tests/isa/data/*.npy, checked in, made with
// numpy 1.24), on its own round trip, and on broken headers and data.
#include "../../isa/npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"

#define DATA "tests/isa/data/"

static int read_ok(const char *path, NpyArray *a) {
  Diag d;
  diag_init(&d);
  int rc = npy_read(path, a, &d);
  CHECK(rc == 0, "%s: %s", path, diag_first(&d));
  return rc;
}

static void test_numpy_files(void) {
  NpyArray a;
  if (!read_ok(DATA "i4_2x3.npy", &a)) {
    const int32_t want[6] = {1, -2, 3, 4, 5, -128};
    CHECK(a.type == NPY_I32 && a.ndim == 2 && a.dims[0] == 2 && a.dims[1] == 3 && a.count == 6, "i4 shape");
    CHECK(!memcmp(a.data, want, sizeof want), "i4 values");
    npy_free(&a);
  }
  if (!read_ok(DATA "u1_4.npy", &a)) {
    const uint8_t want[4] = {0, 1, 127, 255};
    CHECK(a.type == NPY_U8 && a.ndim == 1 && a.dims[0] == 4, "u1 shape");
    CHECK(!memcmp(a.data, want, sizeof want), "u1 values");
    npy_free(&a);
  }
  if (!read_ok(DATA "i1_2x2.npy", &a)) {
    const int8_t want[4] = {1, -2, 3, -4};
    CHECK(a.type == NPY_I8 && a.ndim == 2 && a.count == 4, "i1 shape");
    CHECK(!memcmp(a.data, want, sizeof want), "i1 values");
    npy_free(&a);
  }
  if (!read_ok(DATA "f8_v2.npy", &a)) {   // format version 2.0
    const double want[4] = {0.0, -1.0, 2.5, 127.0};
    CHECK(a.type == NPY_F64 && a.ndim == 1 && a.count == 4, "f8 shape");
    CHECK(!memcmp(a.data, want, sizeof want), "f8 values");
    npy_free(&a);
  }
  if (!read_ok(DATA "i2_v3.npy", &a)) {   // format version 3.0
    const int16_t want[2] = {7, -300};
    CHECK(a.type == NPY_I16 && a.ndim == 2 && a.dims[0] == 2 && a.dims[1] == 1, "i2 shape");
    CHECK(!memcmp(a.data, want, sizeof want), "i2 values");
    npy_free(&a);
  }
  if (!read_ok(DATA "scalar_i8.npy", &a)) {   // shape ()
    CHECK(a.type == NPY_I64 && a.ndim == 0 && a.count == 1 && ((int64_t *)a.data)[0] == 42, "scalar");
    npy_free(&a);
  }
  // More files np.save wrote (numpy 1.24.2): each shape form, dtype and padding it produces.
  static const struct {
    const char *file;
    NpyType type;
    uint32_t ndim;
    uint64_t count;
  } more[] = {
      {"np_f4_1x8.npy", NPY_F32, 2, 8},     {"np_i1_1.npy", NPY_I8, 1, 1},
      {"np_u1_empty.npy", NPY_U8, 2, 0},    {"np_i8_3x1x2.npy", NPY_I64, 3, 6},
      {"np_f8_scalar.npy", NPY_F64, 0, 1},  {"np_i2_8dims.npy", NPY_I16, 8, 2},
      {"np_i4_10x12.npy", NPY_I32, 2, 120},
  };
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
    char path[128];
    snprintf(path, sizeof path, DATA "%s", more[i].file);
    if (read_ok(path, &a)) continue;
    CHECK(a.type == more[i].type && a.ndim == more[i].ndim && a.count == more[i].count, "%s: type/shape", path);
    npy_free(&a);
  }
  check_case("npy_read_numpy_files");
}

// Writes then reads back every type, several shapes.
static void test_round_trip(void) {
  char path[] = "/tmp/npy_test_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  if (fd < 0) {
    check_case("npy_round_trip");
    return;
  }
  close(fd);
  const NpyType types[] = {NPY_I8, NPY_U8, NPY_I16, NPY_I32, NPY_I64, NPY_F32, NPY_F64};
  const uint64_t shapes[][3] = {{5, 0, 0}, {3, 7, 0}, {2, 3, 4}};
  const uint32_t ndims[] = {1, 2, 3};
  uint8_t src[24 * 8];
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 37 + 11);
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t s = 0; s < 3; s++) {
      Diag d;
      diag_init(&d);
      CHECK(npy_write(path, types[t], ndims[s], shapes[s], src, &d) == 0, "write: %s", diag_first(&d));
      NpyArray a;
      if (npy_read(path, &a, &d)) {
        CHECK(0, "type %zu shape %zu: %s", t, s, diag_first(&d));
        continue;
      }
      uint64_t count = 1;
      for (uint32_t k = 0; k < ndims[s]; k++) count *= shapes[s][k];
      CHECK(a.type == types[t] && a.ndim == ndims[s] && a.count == count, "type %zu shape %zu: header", t, s);
      for (uint32_t k = 0; k < a.ndim; k++) CHECK(a.dims[k] == shapes[s][k], "dim %u", k);
      CHECK(!memcmp(a.data, src, count * npy_type_size(types[t])), "type %zu shape %zu: data", t, s);
      npy_free(&a);
    }
  // The data of a written file starts at a multiple of 64 bytes and the header ends in '\n'.
  FILE *f = fopen(path, "rb");
  uint8_t hdr[16] = {0};
  CHECK(f && fread(hdr, 1, sizeof hdr, f) == sizeof hdr, "reread");
  if (f) fclose(f);
  unsigned hlen = hdr[8] | hdr[9] << 8;
  CHECK(hdr[6] == 1 && hdr[7] == 0 && (10 + hlen) % 64 == 0, "v1.0 header, 64-byte aligned (len %u)", hlen);
  remove(path);
  check_case("npy_round_trip");
}

// Parses buf and expects an error message containing `want` and the file name.
static void expect_error(const char *what, const uint8_t *buf, size_t len, const char *want) {
  Diag d;
  diag_init(&d);
  NpyArray a;
  int rc = npy_parse(buf, len, "x.npy", &a, &d);
  CHECK(rc == -1, "%s: accepted", what);
  CHECK(strstr(diag_first(&d), want) != NULL, "%s: message '%s' lacks '%s'", what, diag_first(&d), want);
  CHECK(!strncmp(diag_first(&d), "x.npy: error: ", 14), "%s: message '%s' does not name the file", what,
        diag_first(&d));
  CHECK(a.data == NULL, "%s: data left allocated", what);
}

// A v1.0 file with the given header dict and `data_len` bytes of data.
static size_t make_npy(uint8_t *buf, const char *dict, size_t data_len) {
  size_t n = strlen(dict);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (uint8_t)(n & 0xff);
  buf[9] = (uint8_t)(n >> 8);
  memcpy(buf + 10, dict, n);
  memset(buf + 10 + n, 0, data_len);
  return 10 + n + data_len;
}

static void test_errors(void) {
  uint8_t buf[512];
  size_t n;
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n", 24);
  {
    Diag d;
    diag_init(&d);
    NpyArray a;
    CHECK(npy_parse(buf, n, "x.npy", &a, &d) == 0, "well-formed: %s", diag_first(&d));
    npy_free(&a);
  }
  expect_error("truncated data", buf, n - 1, "truncated .npy data");
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n", 25);
  expect_error("trailing bytes", buf, n, "1 bytes after its data");
  expect_error("truncated header", buf, 30, "truncated .npy header");
  expect_error("bad magic", (const uint8_t *)"\x93NUMPZ\x01\x00\x00\x00", 10, "bad magic");
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }\n", 16);
  expect_error("fortran", buf, n, "Fortran order");
  n = make_npy(buf, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n", 8);
  expect_error("big-endian", buf, n, "big-endian");
  n = make_npy(buf, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", 16);
  expect_error("complex", buf, n, "'<c8' is not supported");
  n = make_npy(buf, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }\n", 8);
  expect_error("structured", buf, n, "structured");
  n = make_npy(buf, "{'descr': '<i4', 'shape': (2,), }\n", 8);
  expect_error("no fortran_order", buf, n, "lacks 'fortran_order'");
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,, }\n", 8);
  expect_error("bad shape", buf, n, "'shape'");
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }\n", 4);
  expect_error("9 dims", buf, n, "more than 8 dimensions");
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n", 4);
  expect_error("shape overflows", buf, n, "shape is too large");
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': False, 'shape': (1099511627776,), }\n", 4);
  expect_error("huge shape", buf, n, "truncated .npy data");
  n = make_npy(buf, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'extra': 1}\n", 8);
  expect_error("unknown key", buf, n, "unknown key 'extra'");
  // Lenient headers that are not what numpy writes nor what Python's literal_eval reads (issue
  // 18 item 17): a NUL inside descr, a sign, a space or a leading zero in its size, a key twice.
  static const char nul_descr[] = "{'descr': '|i1\0', 'fortran_order': False, 'shape': (2,), }\n";
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (uint8_t)(sizeof nul_descr - 1);
  buf[9] = 0;
  memcpy(buf + 10, nul_descr, sizeof nul_descr - 1);
  memset(buf + 10 + sizeof nul_descr - 1, 0, 2);
  expect_error("NUL in descr", buf, 10 + sizeof nul_descr - 1 + 2, "npy header");
  n = make_npy(buf, "{'descr': '|i+1', 'fortran_order': False, 'shape': (2,), }\n", 2);
  expect_error("signed size", buf, n, "'|i+1' is not supported");
  n = make_npy(buf, "{'descr': '|i 1', 'fortran_order': False, 'shape': (2,), }\n", 2);
  expect_error("space in size", buf, n, "'|i 1' is not supported");
  n = make_npy(buf, "{'descr': '|i01', 'fortran_order': False, 'shape': (2,), }\n", 2);
  expect_error("leading zero", buf, n, "'|i01' is not supported");
  n = make_npy(buf, "{'descr': 'i1', 'fortran_order': False, 'shape': (2,), }\n", 2);
  expect_error("no byte order", buf, n, "'i1'");
  n = make_npy(buf, "{'descr': '<f4', 'descr': '|i1', 'fortran_order': False, 'shape': (2,), }\n", 2);
  expect_error("duplicate descr", buf, n, "'descr' given twice");
  n = make_npy(buf, "{'descr': '|i1', 'fortran_order': False, 'fortran_order': False, 'shape': (2,), }\n", 2);
  expect_error("duplicate fortran_order", buf, n, "'fortran_order' given twice");
  n = make_npy(buf, "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), 'shape': (1,), }\n", 2);
  expect_error("duplicate shape", buf, n, "'shape' given twice");
  n = make_npy(buf, "{'descr': '|i1', 'fortran_order': False, 'shape': (02,), }\n", 2);
  expect_error("leading zero in shape", buf, n, "bad dimension");
  n = make_npy(buf, "{'descr': '|i1', 'fortran_order': False, 'shape': (+2,), }\n", 2);
  expect_error("sign in shape", buf, n, "bad dimension");
  n = make_npy(buf, "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }\n", 2);
  {
    Diag d;
    diag_init(&d);
    NpyArray a;
    CHECK(npy_parse(buf, n, "x.npy", &a, &d) == 0, "plain '|i1': %s", diag_first(&d));
    npy_free(&a);
  }
  memcpy(buf, "\x93NUMPY\x04\x00", 8);
  expect_error("version 4", buf, n, "unsupported .npy format version 4.0");
  check_case("npy_parse_errors");

  Diag d;
  diag_init(&d);
  NpyArray a;
  CHECK(npy_read(DATA "fortran.npy", &a, &d) == -1 && strstr(diag_first(&d), DATA "fortran.npy: error: ") &&
            strstr(diag_first(&d), "Fortran"),
        "fortran.npy: '%s'", diag_first(&d));
  diag_init(&d);
  CHECK(npy_read(DATA "bigend.npy", &a, &d) == -1 && strstr(diag_first(&d), DATA "bigend.npy: error: ") &&
            strstr(diag_first(&d), "big-endian"),
        "bigend.npy: '%s'", diag_first(&d));
  diag_init(&d);
  CHECK(npy_read(DATA "no-such-file.npy", &a, &d) == -1 &&
            strstr(diag_first(&d), "no-such-file.npy: error: cannot open"),
        "missing file: '%s'", diag_first(&d));
  check_case("npy_read_errors");
}

int main(void) {
  test_numpy_files();
  test_round_trip();
  test_errors();
  return check_status();
}
