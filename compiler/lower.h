// lower.h: the machine-level IR between the graph and the instructions. lower.c fuses layers
// (activations and max pools into the op that produces their input), picks every tensor's DRAM
// layout (a zero halo wide enough for the convolutions that read it) and lowers each fused layer
// to MachOps: GEMMs (conv2d by im2col in the load unit's gather, fc, grouped and depthwise conv
// as block-diagonal GEMMs) and element-wise ops (add, requantize, pool, concat) that go through
// the accumulator and the post-processing unit. tile.c, memplan.c and emit.c fill in the rest.
#ifndef SACC_LOWER_H
#define SACC_LOWER_H

#include <stdint.h>
#include <stdio.h>

#include "../isa/arch.h"
#include "../isa/program.h"
#include "graph.h"

// How GEMMs use the array (docs/DATAFLOWS.md): weight-stationary (PRELOAD + COMPUTE),
// output-stationary (COMPUTE_OS) or input-stationary (the weight-stationary array on the
// transposed problem: the inputs preloaded by a transposed LOAD and a PRELOAD, the weights
// streamed by COMPUTE_IS).
typedef enum { DF_WS, DF_OS, DF_IS } Dataflow;

// An activation tensor in DRAM: NHWC int8 with a zero halo around each image (padding for the
// convolutions that read it). rank-2 tensors [N, C] are stored as [N, 1, 1, C].
typedef struct {
  char name[PROG_NAME_MAX];
  int graph_tensor;               // index in Graph.tensors
  int rank;                       // 2 or 4, as in the graph (for the TensorInfo)
  int64_t n, h, w, c;             // logical NHWC
  int halo_t, halo_b, halo_l, halo_r;  // zero rows/columns around each image
  int alias;                      // >= 0: the same bytes as that DTensor (flatten, reshape)
  int permuted;                   // a transpose folded into the matmuls around it (lower_mm.c): an
  int perm[4];                    //   alias whose NHWC axis k is axis perm[k] of DTensor `alias`
  TensorRole role;                // ROLE_INPUT, ROLE_OUTPUT or ROLE_SCRATCH
  double scale;
  int first_op, last_op;          // liveness: producing op (-1: a network input), last reader
  // Filled by memplan.c.
  uint64_t base;                  // first byte of its allocation (the halo included)
  uint64_t addr;                  // element [0, 0, 0, 0]
  // Cross-layer fusion (memplan_fuse): set on the owner of the bytes (aliases follow it).
  int gbuf;                       // 1: lives in the global buffer; base and addr are GBUF bytes
  uint64_t gbuf_base;             // its GBUF address (gbuf = 1)
  int gbuf_zero;                  // 1: an earlier tensor wrote its bytes: emit.c zeroes its halo
                                  //   before its first writer runs
  uint64_t fuse_rd, fuse_wr;      // DRAM bytes its readers' LOADs and its writers' STOREs move
                                  // (the tiling's plans): what placing it in the GBUF saves
} DTensor;

// Byte strides of a DTensor's layout.
int64_t dt_row_stride(const DTensor *t);
int64_t dt_img_stride(const DTensor *t);
uint64_t dt_bytes(const DTensor *t);          // the whole allocation, halo included

// How one op sees a tensor: images of h x w pixels, `c` channels starting at channel c_off of a
// pixel, with the given byte strides (fc sees its [N, K] input as one image of N rows).
typedef struct {
  int t;                          // DTensor index
  int64_t n, h, w, c, c_off;
  int64_t img_stride, row_stride, pix_stride;
  int64_t byte_off;               // where pixel (0, 0) of the view is, from the tensor's (0, 0)
  int64_t c_stride;               // bytes between channels: 0 (or 1) contiguous; > 1 a gather of
                                  // one byte per channel (a transpose that moves the channel axis)
} TView;

// One K tile of a GEMM's im2col row: NSEG segments of SEGLEN bytes, SEG_STRIDE apart, starting
// `off` bytes from the window's origin pixel. It holds rows kbase .. kbase+rows-1 of the weight
// matrix as stored (MachOp.wmat, rows in K tile order; with DF_OS every tile starts at a multiple
// of array.rows, the rows between tiles zero, since COMPUTE_OS reads K in R-wide blocks); segment s, byte b is row
// orig + s*orig_stride + b of the matrix in (ky, kx, ci) order.
typedef struct {
  int64_t off;
  uint32_t nseg, seglen, seg_stride;
  uint32_t kbase, rows;
  uint32_t orig, orig_stride;
} KTile;

