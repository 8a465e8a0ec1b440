// binfmt.c: the program binary format, docs/BINARY.md (program.h: prog_write, prog_save,
// prog_read, prog_load). A fixed header with its own CRC, a table of typed sections (each with
// offset, sizes, flags and a CRC), then the sections back to back: ARCH (canonical JSON),
// CODE (16-byte instruction words), TENSORS, DATA (optionally deflated) and LAYERS.
// Every integer is little-endian and written byte by byte. The reader trusts no length: it
// checks magic, version, CRCs, bounds and layout before it looks inside a section, checks every
// record inside, and ends with prog_check() (progcheck.c), so a Program it returns is valid.
#include "program.h"

#include "fileio.h"
#include "fileread.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// ---- layout constants (docs/BINARY.md) ----

enum {
  HDR_BYTES = 64,             // fixed header; it starts with the 8 bytes of PROG_MAGIC
  HDR_VERSION_MAJOR = 8,      // u16
  HDR_VERSION_MINOR = 10,     // u16
  HDR_NSECT = 12,             // u32 section count
  HDR_FILE_BYTES = 16,        // u64 size of the whole file
  HDR_TABLE_OFF = 24,         // u64 offset of the section table (= HDR_BYTES)
  HDR_TABLE_CRC = 32,         // u32 CRC32 of the section table
  HDR_RESERVED = 36,          // 24 bytes, zero
  HDR_CRC = 60,               // u32 CRC32 of bytes [0, 60)
  ENT_BYTES = 48,             // one section table entry
  ENT_NAME = 0,               // 8 bytes, ASCII, NUL-padded
  ENT_KIND = 8,               // u32 SecKind
  ENT_FLAGS = 12,             // u32 SEC_DEFLATE
  ENT_OFFSET = 16,            // u64 file offset of the stored bytes
  ENT_STORED = 24,            // u64 stored bytes
  ENT_RAW = 32,               // u64 bytes after inflating (= stored when not deflated)
  ENT_CRC = 40,               // u32 CRC32 of the stored bytes
  ENT_RESERVED = 44,          // u32, zero
  MAX_SECTIONS = 16,          // entries in a table at most
  TENSOR_REC_BYTES = 192,     // one TENSORS record:
  TR_NAME = 0,                //   PROG_NAME_MAX bytes, NUL-terminated, zero-padded
  TR_DTYPE = 64,              //   u32 DType
  TR_ROLE = 68,               //   u32 TensorRole
  TR_NDIM = 72,               //   u32 1..PROG_MAX_DIMS
  TR_RESERVED = 76,           //   u32, zero
  TR_DIMS = 80,               //   u32 x PROG_MAX_DIMS
  TR_STRIDES = 112,           //   u64 x PROG_MAX_DIMS
  TR_ADDR = 176,              //   u64
  TR_SCALE = 184,             //   u64, IEEE 754 binary64 bits
  CHUNK_HDR_BYTES = 16,       // DATA: u64 addr, u64 len before each chunk's bytes
  MAX_CHUNKS = 1 << 20,       // DATA chunks at most
  MAX_ARCH_BYTES = 65536,     // ARCH JSON text at most
  DEFLATE_MAX_RATIO = 1032,   // deflate cannot expand a stored byte to more than this
  DATA_INFLATE_FREE = 16 << 20,   // DATA may inflate to this many bytes at any ratio,
  DATA_INFLATE_RATIO = 16,        // and past them to at most this many times its stored bytes
};

#define SEC_DEFLATE 1u        // entry flag: stored bytes are a zlib stream (compress2)

typedef enum { SEC_ARCH = 1, SEC_CODE, SEC_TENSORS, SEC_DATA, SEC_LAYERS, SEC_MACS, SEC_END } SecKind;
static const char *const sec_names[SEC_END] = {NULL, "ARCH", "CODE", "TENSORS", "DATA", "LAYERS", "MACS"};

// ---- little-endian integers, byte by byte ----

static void put_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get_u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static uint32_t crc_of(const uint8_t *p, size_t n) { return (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), p, n); }

// 1 when deflated bytes inflating to `raw` bytes are a bomb the format refuses (docs/BINARY.md §4):
// more than DATA_INFLATE_FREE bytes and more than DATA_INFLATE_RATIO times the stored bytes.
static int inflate_too_far(uint64_t stored, uint64_t raw) {
  return raw > DATA_INFLATE_FREE && (raw - 1) / DATA_INFLATE_RATIO >= stored;
}

// =====================================================================================
// Writer
// =====================================================================================

// A growing byte buffer; `oom` sticks once an allocation fails.
typedef struct {
  uint8_t *p;
  size_t len, cap;
  int oom;
} Buf;

// Makes room for n more bytes: one allocation for a buffer whose size the caller knows (DATA
// is tens of megabytes; growing it by doubling copied it and touched twice the pages).
static void buf_reserve(Buf *b, size_t n) {
  if (b->oom || b->cap - b->len >= n) return;
  uint8_t *np = n <= SIZE_MAX - b->len ? realloc(b->p, b->len + n) : NULL;
  if (!np) {
    b->oom = 1;
    return;
  }
  b->p = np;
  b->cap = b->len + n;
}

// Appends n bytes and returns them (not zeroed), or NULL when out of memory.
static uint8_t *buf_room(Buf *b, size_t n) {
  if (b->oom) return NULL;
  if (b->cap - b->len < n) {
    size_t nc = b->cap ? b->cap : 256;
    while (nc - b->len < n) {
      if (nc > SIZE_MAX / 2) {
        b->oom = 1;
        return NULL;
      }
      nc *= 2;
    }
    uint8_t *np = realloc(b->p, nc);
    if (!np) {
      b->oom = 1;
      return NULL;
    }
    b->p = np;
    b->cap = nc;
  }
  uint8_t *at = b->p + b->len;
  b->len += n;
  return at;
}

// Appends n zero bytes and returns them, or NULL when out of memory.
static uint8_t *buf_add(Buf *b, size_t n) {
  uint8_t *at = buf_room(b, n);
  if (at) memset(at, 0, n);
  return at;
}

