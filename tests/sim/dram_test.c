// dram_test.c: the DRAM model (sim/dram.c) on its own: latency, the in-flight limit, one
// request per channel per cycle, a slot freed by a response reused in the same cycle, reads
// sampling memory at acceptance, writes with byte strobes, and independent channels.
#include <stdint.h>
#include <string.h>

#include "../../sim/dram.h"
#include "../common/check.h"

static Arch tiny_arch(uint32_t bus, uint32_t latency, uint32_t inflight) {
  Arch a;
  arch_default(&a);
  a.dram_bytes = 4096;
  a.bus_bytes = bus;
  a.dram_latency = latency;
  a.dram_inflight = inflight;
  return a;
}

static DramReq read_req(uint64_t addr, uint32_t tag) {
  DramReq r;
  memset(&r, 0, sizeof r);
  r.valid = 1;
  r.addr = addr;
  r.tag = tag;
  return r;
}

// A read accepted in cycle 0 is answered in cycle L, not before, with the bytes of its beat.
static void test_latency(void) {
  uint8_t mem[4096];
  for (int i = 0; i < 4096; i++) mem[i] = (uint8_t)(i * 7);
  Arch a = tiny_arch(4, 10, 4);
  Dram *d = dram_new(&a, mem);
  CHECK(d != NULL, "dram_new failed");
  DramReq rq = read_req(8, 42);
  DramResp rr, wr;
  int rok = -1, wok = -1;
  dram_cycle(d, &rq, NULL, &rr, &wr, &rok, &wok);
  CHECK(rok == 1 && wok == 0, "read accepted %d, write accepted %d", rok, wok);
  CHECK(!rr.valid, "response in the acceptance cycle");
  CHECK(!dram_idle(d), "one request in flight, but idle");
  for (int t = 1; t < 10; t++) {
    dram_cycle(d, NULL, NULL, &rr, &wr, &rok, &wok);
    CHECK(!rr.valid, "response in cycle %d, latency is 10", t);
  }
  CHECK(dram_now(d) == 10, "now %llu after 10 cycles", (unsigned long long)dram_now(d));
  dram_cycle(d, NULL, NULL, &rr, &wr, &rok, &wok);
  CHECK(rr.valid && rr.tag == 42, "no response (tag 42) in cycle 10: valid %d tag %u", rr.valid, rr.tag);
  CHECK(rr.data[0] == mem[8] && rr.data[3] == mem[11], "wrong data %u %u", rr.data[0], rr.data[3]);
  CHECK(dram_idle(d), "not idle after the response");
  dram_free(d);
  check_case("dram_latency");
}

// F = 2, L = 5, a read offered every cycle: accepted in 0 and 1, refused in 2..4, and in 5 the
// slot freed by the response of cycle 0 takes the new request (same-cycle reuse).
static void test_inflight_limit(void) {
  uint8_t mem[4096] = {0};
  Arch a = tiny_arch(8, 5, 2);
  Dram *d = dram_new(&a, mem);
  int accepted[12], responded[12];
  uint32_t tag = 0;
  for (int t = 0; t < 12; t++) {
    DramReq rq = read_req(0, tag);
    DramResp rr;
    int rok = 0;
    dram_cycle(d, &rq, NULL, &rr, NULL, &rok, NULL);
    accepted[t] = rok;
    responded[t] = rr.valid ? (int)rr.tag : -1;
    if (rok) tag++;
  }
  int want_acc[12] = {1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1};
  int want_resp[12] = {-1, -1, -1, -1, -1, 0, 1, -1, -1, -1, 2, 3};
  for (int t = 0; t < 12; t++) {
    CHECK(accepted[t] == want_acc[t], "cycle %d: accepted %d, want %d", t, accepted[t], want_acc[t]);
    CHECK(responded[t] == want_resp[t], "cycle %d: response tag %d, want %d", t, responded[t], want_resp[t]);
  }
  dram_free(d);
  check_case("dram_inflight_limit");
}

// One request per channel per cycle: a stream of back-to-back reads is answered back to back,
// in order, one response per cycle.
static void test_one_per_cycle(void) {
  uint8_t mem[4096];
  for (int i = 0; i < 4096; i++) mem[i] = (uint8_t)i;
  Arch a = tiny_arch(16, 3, 64);
  Dram *d = dram_new(&a, mem);
  int seen = 0;
  for (int t = 0; t < 12; t++) {
    DramReq rq = read_req((uint64_t)t * 16, (uint32_t)t);
    DramResp rr;
    int rok = 0;
    dram_cycle(d, t < 8 ? &rq : NULL, NULL, &rr, NULL, &rok, NULL);
    if (t < 8) CHECK(rok, "cycle %d: refused with 64 slots", t);
    if (t >= 3 && t < 11) {
      CHECK(rr.valid && rr.tag == (uint32_t)(t - 3), "cycle %d: response tag %u valid %d", t, rr.tag, rr.valid);
      CHECK(rr.data[0] == (uint8_t)((t - 3) * 16), "cycle %d: data %u", t, rr.data[0]);
      seen += rr.valid;
    } else {
      CHECK(!rr.valid, "cycle %d: unexpected response", t);
    }
  }
  CHECK(seen == 8, "%d responses, want 8", seen);
  dram_free(d);
  check_case("dram_one_per_cycle");
}

