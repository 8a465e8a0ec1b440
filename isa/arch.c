// arch.c: parses, validates and prints arch.json (docs/ARCH.md). Uses jansson for the JSON.
#include "arch.h"

#include "fileio.h"
#include "fileread.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// One row per key: where it lives in the JSON, where in Arch, and its range.
typedef struct {
  const char *group;      // enclosing object, or NULL for a top-level key
  const char *key;        // key inside it
  size_t offset;          // offsetof(Arch, field)
  int is64;               // 1: uint64_t field, 0: uint32_t
  uint64_t lo, hi;        // inclusive range
  const char *doc;        // one line, for docs/ARCH.md
} ArchKey;

// One "queues" key per unit, named as isa_unit_names: a new unit needs its row below.
_Static_assert(NUM_UNITS == 4, "arch_keys lists the queues of the load, compute, store and special-function units");

#define U32(g, k, f, lo, hi, doc) {g, k, offsetof(Arch, f), 0, lo, hi, doc}
static const ArchKey arch_keys[] = {
    U32("array", "rows", rows, 1, ARCH_MAX_DIM, "PE rows R: the reduction (K) dimension in weight-stationary"),
    U32("array", "cols", cols, 1, ARCH_MAX_DIM, "PE columns C: the output-channel (N) dimension"),
    U32("spad", "rows", spad_rows, 1, ARCH_MAX_MEM_ROWS, "input scratchpad rows, each R int8"),
    U32("wbuf", "rows", wbuf_rows, 1, ARCH_MAX_MEM_ROWS, "weight buffer rows, each C int8"),
    U32("acc", "rows", acc_rows, 1, ARCH_MAX_MEM_ROWS, "accumulator rows, each C int32"),
    U32("param", "rows", param_rows, 3, ARCH_MAX_MEM_ROWS, "post-processing parameter rows, each C int32"),
    {"dram", "bytes", offsetof(Arch, dram_bytes), 1, 4096, 1ull << 32, "DRAM size in bytes"},
    U32("dram", "bus_bytes", bus_bytes, 1, ARCH_MAX_BUS_BYTES, "bytes per beat (power of two); one beat per cycle per channel"),
    U32("dram", "latency", dram_latency, 1, 100000, "cycles from request to response"),
    U32("dram", "max_inflight", dram_inflight, 1, 4096, "requests in flight per channel"),
    U32("gbuf", "bytes", gbuf_bytes, 0, ARCH_MAX_GBUF_BYTES, "on-chip global buffer bytes (0: none), addressed by LOAD/STORE with GBUF=1"),
    U32("gbuf", "bus_bytes", gbuf_bus_bytes, 1, ARCH_MAX_BUS_BYTES, "global buffer bytes per beat (power of two); one beat per cycle per port"),
    U32("gbuf", "latency", gbuf_latency, 1, 64, "global buffer cycles from request to response"),
    U32("queues", "load", queue_depth[UNIT_LOAD], 1, 1024, "load instruction queue depth"),
    U32("queues", "compute", queue_depth[UNIT_COMPUTE], 1, 1024, "compute instruction queue depth"),
    U32("queues", "store", queue_depth[UNIT_STORE], 1, 1024, "store instruction queue depth"),
    U32("queues", "sfu", queue_depth[UNIT_SFU], 1, 1024, "special-function unit instruction queue depth"),
    U32("store", "fifo_rows", store_fifo_rows, 1, 1024, "post-processed rows buffered before the write channel"),
    U32("store", "post_latency", post_latency, 1, 64, "post-processing pipeline latency in cycles"),
    U32("sfu", "lanes", sfu_lanes, 1, ARCH_MAX_DIM, "special-function unit lanes L: a row of C values takes ceil(C / L) cycles"),
    U32("sfu", "latency", sfu_latency, 1, 64, "special-function unit pipeline depth P in cycles"),
    U32("tokens", "max", token_max, 1, 65535, "largest count of a token channel"),
};
#undef U32
#define NKEYS (sizeof arch_keys / sizeof arch_keys[0])

