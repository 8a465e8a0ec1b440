// bothcheck.c: see bothcheck.h.
#include "bothcheck.h"

#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../isa/npy.h"
#include "check.h"

void check_shipped_cd(const char *asm_path, const char *npy_path, int count) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  NpyArray want;
  int ok = asm_assemble_file(asm_path, &p, &d) == 0;
  CHECK(ok, "%s", diag_first(&d));
  if (ok && npy_read(npy_path, &want, &d)) {
    CHECK(0, "%s", diag_first(&d));
    ok = 0;
  }
  int32_t *got = calloc((size_t)count, sizeof *got);
  for (int mode = SIM_FAST; ok && got && mode <= SIM_DETAILED; mode++) {
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s && sim_run(s, &d) == 0, "run failed: %s", diag_first(&d));
    for (const char *name = "C"; s && name; name = *name == 'C' ? "D" : NULL) {
      const TensorInfo *t = prog_find_tensor(p, name);
      int fits = t && want.type == NPY_I32 && want.count == (uint64_t)count;
      CHECK(fits && sim_get_tensor(s, t, got) == 0, "tensor %s", name);
      if (fits)
        CHECK(!memcmp(got, want.data, (size_t)count * sizeof *got), "%s mode: %s differs from %s",
              mode == SIM_FAST ? "fast" : "detailed", name, npy_path);
    }
    sim_free(s);
  }
  free(got);
  if (ok) npy_free(&want);
  prog_free(p);
}

void test_random_bytes(uint8_t *buf, size_t n, uint64_t seed) {
  uint64_t x = seed;
  for (size_t i = 0; i < n; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    buf[i] = (uint8_t)(x >> 56);
  }
}

void check_raw32(const Sim *s, uint64_t addr, const int32_t *want, int n, int first_row, int cols, const char *mn) {
  const uint8_t *out = sim_dram(s) + addr;
  for (int i = 0; i < n; i++) {
    int32_t v = (int32_t)((uint32_t)out[4 * i] | (uint32_t)out[4 * i + 1] << 8 | (uint32_t)out[4 * i + 2] << 16 |
                          (uint32_t)out[4 * i + 3] << 24);
    CHECK(v == want[i], "%s: ACC[%d][%d] = %d, want %d", mn, first_row + i / cols, i % cols, v, want[i]);
  }
}

void check_both(const Program *p, const Want *w, const WantStats *ws) {
  for (int mode = SIM_FAST; mode <= SIM_DETAILED; mode++) {
    const char *mn = mode == SIM_FAST ? "fast" : "detailed";
    Diag d;
    diag_init(&d);
    Sim *s = sim_new(p, (SimMode)mode, &d);
    CHECK(s && sim_run(s, &d) == 0, "%s: run failed: %s", mn, diag_first(&d));
    if (!s) continue;
    const InsnTime *t = sim_insn_times(s);
    for (uint32_t k = 0; k < p->n_insns; k++)
      CHECK(t[k].fetch == w[k].f && t[k].start == w[k].s && t[k].ready == w[k].r && t[k].end == w[k].e &&
                t[k].stall == 0,
            "%s: insn %u (%s): f %llu s %llu ready %llu e %llu stall %llu; want %llu %llu %llu %llu 0", mn, k,
            isa_ops[prog_op(p, k)].name, (unsigned long long)t[k].fetch, (unsigned long long)t[k].start,
            (unsigned long long)t[k].ready, (unsigned long long)t[k].end, (unsigned long long)t[k].stall,
            (unsigned long long)w[k].f, (unsigned long long)w[k].s, (unsigned long long)w[k].r,
            (unsigned long long)w[k].e);
    const SimStats *st = sim_stats(s);
    const UnitStats *u = &st->unit[UNIT_COMPUTE];
    uint64_t got[11] = {st->cycles,
                        u->busy,
                        u->wait_token,
                        u->wait_resource,
                        u->idle,
                        st->macs,
                        st->pe_cycles,
                        st->mem_reads[MEM_ST_SPAD],
                        st->mem_reads[MEM_ST_WBUF],
                        st->mem_writes[MEM_ST_ACC],
                        st->mem_reads[MEM_ST_ACC]};
    uint64_t want[11] = {ws->cycles,    ws->busy,      ws->wait_token, ws->wait_resource, ws->idle,     ws->macs,
                         ws->pe_cycles, ws->spad_reads, ws->wbuf_reads, ws->acc_writes,   ws->acc_reads};
    static const char *names[11] = {"cycles",     "compute busy", "compute wait_token", "compute wait_resource",
                                    "compute idle", "macs",        "pe_cycles",          "spad reads",
                                    "wbuf reads",   "acc writes",  "acc reads"};
    for (int i = 0; i < 11; i++)
      CHECK(got[i] == want[i], "%s: %s %llu, want %llu", mn, names[i], (unsigned long long)got[i],
            (unsigned long long)want[i]);
    sim_free(s);
  }
}
