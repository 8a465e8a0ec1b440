// energy_test.c: the energy table loader (the shipped file equals the built-in table; each
// malformed table is refused with its own message, place and key), and the energy and area of a
// small hand-written program worked out by hand from the program text and the table's figures.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../isa/fileread.h"
#include "../../sim/area.h"
#include "../../sim/energy.h"
#include "../../sim/sim.h"
#include "../common/check.h"

#define SHIPPED "workloads/energy/default.json"

static int near(double x, double want) { return fabs(x - want) <= 1e-9 * fabs(want) + 1e-12; }

static char *read_text(const char *path, size_t *len) {
  Diag d;
  diag_init(&d);
  uint8_t *buf;
  FileReadLimits lim = {1u << 20, "an energy table", 0, NULL, NULL};
  if (file_read_limited(path, &lim, &buf, len, &d)) return NULL;
  return (char *)buf;
}

// The shipped table with `from` replaced by `to` (its first occurrence); caller frees.
static char *edited(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  if (!at) return NULL;
  size_t n = strlen(text) - strlen(from) + strlen(to);
  char *out = malloc(n + 1);
  size_t k = (size_t)(at - text);
  memcpy(out, text, k);
  strcpy(out + k, to);
  strcat(out, at + strlen(from));
  return out;
}

static void test_shipped(const char *text, size_t len) {
  EnergyTable file, builtin;
  Diag d;
  diag_init(&d);
  CHECK(energy_parse(text, len, SHIPPED, &file, &d) == 0, "%s", diag_first(&d));
  energy_default(&builtin);
  CHECK(energy_equal(&file, &builtin), "workloads/energy/default.json and energy_default() differ");
  CHECK(!strcmp(file.node, "45nm") && file.int8_mult_pj == 0.2 && file.sram_ports[MEM_ST_ACC] == 4,
        "a figure was not read where expected");
  EnergyTable other = builtin;
  other.dram_byte_pj += 1;
  CHECK(!energy_equal(&other, &builtin), "energy_equal misses a changed figure");
  check_case("energy-table-shipped-equals-builtin");
}

