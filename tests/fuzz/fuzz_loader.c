// fuzz_loader.c: libFuzzer target for the program binary loader (isa/binfmt.c). Any bytes go to
// prog_read(), which must return an error or a valid Program, never crash or leak. Random bytes
// rarely get past the CRCs, so each input is read twice: as given, and with every CRC the
// layout of docs/BINARY.md lets us find recomputed, which takes the fuzzer into the section
// parsers and prog_check(). A Program the reader accepts must survive prog_write() and
// prog_read() again (abort() otherwise, so that the fuzzer reports the input).
// Seeds: tests/fuzz/corpus/loader/ (written by tests/isa/binfmt_test with BINFMT_CORPUS=<dir>).
// Built by tests/fuzz/run-fuzz.sh; `make test` replays the corpus through replay_main.inc.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../isa/program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// docs/BINARY.md: header bytes, table entry bytes, and the fields the CRCs sit in.
enum { HDR = 64, ENT = 48, H_NSECT = 12, H_TABLE_CRC = 32, H_CRC = 60, E_OFFSET = 16, E_STORED = 24, E_CRC = 40 };

static uint64_t rd(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static void wr32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t crc(const uint8_t *p, size_t n) { return (uint32_t)crc32_z(0, p, n); }

// Recomputes the CRCs of f where the (untrusted) layout fields allow. Returns 0 when f is too
// short to have any.
static int fix_crcs(uint8_t *f, size_t size) {
  if (size < HDR) return 0;
  uint64_t n = rd(f + H_NSECT, 4);
  if (n <= (size - HDR) / ENT) {
    for (uint64_t i = 0; i < n; i++) {
      uint8_t *e = f + HDR + i * ENT;
      uint64_t off = rd(e + E_OFFSET, 8), stored = rd(e + E_STORED, 8);
      if (off <= size && stored <= size - off) wr32(e + E_CRC, crc(f + off, (size_t)stored));
    }
    wr32(f + H_TABLE_CRC, crc(f + HDR, (size_t)(n * ENT)));
  }
  wr32(f + H_CRC, crc(f, H_CRC));
  return 1;
}

// One read; an accepted program must round-trip through the writer.
static void read_one(const uint8_t *data, size_t size) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (prog_read(data, size, "fuzz.bin", &p, &d)) {
    if (p || d.count == 0) abort();   // an error comes with a message and no Program
    return;
  }
  uint8_t *again = NULL;
  size_t len = 0;
  Program *q = NULL;
  if (prog_write(p, 1, &again, &len, &d) || prog_read(again, len, "fuzz-again.bin", &q, &d)) abort();
  free(again);
  prog_free(q);
  prog_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  read_one(data, size);
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return 0;
  if (size) memcpy(copy, data, size);
  if (fix_crcs(copy, size)) read_one(copy, size);
  free(copy);
  return 0;
}
