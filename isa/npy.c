// npy.c: reads and writes NumPy .npy files (npy.h). Reads format versions 1.0, 2.0 and 3.0
// (the header is a Python dict literal: 'descr', 'fortran_order', 'shape', each once, parsed
// strictly as numpy writes them: printable ASCII strings, descr '<i4'-like with no sign, space or
// leading zero in its size, dimensions without sign or leading zero); writes 1.0.
// Only C-order arrays of little-endian (or byte-order-free) i1 u1 i2 i4 i8 f4 f8 are accepted;
// anything else is refused with a message naming the file. Conversions to other types are the
// caller's business (the assembler checks that values convert exactly).
#include "npy.h"

#include "fileio.h"
#include "fileread.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_DIMS 8

static const struct {
  char kind;       // descr kind letter
  unsigned size;   // bytes
  NpyType type;
} npy_types[] = {
    {'i', 1, NPY_I8}, {'u', 1, NPY_U8}, {'i', 2, NPY_I16}, {'i', 4, NPY_I32},
    {'i', 8, NPY_I64}, {'f', 4, NPY_F32}, {'f', 8, NPY_F64},
};
#define NPY_NUM_TYPES (sizeof npy_types / sizeof npy_types[0])

size_t npy_type_size(NpyType t) {
  for (size_t i = 0; i < NPY_NUM_TYPES; i++)
    if (npy_types[i].type == t) return npy_types[i].size;
  return 0;
}

static const char *npy_descr(NpyType t) {
  switch (t) {
  case NPY_I8: return "|i1";
  case NPY_U8: return "|u1";
  case NPY_I16: return "<i2";
  case NPY_I32: return "<i4";
  case NPY_I64: return "<i8";
  case NPY_F32: return "<f4";
  case NPY_F64: return "<f8";
  }
  return NULL;
}

void npy_free(NpyArray *a) {
  if (!a) return;
  free(a->data);
  a->data = NULL;
}

static int host_is_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

