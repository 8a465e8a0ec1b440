// gbuf_energy_test.c: the global buffer's energy, area and "DRAM saved" figures (docs/PPA.md,
// "The global buffer"), worked out by hand: a beat is a gbuf.bus_bytes row of a gbuf.bytes SRAM
// priced with the table's SRAM fit, the buffer's area is its bit cells with two ports, and the
// saving is what its transfers would have cost over DRAM (its beats, when as wide as DRAM's; else
// its useful bytes) less its own energy. First on counts set
// by hand (every other component must stay put), then on a program that stores a GEMM's result
// into the buffer and loads it back, run on both engines.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../sim/area.h"
#include "../../sim/energy.h"
#include "../../sim/sim.h"
#include "../common/check.h"

static int near(double x, double want) { return fabs(x - want) <= 1e-9 * fabs(want) + 1e-12; }

// The table's figures as plain numbers, so that a change to the shipped table shows up here.
#define SRAM_BIT(kib) (0.0306 + 0.0479 * sqrt(kib))
#define DRAM_BYTE 162.5
#define CELL_MM2 (0.346 / 0.6 * 1e-6)   // a bit cell over the array efficiency; x 1.5 for two ports

// A 4x4 GEMM on the tiny arch (4x4 array, 4-byte DRAM bus; global buffer 4 KiB of 4-byte beats):
// layer "produce" stores its int8 result into the buffer at 0x40 (4 rows of 4 B: 4 write beats),
// layer "consume" loads it back into the scratchpad (4 read beats) and multiplies it again, and
// stores the result to DRAM.
static const char prog_text[] =
    ".arch \"../arch/tiny.json\"\n"
    ".layer produce\n"
    ".layer consume\n"
    ".tensor A dtype=int8 shape=[4,4] addr=0x100 role=input data=[1,2,3,4,5,6,7,8,-1,0,1,0,2,-3,4,-5]\n"
    ".tensor B dtype=int8 shape=[4,4] addr=0x200 role=const data=[1,0,0,2,0,1,0,-1,0,0,1,3,1,1,1,1]\n"
    ".tensor D dtype=int8 shape=[4,4] addr=0x400 role=output\n"
    "LAYER layer_id=0\n"
    "CFG_LOAD stride_inner=4\n"
    "LOAD mem=wbuf dst=0 dram_addr=B outer=1 inner=4 nseg=1 seglen=4 push=compute\n"
    "LOAD mem=spad dst=0 dram_addr=A outer=1 inner=4 nseg=1 seglen=4 push=compute\n"
    "PRELOAD src=0 rows=4 pop=load\n"
    "COMPUTE src=0 acc_addr=0 rows=4 accum=0 pop=load push=store\n"
    "CFG_STORE stride_inner=4\n"
    "STORE src=0 gbuf=1 dram_addr=0x40 outer=1 inner=4 cols=4 pop=compute push=load\n"
    "LAYER layer_id=1\n"
    "LOAD mem=spad dst=4 gbuf=1 dram_addr=0x40 outer=1 inner=4 nseg=1 seglen=4 pop=store push=compute\n"
    "COMPUTE src=4 acc_addr=4 rows=4 accum=0 pop=load push=store\n"
    "STORE src=4 dram_addr=D outer=1 inner=4 cols=4 pop=compute\n"
    "HALT\n";

static Program *assemble(void) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  CHECK(asm_assemble(prog_text, strlen(prog_text), "workloads/asm/gbuf_energy_test.s", &p, &d) == 0, "%s",
        diag_first(&d));
  return p;
}

// The tiny arch's buffer: 4 KiB, beats of 4 bytes (32 bits at the 4 KiB point of the fit).
static double tiny_beat_pj(void) { return 32 * SRAM_BIT(4.0); }

