// asm_loops_test.c: tests the assembler's loop language (isa/asm_block.c, isa/asm_expr.c,
// docs/ASM.md "Loops, conditions and constants"): .rep expansions (nested, with indices in
// operand expressions) give the binary of the same program written out flat; .if/.else,
// .set/.equ; the value of every operator; errors name the line and the iteration; the limits
// (nesting, lines run by .rep, expression depth) fail at once; source lines of loop bodies reach
// the race checker; and workloads/asm/gemm_tiled_loops.s assembles to the bytes of gemm_tiled.s.
// Run from the repository root.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../isa/racecheck.h"
#include "../common/check.h"

// ---- helpers ----

// The binary of text (prog_write, uncompressed), or NULL after a CHECK failure. *n its length.
static uint8_t *binary_of(const char *text, const char *file, size_t *n) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  uint8_t *b = NULL;
  if (asm_assemble(text, strlen(text), file, &p, &d)) {
    CHECK(0, "%s: unexpected error: %s", file, diag_first(&d));
    return NULL;
  }
  if (prog_write(p, 0, &b, n, &d)) CHECK(0, "%s: prog_write: %s", file, diag_first(&d));
  prog_free(p);
  return b;
}

// Both texts assemble, to the same bytes.
static void expect_same(const char *loops, const char *flat) {
  size_t n1 = 0, n2 = 0;
  uint8_t *b1 = binary_of(loops, "loops.s", &n1), *b2 = binary_of(flat, "flat.s", &n2);
  CHECK(b1 && b2 && n1 == n2 && !memcmp(b1, b2, n1), "binaries differ:\n--- loops\n%s--- flat\n%s", loops, flat);
  free(b1);
  free(b2);
}

// Assembling text (as "t.s") fails with exactly `want` as its first message.
static void expect_error(const char *text, const char *want) {
  Diag d;
  diag_init(&d);
  Program *p = (Program *)1;
  int rc = asm_assemble(text, strlen(text), "t.s", &p, &d);
  CHECK(rc == -1 && p == NULL, "accepted: %s", text);
  CHECK(!strcmp(diag_first(&d), want), "\n  text: %s\n  got:  %s\n  want: %s", text, diag_first(&d), want);
  if (rc == 0) prog_free(p);
}

// The value of `expr` as the assembler computes it: the MULT field (32-bit signed) of a CFG_LOAD.
static long long value_of(const char *sets, const char *expr) {
  char text[1024];
  snprintf(text, sizeof text, "%s\nCFG_LOAD mult=(%s)\nHALT\n", sets, expr);
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (asm_assemble(text, strlen(text), "v.s", &p, &d)) {
    CHECK(0, "%s: %s", expr, diag_first(&d));
    return -999999;
  }
  Insn in = prog_insn(p, 0);
  prog_free(p);
  return (long long)in.f[FLD_MULT];
}

#define PRE "PRELOAD src=0 rows=16\n"   // so that COMPUTEs are legal

// ---- expansions ----

