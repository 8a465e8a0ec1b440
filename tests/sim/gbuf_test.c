// gbuf_test.c: the global buffer (GBUF=1 on LOAD and STORE, docs/TIMING.md §5a) on both engines.
// Every expected cycle is worked out by hand in the comments beside it (or in the header of the
// shipped workloads/asm/gbuf_fuse.s); the bytes are checked against what the instructions mean
// (docs/ISA.md section 2), and the two engines against each other on every counter.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/asm.h"
#include "../../sim/detailed_step.h"   // the burst test watches the detailed engine land beat by beat
#include "../../sim/sim.h"
#include "../../sim/sim_internal.h"   // the scratchpad's rows, to check what a GBUF LOAD landed
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

// The tiny arch of workloads/arch/tiny.json with the global buffer's keys and dram.max_inflight
// given: an .arch line.
static void tiny_arch_f(char *buf, size_t n, unsigned gbuf_bytes, unsigned gbuf_bus, unsigned gbuf_lat,
                        unsigned inflight) {
  snprintf(buf, n,
           ".arch {\"name\":\"tiny\",\"array\":{\"rows\":4,\"cols\":4},\"spad\":{\"rows\":64},\"wbuf\":{\"rows\":32},"
           "\"acc\":{\"rows\":64},\"param\":{\"rows\":8},"
           "\"dram\":{\"bytes\":65536,\"bus_bytes\":4,\"latency\":10,\"max_inflight\":%u},"
           "\"gbuf\":{\"bytes\":%u,\"bus_bytes\":%u,\"latency\":%u},"
           "\"queues\":{\"load\":4,\"compute\":4,\"store\":4},\"store\":{\"fifo_rows\":2,\"post_latency\":3}}\n",
           inflight, gbuf_bytes, gbuf_bus, gbuf_lat);
}

// ... with tiny.json's dram.max_inflight 4.
static void tiny_arch(char *buf, size_t n, unsigned gbuf_bytes, unsigned gbuf_bus, unsigned gbuf_lat) {
  tiny_arch_f(buf, n, gbuf_bytes, gbuf_bus, gbuf_lat, 4);
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
      {12, 57, 63, 72, 0},   // 12 LOAD GBUF: beats 57..62, answered in order behind W2's, one a cycle: 67..72
      {13, 73, 74, 76, 0},   // 13 PRELOAD
      {28, 77, 80, 86, 0},   // 14 COMPUTE (fetched once PRELOAD 5 left the queue)
      {29, 52, 53, 52, 0},   // 15 CFG_STORE
      {30, 87, 114, 123, 12},   // 16 STORE Z: beats 90..93, 100..103, 110..113
      {31, 31, 32, 31, 0},   // 17 HALT
  };
  CHECK(p->n_insns == sizeof w / sizeof w[0], "%u instructions", p->n_insns);
  WantTraffic tr = {{40, 12, 48, 12}, {12, 6, 8, 4}};
  Sim *s[N_MODES] = {0};
  run_all(p, p->n_insns == sizeof w / sizeof w[0] ? w : NULL, 124, &tr, s);
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
                124,
            "load unit states do not add up");
    }
  free_all(s);
  prog_free(p);
  check_case("gbuf_fuse_shipped");
}

// A GBUF LOAD right behind a DRAM LOAD whose beats wait for slots: its two beats issue back to
// back after the DRAM ones, and are answered in issue order, one per cycle: A = max(I + L_g, A of
// the beat before + 1), so they land no earlier than 26 and 27, the cycles after the DRAM LOAD's
// last response (25), later only when L_g > L pushes their own response past them.
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

// Runs `body` (instructions) on the tiny arch with the given buffer; checks times and traffic.
static Program *tiny_program(unsigned gbuf_bus, unsigned gbuf_lat, const char *body) {
  char text[4096];
  tiny_arch(text, sizeof text, 4096, gbuf_bus, gbuf_lat);
  strncat(text, body, sizeof text - strlen(text) - 1);
  return assemble(text);
}

