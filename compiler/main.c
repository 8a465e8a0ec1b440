// main.c: the sacc command line. `sacc check` loads a net.json and runs shape inference and
// quantization (optionally dumping the IR); `sacc ref` runs the reference interpreter and
// writes each network output as NAME.npy. Exit status: 0 success, 1 error, 2 usage.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "net.h"
#include "ref.h"
#include "shape.h"

static const char usage[] =
    "usage: sacc check NET.json [--dump-ir]\n"
    "       sacc ref NET.json [--input [NAME=]X.npy]... [--seed N] [--output-dir D]\n"
    "\n"
    "  check   load the network (docs/NETJSON.md), infer shapes, compute the integer\n"
    "          requantization parameters; --dump-ir prints one line per layer\n"
    "  ref     run the reference interpreter; writes D/NAME.npy (int8, with --output-dir) for each network\n"
    "          output and prints name, shape and crc32. Inputs not given with --input are\n"
    "          filled from splitmix64 with seed N+i for input i (default N = 1)\n";

static int usage_error(const char *msg) {
  fprintf(stderr, "sacc: %s\n%s", msg, usage);
  return 2;
}

static int fail(Diag *d, Graph *g) {
  diag_print(d);
  graph_free(g);
  return 1;
}

static int load(const char *path, Graph **g, Diag *d) {
  NetOptions opt;
  net_options_default(&opt);
  if (net_load(path, &opt, g, d)) return -1;
  return net_prepare(*g, &opt, d);
}

static int cmd_check(int argc, char **argv) {
  const char *path = NULL;
  int dump = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--dump-ir")) dump = 1;
    else if (argv[i][0] == '-' && argv[i][1]) return usage_error("unknown option for check");
    else if (path) return usage_error("check takes one network");
    else path = argv[i];
  }
  if (!path) return usage_error("check needs a network file");
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  if (load(path, &g, &d)) return fail(&d, g);
  if (dump) graph_dump(g, stdout);
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

static int cmd_ref(int argc, char **argv) {
  const char *path = NULL, *outdir = NULL;   // files are written only with --output-dir
  const char *inputs[64] = {0};
  int n_inputs = 0;
  uint64_t seed = 1;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--input") || !strcmp(argv[i], "--seed") || !strcmp(argv[i], "--output-dir")) {
      if (i + 1 >= argc) return usage_error("option needs a value");
      const char *v = argv[++i];
      if (argv[i - 1][2] == 'i') {
        if (n_inputs == 64) return usage_error("too many --input");
        inputs[n_inputs++] = v;
      } else if (argv[i - 1][2] == 's') {
        char *end;
        seed = strtoull(v, &end, 0);
        if (!*v || *end) return usage_error("--seed needs an integer");
      } else {
        outdir = v;
      }
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error("unknown option for ref");
    } else if (path) {
      return usage_error("ref takes one network");
    } else {
      path = argv[i];
    }
  }
  if (!path) return usage_error("ref needs a network file");
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  if (load(path, &g, &d)) return fail(&d, g);
  int8_t *data[64] = {0};
  int rc = 0;
  for (int k = 0; k < n_inputs && !rc; k++) {  // NAME=FILE, or FILE for the next unnamed input
    const char *eq = strchr(inputs[k], '=');
    int t = -1;
    if (eq) {
      char name[80];
      snprintf(name, sizeof name, "%.*s", (int)(eq - inputs[k]), inputs[k]);
      for (int i = 0; i < g->n_inputs; i++)
        if (!strcmp(g->tensors[g->inputs[i]].name, name)) t = i;
      if (t < 0) rc = diag_error(&d, "sacc: error: --input %s: the network has no input \"%s\"", inputs[k], name);
    } else {
      for (int i = 0; i < g->n_inputs && t < 0; i++)
        if (!data[i]) t = i;
      if (t < 0) rc = diag_error(&d, "sacc: error: more --input files than network inputs");
    }
    if (!rc && data[t]) rc = diag_error(&d, "sacc: error: input \"%s\" given twice", g->tensors[g->inputs[t]].name);
    if (!rc) rc = read_input(g, g->inputs[t], eq ? eq + 1 : inputs[k], &data[t], &d);
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
  if (!rc && outdir && mkdir(outdir, 0777) && errno != EEXIST)
    rc = diag_error(&d, "%s: error: cannot create directory: %s", outdir, strerror(errno));
  for (int i = 0; i < g->n_outputs && !rc; i++) {
    const Tensor *t = &g->tensors[g->outputs[i]];
    int64_t count = graph_tensor_count(t);
    unsigned long crc = crc32_z(0L, (const Bytef *)v.data[g->outputs[i]], (z_size_t)count);
    printf("output %s: int8 [", t->name);   // the same line as `sasim run` prints
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
    rc = npy_write(file, NPY_I8, (uint32_t)t->rank, dims, v.data[g->outputs[i]], &d);
    free(file);
    if (rc) break;
  }
  ref_values_free(&v);
  for (int i = 0; i < 64; i++) free(data[i]);
  if (rc) return fail(&d, g);
  graph_free(g);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage_error("missing command");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    fputs(usage, stdout);
    return 0;
  }
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return 0;
    }
  if (!strcmp(argv[1], "check")) return cmd_check(argc - 2, argv + 2);
  if (!strcmp(argv[1], "ref")) return cmd_ref(argc - 2, argv + 2);
  fprintf(stderr, "sacc: error: unknown command %s\n%s", argv[1], usage);
  return 2;
}