// Each malformed table: its message names the file, line:col and key path.
static void test_malformed(const char *text) {
  static const struct {
    const char *name, *from, *to, *want;
  } cases[] = {
      {"syntax", "\"node\": \"45nm\",", "\"node\": \"45nm\"", "default.json:5:9: error: "},
      {"unknown-top-key", "\"node\": \"45nm\",", "\"node\": \"45nm\", \"nodes\": 1,", ":4:19: nodes: error: unknown key"},
      {"unknown-group-key", "\"int8_mult_pj\": {", "\"mac_pj\": {", ":11:5: energy.mac_pj: error: unknown key"},
      {"unknown-field", "\"value\": 0.2,", "\"value\": 0.2, \"pj\": 1,", ":12:21: energy.int8_mult_pj.pj: error: unknown key"},
      {"missing-field", "\"base\": 0.0306,", "", ":35:5: energy.sram_bit_pj.base: error: missing key"},
      {"missing-source", "\"value\": 0.2,\n      \"source\"", "\"value\": 0.2,\n      \"sourc\"",
       ":13:7: energy.int8_mult_pj.sourc: error: unknown key"},
      {"empty-source", "\"value\": 8,\n      \"source\": \"rtl/sa_pe.sv: each", "\"value\": 8,\n      \"source\": \"\", \"comment\": \"",
       ":33:7: energy.weight_reg_bits.source: error: every figure needs a \"source\""},
      {"not-a-number", "\"value\": 162.5", "\"value\": \"162.5\"", ":45:7: energy.dram_byte_pj.value: error: expected a number"},
      {"out-of-range", "\"value\": 0.7,", "\"value\": 1.5,", ":104:7: area.logic_utilization.value: error: 1.5 is out of range [0.01, 1]"},
      {"ports", "\"acc\": 4,", "\"acc\": 0,", ":137:7: area.sram_ports.acc: error: 0 is out of range [1, 16]"},
      {"missing-entry", "\"int32_mult_pj\": {", "\"comment\": {", ":10:3: energy.int32_mult_pj: error: missing key"},
      {"missing-node", "\"node\": \"45nm\",", "", ":1:1: node: error: missing key"},
      {"node-type", "\"node\": \"45nm\",", "\"node\": 45,", ":4:3: node: error: expected a non-empty string"},
      {"group-type", "\"area\": {", "\"area\": 3, \"x\": {", ":98:3: area: error: expected an object"},
      {"scale", "\"area\": 1.0,", "\"area\": 0,", ":7:5: scale.area: error: 0 is out of range"},
      {"no-area", "\"pe\": ", "\"pe\": -1e6, \"comment\":", ":107:5: area.pe_array_transistors: error: the model gives a 1x1 array no area"},
      {"sfu-negative", "\"value\": 2.832,", "\"value\": -2.832,", ":58:7: energy.sfu_exp_pj.value: error: -2.832 is out of range [0, 1e+06]"},
      {"sfu-missing", "\"sfu_lane_transistors\": {", "\"comment\": {", ":98:3: area.sfu_lane_transistors: error: missing key"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *t = edited(text, cases[i].from, cases[i].to);
    CHECK(t, "%s: the shipped table has no \"%s\"", cases[i].name, cases[i].from);
    if (!t) continue;
    EnergyTable et;
    Diag d;
    diag_init(&d);
    int rc = energy_parse(t, strlen(t), "default.json", &et, &d);
    CHECK(rc == -1, "%s: accepted", cases[i].name);
    CHECK(rc == 0 || strstr(diag_first(&d), cases[i].want), "%s: message \"%s\", want \"%s\"", cases[i].name,
          diag_first(&d), cases[i].want);
    free(t);
  }
  check_case("energy-table-malformed");
}

// A 4x4 GEMM on the tiny arch (4x4 array; SPAD 64 rows of 4 B, WBUF 32 of 4 B, ACC 64 of 16 B,
// PARAM 8 of 16 B, a 4 KiB global buffer it does not use; 4-byte bus; 1000 MHz), stored twice: raw int32, then post-processed to int8
// with parameters (PARAM rows 0-2 hold zeros: the values do not matter here).
static const char prog_text[] =
    ".arch \"../arch/tiny.json\"\n"
    ".layer gemm\n"
    ".layer out8\n"
    ".tensor A dtype=int8 shape=[4,4] addr=0x100 role=input data=[1,2,3,4,5,6,7,8,-1,0,1,0,2,-3,4,-5]\n"
    ".tensor B dtype=int8 shape=[4,4] addr=0x200 role=const data=[1,0,0,2,0,1,0,-1,0,0,1,3,1,1,1,1]\n"
    ".tensor C dtype=int32 shape=[4,4] addr=0x300 role=output\n"
    ".tensor D dtype=int8 shape=[4,4] addr=0x400 role=output\n"
    "LAYER layer_id=0\n"
    "CFG_LOAD stride_inner=4\n"
    "LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute\n"
    "LOAD mem=spad dst=0 dram_addr=A outer=1 inner=4 nseg=1 seglen=4 push=compute\n"
    "PRELOAD src=0 rows=4 pop=load\n"
    "COMPUTE src=0 acc_addr=0 rows=4 accum=0 pop=load push=store\n"
    "CFG_STORE stride_inner=16\n"
    "STORE raw32=1 src=0 dram_addr=C outer=1 inner=4 cols=4 pop=compute\n"
    "LAYER layer_id=1\n"
    "CFG_STORE params=1 prow=0 stride_inner=4\n"
    "STORE src=0 dram_addr=D outer=1 inner=4 cols=4\n"
    "HALT\n";

// The table's figures as plain numbers, so that a change to the shipped table shows up here.
#define MAC (0.2 + 0.1)   // int8 multiply + int32 add
#define REG_BIT 0.003125
#define SRAM_BIT(kib) (0.0306 + 0.0479 * sqrt(kib))
#define DRAM_BYTE 162.5
#define POST (3.1 + 3 * 0.1)   // int32 multiply + three int32 adds

static void test_hand_program(SimMode mode, const char *label) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  CHECK(asm_assemble(prog_text, strlen(prog_text), "workloads/asm/energy_test.s", &p, &d) == 0, "%s", diag_first(&d));
  Sim *s = p ? sim_new(p, mode, &d) : NULL;
  CHECK(s && sim_run(s, &d) == 0, "%s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case(label);
    return;
  }
  const SimStats *st = sim_stats(s);
  // Events, by hand from the program: COMPUTE 4 rows x K 4 x C 4; every streamed row uses all
  // 16 PEs; PRELOAD shifts R = 4 times; LOADs write 4 + 4 rows in 4 + 4 beats; the STOREs read
  // 4 + 4 ACC rows, write 4 x 16 B and 4 x 4 B (16 + 4 beats); the int8 STORE post-processes
  // 4 rows x 4 columns and reads the 3 parameter rows.
  CHECK(st->macs == 64 && st->pe_cycles == 64 && st->preload_shifts == 4 && st->post_elems == 16,
        "macs %llu pe_cycles %llu shifts %llu post %llu", (unsigned long long)st->macs,
        (unsigned long long)st->pe_cycles, (unsigned long long)st->preload_shifts, (unsigned long long)st->post_elems);
  CHECK(st->mem_reads[MEM_ST_SPAD] == 4 && st->mem_writes[MEM_ST_SPAD] == 4 && st->mem_reads[MEM_ST_WBUF] == 4 &&
            st->mem_writes[MEM_ST_WBUF] == 4 && st->mem_reads[MEM_ST_ACC] == 8 && st->mem_writes[MEM_ST_ACC] == 4 &&
            st->mem_reads[MEM_ST_PARAM] == 3 && st->mem_writes[MEM_ST_PARAM] == 0,
        "on-chip row counts differ from the hand count");
  CHECK(st->dram_read_beats == 8 && st->dram_write_beats == 20, "beats %llu/%llu",
        (unsigned long long)st->dram_read_beats, (unsigned long long)st->dram_write_beats);

  // Energy, by hand. Row access energies: bits x pJ/bit at the memory's capacity.
  double spad_row = 32 * SRAM_BIT(64 * 4 / 1024.0), wbuf_row = 32 * SRAM_BIT(32 * 4 / 1024.0);
  double acc_row = 128 * SRAM_BIT(64 * 16 / 1024.0), param_row = 128 * SRAM_BIT(8 * 16 / 1024.0);
  double want[EN_COUNT] = {
      [EN_MAC] = 64 * MAC,
      [EN_PE_REGS] = REG_BIT * (64 * 46 + 4 * 16 * 8),   // slots x 46 bits + shifts x 16 PEs x 8 bits
      [EN_SPAD] = 8 * spad_row,
      [EN_WBUF] = 8 * wbuf_row,
      [EN_ACC] = 12 * acc_row,
      [EN_PARAM] = 3 * param_row,
      [EN_DRAM] = 28 * 4 * DRAM_BYTE,
      [EN_POST] = 16 * POST,
  };
  // Area (mm2): logic at 0.1995 um2 per transistor over 70% utilization; SRAM bits x 0.346 um2
  // x (1 + 0.5 per extra port) / 0.6 efficiency. The array, post-processing and SFU transistor
  // counts are taken from the table: scripts/calibrate-area refits them when the RTL changes.
  // The SFU (tiny arch: 4 lanes, latency 6, the defaults): 4 lanes, each its datapath and 6
  // stages of 48 flip-flops of 16 transistors, + the scalar recip/rsqrt + 40000 of control.
  EnergyTable t;
  energy_default(&t);
  double lg = 0.1995 / 0.7 * 1e-6, cell = 0.346 / 0.6 * 1e-6;
  double array_tr = t.pe_tr * 16 + t.skew_tr * 4 * 3 / 2 + t.edge_tr * 8 + t.fixed_tr;   // R = C = 4
  double sfu_tr = 4 * (t.sfu_lane_tr + 6 * 48 * 16) + t.sfu_scalar_tr + 40000;
  double logic = lg * (array_tr + 4 * t.post_col_tr + sfu_tr + 300000);
  double sram = cell * (2048 * 1.5 + 1024 * 1.5 + 8192 * 2.5 + 1024 * 1.5 +   // spad wbuf acc param bits
                        32768 * 1.5);                                      // gbuf: 4 KiB, two ports
  AreaReport ar;
  area_of(&p->arch, &t, &ar);
  CHECK(near(ar.mm2[AR_PE_ARRAY], lg * array_tr) && near(ar.logic_mm2, logic) && near(ar.sram_mm2, sram) &&
            near(ar.total_mm2, logic + sram) && near(ar.mm2[AR_ACC], cell * 8192 * 2.5) &&
            near(ar.mm2[AR_SFU], lg * sfu_tr) && near(ar.mm2[AR_GBUF], cell * 32768 * 1.5),
        "area: array %g total %g, want %g %g", ar.mm2[AR_PE_ARRAY], ar.total_mm2, lg * array_tr, logic + sram);
  // Lanes past the C = 4 columns are never used and not built; one lane is one lane.
  Arch wide = p->arch, narrow = p->arch;
  wide.sfu_lanes = 16;
  narrow.sfu_lanes = 1;
  CHECK(near(area_sfu_transistors(&t, &wide), sfu_tr) &&
            near(area_sfu_transistors(&t, &narrow), t.sfu_lane_tr + 6 * 48 * 16 + t.sfu_scalar_tr + 40000),
        "sfu lanes: 16 lanes %g, 1 lane %g transistors", area_sfu_transistors(&t, &wide),
        area_sfu_transistors(&t, &narrow));
  // Leakage: mW x us x 1000 = pJ, over the run's cycles at 1000 MHz.
  want[EN_LEAKAGE] = (27.0 * logic + 2.9 * sram) * (double)st->cycles / 1000.0 * 1000.0;
  EnergyReport e;
  CHECK(energy_of(st, &p->arch, &t, &e) == 0, "energy_of failed");
  double total = 0;
  for (int c = 0; c < EN_COUNT; c++) {
    CHECK(near(e.run.pj[c], want[c]), "%s: %.6f pJ, by hand %.6f", energy_comp_names[c], e.run.pj[c], want[c]);
    total += want[c];
  }
  CHECK(near(e.run.total_pj, total), "total %.6f, by hand %.6f", e.run.total_pj, total);
  CHECK(near(e.tops_per_w, 2.0 * 64 / total), "TOPS/W %g", e.tops_per_w);
  CHECK(near(e.power_mw, total / ((double)st->cycles / 1000.0) / 1000.0), "power %g mW", e.power_mw);
  // Per layer: the dynamic energy splits between the layers exactly; "gemm" holds the MACs,
  // "out8" the post-processing; each layer leaks over its own span.
  const EnergyBreakdown *l0 = &e.layers[0], *l1 = &e.layers[1];
  for (int c = 0; c < EN_LEAKAGE; c++)
    CHECK(near(l0->pj[c] + l1->pj[c] + e.layers[2].pj[c], e.run.pj[c]), "layers' %s do not add up", energy_comp_names[c]);
  CHECK(near(l0->pj[EN_MAC], 64 * MAC) && l1->pj[EN_MAC] == 0 && near(l1->pj[EN_POST], 16 * POST) && l0->pj[EN_POST] == 0,
        "per-layer split: gemm mac %g post %g, out8 mac %g post %g", l0->pj[EN_MAC], l0->pj[EN_POST], l1->pj[EN_MAC],
        l1->pj[EN_POST]);
  uint64_t span1 = st->layers[1].last_end - st->layers[1].first_start + 1;
  CHECK(near(l1->pj[EN_LEAKAGE], (27.0 * logic + 2.9 * sram) * (double)span1), "out8 leakage %g", l1->pj[EN_LEAKAGE]);

  // An override: a table with other figures prices the same counts accordingly.
  EnergyTable t2 = t;
  t2.int8_mult_pj = 0.9;   // a MAC: 0.9 + 0.1
  t2.scale_energy = 2.0;
  t2.scale_area = 3.0;
  EnergyReport e2;
  CHECK(energy_of(st, &p->arch, &t2, &e2) == 0, "energy_of failed");
  CHECK(near(e2.run.pj[EN_MAC], 2.0 * 64 * 1.0) && near(e2.run.pj[EN_DRAM], 2.0 * want[EN_DRAM]) &&
            near(e2.run.pj[EN_LEAKAGE], 3.0 * want[EN_LEAKAGE]),
        "override: mac %g dram %g leakage %g", e2.run.pj[EN_MAC], e2.run.pj[EN_DRAM], e2.run.pj[EN_LEAKAGE]);
  energy_report_free(&e);
  energy_report_free(&e2);
  sim_free(s);
  prog_free(p);
  check_case(label);
}

