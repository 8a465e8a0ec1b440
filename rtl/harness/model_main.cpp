// model_main.cpp: main() of one Verilated model configuration ($(BUILD)/rtl/<config>/sasim-rtl-model,
// started by sasim-rtl): `run PROG.bin [options]`, the options of `sasim run`, on the RTL.
#include <cstring>

#include "c_api.h"
#include "rtl_engine.h"
#include "verilated.h"

// A switch over an enum of ours must list every case (STYLE.md 3): an error from here on, as in the C
// build, though the model is compiled without -Werror (Verilator's own sources warn).
#pragma GCC diagnostic error "-Wswitch-enum"

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "run")) {
    fprintf(stderr, "usage: %s run PROG.bin [options of sasim run]\n", argv[0]);
    return 2;
  }
  RunArgs a;
  int rc = run_args_parse(argc - 2, argv + 2, &a);
  if (rc) return rc == 1 ? 0 : rc;
  if (a.engine == RUN_ENGINE_C) a.engine = RUN_ENGINE_RTL;
  return run_cmd(&a, rtl_engine_run, nullptr);
}
