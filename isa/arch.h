// arch.h: the hardware configuration a program is compiled for and a machine is built with.
// Parsed from arch.json (docs/ARCH.md), validated, and written back in one canonical JSON form
// that travels inside every program binary.
#ifndef SA_ARCH_H
#define SA_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "isa.h"

typedef struct {
  char name[64];              // configuration name ("default")
  uint32_t rows;              // systolic array rows R (reduction dimension in WS)
  uint32_t cols;              // systolic array columns C (output channels in WS)
  uint32_t spad_rows;         // input scratchpad rows, each R int8
  uint32_t wbuf_rows;         // weight buffer rows, each C int8
  uint32_t acc_rows;          // accumulator rows, each C int32
  uint32_t param_rows;        // post-processing parameter rows, each C int32
  uint64_t dram_bytes;        // DRAM size
  uint32_t bus_bytes;         // DRAM beat: bytes per request, one request per cycle per channel
  uint32_t dram_latency;      // cycles from a request's acceptance to its response
  uint32_t dram_inflight;     // requests in flight per channel at most
  uint32_t gbuf_bytes;        // on-chip global buffer, byte-addressed by LOAD/STORE with GBUF=1; 0: none
  uint32_t gbuf_bus_bytes;    // global buffer beat: bytes per request, one request per cycle per port
  uint32_t gbuf_latency;      // cycles from a global-buffer request to its response (never stalls)
  uint32_t queue_depth[NUM_UNITS];  // instruction queue depths, per unit: load, compute, store, sfu
  uint32_t store_fifo_rows;   // post-processed rows buffered between the post-processor and write channel
  uint32_t post_latency;       // post-processing pipeline latency, cycles
  uint32_t sfu_lanes;         // special-function unit lanes L (a row takes ceil(cols / L) cycles)
  uint32_t sfu_latency;       // special-function unit pipeline depth P, cycles
  uint32_t token_max;         // largest count a token channel may hold
  double clock_mhz;           // clock, for time and power
} Arch;

// Limits checked by arch_validate (also the documented ranges).
#define ARCH_MAX_DIM 256
#define ARCH_MAX_MEM_ROWS 65536
#define ARCH_MAX_BUS_BYTES 128
#define ARCH_MAX_GBUF_BYTES (4u << 20)   // the race checker tracks every byte (20 B of state each)

// Fills *a from JSON text. `file` names the source in messages. Unknown keys are errors.
int arch_parse(const char *text, size_t len, const char *file, Arch *a, Diag *d);
// Reads a file of at most ARCH_FILE_MAX_BYTES (docs/ARCH.md) and parses it.
#define ARCH_FILE_MAX_BYTES ((size_t)1 << 20)
int arch_load_file(const char *path, Arch *a, Diag *d);
// Checks every value against its range; messages name the key ("dram.bus_bytes").
int arch_validate(const Arch *a, const char *file, Diag *d);
// Canonical JSON (fixed key order, no spaces variation). Caller frees.
char *arch_to_json(const Arch *a);
// The built-in "default" configuration (16x16), used when no arch is named.
void arch_default(Arch *a);
// 1 when every field is equal.
int arch_equal(const Arch *x, const Arch *y);
// Bytes per beat of the memory a LOAD or STORE reaches: the global buffer (gbuf 1) or DRAM.
static inline uint32_t arch_beat_bytes(const Arch *a, int gbuf) { return gbuf ? a->gbuf_bus_bytes : a->bus_bytes; }

#endif