// RAW through the buffer: a RAW32 STORE of two ACC rows into it, its token to a LOAD that reads
// the same 32 bytes back into eight SPAD rows (no DRAM in between).
static void test_raw_through_gbuf(void) {
  Program *p = tiny_program(4, 2,
                            ".data 0x100 05 fb 7f 80 01 02 fe 00\n"
                            "CFG_LOAD stride_inner=4 mult=1 shift=0\n"   // f0 s1 r2 e1
                            "LOAD mem=acc dst=0 dram_addr=0x100 outer=1 inner=2 nseg=1 seglen=4 push=store\n"
                            // f1 s2: DRAM beats 2, 3: r4, e 3 + 10 = 13 (token at 14)
                            "CFG_STORE stride_inner=16\n"                // f2 s3 r4 e3
                            "STORE raw32=1 src=0 dram_addr=0 outer=1 inner=2 cols=4 gbuf=1 pop=load push=load\n"
                            // f3 s14: rows read 14, 15, ready 17, 18 (S = 3); 16 bytes = 4 beats a
                            // row: 17..20, 21..24; answered L_g = 2 later: r 25, e 26 (token at 27)
                            "LOAD mem=spad dst=0 dram_addr=0 outer=1 inner=8 nseg=1 seglen=4 gbuf=1 pop=store\n"
                            // f4 s27: 8 beats 27..34, r 35, e 36
                            "HALT\n");   // f5; cycles 37
  if (!p) return;
  WantT w[] = {{0, 1, 2, 1, 0}, {1, 2, 4, 13, 0}, {2, 3, 4, 3, 0}, {3, 14, 25, 26, 0}, {4, 27, 35, 36, 0}, {5, 5, 6, 5, 0}};
  WantTraffic tr = {{8, 2, 0, 0}, {32, 8, 32, 8}};
  Sim *s[N_MODES] = {0};
  run_all(p, w, 37, &tr, s);
  // ACC rows 0, 1 = the bytes as int8 (MULT 1, SHIFT 0); as little-endian int32 in the GBUF, and
  // from there in SPAD rows 0..7 (4 bytes each).
  static const int8_t v[8] = {5, -5, 127, -128, 1, 2, -2, 0};
  uint8_t want[32];
  for (int i = 0; i < 8; i++)
    for (int b = 0; b < 4; b++) want[4 * i + b] = (uint8_t)((uint32_t)(int32_t)v[i] >> (8 * b));
  check_gbuf(s, 0, want, sizeof want);
  for (int m = 0; m < N_MODES; m++)
    if (s[m]) CHECK(!memcmp(s[m]->spad, want, sizeof want), "%s: SPAD rows 0..7 differ from the GBUF bytes", m ? "detailed" : "fast");
  free_all(s);
  prog_free(p);
  check_case("gbuf_raw_store_token_load");
}

// A pooled STORE into the buffer, and beats of gbuf.bus_bytes = 16 (DRAM: 4): the pooled row's
// bytes 6..9 are one GBUF beat (two DRAM beats would cover them); a LOAD of three 4-byte rows in
// one 16-byte line takes three beats (rows are never merged).
static void test_pool_into_gbuf_wide_bus(void) {
  Program *p = tiny_program(16, 1,
                            ".data 0x100 01 f0 10 05 7f 02 03 80 fe 40 00 06 09 09 09 09\n"
                            "CFG_LOAD stride_inner=4 mult=1 shift=0\n"   // f0 s1 r2 e1
                            "LOAD mem=acc dst=0 dram_addr=0x100 outer=1 inner=4 nseg=1 seglen=4 push=store\n"
                            // f1 s2: DRAM beats 2..5 (F = 4): r6, e 15 (token at 16)
                            "CFG_POOL pool=max kh=2 kw=2 sh=2 sw=2 in_h=2 in_w=2\n"   // f2 s3 r4 e3
                            "CFG_STORE stride_inner=4\n"                               // f3 s4 r5 e4
                            "STORE src=0 dram_addr=6 outer=1 inner=1 cols=4 gbuf=1 pop=load push=load\n"
                            // f4 s16: window reads 16..19, ready 19 + 3 = 22: one beat [0, 16) in 22,
                            // r 23, e 22 + 1 = 23 (token at 24)
                            "LOAD mem=spad dst=0 dram_addr=0 outer=1 inner=3 nseg=1 seglen=4 gbuf=1 pop=store\n"
                            // f5 s24: beats 24, 25, 26: r 27, e 27
                            "HALT\n");   // f6; cycles 28
  if (!p) return;
  WantT w[] = {{0, 1, 2, 1, 0},    {1, 2, 6, 15, 0},    {2, 3, 4, 3, 0}, {3, 4, 5, 4, 0},
               {4, 16, 23, 23, 0}, {5, 24, 27, 27, 0}, {6, 6, 7, 6, 0}};
  WantTraffic tr = {{16, 4, 0, 0}, {12, 3, 4, 1}};
  Sim *s[N_MODES] = {0};
  run_all(p, w, 28, &tr, s);
  // Column maxima of the four ACC rows (the bytes as int8; no PARAMS: saturated to int8 as is).
  static const uint8_t pooled[4] = {0x7f, 0x40, 0x10, 0x09};
  check_gbuf(s, 6, pooled, 4);
  static const uint8_t spad[12] = {0, 0, 0, 0, 0, 0, 0x7f, 0x40, 0x10, 0x09, 0, 0};
  for (int m = 0; m < N_MODES; m++)
    if (s[m]) CHECK(!memcmp(s[m]->spad, spad, sizeof spad), "%s: SPAD rows 0..2 wrong", m ? "detailed" : "fast");
  free_all(s);
  prog_free(p);
  check_case("gbuf_pooled_store_bus_16_vs_dram_4");
}

