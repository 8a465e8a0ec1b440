// memplan.c: liveness-based DRAM allocation (memplan.h).
#include "memplan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/grow.h"

#define ALIGN 64u

static uint64_t align_up(uint64_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }
static uint64_t cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint64_t memplan_weight_bytes(const MachOp *op, const Arch *a, Dataflow df) {
  switch (op->kind) {
  case MOP_GEMM: break;
  case MOP_ELT: return 0;
  }
  if (op->b_act) return 0;   // matmul: B comes from an activation in DRAM
  switch (df) {
  case DF_IS: return (uint64_t)op->N * (uint64_t)op->K;   // W^T, N rows of K bytes
  case DF_WS: case DF_OS: break;
  }
  return cdiv((uint64_t)op->N, a->cols) * (uint64_t)op->K * a->cols;
}

uint64_t memplan_param_bytes(const MachOp *op, const Arch *a) {
  return cdiv((uint64_t)op->N, a->cols) * 3u * 4u * a->cols;
}

// A free block; `layout` >= 0: it last held that DTensor, whose halo is still zero.
typedef struct {
  uint64_t start, size;
  int layout;
} Block;

typedef struct {
  Block *v;
  int n, cap;
  uint64_t top;
} Heap;

static int same_layout(const DTensor *x, const DTensor *y) {
  return x->n == y->n && x->h == y->h && x->w == y->w && x->c == y->c && x->halo_t == y->halo_t &&
         x->halo_b == y->halo_b && x->halo_l == y->halo_l && x->halo_r == y->halo_r;
}

static int has_halo(const DTensor *t) { return t->halo_t || t->halo_b || t->halo_l || t->halo_r; }

static int heap_push(Heap *h, Block b) {
  if (h->n == h->cap) {
    size_t cap = grow_cap((size_t)h->cap, (size_t)h->n + 1, 32, sizeof *h->v, INT_MAX);
    Block *n = cap ? realloc(h->v, cap * sizeof *n) : NULL;
    if (!n) return -1;
    h->v = n, h->cap = (int)cap;
  }
  h->v[h->n++] = b;
  return 0;
}

static int heap_alloc(Heap *h, const MachProg *mp, int ti, uint64_t *at) {
  const DTensor *t = &mp->tensors[ti];
  uint64_t size = align_up(dt_bytes(t));
  if (has_halo(t)) {
    for (int i = 0; i < h->n; i++)
      if (h->v[i].layout >= 0 && h->v[i].size == size && same_layout(&mp->tensors[h->v[i].layout], t)) {
        *at = h->v[i].start;
        h->v[i] = h->v[--h->n];
        return 0;
      }
  } else {
    int best = -1;
    for (int i = 0; i < h->n; i++)
      if (h->v[i].size >= size && (best < 0 || h->v[i].size < h->v[best].size)) best = i;
    if (best >= 0) {
      *at = h->v[best].start;
      if (h->v[best].size > size) {
        h->v[best].start += size, h->v[best].size -= size, h->v[best].layout = -1;
      } else {
        h->v[best] = h->v[--h->n];
      }
      return 0;
    }
  }
  *at = h->top;
  h->top += size;
  return 0;
}

