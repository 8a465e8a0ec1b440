// engines_test.c: the fast and the detailed engine must agree exactly on random legal programs
// (tests/common/randprog.c) and on the hand-written programs in workloads/asm/: every DRAM byte,
// every instruction's fetch/start/ready/end/stall, every statistic including per layer.
// On the first divergence it prints the seed, the instruction, unit, opcode and both values, and
// a shrunk program that still diverges (see report_divergence).
//
// SA_RANDPROG_COUNT=n sets the number of programs (default 1000; 300 under AddressSanitizer),
// SA_RANDPROG_SEED=s the first seed (default 1), SA_RANDPROG_MAX_INSNS=n their length (default
// 200), SA_RANDPROG_ARCH=file.json one arch for all of them (default: mostly random small arches).
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../sim/sim.h"
#include "../../sim/stats.h"
#include "../common/check.h"
#include "../common/randprog.h"
#include "../common/shipped.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#define DEFAULT_COUNT 300
#else
#define DEFAULT_COUNT 1000
#endif

// The first difference between two runs, as text.
typedef struct {
  int found;
  char msg[512];
} Diff;

static void diff_set(Diff *df, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diff_set(Diff *df, const char *fmt, ...) {
  if (df->found) return;
  df->found = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(df->msg, sizeof df->msg, fmt, ap);
  va_end(ap);
}

static void compare_times(const Program *p, const InsnTime *a, const InsnTime *b, Diff *df) {
  static const char *names[] = {"fetch", "start", "ready", "end", "stall"};
  for (uint32_t i = 0; i < p->n_insns && !df->found; i++) {
    uint64_t x[5] = {a[i].fetch, a[i].start, a[i].ready, a[i].end, a[i].stall};
    uint64_t y[5] = {b[i].fetch, b[i].start, b[i].ready, b[i].end, b[i].stall};
    for (int k = 0; k < 5; k++)
      if (x[k] != y[k]) {
        Unit u = isa_ops[prog_op(p, i)].unit;
        diff_set(df, "insn %u (%s, %s unit): %s: fast %llu, detailed %llu", i, isa_ops[prog_op(p, i)].name,
                 isa_unit_names[u], names[k], (unsigned long long)x[k], (unsigned long long)y[k]);
        break;
      }
  }
}

// Every figure of stats.def, run and layers (stats_compare walks the table).
static void compare_stats(const SimStats *a, const SimStats *b, Diff *df) {
  char msg[256];
  if (stats_compare(a, b, msg, sizeof msg)) diff_set(df, "stats: %s (fast vs detailed)", msg);
}

// The layers' work adds up to the totals (every counted event belongs to one layer): each LAYER
// row of stats.def.
static void check_layer_sums(const SimStats *a, const char *engine, Diff *df) {
  for (int id = 0; id < STAT_COUNT; id++) {
    if (stat_info[id].scope != STAT_SCOPE_LAYER) continue;
    for (int i = 0; i < stat_width((StatId)id); i++) {
      uint64_t sum = 0;
      for (uint32_t l = 0; l <= a->n_layers; l++) sum += stat_layer(&a->layers[l], (StatId)id, i);
      if (sum != stat_run(a, (StatId)id, i))
        diff_set(df, "%s: layers' %s[%d] add up to %llu, total %llu", engine, stat_info[id].name, i,
                 (unsigned long long)sum, (unsigned long long)stat_run(a, (StatId)id, i));
    }
  }
}

// Runs p on both engines; fills df with the first difference (or a run failure).
static void compare_engines(const Program *p, Diff *df) {
  Diag d;
  diag_init(&d);
  Sim *f = sim_new(p, SIM_FAST, &d), *t = sim_new(p, SIM_DETAILED, &d);
  if (!f || !t) {
    diff_set(df, "sim_new: %s", diag_first(&d));
  } else {
    int rf = sim_run(f, &d);
    Diag dd;
    diag_init(&dd);
    int rt = sim_run(t, &dd);
    if (rf || rt) {
      diff_set(df, "run failed: fast: %s; detailed: %s", rf ? diag_first(&d) : "ok", rt ? diag_first(&dd) : "ok");
    } else {
      const uint8_t *x = sim_dram(f), *y = sim_dram(t);
      if (memcmp(x, y, p->arch.dram_bytes)) {
        uint64_t i = 0;
        while (x[i] == y[i]) i++;
        diff_set(df, "DRAM byte 0x%llx: fast 0x%02x, detailed 0x%02x", (unsigned long long)i, x[i], y[i]);
      }
      compare_times(p, sim_insn_times(f), sim_insn_times(t), df);
      compare_stats(sim_stats(f), sim_stats(t), df);
      check_layer_sums(sim_stats(f), "fast", df);
      check_layer_sums(sim_stats(t), "detailed", df);
    }
  }
  sim_free(f);
  sim_free(t);
}

// p without instruction `drop` (none when drop >= n_insns) and with only its first `keep`
// instructions before HALT; NULL on out of memory.
static Program *edited(const Program *p, uint32_t keep, uint32_t drop) {
  Program *q = prog_new(&p->arch);
  if (!q) return NULL;
  int rc = 0;
  for (uint32_t i = 0; i < keep && rc == 0; i++)
    if (i != drop) {
      Insn in = prog_insn(p, i);
      rc = prog_add_insn(q, &in);
    }
  Insn halt;
  memset(&halt, 0, sizeof halt);
  halt.op = OP_HALT;
  if (rc == 0) rc = prog_add_insn(q, &halt);
  for (uint32_t i = 0; i < p->n_chunks && rc == 0; i++)
    rc = prog_add_data(q, p->chunks[i].addr, p->chunks[i].bytes, p->chunks[i].len);
  for (uint32_t i = 0; i < p->n_layers && rc == 0; i++) rc = prog_add_layer(q, p->layer_names[i]);
  for (uint32_t i = 0; i < p->n_tensors && rc == 0; i++) rc = prog_add_tensor(q, &p->tensors[i]);
  if (rc) {
    prog_free(q);
    return NULL;
  }
  return q;
}

// Still a legal program (deleting an instruction can create a race or change a DMA's strides).
static int legal(const Program *p) {
  Diag d;
  diag_init(&d);
  return prog_check(p, "shrink", &d) == 0 && randprog_check_races(p, &d) == 0 &&
         randprog_token_bound(p) <= p->arch.token_max;
}

static int has_bit(const InsnWord *w, FieldId f, int bit) {
  return isa_has_field(isa_word_op(w), f) && ((isa_word_field(w, f) >> bit) & 1);
}
static int pushes_to(const InsnWord *w, int v) { return has_bit(w, FLD_PUSH, v); }
static int pops_from(const InsnWord *w, int u) { return has_bit(w, FLD_POP, u); }
static int unit_of(const InsnWord *w) { return (int)isa_ops[isa_word_op(w)].unit; }
static void clear_bit(InsnWord *w, FieldId f, int bit) { isa_word_set(w, f, isa_word_field(w, f) & ~(1 << bit)); }

// Tokens match in FIFO order per channel. The instruction that pops the token instruction i
// pushes to unit v, or UINT32_MAX when nothing does.
static uint32_t popper_of(const Program *p, uint32_t i, int v) {
  int u = unit_of(&p->code[i]);
  uint32_t nth = 0;   // pushes on u->v before i
  for (uint32_t k = 0; k < i; k++) nth += unit_of(&p->code[k]) == u && pushes_to(&p->code[k], v);
  for (uint32_t k = 0; k < p->n_insns; k++)
    if (unit_of(&p->code[k]) == v && pops_from(&p->code[k], u) && nth-- == 0) return k;
  return UINT32_MAX;
}

// The instruction whose token instruction j pops from unit u, or UINT32_MAX.
static uint32_t pusher_of(const Program *p, uint32_t j, int u) {
  int v = unit_of(&p->code[j]);
  uint32_t nth = 0;   // pops on u->v before j
  for (uint32_t k = 0; k < j; k++) nth += unit_of(&p->code[k]) == v && pops_from(&p->code[k], u);
  for (uint32_t k = 0; k < p->n_insns; k++)
    if (unit_of(&p->code[k]) == u && pushes_to(&p->code[k], v) && nth-- == 0) return k;
  return UINT32_MAX;
}

// cur without instruction i, nor the other halves of the tokens it pushes and pops.
static Program *without(const Program *cur, uint32_t i) {
  Program *q = edited(cur, cur->n_insns - 1, UINT32_MAX);
  if (!q) return NULL;
  const InsnWord *in = &cur->code[i];
  int u = unit_of(in);
  for (int w = 0; w < NUM_UNITS && u < NUM_UNITS; w++) {
    uint32_t k = pushes_to(in, w) ? popper_of(cur, i, w) : UINT32_MAX;
    if (k != UINT32_MAX) clear_bit(&q->code[k], FLD_POP, u);
    k = pops_from(in, w) ? pusher_of(cur, i, w) : UINT32_MAX;
    if (k != UINT32_MAX) clear_bit(&q->code[k], FLD_PUSH, u);
  }
  Program *r = edited(q, q->n_insns - 1, i);
  prog_free(q);
  return r;
}

// Keeps q in *cur when it is legal and still diverges; else frees it. Returns 1 when kept.
static int keep_if_diverges(Program **cur, Program *q, Diff *best) {
  Diff df = {0};
  if (q && legal(q)) compare_engines(q, &df);
  if (!df.found) {
    prog_free(q);
    return 0;
  }
  prog_free(*cur);
  *cur = q;
  *best = df;
  return 1;
}

// Prints a small program that still diverges, and its listing. A prefix of a legal program plus
// HALT is legal (pops still follow their pushes; fewer tokens and accesses), so first the
// shortest diverging prefix (bisection); then, while something changes, an instruction is deleted
// with the other halves of its tokens, or a token (a push and the pop that takes it) is removed,
// as long as the program stays legal and diverging.
static void report_divergence(const Program *p, const char *label, const Diff *first) {
  printf("# %s: engines diverge: %s\n", label, first->msg);
  uint32_t lo = 0, hi = p->n_insns - 1;   // edited(p, hi, none) is p itself
  Diff best = *first;
  while (lo + 1 < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    Program *q = edited(p, mid, UINT32_MAX);
    Diff df = {0};
    if (q) compare_engines(q, &df);
    prog_free(q);
    if (df.found) {
      hi = mid;
      best = df;
    } else {
      lo = mid;
    }
  }
  Program *cur = edited(p, hi, UINT32_MAX);
  for (int changed = 1, round = 0; cur && changed && round < 8; round++) {
    changed = 0;
    for (uint32_t i = cur->n_insns - 1; i-- > 0;) changed |= keep_if_diverges(&cur, without(cur, i), &best);
    for (uint32_t i = 0; i + 1 < cur->n_insns; i++)
      for (int v = 0; v < NUM_UNITS; v++) {
        if (!pushes_to(&cur->code[i], v)) continue;
        uint32_t j = popper_of(cur, i, v);
        Program *q = edited(cur, cur->n_insns - 1, UINT32_MAX);
        if (!q) continue;
        clear_bit(&q->code[i], FLD_PUSH, v);
        if (j != UINT32_MAX) clear_bit(&q->code[j], FLD_POP, unit_of(&cur->code[i]));
        changed |= keep_if_diverges(&cur, q, &best);
      }
  }
  if (!cur) return;
  printf("# smallest diverging program found: %u instructions + HALT: %s\n", cur->n_insns - 1, best.msg);
  randprog_dump(cur, stdout);
  prog_free(cur);
}

static uint64_t env_u64(const char *name, uint64_t dflt) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  return *end ? dflt : (uint64_t)v;
}

