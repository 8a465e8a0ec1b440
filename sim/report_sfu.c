// report_sfu.c: the special-function unit in the human statistics table (docs/STATS.md "The
// special-function unit"): the counters of stats.def's sfu_* rows and the unit's energy
// (energy.c's EN_SFU), printed only for a program that uses the unit. JSON and CSV carry the
// same counters through stats.def; this file formats them for people.
#include "report_sfu.h"

int report_sfu_used(const Program *p) {
  for (uint32_t k = 0; k < p->n_insns; k++)
    if (isa_ops[prog_insn(p, k).op].unit == UNIT_SFU) return 1;
  return 0;
}

void report_sfu_text(FILE *out, const Arch *a, const SimStats *st, const EnergyReport *e) {
  const struct {
    const char *name;
    uint64_t n;
  } ops[] = {
      {"exp", st->sfu_exp},       {"gelu", st->sfu_gelu}, {"sigmoid", st->sfu_sigmoid}, {"hard", st->sfu_hard},
      {"ew_add", st->sfu_ew_add}, {"ew_mul", st->sfu_ew_mul}, {"norm", st->sfu_norm},  {"reduce", st->sfu_reduce},
      {"recip", st->sfu_recip},   {"rsqrt", st->sfu_rsqrt},
  };
  uint32_t lanes = a->sfu_lanes < a->cols ? a->sfu_lanes : a->cols;
  const UnitStats *u = &st->unit[UNIT_SFU];
  fprintf(out, "\nSFU            %u lanes, pipeline %u: %llu values through the lanes; busy %llu cycles (%.1f%% of the run)\n",
          lanes, a->sfu_latency, (unsigned long long)st->sfu_elems, (unsigned long long)u->busy,
          st->cycles ? 100.0 * (double)u->busy / (double)st->cycles : 0.0);
  fprintf(out, "  operations  ");
  int any = 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (ops[i].n) fprintf(out, "%s %s %llu", any++ ? "," : "", ops[i].name, (unsigned long long)ops[i].n);
  fprintf(out, "%s\n", any ? "" : " none (configuration only)");
  if (e)
    fprintf(out, "  energy       %.1f pJ (arithmetic and pipeline registers; its ACC and PARAM rows are in acc and param)\n",
            e->run.pj[EN_SFU]);
}