// The special-function unit's energy: its counters (stats.def sfu_*) times the table's figures,
// written out here as plain numbers (docs/PPA.md derives them), set by hand in layer "out8" of
// the hand program's statistics; every other component stays as it was.
static void test_sfu_pricing(void) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  CHECK(asm_assemble(prog_text, strlen(prog_text), "workloads/asm/energy_test.s", &p, &d) == 0, "%s", diag_first(&d));
  Sim *s = p ? sim_new(p, SIM_FAST, &d) : NULL;
  CHECK(s && sim_run(s, &d) == 0, "%s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case("energy-sfu-pricing");
    return;
  }
  SimStats st = *sim_stats(s);
  LayerStats layers[3];
  memcpy(layers, st.layers, sizeof layers);
  st.layers = layers;
  LayerStats *l = &layers[1];
  // A softmax of 2 rows of 10 values (S = 3 segments of C = 4) and a layer norm of 1 row of 8
  // (S = 2), 4 x 4 GELUs, 2 x 4 adds and 1 x 4 multiplies, 1 reduction of 8 values.
  l->sfu_elems = 3 * 2 * 3 * 4 + 2 * 1 * 2 * 4 + 16 + 8 + 4 + 1 * 2 * 4;
  l->sfu_exp = 2 * 2 * 10;
  l->sfu_gelu = 16;
  l->sfu_sigmoid = 3;   // any count: each class is priced on its own
  l->sfu_hard = 5;
  l->sfu_ew_add = 8;
  l->sfu_ew_mul = 4;
  l->sfu_norm = 2 * 10 + 8;
  l->sfu_reduce = 2 * 2 * 10 + 8 + 8;
  l->sfu_recip = 2;
  l->sfu_rsqrt = 1;
