// asm_block.c: the assembler's line driver and its loop language (docs/ASM.md, "Loops,
// conditions and constants"):
//   .rep COUNT[, NAME] ... .endr       the lines between, COUNT times; NAME = 0, 1, ..., COUNT-1
//   .if EXPR ... [.else ...] .endif    the first part when EXPR is not 0, else the second
//   .set NAME, EXPR   (.equ the same)  a named constant, usable in every expression after it
// Blocks nest up to ASM_MAX_NESTING deep. A block's text is found by scanning for its closing
// line (checking the nesting on the way) and then run, so a repeated body is read again on each
// iteration with the index bound: its lines keep their own line numbers, and its errors say
// which iteration ("in .rep at line 8, i=3: ..."). Bounded cost: the lines (and bytes) all .rep
// iterations run together are capped (ASM_MAX_REP_LINES, ASM_MAX_REP_BYTES), checked before a
// .rep starts (COUNT x its body) and on every line, so `.rep 4000000000` fails at once.
// Every other statement goes to asm_statement (asm.c).
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "asm_expr.h"
#include "asm_lex.h"

typedef enum { L_OTHER, L_REP, L_ENDR, L_IF, L_ELSE, L_ENDIF, L_SET } LineKind;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static int is_comment(char c) { return c == ';' || c == '#'; }
static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// What a line is, by its first word; *after: the position after that word.
static LineKind line_kind(const char *s, size_t n, size_t *after) {
  static const struct {
    const char *word;
    LineKind kind;
  } words[] = {{".rep", L_REP},     {".endr", L_ENDR}, {".if", L_IF}, {".else", L_ELSE},
               {".endif", L_ENDIF}, {".set", L_SET},   {".equ", L_SET}};
  size_t i = 0;
  while (i < n && is_blank(s[i])) i++;
  size_t start = i;
  if (i >= n || s[i] != '.') return L_OTHER;
  while (i < n && !is_blank(s[i]) && !is_comment(s[i])) i++;
  *after = i;
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strlen(words[k].word) == i - start && !strncasecmp(s + start, words[k].word, i - start)) return words[k].kind;
  return L_OTHER;
}

static const char *kind_name(LineKind k) {
  switch (k) {
  case L_REP: return ".rep";
  case L_ENDR: return ".endr";
  case L_IF: return ".if";
  case L_ELSE: return ".else";
  case L_ENDIF: return ".endif";
  case L_SET: return ".set";
  case L_OTHER: return "statement";
  }
  return "?";
}

// The line starting at *pos in text[..end): its start and length; *pos moves past its newline.
static void next_line(const char *text, size_t end, size_t *pos, const char **line, size_t *len) {
  const char *nl = memchr(text + *pos, '\n', end - *pos);
  size_t stop = nl ? (size_t)(nl - text) : end;
  *line = text + *pos;
  *len = stop - *pos;
  *pos = stop < end ? stop + 1 : end;
}

// Points the scanner at a line (for statements and for messages).
static void set_line(Asm *a, const char *line, size_t len, int lineno) {
  a->line = line;
  a->len = len;
  a->pos = 0;
  a->lineno = lineno;
}

// The end of the directive's operands: the comment, or the end of the line, blanks trimmed.
static size_t operands_end(const Asm *a) {
  size_t e = a->pos;
  while (e < a->len && !is_comment(a->line[e])) e++;
  while (e > a->pos && is_blank(a->line[e - 1])) e--;
  return e;
}

// A constant or index name at the scan position: [A-Za-z_][A-Za-z0-9_]*, into out.
static int read_name(Asm *a, const char *what, char *out) {
  lex_at_end(a);
  size_t start = a->pos;
  while (a->pos < a->len && is_ident(a->line[a->pos])) a->pos++;
  size_t n = a->pos - start;
  if (!sym_name_ok(a->line + start, n)) {
    if (n == 0) return asm_error(a, (int)start + 1, "expected a name for %s", what);
    return asm_error(a, (int)start + 1, "bad name '%.*s' for %s (a letter or '_', then letters, digits, '_'; at most %d bytes)",
                     (int)n, a->line + start, what, ASM_SYM_MAX - 1);
  }
  memcpy(out, a->line + start, n);
  out[n] = 0;
  return 0;
}

// The expression from the scan position up to `stop_comma` ',' or the operands' end.
static int read_expr(Asm *a, const char *what, int stop_comma, int64_t *v) {
  lex_at_end(a);
  size_t end = operands_end(a), used = 0;
  if (a->pos >= end) return asm_error(a, lex_col(a), "expected an expression for %s", what);
  if (expr_eval(a, a->line + a->pos, end - a->pos, lex_col(a), stop_comma ? EXPR_STOP_COMMA : 0, what, v, &used))
    return -1;
  a->pos += used;
  return 0;
}

// The .rep index that has this name, or NULL.
static const RepFrame *index_named(const Asm *a, const char *name) {
  for (int i = 0; i < a->rep_depth; i++)
    if (!strcmp(a->rep[i].var, name)) return &a->rep[i];
  return NULL;
}