// Reverses the bytes of each of n elements of `size` bytes (big-endian hosts only).
static void swap_elements(uint8_t *p, uint64_t n, size_t size) {
  for (uint64_t i = 0; i < n; i++, p += size)
    for (size_t a = 0, b = size - 1; a < b; a++, b--) {
      uint8_t t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

// ---- The header dict: {'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), } ----

typedef struct {
  const char *s;      // header text
  size_t len, pos;    // its length and the read position
} HdrScan;

static void hdr_skip_space(HdrScan *h) {
  while (h->pos < h->len && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' || h->s[h->pos] == '\n' ||
                             h->s[h->pos] == '\r'))
    h->pos++;
}

static int hdr_accept(HdrScan *h, char c) {
  hdr_skip_space(h);
  if (h->pos < h->len && h->s[h->pos] == c) {
    h->pos++;
    return 1;
  }
  return 0;
}

// A quoted Python string without escapes, copied into out (NUL-terminated). 0 or -1.
static int hdr_string(HdrScan *h, char *out, size_t cap) {
  hdr_skip_space(h);
  if (h->pos >= h->len || (h->s[h->pos] != '\'' && h->s[h->pos] != '"')) return -1;
  char q = h->s[h->pos++];
  size_t n = 0;
  while (h->pos < h->len && h->s[h->pos] != q) {   // printable ASCII: no escape, no NUL, no control
    unsigned char c = (unsigned char)h->s[h->pos];
    if (c == '\\' || c < 0x20 || c > 0x7e || n + 1 >= cap) return -1;
    out[n++] = h->s[h->pos++];
  }
  if (h->pos >= h->len) return -1;
  h->pos++;
  out[n] = 0;
  return 0;
}

// A word of letters (True, False). 0 or -1.
static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static int hdr_word(HdrScan *h, char *out, size_t cap) {
  hdr_skip_space(h);
  size_t n = 0;
  while (h->pos < h->len && is_letter(h->s[h->pos])) {
    if (n + 1 >= cap) return -1;
    out[n++] = h->s[h->pos++];
  }
  out[n] = 0;
  return n ? 0 : -1;
}

// A non-negative integer as Python writes it: digits, no sign, no leading zero (Python 2 may
// append 'L'). 0 or -1.
static int hdr_uint(HdrScan *h, uint64_t *v) {
  hdr_skip_space(h);
  if (h->pos >= h->len || h->s[h->pos] < '0' || h->s[h->pos] > '9') return -1;
  if (h->s[h->pos] == '0' && h->pos + 1 < h->len && h->s[h->pos + 1] >= '0' && h->s[h->pos + 1] <= '9') return -1;
  uint64_t x = 0;
  while (h->pos < h->len && h->s[h->pos] >= '0' && h->s[h->pos] <= '9') {
    unsigned dgt = (unsigned)(h->s[h->pos++] - '0');
    if (x > (UINT64_MAX - dgt) / 10) return -1;
    x = x * 10 + dgt;
  }
  if (h->pos < h->len && h->s[h->pos] == 'L') h->pos++;
  *v = x;
  return 0;
}

// The shape tuple "(d0, d1, ...)", "(d0,)" or "()". 0 or -1 with a message.
static int hdr_shape(HdrScan *h, NpyArray *out, const char *file, Diag *d) {
  if (!hdr_accept(h, '(')) return diag_error(d, "%s: error: npy header: 'shape' is not a tuple", file);
  out->ndim = 0;
  if (hdr_accept(h, ')')) return 0;
  for (;;) {
    uint64_t v;
    if (hdr_uint(h, &v)) return diag_error(d, "%s: error: npy header: bad dimension in 'shape'", file);
    if (out->ndim == NPY_MAX_DIMS)
      return diag_error(d, "%s: error: npy array has more than %d dimensions", file, NPY_MAX_DIMS);
    out->dims[out->ndim++] = v;
    if (hdr_accept(h, ')')) return 0;
    if (!hdr_accept(h, ',')) return diag_error(d, "%s: error: npy header: expected ',' or ')' in 'shape'", file);
    if (hdr_accept(h, ')')) return 0;
  }
}

// Maps a descr string ("<i4", "|u1") to a type; reports what is unsupported. The form is
// numpy's exactly: a byte order, a kind letter, a size of 1 to 2 digits without sign or leading zero.
static int hdr_descr(const char *descr, NpyType *t, const char *file, Diag *d) {
  size_t n = strlen(descr);
  if (n < 3 || n > 4 || !strchr("<>|=", descr[0]) || descr[1] < 'a' || descr[1] > 'z' || descr[2] < '1' ||
      descr[2] > '9' || (n == 4 && (descr[3] < '0' || descr[3] > '9')))
    return diag_error(d, "%s: error: npy dtype '%s' is not supported", file, descr);
  char order = descr[0], kind = descr[1];
  unsigned long size = strtoul(descr + 2, NULL, 10);
  if (order == '>' && size > 1)
    return diag_error(d, "%s: error: npy dtype '%s' is big-endian; only little-endian is supported", file, descr);
  if (order != '<' && order != '|' && !(order == '>' && size == 1))
    return diag_error(d, "%s: error: npy dtype '%s' has byte order '%c'; expected '<' or '|'", file, descr, order);
  for (size_t i = 0; i < NPY_NUM_TYPES; i++)
    if (npy_types[i].kind == kind && npy_types[i].size == size) {
      *t = npy_types[i].type;
      return 0;
    }
  return diag_error(d, "%s: error: npy dtype '%s' is not supported (use i1, u1, i2, i4, i8, f4 or f8)", file, descr);
}

// Parses the dict; fills type and shape. 0 or -1.
static int hdr_parse(const char *text, size_t len, const char *file, NpyArray *out, Diag *d) {
  HdrScan h = {text, len, 0};
  int have_descr = 0, have_order = 0, have_shape = 0;
  if (!hdr_accept(&h, '{')) return diag_error(d, "%s: error: npy header is not a dict", file);
  while (!hdr_accept(&h, '}')) {
    char key[32], val[32];
    if (hdr_string(&h, key, sizeof key)) return diag_error(d, "%s: error: npy header: expected a quoted key", file);
    if (!hdr_accept(&h, ':')) return diag_error(d, "%s: error: npy header: expected ':' after '%s'", file, key);
    if ((!strcmp(key, "descr") && have_descr) || (!strcmp(key, "fortran_order") && have_order) ||
        (!strcmp(key, "shape") && have_shape))
      return diag_error(d, "%s: error: npy header: '%s' given twice", file, key);
    if (!strcmp(key, "descr")) {
      if (hdr_string(&h, val, sizeof val))
        return diag_error(d, "%s: error: npy header: 'descr' is not a simple dtype string (structured arrays are "
                             "not supported)", file);
      if (hdr_descr(val, &out->type, file, d)) return -1;
      have_descr = 1;
    } else if (!strcmp(key, "fortran_order")) {
      if (hdr_word(&h, val, sizeof val) || (strcmp(val, "True") && strcmp(val, "False")))
        return diag_error(d, "%s: error: npy header: 'fortran_order' is not True or False", file);
      if (!strcmp(val, "True"))
        return diag_error(d, "%s: error: npy array is in Fortran order; save it in C order "
                             "(numpy.ascontiguousarray)", file);
      have_order = 1;
    } else if (!strcmp(key, "shape")) {
      if (hdr_shape(&h, out, file, d)) return -1;
      have_shape = 1;
    } else {
      return diag_error(d, "%s: error: npy header: unknown key '%s'", file, key);
    }
    if (!hdr_accept(&h, ',')) {
      if (hdr_accept(&h, '}')) break;
      return diag_error(d, "%s: error: npy header: expected ',' or '}'", file);
    }
  }
  hdr_skip_space(&h);
  if (h.pos != h.len) return diag_error(d, "%s: error: npy header: unexpected text after the dict", file);
  if (!have_descr || !have_order || !have_shape)
    return diag_error(d, "%s: error: npy header lacks '%s'", file,
                      !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  return 0;
}

// The header of a .npy file in buf (len bytes, the data may be missing): fills out's type and
// shape, and *data_at (where the data starts) and *count (elements). 0 or -1.
static int parse_header(const uint8_t *buf, size_t len, const char *file, NpyArray *out, size_t *data_at,
                        uint64_t *count_out, Diag *d) {
  if (len < 10 || memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN))
    return diag_error(d, "%s: error: not a .npy file (bad magic)", file);
  unsigned major = buf[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return diag_error(d, "%s: error: truncated .npy header", file);
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    hstart = 12;
  } else {
    return diag_error(d, "%s: error: unsupported .npy format version %u.%u", file, major, (unsigned)buf[7]);
  }
  if (hlen > len - hstart) return diag_error(d, "%s: error: truncated .npy header", file);
  // Version 1.0 and 2.0 headers are latin-1, 3.0 utf-8: the keys and values we accept are ASCII.
  if (hdr_parse((const char *)buf + hstart, hlen, file, out, d)) return -1;
  uint64_t count = 1;
  for (uint32_t i = 0; i < out->ndim; i++) {
    if (out->dims[i] && count > UINT64_MAX / out->dims[i])
      return diag_error(d, "%s: error: npy shape is too large", file);
    count *= out->dims[i];
  }
  *data_at = hstart + hlen;
  *count_out = count;
  return 0;
}

int npy_parse(const uint8_t *buf, size_t len, const char *file, NpyArray *out, Diag *d) {
  memset(out, 0, sizeof *out);
  size_t data_at = 0;
  uint64_t count = 0;
  if (parse_header(buf, len, file, out, &data_at, &count, d)) return -1;
  size_t esize = npy_type_size(out->type);
  size_t avail = len - data_at;
  if (count > avail / esize)
    return diag_error(d, "%s: error: truncated .npy data: %llu elements of %zu bytes need %llu bytes, file has %zu",
                      file, (unsigned long long)count, esize,
                      count > UINT64_MAX / esize ? (unsigned long long)UINT64_MAX
                                                 : (unsigned long long)(count * esize),
                      avail);
  if (avail != count * esize)
    return diag_error(d, "%s: error: .npy file has %zu bytes after its data", file, avail - (size_t)(count * esize));
  out->count = count;
  out->data = malloc(count ? count * esize : 1);
  if (!out->data) return diag_error(d, "%s: error: out of memory", file);
  memcpy(out->data, buf + data_at, count * esize);
  if (!host_is_little_endian()) swap_elements(out->data, count, esize);
  return 0;
}

// npy_read's head check (isa/fileread.h): the magic, then the whole header, whose shape and dtype
// give the file's exact size; so a file with a bad magic or more bytes than its header gives is
// refused before its body is read. Short files are left to npy_parse's messages.
static long long npy_head(const uint8_t *buf, size_t n, int at_eof, size_t *max_bytes, void *ctx, const char *path,
                          Diag *d) {
  (void)ctx;
  if (n >= NPY_MAGIC_LEN && memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN))
    return diag_error(d, "%s: error: not a .npy file (bad magic)", path);
  size_t hstart = n > 6 && buf[6] == 1 ? 10 : 12;
  if (n < hstart) return at_eof ? 0 : (long long)hstart;
  size_t hlen = hstart == 10 ? ((size_t)buf[8] | (size_t)buf[9] << 8)
                             : ((size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24);
  if (n < hstart + hlen) return at_eof || hlen > (1u << 20) ? 0 : (long long)(hstart + hlen);
  NpyArray a;
  memset(&a, 0, sizeof a);
  size_t data_at = 0;
  uint64_t count = 0;
  if (parse_header(buf, n, path, &a, &data_at, &count, d)) return -1;
  size_t esize = npy_type_size(a.type);
  if (count <= (SIZE_MAX - data_at) / esize && data_at + count * esize < *max_bytes) *max_bytes = data_at + count * esize;
  return 0;
}

int npy_read(const char *path, NpyArray *out, Diag *d) {
  memset(out, 0, sizeof *out);
  uint8_t *buf;
  size_t len;
  FileReadLimits lim = {SIZE_MAX, "its .npy header gives", 12, npy_head, NULL};
  if (file_read_limited(path, &lim, &buf, &len, d)) return -1;
  int rc = npy_parse(buf, len, path, out, d);
  free(buf);
  return rc;
}

int npy_write_to(FileOut *o, NpyType type, uint32_t ndim, const uint64_t *dims, const void *data, Diag *d) {
  const char *path = o->path;
  const char *descr = npy_descr(type);
  if (!descr) return diag_error(d, "%s: error: unknown npy type %d", path, (int)type);
  if (ndim > NPY_MAX_DIMS) return diag_error(d, "%s: error: %u dimensions (at most %d)", path, ndim, NPY_MAX_DIMS);
  char shape[NPY_MAX_DIMS * 24 + 4];
  size_t n = 0;
  uint64_t count = 1;
  shape[n++] = '(';
  for (uint32_t i = 0; i < ndim; i++) {
    n += (size_t)snprintf(shape + n, sizeof shape - n, i ? ", %llu" : "%llu", (unsigned long long)dims[i]);
    if (dims[i] && count > UINT64_MAX / dims[i]) return diag_error(d, "%s: error: shape is too large", path);
    count *= dims[i];
  }
  n += (size_t)snprintf(shape + n, sizeof shape - n, ndim == 1 ? ",)" : ")");
  // Header: magic, version 1.0, u16 length, dict padded with spaces and ended by '\n' so that
  // the data starts at a multiple of 64 bytes (as numpy writes it).
  char hdr[512];
  int hn = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
  size_t total = 10 + (size_t)hn + 1;
  size_t pad = (64 - total % 64) % 64;
  memset(hdr + hn, ' ', pad);
  hdr[(size_t)hn + pad] = '\n';
  size_t hlen = (size_t)hn + pad + 1;
  uint8_t pre[10];
  memcpy(pre, NPY_MAGIC, NPY_MAGIC_LEN);
  pre[6] = 1;
  pre[7] = 0;
  pre[8] = (uint8_t)(hlen & 0xff);
  pre[9] = (uint8_t)(hlen >> 8);
  size_t esize = npy_type_size(type);
  if (count > SIZE_MAX / esize) return diag_error(d, "%s: error: shape is too large", path);
  int ok = !file_out_write(o, pre, sizeof pre) && !file_out_write(o, hdr, hlen);
  if (ok && count) {
    if (host_is_little_endian()) {
      ok = !file_out_write(o, data, count * esize);
    } else {
      const uint8_t *p = data;
      for (uint64_t i = 0; ok && i < count; i++, p += esize) {
        uint8_t e[8];
        for (size_t b = 0; b < esize; b++) e[b] = p[esize - 1 - b];
        ok = !file_out_write(o, e, esize);
      }
    }
  }
  if (!ok) return diag_error(d, "%s: error: cannot write: %s", path, strerror(errno));
  return 0;
}

int npy_write(const char *path, NpyType type, uint32_t ndim, const uint64_t *dims, const void *data, Diag *d) {
  FileOut o;
  if (file_out_open(&o, path, 1, d)) return -1;
  int ok = !npy_write_to(&o, type, ndim, dims, data, d);
  return file_out_close(&o, ok, d);
}