#define SET_RUN(f) st.f = layers[0].f + layers[1].f + layers[2].f
  SET_RUN(sfu_elems), SET_RUN(sfu_exp), SET_RUN(sfu_gelu), SET_RUN(sfu_sigmoid), SET_RUN(sfu_hard);
  SET_RUN(sfu_ew_add), SET_RUN(sfu_ew_mul), SET_RUN(sfu_norm), SET_RUN(sfu_reduce), SET_RUN(sfu_recip);
  SET_RUN(sfu_rsqrt);
#undef SET_RUN
  // Every value: 6 pipeline stages (tiny arch: sfu.latency 6) of 48 bits at 0.003125 pJ a bit.
  double want = (double)l->sfu_elems * 6 * 48 * 0.003125 + 40 * 2.832 + 16 * 5.511 + 3 * 7.785 + 5 * 7.018 +
                8 * 0.1 + 4 * 3.2 + 28 * 1.413 + 56 * 0.15 + 2 * 2.809 + 1 * 9.147;
  EnergyTable t;
  energy_default(&t);
  EnergyReport e, base;
  CHECK(energy_of(&st, &p->arch, &t, &e) == 0 && energy_of(sim_stats(s), &p->arch, &t, &base) == 0, "energy_of failed");
  CHECK(near(e.run.pj[EN_SFU], want) && near(e.layers[1].pj[EN_SFU], want) && e.layers[0].pj[EN_SFU] == 0 &&
            base.run.pj[EN_SFU] == 0,
        "sfu: run %.6f layer %.6f pJ, by hand %.6f", e.run.pj[EN_SFU], e.layers[1].pj[EN_SFU], want);
  for (int c = 0; c < EN_COUNT; c++)
    if (c != EN_SFU) CHECK(e.run.pj[c] == base.run.pj[c], "%s moved with the SFU counts", energy_comp_names[c]);
  CHECK(near(e.run.total_pj, base.run.total_pj + want), "total %.6f, want %.6f", e.run.total_pj, base.run.total_pj + want);
  // A deeper pipeline costs more register energy per value; scale.energy scales the unit too.
  Arch deep = p->arch;
  deep.sfu_latency = 10;
  EnergyTable t2 = t;
  t2.scale_energy = 2.0;
  EnergyReport e2;
  CHECK(energy_of(&st, &deep, &t2, &e2) == 0, "energy_of failed");
  CHECK(near(e2.run.pj[EN_SFU], 2.0 * (want + (double)l->sfu_elems * 4 * 48 * 0.003125)), "deep/scaled sfu %.6f",
        e2.run.pj[EN_SFU]);
  energy_report_free(&e);
  energy_report_free(&base);
  energy_report_free(&e2);
  sim_free(s);
  prog_free(p);
  check_case("energy-sfu-pricing");
}

