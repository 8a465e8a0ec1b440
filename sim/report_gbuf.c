// report_gbuf.c: the global buffer in the human statistics table (docs/STATS.md, docs/PPA.md "The
// global buffer"): stats.def's gbuf_* counters and the "DRAM saved" figures (energy.c's
// dram_saved_*), printed only for a program that uses the buffer. JSON and CSV carry the same
// figures (stats.def's gbuf rows and dram_saved_bytes; report.c's energy keys); this file formats
// them for people.
#include "report_gbuf.h"

int report_gbuf_used(const Program *p) {
  for (uint32_t k = 0; k < p->n_insns; k++) {
    Insn in = prog_insn(p, k);
    if ((in.op == OP_LOAD || in.op == OP_STORE) && in.f[FLD_GBUF]) return 1;
  }
  return 0;
}

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
  fprintf(out, "GBUF           read %llu B in %llu beats, write %llu B in %llu beats (%u KiB, %u B/beat)\n",
          (unsigned long long)st->gbuf_read_bytes, (unsigned long long)st->gbuf_read_beats,
          (unsigned long long)st->gbuf_write_bytes, (unsigned long long)st->gbuf_write_beats, a->gbuf_bytes / 1024,
          a->gbuf_bus_bytes);
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