static void test_rep(void) {
  // A counted loop with its index in operands.
  expect_same(PRE ".rep 3, i\nCOMPUTE src=i*16 acc_addr=i*16 rows=16\n.endr\nHALT\n",
              PRE "COMPUTE src=0 acc_addr=0 rows=16\nCOMPUTE src=16 acc_addr=16 rows=16\n"
                  "COMPUTE src=32 acc_addr=32 rows=16\nHALT\n");
  // Without an index; .rep 0 runs nothing; an index outlives nothing after .endr.
  expect_same(PRE ".rep 2\nCOMPUTE rows=1\n.endr\n.rep 0, k\nCOMPUTE rows=k\n.endr\nHALT\n",
              PRE "COMPUTE rows=1\nCOMPUTE rows=1\nHALT\n");
  // Nested, the inner count depending on the outer index (a triangle), both indices used.
  expect_same(PRE ".rep 3, i\n  .rep i+1, j\n    COMPUTE src=i acc_addr=j rows=1 ; i, j\n  .endr\n.endr\nHALT\n",
              PRE "COMPUTE src=0 acc_addr=0 rows=1\nCOMPUTE src=1 acc_addr=0 rows=1\nCOMPUTE src=1 acc_addr=1 rows=1\n"
                  "COMPUTE src=2 acc_addr=0 rows=1\nCOMPUTE src=2 acc_addr=1 rows=1\nCOMPUTE src=2 acc_addr=2 rows=1\n"
                  "HALT\n");
  // An inner index shadows nothing: a different name is required, but .set names may be shadowed.
  expect_same(".set i, 7\n" PRE ".rep 2, i\nCOMPUTE rows=i+1\n.endr\nCOMPUTE rows=i\nHALT\n",
              PRE "COMPUTE rows=1\nCOMPUTE rows=2\nCOMPUTE rows=7\nHALT\n");
  // Case-insensitive directives, comments and blanks everywhere, CRLF line ends.
  expect_same(PRE "  .REP 2 , n ; two\r\n\tCOMPUTE rows=(n + 1) ; blanks inside parentheses\r\n .EndR ; done\r\nHALT\n",
              PRE "COMPUTE rows=1\nCOMPUTE rows=2\nHALT\n");
  // Data and tensors: .data in a loop makes one chunk per iteration; tensors resolve inside.
  expect_same(".tensor T dtype=int8 shape=[64] addr=0x100 role=input\n.rep 2, i\n.data T+i*16 0a\n.endr\n"
              "CFG_LOAD stride_inner=16\n.rep 2, i\nLOAD mem=spad dst=i dram_addr=T+16*i outer=1 inner=1 nseg=1 seglen=16\n"
              ".endr\nHALT\n",
              ".tensor T dtype=int8 shape=[64] addr=0x100 role=input\n.data 0x100 0a\n.data 0x110 0a\n"
              "CFG_LOAD stride_inner=16\nLOAD mem=spad dst=0 dram_addr=0x100 outer=1 inner=1 nseg=1 seglen=16\n"
              "LOAD mem=spad dst=1 dram_addr=0x110 outer=1 inner=1 nseg=1 seglen=16\nHALT\n");
  // Units as expressions: load=1, compute=2, store=4, sfu=8.
  expect_same(PRE ".rep 3, s\nCOMPUTE rows=1 pop=load*(s>0) push=store*(s==2)|load*(s<2)\n.endr\nHALT\n",
              PRE "COMPUTE rows=1 push=load\nCOMPUTE rows=1 pop=load push=load\nCOMPUTE rows=1 pop=load push=store\n"
                  "HALT\n");
  check_case("asm_loops_rep_expansions");

  // .if / .else, nested in loops and in each other.
  expect_same(PRE ".rep 4, i\n.if i % 2\nCOMPUTE rows=1\n.else\n.if i == 0\nCOMPUTE rows=2\n.endif\nCOMPUTE rows=3\n"
                  ".endif\n.endr\nHALT\n",
              PRE "COMPUTE rows=2\nCOMPUTE rows=3\nCOMPUTE rows=1\nCOMPUTE rows=3\nCOMPUTE rows=1\nHALT\n");
  expect_same(PRE ".if 0\nCOMPUTE rows=9\n.endif\n.if 1\nCOMPUTE rows=8\n.endif\nHALT\n", PRE "COMPUTE rows=8\nHALT\n");
  // .set and .equ: constants, redefinable, from other constants; a running sum in a loop.
  expect_same(".set N, 4\n.equ M, N*2\n.set acc, 0\n" PRE ".rep N, i\n.set acc, acc + i\nCOMPUTE rows=M acc_addr=acc\n"
              ".endr\nHALT\n",
              PRE "COMPUTE rows=8 acc_addr=0\nCOMPUTE rows=8 acc_addr=1\nCOMPUTE rows=8 acc_addr=3\n"
                  "COMPUTE rows=8 acc_addr=6\nHALT\n");
  // Legacy operand forms keep their meaning: TENSOR+off, TENSOR-off, negative hex.
  expect_same(".tensor X dtype=int8 shape=[16] addr=0x100 role=input\nCFG_LOAD mult=-0x5\n"
              "LOAD mem=spad dram_addr=X-0x10 outer=1 inner=1 nseg=1 seglen=1\nHALT\n",
              ".tensor X dtype=int8 shape=[16] addr=0x100 role=input\nCFG_LOAD mult=-5\n"
              "LOAD mem=spad dram_addr=0xf0 outer=1 inner=1 nseg=1 seglen=1\nHALT\n");
  check_case("asm_loops_if_set");
}

