// bothcheck.h: runs a hand-written program on both engines (fast and detailed) and checks every
// instruction's fetch, start, ready and end against cycles worked out by hand, and the compute
// unit's figures (tests/sim/os_test.c, is_test.c).
#ifndef SA_BOTHCHECK_H
#define SA_BOTHCHECK_H

#include <stdint.h>

#include "../../isa/program.h"
#include "../../sim/sim.h"

typedef struct {
  uint64_t f, s, r, e;            // stall is checked to be 0
} Want;

typedef struct {
  uint64_t cycles, busy, wait_token, wait_resource, idle;   // the compute unit's states
  uint64_t macs, pe_cycles, spad_reads, wbuf_reads, acc_writes, acc_reads;
} WantStats;

void check_both(const Program *p, const Want *w, const WantStats *ws);

// Assembles the shipped program asm_path and checks, on both engines, that its int32 tensors C
// and D (count elements each) equal the numpy array in npy_path.
void check_shipped_cd(const char *asm_path, const char *npy_path, int count);

// Fills buf with n pseudo-random bytes from seed (a 64-bit LCG: reproducible test operands).
void test_random_bytes(uint8_t *buf, size_t n, uint64_t seed);

// Checks the little-endian int32s a RAW32 STORE of ACC rows first_row.. (cols per row) left at
// DRAM addr of s against want[0 .. n-1]; mn names the engine.
void check_raw32(const Sim *s, uint64_t addr, const int32_t *want, int n, int first_row, int cols, const char *mn);

#endif
