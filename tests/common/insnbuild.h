// insnbuild.h: small builders for hand-written test programs (tests that spell out instructions
// one by one, with cycle numbers worked out by hand).
#ifndef SA_INSNBUILD_H
#define SA_INSNBUILD_H

#include <stdint.h>

#include "../../isa/program.h"

// An instruction of op with SRC and ROWS set (PRELOAD, COMPUTE), every other field minimal.
Insn insn_rows(Opcode op, uint64_t src, int rows);
// Appends in to p; aborts on failure (a test program that does not encode is a test bug).
void insn_add(Program *p, Insn in);

#endif