// Every SFU instruction class on the tiny arch (C = 4; sfu.lanes 4, sfu.latency 6 by default),
// in two layers: element functions, then row functions. ACC rows 0..7 hold X.
static const char sfu_prog_text[] =
    ".arch \"../arch/tiny.json\"\n"
    ".layer act\n"
    ".layer rows\n"
    ".tensor X dtype=int8 shape=[8,4] addr=0x100 role=input data=seed:7\n"
    "LAYER layer_id=0\n"
    "CFG_LOAD stride_inner=4 mult=1 shift=0\n"
    "LOAD mem=acc dst=0 dram_addr=X outer=1 inner=8 nseg=1 seglen=4 push=sfu\n"
    "CFG_SFU mult=1073741824 shift=23\n"
    "SFU_MAP pop=load fn=gelu src=0 acc_addr=20 rows=2\n"
    "SFU_MAP fn=sigmoid src=2 acc_addr=22 rows=1\n"
    "SFU_MAP fn=hswish src=3 acc_addr=23 rows=1\n"
    "SFU_EW ewop=add src=0 src2=2 acc_addr=24 rows=2\n"
    "SFU_EW ewop=mul src=4 src2=5 acc_addr=26 rows=1\n"
    "LAYER layer_id=1\n"
    "SFU_SOFTMAX src=0 acc_addr=8 rows=2 len=6 sstride=2 sm_mult=128 sm_shift=0 sm_j=0\n"
    "SFU_LAYERNORM src=0 acc_addr=12 rows=1 len=6 sstride=2 pbase=0\n"
    "SFU_REDUCE red=sum src=4 acc_addr=16 rows=2 len=5 sstride=2\n"
    "HALT\n";

