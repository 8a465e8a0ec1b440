// sacc_cli_test.c: sacc's option tables (compiler/sacc_cli.c) pass cli_check_tool: every row has
// help, every spelling is unique, appears in the generated --help and parses to its row; and the
// listed values map to the compiler's enums.
#include "../../compiler/sacc_cli.h"

#include <string.h>

#include "../../compiler/compile.h"
#include "../common/check.h"

int main(void) {
  Diag d;
  diag_init(&d);
  CHECK(!cli_check_tool(&sacc_cli, &d), "%s", diag_first(&d));
  check_case("sacc-cli-tables");
  CliParser p;
  const char *w[] = {"--dataflow", "is", "--emit=asm", "--dump-ir", "memplan", "--calib", "a.npy", "--calib", "b.npy",
                     NULL};
  cli_init(&p, &sacc_cli, &sacc_compile, 9, (char **)w);
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == COMPILE_DATAFLOW && p.choice == DF_IS, "--dataflow is");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == COMPILE_EMIT && p.choice == EMIT_ASM, "--emit=asm");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == COMPILE_DUMP_IR && !strcmp(p.value, "memplan"), "--dump-ir");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == COMPILE_CALIB, "--calib a");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == COMPILE_CALIB, "--calib b (repeatable)");
  CHECK(cli_next(&p) == CLI_END, "end");
  check_case("sacc-cli-compile");
  return check_status();
}
