// sim.c: builds a machine for a program, moves tensors in and out of its DRAM, and dispatches
// to an engine (fast.c, detailed.c). Statistics are filled by the engines.
#include "sim_internal.h"

#include "pe_trace.h"

#include <stdlib.h>
#include <string.h>

Sim *sim_new(const Program *p, SimMode mode, Diag *d) {
  const Arch *a = &p->arch;
  // Programs from prog_load are checked already; ones built in memory are checked here, so no
  // engine ever sees an illegal instruction or an out-of-range address.
  if (arch_validate(a, "sim", d) || prog_check(p, "sim", d)) return NULL;
  Sim *s = calloc(1, sizeof *s);
  if (!s) {
    diag_error(d, "sim: error: out of memory");
    return NULL;
  }
  s->prog = p;
  s->arch = a;
  s->mode = mode;
  s->dram = calloc(1, a->dram_bytes);
  s->gbuf = calloc(1, a->gbuf_bytes ? a->gbuf_bytes : 1);
  s->spad = calloc((size_t)a->spad_rows * a->rows, 1);
  s->wbuf = calloc((size_t)a->wbuf_rows * a->cols, 1);
  s->acc = calloc((size_t)a->acc_rows * a->cols, sizeof(int32_t));
  s->param = calloc((size_t)a->param_rows * a->cols, sizeof(int32_t));
  s->bank[0] = calloc((size_t)a->rows * a->cols, 1);
  s->bank[1] = calloc((size_t)a->rows * a->cols, 1);
  s->times = calloc(p->n_insns ? p->n_insns : 1, sizeof *s->times);
  s->stats.n_layers = p->n_layers;
  s->stats.layers = calloc(p->n_layers + 1, sizeof *s->stats.layers);
  if (!s->dram || !s->gbuf || !s->spad || !s->wbuf || !s->acc || !s->param || !s->bank[0] || !s->bank[1] || !s->times ||
      !s->stats.layers) {
    sim_free(s);
    diag_error(d, "sim: error: out of memory (DRAM of %llu bytes)", (unsigned long long)a->dram_bytes);
    return NULL;
  }
  for (uint32_t i = 0; i < p->n_chunks; i++) {
    const DataChunk *c = &p->chunks[i];
    if (c->addr > a->dram_bytes || c->len > a->dram_bytes - c->addr) {
      sim_free(s);
      diag_error(d, "sim: error: data chunk %u lies outside DRAM", i);
      return NULL;
    }
    memcpy(s->dram + c->addr, c->bytes, c->len);
  }
  return s;
}

void sim_free(Sim *s) {
  if (!s) return;
  free(s->dram);
  free(s->gbuf);
  free(s->spad);
  free(s->wbuf);
  free(s->acc);
  free(s->param);
  free(s->bank[0]);
  free(s->bank[1]);
  free(s->times);
  free(s->stats.layers);
  pe_trace_free(s->pe_trace);
  free(s);
}

// Calls fn(dram_offset, dense_index) for every element of t, in row-major order.
static void for_each_element(const TensorInfo *t, void (*fn)(void *ctx, uint64_t off, uint64_t idx), void *ctx) {
  uint32_t idx[PROG_MAX_DIMS] = {0};
  uint64_t count = 1;
  for (uint32_t i = 0; i < t->ndim; i++) count *= t->dims[i];
  for (uint64_t n = 0; n < count; n++) {
    uint64_t off = t->addr;
    for (uint32_t i = 0; i < t->ndim; i++) off += idx[i] * t->strides[i];
    fn(ctx, off, n);
    for (int i = (int)t->ndim - 1; i >= 0; i--) {
      if (++idx[i] < t->dims[i]) break;
      idx[i] = 0;
    }
  }
}

typedef struct {
  uint8_t *dram;
  uint8_t *buf;
  size_t esize;
  int to_dram;
} CopyCtx;

static void copy_element(void *ctx, uint64_t off, uint64_t idx) {
  CopyCtx *c = ctx;
  if (c->to_dram)
    memcpy(c->dram + off, c->buf + idx * c->esize, c->esize);
  else
    memcpy(c->buf + idx * c->esize, c->dram + off, c->esize);
}

static uint64_t tensor_bytes(const TensorInfo *t) {
  uint64_t n = prog_dtype_size(t->dtype);
  for (uint32_t i = 0; i < t->ndim; i++) n *= t->dims[i];
  return n;
}

int sim_set_tensor(Sim *s, const char *name, const void *data, uint64_t bytes, Diag *d) {
  const TensorInfo *t = prog_find_tensor(s->prog, name);
  if (!t) return diag_error(d, "sim: error: the program has no tensor \"%s\"", name);
  if (bytes != tensor_bytes(t))
    return diag_error(d, "sim: tensor \"%s\": error: %llu bytes given, %llu expected", name,
                      (unsigned long long)bytes, (unsigned long long)tensor_bytes(t));
  CopyCtx c = {s->dram, (uint8_t *)(uintptr_t)data, prog_dtype_size(t->dtype), 1};
  for_each_element(t, copy_element, &c);
  return 0;
}

int sim_get_tensor(const Sim *s, const TensorInfo *t, void *out) {
  CopyCtx c = {s->dram, out, prog_dtype_size(t->dtype), 0};
  for_each_element(t, copy_element, &c);
  return 0;
}

int sim_add_observer(Sim *s, ArrayObserver *o, Diag *d) {
  if (s->n_obs == SIM_MAX_OBSERVERS) return diag_error(d, "sim: error: too many array observers");
  s->obs[s->n_obs++] = o;
  return 0;
}

int sim_set_pe_trace(Sim *s, FILE *f, Diag *d) {
  if (s->pe_trace) return diag_error(d, "sim: error: the PE trace is set already");
  s->pe_trace = pe_trace_new(f);
  if (!s->pe_trace) return diag_error(d, "sim: error: out of memory");
  if (sim_add_observer(s, pe_trace_observer(s->pe_trace), d)) {
    pe_trace_free(s->pe_trace);
    s->pe_trace = NULL;
    return -1;
  }
  return 0;
}

void sim_set_window(Sim *s, uint64_t from, uint64_t to) {
  s->win_from = from;
  s->win_to = to;
}
void sim_set_progress(Sim *s, FILE *f) { s->progress = f; }
void sim_set_max_cycles(Sim *s, uint64_t max_cycles) { s->max_cycles = max_cycles; }

int sim_cycle_limit_error(const Sim *s, Diag *d) {
  return diag_error(d, "sim: error: cycle limit %llu reached (--max-cycles)", (unsigned long long)s->max_cycles);
}

int sim_run(Sim *s, Diag *d) {
  if (s->ran) return diag_error(d, "sim: error: a machine runs its program once");
  s->ran = 1;
  return s->mode == SIM_FAST ? sim_fast_run(s, d) : sim_detailed_run(s, d);
}

const SimStats *sim_stats(const Sim *s) { return &s->stats; }
const InsnTime *sim_insn_times(const Sim *s) { return s->times; }
const uint8_t *sim_dram(const Sim *s) { return s->dram; }
const uint8_t *sim_gbuf(const Sim *s) { return s->gbuf; }
const Program *sim_program(const Sim *s) { return s->prog; }
