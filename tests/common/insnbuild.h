// insnbuild.h: small builders for hand-written test programs (tests that spell out instructions
// one by one, with cycle numbers worked out by hand). Each sets the fields named by its
// arguments; every other field is minimal (isa_insn).
#ifndef SA_INSNBUILD_H
#define SA_INSNBUILD_H

#include <stdint.h>

#include "../../isa/program.h"

// An instruction of op with SRC and ROWS set (PRELOAD, COMPUTE), every other field minimal.
Insn insn_rows(Opcode op, uint64_t src, int rows);
// LOAD of OUTER x INNER rows of NSEG segments of SEGLEN bytes into mem at DST.
Insn insn_load(int64_t mem, int64_t dst, int64_t addr, int64_t outer, int64_t inner, int64_t nseg, int64_t seglen);
Insn insn_compute(int64_t src, int64_t acc, int64_t rows);
Insn insn_compute_os(int64_t src, int64_t kstride, int64_t wsrc, int64_t klen, int64_t acc, int64_t rows, int accum);
Insn insn_compute_is(int64_t src, int64_t acc, int64_t rows, int64_t astride, int64_t cols, int accum);
Insn insn_store(int64_t src, int64_t addr, int64_t outer, int64_t inner, int64_t cols, int raw32);
// Appends in to p; aborts on failure (a test program that does not encode is a test bug).
void insn_add(Program *p, Insn in);

#endif