// The tiling of one op, chosen by tile.c.
typedef struct {
  uint32_t band_rows;             // output rows per M tile (pooled rows when a pool is fused)
  uint32_t band_cols;             // output columns per M tile (< width: a row is split)
  uint32_t kc;                    // K tiles per chunk (GEMM)
  uint32_t g;                     // N tiles per group (GEMM; ELT: 1)
  uint32_t slots;                 // buffer slots: 2 (double buffering), or 1 when 2 do not fit
  uint32_t ring;                  // a pooled GEMM's bands in an accumulator ring (tile_ring): a
                                  // band's pool reads the conv rows under it that the band before
                                  // left in ACC instead of computing them again
  double est_cycles;              // the cost model's estimate, as one op in a run of them
  double est_start, est_end;      // what it adds as the program's first op (its first loads
                                  // before the array starts) and as its last (the last stores)
  double est_head;                // beats of est_start (the rest is DRAM latency)
  double est_rank;                // est_cycles and the waits it causes next to its neighbours
                                  // (the tiler ranks candidates by it)
  double est_read_bytes, est_write_bytes;   // DRAM's
  double est_gbuf_bytes;          // read and written in the global buffer (fusion)
  double est_insns;               // instructions it emits, roughly
} TilePlan;

typedef enum { MOP_GEMM, MOP_ELT } MopKind;

// What an element-wise op does between its LOADs and its STORE (lower_sfu.c): nothing (the
// post-processor alone: add, activations, pools, concat, mul_const), or one instruction of the
// special-function unit on the step's accumulator rows (docs/ISA.md section 5).
typedef enum { SFUK_NONE, SFUK_MAP, SFUK_EW, SFUK_SOFTMAX, SFUK_LAYERNORM } SfuKind;

typedef struct {
  MopKind kind;
  int layer;                      // LAYER id (index in MachProg.layer_names)
  char what[96];                  // for dumps: the graph layers it implements
  TView in[2];                    // GEMM: in[0]; ELT: 1 or 2 inputs
  int n_in;
  TView out;                      // the output (c_off: a concat slice, a conv group)
  int64_t oh, ow;                 // GEMM output map before pooling (ELT: the input map)
  // GEMM
  int kh, kw, sh, sw, dh, dw, pad_t, pad_l;
  int64_t K, N;                   // weight matrix: K rows (ky, kx, ci order), N = output channels
  int8_t *wmat;                   // K x N, row-major, rows in K tile order (KTile); owned
                                  // (DRAM holds it N tile by N tile, or, with DF_IS, as W^T:
                                  // N rows of K bytes, compile.c)
  int32_t *bias, *mult, *shift;   // N each; owned (ELT: one value, for every channel)
  uint32_t n_ktiles;
  KTile *ktiles;                  // owned
  // ELT: input scales (load_scale MULT/SHIFT of each input; identity when mult = 2^30, shift 30)
  int32_t in_mult[2];
  uint32_t in_shift[2];
  // both: post-processing
  unsigned act;                   // ACT_NONE, ACT_RELU, ACT_CLAMP
  int8_t lo, hi;
  unsigned pool;                  // POOL_NONE, POOL_MAX, POOL_AVG (on the op's output map)
  int pkh, pkw, psh, psw, ppt, ppl;
  int64_t poh, pow;               // pooled output map (= oh, ow without a pool)
  // ELT on the special-function unit (lower_sfu.c; docs/COMPILER.md "Special functions")
  SfuKind sfu;                    // SFUK_NONE: no SFU instruction
  unsigned sfu_fn;                // SFUK_MAP: FN_*; SFUK_EW: EWOP_*
  int bcast;                      // SFUK_EW: in[1] is one pixel per image, broadcast (BCAST=1)
  int32_t sfu_mult;               // SFUK_MAP: CFG_SFU MULT (into Q4.11); SFUK_SOFTMAX: SM_MULT
  uint32_t sfu_shift;             // SFUK_MAP: CFG_SFU SHIFT; SFUK_SOFTMAX: SM_SHIFT
  uint32_t sm_j;                  // SFUK_SOFTMAX: output scale 2^-(7 + SM_J)
  uint64_t eps;                   // SFUK_LAYERNORM: CFG_SFU EPS
  int64_t fold_w;                 // > 0: a global average pool over a map larger than the pooling
                                  // fields, folded into oh x fold_w accumulator rows by
                                  // accumulating LOADs (lower_fold_pool); 0: none
  uint64_t macs;                  // useful MACs (GEMM)
  // A GEMM whose B operand is an activation (matmul, lower_mm.c): B[k][n] is the int8 at DRAM
  // address at(in[1]) + k*b_kstride + n*b_nstride (one of the two strides is 1), loaded at run
  // time instead of the constants (wmat is NULL).
  int b_act;
  int64_t b_kstride, b_nstride;
  Dataflow df;                    // how a GEMM runs on the array (its weights' DRAM layout too)
  double df_est[3];               // --dataflow auto: the cost model's cycles in each Dataflow, or
                                  // -1 where that dataflow cannot lower or tile the program
  TilePlan plan;
  int in_gbuf[2], out_gbuf;       // memplan_fuse: in[k] / out live in the global buffer (the
                                  // cost model charges their beats there, emit.c sets GBUF=1)
  uint64_t fuse_rd, fuse_wr;      // memplan_fuse: DRAM bytes that saves this op's LOADs and STOREs
                                  // (under the plan it had with every activation in DRAM)
  // Filled by emit.c: DRAM of the constants.
  uint64_t w_addr, p_addr;
  int no_shared_taps;             // --no-shared-taps: each K tile its own gather (tile_taps_share)
} MachOp;

