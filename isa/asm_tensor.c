// asm_tensor.c: the .tensor directive of the assembler (docs/ASM.md):
//   .tensor NAME dtype=int8|int32 shape=[d0,...] addr=A role=input|output|const|scratch
//           [strides=[s0,...]] [scale=F] [data=zeros|seed:N|[v0,...]|file.npy]
// declares a TensorInfo and, with data=, adds its initial DRAM contents as one data chunk
// (dense tensors only). seed:N fills the tensor from splitmix64 (asm_seed_fill).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_expr.h"
#include "asm_lex.h"
#include "grow.h"
#include "npy.h"

enum { TK_DTYPE, TK_SHAPE, TK_ADDR, TK_ROLE, TK_STRIDES, TK_SCALE, TK_DATA, TK_COUNT };
static const char *const tensor_keys[TK_COUNT] = {"dtype", "shape", "addr", "role", "strides", "scale", "data"};
static const char *const role_names[] = {NULL, "input", "output", "const", "scratch"};

// ---- the name index: open addressing, linear probing, FNV-1a ----

static uint64_t name_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

const TensorInfo *asm_find_tensor(const Asm *a, const char *name) {
  if (!a->n_tensor_slots) return NULL;
  size_t mask = a->n_tensor_slots - 1;
  for (size_t s = (size_t)name_hash(name) & mask;; s = (s + 1) & mask) {
    uint32_t v = a->tensor_slot[s];
    if (!v) return NULL;
    if (!strcmp(a->p->tensors[v - 1].name, name)) return &a->p->tensors[v - 1];
  }
}

static void slot_put(uint32_t *slot, size_t mask, const char *name, uint32_t v) {
  size_t s = (size_t)name_hash(name) & mask;
  while (slot[s]) s = (s + 1) & mask;
  slot[s] = v;
}

// Indexes the last tensor of a->p (just added). 0, or -1 when out of memory.
static int index_last_tensor(Asm *a) {
  uint32_t n = a->p->n_tensors;
  if ((size_t)n * 2 > a->n_tensor_slots) {   // keep the load at most 1/2
    size_t ns = grow_cap(a->n_tensor_slots, (size_t)n * 2, 64, sizeof *a->tensor_slot, SIZE_MAX);
    uint32_t *slot = ns ? calloc(ns, sizeof *slot) : NULL;
    if (!slot) return -1;
    for (uint32_t i = 0; i + 1 < n; i++) slot_put(slot, ns - 1, a->p->tensors[i].name, i + 1);
    free(a->tensor_slot);
    a->tensor_slot = slot;
    a->n_tensor_slots = ns;
  }
  slot_put(a->tensor_slot, a->n_tensor_slots - 1, a->p->tensors[n - 1].name, n);
  return 0;
}

// splitmix64 (Steele, Lea, Flood 2014): the generator behind data=seed:N.
static uint64_t splitmix64_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Writes element e (row-major index) of a dense tensor.
static void put_elem(uint8_t *buf, DType dt, uint64_t e, int64_t v) {
  if (dt == DT_INT8) {
    buf[e] = (uint8_t)v;
  } else {
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++) buf[4 * e + (uint64_t)i] = (uint8_t)(u >> (8 * i));
  }
}

static int64_t dtype_min(DType dt) { return dt == DT_INT8 ? -128 : INT32_MIN; }
static int64_t dtype_max(DType dt) { return dt == DT_INT8 ? 127 : INT32_MAX; }
static const char *dtype_name(DType dt) { return dt == DT_INT8 ? "int8" : "int32"; }