static void test_operators(void) {
  static const struct {
    const char *expr;
    long long v;
  } cases[] = {
      {"1+2*3", 7},        {"(1+2)*3", 9},       {"7/2", 3},          {"-7/2", -3},        {"7%3", 1},
      {"-7%3", -1},        {"1<<4", 16},         {"-16>>2", -4},      {"-1>>63", -1},      {"-7>>1", -4},
      {"6&3", 2},          {"6|3", 7},           {"6^3", 5},          {"~0", -1},          {"!0", 1},
      {"!5", 0},           {"3<4", 1},           {"4<=4", 1},         {"5>6", 0},          {"6>=7", 0},
      {"2==2", 1},         {"2!=2", 0},          {"1&&2", 1},         {"0||0", 0},         {"0?5:6", 6},
      {"1?5:6", 5},        {"min(3, -4)", -4},   {"max(3,-4)", 3},    {"min(max(1,2),3)", 2},
      {"1 + 2 << 1", 6},   {"1 | 2 == 2", 1},    {"2*3 % 4", 2},      {"- -3", 3},         {"+4", 4},
      {"0x10 + 010", 26},  {"1?2:0?3:4", 2},     {"0 && 1/0", 0},     {"1 || 1/0", 1},     {"1 ? 7 : 1%0", 7},
      {"N*N - K", 12},     {"A+1", 0x101},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    long long got = value_of(".set N, 4\n.set K, 4\n.tensor A dtype=int8 shape=[1] addr=0x100 role=input",
                             cases[i].expr);
    CHECK(got == cases[i].v, "%s = %lld, expected %lld", cases[i].expr, got, cases[i].v);
  }
  // 64-bit intermediate values.
  CHECK(value_of(".set big, 0x7fffffffffffffff", "big - (big - 5)") == 5, "int64 intermediates");
  CHECK(value_of(".set big, 1 << 62", "(big >> 60) + (big / big)") == 5, "int64 shifts");
  check_case("asm_loops_operators");
}

// ---- errors ----

