// report_gbuf.h: the global buffer's "DRAM saved" line in the human statistics table (report.c):
// the DRAM traffic the buffer kept on chip and what that saving is worth in energy (docs/PPA.md
// "The global buffer"). A program that never uses the buffer gets no such line.
#ifndef SA_REPORT_GBUF_H
#define SA_REPORT_GBUF_H

#include <stdio.h>

#include "energy.h"
#include "sim.h"

// The line: the bytes the buffer kept on chip (read + written), the DRAM energy their transfers
// would have cost, the buffer's own dynamic energy and the difference (e: the run's energy, or
// NULL when it could not be computed).
void report_gbuf_text(FILE *out, const Arch *a, const SimStats *st, const EnergyTable *t, const EnergyReport *e);

#endif
