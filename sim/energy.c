// energy.c: the energy table (parse, validate, built-in default) and the energy of a run from its
// counts (docs/PPA.md). The engines only count events (sim.h); this file prices them after the
// run: MACs, array slots and weight shifts, on-chip row accesses per memory, global-buffer and DRAM beats,
// post-processed elements, the special-function unit's operations per class, and leakage =
// area x leakage density x time. Areas are area.c's.
#include "energy.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/fileio.h"
#include "../isa/fileread.h"
#include "area.h"

const char *const energy_comp_names[EN_COUNT] = {"mac",  "pe_regs", "spad", "wbuf", "acc",    "param",
                                                 "gbuf", "dram",    "post", "sfu",  "leakage"};

// --- The table's keys ----------------------------------------------------------------------------

#define MAX_FIELDS 5

// One entry: an object {"<field>": number, ..., "source": "citation"} at group.key.
typedef struct {
  const char *group;                 // "energy", "area", or NULL for a top-level entry
  const char *key;
  const char *field[MAX_FIELDS];     // its numeric members
  size_t offset[MAX_FIELDS];         // offsetof(EnergyTable, ...) of each
  double lo, hi;                     // inclusive range of each member
} TableKey;

#define OFF(f) offsetof(EnergyTable, f)
#define VALUE(g, k, f, lo, hi) {g, k, {"value"}, {OFF(f)}, lo, hi}
static const TableKey table_keys[] = {
    {NULL, "scale", {"energy", "area"}, {OFF(scale_energy), OFF(scale_area)}, 1e-6, 1e6},
    VALUE("energy", "int8_mult_pj", int8_mult_pj, 0, 1e6),
    VALUE("energy", "int32_add_pj", int32_add_pj, 0, 1e6),
    VALUE("energy", "int32_mult_pj", int32_mult_pj, 0, 1e6),
    VALUE("energy", "reg_bit_pj", reg_bit_pj, 0, 1e6),
    VALUE("energy", "pe_slot_reg_bits", pe_slot_reg_bits, 0, 1e4),
    VALUE("energy", "weight_reg_bits", weight_reg_bits, 0, 1e4),
    {"energy", "sram_bit_pj", {"base", "per_sqrt_kib"}, {OFF(sram_bit_pj_base), OFF(sram_bit_pj_per_sqrt_kib)}, 0, 1e6},
    VALUE("energy", "sram_write_factor", sram_write_factor, 0, 100),
    VALUE("energy", "dram_byte_pj", dram_byte_pj, 0, 1e6),
    {"energy", "leakage_mw_per_mm2", {"logic", "sram"}, {OFF(leak_logic_mw_per_mm2), OFF(leak_sram_mw_per_mm2)}, 0, 1e6},
    VALUE("energy", "sfu_stage_reg_bits", sfu_stage_reg_bits, 0, 1e4),
    VALUE("energy", "sfu_exp_pj", sfu_exp_pj, 0, 1e6),
    VALUE("energy", "sfu_gelu_pj", sfu_gelu_pj, 0, 1e6),
    VALUE("energy", "sfu_sigmoid_pj", sfu_sigmoid_pj, 0, 1e6),
    VALUE("energy", "sfu_hard_pj", sfu_hard_pj, 0, 1e6),
    VALUE("energy", "sfu_ew_add_pj", sfu_ew_add_pj, 0, 1e6),
    VALUE("energy", "sfu_ew_mul_pj", sfu_ew_mul_pj, 0, 1e6),
    VALUE("energy", "sfu_norm_pj", sfu_norm_pj, 0, 1e6),
    VALUE("energy", "sfu_reduce_pj", sfu_reduce_pj, 0, 1e6),
    VALUE("energy", "sfu_recip_pj", sfu_recip_pj, 0, 1e6),
    VALUE("energy", "sfu_rsqrt_pj", sfu_rsqrt_pj, 0, 1e6),
    VALUE("area", "um2_per_transistor", um2_per_transistor, 1e-6, 1e3),
    VALUE("area", "logic_utilization", logic_utilization, 0.01, 1),
    {"area", "pe_array_transistors", {"pe", "skew", "edge", "fixed"},
     {OFF(pe_tr), OFF(skew_tr), OFF(edge_tr), OFF(fixed_tr)}, -1e9, 1e9},
    VALUE("area", "post_col_transistors", post_col_tr, 0, 1e9),
    VALUE("area", "control_transistors", control_tr, 0, 1e12),
    VALUE("area", "sram_cell_um2", sram_cell_um2, 1e-6, 1e3),
    VALUE("area", "sram_array_efficiency", sram_array_efficiency, 0.01, 1),
    VALUE("area", "sram_port_factor", sram_port_factor, 0, 10),
    {"area", "sram_ports", {"spad", "wbuf", "acc", "param", "gbuf"},
     {OFF(sram_ports[0]), OFF(sram_ports[1]), OFF(sram_ports[2]), OFF(sram_ports[3]), OFF(sram_ports_gbuf)}, 1, 16},
    VALUE("area", "sfu_lane_transistors", sfu_lane_tr, 0, 1e9),
    VALUE("area", "sfu_scalar_transistors", sfu_scalar_tr, 0, 1e9),
    VALUE("area", "sfu_control_transistors", sfu_control_tr, 0, 1e12),
    VALUE("area", "flip_flop_transistors", flip_flop_tr, 0, 1e4),
};
#undef VALUE
#define NKEYS (sizeof table_keys / sizeof table_keys[0])

