// cliopt_test.c: tests isa/cliopt.c, the table-driven option parser, on a small tool of its own
// (every status, every message, --help) and checks sasim's real tables with cli_check_tool
// (sacc's are checked by tests/compiler/sacc_cli_test.c: sim/ and compiler/ never meet).
#include "../../isa/cliopt.h"

#include <stdlib.h>
#include <string.h>

#include "../../sim/run_cmd.h"
#include "../../sim/sasim_cli.h"
#include "../common/check.h"

enum { T_OUT, T_FAST, T_COLOR, T_UNITS, T_FILE };
static const CliChoice colors[] = {{"red", 10}, {"green", 20}, {"blue", 30}, {0, 0}};
static const CliChoice units[] = {{"a", 1}, {"b", 2}, {"c", 4}, {0, 0}};
static const CliOpt paint_opts[] = {
    {.id = T_OUT, .names = {"-o", "--output"}, .metavar = "FILE", .help = "where to write"},
    {.id = T_FAST, .names = {"--fast"}, .help = "go fast\nand far"},
    {.id = T_COLOR, .names = {"--color"}, .metavar = "C", .choices = colors, .help = "the paint"},
    {.id = T_UNITS, .names = {"--units"}, .metavar = "LIST", .choices = units, .flags = CLI_LIST, .help = "units"},
    {.id = T_FILE, .names = {"--file"}, .metavar = "F", .max_count = 3, .help = "an input file"},
};
static const CliOpt wash_opts[] = {
    {.id = 0, .names = {"--soap"}, .help = "use soap"},
    {.id = 1, .names = {"--fast"}, .help = "rinse quickly"},
};
static const CliCommand paint = {.name = "paint", .args = "WALL", .summary = "paint a wall", .about = "Paints.",
                                 .opts = paint_opts, .n_opts = 5};
static const CliCommand wash = {.name = "wash", .args = "CAR", .summary = "wash a car", .opts = wash_opts, .n_opts = 2};
static const CliCommand *const cmds[] = {&paint, &wash};
static const CliTool tool = {.name = "brush", .notes = "Exit 0.", .cmds = cmds, .n_cmds = 2};

// Parses words (NULL-terminated) with the paint command until the end or an error; returns the
// last status, with the parser left in p.
static CliStatus run(CliParser *p, const CliCommand *c, const char **words) {
  int n = 0;
  while (words[n]) n++;
  cli_init(p, &tool, c, n, (char **)words);
  CliStatus st;
  while ((st = cli_next(p)) == CLI_OPTION || st == CLI_ARG) {
  }
  return st;
}

// Expects words to fail with exactly msg.
static void expect_error(const char *msg, const char **words) {
  CliParser p;
  CliStatus st = run(&p, &paint, words);
  CHECK(st == CLI_ERROR, "%s: status %d, want an error", msg, (int)st);
  CHECK(!strcmp(diag_first(&p.diag), msg), "got \"%s\", want \"%s\"", diag_first(&p.diag), msg);
}

static void test_parse(void) {
  const char *w[] = {"-o", "x", "--fast", "--color=green", "--units", "c,a", "--file", "f1", "--file=f2", "--", "-",
                     NULL};
  CliParser p;
  cli_init(&p, &tool, &paint, 11, (char **)w);
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == T_OUT && !strcmp(p.value, "x") && !strcmp(p.spelling, "-o"),
        "-o x");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == T_FAST && !p.value, "--fast");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == T_COLOR && p.choice == 20, "--color=green");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == T_UNITS && p.choice == 5, "--units c,a");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == T_FILE && !strcmp(p.value, "f1"), "--file f1");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == T_FILE && !strcmp(p.value, "f2"), "--file=f2");
  CHECK(cli_next(&p) == CLI_ARG && !strcmp(p.value, "-"), "- after --");
  CHECK(cli_next(&p) == CLI_END, "end");
  // "--" ends the options; "-" alone is an argument (stdin), here a second one
  const char *w2[] = {"--", "--fast", NULL};
  CHECK(run(&p, &paint, w2) == CLI_END && p.n_args == 1, "-- makes --fast an argument");
  const char *w3[] = {"-", NULL};
  cli_init(&p, &tool, &paint, 1, (char **)w3);
  CHECK(cli_next(&p) == CLI_ARG && !strcmp(p.value, "-"), "- is an argument");
  const char *w4[] = {"--output", "y", "--fast", "-h", "--bogus", NULL};
  CHECK(run(&p, &paint, w4) == CLI_HELP, "-h stops the parse with CLI_HELP");
  const char *w5[] = {"--output", "y", NULL};
  cli_init(&p, &tool, &paint, 2, (char **)w5);
  CHECK(cli_next(&p) == CLI_OPTION && !strcmp(p.spelling, "--output") && p.opt->id == T_OUT, "second spelling");
  check_case("cliopt-parse");
}