// `.set NAME, EXPR` (or .equ). The scan position is after the directive.
static int do_set(Asm *a) {
  char name[ASM_SYM_MAX];
  int col = (lex_at_end(a), lex_col(a));
  if (read_name(a, ".set", name)) return -1;
  lex_at_end(a);
  if (a->pos >= a->len || a->line[a->pos] != ',') return asm_error(a, lex_col(a), "expected ',' after the name in .set NAME, EXPR");
  a->pos++;
  int64_t v;
  if (read_expr(a, name, 0, &v)) return -1;
  const RepFrame *f = index_named(a, name);
  if (f) return asm_error(a, col, "'%s' is the index of the .rep at line %d; .set cannot change it", name, f->line);
  if (asm_find_tensor(a, name)) return asm_error(a, col, "'%s' is a tensor; a constant needs another name", name);
  if (sym_set(a, name, v)) return asm_error(a, col, "out of memory");
  return 0;
}

typedef struct {
  size_t body, body_end;   // the body: text[body, body_end)
  size_t els, els_end;     // .if: text after .else, up to body_end ([els, els) when none)
  size_t after;            // first position after the closing line
  int body_line;           // line number of text[body]
  int else_line;           // line of the .else (0: none)
  int close_line;          // line of the .endr / .endif
  uint64_t lines, bytes;   // lines and bytes of the body (the closing line counted)
} Block;

// Finds the end of the block opened on line a->lineno (kind L_REP or L_IF), whose body starts
// at text[pos]: the matching .endr/.endif, checking that the blocks inside nest properly and
// no deeper than `room` levels. Returns 0, or -1 after reporting (the block cannot be skipped:
// the caller stops).
static int scan_block(Asm *a, const char *text, size_t end, size_t pos, LineKind kind, int room, Block *b) {
  LineKind stack[ASM_MAX_NESTING];
  int lines[ASM_MAX_NESTING];
  int depth = 0, open_line = a->lineno, ln = a->lineno;
  LineKind close = kind == L_REP ? L_ENDR : L_ENDIF;
  memset(b, 0, sizeof *b);
  b->body = pos;
  b->body_line = ln + 1;
  while (pos < end) {
    const char *line;
    size_t len, after = 0, start = pos;
    next_line(text, end, &pos, &line, &len);
    ln++;
    b->lines++;
    b->bytes += len + 1;
    LineKind k = line_kind(line, len, &after);
    if (k == L_REP || k == L_IF) {
      if (depth >= room) {
        set_line(a, line, len, ln);
        return asm_error(a, 1, "%s nested more than %d deep (blocks: .rep, .if)", kind_name(k), ASM_MAX_NESTING);
      }
      stack[depth] = k;
      lines[depth++] = ln;
    } else if (k == L_ENDR || k == L_ENDIF) {
      LineKind want = depth ? (stack[depth - 1] == L_REP ? L_ENDR : L_ENDIF) : close;
      if (k != want) {
        set_line(a, line, len, ln);
        return asm_error(a, 1, "%s where the %s at line %d needs %s", kind_name(k),
                         kind_name(depth ? stack[depth - 1] : kind), depth ? lines[depth - 1] : open_line,
                         kind_name(want));
      }
      if (depth) {
        depth--;
        continue;
      }
      if (b->else_line) {
        b->els_end = start;
      } else {
        b->body_end = start;
        b->els = b->els_end = start;
      }
      b->after = pos;
      b->close_line = ln;
      set_line(a, line, len, ln);
      a->pos = after;
      if (!lex_at_end(a)) return asm_error(a, lex_col(a), "unexpected text after %s", kind_name(k));
      return 0;
    } else if (k == L_ELSE && depth == 0 && kind == L_IF) {
      if (b->else_line) {
        set_line(a, line, len, ln);
        return asm_error(a, 1, "second .else for the .if at line %d (its first is at line %d)", open_line, b->else_line);
      }
      b->else_line = ln;
      b->els = pos;
      b->body_end = start;   // the first part ends here
    }
  }
  a->lineno = open_line;
  a->line = "";
  a->len = 0;
  return asm_error(a, 1, "%s without %s (the file ends first)", kind_name(kind), kind_name(close));
}

static int run_lines(Asm *a, const char *text, size_t start, size_t end, int lineno);

// The cap on lines run by .rep iterations: ASM_MAX_REP_LINES, or the smaller one of the options.
static uint64_t rep_line_cap(const Asm *a) {
  uint64_t o = a->opt.max_rep_lines;
  return o && o < ASM_MAX_REP_LINES ? o : ASM_MAX_REP_LINES;
}