static double *field_ptr(EnergyTable *t, size_t offset) { return (double *)(void *)((char *)t + offset); }
static double field_get(const EnergyTable *t, size_t offset) {
  return *(const double *)(const void *)((const char *)t + offset);
}

void energy_default(EnergyTable *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "default-45nm");
  snprintf(t->node, sizeof t->node, "45nm");
  t->scale_energy = 1.0;
  t->scale_area = 1.0;
  t->int8_mult_pj = 0.2;
  t->int32_add_pj = 0.1;
  t->int32_mult_pj = 3.1;
  t->reg_bit_pj = 0.003125;
  t->pe_slot_reg_bits = 46;
  t->weight_reg_bits = 8;
  t->sram_bit_pj_base = 0.0306;
  t->sram_bit_pj_per_sqrt_kib = 0.0479;
  t->sram_write_factor = 1.0;
  t->dram_byte_pj = 162.5;
  t->leak_logic_mw_per_mm2 = 27.0;
  t->leak_sram_mw_per_mm2 = 2.9;
  // The special-function unit's operations, derived in docs/PPA.md from the figures above.
  t->sfu_stage_reg_bits = 48;
  t->sfu_exp_pj = 2.832;
  t->sfu_gelu_pj = 5.511;
  t->sfu_sigmoid_pj = 7.785;
  t->sfu_hard_pj = 7.018;
  t->sfu_ew_add_pj = 0.1;
  t->sfu_ew_mul_pj = 3.2;
  t->sfu_norm_pj = 1.413;
  t->sfu_reduce_pj = 0.15;
  t->sfu_recip_pj = 2.809;
  t->sfu_rsqrt_pj = 9.147;
  t->um2_per_transistor = 0.1995;
  t->logic_utilization = 0.7;
  // BEGIN calibrate-area (scripts/calibrate-area rewrites these lines and the table file)
  t->pe_tr = 10376.4;
  t->skew_tr = 687.3;
  t->edge_tr = -303.8;
  t->fixed_tr = -240.2;
  t->post_col_tr = 50234;
  // END calibrate-area
  t->control_tr = 300000;
  t->sram_cell_um2 = 0.346;
  t->sram_array_efficiency = 0.6;
  t->sram_port_factor = 0.5;
  t->sram_ports[MEM_ST_SPAD] = 2;
  t->sram_ports[MEM_ST_WBUF] = 2;
  t->sram_ports[MEM_ST_ACC] = 4;
  t->sram_ports[MEM_ST_PARAM] = 2;
  t->sram_ports_gbuf = 2;   // a read port (load unit) and a write port (store unit), docs/TIMING.md 5a
  // BEGIN calibrate-area sfu (scripts/calibrate-area rewrites these lines and the table file)
  t->sfu_lane_tr = 204824;
  t->sfu_scalar_tr = 32998;
  // END calibrate-area sfu
  t->sfu_control_tr = 40000;
  t->flip_flop_tr = 16;
}

