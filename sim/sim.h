// sim.h: the machine simulator. Two engines, one contract: they produce identical DRAM bytes,
// identical per-instruction timing and identical statistics for every legal program.
//   SIM_FAST:     per-instruction exact timing (docs/TIMING.md closed forms), skipping idle
//                 cycles; the arithmetic done by a bulk int8 GEMM kernel.
//   SIM_DETAILED: cycle by cycle, PE by PE, the DRAM model stepped every clock.
#ifndef SA_SIM_H
#define SA_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "../isa/diag.h"
#include "../isa/program.h"

typedef enum { SIM_FAST, SIM_DETAILED } SimMode;

// Timing of one instruction (cycles). For LAYER, the copy in the load queue is recorded.
typedef struct {
  uint64_t fetch;        // cycle it was fetched (it may start at fetch + 1)
  uint64_t start;        // cycle its unit dequeued it (tokens popped)
  uint64_t ready;        // first cycle its unit may start the next instruction
  uint64_t end;          // cycle of its last action; its tokens are visible from end + 1
  uint64_t stall;        // cycles in [start, ready) spent waiting on a DRAM slot
} InsnTime;

// The statistics' fields are generated from stats.def (one row per figure; see its header).
#define STAT_FIELD_ONE(name) uint64_t name;
#define STAT_FIELD_UNITS(name) uint64_t name[NUM_UNITS];
#define STAT_FIELD_MEMS(name) uint64_t name[MEM_ST_COUNT];
#define STAT_FIELD_REAL(name)
#define STAT_KEEP(x) x
#define STAT_DROP(x)

typedef enum {
#define STAT_MEM(id, name) MEM_ST_##id,
#include "stats.def"
#undef STAT_MEM
} MemStatId;
enum {
  MEM_ST_COUNT = 0   // how many (not a MemStatId, so that switches over one need no case for it)
#define STAT_MEM(id, name) +1
#include "stats.def"
#undef STAT_MEM
};

// A unit's counters in the run (stats.def's UNITS rows): busy, wait_token, wait_resource, idle
// and insns (TIMING §9); busy + waits + idle = cycles.
#define STAT_UNIT_FIELD_ONE(name)
#define STAT_UNIT_FIELD_UNITS(name) uint64_t name;
#define STAT_UNIT_FIELD_MEMS(name)
#define STAT_UNIT_FIELD_REAL(name)
typedef struct {
#define STAT(name, shape, scope, ...) STAT_UNIT_FIELD_##shape(name)
#include "stats.def"
#undef STAT
} UnitStats;

// One LAYER marker's figures: the LAYER and SPAN rows of stats.def.
#define STAT_IN_LAYER_RUN STAT_DROP
#define STAT_IN_LAYER_LAYER STAT_KEEP
#define STAT_IN_LAYER_SPAN STAT_KEEP
#define STAT_IN_LAYER_FIG STAT_DROP
typedef struct {
  int seen;                           // some instruction ran in it
#define STAT(name, shape, scope, ...) STAT_IN_LAYER_##scope(STAT_FIELD_##shape(name))
#include "stats.def"
#undef STAT
} LayerStats;

// Counts a LOAD's reads or a STORE's writes (beats and bytes; either may be 0) against the memory
// they reach: the global buffer (gbuf 1) or DRAM.
static inline void layer_count_read(LayerStats *ls, int gbuf, uint64_t beats, uint64_t bytes) {
  *(gbuf ? &ls->gbuf_read_beats : &ls->dram_read_beats) += beats;
  *(gbuf ? &ls->gbuf_read_bytes : &ls->dram_read_bytes) += bytes;
}
static inline void layer_count_write(LayerStats *ls, int gbuf, uint64_t beats, uint64_t bytes) {
  *(gbuf ? &ls->gbuf_write_beats : &ls->dram_write_beats) += beats;
  *(gbuf ? &ls->gbuf_write_bytes : &ls->dram_write_bytes) += bytes;
}

// The run's figures: the RUN and LAYER rows of stats.def (UNITS rows in unit[]). Each engine
// counts a LAYER row's events in their layer only; stats_finish sums the layers into the total.
#define STAT_IN_RUN_RUN STAT_KEEP
#define STAT_IN_RUN_LAYER STAT_KEEP
#define STAT_IN_RUN_SPAN STAT_DROP
#define STAT_IN_RUN_FIG STAT_DROP
#define STAT_RUN_FIELD_ONE STAT_FIELD_ONE
#define STAT_RUN_FIELD_UNITS(name)
#define STAT_RUN_FIELD_MEMS STAT_FIELD_MEMS
#define STAT_RUN_FIELD_REAL(name)
typedef struct {
  UnitStats unit[NUM_UNITS];          // per unit
#define STAT(name, shape, scope, ...) STAT_IN_RUN_##scope(STAT_RUN_FIELD_##shape(name))
#include "stats.def"
#undef STAT
  uint32_t n_layers;                  // entries in layers (program's layers; + 1 for "none" at index n)
  LayerStats *layers;                 // layers[n_layers] collects what runs before any LAYER
} SimStats;

typedef struct Sim Sim;

// Builds a machine for p (its arch), DRAM loaded with p's data, after checking p with
// prog_check (NULL with messages when it is illegal). p must outlive the Sim.
Sim *sim_new(const Program *p, SimMode mode, Diag *d);
void sim_free(Sim *s);
// Overwrites an input (or any) tensor's DRAM bytes; data is dense row-major in the tensor's dtype.
int sim_set_tensor(Sim *s, const char *name, const void *data, uint64_t bytes, Diag *d);
// Reads a tensor back as dense row-major bytes into out (prog_dtype_size * element count).
int sim_get_tensor(const Sim *s, const TensorInfo *t, void *out);
// Detailed mode only: print the array state every active cycle of the window (pe_trace.h's
// format; for teaching). 0, or -1 (out of memory, or no observer slot left) with a message.
int sim_set_pe_trace(Sim *s, FILE *f, Diag *d);
// Detailed mode only: call o (array_snap.h; not owned, it must outlive the run) for every active
// array cycle of the window. 0, or -1 with a message when SIM_MAX_OBSERVERS are set already.
struct ArrayObserver;
int sim_add_observer(Sim *s, struct ArrayObserver *o, Diag *d);
// The cycles the observers see: [from, to), to 0 meaning to the end of the run (default: all).
void sim_set_window(Sim *s, uint64_t from, uint64_t to);
// Detailed mode only: a line "cycle N, insns fetched K/N" every few million cycles (long runs).
void sim_set_progress(Sim *s, FILE *f);
// Makes sim_run fail ("cycle limit N reached") rather than simulate past max_cycles (0: no limit).
void sim_set_max_cycles(Sim *s, uint64_t max_cycles);
// Fast mode: compute the values of big COMPUTEs on `threads` host threads (1 or 2; default 1).
// Cycles, statistics and outputs do not depend on it.
void sim_set_threads(Sim *s, unsigned threads);
// Runs to completion. Runtime errors (deadlock, token overflow) return -1 with a message.
int sim_run(Sim *s, Diag *d);
const SimStats *sim_stats(const Sim *s);
const InsnTime *sim_insn_times(const Sim *s);   // one per instruction
const uint8_t *sim_dram(const Sim *s);
const uint8_t *sim_gbuf(const Sim *s);   // the global buffer's arch->gbuf_bytes bytes
const Program *sim_program(const Sim *s);

#endif