typedef struct {
  int n_tensors, cap_tensors;
  DTensor *tensors;
  int n_ops, cap_ops;
  MachOp *ops;
  int n_layers;
  char (*layer_names)[PROG_NAME_MAX];
  const Arch *arch;
  Dataflow dataflow;              // --dataflow (every op's, unless chosen per op)
  int per_op;                     // --dataflow auto: each op's df chosen by the cost model
  int no_preload_overlap;         // --no-preload-overlap: no COMPUTE carries OVERLAP (tile.c, sched.c)
  int fuse_layers;                // 1: memplan_fuse may keep activations in the global buffer
                                  // (0: --no-fuse-layers, every activation in DRAM)
  uint64_t zero_addr;             // memplan: DRAM bytes never written (array.cols of them), the
                                  // source of the zeros for GBUF halos (DTensor.gbuf_zero)
} MachProg;

// The DTensor that holds the bytes of DTensor i (following flatten/reshape aliases).
int dt_owner(const MachProg *mp, int i);
// Byte strides of DTensor i's NHWC axes (a rank-2 [N, C] as [N, 1, 1, C]), a permuted alias's
// included (lower_mm.c).
void lower_mm_strides(const MachProg *mp, int i, int64_t s[4]);

// Fusion, layout and lowering. On error -1 with a message naming the layer.
// Every op runs in dataflow df, or, when op_df is not NULL, op i in op_df[i] (n_op_df entries:
// the op count of an earlier lowering of the same graph, which any dataflow gives).
int lower_graph(const Graph *g, const Arch *a, Dataflow df, const Dataflow *op_df, int n_op_df, MachProg *mp,
                Diag *d);
void machprog_free(MachProg *mp);
// --dump-ir fuse|layout|lower: the fused layers, the tensors' layouts, the MachOps.
void lower_dump_layout(const MachProg *mp, FILE *f);
void lower_dump_ops(const MachProg *mp, FILE *f);
// lower_sfu.c: the special-function unit's ops as element-wise MachOps. lower_sfu_lowers says
// which graph ops it lowers; lower_sfu_op fills op (an ELT of layer l made by lower.c, its
// inputs' views set) and returns -1 with a message naming the layer when the machine cannot run
// the shape. The others give what a step of the op uses: channel steps per M tile (a softmax or
// layernorm row takes all its segments in one step), ACC rows for an M tile of tile_rows pixels
// (per slot), PARAM rows, and whether its STORE requantizes with the PARAM rows (PARAMS=1).
int lower_sfu_lowers(LayerOp op);
int lower_sfu_op(const Graph *g, const Layer *l, const Arch *a, MachOp *op, Diag *d);
int64_t lower_sfu_channel_steps(const MachOp *op, uint32_t cols);
int64_t lower_sfu_segments(const MachOp *op, uint32_t cols);   // channel tiles per step: 1, or a row's
uint64_t lower_sfu_acc_rows(const MachOp *op, uint64_t tile_rows, uint32_t cols);
uint32_t lower_sfu_param_rows(const MachOp *op, uint32_t cols);
int lower_sfu_store_params(const MachOp *op);
// 1: the op's PARAM rows are the same for every step (layernorm's affine), loaded once from PARAM
// row 0 (they need not fit a buffer slot, only the memory), not per step into a rotating slot.
int lower_sfu_params_once(const MachOp *op);
// A global_avgpool whose map (in[0].h x in[0].w) exceeds the STORE's pooling window fields
// (KH, KW at most 15): the LOADs fold pixel (y, x) onto accumulator row (y mod FH)*FW +
// (x mod FW), accumulating, so the STORE's pool sums an FH x FW window of exact int32 partial
// sums: the same sum, hence the same bits. FH x FW fits half the accumulator. -1 with a message
// naming the layer when it cannot.
int lower_fold_pool(const Graph *g, const Layer *l, const Arch *a, MachOp *op, Diag *d);
// The SFU instruction an op runs, for dumps ("" for none).
const char *lower_sfu_name(const MachOp *op);
// "gemm" or "elt", as the dumps print a MachOp's kind.
const char *lower_mop_name(MopKind k);
// "ws", "os" or "is", as --dataflow spells it.
const char *lower_dataflow_name(Dataflow df);

#endif