int energy_equal(const EnergyTable *x, const EnergyTable *y) {
  if (strcmp(x->name, y->name) || strcmp(x->node, y->node)) return 0;
  for (size_t i = 0; i < NKEYS; i++)
    for (int f = 0; f < MAX_FIELDS && table_keys[i].field[f]; f++)
      if (field_get(x, table_keys[i].offset[f]) != field_get(y, table_keys[i].offset[f])) return 0;
  return 1;
}

// --- Parsing -------------------------------------------------------------------------------------

typedef struct {
  const char *text;
  size_t len;
  const char *file;
  Diag *d;
} Parse;

// Where the member `"name":` of the object entered after `from` is (`from` is at nesting depth
// `depth`; the member is at depth + 1); p->len when that object has none. Skips string contents.
static size_t find_member(const Parse *p, size_t from, int depth, const char *name) {
  size_t n = strlen(name);
  int level = depth, entered = 0;
  for (size_t i = from; i < p->len; i++) {
    char ch = p->text[i];
    if (ch == '{' || ch == '[') {
      level++;
      entered = 1;
    } else if (ch == '}' || ch == ']') {
      if (--level <= depth && entered) return p->len;   // left the object without finding it
    } else if (ch == '"') {
      size_t j = i + 1;
      while (j < p->len && p->text[j] != '"') j += p->text[j] == '\\' ? 2 : 1;
      if (level == depth + 1 && j - i - 1 == n && !strncmp(p->text + i + 1, name, n)) {
        size_t k = j + 1;
        while (k < p->len && p->text[k] && strchr(" \t\r\n", p->text[k])) k++;
        if (k < p->len && p->text[k] == ':') return i;
      }
      i = j;
    }
  }
  return p->len;
}

