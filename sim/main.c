// main.c: the `sasim` command line: run a program binary (run_cmd.c), assemble, disassemble.
// Parses arguments, calls the library, prints results; the only place that exits.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../isa/asm.h"
#include "run_cmd.h"

static const char usage_main[] =
    "usage: sasim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run PROG.bin      simulate a program and report cycles, utilization, traffic\n"
    "  asm PROG.s        assemble text into a program binary\n"
    "  disasm PROG.bin   print a program binary as assembly text\n"
    "\n"
    "`sasim <command> --help` describes each command. Exit status: 0 success, 1 error, 2 usage.\n";

static const char usage_asm[] =
    "usage: sasim asm PROG.s -o PROG.bin [--compress]\n"
    "  Assembles the text (syntax: docs/ASM.md) into a checked program binary (docs/BINARY.md).\n"
    "  --compress   deflate the data section\n";

static const char usage_disasm[] =
    "usage: sasim disasm PROG.bin [-o PROG.s]\n"
    "  Prints the program as assembly; `sasim asm` turns it back into the identical binary.\n";

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

static int cmd_asm(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  int compress = 0;
  for (int i = 0; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(usage_asm, stdout);
      return 0;
    } else if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc) return cli_usage_error(usage_asm, "%s needs a value", "-o");
      out = argv[++i];
    } else if (!strcmp(argv[i], "--compress")) {
      compress = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_error(usage_asm, "unknown option %s", argv[i]);
    } else if (in) {
      return cli_usage_error(usage_asm, "more than one input given (%s)", argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in || !out) return cli_usage_error(usage_asm, "%s", "need PROG.s and -o PROG.bin");
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
  for (int i = 0; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(usage_disasm, stdout);
      return 0;
    } else if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc) return cli_usage_error(usage_disasm, "%s needs a value", "-o");
      out = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_error(usage_disasm, "unknown option %s", argv[i]);
    } else if (in) {
      return cli_usage_error(usage_disasm, "more than one input given (%s)", argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in) return cli_usage_error(usage_disasm, "%s", "no program given");
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
  FILE *f = cli_open_out(out, &d);
  int rc = f ? 0 : -1;
  if (f) {
    fputs(text, f);
    rc = cli_close_out(f, out, &d);
  }
  free(text);
  return rc ? cli_fail(&d) : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_main, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (cli_is_help(cmd)) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc, argv);
  if (!strcmp(cmd, "asm")) return cmd_asm(argc - 2, argv + 2);
  if (!strcmp(cmd, "disasm")) return cmd_disasm(argc - 2, argv + 2);
  return cli_usage_error(usage_main, "unknown command %s", cmd);
}
