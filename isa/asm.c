// asm.c: the assembler (docs/ASM.md): reads the text line by line and builds a Program.
// Statements: instructions (MNEMONIC key=value ...), and the directives .arch, .layer, .data,
// .bytes here and .tensor in asm_tensor.c. Each instruction is checked as it is read
// (isa_check_fields, prog_check_insn) so errors point at its line; prog_check runs at the end.
// The scanner is asm_lex.c; the disassembler asm_disasm.c.
#include "asm.h"

#include "fileio.h"
#include "fileread.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archfind.h"
#include "asm_expr.h"
#include "asm_lex.h"
#include "suggest.h"

void asm_options_default(AsmOptions *o) {
  o->allow_files = 1;
  o->max_data_bytes = 0;
  o->max_rep_lines = 0;
  o->insn_lines = NULL;
}

// ---- Instruction operands ----

// "spad, wbuf, acc or param" for a message.
static void enum_choices(EnumSet set, char *buf, size_t cap) {
  size_t n = 0;
  int count = 0, k = 0;
  for (int i = 0; i < isa_num_enums; i++) count += isa_enums[i].set == set;
  buf[0] = 0;
  for (int i = 0; i < isa_num_enums && n < cap; i++) {
    if (isa_enums[i].set != set) continue;
    char lc[32];
    const char *sep = k == 0 ? "" : k == count - 1 ? " or " : ", ";
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, asm_lower(isa_enums[i].name, lc, sizeof lc));
    k++;
  }
}

static int parse_enum(Asm *a, FieldId f, Tok v, int64_t *out) {
  char sym[32], lc[32];
  int val = -1;
  if (v.n < sizeof sym) {
    tok_cstr(v, sym, sizeof sym);
    val = isa_enum_value(isa_fields[f].eset, sym);
  }
  if (val < 0) {
    char choices[128];
    enum_choices(isa_fields[f].eset, choices, sizeof choices);
    return asm_error(a, v.col, "unknown %s '%.*s' (expected %s)", asm_lower(isa_fields[f].name, lc, sizeof lc),
                     (int)v.n, v.s, choices);
  }
  *out = val;
  return 0;
}

// "-" or unit names joined by '|' or ','. The instruction's own unit is refused here, so the
// message points at it.
static int parse_units(Asm *a, Opcode op, FieldId f, Tok v, int64_t *out) {
  char lc[32];
  const char *fname = asm_lower(isa_fields[f].name, lc, sizeof lc);
  *out = 0;
  if (tok_is(v, "-")) return 0;
  int plain = 1;   // names joined by '|' or ','; anything else is an expression (load=1, compute=2, store=4, sfu=8)
  for (size_t k = 0; k < v.n && plain; k++)
    plain = (v.s[k] >= 'a' && v.s[k] <= 'z') || (v.s[k] >= 'A' && v.s[k] <= 'Z') || v.s[k] == '|' || v.s[k] == ',';
  if (!plain) {
    if (expr_eval(a, v.s, v.n, v.col, EXPR_UNITS, fname, out, NULL)) return -1;
    if (*out < 0 || *out > (1 << NUM_UNITS) - 1)
      return asm_error(a, v.col, "%s=%lld is not a set of units (load=1, compute=2, store=4, sfu=8, or their sum)", fname,
                       (long long)*out);
    if ((*out >> isa_ops[op].unit) & 1)
      return asm_error(a, v.col, "%s names its own unit: %s runs on the %s unit", fname, isa_ops[op].name,
                       isa_unit_names[isa_ops[op].unit]);
    return 0;
  }
  size_t i = 0;
  for (;;) {
    size_t start = i;
    while (i < v.n && v.s[i] != '|' && v.s[i] != ',') i++;
    Tok u = {v.s + start, i - start, v.col + (int)start};
    int unit = -1;
    for (int k = 0; k < NUM_UNITS; k++)
      if (tok_is(u, isa_unit_names[k])) unit = k;
    if (unit < 0)
      return asm_error(a, u.col, "unknown unit '%.*s' in %s (expected load, compute, store, sfu, joined by '|', or -)",
                       (int)u.n, u.s, fname);
    if ((*out >> unit) & 1) return asm_error(a, u.col, "unit '%s' named twice in %s", isa_unit_names[unit], fname);
    if ((int)isa_ops[op].unit == unit)
      return asm_error(a, u.col, "%s names its own unit: %s runs on the %s unit", fname, isa_ops[op].name,
                       isa_unit_names[unit]);
    *out |= 1 << unit;
    if (i >= v.n) return 0;
    i++;   // separator
  }
}

