// c_api.h: the project's C headers the RTL harness uses, with C linkage. It includes
// sim/sim_internal.h: the harness is an engine of the simulator (sim_internal.h says what it uses).
#ifndef SA_RTL_C_API_H
#define SA_RTL_C_API_H

extern "C" {
#include "../../isa/asm.h"
#include "../../isa/isa.h"
#include "../../isa/program.h"
#include "../../sim/detailed_step.h"
#include "../../sim/dram.h"
#include "../../sim/report.h"
#include "../../sim/run_cmd.h"
#include "../../sim/sfu_exec.h"
#include "../../sim/sim_internal.h"
#include "../../sim/stats.h"
}

#endif
