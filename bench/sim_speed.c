// sim_speed.c: how fast the simulator runs. Builds a tiled GEMM program (tests/common/gemmprog.c),
// times the fast engine on it and the detailed engine on a smaller one, and times a naive int8
// GEMM on the host for the fast engine's size. Prints simulated MACs and simulated cycles per
// host second, and the ratio fast engine / host loop. Checks the simulated C against the host's.
//
//   sim_speed [--arch FILE] [--size M[xKxN]] [--detailed-size M[xKxN] | --no-detailed]
//             [--int8] [--no-host] [--json]
// Defaults: workloads/arch/large.json (32x32), 1024x1024x1024 raw int32, detailed 128^3.
// Timings are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID; everything is single-threaded, so
// on an idle host this is the wall-clock time, and on a busy one it is not inflated by others) of
// sim_run alone and of the host loop alone.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../isa/numerics.h"
#include "../sim/sim.h"
#include "../tests/common/gemmprog.h"

#define MIN_HOST_SECONDS 0.3   // the host loop is repeated until it has run this long

typedef struct {
  const char *arch_path;     // NULL: built-in 32x32 like workloads/arch/large.json
  uint32_t m, k, n;          // fast engine and host size
  uint32_t dm, dk, dn;       // detailed engine size (0: skip)
  int int8;                  // int8 + relu output instead of raw int32
  int host;                  // time the host loop
  int json;                  // one JSON line instead of the table
} Opts;

typedef struct {
  int ran;                   // measured
  uint64_t macs, cycles;     // simulated work
  double seconds;            // host time of sim_run
  int ok;                    // output matched the host GEMM (when checked)
} EngineRun;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: sim_speed [--arch FILE] [--size M[xKxN]] [--detailed-size M[xKxN] | --no-detailed]\n"
          "                 [--int8] [--no-host] [--json]\n"
          "  --arch FILE          arch.json (default workloads/arch/large.json, else a built-in 32x32)\n"
          "  --size M[xKxN]       GEMM for the fast engine and the host loop (default 1024)\n"
          "  --detailed-size ...  GEMM for the detailed engine (default 128; it simulates every PE)\n"
          "  --no-detailed        skip the detailed engine\n"
          "  --int8               int8 output with bias, requantization and ReLU (default raw int32)\n"
          "  --no-host            skip the naive host GEMM\n"
          "  --json               print one JSON line instead of the table\n");
}

// "N" or "MxKxN". Returns 0 or -1.
static int parse_size(const char *s, uint32_t *m, uint32_t *k, uint32_t *n) {
  unsigned a, b, c;
  char tail;
  if (sscanf(s, "%ux%ux%u%c", &a, &b, &c, &tail) == 3 && a && b && c) {
    *m = a;
    *k = b;
    *n = c;
    return 0;
  }
  if (sscanf(s, "%u%c", &a, &tail) == 1 && a) {
    *m = *k = *n = a;
    return 0;
  }
  return -1;
}

// Returns 0, 1 after --help, or -1 on a bad option.
static int parse_args(int argc, char **argv, Opts *o) {
  memset(o, 0, sizeof *o);
  o->m = o->k = o->n = 1024;
  o->dm = o->dk = o->dn = 128;
  o->host = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 1;
    } else if (!strcmp(a, "--arch") && next) {
      o->arch_path = next;
      i++;
    } else if (!strcmp(a, "--size") && next) {
      if (parse_size(next, &o->m, &o->k, &o->n)) return fprintf(stderr, "sim_speed: error: bad --size '%s'\n", next), -1;
      i++;
    } else if (!strcmp(a, "--detailed-size") && next) {
      if (parse_size(next, &o->dm, &o->dk, &o->dn))
        return fprintf(stderr, "sim_speed: error: bad --detailed-size '%s'\n", next), -1;
      i++;
    } else if (!strcmp(a, "--no-detailed")) {
      o->dm = o->dk = o->dn = 0;
    } else if (!strcmp(a, "--int8")) {
      o->int8 = 1;
    } else if (!strcmp(a, "--no-host")) {
      o->host = 0;
    } else if (!strcmp(a, "--json")) {
      o->json = 1;
    } else {
      fprintf(stderr, "sim_speed: error: unknown or incomplete option '%s'\n", a);
      return -1;
    }
  }
  return 0;
}

