// timeline.h: one row per instruction of a finished run (sasim run --timeline): when it was
// fetched, when its operands were available (in its queue, its tokens visible), when it started,
// when its unit was free for the next one, when it ended, and what it waited for before it
// started. Derived after the run from the program and the engine's InsnTime records with the
// rules of docs/TIMING.md, so every engine (fast, detailed, RTL) gives the same rows.
// Formats: an aligned text table, CSV and JSON (docs/STATS.md "Timeline").
#ifndef SA_TIMELINE_H
#define SA_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "sim.h"

// What an instruction waited for before it started: the first of these, in this order, whose
// bound equals its start (docs/STATS.md "Timeline" says how each bound is computed).
typedef enum {
  TL_NONE,           // started in the cycle after its fetch, fetched in the cycle after the previous one
  TL_QUEUE,          // started after its fetch, but fetch had held it: its unit's queue was full
  TL_TOKEN,          // a token from wait_unit, pushed by wait_insn (visible at its end + 1)
  TL_IN_ORDER,       // its unit was still on wait_insn (the unit's previous instruction) until its ready
  TL_WEIGHT_CHAIN,   // PRELOAD: the weight chain was still shifting wait_insn's weights in
  TL_BANK_BUSY,      // PRELOAD: a COMPUTE (wait_insn) still used the bank it fills
  TL_BANK_LOADING,   // COMPUTE*: its bank was not complete yet (PRELOAD wait_insn)
  TL_MODE_SWITCH,    // the array had to empty of wait_insn before a change of dataflow or rotator
  TL_OS_DRAIN,       // COMPUTE_OS: the drain of the previous COMPUTE_OS (wait_insn)
  TL_IS_ALIGN,       // COMPUTE_IS: waited for a cycle aligned (mod C) with COMPUTE_IS wait_insn, or its end
  TL_ARRAY,          // another structural condition of the array (docs/TIMING.md §6)
  TL_CAUSE_COUNT
} TlCause;

typedef struct {
  uint32_t insn;          // index in program order
  Unit unit;              // its unit; UNIT_ALL for LAYER (times of its load copy), UNIT_FETCH for HALT
  uint32_t layer;         // the LAYER id it belongs to; p->n_layers: before any LAYER ("-")
  uint64_t fetch;         // cycle it was fetched
  uint64_t avail;         // first cycle it was in its queue with every token it pops visible
  uint64_t start;         // cycle its unit started it
  uint64_t ready;         // first cycle its unit could start the next one (TIMING's `ready`)
  uint64_t end;           // cycle of its last action
  uint64_t dram_stall;    // cycles in [start, ready) waiting on a DRAM slot
  TlCause cause;          // what it waited for before start
  int64_t wait_insn;      // the instruction that cause names, or -1
  int wait_unit;          // TL_TOKEN: the unit that pushed the token; TL_QUEUE: the full queue's unit; else -1
} TlRow;

typedef enum { TL_FMT_TEXT, TL_FMT_CSV, TL_FMT_JSON } TlFormat;

// The rows of a finished run of p (t: its InsnTime records), one per instruction, in program
// order, into *out (malloc'd, the caller frees). Returns 0, or -1 when out of memory.
int timeline_build(const Program *p, const InsnTime *t, TlRow **out);
// The cause as a lower-case token ("token", "in_order", ...): CSV and JSON.
const char *timeline_cause_name(TlCause c);
// The cause for people ("token from load (insn 1)"), into buf.
const char *timeline_cause_text(const Program *p, const TlRow *r, char *buf, size_t n);
// The format a --timeline path asks for: .csv, .json, otherwise text.
TlFormat timeline_format_of(const char *path);
// Writes the timeline of the finished run s. Returns 0, or -1 (out of memory or a write error).
int timeline_write(FILE *out, const Sim *s, const char *label, TlFormat fmt);

#endif
