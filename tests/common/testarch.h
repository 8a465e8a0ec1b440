// testarch.h: small machines for tests, built in C (no files needed).
#ifndef SA_TESTARCH_H
#define SA_TESTARCH_H

#include "../../isa/arch.h"

// docs/TIMING.md §11's machine: 4x4, 64-row memories, B = 4, L = 10, F = 4, queues 4,
// FIFO 2 rows, S = 2, 64 KiB DRAM.
Arch testarch_tiny(void);
// The smallest useful machine: 2x2, buffers of a few rows, one-slot queues, B = 2.
Arch testarch_2x2(void);

#endif