// workloads/arch/large.json when no --arch is given and it exists; else the same machine built in.
static int load_arch(const Opts *o, Arch *a) {
  Diag d;
  diag_init(&d);
  const char *path = o->arch_path ? o->arch_path : "workloads/arch/large.json";
  FILE *f = fopen(path, "rb");
  if (f || o->arch_path) {
    if (f) fclose(f);
    if (arch_load_file(path, a, &d)) {
      diag_print(&d);
      return -1;
    }
    return 0;
  }
  arch_default(a);
  snprintf(a->name, sizeof a->name, "large (built-in)");
  a->rows = a->cols = 32;
  a->spad_rows = 16384;
  a->wbuf_rows = a->acc_rows = 4096;
  a->dram_bytes = 512ull << 20;
  a->bus_bytes = 32;
  a->queue_depth[0] = a->queue_depth[1] = a->queue_depth[2] = 32;
  a->store_fifo_rows = 8;
  return 0;
}

static GemmSpec spec_of(const Opts *o, uint32_t m, uint32_t k, uint32_t n) {
  GemmSpec g;
  memset(&g, 0, sizeof g);
  g.M = m;
  g.K = k;
  g.N = n;
  g.raw32 = !o->int8;
  g.act = o->int8 ? ACT_RELU : ACT_NONE;
  g.double_buffer = 1;
  g.seed = 1;
  return g;
}

// The naive host GEMM: int8 in, int32 sums, the k loop in the middle so that the inner loop
// runs along rows of B and C (what a compiler can vectorize). Wrapping sums, as the machine.
static void host_gemm(uint32_t M, uint32_t K, uint32_t N, const int8_t *A, const int8_t *B, int32_t *C) {
  for (uint32_t m = 0; m < M; m++) {
    uint32_t *c = (uint32_t *)(void *)(C + (size_t)m * N);
    for (uint32_t n = 0; n < N; n++) c[n] = 0;
    for (uint32_t k = 0; k < K; k++) {
      int32_t a = A[(size_t)m * K + k];
      const int8_t *b = B + (size_t)k * N;
      for (uint32_t n = 0; n < N; n++) c[n] += (uint32_t)(a * b[n]);
    }
  }
}

// Runs g on one engine; when want is given, compares C with it. Returns 0 or -1.
static int run_engine(const Arch *a, const GemmSpec *g, SimMode mode, const void *want, EngineRun *r) {
  Diag d;
  diag_init(&d);
  memset(r, 0, sizeof *r);
  Program *p = gemmprog_build(a, g, &d);
  Sim *s = p ? sim_new(p, mode, &d) : NULL;
  int rc = -1;
  if (s) {
    double t0 = now_s();
    rc = sim_run(s, &d);
    r->seconds = now_s() - t0;
  }
  if (rc == 0) {
    r->ran = 1;
    r->macs = (uint64_t)g->M * g->K * g->N;
    r->cycles = sim_stats(s)->cycles;
    r->ok = 1;
    if (want) {
      uint64_t nb = gemmprog_c_bytes(g);
      uint8_t *got = malloc(nb);
      r->ok = got && sim_get_tensor(s, prog_find_tensor(p, "C"), got) == 0 && !memcmp(got, want, nb);
      free(got);
    }
  } else {
    diag_print(&d);
  }
  sim_free(s);
  prog_free(p);
  return rc;
}

