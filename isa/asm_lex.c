// asm_lex.c: the assembler's line scanner and token helpers (asm_lex.h): value tokens, numbers,
// names, lists, and error messages that point at a line and column. Knows nothing of
// instructions or directives.
#include "asm_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grow.h"

int asm_error(Asm *a, int col, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  a->errors++;
  char ctx[512] = "";
  size_t k = 0;
  for (int i = 0; i < a->rep_depth && k < sizeof ctx; i++) {
    const RepFrame *f = &a->rep[i];
    if (f->var[0])
      k += (size_t)snprintf(ctx + k, sizeof ctx - k, "%s.rep at line %d, %s=%lld", i ? "; in " : "in ", f->line, f->var,
                            (long long)f->index);
    else
      k += (size_t)snprintf(ctx + k, sizeof ctx - k, "%s.rep at line %d, iteration %lld", i ? "; in " : "in ", f->line,
                            (long long)f->index);
  }
  return diag_error(a->d, "%s:%d:%d: error: %s%s%s", a->file, a->lineno, col, ctx, k ? ": " : "", msg);
}

int asm_nested_error(Asm *a, int col, const char *context, const Diag *inner) {
  const char *m = diag_first(inner);
  const char *e = strstr(m, "error: ");
  if (!e) return asm_error(a, col, "%s: %s", context, m);
  int loc = (int)(e - m);
  while (loc > 0 && (m[loc - 1] == ' ' || m[loc - 1] == ':')) loc--;
  return asm_error(a, col, "%s: %.*s%s%s", context, loc, m, loc ? ": " : "", e + 7);
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static int is_comment(char c) { return c == ';' || c == '#'; }
static int is_control(char c) { return (unsigned char)c < 0x20 || c == 0x7f; }
static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
// Ends a bare word.
static int ends_word(char c) { return is_blank(c) || is_comment(c) || is_control(c); }

int lex_col(const Asm *a) { return (int)a->pos + 1; }

int lex_at_end(Asm *a) {
  while (a->pos < a->len && is_blank(a->line[a->pos])) a->pos++;
  return a->pos >= a->len || is_comment(a->line[a->pos]);
}

// Reports a character that cannot start a token.
static int bad_char(Asm *a) {
  char c = a->line[a->pos];
  if (is_control(c)) return asm_error(a, lex_col(a), "invalid character 0x%02x", (unsigned)(unsigned char)c);
  return asm_error(a, lex_col(a), "unexpected '%c'", c);
}

int lex_word(Asm *a, Tok *t) {
  lex_at_end(a);
  size_t start = a->pos;
  while (a->pos < a->len && !ends_word(a->line[a->pos])) a->pos++;
  if (a->pos == start) return bad_char(a);
  *t = (Tok){a->line + start, a->pos - start, (int)start + 1};
  return 0;
}

// After a closing ']' or '"': the token must end here.
static int expect_token_end(Asm *a) {
  if (a->pos < a->len && !is_blank(a->line[a->pos]) && !is_comment(a->line[a->pos]))
    return asm_error(a, lex_col(a), "expected white space after '%c'", a->line[a->pos - 1]);
  return 0;
}

int lex_value(Asm *a, Tok *t) {
  if (lex_at_end(a)) return asm_error(a, lex_col(a), "expected a value");
  size_t start = a->pos;
  char c = a->line[start];
  if (c == '[') {
    while (a->pos < a->len && a->line[a->pos] != ']' && !is_comment(a->line[a->pos])) a->pos++;
    if (a->pos >= a->len || a->line[a->pos] != ']') return asm_error(a, (int)start + 1, "missing ']'");
    a->pos++;
  } else if (c == '"') {
    a->pos++;
    while (a->pos < a->len && a->line[a->pos] != '"') a->pos += a->line[a->pos] == '\\' ? 2 : 1;
    if (a->pos >= a->len) return asm_error(a, (int)start + 1, "unterminated string");
    a->pos++;
  } else {   // a word; inside parentheses blanks belong to it: rows=(K - k0)
    int depth = 0;
    for (; a->pos < a->len; a->pos++) {
      char ch = a->line[a->pos];
      if (depth > 0 ? is_comment(ch) || (is_control(ch) && ch != '\t') : ends_word(ch)) break;
      if (ch == '(') depth++;
      else if (ch == ')' && depth > 0) depth--;
    }
    if (a->pos == start) return bad_char(a);
    *t = (Tok){a->line + start, a->pos - start, (int)start + 1};
    return 0;
  }
  *t = (Tok){a->line + start, a->pos - start, (int)start + 1};
  return expect_token_end(a);
}

int lex_operand(Asm *a, Tok *key, Tok *val) {
  lex_at_end(a);
  size_t start = a->pos;
  while (a->pos < a->len && is_ident(a->line[a->pos])) a->pos++;
  if (a->pos == start || a->pos >= a->len || a->line[a->pos] != '=') {
    a->pos = start;
    Tok w;
    if (lex_value(a, &w)) return -1;
    return asm_error(a, w.col, "expected key=value, got '%.*s'", (int)w.n, w.s);
  }
  *key = (Tok){a->line + start, a->pos - start, (int)start + 1};
  a->pos++;   // '='
  if (a->pos >= a->len || ends_word(a->line[a->pos]))
    return asm_error(a, lex_col(a), "missing value after '%.*s='", (int)key->n, key->s);
  return lex_value(a, val);
}

int tok_is(Tok t, const char *s) { return strlen(s) == t.n && !strncasecmp(t.s, s, t.n); }

void tok_cstr(Tok t, char *buf, size_t cap) {
  size_t n = t.n < cap - 1 ? t.n : cap - 1;
  memcpy(buf, t.s, n);
  buf[n] = 0;
}

int lex_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int tok_int(Asm *a, Tok t, const char *what, int64_t *v) {
  size_t i = 0;
  int neg = 0;
  if (i < t.n && t.s[i] == '-') {
    neg = 1;
    i++;
  }
  unsigned base = 10;
  if (i + 1 < t.n && t.s[i] == '0' && (t.s[i + 1] == 'x' || t.s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= t.n) goto bad;
  uint64_t mag = 0;
  for (; i < t.n; i++) {
    int dg = lex_hex_digit(t.s[i]);
    if (dg < 0 || (unsigned)dg >= base) goto bad;
    if (mag > ((uint64_t)INT64_MAX - (unsigned)dg) / base)
      return asm_error(a, t.col, "%s: number '%.*s' is too large", what, (int)t.n, t.s);
    mag = mag * base + (unsigned)dg;
  }
  *v = neg ? -(int64_t)mag : (int64_t)mag;
  return 0;
bad:
  return asm_error(a, t.col, "%s: expected a number, got '%.*s'", what, (int)t.n, t.s);
}

// The escape after a backslash at s[i] in a string whose closing quote is s[end]: stores the
// byte in *c and returns the characters it spans after the backslash, or 0 when invalid.
static size_t read_escape(const char *s, size_t i, size_t end, unsigned char *c) {
  char e = i < end ? s[i] : 0;
  if (e == '"' || e == '\\') *c = (unsigned char)e;
  else if (e == 'n') *c = '\n';
  else if (e == 't') *c = '\t';
  else if (e == 'x' && i + 2 < end && lex_hex_digit(s[i + 1]) >= 0 && lex_hex_digit(s[i + 2]) >= 0)
    *c = (unsigned char)(lex_hex_digit(s[i + 1]) * 16 + lex_hex_digit(s[i + 2]));
  else return 0;
  return e == 'x' ? 3 : 1;
}

int tok_name(Asm *a, Tok t, const char *what, int allow_empty, char *out, size_t cap) {
  size_t n = 0;
  if (t.n && t.s[0] == '[') return asm_error(a, t.col, "expected a %s, got a list", what);
  if (t.n && t.s[0] == '"') {
    size_t end = t.n - 1;   // the closing quote (lex_value found it)
    for (size_t i = 1; i < end; i++) {
      unsigned char c = (unsigned char)t.s[i];
      if (c == '\\') {
        size_t k = read_escape(t.s, i + 1, end, &c);
        if (!k) return asm_error(a, t.col + (int)i, "bad escape in string (use \\\" \\\\ \\n \\t \\xHH)");
        i += k;
      } else if (is_control((char)c)) {
        return asm_error(a, t.col + (int)i, "invalid character 0x%02x in string", c);
      }
      if (c == 0) return asm_error(a, t.col, "%s contains a NUL character", what);
      if (n + 1 >= cap) return asm_error(a, t.col, "%s is longer than %zu bytes", what, cap - 1);
      out[n++] = (char)c;
    }
  } else {
    if (t.n >= cap) return asm_error(a, t.col, "%s is longer than %zu bytes", what, cap - 1);
    memcpy(out, t.s, t.n);
    n = t.n;
  }
  out[n] = 0;
  if (!n && !allow_empty) return asm_error(a, t.col, "empty %s", what);
  return 0;
}

int list_begin(Asm *a, Tok t, const char *what, ListIter *it) {
  if (!t.n || t.s[0] != '[')
    return asm_error(a, t.col, "expected a list [...] for %s, got '%.*s'", what, (int)t.n, t.s);
  *it = (ListIter){t, 1, 0};
  return 0;
}

int list_next(Asm *a, ListIter *it, Tok *item) {
  const Tok *l = &it->list;
  size_t end = l->n - 1;   // the ']'
  while (it->pos < end && is_blank(l->s[it->pos])) it->pos++;
  if (it->started) {
    if (it->pos >= end) return 0;
    if (l->s[it->pos] != ',') return asm_error(a, l->col + (int)it->pos, "expected ',' or ']' in list");
    it->pos++;
    while (it->pos < end && is_blank(l->s[it->pos])) it->pos++;
  } else if (it->pos >= end) {
    return 0;
  }
  size_t start = it->pos;
  while (it->pos < end && l->s[it->pos] != ',' && !is_blank(l->s[it->pos])) it->pos++;
  if (it->pos == start) return asm_error(a, l->col + (int)start, "empty list item");
  *item = (Tok){l->s + start, it->pos - start, l->col + (int)start};
  it->started = 1;
  return 1;
}

const char *asm_lower(const char *s, char *buf, size_t cap) {
  size_t i = 0;
  for (; s[i] && i + 1 < cap; i++) buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
  buf[i] = 0;
  return buf;
}

int asm_name_is_bare(const char *name) {
  if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_')) return 0;
  for (const char *c = name; *c; c++)
    if (!is_ident(*c) && *c != '.') return 0;
  return 1;
}

int asm_data_fits(Asm *a, int col, uint64_t addr, uint64_t len, uint64_t more) {
  uint64_t dram = a->p->arch.dram_bytes;
  uint64_t cap = a->opt.max_data_bytes && a->opt.max_data_bytes < dram ? a->opt.max_data_bytes : dram;
  if (addr > dram || len + more > dram - addr)
    return asm_error(a, col, "data at 0x%llx (%llu bytes) passes the end of DRAM (dram.bytes=0x%llx)",
                     (unsigned long long)addr, (unsigned long long)(len + more), (unsigned long long)dram);
  if (more > cap - a->data_bytes)
    return asm_error(a, col, "initial data exceeds %llu bytes in total", (unsigned long long)cap);
  a->data_bytes += more;
  return 0;
}

int asm_add_chunk(Asm *a, int col, uint64_t addr, const void *bytes, uint64_t len) {
  uint32_t n = a->p->n_chunks;
  if (n >= a->cap_chunk_line) {
    size_t nc = grow_cap(a->cap_chunk_line, (size_t)n + 1, 16, sizeof *a->chunk_line, UINT32_MAX);
    int *nl = nc ? realloc(a->chunk_line, nc * sizeof *nl) : NULL;
    if (!nl) return asm_error(a, col, "out of memory");
    a->chunk_line = nl;
    a->cap_chunk_line = (uint32_t)nc;
  }
  if (prog_add_data(a->p, addr, bytes, len)) return asm_error(a, col, "out of memory");
  a->chunk_line[n] = a->lineno;
  return 0;
}

char *asm_path(Asm *a, int col, const char *path) {
  if (!a->opt.allow_files) {
    asm_error(a, col, "file access is disabled (\"%s\")", path);
    return NULL;
  }
  const char *base = path[0] == '/' ? "" : a->base_dir;
  size_t n = strlen(base) + strlen(path) + 1;
  char *full = malloc(n);
  if (!full) {
    asm_error(a, col, "out of memory");
    return NULL;
  }
  snprintf(full, n, "%s%s", base, path);
  return full;
}
