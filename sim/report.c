// report.c: prints the statistics of a finished run (text, JSON, CSV) and its trace.
// Only formats numbers the engines computed; derives ratios (utilization, time), and prices them
// with the energy and area models (energy.c, area.c).
#include "report.h"

#include <jansson.h>
#include <string.h>

#include "area.h"

static const char *const mem_names[MEM_ST_COUNT] = {"spad", "wbuf", "acc", "param"};

// A layer's name as printable ASCII: other bytes become \xNN, so that JSON (which needs UTF-8)
// and CSV always get a whole, readable name. out holds at least 4 * PROG_NAME_MAX bytes.
static const char *layer_name(const Program *p, uint32_t i, char *out) {
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
#define NAME_BUF (4 * PROG_NAME_MAX)

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

// The energy and area sections of the table.
static void text_ppa(FILE *out, const Arch *a, const SimStats *st, const EnergyTable *t, const EnergyReport *e) {
  fprintf(out, "\nenergy         %.3f uJ per inference (table %s, %s)\n", e->run.total_pj * 1e-6, t->name, t->node);
  for (int c = 0; c < EN_COUNT; c++)
    fprintf(out, "  %-12s %16.1f pJ %6.1f%%\n", energy_comp_names[c], e->run.pj[c], pct_d(e->run.pj[c], e->run.total_pj));
  fprintf(out, "power          %.3f mW average at %.0f MHz; %.3f TOPS/W (2 x %llu MACs / energy)\n", e->power_mw,
          a->clock_mhz, e->tops_per_w, (unsigned long long)st->macs);
  AreaReport ar;
  area_of(a, t, &ar);
  fprintf(out, "\narea           %.4f mm2 at %s\n", ar.total_mm2, t->node);
  for (int c = 0; c < AR_COUNT; c++)
    fprintf(out, "  %-12s %16.4f mm2 %5.1f%%\n", area_comp_names[c], ar.mm2[c], pct_d(ar.mm2[c], ar.total_mm2));
}

void report_text(FILE *out, const Sim *s, const char *label, const EnergyTable *t) {
  const Program *p = sim_program(s);
  const Arch *a = &p->arch;
  const SimStats *st = sim_stats(s);
  EnergyReport e;
  int have_e = energy_of(st, a, t, &e) == 0;
  double us = (double)st->cycles / a->clock_mhz;
  fprintf(out, "program        %s\n", label);
  fprintf(out, "arch           %s: %ux%u array, %u B/cycle DRAM bus, latency %u, %.0f MHz\n", a->name, a->rows,
          a->cols, a->bus_bytes, a->dram_latency, a->clock_mhz);
  fprintf(out, "cycles         %llu (%.3f us)\n", (unsigned long long)st->cycles, us);
  fprintf(out, "MACs           %llu  utilization %.1f%% of peak (%u MACs/cycle)\n", (unsigned long long)st->macs,
          peak_fraction(s, st->macs, st->cycles), a->rows * a->cols);
  fprintf(out, "\n%-10s %12s %12s %14s %12s %8s\n", "unit", "busy", "wait_token", "wait_resource", "idle", "insns");
  for (int u = 0; u < NUM_UNITS; u++) {
    const UnitStats *us_ = &st->unit[u];
    fprintf(out, "%-10s %12llu %12llu %14llu %12llu %8llu\n", isa_unit_names[u], (unsigned long long)us_->busy,
            (unsigned long long)us_->wait_token, (unsigned long long)us_->wait_resource,
            (unsigned long long)us_->idle, (unsigned long long)us_->insns);
  }
  fprintf(out, "fetch stall    %llu cycles\n", (unsigned long long)st->fetch_stall);
  fprintf(out, "\nDRAM           read %llu B in %llu beats, write %llu B in %llu beats\n",
          (unsigned long long)st->dram_read_bytes, (unsigned long long)st->dram_read_beats,
          (unsigned long long)st->dram_write_bytes, (unsigned long long)st->dram_write_beats);
  fprintf(out, "on-chip rows  ");
  for (int m = 0; m < MEM_ST_COUNT; m++)
    fprintf(out, " %s %llu/%llu", mem_names[m], (unsigned long long)st->mem_reads[m],
            (unsigned long long)st->mem_writes[m]);
  fprintf(out, "  (read/written)\n");
  if (have_e) text_ppa(out, a, st, t, &e);
  int any = 0;
  for (uint32_t i = 0; i <= st->n_layers; i++) any |= st->layers[i].seen && i < st->n_layers;
  if (!any) {
    energy_report_free(&e);
    return;
  }
  fprintf(out, "\n%-20s %10s %12s %7s %10s %10s %10s %10s %10s %12s\n", "layer", "span", "MACs", "util", "dram_rd",
          "dram_wr", "busy_ld", "busy_cmp", "busy_st", "energy_uJ");
  for (uint32_t i = 0; i <= st->n_layers; i++) {
    const LayerStats *l = &st->layers[i];
    if (!l->seen) continue;
    uint64_t span = l->last_end - l->first_start + 1;
    char nb[NAME_BUF];
    fprintf(out, "%-20s %10llu %12llu %6.1f%% %10llu %10llu %10llu %10llu %10llu %12.3f\n", layer_name(p, i, nb),
            (unsigned long long)span, (unsigned long long)l->macs, peak_fraction(s, l->macs, span),
            (unsigned long long)l->dram_read_bytes, (unsigned long long)l->dram_write_bytes,
            (unsigned long long)l->busy[0], (unsigned long long)l->busy[1], (unsigned long long)l->busy[2],
            have_e ? e.layers[i].total_pj * 1e-6 : 0.0);
  }
  energy_report_free(&e);
}

static json_t *units_json(const uint64_t *busy, const uint64_t *wt, const uint64_t *wr) {
  json_t *o = json_object();
  for (int u = 0; u < NUM_UNITS; u++) {
    json_t *x = json_object();
    json_object_set_new(x, "busy", json_integer((json_int_t)busy[u]));
    json_object_set_new(x, "wait_token", json_integer((json_int_t)wt[u]));
    json_object_set_new(x, "wait_resource", json_integer((json_int_t)wr[u]));
    json_object_set_new(o, isa_unit_names[u], x);
  }
  return o;
}

static json_t *onchip_json(const uint64_t *reads, const uint64_t *writes) {
  json_t *mem = json_object();
  for (int m = 0; m < MEM_ST_COUNT; m++) {
    json_t *o = json_object();
    json_object_set_new(o, "read_rows", json_integer((json_int_t)reads[m]));
    json_object_set_new(o, "write_rows", json_integer((json_int_t)writes[m]));
    json_object_set_new(mem, mem_names[m], o);
  }
  return mem;
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
  json_object_set_new(root, "cycles", json_integer((json_int_t)st->cycles));
  json_object_set_new(root, "time_us", json_real((double)st->cycles / a->clock_mhz));
  json_object_set_new(root, "clock_mhz", json_real(a->clock_mhz));
  json_object_set_new(root, "macs", json_integer((json_int_t)st->macs));
  json_object_set_new(root, "pe_cycles", json_integer((json_int_t)st->pe_cycles));
  json_object_set_new(root, "utilization", json_real(peak_fraction(s, st->macs, st->cycles) / 100.0));
  json_t *units = json_object();
  for (int u = 0; u < NUM_UNITS; u++) {
    const UnitStats *x = &st->unit[u];
    json_t *o = json_object();
    json_object_set_new(o, "busy", json_integer((json_int_t)x->busy));
    json_object_set_new(o, "wait_token", json_integer((json_int_t)x->wait_token));
    json_object_set_new(o, "wait_resource", json_integer((json_int_t)x->wait_resource));
    json_object_set_new(o, "idle", json_integer((json_int_t)x->idle));
    json_object_set_new(o, "insns", json_integer((json_int_t)x->insns));
    json_object_set_new(units, isa_unit_names[u], o);
  }
  json_object_set_new(root, "units", units);
  json_object_set_new(root, "fetch_stall", json_integer((json_int_t)st->fetch_stall));
  json_t *dram = json_object();
  json_object_set_new(dram, "read_bytes", json_integer((json_int_t)st->dram_read_bytes));
  json_object_set_new(dram, "write_bytes", json_integer((json_int_t)st->dram_write_bytes));
  json_object_set_new(dram, "read_beats", json_integer((json_int_t)st->dram_read_beats));
  json_object_set_new(dram, "write_beats", json_integer((json_int_t)st->dram_write_beats));
  json_object_set_new(dram, "bus_bytes", json_integer(a->bus_bytes));
  json_object_set_new(root, "dram", dram);
  json_object_set_new(root, "onchip", onchip_json(st->mem_reads, st->mem_writes));
  json_object_set_new(root, "preload_shifts", json_integer((json_int_t)st->preload_shifts));
  json_object_set_new(root, "post_elems", json_integer((json_int_t)st->post_elems));
  json_t *en = json_object();
  json_object_set_new(en, "node", json_string(t->node));
  json_object_set_new(en, "table", json_string(t->name));
  json_object_set_new(en, "total_pj", json_real(e.run.total_pj));
  json_object_set_new(en, "components", energy_components_json(&e.run));
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
  json_t *layers = json_array();
  for (uint32_t i = 0; i <= st->n_layers; i++) {
    const LayerStats *l = &st->layers[i];
    if (!l->seen) continue;
    json_t *o = json_object();
    char nb[NAME_BUF];
    json_object_set_new(o, "name", json_string(layer_name(p, i, nb)));
    json_object_set_new(o, "first_start", json_integer((json_int_t)l->first_start));
    json_object_set_new(o, "last_end", json_integer((json_int_t)l->last_end));
    json_object_set_new(o, "macs", json_integer((json_int_t)l->macs));
    json_object_set_new(o, "dram_read_bytes", json_integer((json_int_t)l->dram_read_bytes));
    json_object_set_new(o, "dram_write_bytes", json_integer((json_int_t)l->dram_write_bytes));
    json_object_set_new(o, "units", units_json(l->busy, l->wait_token, l->wait_resource));
    json_object_set_new(o, "pe_cycles", json_integer((json_int_t)l->pe_cycles));
    json_object_set_new(o, "dram_read_beats", json_integer((json_int_t)l->dram_read_beats));
    json_object_set_new(o, "dram_write_beats", json_integer((json_int_t)l->dram_write_beats));
    json_object_set_new(o, "onchip", onchip_json(l->mem_reads, l->mem_writes));
    json_object_set_new(o, "preload_shifts", json_integer((json_int_t)l->preload_shifts));
    json_object_set_new(o, "post_elems", json_integer((json_int_t)l->post_elems));
    json_object_set_new(o, "energy_pj", json_real(e.layers[i].total_pj));
    json_object_set_new(o, "energy_components", energy_components_json(&e.layers[i]));
    json_array_append_new(layers, o);
  }
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
  fprintf(out, "layer,first_start,last_end,span,macs,utilization,dram_read_bytes,dram_write_bytes,"
               "busy_load,busy_compute,busy_store,wait_token_load,wait_token_compute,wait_token_store,energy_pj");
  for (int c = 0; c < EN_COUNT; c++) fprintf(out, ",energy_%s_pj", energy_comp_names[c]);
  fputc('\n', out);
  for (uint32_t i = 0; i <= st->n_layers; i++) {
    const LayerStats *l = &st->layers[i];
    if (!l->seen) continue;
    uint64_t span = l->last_end - l->first_start + 1;
    char nb[NAME_BUF];
    csv_field(out, layer_name(p, i, nb));
    fprintf(out, ",%llu,%llu,%llu,%llu,%.6f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.3f",
            (unsigned long long)l->first_start, (unsigned long long)l->last_end, (unsigned long long)span,
            (unsigned long long)l->macs, peak_fraction(s, l->macs, span) / 100.0,
            (unsigned long long)l->dram_read_bytes, (unsigned long long)l->dram_write_bytes,
            (unsigned long long)l->busy[0], (unsigned long long)l->busy[1], (unsigned long long)l->busy[2],
            (unsigned long long)l->wait_token[0], (unsigned long long)l->wait_token[1],
            (unsigned long long)l->wait_token[2], e.layers[i].total_pj);
    for (int c = 0; c < EN_COUNT; c++) fprintf(out, ",%.3f", e.layers[i].pj[c]);
    fputc('\n', out);
  }
  energy_report_free(&e);
  return 0;
}

int report_trace(FILE *out, const Sim *s) {
  const Program *p = sim_program(s);
  const InsnTime *t = sim_insn_times(s);
  fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"note\":\"1 us on the time axis = 1 cycle\"},\n"
               "\"traceEvents\":[\n");
  for (int u = 0; u < NUM_UNITS; u++)
    fprintf(out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n", u,
            isa_unit_names[u]);
  for (uint32_t k = 0; k < p->n_insns; k++) {
    const Insn insn = prog_insn(p, k), *in = &insn;
    Unit u = isa_ops[in->op].unit;
    if (u == UNIT_FETCH) continue;
    int tid = u == UNIT_ALL ? 0 : (int)u;
    fprintf(out,
            "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%llu,\"dur\":%llu,"
            "\"args\":{\"insn\":%u,\"fetch\":%llu,\"end\":%llu,\"stall\":%llu}},\n",
            isa_ops[in->op].name, tid, (unsigned long long)t[k].start, (unsigned long long)(t[k].ready - t[k].start),
            k, (unsigned long long)t[k].fetch, (unsigned long long)t[k].end, (unsigned long long)t[k].stall);
    if (t[k].end >= t[k].ready && (in->op == OP_LOAD || in->op == OP_STORE || in->op == OP_COMPUTE ||
                                  in->op == OP_COMPUTE_OS)) {
      const char *what = in->op == OP_COMPUTE || in->op == OP_COMPUTE_OS ? "drain" : "in flight";
      fprintf(out, "{\"name\":\"%s %s\",\"cat\":\"tail\",\"ph\":\"b\",\"id\":%u,\"pid\":0,\"tid\":%d,\"ts\":%llu},\n",
              isa_ops[in->op].name, what, k, tid, (unsigned long long)t[k].ready);
      fprintf(out, "{\"name\":\"%s %s\",\"cat\":\"tail\",\"ph\":\"e\",\"id\":%u,\"pid\":0,\"tid\":%d,\"ts\":%llu},\n",
              isa_ops[in->op].name, what, k, tid, (unsigned long long)t[k].end + 1);
    }
  }
  fprintf(out, "{\"name\":\"end\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%llu}\n]}\n",
          (unsigned long long)sim_stats(s)->cycles);
  return ferror(out) ? -1 : 0;
}