static int parse_field(Asm *a, Opcode op, FieldId f, Tok v, int64_t *out) {
  const FieldInfo *fi = &isa_fields[f];
  char lc[32];
  const char *fname = asm_lower(fi->name, lc, sizeof lc);
  if (v.s[0] == '[' || v.s[0] == '"')
    return asm_error(a, v.col, "%s: expected a number, got '%.*s'", fname, (int)v.n, v.s);
  switch (fi->kind) {
  case K_E: return parse_enum(a, f, v, out);
  case K_UNITS: return parse_units(a, op, f, v, out);
  case K_U:
  case K_S:
  case K_CNT: /* a number, checked against the field's range below */ break;
  }
  if (expr_eval(a, v.s, v.n, v.col, f == FLD_DRAM_ADDR ? EXPR_DRAM : 0, fname, out, NULL)) return -1;
  if (*out < isa_field_min(f) || *out > isa_field_max(f))
    return asm_error(a, v.col, "%s=%lld out of range [%lld, %lld]", fname, (long long)*out,
                     (long long)isa_field_min(f), (long long)isa_field_max(f));
  return 0;
}

// "pop, push, mem, ..." : the operands of a format, for messages.
static void operand_list(Opcode op, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (int f = 0; f < FLD_COUNT && n < cap; f++) {
    if (f == FLD_OP || !isa_has_field(op, (FieldId)f)) continue;
    char lc[32];
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? " " : "", asm_lower(isa_fields[f].name, lc, sizeof lc));
  }
  if (!n) snprintf(buf, cap, "none");
}

static int asm_insn(Asm *a, Tok mn) {
  char name[32];
  int op = -1;
  if (mn.n < sizeof name) {
    tok_cstr(mn, name, sizeof name);
    op = isa_op_by_name(name);
  }
  if (op < 0) {
    Suggest sg;
    suggest_init(&sg, mn.n < sizeof name ? name : "");
    for (int i = 0; i < ISA_NUM_OPCODES; i++) suggest_offer(&sg, isa_ops[i].name);
    const char *near = suggest_result(&sg);
    return asm_error(a, mn.col, "unknown mnemonic '%.*s'%s%s%s", (int)mn.n, mn.s, near ? " (did you mean " : "",
                     near ? near : "", near ? "?)" : "");
  }
  a->arch_locked = 1;
  Insn in;
  memset(&in, 0, sizeof in);
  in.op = (Opcode)op;
  uint64_t seen = 0;
  while (!lex_at_end(a)) {
    Tok key, val;
    if (lex_operand(a, &key, &val)) return -1;
    char kname[32];
    int f = -1;
    if (key.n < sizeof kname) {
      tok_cstr(key, kname, sizeof kname);
      f = isa_field_by_name(kname);
    }
    if (f < 0 || f == FLD_OP || !isa_has_field(in.op, (FieldId)f)) {
      char ops[256];
      operand_list(in.op, ops, sizeof ops);
      Suggest sg;   // among this instruction's operands, lower-case as written
      suggest_init(&sg, key.n < sizeof kname ? kname : "");
      char lcs[FLD_COUNT][32];
      for (int g = 0; g < FLD_COUNT; g++)
        if (g != FLD_OP && isa_has_field(in.op, (FieldId)g))
          suggest_offer(&sg, asm_lower(isa_fields[g].name, lcs[g], sizeof lcs[g]));
      const char *near = suggest_result(&sg);
      char mean[64] = "";
      if (near) snprintf(mean, sizeof mean, "did you mean %s?; ", near);
      return asm_error(a, key.col, "unknown operand '%.*s' for %s (%soperands: %s)", (int)key.n, key.s,
                       isa_ops[op].name, mean, ops);
    }
    if ((seen >> f) & 1) return asm_error(a, key.col, "duplicate operand '%.*s'", (int)key.n, key.s);
    seen |= 1ull << f;
    if (parse_field(a, in.op, (FieldId)f, val, &in.f[f])) return -1;
  }
  for (int f = 0; f < FLD_COUNT; f++) {
    char lc[32];
    if (isa_has_field(in.op, (FieldId)f) && isa_fields[f].kind == K_CNT && !((seen >> f) & 1))
      return asm_error(a, mn.col, "%s: missing operand %s", isa_ops[op].name,
                       asm_lower(isa_fields[f].name, lc, sizeof lc));
  }
  char where[512];
  snprintf(where, sizeof where, "%s:%d:%d", a->file, a->lineno, mn.col);
  Diag inner;   // its message is reported again through asm_error, which names the .rep iteration
  inner.count = 0;   // (not diag_init: an 8 KiB memset per instruction shows in large programs)
  if (prog_check_insn(a->p, &a->st, &in, where, &inner)) {   // includes isa_check_fields
    const char *m = diag_first(&inner);
    size_t w = strlen(where);
    if (!strncmp(m, where, w) && !strncmp(m + w, ": error: ", 9)) m += w + 9;
    return asm_error(a, mn.col, "%s", m);
  }
  if (prog_add_insn(a->p, &in)) return asm_error(a, mn.col, "out of memory");
  if (a->opt.insn_lines) {
    uint32_t i = a->p->n_insns - 1;
    if (i >= a->cap_insn_line) {
      uint32_t nc = a->cap_insn_line ? 2 * a->cap_insn_line : 256;
      uint32_t *nl = realloc(a->insn_line, nc * sizeof *nl);
      if (!nl) return asm_error(a, mn.col, "out of memory");
      a->insn_line = nl;
      a->cap_insn_line = nc;
    }
    a->insn_line[i] = (uint32_t)a->lineno;
  }
  a->last_insn_line = a->lineno;
  a->last_insn_col = mn.col;
  return 0;
}