static int data_list(Asm *a, const TensorInfo *t, Tok v, uint64_t count, uint8_t *buf) {
  ListIter it;
  Tok item;
  int r;
  uint64_t n = 0;
  if (list_begin(a, v, "data", &it)) return -1;
  while ((r = list_next(a, &it, &item)) == 1) {
    int64_t x;
    if (n == count)
      return asm_error(a, item.col, "more than %llu values for tensor '%s'", (unsigned long long)count, t->name);
    if (tok_int(a, item, "data", &x)) return -1;
    if (x < dtype_min(t->dtype) || x > dtype_max(t->dtype))
      return asm_error(a, item.col, "value %lld does not fit %s", (long long)x, dtype_name(t->dtype));
    put_elem(buf, t->dtype, n++, x);
  }
  if (r < 0) return -1;
  if (n != count)
    return asm_error(a, v.col, "%llu values given, tensor '%s' has %llu elements", (unsigned long long)n, t->name,
                     (unsigned long long)count);
  return 0;
}

// Element i of an npy array as an exact integer; 0, or -1 when it has none (non-integral float).
static int npy_elem(const NpyArray *arr, uint64_t i, int64_t *v) {
  switch (arr->type) {
  case NPY_I8: *v = ((const int8_t *)arr->data)[i]; return 0;
  case NPY_U8: *v = ((const uint8_t *)arr->data)[i]; return 0;
  case NPY_I16: *v = ((const int16_t *)arr->data)[i]; return 0;
  case NPY_I32: *v = ((const int32_t *)arr->data)[i]; return 0;
  case NPY_I64: *v = ((const int64_t *)arr->data)[i]; return 0;
  case NPY_F32:
  case NPY_F64: {
    double x = arr->type == NPY_F32 ? (double)((const float *)arr->data)[i] : ((const double *)arr->data)[i];
    if (!(x >= -2147483648.0 && x <= 2147483647.0) || x != floor(x)) return -1;
    *v = (int64_t)x;
    return 0;
  }
  }
  return -1;
}

static int data_npy(Asm *a, const TensorInfo *t, Tok v, uint64_t count, uint8_t *buf) {
  char rel[1024];
  if (tok_name(a, v, "data file name", 0, rel, sizeof rel)) return -1;
  char *path = asm_path(a, v.col, rel);
  if (!path) return -1;
  Diag inner;
  diag_init(&inner);
  NpyArray arr;
  int rc = npy_read(path, &arr, &inner);
  free(path);
  if (rc) return asm_nested_error(a, v.col, "bad data", &inner);
  int same = arr.ndim == t->ndim;
  for (uint32_t i = 0; same && i < t->ndim; i++) same = arr.dims[i] == t->dims[i];
  if (!same) {
    char got[200], want[200];
    size_t g = 0, w = 0;
    for (uint32_t i = 0; i < arr.ndim && g < sizeof got; i++)
      g += (size_t)snprintf(got + g, sizeof got - g, "%s%llu", i ? "," : "", (unsigned long long)arr.dims[i]);
    for (uint32_t i = 0; i < t->ndim && w < sizeof want; i++)
      w += (size_t)snprintf(want + w, sizeof want - w, "%s%u", i ? "," : "", t->dims[i]);
    if (!g) got[0] = 0;
    npy_free(&arr);
    return asm_error(a, v.col, "%s has shape [%s], tensor '%s' has shape [%s]", rel, got, t->name, want);
  }
  for (uint64_t i = 0; i < count; i++) {
    int64_t x;
    if (npy_elem(&arr, i, &x) || x < dtype_min(t->dtype) || x > dtype_max(t->dtype)) {
      npy_free(&arr);
      return asm_error(a, v.col, "%s: element %llu does not convert exactly to %s", rel, (unsigned long long)i,
                       dtype_name(t->dtype));
    }
    put_elem(buf, t->dtype, i, x);
  }
  npy_free(&arr);
  return 0;
}