static uint64_t get_key(const Arch *a, const ArchKey *k) {
  const char *p = (const char *)a + k->offset;
  if (k->is64) return *(const uint64_t *)(const void *)p;
  return *(const uint32_t *)(const void *)p;
}

static void set_key(Arch *a, const ArchKey *k, uint64_t v) {
  char *p = (char *)a + k->offset;
  if (k->is64)
    *(uint64_t *)(void *)p = v;
  else
    *(uint32_t *)(void *)p = (uint32_t)v;
}

void arch_default(Arch *a) {
  memset(a, 0, sizeof *a);
  snprintf(a->name, sizeof a->name, "default");
  a->rows = a->cols = 16;
  a->spad_rows = 8192;
  a->wbuf_rows = 2048;
  a->acc_rows = 2048;
  a->param_rows = 64;
  a->dram_bytes = 256ull << 20;
  a->bus_bytes = 16;
  a->dram_latency = 100;
  a->dram_inflight = 128;
  a->gbuf_bytes = 128u << 10;
  a->gbuf_bus_bytes = 16;
  a->gbuf_latency = 2;
  for (int u = 0; u < NUM_UNITS; u++) a->queue_depth[u] = 16;
  a->store_fifo_rows = 4;
  a->post_latency = 3;
  a->sfu_lanes = 4;
  a->sfu_latency = 6;
  a->token_max = 255;
  a->clock_mhz = 1000.0;
}

static int is_group_key(const char *key) {
  for (size_t i = 0; i < NKEYS; i++)
    if (arch_keys[i].group && !strcmp(arch_keys[i].group, key)) return 1;
  return 0;
}

int arch_parse(const char *text, size_t len, const char *file, Arch *a, Diag *d) {
  json_error_t err;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
  if (!root) return diag_error(d, "%s:%d:%d: error: %s", file, err.line > 0 ? err.line : 1,
                               err.column > 0 ? err.column : 1, err.text);
  int rc = 0;
  arch_default(a);
  if (!json_is_object(root)) {
    rc = diag_error(d, "%s: error: the arch configuration must be a JSON object", file);
    goto out;
  }
  const char *key;
  json_t *val;
  json_object_foreach(root, key, val) {
    if (!strcmp(key, "name")) {
      if (!json_is_string(val) || strlen(json_string_value(val)) >= sizeof a->name) {
        rc = diag_error(d, "%s: name: error: expected a string of at most %zu characters", file, sizeof a->name - 1);
        goto out;
      }
      // Printed raw in reports: an ESC, a CR or a newline could forge lines. No control character
      // but the tab (C0, DEL, C1 as UTF-8); other UTF-8 is fine (jansson checked that it is valid).
      for (const unsigned char *c = (const unsigned char *)json_string_value(val); *c; c++)
        if ((*c < 0x20 && *c != '\t') || *c == 0x7f || (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)) {
          rc = diag_error(d, "%s: name: error: control character U+%04X", file, *c == 0xc2 ? c[1] : *c);
          goto out;
        }
      snprintf(a->name, sizeof a->name, "%s", json_string_value(val));
    } else if (!strcmp(key, "clock_mhz")) {
      if (!json_is_number(val)) {
        rc = diag_error(d, "%s: clock_mhz: error: expected a number", file);
        goto out;
      }
      a->clock_mhz = json_number_value(val);
    } else if (!strcmp(key, "comment")) {
      // free text for people
    } else if (is_group_key(key)) {
      if (!json_is_object(val)) {
        rc = diag_error(d, "%s: %s: error: expected an object", file, key);
        goto out;
      }
      const char *sub;
      json_t *sv;
      json_object_foreach(val, sub, sv) {
        const ArchKey *k = NULL;
        // store.sfu_latency: the name before the special-function unit came, in older binaries.
        const char *name = !strcmp(key, "store") && !strcmp(sub, "sfu_latency") ? "post_latency" : sub;
        for (size_t i = 0; i < NKEYS; i++)
          if (arch_keys[i].group && !strcmp(arch_keys[i].group, key) && !strcmp(arch_keys[i].key, name)) k = &arch_keys[i];
        if (!k) {
          rc = diag_error(d, "%s: %s.%s: error: unknown key", file, key, sub);
          goto out;
        }
        if (!json_is_integer(sv) || json_integer_value(sv) < 0) {
          rc = diag_error(d, "%s: %s.%s: error: expected a non-negative integer", file, key, sub);
          goto out;
        }
        uint64_t v = (uint64_t)json_integer_value(sv);
        if (v < k->lo || v > k->hi) {   // before set_key, which would truncate to 32 bits
          rc = diag_error(d, "%s: %s.%s: error: %llu is out of range [%llu, %llu]", file, key, sub,
                          (unsigned long long)v, (unsigned long long)k->lo, (unsigned long long)k->hi);
          goto out;
        }
        set_key(a, k, (uint64_t)json_integer_value(sv));
      }
    } else {
      rc = diag_error(d, "%s: %s: error: unknown key", file, key);
      goto out;
    }
  }
  rc = arch_validate(a, file, d);
out:
  json_decref(root);
  return rc;
}

