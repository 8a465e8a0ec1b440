// randprog.h: seeded random LEGAL programs, for comparing the simulator's two engines (and
// later the RTL) on programs nobody would write by hand. "Legal" is defined by the product's
// static race checker (isa/racecheck.h), which randprog_check_races calls.
//
// A generated program:
//   - passes prog_check (fields, ranges, HALT last, layers named, data inside DRAM);
//   - is race-free: any two instructions of different units that touch the same on-chip row or
//     DRAM byte, one of them writing, are ordered by a chain of tokens (randprog_check_races);
//   - cannot deadlock: every POP takes a token pushed by an earlier instruction in program order;
//   - never takes a token count past tokens.max (randprog_token_bound <= arch.token_max).
// The same seed and options give the same program, byte for byte, on every host.
#ifndef SA_RANDPROG_H
#define SA_RANDPROG_H

#include <stdint.h>
#include <stdio.h>

#include "../../isa/program.h"

typedef struct {
  const Arch *arch;          // the machine; NULL: a random small arch drawn from the seed
  uint32_t min_insns;        // instructions before HALT, at least (0: 20)
  uint32_t max_insns;        // and at most (0: 200)
  int no_compute_os;         // 1: never draw COMPUTE_OS (for a model of the machine without it)
  int with_is;               // 1: also draw COMPUTE_IS and transposed LOADs (input-stationary);
                             // 0 leaves the programs exactly as they were before IS existed
  int with_sfu;              // 1: also draw the special-function unit's instructions (CFG_SFU,
                             // SFU_MAP, SFU_EW, SFU_SOFTMAX, SFU_LAYERNORM, SFU_REDUCE); 0 leaves
                             // the programs exactly as they were before the SFU existed
  int with_gbuf;             // 1: LOADs and STOREs also go to the global buffer (GBUF=1, when the
                             // arch has one), mixed with DRAM ones in each unit; a random arch
                             // then draws its gbuf.* keys too (randprog_arch_gbuf). 0 leaves the
                             // programs exactly as they were before the global buffer existed
} RandProgOptions;

// A new program (caller frees with prog_free), or NULL with a message: out of memory, or an
// arch whose tokens.max is too small for the token traffic of the program drawn.
Program *randprog_generate(uint64_t seed, const RandProgOptions *o, Diag *d);

// The random small arch randprog_generate uses when o->arch is NULL (tokens.max is then raised
// to what the program needs).
void randprog_arch(uint64_t seed, Arch *a);
// Its global buffer, from a stream of its own (with_gbuf): 1-8 KiB, a bus of 1-16 bytes, a
// latency of 1-40 (often above dram.latency, so that in-order responses hold DRAM beats back).
void randprog_arch_gbuf(uint64_t seed, Arch *a);

// Static check of the token discipline above, by racecheck_run (tokens.max aside: that is
// randprog_token_bound's). Returns 0, or -1 with the first violation:
// an unordered conflicting pair (both instructions, the memory and the row or byte), a POP with
// no earlier PUSH, or a PUSH from an instruction whose end can precede an earlier end of its
// unit (so token order would not be completion order).
int randprog_check_races(const Program *p, Diag *d);

// racecheck_token_bound: an upper bound of every token channel's count during any run of p
// (fetch runs at most a queue ahead of the slowest consumer); p never overflows if this is <=
// p->arch.token_max.
uint32_t randprog_token_bound(const Program *p);

// A readable listing: the arch, then one line per instruction with its fields.
void randprog_dump(const Program *p, FILE *f);

#endif
