// gbuf_test.c: the global buffer (GBUF=1 on LOAD and STORE, docs/TIMING.md §5a) on both engines.
// Every expected cycle is worked out by hand in the comments beside it (or in the header of the
// shipped workloads/asm/gbuf_fuse.s); the bytes are checked against what the instructions mean
// (docs/ISA.md section 2), and the two engines against each other on every counter.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../sim/sim.h"
#include "../../sim/stats.h"
#include "../common/check.h"

// The engines checked (the detailed one models every beat, cycle by cycle).
static const SimMode modes[] = {SIM_FAST, SIM_DETAILED};
#define N_MODES (int)(sizeof modes / sizeof modes[0])

typedef struct {
  uint64_t f, s, r, e, stall;
} WantT;

// DRAM and GBUF traffic of a run: read bytes, read beats, write bytes, write beats.
typedef struct {
  uint64_t dram[4], gbuf[4];
} WantTraffic;

static Program *assemble(const char *text) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  if (asm_assemble(text, strlen(text), "gbuf_test.s", &p, &d)) {
    CHECK(0, "assembly failed: %s", diag_first(&d));
    return NULL;
  }
  return p;
}

// The tiny arch of workloads/arch/tiny.json with the global buffer's keys given: an .arch line.
static void tiny_arch(char *buf, size_t n, unsigned gbuf_bytes, unsigned gbuf_bus, unsigned gbuf_lat) {
  snprintf(buf, n,
           ".arch {\"name\":\"tiny\",\"array\":{\"rows\":4,\"cols\":4},\"spad\":{\"rows\":64},\"wbuf\":{\"rows\":32},"
           "\"acc\":{\"rows\":64},\"param\":{\"rows\":8},"
           "\"dram\":{\"bytes\":65536,\"bus_bytes\":4,\"latency\":10,\"max_inflight\":4},"
           "\"gbuf\":{\"bytes\":%u,\"bus_bytes\":%u,\"latency\":%u},"
           "\"queues\":{\"load\":4,\"compute\":4,\"store\":4},\"store\":{\"fifo_rows\":2,\"post_latency\":3}}\n",
           gbuf_bytes, gbuf_bus, gbuf_lat);
}

// Runs p on every engine; checks each instruction's times against w (NULL: not checked), the
// cycle count, the traffic, and that the engines agree on every counter, every DRAM and GBUF
// byte. Returns the runs (caller frees each with sim_free) in out[N_MODES].
static void run_all(const Program *p, const WantT *w, uint64_t cycles, const WantTraffic *tr, Sim *out[N_MODES]) {
  for (int i = 0; i < N_MODES; i++) {
    const char *mn = modes[i] == SIM_FAST ? "fast" : "detailed";
    Diag d;
    diag_init(&d);
    Sim *s = out[i] = sim_new(p, modes[i], &d);
    CHECK(s && sim_run(s, &d) == 0, "%s: run failed: %s", mn, diag_first(&d));
    if (!s) continue;
    const InsnTime *t = sim_insn_times(s);
    for (uint32_t k = 0; w && k < p->n_insns; k++)
      CHECK(t[k].fetch == w[k].f && t[k].start == w[k].s && t[k].ready == w[k].r && t[k].end == w[k].e &&
                t[k].stall == w[k].stall,
            "%s: insn %u (%s): f %llu s %llu ready %llu e %llu stall %llu; want %llu %llu %llu %llu %llu", mn, k,
            isa_ops[prog_op(p, k)].name, (unsigned long long)t[k].fetch, (unsigned long long)t[k].start,
            (unsigned long long)t[k].ready, (unsigned long long)t[k].end, (unsigned long long)t[k].stall,
            (unsigned long long)w[k].f, (unsigned long long)w[k].s, (unsigned long long)w[k].r,
            (unsigned long long)w[k].e, (unsigned long long)w[k].stall);
    const SimStats *st = sim_stats(s);
    CHECK(st->cycles == cycles, "%s: %llu cycles, want %llu", mn, (unsigned long long)st->cycles,
          (unsigned long long)cycles);
    if (tr) {
      uint64_t got[8] = {st->dram_read_bytes,  st->dram_read_beats,  st->dram_write_bytes,  st->dram_write_beats,
                         st->gbuf_read_bytes,  st->gbuf_read_beats,  st->gbuf_write_bytes,  st->gbuf_write_beats};
      const uint64_t *want[2] = {tr->dram, tr->gbuf};
      static const char *names[8] = {"dram read bytes", "dram read beats", "dram write bytes", "dram write beats",
                                     "gbuf read bytes", "gbuf read beats", "gbuf write bytes", "gbuf write beats"};
      for (int j = 0; j < 8; j++)
        CHECK(got[j] == want[j / 4][j % 4], "%s: %s %llu, want %llu", mn, names[j], (unsigned long long)got[j],
              (unsigned long long)want[j / 4][j % 4]);
    }
    if (i > 0 && out[0]) {
      char msg[200];
      CHECK(!stats_compare(sim_stats(out[0]), st, msg, sizeof msg), "fast vs %s: %s", mn, msg);
      CHECK(!memcmp(sim_dram(out[0]), sim_dram(s), p->arch.dram_bytes), "fast vs %s: DRAM differs", mn);
      CHECK(!memcmp(sim_gbuf(out[0]), sim_gbuf(s), p->arch.gbuf_bytes), "fast vs %s: GBUF differs", mn);
      const InsnTime *t0 = sim_insn_times(out[0]);
      for (uint32_t k = 0; k < p->n_insns; k++)
        CHECK(!memcmp(&t0[k], &t[k], sizeof *t), "fast vs %s: insn %u times differ", mn, k);
    }
  }
}

