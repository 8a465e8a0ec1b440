// report_gbuf.c: the "DRAM saved" line of the human statistics table (docs/STATS.md, docs/PPA.md
// "The global buffer"): the bytes the global buffer kept on chip and energy.c's dram_saved_*
// figures, printed (by report.c, under its GBUF line) only for a program that uses the buffer.
// JSON and CSV carry the same figures (stats.def's dram_saved_bytes; report.c's energy keys);
// this file formats them for people.
#include "report_gbuf.h"

// An energy in the unit that keeps it readable: pJ, nJ, uJ or mJ.
static const char *energy_text(double pj, char *buf, size_t n) {
  if (pj < 1e3)
    snprintf(buf, n, "%.1f pJ", pj);
  else if (pj < 1e6)
    snprintf(buf, n, "%.3f nJ", pj * 1e-3);
  else if (pj < 1e9)
    snprintf(buf, n, "%.3f uJ", pj * 1e-6);
  else
    snprintf(buf, n, "%.3f mJ", pj * 1e-9);
  return buf;
}

void report_gbuf_text(FILE *out, const Arch *a, const SimStats *st, const EnergyTable *t, const EnergyReport *e) {
  fprintf(out, "DRAM saved     %llu B kept on chip (GBUF read + written)",
          (unsigned long long)(st->gbuf_read_bytes + st->gbuf_write_bytes));
  char b1[32], b2[32], b3[32];
  if (e)
    fprintf(out, ": %s%s of DRAM (%s at %g pJ/B), less %s in the GBUF = %s saved",
            energy_gbuf_beats_as_dram(a) ? "" : "at least ", energy_text(e->run.dram_avoided_pj, b1, sizeof b1),
            energy_gbuf_beats_as_dram(a) ? "its beats on the DRAM bus" : "its bytes", t->dram_byte_pj * t->scale_energy,
            energy_text(e->run.pj[EN_GBUF], b2, sizeof b2), energy_text(e->run.dram_saved_pj, b3, sizeof b3));
  fprintf(out, "\n");
}