static void buf_u32(Buf *b, uint32_t v) {
  uint8_t *at = buf_add(b, 4);
  if (at) put_u32(at, v);
}
static void buf_bytes(Buf *b, const void *src, size_t n) {
  uint8_t *at = buf_room(b, n);
  if (at && n) memcpy(at, src, n);
}
// A name field of PROG_NAME_MAX bytes at `at` (already zero): the string up to its NUL.
static void put_name(uint8_t *at, const char *name) {
  const char *nul = memchr(name, 0, PROG_NAME_MAX);
  memcpy(at, name, nul ? (size_t)(nul - name) : PROG_NAME_MAX);
}

static void write_tensors(const Program *p, Buf *b) {
  buf_reserve(b, 4 + (size_t)p->n_tensors * TENSOR_REC_BYTES);
  buf_u32(b, p->n_tensors);
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    const TensorInfo *t = &p->tensors[i];
    uint8_t *rec = buf_add(b, TENSOR_REC_BYTES);   // zeroed: padding and unused dims stay 0
    if (!rec) return;
    put_name(rec + TR_NAME, t->name);
    put_u32(rec + TR_DTYPE, (uint32_t)t->dtype);
    put_u32(rec + TR_ROLE, (uint32_t)t->role);
    put_u32(rec + TR_NDIM, t->ndim);
    for (uint32_t k = 0; k < PROG_MAX_DIMS && k < t->ndim; k++) {
      put_u32(rec + TR_DIMS + 4 * k, t->dims[k]);
      put_u64(rec + TR_STRIDES + 8 * k, t->strides[k]);
    }
    put_u64(rec + TR_ADDR, t->addr);
    uint64_t bits;
    memcpy(&bits, &t->scale, sizeof bits);
    put_u64(rec + TR_SCALE, bits);
  }
}

// Bytes [off, off + n) of the raw DATA section (the count, then each chunk's header and bytes),
// so that the writer can place DATA straight into the file, and sample it, without first
// building it in a buffer of its own (tens of megabytes: a copy and its page faults).
static void data_bytes(const Program *p, uint64_t off, uint8_t *dst, size_t n) {
  uint8_t hdr[CHUNK_HDR_BYTES];
  put_u32(hdr, p->n_chunks);
  uint64_t pos = 0, end = off + n;
  for (uint32_t i = 0; i <= p->n_chunks && pos < end; i++) {   // i = 0: the count; then chunk i - 1
    const uint8_t *part[2] = {hdr, NULL};
    uint64_t len[2] = {4, 0};
    if (i > 0) {
      const DataChunk *c = &p->chunks[i - 1];
      put_u64(hdr, c->addr);
      put_u64(hdr + 8, c->len);
      part[1] = c->bytes, len[0] = CHUNK_HDR_BYTES, len[1] = c->len;
    }
    for (int k = 0; k < 2; k++) {
      uint64_t lo = pos > off ? pos : off, hi = pos + len[k] < end ? pos + len[k] : end;
      if (lo < hi) memcpy(dst + (lo - off), part[k] + (lo - pos), (size_t)(hi - lo));
      pos += len[k];
    }
  }
}

static uint64_t data_raw_bytes(const Program *p) {
  uint64_t n = 4;
  for (uint32_t i = 0; i < p->n_chunks; i++)
    n = p->chunks[i].len > UINT64_MAX / 2 - n ? UINT64_MAX / 2 : n + CHUNK_HDR_BYTES + p->chunks[i].len;
  return n;
}

// MACS (format 1.1): the useful MACs of each layer, when the program declares them.
static void write_macs(const Program *p, Buf *b) {
  buf_u32(b, p->n_layers);
  for (uint32_t i = 0; i < p->n_layers; i++) {
    uint8_t *at = buf_add(b, 8);
    if (at) put_u64(at, p->layer_macs[i]);
  }
}

static void write_layers(const Program *p, Buf *b) {
  buf_u32(b, p->n_layers);
  for (uint32_t i = 0; i < p->n_layers; i++) {
    uint8_t *at = buf_add(b, PROG_NAME_MAX);
    if (at) put_name(at, p->layer_names[i]);
  }
}

// Deflate pays only where bytes repeat; seeded weights and inputs are nearly random (ResNet-50's
// 26 MB of DATA shrink by 1.8% at level 6, which took half of its compile time). A trial on
// DEFLATE_SLICES slices spread over a large section decides: deflate the whole only when the
// sample shrinks by at least 1/16. Deterministic, as the sample is.
enum { DEFLATE_SLICES = 16, DEFLATE_SLICE_BYTES = 16384 };
static int worth_deflating(const Program *p, size_t raw) {
  const size_t slice = DEFLATE_SLICE_BYTES, n = DEFLATE_SLICES * DEFLATE_SLICE_BYTES;
  if (raw <= 4 * n) return 1;   // small: deflating it all costs little
  uLong bound = compressBound((uLong)n);
  uint8_t *sample = malloc(n), *z = malloc(bound);
  int worth = 1;   // out of memory: let the real attempt decide
  if (sample && z) {
    for (size_t i = 0; i < DEFLATE_SLICES; i++)
      data_bytes(p, i * ((raw - slice) / (DEFLATE_SLICES - 1)), sample + i * slice, slice);
    uLongf zlen = bound;
    worth = compress2(z, &zlen, sample, (uLong)n, Z_DEFAULT_COMPRESSION) == Z_OK && zlen < n - n / 16;
  }
  free(sample);
  free(z);
  return worth;
}

// DATA deflated into b when that is worth it and smaller. Returns the entry flags: 0 leaves b
// empty (DATA goes into the file as it is).
static uint32_t deflate_data(const Program *p, size_t raw, Buf *b) {
  if (!worth_deflating(p, raw)) return 0;
  uint8_t *plain = malloc(raw);
  uLong bound = compressBound((uLong)raw);
  uint8_t *z = malloc(bound ? bound : 1);
  uLongf zlen = bound;
  int ok = plain && z;
  if (ok) data_bytes(p, 0, plain, raw);
  ok = ok && compress2(z, &zlen, plain, (uLong)raw, Z_DEFAULT_COMPRESSION) == Z_OK && zlen < raw &&
       !inflate_too_far(zlen, raw);   // the reader would refuse it: stored plain instead
  free(plain);
  if (!ok) {   // stored plain: still a valid file
    free(z);
    return 0;
  }
  b->p = z;
  b->len = b->cap = zlen;
  return SEC_DEFLATE;
}