int arch_load_file(const char *path, Arch *a, Diag *d) {
  uint8_t *buf;
  size_t len;
  FileReadLimits lim = {ARCH_FILE_MAX_BYTES, "the limit of an arch file", 4096, file_head_text, NULL};
  if (file_read_limited(path, &lim, &buf, &len, d)) return -1;
  int rc = arch_parse((const char *)buf, len, path, a, d);
  free(buf);
  return rc;
}

int arch_validate(const Arch *a, const char *file, Diag *d) {
  for (size_t i = 0; i < NKEYS; i++) {
    const ArchKey *k = &arch_keys[i];
    uint64_t v = get_key(a, k);
    if (v < k->lo || v > k->hi)
      return diag_error(d, "%s: %s.%s: error: %llu is out of range [%llu, %llu]", file, k->group, k->key,
                        (unsigned long long)v, (unsigned long long)k->lo, (unsigned long long)k->hi);
  }
  if (a->bus_bytes & (a->bus_bytes - 1))
    return diag_error(d, "%s: dram.bus_bytes: error: %u is not a power of two", file, a->bus_bytes);
  if (a->gbuf_bus_bytes & (a->gbuf_bus_bytes - 1))
    return diag_error(d, "%s: gbuf.bus_bytes: error: %u is not a power of two", file, a->gbuf_bus_bytes);
  if (!(a->clock_mhz >= 1.0 && a->clock_mhz <= 100000.0))
    return diag_error(d, "%s: clock_mhz: error: %g is out of range [1, 100000]", file, a->clock_mhz);
  if (a->param_rows < 3)
    return diag_error(d, "%s: param.rows: error: at least 3 rows (bias, multiplier, shift) are needed", file);
  return 0;
}

char *arch_to_json(const Arch *a) {
  json_t *root = json_object();
  json_object_set_new(root, "name", json_string(a->name));
  for (size_t i = 0; i < NKEYS; i++) {
    const ArchKey *k = &arch_keys[i];
    json_t *g = json_object_get(root, k->group);
    if (!g) {
      g = json_object();
      json_object_set_new(root, k->group, g);
    }
    json_object_set_new(g, k->key, json_integer((json_int_t)get_key(a, k)));
  }
  json_object_set_new(root, "clock_mhz", json_real(a->clock_mhz));
  char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
  json_decref(root);
  return s;
}

int arch_equal(const Arch *x, const Arch *y) {
  if (strcmp(x->name, y->name) || x->clock_mhz != y->clock_mhz) return 0;
  for (size_t i = 0; i < NKEYS; i++)
    if (get_key(x, &arch_keys[i]) != get_key(y, &arch_keys[i])) return 0;
  return 1;
}
