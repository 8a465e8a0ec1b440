// racecheck.h: the static race checker (docs/ISA.md "Races"). One analysis, used by `sasim check`,
// `sasim run` (at load), `sacc compile` (on what it emits) and the random-program generator of the
// tests (tests/common/randprog.c, which also uses the incremental tracker below to place tokens).
//
// A race is a pair of instructions of different units that touch the same on-chip row or DRAM
// byte, at least one of them writing, that no chain of tokens orders. The checker walks the
// program once in program order and keeps, per unit v, a knowledge vector K[v][u]: every
// u-instruction with index <= K[v][u] is known to have ended when v's next instruction starts.
// Tokens are counts, so a POP only says "the k-th PUSH on this channel is visible"; that means
// "the k-th pusher and everything before it in its unit are done" only if the pusher is
// *dominating* (its end can be no earlier than any earlier end in its unit: docs/TIMING.md). A
// POP of the push of instruction P (unit u) raises K[v] to P's own knowledge and K[v][u] to P.
// Every row and byte remembers its last writer and, per unit, its last reader since then; an
// access conflicts with those of other units that K does not cover. Same-unit pairs need nothing:
// a unit runs its instructions in order. Addresses depend only on fields and configuration
// registers (no data-dependent addressing), so the check is exact at row (byte) granularity:
// a reported pair can run in either order on some arch timing, an unreported one cannot.
//
// Token misuse is reported too: a POP with no earlier PUSH on its channel (a provable deadlock
// when no PUSH follows either), a PUSH from a non-dominating instruction, and channels whose
// count can pass tokens.max (racecheck_token_bound).
//
// Cost: linear in the rows and bytes the program touches (each on-chip row and each DRAM byte
// that some STORE writes has a cell; DRAM bytes no instruction writes are never tracked, since
// reads do not conflict with reads). Memory: the on-chip rows, the written DRAM bytes, and a few
// words per instruction.
#ifndef SA_RACECHECK_H
#define SA_RACECHECK_H

#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "footprint.h"
#include "program.h"

typedef enum { RC_RAW, RC_WAR, RC_WAW } RcHazard;

typedef enum {
  RC_RACE,            // insn and other conflict on [first, last] of space, unordered
  RC_POP_UNMATCHED,   // insn pops from->to with no earlier push (other: the later push it would take, or none)
  RC_PUSH_EARLY,      // insn pushes from->to but may end before an earlier instruction of its unit
  RC_OVERFLOW,        // channel from->to can hold `count` tokens, more than tokens.max
} RcKind;

typedef enum {
  RC_FIX_NONE,
  RC_FIX_ADD_POP,     // add pop=<unit of other> to insn; it takes the pending push of `pusher`
  RC_FIX_LATER_PUSH,  // insn already pops that channel but takes the push of `pusher` < other
  RC_FIX_PUSH_POP,    // add push=<unit of insn> to other and pop=<unit of other> to insn
} RcFix;

#define RC_NONE UINT32_MAX

typedef struct {
  RcKind kind;
  RcHazard hazard;           // RC_RACE
  uint32_t insn;             // the later instruction in program order (RC_OVERFLOW: none, RC_NONE)
  uint32_t other;            // the earlier one (RC_RACE), the matching later push (RC_POP_UNMATCHED), or RC_NONE
  FpSpace space;             // RC_RACE: where
  uint64_t first, last;      // RC_RACE: rows (bytes) of the conflict, inclusive
  uint8_t from, to;          // the channel (token reports), or the units of other and insn (races)
  RcFix fix;                 // RC_RACE: what would order the pair
  uint32_t pusher;           // RC_FIX_ADD_POP / RC_FIX_LATER_PUSH: the push involved; pending older push (PUSH_POP)
  uint32_t count;            // RC_OVERFLOW: the bound
} RcReport;

typedef struct {
  RcReport *r;               // reports, by the later instruction's index (token bounds last)
  uint32_t n, cap;
  uint32_t max;              // keep at most this many (0: 1000); the rest are only counted
  uint64_t dropped;          // reports found beyond max (and beyond RC_MAX_PER_INSN per instruction)
} RcReports;

#define RC_MAX_PER_INSN 8

// Checks p, which must have passed prog_check (the loader and the compiler run it): only the
// configuration registers are tracked, fields and ranges are not checked again. Returns 0 and fills *out (out->max set by the
// caller or 0), or -1 with a message in d (out of memory). Free out with racecheck_reports_free.
int racecheck_run(const Program *p, RcReports *out, Diag *d);
void racecheck_reports_free(RcReports *out);
// Races and misuse found (kept + dropped).
static inline uint64_t racecheck_total(const RcReports *r) { return r->n + r->dropped; }

// One report as text without a final newline: "FILE[:LINE]: error: ...\n  fix: ..." ("warning:"
// when warn). lines (may be NULL) maps instruction index to source line. Returns buf.
char *racecheck_format(const Program *p, const RcReport *r, const char *file, const uint32_t *lines, int warn, char *buf,
                       size_t n);
