// main.c: the `sasim` command line: run a program binary, assemble, disassemble.
// Parses arguments, calls the library, prints results; the only place that exits.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "../isa/asm.h"
#include "../isa/npy.h"
#include "report.h"
#include "sim.h"

static const char usage_main[] =
    "usage: sasim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run PROG.bin      simulate a program and report cycles, utilization, traffic\n"
    "  asm PROG.s        assemble text into a program binary\n"
    "  disasm PROG.bin   print a program binary as assembly text\n"
    "\n"
    "`sasim <command> --help` describes each command. Exit status: 0 success, 1 error, 2 usage.\n";

static const char usage_run[] =
    "usage: sasim run PROG.bin [options]\n"
    "  --stats              print the statistics table (cycles, units, traffic, layers)\n"
    "  --json FILE          write the statistics as JSON (- for stdout)\n"
    "  --csv FILE           write per-layer statistics as CSV (- for stdout)\n"
    "  --trace FILE         write a Chrome/Perfetto trace (a track per unit; 1 us = 1 cycle)\n"
    "  --mode fast|detailed fast: per-instruction timing (default); detailed: cycle by cycle, PE by PE\n"
    "  --pe-trace           (detailed) print the array state every active cycle to stdout\n"
    "  --engine c           the C simulator (the RTL engine comes with the RTL model)\n"
    "  --max-cycles N       stop with an error instead of simulating past N cycles\n"
    "  --arch FILE.json     refuse to run unless the program was compiled for this arch\n"
    "  --input NAME=X.npy   replace input tensor NAME (shape and dtype must match); repeatable\n"
    "  --output-dir DIR     write every output tensor as DIR/NAME.npy\n"
    "Output tensors are listed with their CRC32 either way.\n";

static const char usage_asm[] =
    "usage: sasim asm PROG.s -o PROG.bin [--compress]\n"
    "  Assembles the text (syntax: docs/ASM.md) into a checked program binary (docs/BINARY.md).\n"
    "  --compress   deflate the data section\n";

static const char usage_disasm[] =
    "usage: sasim disasm PROG.bin [-o PROG.s]\n"
    "  Prints the program as assembly; `sasim asm` turns it back into the identical binary.\n";

// Prints the recorded errors and returns the exit status for an error.
static int fail(const Diag *d) {
  diag_print(d);
  return 1;
}

static int usage_error(const char *usage, const char *fmt, const char *arg) {
  fprintf(stderr, "sasim: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage);
  return 2;
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

static FILE *open_out(const char *path, Diag *d) {
  if (!strcmp(path, "-")) return stdout;
  FILE *f = fopen(path, "w");
  if (!f) diag_error(d, "%s: error: cannot write: %s", path, strerror(errno));
  return f;
}

static int close_out(FILE *f, const char *path, Diag *d) {
  if (f == stdout) return fflush(f) ? diag_error(d, "%s: error: write failed", path) : 0;
  int bad = ferror(f);
  if (fclose(f) || bad) return diag_error(d, "%s: error: write failed", path);
  return 0;
}

// --input NAME=X.npy: checks shape and dtype against the tensor, then writes it into DRAM.
static int apply_input(Sim *s, const char *spec, Diag *d) {
  const Program *p = sim_program(s);
  char name[PROG_NAME_MAX];
  const char *eq = strchr(spec, '=');
  const char *path = spec;
  const TensorInfo *t = NULL;
  if (eq) {
    size_t n = (size_t)(eq - spec);
    if (n >= sizeof name) return diag_error(d, "sasim: error: --input %s: tensor name too long", spec);
    memcpy(name, spec, n);
    name[n] = 0;
    path = eq + 1;
    t = prog_find_tensor(p, name);
    if (!t) return diag_error(d, "sasim: error: --input %s: the program has no tensor \"%s\"", spec, name);
  } else {
    for (uint32_t i = 0; i < p->n_tensors; i++)
      if (p->tensors[i].role == ROLE_INPUT) {
        if (t) return diag_error(d, "sasim: error: --input %s: the program has several inputs; use NAME=FILE", spec);
        t = &p->tensors[i];
      }
    if (!t) return diag_error(d, "sasim: error: --input %s: the program has no input tensor", spec);
  }
  NpyArray arr;
  if (npy_read(path, &arr, d)) return -1;
  int rc = 0;
  NpyType want = t->dtype == DT_INT8 ? NPY_I8 : NPY_I32;
  if (arr.type != want) {
    rc = diag_error(d, "%s: error: dtype does not match tensor \"%s\" (%s expected)", path, t->name,
                    t->dtype == DT_INT8 ? "int8" : "int32");
  } else if (arr.ndim != t->ndim) {
    rc = diag_error(d, "%s: error: %u dimensions, tensor \"%s\" has %u", path, arr.ndim, t->name, t->ndim);
  } else {
    for (uint32_t i = 0; i < t->ndim && !rc; i++)
      if (arr.dims[i] != t->dims[i])
        rc = diag_error(d, "%s: error: dimension %u is %llu, tensor \"%s\" has %u", path, i,
                        (unsigned long long)arr.dims[i], t->name, t->dims[i]);
  }
  if (!rc) rc = sim_set_tensor(s, t->name, arr.data, arr.count * npy_type_size(arr.type), d);
  npy_free(&arr);
  return rc;
}

static uint64_t tensor_elems(const TensorInfo *t) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < t->ndim; i++) n *= t->dims[i];
  return n;
}

