// sim_internal.h: the machine state the engines work on, and the helpers they share.
// sim.c owns creation, tensors and statistics storage; an engine runs a whole program on a Sim
// and must leave identical DRAM, times and stats (docs/TIMING.md). Who includes it, and why:
//   sim/*.c                     fast.c and detailed*.c are the two C engines; sim.c, report.c.
//   rtl/harness/rtl_engine.cpp  (through c_api.h) the third engine: it fills a Sim's times and
//                               statistics from the Verilated model's probes, reading prog, arch,
//                               dram, max_cycles and progress, with the helpers below
//                               (sim_layer, sim_count_unit_state, sim_mem_stat, sim_unit_copies,
//                               the TIMING §10 closed forms, stats_reset/stats_finish); in lockstep
//                               it also reads the detailed engine's Sim (times, stats, dram).
//   tests/sim/detailed_test.c, is_test.c   poke the on-chip memories to set up operands.
// So a change to struct Sim or to these helpers must also build the RTL models and pass
// tests/rtl/*.sh (make rtl), not only tests/sim.
#ifndef SA_SIM_INTERNAL_H
#define SA_SIM_INTERNAL_H

#include "array_snap.h"
#include "detailed_step.h"
#include "sim.h"

struct Sim {
  const Program *prog;      // the program (not owned)
  const Arch *arch;         // &prog->arch
  SimMode mode;             // which engine sim_run uses
  uint8_t *dram;            // arch->dram_bytes, loaded with the program's data
  uint8_t *gbuf;            // arch->gbuf_bytes (at least 1 allocated), zero at reset: the global buffer
  int8_t *spad;             // spad_rows x R
  int8_t *wbuf;             // wbuf_rows x C
  int32_t *acc;             // acc_rows x C
  int32_t *param;           // param_rows x C
  int8_t *bank[2];          // weight banks, R x C each, bank[b][r * C + c]
  InsnTime *times;          // one per instruction
  SimStats stats;           // filled by the engine; stats.layers has n_layers + 1 entries
  ArrayObserver *obs[SIM_MAX_OBSERVERS];   // detailed mode: told each active array cycle (array_snap.h)
  int n_obs;
  uint64_t win_from, win_to;               // ... of the cycle window [from, to) (to 0: to the end)
  struct PeTrace *pe_trace;                // sim_set_pe_trace's observer (owned), or NULL
  FILE *progress;           // detailed mode: a progress line every SIM_PROGRESS_CYCLES, or NULL
  uint64_t max_cycles;      // stop with an error past this many cycles; 0: no limit
  int ran;                  // sim_run was called
};

#define SIM_PROGRESS_CYCLES (1u << 22)

// Engines. Each resets the statistics it fills and returns 0, or -1 with a runtime error.
int sim_fast_run(Sim *s, Diag *d);
int sim_detailed_run(Sim *s, Diag *d);
// The error both engines report when a run would pass s->max_cycles. Returns -1.
int sim_cycle_limit_error(const Sim *s, Diag *d);

// TIMING §10's row counts of the input-stationary instructions, in closed form (the fast engine
// and the RTL harness count them at the start; the detailed engine counts the events).
// A transposed LOAD touches NSEG*SEGLEN WBUF rows per block of C LOAD rows:
static inline uint64_t sim_transposed_load_rows(const Arch *a, const Insn *in) {
  uint64_t rows = (uint64_t)in->f[FLD_OUTER] * (uint64_t)in->f[FLD_INNER];
  return (rows + a->cols - 1) / a->cols * ((uint64_t)in->f[FLD_NSEG] * (uint64_t)in->f[FLD_SEGLEN]);
}
// A COMPUTE_IS writes COLS ACC rows per block of C streamed rows (and reads them when ACCUM):
static inline uint64_t sim_compute_is_acc_rows(const Arch *a, const Insn *in) {
  return (uint64_t)in->f[FLD_COLS] * (((uint64_t)in->f[FLD_ROWS] + a->cols - 1) / a->cols);
}

// The layer a statistic goes to: LAYER_ID, or n_layers for "(none)".
static inline LayerStats *sim_layer(Sim *s, int64_t layer) {
  return &s->stats.layers[layer < 0 ? s->prog->n_layers : (uint32_t)layer];
}

// Whether the fetch unit puts a copy of an instruction routed to `route` (isa_ops[op].unit) into
// unit v's queue.
static inline int sim_routed_to(Unit route, int v) {
  switch (route) {
  case UNIT_LOAD:
  case UNIT_COMPUTE:
  case UNIT_STORE:
  case UNIT_SFU: return (int)route == v;
  case UNIT_ALL: return 1;     // a copy in every queue (LAYER)
  case UNIT_FETCH: return 0;   // fetch consumes it (HALT)
  }
  return 0;
}

// Whether an instruction copy of unit u counts towards its layer's span (TIMING §10): all but
// the SFU's copies of LAYER (an idle SFU takes its copy when it is fetched, long before the
// layer's work: the span would start early).
static inline int sim_in_span(Opcode op, Unit u) { return op != OP_LAYER || u != UNIT_SFU; }

// The queue copies of such an instruction (each ends once).
static inline int sim_unit_copies(Unit route) {
  int n = 0;
  for (int v = 0; v < NUM_UNITS; v++) n += sim_routed_to(route, v);
  return n;
}

// The statistics' memory of a LOAD's MEM field (stats.c checks the numbering is the same).
static inline MemStatId sim_mem_stat(uint32_t mem) { return (MemStatId)mem; }

// Counts one cycle of unit u in state st (TIMING §9): idle in the run's unit only, the others in
// the layer (the unit's current one), whose sum stats_finish makes the run's.
static inline void sim_count_unit_state(Sim *s, int64_t layer, Unit u, SimUnitState st) {
  LayerStats *ls = sim_layer(s, layer);
  switch (st) {
  case SIM_UST_IDLE: s->stats.unit[u].idle++; break;
  case SIM_UST_BUSY: ls->busy[u]++; break;
  case SIM_UST_WAIT_TOKEN: ls->wait_token[u]++; break;
  case SIM_UST_WAIT_RESOURCE: ls->wait_resource[u]++; break;
  }
}

#endif
