// dram.h: the off-chip memory model, one per machine, stepped once per clock.
// Two independent channels (as AXI's read and write channels): each accepts at most one request
// (one beat of bus_bytes, aligned) per cycle, holds at most max_inflight requests, and answers a
// request accepted in cycle t in cycle t + latency. Both the detailed simulator and the RTL
// harness call dram_cycle() every clock; the fast simulator uses the closed form in TIMING.md.
// The same model, built by dram_new_gbuf(), is the on-chip global buffer's two ports (TIMING §5a):
// a read port and a write port of gbuf.bus_bytes beats, latency gbuf.latency, and gbuf.latency
// requests in flight, which one request per cycle never exceeds, so it never refuses one.
#ifndef SA_DRAM_H
#define SA_DRAM_H

#include <stdint.h>

#include "../isa/arch.h"

#define DRAM_MAX_BEAT ARCH_MAX_BUS_BYTES

typedef struct {
  int valid;                     // a request is offered this cycle
  uint64_t addr;                 // beat-aligned byte address
  uint32_t tag;                  // returned with the response
  uint8_t data[DRAM_MAX_BEAT];   // write data
  uint8_t strobe[DRAM_MAX_BEAT]; // write byte enables (1 = write that byte)
} DramReq;

typedef struct {
  int valid;                     // a response is delivered this cycle
  uint32_t tag;                  // the request's tag
  uint8_t data[DRAM_MAX_BEAT];   // read data (sampled when the request was accepted)
} DramResp;

typedef struct Dram Dram;

// mem: the DRAM contents (arch->dram_bytes), owned by the caller.
Dram *dram_new(const Arch *arch, uint8_t *mem);
// mem: the global buffer's contents (arch->gbuf_bytes; none when 0), owned by the caller.
Dram *dram_new_gbuf(const Arch *arch, uint8_t *mem);
void dram_free(Dram *d);
// One clock. In this order: responses due this cycle are delivered (freeing their slots), then
// each channel accepts its offered request if a slot is free (*rd_ok / *wr_ok say whether it did).
// A write changes memory when accepted; a read samples memory when accepted.
void dram_cycle(Dram *d, const DramReq *rd, const DramReq *wr, DramResp *rd_resp, DramResp *wr_resp, int *rd_ok,
                int *wr_ok);
uint64_t dram_now(const Dram *d);         // cycles stepped so far
int dram_idle(const Dram *d);             // nothing in flight on either channel

#endif
