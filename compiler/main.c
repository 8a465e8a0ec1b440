// main.c: the sacc command line. `sacc check` loads a net.json and runs shape inference and
// quantization (optionally dumping the IR); `sacc ref` runs the reference interpreter and
// writes each network output as NAME.npy; `sacc compile` is cmd_compile.c's. The options of
// each command are the rows of sacc_cli.c. Exit status: 0 success, 1 error, 2 usage.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../isa/fileio.h"
#include "../isa/names.h"
#include "cli_args.h"
#include "cmd_compile.h"
#include "net.h"
#include "qerror.h"
#include "ref.h"
#include "sacc_cli.h"
#include "shape.h"

static int fail(Diag *d, Graph *g) {
  diag_print(d);
  graph_free(g);
  return 1;
}

static int cmd_check(int argc, char **argv) {
  const char *path = NULL;
  int dump = 0;
  CliCalib calib = {0};
  CliParser cl;
  cli_init(&cl, &sacc_cli, &sacc_check, argc, argv);
  for (CliStatus st; (st = cli_next(&cl)) != CLI_END;) {
    if (st == CLI_ARG) {
      path = cl.value;
      continue;
    }
    if (st != CLI_OPTION) return cli_finish(&cl, st);
    switch ((CheckOpt)cl.opt->id) {
      case CHECK_DUMP_IR: dump = 1; break;
      case CHECK_CALIB: calib.args[calib.n++] = cl.value; break;
      case CHECK_ALLOW_LARGE: calib.allow_large = 1; break;
    }
  }
  if (!path) return cli_finish(&cl, cli_error(&cl, "needs a network file (NET.json)"));
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  NetOptions opt;
  cli_net_options(&calib, &opt);
  int rc = cli_load(path, &calib, &g, &d);
  if (!rc && dump) graph_dump(g, stdout);
  if (!rc) rc = qerror_report(g, &opt, dump, stdout, &d);
  cli_calib_free(&calib);
  if (rc) return fail(&d, g);
  graph_free(g);
  return 0;
}

// Reads one network input from an .npy file: int8, shape equal to the tensor's.
static int read_input(const Graph *g, int t, const char *file, int8_t **out, Diag *d) {
  NpyArray a;
  if (npy_read(file, &a, d)) return -1;
  const Tensor *tt = &g->tensors[t];
  int ok = a.type == NPY_I8 && a.ndim == (uint32_t)tt->rank;
  for (int i = 0; ok && i < tt->rank; i++) ok = a.dims[i] == (uint64_t)tt->dims[i];
  if (!ok) {
    npy_free(&a);
    return diag_error(d, "%s: error: input \"%s\" needs an int8 array of the tensor's shape", file, tt->name);
  }
  *out = a.data;  // the NpyArray's data, now ours
  return 0;
}

static void print_layer_stats(const Graph *g, const RefValues *v) {
  printf("%-24s %-14s %5s %5s %8s %7s %7s\n", "layer", "op", "min", "max", "mean", "zeros%", "sat%");
  for (int i = 0; i < g->n_layers; i++) {
    const Layer *l = &g->layers[i];
    RefStats st;
    ref_stats(v->data[l->out], graph_tensor_count(&g->tensors[l->out]), &st);
    printf("%-24s %-14s %5d %5d %8.2f %7.2f %7.2f\n", l->name, graph_op_name(l->op), st.min, st.max, st.mean,
           st.zeros_pct, st.sat_pct);
  }
}

