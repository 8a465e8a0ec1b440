// report.h: statistics of a finished run for people (a table) and for scripts (JSON, CSV),
// and the Chrome/Perfetto trace of its instructions.
#ifndef SA_REPORT_H
#define SA_REPORT_H

#include <stdio.h>

#include "energy.h"
#include "sim.h"

// A layer's name as printable ASCII (i == p->n_layers: "(none)"): other bytes become \xNN, so
// that JSON (which needs UTF-8) and CSV always get a whole, readable name. out holds
// REPORT_NAME_BUF bytes.
#define REPORT_NAME_BUF (4 * PROG_NAME_MAX)
const char *report_layer_name(const Program *p, uint32_t i, char *out);
// An instruction's name for people (timeline, trace): its mnemonic, "LOAD gbuf" / "STORE gbuf"
// for a LOAD or STORE on the global buffer (GBUF=1).
const char *report_op_label(const Insn *in);
// Human-readable table. `label` names the program in the heading; t prices energy and area.
void report_text(FILE *out, const Sim *s, const char *label, const EnergyTable *t);
// The same figures as one JSON object (schema in docs/STATS.md). Returns 0 or -1.
int report_json(FILE *out, const Sim *s, const char *label, const EnergyTable *t);
// One CSV row per layer (header first). Returns 0 or -1 (out of memory).
int report_layers_csv(FILE *out, const Sim *s, const EnergyTable *t);
// Chrome trace-event JSON: a track per unit with a slice per instruction (1 us = 1 cycle), and
// the in-flight tail (ready .. end) of DMA instructions as async slices.
int report_trace(FILE *out, const Sim *s);

#endif
