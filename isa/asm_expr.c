// asm_expr.c: the assembler's integer expressions and .set constants (asm_expr.h, docs/ASM.md
// "Expressions"). A recursive-descent parser that evaluates as it parses, with C's precedence:
//   cond   := lor [ '?' cond ':' cond ]
//   lor    := land { '||' land }            land := bor { '&&' bor }
//   bor    := bxor { '|' bxor }             bxor := band { '^' band }
//   band   := eq { '&' eq }                 eq   := rel { ('==' | '!=') rel }
//   rel    := shift { ('<' | '<=' | '>' | '>=') shift }
//   shift  := add { ('<<' | '>>') add }     add  := mul { ('+' | '-') mul }
//   mul    := unary { ('*' | '/' | '%') unary }
//   unary  := ('-' | '+' | '~' | '!') unary | primary
//   primary:= number | name | '(' cond ')' | ('min' | 'max') '(' cond ',' cond ')'
// Arithmetic is int64; an overflow, a division by zero or a shift outside [0, 63] is an error,
// except in the branch ?:, && or || does not take (parsed, names checked, not evaluated).
// Nesting (parentheses, unary operators) is capped at ASM_EXPR_MAX_DEPTH, so no input recurses
// without bound. The .set table is a hash index like the tensors' (asm_tensor.c).
#include "asm_expr.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

typedef struct {
  Asm *a;
  const char *s;      // the expression text
  size_t n, pos;      // its length, the scan position
  int col;            // column of s[0]
  int flags;          // EXPR_*
  const char *what;   // names it in messages
  int depth;          // current nesting
} Ex;

static int ex_col(const Ex *e, size_t at) { return e->col + (int)at; }
static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_name_char(char c) { return is_alpha(c) || is_digit(c) || c == '.'; }

static void skip_blanks(Ex *e) {
  while (e->pos < e->n && is_blank(e->s[e->pos])) e->pos++;
}

// Consumes the operator `op` when it comes next (and is not the start of a longer one that
// the caller handles elsewhere: '<' is not '<<' or '<=', '&' not '&&', '|' not '||').
static int accept(Ex *e, const char *op) {
  skip_blanks(e);
  size_t k = strlen(op);
  if (e->pos + k > e->n || memcmp(e->s + e->pos, op, k)) return 0;
  char next = e->pos + k < e->n ? e->s[e->pos + k] : 0;
  if (k == 1 && (op[0] == '<' || op[0] == '>') && (next == op[0] || next == '=')) return 0;
  if (k == 1 && (op[0] == '&' || op[0] == '|') && next == op[0]) return 0;
  if (k == 1 && op[0] == '!' && next == '=') return 0;
  e->pos += k;
  return 1;
}

static int overflow(Ex *e, size_t at, long long x, const char *op, long long y) {
  return asm_error(e->a, ex_col(e, at), "%s: %lld %s %lld does not fit in a 64-bit signed integer", e->what, x, op, y);
}

// Applies a binary operator; `at` is its position (for messages). Not evaluated when !live.
static int apply(Ex *e, size_t at, const char *op, int live, int64_t x, int64_t y, int64_t *r) {
  if (!live) {
    *r = 0;
    return 0;
  }
  switch (op[0]) {
  case '+': return __builtin_add_overflow(x, y, r) ? overflow(e, at, x, op, y) : 0;
  case '-': return __builtin_sub_overflow(x, y, r) ? overflow(e, at, x, op, y) : 0;
  case '*': return __builtin_mul_overflow(x, y, r) ? overflow(e, at, x, op, y) : 0;
  case '/':
  case '%':
    if (y == 0) return asm_error(e->a, ex_col(e, at), "%s: division by zero ('%c' 0)", e->what, op[0]);
    if (x == INT64_MIN && y == -1) return overflow(e, at, x, op, y);
    *r = op[0] == '/' ? x / y : x % y;
    return 0;
  case '<':
  case '>':
    if (op[1] == op[0]) {   // shifts
      if (y < 0 || y > 63)
        return asm_error(e->a, ex_col(e, at), "%s: shift count %lld out of range [0, 63]", e->what, (long long)y);
      if (op[0] == '>') {   // arithmetic: rounds toward minus infinity
        *r = x >= 0 ? x >> y : -1 - ((-1 - x) >> y);
        return 0;
      }
      int64_t m = (int64_t)((uint64_t)1 << y);   // x << y is x * 2^y, checked (2^63 itself overflows)
      if (y == 63 ? x != 0 : __builtin_mul_overflow(x, m, r)) return overflow(e, at, x, op, y);
      if (y == 63) *r = 0;
      return 0;
    }
    *r = op[0] == '<' ? (op[1] == '=' ? x <= y : x < y) : (op[1] == '=' ? x >= y : x > y);
    return 0;
  case '=': *r = x == y; return 0;
  case '!': *r = x != y; return 0;
  case '&': *r = x & y; return 0;
  case '^': *r = x ^ y; return 0;
  case '|': *r = x | y; return 0;
  }
  return asm_error(e->a, ex_col(e, at), "%s: unknown operator '%s'", e->what, op);   // not reached
}

