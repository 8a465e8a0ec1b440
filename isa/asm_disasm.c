// asm_disasm.c: the disassembler (asm.h: asm_disassemble). Prints a Program as assembly that
// assembles back to the same Program: .arch as canonical one-line JSON, .layer names, .tensor
// declarations (without data), every data chunk as a .data line continued by .bytes lines,
// then each instruction with all its format's fields in isa_fields.def order (docs/ASM.md).
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_lex.h"
#include "grow.h"

#define BYTES_PER_LINE 32

typedef struct {
  char *s;       // text so far, NUL-terminated
  size_t n, cap; // length and allocation
  int oom;       // an allocation failed
} Buf;

static void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(Buf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->oom = 1;
      return;
    }
    if ((size_t)k < b->cap - b->n) {
      b->n += (size_t)k;
      return;
    }
    size_t need = (size_t)k + 1 <= SIZE_MAX - b->n ? b->n + (size_t)k + 1 : SIZE_MAX;
    size_t nc = need < SIZE_MAX ? grow_cap(b->cap, need, 256, 1, SIZE_MAX) : 0;
    char *ns = nc ? realloc(b->s, nc) : NULL;
    if (!ns) {
      b->oom = 1;
      return;
    }
    b->s = ns;
    b->cap = nc;
  }
}

// A name bare when it reads back as itself, else as a quoted string with escapes.
static void put_name(Buf *b, const char *name) {
  if (asm_name_is_bare(name)) {
    buf_printf(b, "%s", name);
    return;
  }
  buf_printf(b, "\"");
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
    if (*c == '"' || *c == '\\') buf_printf(b, "\\%c", *c);
    else if (*c < 0x20 || *c >= 0x7f) buf_printf(b, "\\x%02x", *c);
    else buf_printf(b, "%c", *c);
  }
  buf_printf(b, "\"");
}

// The arch as one line of canonical JSON (arch_to_json, re-dumped compactly).
static void put_arch(Buf *b, const Arch *arch) {
  char *pretty = arch_to_json(arch);
  json_t *root = pretty ? json_loads(pretty, 0, NULL) : NULL;
  char *line = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17))
                    : NULL;
  if (line) buf_printf(b, ".arch %s\n", line);
  else b->oom = 1;
  free(line);
  json_decref(root);
  free(pretty);
}

// The shortest %g form of x that reads back as exactly x.
static void put_double(Buf *b, double x) {
  char s[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(s, sizeof s, "%.*g", prec, x);
    if (strtod(s, NULL) == x) break;
  }
  buf_printf(b, "%s", s);
}

static void put_tensor(Buf *b, const TensorInfo *t) {
  static const char *const roles[] = {"?", "input", "output", "const", "scratch"};
  buf_printf(b, ".tensor ");
  put_name(b, t->name);
  buf_printf(b, " dtype=%s shape=[", t->dtype == DT_INT32 ? "int32" : "int8");
  for (uint32_t i = 0; i < t->ndim; i++) buf_printf(b, "%s%u", i ? "," : "", t->dims[i]);
  buf_printf(b, "] addr=0x%llx role=%s", (unsigned long long)t->addr,
             t->role >= ROLE_INPUT && t->role <= ROLE_SCRATCH ? roles[t->role] : roles[0]);
  TensorInfo dense = *t;
  prog_dense_strides(&dense);
  if (memcmp(dense.strides, t->strides, t->ndim * sizeof t->strides[0])) {
    buf_printf(b, " strides=[");
    for (uint32_t i = 0; i < t->ndim; i++) buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)t->strides[i]);
    buf_printf(b, "]");
  }
  const double zero = 0.0;
  if (memcmp(&t->scale, &zero, sizeof zero)) {   // also prints -0.0
    buf_printf(b, " scale=");
    put_double(b, t->scale);
  }
  buf_printf(b, "\n");
}

static void put_chunk(Buf *b, const DataChunk *c) {
  buf_printf(b, ".data 0x%llx", (unsigned long long)c->addr);
  for (uint64_t i = 0; i < c->len; i++) {
    if (i && i % BYTES_PER_LINE == 0) buf_printf(b, "\n.bytes");
    buf_printf(b, " %02x", c->bytes[i]);
  }
  buf_printf(b, "\n");
}

static void put_insn(Buf *b, const Insn *in) {
  buf_printf(b, "%s", isa_ops[in->op].name);
  for (int f = 0; f < FLD_COUNT; f++) {
    if (f == FLD_OP || !isa_has_field(in->op, (FieldId)f)) continue;
    const FieldInfo *fi = &isa_fields[f];
    char lc[32];
    int64_t v = in->f[f];
    buf_printf(b, " %s=", asm_lower(fi->name, lc, sizeof lc));
    switch (fi->kind) {
    case K_E: {
      const char *sym = isa_enum_name(fi->eset, (unsigned)v);
      buf_printf(b, "%s", sym ? asm_lower(sym, lc, sizeof lc) : "?");
      break;
    }
    case K_UNITS:
      if (!v) buf_printf(b, "-");
      for (int u = 0, k = 0; u < NUM_UNITS; u++)
        if ((v >> u) & 1) buf_printf(b, "%s%s", k++ ? "|" : "", isa_unit_names[u]);
      break;
    case K_U:
    case K_S:
    case K_CNT:
      if (f == FLD_DRAM_ADDR)
        buf_printf(b, "0x%llx", (unsigned long long)v);
      else
        buf_printf(b, "%lld", (long long)v);
      break;
    }
  }
  buf_printf(b, "\n");
}

char *asm_insn_text(const Insn *in, char *out, size_t n) {
  Buf b = {0};
  put_insn(&b, in);
  snprintf(out, n, "%.*s", b.oom || !b.n ? 0 : (int)(b.n - 1), b.oom || !b.s ? "" : b.s);   // without the newline
  free(b.s);
  return out;
}

char *asm_disassemble(const Program *p) {
  Buf b = {malloc(4096), 0, 4096, 0};
  if (!b.s) return NULL;
  b.s[0] = 0;
  buf_printf(&b, "; %u instructions, %u tensors, %u data chunks, %u layers\n", p->n_insns, p->n_tensors,
             p->n_chunks, p->n_layers);
  put_arch(&b, &p->arch);
  for (uint32_t i = 0; i < p->n_layers; i++) {
    char name[PROG_NAME_MAX];
    memcpy(name, p->layer_names[i], PROG_NAME_MAX);
    name[PROG_NAME_MAX - 1] = 0;
    buf_printf(&b, ".layer ");
    put_name(&b, name);
    if (p->layer_macs) buf_printf(&b, " macs=%llu", (unsigned long long)p->layer_macs[i]);
    buf_printf(&b, "\n");
  }
  for (uint32_t i = 0; i < p->n_tensors; i++) put_tensor(&b, &p->tensors[i]);
  for (uint32_t i = 0; i < p->n_chunks; i++) put_chunk(&b, &p->chunks[i]);
  for (uint32_t i = 0; i < p->n_insns; i++) {
    Insn in = prog_insn(p, i);
    put_insn(&b, &in);
  }
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s;
}
