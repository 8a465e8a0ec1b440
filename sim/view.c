// view.c: the data of the HTML view (view.h). Each active cycle of the window becomes one JSON
// object in a growing buffer (the frame: PE states and weight banks as digit strings, dense
// integer arrays of the moving operands and sums, the stationary grid by index into a table of
// distinct grids, the accumulator writes); after the run the instructions that overlap the window
// are added for the timeline, and the page is the template's head, the JSON, and the template's
// tail. The page's JavaScript (sim/view_page.html) draws it; nothing here knows about HTML beyond
// the split.
#include "view.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/asm.h"
#include "../isa/fileio.h"
#include "../isa/names.h"
#include "sim_internal.h"

extern const char view_page[];   // the template, generated from sim/view_page.html by make

typedef struct {
  char *p;
  size_t len, cap;
  int oom;
} Buf;

struct View {
  ArrayObserver obs;     // first: the observer the engine calls
  uint64_t from, to, max_bytes;
  uint32_t rows, cols;
  Buf frames;            // "{...},{...}" one per active cycle
  Buf grids;             // "[...],[...]" the distinct stationary grids, in order of appearance
  int n_grids;
  int8_t *last_w;        // the last grid added (R x C)
  uint64_t n_frames;
  int capped;            // stopped recording at cap_cycle: the data reached max_bytes
  uint64_t cap_cycle;
};

static void buf_put(Buf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

static void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(Buf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) buf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

// A JSON string that is safe inside <script>: <, > and & as \u escapes, controls escaped.
static void buf_json_string(Buf *b, const char *s) {
  buf_put(b, "\"", 1);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++)
    if (*c == '"' || *c == '\\') buf_printf(b, "\\%c", *c);
    else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&' || *c == 0x7f) buf_printf(b, "\\u%04x", *c);
    else buf_put(b, (const char *)c, 1);
  buf_put(b, "\"", 1);
}

// One field of all PEs as a JSON array of integers.
typedef int64_t (*PeField)(const SnapPe *p);
static int64_t f_act(const SnapPe *p) { return p->act; }
static int64_t f_b(const SnapPe *p) { return p->b; }
static int64_t f_sum(const SnapPe *p) { return p->sum; }
static int64_t f_n(const SnapPe *p) { return p->n; }
static int64_t f_dr(const SnapPe *p) { return p->dr; }

static void put_field(Buf *b, const char *key, const ArraySnap *sn, PeField f) {
  buf_printf(b, ",\"%s\":[", key);
  for (uint32_t i = 0; i < sn->rows * sn->cols; i++) buf_printf(b, i ? ",%lld" : "%lld", (long long)f(&sn->pe[i]));
  buf_put(b, "]", 1);
}

// The index of this cycle's stationary grid in the table, adding it when it differs from the last.
static int grid_index(View *v, const ArraySnap *sn) {
  uint32_t n = sn->rows * sn->cols;
  int same = v->n_grids > 0;
  for (uint32_t i = 0; i < n && same; i++) same = v->last_w[i] == sn->pe[i].weight;
  if (same) return v->n_grids - 1;
  buf_put(&v->grids, v->n_grids ? ",[" : "[", v->n_grids ? 2 : 1);
  for (uint32_t i = 0; i < n; i++) {
    v->last_w[i] = sn->pe[i].weight;
    buf_printf(&v->grids, i ? ",%d" : "%d", sn->pe[i].weight);
  }
  buf_put(&v->grids, "]", 1);
  return v->n_grids++;
}

static int view_cycle(ArrayObserver *o, const ArraySnap *sn) {
  View *v = (View *)o;
  uint32_t n = sn->rows * sn->cols;
  if (!v->last_w) {
    v->rows = sn->rows;
    v->cols = sn->cols;
    v->last_w = malloc(n);
    if (!v->last_w) {
      v->frames.oom = 1;
      return -1;
    }
  }
  if (v->frames.len + v->grids.len >= v->max_bytes) {
    v->capped = 1;
    v->cap_cycle = sn->cycle;
    return -1;
  }
  Buf *b = &v->frames;
  if (v->n_frames++) buf_put(b, ",", 1);
  buf_printf(b, "{\"t\":%llu,\"m\":%d,\"ch\":%d,\"s\":\"", (unsigned long long)sn->cycle, (int)sn->mode, sn->chain);
  for (uint32_t i = 0; i < n; i++) {   // 0 empty, 1 multiplied, 2 holds a sum, 3 multiplied into the drain
    const SnapPe *p = &sn->pe[i];
    char c = (char)('0' + (p->state == SNAP_PE_MAC ? (p->drained ? 3 : 1) : p->state == SNAP_PE_HOLD ? 2 : 0));
    buf_put(b, &c, 1);
  }
  buf_put(b, "\"", 1);
  put_field(b, "a", sn, f_act);
  put_field(b, "p", sn, f_sum);
  if (sn->mode == SNAP_OS) {
    put_field(b, "b", sn, f_b);
    put_field(b, "n", sn, f_n);
    buf_put(b, ",\"dv\":\"", 7);
    for (uint32_t i = 0; i < n; i++) buf_put(b, sn->pe[i].dr_valid ? "1" : "0", 1);
    buf_put(b, "\"", 1);
    put_field(b, "d", sn, f_dr);
  } else {
    buf_printf(b, ",\"w\":%d,\"k\":\"", grid_index(v, sn));   // k: each PE's weight bank, a digit
    for (uint32_t i = 0; i < n; i++) buf_put(b, sn->pe[i].bank ? "1" : "0", 1);
    buf_put(b, "\"", 1);
  }
  if (sn->writes) {   // [column, row, acc column, value, accum, through the rotator]
    buf_put(b, ",\"acc\":[", 8);
    int first = 1;
    for (uint32_t c = 0; c < sn->cols; c++) {
      const SnapAccWrite *w = &sn->acc[c];
      if (w->row == UINT64_MAX) continue;
      buf_printf(b, "%s[%u,%llu,%u,%d,%d,%d]", first ? "" : ",", c, (unsigned long long)w->row, w->bank, w->sum,
                 w->accum, w->transposed);
      first = 0;
    }
    buf_put(b, "]", 1);
  }
  buf_put(b, "}", 1);
  return b->oom || v->grids.oom ? -1 : 0;
}