static int cond(Ex *e, int live, int64_t *v);

static int missing_operand(Ex *e) {
  skip_blanks(e);
  if (e->pos >= e->n) return asm_error(e->a, ex_col(e, e->pos), "%s: expression '%.*s' ends early", e->what, (int)e->n, e->s);
  return asm_error(e->a, ex_col(e, e->pos), "%s: expected a number, a name or '(' at '%.*s'", e->what,
                   (int)(e->n - e->pos), e->s + e->pos);
}

// A literal: decimal or 0x hex (the token is [0-9][A-Za-z0-9_]*, so '12x' is one bad literal).
static int number(Ex *e, int64_t *v) {
  size_t start = e->pos;
  while (e->pos < e->n && (is_alpha(e->s[e->pos]) || is_digit(e->s[e->pos]))) e->pos++;
  return tok_int(e->a, (Tok){e->s + start, e->pos - start, ex_col(e, start)}, e->what, v);
}

static int lookup(Ex *e, const char *name, size_t at, int64_t *v) {
  Asm *a = e->a;
  if (e->flags & EXPR_UNITS)
    for (int u = 0; u < NUM_UNITS; u++)
      if (tok_is((Tok){name, strlen(name), 0}, isa_unit_names[u])) {
        *v = (int64_t)1 << u;
        return 0;
      }
  for (int i = a->rep_depth - 1; i >= 0; i--)
    if (!strcmp(a->rep[i].var, name)) {
      *v = a->rep[i].index;
      return 0;
    }
  if (sym_get(a, name, v)) return 0;
  const TensorInfo *t = asm_find_tensor(a, name);
  if (t) {
    *v = (int64_t)t->addr;   // inside DRAM (<= 4 GiB): .tensor checked it
    return 0;
  }
  if (e->flags & EXPR_DRAM)
    return asm_error(a, ex_col(e, at), "undeclared tensor '%s' (declare it with .tensor before its use)", name);
  return asm_error(a, ex_col(e, at), "%s: undefined name '%s' (not a .rep index, a .set constant or a tensor declared above)",
                   e->what, name);
}

static int primary(Ex *e, int live, int64_t *v) {
  skip_blanks(e);
  if (e->pos >= e->n) return missing_operand(e);
  char c = e->s[e->pos];
  if (is_digit(c)) return number(e, v);
  if (c == '(') {
    size_t open = e->pos++;
    if (cond(e, live, v)) return -1;
    if (!accept(e, ")")) {
      skip_blanks(e);
      if (e->pos < e->n) return asm_error(e->a, ex_col(e, e->pos), "%s: expected ')' at '%.*s'", e->what,
                                          (int)(e->n - e->pos), e->s + e->pos);
      return asm_error(e->a, ex_col(e, open), "%s: missing ')' for this '('", e->what);
    }
    return 0;
  }
  if (!is_alpha(c)) return missing_operand(e);
  size_t start = e->pos;
  while (e->pos < e->n && is_name_char(e->s[e->pos])) e->pos++;
  size_t len = e->pos - start;
  char name[PROG_NAME_MAX];
  if (len >= sizeof name)
    return asm_error(e->a, ex_col(e, start), "%s: name '%.*s' is longer than %zu bytes", e->what, (int)len,
                     e->s + start, sizeof name - 1);
  memcpy(name, e->s + start, len);
  name[len] = 0;
  size_t after = e->pos;
  skip_blanks(e);
  if ((!strcmp(name, "min") || !strcmp(name, "max")) && e->pos < e->n && e->s[e->pos] == '(') {
    size_t open = e->pos++;
    int64_t x, y;
    if (cond(e, live, &x)) return -1;
    if (!accept(e, ",")) return asm_error(e->a, ex_col(e, open), "%s: %s(a, b) takes two operands", e->what, name);
    if (cond(e, live, &y)) return -1;
    if (!accept(e, ")")) return asm_error(e->a, ex_col(e, open), "%s: missing ')' for %s(", e->what, name);
    int is_min = name[1] == 'i';
    *v = is_min ? (x < y ? x : y) : (x > y ? x : y);
    return 0;
  }
  e->pos = after;
  return lookup(e, name, start, v);
}

