// run_cmd.c: `sasim run`: option parsing (its table is in sasim_cli.c), loading, inputs, running an engine, reports and
// output tensors (see run_cmd.h). sasim's main.c and the RTL harness both call it.
#include "run_cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../isa/archfind.h"
#include "../isa/asm.h"
#include "../isa/fileio.h"
#include "../isa/names.h"
#include "../isa/npy.h"
#include "../isa/racecheck.h"
#include "energy.h"
#include "report.h"
#include "timeline.h"
#include "sasim_cli.h"
#include "tensor_text.h"
#include "view.h"

// Prints the recorded errors and returns the exit status for an error.
int cli_fail(const Diag *d) {
  diag_print(d);
  return 1;
}

FILE *cli_open_out(FileOut *o, const char *path, Diag *d) {
  if (file_out_open(o, path, 0, d)) return NULL;
  FILE *f = file_out_stream(o, d);
  if (!f) file_out_close(o, 0, d);
  return f;
}

int cli_close_out(FileOut *o, int ok, Diag *d) { return file_out_close(o, ok, d); }

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

// Lists output tensors with a CRC32 of their bytes on out; writes .npy files when dir is set.
static int emit_outputs(const Sim *s, FILE *out, const char *dir, Diag *d) {
  const Program *p = sim_program(s);
  FileOutSet set = {0};   // the .npy files, renamed into dir once all are written
  if (dir) {
    for (uint32_t i = 0; i < p->n_tensors; i++)   // refuse before writing anything
      if (p->tensors[i].role == ROLE_OUTPUT && !name_is_file_safe(p->tensors[i].name)) {
        char shown[4 * PROG_NAME_MAX];
        return diag_error(d, "sasim: tensor \"%s\": error: not usable as a file name in --output-dir",
                          name_escape(p->tensors[i].name, shown, sizeof shown));
      }
    if (mkdir(dir, 0777) && errno != EEXIST)
      return diag_error(d, "%s: error: cannot create directory: %s", dir, strerror(errno));
  }
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    const TensorInfo *t = &p->tensors[i];
    if (t->role != ROLE_OUTPUT) continue;
    uint64_t n = tensor_elems(t), bytes = n * prog_dtype_size(t->dtype);
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf) {
      diag_error(d, "sasim: error: out of memory");
      return file_set_close(&set, 0, d);   // removes the temporaries written so far
    }
    sim_get_tensor(s, t, buf);
    uLong crc = crc32_z(0L, buf, (z_size_t)bytes);
    char shown[4 * PROG_NAME_MAX];
    fprintf(out, "output %s: %s [", name_escape(t->name, shown, sizeof shown), t->dtype == DT_INT8 ? "int8" : "int32");
    for (uint32_t k = 0; k < t->ndim; k++) fprintf(out, "%s%u", k ? "," : "", t->dims[k]);
    fprintf(out, "] crc32 %08lx\n", crc);
    int rc = 0;
    if (dir) {
      char path[4096];
      uint64_t dims[PROG_MAX_DIMS];
      for (uint32_t k = 0; k < t->ndim; k++) dims[k] = t->dims[k];
      FileOut *o = NULL;
      if ((size_t)snprintf(path, sizeof path, "%s/%s.npy", dir, t->name) >= sizeof path)
        rc = diag_error(d, "%s: error: output path too long", dir);
      else if (!(o = file_set_open(&set, path, d)))
        rc = -1;
      else
        rc = file_out_finish(o, !npy_write_to(o, t->dtype == DT_INT8 ? NPY_I8 : NPY_I32, t->ndim, dims, buf, d), d);
    }
    free(buf);
    if (rc) return file_set_close(&set, 0, d);
  }
  return file_set_close(&set, 1, d);
}

// The output tensors' names, comma-separated, for an error message.
static const char *output_names(const Program *p, char *out, size_t cap) {
  size_t n = 0;
  out[0] = 0;
  for (uint32_t i = 0; i < p->n_tensors && n < cap; i++)
    if (p->tensors[i].role == ROLE_OUTPUT) {
      char shown[4 * PROG_NAME_MAX];
      n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "", name_escape(p->tensors[i].name, shown, sizeof shown));
    }
  return out[0] ? out : "none";
}

