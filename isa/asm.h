// asm.h: the assembly language of the machine (docs/ASM.md): text <-> Program.
// The assembler checks every instruction as it reads it (isa_check_fields, prog_check_insn) and
// the whole program at the end (prog_check), and reports errors as "file:line:col: error: msg".
// The disassembler prints any valid Program as text that assembles back to the same Program:
// prog_write of both is byte-identical.
#ifndef SA_ASM_H
#define SA_ASM_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "program.h"

typedef struct {
  int allow_files;          // 1: `.arch "x.json"` and `data=x.npy` may read files; 0: they are errors
  uint64_t max_data_bytes;  // cap on the initial DRAM data of the program (0: dram.bytes)
  uint64_t max_rep_lines;   // cap on the lines .rep iterations run in all (0: ASM_MAX_REP_LINES, the most)
  uint32_t **insn_lines;    // OUT (NULL: not wanted): on success, each instruction's source line,
                            // malloc'd (caller frees); NULL on error
} AsmOptions;

// Default options: files allowed, data limited by the DRAM size.
void asm_options_default(AsmOptions *o);

// Assembles text[0..len) (need not be NUL-terminated). `file` names the source in messages and
// is the base for relative paths in `.arch "..."` and `data=...npy`. On success *out is a new
// Program (caller frees with prog_free) and 0 is returned; on error -1, *out = NULL, messages in d.
int asm_assemble(const char *text, size_t len, const char *file, Program **out, Diag *d);
int asm_assemble_opts(const char *text, size_t len, const char *file, const AsmOptions *opt, Program **out, Diag *d);
// Reads and assembles a file (at most ASM_FILE_MAX_BYTES, docs/ASM.md; text, no NUL byte).
#define ASM_FILE_MAX_BYTES ((size_t)1 << 30)
int asm_assemble_file(const char *path, Program **out, Diag *d);
int asm_assemble_file_opts(const char *path, const AsmOptions *opt, Program **out, Diag *d);

// Text of p: .arch, .layer, .tensor (without data), .data/.bytes, then every instruction with all
// the fields of its format. Returns a malloc'd NUL-terminated string, or NULL on out of memory.
char *asm_disassemble(const Program *p);
// One instruction as the disassembler prints it ("COMPUTE src=0 acc_addr=0 ..."), into out
// (truncated to n bytes; "" when out of memory). Returns out.
char *asm_insn_text(const Insn *in, char *out, size_t n);

#endif
