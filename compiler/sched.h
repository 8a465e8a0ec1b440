// sched.h: dependency tokens, derived from the memory accesses of every instruction.
//
// The emitter appends instructions in program order and declares what each one reads and writes
// (on-chip row ranges, DRAM byte ranges). The program's meaning is the sequential one: every
// instruction sees the effects of those before it. sched.c keeps, per memory interval, the last
// writer and the last reader of each unit, and for every conflicting pair of instructions on
// different units (read after write, write after read, write after write) makes the later one
// pop a token that the earlier one pushes (docs/COMPILER.md "Tokens"). The three units run in
// order, so waiting for the latest conflicting instruction of a unit covers its earlier ones;
// only LOAD, STORE and the array streams (COMPUTE, COMPUTE_OS, COMPUTE_IS) push (their ends
// are monotonic within their unit), and every token is popped exactly once, by an instruction
// later in program order: no deadlock, and a channel's count stays bounded by what double
// buffering lets run ahead.
#ifndef SACC_SCHED_H
#define SACC_SCHED_H

#include <stdint.h>

#include "../isa/program.h"

enum { SMEM_SPAD, SMEM_WBUF, SMEM_ACC, SMEM_PARAM, SMEM_DRAM, SMEM_COUNT };

typedef struct {
  int mem;                 // SMEM_*
  uint64_t lo, hi;         // rows (on-chip) or bytes (DRAM), [lo, hi)
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
// Counters for the dumps: tokens placed per channel [from][to].
void sched_token_counts(const Sched *s, uint64_t out[3][3]);

#endif
