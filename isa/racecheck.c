// racecheck.c: the static race checker (racecheck.h; the analysis is described there and in
// docs/ISA.md "Races"). Footprints come from isa/footprint.c, configuration registers from
// prog_check_insn; nothing here restates what an instruction touches.
#include "racecheck.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define PAGE_CELLS 4096u

// ---- Cells -------------------------------------------------------------------------------------

// What one element of a space is called in messages.
static const char *elems_name(FpSpace sp) {
  switch (sp) {
  case FP_SPAD: return "SPAD rows";
  case FP_WBUF: return "WBUF rows";
  case FP_ACC: return "ACC rows";
  case FP_PARAM: return "PARAM rows";
  case FP_GBUF: return "GBUF bytes";
  case FP_DRAM: return "DRAM bytes";
  case FP_NUM_SPACES: /* not a space */ break;
  }
  return "?";
}

static const char *hazard_name(RcHazard h) {
  switch (h) {
  case RC_RAW: return "RAW";
  case RC_WAR: return "WAR";
  case RC_WAW: return "WAW";
  }
  return "?";
}

// One conflict of the instruction being checked, merged over the elements it covers.
typedef struct {
  int32_t other;
  FpSpace space;
  RcHazard hazard;
  uint64_t lo, hi;
} Conflict;

typedef enum { V_NEED, V_CHECK } VisitMode;

typedef struct {
  VisitMode mode;
  int v;                     // unit of the instruction
  int32_t x;                 // its index
  const int32_t *k;          // V_CHECK: the unit's knowledge
  int32_t need[NUM_UNITS];   // V_NEED: latest instruction of each unit that must be done
  Conflict c[RC_MAX_PER_INSN];
  unsigned n_c;
  uint64_t extra;            // conflicts beyond RC_MAX_PER_INSN
} Visit;

static void note_conflict(Visit *vis, int u, int32_t other, int other_wrote, FpSpace sp, uint64_t e, int write) {
  if (vis->mode == V_NEED) {
    if (other > vis->need[u]) vis->need[u] = other;
    return;
  }
  if (other <= vis->k[u]) return;
  RcHazard h = write ? (other_wrote ? RC_WAW : RC_WAR) : RC_RAW;
  for (unsigned i = 0; i < vis->n_c; i++) {
    Conflict *c = &vis->c[i];
    if (c->other == other && c->space == sp && c->hazard == h) {
      if (e < c->lo) c->lo = e;
      if (e > c->hi) c->hi = e;
      return;
    }
  }
  if (vis->n_c == RC_MAX_PER_INSN) {
    vis->extra++;
    return;
  }
  vis->c[vis->n_c++] = (Conflict){other, sp, h, e, e};
}

// The slow path of visit_cells: every cell of the run, one by one.
static void note_cells(Visit *vis, const RcCells *c, uint64_t off, uint64_t n, const int32_t thr[RC_UNIT_SLOTS], FpSpace sp,
                       uint64_t e0, int write) {
  for (uint64_t i = 0; i < n; i++) {
    int32_t w = c->w[off + i];
    if ((w >> RC_UNIT_BITS) > thr[w & (RC_UNIT_SLOTS - 1)])
      note_conflict(vis, w & (RC_UNIT_SLOTS - 1), w >> RC_UNIT_BITS, 1, sp, e0 + i, write);
    if (write)
      for (int u = 0; u < NUM_UNITS; u++)
        if (c->r[u][off + i] > thr[u]) note_conflict(vis, u, c->r[u][off + i], 0, sp, e0 + i, write);
  }
}

static int32_t max_of(const int32_t *a, uint64_t n) {   // a loop the compiler vectorizes
  int32_t m = INT32_MIN;
  for (uint64_t i = 0; i < n; i++) m = a[i] > m ? a[i] : m;
  return m;
}

static void fill(int32_t *a, uint64_t n, int32_t v) {
  for (uint64_t i = 0; i < n; i++) a[i] = v;
}