static void free_all(Sim *s[N_MODES]) {
  for (int i = 0; i < N_MODES; i++) sim_free(s[i]);
}

// The int32s at DRAM addr of every run against want[0 .. n-1].
static void check_i32(Sim *s[N_MODES], uint64_t addr, const int32_t *want, int n) {
  for (int m = 0; m < N_MODES; m++) {
    if (!s[m]) continue;
    const uint8_t *o = sim_dram(s[m]) + addr;
    for (int i = 0; i < n; i++) {
      int32_t v = (int32_t)((uint32_t)o[4 * i] | (uint32_t)o[4 * i + 1] << 8 | (uint32_t)o[4 * i + 2] << 16 |
                            (uint32_t)o[4 * i + 3] << 24);
      CHECK(v == want[i], "%s: int32 %d at 0x%llx is %d, want %d", modes[m] == SIM_FAST ? "fast" : "detailed", i,
            (unsigned long long)addr, v, want[i]);
    }
  }
}

// The GBUF bytes [addr, addr + n) of every run against want.
static void check_gbuf(Sim *s[N_MODES], uint64_t addr, const uint8_t *want, size_t n) {
  for (int m = 0; m < N_MODES; m++)
    if (s[m])
      for (size_t i = 0; i < n; i++)
        CHECK(sim_gbuf(s[m])[addr + i] == want[i], "%s: GBUF[0x%llx] = %d, want %d",
              modes[m] == SIM_FAST ? "fast" : "detailed", (unsigned long long)(addr + i), sim_gbuf(s[m])[addr + i],
              want[i]);
}

