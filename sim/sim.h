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

typedef struct {
  uint64_t busy;           // executing
  uint64_t wait_token;     // head instruction waiting for a token
  uint64_t wait_resource;  // waiting on a DRAM slot, the weight chain/bank, a preload, a mode switch
                           // or a COMPUTE_OS drain
  uint64_t idle;           // queue empty
  uint64_t insns;          // instructions started
} UnitStats;

typedef enum { MEM_ST_SPAD, MEM_ST_WBUF, MEM_ST_ACC, MEM_ST_PARAM, MEM_ST_COUNT } MemStatId;

typedef struct {
  uint64_t first_start, last_end;     // span of its instructions, cycles
  uint64_t macs;                      // useful multiply-accumulates
  uint64_t dram_read_bytes, dram_write_bytes;
  uint64_t busy[NUM_UNITS];
  uint64_t wait_token[NUM_UNITS];
  uint64_t wait_resource[NUM_UNITS];
  int seen;                           // some instruction ran in it
  // The work of its instructions, as SimStats counts it in total (the energy model's inputs).
  uint64_t pe_cycles;                 // array slots used
  uint64_t dram_read_beats, dram_write_beats;
  uint64_t mem_reads[MEM_ST_COUNT];   // on-chip row reads
  uint64_t mem_writes[MEM_ST_COUNT];  // on-chip row writes
  uint64_t preload_shifts;            // weight-chain shift cycles
  uint64_t post_elems;                // int32 elements through the post-processing unit
} LayerStats;

typedef struct {
  uint64_t cycles;                    // total: the cycle after the last action
  uint64_t macs;                      // COMPUTE ROWS x preloaded ROWS x C; COMPUTE_OS ROWS x KLEN x C
  uint64_t pe_cycles;                 // array slots used: COMPUTE ROWS x R x C; COMPUTE_OS KLEN x R x C
  UnitStats unit[NUM_UNITS];
  uint64_t fetch_stall;               // cycles the fetch unit waited for queue space
  uint64_t dram_read_beats, dram_write_beats;
  uint64_t dram_read_bytes, dram_write_bytes;  // useful bytes (the beats carry beats x bus_bytes)
  uint64_t mem_reads[MEM_ST_COUNT];   // on-chip row reads
  uint64_t mem_writes[MEM_ST_COUNT];  // on-chip row writes
  uint64_t preload_shifts;            // weight-chain shift cycles: R per PRELOAD (each moves R x C weights)
  uint64_t post_elems;                // int32 ACC elements a non-RAW32 STORE read into the SFU: window reads x COLS
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
// Detailed mode only: print the array state every cycle (small arrays; for teaching).
void sim_set_pe_trace(Sim *s, FILE *f);
// Detailed mode only: a line "cycle N, insns fetched K/N" every few million cycles (long runs).
void sim_set_progress(Sim *s, FILE *f);
// Makes sim_run fail ("cycle limit N reached") rather than simulate past max_cycles (0: no limit).
void sim_set_max_cycles(Sim *s, uint64_t max_cycles);
// Runs to completion. Runtime errors (deadlock, token overflow) return -1 with a message.
int sim_run(Sim *s, Diag *d);
const SimStats *sim_stats(const Sim *s);
const InsnTime *sim_insn_times(const Sim *s);   // one per instruction
const uint8_t *sim_dram(const Sim *s);
const Program *sim_program(const Sim *s);

#endif