// What the generated programs exercised, so that a generator change that stops producing some
// instruction or option makes the test fail instead of silently testing less.
enum {
  COV_LOAD_SPAD, COV_LOAD_WBUF, COV_LOAD_ACC, COV_LOAD_PARAM, COV_LOAD_ACCUM, COV_LOAD_NSEG, COV_LOAD_UNALIGNED,
  COV_LOAD_STRIDED, COV_CFG_LOAD_SCALE, COV_PRELOAD_SHORT, COV_COMPUTE_ACCUM, COV_COMPUTE_OVERWRITE,
  COV_STORE_RAW32, COV_STORE_ACT_NONE, COV_STORE_ACT_RELU, COV_STORE_ACT_CLAMP, COV_STORE_PARAMS, COV_STORE_NOPARAMS,
  COV_STORE_POOL_MAX, COV_STORE_POOL_AVG, COV_STORE_POOL_PAD, COV_STORE_POOL_STRIDE, COV_STORE_UNALIGNED,
  COV_LAYER, COV_POP_LOAD, COV_POP_COMPUTE, COV_POP_STORE, COV_PUSH_CFG, COV_OS_ACCUM, COV_OS_OVERWRITE,
  COV_OS_ROWS_SHORT, COV_OS_KLEN_SHORT, COV_OS_KLEN_ODD, COV_OS_KSTRIDE, COV_OS_AFTER_WS, COV_WS_AFTER_OS,
  COV_OS_AFTER_OS, COV_IS_ACCUM, COV_IS_OVERWRITE, COV_IS_ROWS_ODD, COV_IS_COLS_SHORT, COV_IS_ASTRIDE_OVERLAP,
  COV_IS_AFTER_WS, COV_WS_AFTER_IS, COV_OS_AFTER_IS, COV_IS_ALIGN_WAIT, COV_LOAD_T_BLOCKS, COV_LOAD_T_LONG,
  COV_POP_SFU, COV_SFU_CFG, COV_SFU_MAP, COV_SFU_EW, COV_SFU_EW_BCAST, COV_SFU_SOFTMAX, COV_SFU_LAYERNORM, COV_SFU_REDUCE,
  COV_SFU_SEGMENTS, COV_SFU_IN_PLACE, COV_SFU_WAIT, COV_LOAD_GBUF, COV_LOAD_GBUF_ACC, COV_LOAD_GBUF_T, COV_STORE_GBUF,
  COV_STORE_GBUF_RAW32, COV_STORE_GBUF_POOL, COV_GBUF_AFTER_DRAM, COV_GBUF_WAITS, COV_DRAM_WAITS, COV_COUNT
};
static const char *const cov_names[COV_COUNT] = {
    "LOAD SPAD", "LOAD WBUF", "LOAD ACC", "LOAD PARAM", "LOAD ACC ACCUM", "LOAD NSEG>1", "LOAD unaligned",
    "LOAD strided rows", "CFG_LOAD MULT/SHIFT", "PRELOAD ROWS<R", "COMPUTE ACCUM", "COMPUTE overwrite",
    "STORE RAW32", "STORE act none", "STORE relu", "STORE clamp", "STORE PARAMS", "STORE no PARAMS",
    "STORE pool max", "STORE pool avg", "STORE pool padding", "STORE pool stride>1", "STORE unaligned",
    "LAYER", "POP in load unit", "POP in compute unit", "POP in store unit", "PUSH from a CFG_*",
    "COMPUTE_OS ACCUM", "COMPUTE_OS overwrite", "COMPUTE_OS ROWS<R", "COMPUTE_OS KLEN<R",
    "COMPUTE_OS KLEN>R not a multiple of R", "COMPUTE_OS KSTRIDE other than ROWS", "COMPUTE_OS after PRELOAD/COMPUTE",
    "PRELOAD/COMPUTE after COMPUTE_OS", "COMPUTE_OS after COMPUTE_OS", "COMPUTE_IS ACCUM", "COMPUTE_IS overwrite",
    "COMPUTE_IS ROWS>C not a multiple of C", "COMPUTE_IS COLS<C", "COMPUTE_IS ASTRIDE<COLS (blocks overlap)",
    "COMPUTE_IS after COMPUTE", "COMPUTE after COMPUTE_IS", "COMPUTE_OS after COMPUTE_IS",
    "COMPUTE_IS waiting for stream alignment", "transposed LOAD of more than C rows",
    "transposed LOAD rows longer than C bytes", "POP in the SFU", "CFG_SFU", "SFU_MAP", "SFU_EW", "SFU_EW BCAST",
    "SFU_SOFTMAX", "SFU_LAYERNORM", "SFU_REDUCE", "an SFU row over several segments", "an SFU instruction in place",
    "an SFU instruction starting when the one before ended", "LOAD GBUF=1", "LOAD GBUF=1 into ACC",
    "transposed LOAD from the GBUF", "STORE GBUF=1", "STORE GBUF=1 RAW32", "pooled STORE into the GBUF",
    "a GBUF LOAD right behind a DRAM LOAD", "a GBUF LOAD or STORE answered late, behind an earlier DRAM beat",
    "a DRAM LOAD or STORE answered late, behind an earlier GBUF beat (gbuf.latency > dram.latency)"};

