// emit.h: instructions for every machine op (emit.c), into a Program whose constants, tensors
// and layers compile.c has set up. Tokens come from sched.c.
#ifndef SACC_EMIT_H
#define SACC_EMIT_H

#include "lower.h"
#include "sched.h"
#include "tile.h"

typedef struct {
  uint64_t insns[NUM_UNITS];       // instructions per unit (LAYER counted in each)
  uint64_t tokens[NUM_UNITS][NUM_UNITS];
} EmitStats;

// Emits the ops' instructions, LAYER markers and the final HALT. -1 on out of memory.
int emit_program(const MachProg *mp, Program *p, EmitStats *st, Diag *d);

#endif