// jansson keeps no positions in the tree, so a key is found in the text: each path component
// inside the previous one's object (members are unique per object, JSON_REJECT_DUPLICATES). A
// missing component leaves the position of the last one found (the enclosing object's key).
static int table_error(const Parse *p, const char *k1, const char *k2, const char *k3, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int table_error(const Parse *p, const char *k1, const char *k2, const char *k3, const char *fmt, ...) {
  const char *path[3];
  int n_path = 0;
  if (k1) path[n_path++] = k1;   // NULLs are left out: a top-level entry's member is scale.energy
  if (k2) path[n_path++] = k2;
  if (k3) path[n_path++] = k3;
  size_t pos = 0, found = 0;
  int any = 0;
  char where[160] = "";
  for (int i = 0; i < n_path; i++) {
    size_t at = find_member(p, pos, i, path[i]);
    if (at < p->len && (i == 0 || any)) {
      found = pos = at;
      any = 1;
    } else {
      any = 0;
    }
    size_t n = strlen(where);
    snprintf(where + n, sizeof where - n, "%s%s", i ? "." : "", path[i]);
  }
  int line = 1, col = 1;
  for (size_t i = 0; i < found; i++) {
    if (p->text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return diag_error(p->d, "%s:%d:%d: %s: error: %s", p->file, line, col, where, msg);
}

static const TableKey *key_of(const char *group, const char *key) {
  for (size_t i = 0; i < NKEYS; i++) {
    const TableKey *k = &table_keys[i];
    if (((!group && !k->group) || (group && k->group && !strcmp(group, k->group))) && !strcmp(key, k->key)) return k;
  }
  return NULL;
}

// One entry {"<field>": number, ..., "source": "..."}: every field and a non-empty source.
static int parse_entry(const Parse *p, const TableKey *k, json_t *v, EnergyTable *t) {
  const char *g = k->group ? k->group : k->key, *key = k->group ? k->key : NULL;
  if (!json_is_object(v)) return table_error(p, g, key, NULL, "expected an object with its figures and \"source\"");
  const char *name;
  json_t *x;
  json_object_foreach(v, name, x) {
    int known = !strcmp(name, "source") || !strcmp(name, "comment");
    for (int f = 0; f < MAX_FIELDS && k->field[f]; f++) known |= !strcmp(name, k->field[f]);
    if (!known) return table_error(p, g, key, name, "unknown key");
  }
  json_t *src = json_object_get(v, "source");
  if (!json_is_string(src) || !json_string_length(src))
    return table_error(p, g, key, "source", "every figure needs a \"source\": a non-empty string (citation)");
  for (int f = 0; f < MAX_FIELDS && k->field[f]; f++) {
    x = json_object_get(v, k->field[f]);
    if (!x) return table_error(p, g, key, k->field[f], "missing key");
    if (!json_is_number(x)) return table_error(p, g, key, k->field[f], "expected a number");
    double val = json_number_value(x);
    if (!(val >= k->lo && val <= k->hi))
      return table_error(p, g, key, k->field[f], "%g is out of range [%g, %g]", val, k->lo, k->hi);
    *field_ptr(t, k->offset[f]) = val;
  }
  return 0;
}

static int parse_string(const Parse *p, const char *key, json_t *v, char *out, size_t cap) {
  if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= cap)
    return table_error(p, key, NULL, NULL, "expected a non-empty string of at most %zu characters", cap - 1);
  snprintf(out, cap, "%s", json_string_value(v));
  return 0;
}

// Checks the whole table after parsing: an array of any legal size must have a positive area.
// For a fixed R the model is linear in C, so positive at C = 1 and C = max is positive for all C.
static int table_validate(const Parse *p, const EnergyTable *t) {
  for (uint32_t r = 1; r <= ARCH_MAX_DIM; r++)
    for (uint32_t c = 1; c <= ARCH_MAX_DIM; c += ARCH_MAX_DIM - 1)
      if (!(area_array_transistors(t, r, c) > 0))
        return table_error(p, "area", "pe_array_transistors", NULL, "the model gives a %ux%u array no area", r, c);
  return 0;
}

int energy_parse(const char *text, size_t len, const char *file, EnergyTable *t, Diag *d) {
  Parse p = {text, len, file, d};
  json_error_t err;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
  if (!root)
    return diag_error(d, "%s:%d:%d: error: %s", file, err.line > 0 ? err.line : 1, err.column > 0 ? err.column : 1,
                      err.text);
  int rc = 0;
  memset(t, 0, sizeof *t);
  if (!json_is_object(root)) {
    rc = diag_error(d, "%s:1:1: error: an energy table must be a JSON object", file);
    goto out;
  }
  const char *key;
  json_t *val;
  json_object_foreach(root, key, val) {
    if (!strcmp(key, "comment")) continue;
    if (!strcmp(key, "name")) {
      rc = parse_string(&p, key, val, t->name, sizeof t->name);
    } else if (!strcmp(key, "node")) {
      rc = parse_string(&p, key, val, t->node, sizeof t->node);
    } else if (key_of(NULL, key)) {
      rc = parse_entry(&p, key_of(NULL, key), val, t);
    } else if (!strcmp(key, "energy") || !strcmp(key, "area")) {
      if (!json_is_object(val)) {
        rc = table_error(&p, key, NULL, NULL, "expected an object");
        goto out;
      }
      const char *sub;
      json_t *sv;
      json_object_foreach(val, sub, sv) {
        if (!strcmp(sub, "comment")) continue;
        const TableKey *k = key_of(key, sub);
        rc = k ? parse_entry(&p, k, sv, t) : table_error(&p, key, sub, NULL, "unknown key");
        if (rc) goto out;
      }
    } else {
      rc = table_error(&p, key, NULL, NULL, "unknown key");
    }
    if (rc) goto out;
  }
  // Every key must be given: a table states a source for each figure it uses.
  if (!t->name[0]) {
    rc = table_error(&p, "name", NULL, NULL, "missing key");
    goto out;
  }
  if (!t->node[0]) {
    rc = table_error(&p, "node", NULL, NULL, "missing key");
    goto out;
  }
  for (size_t i = 0; i < NKEYS; i++) {
    const TableKey *k = &table_keys[i];
    json_t *v = k->group ? json_object_get(json_object_get(root, k->group), k->key) : json_object_get(root, k->key);
    if (!v) {
      rc = table_error(&p, k->group ? k->group : k->key, k->group ? k->key : NULL, NULL, "missing key");
      goto out;
    }
  }
  rc = table_validate(&p, t);
out:
  json_decref(root);
  return rc;
}

int energy_load_file(const char *path, EnergyTable *t, Diag *d) {
  uint8_t *buf;
  size_t len;
  FileReadLimits lim = {ENERGY_FILE_MAX_BYTES, "the limit of an energy table", 4096, file_head_text, NULL};
  if (file_read_limited(path, &lim, &buf, &len, d)) return -1;
  int rc = energy_parse((const char *)buf, len, path, t, d);
  free(buf);
  return rc;
}

// --- Energy of a run ------------------------------------------------------------------------------

double energy_sram_row_pj(const EnergyTable *t, const Arch *a, MemStatId m) {
  double row_bytes, rows;
  area_mem_shape(a, m, &row_bytes, &rows);
  double kib = row_bytes * rows / 1024.0;
  return 8.0 * row_bytes * (t->sram_bit_pj_base + t->sram_bit_pj_per_sqrt_kib * sqrt(kib));
}

double energy_gbuf_beat_pj(const EnergyTable *t, const Arch *a) {
  double kib = a->gbuf_bytes / 1024.0;
  return 8.0 * a->gbuf_bus_bytes * (t->sram_bit_pj_base + t->sram_bit_pj_per_sqrt_kib * sqrt(kib));
}

int energy_gbuf_beats_as_dram(const Arch *a) { return a->gbuf_bus_bytes == a->bus_bytes; }

// The special-function unit's counts (stats.def's sfu_* rows), the same fields in SimStats and
// LayerStats.
typedef struct {
  uint64_t elems, exp, gelu, sigmoid, hard, ew_add, ew_mul, norm, reduce, recip, rsqrt;
} SfuCounts;
#define SFU_COUNTS(x)                                                                                 \
  {(x)->sfu_elems,  (x)->sfu_exp,  (x)->sfu_gelu,   (x)->sfu_sigmoid, (x)->sfu_hard, (x)->sfu_ew_add, \
   (x)->sfu_ew_mul, (x)->sfu_norm, (x)->sfu_reduce, (x)->sfu_recip,   (x)->sfu_rsqrt}

// The counts one breakdown is computed from: a whole run's or one layer's.
typedef struct {
  uint64_t macs, pe_cycles, preload_shifts, post_elems, beats, cycles;
  const uint64_t *reads, *writes;
  SfuCounts sfu;
  uint64_t gbuf_read_beats, gbuf_write_beats, gbuf_bytes;   // gbuf_bytes: read + written, useful
} Counts;
#define GBUF_COUNTS(x) \
  (x)->gbuf_read_beats, (x)->gbuf_write_beats, (x)->gbuf_read_bytes + (x)->gbuf_write_bytes

// The unit's arithmetic per class, and every value's trip through the lanes' P pipeline stages
// (before scale_energy). Its ACC and PARAM rows are priced with the memories.
static double sfu_pj(const SfuCounts *n, const Arch *a, const EnergyTable *t) {
  return (double)n->elems * a->sfu_latency * t->sfu_stage_reg_bits * t->reg_bit_pj +
         (double)n->exp * t->sfu_exp_pj + (double)n->gelu * t->sfu_gelu_pj + (double)n->sigmoid * t->sfu_sigmoid_pj +
         (double)n->hard * t->sfu_hard_pj + (double)n->ew_add * t->sfu_ew_add_pj + (double)n->ew_mul * t->sfu_ew_mul_pj +
         (double)n->norm * t->sfu_norm_pj + (double)n->reduce * t->sfu_reduce_pj + (double)n->recip * t->sfu_recip_pj +
         (double)n->rsqrt * t->sfu_rsqrt_pj;
}

static void breakdown(const Counts *n, const Arch *a, const EnergyTable *t, double leak_mw, EnergyBreakdown *out) {
  double s = t->scale_energy;
  out->pj[EN_MAC] = s * (double)n->macs * (t->int8_mult_pj + t->int32_add_pj);
  out->pj[EN_PE_REGS] = s * t->reg_bit_pj *
                        ((double)n->pe_cycles * t->pe_slot_reg_bits +
                         (double)n->preload_shifts * a->rows * a->cols * t->weight_reg_bits);
  for (int m = 0; m < MEM_ST_COUNT; m++)
    out->pj[EN_SPAD + m] = s * energy_sram_row_pj(t, a, (MemStatId)m) *
                           ((double)n->reads[m] + t->sram_write_factor * (double)n->writes[m]);
  out->pj[EN_GBUF] = s * energy_gbuf_beat_pj(t, a) *
                    ((double)n->gbuf_read_beats + t->sram_write_factor * (double)n->gbuf_write_beats);
  out->pj[EN_DRAM] = s * (double)n->beats * a->bus_bytes * t->dram_byte_pj;
  // Per element: bias add, requantization multiply, rounding add, clamp compare.
  out->pj[EN_POST] = s * (double)n->post_elems * (t->int32_mult_pj + 3 * t->int32_add_pj);
  out->pj[EN_SFU] = s * sfu_pj(&n->sfu, a, t);
  out->pj[EN_LEAKAGE] = leak_mw * ((double)n->cycles / a->clock_mhz) * 1000.0;   // mW x us = nJ
  out->total_pj = 0;
  for (int c = 0; c < EN_COUNT; c++) out->total_pj += out->pj[c];
  // The DRAM energy the buffer's transfers would have cost with GBUF=0: the same address
  // arithmetic enumerates the same beats when both are as wide, so then their bytes on the bus
  // exactly; otherwise at least their useful bytes.
  out->dram_saved_bytes = n->gbuf_bytes;
  double bus = energy_gbuf_beats_as_dram(a) ? (double)(n->gbuf_read_beats + n->gbuf_write_beats) * a->bus_bytes
                                            : (double)n->gbuf_bytes;
  out->dram_avoided_pj = s * bus * t->dram_byte_pj;
  out->dram_saved_pj = out->dram_avoided_pj - out->pj[EN_GBUF];
}

int energy_of(const SimStats *st, const Arch *a, const EnergyTable *t, EnergyReport *out) {
  memset(out, 0, sizeof *out);
  AreaReport ar;
  area_of(a, t, &ar);
  double leak_mw = ar.logic_mm2 * t->leak_logic_mw_per_mm2 + ar.sram_mm2 * t->leak_sram_mw_per_mm2;
  Counts n = {st->macs,   st->pe_cycles, st->preload_shifts, st->post_elems, st->dram_read_beats + st->dram_write_beats,
              st->cycles, st->mem_reads, st->mem_writes,     SFU_COUNTS(st), GBUF_COUNTS(st)};
  breakdown(&n, a, t, leak_mw, &out->run);
  out->time_us = (double)st->cycles / a->clock_mhz;
  out->power_mw = out->time_us > 0 ? out->run.total_pj / out->time_us / 1000.0 : 0;   // pJ/us = uW
  out->tops_per_w = out->run.total_pj > 0 ? 2.0 * (double)st->macs / out->run.total_pj : 0;
  out->n_layers = st->n_layers;
  out->layers = calloc((size_t)st->n_layers + 1, sizeof *out->layers);
  if (!out->layers) return -1;
  for (uint32_t i = 0; i <= st->n_layers; i++) {
    const LayerStats *l = &st->layers[i];
    if (!l->seen) continue;
    Counts c = {l->macs, l->pe_cycles, l->preload_shifts, l->post_elems, l->dram_read_beats + l->dram_write_beats,
                l->last_end - l->first_start + 1, l->mem_reads, l->mem_writes, SFU_COUNTS(l), GBUF_COUNTS(l)};
    breakdown(&c, a, t, leak_mw, &out->layers[i]);
  }
  return 0;
}

void energy_report_free(EnergyReport *r) {
  if (!r) return;
  free(r->layers);
  r->layers = NULL;
}