// What the file holds, before a byte of it is placed: each section's stored bytes (its own
// buffer, or the Program's code and chunks as they are), sizes, flags and CRCs, and the
// header with the table. prog_write() copies it into one buffer; prog_save() writes it out
// piece by piece, so a 30 MB program is not first assembled in memory.
typedef struct {
  Buf sec[SEC_END];           // ARCH, TENSORS, LAYERS, MACS, and DATA when deflated
  int present[SEC_END];       // written (every kind but MACS always; MACS when declared)
  size_t head_len;            // bytes of head in use: the header and one entry per present section
  uint64_t raw[SEC_END];      // bytes after inflating
  uint64_t stored[SEC_END];   // bytes in the file
  uint32_t flags[SEC_END];    // SEC_DEFLATE
  uint8_t head[HDR_BYTES + (SEC_END - 1) * ENT_BYTES];   // header and section table
  size_t total;               // file bytes
} Layout;

typedef int (*PutFn)(void *ctx, const void *bytes, size_t n);   // 0, or -1 to stop

// Section k's stored bytes, in pieces.
static int emit_section(const Program *p, const Layout *l, int k, PutFn put, void *ctx) {
  if (k == SEC_CODE) return put(ctx, p->code, (size_t)p->n_insns * ISA_WORD_BYTES);
  if (k != SEC_DATA || l->flags[k]) return put(ctx, l->sec[k].p, l->sec[k].len);
  uint8_t hdr[CHUNK_HDR_BYTES];
  put_u32(hdr, p->n_chunks);
  if (put(ctx, hdr, 4)) return -1;
  for (uint32_t i = 0; i < p->n_chunks; i++) {
    put_u64(hdr, p->chunks[i].addr);
    put_u64(hdr + 8, p->chunks[i].len);
    if (put(ctx, hdr, CHUNK_HDR_BYTES) || put(ctx, p->chunks[i].bytes, (size_t)p->chunks[i].len)) return -1;
  }
  return 0;
}

static int put_crc(void *ctx, const void *bytes, size_t n) {
  uLong *crc = ctx;
  if (n) *crc = crc32_z(*crc, bytes, n);   // (a NULL buffer would make zlib return the initial value)
  return 0;
}

static void layout_free(Layout *l) {
  for (int k = 0; k < SEC_END; k++) free(l->sec[k].p);
}

// The oldest format version that carries the file (docs/BINARY.md §3): 1.4, since every ARCH
// section now names the global buffer's keys (gbuf.*), which a 1.3 reader rejects as unknown.
// (1.3 was written for the special-function unit, 1.2 for OVERLAP, 1.1 for a MACS section.)
static unsigned oldest_minor(void) { return 4; }

static int layout_build(const Program *p, int compress, Layout *l, Diag *d) {
  memset(l, 0, sizeof *l);
  if (p->n_chunks > MAX_CHUNKS)
    return diag_error(d, "prog_write: error: %u data chunks, the format holds at most %d", p->n_chunks, MAX_CHUNKS);
  char *json = arch_to_json(&p->arch);
  if (!json) return diag_error(d, "prog_write: error: out of memory");
  buf_bytes(&l->sec[SEC_ARCH], json, strlen(json));
  free(json);
  write_tensors(p, &l->sec[SEC_TENSORS]);
  write_layers(p, &l->sec[SEC_LAYERS]);
  for (int k = SEC_ARCH; k < SEC_END; k++) l->present[k] = k != SEC_MACS || (p->layer_macs && p->n_layers);
  if (l->present[SEC_MACS]) write_macs(p, &l->sec[SEC_MACS]);
  for (int k = SEC_ARCH; k < SEC_END; k++)
    if (l->sec[k].oom) return diag_error(d, "prog_write: error: out of memory");
  if (data_raw_bytes(p) > SIZE_MAX / 4) return diag_error(d, "prog_write: error: program too large");
  for (int k = SEC_ARCH; k < SEC_END; k++) l->raw[k] = l->sec[k].len;
  l->raw[SEC_CODE] = (uint64_t)p->n_insns * ISA_WORD_BYTES;
  l->raw[SEC_DATA] = data_raw_bytes(p);
  if (compress) l->flags[SEC_DATA] = deflate_data(p, (size_t)l->raw[SEC_DATA], &l->sec[SEC_DATA]);
  // Header, table, then the present sections in kind order, back to back.
  size_t nsect = 0;
  for (int k = SEC_ARCH; k < SEC_END; k++) nsect += (size_t)l->present[k];
  const size_t table_end = HDR_BYTES + nsect * ENT_BYTES;
  uint8_t *f = l->head;
  l->head_len = table_end;
  l->total = table_end;
  size_t entry = 0;
  for (int k = SEC_ARCH; k < SEC_END; k++) {
    if (!l->present[k]) continue;
    l->stored[k] = l->flags[k] ? l->sec[k].len : l->raw[k];
    if (l->stored[k] > SIZE_MAX - l->total) return diag_error(d, "prog_write: error: program too large");
    uint8_t *e = f + HDR_BYTES + entry++ * ENT_BYTES;
    memcpy(e + ENT_NAME, sec_names[k], strlen(sec_names[k]));
    put_u32(e + ENT_KIND, (uint32_t)k);
    put_u32(e + ENT_FLAGS, l->flags[k]);
    put_u64(e + ENT_OFFSET, l->total);
    put_u64(e + ENT_STORED, l->stored[k]);
    put_u64(e + ENT_RAW, l->raw[k]);
    uLong crc = crc32_z(0, Z_NULL, 0);
    emit_section(p, l, k, put_crc, &crc);
    put_u32(e + ENT_CRC, (uint32_t)crc);
    l->total += l->stored[k];
  }
  memcpy(f, PROG_MAGIC, 8);
  put_u16(f + HDR_VERSION_MAJOR, PROG_VERSION_MAJOR);
  put_u16(f + HDR_VERSION_MINOR, oldest_minor());
  put_u32(f + HDR_NSECT, (uint32_t)nsect);
  put_u64(f + HDR_FILE_BYTES, l->total);
  put_u64(f + HDR_TABLE_OFF, HDR_BYTES);
  put_u32(f + HDR_TABLE_CRC, crc_of(f + HDR_BYTES, table_end - HDR_BYTES));
  put_u32(f + HDR_CRC, crc_of(f, HDR_CRC));
  return 0;
}

// The whole file, piece by piece.
static int layout_emit(const Program *p, const Layout *l, PutFn put, void *ctx) {
  if (put(ctx, l->head, l->head_len)) return -1;
  for (int k = SEC_ARCH; k < SEC_END; k++)
    if (l->present[k] && emit_section(p, l, k, put, ctx)) return -1;
  return 0;
}