// t: the instructions' times from a run (the alignment wait is seen only in a run).
static void cover(const Program *p, const InsnTime *t, int *seen) {
  const Arch *a = &p->arch;
  Insn cs, cp;   // the store unit's registers
  memset(&cs, 0, sizeof cs);
  memset(&cp, 0, sizeof cp);
  Opcode last_array = OP_HALT;    // the compute unit's last PRELOAD, COMPUTE, COMPUTE_OS or COMPUTE_IS
  Opcode last_stream = OP_HALT;   // its last COMPUTE or COMPUTE_IS
  int64_t last_is = -1;           // its last COMPUTE_IS
  int64_t prev_cu = -1;           // the compute unit's previous instruction
  int64_t prev_sfu = -1;          // the SFU's previous instruction
  int64_t prev_load = -1;         // the load unit's previous LOAD
  for (uint32_t i = 0; i < p->n_insns; i++) {
    const Insn insn = prog_insn(p, i), *in = &insn;
    const int64_t *f = in->f;
    Unit u = isa_ops[in->op].unit;
    if (u < UNIT_SFU && f[FLD_POP]) seen[COV_POP_LOAD + u] = 1;
    if (u == UNIT_SFU && f[FLD_POP]) seen[COV_POP_SFU] = 1;
    if (u == UNIT_SFU && in->op != OP_CFG_SFU && prev_sfu >= 0 && t[i].start == t[prev_sfu].end + 1 &&
        t[i].start > t[i].fetch + 1)
      seen[COV_SFU_WAIT] = 1;   // it waited for the unit (the one before still ran)
    if (u == UNIT_SFU) prev_sfu = i;
    switch (in->op) {
    case OP_LOAD:
      if (f[FLD_GBUF]) {
        seen[COV_LOAD_GBUF] = 1;
        if (f[FLD_MEM] == MEM_ACC) seen[COV_LOAD_GBUF_ACC] = 1;
        if (f[FLD_TRANSPOSE]) seen[COV_LOAD_GBUF_T] = 1;
        if (prev_load >= 0 && !isa_word_field(&p->code[prev_load], FLD_GBUF) && t[i].start == t[prev_load].ready)
          seen[COV_GBUF_AFTER_DRAM] = 1;
      }
      prev_load = i;
      if (t[i].end > t[i].ready - 1 + (f[FLD_GBUF] ? a->gbuf_latency : a->dram_latency))
        seen[f[FLD_GBUF] ? COV_GBUF_WAITS : COV_DRAM_WAITS] = 1;
      seen[COV_LOAD_SPAD + f[FLD_MEM]] = 1;
      if (f[FLD_MEM] == MEM_ACC && f[FLD_ACCUM]) seen[COV_LOAD_ACCUM] = 1;
      if (f[FLD_NSEG] > 1) seen[COV_LOAD_NSEG] = 1;
      if (f[FLD_DRAM_ADDR] % a->bus_bytes) seen[COV_LOAD_UNALIGNED] = 1;
      if (f[FLD_OUTER] > 1 && f[FLD_INNER] > 1) seen[COV_LOAD_STRIDED] = 1;
      if (f[FLD_TRANSPOSE] && f[FLD_OUTER] * f[FLD_INNER] > a->cols) seen[COV_LOAD_T_BLOCKS] = 1;
      if (f[FLD_TRANSPOSE] && f[FLD_NSEG] * f[FLD_SEGLEN] > a->cols) seen[COV_LOAD_T_LONG] = 1;
      break;
    case OP_CFG_LOAD:
      if (f[FLD_MULT] != 1 && f[FLD_SHIFT]) seen[COV_CFG_LOAD_SCALE] = 1;
      if (f[FLD_PUSH]) seen[COV_PUSH_CFG] = 1;
      break;
    case OP_PRELOAD:
      if (f[FLD_ROWS] < a->rows) seen[COV_PRELOAD_SHORT] = 1;
      if (last_array == OP_COMPUTE_OS) seen[COV_WS_AFTER_OS] = 1;
      last_array = in->op;
      break;
    case OP_COMPUTE:
      seen[f[FLD_ACCUM] ? COV_COMPUTE_ACCUM : COV_COMPUTE_OVERWRITE] = 1;
      if (last_array == OP_COMPUTE_OS) seen[COV_WS_AFTER_OS] = 1;
      if (last_stream == OP_COMPUTE_IS) seen[COV_WS_AFTER_IS] = 1;
      last_array = last_stream = in->op;
      break;
    case OP_COMPUTE_IS: {
      uint64_t C = a->cols;
      seen[f[FLD_ACCUM] ? COV_IS_ACCUM : COV_IS_OVERWRITE] = 1;
      if ((uint64_t)f[FLD_ROWS] > C && f[FLD_ROWS] % (int64_t)C) seen[COV_IS_ROWS_ODD] = 1;
      if ((uint64_t)f[FLD_COLS] < C) seen[COV_IS_COLS_SHORT] = 1;
      if ((uint64_t)f[FLD_ROWS] > C && f[FLD_ASTRIDE] < f[FLD_COLS]) seen[COV_IS_ASTRIDE_OVERLAP] = 1;
      if (last_stream == OP_COMPUTE) seen[COV_IS_AFTER_WS] = 1;
      // Started later than its unit allowed, on the phase of the previous one, while that was in the array.
      if (last_is >= 0 && last_is == prev_cu && t[i].start < t[last_is].end + 1 && t[i].start > t[last_is].ready &&
          (t[i].start - t[last_is].start) % C == 0 && (t[last_is].ready - t[last_is].start) % C)
        seen[COV_IS_ALIGN_WAIT] = 1;
      last_array = last_stream = in->op;
      last_is = i;
      break;
    }
    case OP_COMPUTE_OS:
      seen[f[FLD_ACCUM] ? COV_OS_ACCUM : COV_OS_OVERWRITE] = 1;
      if (f[FLD_ROWS] < a->rows) seen[COV_OS_ROWS_SHORT] = 1;
      if (f[FLD_KLEN] < a->rows) seen[COV_OS_KLEN_SHORT] = 1;
      if (f[FLD_KLEN] > a->rows && f[FLD_KLEN] % a->rows) seen[COV_OS_KLEN_ODD] = 1;
      if (f[FLD_KLEN] > a->rows && f[FLD_KSTRIDE] != f[FLD_ROWS]) seen[COV_OS_KSTRIDE] = 1;
      if (last_array == OP_PRELOAD || last_array == OP_COMPUTE) seen[COV_OS_AFTER_WS] = 1;
      if (last_array == OP_COMPUTE_OS) seen[COV_OS_AFTER_OS] = 1;
      if (last_array == OP_COMPUTE_IS) seen[COV_OS_AFTER_IS] = 1;
      last_array = in->op;
      break;
    case OP_STORE:
      if (t[i].end > t[i].ready - 1 + (f[FLD_GBUF] ? a->gbuf_latency : a->dram_latency))
        seen[f[FLD_GBUF] ? COV_GBUF_WAITS : COV_DRAM_WAITS] = 1;
      if (f[FLD_GBUF]) {
        seen[COV_STORE_GBUF] = 1;
        if (f[FLD_RAW32]) seen[COV_STORE_GBUF_RAW32] = 1;
        if (!f[FLD_RAW32] && cp.f[FLD_POOL] != POOL_NONE) seen[COV_STORE_GBUF_POOL] = 1;
      }
      if (f[FLD_DRAM_ADDR] % a->bus_bytes) seen[COV_STORE_UNALIGNED] = 1;
      if (f[FLD_RAW32]) {
        seen[COV_STORE_RAW32] = 1;
        break;
      }
      seen[COV_STORE_ACT_NONE + cs.f[FLD_ACT]] = 1;
      seen[cs.f[FLD_PARAMS] ? COV_STORE_PARAMS : COV_STORE_NOPARAMS] = 1;
      if (cp.f[FLD_POOL] == POOL_MAX) seen[COV_STORE_POOL_MAX] = 1;
      if (cp.f[FLD_POOL] == POOL_AVG) seen[COV_STORE_POOL_AVG] = 1;
      if (cp.f[FLD_POOL] != POOL_NONE && (cp.f[FLD_PAD_T] || cp.f[FLD_PAD_L])) seen[COV_STORE_POOL_PAD] = 1;
      if (cp.f[FLD_POOL] != POOL_NONE && (cp.f[FLD_SH] > 1 || cp.f[FLD_SW] > 1)) seen[COV_STORE_POOL_STRIDE] = 1;
      break;
    case OP_CFG_STORE:
      cs = *in;
      if (f[FLD_PUSH]) seen[COV_PUSH_CFG] = 1;
      break;
    case OP_CFG_POOL:
      cp = *in;
      if (f[FLD_PUSH]) seen[COV_PUSH_CFG] = 1;
      break;
    case OP_LAYER:
      seen[COV_LAYER] = 1;
      break;
    case OP_CFG_SFU:
      seen[COV_SFU_CFG] = 1;
      break;
    case OP_SFU_MAP:
    case OP_SFU_EW:
    case OP_SFU_SOFTMAX:
    case OP_SFU_LAYERNORM:
    case OP_SFU_REDUCE:
      seen[in->op == OP_SFU_MAP ? COV_SFU_MAP : in->op == OP_SFU_EW ? COV_SFU_EW : in->op == OP_SFU_SOFTMAX ? COV_SFU_SOFTMAX
           : in->op == OP_SFU_LAYERNORM ? COV_SFU_LAYERNORM : COV_SFU_REDUCE] = 1;
      if (in->op == OP_SFU_EW && f[FLD_BCAST]) seen[COV_SFU_EW_BCAST] = 1;
      if (isa_has_field(in->op, FLD_LEN) && (uint64_t)f[FLD_LEN] > a->cols) seen[COV_SFU_SEGMENTS] = 1;
      if (f[FLD_SRC] == f[FLD_ACC_ADDR]) seen[COV_SFU_IN_PLACE] = 1;
      break;
    case OP_HALT:
      break;
    }
    if (u == UNIT_COMPUTE || u == UNIT_ALL) prev_cu = i;
  }
}

