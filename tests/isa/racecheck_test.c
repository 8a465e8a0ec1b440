// racecheck_test.c: the static race checker (isa/racecheck.c).
//   - tests/race/*.s: every report a program must produce is written in it as "; expect:" lines
//     (one hazard per memory, each token misuse); the reports must be exactly those, name both
//     instructions with their source lines, and say the fix;
//   - every program of workloads/asm checks clean, and so do randprog's programs;
//   - one token removed from random legal programs (a push and the pop that takes it, so the other
//     tokens still pair up): the checker must flag exactly the programs in which an independent
//     oracle finds an unordered conflicting pair (or a push that no longer means what it says).
//     The oracle is a plain O(n^2) happens-before closure over start/end events, written here
//     without the checker's knowledge vectors or cells; it shares only the footprint function
//     (isa/footprint.c, which defines what an instruction touches) and the timing facts of
//     docs/TIMING.md about which instructions end after all earlier ones of their unit.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../isa/racecheck.h"
#include "../common/check.h"
#include "../common/testarch.h"
#include "../common/insnbuild.h"
#include "../common/randprog.h"

// ---- Expected reports ----------------------------------------------------------------------------

static const char *kind_name(RcKind k) {
  switch (k) {
  case RC_RACE: return "race";
  case RC_POP_UNMATCHED: return "unmatched_pop";
  case RC_PUSH_EARLY: return "early_push";
  case RC_OVERFLOW: return "overflow";
  }
  return "?";
}

static const char *fix_name(RcFix f) {
  switch (f) {
  case RC_FIX_NONE: return "none";
  case RC_FIX_ADD_POP: return "add_pop";
  case RC_FIX_LATER_PUSH: return "later_push";
  case RC_FIX_PUSH_POP: return "push_pop";
  }
  return "?";
}

static void put_idx(char *b, size_t n, const char *key, uint32_t i) {
  size_t l = strlen(b);
  if (i == RC_NONE) snprintf(b + l, n - l, " %s=none", key);
  else snprintf(b + l, n - l, " %s=%u", key, i);
}

// "race RAW WBUF 0..2 insn=5 other=4 fix=later_push", "unmatched_pop load->store insn=8 other=none"
static void report_key(const RcReport *r, char *b, size_t n) {
  static const char *const hz[] = {[RC_RAW] = "RAW", [RC_WAR] = "WAR", [RC_WAW] = "WAW"};
  if (r->kind == RC_RACE) {
    if (r->space == FP_DRAM)
      snprintf(b, n, "race %s DRAM 0x%llx..0x%llx", hz[r->hazard], (unsigned long long)r->first,
               (unsigned long long)r->last);
    else
      snprintf(b, n, "race %s %s %llu..%llu", hz[r->hazard], fp_space_name(r->space), (unsigned long long)r->first,
               (unsigned long long)r->last);
  } else {
    snprintf(b, n, "%s %s->%s", kind_name(r->kind), isa_unit_names[r->from], isa_unit_names[r->to]);
  }
  put_idx(b, n, "insn", r->insn);
  put_idx(b, n, "other", r->other);
  if (r->kind == RC_RACE) {
    size_t l = strlen(b);
    snprintf(b + l, n - l, " fix=%s", fix_name(r->fix));
  }
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return buf;
}