// `.rep COUNT[, NAME]` on line a->lineno, its body from text[*pos]; *pos and *ln move past
// its .endr. -1 when the text after it cannot be read (a block without its end).
static int do_rep(Asm *a, const char *text, size_t end, size_t *pos, int *ln) {
  int rep_line = a->lineno, col = 1;
  int64_t count = 0;
  char var[ASM_SYM_MAX] = "";
  int count_col = (lex_at_end(a), lex_col(a));
  int err = read_expr(a, ".rep count", 1, &count);
  if (!err) {
    lex_at_end(a);
    if (a->pos < a->len && a->line[a->pos] == ',') {
      a->pos++;
      col = (lex_at_end(a), lex_col(a));
      err = read_name(a, ".rep index", var);
      const RepFrame *f = err ? NULL : index_named(a, var);
      if (f) err = asm_error(a, col, "index '%s' is already the index of the .rep at line %d", var, f->line);
      else if (!err && asm_find_tensor(a, var)) err = asm_error(a, col, "'%s' is a tensor; an index needs another name", var);
    }
    if (!err && !lex_at_end(a)) err = asm_error(a, lex_col(a), "unexpected text after .rep COUNT, NAME");
    if (!err && count < 0) err = asm_error(a, count_col, ".rep count %lld is negative", (long long)count);
  }
  Block b;
  if (scan_block(a, text, end, *pos, L_REP, ASM_MAX_NESTING - a->block_depth - 1, &b)) return -1;
  *pos = b.after;
  *ln = b.close_line;
  if (err) return 0;   // skip the block
  a->lineno = rep_line;
  uint64_t left_lines = rep_line_cap(a) - a->rep_lines, left_bytes = ASM_MAX_REP_BYTES - a->rep_bytes;
  if ((uint64_t)count > left_lines / b.lines || (uint64_t)count > left_bytes / b.bytes) {
    a->line = "";
    a->len = 0;
    asm_error(a, 1,
              ".rep %lld (x %llu lines, .endr included) passes the limit of %llu lines that .rep iterations may "
              "run in all (%llu so far)",
              (long long)count, (unsigned long long)b.lines, (unsigned long long)rep_line_cap(a),
              (unsigned long long)a->rep_lines);
    return -1;
  }
  if (a->rep_depth >= ASM_MAX_NESTING) return asm_error(a, 1, ".rep nested more than %d deep", ASM_MAX_NESTING);
  int errors = a->errors, rc = 0;
  a->block_depth++;
  RepFrame *f = &a->rep[a->rep_depth++];
  f->line = rep_line;
  memcpy(f->var, var, sizeof f->var);
  for (int64_t i = 0; i < count && a->errors == errors && rc == 0; i++) {   // stop after an iteration with errors
    f->index = i;
    a->rep_lines++;   // the .endr
    a->rep_bytes += 1;
    rc = run_lines(a, text, b.body, b.body_end, b.body_line);
  }
  a->rep_depth--;
  a->block_depth--;
  return rc;
}

// `.if EXPR` on line a->lineno: runs one of its parts.
static int do_if(Asm *a, const char *text, size_t end, size_t *pos, int *ln) {
  int64_t c = 0;
  int err = read_expr(a, ".if condition", 0, &c);
  Block b;
  if (scan_block(a, text, end, *pos, L_IF, ASM_MAX_NESTING - a->block_depth - 1, &b)) return -1;
  *pos = b.after;
  *ln = b.close_line;
  if (err) return 0;
  a->block_depth++;
  int rc = c ? run_lines(a, text, b.body, b.body_end, b.body_line) : run_lines(a, text, b.els, b.els_end, b.else_line + 1);
  a->block_depth--;
  return rc;
}

// Runs the lines of text[start, end), the first of which is line `lineno`. -1 when the rest
// cannot be read (a block without its end, the .rep limit); other errors are reported and the
// next line follows.
static int run_lines(Asm *a, const char *text, size_t start, size_t end, int lineno) {
  size_t pos = start;
  int ln = lineno - 1;
  while (pos < end && a->errors < ASM_MAX_ERRORS) {
    const char *line;
    size_t len, after = 0;
    next_line(text, end, &pos, &line, &len);
    set_line(a, line, len, ++ln);
    if (a->rep_depth) {
      a->rep_lines++;
      a->rep_bytes += len + 1;
      if (a->rep_lines > rep_line_cap(a) || a->rep_bytes > ASM_MAX_REP_BYTES)
        return asm_error(a, 1, ".rep iterations pass the limit of %llu lines (%llu bytes) that they may run in all",
                         (unsigned long long)rep_line_cap(a), (unsigned long long)ASM_MAX_REP_BYTES);
    }
    LineKind k = line_kind(line, len, &after);
    if (k != L_OTHER) {
      a->pos = after;
      a->open_chunk = -1;   // like any statement but .data/.bytes, a directive ends the chunk .bytes extends
    }
    switch (k) {
    case L_OTHER: asm_statement(a); break;
    case L_SET: do_set(a); break;
    case L_REP:
      if (do_rep(a, text, end, &pos, &ln)) return -1;
      break;
    case L_IF:
      if (do_if(a, text, end, &pos, &ln)) return -1;
      break;
    case L_ENDR:
    case L_ELSE:
    case L_ENDIF:
      asm_error(a, 1, "%s without %s", kind_name(k), k == L_ENDR ? ".rep" : ".if");
      break;
    }
  }
  a->lineno = ln;   // the last line read (for messages about the whole text)
  return 0;
}

int asm_run(Asm *a, const char *text, size_t len) { return run_lines(a, text, 0, len, 1); }
