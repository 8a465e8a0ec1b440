// asm_lex.h: the assembler's context and its line scanner, shared by asm.c (statements),
// asm_tensor.c (.tensor) and asm_disasm.c (names and symbols). Internal to the assembler.
//
// The language is line-oriented: a statement is a word followed by operands, and ';' or '#'
// starts a comment. An operand value is one "value token":
//   [ ... ]     a list, up to the matching ']' on the same line (may contain spaces)
//   " ... "     a string with C escapes \" \\ \n \t \xHH
//   other       a run of characters up to white space or a comment
#ifndef SA_ASM_LEX_H
#define SA_ASM_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "asm.h"

typedef struct {
  const char *s;   // first character (the text is not NUL-terminated)
  size_t n;        // length in bytes
  int col;         // 1-based column of s[0]
} Tok;

// Bounds of the loop language (docs/ASM.md, "Limits"): nesting of .rep and .if blocks, and the
// lines (and bytes of them) that .rep iterations may run in all.
#define ASM_MAX_NESTING 16
#define ASM_MAX_REP_LINES ((uint64_t)1 << 20)
#define ASM_MAX_REP_BYTES ((uint64_t)1 << 28)
#define ASM_MAX_ERRORS DIAG_MAX_MSGS   // stop reading after this many errors
#define ASM_SYM_MAX 64          // a .set or .rep index name, including the NUL

typedef struct {
  int line;                 // source line of the .rep
  char var[ASM_SYM_MAX];    // its index name, "" when it has none
  int64_t index;            // the current iteration, from 0
} RepFrame;

typedef struct {
  char name[ASM_SYM_MAX];   // a .set / .equ constant
  int64_t value;
} AsmSym;

typedef struct {
  const char *file;       // source name for messages
  char *base_dir;         // prefix for relative paths ("" or "dir/"), owned
  AsmOptions opt;         // options
  Diag *d;                // error sink
  Program *p;             // the program being built
  ProgCheckState st;      // prog_check_insn's configuration state
  const char *line;       // current line (without its newline)
  size_t len;             // its length
  size_t pos;             // scan position in it
  int lineno;             // 1-based line number
  int errors;             // errors reported so far
  int arch_set;           // a .arch directive was seen
  int arch_locked;        // an instruction, .tensor or .data was seen: .arch is too late
  int64_t open_chunk;     // index of the chunk .bytes extends, or -1
  uint64_t data_bytes;    // initial DRAM data so far
  int last_insn_line;     // line and column of the last instruction (for "does not end with HALT")
  int last_insn_col;
  int *chunk_line;        // source line of each data chunk (for overlap messages), owned
  uint32_t cap_chunk_line;
  uint32_t *tensor_slot;  // hash index of p->tensors by name: tensor index + 1, 0 empty; owned
  size_t n_tensor_slots;  // a power of two, at least twice the tensors (asm_tensor.c)
  uint32_t *insn_line;    // source line of each instruction (opt.insn_lines set), owned until handed out
  uint32_t cap_insn_line;
  RepFrame rep[ASM_MAX_NESTING];  // the .rep iterations running, outermost first (asm_block.c)
  int rep_depth;          // entries of rep in use
  int block_depth;        // .rep and .if blocks open
  uint64_t rep_lines;     // lines run inside .rep iterations so far (at most ASM_MAX_REP_LINES)
  uint64_t rep_bytes;     // their bytes (at most ASM_MAX_REP_BYTES)
  AsmSym *syms;           // .set constants, owned (asm_expr.c)
  uint32_t n_syms, cap_syms;
  uint32_t *sym_slot;     // hash index of syms: index + 1, 0 empty; owned
  size_t n_sym_slots;     // a power of two, at least twice n_syms
} Asm;

// Runs the whole text (asm_block.c): line by line, with .rep/.if blocks and .set constants;
// every other line goes to asm_statement. Returns -1 when it had to stop before the end.
int asm_run(Asm *a, const char *text, size_t len);
// One statement (asm.c): the line is in a->line; an instruction or a directive other than the
// block ones. Errors are reported; returns 0 or -1.
int asm_statement(Asm *a);

// Reports "file:line:col: error: msg" and returns -1. Inside .rep iterations the message says
// which: "file:line:col: error: in .rep at line 8, i=3: msg".
int asm_error(Asm *a, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// Reports the first message of a nested Diag (arch_load_file, npy_read) at col as
// "<context>: <its location>: <its message>", without its own "error: " tag.
int asm_nested_error(Asm *a, int col, const char *context, const Diag *inner);

// Skips blanks; 1 when the line has nothing left but blanks or a comment.
int lex_at_end(Asm *a);
int lex_col(const Asm *a);
// Reads the next value token (see above). 0, or -1 after reporting.
int lex_value(Asm *a, Tok *t);
// Reads "key=value" (key: letters, digits, '_'). 0, or -1 after reporting.
int lex_operand(Asm *a, Tok *key, Tok *val);
// Reads a plain word (the statement name): up to white space or a comment.
int lex_word(Asm *a, Tok *t);

// Value of a hex digit, or -1.
int lex_hex_digit(char c);
// 1 when t equals s, ignoring case.
int tok_is(Tok t, const char *s);
// Copies t into buf as a C string (truncated to cap - 1).
void tok_cstr(Tok t, char *buf, size_t cap);
// An integer: decimal or 0x hex, with an optional '-'. `what` names it in messages.
int tok_int(Asm *a, Tok t, const char *what, int64_t *v);
// A name: a bare word, or a quoted string with escapes. Length 1..cap-1 (0 allowed if
// allow_empty); no NUL. `what` names it in messages.
int tok_name(Asm *a, Tok t, const char *what, int allow_empty, char *out, size_t cap);

// Iterates over the items of a list token "[a, b, c]".
typedef struct {
  Tok list;        // the whole token, brackets included
  size_t pos;      // next position inside it
  int started;     // an item was returned
} ListIter;
// 0: *list is a '[' token (else reports "expected a list for <what>").
int list_begin(Asm *a, Tok t, const char *what, ListIter *it);
// 1 and the next item in *item, 0 at the end, -1 after reporting a syntax error.
int list_next(Asm *a, ListIter *it, Tok *item);

// Lower-cases s into buf (for field and enum names).
const char *asm_lower(const char *s, char *buf, size_t cap);
// 1 when name can be written bare (and reread as the same name): [A-Za-z_][A-Za-z0-9_.]*.
int asm_name_is_bare(const char *name);

// .tensor directive (asm_tensor.c). The scan position is after ".tensor".
int asm_tensor(Asm *a);
// The declared tensor of that name, or NULL: a hash lookup (a program may declare hundreds of
// thousands of tensors, and every dram_addr=NAME looks one up).
const TensorInfo *asm_find_tensor(const Asm *a, const char *name);
// Checks that `bytes` more bytes of initial data at addr fit in DRAM and the data cap; `col`
// points at the offending token.
int asm_data_fits(Asm *a, int col, uint64_t addr, uint64_t len, uint64_t more);
// Adds a data chunk (prog_add_data) and remembers its source line. 0, or -1 after reporting.
int asm_add_chunk(Asm *a, int col, uint64_t addr, const void *bytes, uint64_t len);
// Resolves a path relative to the source file; malloc'd, or NULL after reporting.
char *asm_path(Asm *a, int col, const char *path);

#endif