// Cells [off, off + n) of c, elements e0.. of space sp: check the access against (or collect
// needs from) the accesses recorded, then (V_CHECK) record it. thr[u]: the latest u-instruction
// known done (INT32_MAX for the instruction's own unit, and for the slots past the units: slot 7 is
// the unit of w = -1). The
// whole run is first compared through maxima; cells are looked at one by one only when some
// maximum passes a threshold.
static void visit_cells(Visit *vis, RcCells *c, uint64_t off, uint64_t n, FpSpace sp, uint64_t e0, int write) {
  const int v = vis->v;
  int32_t thr[RC_UNIT_SLOTS], thr_min = INT32_MAX;
  for (int u = 0; u < RC_UNIT_SLOTS; u++) thr[u] = INT32_MAX;
  for (int u = 0; u < NUM_UNITS; u++)
    if (u != v) {
      thr[u] = vis->mode == V_NEED ? -1 : vis->k[u];
      if (thr[u] < thr_min) thr_min = thr[u];
    }
  int slow = (max_of(c->w + off, n) >> RC_UNIT_BITS) > thr_min;
  for (int u = 0; write && u < NUM_UNITS && !slow; u++) slow = max_of(c->r[u] + off, n) > thr[u];
  if (slow) note_cells(vis, c, off, n, thr, sp, e0, write);
  if (vis->mode == V_NEED) return;
  if (write) {
    fill(c->w + off, n, (int32_t)(vis->x << RC_UNIT_BITS) + v);
    for (int u = 0; u < NUM_UNITS; u++) fill(c->r[u] + off, n, -1);
  } else {
    fill(c->r[v] + off, n, vis->x);   // x is the latest instruction so far
  }
}

// Allocates the arrays of n cells, all -1. Returns -1 when out of memory.
static int cells_alloc(RcCells *c, uint64_t n) {
  int32_t *b = malloc((size_t)(n ? n : 1) * (1 + NUM_UNITS) * sizeof *b);
  if (!b) return -1;
  memset(b, 0xff, (size_t)n * (1 + NUM_UNITS) * sizeof *b);
  c->w = b;
  for (int u = 0; u < NUM_UNITS; u++) c->r[u] = b + (size_t)n * (1 + (size_t)u);
  return 0;
}

static RcCells *dram_page(RcTracker *t, uint64_t pg) {
  if (!t->page[pg].w && cells_alloc(&t->page[pg], PAGE_CELLS)) {
    t->oom = 1;
    return NULL;
  }
  return &t->page[pg];
}

