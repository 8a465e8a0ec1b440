// report.c: prints the statistics of a finished run (text, JSON, CSV) and its trace.
// Only formats numbers the engines computed; derives ratios (utilization, time), and prices them
// with the energy and area models (energy.c, area.c).
#include "report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/asm.h"
#include "area.h"
#include "clock.h"
#include "layer_dataflow.h"
#include "report_gbuf.h"
#include "report_sfu.h"
#include "stats.h"
#include "timeline.h"


const char *report_layer_name(const Program *p, uint32_t i, char *out) {
  const char *name = i < p->n_layers ? p->layer_names[i] : "(none)";
  size_t n = 0;
  for (const unsigned char *c = (const unsigned char *)name; *c && n + 5 < 4 * PROG_NAME_MAX; c++) {
    if (*c >= 0x20 && *c < 0x7f && *c != '\\')
      out[n++] = (char)*c;
    else
      n += (size_t)snprintf(out + n, 5, "\\x%02x", *c);
  }
  out[n] = 0;
  return out;
}
#define NAME_BUF REPORT_NAME_BUF
#define layer_name report_layer_name

const char *report_op_label(const Insn *in) {
  switch (in->op) {
  case OP_LOAD: return in->f[FLD_GBUF] ? "LOAD gbuf" : "LOAD";
  case OP_STORE: return in->f[FLD_GBUF] ? "STORE gbuf" : "STORE";
  case OP_CFG_LOAD:
  case OP_PRELOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: break;   // no memory to name
  }
  return isa_ops[in->op].name;
}

