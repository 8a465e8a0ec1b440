// sasim_cli.h: the sasim command line as tables (sasim_cli.c): one option table per command, from
// which isa/cliopt.c parses and prints --help. run_cmd.c (shared with the RTL harness) and main.c
// switch over the enums.
#ifndef SA_SASIM_CLI_H
#define SA_SASIM_CLI_H

#include "../isa/cliopt.h"

typedef enum {
  RUNOPT_STATS,
  RUNOPT_JSON,
  RUNOPT_CSV,
  RUNOPT_TRACE,
  RUNOPT_TIMELINE,
  RUNOPT_TIMELINE_FORMAT,
  RUNOPT_ENERGY,
  RUNOPT_MODE,
  RUNOPT_PE_TRACE,
  RUNOPT_VIEW,
  RUNOPT_VIEW_MAX_MB,
  RUNOPT_FROM,
  RUNOPT_TO,
  RUNOPT_ENGINE,
  RUNOPT_VCD,
  RUNOPT_VCD_UNITS,
  RUNOPT_MAX_CYCLES,
  RUNOPT_THREADS,
  RUNOPT_ARCH,
  RUNOPT_INPUT,
  RUNOPT_OUTPUT_DIR,
  RUNOPT_EXPECT,
  RUNOPT_PRINT,
  RUNOPT_ALLOW_RACES,
  RUNOPT_FLIP_WRITE_BIT,
  RUNOPT_FLIP_ACC_BIT
} RunOpt;
typedef enum { ASMOPT_OUT, ASMOPT_COMPRESS } AsmOpt;
typedef enum { DISASMOPT_OUT } DisasmOpt;
typedef enum { CHECKOPT_JSON } CheckOpt;

extern const CliCommand sasim_run, sasim_check, sasim_asm, sasim_disasm;
extern const CliTool sasim_cli;

#endif
