// stats.c: the statistics table's data and the functions that walk it (stats.h). The switches
// below are generated from stats.def, so a new row reaches all of them.
#include "stats.h"

#include <stdio.h>
#include <string.h>

#define STAT_SHAPE_OF_ONE STAT_SHAPE_ONE
#define STAT_SHAPE_OF_UNITS STAT_SHAPE_UNITS
#define STAT_SHAPE_OF_MEMS STAT_SHAPE_MEMS
#define STAT_SHAPE_OF_REAL STAT_SHAPE_REAL
#define STAT_SCOPE_OF_RUN STAT_SCOPE_RUN
#define STAT_SCOPE_OF_LAYER STAT_SCOPE_LAYER
#define STAT_SCOPE_OF_SPAN STAT_SCOPE_SPAN
#define STAT_SCOPE_OF_FIG STAT_SCOPE_FIG

// sim_mem_stat: a LOAD's MEM field numbers the memories as MemStatId does.
#define STAT_MEM(id, name) _Static_assert((int)MEM_ST_##id == (int)MEM_##id, "MEM_ST_" #id " is MEM_" #id);
#include "stats.def"
#undef STAT_MEM

const StatInfo stat_info[STAT_COUNT] = {
#define STAT(name, shape, scope, json_run, json_layer, layer_pos, csv, csv_pos, unit, doc) \
  [STAT_##name] = {#name, STAT_SHAPE_OF_##shape, STAT_SCOPE_OF_##scope, json_run, json_layer, layer_pos, csv, csv_pos, unit, doc},
#include "stats.def"
#undef STAT
};

const char *const stat_mem_names[MEM_ST_COUNT] = {
#define STAT_MEM(id, name) [MEM_ST_##id] = name,
#include "stats.def"
#undef STAT_MEM
};

int stat_width(StatId id) {
  switch (stat_info[id].shape) {
  case STAT_SHAPE_ONE:
  case STAT_SHAPE_REAL: return 1;
  case STAT_SHAPE_UNITS: return NUM_UNITS;
  case STAT_SHAPE_MEMS: return MEM_ST_COUNT;
  }
  return 1;
}

const char *stat_sub_name(StatId id, int i) {
  switch (stat_info[id].shape) {
  case STAT_SHAPE_ONE:
  case STAT_SHAPE_REAL: return NULL;
  case STAT_SHAPE_UNITS: return isa_unit_names[i];
  case STAT_SHAPE_MEMS: return stat_mem_names[i];
  }
  return NULL;
}

// Where a row's i-th value lives, by scope (no field: NULL) and shape.
#define RUN_REF_RUN(shape, name) RUN_REF_##shape(name)
#define RUN_REF_LAYER(shape, name) RUN_REF_##shape(name)
#define RUN_REF_SPAN(shape, name) NULL
#define RUN_REF_FIG(shape, name) NULL
#define RUN_REF_ONE(name) &st->name
#define RUN_REF_UNITS(name) &st->unit[i].name
#define RUN_REF_MEMS(name) &st->name[i]
#define RUN_REF_REAL(name) NULL
#define LAYER_REF_RUN(shape, name) NULL
#define LAYER_REF_LAYER(shape, name) LAYER_REF_##shape(name)
#define LAYER_REF_SPAN(shape, name) LAYER_REF_##shape(name)
#define LAYER_REF_FIG(shape, name) NULL
#define LAYER_REF_ONE(name) &l->name
#define LAYER_REF_UNITS(name) &l->name[i]
#define LAYER_REF_MEMS(name) &l->name[i]
#define LAYER_REF_REAL(name) NULL

static uint64_t *run_ref(SimStats *st, StatId id, int i) {
  (void)i;
  switch (id) {
#define STAT(name, shape, scope, ...) \
  case STAT_##name: return RUN_REF_##scope(shape, name);
#include "stats.def"
#undef STAT
  }
  return NULL;
}

uint64_t *stat_layer_ref(LayerStats *l, StatId id, int i) {
  (void)i;
  switch (id) {
#define STAT(name, shape, scope, ...) \
  case STAT_##name: return LAYER_REF_##scope(shape, name);
#include "stats.def"
#undef STAT
  }
  return NULL;
}

uint64_t stat_run(const SimStats *st, StatId id, int i) {
  const uint64_t *v = run_ref((SimStats *)(uintptr_t)st, id, i);
  return v ? *v : 0;
}

uint64_t stat_layer(const LayerStats *l, StatId id, int i) {
  const uint64_t *v = stat_layer_ref((LayerStats *)(uintptr_t)l, id, i);
  return v ? *v : 0;
}

int stat_at_layer_pos(int pos) {
  for (int id = 0; id < STAT_COUNT; id++)
    if (stat_info[id].layer_pos == pos) return id;
  return -1;
}

int stat_at_csv_pos(int pos) {
  for (int id = 0; id < STAT_COUNT; id++)
    if (stat_info[id].csv_pos == pos) return id;
  return -1;
}

void stats_reset(SimStats *st) {
  LayerStats *layers = st->layers;
  uint32_t n_layers = st->n_layers;
  memset(st, 0, sizeof *st);
  st->layers = layers;
  st->n_layers = n_layers;
  memset(layers, 0, (n_layers + 1) * sizeof *layers);
}

void stats_finish(SimStats *st, uint64_t cycles) {
  st->cycles = cycles;
  for (int id = 0; id < STAT_COUNT; id++) {
    if (stat_info[id].scope != STAT_SCOPE_LAYER) continue;
    for (int i = 0; i < stat_width((StatId)id); i++) {
      uint64_t sum = 0;
      for (uint32_t l = 0; l <= st->n_layers; l++) sum += *stat_layer_ref(&st->layers[l], (StatId)id, i);
      *run_ref(st, (StatId)id, i) = sum;
    }
  }
}

// "name", "load unit name" or "name[spad]", after prefix.
static void value_name(char *out, size_t size, const char *prefix, StatId id, int i) {
  const char *sub = stat_sub_name(id, i), *name = stat_info[id].name;
  if (!sub) snprintf(out, size, "%s%s", prefix, name);
  else if (stat_info[id].shape == STAT_SHAPE_UNITS) snprintf(out, size, "%s%s unit %s", prefix, sub, name);
  else snprintf(out, size, "%s%s[%s]", prefix, name, sub);
}

int stats_compare(const SimStats *a, const SimStats *b, char *msg, size_t msg_size) {
  char what[96];
  for (int id = 0; id < STAT_COUNT; id++)
    for (int i = 0; i < stat_width((StatId)id); i++) {
      uint64_t x = stat_run(a, (StatId)id, i), y = stat_run(b, (StatId)id, i);
      if (x == y) continue;
      value_name(what, sizeof what, "", (StatId)id, i);
      snprintf(msg, msg_size, "%s: %llu vs %llu", what, (unsigned long long)x, (unsigned long long)y);
      return 1;
    }
  if (a->n_layers != b->n_layers) {
    snprintf(msg, msg_size, "n_layers: %u vs %u", a->n_layers, b->n_layers);
    return 1;
  }
  for (uint32_t l = 0; l <= a->n_layers; l++) {
    const LayerStats *x = &a->layers[l], *y = &b->layers[l];
    char prefix[32];
    snprintf(prefix, sizeof prefix, "layer %u ", l);
    if (x->seen != y->seen) {
      snprintf(msg, msg_size, "%sseen: %d vs %d", prefix, x->seen, y->seen);
      return 1;
    }
    for (int id = 0; id < STAT_COUNT; id++)
      for (int i = 0; i < stat_width((StatId)id); i++) {
        uint64_t u = stat_layer(x, (StatId)id, i), v = stat_layer(y, (StatId)id, i);
        if (u == v) continue;
        value_name(what, sizeof what, prefix, (StatId)id, i);
        snprintf(msg, msg_size, "%s: %llu vs %llu", what, (unsigned long long)u, (unsigned long long)v);
        return 1;
      }
  }
  return 0;
}