// A tensor name (from the binary) that can be a file name inside --output-dir: no '/' or '\\',
// no control characters, not starting with '.' (so neither ".." nor hidden files).
static int name_is_file_safe(const char *name) {
  if (!name[0] || name[0] == '.') return 0;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    if (*c == '/' || *c == '\\' || *c < 0x20 || *c == 0x7f) return 0;
  return 1;
}

// Lists output tensors with a CRC32 of their bytes; writes .npy files when dir is set.
static int emit_outputs(const Sim *s, const char *dir, Diag *d) {
  const Program *p = sim_program(s);
  if (dir) {
    for (uint32_t i = 0; i < p->n_tensors; i++)   // refuse before writing anything
      if (p->tensors[i].role == ROLE_OUTPUT && !name_is_file_safe(p->tensors[i].name))
        return diag_error(d, "sasim: tensor \"%s\": error: not usable as a file name in --output-dir", p->tensors[i].name);
    if (mkdir(dir, 0777) && errno != EEXIST)
      return diag_error(d, "%s: error: cannot create directory: %s", dir, strerror(errno));
  }
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    const TensorInfo *t = &p->tensors[i];
    if (t->role != ROLE_OUTPUT) continue;
    uint64_t n = tensor_elems(t), bytes = n * prog_dtype_size(t->dtype);
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf) return diag_error(d, "sasim: error: out of memory");
    sim_get_tensor(s, t, buf);
    uLong crc = crc32_z(0L, buf, (z_size_t)bytes);
    printf("output %s: %s [", t->name, t->dtype == DT_INT8 ? "int8" : "int32");
    for (uint32_t k = 0; k < t->ndim; k++) printf("%s%u", k ? "," : "", t->dims[k]);
    printf("] crc32 %08lx\n", crc);
    int rc = 0;
    if (dir) {
      char path[4096];
      uint64_t dims[PROG_MAX_DIMS];
      for (uint32_t k = 0; k < t->ndim; k++) dims[k] = t->dims[k];
      if ((size_t)snprintf(path, sizeof path, "%s/%s.npy", dir, t->name) >= sizeof path)
        rc = diag_error(d, "%s: error: output path too long", dir);
      else
        rc = npy_write(path, t->dtype == DT_INT8 ? NPY_I8 : NPY_I32, t->ndim, dims, buf, d);
    }
    free(buf);
    if (rc) return -1;
  }
  return 0;
}

static int write_report(const char *path, const Sim *s, const char *label, int kind, Diag *d) {
  FILE *f = open_out(path, d);
  if (!f) return -1;
  if (kind == 0) report_json(f, s, label);
  if (kind == 1) report_layers_csv(f, s);
  if (kind == 2) report_trace(f, s);
  return close_out(f, path, d);
}

