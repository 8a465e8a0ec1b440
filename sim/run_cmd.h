// run_cmd.h: the `sasim run` command, shared by sasim (the C engines) and sasim-rtl (the RTL
// model, rtl/harness/), so both take the same options and print the same reports and outputs.
// Also the few command-line helpers every sasim command uses.
#ifndef SA_RUN_CMD_H
#define SA_RUN_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "../isa/fileio.h"
#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RUN_ENGINE_C, RUN_ENGINE_RTL, RUN_ENGINE_BOTH } RunEngineKind;

#define RUN_MAX_INPUTS 64   // --input, --expect and --print may each be given this many times

// run_cmd's exit status when a tensor differs from its --expect reference (errors are 1, usage 2).
#define RUN_EXIT_MISMATCH 3

// --vcd-units: the scopes of the RTL a waveform holds (sa_top's own signals are always in it).
enum {
  RUN_VCD_FETCH = 1,     // sa_fetch, the three queues, the token counters
  RUN_VCD_LOAD = 2,      // sa_load
  RUN_VCD_COMPUTE = 4,   // sa_compute with its array
  RUN_VCD_STORE = 8,     // sa_store
  RUN_VCD_ARRAY = 16     // sa_array only (the PE grid and its skew lines)
};

typedef struct {
  const char *prog_path, *json, *csv, *trace, *arch_path, *outdir;
  const char *timeline;              // --timeline FILE (- for stdout), or NULL
  int timeline_format;               // --timeline-format: a TlFormat, or -1 (by the file's name)
  const char *energy_path;           // --energy: the energy and area table (NULL: the built-in one)
  const char *inputs[RUN_MAX_INPUTS];
  int n_inputs, stats, pe_trace;
  const char *expects[RUN_MAX_INPUTS];   // --expect [NAME=]REF.npy
  int n_expects;
  const char *prints[RUN_MAX_INPUTS];    // --print NAME|all
  int n_prints;
  int allow_races;                   // --allow-races: run a program the race check refuses, with a warning
  unsigned long long max_cycles;
  unsigned long long threads;        // --threads (0: 2 when two processors are online, else 1)
  SimMode mode;
  RunEngineKind engine;
  const char *vcd;                   // RTL engines: waveform file, or NULL
  const char *view;                  // --view: the HTML page, or NULL
  unsigned long long view_max_mb;    // --view-max-mb: the cap on its recorded cycles (0: VIEW_MAX_MB)
  unsigned long long from, to;       // --from/--to: the cycles --pe-trace, --view and --vcd show,
                                     // [from, to) (to 0: to the end)
  unsigned vcd_units;                // RUN_VCD_* scopes traced (0: the whole model)
  int flip_write_bit;                // RTL engines, tests only: flip bit 0 of the Nth write beat (1-based)
  int flip_acc_bit;                  // --engine both, tests only: flip bit 0 of the Nth ACC write of the
                                     // array as the lockstep sees it from the RTL (1-based)
} RunArgs;

// An engine other than the C ones: runs s to completion, filling its DRAM, times and
// statistics exactly as sim_run would. Returns 0, or -1 with a message in d.
typedef int (*RunEngine)(void *ctx, Sim *s, const RunArgs *a, Diag *d);

// Parses the arguments after `run`. Returns 0 to run, 1 when --help was printed, 2 after a usage
// error (printed with the usage line). The options are the rows of sasim_run (sasim_cli.c).
int run_args_parse(int argc, char **argv, RunArgs *a);
// Loads the program, checks --arch, applies --input, runs it (engine NULL: the C engine of
// a->mode), prints the cycles or --stats, writes --json/--csv/--trace and the outputs, prints the
// --print tensors and compares the --expect ones. Returns the exit status: 0, 1 after printing
// the errors, or RUN_EXIT_MISMATCH when a tensor differs from its reference.
int run_cmd(const RunArgs *a, RunEngine engine, void *ctx);

// Command-line helpers. cli_fail prints the recorded errors and returns 1.
int cli_fail(const Diag *d);
// An output for formatted writing through o (fileio.h: a temporary renamed into place; "-" is
// stdout): the stream, or NULL with an error. cli_close_out(o, ok) finishes it (ok: renames it,
// reporting a write error with its reason; else removes it).
FILE *cli_open_out(FileOut *o, const char *path, Diag *d);
int cli_close_out(FileOut *o, int ok, Diag *d);

#ifdef __cplusplus
}
#endif

#endif