// Area: 0 without a buffer; else its bits with two ports, leaking at the SRAM density.
static void test_area(void) {
  EnergyTable t;
  energy_default(&t);
  Arch a;
  arch_default(&a);
  AreaReport with, without;
  area_of(&a, &t, &with);
  uint32_t bytes = a.gbuf_bytes;
  a.gbuf_bytes = 0;
  area_of(&a, &t, &without);
  CHECK(bytes == 128u << 10, "the default arch's global buffer is %u bytes", bytes);
  CHECK(without.mm2[AR_GBUF] == 0, "no buffer, %g mm2", without.mm2[AR_GBUF]);
  CHECK(near(with.mm2[AR_GBUF], 131072.0 * 8 * CELL_MM2 * 1.5), "128 KiB: %g mm2", with.mm2[AR_GBUF]);
  CHECK(near(with.total_mm2 - without.total_mm2, with.mm2[AR_GBUF]) &&
            near(with.sram_mm2 - without.sram_mm2, with.mm2[AR_GBUF]) && with.logic_mm2 == without.logic_mm2,
        "the buffer's area is not SRAM only: total %g/%g sram %g/%g", with.total_mm2, without.total_mm2,
        with.sram_mm2, without.sram_mm2);
  for (int c = 0; c < AR_COUNT; c++)
    if (c != AR_GBUF) CHECK(with.mm2[c] == without.mm2[c], "%s moved with the buffer", area_comp_names[c]);
  // A third port (the table's sram_ports.gbuf) adds half a cell per bit.
  t.sram_ports_gbuf = 3;
  a.gbuf_bytes = bytes;
  area_of(&a, &t, &with);
  CHECK(near(with.mm2[AR_GBUF], 131072.0 * 8 * CELL_MM2 * 2.0), "three ports: %g mm2", with.mm2[AR_GBUF]);
  // The beat energy scales with width and with the square root of the capacity.
  energy_default(&t);
  a.gbuf_bus_bytes = 16;
  CHECK(near(energy_gbuf_beat_pj(&t, &a), 128 * SRAM_BIT(128.0)), "16-byte beat of 128 KiB: %g pJ",
        energy_gbuf_beat_pj(&t, &a));
  check_case("gbuf-area");
}

// Counts set by hand in layer "consume": only the gbuf component and the saving move.
static void test_pricing(void) {
  Program *p = assemble();
  Diag d;
  diag_init(&d);
  Sim *s = p ? sim_new(p, SIM_FAST, &d) : NULL;
  CHECK(s && sim_run(s, &d) == 0, "%s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case("gbuf-pricing");
    return;
  }
  SimStats st = *sim_stats(s);
  LayerStats layers[3];
  memcpy(layers, st.layers, sizeof layers);
  st.layers = layers;
  for (int i = 0; i < 3; i++)
    layers[i].gbuf_read_beats = layers[i].gbuf_write_beats = layers[i].gbuf_read_bytes = layers[i].gbuf_write_bytes = 0;
  LayerStats *l = &layers[1];
  l->gbuf_read_beats = 10, l->gbuf_read_bytes = 37;   // a partial beat costs a whole one
  l->gbuf_write_beats = 7, l->gbuf_write_bytes = 28;
  st.gbuf_read_beats = 10, st.gbuf_read_bytes = 37, st.gbuf_write_beats = 7, st.gbuf_write_bytes = 28;
  SimStats none = st;
  LayerStats none_layers[3];
  memcpy(none_layers, layers, sizeof none_layers);
  none.layers = none_layers;
  none.gbuf_read_beats = none.gbuf_write_beats = none.gbuf_read_bytes = none.gbuf_write_bytes = 0;
  none_layers[1].gbuf_read_beats = none_layers[1].gbuf_write_beats = 0;
  none_layers[1].gbuf_read_bytes = none_layers[1].gbuf_write_bytes = 0;
  EnergyTable t;
  energy_default(&t);
  EnergyReport e, base;
  CHECK(energy_of(&st, &p->arch, &t, &e) == 0 && energy_of(&none, &p->arch, &t, &base) == 0, "energy_of failed");
  double want = (10 + 7) * tiny_beat_pj();
  CHECK(near(e.run.pj[EN_GBUF], want) && near(e.layers[1].pj[EN_GBUF], want) && e.layers[0].pj[EN_GBUF] == 0 &&
            base.run.pj[EN_GBUF] == 0,
        "gbuf: run %.6f layer %.6f pJ, by hand %.6f", e.run.pj[EN_GBUF], e.layers[1].pj[EN_GBUF], want);
  for (int c = 0; c < EN_COUNT; c++)
    if (c != EN_GBUF) CHECK(e.run.pj[c] == base.run.pj[c], "%s moved with the buffer's counts", energy_comp_names[c]);
  CHECK(e.run.dram_saved_bytes == 65 && e.layers[1].dram_saved_bytes == 65 && e.layers[0].dram_saved_bytes == 0,
        "saved bytes %llu", (unsigned long long)e.run.dram_saved_bytes);
  // Beats as wide as DRAM's (4 B): the same transfers with GBUF=0 are the same 17 beats on the
  // DRAM bus, 68 bytes of it (the 65 useful ones and the partial beats' rest).
  double dram = 17 * 4 * DRAM_BYTE;
  CHECK(near(e.run.dram_avoided_pj, dram) && near(e.run.dram_saved_pj, dram - want) &&
            near(e.layers[1].dram_saved_pj, dram - want) && e.layers[0].dram_saved_pj == 0 &&
            base.run.dram_saved_pj == 0,
        "saved %.6f pJ, by hand %.6f", e.run.dram_saved_pj, dram - want);
  // Beats of another width than DRAM's: the DRAM energy is at least the useful bytes'.
  Arch wide = p->arch;
  wide.gbuf_bus_bytes = 8;
  EnergyReport ew;
  CHECK(energy_of(&st, &wide, &t, &ew) == 0, "energy_of failed");
  double wide_beat = 64 * SRAM_BIT(4.0);
  CHECK(near(ew.run.pj[EN_GBUF], 17 * wide_beat) && near(ew.run.dram_avoided_pj, 65 * DRAM_BYTE) &&
            near(ew.run.dram_saved_pj, 65 * DRAM_BYTE - 17 * wide_beat),
        "8-byte beats: gbuf %.6f avoided %.6f saved %.6f", ew.run.pj[EN_GBUF], ew.run.dram_avoided_pj,
        ew.run.dram_saved_pj);
  energy_report_free(&ew);
  // Writes cost sram_write_factor times a read; scale.energy scales the buffer and the saving.
  EnergyTable t2 = t;
  t2.sram_write_factor = 3.0;
  t2.scale_energy = 2.0;
  EnergyReport e2;
  CHECK(energy_of(&st, &p->arch, &t2, &e2) == 0, "energy_of failed");
  double want2 = 2.0 * (10 + 3.0 * 7) * tiny_beat_pj();
  CHECK(near(e2.run.pj[EN_GBUF], want2) && near(e2.run.dram_saved_pj, 2.0 * dram - want2),
        "write factor 3, scale 2: gbuf %.6f saved %.6f", e2.run.pj[EN_GBUF], e2.run.dram_saved_pj);
  energy_report_free(&e);
  energy_report_free(&base);
  energy_report_free(&e2);
  sim_free(s);
  prog_free(p);
  check_case("gbuf-pricing");
}