// gbuf.latency 25 > dram.latency 10: a DRAM LOAD behind a GBUF LOAD has its responses held back
// until after the GBUF ones (in issue order, one per cycle), so it ends after them, not at I_last + L.
static void test_dram_behind_slow_gbuf(void) {
  Program *p = tiny_program(4, 25,
                            "CFG_LOAD stride_inner=4\n"                                            // f0 s1 r2 e1
                            "LOAD mem=spad dst=0 dram_addr=0 outer=1 inner=2 nseg=1 seglen=4 gbuf=1\n"   // f1 s2: beats 2, 3
                            // answered 27, 28: r4, e 28
                            "LOAD mem=spad dst=2 dram_addr=0x100 outer=1 inner=2 nseg=1 seglen=4\n"   // f2 s4: DRAM
                            // beats 4, 5, answered alone in 14, 15, in order max(14, 28 + 1) = 29,
                            // max(15, 29 + 1) = 30: r6, e 30
                            "HALT\n");   // f3; cycles 31
  if (!p) return;
  WantT w[] = {{0, 1, 2, 1, 0}, {1, 2, 4, 28, 0}, {2, 4, 6, 30, 0}, {3, 3, 4, 3, 0}};
  WantTraffic tr = {{8, 2, 0, 0}, {8, 2, 0, 0}};
  Sim *s[N_MODES] = {0};
  run_all(p, w, 31, &tr, s);
  free_all(s);
  prog_free(p);
  check_case("gbuf_dram_load_behind_slower_gbuf_load");
}

// The store unit's acknowledgements in issue order too: a GBUF STORE right behind a DRAM STORE
// ends the cycle after the DRAM write's acknowledgement.
static void test_store_behind_dram_store(void) {
  Program *p = tiny_program(4, 2,
                            "CFG_STORE stride_inner=4\n"                                         // f0 s1 r2 e1
                            "STORE src=0 dram_addr=0x100 outer=1 inner=1 cols=4\n"              // f1 s2: read 2,
                            // ready 5: DRAM beat 5, r6, e 15
                            "STORE src=1 dram_addr=0 outer=1 inner=1 cols=4 gbuf=1\n"           // f2 s6: read 6,
                            // ready 9: GBUF beat 9, answered alone in 11, in order max(11, 15 + 1) = 16:
                            // r10, e 16
                            "HALT\n");   // f3; cycles 17
  if (!p) return;
  WantT w[] = {{0, 1, 2, 1, 0}, {1, 2, 6, 15, 0}, {2, 6, 10, 16, 0}, {3, 3, 4, 3, 0}};
  WantTraffic tr = {{0, 0, 4, 1}, {0, 0, 4, 1}};
  Sim *s[N_MODES] = {0};
  run_all(p, w, 17, &tr, s);
  for (int m = 0; m < N_MODES; m++)
    if (s[m]) {   // GBUF beats never stall: the store unit is busy 2..5 and 6..9, never waiting on a resource
      const UnitStats *u = &sim_stats(s[m])->unit[UNIT_STORE];
      CHECK(u->busy == 9 && u->wait_resource == 0, "%s: store busy %llu wait_resource %llu, want 9 0",
            m ? "detailed" : "fast", (unsigned long long)u->busy, (unsigned long long)u->wait_resource);
    }
  free_all(s);
  prog_free(p);
  check_case("gbuf_store_behind_dram_store");
}

