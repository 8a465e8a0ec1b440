// report_sfu.h: the special-function unit's part of the human statistics table (report.c): whether
// a program uses the unit, and the short "SFU" block of its counters and energy. A program that
// never uses the unit gets no SFU row, column or block, so its table reads as before the unit.
#ifndef SA_REPORT_SFU_H
#define SA_REPORT_SFU_H

#include <stdio.h>

#include "energy.h"
#include "sim.h"

// 1 when the program has an instruction of the special-function unit (CFG_SFU included).
int report_sfu_used(const Program *p);
// The block: lanes and pipeline, values through the lanes, busy share, operations per class
// (those that occurred), and the unit's energy with where its memory traffic is priced.
void report_sfu_text(FILE *out, const Arch *a, const SimStats *st, const EnergyReport *e);

#endif