// ---- Directives ----

// `.arch default`, `.arch tiny` (a shipped arch, isa/archfind.h), `.arch "path.json"` or `.arch {json}`
// (the JSON runs to its closing brace).
static int asm_arch(Asm *a, Tok dir) {
  if (a->arch_locked) return asm_error(a, dir.col, ".arch must come before any instruction, .tensor or .data");
  if (a->arch_set) return asm_error(a, dir.col, "duplicate .arch");
  Arch arch;
  Diag inner;
  diag_init(&inner);
  lex_at_end(a);
  int col = lex_col(a);
  if (a->pos < a->len && a->line[a->pos] == '{') {
    size_t start = a->pos, depth = 0;
    int in_str = 0;
    for (; a->pos < a->len; a->pos++) {
      char c = a->line[a->pos];
      if (in_str) {
        if (c == '\\') a->pos++;
        else if (c == '"') in_str = 0;
      } else if (c == '"') {
        in_str = 1;
      } else if (c == '{') {
        depth++;
      } else if (c == '}' && --depth == 0) {
        break;
      }
    }
    if (a->pos >= a->len) return asm_error(a, col, "unterminated inline arch JSON (it must fit on one line)");
    a->pos++;
    if (arch_parse(a->line + start, a->pos - start, "inline arch", &arch, &inner))
      return asm_nested_error(a, col, "bad arch", &inner);
  } else {
    Tok v;
    if (lex_value(a, &v)) return -1;
    if (tok_is(v, "default")) {
      arch_default(&arch);
    } else if (v.s[0] == '"') {
      char rel[1024];
      if (tok_name(a, v, "path", 0, rel, sizeof rel)) return -1;
      char *path = asm_path(a, v.col, rel);
      if (!path) return -1;
      int rc = arch_load_file(path, &arch, &inner);
      free(path);
      if (rc) return asm_nested_error(a, v.col, "bad arch", &inner);
    } else if (isalnum((unsigned char)v.s[0])) {   // a shipped arch's name: .arch tiny
      char name[64];
      if (v.n >= sizeof name) return asm_error(a, v.col, "arch name too long");
      tok_cstr(v, name, sizeof name);
      if (!a->opt.allow_files) return asm_error(a, v.col, "file access is disabled (.arch %s)", name);
      if (arch_load_shipped(name, &arch, &inner)) return asm_nested_error(a, v.col, "bad arch", &inner);
    } else {
      return asm_error(a, v.col, "expected default, a shipped arch's name, \"file.json\" or {json} after .arch");
    }
  }
  if (!lex_at_end(a)) return asm_error(a, lex_col(a), "unexpected text after .arch");
  a->p->arch = arch;
  a->arch_set = 1;
  return 0;
}

