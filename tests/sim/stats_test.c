// stats_test.c: the statistics table (sim/stats.def) is consistent and documented: output
// positions without gaps or repeats, every JSON key and CSV column named in docs/STATS.md, the
// run's totals the sums of the layers (stats_finish), and stats_compare names a difference.
// Run from the repository root (docs/STATS.md).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/stats.h"
#include "../common/check.h"

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (s) s[n] = 0;
  fclose(f);
  return s;
}

// Positions 1..n each held by exactly one row, and held exactly by the rows with a key.
static void test_positions(void) {
  int max_l = 0, max_c = 0;
  for (int id = 0; id < STAT_COUNT; id++) {
    const StatInfo *f = &stat_info[id];
    CHECK((f->layer_pos > 0) == (f->json_layer != NULL), "%s: layer_pos %d with json_layer %s", f->name,
          f->layer_pos, f->json_layer ? f->json_layer : "none");
    CHECK((f->csv_pos > 0) == (f->csv != NULL), "%s: csv_pos %d with csv %s", f->name, f->csv_pos,
          f->csv ? f->csv : "none");
    CHECK(f->scope != STAT_SCOPE_RUN || (!f->json_layer && !f->csv), "%s: counted for the run only, but in layers",
          f->name);
    CHECK(f->scope != STAT_SCOPE_SPAN || !f->json_run, "%s: a layer's span is not in the run", f->name);
    CHECK(f->json_run || f->json_layer || f->csv, "%s: in no output", f->name);
    if (f->layer_pos > max_l) max_l = f->layer_pos;
    if (f->csv_pos > max_c) max_c = f->csv_pos;
    for (int j = 0; j < id; j++) {
      CHECK(!f->layer_pos || stat_info[j].layer_pos != f->layer_pos, "%s and %s: layer_pos %d twice", stat_info[j].name,
            f->name, f->layer_pos);
      CHECK(!f->csv_pos || stat_info[j].csv_pos != f->csv_pos, "%s and %s: csv_pos %d twice", stat_info[j].name,
            f->name, f->csv_pos);
    }
  }
  for (int pos = 1; pos <= max_l; pos++) CHECK(stat_at_layer_pos(pos) >= 0, "no row at layer_pos %d", pos);
  for (int pos = 1; pos <= max_c; pos++) CHECK(stat_at_csv_pos(pos) >= 0, "no row at csv_pos %d", pos);
  check_case("stats: output positions 1..n, one row each");
}

// key with "%s" as "<u>" (units) or "<mem>" (memories), in backquotes, is in doc.
static void check_named(const char *doc, StatId id, const char *key, const char *what) {
  if (!key) return;
  char k[128], q[132];
  snprintf(k, sizeof k, key, stat_info[id].shape == STAT_SHAPE_UNITS ? "<u>" : "<mem>");
  snprintf(q, sizeof q, "`%s`", k);
  CHECK(strstr(doc, q) != NULL, "docs/STATS.md does not name %s %s (row %s)", what, q, stat_info[id].name);
}

static void test_documented(void) {
  char *doc = read_text("docs/STATS.md");
  CHECK(doc != NULL, "cannot read docs/STATS.md (run from the repository root)");
  for (int id = 0; doc && id < STAT_COUNT; id++) {
    check_named(doc, (StatId)id, stat_info[id].json_run, "the JSON key");
    check_named(doc, (StatId)id, stat_info[id].json_layer, "the layers[] key");
    check_named(doc, (StatId)id, stat_info[id].csv, "the CSV column");
  }
  free(doc);
  check_case("stats: docs/STATS.md names every key and column of sim/stats.def");
}

static void test_finish_and_compare(void) {
  LayerStats layers[3];
  memset(layers, 0, sizeof layers);
  SimStats a, b;
  memset(&a, 0, sizeof a);
  a.n_layers = 2;
  a.layers = layers;
  // Every LAYER row's value i in layer l: 100 * id + 10 * i + l + 1.
  for (int id = 0; id < STAT_COUNT; id++) {
    if (stat_info[id].scope != STAT_SCOPE_LAYER) continue;
    for (uint32_t l = 0; l < 3; l++)
      for (int i = 0; i < stat_width((StatId)id); i++) {
        uint64_t *p = stat_layer_ref(&layers[l], (StatId)id, i);
        CHECK(p != NULL, "%s[%d]: no field", stat_info[id].name, i);
        if (p) *p = 100u * (unsigned)id + 10u * (unsigned)i + l + 1;
      }
  }
  stats_finish(&a, 77);
  CHECK(a.cycles == 77, "cycles %llu", (unsigned long long)a.cycles);
  for (int id = 0; id < STAT_COUNT; id++) {
    if (stat_info[id].scope != STAT_SCOPE_LAYER) continue;
    for (int i = 0; i < stat_width((StatId)id); i++) {
      uint64_t want = 3 * (100u * (unsigned)id + 10u * (unsigned)i) + 6;
      CHECK(stat_run(&a, (StatId)id, i) == want, "%s[%d]: total %llu, want %llu", stat_info[id].name, i,
            (unsigned long long)stat_run(&a, (StatId)id, i), (unsigned long long)want);
    }
  }
  char msg[200] = "";
  LayerStats layers_b[3];
  memcpy(layers_b, layers, sizeof layers);
  b = a;
  b.layers = layers_b;
  CHECK(stats_compare(&a, &b, msg, sizeof msg) == 0, "equal runs differ: %s", msg);
  layers_b[1].mem_reads[MEM_ST_ACC]++;
  CHECK(stats_compare(&a, &b, msg, sizeof msg) == 1 && !strncmp(msg, "layer 1 mem_reads[acc]: ", 24),
        "message: %s", msg);
  b.unit[UNIT_STORE].idle = 5;
  CHECK(stats_compare(&a, &b, msg, sizeof msg) == 1 && !strcmp(msg, "store unit idle: 0 vs 5"), "message: %s", msg);
  check_case("stats: stats_finish sums the layers, stats_compare names the first difference");
}

int main(void) {
  test_positions();
  test_documented();
  test_finish_and_compare();
  return check_status();
}