// Random programs: half on random small arches, the rest on fixed ones (incl. the default).
static void test_random_programs(void) {
  uint64_t count = env_u64("SA_RANDPROG_COUNT", DEFAULT_COUNT), seed0 = env_u64("SA_RANDPROG_SEED", 1);
  uint32_t max_insns = (uint32_t)env_u64("SA_RANDPROG_MAX_INSNS", 200);
  Arch def, fixed;
  arch_default(&def);
  def.dram_bytes = 1 << 16;   // the generator uses at most 64 KiB; a smaller DRAM is faster to compare
  const char *arch_path = getenv("SA_RANDPROG_ARCH");
  if (arch_path && *arch_path) {
    Diag d;
    diag_init(&d);
    CHECK(arch_load_file(arch_path, &fixed, &d) == 0, "SA_RANDPROG_ARCH: %s", diag_first(&d));
    if (check_case_failures()) {
      check_case("engines: random legal programs agree (DRAM, times, stats)");
      return;
    }
    if (fixed.dram_bytes > def.dram_bytes) fixed.dram_bytes = def.dram_bytes;   // only 64 KiB are used
  }
  int seen[COV_COUNT] = {0};
  uint64_t insns = 0, cycles = 0, k;
  for (k = 0; k < count; k++) {
    uint64_t seed = seed0 + k;
    // Half of them also use the global buffer (with_gbuf; its keys then random on a random arch).
    RandProgOptions o = {NULL, max_insns < 20 ? max_insns : 0, max_insns, 0, 1, (int)(k % 2), (int)(k / 2 % 2)};
    if (arch_path && *arch_path)
      o.arch = &fixed;
    else if (k % 8 == 7)
      o.arch = &def;
    Diag d;
    diag_init(&d);
    Program *p = randprog_generate(seed, &o, &d);
    CHECK(p != NULL, "seed %llu: generation failed: %s", (unsigned long long)seed, diag_first(&d));
    if (!p) break;
    diag_init(&d);
    CHECK(prog_check(p, "randprog", &d) == 0, "seed %llu: %s", (unsigned long long)seed, diag_first(&d));
    CHECK(randprog_token_bound(p) <= p->arch.token_max, "seed %llu: token bound %u > tokens.max %u",
          (unsigned long long)seed, randprog_token_bound(p), p->arch.token_max);
    Diff df = {0};
    compare_engines(p, &df);
    if (df.found) {
      char label[128];
      snprintf(label, sizeof label, "seed %llu on %s", (unsigned long long)seed, o.arch ? o.arch->name : "its random arch");
      report_divergence(p, label, &df);
      CHECK(0, "seed %llu: %s (SA_RANDPROG_SEED=%llu SA_RANDPROG_COUNT=1 reproduces it)", (unsigned long long)seed,
            df.msg, (unsigned long long)seed);
    }
    insns += p->n_insns;
    Diag dq;
    diag_init(&dq);
    Sim *s = sim_new(p, SIM_FAST, &dq);
    if (s && sim_run(s, &dq) == 0) {
      cycles += sim_stats(s)->cycles;
      cover(p, sim_insn_times(s), seen);
    }
    sim_free(s);
    prog_free(p);
    if (check_case_failures()) break;
  }
  printf("# %llu random programs from seed %llu: %llu instructions, %llu cycles\n", (unsigned long long)k,
         (unsigned long long)seed0, (unsigned long long)insns, (unsigned long long)cycles);
  int failed = check_case_failures();
  check_case("engines: random legal programs agree (DRAM, times, stats)");
  if (count >= 200 && !failed) {
    for (int c = 0; c < COV_COUNT; c++) CHECK(seen[c], "no generated program had: %s", cov_names[c]);
    check_case("engines: the random programs cover every opcode and option");
  }
}