// The program itself: the engine counts 16 bytes written in 4 beats (layer produce) and 16 read
// in 4 beats (layer consume), and the energy prices them as above.
static void test_program(SimMode mode, const char *label) {
  Program *p = assemble();
  Diag d;
  diag_init(&d);
  Sim *s = p ? sim_new(p, mode, &d) : NULL;
  CHECK(s && sim_run(s, &d) == 0, "%s", diag_first(&d));
  if (!s) {
    prog_free(p);
    check_case(label);
    return;
  }
  const SimStats *st = sim_stats(s);
  const LayerStats *l0 = &st->layers[0], *l1 = &st->layers[1];
  CHECK(st->gbuf_write_bytes == 16 && st->gbuf_write_beats == 4 && st->gbuf_read_bytes == 16 &&
            st->gbuf_read_beats == 4 && l0->gbuf_write_beats == 4 && l0->gbuf_read_beats == 0 &&
            l1->gbuf_read_beats == 4 && l1->gbuf_write_beats == 0,
        "gbuf counts: write %llu B %llu beats, read %llu B %llu beats", (unsigned long long)st->gbuf_write_bytes,
        (unsigned long long)st->gbuf_write_beats, (unsigned long long)st->gbuf_read_bytes,
        (unsigned long long)st->gbuf_read_beats);
  EnergyTable t;
  energy_default(&t);
  EnergyReport e;
  CHECK(energy_of(st, &p->arch, &t, &e) == 0, "energy_of failed");
  double beat = tiny_beat_pj();
  CHECK(near(e.run.pj[EN_GBUF], 8 * beat) && near(e.layers[0].pj[EN_GBUF], 4 * beat) &&
            near(e.layers[1].pj[EN_GBUF], 4 * beat),
        "gbuf energy: run %.6f, layers %.6f %.6f, by hand %.6f", e.run.pj[EN_GBUF], e.layers[0].pj[EN_GBUF],
        e.layers[1].pj[EN_GBUF], 8 * beat);
  CHECK(e.run.dram_saved_bytes == 32 && near(e.run.dram_saved_pj, 32 * DRAM_BYTE - 8 * beat) &&
            near(e.layers[0].dram_saved_pj, 16 * DRAM_BYTE - 4 * beat),
        "saved %llu B, %.6f pJ", (unsigned long long)e.run.dram_saved_bytes, e.run.dram_saved_pj);
  // Only the final result goes to DRAM: 4 rows of 4 B; the inputs are 2 x 16 B.
  CHECK(st->dram_write_bytes == 16 && st->dram_read_bytes == 32, "DRAM bytes %llu read, %llu written",
        (unsigned long long)st->dram_read_bytes, (unsigned long long)st->dram_write_bytes);
  energy_report_free(&e);
  sim_free(s);
  prog_free(p);
  check_case(label);
}

int main(void) {
  test_area();
  test_pricing();
  test_program(SIM_FAST, "gbuf-program-fast");
  test_program(SIM_DETAILED, "gbuf-program-detailed");
  return check_status();
}