static int unary(Ex *e, int live, int64_t *v) {
  skip_blanks(e);
  if (e->pos < e->n && strchr("-+~!", e->s[e->pos]) && !(e->s[e->pos] == '!' && e->pos + 1 < e->n && e->s[e->pos + 1] == '=')) {
    size_t at = e->pos;
    char op = e->s[e->pos++];
    if (++e->depth > ASM_EXPR_MAX_DEPTH)
      return asm_error(e->a, ex_col(e, at), "%s: expression nested more than %d deep", e->what, ASM_EXPR_MAX_DEPTH);
    int64_t x;
    if (unary(e, live, &x)) return -1;
    e->depth--;
    if (op == '-' && live && x == INT64_MIN)
      return asm_error(e->a, ex_col(e, at), "%s: -(%lld) does not fit in a 64-bit signed integer", e->what, (long long)x);
    *v = op == '-' ? (live ? -x : 0) : op == '+' ? x : op == '~' ? ~x : !x;
    return 0;
  }
  return primary(e, live, v);   // a '(' nests through cond(), which counts the depth
}

// One precedence level of left-associative binary operators, from tightest (0) to loosest.
static const char *const levels[][5] = {
    {"*", "/", "%", NULL}, {"+", "-", NULL}, {"<<", ">>", NULL}, {"<=", ">=", "<", ">", NULL},
    {"==", "!=", NULL},    {"&", NULL},      {"^", NULL},        {"|", NULL},
};
#define N_LEVELS ((int)(sizeof levels / sizeof levels[0]))

static int binary(Ex *e, int level, int live, int64_t *v) {
  if (level < 0) return unary(e, live, v);
  if (binary(e, level - 1, live, v)) return -1;
  for (;;) {
    const char *op = NULL;
    skip_blanks(e);
    size_t at = e->pos;
    for (int k = 0; levels[level][k] && !op; k++)
      if (accept(e, levels[level][k])) op = levels[level][k];
    if (!op) return 0;
    int64_t y;
    if (binary(e, level - 1, live, &y) || apply(e, at, op, live, *v, y, v)) return -1;
  }
}

// '&&' and '||' (level 0 and 1 above the bitwise ones): 0 or 1, the right side only evaluated
// when it decides.
static int logical(Ex *e, int is_or, int live, int64_t *v) {
  if (is_or ? logical(e, 0, live, v) : binary(e, N_LEVELS - 1, live, v)) return -1;
  for (;;) {
    if (!accept(e, is_or ? "||" : "&&")) return 0;
    int decided = is_or ? *v != 0 : *v == 0;
    int64_t y;
    if (is_or ? logical(e, 0, live && !decided, &y) : binary(e, N_LEVELS - 1, live && !decided, &y)) return -1;
    *v = decided ? is_or : y != 0;
  }
}

static int cond(Ex *e, int live, int64_t *v) {
  if (++e->depth > ASM_EXPR_MAX_DEPTH)
    return asm_error(e->a, ex_col(e, e->pos), "%s: expression nested more than %d deep", e->what, ASM_EXPR_MAX_DEPTH);
  int64_t c;
  if (logical(e, 1, live, &c)) return -1;
  if (!accept(e, "?")) {
    *v = c;
    e->depth--;
    return 0;
  }
  int64_t x, y;
  size_t q = e->pos - 1;
  if (cond(e, live && c, &x)) return -1;
  if (!accept(e, ":")) return asm_error(e->a, ex_col(e, q), "%s: '?' without its ':'", e->what);
  if (cond(e, live && !c, &y)) return -1;
  *v = c ? x : y;
  e->depth--;
  return 0;
}