static int put_mem(void *ctx, const void *bytes, size_t n) {
  uint8_t **at = ctx;
  if (n) memcpy(*at, bytes, n);
  *at += n;
  return 0;
}

int prog_write(const Program *p, int compress, uint8_t **out, size_t *len, Diag *d) {
  *out = NULL;
  *len = 0;
  Layout l;
  int rc = layout_build(p, compress, &l, d);
  uint8_t *f = rc ? NULL : malloc(l.total);
  if (!rc && !f) rc = diag_error(d, "prog_write: error: out of memory");
  if (!rc) {
    uint8_t *at = f;
    layout_emit(p, &l, put_mem, &at);
    *out = f;
    *len = l.total;
  }
  layout_free(&l);
  return rc;
}

// Writes to an output file, gathering small pieces (chunk headers) into one write.
typedef struct {
  FileOut *out;
  int err;              // errno of a failed write
  size_t n;             // bytes gathered
  uint8_t buf[65536];
} FdSink;

static int sink_write(FdSink *s, const void *bytes, size_t n) {
  if (!file_out_write(s->out, bytes, n)) return 0;
  s->err = errno;
  return -1;
}

static int sink_flush(FdSink *s) {
  size_t n = s->n;
  s->n = 0;
  return sink_write(s, s->buf, n);
}

static int put_fd(void *ctx, const void *bytes, size_t n) {
  FdSink *s = ctx;
  if (n <= sizeof s->buf - s->n) {
    if (n) memcpy(s->buf + s->n, bytes, n);
    s->n += n;
    return 0;
  }
  return sink_flush(s) || sink_write(s, bytes, n);
}

int prog_save(const Program *p, const char *path, int compress, Diag *d) {
  Layout l;
  if (layout_build(p, compress, &l, d)) {
    layout_free(&l);
    return -1;
  }
  FdSink *sink = malloc(sizeof *sink);
  FileOut out;
  int rc = !sink ? diag_error(d, "%s: error: out of memory", path) : file_out_open(&out, path, 1, d);
  if (!rc) {
    *sink = (FdSink){.out = &out};
    int ok = !layout_emit(p, &l, put_fd, sink) && !sink_flush(sink);
    if (!ok) diag_error(d, "%s: error: cannot write: %s", path, strerror(sink->err));
    rc = file_out_close(&out, ok, d);
  }
  free(sink);
  layout_free(&l);
  return rc;
}

// =====================================================================================
// Reader
// =====================================================================================

typedef struct {
  const uint8_t *buf;   // the whole file
  size_t len;
  const char *file;     // for messages
  Diag *d;
  uint8_t *own;         // buf again when the Program may keep it (prog_load), else NULL
  int own_is_map;       // own is a file mapping (file_map), not malloc'd
} Reader;


typedef struct {
  SecKind kind;
  int present;          // the table has an entry of this kind
  uint32_t entry;       // its index in the table
  uint32_t flags;       // SEC_DEFLATE
  uint64_t offset, stored, raw;
  uint32_t crc;         // of the stored bytes
  const uint8_t *data;  // the raw bytes, once section_bytes() succeeded
  uint8_t *inflated;    // owned, when the section is deflated
} Section;

