// sched.c: token placement from memory accesses (sched.h).
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "../isa/grow.h"

// The state of one interval of a memory: who wrote it last, who read it since.
typedef struct {
  uint64_t lo, hi;
  int64_t writer;            // instruction index, -1: none
  int wunit;
  int64_t reader[NUM_UNITS]; // last reader per unit since the write, -1: none
} Seg;

typedef struct {
  Seg *v;
  size_t n, cap;
} SegList;

struct Sched {
  Program *p;
  SegList mem[SMEM_COUNT];
  int64_t matched[NUM_UNITS][NUM_UNITS];  // [u][v]: the last push u -> v that a pop has taken
  uint64_t tokens[NUM_UNITS][NUM_UNITS];
};

Sched *sched_new(Program *p) {
  Sched *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->p = p;
  for (int u = 0; u < NUM_UNITS; u++)
    for (int v = 0; v < NUM_UNITS; v++) s->matched[u][v] = -1;
  return s;
}

void sched_free(Sched *s) {
  if (!s) return;
  for (int m = 0; m < SMEM_COUNT; m++) free(s->mem[m].v);
  free(s);
}

void sched_token_counts(const Sched *s, uint64_t out[3][3]) { memcpy(out, s->tokens, sizeof s->tokens); }

static int unit_of(const Sched *s, int64_t insn) { return (int)isa_ops[prog_op(s->p, (uint32_t)insn)].unit; }

// First segment whose hi is above x.
static size_t seg_find(const SegList *l, uint64_t x) {
  size_t a = 0, b = l->n;
  while (a < b) {
    size_t m = (a + b) / 2;
    if (l->v[m].hi <= x) a = m + 1;
    else b = m;
  }
  return a;
}

static int seg_insert(SegList *l, size_t at, const Seg *sg) {
  if (l->n == l->cap) {
    size_t cap = grow_cap(l->cap, l->n + 1, 64, sizeof *l->v, SIZE_MAX);
    Seg *n = cap ? realloc(l->v, cap * sizeof *n) : NULL;
    if (!n) return -1;
    l->v = n, l->cap = cap;
  }
  memmove(l->v + at + 1, l->v + at, (l->n - at) * sizeof *sg);
  l->v[at] = *sg;
  l->n++;
  return 0;
}

// Splits the segment containing x (if any straddles it) so that a segment boundary falls at x.
static int seg_split(SegList *l, uint64_t x) {
  size_t i = seg_find(l, x);
  if (i == l->n || l->v[i].lo >= x) return 0;
  Seg right = l->v[i];
  right.lo = x;
  l->v[i].hi = x;
  return seg_insert(l, i + 1, &right);
}

// The latest conflicting instruction of each unit for an access by unit `self`.
static void collect(const Sched *s, const Access *a, int self, int64_t need[NUM_UNITS]) {
  const SegList *l = &s->mem[a->mem];
  for (size_t i = seg_find(l, a->lo); i < l->n && l->v[i].lo < a->hi; i++) {
    const Seg *sg = &l->v[i];
    if (sg->writer >= 0 && sg->wunit != self && sg->writer > need[sg->wunit]) need[sg->wunit] = sg->writer;
    if (!a->write) continue;
    for (int u = 0; u < NUM_UNITS; u++)
      if (u != self && sg->reader[u] > need[u]) need[u] = sg->reader[u];
  }
}

static int record(Sched *s, const Access *a, int self, int64_t insn) {
  SegList *l = &s->mem[a->mem];
  if (a->lo >= a->hi) return 0;
  if (seg_split(l, a->lo) || seg_split(l, a->hi)) return -1;
  uint64_t at = a->lo;
  size_t i = seg_find(l, a->lo);
  while (at < a->hi) {
    if (i == l->n || l->v[i].lo > at) {  // a gap: a fresh segment up to the next one
      Seg sg = {.lo = at, .hi = i == l->n || l->v[i].lo > a->hi ? a->hi : l->v[i].lo, .writer = -1, .wunit = 0};
      for (int u = 0; u < NUM_UNITS; u++) sg.reader[u] = -1;
      if (seg_insert(l, i, &sg)) return -1;
    }
    Seg *sg = &l->v[i];
    if (a->write) {
      sg->writer = insn, sg->wunit = self;
      for (int u = 0; u < NUM_UNITS; u++) sg->reader[u] = -1;
    } else {
      sg->reader[self] = insn;
    }
    at = sg->hi;
    i++;
  }
  // Merge neighbours left in the same state (keeps the lists short).
  size_t first = seg_find(l, a->lo), last = i < l->n ? i : l->n - 1;
  if (first > 0) first--;
  size_t w = first;
  for (size_t r = first + 1; r <= last && r < l->n; r++) {
    Seg *p = &l->v[w], *q = &l->v[r];
    int same = p->hi == q->lo && p->writer == q->writer && p->wunit == q->wunit;
    for (int u = 0; u < NUM_UNITS && same; u++) same = p->reader[u] == q->reader[u];
    if (same) p->hi = q->hi;
    else l->v[++w] = *q;
  }
  size_t removed = last - w;
  if (removed && last < l->n) {
    memmove(l->v + w + 1, l->v + last + 1, (l->n - last - 1) * sizeof(Seg));
    l->n -= removed;
  }
  return 0;
}

int64_t sched_emit(Sched *s, const Insn *in_, const Access *acc, int n_acc, const Access *dep_only, int n_dep) {
  Insn in = *in_;
  int self = (int)isa_ops[in.op].unit;
  int64_t idx = s->p->n_insns;
  if (self < NUM_UNITS) {
    int64_t need[NUM_UNITS] = {-1, -1, -1};
    for (int k = 0; k < n_acc; k++) collect(s, &acc[k], self, need);
    for (int k = 0; k < n_dep; k++) collect(s, &dep_only[k], self, need);
    for (int u = 0; u < NUM_UNITS; u++) {
      if (u == self || need[u] < 0 || s->matched[u][self] >= need[u]) continue;
      InsnWord *w = &s->p->code[need[u]];
      isa_word_set(w, FLD_PUSH, isa_word_field(w, FLD_PUSH) | 1 << self);
      in.f[FLD_POP] |= 1 << u;
      s->matched[u][self] = need[u];
      s->tokens[u][self]++;
    }
  }
  if (prog_add_insn(s->p, &in)) return -1;
  if (self < NUM_UNITS && sched_record(s, idx, acc, n_acc)) return -1;
  return idx;
}

int sched_record(Sched *s, int64_t insn, const Access *acc, int n_acc) {
  int self = unit_of(s, insn);
  for (int k = 0; k < n_acc; k++)
    if (record(s, &acc[k], self, insn)) return -1;
  return 0;
}