// The generator's guarantees on its own: same seed, same program; legal by the race checker;
// and the checker does reject a race (remove a needed token).
static void test_generator(void) {
  Diag d;
  diag_init(&d);
  Program *p = randprog_generate(42, NULL, &d), *q = randprog_generate(42, NULL, &d);
  CHECK(p && q, "generation failed: %s", diag_first(&d));
  if (p && q) {
    CHECK(p->n_insns == q->n_insns && !memcmp(p->code, q->code, p->n_insns * sizeof *p->code) &&
              arch_equal(&p->arch, &q->arch),
          "seed 42 gave two different programs");
    CHECK(randprog_check_races(p, &d) == 0, "race check: %s", diag_first(&d));
    // Drop the pop of the first token that orders two conflicting accesses: a race (or a pop
    // without a push somewhere after) must be reported.
    int found = 0;
    for (uint32_t i = 0; i < p->n_insns && !found; i++) {
      if (!isa_has_field(prog_op(p, i), FLD_POP) || !prog_insn(p, i).f[FLD_POP]) continue;
      InsnWord save = p->code[i];
      isa_word_set(&p->code[i], FLD_POP, 0);
      diag_init(&d);
      if (randprog_check_races(p, &d)) found = 1;
      p->code[i] = save;
    }
    CHECK(found, "removing any single POP never gave a race report");
  }
  prog_free(p);
  prog_free(q);
  RandProgOptions o = {NULL, 5, 5, 0, 0, 0, 0};
  p = randprog_generate(7, &o, &d);
  CHECK(p && p->n_insns == 6, "min=max=5 instructions: got %u", p ? p->n_insns : 0);
  prog_free(p);
  Arch small;
  arch_default(&small);
  small.token_max = 1;
  small.queue_depth[0] = small.queue_depth[1] = small.queue_depth[2] = 8;
  o = (RandProgOptions){&small, 200, 200, 0, 0, 0, 0};
  diag_init(&d);
  p = randprog_generate(3, &o, &d);
  CHECK(p == NULL && strstr(diag_first(&d), "tokens.max"), "tokens.max=1 with 8-deep queues accepted: %s",
        diag_first(&d));
  prog_free(p);
  check_case("engines: the generator is deterministic and its checker finds races");
}

static void compare_shipped(Program *p, const char *path, void *ctx) {
  (void)ctx;
  Diff df = {0};
  compare_engines(p, &df);
  if (df.found) report_divergence(p, path, &df);
  CHECK(!df.found, "%s: %s", path, df.msg);
}

// Every workloads/asm/*.s, assembled, on both engines.
static void test_asm_workloads(void) {
  int n = shipped_each_program(compare_shipped, NULL);
  CHECK(n >= 0, "cannot open workloads/asm (run from the repository root)");
  printf("# %d programs in workloads/asm\n", n);
  check_case("engines: workloads/asm programs agree");
}

int main(void) {
  test_generator();
  test_random_programs();
  test_asm_workloads();
  return check_status();
}