static void test_errors(void) {
  // Inside a loop: the line, then the iteration of each enclosing .rep, outermost first.
  expect_error(".rep 3, i\nPRELOAD src=0 rows=i*8+1\n.endr\nHALT\n",
               "t.s:2:1: error: in .rep at line 1, i=2: PRELOAD ROWS=17 exceeds array.rows=16");
  expect_error(PRE ".rep 3, i\n.rep 4\nCOMPUTE rows=20 acc_addr=8/(2-i)\n.endr\n.endr\nHALT\n",
               "t.s:4:27: error: in .rep at line 2, i=2; in .rep at line 3, iteration 0: acc_addr: division by zero ('/' 0)");
  expect_error(PRE ".rep 2, i\nCOMPUTE rows=(i ? 70000 : 1)\n.endr\nHALT\n",
               "t.s:3:14: error: in .rep at line 2, i=1: rows=70000 out of range [1, 65535]");
  // The first iteration with errors is the last one run: one message, not one per iteration.
  Diag d;
  diag_init(&d);
  Program *p;
  const char *rep_err = PRE ".rep 10, i\nCOMPUTE rows=0\n.endr\nHALT\n";
  CHECK(asm_assemble(rep_err, strlen(rep_err), "t.s", &p, &d) == -1 && d.count == 1, "%d messages", d.count);
  // Expressions.
  expect_error(PRE "COMPUTE rows=x+1\nHALT\n",
               "t.s:2:14: error: rows: undefined name 'x' (not a .rep index, a .set constant or a tensor declared above)");
  expect_error("LOAD dram_addr=Y+4 outer=1 inner=1 nseg=1 seglen=1\nHALT\n",
               "t.s:1:16: error: undeclared tensor 'Y' (declare it with .tensor before its use)");
  expect_error(".set a, 5 % (2 - 2)\nHALT\n", "t.s:1:11: error: a: division by zero ('%' 0)");
  expect_error(".set a, 0x7fffffffffffffff + 1\nHALT\n",
               "t.s:1:28: error: a: 9223372036854775807 + 1 does not fit in a 64-bit signed integer");
  expect_error(".set a, -0x7fffffffffffffff - 2\nHALT\n",
               "t.s:1:29: error: a: -9223372036854775807 - 2 does not fit in a 64-bit signed integer");
  expect_error(".set a, 3 << 62\nHALT\n", "t.s:1:11: error: a: 3 << 62 does not fit in a 64-bit signed integer");
  expect_error(".set a, 1 << 64\nHALT\n", "t.s:1:11: error: a: shift count 64 out of range [0, 63]");
  expect_error(".set a, 1 >> -1\nHALT\n", "t.s:1:11: error: a: shift count -1 out of range [0, 63]");
  expect_error(".set a, 99999999999999999999\nHALT\n", "t.s:1:9: error: a: number '99999999999999999999' is too large");
  expect_error(".set a, (1 + 2\nHALT\n", "t.s:1:9: error: a: missing ')' for this '('");
  expect_error(".set a, 1 + 2)\nHALT\n", "t.s:1:14: error: a: ')' without its '('");
  expect_error(".set a, 1 +\nHALT\n", "t.s:1:12: error: a: expression '1 +' ends early");
  expect_error(".set a, 1 $ 2\nHALT\n", "t.s:1:11: error: a: unexpected '$' in expression '1 $ 2'");
  expect_error(".set a, 1 ? 2\nHALT\n", "t.s:1:11: error: a: '?' without its ':'");
  expect_error(".set a, min(1)\nHALT\n", "t.s:1:12: error: a: min(a, b) takes two operands");
  expect_error(".set a, 12x\nHALT\n", "t.s:1:9: error: a: expected a number, got '12x'");
  expect_error(PRE "COMPUTE rows=(1 + ; oops\nHALT\n", "t.s:2:19: error: rows: expression '(1 + ' ends early");
  expect_error(PRE "COMPUTE rows=1 pop=load*16\nHALT\n",
               "t.s:2:20: error: pop=16 is not a set of units (load=1, compute=2, store=4, sfu=8, or their sum)");
  expect_same(PRE "COMPUTE rows=1 pop=load*8|store\nHALT\n", PRE "COMPUTE rows=1 pop=sfu,store\nHALT\n");
  expect_error(PRE "COMPUTE rows=1 pop=compute*1\nHALT\n",
               "t.s:2:20: error: pop names its own unit: COMPUTE runs on the compute unit");
  // Deep expressions stop at ASM_EXPR_MAX_DEPTH, without recursing further.
  char deep[400];
  snprintf(deep, sizeof deep, ".set a, %.*s1\nHALT\n", 80, "--------------------------------------------------------------------------------");
  expect_error(deep, "t.s:1:72: error: a: expression nested more than 64 deep");
  // Directives.
  expect_error(".set 1a, 2\nHALT\n", "t.s:1:6: error: bad name '1a' for .set (a letter or '_', then letters, digits, '_'; at most 63 bytes)");
  expect_error(".set a 2\nHALT\n", "t.s:1:8: error: expected ',' after the name in .set NAME, EXPR");
  expect_error(".set a,\nHALT\n", "t.s:1:8: error: expected an expression for a");
  expect_error(".rep 2, i\n.set i, 3\n.endr\nHALT\n",
               "t.s:2:6: error: in .rep at line 1, i=0: 'i' is the index of the .rep at line 1; .set cannot change it");
  expect_error(".rep 2, i\n.rep 2, i\n.endr\n.endr\nHALT\n",
               "t.s:2:9: error: in .rep at line 1, i=0: index 'i' is already the index of the .rep at line 1");
  expect_error(".tensor A dtype=int8 shape=[1] addr=0 role=input\n.set A, 1\nHALT\n",
               "t.s:2:6: error: 'A' is a tensor; a constant needs another name");
  expect_error(".tensor A dtype=int8 shape=[1] addr=0 role=input\n.rep 2, A\n.endr\nHALT\n",
               "t.s:2:9: error: 'A' is a tensor; an index needs another name");
  expect_error(".set A, 1\n.tensor A dtype=int8 shape=[1] addr=0 role=input\nHALT\n",
               "t.s:2:9: error: tensor name 'A' is a .set constant already");
  expect_error(".rep -1\n.endr\nHALT\n", "t.s:1:6: error: .rep count -1 is negative");
  expect_error(".rep 2 i\n.endr\nHALT\n", "t.s:1:8: error: .rep count: unexpected 'i' in expression '2 i'");
  expect_error(".rep 2, i j\n.endr\nHALT\n", "t.s:1:11: error: unexpected text after .rep COUNT, NAME");
  expect_error(".rep\n.endr\nHALT\n", "t.s:1:5: error: expected an expression for .rep count");
  expect_error(".rep 2\nHALT\n", "t.s:1:1: error: .rep without .endr (the file ends first)");
  expect_error(".if 1\nHALT\n", "t.s:1:1: error: .if without .endif (the file ends first)");
  expect_error(".rep 2\n.if 1\nHALT\n.endr\n.endif\n", "t.s:4:1: error: .endr where the .if at line 2 needs .endif");
  expect_error(".rep 2\nHALT\n.endif\n", "t.s:3:1: error: .endif where the .rep at line 1 needs .endr");
  expect_error(".if 1\n.else\n.else\n.endif\nHALT\n", "t.s:3:1: error: second .else for the .if at line 1 (its first is at line 2)");
  expect_error(".rep 1\n.endr x\nHALT\n", "t.s:2:7: error: unexpected text after .endr");
  expect_error(".endr\nHALT\n", "t.s:1:1: error: .endr without .rep");
  expect_error(".else\nHALT\n", "t.s:1:1: error: .else without .if");
  expect_error(".endif\nHALT\n", "t.s:1:1: error: .endif without .if");
  expect_error(".rep 1\n.else\n.endr\nHALT\n", "t.s:2:1: error: in .rep at line 1, iteration 0: .else without .if");
  check_case("asm_loops_errors");
}