// The tensor an --expect or --print names: NAME (name, or NULL for none given: the program's
// only output). opt and spec name the option in messages. NULL with an error in d.
static const TensorInfo *named_tensor(const Program *p, const char *opt, const char *spec, const char *name,
                                      Diag *d) {
  char outs[512];
  if (name) {
    const TensorInfo *t = prog_find_tensor(p, name);
    if (!t)
      diag_error(d, "sasim: error: %s %s: the program has no tensor \"%s\" (outputs: %s)", opt, spec, name,
                 output_names(p, outs, sizeof outs));
    return t;
  }
  const TensorInfo *t = NULL;
  for (uint32_t i = 0; i < p->n_tensors; i++)
    if (p->tensors[i].role == ROLE_OUTPUT) {
      if (t) {
        diag_error(d, "sasim: error: %s %s: the program has several outputs (%s); use NAME=FILE", opt, spec,
                   output_names(p, outs, sizeof outs));
        return NULL;
      }
      t = &p->tensors[i];
    }
  if (!t) diag_error(d, "sasim: error: %s %s: the program has no output tensor", opt, spec);
  return t;
}

// --expect [NAME=]REF.npy: the tensor (through named_tensor) and the reference's path.
static const TensorInfo *expect_tensor(const Program *p, const char *spec, const char **path, Diag *d) {
  const char *eq = strchr(spec, '=');
  *path = eq ? eq + 1 : spec;
  if (!eq) return named_tensor(p, "--expect", spec, NULL, d);
  char name[PROG_NAME_MAX];
  size_t n = (size_t)(eq - spec);
  if (n >= sizeof name) {
    diag_error(d, "sasim: error: --expect %s: tensor name too long", spec);
    return NULL;
  }
  memcpy(name, spec, n);
  name[n] = 0;
  return named_tensor(p, "--expect", spec, name, d);
}

// Every --expect and --print names a tensor of the program: checked before the run, so that a
// misspelt name costs no simulation.
static int check_tensor_opts(const Program *p, const RunArgs *a, Diag *d) {
  const char *path;
  for (int i = 0; i < a->n_expects; i++)
    if (!expect_tensor(p, a->expects[i], &path, d)) return -1;
  for (int i = 0; i < a->n_prints; i++)
    if (strcmp(a->prints[i], "all") && !named_tensor(p, "--print", a->prints[i], a->prints[i], d)) return -1;
  return 0;
}

// t's elements after the run, dense in C order (sim_get_tensor), in a buffer the caller frees;
// NULL with an error in d.
static void *tensor_copy(const Sim *s, const TensorInfo *t, Diag *d) {
  uint64_t bytes = tensor_elems(t) * prog_dtype_size(t->dtype);
  void *buf = malloc(bytes ? bytes : 1);
  if (!buf) {
    diag_error(d, "sasim: error: out of memory");
    return NULL;
  }
  sim_get_tensor(s, t, buf);
  return buf;
}

static int print_tensor(const Sim *s, const TensorInfo *t, FILE *out, Diag *d) {
  void *buf = tensor_copy(s, t, d);
  if (!buf) return -1;
  tensor_print(out, t, buf);   // a write error on out is reported once, by file_stdout_check
  free(buf);
  return 0;
}

// --print and --expect, in the order given, after the outputs' lines. *mismatch: set when a
// tensor differs from its reference. 0, or -1 with an error in d (a reference that cannot be read).
static int show_tensors(const Sim *s, const RunArgs *a, FILE *out, int *mismatch, Diag *d) {
  const Program *p = sim_program(s);
  for (int i = 0; i < a->n_prints; i++) {
    if (strcmp(a->prints[i], "all")) {
      const TensorInfo *t = named_tensor(p, "--print", a->prints[i], a->prints[i], d);
      if (!t || print_tensor(s, t, out, d)) return -1;
      continue;
    }
    for (uint32_t k = 0; k < p->n_tensors; k++)
      if (p->tensors[k].role == ROLE_OUTPUT && print_tensor(s, &p->tensors[k], out, d)) return -1;
  }
  for (int i = 0; i < a->n_expects; i++) {
    const char *path;
    const TensorInfo *t = expect_tensor(p, a->expects[i], &path, d);
    void *buf = t ? tensor_copy(s, t, d) : NULL;
    if (!buf) return -1;
    int rc = tensor_expect(out, t, buf, path, d);
    free(buf);
    if (rc < 0) return -1;
    if (rc) *mismatch = 1;
  }
  return 0;
}

