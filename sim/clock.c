// clock.c: the achievable-clock model (clock.h; docs/PPA.md, Clock). Per block, a path delay
// in ps of the form c0 + c1 x v + [C not a power of two] x (n0 + n1 x v), v one of
// log2(R x C), log2(C) or nothing (the last term only for the rotator, whose modulo is a real
// compare and subtract unless C is a power of two), with coefficients
// fitted by scripts/timing-fit (which rewrites the lines between BEGIN and END timing-fit) on
// yosys-mapped critical paths priced with workloads/energy/delay-45nm.json.
#include "clock.h"

#include <math.h>

const char *const clock_block_names[CLK_BLOCKS] = {"pe_array", "rotator", "post"};

typedef enum { FIT_CONST, FIT_LOG2_RC, FIT_LOG2_C } FitVar;

typedef struct {
  double c0, c1, n0, n1;   // ps
  FitVar var;
} BlockFit;

static const BlockFit fits[CLK_BLOCKS] = {
  // BEGIN timing-fit (scripts/timing-fit rewrites these lines)
  {1752.2, 30.6, 0.0, 0.0, FIT_LOG2_RC},   // pe_array
  {272.5, 173.3, 73.8, 61.9, FIT_LOG2_C},   // rotator
  {5348.7, 0.0, 0.0, 0.0, FIT_CONST},   // post
  // END timing-fit
};

static double fit_var(FitVar v, const Arch *a) {
  switch (v) {
    case FIT_CONST:
      return 0.0;
    case FIT_LOG2_RC:
      return log2((double)a->rows * (double)a->cols);
    case FIT_LOG2_C:
      return log2((double)a->cols);
  }
  return 0.0;
}

void clock_estimate(const Arch *a, ClockEstimate *out) {
  out->critical = CLK_PE_ARRAY;
  for (int b = 0; b < CLK_BLOCKS; b++) {
    int np2 = (a->cols & (a->cols - 1)) != 0;
    double v = fit_var(fits[b].var, a);
    out->block_ps[b] = fits[b].c0 + fits[b].c1 * v + (np2 ? fits[b].n0 + fits[b].n1 * v : 0.0);
    if (out->block_ps[b] > out->block_ps[out->critical]) out->critical = (ClockBlock)b;
  }
  out->mhz = 1e6 / out->block_ps[out->critical];
  out->critical_name = clock_block_names[out->critical];
}