static int cmp_block(const void *x, const void *y) {
  const Block *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

// Gives a block back; blocks without a clean halo merge with their free neighbours.
static int heap_free(Heap *h, const MachProg *mp, int ti) {
  const DTensor *t = &mp->tensors[ti];
  Block b = {t->base, align_up(dt_bytes(t)), has_halo(t) ? ti : -1};
  if (heap_push(h, b)) return -1;
  qsort(h->v, (size_t)h->n, sizeof *h->v, cmp_block);
  int w = 0;
  for (int i = 1; i < h->n; i++) {
    Block *p = &h->v[w], *q = &h->v[i];
    if (p->layout < 0 && q->layout < 0 && p->start + p->size == q->start) p->size += q->size;
    else h->v[++w] = *q;
  }
  if (h->n) h->n = w + 1;
  // Free blocks never go back to the bump pointer: the bytes above it are the only ones known to
  // be zero, which a tensor with a halo needs.
  return 0;
}

static void place(DTensor *t, uint64_t base) {
  t->base = base;
  t->addr = base + (uint64_t)((int64_t)t->halo_t * dt_row_stride(t) + (int64_t)t->halo_l * t->c);
}

// The accumulator rows a ring plan's windows reach (tile_ring): up to the highest.
static uint32_t ring_peak(const MachOp *op, const Arch *a) {
  uint64_t nm = tile_m_count(op, &op->plan), nN = (op->N + a->cols - 1) / a->cols, top = 0;
  RingWin *w = malloc(nm * nN * sizeof *w);
  int placed = w && !tile_ring(op, &op->plan, a, w);
  for (uint64_t i = 0; placed && i < nm; i++)
    for (uint64_t j = 0; j < nN; j++) {
      uint64_t hi = w[i * nN + j].lo + (uint64_t)tile_m_at(op, &op->plan, i).acc_rows;
      if (hi > top) top = hi;
    }
  free(w);
  return placed ? (uint32_t)top : a->acc_rows;
}

static void onchip_peaks(const MachProg *mp, MemPlan *m) {
  const Arch *a = mp->arch;
  for (int i = 0; i < mp->n_ops; i++) {
    const MachOp *op = &mp->ops[i];
    uint32_t acc = 0;
    uint64_t nm = tile_m_count(op, &op->plan);
    for (uint64_t k = 0; k < nm && k < 64; k++) {
      uint32_t r = tile_m_at(op, &op->plan, k).acc_rows;
      if (r > acc) acc = r;
    }
    uint32_t use[4] = {0, 0, acc, 3};
    switch (op->kind) {
    case MOP_GEMM:
      use[2] = acc * op->plan.g;
      use[3] = 3 * op->plan.g;
      switch (op->df) {
      case DF_IS:   // inputs in WBUF, weights in SPAD
        use[0] = op->plan.kc * op->plan.g * a->cols;
        use[1] = (acc + a->cols - 1) / a->cols * op->plan.kc * a->rows;
        break;
      case DF_WS: case DF_OS:
        use[0] = acc * op->plan.kc;
        use[1] = op->plan.g * op->plan.kc * a->rows;
        break;
      }
      break;
    case MOP_ELT:   // the inputs accumulate in ACC; three PARAM rows (SFU ops: lower_sfu.c)
      use[2] = (uint32_t)lower_sfu_acc_rows(op, acc, a->cols);
      use[3] = lower_sfu_param_rows(op, a->cols);
      break;
    }
    if (op->plan.ring) use[2] = ring_peak(op, a);   // (the ring's windows span both slots: one)
    for (int k = 0; k < 4; k++) {
      uint32_t slots = k == 3 && op->kind == MOP_ELT && lower_sfu_params_once(op) ? 1 : op->plan.slots;
      if (k == 2 && op->plan.ring) slots = 1;
      if (use[k] * slots > m->onchip_peak[k]) m->onchip_peak[k] = use[k] * slots;
    }
  }
}

// ---- the global buffer: cross-layer fusion ----------------------------------------------------
//
// An activation that a layer stores and the next ones load can stay on chip, in the global buffer,
// when it fits (docs/COMPILER.md "Fusion"). The value of a tensor there is the DRAM traffic it
// saves: its writers' STORE bytes and its readers' LOAD bytes under their plans (an im2col gather
// reads a byte once per kernel tap, again per N group when K takes several chunks); its cost is
// its bytes (halo included, rounded up to the buffer's beat). Tensors are taken by saved bytes
// per buffer byte, best first, each at the lowest address where it overlaps no tensor alive at
// the same time. Reuse follows the DRAM rule: where two tensors share bytes at different times,
// the later one, if it has a zero halo, must sit at the exact place of one with its layout
// (whose interior is its interior: nobody wrote its halo), since the buffer is zero only at reset.
// Network inputs and outputs stay in DRAM (the host reads and writes them there).

static int fuse_eligible(const MachProg *mp, int i) {
  const DTensor *t = &mp->tensors[i];
  return t->alias < 0 && t->role == ROLE_SCRATCH && t->first_op >= 0 && t->last_op < mp->n_ops;
}

static uint64_t gbuf_size(const DTensor *t, uint32_t B) { return cdiv(dt_bytes(t), B) * B; }

static int live_overlap(const DTensor *x, const DTensor *y) {
  return !(x->last_op < y->first_op || y->last_op < x->first_op);
}

// Whether t fits at GBUF byte `at` beside the tensors placed so far: 0 no (it shares bytes with
// one alive at the same time), 1 yes, 2 yes but a halo must then be zeroed (t's, or that of a
// later tensor sharing its bytes, which t's writes dirty).
static int gbuf_fits(const MachProg *mp, const int *placed, int np, int ti, uint64_t at, uint32_t B) {
  const DTensor *t = &mp->tensors[ti];
  uint64_t end = at + gbuf_size(t, B);
  int dirty = 0;
  if (end > mp->arch->gbuf_bytes) return 0;
  for (int k = 0; k < np; k++) {
    const DTensor *u = &mp->tensors[placed[k]];
    uint64_t ue = u->gbuf_base + gbuf_size(u, B);
    if (ue <= at || end <= u->gbuf_base) continue;   // no byte in common
    if (live_overlap(t, u)) return 0;
    const DTensor *later = t->first_op > u->last_op ? t : u, *earlier = later == t ? u : t;
    if (has_halo(later) && !(same_layout(later, earlier) && u->gbuf_base == at)) dirty = 1;
  }
  return 1 + dirty;
}

// A tensor with a halo needs it zeroed when an earlier tensor wrote any of its bytes, unless that
// one had its layout and its place (its writes were the same interior bytes).
static void mark_zeroing(MachProg *mp, const int *placed, int np, uint32_t B) {
  for (int k = 0; k < np; k++) {
    DTensor *t = &mp->tensors[placed[k]];
    t->gbuf_zero = 0;
    if (!has_halo(t)) continue;
    for (int j = 0; j < np; j++) {
      const DTensor *u = &mp->tensors[placed[j]];
      if (u == t || u->last_op >= t->first_op) continue;
      if (u->gbuf_base + gbuf_size(u, B) <= t->gbuf_base || t->gbuf_base + gbuf_size(t, B) <= u->gbuf_base) continue;
      if (!(same_layout(t, u) && u->gbuf_base == t->gbuf_base)) t->gbuf_zero = 1;
    }
  }
}

static void fuse_count(MachProg *mp) {
  for (int i = 0; i < mp->n_tensors; i++) mp->tensors[i].fuse_rd = mp->tensors[i].fuse_wr = 0;
  for (int o = 0; o < mp->n_ops; o++) {
    const MachOp *op = &mp->ops[o];
    for (int k = 0; k < op->n_in; k++) mp->tensors[dt_owner(mp, op->in[k].t)].fuse_rd += tile_in_bytes(op, mp->arch, k);
    mp->tensors[dt_owner(mp, op->out.t)].fuse_wr += tile_out_bytes(op);
  }
}

typedef struct {
  int t;
  double value;   // saved bytes per GBUF byte
} FuseCand;

static int cmp_cand(const void *x, const void *y) {
  const FuseCand *a = x, *b = y;
  if (a->value != b->value) return a->value > b->value ? -1 : 1;
  return a->t - b->t;
}

static void mark_ops(MachProg *mp) {
  for (int o = 0; o < mp->n_ops; o++) {
    MachOp *op = &mp->ops[o];
    op->fuse_rd = op->fuse_wr = 0;
    for (int k = 0; k < 2; k++) {
      op->in_gbuf[k] = k < op->n_in && mp->tensors[dt_owner(mp, op->in[k].t)].gbuf;
      if (op->in_gbuf[k]) op->fuse_rd += tile_in_bytes(op, mp->arch, k);
    }
    op->out_gbuf = mp->tensors[dt_owner(mp, op->out.t)].gbuf;
    if (op->out_gbuf) op->fuse_wr = tile_out_bytes(op);
  }
}

int memplan_fuse(MachProg *mp, Diag *d) {
  const Arch *a = mp->arch;
  for (int i = 0; i < mp->n_tensors; i++) mp->tensors[i].gbuf = mp->tensors[i].gbuf_zero = 0;
  fuse_count(mp);
  int np = 0, nc = 0;
  if (mp->fuse_layers && a->gbuf_bytes) {
    uint32_t B = a->gbuf_bus_bytes ? a->gbuf_bus_bytes : 1;
    FuseCand *c = calloc((size_t)mp->n_tensors + 1, sizeof *c);
    int *placed = calloc((size_t)mp->n_tensors + 1, sizeof *placed);
    uint64_t *starts = calloc(2 * (size_t)mp->n_tensors + 2, sizeof *starts);
    if (!c || !placed || !starts) {
      free(c), free(placed), free(starts);
      return diag_error(d, "sacc: error: out of memory");
    }
    for (int i = 0; i < mp->n_tensors; i++) {
      const DTensor *t = &mp->tensors[i];
      if (!fuse_eligible(mp, i) || gbuf_size(t, B) > a->gbuf_bytes || !(t->fuse_rd + t->fuse_wr)) continue;
      c[nc].t = i, c[nc].value = (double)(t->fuse_rd + t->fuse_wr) / (double)gbuf_size(t, B);
      nc++;
    }
    qsort(c, (size_t)nc, sizeof *c, cmp_cand);
    for (int k = 0; k < nc; k++) {
      DTensor *t = &mp->tensors[c[k].t];
      // Where it may start: 0, the end of a tensor placed beside it, the start of one (its
      // layout's block), lowest first.
      int ns = 0;
      starts[ns++] = 0;
      for (int j = 0; j < np; j++) {
        const DTensor *u = &mp->tensors[placed[j]];
        starts[ns++] = u->gbuf_base + gbuf_size(u, B);
        starts[ns++] = u->gbuf_base;
      }
      // (the lowest place that needs no zeroing, else the lowest one)
      uint64_t best = UINT64_MAX, clean = UINT64_MAX;
      for (int j = 0; j < ns; j++) {
        int fit = gbuf_fits(mp, placed, np, c[k].t, starts[j], B);
        if (fit && starts[j] < best) best = starts[j];
        if (fit == 1 && starts[j] < clean) clean = starts[j];
      }
      if (clean != UINT64_MAX) best = clean;
      if (best == UINT64_MAX) continue;
      t->gbuf = 1, t->gbuf_base = best;
      placed[np++] = c[k].t;
    }
    mark_zeroing(mp, placed, np, B);
    free(c), free(placed), free(starts);
  }
  mark_ops(mp);
  return np;
}

int memplan_run(MachProg *mp, MemPlan *m, Diag *d) {
  const Arch *a = mp->arch;
  memset(m, 0, sizeof *m);
  uint64_t at = 0;
  for (int i = 0; i < mp->n_ops; i++) {
    MachOp *op = &mp->ops[i];
    op->w_addr = at;
    at = align_up(at + memplan_weight_bytes(op, a, op->df));
    op->p_addr = at;
    at = align_up(at + memplan_param_bytes(op, a));
  }
  m->const_bytes = at;
  for (int i = 0; i < mp->n_tensors; i++) {
    DTensor *t = &mp->tensors[i];
    if (t->role != ROLE_INPUT || t->alias >= 0) continue;
    place(t, at);
    at = align_up(at + dt_bytes(t));
  }
  m->input_bytes = at - m->const_bytes;
  mp->zero_addr = 0;
  for (int i = 0; i < mp->n_tensors; i++)
    if (mp->tensors[i].gbuf && mp->tensors[i].gbuf_zero && !mp->zero_addr) {   // GBUF halos' zeros
      mp->zero_addr = at;
      at = align_up(at + a->cols);
      m->input_bytes = at - m->const_bytes;   // (counted with the inputs: bytes nobody writes)
    }
  Heap h = {.top = at};
  int rc = 0;
  for (int o = 0; o < mp->n_ops && !rc; o++) {
    for (int i = 0; i < mp->n_tensors && !rc; i++) {
      DTensor *t = &mp->tensors[i];
      if (t->alias >= 0 || t->role == ROLE_INPUT || t->first_op != o) continue;
      if (t->gbuf) {   // memplan_fuse placed it in the global buffer
        place(t, t->gbuf_base);
        continue;
      }
      uint64_t base;
      rc = heap_alloc(&h, mp, i, &base);
      place(t, base);
      m->act_total_bytes += align_up(dt_bytes(t));
      if (h.top - at > m->act_peak_bytes) m->act_peak_bytes = h.top - at;
    }
    for (int i = 0; i < mp->n_tensors && !rc; i++) {
      DTensor *t = &mp->tensors[i];
      if (t->alias >= 0 || t->role == ROLE_INPUT || t->last_op != o || t->gbuf) continue;
      rc = heap_free(&h, mp, i);
    }
  }
  free(h.v);
  if (rc) return diag_error(d, "sacc: error: out of memory");
  for (int i = 0; i < mp->n_tensors; i++) {
    DTensor *t = &mp->tensors[i];
    if (t->alias >= 0) {
      const DTensor *o = &mp->tensors[dt_owner(mp, i)];
      t->base = o->base, t->addr = o->addr;
    }
  }
  m->dram_top = at + m->act_peak_bytes;
  for (int i = 0; i < mp->n_tensors; i++) {
    const DTensor *t = &mp->tensors[i];
    if (t->alias >= 0 || !t->gbuf) continue;
    uint32_t B = a->gbuf_bus_bytes ? a->gbuf_bus_bytes : 1;
    m->gbuf_tensors++, m->gbuf_saved_rd += t->fuse_rd, m->gbuf_saved_wr += t->fuse_wr;
    if (t->gbuf_base + gbuf_size(t, B) > m->gbuf_top) m->gbuf_top = t->gbuf_base + gbuf_size(t, B);
  }
  if (m->dram_top > a->dram_bytes)
    return diag_error(d, "sacc: error: the program needs %llu bytes of DRAM (constants %llu, inputs %llu, "
                         "activations %llu at peak) but arch \"%s\" has dram.bytes=%llu",
                      (unsigned long long)m->dram_top, (unsigned long long)m->const_bytes,
                      (unsigned long long)m->input_bytes, (unsigned long long)m->act_peak_bytes, a->name,
                      (unsigned long long)a->dram_bytes);
  onchip_peaks(mp, m);
  return 0;
}

void memplan_dump(const MachProg *mp, const MemPlan *m, FILE *f) {
  fprintf(f, "# memplan: constants %llu B, inputs %llu B, activations %llu B at peak (%llu B without reuse), "
             "DRAM top 0x%llx\n",
          (unsigned long long)m->const_bytes, (unsigned long long)m->input_bytes,
          (unsigned long long)m->act_peak_bytes, (unsigned long long)m->act_total_bytes,
          (unsigned long long)m->dram_top);
  for (int i = 0; i < mp->n_ops; i++)
    fprintf(f, "op %d %s: weights 0x%llx (%llu B), params 0x%llx\n", i, mp->ops[i].what,
            (unsigned long long)mp->ops[i].w_addr, (unsigned long long)memplan_weight_bytes(&mp->ops[i], mp->arch, mp->ops[i].df),
            (unsigned long long)mp->ops[i].p_addr);
  for (int i = 0; i < mp->n_tensors; i++) {
    const DTensor *t = &mp->tensors[i];
    fprintf(f, "tensor %s: %s0x%llx..0x%llx (element 0 at 0x%llx), live ops %d..%d\n", t->name,
            mp->tensors[dt_owner(mp, i)].gbuf ? "GBUF " : "",
            (unsigned long long)t->base, (unsigned long long)(t->base + dt_bytes(&mp->tensors[dt_owner(mp, i)])),
            (unsigned long long)t->addr, t->first_op, t->last_op);
  }
  fprintf(f, "on-chip peak rows: spad %u, wbuf %u, acc %u, param %u\n", m->onchip_peak[0], m->onchip_peak[1],
          m->onchip_peak[2], m->onchip_peak[3]);
}

void memplan_fuse_dump(const MachProg *mp, FILE *f) {
  const Arch *a = mp->arch;
  uint32_t B = a->gbuf_bus_bytes ? a->gbuf_bus_bytes : 1;
  uint64_t rd = 0, wr = 0, n = 0, top = 0;
  for (int i = 0; i < mp->n_tensors; i++) {
    const DTensor *t = &mp->tensors[i];
    if (!t->gbuf) continue;
    rd += t->fuse_rd, wr += t->fuse_wr, n++;
    if (t->gbuf_base + gbuf_size(t, B) > top) top = t->gbuf_base + gbuf_size(t, B);
  }
  fprintf(f, "# fusion: gbuf.bytes %u (beat %u B)%s: %llu activations in the GBUF (top 0x%llx), DRAM saved "
             "%llu B read + %llu B written (the LOAD and STORE bytes of the plans without fusion)\n",
          a->gbuf_bytes, B, !mp->fuse_layers ? ", --no-fuse-layers" : "", (unsigned long long)n,
          (unsigned long long)top, (unsigned long long)rd, (unsigned long long)wr);
  for (int i = 0; i < mp->n_tensors; i++) {
    const DTensor *t = &mp->tensors[i];
    if (t->alias >= 0) continue;
    const char *why = "";
    if (t->gbuf) why = "";
    else if (t->role == ROLE_INPUT || t->role == ROLE_OUTPUT || !fuse_eligible(mp, i)) why = " (network input or output)";
    else if (!mp->fuse_layers || !a->gbuf_bytes) why = "";
    else if (gbuf_size(t, B) > a->gbuf_bytes) why = " (larger than the GBUF)";
    else why = " (no room beside the tensors alive with it)";
    double per = (double)(t->fuse_rd + t->fuse_wr) / (double)gbuf_size(t, B);
    fprintf(f, "fuse %s: %s, %llu B, saves %llu B read + %llu B written (%.2f per GBUF byte), live ops %d..%d",
            t->name, t->gbuf ? "GBUF" : "DRAM", (unsigned long long)gbuf_size(t, B), (unsigned long long)t->fuse_rd,
            (unsigned long long)t->fuse_wr, per, t->first_op, t->last_op);
    if (t->gbuf) fprintf(f, ", GBUF 0x%llx%s\n", (unsigned long long)t->gbuf_base, t->gbuf_zero ? ", halo zeroed" : "");
    else fprintf(f, "%s\n", why);
  }
  // Per layer: the DRAM bytes its LOADs and STOREs no longer move.
  for (int l = 0; l < mp->n_layers; l++) {
    uint64_t lr = 0, lw = 0;
    for (int o = 0; o < mp->n_ops; o++)
      if (mp->ops[o].layer == l) lr += mp->ops[o].fuse_rd, lw += mp->ops[o].fuse_wr;
    if (lr || lw)
      fprintf(f, "fuse layer %s: DRAM saved %llu B read, %llu B written\n", mp->layer_names[l], (unsigned long long)lr,
              (unsigned long long)lw);
  }
}