// Writes report `kind` (0 JSON, 1 CSV, 2 trace, 3 timeline in format fmt) to path.
static int write_report(const char *path, const Sim *s, const char *label, const EnergyTable *et, int kind,
                        TlFormat fmt, Diag *d) {
  FileOut o;
  FILE *f = cli_open_out(&o, path, d);
  if (!f) return -1;
  int rc = 0;
  if (kind == 0) rc = report_json(f, s, label, et);
  if (kind == 1) rc = report_layers_csv(f, s, et);
  if (kind == 2) rc = report_trace(f, s);
  if (kind == 3) rc = timeline_write(f, s, label, fmt);
  if (rc && !ferror(f) && !o.err) {   // not a write error (that one is reported with its reason)
    cli_close_out(&o, 0, d);
    return diag_error(d, "%s: error: cannot write the report (out of memory)", path);
  }
  return cli_close_out(&o, 1, d);
}

// A count option (--max-cycles, --flip-*-bit): a whole number >= min, capped at cap.
static CliStatus count_value(CliParser *cl, unsigned long long min, unsigned long long cap, unsigned long long *out) {
  if (cli_uint(cl, min, out) != CLI_OPTION) return CLI_ERROR;
  if (*out > cap) *out = cap;
  return CLI_OPTION;
}

// One option of `sasim run` into a; CLI_OPTION, or CLI_ERROR with the message in cl.
static CliStatus run_option(CliParser *cl, RunArgs *a) {
  unsigned long long n = 0;
  switch ((RunOpt)cl->opt->id) {
    case RUNOPT_STATS: a->stats = 1; break;
    case RUNOPT_JSON: a->json = cl->value; break;
    case RUNOPT_CSV: a->csv = cl->value; break;
    case RUNOPT_TRACE: a->trace = cl->value; break;
    case RUNOPT_TIMELINE: a->timeline = cl->value; break;
    case RUNOPT_TIMELINE_FORMAT: a->timeline_format = cl->choice; break;
    case RUNOPT_ENERGY: a->energy_path = cl->value; break;
    case RUNOPT_MODE: a->mode = (SimMode)cl->choice; break;
    case RUNOPT_PE_TRACE: a->pe_trace = 1; break;
    case RUNOPT_VIEW: a->view = cl->value; break;
    case RUNOPT_VIEW_MAX_MB:
      if (cli_uint(cl, 1, &a->view_max_mb) != CLI_OPTION) return CLI_ERROR;
      if (a->view_max_mb > 4096) return cli_error(cl, "--view-max-mb: at most 4096 (MB), got %llu", a->view_max_mb);
      break;
    case RUNOPT_FROM: return cli_uint(cl, 0, &a->from);
    case RUNOPT_TO: return cli_uint(cl, 0, &a->to);
    case RUNOPT_ENGINE: a->engine = (RunEngineKind)cl->choice; break;
    case RUNOPT_VCD: a->vcd = cl->value; break;
    case RUNOPT_VCD_UNITS: a->vcd_units = (unsigned)cl->choice; break;
    case RUNOPT_MAX_CYCLES: return cli_uint(cl, 1, &a->max_cycles);
    case RUNOPT_THREADS:
      if (cli_uint(cl, 1, &a->threads) != CLI_OPTION) return CLI_ERROR;
      if (a->threads > 2) return cli_error(cl, "--threads: 1 or 2, got %llu", a->threads);
      break;
    case RUNOPT_ARCH: a->arch_path = cl->value; break;
    case RUNOPT_INPUT: a->inputs[a->n_inputs++] = cl->value; break;
    case RUNOPT_OUTPUT_DIR: a->outdir = cl->value; break;
    case RUNOPT_EXPECT: a->expects[a->n_expects++] = cl->value; break;
    case RUNOPT_PRINT: a->prints[a->n_prints++] = cl->value; break;
    case RUNOPT_ALLOW_RACES: a->allow_races = 1; break;
    case RUNOPT_FLIP_WRITE_BIT:
      if (count_value(cl, 1, 1000000000ull, &n) != CLI_OPTION) return CLI_ERROR;
      a->flip_write_bit = (int)n;
      break;
    case RUNOPT_FLIP_ACC_BIT:
      if (count_value(cl, 1, 1000000000ull, &n) != CLI_OPTION) return CLI_ERROR;
      a->flip_acc_bit = (int)n;
      break;
  }
  return CLI_OPTION;
}