// A read samples memory when accepted: a later change does not reach its response. A write
// changes memory when accepted, only the strobed bytes, and is acknowledged L cycles later.
static void test_sampling_and_strobes(void) {
  uint8_t mem[4096];
  memset(mem, 0xAA, sizeof mem);
  Arch a = tiny_arch(4, 2, 4);
  Dram *d = dram_new(&a, mem);
  DramReq rq = read_req(100, 1), wq;
  memset(&wq, 0, sizeof wq);
  wq.valid = 1;
  wq.addr = 100;
  wq.tag = 9;
  uint8_t data[4] = {1, 2, 3, 4}, strobe[4] = {1, 0, 1, 0};
  memcpy(wq.data, data, 4);
  memcpy(wq.strobe, strobe, 4);
  DramResp rr, wr;
  int rok = 0, wok = 0;
  // Same cycle, same bytes: the read is served first and sees the old contents.
  dram_cycle(d, &rq, &wq, &rr, &wr, &rok, &wok);
  CHECK(rok && wok, "both channels accept in the same cycle (%d %d)", rok, wok);
  CHECK(mem[100] == 1 && mem[101] == 0xAA && mem[102] == 3 && mem[103] == 0xAA, "strobes: %02x %02x %02x %02x",
        mem[100], mem[101], mem[102], mem[103]);
  mem[100] = 77;   // too late for the read accepted above
  dram_cycle(d, NULL, NULL, &rr, &wr, NULL, NULL);
  CHECK(!rr.valid && !wr.valid, "response before the latency");
  dram_cycle(d, NULL, NULL, &rr, &wr, NULL, NULL);
  CHECK(rr.valid && rr.tag == 1 && rr.data[0] == 0xAA, "read response valid %d tag %u data %02x", rr.valid, rr.tag,
        rr.data[0]);
  CHECK(wr.valid && wr.tag == 9, "write ack valid %d tag %u", wr.valid, wr.tag);
  dram_free(d);
  check_case("dram_sampling_and_strobes");
}

// The channels have separate slots: a full write channel does not stop reads.
static void test_channels_independent(void) {
  uint8_t mem[4096] = {0};
  Arch a = tiny_arch(4, 4, 1);
  Dram *d = dram_new(&a, mem);
  DramReq wq;
  memset(&wq, 0, sizeof wq);
  wq.valid = 1;
  memset(wq.strobe, 1, 4);
  int rok = 0, wok = 0;
  dram_cycle(d, NULL, &wq, NULL, NULL, &rok, &wok);
  CHECK(wok, "first write refused");
  DramReq rq = read_req(0, 0);
  dram_cycle(d, &rq, &wq, NULL, NULL, &rok, &wok);
  CHECK(rok && !wok, "read accepted %d (want 1), write accepted %d (want 0, F = 1)", rok, wok);
  dram_free(d);
  check_case("dram_channels_independent");
}

// Beats past the end of memory read as zero and are not written (no crash).
static void test_out_of_range(void) {
  uint8_t mem[4096 + 8];
  memset(mem, 0x55, sizeof mem);
  Arch a = tiny_arch(8, 1, 2);
  Dram *d = dram_new(&a, mem);
  DramReq rq = read_req(4092, 0), wq;
  memset(&wq, 0, sizeof wq);
  wq.valid = 1;
  wq.addr = 4092;
  memset(wq.strobe, 1, 8);
  memset(wq.data, 0x11, 8);
  DramResp rr;
  dram_cycle(d, &rq, &wq, NULL, NULL, NULL, NULL);
  dram_cycle(d, NULL, NULL, &rr, NULL, NULL, NULL);
  CHECK(rr.valid && rr.data[0] == 0x55 && rr.data[4] == 0, "read across the end: %02x %02x", rr.data[0], rr.data[4]);
  CHECK(mem[4095] == 0x11 && mem[4096] == 0x55, "write across the end: %02x %02x", mem[4095], mem[4096]);
  DramReq far = read_req(UINT64_MAX - 3, 1);
  dram_cycle(d, &far, NULL, NULL, NULL, NULL, NULL);
  dram_cycle(d, NULL, NULL, &rr, NULL, NULL, NULL);
  CHECK(rr.valid && rr.data[0] == 0 && rr.data[7] == 0, "read at 2^64 - 4 not zero");
  dram_free(d);
  check_case("dram_out_of_range");
}

int main(void) {
  test_latency();
  test_inflight_limit();
  test_one_per_cycle();
  test_sampling_and_strobes();
  test_channels_independent();
  test_out_of_range();
  return check_status();
}
