// lower_int.h: what lower.c shares with the files that lower one family of ops each
// (lower_mm.c: matmul and transpose). Not for the other passes: they see lower.h only.
#ifndef SACC_LOWER_INT_H
#define SACC_LOWER_INT_H

#include "lower.h"

// The lowering context (lower_graph's): the graph, the arch, the MachProg being built and what
// fusion and layout decided.
typedef struct {
  const Graph *g;
  const Arch *a;
  MachProg *mp;
  Diag *d;
  int *group;        // per layer: the index of its group's head layer
  int *readers;      // per graph tensor: how many layers read it
  int *is_output;    // per graph tensor: a network output
  int *dt;           // per graph tensor: its DTensor, -1 when internal to a group
  int *padded;       // per DTensor: its padded twin (read by convolutions), -1 when none
  unsigned *gact;    // per head layer: the group's composed activation ...
  int8_t *glo, *ghi;
  int *gpool;        // per head layer: the fused max pool layer, -1 when none
  int *gtail;        // per head layer: the group's last layer (its output is the group's)
  const Dataflow *op_df;   // per op, or NULL: mp->dataflow for all
  int n_op_df;
} Lw;

// lower.c's helpers. lw_oom records "out of memory" and returns -1; lw_new_op appends a MachOp
// (NULL when out of memory) in its dataflow, identity scales, no activation; lw_view_of is a view
// of the whole DTensor i; lw_alloc_params allocates n biases, multipliers and shifts (zeros).
int lw_oom(Lw *w);
MachOp *lw_new_op(Lw *w, MopKind kind, int layer, const char *what);
TView lw_view_of(const MachProg *mp, int i);
int lw_alloc_params(MachOp *op, int64_t n);

// lower_mm.c. Each returns 0, or -1 with a message naming the layer.
// Folds transposes into the matmuls around them (before layout): a transpose whose output only
// matmuls read (through more transposes, perhaps), as operands whose rows stay contiguous, becomes
// a permuted alias of the tensor it reads (DTensor.permuted); one whose input is a matmul's output
// read by nothing else makes that output a permuted alias of its own output, which the matmul
// writes in place. Either way no op copies it.
void lower_mm_fold(Lw *w);
// Whether layer i is a transpose lower_mm_fold folded away (it lowers to nothing).
int lower_mm_folded(const Lw *w, int i);
// matmul (head of group i): one GEMM per batch (the axes before the last two), B from DRAM.
int lower_matmul(Lw *w, int i, int layer_id, const char *what);
// transpose (layer i): an element-wise copy through the accumulators with permuted strides (in
// pieces of 255 channels when a gather of one byte per channel would exceed NSEG on a wide array).
int lower_transpose(Lw *w, int i, int layer_id, const char *what);

#endif