static int cmd_run(int argc, char **argv) {
  const char *prog_path = NULL, *json = NULL, *csv = NULL, *trace = NULL, *arch_path = NULL, *outdir = NULL;
  const char *inputs[64];
  int n_inputs = 0, stats = 0, pe_trace = 0;
  unsigned long long max_cycles = 0;
  SimMode mode = SIM_FAST;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (is_help(a)) {
      fputs(usage_run, stdout);
      return 0;
    } else if (!strcmp(a, "--stats")) {
      stats = 1;
    } else if (!strcmp(a, "--pe-trace")) {
      pe_trace = 1;
    } else if (!strcmp(a, "--json") || !strcmp(a, "--csv") || !strcmp(a, "--trace") || !strcmp(a, "--arch") ||
               !strcmp(a, "--output-dir") || !strcmp(a, "--input") || !strcmp(a, "--mode") ||
               !strcmp(a, "--engine") || !strcmp(a, "--max-cycles")) {
      if (!next) return usage_error(usage_run, "%s needs a value", a);
      i++;
      if (!strcmp(a, "--json")) json = next;
      if (!strcmp(a, "--csv")) csv = next;
      if (!strcmp(a, "--trace")) trace = next;
      if (!strcmp(a, "--arch")) arch_path = next;
      if (!strcmp(a, "--output-dir")) outdir = next;
      if (!strcmp(a, "--input")) {
        if (n_inputs == 64) return usage_error(usage_run, "%s: at most 64 inputs", a);
        inputs[n_inputs++] = next;
      }
      if (!strcmp(a, "--mode")) {
        if (!strcmp(next, "fast")) mode = SIM_FAST;
        else if (!strcmp(next, "detailed")) mode = SIM_DETAILED;
        else return usage_error(usage_run, "--mode %s: expected fast or detailed", next);
      }
      if (!strcmp(a, "--max-cycles")) {
        char *end;
        errno = 0;
        max_cycles = strtoull(next, &end, 10);
        if (errno || *end || !*next || next[0] == '-' || max_cycles == 0)
          return usage_error(usage_run, "--max-cycles %s: expected a positive whole number", next);
      }
      if (!strcmp(a, "--engine") && strcmp(next, "c"))
        return usage_error(usage_run, "--engine %s: only the C engine exists so far (the RTL model is not built yet)",
                           next);
    } else if (a[0] == '-' && a[1]) {
      return usage_error(usage_run, "unknown option %s", a);
    } else if (prog_path) {
      return usage_error(usage_run, "more than one program given (%s)", a);
    } else {
      prog_path = a;
    }
  }
  if (!prog_path) return usage_error(usage_run, "%s", "no program given");
  if (pe_trace && mode != SIM_DETAILED) return usage_error(usage_run, "%s", "--pe-trace needs --mode detailed");
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (prog_load(prog_path, &p, &d)) return fail(&d);
  if (arch_path) {
    Arch want;
    if (arch_load_file(arch_path, &want, &d)) {
      prog_free(p);
      return fail(&d);
    }
    if (!arch_equal(&want, &p->arch)) {
      diag_error(&d, "%s: error: arch mismatch: compiled for \"%s\" (%ux%u), but %s describes \"%s\" (%ux%u)",
                 prog_path, p->arch.name, p->arch.rows, p->arch.cols, arch_path, want.name, want.rows, want.cols);
      prog_free(p);
      return fail(&d);
    }
  }
  Sim *s = sim_new(p, mode, &d);
  int rc = s ? 0 : -1;
  for (int i = 0; i < n_inputs && !rc; i++) rc = apply_input(s, inputs[i], &d);
  if (!rc && pe_trace) sim_set_pe_trace(s, stdout);
  if (!rc) sim_set_progress(s, stderr);
  if (!rc) sim_set_max_cycles(s, max_cycles);
  clock_t t0 = clock();
  if (!rc && mode == SIM_DETAILED) fprintf(stderr, "sasim: running %s cycle by cycle...\n", prog_path);
  if (!rc) rc = sim_run(s, &d);
  double host_s = (double)(clock() - t0) / CLOCKS_PER_SEC;
  if (!rc && stats) {
    report_text(stdout, s, prog_path);
    printf("\nhost time      %.3f s (%s mode)\n", host_s, mode == SIM_FAST ? "fast" : "detailed");
  } else if (!rc) {
    printf("%llu cycles\n", (unsigned long long)sim_stats(s)->cycles);
  }
  if (!rc && json) rc = write_report(json, s, prog_path, 0, &d);
  if (!rc && csv) rc = write_report(csv, s, prog_path, 1, &d);
  if (!rc && trace) rc = write_report(trace, s, prog_path, 2, &d);
  if (!rc) rc = emit_outputs(s, outdir, &d);
  sim_free(s);
  prog_free(p);
  return rc ? fail(&d) : 0;
}

static int cmd_asm(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  int compress = 0;
  for (int i = 0; i < argc; i++) {
    if (is_help(argv[i])) {
      fputs(usage_asm, stdout);
      return 0;
    } else if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc) return usage_error(usage_asm, "%s needs a value", "-o");
      out = argv[++i];
    } else if (!strcmp(argv[i], "--compress")) {
      compress = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error(usage_asm, "unknown option %s", argv[i]);
    } else if (in) {
      return usage_error(usage_asm, "more than one input given (%s)", argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in || !out) return usage_error(usage_asm, "%s", "need PROG.s and -o PROG.bin");
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (asm_assemble_file(in, &p, &d)) return fail(&d);
  int rc = prog_save(p, out, compress, &d);
  prog_free(p);
  return rc ? fail(&d) : 0;
}

static int cmd_disasm(int argc, char **argv) {
  const char *in = NULL, *out = "-";
  for (int i = 0; i < argc; i++) {
    if (is_help(argv[i])) {
      fputs(usage_disasm, stdout);
      return 0;
    } else if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc) return usage_error(usage_disasm, "%s needs a value", "-o");
      out = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error(usage_disasm, "unknown option %s", argv[i]);
    } else if (in) {
      return usage_error(usage_disasm, "more than one input given (%s)", argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in) return usage_error(usage_disasm, "%s", "no program given");
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (prog_load(in, &p, &d)) return fail(&d);
  char *text = asm_disassemble(p);
  prog_free(p);
  if (!text) {
    diag_error(&d, "sasim: error: out of memory");
    return fail(&d);
  }
  FILE *f = open_out(out, &d);
  int rc = f ? 0 : -1;
  if (f) {
    fputs(text, f);
    rc = close_out(f, out, &d);
  }
  free(text);
  return rc ? fail(&d) : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_main, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (is_help(cmd)) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "asm")) return cmd_asm(argc - 2, argv + 2);
  if (!strcmp(cmd, "disasm")) return cmd_disasm(argc - 2, argv + 2);
  return usage_error(usage_main, "unknown command %s", cmd);
}
