// stats.h: the statistics table (stats.def) as data: one StatId per row, what it is, where it
// goes in the outputs, and the functions that read, compare and total a run's figures by id, so
// that report.c, the tests and the RTL harness walk the table instead of naming each counter.
#ifndef SA_STATS_H
#define SA_STATS_H

#include <stddef.h>

#include "sim.h"

typedef enum {
#define STAT(name, ...) STAT_##name,
#include "stats.def"
#undef STAT
} StatId;
enum {
  STAT_COUNT = 0   // how many (not a StatId: switches over one need no case for it)
#define STAT(name, ...) +1
#include "stats.def"
#undef STAT
};

typedef enum { STAT_SHAPE_ONE, STAT_SHAPE_UNITS, STAT_SHAPE_MEMS, STAT_SHAPE_REAL } StatShape;
typedef enum { STAT_SCOPE_RUN, STAT_SCOPE_LAYER, STAT_SCOPE_SPAN, STAT_SCOPE_FIG } StatScope;

typedef struct {
  const char *name;         // the C field, and the name in messages
  StatShape shape;          // one value, one per unit, one per memory, or a derived real
  StatScope scope;          // counted for the run, per layer (summed), a layer's span, or derived
  const char *json_run;     // key path in the --json object ("%s": unit / memory), or NULL
  const char *json_layer;   // key path in a layers[] entry, or NULL
  int layer_pos;            // position in a layers[] entry (after "name"), 0: not there
  const char *csv;          // --csv column, or NULL
  int csv_pos;              // position among the CSV columns (after "layer"), 0: not there
  const char *unit;         // what it counts
  const char *doc;          // one line for people
} StatInfo;

extern const StatInfo stat_info[STAT_COUNT];
extern const char *const stat_mem_names[MEM_ST_COUNT];

// Values in a row: 1, NUM_UNITS or MEM_ST_COUNT.
int stat_width(StatId id);
// The name of a row's i-th value ("load", "spad"), or NULL for a one-value row.
const char *stat_sub_name(StatId id, int i);
// A RUN or LAYER row's i-th value in the run; 0 for the others.
uint64_t stat_run(const SimStats *st, StatId id, int i);
// A LAYER or SPAN row's i-th value in a layer; 0 for the others.
uint64_t stat_layer(const LayerStats *l, StatId id, int i);
// Where a LAYER or SPAN row's i-th value lives in a layer (NULL for the others).
uint64_t *stat_layer_ref(LayerStats *l, StatId id, int i);
// The id at a layer_pos / csv_pos (1-based), or -1 when no row has it.
int stat_at_layer_pos(int pos);
int stat_at_csv_pos(int pos);

// Statistics from zero for a new run (the layers array kept, zeroed).
void stats_reset(SimStats *st);
// The end of a run: cycles, and every LAYER row's total as the sum of its layers.
void stats_finish(SimStats *st, uint64_t cycles);
// Compares two runs' figures (run, then layer by layer, every row of the table and layers'
// seen flags); 0 if equal, else 1 with the first difference in msg, e.g.
// "layer 2 mem_reads[acc]: 12 vs 13".
int stats_compare(const SimStats *a, const SimStats *b, char *msg, size_t msg_size);

#endif