// Times the host loop on the spec's data; fills want (the expected C) and returns seconds per run.
static double time_host(const GemmSpec *g, const GemmData *dat, int32_t *sums) {
  double total = 0;
  int reps = 0;
  while (total < MIN_HOST_SECONDS || reps == 0) {
    double t0 = now_s();
    host_gemm(g->M, g->K, g->N, dat->A, dat->B, sums);
    total += now_s() - t0;
    reps++;
  }
  return total / reps;
}

// The expected C bytes from the host sums (post-processed for int8 output).
static void expected_c(const GemmSpec *g, const GemmData *dat, const int32_t *sums, void *out) {
  for (uint64_t i = 0; i < (uint64_t)g->M * g->N; i++) {
    if (g->raw32) {
      ((int32_t *)out)[i] = sums[i];
    } else {
      uint32_t n = (uint32_t)(i % g->N);
      ((int8_t *)out)[i] =
          sa_post(sums[i], dat->bias[n], dat->mult[n], (unsigned)dat->shift[n] & 63u, g->act, g->clamp_lo, g->clamp_hi);
    }
  }
}

static double rate(double x, double s) { return s > 0 ? x / s : 0; }

static void print_table(const Opts *o, const Arch *a, const EngineRun *f, const EngineRun *dt, double host_s) {
  printf("sim-speed: GEMM, %s output, double buffered, arch %s (%ux%u)\n", o->int8 ? "int8+relu" : "raw int32",
         a->name, a->rows, a->cols);
  printf("%-12s %-16s %14s %14s %10s %14s %14s %6s\n", "engine", "size", "MACs", "cycles", "cpu s", "MACs/s",
         "cycles/s", "check");
  char size[48];
  if (f->ran) {
    snprintf(size, sizeof size, "%ux%ux%u", o->m, o->k, o->n);
    printf("%-12s %-16s %14llu %14llu %10.3f %14.4g %14.4g %6s\n", "fast", size, (unsigned long long)f->macs,
           (unsigned long long)f->cycles, f->seconds, rate((double)f->macs, f->seconds),
           rate((double)f->cycles, f->seconds), o->host ? (f->ok ? "ok" : "WRONG") : "-");
  }
  if (dt->ran) {
    snprintf(size, sizeof size, "%ux%ux%u", o->dm, o->dk, o->dn);
    printf("%-12s %-16s %14llu %14llu %10.3f %14.4g %14.4g %6s\n", "detailed", size, (unsigned long long)dt->macs,
           (unsigned long long)dt->cycles, dt->seconds, rate((double)dt->macs, dt->seconds),
           rate((double)dt->cycles, dt->seconds), dt->ok ? "ok" : "WRONG");
  }
  if (host_s > 0) {
    snprintf(size, sizeof size, "%ux%ux%u", o->m, o->k, o->n);
    double macs = (double)o->m * o->k * o->n;
    printf("%-12s %-16s %14.0f %14s %10.3f %14.4g %14s %6s\n", "host naive", size, macs, "-", host_s,
           rate(macs, host_s), "-", "-");
    if (f->ran) printf("fast engine / host naive loop: %.3f (MACs per second)\n", rate(host_s, f->seconds));
  }
  const char *flags = getenv("SA_BENCH_CFLAGS");
  printf("built with: %s\n", flags ? flags : "the Makefile's default flags");
}

