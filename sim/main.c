// main.c: the `sasim` command line: run a program binary (run_cmd.c), check it for races,
// assemble, disassemble.
// Parses arguments (the option tables are in sasim_cli.c), calls the library, prints results;
// the only place that exits.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../isa/asm.h"
#include "../isa/fileio.h"
#include "../isa/racecheck.h"
#include "run_cmd.h"
#include "sasim_cli.h"

// --engine rtl|both: the RTL model is a separate program (Verilator, C++), sasim-rtl, built next
// to sasim by `make rtl`; sasim hands it the whole command line. sasim itself needs no Verilator.
static int exec_rtl(char **argv) {
  char self[4096], path[4200];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "sasim: error: --engine rtl: cannot find the sasim binary's directory\n");
    return 1;
  }
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (slash) *slash = 0;
  snprintf(path, sizeof path, "%s/sasim-rtl", self);
  if (access(path, X_OK)) {
    fprintf(stderr, "sasim: error: --engine rtl needs the RTL model, %s, which is not built: build it with make rtl\n",
            path);
    return 1;
  }
  argv[0] = path;
  execv(path, argv);
  fprintf(stderr, "sasim: error: cannot run %s: %s\n", path, strerror(errno));
  return 1;
}

static int cmd_run(int argc, char **argv) {
  RunArgs a;
  int rc = run_args_parse(argc - 2, argv + 2, &a);
  if (rc) return rc == 1 ? 0 : rc;
  if (a.engine != RUN_ENGINE_C) return exec_rtl(argv);
  return run_cmd(&a, NULL, NULL);
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

// `sasim check PROG`: the static race check (isa/racecheck.h). A .s file is assembled in memory,
// so the reports carry its line numbers.
static int cmd_check(int argc, char **argv) {
  const char *in = NULL, *json = NULL;
  CliParser cl;
  cli_init(&cl, &sasim_cli, &sasim_check, argc, argv);
  for (CliStatus st; (st = cli_next(&cl)) != CLI_END;) {
    if (st == CLI_ARG) {
      in = cl.value;
      continue;
    }
    if (st != CLI_OPTION) return cli_finish(&cl, st);
    switch ((CheckOpt)cl.opt->id) {
      case CHECKOPT_JSON: json = cl.value; break;
    }
  }
  if (!in) return cli_finish(&cl, cli_error(&cl, "no program given (PROG.bin or PROG.s)"));
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  uint32_t *lines = NULL;
  if (ends_with(in, ".s")) {
    AsmOptions o;
    asm_options_default(&o);
    o.insn_lines = &lines;
    if (asm_assemble_file_opts(in, &o, &p, &d)) return cli_fail(&d);
  } else if (prog_load(in, &p, &d)) {
    return cli_fail(&d);
  }
  RcReports r = {0};
  int rc = racecheck_run(p, &r, &d);
  if (!rc && !(json && !strcmp(json, "-"))) racecheck_print(p, &r, in, lines, 0, stdout);
  if (!rc && json) {
    FileOut o;
    FILE *f = cli_open_out(&o, json, &d);
    rc = f ? 0 : -1;
    if (f) {
      racecheck_print_json(p, &r, in, lines, f);
      rc = cli_close_out(&o, 1, &d);
    }
  }
  if (!rc && fflush(stdout)) rc = diag_error(&d, "sasim: error: write failed (stdout)");
  uint64_t n = racecheck_total(&r);
  racecheck_reports_free(&r);
  free(lines);
  prog_free(p);
  if (rc) return cli_fail(&d);
  return n ? 1 : 0;
}

static int cmd_asm(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  int compress = 0;
  CliParser cl;
  cli_init(&cl, &sasim_cli, &sasim_asm, argc, argv);
  for (CliStatus st; (st = cli_next(&cl)) != CLI_END;) {
    if (st == CLI_ARG) {
      in = cl.value;
      continue;
    }
    if (st != CLI_OPTION) return cli_finish(&cl, st);
    switch ((AsmOpt)cl.opt->id) {
      case ASMOPT_OUT: out = cl.value; break;
      case ASMOPT_COMPRESS: compress = 1; break;
    }
  }
  if (!in) return cli_finish(&cl, cli_error(&cl, "no program given (PROG.s)"));
  if (!out) return cli_finish(&cl, cli_error(&cl, "needs -o PROG.bin"));
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (asm_assemble_file(in, &p, &d)) return cli_fail(&d);
  int rc = prog_save(p, out, compress, &d);
  prog_free(p);
  return rc ? cli_fail(&d) : 0;
}

static int cmd_disasm(int argc, char **argv) {
  const char *in = NULL, *out = "-";
  CliParser cl;
  cli_init(&cl, &sasim_cli, &sasim_disasm, argc, argv);
  for (CliStatus st; (st = cli_next(&cl)) != CLI_END;) {
    if (st == CLI_ARG) {
      in = cl.value;
      continue;
    }
    if (st != CLI_OPTION) return cli_finish(&cl, st);
    switch ((DisasmOpt)cl.opt->id) {
      case DISASMOPT_OUT: out = cl.value; break;
    }
  }
  if (!in) return cli_finish(&cl, cli_error(&cl, "no program given (PROG.bin)"));
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (prog_load(in, &p, &d)) return cli_fail(&d);
  char *text = asm_disassemble(p);
  prog_free(p);
  if (!text) {
    diag_error(&d, "sasim: error: out of memory");
    return cli_fail(&d);
  }
  FileOut o;   // never left half-written; a write error is reported with its reason
  int rc = file_out_open(&o, out, 0, &d);
  if (!rc) {
    int ok = !file_out_write(&o, text, strlen(text));
    if (!ok) diag_error(&d, "%s: error: cannot write: %s", out, strerror(errno));
    rc = file_out_close(&o, ok, &d);
  }
  free(text);
  return rc ? cli_fail(&d) : 0;
}

static int run_main(int argc, char **argv) {
  if (argc < 2) {
    cli_help_tool(stderr, &sasim_cli);
    return 2;
  }
  const char *name = argv[1];
  if (cli_is_help(name) || (!strcmp(name, "help") && argc == 2)) {
    cli_help_tool(stdout, &sasim_cli);
    return 0;
  }
  int help = !strcmp(name, "help");   // sasim help COMMAND
  if (help) name = argv[2];
  Diag d;
  diag_init(&d);
  const CliCommand *c = cli_find_command(&sasim_cli, name, &d);
  if (!c) {
    diag_print(&d);
    cli_help_tool(stderr, &sasim_cli);
    return 2;
  }
  if (help) {
    cli_help_command(stdout, &sasim_cli, c);
    return 0;
  }
  if (c == &sasim_run) return cmd_run(argc, argv);
  if (c == &sasim_check) return cmd_check(argc - 2, argv + 2);
  if (c == &sasim_asm) return cmd_asm(argc - 2, argv + 2);
  return cmd_disasm(argc - 2, argv + 2);
}

// Every command, then stdout's last bytes: a write error on it (a full disk, /dev/full) is an
// error of the command, not an exit 0 with the output cut.
int main(int argc, char **argv) {
  file_track_inputs();   // no output may replace one of the inputs
  int rc = run_main(argc, argv);
  return file_stdout_check("sasim") && !rc ? 1 : rc;
}