static int err_at(const Reader *r, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int err_sec(const Reader *r, const Section *s, uint64_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

// An error at a file offset: "file: +0x1c0: error: ...".
static int err_at(const Reader *r, uint64_t off, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return diag_error(r->d, "%s: +0x%llx: error: %s", r->file, (unsigned long long)off, msg);
}

// The location of byte `pos` of a section's raw contents: its file offset, or for a deflated
// section the section's offset and the position inside the inflated bytes.
static void sec_loc(const Section *s, uint64_t pos, char *out, size_t n) {
  if (s->flags & SEC_DEFLATE)
    snprintf(out, n, "+0x%llx (inflated +0x%llx)", (unsigned long long)s->offset, (unsigned long long)pos);
  else
    snprintf(out, n, "+0x%llx", (unsigned long long)(s->offset + pos));
}

// An error at byte `pos` of a section's raw contents: "file: +0x1c0: error: section CODE: ...".
static int err_sec(const Reader *r, const Section *s, uint64_t pos, const char *fmt, ...) {
  char loc[64], msg[400];
  sec_loc(s, pos, loc, sizeof loc);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return diag_error(r->d, "%s: %s: error: section %s: %s", r->file, loc, sec_names[s->kind], msg);
}

// A file that is not a program: "bad magic", with a note when it looks like assembly (its name
// ends in .s, or it starts with text that is not a mangled magic) saying to assemble it first.
static int bad_magic(const Reader *r) {
  err_at(r, 0, "bad magic (not a sacc program)");
  size_t name_len = strlen(r->file), n = r->len < 64 ? r->len : 64;
  int dot_s = name_len > 2 && !strcmp(r->file + name_len - 2, ".s");
  int text = n > 0 && memcmp(r->buf, "SAPROG", n < 6 ? n : 6);
  for (size_t i = 0; i < n && text; i++)
    text = (r->buf[i] >= 0x20 && r->buf[i] < 0x7f) || r->buf[i] == '\n' || r->buf[i] == '\t' || r->buf[i] == '\r';
  if (!dot_s && !text) return -1;
  int is_stdin = !strcmp(r->file, "-");
  const char *src = is_stdin ? "PROG.s" : r->file;   // the assembly, and the binary's name stem
  int stem = is_stdin ? 4 : dot_s ? (int)name_len - 2 : (int)name_len;
  diag_error(r->d, "%s: note: an assembly file? run `sasim asm %s -o %.*s.bin` first, or `sasim check %s`", r->file, src,
             stem, src, src);
  return -1;
}

// Header: magic, version, CRC, reserved bytes, section count, table position and CRC.
// The 64-byte header alone (magic, version, CRC, reserved bytes, section count, table offset).
static int read_header_fixed(const Reader *r, uint32_t *nsect, uint64_t *file_bytes) {
  size_t n = r->len < 8 ? r->len : 8;
  if (n && memcmp(r->buf, PROG_MAGIC, n)) return bad_magic(r);
  if (r->len < HDR_BYTES)
    return err_at(r, r->len, "truncated: header needs 0x%x bytes, file has 0x%zx", HDR_BYTES, r->len);
  const uint8_t *h = r->buf;
  unsigned major = get_u16(h + HDR_VERSION_MAJOR), minor = get_u16(h + HDR_VERSION_MINOR);
  if (major > PROG_VERSION_MAJOR)
    return err_at(r, HDR_VERSION_MAJOR, "format version %u.%u is newer than this reader's %d.%d; use a newer sasim or recompile",
                  major, minor, PROG_VERSION_MAJOR, PROG_VERSION_MINOR);
  if (major < 1) return err_at(r, HDR_VERSION_MAJOR, "format version %u.%u is not supported (the oldest is 1.0)", major, minor);
  uint32_t stored = get_u32(h + HDR_CRC), computed = crc_of(h, HDR_CRC);
  if (stored != computed)
    return err_at(r, HDR_CRC, "header crc mismatch (stored 0x%08x, computed 0x%08x)", stored, computed);
  for (int i = HDR_RESERVED; i < HDR_CRC; i++)
    if (h[i]) return err_at(r, (uint64_t)i, "reserved header byte is not zero");
  *nsect = get_u32(h + HDR_NSECT);
  *file_bytes = get_u64(h + HDR_FILE_BYTES);
  if (*nsect < 1 || *nsect > MAX_SECTIONS)
    return err_at(r, HDR_NSECT, "%u sections (expected 1 to %d)", *nsect, MAX_SECTIONS);
  uint64_t table_off = get_u64(h + HDR_TABLE_OFF);
  if (table_off != HDR_BYTES)
    return err_at(r, HDR_TABLE_OFF, "section table at 0x%llx, expected 0x%x (right after the header)",
                  (unsigned long long)table_off, HDR_BYTES);
  return 0;
}

static int read_header(const Reader *r, uint32_t *nsect, uint64_t *file_bytes) {
  if (read_header_fixed(r, nsect, file_bytes)) return -1;
  const uint8_t *h = r->buf;
  uint64_t table_end = HDR_BYTES + (uint64_t)*nsect * ENT_BYTES;
  if (r->len < table_end)
    return err_at(r, r->len, "truncated: section table needs 0x%llx bytes, file has 0x%zx",
                  (unsigned long long)table_end, r->len);
  uint32_t stored = get_u32(h + HDR_TABLE_CRC);
  uint32_t computed = crc_of(r->buf + HDR_BYTES, (size_t)(table_end - HDR_BYTES));
  if (stored != computed)
    return err_at(r, HDR_BYTES, "section table crc mismatch (stored 0x%08x, computed 0x%08x)", stored, computed);
  return 0;
}

// One table entry into sec[kind]: known kind named as such, no duplicate, sane flags and sizes,
// stored bytes inside the file.
static int read_entry(const Reader *r, uint32_t i, Section sec[SEC_END]) {
  uint64_t eo = HDR_BYTES + (uint64_t)i * ENT_BYTES;
  const uint8_t *e = r->buf + eo;
  uint32_t kind = get_u32(e + ENT_KIND);
  if (kind < SEC_ARCH || kind >= SEC_END) return err_at(r, eo + ENT_KIND, "unknown section kind %u", kind);
  Section *s = &sec[kind];
  const char *name = sec_names[kind];
  if (s->present) return err_at(r, eo, "duplicate section %s (also table entry %u)", name, s->entry);
  uint8_t want[8] = {0};
  memcpy(want, name, strlen(name));
  if (memcmp(e + ENT_NAME, want, sizeof want)) {
    char shown[9] = {0};
    for (int k = 0; k < 8 && e[k]; k++) shown[k] = e[k] >= 0x20 && e[k] < 0x7f ? (char)e[k] : '?';
    return err_at(r, eo, "section of kind %u (%s) is named \"%s\"", kind, name, shown);
  }
  *s = (Section){.kind = (SecKind)kind, .present = 1, .entry = i, .flags = get_u32(e + ENT_FLAGS),
                 .offset = get_u64(e + ENT_OFFSET), .stored = get_u64(e + ENT_STORED),
                 .raw = get_u64(e + ENT_RAW), .crc = get_u32(e + ENT_CRC)};
  if (s->flags & ~SEC_DEFLATE) return err_at(r, eo + ENT_FLAGS, "section %s: unknown flags 0x%x", name, s->flags);
  // Only DATA may be deflated: then every other structure's memory stays proportional to the
  // file's size (an instruction decodes to a few hundred bytes; a deflated CODE section could
  // otherwise turn 100 KB into gigabytes).
  if ((s->flags & SEC_DEFLATE) && kind != SEC_DATA)
    return err_at(r, eo + ENT_FLAGS, "section %s: only the DATA section may be deflated", name);
  if (get_u32(e + ENT_RESERVED)) return err_at(r, eo + ENT_RESERVED, "section %s: reserved field is not zero", name);
  if (s->offset > r->len || s->stored > r->len - s->offset) {
    uint64_t need = s->offset + s->stored < s->offset ? UINT64_MAX : s->offset + s->stored;
    return err_at(r, s->offset, "truncated: section %s needs 0x%llx bytes, file has 0x%zx", name,
                  (unsigned long long)need, r->len);
  }
  if (!(s->flags & SEC_DEFLATE) && s->raw != s->stored)
    return err_at(r, eo + ENT_RAW, "section %s: raw size 0x%llx differs from its stored size 0x%llx (not deflated)",
                  name, (unsigned long long)s->raw, (unsigned long long)s->stored);
  if ((s->flags & SEC_DEFLATE) && s->raw && (s->raw - 1) / DEFLATE_MAX_RATIO >= s->stored)
    return err_at(r, eo + ENT_RAW, "section %s: raw size 0x%llx is impossible for 0x%llx deflated bytes", name,
                  (unsigned long long)s->raw, (unsigned long long)s->stored);
  return 0;
}

// The section table, then the layout: header, table and sections tile the file exactly
// (no overlap, no gap, nothing after), then every section's CRC.
static int read_table(const Reader *r, uint32_t nsect, uint64_t file_bytes, Section sec[SEC_END]) {
  for (uint32_t i = 0; i < nsect; i++)
    if (read_entry(r, i, sec)) return -1;
  if (r->len < file_bytes)
    return err_at(r, r->len, "truncated: header says the file has 0x%llx bytes, file has 0x%zx",
                  (unsigned long long)file_bytes, r->len);
  if (r->len > file_bytes)
    return err_at(r, file_bytes, "0x%llx bytes after the end of the file (the header says it has 0x%llx)",
                  (unsigned long long)(r->len - file_bytes), (unsigned long long)file_bytes);
  for (int k = SEC_ARCH; k <= SEC_CODE; k++)
    if (!sec[k].present) return err_at(r, HDR_BYTES, "no %s section", sec_names[k]);
  const Section *order[SEC_END];   // present sections by offset (insertion sort: at most 5)
  int n = 0;
  for (int k = SEC_ARCH; k < SEC_END; k++) {
    if (!sec[k].present) continue;
    int j = n++;
    for (; j > 0 && order[j - 1]->offset > sec[k].offset; j--) order[j] = order[j - 1];
    order[j] = &sec[k];
  }
  uint64_t end = HDR_BYTES + (uint64_t)nsect * ENT_BYTES;
  for (int j = 0; j < n; j++) {
    const Section *s = order[j];
    if (s->offset < end) {
      if (j == 0)
        return err_at(r, s->offset, "section %s overlaps the %s", sec_names[s->kind],
                      s->offset < HDR_BYTES ? "header" : "section table");
      return err_at(r, s->offset, "section %s overlaps section %s (0x%llx bytes at 0x%llx)", sec_names[s->kind],
                    sec_names[order[j - 1]->kind], (unsigned long long)order[j - 1]->stored,
                    (unsigned long long)order[j - 1]->offset);
    }
    if (s->offset > end)
      return err_at(r, end, "0x%llx unused bytes before section %s", (unsigned long long)(s->offset - end),
                    sec_names[s->kind]);
    end = s->offset + s->stored;
  }
  if (end != file_bytes)
    return err_at(r, end, "0x%llx unused bytes after the last section", (unsigned long long)(file_bytes - end));
  for (int k = SEC_ARCH; k < SEC_END; k++) {
    const Section *s = &sec[k];
    if (!s->present) continue;
    uint32_t computed = crc_of(r->buf + s->offset, (size_t)s->stored);
    if (computed != s->crc)
      return err_at(r, s->offset, "section %s: crc mismatch (stored 0x%08x, computed 0x%08x)", sec_names[k], s->crc,
                    computed);
  }
  return 0;
}

// Makes s->data point at the raw bytes, inflating a deflated section into s->inflated. The raw
// size must not exceed `limit` nor inflate_too_far(), and must be exactly what the stream inflates to.
static int section_bytes(const Reader *r, Section *s, uint64_t limit) {
  const char *name = sec_names[s->kind];
  if (s->raw > limit)
    return err_at(r, s->offset, "section %s: raw size 0x%llx exceeds the limit 0x%llx", name,
                  (unsigned long long)s->raw, (unsigned long long)limit);
  if ((s->flags & SEC_DEFLATE) && inflate_too_far(s->stored, s->raw))
    return err_at(r, s->offset,
                  "section %s: 0x%llx deflated bytes would inflate to 0x%llx, more than %d times and more than %d MiB "
                  "(a deflate bomb; such data must be stored plain)",
                  name, (unsigned long long)s->stored, (unsigned long long)s->raw, DATA_INFLATE_RATIO,
                  DATA_INFLATE_FREE >> 20);
  const uint8_t *src = r->buf + s->offset;
  if (!(s->flags & SEC_DEFLATE)) {
    s->data = src;
    return 0;
  }
  if (s->raw > (uLong)-1 || s->stored > (uLong)-1)
    return err_at(r, s->offset, "section %s: too large for zlib on this host", name);
  s->inflated = malloc(s->raw ? (size_t)s->raw : 1);
  if (!s->inflated) return err_at(r, s->offset, "section %s: out of memory", name);
  uLongf out_len = (uLongf)s->raw;
  uLong in_len = (uLong)s->stored;
  int zr = uncompress2(s->inflated, &out_len, src, &in_len);
  if (zr == Z_BUF_ERROR)
    return err_at(r, s->offset, "section %s: inflates to more than its raw size 0x%llx", name,
                  (unsigned long long)s->raw);
  if (zr == Z_MEM_ERROR) return err_at(r, s->offset, "section %s: out of memory", name);
  if (zr != Z_OK) return err_at(r, s->offset, "section %s: corrupt deflate stream (%s)", name, zError(zr));
  if (out_len != s->raw)
    return err_at(r, s->offset, "section %s: inflates to 0x%llx bytes, its raw size says 0x%llx", name,
                  (unsigned long long)out_len, (unsigned long long)s->raw);
  if (in_len != s->stored)
    return err_at(r, s->offset, "section %s: 0x%llx stored bytes after the end of the deflate stream", name,
                  (unsigned long long)(s->stored - in_len));
  s->data = s->inflated;
  return 0;
}

static int read_arch(const Reader *r, Section *s, Arch *a) {
  if (section_bytes(r, s, MAX_ARCH_BYTES)) return -1;
  char loc[64], label[512];
  sec_loc(s, 0, loc, sizeof loc);
  snprintf(label, sizeof label, "%s: %s: section ARCH", r->file, loc);
  if (arch_parse((const char *)s->data, (size_t)s->raw, label, a, r->d)) return -1;
  // Before 1.4 the machine had no global buffer: a missing gbuf.bytes means none, not the default's.
  if (get_u16(r->buf + HDR_VERSION_MAJOR) == 1 && get_u16(r->buf + HDR_VERSION_MINOR) < 4) a->gbuf_bytes = 0;
  return 0;
}

static int read_code(const Reader *r, Section *s, Program *p) {
  if (section_bytes(r, s, (uint64_t)UINT32_MAX * ISA_WORD_BYTES)) return -1;
  if (s->raw % ISA_WORD_BYTES)
    return err_sec(r, s, s->raw - s->raw % ISA_WORD_BYTES, "0x%llx bytes are not a whole number of %d-byte words",
                   (unsigned long long)s->raw, ISA_WORD_BYTES);
  uint32_t n = (uint32_t)(s->raw / ISA_WORD_BYTES);
  if (prog_reserve_insns(p, n)) return err_sec(r, s, 0, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    Insn in;
    const uint8_t *word = s->data + (size_t)i * ISA_WORD_BYTES;
    if (isa_decode(word, &in, "", NULL)) {   // the place is formatted only for a bad word
      char loc[64], where[512];
      sec_loc(s, (uint64_t)i * ISA_WORD_BYTES, loc, sizeof loc);
      snprintf(where, sizeof where, "%s: %s (insn %u)", r->file, loc, i);
      return isa_decode(word, &in, where, r->d);
    }
  }
  if (n) memcpy(p->code, s->data, (size_t)n * ISA_WORD_BYTES);   // checked words are kept as they are
  p->n_insns = n;
  return 0;
}

// A name field at pos: NUL-terminated inside its PROG_NAME_MAX bytes, zeros after the NUL.
static int check_name(const Reader *r, const Section *s, uint64_t pos, const char *what, uint32_t i) {
  const uint8_t *name = s->data + pos;
  const uint8_t *nul = memchr(name, 0, PROG_NAME_MAX);
  if (!nul) return err_sec(r, s, pos, "%s %u: name is not NUL-terminated", what, i);
  for (const uint8_t *c = nul; c < name + PROG_NAME_MAX; c++)
    if (*c) return err_sec(r, s, pos + (uint64_t)(c - name), "%s %u: bytes after the name are not zero", what, i);
  return 0;
}

// A count (u32) of fixed-size records that must fill the section exactly. Returns -1 or 0.
static int read_count(const Reader *r, const Section *s, uint64_t rec_bytes, const char *what, uint32_t *n) {
  if (s->raw < 4) return err_sec(r, s, 0, "0x%llx bytes, too short for the %s count", (unsigned long long)s->raw, what);
  *n = get_u32(s->data);
  if (s->raw != 4 + *n * rec_bytes)
    return err_sec(r, s, 0, "%u %ss take 0x%llx bytes, the section has 0x%llx", *n, what,
                   (unsigned long long)(4 + *n * rec_bytes), (unsigned long long)s->raw);
  return 0;
}

static int read_tensors(const Reader *r, Section *s, Program *p) {
  if (section_bytes(r, s, 4 + (uint64_t)UINT32_MAX * TENSOR_REC_BYTES)) return -1;
  uint32_t n = 0;
  if (read_count(r, s, TENSOR_REC_BYTES, "tensor", &n)) return -1;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t pos = 4 + (uint64_t)i * TENSOR_REC_BYTES;
    const uint8_t *rec = s->data + pos;
    if (check_name(r, s, pos + TR_NAME, "tensor", i)) return -1;
    TensorInfo t;
    memset(&t, 0, sizeof t);
    memcpy(t.name, rec + TR_NAME, PROG_NAME_MAX);
    uint32_t dtype = get_u32(rec + TR_DTYPE), role = get_u32(rec + TR_ROLE);
    t.ndim = get_u32(rec + TR_NDIM);
    if (dtype != DT_INT8 && dtype != DT_INT32)
      return err_sec(r, s, pos + TR_DTYPE, "tensor \"%s\": invalid dtype %u", t.name, dtype);
    if (role < ROLE_INPUT || role > ROLE_SCRATCH)
      return err_sec(r, s, pos + TR_ROLE, "tensor \"%s\": invalid role %u", t.name, role);
    if (t.ndim < 1 || t.ndim > PROG_MAX_DIMS)
      return err_sec(r, s, pos + TR_NDIM, "tensor \"%s\": ndim %u out of range [1, %d]", t.name, t.ndim, PROG_MAX_DIMS);
    if (get_u32(rec + TR_RESERVED)) return err_sec(r, s, pos + TR_RESERVED, "tensor \"%s\": reserved field is not zero", t.name);
    t.dtype = (DType)dtype;
    t.role = (TensorRole)role;
    for (uint32_t k = 0; k < PROG_MAX_DIMS; k++) {
      uint32_t dim = get_u32(rec + TR_DIMS + 4 * k);
      uint64_t stride = get_u64(rec + TR_STRIDES + 8 * k);
      if (k >= t.ndim && (dim || stride))
        return err_sec(r, s, pos + TR_DIMS + 4 * k, "tensor \"%s\": dimension %u beyond ndim %u is not zero", t.name, k,
                       t.ndim);
      t.dims[k] = dim;
      t.strides[k] = stride;
    }
    t.addr = get_u64(rec + TR_ADDR);
    uint64_t bits = get_u64(rec + TR_SCALE);
    memcpy(&t.scale, &bits, sizeof t.scale);
    if (prog_add_tensor(p, &t)) return err_sec(r, s, pos, "out of memory");
  }
  return 0;
}

static int read_data(const Reader *r, Section *s, Program *p) {
  if (section_bytes(r, s, 4 + (uint64_t)MAX_CHUNKS * CHUNK_HDR_BYTES + p->arch.dram_bytes)) return -1;
  // The chunks' bytes stay where they are, in the inflated section or in the loaded file, which
  // the Program then owns: tens of megabytes are not copied (and their pages not touched) again.
  const uint8_t *base = s->inflated ? s->inflated : r->buf;
  uint8_t *store = s->inflated ? s->inflated : r->own;
  if (store) {
    p->data_store = store;
    p->data_store_map = s->inflated || !r->own_is_map ? 0 : r->len;
    if (s->inflated) s->inflated = NULL;
  }
  if (s->raw < 4) return err_sec(r, s, 0, "0x%llx bytes, too short for the chunk count", (unsigned long long)s->raw);
  uint32_t n = get_u32(s->data);
  if (n > MAX_CHUNKS) return err_sec(r, s, 0, "%u chunks (at most %d)", n, MAX_CHUNKS);
  uint64_t pos = 4;
  for (uint32_t i = 0; i < n; i++) {
    if (s->raw - pos < CHUNK_HDR_BYTES)
      return err_sec(r, s, pos, "chunk %u: header needs 0x%x bytes, 0x%llx are left", i, CHUNK_HDR_BYTES,
                     (unsigned long long)(s->raw - pos));
    uint64_t addr = get_u64(s->data + pos), len = get_u64(s->data + pos + 8);
    pos += CHUNK_HDR_BYTES;
    if (len > s->raw - pos)
      return err_sec(r, s, pos - 8, "chunk %u: 0x%llx bytes, but 0x%llx are left", i, (unsigned long long)len,
                     (unsigned long long)(s->raw - pos));
    if (store ? prog_add_stored_data(p, addr, store + (s->data - base) + pos, len)
              : prog_add_data(p, addr, s->data + pos, len))
      return err_sec(r, s, pos, "out of memory");
    pos += len;
  }
  if (pos != s->raw)
    return err_sec(r, s, pos, "0x%llx bytes after the last chunk", (unsigned long long)(s->raw - pos));
  return 0;
}

static int read_layers(const Reader *r, Section *s, Program *p) {
  if (section_bytes(r, s, 4 + (uint64_t)UINT32_MAX * PROG_NAME_MAX)) return -1;
  uint32_t n = 0;
  if (read_count(r, s, PROG_NAME_MAX, "layer", &n)) return -1;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t pos = 4 + (uint64_t)i * PROG_NAME_MAX;
    if (check_name(r, s, pos, "layer", i)) return -1;
    if (prog_add_layer(p, (const char *)s->data + pos)) return err_sec(r, s, pos, "out of memory");
  }
  return 0;
}