// The first tracked span that ends after byte a.
static uint32_t span_find(const RcTracker *t, uint64_t a) {
  uint32_t lo = 0, hi = t->n_span;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (t->span[mid].end <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void visit_range(RcTracker *t, Visit *vis, FpSpace sp, uint64_t first, uint64_t end, int write) {
  if (sp != FP_DRAM) {
    visit_cells(vis, &t->mem[sp], first, end - first, sp, first, write);
    return;
  }
  for (uint32_t s = span_find(t, first); s < t->n_span && t->span[s].first < end; s++) {
    uint64_t a = first > t->span[s].first ? first : t->span[s].first;
    uint64_t b = end < t->span[s].end ? end : t->span[s].end;
    while (a < b) {   // page by page of the dense cell space
      uint64_t dense = t->span[s].dense + (a - t->span[s].first);
      uint64_t off = dense % PAGE_CELLS, n = PAGE_CELLS - off;
      if (n > b - a) n = b - a;
      RcCells *pg = dram_page(t, dense / PAGE_CELLS);
      if (!pg) return;
      visit_cells(vis, pg, off, n, sp, a, write);
      a += n;
    }
  }
}

// Every row and byte `in` reads or writes, with the configuration registers in t->st, in the
// footprint's order (reads before writes).
static void visit_insn(RcTracker *t, Visit *vis, const Insn *in) {
  Footprint fp;
  fp_insn(t->a, &t->st, in, &fp);
  for (unsigned k = 0; k < fp.n; k++) {
    FpIter it;
    FpRange run;
    for (fp_iter_start(&it, &fp.a[k]); fp_iter_next(&it, &run);)
      visit_range(t, vis, fp.a[k].space, run.first, run.end, fp.a[k].write);
  }
}

// ---- Tracker -----------------------------------------------------------------------------------

typedef struct {
  uint64_t first, end;
} Run;

static int run_cmp(const void *x, const void *y) {
  const Run *a = x, *b = y;
  return a->first < b->first ? -1 : a->first > b->first;
}

static int runs_push(Run **r, uint64_t *n, uint64_t *cap, uint64_t first, uint64_t end) {
  if (*n && (*r)[*n - 1].end == first) {   // the common case: consecutive runs of one access
    (*r)[*n - 1].end = end;
    return 0;
  }
  if (*n == *cap) {
    size_t nc = *n < SIZE_MAX ? grow_cap((size_t)*cap, (size_t)*n + 1, 256, sizeof **r, SIZE_MAX) : 0;
    Run *nr = nc ? realloc(*r, nc * sizeof *nr) : NULL;
    if (!nr) return -1;
    *r = nr;
    *cap = nc;
  }
  (*r)[(*n)++] = (Run){first, end};
  return 0;
}

// The configuration registers after `in`, as prog_check tracks them. trusted: p passed
// prog_check, so only the instructions that set registers are looked at; else every instruction
// is checked (the generator's candidates). Returns 0, or -1 with a message (illegal).
static int update_registers(const Program *p, ProgCheckState *st, const Insn *in, int trusted, Diag *d) {
  if (!trusted) return prog_check_insn(p, st, in, "racecheck", d);
  switch (in->op) {
  case OP_CFG_LOAD:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:
    return prog_check_insn(p, st, in, "racecheck", d);
  case OP_PRELOAD:
    st->seen_preload = 1;
    return 0;
  case OP_LOAD:        /* sets no register */
  case OP_COMPUTE:     /* sets no register */
  case OP_COMPUTE_OS:  /* sets no register */
  case OP_COMPUTE_IS:  /* sets no register */
  case OP_STORE:       /* sets no register */
  case OP_SFU_MAP:     /* sets no register */
  case OP_SFU_EW:      /* sets no register */
  case OP_SFU_SOFTMAX: /* sets no register */
  case OP_SFU_LAYERNORM: /* sets no register */
  case OP_SFU_REDUCE:  /* sets no register */
  case OP_LAYER:       /* sets no register */
  case OP_HALT:        /* sets no register */
    return 0;
  }
  return 0;
}

// The DRAM bytes some instruction of p may write (the bounding range of each write), as sorted
// disjoint spans.
static int collect_written(RcTracker *t) {
  const Program *p = t->p;
  Run *r = NULL;
  uint64_t n = 0, cap = 0;
  ProgCheckState st;
  memset(&st, 0, sizeof st);
  Diag quiet;
  diag_init(&quiet);
  int rc = 0;
  for (uint32_t i = 0; i < p->n_insns && rc == 0; i++) {
    const Insn in = prog_insn(p, i);
    Footprint fp;
    fp_insn(t->a, &st, &in, &fp);
    for (unsigned k = 0; k < fp.n && rc == 0; k++) {
      if (fp.a[k].space != FP_DRAM || !fp.a[k].write) continue;
      FpRange b = fp_bounds(&fp.a[k]);   // a superset: tracking a byte nobody writes costs only memory
      rc = runs_push(&r, &n, &cap, b.first, b.end);
    }
    if (update_registers(p, &st, &in, 1, &quiet)) rc = -1;
  }
  if (rc == 0 && n) {
    qsort(r, n, sizeof *r, run_cmp);
    uint64_t m = 0;
    for (uint64_t i = 0; i < n; i++) {
      if (m && r[i].first <= r[m - 1].end) {
        if (r[i].end > r[m - 1].end) r[m - 1].end = r[i].end;
      } else {
        r[m++] = r[i];
      }
    }
    n = m;
  }
  if (rc == 0) {
    t->span = malloc((n ? n : 1) * sizeof *t->span);
    if (!t->span) rc = -1;
  }
  uint64_t dense = 0;
  for (uint64_t i = 0; rc == 0 && i < n; i++) {
    t->span[i] = (RcSpan){r[i].first, r[i].end, dense};
    dense += r[i].end - r[i].first;
  }
  if (rc == 0) {
    t->n_span = (uint32_t)n;
    t->n_pages = (dense + PAGE_CELLS - 1) / PAGE_CELLS;
  }
  free(r);
  return rc;
}

int rc_tracker_init(RcTracker *t, const Program *p, uint32_t max_insns, int all_dram, int with_unit_lists) {
  memset(t, 0, sizeof *t);
  t->p = p;
  t->a = &p->arch;
  for (int u = 0; u < NUM_UNITS; u++) {
    t->last_dma[u] = -1;
    for (int w = 0; w < NUM_UNITS; w++) t->K[u][w] = -1;
  }
  t->last_compute = -1;
  for (int sp = 0; sp < FP_DRAM; sp++) {
    uint64_t n = fp_space_size(t->a, (FpSpace)sp);
    if (cells_alloc(&t->mem[sp], n)) return -1;
  }
  if (all_dram) {
    t->span = malloc(sizeof *t->span);
    if (!t->span) return -1;
    t->span[0] = (RcSpan){0, t->a->dram_bytes, 0};
    t->n_span = 1;
    t->n_pages = (t->a->dram_bytes + PAGE_CELLS - 1) / PAGE_CELLS;
  } else if (collect_written(t)) {
    return -1;
  }
  t->page = calloc(t->n_pages ? t->n_pages : 1, sizeof *t->page);
  if (!t->page) return -1;
  if (with_unit_lists)
    for (int u = 0; u < NUM_UNITS; u++) {
      t->unit_insns[u] = malloc(((size_t)max_insns + 1) * sizeof(uint32_t));
      if (!t->unit_insns[u]) return -1;
    }
  return 0;
}

void rc_tracker_free(RcTracker *t) {
  for (int sp = 0; sp < FP_DRAM; sp++) free(t->mem[sp].w);
  for (uint64_t i = 0; t->page && i < t->n_pages; i++) free(t->page[i].w);
  free(t->page);
  free(t->span);
  for (int u = 0; u < NUM_UNITS; u++) {
    free(t->unit_insns[u]);
    for (int w = 0; w < NUM_UNITS; w++) free(t->ch[u][w].idx);
  }
  free(t->info);
  memset(t, 0, sizeof *t);
}

void rc_tracker_needs(RcTracker *t, int v, const Insn *in, int32_t need[NUM_UNITS]) {
  Visit vis;
  memset(&vis, 0, sizeof vis);
  vis.mode = V_NEED;
  vis.v = v;
  vis.x = (int32_t)t->n_info;
  for (int u = 0; u < NUM_UNITS; u++) vis.need[u] = -1;
  visit_insn(t, &vis, in);
  memcpy(need, vis.need, sizeof vis.need);
}

int rc_is_dominating(const RcTracker *t, int v, Opcode op, int32_t k_own) {
  switch (op) {
  case OP_LOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:   // waits for all weight-stationary work; its drain follows the previous one's
  case OP_COMPUTE_IS:   // ends after its PRELOAD, any earlier stream (ready order) and COMPUTE_OS
  case OP_STORE:
    return 1;
  case OP_CFG_SFU:      // the special-function unit runs one instruction at a time (TIMING §7a):
  case OP_SFU_MAP:      // each starts after the previous one has ended
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
    return 1;
  case OP_CFG_LOAD:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
    return (t->a->dram_latency <= 1 && t->a->gbuf_latency <= 1) || t->last_dma[v] <= k_own;
  case OP_PRELOAD:
    // With one column a PRELOAD behind a stream ends no earlier than it (TIMING §6), unless the
    // stream has OVERLAP: then the PRELOAD starts under it and may end first.
    return (t->a->cols == 1 && !t->last_compute_overlap) || !t->compute_since_preload || t->last_compute <= k_own;
  case OP_LAYER:   /* no unit, no tokens */
  case OP_HALT:    /* no unit, no tokens */
    return 0;
  }
  return 0;
}

void rc_merge_knowledge(int32_t *k, const RcInsnInfo *pusher, int u, int32_t pusher_idx) {
  for (int w = 0; w < NUM_UNITS; w++)
    if (pusher->k[w] > k[w]) k[w] = pusher->k[w];
  if (pusher_idx > k[u]) k[u] = pusher_idx;
}

int rc_chan_append(RcChan *c, uint32_t idx) {
  if (c->n == c->cap) {
    size_t nc = grow_cap(c->cap, (size_t)c->n + 1, 16, sizeof *c->idx, UINT32_MAX);
    uint32_t *ni = nc ? realloc(c->idx, nc * sizeof *ni) : NULL;
    if (!ni) return -1;
    c->idx = ni;
    c->cap = (uint32_t)nc;
  }
  c->idx[c->n++] = idx;
  return 0;
}

static void add_report(RcReports *out, const RcReport *r) {
  uint32_t max = out->max ? out->max : 1000;
  if (out->n >= max) {
    out->dropped++;
    return;
  }
  if (out->n == out->cap) {
    size_t nc = grow_cap(out->cap, (size_t)out->n + 1, 16, sizeof *out->r, max);
    RcReport *nr = nc ? realloc(out->r, nc * sizeof *nr) : NULL;
    if (!nr) {   // keep counting; the caller still sees a failed check
      out->dropped++;
      return;
    }
    out->r = nr;
    out->cap = (uint32_t)nc;
  }
  out->r[out->n++] = *r;
}

int rc_tracker_apply(RcTracker *t, uint32_t x, RcReports *out, Diag *d) {
  const Insn insn = prog_insn(t->p, x), *in = &insn;
  if (update_registers(t->p, &t->st, in, t->trusted, d))
    return diag_error(d, "racecheck: error: insn %u is illegal (the program must pass prog_check first)", x);
  if (t->n_info == t->cap_info) {
    size_t nc = grow_cap(t->cap_info, (size_t)t->n_info + 1, 64, sizeof *t->info, UINT32_MAX);
    RcInsnInfo *ni = nc ? realloc(t->info, nc * sizeof *ni) : NULL;
    if (!ni) return diag_error(d, "racecheck: error: out of memory");
    t->info = ni;
    t->cap_info = (uint32_t)nc;
  }
  RcInsnInfo *inf = &t->info[t->n_info++];
  memset(inf, 0, sizeof *inf);
  Unit unit = isa_ops[in->op].unit;
  if (unit >= NUM_UNITS) {   // LAYER, HALT: no tokens, no memory
    inf->unit = NUM_UNITS;
    for (int w = 0; w < NUM_UNITS; w++) inf->k[w] = -1;
    return 0;
  }
  int v = (int)unit;
  if (t->unit_insns[v]) t->unit_insns[v][t->n_unit[v]++] = x;
  int32_t took[NUM_UNITS];   // the push each pop took, or -1
  for (int u = 0; u < NUM_UNITS; u++) {
    took[u] = -1;
    if (!((in->f[FLD_POP] >> u) & 1)) continue;
    RcChan *c = &t->ch[u][v];
    if (c->popped < c->n) {
      took[u] = (int32_t)c->idx[c->popped];
      rc_merge_knowledge(t->K[v], &t->info[took[u]], u, took[u]);
    } else {
      RcReport r = {.kind = RC_POP_UNMATCHED, .insn = x, .other = RC_NONE, .from = (uint8_t)u, .to = (uint8_t)v,
                    .pusher = c->popped};   // the pop's ordinal; racecheck_run finds its push
      add_report(out, &r);
    }
    c->popped++;
  }
  inf->unit = (uint8_t)v;
  inf->dominating = (uint8_t)rc_is_dominating(t, v, in->op, t->K[v][v]);
  memcpy(inf->k, t->K[v], sizeof inf->k);
  Visit vis;
  vis.mode = V_CHECK;
  vis.v = v;
  vis.x = (int32_t)x;
  vis.k = t->K[v];
  vis.n_c = 0;
  vis.extra = 0;
  visit_insn(t, &vis, in);
  if (t->oom) return diag_error(d, "racecheck: error: out of memory");
  for (unsigned i = 0; i < vis.n_c; i++) {
    const Conflict *c = &vis.c[i];
    int u = t->info[c->other].unit;
    RcReport r = {.kind = RC_RACE, .hazard = c->hazard, .insn = x, .other = (uint32_t)c->other, .space = c->space,
                  .first = c->lo, .last = c->hi, .from = (uint8_t)u, .to = (uint8_t)v, .pusher = RC_NONE};
    const RcChan *ch = &t->ch[u][v];
    if (took[u] >= 0) {
      r.fix = RC_FIX_LATER_PUSH;
      r.pusher = (uint32_t)took[u];
    } else if (ch->popped < ch->n && ch->idx[ch->popped] >= (uint32_t)c->other) {
      r.fix = RC_FIX_ADD_POP;
      r.pusher = ch->idx[ch->popped];
    } else {
      r.fix = RC_FIX_PUSH_POP;
      if (ch->popped < ch->n) r.pusher = ch->idx[ch->popped];
    }
    add_report(out, &r);
  }
  out->dropped += vis.extra;
  for (int w = 0; w < NUM_UNITS; w++) {
    if (!((in->f[FLD_PUSH] >> w) & 1)) continue;
    if (!inf->dominating) {
      RcReport r = {.kind = RC_PUSH_EARLY, .insn = x, .other = RC_NONE, .from = (uint8_t)v, .to = (uint8_t)w,
                    .pusher = RC_NONE};
      add_report(out, &r);
    }
    if (rc_chan_append(&t->ch[v][w], x)) return diag_error(d, "racecheck: error: out of memory");
  }
  switch (in->op) {
  case OP_LOAD:
  case OP_STORE:
    t->last_dma[v] = (int32_t)x;
    break;
  case OP_COMPUTE:
  case OP_COMPUTE_IS:   // both hold a bank until they end
    t->last_compute = (int32_t)x;
    t->compute_since_preload = 1;
    t->last_compute_overlap = in->f[FLD_OVERLAP] != 0;
    break;
  case OP_PRELOAD:
  case OP_COMPUTE_OS:   // a PRELOAD after a COMPUTE_OS starts after it has ended, which waited for every COMPUTE
    t->compute_since_preload = 0;
    break;
  case OP_CFG_LOAD:    /* no DMA, no bank */
  case OP_CFG_STORE:   /* no DMA, no bank */
  case OP_CFG_POOL:    /* no DMA, no bank */
  case OP_CFG_SFU:     /* no DMA, no bank */
  case OP_SFU_MAP:     /* no DMA, no bank */
  case OP_SFU_EW:      /* no DMA, no bank */
  case OP_SFU_SOFTMAX: /* no DMA, no bank */
  case OP_SFU_LAYERNORM: /* no DMA, no bank */
  case OP_SFU_REDUCE:  /* no DMA, no bank */
  case OP_LAYER:       /* not a unit's: returned above */
  case OP_HALT:        /* not a unit's: returned above */
    break;
  }
  return 0;
}

// ---- Whole programs ----------------------------------------------------------------------------

// Per channel u->v (bound[u * NUM_UNITS + v]), an upper bound of its count during any run: while
// v has started j queue entries, at most the pushes of the instructions fetched so far (all before
// v's entry j + Q_v) less v's pops so far. Returns -1 when out of memory.
static int token_bounds(const Program *p, uint32_t bound[NUM_UNITS * NUM_UNITS]) {
  uint32_t n = p->n_insns;
  uint8_t *unit = malloc(n ? n : 1), *push = malloc(n ? n : 1), *pop = malloc(n ? n : 1);
  uint32_t *entries = malloc((size_t)(n + 1) * sizeof *entries);
  uint32_t *pushes = malloc((size_t)(n + 1) * sizeof *pushes);   // pushes[i]: pushes u->v in insns [0, i)
  int rc = unit && push && pop && entries && pushes ? 0 : -1;
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    Opcode op = prog_op(p, i);   // two fields: no need to decode the others
    unit[i] = (uint8_t)isa_ops[op].unit;
    push[i] = isa_has_field(op, FLD_PUSH) ? (uint8_t)isa_word_field(&p->code[i], FLD_PUSH) : 0;
    pop[i] = isa_has_field(op, FLD_POP) ? (uint8_t)isa_word_field(&p->code[i], FLD_POP) : 0;
  }
  for (int u = 0; rc == 0 && u < NUM_UNITS; u++)
    for (int v = 0; v < NUM_UNITS; v++) {
      bound[u * NUM_UNITS + v] = 0;
      if (u == v) continue;
      uint32_t ne = 0;
      pushes[0] = 0;
      for (uint32_t i = 0; i < n; i++) {
        pushes[i + 1] = pushes[i] + (unit[i] == (uint8_t)u && ((push[i] >> v) & 1));
        if (unit[i] == (uint8_t)v || unit[i] == (uint8_t)UNIT_ALL) entries[ne++] = i;
      }
      uint32_t q = p->arch.queue_depth[v], pops = 0, b = 0;
      for (uint32_t j = 0; j <= ne; j++) {
        uint32_t limit = j + q < ne ? entries[j + q] : n;
        uint32_t count = pushes[limit] > pops ? pushes[limit] - pops : 0;   // more pops: unmatched, reported apart
        if (count > b) b = count;
        if (j < ne && ((pop[entries[j]] >> u) & 1)) pops++;
      }
      bound[u * NUM_UNITS + v] = b;
    }
  free(unit);
  free(push);
  free(pop);
  free(entries);
  free(pushes);
  return rc;
}

uint32_t racecheck_token_bound(const Program *p) {
  uint32_t b[NUM_UNITS * NUM_UNITS], m = 0;
  if (token_bounds(p, b)) return UINT32_MAX;
  for (int i = 0; i < NUM_UNITS * NUM_UNITS; i++)
    if (b[i] > m) m = b[i];
  return m;
}

int racecheck_run(const Program *p, RcReports *out, Diag *d) {
  out->r = NULL;
  out->n = out->cap = 0;
  out->dropped = 0;
  RcTracker t;
  int rc = rc_tracker_init(&t, p, p->n_insns, 0, 0) ? diag_error(d, "racecheck: error: out of memory") : 0;
  t.trusted = 1;   // racecheck_run's precondition
  for (uint32_t x = 0; rc == 0 && x < p->n_insns; x++) rc = rc_tracker_apply(&t, x, out, d);
  for (uint32_t i = 0; rc == 0 && i < out->n; i++) {   // the push an unmatched pop would take, if any
    RcReport *r = &out->r[i];
    if (r->kind != RC_POP_UNMATCHED) continue;
    const RcChan *c = &t.ch[r->from][r->to];
    r->other = r->pusher < c->n ? c->idx[r->pusher] : RC_NONE;
    r->pusher = RC_NONE;
  }
  rc_tracker_free(&t);
  uint32_t b[NUM_UNITS * NUM_UNITS];
  if (rc == 0 && token_bounds(p, b)) rc = diag_error(d, "racecheck: error: out of memory");
  for (int c = 0; rc == 0 && c < NUM_UNITS * NUM_UNITS; c++)
    if (b[c] > p->arch.token_max) {
      RcReport r = {.kind = RC_OVERFLOW, .insn = RC_NONE, .other = RC_NONE, .from = (uint8_t)(c / NUM_UNITS),
                    .to = (uint8_t)(c % NUM_UNITS), .pusher = RC_NONE, .count = b[c]};
      add_report(out, &r);
    }
  if (rc) racecheck_reports_free(out);
  return rc;
}

void racecheck_reports_free(RcReports *out) {
  free(out->r);
  out->r = NULL;
  out->n = out->cap = 0;
}

// ---- Reports -----------------------------------------------------------------------------------

typedef struct {
  char *s;
  size_t n, len;
} Out;

static void put(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Out *o, const char *fmt, ...) {
  if (o->len + 1 >= o->n) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(o->s + o->len, o->n - o->len, fmt, ap);
  va_end(ap);
  if (k > 0) o->len = o->len + (size_t)k < o->n ? o->len + (size_t)k : o->n - 1;
}

static const char *op_of(const Program *p, uint32_t i) { return isa_ops[prog_op(p, i)].name; }

// "insn 7 COMPUTE (compute unit, line 12)"
static void put_insn(Out *o, const Program *p, uint32_t i, const uint32_t *lines) {
  put(o, "insn %u %s (%s unit", i, op_of(p, i), isa_unit_names[isa_ops[prog_op(p, i)].unit]);
  if (lines) put(o, ", line %u", lines[i]);
  put(o, ")");
}

static void put_range(Out *o, FpSpace sp, uint64_t first, uint64_t last) {
  if (sp == FP_DRAM || sp == FP_GBUF) {
    const char *m = fp_space_name(sp);
    if (first == last) put(o, "%s byte 0x%llx", m, (unsigned long long)first);
    else put(o, "%s bytes 0x%llx..0x%llx", m, (unsigned long long)first, (unsigned long long)last);
  } else if (first == last) {
    put(o, "%s row %llu", fp_space_name(sp), (unsigned long long)first);
  } else {
    put(o, "%s %llu..%llu", elems_name(sp), (unsigned long long)first, (unsigned long long)last);
  }
}

char *racecheck_format(const Program *p, const RcReport *r, const char *file, const uint32_t *lines, int warn, char *buf,
                       size_t n) {
  Out o = {buf, n, 0};
  buf[0] = 0;
  const char *from = isa_unit_names[r->from], *to = isa_unit_names[r->to], *sev = warn ? "warning" : "error";
  if (lines && r->insn != RC_NONE) put(&o, "%s:%u: ", file, lines[r->insn]);
  else put(&o, "%s: ", file);
  switch (r->kind) {
  case RC_RACE: {
    static const char *const verb[] = {[RC_RAW] = "reads", [RC_WAR] = "writes", [RC_WAW] = "writes"};
    static const char *const other_verb[] = {[RC_RAW] = "writes", [RC_WAR] = "reads", [RC_WAW] = "writes"};
    put(&o, "%s: race (%s) on ", sev, hazard_name(r->hazard));
    put_range(&o, r->space, r->first, r->last);
    put(&o, ": ");
    put_insn(&o, p, r->insn, lines);
    const char *them = r->first == r->last ? "it" : "them";
    put(&o, " %s %s and ", verb[r->hazard], them);
    put_insn(&o, p, r->other, lines);
    put(&o, " %s %s, with no token chain ordering the two\n  fix: ", other_verb[r->hazard], them);
    switch (r->fix) {
    case RC_FIX_ADD_POP:
      put(&o, "add pop=%s to insn %u (it takes the push=%s of insn %u)", from, r->insn, to, r->pusher);
      break;
    case RC_FIX_LATER_PUSH:
      put(&o,
          "insn %u's pop=%s takes insn %u's push (the oldest pending on %s->%s), which comes before insn %u: "
          "reorder the %s->%s pushes (or the instructions that make them) so that the one insn %u takes comes "
          "from insn %u or later",
          r->insn, from, r->pusher, from, to, r->other, from, to, r->insn, r->other);
      break;
    case RC_FIX_PUSH_POP:
      put(&o, "add push=%s to insn %u and pop=%s to insn %u", to, r->other, from, r->insn);
      if (r->pusher != RC_NONE)
        put(&o, " (channel %s->%s has an earlier unpopped push from insn %u, which that pop would take first)", from,
            to, r->pusher);
      break;
    case RC_FIX_NONE:
      put(&o, "order them with a token chain");
      break;
    }
    break;
  }
  case RC_POP_UNMATCHED:
    put(&o, "%s: ", sev);
    put_insn(&o, p, r->insn, lines);
    if (r->other == RC_NONE)
      put(&o, " pops %s->%s, but no instruction pushes that token: deadlock\n  fix: add push=%s to an earlier %s "
              "instruction, or remove pop=%s", from, to, to, from, from);
    else
      put(&o, " pops %s->%s before any instruction pushes it in program order (the push it would take is insn %u's)"
              "\n  fix: push=%s from a %s instruction before insn %u", from, to, r->other, to, from, r->insn);
    break;
  case RC_PUSH_EARLY:
    put(&o, "%s: ", sev);
    put_insn(&o, p, r->insn, lines);
    put(&o, " pushes %s->%s but may end before an earlier %s instruction, so the token does not mean that "
            "the earlier ones are done\n  fix: push from a later LOAD, COMPUTE or STORE instead", from, to, from);
    break;
  case RC_OVERFLOW:
    put(&o, "%s: token channel %s->%s can hold %u tokens, more than tokens.max %u\n  fix: pop=%s sooner, or "
            "push=%s less often", sev, from, to, r->count, p->arch.token_max, from, to);
    break;
  }
  return buf;
}

static int is_race(const RcReport *r) { return r->kind == RC_RACE; }

void racecheck_print(const Program *p, const RcReports *r, const char *file, const uint32_t *lines, int warn, FILE *f) {
  char buf[1024];
  uint64_t races = 0, tokens = 0;
  for (uint32_t i = 0; i < r->n; i++) {
    fprintf(f, "%s\n", racecheck_format(p, &r->r[i], file, lines, warn, buf, sizeof buf));
    if (is_race(&r->r[i])) races++;
    else tokens++;
  }
  if (r->dropped) fprintf(f, "%s: %llu more not shown\n", file, (unsigned long long)r->dropped);
  if (r->n || r->dropped)
    fprintf(f, "%s: %llu race%s, %llu token error%s%s\n", file, (unsigned long long)races, races == 1 ? "" : "s",
            (unsigned long long)tokens, tokens == 1 ? "" : "s", r->dropped ? " shown" : "");
}

const char *racecheck_layer_of(const Program *p, uint32_t insn) {
  for (uint32_t i = insn + 1; insn != RC_NONE && i-- > 0;)
    if (prog_op(p, i) == OP_LAYER) {
      const Insn in = prog_insn(p, i);
      return (uint64_t)in.f[FLD_LAYER_ID] < p->n_layers ? p->layer_names[in.f[FLD_LAYER_ID]] : NULL;
    }
  return NULL;
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if (*s == '\n') fputs("\\n", f);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static void json_insn(FILE *f, const Program *p, uint32_t i, const uint32_t *lines) {
  if (i == RC_NONE) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"index\": %u, \"op\": \"%s\", \"unit\": \"%s\"", i, op_of(p, i),
          isa_unit_names[isa_ops[prog_op(p, i)].unit]);
  if (lines) fprintf(f, ", \"line\": %u", lines[i]);
  fputc('}', f);
}

void racecheck_print_json(const Program *p, const RcReports *r, const char *file, const uint32_t *lines, FILE *f) {
  static const char *const kinds[] = {[RC_RACE] = "race", [RC_POP_UNMATCHED] = "unmatched_pop",
                                      [RC_PUSH_EARLY] = "early_push", [RC_OVERFLOW] = "token_overflow"};
  char buf[1024];
  fputs("{\"file\": ", f);
  json_str(f, file);
  fprintf(f, ", \"clean\": %s, \"reports\": [", r->n || r->dropped ? "false" : "true");
  for (uint32_t i = 0; i < r->n; i++) {
    const RcReport *x = &r->r[i];
    fprintf(f, "%s\n  {\"kind\": \"%s\"", i ? "," : "", kinds[x->kind]);
    if (x->kind == RC_RACE) {
      fprintf(f, ", \"hazard\": \"%s\", \"memory\": \"%s\", \"first\": %llu, \"last\": %llu", hazard_name(x->hazard),
              fp_space_name(x->space), (unsigned long long)x->first, (unsigned long long)x->last);
    } else {
      fprintf(f, ", \"channel\": \"%s->%s\"", isa_unit_names[x->from], isa_unit_names[x->to]);
    }
    if (x->kind == RC_OVERFLOW) fprintf(f, ", \"bound\": %u, \"tokens_max\": %u", x->count, p->arch.token_max);
    fputs(", \"insn\": ", f);
    json_insn(f, p, x->insn, lines);
    fputs(", \"other\": ", f);
    json_insn(f, p, x->other, lines);
    fputs(", \"message\": ", f);
    json_str(f, racecheck_format(p, x, file, lines, 0, buf, sizeof buf));
    fputc('}', f);
  }
  fprintf(f, "%s], \"dropped\": %llu}\n", r->n ? "\n" : "", (unsigned long long)r->dropped);
}