// data=...: one chunk at the tensor's address, `size` bytes (dense layout).
static int tensor_data(Asm *a, const TensorInfo *t, Tok v) {
  TensorInfo dense = *t;
  prog_dense_strides(&dense);
  if (memcmp(dense.strides, t->strides, sizeof t->strides))
    return asm_error(a, v.col, "data= needs a dense tensor (strides= differ from the row-major ones); use .data");
  uint64_t count = 1;
  for (uint32_t i = 0; i < t->ndim; i++) count *= t->dims[i];   // fits: the span is inside DRAM
  uint64_t size = count * prog_dtype_size(t->dtype);
  if (asm_data_fits(a, v.col, t->addr, 0, size)) return -1;
  uint8_t *buf = calloc(size ? size : 1, 1);
  if (!buf) return asm_error(a, v.col, "out of memory");
  int rc = 0;
  if (v.s[0] == '[') {
    rc = data_list(a, t, v, count, buf);
  } else if (v.n > 5 && !strncmp(v.s, "seed:", 5)) {
    int64_t seed;
    rc = tok_int(a, (Tok){v.s + 5, v.n - 5, v.col + 5}, "seed", &seed);
    if (!rc && seed < 0) rc = asm_error(a, v.col + 5, "seed %lld is negative", (long long)seed);
    uint64_t state = (uint64_t)seed;
    for (uint64_t i = 0; !rc && i < count; i++) put_elem(buf, t->dtype, i, (int64_t)splitmix64_next(&state));
  } else if (!tok_is(v, "zeros")) {
    rc = data_npy(a, t, v, count, buf);
  }
  if (!rc) rc = asm_add_chunk(a, v.col, t->addr, buf, size);
  free(buf);
  return rc;
}

// A list of unsigned integers in [lo, hi]: shape or strides. Returns the count, or -1.
static int uint_list(Asm *a, Tok v, const char *what, int64_t lo, int64_t hi, uint64_t *out) {
  ListIter it;
  Tok item;
  int r, n = 0;
  if (list_begin(a, v, what, &it)) return -1;
  while ((r = list_next(a, &it, &item)) == 1) {
    int64_t x;
    if (n == PROG_MAX_DIMS) return asm_error(a, item.col, "more than %d dimensions in %s", PROG_MAX_DIMS, what);
    if (expr_eval(a, item.s, item.n, item.col, 0, what, &x, NULL)) return -1;
    if (x < lo || x > hi)
      return asm_error(a, item.col, "%s value %lld out of range [%lld, %lld]", what, (long long)x, (long long)lo,
                       (long long)hi);
    out[n++] = (uint64_t)x;
  }
  if (r < 0) return -1;
  if (n == 0) return asm_error(a, v.col, "empty %s", what);
  return n;
}

// Bytes from addr to the end of t's last element, saturating.
static uint64_t span_end(const TensorInfo *t) {
  uint64_t end = t->addr;
  for (uint32_t i = 0; i < t->ndim; i++) {
    uint64_t step = t->strides[i] && (uint64_t)(t->dims[i] - 1) > UINT64_MAX / t->strides[i]
                        ? UINT64_MAX
                        : (uint64_t)(t->dims[i] - 1) * t->strides[i];
    end = end > UINT64_MAX - step ? UINT64_MAX : end + step;
  }
  uint64_t es = prog_dtype_size(t->dtype);
  return end > UINT64_MAX - es ? UINT64_MAX : end + es;
}

