// testarch.c: see testarch.h.
#include "testarch.h"

#include <stdio.h>

Arch testarch_tiny(void) {
  Arch a;
  arch_default(&a);
  snprintf(a.name, sizeof a.name, "tiny");
  a.rows = a.cols = 4;
  a.spad_rows = a.wbuf_rows = a.acc_rows = 64;
  a.param_rows = 8;
  a.dram_bytes = 1 << 16;
  a.bus_bytes = 4;
  a.dram_latency = 10;
  a.dram_inflight = 4;
  a.queue_depth[0] = a.queue_depth[1] = a.queue_depth[2] = 4;
  a.store_fifo_rows = 2;
  a.post_latency = 2;
  return a;
}

Arch testarch_2x2(void) {
  Arch a;
  arch_default(&a);
  snprintf(a.name, sizeof a.name, "2x2");
  a.rows = a.cols = 2;
  a.spad_rows = 8;
  a.wbuf_rows = 4;
  a.acc_rows = 6;
  a.param_rows = 6;
  a.dram_bytes = 1 << 16;
  a.bus_bytes = 2;
  a.dram_latency = 7;
  a.dram_inflight = 2;
  a.queue_depth[0] = a.queue_depth[1] = a.queue_depth[2] = 1;
  a.store_fifo_rows = 1;
  a.post_latency = 1;
  return a;
}
