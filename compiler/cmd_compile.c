// cmd_compile.c: `sacc compile` (main.c dispatches here): its options (table in sacc_cli.c), the
// passes (compile.c), and the output file, written through a temporary and a rename (never half-written).
#include "cmd_compile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/archfind.h"
#include "../isa/asm.h"
#include "../isa/fileio.h"
#include "../isa/racecheck.h"
#include "cli_args.h"
#include "compile.h"
#include "net.h"
#include "sacc_cli.h"

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

// What sacc emits must be race-free (isa/racecheck.h, the check `sasim run` makes at load): a
// race here is a bug in the compiler's token placement, reported with the layer it is in, and
// the program is not written.
static int check_races(const Program *p, const char *net, Diag *d) {
  RcReports r = {.max = 10};
  if (racecheck_run(p, &r, d)) return -1;
  uint64_t n = racecheck_total(&r);
  if (n) {
    racecheck_print(p, &r, "sacc: compiled program", NULL, 0, stderr);
    const char *layer = r.n ? racecheck_layer_of(p, r.r[0].insn) : NULL;
    diag_error(d, "%s: internal error: the compiled program races or misuses tokens (%llu reports%s%s%s): a bug in "
               "sacc's token placement, nothing written",
               net, (unsigned long long)n, layer ? ", first in layer \"" : "", layer ? layer : "", layer ? "\"" : "");
  }
  racecheck_reports_free(&r);
  return n ? -1 : 0;
}

int cmd_compile(int argc, char **argv) {
  const char *net = NULL, *out = NULL, *arch_path = NULL, *json = NULL;
  int asm_out = 0, stats = 0, compress = 1;
  CompileOptions o;
  compile_options_default(&o);
  CliCalib calib = {0};
  CliParser cl;
  cli_init(&cl, &sacc_cli, &sacc_compile, argc, argv);
  for (CliStatus st; (st = cli_next(&cl)) != CLI_END;) {
    if (st == CLI_ARG) {
      net = cl.value;
      continue;
    }
    if (st != CLI_OPTION) return cli_finish(&cl, st);
    switch ((CompileOpt)cl.opt->id) {
      case COMPILE_OUT: out = cl.value; break;
      case COMPILE_ARCH: arch_path = cl.value; break;
      case COMPILE_EMIT: asm_out = cl.choice == EMIT_ASM; break;
      case COMPILE_NO_DOUBLE_BUFFER: o.double_buffer = 0; break;
      case COMPILE_NO_PRELOAD_OVERLAP: o.preload_overlap = 0; break;
      case COMPILE_NO_FUSE_LAYERS: o.fuse_layers = 0; break;
      case COMPILE_NO_SHARED_TAPS: o.shared_taps = 0; break;
      case COMPILE_DATAFLOW:
        o.dataflow_auto = cl.choice == COMPILE_DATAFLOW_AUTO;
        if (!o.dataflow_auto) o.dataflow = (Dataflow)cl.choice;
        break;
      case COMPILE_LAYER_DATAFLOW: {
        const char *eq = strrchr(cl.value, '=');
        if (!eq || eq == cl.value || (strcmp(eq + 1, "ws") && strcmp(eq + 1, "os") && strcmp(eq + 1, "is")))
          return cli_finish(&cl, cli_bad_value(&cl, "LAYER=ws, LAYER=os or LAYER=is"));
        o.layer_df[o.n_layer_df++] = cl.value;
        break;
      }
      case COMPILE_DUMP_IR: o.dump = cl.value; break;
      case COMPILE_STATS: stats = 1; break;
      case COMPILE_JSON: json = cl.value; break;
      case COMPILE_SEED: {
        char *end;
        o.input_seed = strtoull(cl.value, &end, 0);
        if (!*cl.value || *end) return cli_finish(&cl, cli_bad_value(&cl, "an integer"));
        break;
      }
      case COMPILE_NO_COMPRESS: compress = 0; break;
      case COMPILE_CALIB: calib.args[calib.n++] = cl.value; break;
      case COMPILE_ALLOW_LARGE: calib.allow_large = 1; break;
    }
  }
  if (!net) return cli_finish(&cl, cli_error(&cl, "needs a network file (NET.json)"));
  if (!strcmp(net, "-") && !out)
    return cli_finish(&cl, cli_error(&cl, "a network read from stdin (-) needs -o OUT (- for stdout)"));
  if (out && !strcmp(out, "-") && (stats || o.dump || (json && !strcmp(json, "-"))))
    return cli_finish(&cl, cli_error(&cl, "-o - writes the program to stdout: --stats, --dump-ir and --json - would "
                                        "mix into it"));
  Diag d;
  diag_init(&d);
  Arch arch;
  arch_default(&arch);
  Graph *g = NULL;
  Program *p = NULL;
  char *def = NULL;
  int rc = arch_path ? arch_load_named(arch_path, &arch, &d) : 0;
  if (!rc) rc = cli_load(net, &calib, &g, &d);
  if (!rc && o.dump && (!strcmp(o.dump, "graph") || !strcmp(o.dump, "all"))) graph_dump(g, stdout);
  CompileStats st = {0};
  if (!rc && !(p = compile_graph(g, &arch, &o, &st, &d))) rc = -1;
  if (!rc) rc = check_races(p, net, &d);
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
    FileOut jo;   // never left half-written; a write error is reported with its reason
    FILE *f = NULL;
    rc = file_out_open(&jo, json, 0, &d);
    if (!rc && !(f = file_out_stream(&jo, &d))) rc = file_out_close(&jo, 0, &d);
    if (f) {
      compile_stats_json(&st, f);
      rc = file_out_close(&jo, 1, &d);
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