// A program of every SFU class, run: its counters against a hand count from docs/TIMING.md 7a
// and docs/STATS.md, and its sfu energy per layer against those counts times the table's
// figures, written out as plain numbers.
static void test_sfu_program(SimMode mode, const char *label) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  CHECK(asm_assemble(sfu_prog_text, strlen(sfu_prog_text), "workloads/asm/energy_sfu_test.s", &p, &d) == 0, "%s",
        diag_first(&d));
  Sim *s = p ? sim_new(p, mode, &d) : NULL;
  CHECK(s && sim_run(s, &d) == 0, "%s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case(label);
    return;
  }
  const SimStats *st = sim_stats(s);
  const LayerStats *act = &st->layers[0], *rows = &st->layers[1];
  // act: gelu 2 rows, sigmoid 1, hswish 1, add 2, mul 1: 7 rows of C = 4 values through the lanes.
  CHECK(act->sfu_elems == 28 && act->sfu_gelu == 8 && act->sfu_sigmoid == 4 && act->sfu_hard == 4 &&
            act->sfu_ew_add == 8 && act->sfu_ew_mul == 4 && act->sfu_exp == 0 && act->sfu_norm == 0 &&
            act->sfu_reduce == 0 && act->sfu_recip == 0 && act->sfu_rsqrt == 0,
        "act: elems %llu gelu %llu sigmoid %llu hard %llu add %llu mul %llu", (unsigned long long)act->sfu_elems,
        (unsigned long long)act->sfu_gelu, (unsigned long long)act->sfu_sigmoid, (unsigned long long)act->sfu_hard,
        (unsigned long long)act->sfu_ew_add, (unsigned long long)act->sfu_ew_mul);
  // rows: softmax 2 rows of 6 (S = 2): 3 passes x 2 x 2 x 4 = 48 values, 24 exps, 12 norms, 24
  // reduced, 2 reciprocals; layer norm 1 row of 6: 2 x 1 x 2 x 4 = 16 values, 6 norms, 6
  // reduced, 1 rsqrt; reduce 2 rows of 5 (S = 2): 16 values, 10 reduced.
  CHECK(rows->sfu_elems == 80 && rows->sfu_exp == 24 && rows->sfu_norm == 18 && rows->sfu_reduce == 40 &&
            rows->sfu_recip == 2 && rows->sfu_rsqrt == 1 && rows->sfu_gelu == 0 && rows->sfu_ew_add == 0,
        "rows: elems %llu exp %llu norm %llu reduce %llu recip %llu rsqrt %llu", (unsigned long long)rows->sfu_elems,
        (unsigned long long)rows->sfu_exp, (unsigned long long)rows->sfu_norm, (unsigned long long)rows->sfu_reduce,
        (unsigned long long)rows->sfu_recip, (unsigned long long)rows->sfu_rsqrt);
  EnergyTable t;
  energy_default(&t);
  EnergyReport e;
  CHECK(energy_of(st, &p->arch, &t, &e) == 0, "energy_of failed");
  double stage = 6 * 48 * 0.003125;   // a value through 6 pipeline stages of 48 flip-flops
  double want_act = 28 * stage + 8 * 5.511 + 4 * 7.785 + 4 * 7.018 + 8 * 0.1 + 4 * 3.2;
  double want_rows = 80 * stage + 24 * 2.832 + 18 * 1.413 + 40 * 0.15 + 2 * 2.809 + 1 * 9.147;
  CHECK(near(e.layers[0].pj[EN_SFU], want_act) && near(e.layers[1].pj[EN_SFU], want_rows) &&
            near(e.run.pj[EN_SFU], want_act + want_rows),
        "sfu energy: act %.6f rows %.6f run %.6f, by hand %.6f %.6f", e.layers[0].pj[EN_SFU], e.layers[1].pj[EN_SFU],
        e.run.pj[EN_SFU], want_act, want_rows);
  energy_report_free(&e);
  sim_free(s);
  prog_free(p);
  check_case(label);
}

int main(void) {
  size_t len;
  char *text = read_text(SHIPPED, &len);
  CHECK(text, "cannot read %s (run from the repository root)", SHIPPED);
  if (!text) {
    check_case("energy-table-shipped-equals-builtin");
    return check_status();
  }
  test_shipped(text, len);
  test_malformed(text);
  free(text);
  test_hand_program(SIM_FAST, "energy-hand-program-fast");
  test_hand_program(SIM_DETAILED, "energy-hand-program-detailed");
  test_sfu_pricing();
  test_sfu_program(SIM_FAST, "energy-sfu-program-fast");
  test_sfu_program(SIM_DETAILED, "energy-sfu-program-detailed");
  return check_status();
}
