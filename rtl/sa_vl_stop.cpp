// sa_vl_stop.cpp: what a Verilated model of rtl/ does on $stop, linked into every model (rtl/rtl.mk
// builds them with -DVL_USER_STOP). A failed assertion (rtl/sa_assert.svh; also Verilator's own
// --assert checks, such as a `unique case` that matches nothing) calls $stop. Verilator's vl_stop
// would print to stdout and abort(); this one names the place on stderr and exits with status 1,
// so that sasim-rtl (and sasim run --engine rtl|both, which executes it) fails like any other
// runtime error. The assertion's own message is already on stderr (sa_assert.svh); Verilator's
// built-in checks print theirs on stdout, flushed here first.
#include <cstdio>
#include <cstdlib>

#include "verilated.h"

void vl_stop(const char *filename, int linenum, const char *hier) {
  (void)hier;   // empty for assertions; the message names the scope
  std::fflush(stdout);
  std::fprintf(stderr, "sasim-rtl: error: the RTL model stopped ($stop at %s:%d)\n", filename, linenum);
  std::exit(1);
}
