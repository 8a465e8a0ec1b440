// asm_expr.h: integer expressions and named constants of the assembler (docs/ASM.md,
// "Expressions"). An operand value like `A+i*64` or `min(16, K-k0)` is evaluated here in 64-bit
// signed arithmetic with every overflow, division by zero and bad shift reported; names are
// .rep indices (innermost first), .set constants, then declared tensors (their address).
// Internal to the assembler (asm.c, asm_block.c); the context is Asm (asm_lex.h).
#ifndef SA_ASM_EXPR_H
#define SA_ASM_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "asm_lex.h"

#define ASM_EXPR_MAX_DEPTH 64   // parentheses and unary operators nested at most this deep

enum {
  EXPR_UNITS = 1,       // load, compute, store name the unit bits 1, 2, 4 (pop=, push=)
  EXPR_DRAM = 2,        // an unknown name is reported as an undeclared tensor (dram_addr=)
  EXPR_STOP_COMMA = 4,  // stop at a ',' outside parentheses (directive operands); else it is an error
};

// Evaluates the expression at s[0..n), whose first character is at column col; `what` names it
// in messages ("rows", ".rep count"). Without EXPR_STOP_COMMA the whole range must be one
// expression; with it, *used says where it stopped (at the ',' or the end). 0, or -1 after
// reporting at the offending column.
int expr_eval(Asm *a, const char *s, size_t n, int col, int flags, const char *what, int64_t *out, size_t *used);

// A .set / .equ constant: defines or redefines it. 0, or -1 when out of memory.
int sym_set(Asm *a, const char *name, int64_t v);
// The value of a .set constant; 1 when it exists.
int sym_get(const Asm *a, const char *name, int64_t *v);
// Frees the symbol table.
void sym_free(Asm *a);
// 1 when name[0..n) is a valid constant or index name: [A-Za-z_][A-Za-z0-9_]*, 1..63 bytes.
int sym_name_ok(const char *name, size_t n);

#endif
