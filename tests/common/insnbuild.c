// insnbuild.c: see insnbuild.h.
#include "insnbuild.h"

#include <stdlib.h>

Insn insn_rows(Opcode op, uint64_t src, int rows) {
  Insn in = isa_insn(op);
  in.f[FLD_SRC] = (int64_t)src;
  in.f[FLD_ROWS] = rows;
  return in;
}

Insn insn_load(int64_t mem, int64_t dst, int64_t addr, int64_t outer, int64_t inner, int64_t nseg, int64_t seglen) {
  Insn in = isa_insn(OP_LOAD);
  in.f[FLD_MEM] = mem;
  in.f[FLD_DST] = dst;
  in.f[FLD_DRAM_ADDR] = addr;
  in.f[FLD_OUTER] = outer;
  in.f[FLD_INNER] = inner;
  in.f[FLD_NSEG] = nseg;
  in.f[FLD_SEGLEN] = seglen;
  return in;
}

Insn insn_compute(int64_t src, int64_t acc, int64_t rows) {
  Insn in = isa_insn(OP_COMPUTE);
  in.f[FLD_SRC] = src;
  in.f[FLD_ACC_ADDR] = acc;
  in.f[FLD_ROWS] = rows;
  return in;
}

Insn insn_compute_os(int64_t src, int64_t kstride, int64_t wsrc, int64_t klen, int64_t acc, int64_t rows, int accum) {
  Insn in = isa_insn(OP_COMPUTE_OS);
  in.f[FLD_SRC] = src;
  in.f[FLD_KSTRIDE] = kstride;
  in.f[FLD_WSRC] = wsrc;
  in.f[FLD_KLEN] = klen;
  in.f[FLD_ACC_ADDR] = acc;
  in.f[FLD_ROWS] = rows;
  in.f[FLD_ACCUM] = accum;
  return in;
}

Insn insn_compute_is(int64_t src, int64_t acc, int64_t rows, int64_t astride, int64_t cols, int accum) {
  Insn in = isa_insn(OP_COMPUTE_IS);
  in.f[FLD_SRC] = src;
  in.f[FLD_ACC_ADDR] = acc;
  in.f[FLD_ROWS] = rows;
  in.f[FLD_ASTRIDE] = astride;
  in.f[FLD_COLS] = cols;
  in.f[FLD_ACCUM] = accum;
  return in;
}

Insn insn_store(int64_t src, int64_t addr, int64_t outer, int64_t inner, int64_t cols, int raw32) {
  Insn in = isa_insn(OP_STORE);
  in.f[FLD_SRC] = src;
  in.f[FLD_DRAM_ADDR] = addr;
  in.f[FLD_OUTER] = outer;
  in.f[FLD_INNER] = inner;
  in.f[FLD_COLS] = cols;
  in.f[FLD_RAW32] = raw32;
  return in;
}

void insn_add(Program *p, Insn in) {
  if (prog_add_insn(p, &in)) abort();
}
