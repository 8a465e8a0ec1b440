// program.c: building and freeing a Program in memory. The file format is in binfmt.c and the
// static checks in progcheck.c.
#include "program.h"

#include <stdlib.h>

#include "fileio.h"
#include "grow.h"
#include <string.h>

Program *prog_new(const Arch *arch) {
  Program *p = calloc(1, sizeof *p);
  if (p) p->arch = *arch;
  return p;
}

void prog_free(Program *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->n_chunks; i++)
    if (!p->chunks[i].in_store) free(p->chunks[i].bytes);
  if (p->data_store_map)
    file_unmap(p->data_store, p->data_store_map);
  else
    free(p->data_store);
  free(p->code);
  free(p->tensors);
  free(p->chunks);
  free(p->layer_names);
  free(p->layer_macs);
  free(p);
}

// Grows *arr (elements of size elem) so that index n fits. Returns 0 or -1.
// Counts are uint32 (the format's), so the capacity stops at UINT32_MAX and index UINT32_MAX fails.
static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem) {
  if (n < *cap) return 0;
  size_t nc = n < UINT32_MAX ? grow_cap(*cap, (size_t)n + 1, 16, elem, UINT32_MAX) : 0;
  if (!nc) return -1;
  void *na = realloc(*arr, nc * elem);
  if (!na) return -1;
  *arr = na;
  *cap = (uint32_t)nc;
  return 0;
}

int prog_reserve_insns(Program *p, uint32_t n) {
  return n ? grow((void **)&p->code, &p->cap_insns, n - 1, sizeof *p->code) : 0;
}

int prog_add_insn(Program *p, const Insn *in) {
  if (!isa_fields_fit(in) || grow((void **)&p->code, &p->cap_insns, p->n_insns, sizeof *p->code)) return -1;
  isa_encode(in, p->code[p->n_insns++].b);
  return 0;
}

int prog_set_insn(Program *p, uint32_t i, const Insn *in) {
  if (!isa_fields_fit(in)) return -1;
  isa_encode(in, p->code[i].b);
  return 0;
}

int prog_add_tensor(Program *p, const TensorInfo *t) {
  if (grow((void **)&p->tensors, &p->cap_tensors, p->n_tensors, sizeof *p->tensors)) return -1;
  p->tensors[p->n_tensors++] = *t;
  return 0;
}

int prog_add_data(Program *p, uint64_t addr, const void *bytes, uint64_t len) {
  if (grow((void **)&p->chunks, &p->cap_chunks, p->n_chunks, sizeof *p->chunks)) return -1;
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) return -1;
  if (len) memcpy(copy, bytes, len);
  p->chunks[p->n_chunks++] = (DataChunk){addr, len, copy, 0};
  return 0;
}

int prog_add_data_owned(Program *p, uint64_t addr, uint8_t *bytes, uint64_t len) {
  if (grow((void **)&p->chunks, &p->cap_chunks, p->n_chunks, sizeof *p->chunks)) return free(bytes), -1;
  p->chunks[p->n_chunks++] = (DataChunk){addr, len, bytes, 0};
  return 0;
}

int prog_add_stored_data(Program *p, uint64_t addr, uint8_t *bytes, uint64_t len) {
  if (grow((void **)&p->chunks, &p->cap_chunks, p->n_chunks, sizeof *p->chunks)) return -1;
  p->chunks[p->n_chunks++] = (DataChunk){addr, len, bytes, 1};
  return 0;
}

int prog_add_layer(Program *p, const char *name) {
  if (grow((void **)&p->layer_names, &p->cap_layers, p->n_layers, sizeof *p->layer_names)) return -1;
  memset(p->layer_names[p->n_layers], 0, PROG_NAME_MAX);
  strncpy(p->layer_names[p->n_layers], name, PROG_NAME_MAX - 1);
  if (p->layer_macs) {   // a declaration covers every layer: the new one declares 0 until set
    uint64_t *m = realloc(p->layer_macs, ((size_t)p->n_layers + 1) * sizeof *m);
    if (!m) return -1;
    m[p->n_layers] = 0;
    p->layer_macs = m;
  }
  p->n_layers++;
  return 0;
}

int prog_set_layer_macs(Program *p, const uint64_t *macs) {
  free(p->layer_macs);
  p->layer_macs = NULL;
  if (!macs) return 0;
  if (!(p->layer_macs = malloc((p->n_layers ? p->n_layers : 1) * sizeof *p->layer_macs))) return -1;
  if (p->n_layers) memcpy(p->layer_macs, macs, p->n_layers * sizeof *p->layer_macs);
  return 0;
}

size_t prog_dtype_size(DType dt) { return dt == DT_INT32 ? 4 : 1; }

void prog_dense_strides(TensorInfo *t) {
  uint64_t s = prog_dtype_size(t->dtype);
  for (int i = (int)t->ndim - 1; i >= 0; i--) {
    t->strides[i] = s;
    s *= t->dims[i];
  }
}

uint64_t prog_tensor_span(const TensorInfo *t) {
  uint64_t last = 0;
  for (uint32_t i = 0; i < t->ndim; i++) last += (uint64_t)(t->dims[i] - 1) * t->strides[i];
  return last + prog_dtype_size(t->dtype);
}

const TensorInfo *prog_find_tensor(const Program *p, const char *name) {
  for (uint32_t i = 0; i < p->n_tensors; i++)
    if (!strcmp(p->tensors[i].name, name)) return &p->tensors[i];
  return NULL;
}
