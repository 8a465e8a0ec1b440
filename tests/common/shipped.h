// shipped.h: the hand-written programs shipped in workloads/asm/, for tests that check them all.
#ifndef SA_SHIPPED_H
#define SA_SHIPPED_H

#include "../../isa/program.h"

// Assembles every workloads/asm/*.s (run from the repository root) and calls fn on each; the
// program is freed after fn returns. A file that does not assemble is a CHECK failure. Returns
// how many programs fn saw, or -1 when the folder cannot be opened.
int shipped_each_program(void (*fn)(Program *p, const char *path, void *ctx), void *ctx);

#endif