// MACS: one u64 per layer of the LAYERS section, whose sum fits 63 bits.
static int read_macs(const Reader *r, Section *s, Program *p) {
  if (section_bytes(r, s, 4 + (uint64_t)UINT32_MAX * 8)) return -1;
  uint32_t n = 0;
  if (read_count(r, s, 8, "layer", &n)) return -1;
  if (n != p->n_layers)
    return err_sec(r, s, 0, "useful MACs of %u layers, but the program has %u (section LAYERS)", n, p->n_layers);
  uint64_t *macs = malloc((n ? n : 1) * sizeof *macs), total = 0;
  if (!macs) return err_sec(r, s, 0, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    macs[i] = get_u64(s->data + 4 + (uint64_t)i * 8);
    if (macs[i] > INT64_MAX - total) {
      free(macs);
      return err_sec(r, s, 4 + (uint64_t)i * 8, "layer %u: the useful MACs add up past 2^63", i);
    }
    total += macs[i];
  }
  int rc = prog_set_layer_macs(p, macs);
  free(macs);
  return rc ? err_sec(r, s, 0, "out of memory") : 0;
}

// The static checks, instructions first so that their messages carry the byte offset.
static int check_program(const Reader *r, const Section *code, const Program *p) {
  ProgCheckState st;
  memset(&st, 0, sizeof st);
  for (uint32_t i = 0; i < p->n_insns; i++) {
    ProgCheckState before = st;
    Insn in = prog_insn(p, i);
    if (!prog_check_insn(p, &st, &in, "", NULL)) continue;   // the place is formatted only when bad
    char loc[64], where[512];
    sec_loc(code, (uint64_t)i * ISA_WORD_BYTES, loc, sizeof loc);
    snprintf(where, sizeof where, "%s: %s (insn %u)", r->file, loc, i);
    return prog_check_insn(p, &before, &in, where, r->d);
  }
  return prog_check_rest(p, &st, r->file, r->d);
}

