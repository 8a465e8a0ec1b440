// fuzz_energy.c: libFuzzer target for the energy table loader (sim/energy.c). Any bytes go to
// energy_parse(), which must return an error with a message or a table; an accepted table must
// price a small run without trouble: every component finite and non-negative but the area
// model's, whose array coefficients may be negative (the loader checks the total is positive).
// Seeds: tests/fuzz/corpus/energy/. Built by tests/fuzz/run-fuzz.sh; `make test` replays the
// corpus through replay_main.inc.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/area.h"
#include "../../sim/energy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what) {
  fprintf(stderr, "fuzz_energy: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  EnergyTable t;
  Diag d;
  diag_init(&d);
  if (energy_parse((const char *)data, size, "fuzz.json", &t, &d)) {
    if (d.count == 0 || !strstr(diag_first(&d), "fuzz.json:")) fail("an error without a message naming the file");
    return 0;
  }
  // One layer's worth of made-up counts on the default arch.
  Arch a;
  arch_default(&a);
  LayerStats layers[2];
  memset(layers, 0, sizeof layers);
  layers[0] = (LayerStats){.first_start = 1, .last_end = 100, .macs = 1000, .seen = 1, .pe_cycles = 2000,
                           .dram_read_beats = 10, .mem_reads = {5, 5, 5, 3}, .mem_writes = {5, 5, 5, 0}};
  SimStats st;
  memset(&st, 0, sizeof st);
  st.cycles = 101;
  st.macs = 1000;
  st.pe_cycles = 2000;
  st.dram_read_beats = 10;
  for (int m = 0; m < MEM_ST_COUNT; m++) {
    st.mem_reads[m] = layers[0].mem_reads[m];
    st.mem_writes[m] = layers[0].mem_writes[m];
  }
  st.n_layers = 1;
  st.layers = layers;
  EnergyReport e;
  if (energy_of(&st, &a, &t, &e)) fail("energy_of failed");
  for (int c = 0; c < EN_COUNT; c++)
    if (!isfinite(e.run.pj[c]) || e.run.pj[c] < 0) fail("an energy component is negative or not finite");
  AreaReport ar;
  area_of(&a, &t, &ar);
  if (!isfinite(ar.total_mm2) || !(ar.total_mm2 > 0)) fail("no area");
  energy_report_free(&e);
  return 0;
}