// A burst of 8 GBUF beats issued right behind one DRAM beat (dram.max_inflight 16: nothing
// stalls): they are answered alone L_g = 1 after issue, long before the DRAM beat, and then
// land one per cycle after it (A_b = max(I_b + L_g, A_(b-1) + 1)), not all in its cycle. The
// burst overwrites SPAD rows 0..7 (filled from DRAM first) with the buffer's zeros, so the
// detailed engine, stepped one cycle at a time, shows the cycle each beat lands in.
static void test_burst_behind_dram_beat(void) {
  char text[4096];
  tiny_arch_f(text, sizeof text, 4096, 4, 1, 16);
  strcat(text,
         ".data 0x100 11 12 13 14 21 22 23 24 31 32 33 34 41 42 43 44 51 52 53 54 61 62 63 64 71 72 73 74 81 82 "
         "83 84\n"
         ".data 0x200 5a 5b 5c 5d\n"
         "CFG_LOAD stride_inner=4\n"                                                  // f0 s1 r2 e1
         "LOAD mem=spad dst=0 dram_addr=0x100 outer=1 inner=8 nseg=1 seglen=4\n"
         // f1 s2: DRAM beats 2..9 (F = 16: no stall), answered 12..19 (I + 10 > A of the beat
         // before + 1): r 10, e 19; SPAD row k gets its bytes in 12 + k
         "LOAD mem=spad dst=8 dram_addr=0x200 outer=1 inner=1 nseg=1 seglen=4\n"
         // f2 s10: DRAM beat 10, answered max(10 + 10, 19 + 1) = 20: r 11, e 20
         "LOAD mem=spad dst=0 dram_addr=0 outer=1 inner=8 nseg=1 seglen=4 gbuf=1\n"
         // f3 s11: GBUF beats 11..18, alone answered 12..19; in order, one per cycle:
         // max(12, 20 + 1) = 21, max(13, 21 + 1) = 22, ..., max(19, 27 + 1) = 28: r 19, e 28;
         // SPAD row k is zero again from 21 + k
         "HALT\n");   // f4 s4 r5 e4; cycles 29
  Program *p = assemble(text);
  if (!p) return;
  WantT w[] = {{0, 1, 2, 1, 0}, {1, 2, 10, 19, 0}, {2, 10, 11, 20, 0}, {3, 11, 19, 28, 0}, {4, 4, 5, 4, 0}};
  WantTraffic tr = {{36, 9, 0, 0}, {32, 8, 0, 0}};
  Sim *s[N_MODES] = {0};
  run_all(p, w, 29, &tr, s);
  free_all(s);
  // The detailed engine cycle by cycle: SPAD row k (k < 8) holds its DRAM bytes exactly in
  // cycles 12 + k .. 20 + k; row 8 holds 5a 5b 5c 5d from 20 on.
  Diag d;
  diag_init(&d);
  Sim *ds = sim_new(p, SIM_DETAILED, &d);
  CHECK(ds, "%s", diag_first(&d));
  SimDetStep *st = ds ? sim_detailed_begin(ds, &d) : NULL;
  int rc = st ? 1 : -1, bad = 0;
  static const uint8_t row8[4] = {0x5a, 0x5b, 0x5c, 0x5d};
  while (rc == 1 && !bad) {
    SimCycleLog log = {0};
    rc = sim_detailed_step(st, &log);
    uint64_t c = log.cycle;
    for (uint64_t k = 0; k < 8 && !bad; k++) {
      int held = c >= 12 + k && c <= 20 + k;
      uint8_t want[4] = {0};
      if (held)
        for (int b = 0; b < 4; b++) want[b] = (uint8_t)(0x10 * (k + 1) + (uint64_t)b + 1);
      bad = memcmp(ds->spad + 4 * k, want, 4) != 0;
      CHECK(!bad, "cycle %llu: SPAD row %llu is %02x %02x %02x %02x, want %02x %02x %02x %02x (%s)",
            (unsigned long long)c, (unsigned long long)k, ds->spad[4 * k], ds->spad[4 * k + 1], ds->spad[4 * k + 2],
            ds->spad[4 * k + 3], want[0], want[1], want[2], want[3], held ? "the DRAM bytes" : "zero");
    }
    if (!bad) {
      bad = memcmp(ds->spad + 32, c >= 20 ? row8 : (const uint8_t[4]){0}, 4) != 0;
      CHECK(!bad, "cycle %llu: SPAD row 8 wrong", (unsigned long long)c);
    }
    if (!bad) {
      bad = log.gbuf_rd_accepted != (c >= 11 && c <= 18) || log.rd_accepted != (c >= 2 && c <= 10);
      CHECK(!bad, "cycle %llu: read port took %d, DRAM read channel took %d", (unsigned long long)c,
            log.gbuf_rd_accepted, log.rd_accepted);
    }
  }
  CHECK(bad || rc == 0, "stepped run failed: %s", diag_first(&d));
  if (st) sim_detailed_end(st);
  if (ds) CHECK(sim_stats(ds)->cycles == 29, "stepped run: %llu cycles, want 29", (unsigned long long)sim_stats(ds)->cycles);
  sim_free(ds);
  prog_free(p);
  check_case("gbuf_burst_behind_dram_beat_lands_one_per_cycle");
}

int main(void) {
  test_fuse_shipped();
  test_behind_dram(1, 27);    // answered 17, 18 alone: max(17, 25 + 1) = 26, max(18, 26 + 1) = 27
  test_behind_dram(5, 27);    // 21, 22 alone: max(21, 26) = 26, max(22, 27) = 27
  test_behind_dram(10, 27);   // 26, 27 alone: max(26, 26) = 26, max(27, 27) = 27
  test_behind_dram(12, 29);   // 28, 29 alone: max(28, 26) = 28, max(29, 29) = 29 (L_g > L)
  test_raw_through_gbuf();
  test_pool_into_gbuf_wide_bus();
  test_dram_behind_slow_gbuf();
  test_store_behind_dram_store();
  test_burst_behind_dram_beat();
  return check_status();
}