static void test_errors(void) {
  expect_error("brush: paint: unknown option '--fats' (did you mean --fast?)", (const char *[]){"--fats", NULL});
  expect_error("brush: paint: unknown option '--colr' (did you mean --color?)", (const char *[]){"--colr", "red", NULL});
  expect_error("brush: paint: unknown option '--outp' (did you mean --output?)", (const char *[]){"--outp", NULL});
  expect_error("brush: paint: unknown option '--zzzzzz'", (const char *[]){"--zzzzzz", NULL});
  expect_error("brush: paint: unknown option '--colr' (did you mean --color?)", (const char *[]){"--colr=red", NULL});
  expect_error("brush: paint: unknown option '--soap' (brush wash takes it, not brush paint)",
               (const char *[]){"--soap", NULL});
  expect_error("brush: paint: -o needs a value (FILE)", (const char *[]){"x", "-o", NULL});
  expect_error("brush: paint: --color: expected red, green or blue, got 'pink'", (const char *[]){"--color", "pink", NULL});
  expect_error("brush: paint: --color: expected red, green or blue, got ''", (const char *[]){"--color=", NULL});
  expect_error("brush: paint: --units: expected a comma-separated list of a, b or c, got 'a,'",
               (const char *[]){"--units", "a,", NULL});
  expect_error("brush: paint: --units: expected a comma-separated list of a, b or c, got 'a,d'",
               (const char *[]){"--units", "a,d", NULL});
  expect_error("brush: paint: --fast given twice", (const char *[]){"--fast", "--fast", NULL});
  expect_error("brush: paint: --output given twice", (const char *[]){"-o", "a", "--output", "b", NULL});
  expect_error("brush: paint: --file given more than 3 times",
               (const char *[]){"--file", "1", "--file", "2", "--file", "3", "--file", "4", NULL});
  expect_error("brush: paint: --fast takes no value (got 'yes')", (const char *[]){"--fast=yes", NULL});
  expect_error("brush: paint: unexpected argument 'b' (brush paint takes one WALL)", (const char *[]){"a", "b", NULL});
  // a value is taken as it is, even when it looks like an option
  CliParser p;
  const char *w[] = {"-o", "--fast", NULL};
  CHECK(run(&p, &paint, w) == CLI_END, "-o --fast: --fast is the file");
  // caller-side value checks: numbers
  unsigned long long v = 7;
  const char *num[] = {"--file", "12", NULL};
  cli_init(&p, &tool, &paint, 2, (char **)num);
  CHECK(cli_next(&p) == CLI_OPTION && cli_uint(&p, 1, &v) == CLI_OPTION && v == 12, "cli_uint 12");
  const char *bad[] = {"--file", "-3", NULL};
  cli_init(&p, &tool, &paint, 2, (char **)bad);
  CHECK(cli_next(&p) == CLI_OPTION && cli_uint(&p, 0, &v) == CLI_ERROR, "cli_uint -3");
  CHECK(!strcmp(diag_first(&p.diag), "brush: paint: --file: expected a non-negative whole number, got '-3'"), "%s",
        diag_first(&p.diag));
  const char *zero[] = {"--file", "0", NULL};
  cli_init(&p, &tool, &paint, 2, (char **)zero);
  CHECK(cli_next(&p) == CLI_OPTION && cli_uint(&p, 1, &v) == CLI_ERROR, "cli_uint 0 with min 1");
  CHECK(!strcmp(diag_first(&p.diag), "brush: paint: --file: expected a positive whole number, got '0'"), "%s",
        diag_first(&p.diag));
  check_case("cliopt-errors");
}

static void test_commands(void) {
  Diag d;
  diag_init(&d);
  CHECK(cli_find_command(&tool, "wash", &d) == &wash && d.count == 0, "wash");
  CHECK(!cli_find_command(&tool, "wahs", &d), "wahs");
  CHECK(!strcmp(diag_first(&d), "brush: unknown command 'wahs' (did you mean wash?)"), "%s", diag_first(&d));
  diag_init(&d);
  CHECK(!cli_find_command(&tool, "xyzzy", &d), "xyzzy");
  CHECK(!strcmp(diag_first(&d), "brush: unknown command 'xyzzy'"), "%s", diag_first(&d));
  CHECK(cli_distance("kitten", "sitting") == 3, "distance kitten");
  CHECK(cli_distance("--fats", "--fast") == 1, "a swap counts 1");
  CHECK(cli_distance("", "abc") == 3 && cli_distance("abc", "abc") == 0, "distance to empty, to itself");
  check_case("cliopt-commands");
}

