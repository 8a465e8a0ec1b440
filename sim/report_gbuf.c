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

void report_gbuf_text(FILE *out, const Arch *a, const SimStats *st, const EnergyTable *t, const EnergyReport *e) {
  fprintf(out, "GBUF           read %llu B in %llu beats, write %llu B in %llu beats (%u KiB, %u B/beat)\n",
          (unsigned long long)st->gbuf_read_bytes, (unsigned long long)st->gbuf_read_beats,
          (unsigned long long)st->gbuf_write_bytes, (unsigned long long)st->gbuf_write_beats, a->gbuf_bytes / 1024,
          a->gbuf_bus_bytes);
  fprintf(out, "DRAM saved     %llu B kept on chip (GBUF read + written)",
          (unsigned long long)(st->gbuf_read_bytes + st->gbuf_write_bytes));
  if (e)
    fprintf(out, ": %.3f uJ of DRAM at %g pJ/B, less %.3f uJ in the GBUF = %.3f uJ saved",
            e->run.dram_avoided_pj * 1e-6, t->dram_byte_pj * t->scale_energy, e->run.pj[EN_GBUF] * 1e-6,
            e->run.dram_saved_pj * 1e-6);
  fprintf(out, "\n");
}
