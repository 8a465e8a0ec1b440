// memplan.h: DRAM addresses for the constants and the activations (memplan.c).
//
// Constants (every op's tiled weights and post-processing parameters) come first, then the
// network inputs, then the activations, allocated in op order from a free list by liveness: a
// tensor's bytes are taken when its first writer runs and given back after its last reader.
// A tensor with a zero halo only reuses bytes that are zero where its halo lies: fresh memory, or
// the exact block of a dead tensor with the same layout (whose halo nobody wrote).
#ifndef SACC_MEMPLAN_H
#define SACC_MEMPLAN_H

#include <stdio.h>

#include "lower.h"
#include "tile.h"

typedef struct {
  uint64_t const_bytes;            // weights and parameters
  uint64_t input_bytes;            // network inputs
  uint64_t act_peak_bytes;         // activations alive at once, at most (halos included)
  uint64_t act_total_bytes;        // activations without reuse, for comparison
  uint64_t dram_top;               // first byte above everything
  uint32_t onchip_peak[4];         // rows of SPAD, WBUF, ACC, PARAM used by any tile (all slots)
  uint32_t gbuf_tensors;           // fusion: activations in the global buffer
  uint64_t gbuf_top;               //   the first GBUF byte above them
  uint64_t gbuf_saved_rd, gbuf_saved_wr;   // the DRAM bytes they save (memplan_fuse's estimate)
} MemPlan;

// Bytes of an op's constants in DRAM (tiled weights, or W^T for DF_IS; parameter rows).
uint64_t memplan_weight_bytes(const MachOp *op, const Arch *a, Dataflow df);
uint64_t memplan_param_bytes(const MachOp *op, const Arch *a);

// Cross-layer fusion: chooses the activations that live in the global buffer instead of DRAM
// (DTensor.gbuf, gbuf_base; MachOp.in_gbuf/out_gbuf) by the DRAM bytes they save per buffer byte,
// from the ops' plans, within gbuf.bytes and liveness; none with --no-fuse-layers
// (MachProg.fuse_layers 0) or gbuf.bytes 0. Fills every tensor's fuse_rd/fuse_wr. Returns how
// many it placed, -1 on out of memory. The savings are those of the plans it is given (the
// ops are then tiled again: GBUF beats cost less, a plan may read them more often).
int memplan_fuse(MachProg *mp, Diag *d);
// --dump-ir memplan: the decision per tensor (space, bytes, DRAM bytes saved) and per layer.
void memplan_fuse_dump(const MachProg *mp, FILE *f);
// Assigns MachOp.w_addr/p_addr and DTensor.base/addr (GBUF addresses for memplan_fuse's). -1 when DRAM is too small.
int memplan_run(MachProg *mp, MemPlan *out, Diag *d);
void memplan_dump(const MachProg *mp, const MemPlan *m, FILE *f);

#endif