// name as a CSV field: always quoted, inner quotes doubled.
static void csv_field(FILE *out, const char *name) {
  fputc('"', out);
  for (; *name; name++) {
    if (*name == '"') fputc('"', out);
    fputc(*name, out);
  }
  fputc('"', out);
}

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }
static double pct_d(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

static double peak_fraction(const Sim *s, uint64_t macs, uint64_t cycles) {
  const Arch *a = &sim_program(s)->arch;
  return pct(macs, cycles * a->rows * a->cols);
}

static uint64_t useful_macs(const Sim *s, const LayerStats *l);

// The energy and area sections of the table. The sfu energy line only when the program uses the
// unit (sfu), the gbuf line only when it uses the global buffer (gbuf); their areas are the
// machine's, always shown.
static void text_ppa(FILE *out, const Arch *a, const SimStats *st, const EnergyTable *t, const EnergyReport *e, int sfu,
                     int gbuf) {
  fprintf(out, "\nenergy         %.3f uJ per inference (table %s, %s)\n", e->run.total_pj * 1e-6, t->name, t->node);
  for (int c = 0; c < EN_COUNT; c++)
    if ((c != EN_SFU || sfu) && (c != EN_GBUF || gbuf)) fprintf(out, "  %-12s %16.1f pJ %6.1f%%\n", energy_comp_names[c], e->run.pj[c], pct_d(e->run.pj[c], e->run.total_pj));
  fprintf(out, "power          %.3f mW average at %.0f MHz; %.3f TOPS/W (2 x %llu array MACs / energy)\n", e->power_mw,
          a->clock_mhz, e->tops_per_w, (unsigned long long)st->macs);
  AreaReport ar;
  area_of(a, t, &ar);
  fprintf(out, "\narea           %.4f mm2 at %s\n", ar.total_mm2, t->node);
  for (int c = 0; c < AR_COUNT; c++)
    fprintf(out, "  %-12s %16.4f mm2 %5.1f%%\n", area_comp_names[c], ar.mm2[c], pct_d(ar.mm2[c], ar.total_mm2));
}

// The clock the arch claims beside the one its RTL is estimated to make (clock.c, docs/PPA.md
// "Clock"). Time, power and TOPS/W stay at the arch's clock; a claim faster than the estimate is
// flagged, since every figure per second then rests on a clock this RTL would not reach.
static void text_clock(FILE *out, const Arch *a) {
  ClockEstimate ce;
  clock_estimate(a, &ce);
  fprintf(out, "\nclock          %.0f MHz (the arch's; time, power and TOPS/W use it)\n", a->clock_mhz);
  fprintf(out, "  estimated    %.0f MHz at 45 nm, set by %s (", ce.mhz, ce.critical_name);
  for (int b = 0; b < CLK_BLOCKS; b++) fprintf(out, "%s%s %.0f ps", b ? ", " : "", clock_block_names[b], ce.block_ps[b]);
  fprintf(out, ")\n");
  if (a->clock_mhz > ce.mhz)
    fprintf(out, "  warning: the arch claims %.0f MHz, %.1fx the %.0f MHz this RTL is estimated to make\n",
            a->clock_mhz, a->clock_mhz / ce.mhz, ce.mhz);
}

// The text table's column of a unit's busy cycles per layer.
static const char *unit_busy_column(Unit u) {
  switch (u) {
  case UNIT_LOAD: return "busy_ld";
  case UNIT_COMPUTE: return "busy_cmp";
  case UNIT_STORE: return "busy_st";
  case UNIT_SFU: return "busy_sfu";
  case UNIT_ALL:
  case UNIT_FETCH: break;   // routing classes, not units
  }
  return "busy_?";
}

void report_text(FILE *out, const Sim *s, const char *label, const EnergyTable *t) {
  const Program *p = sim_program(s);
  const Arch *a = &p->arch;
  const SimStats *st = sim_stats(s);
  EnergyReport e;
  int have_e = energy_of(st, a, t, &e) == 0;
  int sfu = report_sfu_used(p);   // else no SFU row, column or block: the table reads as before the unit
  // The global buffer's line and columns only for a program that uses it (GBUF=1 LOADs or
  // STOREs, each of which moves at least one beat): the others' tables read as before.
  int gbuf = st->gbuf_read_beats + st->gbuf_write_beats > 0;
  double us = (double)st->cycles / a->clock_mhz;
  fprintf(out, "program        %s\n", label);
  fprintf(out, "arch           %s: %ux%u array, %u B/cycle DRAM bus, latency %u, %.0f MHz\n", a->name, a->rows,
          a->cols, a->bus_bytes, a->dram_latency, a->clock_mhz);
  fprintf(out, "cycles         %llu (%.3f us)\n", (unsigned long long)st->cycles, us);
  uint64_t useful = useful_macs(s, NULL);
  fprintf(out, "MACs           %llu useful (%s), %llu array slots (mapping efficiency %.1f%%)\n",
          (unsigned long long)useful, p->layer_macs ? "the network's" : "not declared: the array MACs",
          (unsigned long long)st->pe_cycles, pct(useful, st->pe_cycles));
  fprintf(out, "utilization    %.1f%% of peak (useful MACs / (cycles x %u)); array slots occupied %.1f%%\n",
          peak_fraction(s, useful, st->cycles), a->rows * a->cols, peak_fraction(s, st->pe_cycles, st->cycles));
  fprintf(out, "\n%-10s %12s %12s %14s %12s %8s\n", "unit", "busy", "wait_token", "wait_resource", "idle", "insns");
  for (int u = 0; u < NUM_UNITS; u++) {
    if (u == UNIT_SFU && !sfu) continue;
    const UnitStats *us_ = &st->unit[u];
    fprintf(out, "%-10s %12llu %12llu %14llu %12llu %8llu\n", isa_unit_names[u], (unsigned long long)us_->busy,
            (unsigned long long)us_->wait_token, (unsigned long long)us_->wait_resource,
            (unsigned long long)us_->idle, (unsigned long long)us_->insns);
  }
  fprintf(out, "fetch stall    %llu cycles\n", (unsigned long long)st->fetch_stall);
  fprintf(out, "\nDRAM           read %llu B in %llu beats, write %llu B in %llu beats\n",
          (unsigned long long)st->dram_read_bytes, (unsigned long long)st->dram_read_beats,
          (unsigned long long)st->dram_write_bytes, (unsigned long long)st->dram_write_beats);
  if (gbuf)
    fprintf(out, "GBUF           read %llu B in %llu beats, write %llu B in %llu beats\n",
            (unsigned long long)st->gbuf_read_bytes, (unsigned long long)st->gbuf_read_beats,
            (unsigned long long)st->gbuf_write_bytes, (unsigned long long)st->gbuf_write_beats);
  if (gbuf) report_gbuf_text(out, a, st, t, have_e ? &e : NULL);   // DRAM saved
  fprintf(out, "on-chip rows  ");
  for (int m = 0; m < MEM_ST_COUNT; m++)
    fprintf(out, " %s %llu/%llu", stat_mem_names[m], (unsigned long long)st->mem_reads[m],
            (unsigned long long)st->mem_writes[m]);
  fprintf(out, "  (read/written)\n");
  if (sfu) report_sfu_text(out, a, st, have_e ? &e : NULL);
  if (have_e) text_ppa(out, a, st, t, &e, sfu, gbuf);
  text_clock(out, a);
  int any = 0;
  for (uint32_t i = 0; i <= st->n_layers; i++) any |= st->layers[i].seen && i < st->n_layers;
  if (!any) {
    energy_report_free(&e);
    return;
  }
  uint8_t *df = layer_dataflows(p);   // NULL (out of memory): the column says "?"
  fprintf(out, "\n%-20s %-8s %10s %12s %7s %10s %10s", "layer", "dataflow", "span", "useful_MACs", "util", "dram_rd",
          "dram_wr");
  if (gbuf) fprintf(out, " %10s %10s %10s %10s", "gbuf_rd", "gbuf_wr", "dram_saved", "saved_uJ");
  for (int u = 0; u < NUM_UNITS; u++)
    if (u != UNIT_SFU || sfu) fprintf(out, " %10s", unit_busy_column((Unit)u));
  if (sfu) fprintf(out, " %10s", "sfu_nJ");   // the unit's own energy: small beside its layer's, so in nJ
  fprintf(out, " %12s\n", "energy_uJ");
  for (uint32_t i = 0; i <= st->n_layers; i++) {
    const LayerStats *l = &st->layers[i];
    if (!l->seen) continue;
    uint64_t span = l->last_end - l->first_start + 1;
    char nb[NAME_BUF];
    fprintf(out, "%-20s %-8s %10llu %12llu %6.1f%% %10llu %10llu", layer_name(p, i, nb), df ? layer_dataflow_label(df[i]) : "?",
            (unsigned long long)span,
            (unsigned long long)useful_macs(s, l), peak_fraction(s, useful_macs(s, l), span),
            (unsigned long long)l->dram_read_bytes,
            (unsigned long long)l->dram_write_bytes);
    if (gbuf)
      fprintf(out, " %10llu %10llu %10llu %10.3f", (unsigned long long)l->gbuf_read_bytes,
              (unsigned long long)l->gbuf_write_bytes, (unsigned long long)(l->gbuf_read_bytes + l->gbuf_write_bytes),
              have_e ? e.layers[i].dram_saved_pj * 1e-6 : 0.0);   // bytes the GBUF kept on chip, their energy
    for (int u = 0; u < NUM_UNITS; u++)
      if (u != UNIT_SFU || sfu) fprintf(out, " %10llu", (unsigned long long)l->busy[u]);
    if (sfu) fprintf(out, " %10.1f", have_e ? e.layers[i].pj[EN_SFU] * 1e-3 : 0.0);
    fprintf(out, " %12.3f\n", have_e ? e.layers[i].total_pj * 1e-6 : 0.0);
  }
  free(df);
  energy_report_free(&e);
}

// Sets the value at a key path of stats.def ("dram.read_bytes"; "%s" is sub), creating the
// objects on the way, so that keys appear in the order the table's rows first name them.
static void json_put(json_t *root, const char *path_fmt, const char *sub, json_t *v) {
  char path[128];
  snprintf(path, sizeof path, path_fmt, sub ? sub : "");
  json_t *o = root;
  char *key = path;
  for (char *dot; (dot = strchr(key, '.')) != NULL; key = dot + 1) {
    *dot = 0;
    json_t *next = json_object_get(o, key);
    if (!next) {
      next = json_object();
      json_object_set_new(o, key, next);
    }
    o = next;
  }
  json_object_set_new(o, key, v);
}

// The useful MACs of the run, or of layer l (docs/STATS.md "MACs and utilization"): what the
// program declares (its MACS section: the network's own MACs, from sacc), else its array MACs.
static uint64_t useful_macs(const Sim *s, const LayerStats *l) {
  const Program *p = sim_program(s);
  const SimStats *st = sim_stats(s);
  if (!p->layer_macs) return l ? l->macs : st->macs;
  if (l) {
    size_t i = (size_t)(l - st->layers);
    return i < p->n_layers ? p->layer_macs[i] : 0;
  }
  uint64_t total = 0;   // the loader checked that the sum fits
  for (uint32_t i = 0; i < p->n_layers; i++) total += p->layer_macs[i];
  return total;
}

// A derived figure (stats.def's FIG rows) of the run, or of a layer when l is given.
#define STAT_CASE_COUNTED_RUN(name) case STAT_##name:
#define STAT_CASE_COUNTED_LAYER(name) case STAT_##name:
#define STAT_CASE_COUNTED_SPAN(name) case STAT_##name:
#define STAT_CASE_COUNTED_FIG(name)
static double fig_value(StatId id, const Sim *s, const LayerStats *l) {
  const Arch *a = &sim_program(s)->arch;
  const SimStats *st = sim_stats(s);
  uint64_t span = l ? l->last_end - l->first_start + 1 : st->cycles;
  uint64_t useful = useful_macs(s, l), slots = l ? l->pe_cycles : st->pe_cycles;
  switch (id) {
  case STAT_time_us: return (double)st->cycles / a->clock_mhz;
  case STAT_clock_mhz: return a->clock_mhz;
  case STAT_span: return (double)span;
  case STAT_useful_macs: return (double)useful;
  case STAT_utilization: return peak_fraction(s, useful, span) / 100.0;
  case STAT_slot_occupancy: return peak_fraction(s, slots, span) / 100.0;
  case STAT_mapping_efficiency: return slots ? (double)useful / (double)slots : 0.0;
  case STAT_bus_bytes: return a->bus_bytes;
  case STAT_dram_saved_bytes: return l ? (double)(l->gbuf_read_bytes + l->gbuf_write_bytes)
                                       : (double)(st->gbuf_read_bytes + st->gbuf_write_bytes);
#define STAT(name, shape, scope, ...) STAT_CASE_COUNTED_##scope(name)
#include "stats.def"
#undef STAT
    break;   // a counter, not a derived figure (and no label ends the block: C11)
  }
  return 0;
}

// A figure's JSON value: counted ones from the run's or layer's fields, derived ones computed.
static json_t *figure_json(StatId id, int i, const Sim *s, const LayerStats *l) {
  const StatInfo *f = &stat_info[id];
  if (f->scope == STAT_SCOPE_FIG) {
    double v = fig_value(id, s, l);
    return f->shape == STAT_SHAPE_REAL ? json_real(v) : json_integer((json_int_t)v);
  }
  return json_integer((json_int_t)(l ? stat_layer(l, id, i) : stat_run(sim_stats(s), id, i)));
}

// The run's figures, in the table's order, at their json_run paths.
static void put_run_figures(json_t *root, const Sim *s) {
  for (int id = 0; id < STAT_COUNT; id++) {
    if (!stat_info[id].json_run) continue;
    for (int i = 0; i < stat_width((StatId)id); i++)
      json_put(root, stat_info[id].json_run, stat_sub_name((StatId)id, i), figure_json((StatId)id, i, s, NULL));
  }
}

// A layer's figures, in layer_pos order, at their json_layer paths.
static void put_layer_figures(json_t *o, const Sim *s, const LayerStats *l) {
  for (int pos = 1; stat_at_layer_pos(pos) >= 0; pos++) {
    StatId id = (StatId)stat_at_layer_pos(pos);
    for (int i = 0; i < stat_width(id); i++)
      json_put(o, stat_info[id].json_layer, stat_sub_name(id, i), figure_json(id, i, s, l));
  }
}

static json_t *energy_components_json(const EnergyBreakdown *b) {
  json_t *o = json_object();
  for (int c = 0; c < EN_COUNT; c++) json_object_set_new(o, energy_comp_names[c], json_real(b->pj[c]));
  return o;
}

int report_json(FILE *out, const Sim *s, const char *label, const EnergyTable *t) {
  const Program *p = sim_program(s);
  const Arch *a = &p->arch;
  const SimStats *st = sim_stats(s);
  EnergyReport e;
  if (energy_of(st, a, t, &e)) {
    energy_report_free(&e);
    return -1;
  }
  json_t *root = json_object();
  json_object_set_new(root, "program", json_string(label));
  json_object_set_new(root, "arch", json_string(a->name));
  put_run_figures(root, s);
  json_t *en = json_object();
  json_object_set_new(en, "node", json_string(t->node));
  json_object_set_new(en, "table", json_string(t->name));
  json_object_set_new(en, "total_pj", json_real(e.run.total_pj));
  json_object_set_new(en, "components", energy_components_json(&e.run));
  json_object_set_new(en, "dram_saved_pj", json_real(e.run.dram_saved_pj));
  json_object_set_new(en, "power_mw", json_real(e.power_mw));
  json_object_set_new(en, "tops_per_w", json_real(e.tops_per_w));
  json_object_set_new(root, "energy", en);
  AreaReport ar;
  area_of(a, t, &ar);
  json_t *area = json_object(), *comps = json_object();
  json_object_set_new(area, "node", json_string(t->node));
  json_object_set_new(area, "total_mm2", json_real(ar.total_mm2));
  for (int c = 0; c < AR_COUNT; c++) json_object_set_new(comps, area_comp_names[c], json_real(ar.mm2[c]));
  json_object_set_new(area, "components", comps);
  json_object_set_new(root, "area", area);
  ClockEstimate ce;
  clock_estimate(a, &ce);
  json_t *clk = json_object(), *blocks = json_object();
  json_object_set_new(clk, "arch_mhz", json_real(a->clock_mhz));
  json_object_set_new(clk, "estimated_mhz", json_real(ce.mhz));
  json_object_set_new(clk, "critical_block", json_string(ce.critical_name));
  for (int b = 0; b < CLK_BLOCKS; b++) json_object_set_new(blocks, clock_block_names[b], json_real(ce.block_ps[b]));
  json_object_set_new(clk, "block_ps", blocks);
  json_object_set_new(clk, "arch_faster_than_estimate", json_boolean(a->clock_mhz > ce.mhz));
  json_object_set_new(root, "clock", clk);
  json_t *layers = json_array();
  uint8_t *df = layer_dataflows(p);
  if (!df) {
    json_decref(root);
    json_decref(layers);
    energy_report_free(&e);
    return -1;
  }
  for (uint32_t i = 0; i <= st->n_layers; i++) {
    const LayerStats *l = &st->layers[i];
    if (!l->seen) continue;
    json_t *o = json_object();
    char nb[NAME_BUF];
    json_object_set_new(o, "name", json_string(layer_name(p, i, nb)));
    json_object_set_new(o, "dataflow", json_string(layer_dataflow_label(df[i])));
    put_layer_figures(o, s, l);
    json_object_set_new(o, "energy_pj", json_real(e.layers[i].total_pj));
    json_object_set_new(o, "energy_components", energy_components_json(&e.layers[i]));
    json_object_set_new(o, "dram_saved_pj", json_real(e.layers[i].dram_saved_pj));
    json_array_append_new(layers, o);
  }
  free(df);
  json_object_set_new(root, "layers", layers);
  int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  fputc('\n', out);
  json_decref(root);
  energy_report_free(&e);
  return rc;
}

int report_layers_csv(FILE *out, const Sim *s, const EnergyTable *t) {
  const Program *p = sim_program(s);
  const SimStats *st = sim_stats(s);
  EnergyReport e;
  if (energy_of(st, &p->arch, t, &e)) {
    energy_report_free(&e);
    return -1;
  }
  fprintf(out, "layer");
  for (int pos = 1; stat_at_csv_pos(pos) >= 0; pos++) {
    StatId id = (StatId)stat_at_csv_pos(pos);
    for (int i = 0; i < stat_width(id); i++) {
      fputc(',', out);
      fprintf(out, stat_info[id].csv, stat_sub_name(id, i));
    }
  }
  fprintf(out, ",energy_pj");
  for (int c = 0; c < EN_COUNT; c++) fprintf(out, ",energy_%s_pj", energy_comp_names[c]);
  fprintf(out, ",dram_saved_pj,dataflow");
  fputc('\n', out);
  uint8_t *df = layer_dataflows(p);
  if (!df) {
    energy_report_free(&e);
    return -1;
  }
  for (uint32_t i = 0; i <= st->n_layers; i++) {
    const LayerStats *l = &st->layers[i];
    if (!l->seen) continue;
    char nb[NAME_BUF];
    csv_field(out, layer_name(p, i, nb));
    for (int pos = 1; stat_at_csv_pos(pos) >= 0; pos++) {
      StatId id = (StatId)stat_at_csv_pos(pos);
      for (int j = 0; j < stat_width(id); j++) {
        if (stat_info[id].scope != STAT_SCOPE_FIG)
          fprintf(out, ",%llu", (unsigned long long)stat_layer(l, id, j));
        else if (stat_info[id].shape == STAT_SHAPE_REAL)
          fprintf(out, ",%.6f", fig_value(id, s, l));
        else
          fprintf(out, ",%llu", (unsigned long long)fig_value(id, s, l));
      }
    }
    fprintf(out, ",%.3f", e.layers[i].total_pj);
    for (int c = 0; c < EN_COUNT; c++) fprintf(out, ",%.3f", e.layers[i].pj[c]);
    fprintf(out, ",%.3f,%s", e.layers[i].dram_saved_pj, layer_dataflow_label(df[i]));
    fputc('\n', out);
  }
  free(df);
  energy_report_free(&e);
  return 0;
}

// The trace row (tid) of an instruction routed to u, or -1 when it is not drawn.
static int trace_tid(Unit u) {
  switch (u) {
  case UNIT_LOAD:
  case UNIT_COMPUTE:
  case UNIT_STORE:
  case UNIT_SFU: return (int)u;
  case UNIT_ALL: return 0;      // LAYER: drawn once, on the load row (its copy there is recorded)
  case UNIT_FETCH: return -1;   // HALT: consumed by fetch
  }
  return -1;
}

// What an instruction does after its unit is ready (ready <= t <= end), drawn as a tail; NULL
// when nothing is drawn.
static const char *trace_tail(Opcode op) {
  switch (op) {
  case OP_LOAD:
  case OP_STORE: return "in flight";   // beats still on the DRAM bus (or the GBUF's port)
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS: return "drain";  // rows still in the array
  case OP_PRELOAD: return NULL;        // the weight shift after ready is not drawn (its slice is 1 cycle)
  case OP_CFG_LOAD:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: return NULL;           // they end where they start
  }
  return NULL;
}

// A JSON string body: quotes, backslashes and control bytes escaped (names are already ASCII).
static void json_text(FILE *out, const char *t) {
  for (; *t; t++) {
    if (*t == '"' || *t == '\\') fprintf(out, "\\%c", *t);
    else if ((unsigned char)*t < 0x20) fprintf(out, "\\u%04x", (unsigned char)*t);
    else fputc(*t, out);
  }
}

// The operands of an instruction as trace args: every field of its format, lower-case as in the
// assembly (enumerations by name, pop/push as unit lists).
static void trace_operands(FILE *out, const Insn *in) {
  fprintf(out, "\"operands\":{");
  int first = 1;
  for (int f = 0; f < FLD_COUNT; f++) {
    if (f == FLD_OP || !isa_has_field(in->op, (FieldId)f)) continue;
    fprintf(out, "%s\"", first ? "" : ",");
    for (const char *c = isa_fields[f].name; *c; c++) fputc(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c, out);
    fputc('"', out);
    first = 0;
    const FieldInfo *fi = &isa_fields[f];
    if (fi->kind == K_UNITS) {
      fprintf(out, ":\"");
      int any = 0;
      for (int u = 0; u < NUM_UNITS; u++)
        if ((in->f[f] >> u) & 1) fprintf(out, "%s%s", any++ ? "," : "", isa_unit_names[u]);
      fputc('"', out);
    } else if (fi->kind == K_E) {
      const char *e = isa_enum_name(fi->eset, (unsigned)in->f[f]);
      fprintf(out, ":\"%s\"", e ? e : "?");
    } else {
      fprintf(out, ":%lld", (long long)in->f[f]);
    }
  }
  fputc('}', out);
}

int report_trace(FILE *out, const Sim *s) {
  const Program *p = sim_program(s);
  const InsnTime *t = sim_insn_times(s);
  TlRow *rows;
  if (timeline_build(p, t, &rows)) return -1;
  // ts and dur are microseconds in the trace-event format: one cycle is drawn as 1 us, whole
  // numbers, exact in every viewer (docs/STATS.md "Trace" says why not the arch's real time).
  // No displayTimeUnit: its "ns" made chrome://tracing label a cycle 1,000 ns.
  fprintf(out,
          "{\"otherData\":{\"time_unit\":\"cycles\",\"note\":\"1 us on the time axis = 1 cycle; args give cycles\","
          "\"clock_mhz\":%.17g,\"ns_per_cycle\":%.17g,\"cycles\":%llu},\n"
          "\"traceEvents\":[\n",
          p->arch.clock_mhz, 1000.0 / p->arch.clock_mhz, (unsigned long long)sim_stats(s)->cycles);
  fprintf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"%s (1 us = 1 cycle)\"}},\n",
          "sasim");
  for (int u = 0; u < NUM_UNITS; u++)
    fprintf(out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n", u,
            isa_unit_names[u]);
  char nb[NAME_BUF], text[400], cause[160];
  for (uint32_t k = 0; k < p->n_insns; k++) {
    const Insn insn = prog_insn(p, k), *in = &insn;
    int tid = trace_tid(isa_ops[in->op].unit);
    if (tid < 0) continue;
    const char *layer = rows[k].layer < p->n_layers ? layer_name(p, rows[k].layer, nb) : "";
    fprintf(out, "{\"name\":\"%s\",\"cat\":\"", report_op_label(in));
    json_text(out, layer);
    fprintf(out, "\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%llu,\"dur\":%llu,\"args\":{\"insn\":%u,\"layer\":\"",
            tid, (unsigned long long)t[k].start, (unsigned long long)(t[k].ready - t[k].start), k);
    json_text(out, layer);
    fprintf(out, "\",\"asm\":\"");
    json_text(out, asm_insn_text(in, text, sizeof text));
    fprintf(out, "\",");
    trace_operands(out, in);
    fprintf(out, ",\"fetch\":%llu,\"avail\":%llu,\"start\":%llu,\"ready\":%llu,\"end\":%llu,\"stall\":%llu,"
                 "\"waited_for\":\"",
            (unsigned long long)t[k].fetch, (unsigned long long)rows[k].avail, (unsigned long long)t[k].start,
            (unsigned long long)t[k].ready, (unsigned long long)t[k].end, (unsigned long long)t[k].stall);
    json_text(out, timeline_cause_text(p, &rows[k], cause, sizeof cause));
    fprintf(out, "\"}},\n");
    const char *what = trace_tail(in->op);
    if (t[k].end >= t[k].ready && what) {
      fprintf(out, "{\"name\":\"%s %s\",\"cat\":\"tail\",\"ph\":\"b\",\"id\":%u,\"pid\":0,\"tid\":%d,\"ts\":%llu},\n",
              report_op_label(in), what, k, tid, (unsigned long long)t[k].ready);
      fprintf(out, "{\"name\":\"%s %s\",\"cat\":\"tail\",\"ph\":\"e\",\"id\":%u,\"pid\":0,\"tid\":%d,\"ts\":%llu},\n",
              report_op_label(in), what, k, tid, (unsigned long long)t[k].end + 1);
    }
  }
  free(rows);
  fprintf(out, "{\"name\":\"end\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%llu}\n]}\n",
          (unsigned long long)sim_stats(s)->cycles);
  return ferror(out) ? -1 : 0;
}
