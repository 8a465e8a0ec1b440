// clock.h: the achievable clock of an arch, estimated from the critical paths of the RTL
// (docs/PPA.md, Clock): each block's path delay at 45 nm from a model fitted by
// scripts/timing-fit on rtl/synth/timing.py's measurements; the clock is set by the slowest.
// The arch's own clock_mhz is what time, power and TOPS/W use; this is what to compare it to.
#ifndef SA_CLOCK_H
#define SA_CLOCK_H

#include "../isa/arch.h"

typedef enum { CLK_PE_ARRAY, CLK_ROTATOR, CLK_POST, CLK_BLOCKS } ClockBlock;
extern const char *const clock_block_names[CLK_BLOCKS];   // "pe_array", "rotator", "post"

typedef struct {
  double block_ps[CLK_BLOCKS];   // each block's estimated critical path, register to register
  double mhz;                    // 1e6 / the largest: the estimated achievable clock
  ClockBlock critical;           // the block that sets it
  const char *critical_name;     // clock_block_names[critical]
} ClockEstimate;

// Fills *out for a's array size (rows, cols); the other fields of a do not enter the model.
void clock_estimate(const Arch *a, ClockEstimate *out);

#endif