int expr_eval(Asm *a, const char *s, size_t n, int col, int flags, const char *what, int64_t *out, size_t *used) {
  // A plain number ("42", "-0x5": most operands of large generated programs) skips the parser.
  size_t i = n && s[0] == '-' ? 1 : 0;
  int plain = i < n && is_digit(s[i]);
  for (size_t k = i; k < n && plain; k++) plain = is_alpha(s[k]) || is_digit(s[k]);
  if (plain) {
    if (used) *used = n;
    return tok_int(a, (Tok){s, n, col}, what, out);
  }
  Ex e = {a, s, n, 0, col, flags, what, 0};
  int64_t v;
  if (cond(&e, 1, &v)) return -1;
  skip_blanks(&e);
  if (e.pos < e.n && !((flags & EXPR_STOP_COMMA) && s[e.pos] == ',')) {
    if (s[e.pos] == ')') return asm_error(a, ex_col(&e, e.pos), "%s: ')' without its '('", what);
    return asm_error(a, ex_col(&e, e.pos), "%s: unexpected '%c' in expression '%.*s'", what, s[e.pos], (int)n, s);
  }
  if (used) *used = e.pos;
  *out = v;
  return 0;
}

// ---- .set constants: open addressing, linear probing, FNV-1a ----

int sym_name_ok(const char *name, size_t n) {
  if (n == 0 || n >= ASM_SYM_MAX || !is_alpha(name[0])) return 0;
  for (size_t i = 1; i < n; i++)
    if (!is_alpha(name[i]) && !is_digit(name[i])) return 0;
  return 1;
}

static size_t sym_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return (size_t)h;
}

// The slot holding name, or the empty slot where it would go.
static size_t sym_slot_of(const Asm *a, const char *name) {
  size_t mask = a->n_sym_slots - 1;
  size_t s = sym_hash(name) & mask;
  while (a->sym_slot[s] && strcmp(a->syms[a->sym_slot[s] - 1].name, name)) s = (s + 1) & mask;
  return s;
}

int sym_get(const Asm *a, const char *name, int64_t *v) {
  if (!a->n_sym_slots) return 0;
  uint32_t k = a->sym_slot[sym_slot_of(a, name)];
  if (!k) return 0;
  *v = a->syms[k - 1].value;
  return 1;
}

int sym_set(Asm *a, const char *name, int64_t v) {
  if (a->n_sym_slots) {
    uint32_t k = a->sym_slot[sym_slot_of(a, name)];
    if (k) {
      a->syms[k - 1].value = v;
      return 0;
    }
  }
  if (a->n_syms >= a->cap_syms) {
    size_t nc = grow_cap(a->cap_syms, (size_t)a->n_syms + 1, 16, sizeof *a->syms, UINT32_MAX / 2);
    AsmSym *ns = nc ? realloc(a->syms, nc * sizeof *ns) : NULL;
    if (!ns) return -1;
    a->syms = ns;
    a->cap_syms = (uint32_t)nc;
  }
  if ((size_t)(a->n_syms + 1) * 2 > a->n_sym_slots) {   // keep the load at most 1/2
    size_t ns = grow_cap(a->n_sym_slots, (size_t)(a->n_syms + 1) * 2, 64, sizeof *a->sym_slot, SIZE_MAX);
    uint32_t *slot = ns ? calloc(ns, sizeof *slot) : NULL;
    if (!slot) return -1;
    free(a->sym_slot);
    a->sym_slot = slot;
    a->n_sym_slots = ns;
    for (uint32_t i = 0; i < a->n_syms; i++) a->sym_slot[sym_slot_of(a, a->syms[i].name)] = i + 1;
  }
  AsmSym *sy = &a->syms[a->n_syms++];
  memset(sy->name, 0, sizeof sy->name);
  strncpy(sy->name, name, sizeof sy->name - 1);
  sy->value = v;
  a->sym_slot[sym_slot_of(a, sy->name)] = a->n_syms;
  return 0;
}

void sym_free(Asm *a) {
  free(a->syms);
  free(a->sym_slot);
  a->syms = NULL;
  a->sym_slot = NULL;
  a->n_syms = a->cap_syms = 0;
  a->n_sym_slots = 0;
}