static int is_dash(const char *path) { return path && !strcmp(path, "-"); }

// How many of the machine-readable reports (--json, --csv, --trace, --timeline) go to stdout (-).
static int reports_on_stdout(const RunArgs *a) {
  return is_dash(a->json) + is_dash(a->csv) + is_dash(a->trace) + is_dash(a->timeline);
}

// The rules between options, once all are read; CLI_END, or CLI_ERROR with the message in cl.
static CliStatus run_check(CliParser *cl, const RunArgs *a) {
  if (!a->prog_path) return cli_error(cl, "no program given (PROG.bin)");
  if (reports_on_stdout(a) > 1)
    return cli_error(cl, "stdout (-) can take only one of --json, --csv, --trace and --timeline: give the others a file");
  if (a->timeline_format >= 0 && !a->timeline) return cli_error(cl, "--timeline-format needs --timeline FILE");
  int from_stdin = !strcmp(a->prog_path, "-");
  for (int i = 0; i < a->n_inputs; i++) {
    const char *eq = strchr(a->inputs[i], '=');
    from_stdin += !strcmp(eq ? eq + 1 : a->inputs[i], "-");
  }
  if (from_stdin > 1) return cli_error(cl, "stdin (-) can feed only one of the program and the --input files");
  for (int i = 0; i < a->n_expects; i++) {
    const char *eq = strchr(a->expects[i], '=');
    from_stdin += !strcmp(eq ? eq + 1 : a->expects[i], "-");
  }
  if (from_stdin > 1)
    return cli_error(cl, "stdin (-) can feed only one of the program, the --input and the --expect files");
  if (!strcmp(a->prog_path, "-") && a->engine != RUN_ENGINE_C)   // sasim-rtl loads it, then its model does
    return cli_error(cl, "--engine rtl|both reads the program twice: give a file, not - (stdin)");
  if (a->pe_trace && (a->mode != SIM_DETAILED || a->engine != RUN_ENGINE_C))
    return cli_error(cl, "--pe-trace needs --mode detailed (and the C engine)");
  if (a->view && (a->mode != SIM_DETAILED || a->engine != RUN_ENGINE_C))
    return cli_error(cl, "--view needs --mode detailed (and the C engine)");
  if (is_dash(a->view)) return cli_error(cl, "--view needs a file name (FILE.html), not - (stdout)");
  if (a->view_max_mb && !a->view) return cli_error(cl, "--view-max-mb needs --view FILE.html");
  if ((a->vcd || a->flip_write_bit) && a->engine == RUN_ENGINE_C)
    return cli_error(cl, "--vcd and --flip-write-bit need --engine rtl or both");
  if (a->flip_acc_bit && a->engine != RUN_ENGINE_BOTH) return cli_error(cl, "--flip-acc-bit needs --engine both");
  if (!a->vcd && a->vcd_units) return cli_error(cl, "--vcd-units needs --vcd FILE");
  if (!a->vcd && !a->pe_trace && !a->view && (a->from || a->to))
    return cli_error(cl, "--from and --to need --pe-trace, --view or --vcd (they set the cycles those show)");
  if (a->to && a->to <= a->from)
    return cli_error(cl, "--to must be greater than --from (the window is [from, to))");
  return CLI_END;
}