static int cmd_ref(int argc, char **argv) {
  const char *path = NULL, *outdir = NULL;   // files are written only with --output-dir
  const char *inputs[SACC_MAX_FILES] = {0};
  int n_inputs = 0;
  uint64_t seed = 1;
  int layer_stats = 0;
  CliCalib calib = {0};
  CliParser cl;
  cli_init(&cl, &sacc_cli, &sacc_ref, argc, argv);
  for (CliStatus st; (st = cli_next(&cl)) != CLI_END;) {
    if (st == CLI_ARG) {
      path = cl.value;
      continue;
    }
    if (st != CLI_OPTION) return cli_finish(&cl, st);
    switch ((RefOpt)cl.opt->id) {
      case REF_INPUT: inputs[n_inputs++] = cl.value; break;
      case REF_SEED: {
        char *end;
        seed = strtoull(cl.value, &end, 0);
        if (!*cl.value || *end) return cli_finish(&cl, cli_bad_value(&cl, "an integer"));
        break;
      }
      case REF_OUTPUT_DIR: outdir = cl.value; break;
      case REF_LAYER_STATS: layer_stats = 1; break;
      case REF_CALIB: calib.args[calib.n++] = cl.value; break;
      case REF_ALLOW_LARGE: calib.allow_large = 1; break;
    }
  }
  if (!path) return cli_finish(&cl, cli_error(&cl, "needs a network file (NET.json)"));
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  int rc = cli_load(path, &calib, &g, &d);
  cli_calib_free(&calib);
  if (rc) return fail(&d, g);
  int8_t *data[64] = {0};
  for (int k = 0; k < n_inputs && !rc; k++) {  // NAME=FILE, or FILE for the next unnamed input
    int t;
    const char *file;
    rc = cli_pick_input(g, inputs[k], "--input", (void *const *)data, &t, &file, &d);
    if (!rc) rc = read_input(g, g->inputs[t], file, &data[t], &d);
  }
  for (int i = 0; i < g->n_inputs && !rc; i++) {
    if (data[i]) continue;
    int64_t count = graph_tensor_count(&g->tensors[g->inputs[i]]);
    uint64_t state = seed + (uint64_t)i;
    if (!(data[i] = malloc((size_t)count + 1))) rc = diag_error(&d, "sacc: error: out of memory");
    for (int64_t k = 0; !rc && k < count; k++) data[i][k] = (int8_t)(uint8_t)shape_seed_next(&state);
  }
  RefValues v = {0};
  if (!rc) rc = ref_run(g, (const int8_t *const *)data, &v, &d);
  if (!rc && layer_stats) print_layer_stats(g, &v);
  if (!rc && outdir && mkdir(outdir, 0777) && errno != EEXIST)
    rc = diag_error(&d, "%s: error: cannot create directory: %s", outdir, strerror(errno));
  FileOutSet set = {0};   // the .npy files, renamed into outdir once all are written
  for (int i = 0; i < g->n_outputs && !rc; i++) {
    const Tensor *t = &g->tensors[g->outputs[i]];
    int64_t count = graph_tensor_count(t);
    unsigned long crc = crc32_z(0L, (const Bytef *)v.data[g->outputs[i]], (z_size_t)count);
    size_t nlen = 4 * strlen(t->name) + 1;
    char *shown = malloc(nlen);
    if (!shown) {
      rc = diag_error(&d, "sacc: error: out of memory");
      break;
    }
    printf("output %s: int8 [", name_escape(t->name, shown, nlen));   // the same line as `sasim run` prints
    free(shown);
    for (int k = 0; k < t->rank; k++) printf("%s%lld", k ? "," : "", (long long)t->dims[k]);
    printf("] crc32 %08lx\n", crc);
    if (!outdir) continue;
    size_t len = strlen(outdir) + strlen(t->name) + 8;
    char *file = malloc(len);
    if (!file) {
      rc = diag_error(&d, "sacc: error: out of memory");
      break;
    }
    snprintf(file, len, "%s/%s.npy", outdir, t->name);
    uint64_t dims[GRAPH_MAX_RANK];
    for (int k = 0; k < t->rank; k++) dims[k] = (uint64_t)t->dims[k];
    FileOut *o = file_set_open(&set, file, &d);
    rc = !o ? -1 : file_out_finish(o, !npy_write_to(o, NPY_I8, (uint32_t)t->rank, dims, v.data[g->outputs[i]], &d), &d);
    free(file);
  }
  if (file_set_close(&set, !rc, &d)) rc = -1;
  ref_values_free(&v);
  for (int i = 0; i < 64; i++) free(data[i]);
  if (rc) return fail(&d, g);
  graph_free(g);
  return 0;
}

static int run_main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "sacc: missing command\n");
    cli_help_tool(stderr, &sacc_cli);
    return 2;
  }
  const char *name = argv[1];
  if (cli_is_help(name) || (!strcmp(name, "help") && argc == 2)) {
    cli_help_tool(stdout, &sacc_cli);
    return 0;
  }
  int help = !strcmp(name, "help");   // sacc help COMMAND
  if (help) name = argv[2];
  Diag d;
  diag_init(&d);
  const CliCommand *c = cli_find_command(&sacc_cli, name, &d);
  if (!c) {
    diag_print(&d);
    cli_help_tool(stderr, &sacc_cli);
    return 2;
  }
  if (help) {
    cli_help_command(stdout, &sacc_cli, c);
    return 0;
  }
  if (c == &sacc_check) return cmd_check(argc - 2, argv + 2);
  if (c == &sacc_ref) return cmd_ref(argc - 2, argv + 2);
  return cmd_compile(argc - 2, argv + 2);
}

// Every command, then stdout's last bytes: a write error on it (a full disk, /dev/full) is an
// error of the command, not an exit 0 with the output cut.
int main(int argc, char **argv) {
  file_track_inputs();   // no output may replace one of the inputs
  int rc = run_main(argc, argv);
  return file_stdout_check("sacc") && !rc ? 1 : rc;
}
