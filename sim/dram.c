// dram.c: the off-chip memory model of dram.h, stepped once per clock. Each channel is a FIFO of
// the requests it has accepted, at most max_inflight deep; a request accepted in cycle t leaves
// the FIFO (its response or write acknowledgement delivered) in cycle t + latency. Responses
// come back in acceptance order, at most one per channel per cycle, because at most one request
// is accepted per channel per cycle and the latency is fixed.
// Memory is the caller's: a read copies its beat when accepted, a write stores the bytes whose
// strobe is set when accepted. Bytes past the end of memory read as zero and are never written
// (legal programs never touch them: prog_check keeps every access inside DRAM).
// dram_new_gbuf() builds the same model over the on-chip global buffer (its two ports).
#include "dram.h"

#include <stdlib.h>
#include <string.h>

// One accepted request waiting for its response.
typedef struct {
  uint64_t due;                  // cycle its response is delivered
  uint32_t tag;                  // the request's tag
  uint8_t data[DRAM_MAX_BEAT];   // read data sampled at acceptance (unused for writes)
} Flight;

// One channel: a ring of in-flight requests, oldest first.
typedef struct {
  Flight *ring;                  // max_inflight entries
  uint32_t head;                 // oldest entry
  uint32_t count;                // entries in flight
} Channel;

struct Dram {
  uint8_t *mem;                  // contents (not owned)
  uint64_t size;                 // bytes of mem
  uint32_t beat;                 // bus_bytes
  uint32_t latency;              // cycles from acceptance to response (>= 1)
  uint32_t max_inflight;         // ring size of each channel
  uint64_t now;                  // the cycle the next dram_cycle() call models
  Channel rd, wr;                // read and write channels
};

static Dram *memory_new(uint8_t *mem, uint64_t size, uint32_t beat, uint32_t latency, uint32_t max_inflight) {
  Dram *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->mem = mem;
  d->size = size;
  d->beat = beat > DRAM_MAX_BEAT ? DRAM_MAX_BEAT : beat;
  d->latency = latency ? latency : 1;
  d->max_inflight = max_inflight ? max_inflight : 1;
  d->rd.ring = calloc(d->max_inflight, sizeof(Flight));
  d->wr.ring = calloc(d->max_inflight, sizeof(Flight));
  if (!d->rd.ring || !d->wr.ring) {
    dram_free(d);
    return NULL;
  }
  return d;
}

Dram *dram_new(const Arch *arch, uint8_t *mem) {
  return memory_new(mem, arch->dram_bytes, arch->bus_bytes, arch->dram_latency, arch->dram_inflight);
}

Dram *dram_new_gbuf(const Arch *arch, uint8_t *mem) {
  return memory_new(mem, arch->gbuf_bytes, arch->gbuf_bus_bytes, arch->gbuf_latency, arch->gbuf_latency);
}

void dram_free(Dram *d) {
  if (!d) return;
  free(d->rd.ring);
  free(d->wr.ring);
  free(d);
}

// Delivers the channel's oldest request into *resp when it is due this cycle.
static void channel_respond(Dram *d, Channel *ch, DramResp *resp) {
  DramResp none = {0};
  if (resp) *resp = none;
  if (!ch->count || ch->ring[ch->head].due != d->now) return;
  const Flight *f = &ch->ring[ch->head];
  if (resp) {
    resp->valid = 1;
    resp->tag = f->tag;
    memcpy(resp->data, f->data, d->beat);
  }
  ch->head = (ch->head + 1) % d->max_inflight;
  ch->count--;
}

// Appends an accepted request; returns its slot. The caller checked count < max_inflight.
static Flight *channel_push(Dram *d, Channel *ch, uint32_t tag) {
  Flight *f = &ch->ring[(ch->head + ch->count) % d->max_inflight];
  ch->count++;
  f->due = d->now + d->latency;
  f->tag = tag;
  return f;
}

// Byte addr + i lies inside memory (computed without wrapping around 64 bits).
static int in_memory(const Dram *d, uint64_t addr, uint32_t i) { return addr < d->size && i < d->size - addr; }

void dram_cycle(Dram *d, const DramReq *rd, const DramReq *wr, DramResp *rd_resp, DramResp *wr_resp, int *rd_ok,
                int *wr_ok) {
  channel_respond(d, &d->rd, rd_resp);
  channel_respond(d, &d->wr, wr_resp);
  int rok = 0, wok = 0;
  // Read before write: a read and a write of the same bytes in one cycle see the old contents
  // (only a racy program can do that).
  if (rd && rd->valid && d->rd.count < d->max_inflight) {
    Flight *f = channel_push(d, &d->rd, rd->tag);
    for (uint32_t i = 0; i < d->beat; i++) f->data[i] = in_memory(d, rd->addr, i) ? d->mem[rd->addr + i] : 0;
    rok = 1;
  }
  if (wr && wr->valid && d->wr.count < d->max_inflight) {
    channel_push(d, &d->wr, wr->tag);
    for (uint32_t i = 0; i < d->beat; i++)
      if (wr->strobe[i] && in_memory(d, wr->addr, i)) d->mem[wr->addr + i] = wr->data[i];
    wok = 1;
  }
  if (rd_ok) *rd_ok = rok;
  if (wr_ok) *wr_ok = wok;
  d->now++;
}

uint64_t dram_now(const Dram *d) { return d->now; }

int dram_idle(const Dram *d) { return d->rd.count == 0 && d->wr.count == 0; }
