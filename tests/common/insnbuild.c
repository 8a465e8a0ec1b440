// insnbuild.c: see insnbuild.h.
#include "insnbuild.h"

#include <stdlib.h>

Insn insn_rows(Opcode op, uint64_t src, int rows) {
  Insn in = isa_insn(op);
  in.f[FLD_SRC] = (int64_t)src;
  in.f[FLD_ROWS] = rows;
  return in;
}

void insn_add(Program *p, Insn in) {
  if (prog_add_insn(p, &in)) abort();
}
