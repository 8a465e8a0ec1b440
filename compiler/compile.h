// compile.h: the back end's driver (compile.c): graph -> fusion/layout/lowering -> tiling ->
// memory planning -> emission -> Program (with its constants, default inputs and tensor map).
#ifndef SACC_COMPILE_H
#define SACC_COMPILE_H

#include <stdio.h>

#include "emit.h"
#include "graph.h"
#include "memplan.h"

// --dataflow auto's value in the option table (not a Dataflow: it sets dataflow_auto).
#define COMPILE_DATAFLOW_AUTO 3
#define COMPILE_MAX_LAYER_DF 64

typedef struct {
  int double_buffer;          // 1 (default): two buffer halves; 0: --no-double-buffer
  int preload_overlap;        // 1 (default): PRELOADs shift in under streams; 0: --no-preload-overlap
  int fuse_layers;            // 1 (default): activations may stay in the global buffer; 0: --no-fuse-layers
  int shared_taps;            // 1 (default): kernel rows may share a gather (tile.c); 0: --no-shared-taps
  Dataflow dataflow;          // --dataflow ws|os|is: DF_WS, DF_OS or DF_IS (with dataflow_auto 0)
  int dataflow_auto;          // 1 (default): --dataflow auto, each GEMM's dataflow chosen by the cost model
  int n_layer_df;             // --layer-dataflow NAME=DF (the layer's GEMMs in DF, whatever --dataflow says)
  const char *layer_df[COMPILE_MAX_LAYER_DF];
  uint64_t input_seed;        // default input data: splitmix64 seeded with input_seed + i (as sacc ref)
  const char *dump;           // NULL, or a pass name: fuse|layout|lower|tiling|memplan|schedule|all
  FILE *dump_to;
} CompileOptions;

typedef struct {
  int n_ops, n_layers;
  uint64_t macs;               // useful MACs: the network's own, from the layer shapes (docs/STATS.md)
  uint64_t array_slots;        // array slots the emitted program occupies (R x C per row streamed)
  double est_cycles;          // the sum of the tiling cost model's estimates
  int n_layer_macs;
  uint64_t *layer_macs;       // useful MACs per layer id (owned: compile_stats_free); also in the program
  uint64_t *layer_slots;      // array slots per layer id (owned, likewise)
  double *layer_est_cycles;   // the cost model's cycles per layer id: its ops' sum (owned, likewise)
  unsigned *layer_dataflows;  // per layer id: a bit (1 << Dataflow) per dataflow its GEMMs run in (owned)
  uint64_t (*layer_fuse_saved)[2];   // per layer id: DRAM bytes read, written that fusion saves (owned)
  char (*layer_names)[PROG_NAME_MAX];
  MemPlan mem;
  EmitStats emit;
} CompileStats;

void compile_options_default(CompileOptions *o);
// Builds the program for arch a. On error NULL with messages.
Program *compile_graph(const Graph *g, const Arch *a, const CompileOptions *o, CompileStats *st, Diag *d);
// Prints the --stats summary (peak memory per level, instructions, tokens, estimates).
void compile_stats_print(const CompileStats *st, const Arch *a, FILE *f);
void compile_stats_json(const CompileStats *st, FILE *f);
void compile_stats_free(CompileStats *st);

#endif