static void print_json(const Opts *o, const Arch *a, const EngineRun *f, const EngineRun *dt, double host_s) {
  const char *flags = getenv("SA_BENCH_CFLAGS");
  printf("{\"bench\":\"sim-speed\",\"arch\":\"%s\",\"rows\":%u,\"cols\":%u,\"output\":\"%s\",\"cflags\":\"%s\"", a->name,
         a->rows, a->cols, o->int8 ? "int8" : "raw32", flags ? flags : "default");
  const EngineRun *runs[2] = {f, dt};
  const char *names[2] = {"fast", "detailed"};
  uint32_t sizes[2][3] = {{o->m, o->k, o->n}, {o->dm, o->dk, o->dn}};
  for (int i = 0; i < 2; i++) {
    const EngineRun *r = runs[i];
    if (!r->ran) continue;
    printf(",\"%s\":{\"M\":%u,\"K\":%u,\"N\":%u,\"macs\":%llu,\"cycles\":%llu,\"seconds\":%.6f,\"macs_per_s\":%.6g,"
           "\"cycles_per_s\":%.6g,\"ok\":%s}",
           names[i], sizes[i][0], sizes[i][1], sizes[i][2], (unsigned long long)r->macs, (unsigned long long)r->cycles,
           r->seconds, rate((double)r->macs, r->seconds), rate((double)r->cycles, r->seconds),
           r->ok ? "true" : "false");
  }
  if (host_s > 0) {
    double macs = (double)o->m * o->k * o->n;
    printf(",\"host\":{\"M\":%u,\"K\":%u,\"N\":%u,\"seconds\":%.6f,\"macs_per_s\":%.6g}", o->m, o->k, o->n, host_s,
           rate(macs, host_s));
    if (f->ran) printf(",\"fast_over_host\":%.6g", rate(host_s, f->seconds));
  }
  printf("}\n");
}

int main(int argc, char **argv) {
  Opts o;
  int pa = parse_args(argc, argv, &o);
  if (pa) {
    if (pa < 0) usage(stderr);
    return pa < 0 ? 2 : 0;
  }
  Arch a;
  if (load_arch(&o, &a)) return 1;
  GemmSpec g = spec_of(&o, o.m, o.k, o.n);
  EngineRun f, dt;
  memset(&dt, 0, sizeof dt);
  double host_s = 0;
  void *want = NULL;
  if (o.host) {
    GemmData dat;
    int32_t *sums = malloc((size_t)g.M * g.N * sizeof *sums);
    want = malloc(gemmprog_c_bytes(&g));
    if (!sums || !want || gemmprog_data_new(&g, &dat)) {
      fprintf(stderr, "sim_speed: error: out of memory\n");
      return 1;
    }
    fprintf(stderr, "sim_speed: host naive GEMM %ux%ux%u ...\n", g.M, g.K, g.N);
    host_s = time_host(&g, &dat, sums);
    expected_c(&g, &dat, sums, want);
    gemmprog_data_free(&dat);
    free(sums);
  }
  fprintf(stderr, "sim_speed: fast engine %ux%ux%u ...\n", g.M, g.K, g.N);
  if (run_engine(&a, &g, SIM_FAST, want, &f)) return 1;
  free(want);
  if (o.dm) {
    // Checked against the naive reference, and its cycles against the fast engine's.
    GemmSpec gd = spec_of(&o, o.dm, o.dk, o.dn);
    GemmData dat;
    void *want_d = malloc(gemmprog_c_bytes(&gd));
    if (!want_d || gemmprog_data_new(&gd, &dat)) {
      fprintf(stderr, "sim_speed: error: out of memory\n");
      return 1;
    }
    gemmprog_reference(&gd, dat.A, dat.B, dat.bias, dat.mult, dat.shift, want_d);
    gemmprog_data_free(&dat);
    fprintf(stderr, "sim_speed: detailed engine %ux%ux%u ...\n", gd.M, gd.K, gd.N);
    if (run_engine(&a, &gd, SIM_DETAILED, want_d, &dt)) return 1;
    free(want_d);
    EngineRun fd;
    if (run_engine(&a, &gd, SIM_FAST, NULL, &fd)) return 1;
    dt.ok = dt.ok && fd.cycles == dt.cycles;
  }
  if (o.json)
    print_json(&o, &a, &f, &dt, host_s);
  else
    print_table(&o, &a, &f, &dt, host_s);
  int bad = (o.host && !f.ok) || (dt.ran && !dt.ok);
  if (bad) fprintf(stderr, "sim_speed: error: a simulated result differs from the reference\n");
  return bad;
}