static void check_expected(const char *path) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  uint32_t *lines = NULL;
  AsmOptions o;
  asm_options_default(&o);
  o.insn_lines = &lines;
  if (asm_assemble_file_opts(path, &o, &p, &d)) {
    CHECK(0, "%s: %s", path, diag_first(&d));
    return;
  }
  char want[16][160];
  int n_want = 0;
  const char *text = read_text(path);
  for (const char *s = text; s && (s = strstr(s, "; expect: ")) && n_want < 16; s++) {
    s += strlen("; expect: ");
    size_t l = strcspn(s, "\n");
    snprintf(want[n_want++], sizeof want[0], "%.*s", (int)l, s);
  }
  RcReports r = {0};
  CHECK(racecheck_run(p, &r, &d) == 0, "%s: %s", path, diag_first(&d));
  CHECK(r.n == (uint32_t)n_want && r.dropped == 0, "%s: %u reports, %d expected", path, r.n, n_want);
  for (uint32_t i = 0; i < r.n && i < (uint32_t)n_want; i++) {
    char got[160], msg[1024];
    report_key(&r.r[i], got, sizeof got);
    CHECK(!strcmp(got, want[i]), "%s: report %u is \"%s\", expected \"%s\"", path, i, got, want[i]);
    racecheck_format(p, &r.r[i], path, lines, 0, msg, sizeof msg);
    // Both instructions by index, mnemonic and line; the line of the later one leads; a fix.
    char s1[96], s2[96], lead[96];
    if (r.r[i].insn != RC_NONE) {
      snprintf(s1, sizeof s1, "insn %u %s (", r.r[i].insn, isa_ops[prog_op(p, r.r[i].insn)].name);
      snprintf(lead, sizeof lead, "%s:%u: error: ", path, lines[r.r[i].insn]);
      CHECK(strstr(msg, s1) && !strncmp(msg, lead, strlen(lead)), "%s: \"%s\" lacks \"%s\" or \"%s\"", path, msg,
            s1, lead);
    }
    if (r.r[i].kind == RC_RACE) {
      snprintf(s2, sizeof s2, "insn %u %s (%s unit, line %u)", r.r[i].other, isa_ops[prog_op(p, r.r[i].other)].name,
               isa_unit_names[r.r[i].from], lines[r.r[i].other]);
      CHECK(strstr(msg, s2) != NULL, "%s: \"%s\" lacks \"%s\"", path, msg, s2);
    }
    CHECK(strstr(msg, "\n  fix: ") != NULL, "%s: \"%s\" says no fix", path, msg);
  }
  racecheck_reports_free(&r);
  free(lines);
  prog_free(p);
}