int run_args_parse(int argc, char **argv, RunArgs *a) {
  memset(a, 0, sizeof *a);
  a->mode = SIM_FAST;
  a->engine = RUN_ENGINE_C;
  a->timeline_format = -1;
  CliParser cl;
  cli_init(&cl, &sasim_cli, &sasim_run, argc, argv);
  CliStatus st;
  while ((st = cli_next(&cl)) == CLI_OPTION || st == CLI_ARG) {
    if (st == CLI_ARG) a->prog_path = cl.value;
    else if (run_option(&cl, a) != CLI_OPTION) return cli_finish(&cl, CLI_ERROR);
  }
  if (st == CLI_END) st = run_check(&cl, a);
  if (st == CLI_END) return 0;
  int rc = cli_finish(&cl, st);
  return rc ? rc : 1;   // 1: the help was printed
}

// The static race check at load (isa/racecheck.h): a program with races or token errors is
// refused with the reports on stderr (1), or with --allow-races run after a warning (0). A clean
// program prints nothing.
static int race_gate(const Program *p, const RunArgs *a) {
  Diag d;
  diag_init(&d);
  RcReports r = {0};
  if (racecheck_run(p, &r, &d)) {
    diag_print(&d);
    return 1;
  }
  uint64_t n = racecheck_total(&r);
  if (n) {
    racecheck_print(p, &r, a->prog_path, NULL, a->allow_races, stderr);
    if (a->allow_races)
      fprintf(stderr, "%s: warning: running a racy program (--allow-races): its results may differ between engines\n",
              a->prog_path);
    else
      fprintf(stderr, "%s: error: refused: the program races (sasim check %s; --allow-races runs it anyway)\n",
              a->prog_path, a->prog_path);
  }
  racecheck_reports_free(&r);
  return n && !a->allow_races;
}

// A runtime error names the program as the loader's do: "sim: error: ..." becomes "PROG: error:
// ...", and every instruction it cites ("insn N (OP)", N in program order, as sasim disasm lists
// them) gets a note with the instruction's text. The engines' messages stay as they are.
static void name_program(Diag *d, const Program *p, const char *path) {
  static const char sim_prefix[] = "sim: error: ";
  int n = d->count < DIAG_MAX_MSGS ? d->count : DIAG_MAX_MSGS;
  uint32_t cited[8];
  int n_cited = 0;
  for (int i = 0; i < n; i++) {
    char *m = d->msg[i];
    if (strncmp(m, sim_prefix, sizeof sim_prefix - 1)) continue;
    char rest[sizeof d->msg[0]];
    snprintf(rest, sizeof rest, "%s", m + sizeof sim_prefix - 1);
    char full[2 * sizeof d->msg[0]];
    snprintf(full, sizeof full, "%s: error: %s", path, rest);
    memcpy(m, full, sizeof d->msg[0] - 1);   // truncated as diag_error truncates
    m[sizeof d->msg[0] - 1] = 0;
    for (const char *c = rest; (c = strstr(c, "insn ")) != NULL; c++) {
      char *end;
      unsigned long k = strtoul(c + 5, &end, 10);
      if (end == c + 5 || strncmp(end, " (", 2) || k >= p->n_insns) continue;
      int seen = 0;
      for (int j = 0; j < n_cited; j++) seen |= cited[j] == (uint32_t)k;
      if (!seen && n_cited < 8) cited[n_cited++] = (uint32_t)k;
    }
  }
  for (int j = 0; j < n_cited; j++) {
    const Insn in = prog_insn(p, cited[j]);
    char text[400];
    diag_error(d, "%s: insn %u: note: %s", path, cited[j], asm_insn_text(&in, text, sizeof text));
  }
}

static const char *engine_label(const RunArgs *a) {
  if (a->engine == RUN_ENGINE_RTL) return "rtl";
  if (a->engine == RUN_ENGINE_BOTH) return "rtl and detailed in lockstep";
  return a->mode == SIM_FAST ? "fast" : "detailed";
}