// Every report, then a summary line when there are any ("N races, M token errors"), to f.
void racecheck_print(const Program *p, const RcReports *r, const char *file, const uint32_t *lines, int warn, FILE *f);
// The name of the layer instruction `insn` belongs to (the last LAYER before it), or NULL.
const char *racecheck_layer_of(const Program *p, uint32_t insn);
// The reports as one JSON object (docs/ISA.md "Races").
void racecheck_print_json(const Program *p, const RcReports *r, const char *file, const uint32_t *lines, FILE *f);

// An upper bound of every token channel's count during any run of p (fetch runs at most a queue
// ahead of the slowest consumer). p never overflows if this is <= p->arch.token_max. UINT32_MAX
// when out of memory.
uint32_t racecheck_token_bound(const Program *p);

// ---- The incremental tracker (for the test generator, which places tokens as it goes) ----

// The access records of consecutive rows (bytes), one array per kind so that a run is checked
// and recorded with whole-array loops: w[i], the last writer (index * 8 + unit, or -1); r[u][i],
// unit u's last reader since that write (or -1). All arrays live in one allocation, at w.
typedef struct {
  int32_t *w;
  int32_t *r[NUM_UNITS];
} RcCells;
#define RC_UNIT_BITS 3                       // RcCells.w keeps the writer's unit in its low 3 bits,
#define RC_UNIT_SLOTS (1 << RC_UNIT_BITS)    // 7 meaning none (w = -1); instructions below 2^28
_Static_assert(NUM_UNITS < RC_UNIT_SLOTS, "RcCells.w keeps the writer's unit in its low 3 bits, 7 meaning none");

typedef struct {
  int32_t k[NUM_UNITS];      // knowledge of the instruction's unit once it has popped
  uint8_t unit;              // NUM_UNITS for LAYER and HALT
  uint8_t dominating;        // may push (see the file comment)
} RcInsnInfo;

typedef struct {
  uint32_t *idx;             // pushing instructions, in program order
  uint32_t n, cap;
  uint32_t popped;           // pops taken so far (program order); may pass n after an unmatched pop
} RcChan;

typedef struct {
  uint64_t first, end;       // DRAM bytes [first, end)
  uint64_t dense;            // index of `first` among the tracked bytes
} RcSpan;

typedef struct {
  const Program *p;
  const Arch *a;
  RcCells mem[FP_DRAM];      // on-chip rows, per space
  RcSpan *span;              // tracked DRAM bytes, ascending, disjoint
  uint32_t n_span;
  RcCells *page;             // their cells, allocated a page at a time
  uint64_t n_pages;
  int32_t K[NUM_UNITS][NUM_UNITS];   // K[v][u]
  RcChan ch[NUM_UNITS][NUM_UNITS];   // ch[from][to]
  RcInsnInfo *info;          // one per instruction analysed
  uint32_t n_info, cap_info;
  uint32_t *unit_insns[NUM_UNITS];   // indices of each unit's instructions, ascending (with_unit_lists)
  uint32_t n_unit[NUM_UNITS];
  int32_t last_dma[NUM_UNITS];       // last LOAD / STORE
  int32_t last_compute;
  int compute_since_preload;
  int last_compute_overlap;  // the last COMPUTE or COMPUTE_IS has OVERLAP (a PRELOAD may end before it)
  ProgCheckState st;         // configuration registers, as prog_check tracks them
  int oom;
  int trusted;               // the program passed prog_check: only track the registers, do not re-check
} RcTracker;

// max_insns: instructions that will be analysed at most. all_dram: track every DRAM byte (the
// generator, which does not know the future stores); else only the bytes p's STOREs write.
// with_unit_lists: keep unit_insns. Returns 0 or -1 (out of memory; rc_tracker_free anyway).
int rc_tracker_init(RcTracker *t, const Program *p, uint32_t max_insns, int all_dram, int with_unit_lists);
void rc_tracker_free(RcTracker *t);
// The latest instruction of each unit that instruction `in` (unit v, not yet applied) must wait
// for: need[u] (-1: none).
void rc_tracker_needs(RcTracker *t, int v, const Insn *in, int32_t need[NUM_UNITS]);
// Whether instruction `op` of unit v may push, with k_own = what v knows of its own instructions.
int rc_is_dominating(const RcTracker *t, int v, Opcode op, int32_t k_own);
// k := max(k, what popping the push of `pusher_idx` (unit u) tells).
void rc_merge_knowledge(int32_t *k, const RcInsnInfo *pusher, int u, int32_t pusher_idx);
int rc_chan_append(RcChan *c, uint32_t idx);
// Analyses instruction x (the next in program order): its pops, accesses and pushes; appends
// what it finds to out. Returns 0, or -1 with a message in d (an illegal instruction, out of memory).
int rc_tracker_apply(RcTracker *t, uint32_t x, RcReports *out, Diag *d);

#endif
