// report_gbuf.h: the global buffer's part of the human statistics table (report.c): whether a
// program uses the buffer, and the short "GBUF" block of its traffic, the DRAM traffic it saved
// and what that saving is worth in energy (docs/PPA.md "The global buffer"). A program that never
// uses the buffer gets no GBUF line, column or block.
#ifndef SA_REPORT_GBUF_H
#define SA_REPORT_GBUF_H

#include <stdio.h>

#include "energy.h"
#include "sim.h"

// 1 when the program has a LOAD or STORE with GBUF=1.
int report_gbuf_used(const Program *p);
// The block: the buffer's size and beat, its read and write traffic, and "DRAM saved": the bytes
// it kept on chip, the DRAM energy they would have cost at least, the buffer's own dynamic energy
// and the difference (e: the run's energy, or NULL when it could not be computed).
void report_gbuf_text(FILE *out, const Arch *a, const SimStats *st, const EnergyTable *t, const EnergyReport *e);

#endif
