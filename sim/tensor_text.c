// tensor_text.c: `sasim run --print`: a tensor as text, laid out as numpy's str() lays it out
// (see tensor_text.h). Comparing with a reference is tensor_expect.c's.
#include "tensor_text.h"

#include <string.h>

#include "../isa/names.h"

typedef struct {
  FILE *f;
  const TensorInfo *t;
  const void *data;
  int summarize;   // 1: axes longer than 2 * TENSOR_EDGE_ITEMS show their ends only
  int width;       // characters of the widest value shown
  int col;         // column of the next character on the current line
} Printer;

static int64_t element(const TensorInfo *t, const void *data, uint64_t i) {
  if (t->dtype == DT_INT8) return ((const int8_t *)data)[i];
  int32_t v;
  memcpy(&v, (const uint8_t *)data + 4 * i, 4);
  return v;
}

// Whether entry i of an axis of n entries is shown, and whether the "..." comes right after it.
static int shown(const Printer *p, uint32_t n, uint32_t i) {
  return !p->summarize || n <= 2 * TENSOR_EDGE_ITEMS || i < TENSOR_EDGE_ITEMS || i >= n - TENSOR_EDGE_ITEMS;
}
static int gap_after(const Printer *p, uint32_t n, uint32_t i) {
  return p->summarize && n > 2 * TENSOR_EDGE_ITEMS && i == TENSOR_EDGE_ITEMS - 1;
}

static void put(Printer *p, const char *s) {
  fputs(s, p->f);
  p->col += (int)strlen(s);
}

static void newline(Printer *p, int blank_lines, int indent) {
  for (int i = 0; i <= blank_lines; i++) fputc('\n', p->f);
  fprintf(p->f, "%*s", indent, "");
  p->col = indent;
}

// One value (right-aligned to the widest) or "..." of the last axis, after a separator that wraps
// the line when the token would pass the line width less one column per closing bracket (numpy's
// rule, which keeps room for them after every value).
static void token(Printer *p, const char *s, int first, int pad, int indent) {
  int len = pad && p->width > (int)strlen(s) ? p->width : (int)strlen(s);
  if (!first) {
    if (p->col + 1 + len > TENSOR_LINE_WIDTH - (int)p->t->ndim) newline(p, 0, indent);
    else put(p, " ");
  }
  fprintf(p->f, "%*s", len, s);
  p->col += len;
}

// The sub-array of the given axis starting at element offset.
static void emit(Printer *p, uint32_t axis, uint64_t offset) {
  const TensorInfo *t = p->t;
  uint32_t n = t->dims[axis];
  uint64_t stride = 1;
  for (uint32_t k = axis + 1; k < t->ndim; k++) stride *= t->dims[k];
  put(p, "[");
  int first = 1;
  for (uint32_t i = 0; i < n; i++) {
    if (!shown(p, n, i)) continue;
    if (axis == t->ndim - 1) {
      char s[16];
      snprintf(s, sizeof s, "%lld", (long long)element(t, p->data, offset + i));
      token(p, s, first, 1, (int)axis + 1);
      if (gap_after(p, n, i)) token(p, "...", 0, 0, (int)axis + 1);
    } else {
      if (!first) newline(p, (int)(t->ndim - axis - 2), (int)axis + 1);
      emit(p, axis + 1, offset + i * stride);
      if (gap_after(p, n, i)) {
        newline(p, (int)(t->ndim - axis - 2), (int)axis + 1);
        put(p, "...");
      }
    }
    first = 0;
  }
  put(p, "]");
}

int tensor_print(FILE *f, const TensorInfo *t, const void *data) {
  Printer p = {f, t, data, 0, 1, 0};
  uint64_t count = 1, count_shown = 1;
  for (uint32_t k = 0; k < t->ndim; k++) count *= t->dims[k];
  p.summarize = count > TENSOR_PRINT_THRESHOLD;
  for (uint32_t k = 0; k < t->ndim; k++)
    count_shown *= p.summarize && t->dims[k] > 2 * TENSOR_EDGE_ITEMS ? 2 * TENSOR_EDGE_ITEMS : t->dims[k];
  // The width of the widest value shown: walk the shown elements (all of them when not summarized).
  for (uint64_t i = 0; i < count; i++) {
    uint64_t rest = i;
    int in = 1;
    for (uint32_t k = t->ndim; k-- > 0 && in;) {
      in = shown(&p, t->dims[k], (uint32_t)(rest % t->dims[k]));
      rest /= t->dims[k];
    }
    if (!in) continue;
    char s[16];
    int w = snprintf(s, sizeof s, "%lld", (long long)element(t, data, i));
    if (w > p.width) p.width = w;
  }
  char name[4 * PROG_NAME_MAX];
  fprintf(f, "%s: %s [", name_escape(t->name, name, sizeof name), t->dtype == DT_INT8 ? "int8" : "int32");
  for (uint32_t k = 0; k < t->ndim; k++) fprintf(f, "%s%u", k ? "," : "", t->dims[k]);
  fprintf(f, "]");
  if (p.summarize)
    fprintf(f, " (%llu elements, %llu shown: each axis longer than %d shows its first and last %d)",
            (unsigned long long)count, (unsigned long long)count_shown, 2 * TENSOR_EDGE_ITEMS, TENSOR_EDGE_ITEMS);
  fputc('\n', f);
  emit(&p, 0, 0);
  fputc('\n', f);
  return ferror(f) ? -1 : 0;
}
