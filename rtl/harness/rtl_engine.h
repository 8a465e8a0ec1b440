// rtl_engine.h: runs a program on the Verilated sa_top, serving its DRAM ports with sim/dram.c
// and filling the Sim's times and statistics from the model's probe ports; optionally in
// lockstep with the C detailed engine (--engine both), stopping at the first difference.
#ifndef SA_RTL_ENGINE_H
#define SA_RTL_ENGINE_H

#include "c_api.h"

// A RunEngine (run_cmd.h). ctx is unused.
int rtl_engine_run(void *ctx, Sim *s, const RunArgs *a, Diag *d);

#endif