// ---- limits ----

static void test_limits(void) {
  // Nesting: 16 blocks are fine, the 17th is refused at its line before anything runs.
  char text[4096];
  size_t n = 0;
  for (int i = 0; i < 16; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%s\n", i % 2 ? ".if 1" : ".rep 1");
  n += (size_t)snprintf(text + n, sizeof text - n, "LAYER layer_id=0\n");
  for (int i = 15; i >= 0; i--) n += (size_t)snprintf(text + n, sizeof text - n, "%s\n", i % 2 ? ".endif" : ".endr");
  snprintf(text + n, sizeof text - n, ".layer x\nHALT\n");
  expect_error(text, "t.s:17:1: error: in .rep at line 1, iteration 0; in .rep at line 3, iteration 0; in .rep at line "
                     "5, iteration 0; in .rep at line 7, iteration 0; in .rep at line 9, iteration 0; in .rep at line 11, "
                     "iteration 0; in .rep at line 13, iteration 0; in .rep at line 15, iteration 0: LAYER_ID=0 has no "
                     "name (the program names 0 layers)");
  n = 0;
  for (int i = 0; i < 17; i++) n += (size_t)snprintf(text + n, sizeof text - n, ".rep 1000000000\n");
  for (int i = 0; i < 17; i++) n += (size_t)snprintf(text + n, sizeof text - n, ".endr\n");
  snprintf(text + n, sizeof text - n, "HALT\n");
  expect_error(text, "t.s:17:1: error: .rep nested more than 16 deep (blocks: .rep, .if)");
  // Lines run by .rep: refused before the first iteration when COUNT x body does not fit.
  expect_error(".rep 4000000000\nLAYER layer_id=0\n.endr\nHALT\n",
               "t.s:1:1: error: .rep 4000000000 (x 2 lines, .endr included) passes the limit of 1048576 lines that .rep "
               "iterations may run in all (0 so far)");
  expect_error(".rep 0x7fffffffffffffff, i\n.endr\nHALT\n",
               "t.s:1:1: error: .rep 9223372036854775807 (x 1 lines, .endr included) passes the limit of 1048576 lines "
               "that .rep iterations may run in all (0 so far)");
  // Exactly the limit is fine (an empty body costs its .endr), one more is not.
  size_t un = 0;
  uint8_t *b = binary_of(".rep 1048576\n.endr\nHALT\n", "limit.s", &un);
  CHECK(b != NULL, "a .rep of exactly the limit");
  free(b);
  expect_error(".rep 1048575\n.endr\n.rep 2\n.endr\nHALT\n",
               "t.s:3:1: error: .rep 2 (x 1 lines, .endr included) passes the limit of 1048576 lines that .rep "
               "iterations may run in all (1048575 so far)");
  // Nested loops whose product passes the limit stop when the budget runs out (a fraction of a second).
  Diag d;
  diag_init(&d);
  Program *p;
  const char *nested = ".rep 1000\n.rep 2000\n.endr\n.endr\nHALT\n";
  CHECK(asm_assemble(nested, strlen(nested), "t.s", &p, &d) == -1 &&
            strstr(diag_first(&d), "t.s:2:1: error: in .rep at line 1, iteration ") &&
            strstr(diag_first(&d), "passes the limit of 1048576 lines"),
        "nested: %s", diag_first(&d));
  check_case("asm_loops_limits");
}

// ---- line numbers for the tools ----

static void test_lines(void) {
  // Each instruction carries the line of its loop body: sasim check and race reports use them.
  const char *text = ".arch \"workloads/arch/tiny.json\"\n"                                         // 1
                     ".layer g\n"                                                                 // 2
                     ".tensor A dtype=int8 shape=[8,4] addr=0x100 role=input data=seed:3\n"       // 3
                     ".tensor B dtype=int8 shape=[4,4] addr=0x200 role=const data=seed:4\n"       // 4
                     ".tensor C dtype=int32 shape=[8,4] addr=0x300 role=output\n"                 // 5
                     "LAYER layer_id=0\n"                                                         // 6
                     "CFG_LOAD stride_inner=4\n"                                                  // 7
                     "LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute\n"   // 8
                     "PRELOAD src=0 rows=4 pop=load\n"                                            // 9
                     ".rep 2, t\n"                                                                // 10
                     "  LOAD mem=spad dst=0 dram_addr=A+16*t outer=1 inner=4 nseg=1 seglen=4 push=compute\n"  // 11
                     "  COMPUTE src=0 acc_addr=4*t rows=4 pop=load push=store\n"                  // 12
                     ".endr\n"                                                                    // 13
                     "CFG_STORE stride_inner=16\n"                                                // 14
                     ".rep 2, t\n"                                                                // 15
                     "  STORE raw32=1 src=4*t dram_addr=C+64*t outer=1 inner=4 cols=4 pop=compute\n"  // 16
                     ".endr\n"                                                                    // 17
                     "HALT\n";                                                                    // 18
  static const uint32_t want[] = {6, 7, 8, 9, 11, 12, 11, 12, 14, 16, 16, 18};
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  uint32_t *lines = NULL;
  AsmOptions o;
  asm_options_default(&o);
  o.insn_lines = &lines;
  if (asm_assemble_opts(text, strlen(text), "race.s", &o, &p, &d)) {
    CHECK(0, "%s", diag_first(&d));
    check_case("asm_loops_source_lines");
    return;
  }
  CHECK(p->n_insns == sizeof want / sizeof want[0], "%u instructions", p->n_insns);
  for (uint32_t i = 0; i < p->n_insns && i < sizeof want / sizeof want[0]; i++)
    CHECK(lines[i] == want[i], "insn %u: line %u, expected %u", i, lines[i], want[i]);
  // The second LOAD overwrites SPAD rows 0..3 that the first COMPUTE reads: one race, named by lines.
  RcReports r = {0};
  CHECK(racecheck_run(p, &r, &d) == 0 && r.n == 1, "%u race reports: %s", r.n, diag_first(&d));
  if (r.n >= 1) {
    char msg[1024];
    racecheck_format(p, &r.r[0], "race.s", lines, 0, msg, sizeof msg);
    CHECK(strstr(msg, "race.s:11: error: race (WAR) on SPAD rows 0..3: insn 6 LOAD (load unit, line 11) writes them "
                      "and insn 5 COMPUTE (compute unit, line 12) reads them") != NULL,
          "report: %s", msg);
  }
  racecheck_reports_free(&r);
  free(lines);
  prog_free(p);
  check_case("asm_loops_source_lines");
}

// ---- the shipped loop program ----

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 20);
  *n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
  fclose(f);
  if (buf) buf[*n] = 0;
  return buf;
}

