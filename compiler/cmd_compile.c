// cmd_compile.c: `sacc compile` (main.c dispatches here): options, the passes (compile.c), and
// the output file, written through a temporary and a rename (never half-written).
#include "cmd_compile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/asm.h"
#include "../isa/fileio.h"
#include "cli_args.h"
#include "compile.h"
#include "net.h"

const char cmd_compile_usage[] =
    "       sacc compile NET.json [-o OUT] [--arch ARCH.json] [--emit bin|asm] [--no-double-buffer]\n"
    "                [--dataflow ws|os|is]\n"
    "                [--dump-ir graph|fuse|layout|lower|tiling|memplan|schedule|all] [--stats] [--json F]\n"
    "                [--seed N] [--no-compress] [--calib [NAME=]X.npy]...\n"
    "\n"
    "  compile lower the network onto the machine (docs/COMPILER.md) and write the program:\n"
    "          a binary (default OUT: NET.bin in the current directory) or, with --emit asm,\n"
    "          assembly that `sasim asm` turns into the identical binary (NET.s). The binary's\n"
    "          default inputs are the bytes `sacc ref --seed N` uses (N = 1). --stats prints\n"
    "          peak memory per level, instruction and token counts; --json F writes them as JSON\n"
    "          --dataflow: ws (default) runs each GEMM weight-stationary (PRELOAD + COMPUTE), os\n"
    "          output-stationary (COMPUTE_OS), is input-stationary (the inputs preloaded, the\n"
    "          weights streamed: PRELOAD + COMPUTE_IS); the outputs are the same bytes\n"
    "          (docs/DATAFLOWS.md)\n"
    "          NET.json - reads the network from stdin (its .npy paths are then relative to the\n"
    "          current directory; -o is needed); -o - writes the program to stdout (a binary\n"
    "          only into a pipe or a file, never a terminal)\n";

static int usage_error(const char *msg) {
  fprintf(stderr, "sacc: %s\n", msg);
  return 2;
}

// NET.json -> NET<ext> in the current directory.
static char *default_out(const char *net, const char *ext) {
  const char *base = strrchr(net, '/');
  base = base ? base + 1 : net;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".json")) n -= 5;
  char *out = malloc(n + strlen(ext) + 1);
  if (out) memcpy(out, base, n), strcpy(out + n, ext);
  return out;
}

static int write_text(const char *path, const char *text, Diag *d) {
  FileOut out;
  if (file_out_open(&out, path, 0, d)) return -1;   // text is fine on a terminal
  int ok = !file_out_write(&out, text, strlen(text));
  if (!ok) diag_error(d, "%s: error: write failed: %s", path, strerror(errno));
  return file_out_close(&out, ok, d);
}

int cmd_compile(int argc, char **argv) {
  const char *net = NULL, *out = NULL, *arch_path = NULL, *json = NULL;
  int asm_out = 0, stats = 0, compress = 1;
  CompileOptions o;
  compile_options_default(&o);
  CliCalib calib = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int c = cli_calib_option(argc, argv, &i, &calib);
    if (c < 0) return usage_error("--calib needs a file (at most 64)");
    if (c) continue;
    int has_val = i + 1 < argc;
    if (!strcmp(a, "-o") || !strcmp(a, "--arch") || !strcmp(a, "--emit") || !strcmp(a, "--dump-ir") ||
        !strcmp(a, "--json") || !strcmp(a, "--seed") || !strcmp(a, "--dataflow")) {
      if (!has_val) return usage_error("option needs a value");
      const char *v = argv[++i];
      if (!strcmp(a, "-o")) out = v;
      else if (!strcmp(a, "--arch")) arch_path = v;
      else if (!strcmp(a, "--json")) json = v;
      else if (!strcmp(a, "--dataflow")) {
        if (!strcmp(v, "ws")) o.dataflow = DF_WS;
        else if (!strcmp(v, "os")) o.dataflow = DF_OS;
        else if (!strcmp(v, "is")) o.dataflow = DF_IS;
        else return usage_error("--dataflow takes ws, os or is");
      }
      else if (!strcmp(a, "--dump-ir")) {
        static const char *passes[] = {"graph", "fuse", "layout", "lower", "tiling", "memplan", "schedule", "all"};
        int ok = 0;
        for (size_t k = 0; k < sizeof passes / sizeof *passes; k++) ok |= !strcmp(v, passes[k]);
        if (!ok) return usage_error("--dump-ir: unknown pass (graph|fuse|layout|lower|tiling|memplan|schedule|all)");
        o.dump = v;
      } else if (!strcmp(a, "--emit")) {
        if (strcmp(v, "bin") && strcmp(v, "asm")) return usage_error("--emit takes bin or asm");
        asm_out = !strcmp(v, "asm");
      } else {
        char *end;
        o.input_seed = strtoull(v, &end, 0);
        if (!*v || *end) return usage_error("--seed needs an integer");
      }
    } else if (!strcmp(a, "--no-double-buffer")) {
      o.double_buffer = 0;
    } else if (!strcmp(a, "--stats")) {
      stats = 1;
    } else if (!strcmp(a, "--no-compress")) {
      compress = 0;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option for compile");
    } else if (net) {
      return usage_error("compile takes one network");
    } else {
      net = a;
    }
  }
  if (!net) return usage_error("compile needs a network file");
  if (!strcmp(net, "-") && !out) return usage_error("a network read from stdin (-) needs -o OUT (- for stdout)");
  if (out && !strcmp(out, "-") && (stats || o.dump || (json && !strcmp(json, "-"))))
    return usage_error("-o - writes the program to stdout: --stats, --dump-ir and --json - would mix into it");
  Diag d;
  diag_init(&d);
  Arch arch;
  arch_default(&arch);
  Graph *g = NULL;
  Program *p = NULL;
  char *def = NULL;
  int rc = arch_path ? arch_load_file(arch_path, &arch, &d) : 0;
  if (!rc) rc = cli_load(net, &calib, &g, &d);
  if (!rc && o.dump && (!strcmp(o.dump, "graph") || !strcmp(o.dump, "all"))) graph_dump(g, stdout);
  CompileStats st = {0};
  if (!rc && !(p = compile_graph(g, &arch, &o, &st, &d))) rc = -1;
  if (!rc && !out && !(out = def = default_out(net, asm_out ? ".s" : ".bin"))) rc = diag_error(&d, "sacc: error: out of memory");
  if (!rc && asm_out) {
    char *text = asm_disassemble(p);
    rc = text ? write_text(out, text, &d) : diag_error(&d, "sacc: error: out of memory");
    free(text);
  } else if (!rc) {
    rc = prog_save(p, out, compress, &d);
  }
  if (!rc && stats) compile_stats_print(&st, &arch, stdout);
  if (!rc && json) {
    FILE *f = !strcmp(json, "-") ? stdout : fopen(json, "w");
    if (!f) {
      rc = diag_error(&d, "%s: error: cannot write: %s", json, strerror(errno));
    } else {
      compile_stats_json(&st, f);
      if (f != stdout && fclose(f)) rc = diag_error(&d, "%s: error: write failed", json);
    }
  }
  if (rc) diag_print(&d);
  compile_stats_free(&st);
  cli_calib_free(&calib);
  free(def);
  prog_free(p);
  graph_free(g);
  return rc ? 1 : 0;
}