static int name_cmp(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

// The .s files of dir, sorted (at most 64).
static int list_s(const char *dir, char names[64][256]) {
  DIR *dd = opendir(dir);
  int n = 0;
  for (struct dirent *e; dd && (e = readdir(dd)) && n < 64;) {
    size_t l = strlen(e->d_name);
    if (l > 2 && !strcmp(e->d_name + l - 2, ".s") && strlen(dir) + l + 2 <= 256) {
      memcpy(names[n], dir, strlen(dir));
      names[n][strlen(dir)] = '/';
      memcpy(names[n] + strlen(dir) + 1, e->d_name, l + 1);
      n++;
    }
  }
  if (dd) closedir(dd);
  qsort(names, (size_t)n, sizeof names[0], name_cmp);
  return n;
}

static void test_expected_reports(void) {
  static char names[64][256];
  int n = list_s("tests/race", names), racy = 0;
  CHECK(n >= 11, "tests/race: %d programs", n);
  for (int i = 0; i < n; i++) {
    check_expected(names[i]);
    racy += strstr(names[i], "/racy_") != NULL;
  }
  CHECK(racy >= 10, "tests/race: %d racy programs", racy);
  check_case("racecheck-expected-reports");
}

static void test_shipped_clean(void) {
  static char names[64][256];
  int n = list_s("workloads/asm", names);
  CHECK(n >= 5, "workloads/asm: %d programs", n);
  for (int i = 0; i < n; i++) check_expected(names[i]);   // no "; expect:" lines: no report
  for (uint64_t seed = 1; seed <= 200; seed++) {
    Diag d;
    diag_init(&d);
    RandProgOptions o = {.with_is = seed % 2, .with_sfu = seed / 2 % 2, .with_gbuf = seed / 4 % 2};
    Program *p = randprog_generate(seed, &o, &d);
    CHECK(p != NULL, "seed %llu: %s", (unsigned long long)seed, diag_first(&d));
    if (!p) continue;
    RcReports r = {0};
    CHECK(racecheck_run(p, &r, &d) == 0 && racecheck_total(&r) == 0, "seed %llu: %u reports",
          (unsigned long long)seed, r.n);
    racecheck_reports_free(&r);
    prog_free(p);
  }
  check_case("racecheck-shipped-and-random-clean");
}

// ---- The oracle ----------------------------------------------------------------------------------

// Events: node 2i is the start of instruction i, 2i+1 its end. An edge a -> b means "a happens no
// later than b" in every run. Instruction i is ordered before j when end(i) reaches start(j).
typedef struct {
  uint32_t n;                // instructions
  uint32_t *adj;             // adjacency lists, MAX_OUT per node
  uint8_t *deg;
  uint8_t *seen;
  uint32_t *stack;
} Graph;

#define MAX_OUT 8

static int graph_init(Graph *g, uint32_t n) {
  g->n = n;
  g->adj = calloc((size_t)2 * n * MAX_OUT, sizeof *g->adj);
  g->deg = calloc((size_t)2 * n, 1);
  g->seen = calloc((size_t)2 * n, 1);
  g->stack = calloc((size_t)2 * n, sizeof *g->stack);
  return g->adj && g->deg && g->seen && g->stack ? 0 : -1;
}

static void graph_free(Graph *g) {
  free(g->adj);
  free(g->deg);
  free(g->seen);
  free(g->stack);
}

static void edge(Graph *g, uint32_t a, uint32_t b) {
  if (g->deg[a] < MAX_OUT) g->adj[(size_t)a * MAX_OUT + g->deg[a]++] = b;
  else CHECK(0, "oracle: node %u has more than %d edges", a, MAX_OUT);
}

static int reaches(Graph *g, uint32_t from, uint32_t to) {
  memset(g->seen, 0, 2 * (size_t)g->n);
  uint32_t sp = 0;
  g->stack[sp++] = from;
  g->seen[from] = 1;
  while (sp) {
    uint32_t a = g->stack[--sp];
    if (a == to) return 1;
    for (unsigned k = 0; k < g->deg[a]; k++) {
      uint32_t b = g->adj[(size_t)a * MAX_OUT + k];
      if (!g->seen[b]) {
        g->seen[b] = 1;
        g->stack[sp++] = b;
      }
    }
  }
  return 0;
}

#define S(i) (2 * (i))
#define E(i) (2 * (i) + 1)

// Whether p has a conflicting pair of different units that no chain of events orders, or a push
// from an instruction that may end before an earlier one of its unit; -1 when the oracle cannot
// say (a pop with no earlier push: the removal never makes one).
static int oracle_racy(const Program *p, const Footprint *fp) {
  uint32_t n = p->n_insns;
  Graph g;
  if (graph_init(&g, n)) return -1;
  uint32_t pushes[NUM_UNITS][NUM_UNITS][256], n_push[NUM_UNITS][NUM_UNITS] = {{0}}, n_pop[NUM_UNITS][NUM_UNITS] = {{0}};
  int32_t prev[NUM_UNITS], undominated_from[NUM_UNITS], last_dma[NUM_UNITS], last_dom[NUM_UNITS];
  for (int u = 0; u < NUM_UNITS; u++) prev[u] = undominated_from[u] = last_dma[u] = last_dom[u] = -1;
  int32_t last_compute = -1;
  int compute_since_preload = 0, last_overlap = 0, bad = 0;
  for (uint32_t x = 0; x < n && !bad; x++) {
    const Insn in = prog_insn(p, x);
    Unit un = isa_ops[in.op].unit;
    if (un >= NUM_UNITS) continue;
    int v = (int)un;
    edge(&g, S(x), E(x));
    if (prev[v] >= 0) edge(&g, S(prev[v]), S(x));   // a unit starts its instructions in order
    prev[v] = (int32_t)x;
    for (int u = 0; u < NUM_UNITS; u++)   // the k-th pop takes the k-th push
      if ((in.f[FLD_POP] >> u) & 1) {
        if (n_pop[u][v] >= n_push[u][v]) bad = -1;
        else edge(&g, E(pushes[u][v][n_pop[u][v]]), S(x));
        n_pop[u][v]++;
      }
    // Does x end no earlier than every earlier instruction of its unit (docs/TIMING.md)?
    int dom = 0;
    switch (in.op) {
    case OP_LOAD:
    case OP_COMPUTE:
    case OP_COMPUTE_OS:
    case OP_COMPUTE_IS:
    case OP_STORE:
    case OP_CFG_SFU:   // the special-function unit starts each instruction after the previous ended
    case OP_SFU_MAP:
    case OP_SFU_EW:
    case OP_SFU_SOFTMAX:
    case OP_SFU_LAYERNORM:
    case OP_SFU_REDUCE:
      dom = 1;
      break;
    case OP_CFG_LOAD:
    case OP_CFG_STORE:
    case OP_CFG_POOL:   // ends at once: after the unit's last DMA only if that one is known done
      dom = p->arch.dram_latency <= 1 || last_dma[v] < 0 || reaches(&g, E(last_dma[v]), S(x));
      break;
    case OP_PRELOAD:    // waits for a free bank: after the last stream only if known done
      dom = (p->arch.cols == 1 && !last_overlap) || !compute_since_preload || last_compute < 0 ||
            reaches(&g, E(last_compute), S(x));
      break;
    case OP_LAYER:
    case OP_HALT:
      break;
    }
    if (dom) {   // every earlier instruction of v ends no later than x
      if (last_dom[v] >= 0) edge(&g, E(last_dom[v]), E(x));
      for (int32_t i = undominated_from[v]; i >= 0 && i < (int32_t)x; i++)
        if (isa_ops[prog_op(p, (uint32_t)i)].unit == un) edge(&g, E(i), E(x));
      undominated_from[v] = -1;
      last_dom[v] = (int32_t)x;
    } else if (undominated_from[v] < 0) {
      undominated_from[v] = (int32_t)x;
    }
    for (int w = 0; w < NUM_UNITS; w++)
      if ((in.f[FLD_PUSH] >> w) & 1) {
        if (!dom) bad = 1;
        if (n_push[v][w] < 256) pushes[v][w][n_push[v][w]++] = x;
        else bad = -1;
      }
    switch (in.op) {
    case OP_LOAD:
    case OP_STORE:
      last_dma[v] = (int32_t)x;
      break;
    case OP_COMPUTE:
    case OP_COMPUTE_IS:
      last_compute = (int32_t)x;
      compute_since_preload = 1;
      last_overlap = in.f[FLD_OVERLAP] != 0;
      break;
    case OP_PRELOAD:
    case OP_COMPUTE_OS:
      compute_since_preload = 0;
      break;
    case OP_CFG_LOAD:
    case OP_CFG_STORE:
    case OP_CFG_POOL:
    case OP_CFG_SFU:
    case OP_SFU_MAP:
    case OP_SFU_EW:
    case OP_SFU_SOFTMAX:
    case OP_SFU_LAYERNORM:
    case OP_SFU_REDUCE:
    case OP_LAYER:
    case OP_HALT:
      break;
    }
  }
  // Every conflicting pair of different units, at row (byte) granularity.
  for (uint32_t j = 0; j < n && !bad; j++)
    for (uint32_t i = 0; i < j && !bad; i++) {
      Unit ui = isa_ops[prog_op(p, i)].unit, uj = isa_ops[prog_op(p, j)].unit;
      if (ui >= NUM_UNITS || uj >= NUM_UNITS || ui == uj) continue;
      int conflict = 0;
      for (unsigned a = 0; a < fp[i].n && !conflict; a++)
        for (unsigned b = 0; b < fp[j].n && !conflict; b++) {
          FpAccess x = fp[i].a[a], y = fp[j].a[b];
          x.col_first = y.col_first = 0;   // whole rows
          x.col_count = y.col_count = 1;
          conflict = fp_conflict(&x, &y, NULL);
        }
      if (conflict && !reaches(&g, E(i), S(j))) bad = 1;
    }
  graph_free(&g);
  return bad;
}

static int checker_racy(const Program *p) {
  Diag d;
  diag_init(&d);
  RcReports r = {0};
  if (racecheck_run(p, &r, &d)) return -1;
  int racy = r.dropped > 0;
  for (uint32_t i = 0; i < r.n; i++) racy |= r.r[i].kind != RC_OVERFLOW;   // the bound is not ordering
  racecheck_reports_free(&r);
  return racy;
}

static void test_random_removal(void) {
  unsigned long variants = 0, flagged = 0, clean = 0, mismatches = 0, skipped = 0;
  for (uint64_t seed = 1; seed <= 600; seed++) {
    Diag d;
    diag_init(&d);
    RandProgOptions o = {
        .min_insns = 10, .max_insns = 60, .with_is = seed % 2, .with_sfu = seed / 2 % 2, .with_gbuf = seed / 4 % 2};
    Program *p = randprog_generate(seed, &o, &d);
    CHECK(p != NULL, "seed %llu: %s", (unsigned long long)seed, diag_first(&d));
    if (!p) continue;
    uint32_t n = p->n_insns;
    Footprint *fp = calloc(n, sizeof *fp);
    ProgCheckState st;
    memset(&st, 0, sizeof st);
    for (uint32_t i = 0; i < n; i++) {
      const Insn in = prog_insn(p, i);
      fp_insn(&p->arch, &st, &in, &fp[i]);
      prog_check_insn(p, &st, &in, "oracle", &d);
    }
    CHECK(oracle_racy(p, fp) == 0, "seed %llu: the oracle finds the generated program racy", (unsigned long long)seed);
    // Every matched (push, pop) pair: k-th push of u->v and the k-th pop.
    for (int u = 0; u < NUM_UNITS; u++)
      for (int v = 0; v < NUM_UNITS; v++) {
        if (u == v) continue;
        uint32_t k_push = 0;
        for (uint32_t i = 0; i < n; i++) {
          if (isa_ops[prog_op(p, i)].unit != (Unit)u || !((isa_word_field(&p->code[i], FLD_PUSH) >> v) & 1)) continue;
          // its pop: the k_push-th pop of u->v by unit v
          uint32_t k_pop = 0, j = 0;
          for (; j < n; j++)
            if (isa_ops[prog_op(p, j)].unit == (Unit)v && ((isa_word_field(&p->code[j], FLD_POP) >> u) & 1) &&
                k_pop++ == k_push)
              break;
          k_push++;
          if (j == n) {   // never popped: removing it changes no ordering
            skipped++;
            continue;
          }
          InsnWord wi = p->code[i], wj = p->code[j];
          isa_word_set(&p->code[i], FLD_PUSH, isa_word_field(&wi, FLD_PUSH) & ~((int64_t)1 << v));
          isa_word_set(&p->code[j], FLD_POP, isa_word_field(&wj, FLD_POP) & ~((int64_t)1 << u));
          int want = oracle_racy(p, fp), got = checker_racy(p);
          variants++;
          if (want < 0) {
            skipped++;
          } else if (want != got) {
            mismatches++;
            CHECK(0, "seed %llu: token %s->%s from insn %u to insn %u removed: oracle %s, checker %s",
                  (unsigned long long)seed, isa_unit_names[u], isa_unit_names[v], i, j, want ? "racy" : "clean",
                  got ? "racy" : "clean");
          } else if (got) {
            flagged++;
          } else {
            clean++;
          }
          p->code[i] = wi;
          p->code[j] = wj;
        }
      }
    free(fp);
    prog_free(p);
  }
  printf("random removal: %lu tokens removed one at a time from 600 programs: %lu flagged racy, %lu still "
         "race-free (%lu pushes never popped or not comparable), %lu disagreements with the oracle\n",
         variants, flagged, clean, skipped, mismatches);
  CHECK(flagged > 100 && clean > 100, "too few of one kind: %lu flagged, %lu clean", flagged, clean);
  check_case("racecheck-random-removal-vs-oracle");
}

// On a one-column array a PRELOAD behind a stream ends no earlier than it, so its push orders
// the stream too, unless the stream has OVERLAP: the PRELOAD then starts under the stream and may
// end first, and its push is an early push.
static void test_overlap_one_column(void) {
  for (int overlap = 0; overlap <= 1; overlap++) {
    Arch a = testarch_tiny();
    a.cols = 1;
    Program *p = prog_new(&a);
    insn_add(p, insn_rows(OP_PRELOAD, 0, 4));
    Insn c = insn_compute(0, 0, 4);
    c.f[FLD_OVERLAP] = overlap;
    insn_add(p, c);
    Insn pl = insn_rows(OP_PRELOAD, 4, 4);
    pl.f[FLD_PUSH] = 1u << UNIT_STORE;
    insn_add(p, pl);
    Insn st = insn_store(0, 0x100, 1, 4, 1, 1);
    st.f[FLD_POP] = 1u << UNIT_COMPUTE;
    insn_add(p, st);
    insn_add(p, isa_insn(OP_HALT));
    Diag d;
    diag_init(&d);
    RcReports r = {0};
    CHECK(racecheck_run(p, &r, &d) == 0, "overlap %d: %s", overlap, diag_first(&d));
    int early = 0;
    for (uint32_t i = 0; i < r.n; i++) early += r.r[i].kind == RC_PUSH_EARLY && r.r[i].insn == 2;
    CHECK(early == overlap, "overlap %d: %d early-push reports on the PRELOAD, want %d", overlap, early, overlap);
    racecheck_reports_free(&r);
    prog_free(p);
  }
  check_case("racecheck_overlap_one_column");
}

int main(void) {
  test_overlap_one_column();
  test_expected_reports();
  test_shipped_clean();
  test_random_removal();
  return check_status();
}
