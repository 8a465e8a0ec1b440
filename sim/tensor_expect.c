// tensor_expect.c: `sasim run --expect`: a tensor compared with a reference .npy, dtype, shape and
// every value, with the first differing elements listed (see tensor_text.h). Printing a tensor
// is tensor_text.c's.
#include "tensor_text.h"

#include <string.h>

#include "../isa/names.h"
#include "../isa/npy.h"

static const char *npy_type_name(NpyType ty) {
  switch (ty) {
    case NPY_I8: return "int8";
    case NPY_U8: return "uint8";
    case NPY_I16: return "int16";
    case NPY_I32: return "int32";
    case NPY_I64: return "int64";
    case NPY_F32: return "float32";
    case NPY_F64: return "float64";
  }
  return "?";
}

static int64_t tensor_element(const TensorInfo *t, const void *data, uint64_t i) {
  if (t->dtype == DT_INT8) return ((const int8_t *)data)[i];
  int32_t v;
  memcpy(&v, (const uint8_t *)data + 4 * i, 4);
  return v;
}

// The index tuple of element i of t (C order) as "[i,j,...]".
static void index_text(const TensorInfo *t, uint64_t i, char *out, size_t cap) {
  uint64_t idx[PROG_MAX_DIMS];
  for (uint32_t k = t->ndim; k-- > 0;) {
    idx[k] = i % t->dims[k];
    i /= t->dims[k];
  }
  size_t n = (size_t)snprintf(out, cap, "[");
  for (uint32_t k = 0; k < t->ndim && n < cap; k++)
    n += (size_t)snprintf(out + n, cap - n, "%s%llu", k ? "," : "", (unsigned long long)idx[k]);
  if (n < cap) snprintf(out + n, cap - n, "]");
}

static void shape_text(FILE *f, const char *dtype, uint32_t ndim, const uint64_t *dims) {
  fprintf(f, "%s [", dtype);
  for (uint32_t k = 0; k < ndim; k++) fprintf(f, "%s%llu", k ? "," : "", (unsigned long long)dims[k]);
  fprintf(f, "]");
}

int tensor_expect(FILE *f, const TensorInfo *t, const void *data, const char *ref_path, Diag *d) {
  NpyArray ref;
  if (npy_read(ref_path, &ref, d)) return -1;
  char name[4 * PROG_NAME_MAX];
  name_escape(t->name, name, sizeof name);
  NpyType want = t->dtype == DT_INT8 ? NPY_I8 : NPY_I32;
  int same_shape = ref.ndim == t->ndim;
  for (uint32_t k = 0; k < t->ndim && same_shape; k++) same_shape = ref.dims[k] == t->dims[k];
  uint64_t count = ref.count;
  if (ref.type != want || !same_shape) {
    uint64_t dims[PROG_MAX_DIMS];
    for (uint32_t k = 0; k < t->ndim; k++) dims[k] = t->dims[k];
    fprintf(f, "expect %s: mismatch with %s: the tensor is ", name, ref_path);
    shape_text(f, t->dtype == DT_INT8 ? "int8" : "int32", t->ndim, dims);
    fprintf(f, ", the reference ");
    shape_text(f, npy_type_name(ref.type), ref.ndim, ref.dims);
    fprintf(f, "\n");
    npy_free(&ref);
    return 1;
  }
  uint64_t differ = 0;
  for (uint64_t i = 0; i < count; i++) {
    int64_t got = tensor_element(t, data, i);
    int64_t exp = tensor_element(t, ref.data, i);   // same dtype: the same layout
    differ += got != exp;
  }
  if (!differ) {
    fprintf(f, "expect %s: ok, %llu elements equal %s\n", name, (unsigned long long)count, ref_path);
    npy_free(&ref);
    return 0;
  }
  fprintf(f, "expect %s: mismatch with %s: %llu of %llu elements differ%s\n", name, ref_path,
          (unsigned long long)differ, (unsigned long long)count, differ > TENSOR_DIFF_SHOWN ? ", the first:" : ":");
  uint64_t listed = 0;
  for (uint64_t i = 0; i < count && listed < TENSOR_DIFF_SHOWN; i++) {
    int64_t got = tensor_element(t, data, i);
    int64_t exp = tensor_element(t, ref.data, i);   // same dtype: the same layout
    if (got == exp) continue;
    char idx[8 * 24];
    index_text(t, i, idx, sizeof idx);
    fprintf(f, "  %s: got %lld, expected %lld\n", idx, (long long)got, (long long)exp);
    listed++;
  }
  npy_free(&ref);
  return 1;
}