static int tensor_fields(Asm *a, TensorInfo *t, const Tok *v, const int *have) {
  Tok dt = v[TK_DTYPE];
  if (tok_is(dt, "int8"))
    t->dtype = DT_INT8;
  else if (tok_is(dt, "int32"))
    t->dtype = DT_INT32;
  else
    return asm_error(a, dt.col, "unknown dtype '%.*s' (expected int8 or int32)", (int)dt.n, dt.s);
  t->role = 0;
  for (int r = ROLE_INPUT; r <= ROLE_SCRATCH; r++)
    if (tok_is(v[TK_ROLE], role_names[r])) t->role = (TensorRole)r;
  if (!t->role)
    return asm_error(a, v[TK_ROLE].col, "unknown role '%.*s' (expected input, output, const or scratch)",
                     (int)v[TK_ROLE].n, v[TK_ROLE].s);
  uint64_t dims[PROG_MAX_DIMS];
  int nd = uint_list(a, v[TK_SHAPE], "shape", 1, UINT32_MAX, dims);
  if (nd < 0) return -1;
  t->ndim = (uint32_t)nd;
  for (int i = 0; i < nd; i++) t->dims[i] = (uint32_t)dims[i];
  prog_dense_strides(t);
  if (have[TK_STRIDES]) {
    int ns = uint_list(a, v[TK_STRIDES], "strides", 0, INT64_MAX, t->strides);
    if (ns < 0) return -1;
    if (ns != nd) return asm_error(a, v[TK_STRIDES].col, "%d strides for %d dimensions", ns, nd);
  }
  int64_t addr;
  if (expr_eval(a, v[TK_ADDR].s, v[TK_ADDR].n, v[TK_ADDR].col, 0, "addr", &addr, NULL)) return -1;
  if (addr < 0) return asm_error(a, v[TK_ADDR].col, "addr %lld is negative", (long long)addr);
  t->addr = (uint64_t)addr;
  if (have[TK_SCALE]) {
    char num[64], *end;
    if (v[TK_SCALE].n >= sizeof num) return asm_error(a, v[TK_SCALE].col, "scale: number is too long");
    tok_cstr(v[TK_SCALE], num, sizeof num);
    t->scale = strtod(num, &end);
    if (end == num || *end || !isfinite(t->scale) || t->scale < 0)
      return asm_error(a, v[TK_SCALE].col, "scale: expected a finite number >= 0, got '%s'", num);
  }
  uint64_t end = span_end(t), dram = a->p->arch.dram_bytes;
  if (end > dram)
    return asm_error(a, v[TK_ADDR].col, "tensor '%s' spans DRAM bytes 0x%llx..0x%llx, beyond dram.bytes=0x%llx",
                     t->name, (unsigned long long)t->addr,
                     end == UINT64_MAX ? (unsigned long long)UINT64_MAX : (unsigned long long)(end - 1),
                     (unsigned long long)dram);
  return 0;
}

int asm_tensor(Asm *a) {
  a->arch_locked = 1;
  if (lex_at_end(a)) return asm_error(a, lex_col(a), "expected a tensor name after .tensor");
  Tok name;
  if (lex_value(a, &name)) return -1;
  TensorInfo t;
  memset(&t, 0, sizeof t);
  if (tok_name(a, name, "tensor name", 0, t.name, sizeof t.name)) return -1;
  if (asm_find_tensor(a, t.name)) return asm_error(a, name.col, "duplicate tensor '%s'", t.name);
  int64_t sv;
  if (sym_get(a, t.name, &sv)) return asm_error(a, name.col, "tensor name '%s' is a .set constant already", t.name);
  Tok v[TK_COUNT];
  int have[TK_COUNT] = {0};
  while (!lex_at_end(a)) {
    Tok key, val;
    if (lex_operand(a, &key, &val)) return -1;
    int k = 0;
    while (k < TK_COUNT && !tok_is(key, tensor_keys[k])) k++;
    if (k == TK_COUNT)
      return asm_error(a, key.col, "unknown .tensor key '%.*s' (keys: dtype shape addr role strides scale data)",
                       (int)key.n, key.s);
    if (have[k]) return asm_error(a, key.col, "duplicate key '%s'", tensor_keys[k]);
    have[k] = 1;
    v[k] = val;
  }
  for (int k = TK_DTYPE; k <= TK_ROLE; k++)
    if (!have[k]) return asm_error(a, name.col, "tensor '%s' lacks %s=", t.name, tensor_keys[k]);
  if (tensor_fields(a, &t, v, have)) return -1;
  if (prog_add_tensor(a->p, &t) || index_last_tensor(a)) return asm_error(a, name.col, "out of memory");
  return have[TK_DATA] ? tensor_data(a, &t, v[TK_DATA]) : 0;
}