View *view_new(uint64_t from, uint64_t to, uint64_t max_bytes) {
  View *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->obs.cycle = view_cycle;
  v->from = from;
  v->to = to;
  v->max_bytes = max_bytes;
  return v;
}

void view_free(View *v) {
  if (!v) return;
  free(v->frames.p);
  free(v->grids.p);
  free(v->last_w);
  free(v);
}

ArrayObserver *view_observer(View *v) { return &v->obs; }

// The instructions whose [fetch, end] overlaps [from, to): [k, unit class, fetch, start, ready,
// end, text], the unit class as isa_unit_names (load, compute, store, sfu, all, fetch).
static void put_insns(Buf *b, const Sim *s, uint64_t from, uint64_t to) {
  const Program *p = s->prog;
  int first = 1;
  for (uint32_t k = 0; k < p->n_insns; k++) {
    const InsnTime *t = &s->times[k];
    if (t->end < from || t->fetch >= to) continue;
    Insn in = prog_insn(p, k);
    char text[400];
    buf_printf(b, "%s[%u,%d,%llu,%llu,%llu,%llu,", first ? "" : ",", k, (int)isa_ops[in.op].unit,
               (unsigned long long)t->fetch, (unsigned long long)t->start, (unsigned long long)t->ready,
               (unsigned long long)t->end);
    buf_json_string(b, asm_insn_text(&in, text, sizeof text));
    buf_put(b, "]", 1);
    first = 0;
  }
}

int view_write(View *v, const char *path, const Sim *s, const char *label, Diag *d) {
  uint64_t cycles = s->stats.cycles;
  uint64_t to = v->to && v->to < cycles ? v->to : cycles;
  if (v->from >= cycles)
    return diag_error(d, "%s: error: --from %llu is past the end of the run (%llu cycles): nothing to view", path,
                      (unsigned long long)v->from, (unsigned long long)cycles);
  if (v->capped) to = v->cap_cycle;
  Buf j = {0};
  buf_printf(&j, "{\"version\":1,\"rows\":%u,\"cols\":%u,\"from\":%llu,\"to\":%llu,\"cycles\":%llu,", s->arch->rows,
             s->arch->cols, (unsigned long long)v->from, (unsigned long long)to, (unsigned long long)cycles);
  buf_printf(&j, "\"capped\":%s,\"cap_mb\":%llu,\"arch\":", v->capped ? "true" : "false",
             (unsigned long long)(v->max_bytes >> 20));
  buf_json_string(&j, s->arch->name);
  buf_put(&j, ",\"label\":", 9);
  buf_json_string(&j, label);
  buf_put(&j, ",\"units\":[", 10);
  for (int u = 0; u < ISA_NUM_UNIT_CLASSES; u++) {
    buf_put(&j, u ? "," : "", u ? 1 : 0);
    buf_json_string(&j, isa_unit_names[u]);
  }
  buf_put(&j, "],\"grids\":[", 11);
  if (v->grids.len) buf_put(&j, v->grids.p, v->grids.len);
  buf_put(&j, "],\"frames\":[", 12);
  if (v->frames.len) buf_put(&j, v->frames.p, v->frames.len);
  buf_put(&j, "],\"insns\":[", 11);
  put_insns(&j, s, v->from, to);
  buf_put(&j, "]}", 2);
  if (j.oom || v->frames.oom || v->grids.oom) {
    free(j.p);
    return diag_error(d, "%s: error: out of memory for the view", path);
  }
  const char *mark = strstr(view_page, "/*VIEW-DATA*/");
  if (!mark) {
    free(j.p);
    return diag_error(d, "%s: internal error: the page template has no data marker", path);
  }
  FileOut o;
  if (file_out_open(&o, path, 0, d)) {
    free(j.p);
    return -1;
  }
  int ok = !file_out_write(&o, view_page, (size_t)(mark - view_page)) && !file_out_write(&o, j.p, j.len) &&
           !file_out_write(&o, mark + strlen("/*VIEW-DATA*/"), strlen(mark + strlen("/*VIEW-DATA*/")));
  int err = errno;
  free(j.p);
  if (!ok) {
    file_out_close(&o, 0, d);
    return diag_error(d, "%s: error: cannot write: %s", path, strerror(err));
  }
  if (file_out_close(&o, 1, d)) return -1;
  if (v->capped)
    fprintf(stderr,
            "%s: warning: view capped at %llu MB: cycles [%llu, %llu) recorded of the window; give --from/--to for "
            "a later or shorter window\n",
            path, (unsigned long long)(v->max_bytes >> 20), (unsigned long long)v->from,
            (unsigned long long)v->cap_cycle);
  return 0;
}
