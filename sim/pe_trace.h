// pe_trace.h: the text --pe-trace, an array observer (array_snap.h) printing each active cycle
// of the window. The format (docs/VIEW.md), one block per cycle:
//   cycle T: MODE (bank B), N of R*C PEs busy[, PRELOAD shifting a row in]
//   then grids (the moving ones only when a PE is busy), each a heading line (its name, then c0 c1 ...) and one line per PE row (r0 ...),
//   cells right-aligned in the grid's widest value, "." for an empty PE:
//     WS/IS: the stationary operand ("weight" in WS, "input" in IS; printed in the first cycle
//            and whenever it changes), the operand moving right ("act" in WS, "weight" in IS),
//            and "psum", the partial sum moving down;
//     OS:    "a" (moving right) and "b" (moving down) of the PEs that multiplied, "sum" (each
//            PE's own output: value(products), "d" when its last product went to the drain
//            register), "drain" (the drain registers, when any holds a sum);
//   then "ACC writes: [row][col]=v" ("+=" when accumulating; "cK>" before a write of column K
//   through the input-stationary rotator) when the accumulator was written.
#ifndef SA_PE_TRACE_H
#define SA_PE_TRACE_H

#include <stdio.h>

#include "array_snap.h"

typedef struct PeTrace PeTrace;

// A trace printing to f (not owned). NULL on out of memory.
PeTrace *pe_trace_new(FILE *f);
void pe_trace_free(PeTrace *t);
ArrayObserver *pe_trace_observer(PeTrace *t);

#endif