static int asm_layer(Asm *a) {
  Tok v;
  if (lex_at_end(a)) return asm_error(a, lex_col(a), "expected a layer name after .layer");
  if (lex_value(a, &v)) return -1;
  char name[PROG_NAME_MAX];
  if (tok_name(a, v, "layer name", 1, name, sizeof name)) return -1;
  int64_t macs = -1;   // macs=N: the layer's useful MACs (docs/ASM.md), -1 when not given
  if (!lex_at_end(a)) {
    Tok key, val;
    if (lex_operand(a, &key, &val)) return -1;
    if (key.n != 4 || memcmp(key.s, "macs", 4)) return asm_error(a, key.col, "unexpected text after the layer name");
    if (tok_int(a, val, "macs", &macs)) return -1;
    if (macs < 0) return asm_error(a, val.col, "macs must be >= 0");
    if (!lex_at_end(a)) return asm_error(a, lex_col(a), "unexpected text after macs=");
  }
  if ((int64_t)a->p->n_layers > isa_field_max(FLD_LAYER_ID))   // ids must fit LAYER's field
    return asm_error(a, v.col, "too many layers (LAYER_ID holds %lld at most)", (long long)isa_field_max(FLD_LAYER_ID));
  if (prog_add_layer(a->p, name)) return asm_error(a, v.col, "out of memory");
  if (macs >= 0) {   // the first macs= declares the program's useful MACs: 0 for the layers without one
    Program *p = a->p;
    if (!p->layer_macs) {
      uint64_t *zero = calloc(p->n_layers, sizeof *zero);
      int rc = !zero || prog_set_layer_macs(p, zero);
      free(zero);
      if (rc) return asm_error(a, v.col, "out of memory");
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i + 1 < p->n_layers; i++) total += p->layer_macs[i];
    if ((uint64_t)macs > (uint64_t)INT64_MAX - total)
      return asm_error(a, v.col, "the layers' useful MACs add up past 2^63");
    p->layer_macs[p->n_layers - 1] = (uint64_t)macs;
  }
  return 0;
}

// The hex bytes of a .data or .bytes line, appended to chunk `ci`.
static int data_bytes(Asm *a, uint32_t ci) {
  while (!lex_at_end(a)) {
    Tok b;
    if (lex_word(a, &b)) return -1;
    int hi = b.n == 2 ? lex_hex_digit(b.s[0]) : -1, lo = b.n == 2 ? lex_hex_digit(b.s[1]) : -1;
    if (hi < 0 || lo < 0) return asm_error(a, b.col, "expected a byte as two hex digits, got '%.*s'", (int)b.n, b.s);
    DataChunk *c = &a->p->chunks[ci];
    if (asm_data_fits(a, b.col, c->addr, c->len, 1)) return -1;
    if ((c->len & (c->len - 1)) == 0 && c->len) {   // grow at powers of two
      uint8_t *nb = c->len <= SIZE_MAX / 2 ? realloc(c->bytes, (size_t)c->len * 2) : NULL;
      if (!nb) return asm_error(a, b.col, "out of memory");
      c->bytes = nb;
    }
    c->bytes[c->len++] = (uint8_t)(hi * 16 + lo);
  }
  return 0;
}

// `.data ADDR bytes...` starts a chunk; `.bytes bytes...` extends the chunk of the .data/.bytes
// line just before it.
static int asm_data(Asm *a, Tok dir, int is_bytes) {
  a->arch_locked = 1;
  if (is_bytes) {
    if (a->open_chunk < 0) return asm_error(a, dir.col, ".bytes must follow a .data or .bytes line");
  } else {
    Tok v;
    int64_t addr;
    if (lex_at_end(a)) return asm_error(a, lex_col(a), "expected an address after .data");
    if (lex_value(a, &v) || expr_eval(a, v.s, v.n, v.col, 0, ".data address", &addr, NULL)) return -1;
    if (addr < 0) return asm_error(a, v.col, ".data address %lld is negative", (long long)addr);
    if (asm_data_fits(a, v.col, (uint64_t)addr, 0, 0)) return -1;
    if (asm_add_chunk(a, v.col, (uint64_t)addr, NULL, 0)) return -1;
    a->open_chunk = a->p->n_chunks - 1;
  }
  return data_bytes(a, (uint32_t)a->open_chunk);
}

// One line. Errors are reported; the caller goes on with the next line.
int asm_statement(Asm *a) {
  if (lex_at_end(a)) return 0;   // blank or comment: .bytes may still follow the open chunk
  Tok w;
  if (lex_word(a, &w)) return -1;
  int keep_chunk = tok_is(w, ".data") || tok_is(w, ".bytes");
  int is_bytes = tok_is(w, ".bytes");
  if (!keep_chunk) a->open_chunk = -1;
  int rc;
  if (w.s[0] != '.') rc = asm_insn(a, w);
  else if (keep_chunk) rc = asm_data(a, w, is_bytes);
  else if (tok_is(w, ".arch")) rc = asm_arch(a, w);
  else if (tok_is(w, ".layer")) rc = asm_layer(a);
  else if (tok_is(w, ".tensor")) rc = asm_tensor(a);
  else rc = asm_error(a, w.col, "unknown directive '%.*s'", (int)w.n, w.s);
  if (rc) a->open_chunk = -1;
  return rc;
}

// ---- Whole program ----

