// sched.c: token placement from memory accesses (sched.h).
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "../isa/grow.h"

enum { HIST = 1024 };   // the largest queue depth arch.c allows

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
  int late_push;                          // sched_set_late_push
  int64_t last_pusher[NUM_UNITS];         // latest instruction of each unit that may push, -1: none
  int64_t layer_id;                       // of the latest LAYER (the spacers repeat it)
  int overlap;                            // sched_set_overlap
  int64_t last_stream;                    // the latest COMPUTE or COMPUTE_IS, if the compute unit has
                                          // had nothing but LAYERs since; -1: none
  int64_t stream_layer;                   // the layer id it was emitted in
  uint8_t pops[NUM_UNITS][HIST];          // [v][entry % HIST]: POP mask of v's latest queue entries
  uint64_t entries[NUM_UNITS];            // queue entries of v so far
};

Sched *sched_new(Program *p) {
  Sched *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->p = p;
  for (int u = 0; u < NUM_UNITS; u++)
    for (int v = 0; v < NUM_UNITS; v++) s->matched[u][v] = -1;
  for (int u = 0; u < NUM_UNITS; u++) s->last_pusher[u] = -1;
  s->last_stream = -1;
  return s;
}

void sched_free(Sched *s) {
  if (!s) return;
  for (int m = 0; m < SMEM_COUNT; m++) free(s->mem[m].v);
  free(s);
}

void sched_set_late_push(Sched *s, int on) { s->late_push = on; }

void sched_set_overlap(Sched *s, int on) { s->overlap = on; }

// Preloading behind compute: a PRELOAD right behind a stream in the compute queue (spacer LAYERs
// aside) lets that stream carry OVERLAP, so that it shifts into the other bank while the stream
// runs (docs/TIMING.md section 6). OVERLAP changes no result and no token: the stream still
// ends after everything before it. Not across a layer boundary: the unit counts an OVERLAP
// stream's cycles in its current layer (TIMING §9), which would then be the next one.
static void note_stream_order(Sched *s, const Insn *in, int64_t idx) {
  switch (in->op) {
  case OP_COMPUTE:
  case OP_COMPUTE_IS:
    s->last_stream = idx;
    s->stream_layer = s->layer_id;
    break;
  case OP_PRELOAD:
    if (s->overlap && s->last_stream >= 0 && s->stream_layer == s->layer_id)
      isa_word_set(&s->p->code[s->last_stream], FLD_OVERLAP, 1);
    s->last_stream = -1;
    break;
  case OP_COMPUTE_OS: s->last_stream = -1; break;
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:     // other units' instructions
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_LAYER:   // issues under an OVERLAP stream too
  case OP_HALT: break;
  }
}

void sched_token_counts(const Sched *s, uint64_t out[NUM_UNITS][NUM_UNITS]) { memcpy(out, s->tokens, sizeof s->tokens); }

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

// A queue entry of unit v (its own instruction, or the copy of a UNIT_ALL one) popping `mask`.
static void note_entry(Sched *s, int v, uint8_t mask) { s->pops[v][s->entries[v]++ % HIST] = mask; }

static void note_insn(Sched *s, const Insn *in) {
  Unit un = isa_ops[in->op].unit;
  if (un == UNIT_ALL)
    for (int v = 0; v < NUM_UNITS; v++) note_entry(s, v, 0);
  else if ((int)un < NUM_UNITS) note_entry(s, (int)un, (uint8_t)(isa_has_field(in->op, FLD_POP) ? in->f[FLD_POP] : 0));
  if (in->op == OP_LAYER) s->layer_id = in->f[FLD_LAYER_ID];
}

// Pops of u's tokens among v's latest `span` queue entries.
static uint32_t recent_pops(const Sched *s, int v, int u, uint32_t span) {
  uint32_t n = 0;
  for (uint64_t k = 1; k <= span && k <= s->entries[v]; k++) n += (s->pops[v][(s->entries[v] - k) % HIST] >> u) & 1;
  return n;
}

// With late pushes, the tokens u -> v alternate with v's pops in program order, so a channel
// holds at most the pops of u in a window of Q_v consecutive entries of v, plus one pushed ahead
// of them. Before v pops u again, spacers (LAYER copies repeating the current layer: an entry in
// every queue, no effect) keep at most tokens.max - 1 such pops in the window ending with this
// one (docs/COMPILER.md "Token bound"). Returns -1 on out of memory.
static int space_pops(Sched *s, int self, unsigned mask) {
  const Arch *a = &s->p->arch;
  if (a->token_max < 2 || a->queue_depth[self] < 2) return 0;   // 1: nothing helps; Q = 1: never needed
  for (;;) {
    int full = 0;
    for (int u = 0; u < NUM_UNITS; u++)
      if ((mask >> u) & 1 && recent_pops(s, self, u, a->queue_depth[self] - 1) >= a->token_max - 1) full = 1;
    if (!full) return 0;
    Insn sp = isa_insn(OP_LAYER);
    sp.f[FLD_LAYER_ID] = s->layer_id;
    if (prog_add_insn(s->p, &sp)) return -1;
    note_insn(s, &sp);
  }
}