// prog_read; with `own` (= buf), the Program may keep buf for its chunks (then *kept is 1).
static int read_program(const uint8_t *buf, size_t len, uint8_t *own, int own_is_map, const char *file,
                        Program **out, int *kept, Diag *d) {
  *out = NULL;
  Reader r = {buf, len, file, d, own, own_is_map};
  Section sec[SEC_END];
  memset(sec, 0, sizeof sec);
  Program *p = NULL;
  uint32_t nsect = 0;
  uint64_t file_bytes = 0;
  Arch arch;
  int rc = read_header(&r, &nsect, &file_bytes);
  if (!rc) rc = read_table(&r, nsect, file_bytes, sec);
  if (!rc) rc = read_arch(&r, &sec[SEC_ARCH], &arch);
  if (!rc && !(p = prog_new(&arch))) rc = diag_error(d, "%s: error: out of memory", file);
  if (!rc) rc = read_code(&r, &sec[SEC_CODE], p);
  if (!rc && sec[SEC_TENSORS].present) rc = read_tensors(&r, &sec[SEC_TENSORS], p);
  if (!rc && sec[SEC_DATA].present) rc = read_data(&r, &sec[SEC_DATA], p);
  if (!rc && sec[SEC_LAYERS].present) rc = read_layers(&r, &sec[SEC_LAYERS], p);
  if (!rc && sec[SEC_MACS].present) rc = read_macs(&r, &sec[SEC_MACS], p);
  if (!rc) rc = check_program(&r, &sec[SEC_CODE], p);
  for (int k = 0; k < SEC_END; k++) free(sec[k].inflated);
  *kept = p && own && p->data_store == own;
  if (rc) {
    prog_free(p);
    return -1;
  }
  *out = p;
  return 0;
}