typedef struct {
  uint64_t addr, end;   // bytes [addr, end)
  uint32_t idx;         // chunk index (source order)
} Span;

static int cmp_span(const void *x, const void *y) {
  const Span *a = x, *b = y;
  if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

// Data chunks must not overlap (prog_check says so too, but without the line).
static int check_overlaps(Asm *a) {
  uint32_t n = a->p->n_chunks;
  if (n < 2) return 0;
  Span *s = malloc(n * sizeof *s);
  if (!s) return asm_error(a, 1, "out of memory");
  for (uint32_t i = 0; i < n; i++)
    s[i] = (Span){a->p->chunks[i].addr, a->p->chunks[i].addr + a->p->chunks[i].len, i};
  qsort(s, n, sizeof *s, cmp_span);
  const Span *far = NULL;   // the non-empty chunk reaching furthest so far
  int rc = 0;
  for (uint32_t i = 0; i < n && !rc; i++) {
    if (s[i].addr == s[i].end) continue;
    if (far && far->end > s[i].addr) {
      const Span *later = far->idx > s[i].idx ? far : &s[i], *earlier = later == far ? &s[i] : far;
      a->lineno = a->chunk_line[later->idx];
      rc = asm_error(a, 1, "data at 0x%llx..0x%llx overlaps the data of line %d (0x%llx..0x%llx)",
                     (unsigned long long)later->addr, (unsigned long long)(later->end - 1),
                     a->chunk_line[earlier->idx], (unsigned long long)earlier->addr,
                     (unsigned long long)(earlier->end - 1));
    }
    if (!far || s[i].end > far->end) far = &s[i];
  }
  free(s);
  return rc;
}

// "dir/" of "dir/file.s", "" for "file.s".
static char *base_dir_of(const char *file) {
  const char *slash = strrchr(file, '/');
  size_t n = slash ? (size_t)(slash - file) + 1 : 0;
  char *b = malloc(n + 1);
  if (b) {
    memcpy(b, file, n);
    b[n] = 0;
  }
  return b;
}

int asm_assemble_opts(const char *text, size_t len, const char *file, const AsmOptions *opt, Program **out, Diag *d) {
  *out = NULL;
  if (opt->insn_lines) *opt->insn_lines = NULL;
  Arch def;
  arch_default(&def);
  Asm a;
  memset(&a, 0, sizeof a);
  a.file = file;
  a.opt = *opt;
  a.d = d;
  a.open_chunk = -1;
  a.p = prog_new(&def);
  a.base_dir = base_dir_of(file);
  if (!a.p || !a.base_dir) {
    prog_free(a.p);
    free(a.base_dir);
    return diag_error(d, "%s: error: out of memory", file);
  }
  asm_run(&a, text, len);
  if (!a.errors) {
    if (!a.p->n_insns) {
      a.lineno = a.lineno ? a.lineno : 1;
      asm_error(&a, 1, "no instructions (a program ends with HALT)");
    } else if (prog_op(a.p, a.p->n_insns - 1) != OP_HALT) {
      a.lineno = a.last_insn_line;
      asm_error(&a, a.last_insn_col, "program does not end with HALT");
    } else if (!check_overlaps(&a) && prog_check(a.p, file, d)) {
      a.errors++;
    }
  }
  free(a.base_dir);
  free(a.chunk_line);
  free(a.tensor_slot);
  sym_free(&a);
  if (opt->insn_lines) *opt->insn_lines = NULL;
  if (a.errors) {
    free(a.insn_line);
    prog_free(a.p);
    return -1;
  }
  if (opt->insn_lines) *opt->insn_lines = a.insn_line;
  *out = a.p;
  return 0;
}

int asm_assemble(const char *text, size_t len, const char *file, Program **out, Diag *d) {
  AsmOptions o;
  asm_options_default(&o);
  return asm_assemble_opts(text, len, file, &o, out, d);
}

int asm_assemble_file(const char *path, Program **out, Diag *d) {
  AsmOptions o;
  asm_options_default(&o);
  return asm_assemble_file_opts(path, &o, out, d);
}

int asm_assemble_file_opts(const char *path, const AsmOptions *opt, Program **out, Diag *d) {
  *out = NULL;
  if (opt->insn_lines) *opt->insn_lines = NULL;
  uint8_t *buf;
  size_t len;
  FileReadLimits lim = {ASM_FILE_MAX_BYTES, "the limit of an assembly source", 4096, file_head_text, NULL};
  if (file_read_limited(path, &lim, &buf, &len, d)) return -1;
  int rc = asm_assemble_opts((const char *)buf, len, path, opt, out, d);
  free(buf);
  return rc;
}
