// sfu_cycles.h: the special-function unit's cycle rule (docs/TIMING.md section 7a), stated once
// for the simulator's engines (sim/sfu_exec.c) and the compiler's cost model (compiler/tile.c).
#ifndef SA_SFU_CYCLES_H
#define SA_SFU_CYCLES_H

#include <stdint.h>

#include "arch.h"
#include "isa.h"

// k = ceil(C / min(L, C)): cycles a row of C values takes through the lanes.
uint64_t sfu_lane_cycles(const Arch *a);
// Cycles one row of an `op` instruction takes with `segs` segments (S = ceil(LEN / C); ignored by
// SFU_MAP and SFU_EW): k; 3 S k + 17; 2 S k + 33; S k. 0 for an opcode that has no rows.
uint64_t sfu_row_cycles_of(const Arch *a, Opcode op, uint64_t segs);

#endif