int run_cmd(const RunArgs *a, RunEngine engine, void *ctx) {
  file_track_inputs();   // sasim-rtl too: no output may replace one of the inputs
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  EnergyTable et;   // loaded first: a bad table stops the run before it starts
  energy_default(&et);
  if (a->energy_path && energy_load_file(a->energy_path, &et, &d)) return cli_fail(&d);
  if (prog_load(a->prog_path, &p, &d)) return cli_fail(&d);
  if (a->arch_path) {
    Arch want;
    if (arch_load_named(a->arch_path, &want, &d)) {
      prog_free(p);
      return cli_fail(&d);
    }
    if (!arch_equal(&want, &p->arch)) {
      diag_error(&d, "%s: error: arch mismatch: compiled for \"%s\" (%ux%u), but %s describes \"%s\" (%ux%u)",
                 a->prog_path, p->arch.name, p->arch.rows, p->arch.cols, a->arch_path, want.name, want.rows,
                 want.cols);
      prog_free(p);
      return cli_fail(&d);
    }
  }
  if (check_tensor_opts(p, a, &d)) {
    prog_free(p);
    return cli_fail(&d);
  }
  if (race_gate(p, a)) {
    prog_free(p);
    return 1;
  }
  Sim *s = sim_new(p, engine ? SIM_DETAILED : a->mode, &d);
  int rc = s ? 0 : -1;
  for (int i = 0; i < a->n_inputs && !rc; i++) rc = apply_input(s, a->inputs[i], &d);
  // A report on stdout (-) has it to itself, so that it parses: the text (cycles, statistics,
  // --pe-trace, the output tensors' CRCs) then goes to stderr.
  FILE *text = reports_on_stdout(a) ? stderr : stdout;
  View *view = NULL;
  if (!rc && a->pe_trace) rc = sim_set_pe_trace(s, text, &d);
  if (!rc && a->view && !(view = view_new(a->from, a->to, (uint64_t)(a->view_max_mb ? a->view_max_mb : VIEW_MAX_MB) << 20)))
    rc = diag_error(&d, "sasim: error: out of memory");
  if (!rc && view) rc = sim_add_observer(s, view_observer(view), &d);
  if (!rc) sim_set_window(s, a->from, a->to);
  if (!rc) sim_set_progress(s, stderr);
  if (!rc) sim_set_max_cycles(s, a->max_cycles);
  if (!rc) sim_set_threads(s, a->threads ? (unsigned)a->threads : sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1);
  struct timespec t0;   // wall time: with two threads, CPU time would count the worker's waits
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (!rc && !engine && a->mode == SIM_DETAILED)
    fprintf(stderr, "sasim: running %s cycle by cycle...\n", a->prog_path);
  if (!rc) rc = engine ? engine(ctx, s, a, &d) : sim_run(s, &d);
  if (rc && s) name_program(&d, p, a->prog_path);
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double host_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (!rc && a->stats) {
    report_text(text, s, a->prog_path, &et);
    fprintf(text, "\nhost time      %.3f s (%s mode)\n", host_s, engine_label(a));
  } else if (!rc) {
    fprintf(text, "%llu cycles\n", (unsigned long long)sim_stats(s)->cycles);
  }
  if (!rc && a->json) rc = write_report(a->json, s, a->prog_path, &et, 0, TL_FMT_TEXT, &d);
  if (!rc && a->csv) rc = write_report(a->csv, s, a->prog_path, &et, 1, TL_FMT_TEXT, &d);
  if (!rc && a->trace) rc = write_report(a->trace, s, a->prog_path, &et, 2, TL_FMT_TEXT, &d);
  if (!rc && a->timeline) {
    TlFormat fmt = a->timeline_format >= 0 ? (TlFormat)a->timeline_format : timeline_format_of(a->timeline);
    rc = write_report(a->timeline, s, a->prog_path, &et, 3, fmt, &d);
  }
  if (!rc && view) rc = view_write(view, a->view, s, a->prog_path, &d);
  view_free(view);
  if (!rc) rc = emit_outputs(s, text, a->outdir, &d);
  int mismatch = 0;
  if (!rc) rc = show_tensors(s, a, text, &mismatch, &d);
  sim_free(s);
  prog_free(p);
  if (rc) return cli_fail(&d);
  if (file_stdout_check("sasim")) return 1;   // sasim-rtl too (sasim's main checks again, silently)
  return mismatch ? RUN_EXIT_MISMATCH : 0;
}
