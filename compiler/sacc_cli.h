// sacc_cli.h: the sacc command line as tables (sacc_cli.c): one option table per command, from
// which isa/cliopt.c parses and prints --help. main.c and cmd_compile.c switch over the enums.
#ifndef SACC_SACC_CLI_H
#define SACC_SACC_CLI_H

#include "../isa/cliopt.h"

#define SACC_MAX_FILES 64   // --calib and --input files per command

typedef enum { CHECK_DUMP_IR, CHECK_CALIB, CHECK_ALLOW_LARGE } CheckOpt;
typedef enum { REF_INPUT, REF_SEED, REF_OUTPUT_DIR, REF_LAYER_STATS, REF_CALIB, REF_ALLOW_LARGE } RefOpt;
typedef enum {
  COMPILE_OUT,
  COMPILE_ARCH,
  COMPILE_EMIT,
  COMPILE_NO_DOUBLE_BUFFER,
  COMPILE_NO_PRELOAD_OVERLAP,
  COMPILE_NO_FUSE_LAYERS,
  COMPILE_NO_SHARED_TAPS,
  COMPILE_DATAFLOW,
  COMPILE_LAYER_DATAFLOW,
  COMPILE_DUMP_IR,
  COMPILE_STATS,
  COMPILE_JSON,
  COMPILE_SEED,
  COMPILE_NO_COMPRESS,
  COMPILE_CALIB,
  COMPILE_ALLOW_LARGE
} CompileOpt;

typedef enum { EMIT_BIN, EMIT_ASM } EmitKind;   // --emit

extern const CliCommand sacc_check, sacc_ref, sacc_compile;
extern const CliTool sacc_cli;

#endif