int64_t sched_emit(Sched *s, const Insn *in_, const Access *acc, int n_acc, const Access *dep_only, int n_dep) {
  Insn in = *in_;
  int self = (int)isa_ops[in.op].unit;
  if (self < NUM_UNITS) {
    int64_t need[NUM_UNITS] = {-1, -1, -1, -1};
    for (int k = 0; k < n_acc; k++) collect(s, &acc[k], self, need);
    for (int k = 0; k < n_dep; k++) collect(s, &dep_only[k], self, need);
    unsigned mask = 0;
    for (int u = 0; u < NUM_UNITS; u++)
      if (u != self && need[u] >= 0 && s->matched[u][self] < need[u]) mask |= 1u << u;
    if (s->late_push && mask && space_pops(s, self, mask)) return -1;
    for (int u = 0; u < NUM_UNITS; u++) {
      if (!((mask >> u) & 1)) continue;
      // Late pushes: the latest instruction of u that may push ends no earlier than need[u] (the
      // unit is in order and pushers' ends are monotonic), and it does not push to self yet (the
      // one that did was matched by a pop, and matched >= need would hold).
      if (s->late_push && s->last_pusher[u] > need[u]) need[u] = s->last_pusher[u];
      InsnWord *w = &s->p->code[need[u]];
      isa_word_set(w, FLD_PUSH, isa_word_field(w, FLD_PUSH) | 1 << self);
      in.f[FLD_POP] |= 1 << u;
      s->matched[u][self] = need[u];
      s->tokens[u][self]++;
    }
  }
  int64_t idx = s->p->n_insns;
  if (prog_add_insn(s->p, &in)) return -1;
  note_insn(s, &in);
  note_stream_order(s, &in, idx);
  if (self < NUM_UNITS && isa_has_field(in.op, FLD_PUSH)) s->last_pusher[self] = idx;
  if (self < NUM_UNITS && s->late_push && in.f[FLD_POP] && s->p->arch.token_max == 1) {
    // tokens.max 1: the next token to self may be pushed only once self's queue can no longer
    // hold this instruction, Q_self entries later (docs/COMPILER.md "Token bound").
    Insn sp = isa_insn(OP_LAYER);
    sp.f[FLD_LAYER_ID] = s->layer_id;
    for (uint32_t k = 0; k < s->p->arch.queue_depth[self]; k++) {
      if (prog_add_insn(s->p, &sp)) return -1;
      note_insn(s, &sp);
    }
  }
  if (self < NUM_UNITS && sched_record(s, idx, acc, n_acc)) return -1;
  return idx;
}

int sched_record(Sched *s, int64_t insn, const Access *acc, int n_acc) {
  int self = unit_of(s, insn);
  for (int k = 0; k < n_acc; k++)
    if (record(s, &acc[k], self, insn)) return -1;
  return 0;
}

int sched_check_token_bound(const Program *p, const Arch *a, Diag *d) {
  // Channel u -> v while v has started j of its queue entries (its own instructions and the
  // copies of UNIT_ALL ones): the fetch unit cannot have fetched v's entry j + Q_v, so at most
  // the pushes u -> v of the instructions before that entry have happened, less v's pops in its
  // first j entries (docs/COMPILER.md "Token bound").
  uint32_t n = p->n_insns;
  uint32_t *entries = malloc((n + 1) * sizeof *entries), *pushes = malloc((n + 1) * sizeof *pushes);
  int rc = 0;
  if (!entries || !pushes) rc = diag_error(d, "sacc: error: out of memory");
  for (int u = 0; u < NUM_UNITS && !rc; u++)
    for (int v = 0; v < NUM_UNITS && !rc; v++) {
      if (u == v) continue;
      uint32_t ne = 0, pops = 0, bound = 0, at = 0;
      pushes[0] = 0;
      for (uint32_t i = 0; i < n; i++) {
        Opcode op = prog_op(p, i);
        Unit un = isa_ops[op].unit;
        int push = un == (Unit)u && isa_has_field(op, FLD_PUSH) &&
                   ((isa_word_field(&p->code[i], FLD_PUSH) >> v) & 1);
        pushes[i + 1] = pushes[i] + (uint32_t)push;
        if (un == (Unit)v || un == UNIT_ALL) entries[ne++] = i;
      }
      uint32_t q = a->queue_depth[v];
      for (uint32_t j = 0; j <= ne; j++) {
        uint32_t limit = (uint64_t)j + q < ne ? entries[j + q] : n;
        uint32_t count = pushes[limit] - pops;
        if (count > bound) bound = count, at = j;
        if (j < ne) {
          Opcode op = prog_op(p, entries[j]);
          if (isa_has_field(op, FLD_POP) && ((isa_word_field(&p->code[entries[j]], FLD_POP) >> u) & 1)) pops++;
        }
      }
      if (bound > a->token_max)
        rc = diag_error(d,
                        "sacc: error: token channel %s -> %s can hold %u tokens (when the %s unit has started %u "
                        "instructions, its queue holds %u more) but arch \"%s\" has tokens.max=%u",
                        isa_unit_names[u], isa_unit_names[v], bound, isa_unit_names[v], at, q, a->name,
                        a->token_max);
    }
  free(entries);
  free(pushes);
  return rc;
}
