// sfu_exec.h: what one special-function unit instruction does, shared by both engines: the
// values it writes (docs/ISA.md section 6.8, on isa/sfu_math.h), its cycles (docs/TIMING.md
// section 7a) and what it counts (TIMING section 10, sim/stats.def's sfu_* rows). An instruction
// works on ROWS "rows" one after the other: an accumulator row for SFU_MAP and SFU_EW, a row of LEN
// values spread over ceil(LEN / C) accumulator rows SSTRIDE apart for the row instructions. The
// fast engine computes and writes every row at the instruction's start; the detailed engine
// computes a row when its last pass has read it and writes it sfu.latency cycles later. Programs
// are race-free (docs/ISA.md 4.1) and a source is the destination or apart from it (section 7), so
// both orders give the same bits.
#ifndef SA_SFU_EXEC_H
#define SA_SFU_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "../isa/arch.h"
#include "../isa/isa.h"
#include "../isa/sfu_cycles.h"
#include "sim.h"

// The accumulator as an engine keeps it: value (row, c) at acc[row * row_step + c * col_step]
// (row-major: C, 1; the fast engine's transposed copy: 1, its column stride), and PARAM row-major.
typedef struct {
  int32_t *acc;
  size_t row_step, col_step;
  const int32_t *param;
} SfuMem;

// The CFG_SFU registers, 0 at reset.
typedef struct {
  int32_t mult;
  unsigned shift;
  uint64_t eps;
} SfuRegs;

// CFG_SFU: the registers it sets.
void sfu_regs_set(SfuRegs *r, const Insn *cfg);
// Segments S = ceil(LEN / C) of a row instruction's row; 1 for SFU_MAP and SFU_EW.
uint64_t sfu_segments(const Arch *a, const Insn *in);
// Cycles of one row of `in` (isa/sfu_cycles.h, TIMING 7a).
uint64_t sfu_row_cycles(const Arch *a, const Insn *in);
// D = ROWS x sfu_row_cycles + P: ready = s + D, e = s + D - 1. 1 for CFG_SFU (and LAYER).
uint64_t sfu_duration(const Arch *a, const Insn *in);
// Values in one row's result (the buffer sfu_row_compute fills): S x C (C for SFU_REDUCE).
uint64_t sfu_row_out_len(const Arch *a, const Insn *in);
// Row r's results (sfu_row_out_len values) from the accumulator and PARAM as they are.
void sfu_row_compute(const Arch *a, const SfuRegs *regs, const Insn *in, const SfuMem *m, uint32_t r, int32_t *out);
// Writes row r's results into the accumulator (for the row instructions, the values j < LEN).
void sfu_row_write(const Arch *a, const Insn *in, const SfuMem *m, uint32_t r, const int32_t *out);
// Adds what the instruction counts (sfu_* rows, ACC and PARAM row traffic) to a layer.
void sfu_count(const Arch *a, const Insn *in, LayerStats *ls);

#endif