// The text of a file with `.arch tiny` (a shipped arch, found beside the sasim binary) made a
// path from the repository root, so that a test binary can assemble it too. malloc'd.
static char *text_of(const char *path) {
  size_t n = 0;
  char *t = read_file(path, &n);
  char *at = t ? strstr(t, "\n.arch tiny\n") : NULL;
  if (!at) return t;
  const char *rel = "\n.arch \"workloads/arch/tiny.json\"\n";
  char *u = malloc(n + strlen(rel) + 1);
  if (u) snprintf(u, n + strlen(rel) + 1, "%.*s%s%s", (int)(at - t), t, rel, at + strlen("\n.arch tiny\n"));
  free(t);
  return u;
}

static void test_gemm_tiled_loops(void) {
  static const char *const pairs[][2] = {
      {"workloads/asm/gemm_tiled_loops.s", "workloads/asm/gemm_tiled.s"},
      {"docs/exercises/answers/files/08-gemm-loops.s", "docs/exercises/answers/files/08-gemm-flat.s"},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    char *s1 = text_of(pairs[k][0]), *s2 = text_of(pairs[k][1]);
    CHECK(s1 && s2, "cannot read %s or %s", pairs[k][0], pairs[k][1]);
    if (s1 && s2) {
      // Assembled as if from the repository root (the files' own relative paths name workloads/).
      char f1[256], f2[256];
      snprintf(f1, sizeof f1, "%s", strstr(s1, "workloads/arch/tiny.json") ? "loops.s" : pairs[k][0]);
      snprintf(f2, sizeof f2, "%s", strstr(s2, "workloads/arch/tiny.json") ? "flat.s" : pairs[k][1]);
      size_t n1 = 0, n2 = 0;
      uint8_t *b1 = binary_of(s1, f1, &n1), *b2 = binary_of(s2, f2, &n2);
      CHECK(b1 && b2 && n1 == n2 && !memcmp(b1, b2, n1), "%s and %s assemble to different binaries", pairs[k][0],
            pairs[k][1]);
      free(b1);
      free(b2);
    }
    free(s1);
    free(s2);
  }
  check_case("asm_loops_gemm_tiled_byte_identical");
}

int main(void) {
  test_rep();
  test_operators();
  test_errors();
  test_limits();
  test_lines();
  test_gemm_tiled_loops();
  return check_status();
}
