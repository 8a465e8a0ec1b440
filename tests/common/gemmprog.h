// gemmprog.h: builds a tiled GEMM program C = A x B for any arch, with its data, and computes
// the expected C with naive loops. For tests and benchmarks: it is a small hand-written
// "compiler" for one operator, independent of compiler/ (a second opinion on tiling and tokens).
//
// Layout in DRAM: A (M x K int8, row-major), B (K x N int8), params (3 x N int32: bias,
// multiplier, shift per column; int8 output only), C (M x N, int8 or int32), each 64-byte aligned.
// Tensors "A" (input), "B" (const), "params" (const), "C" (output).
#ifndef SA_GEMMPROG_H
#define SA_GEMMPROG_H

#include <stdint.h>

#include "../../isa/program.h"

typedef struct {
  uint32_t M, K, N;          // C[M][N] = A[M][K] x B[K][N]
  int raw32;                 // 1: C holds the raw int32 sums; 0: int8 after bias, requantization, activation
  unsigned act;              // ACT_NONE, ACT_RELU or ACT_CLAMP (int8 output only)
  int8_t clamp_lo, clamp_hi; // bounds of ACT_CLAMP
  int double_buffer;         // 1: two halves of SPAD/WBUF/ACC (and PARAM when it has 6 rows)
  uint64_t seed;             // data of A, B and the parameters
  uint32_t tile_m;           // rows of an output tile; 0: the largest that fits
  uint32_t k_tiles;          // K tiles (array.rows deep) per load phase; 0: as many as fit
} GemmSpec;

// The operands, generated from g->seed (the same bytes the program carries in DRAM).
typedef struct {
  int8_t *A;                 // M x K
  int8_t *B;                 // K x N
  int32_t *bias, *mult, *shift;   // N each
} GemmData;

// Allocates and fills *out from g. Returns 0, or -1 on out of memory (nothing to free then).
int gemmprog_data_new(const GemmSpec *g, GemmData *out);
void gemmprog_data_free(GemmData *dat);

// Builds the program (data included). Returns NULL with a message when the GEMM does not fit the
// arch (DRAM, field widths) or on out of memory. The program passes prog_check.
Program *gemmprog_build(const Arch *a, const GemmSpec *g, Diag *d);

// Bytes of C: M x N x (4 if raw32 else 1).
uint64_t gemmprog_c_bytes(const GemmSpec *g);

// The expected C (gemmprog_c_bytes(g) bytes at Cout, int32 little-endian host order when raw32):
// a plain triple loop with wrapping int32 sums, then per element the post-processing of
// isa/numerics.h (bias, requantization, activation, saturation to int8).
void gemmprog_reference(const GemmSpec *g, const int8_t *A, const int8_t *B, const int32_t *bias,
                        const int32_t *mult, const int32_t *shift, void *Cout);

#endif