int prog_read(const uint8_t *buf, size_t len, const char *file, Program **out, Diag *d) {
  int kept;
  return read_program(buf, len, NULL, 0, file, out, &kept, d);
}

// prog_load's head check for a stream (isa/fileread.h): the header, before more is read; then
// the file may be no longer than the header's file_bytes (`cat /dev/zero | sasim run -` stops
// at the magic, a stream longer than its header says at that size).
static long long prog_head(const uint8_t *buf, size_t n, int at_eof, size_t *max_bytes, void *ctx, const char *path,
                           Diag *d) {
  (void)at_eof, (void)ctx;
  Reader r = {buf, n, path, d, NULL, 0};
  uint32_t nsect;
  uint64_t file_bytes;
  if (n < HDR_BYTES) {   // a short file: the magic on what there is, the rest is read_program's
    size_t k = n < 8 ? n : 8;
    return k && memcmp(buf, PROG_MAGIC, k) ? bad_magic(&r) : 0;
  }
  if (read_header_fixed(&r, &nsect, &file_bytes)) return -1;
  if (file_bytes < *max_bytes) *max_bytes = file_bytes < HDR_BYTES ? HDR_BYTES : (size_t)file_bytes;
  return 0;
}

int prog_load(const char *path, Program **out, Diag *d) {
  *out = NULL;
  uint8_t *buf;
  size_t len;
  Diag quiet;   // a file that cannot be mapped (empty, say) is read, and reported, the usual way
  diag_init(&quiet);
  int mapped = strcmp(path, "-") && file_map(path, &buf, &len, &quiet) == 0;   // "-": stdin, never a file named -
  FileReadLimits lim = {SIZE_MAX, "its header gives", HDR_BYTES, prog_head, NULL};
  if (!mapped && file_read_limited(path, &lim, &buf, &len, d)) return -1;
  int kept = 0;
  int rc = read_program(buf, len, buf, mapped, path, out, &kept, d);
  if (!kept) mapped ? file_unmap(buf, len) : free(buf);
  return rc;
}
