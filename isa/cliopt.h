// cliopt.h: the command lines of sacc and sasim, one option table per command (cliopt.c).
// A row says an option's spellings, whether it takes a value (its metavariable), the values it
// accepts when they are a fixed list, how often it may be given, and its help text. The parser,
// its error messages and `--help` are all generated from the rows, so the help cannot drift from
// what parses (STYLE.md §3: one table, many consumers). isa/ is the bottom library: sacc
// (compiler/sacc_cli.c) and sasim (sim/sasim_cli.c) each keep their tables and share this code.
//
// A command's loop (the caller switches over its own option enum, no default):
//   CliParser p;
//   cli_init(&p, &sacc_cli, &sacc_compile, argc, argv);   // argv: the words after the command
//   for (CliStatus st; (st = cli_next(&p)) != CLI_END;) {
//     if (st != CLI_OPTION && st != CLI_ARG) return cli_finish(&p, st);   // help printed, or usage error
//     if (st == CLI_ARG) { net = p.value; continue; }
//     switch ((CompileOpt)p.opt->id) { case COMPILE_SEED: ... }
//   }
// Messages name the tool, the command and the option (`sacc: compile: --seed needs a value`).
// Nothing here exits; messages are recorded in the parser's Diag until cli_finish prints them.
#ifndef SA_CLIOPT_H
#define SA_CLIOPT_H

#include <stdio.h>

#include "diag.h"

#define CLI_MAX_NAMES 3    // spellings per option
#define CLI_MAX_OPTS 32    // options per command

// One accepted value of an option with a fixed list (--dataflow ws|os|is).
typedef struct {
  const char *name;    // as typed; NULL ends the list
  int value;           // what the parser hands back in CliParser.choice
} CliChoice;

enum {
  CLI_LIST = 1   // the value is a comma-separated list of choices; CliParser.choice ORs their values
};

typedef struct {
  int id;                              // the command's own enum value, for the caller's switch
  const char *names[CLI_MAX_NAMES];    // spellings ("-o", "--output"); the first is the one --help shows first
  const char *metavar;                 // the value's name in --help ("FILE"); NULL: a flag, no value
  const CliChoice *choices;            // NULL, or the only values accepted (checked here, listed in --help)
  int max_count;                       // times it may be given: 0 means once; N > 1 means repeatable up to N
  unsigned flags;                      // CLI_LIST
  const char *help;                    // --help text; '\n' continues on the next line, indented
} CliOpt;

typedef struct {
  const char *name;       // "compile"
  const char *args;       // its positional argument in the usage line ("NET.json"); one at most
  const char *summary;    // one line for the tool's overview
  const char *about;      // `--help` text between the usage line and the options ('\n'-separated lines)
  const char *notes;      // `--help` text after the options, or NULL
  const CliOpt *opts;
  int n_opts;
} CliCommand;

typedef struct {
  const char *name;                  // "sacc"
  const char *notes;                 // the overview's last lines (exit status ...)
  const CliCommand *const *cmds;
  int n_cmds;
} CliTool;

typedef enum {
  CLI_OPTION,   // an option: p->opt is its row, p->value its value (NULL for a flag), p->choice
  CLI_ARG,      // a positional argument in p->value
  CLI_END,      // no more words
  CLI_HELP,     // -h or --help: cli_finish prints the command's help
  CLI_ERROR     // a usage error, recorded in p->diag: cli_finish prints it
} CliStatus;

typedef struct {
  const CliTool *tool;
  const CliCommand *cmd;
  int argc;
  char **argv;
  int next;                          // index of the next word in argv
  int n_args;                        // positional arguments seen
  int options_done;                  // after "--": every word is positional
  unsigned char count[CLI_MAX_OPTS]; // times each row of cmd->opts was given
  const CliOpt *opt;                 // CLI_OPTION: the row
  const char *spelling;              // CLI_OPTION: the spelling as given (without "=value")
  const char *value;                 // CLI_OPTION: its value (NULL for a flag); CLI_ARG: the argument
  int choice;                        // CLI_OPTION with choices: the chosen CliChoice.value (CLI_LIST: OR)
  Diag diag;                         // the usage error, if any
} CliParser;

void cli_init(CliParser *p, const CliTool *tool, const CliCommand *cmd, int argc, char **argv);
// The next word: an option (spellings exact; "--name=value" also works for value options), a
// positional argument, the end, help, or a usage error (unknown option, with a suggestion or
// the other commands that take it; missing value; value not in the list; given too often; a
// second positional argument).
CliStatus cli_next(CliParser *p);
// Records "TOOL: COMMAND: " fmt as the usage error and returns CLI_ERROR.
CliStatus cli_error(CliParser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// The current option's value is wrong: "TOOL: COMMAND: OPT: expected WHAT, got 'VALUE'".
CliStatus cli_bad_value(CliParser *p, const char *what);
// The current option's value as a decimal whole number >= min (digits only); else cli_bad_value.
CliStatus cli_uint(CliParser *p, unsigned long long min, unsigned long long *out);
// Ends a parse that stopped early: CLI_HELP prints the command's help to stdout and returns 0;
// CLI_ERROR prints the message and the usage line to stderr and returns 2 (the usage exit status).
int cli_finish(const CliParser *p, CliStatus st);

// The command named name, or NULL with "TOOL: unknown command 'NAME'" (and a suggestion) in d.
const CliCommand *cli_find_command(const CliTool *t, const char *name, Diag *d);
int cli_is_help(const char *word);   // -h or --help
// The tool's overview (commands and summaries) and one command's help.
void cli_help_tool(FILE *f, const CliTool *t);
void cli_help_command(FILE *f, const CliTool *t, const CliCommand *c);
// Checks a tool's tables: spellings start with '-' and are unique within a command, ids are
// unique, every row has help, choices have a metavariable, every spelling and choice appears in
// the generated help, and every spelling parses to its row. 0, or -1 with the first problems in
// d. Tests call it.
int cli_check_tool(const CliTool *t, Diag *d);
// Edit distance: insertions, deletions, substitutions and swaps of neighbours count 1 each;
// strings longer than 63 are far from everything (suggest_distance, case-sensitive).
int cli_distance(const char *a, const char *b);

#endif
