// tile.h: tiling of each machine op (tile.c). An op's output is cut into M tiles (bands of output
// rows of one image, or pieces of one row), N tiles of array.cols channels (groups of g N tiles
// share each load of the input), and its K tiles (lower.h KTile) into chunks of kc. A cost model
// of cycles and DRAM traffic for the arch picks the plan; --dump-ir tiling shows it with the next
// best candidates.
#ifndef SACC_TILE_H
#define SACC_TILE_H

#include <stdio.h>

#include "lower.h"

// Buffer halves: 2 with double buffering, else 1 (the whole memory per tile).
typedef struct {
  uint32_t spad, wbuf, acc, param;   // rows per slot
  uint32_t slots;                    // 1 or 2
  int overlap;                       // PRELOADs behind streams (COMPUTE OVERLAP): 1 unless
                                     // --no-preload-overlap (MachProg.no_preload_overlap)
} Slots;

void tile_slots(const Arch *a, int double_buffer, Slots *s);

// One M tile: image `img`, output rows y0 .. y0+rows-1 (pooled rows when the op pools), output
// columns x0 .. x0+cols-1; the op's pre-pool map rows iy0 .. iy0+irows-1 feed it (all columns).
typedef struct {
  int64_t img, y0, rows, x0, cols;
  int64_t iy0, irows;
  uint32_t acc_rows;                 // accumulator rows it needs (= M of its GEMM)
} MTile;

uint64_t tile_m_count(const MachOp *op, const TilePlan *p);
MTile tile_m_at(const MachOp *op, const TilePlan *p, uint64_t i);

// Shared taps (docs/COMPILER.md "Shared taps"): in a weight-stationary GEMM of one N tile, no
// pool and one segment per K tile (a depthwise convolution's block-diagonal GEMM), the K tiles
// of a chunk that read the same columns of the input (the same kx and channels) at kernel rows
// ky whose ky * dh are equal modulo the stride sh take their rows from one gather of the band's
// input rows (sh image rows apart, as every gather): rows + (ky_max - ky_min) * dh / sh rows
// loaded once, tap ky's M rows starting (ky - ky_min) * dh / sh rows down in it. A stride-1
// depthwise 3x3 then loads 3 gathers of rows + 2 rows, not 9 of rows; a stride-2 one 6 gathers,
// 3 of rows + 1 (ky 0 and 2) and 3 of rows (ky 1). The K tiles stream gather by gather (emit.c).
// TapPlace says where K tile k0 + i of a chunk over an M tile of rows x cols puts its rows in the
// SPAD slot.
typedef struct {
  uint32_t src;                      // its first SPAD row (from the slot's first)
  uint32_t dst;                      // the gather it leads: written from this row, ..
  uint32_t lead;                     // .. of this many image rows (0: another tile's gather holds it)
  int64_t off;                       // .. from this byte offset of the window's origin (KTile.off)
} TapPlace;

// 1 when op (with dataflow df) shares taps (above); then its chunks' gathers follow
// tile_tap_places, else one gather of rows x cols per K tile, k * rows * cols rows into the slot.
int tile_taps_share(const MachOp *op, const Arch *a, Dataflow df);
// Fills pl[0 .. nk-1] (pl may be NULL) for the chunk k0 .. k0+nk-1 of op over an M tile of rows x
// cols; returns the SPAD rows the chunk uses (never more than nk * rows * cols).
uint32_t tile_tap_places(const MachOp *op, const Arch *a, Dataflow df, uint32_t k0, uint32_t nk, uint32_t rows,
                         uint32_t cols, TapPlace *pl);

// The accumulator ring of a pooled GEMM's plan (TilePlan.ring; docs/COMPILER.md "The first
// convolution's pool halo"): N tile j of M tile i pools the window of ACC rows lo .. lo +
// acc_rows - 1 (its conv rows iy0 .. iy0+irows-1, ow rows each); its top `halo` conv rows are the
// last rows of N tile j's window of M tile i-1, still in ACC, and only the rows below them are
// computed. The windows of the N tiles march through the whole accumulator, each one starting
// where its previous one ends, never writing over the halo another N tile's next band reuses; a
// window that would pass the end starts again lower with its halo computed (halo 0).
typedef struct {
  uint32_t lo, halo;
} RingWin;

// Fills w[i * nN + j] (nN = the op's N tiles) for every M tile i. Returns 0, or -1 when the plan
// cannot be placed so (no ring plan is then chosen).
int tile_ring(const MachOp *op, const TilePlan *p, const Arch *a, RingWin *w);
// The conv rows at the top of an M tile that none of its N tiles computes (w: its nN windows):
// its gather leaves them out.
uint32_t tile_ring_gather_skip(const RingWin *w, uint64_t nN);
// The conv rows M tile i shares with M tile i-1 (its first rows, which tile i-1 computed last).
int64_t tile_ring_overlap(const MachOp *op, const TilePlan *p, uint64_t i);

// The cost model on one plan: fills p's estimates and slots (band_rows, band_cols, kc and g are
// the plan) for arch a with double_buffer's buffer slots. Returns 0, or -1 when p does not fit
// the slots or the instruction fields (the estimates are then meaningless).
int tile_estimate(const MachOp *op, const Arch *a, Dataflow df, int double_buffer, TilePlan *p);
// The cycles op i waits for op i-1 beyond its own estimate: when it reads what op i-1 writes and
// one of the two has a single M tile per image (the whole map: a fully connected layer, a global
// pool, a small map in one band), its first loads wait for op i-1's last stores, so the run pays
// op i-1's est_end and op i's est_start between them; else 0 (its first rows were stored long
// before). Counted in op i's layer by compile.c.
double tile_handover(const MachProg *mp, int i);
// Bytes op's LOADs read from in[k] (im2col re-reads included: a gather per M tile, per N group
// when K takes several chunks) and its STOREs write to out, under its plan: what a tensor in
// the global buffer saves of DRAM traffic (memplan_fuse).
uint64_t tile_in_bytes(const MachOp *op, const Arch *a, int k);
uint64_t tile_out_bytes(const MachOp *op);
// Chooses op->plan for every op. Returns -1 (message naming the op) when nothing fits the arch.
int tile_plan_all(MachProg *mp, int double_buffer, Diag *d);
// --dump-ir tiling: per op the chosen plan and the next best candidates, with estimates.
void tile_dump(const MachProg *mp, int double_buffer, FILE *f);

#endif
