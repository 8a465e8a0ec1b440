// sched.h: dependency tokens, derived from the memory accesses of every instruction.
//
// The emitter appends instructions in program order and declares what each one reads and writes
// (on-chip row ranges, DRAM byte ranges). The program's meaning is the sequential one: every
// instruction sees the effects of those before it. sched.c keeps, per memory interval, the last
// writer and the last reader of each unit, and for every conflicting pair of instructions on
// different units (read after write, write after read, write after write) makes the later one
// pop a token that the earlier one pushes (docs/COMPILER.md "Tokens"). The four units run in
// order, so waiting for the latest conflicting instruction of a unit covers its earlier ones;
// only LOAD, STORE, the array streams (COMPUTE, COMPUTE_OS, COMPUTE_IS) and the special-function
// unit's instructions (one at a time, docs/TIMING.md 7a) push (their ends are monotonic within
// their unit), and every token is popped exactly once, by an instruction
// later in program order: no deadlock. A channel's count is bounded statically against
// tokens.max by sched_check_token_bound (docs/COMPILER.md "Token bound").
#ifndef SACC_SCHED_H
#define SACC_SCHED_H

#include <stdint.h>

#include "../isa/arch.h"
#include "../isa/diag.h"
#include "../isa/program.h"

// (the global buffer's bytes are ordered like DRAM's: its own byte intervals)
enum { SMEM_SPAD, SMEM_WBUF, SMEM_ACC, SMEM_PARAM, SMEM_DRAM, SMEM_GBUF, SMEM_COUNT };

typedef struct {
  int mem;                 // SMEM_*
  uint64_t lo, hi;         // rows (on-chip) or bytes (DRAM, GBUF), [lo, hi)
  int write;               // 1: written, 0: read
} Access;

typedef struct Sched Sched;

Sched *sched_new(Program *p);
void sched_free(Sched *s);
// Appends `in` (its POP/PUSH fields are the scheduler's) with the tokens that order it after
// every conflicting earlier access, and records its accesses. `dep_only` accesses (n_dep) make
// it wait without being recorded as its own (a PRELOAD's weight-buffer read is recorded on the
// COMPUTE after it, which ends later). Returns the instruction's index, or -1 on out of memory.
int64_t sched_emit(Sched *s, const Insn *in, const Access *acc, int n_acc, const Access *dep_only, int n_dep);
// Records accesses of an emitted instruction (a LOAD, COMPUTE or STORE) without new tokens.
int sched_record(Sched *s, int64_t insn, const Access *acc, int n_acc);
// Late pushes (off by default): the token for a conflict is pushed by the latest instruction of
// the earlier unit that may push, not by the conflicting one, and spacers (LAYER copies) keep
// each channel within tokens.max (docs/COMPILER.md "Token bound"): the emitter's retry when the
// usual placement would exceed it. The waits are longer.
void sched_set_late_push(Sched *s, int on);
// Preloading behind compute (on in sacc; off: --no-preload-overlap): a COMPUTE or COMPUTE_IS
// whose next compute-unit instruction (spacer LAYERs aside) is a PRELOAD of the same layer gets
// OVERLAP=1, so that the PRELOAD fills the other weight bank while it streams (docs/TIMING.md
// section 6).
void sched_set_overlap(Sched *s, int on);
// The largest count each token channel can reach in any run of p (the fetch unit is at most a
// queue ahead of each unit); -1 (an error naming the channel and the limit) if one exceeds
// a->token_max.
int sched_check_token_bound(const Program *p, const Arch *a, Diag *d);
// Counters for the dumps: tokens placed per channel [from][to].
void sched_token_counts(const Sched *s, uint64_t out[NUM_UNITS][NUM_UNITS]);

#endif