// workloads/asm/gbuf_fuse.s: every instruction's cycles as its header works them out.
static void test_fuse_shipped(void) {
  Diag d;
  diag_init(&d);
  Program *p = NULL;
  CHECK(asm_assemble_file("workloads/asm/gbuf_fuse.s", &p, &d) == 0, "%s", diag_first(&d));
  if (!p) {
    check_case("gbuf_fuse_shipped");
    return;
  }
  static const WantT w[] = {
      {0, 1, 2, 1, 0},       // 0 LAYER 0
      {1, 2, 3, 2, 0},       // 1 CFG_LOAD
      {2, 3, 7, 16, 0},      // 2 LOAD X: beats 3..6
      {3, 7, 8, 7, 0},       // 3 CFG_LOAD
      {4, 8, 17, 26, 5},     // 4 LOAD W1: beats 13..16, 8..12 stall
      {5, 27, 28, 30, 0},    // 5 PRELOAD
      {6, 31, 35, 41, 0},    // 6 COMPUTE
      {7, 8, 9, 8, 0},       // 7 CFG_STORE
      {8, 42, 51, 52, 0},    // 8 STORE -> GBUF: beats 45, 46, 49, 50, answered 47, 48, 51, 52
      {9, 17, 18, 17, 0},    // 9 LAYER 1 (load copy)
      {10, 18, 19, 18, 0},   // 10 CFG_LOAD
      {11, 53, 57, 66, 0},   // 11 LOAD W2: beats 53..56
      {12, 57, 63, 66, 0},   // 12 LOAD GBUF: beats 57..62, answered in order behind W2's: 66
      {13, 67, 68, 70, 0},   // 13 PRELOAD
      {28, 71, 74, 80, 0},   // 14 COMPUTE (fetched once PRELOAD 5 left the queue)
      {29, 52, 53, 52, 0},   // 15 CFG_STORE
      {30, 81, 108, 117, 12},   // 16 STORE Z: beats 84..87, 94..97, 104..107
      {31, 31, 32, 31, 0},   // 17 HALT
  };
  CHECK(p->n_insns == sizeof w / sizeof w[0], "%u instructions", p->n_insns);
  WantTraffic tr = {{40, 12, 48, 12}, {12, 6, 8, 4}};
  Sim *s[N_MODES] = {0};
  run_all(p, p->n_insns == sizeof w / sizeof w[0] ? w : NULL, 118, &tr, s);
  static const int32_t z[12] = {-3, -2, 2, 11, 6, -2, 4, 23, 2, 0, 3, 16};
  check_i32(s, 0x400, z, 12);
  // Y = sat8(X x W1) in the GBUF, rows 4 bytes apart, bytes 2..3 of each row untouched (zero).
  static const uint8_t y[16] = {0, 1, 0, 0, 5, (uint8_t)-3, 0, 0, 3, 1, 0, 0, 4, (uint8_t)-1, 0, 0};
  check_gbuf(s, 0, y, sizeof y);
  // Per layer: the STORE into the GBUF in "fc", the GBUF LOAD in "conv".
  for (int m = 0; m < N_MODES; m++)
    if (s[m]) {
      const SimStats *st = sim_stats(s[m]);
      CHECK(st->layers[0].gbuf_write_bytes == 8 && st->layers[0].gbuf_write_beats == 4 &&
                st->layers[0].gbuf_read_bytes == 0 && st->layers[1].gbuf_read_bytes == 12 &&
                st->layers[1].gbuf_read_beats == 6 && st->layers[1].gbuf_write_bytes == 0,
            "per-layer gbuf counters");
      CHECK(st->unit[UNIT_LOAD].busy + st->unit[UNIT_LOAD].wait_token + st->unit[UNIT_LOAD].wait_resource +
                    st->unit[UNIT_LOAD].idle ==
                118,
            "load unit states do not add up");
    }
  free_all(s);
  prog_free(p);
  check_case("gbuf_fuse_shipped");
}

// A GBUF LOAD right behind a DRAM LOAD whose beats wait for slots: its two beats issue back to
// back after the DRAM ones, and are answered in issue order: A = max(I + L_g, A of the beat
// before), so they land no earlier than the DRAM LOAD's last response (25), later only when
// L_g > L pushes their own response past it.
static void test_behind_dram(unsigned lat, uint64_t e_gbuf) {
  char text[2048];
  tiny_arch(text, sizeof text, 4096, 4, lat);
  strcat(text,
         "CFG_LOAD stride_inner=4\n"                                         // f0 s1 r2 e1
         "LOAD mem=spad dst=0 dram_addr=0x100 outer=1 inner=8 nseg=1 seglen=4\n"   // f1 s2: beats 2..5, then
                                                                             // 12..15 (slots of 2..5 + 10): r 16, e 25, stall 6
         "LOAD mem=spad dst=8 dram_addr=0x20 outer=1 inner=2 nseg=1 seglen=4 gbuf=1\n"   // f2 s16: beats 16, 17 ...
         "HALT\n");
  Program *p = assemble(text);
  if (!p) return;
  WantT w[] = {{0, 1, 2, 1, 0}, {1, 2, 16, 25, 6}, {2, 16, 18, e_gbuf, 0}, {3, 3, 4, 3, 0}};
  WantTraffic tr = {{32, 8, 0, 0}, {8, 2, 0, 0}};
  Sim *s[N_MODES] = {0};
  run_all(p, w, e_gbuf + 1, &tr, s);
  free_all(s);
  prog_free(p);
  char name[64];
  snprintf(name, sizeof name, "gbuf_load_behind_dram_load_latency_%u", lat);
  check_case(name);
}

int main(void) {
  test_fuse_shipped();
  test_behind_dram(1, 25);    // answered 17, 18 alone: wait for 25
  test_behind_dram(5, 25);    // 21, 22: wait for 25
  test_behind_dram(10, 27);   // 26, 27: after the DRAM beats', unchanged
  test_behind_dram(12, 29);   // 28, 29 (L_g > L)
  return check_status();
}