static char *help_of(const CliCommand *c) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (!f) return NULL;
  if (c) cli_help_command(f, &tool, c);
  else cli_help_tool(f, &tool);
  fclose(f);
  return text;
}

static void test_help(void) {
  char *h = help_of(&paint);
  CHECK(h && !strcmp(h, "usage: brush paint WALL [options]\n"
                        "  Paints.\n"
                        "\n"
                        "options:\n"
                        "  -o, --output FILE     where to write\n"
                        "  --fast                go fast\n"
                        "                        and far\n"
                        "  --color red|green|blue\n"
                        "                        the paint\n"
                        "  --units a,b,c         units\n"
                        "  --file F...           an input file\n"
                        "  -h, --help            print this help\n"),
        "paint help:\n%s", h ? h : "(null)");
  free(h);
  h = help_of(NULL);
  CHECK(h && strstr(h, "usage: brush <command> [options]\n") && strstr(h, "  paint WALL        paint a wall\n") &&
            strstr(h, "Exit 0.\n"),
        "tool help:\n%s", h ? h : "(null)");
  free(h);
  check_case("cliopt-help");
}

static void test_check_tool(void) {
  Diag d;
  diag_init(&d);
  CHECK(!cli_check_tool(&tool, &d), "test tool: %s", diag_first(&d));
  diag_init(&d);
  CHECK(!cli_check_tool(&sasim_cli, &d), "sasim: %s", diag_first(&d));
  // broken tables are caught
  static const CliOpt twice[] = {{.id = 0, .names = {"--a"}, .help = "a"}, {.id = 1, .names = {"--a"}, .help = "b"}};
  static const CliOpt same_id[] = {{.id = 0, .names = {"--a"}, .help = "a"}, {.id = 0, .names = {"--b"}, .help = "b"}};
  static const CliOpt no_help[] = {{.id = 0, .names = {"--a"}}};
  static const CliOpt no_dash[] = {{.id = 0, .names = {"a"}, .help = "a"}};
  static const CliOpt no_meta[] = {{.id = 0, .names = {"--a"}, .choices = colors, .help = "a"}};
  const struct {
    const CliOpt *opts;
    int n;
    const char *want;
  } bad[] = {{twice, 2, "--a spelt twice"},       {same_id, 2, "share an id"}, {no_help, 1, "no name or no help"},
             {no_dash, 1, "bad spelling 'a'"},      {no_meta, 1, "has choices but no metavariable"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CliCommand c = {.name = "x", .opts = bad[i].opts, .n_opts = bad[i].n};
    const CliCommand *cs[] = {&c};
    CliTool t = {.name = "t", .cmds = cs, .n_cmds = 1};
    diag_init(&d);
    CHECK(cli_check_tool(&t, &d) && strstr(diag_first(&d), bad[i].want), "%s: got \"%s\"", bad[i].want,
          diag_first(&d));
  }
  check_case("cliopt-check-tool");
}

// sasim run: the rules between options and the values parsed into RunArgs live in run_cmd.c;
// here only that the table's spellings reach the right rows with their values.
static void test_sasim_run(void) {
  CliParser p;
  const char *w[] = {"p.bin", "--mode", "detailed", "--engine=both", "--vcd-units", "array,load", NULL};
  cli_init(&p, &sasim_cli, &sasim_run, 6, (char **)w);
  CHECK(cli_next(&p) == CLI_ARG, "program");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == RUNOPT_MODE && p.choice == SIM_DETAILED, "--mode detailed");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == RUNOPT_ENGINE && p.choice == RUN_ENGINE_BOTH, "--engine=both");
  CHECK(cli_next(&p) == CLI_OPTION && p.opt->id == RUNOPT_VCD_UNITS && p.choice == (RUN_VCD_ARRAY | RUN_VCD_LOAD),
        "--vcd-units");
  CHECK(cli_next(&p) == CLI_END, "end");
  check_case("cliopt-sasim-run");
}

int main(void) {
  test_parse();
  test_errors();
  test_commands();
  test_help();
  test_check_tool();
  test_sasim_run();
  return check_status();
}
