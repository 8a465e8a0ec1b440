// detailed_step.h: the detailed engine one clock at a time, for a caller that runs another model
// of the machine beside it (the RTL harness's `--engine both`). sim_detailed_run() is exactly
// begin + step until done + end, so stepping changes no timing. Each step can fill a SimCycleLog
// with what the cycle did, the figures a lockstep comparison checks.
#ifndef SA_DETAILED_STEP_H
#define SA_DETAILED_STEP_H

#include <stdint.h>

#include "dram.h"
#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

// Unit states of docs/TIMING.md §9, as counted in UnitStats.
typedef enum { SIM_UST_IDLE, SIM_UST_BUSY, SIM_UST_WAIT_TOKEN, SIM_UST_WAIT_RESOURCE } SimUnitState;

// One column's accumulator write by the array (either mode) in a cycle.
typedef struct {
  uint64_t row;                   // ACC row, UINT64_MAX when the column wrote nothing
  int32_t value;                  // the value written (added to the row when accum)
  int accum;
  uint32_t bank;                  // the ACC column written: the array column, except for
                                  // COMPUTE_IS (row m's m mod C, docs/TIMING.md §6)
  uint32_t insn;                  // the COMPUTE, COMPUTE_OS or COMPUTE_IS it belongs to
} SimAccWrite;

typedef struct {
  uint64_t cycle;                 // the cycle just simulated
  int64_t fetched;                // instruction fetched into the queues, or -1
  int halt_fetched;               // HALT was fetched
  SimUnitState state[NUM_UNITS];  // each unit's state in the cycle
  int rd_accepted;                // a read beat was accepted ...
  uint64_t rd_addr;               // ... at this address
  int wr_accepted;                // a write beat was accepted (DRAM changed) ...
  DramReq wr;                     // ... with this address, data and strobes
  int gbuf_rd_accepted;           // the global buffer's read port took a beat ...
  uint64_t gbuf_rd_addr;          // ... at this address
  int gbuf_wr_accepted;           // its write port took a beat (the buffer changed) ...
  DramReq gbuf_wr;                // ... with this address, data and strobes
  SimAccWrite *acc;               // when not NULL, C entries, all rows UINT64_MAX: the step fills
                                  // in each column's ACC write from the array
} SimCycleLog;

typedef struct SimDetStep SimDetStep;

// Starts a detailed run of s (statistics reset). NULL with a message on out of memory.
SimDetStep *sim_detailed_begin(Sim *s, Diag *d);
// Simulates one cycle, filling *log when it is not NULL. Returns 1 when the program continues,
// 0 when it has finished (sim_stats(s)->cycles is set), -1 on a runtime error (message in d).
int sim_detailed_step(SimDetStep *st, SimCycleLog *log);
void sim_detailed_end(SimDetStep *st);

#ifdef __cplusplus
}
#endif

#endif
