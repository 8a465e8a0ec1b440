// cli_args.h: command-line helpers shared by the sacc commands (cli_args.c): which network input
// an `[NAME=]FILE` argument names, and loading a network with its --calib inputs.
#ifndef SACC_CLI_ARGS_H
#define SACC_CLI_ARGS_H

#include "graph.h"
#include "net.h"

// --calib [NAME=]X.npy (repeatable): real calibration inputs, float32 or float64 of the input's shape.
typedef struct {
  const char *args[64];    // as given on the command line (the option table allows at most 64)
  int n;
  float *data[64];         // per network input (Graph.inputs order), filled by load(); owned
  int allow_large;         // --allow-large: no limit on the network's MACs and bytes (NetOptions)
} CliCalib;

// Which network input a `[NAME=]FILE` argument is for: NAME's, or the first one not yet taken.
// Sets *t (index into Graph.inputs) and *file; -1 with a message when there is none.
int cli_pick_input(const Graph *g, const char *arg, const char *opt, void *const *taken, int *t, const char **file,
                   Diag *d);
void cli_calib_free(CliCalib *c);
// Default net options, with the --calib data (once cli_load has read it) when there is some.
void cli_net_options(const CliCalib *c, NetOptions *opt);
// Loads and prepares a network; calib (may be NULL) holds the --calib arguments and receives
// their data, which calibrates the scales a network leaves out.
int cli_load(const char *path, CliCalib *calib, Graph **g, Diag *d);

#endif
