// fuzz_asm.c: libFuzzer target for the assembler (isa/asm*.c). The input is assembly text
// ("fuzz.s") assembled with file access disabled (no `.arch "path"`, no data=file.npy), initial
// data capped at 1 MiB and .rep iterations at 16384 lines. Whatever assembles must round-trip:
// binary -> prog_read -> disassemble -> assemble -> binary gives the same bytes (the
// disassembly is flat: loops, conditions and constants are gone). Any failure of that chain aborts.
// Bad input must only ever produce an error message (the sanitizers catch the rest).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const Diag *d) {
  fprintf(stderr, "fuzz_asm: %s: %s\n", what, d ? diag_first(d) : "");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  AsmOptions opt;
  asm_options_default(&opt);
  opt.allow_files = 0;
  opt.max_data_bytes = 1u << 20;
  opt.max_rep_lines = 1u << 14;   // .rep expansions: enough for every shape, fast per input
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (asm_assemble_opts((const char *)data, size, "fuzz.s", &opt, &p, &d)) {
    if (p || d.count == 0) fail("an error without a message, or a program with an error", &d);
    return 0;
  }
  uint8_t *b1 = NULL, *b2 = NULL;
  size_t n1 = 0, n2 = 0;
  if (prog_write(p, 0, &b1, &n1, &d)) fail("prog_write of an assembled program", &d);
  Program *back = NULL;
  if (prog_read(b1, n1, "fuzz.bin", &back, &d)) fail("prog_read of an assembled program", &d);
  char *text = asm_disassemble(back);
  if (!text) fail("disassemble", NULL);
  Program *q = NULL;
  if (asm_assemble_opts(text, strlen(text), "fuzz-disasm.s", &opt, &q, &d)) {
    fprintf(stderr, "%s\n", text);
    fail("reassembling the disassembly", &d);
  }
  if (prog_write(q, 0, &b2, &n2, &d)) fail("prog_write of the reassembled program", &d);
  if (n1 != n2 || memcmp(b1, b2, n1)) {
    fprintf(stderr, "%s\n", text);
    fail("text -> binary -> text -> binary is not byte-identical", NULL);
  }
  free(text);
  free(b1);
  free(b2);
  prog_free(p);
  prog_free(back);
  prog_free(q);
  return 0;
}
