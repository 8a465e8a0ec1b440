// timeline.c: the per-instruction timeline of a finished run (timeline.h). Everything here is
// derived from the program and the InsnTime records with docs/TIMING.md's rules: the start of
// an instruction is the earliest cycle meeting its bounds (§3: in its queue, behind its unit's
// previous instruction, its tokens, the array's structural conditions of §6), so the bound that
// equals the start names what it waited for. The engines record nothing more for it; the rows
// are therefore the same for every engine that produces the same InsnTime (the contract).
#include "timeline.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/asm.h"
#include "report.h"

static const char *const cause_names[TL_CAUSE_COUNT] = {
    [TL_NONE] = "none",           [TL_QUEUE] = "queue",         [TL_TOKEN] = "token",
    [TL_IN_ORDER] = "in_order",   [TL_WEIGHT_CHAIN] = "weight_chain", [TL_BANK_BUSY] = "bank_busy",
    [TL_BANK_LOADING] = "bank_loading", [TL_STREAM_BUSY] = "stream_busy", [TL_MODE_SWITCH] = "mode_switch", [TL_OS_DRAIN] = "os_drain",
    [TL_IS_ALIGN] = "is_align",   [TL_ARRAY] = "array",
};

const char *timeline_cause_name(TlCause c) { return c < TL_CAUSE_COUNT ? cause_names[c] : "?"; }

// A push into one token channel: the cycle its token becomes visible, and who pushed it.
typedef struct {
  uint64_t visible;
  uint32_t insn;
} Push;

static int push_cmp(const void *a, const void *b) {
  const Push *x = a, *y = b;
  if (x->visible != y->visible) return x->visible < y->visible ? -1 : 1;
  return x->insn < y->insn ? -1 : x->insn > y->insn;
}

// The compute unit's history the structural conditions of TIMING §6 look at (-1: none yet).
typedef struct {
  int64_t preload, preloads;              // the last PRELOAD; how many so far
  int64_t bank_user[2];                   // per bank: its last COMPUTE/COMPUTE_IS
  int64_t os, ws, is;                     // the last COMPUTE_OS, COMPUTE, COMPUTE_IS
} ArrayHist;

// A structural bound of instruction k that equals its start: sets the cause and returns 1.
static int bound_is(const InsnTime *t, uint32_t k, uint64_t bound, TlCause c, int64_t who, TlRow *r) {
  if (who < 0 || bound != t[k].start) return 0;
  r->cause = c;
  r->wait_insn = who;
  return 1;
}

// The structural condition of a compute-unit instruction that held it (TIMING §6), or TL_ARRAY
// when none of the rules below gives its start (a rule this page does not know).
static void array_cause(const Program *p, const InsnTime *t, uint32_t k, const Insn *in, const ArrayHist *h,
                        TlRow *r) {
  uint64_t R = p->arch.rows;
  r->cause = TL_ARRAY;
  r->wait_insn = -1;
  switch (in->op) {
  case OP_PRELOAD: {
    int b = (int)(h->preloads % 2);
    if (h->preload >= 0 && bound_is(t, k, t[h->preload].start + R, TL_WEIGHT_CHAIN, h->preload, r)) return;
    // (b): the last stream on the bank read its last row C - 1 cycles before.
    if (h->bank_user[b] >= 0) {
      int64_t c = h->bank_user[b];
      uint64_t rows = (uint64_t)prog_insn(p, (uint32_t)c).f[FLD_ROWS];
      if (bound_is(t, k, t[c].start + rows + p->arch.cols - 1, TL_BANK_BUSY, c, r)) return;
    }
    if (h->os >= 0 && bound_is(t, k, t[h->os].end + 1, TL_MODE_SWITCH, h->os, r)) return;
    return;
  }
  case OP_COMPUTE:
  case OP_COMPUTE_IS: {
    int64_t pre = h->preload;
    if (pre >= 0 && bound_is(t, k, t[pre].end + 1, TL_BANK_LOADING, pre, r)) return;
    if (h->os >= 0 && bound_is(t, k, t[h->os].end + 1, TL_MODE_SWITCH, h->os, r)) return;
    int64_t other = in->op == OP_COMPUTE ? h->is : h->ws;
    if (other >= 0 && bound_is(t, k, t[other].end + 1, TL_MODE_SWITCH, other, r)) return;
    // The stream sequencer: the last COMPUTE or COMPUTE_IS x read its last row in s_x + M_x - 1
    // (it bounds a stream only behind an OVERLAP one: else in-order issue already did).
    int64_t x = h->ws > h->is ? h->ws : h->is;
    if (x >= 0 && bound_is(t, k, t[x].start + (uint64_t)prog_insn(p, (uint32_t)x).f[FLD_ROWS], TL_STREAM_BUSY, x, r))
      return;
    // (d): the next cycle aligned with the last COMPUTE_IS y, or its end + 1, whichever is first.
    if (in->op == OP_COMPUTE_IS && h->is >= 0 &&
        (t[k].start == t[h->is].end + 1 ||
         (t[k].start <= t[h->is].end && (t[k].start - t[h->is].start) % p->arch.cols == 0))) {
      r->cause = TL_IS_ALIGN;
      r->wait_insn = h->is;
    }
    return;
  }
  case OP_COMPUTE_OS: {
    const int64_t ws[] = {h->preload, h->ws, h->is};
    for (int i = 0; i < 3; i++)
      if (ws[i] >= 0 && bound_is(t, k, t[ws[i]].end + 1, TL_MODE_SWITCH, ws[i], r)) return;
    if (h->os >= 0) {
      Insn o = prog_insn(p, (uint32_t)h->os);
      uint64_t k_now = (uint64_t)in->f[FLD_KLEN], bound = t[h->os].start + (uint64_t)o.f[FLD_KLEN] + R;
      if (bound >= k_now && bound_is(t, k, bound - k_now, TL_OS_DRAIN, h->os, r)) return;
    }
    return;
  }
  case OP_LOAD:
  case OP_STORE:
  case OP_CFG_LOAD:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: return;   // no structural condition
  }
}

// Records a compute-unit instruction in the history, after its cause was found.
static void array_note(ArrayHist *h, uint32_t k, Opcode op) {
  switch (op) {
  case OP_PRELOAD:
    h->preload = k;
    h->preloads++;
    return;
  case OP_COMPUTE:
  case OP_COMPUTE_IS:
    if (h->preload >= 0) h->bank_user[(h->preloads - 1) % 2] = k;
    *(op == OP_COMPUTE ? &h->ws : &h->is) = k;
    return;
  case OP_COMPUTE_OS: h->os = k; return;
  case OP_LOAD:
  case OP_STORE:
  case OP_CFG_LOAD:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: return;   // not an array instruction
  }
}

// Unit u's queue holds instruction k (LAYER is in all four).
static int in_queue(Unit routed, int u) { return routed == UNIT_ALL || (int)routed == u; }

int timeline_build(const Program *p, const InsnTime *t, TlRow **out) {
  uint32_t n = p->n_insns;
  TlRow *rows = calloc(n ? n : 1, sizeof *rows);
  Push *push[NUM_UNITS][NUM_UNITS] = {{0}};    // [from][to], sorted by visibility
  uint32_t n_push[NUM_UNITS][NUM_UNITS] = {{0}}, next_pop[NUM_UNITS][NUM_UNITS] = {{0}};
  // Every push, by channel, in the order its tokens become visible (TIMING §4: end + 1): counted,
  // then collected and sorted.
  for (uint32_t k = 0; k < n; k++) {
    Opcode op = prog_op(p, k);
    Unit from = isa_ops[op].unit;
    if (!isa_has_field(op, FLD_PUSH) || (int)from >= NUM_UNITS) continue;
    Insn in = prog_insn(p, k);
    for (int u = 0; u < NUM_UNITS; u++) next_pop[from][u] += (in.f[FLD_PUSH] >> u) & 1;
  }
  int ok = rows != NULL;
  for (int v = 0; v < NUM_UNITS && ok; v++)
    for (int u = 0; u < NUM_UNITS && ok; u++) {
      ok = (push[v][u] = malloc((next_pop[v][u] ? next_pop[v][u] : 1) * sizeof(Push))) != NULL;
      next_pop[v][u] = 0;
    }
  if (!ok) goto done;
  for (uint32_t k = 0; k < n; k++) {
    Insn in = prog_insn(p, k);
    Unit from = isa_ops[in.op].unit;
    if (!isa_has_field(in.op, FLD_PUSH) || (int)from >= NUM_UNITS) continue;
    for (int u = 0; u < NUM_UNITS; u++)
      if ((in.f[FLD_PUSH] >> u) & 1) push[from][u][n_push[from][u]++] = (Push){t[k].end + 1, k};
  }
  for (int v = 0; v < NUM_UNITS; v++)
    for (int u = 0; u < NUM_UNITS; u++) qsort(push[v][u], n_push[v][u], sizeof(Push), push_cmp);
  // Each unit's previous instruction and its ready (a LAYER copy outside the load queue is not
  // recorded: it starts at max(f + 1, the unit's ready) and is ready one cycle later, §6, §7).
  int64_t prev[NUM_UNITS];
  for (int u = 0; u < NUM_UNITS; u++) prev[u] = -1;
  uint64_t prev_ready[NUM_UNITS] = {0};
  ArrayHist h = {-1, 0, {-1, -1}, -1, -1, -1};
  uint32_t layer = p->n_layers;
  for (uint32_t k = 0; k < n; k++) {
    Insn in = prog_insn(p, k);
    Unit routed = isa_ops[in.op].unit;
    TlRow *r = &rows[k];
    if (in.op == OP_LAYER) layer = (uint32_t)in.f[FLD_LAYER_ID];
    *r = (TlRow){k, routed, layer, t[k].fetch, t[k].fetch + 1, t[k].start, t[k].ready, t[k].end, t[k].stall,
                 TL_NONE, -1, -1};
    if (routed == UNIT_FETCH) {   // HALT: consumed by fetch in its fetch cycle
      r->avail = t[k].fetch;
      continue;
    }
    int u = routed == UNIT_ALL ? UNIT_LOAD : (int)routed;
    // Tokens: the n-th pop of a channel takes the n-th token to become visible on it.
    uint64_t tok = 0;
    int tok_unit = -1;
    int64_t tok_insn = -1;
    if (isa_has_field(in.op, FLD_POP))
      for (int v = 0; v < NUM_UNITS; v++) {
        if (!((in.f[FLD_POP] >> v) & 1)) continue;
        uint32_t i = next_pop[v][u]++;
        if (i >= n_push[v][u]) continue;   // a run that ended has none such; be safe
        if (push[v][u][i].visible > tok || tok_unit < 0)
          tok = push[v][u][i].visible, tok_unit = v, tok_insn = push[v][u][i].insn;
      }
    if (tok > r->avail) r->avail = tok;
    uint64_t queued = t[k].fetch + 1;
    int fetched_late = k > 0 && t[k].fetch > t[k - 1].fetch + 1;
    if (tok_unit >= 0 && tok == r->start && tok > queued) {
      r->cause = TL_TOKEN, r->wait_unit = tok_unit, r->wait_insn = tok_insn;
    } else if (prev[u] >= 0 && prev_ready[u] == r->start && prev_ready[u] > queued) {
      r->cause = TL_IN_ORDER, r->wait_insn = prev[u];
    } else if (r->start == queued) {
      r->cause = fetched_late ? TL_QUEUE : TL_NONE;
      if (fetched_late) r->wait_unit = routed == UNIT_ALL ? -1 : u;
    } else if (u == UNIT_COMPUTE) {
      array_cause(p, t, k, &in, &h, r);
    } else {
      r->cause = TL_ARRAY;   // no other unit has a structural condition: a rule this file does not know
    }
    if (u == UNIT_COMPUTE) array_note(&h, k, in.op);
    for (int q = 0; q < NUM_UNITS; q++) {
      if (!in_queue(routed, q)) continue;
      if (q == u) {
        prev_ready[q] = t[k].ready;
      } else {   // an unrecorded LAYER copy
        uint64_t s = prev_ready[q] > queued ? prev_ready[q] : queued;
        prev_ready[q] = s + 1;
      }
      prev[q] = k;
    }
  }
done:
  for (int v = 0; v < NUM_UNITS; v++)
    for (int u = 0; u < NUM_UNITS; u++) free(push[v][u]);
  if (!ok) {
    free(rows);
    return -1;
  }
  *out = rows;
  return 0;
}

const char *timeline_cause_text(const Program *p, const TlRow *r, char *buf, size_t n) {
  const char *op = r->wait_insn >= 0 ? isa_ops[prog_op(p, (uint32_t)r->wait_insn)].name : "";
  long long j = (long long)r->wait_insn;
  switch (r->cause) {
  case TL_NONE: snprintf(buf, n, "-"); break;
  case TL_QUEUE:
    if (r->wait_unit >= 0) snprintf(buf, n, "a slot in the %s queue", isa_unit_names[r->wait_unit]);
    else snprintf(buf, n, "a slot in every queue");
    break;
  case TL_TOKEN: snprintf(buf, n, "token from %s (insn %lld %s)", isa_unit_names[r->wait_unit], j, op); break;
  case TL_IN_ORDER:   // a LAYER's copy in the compute or store queue is not in its row (the load copy is)
    if (prog_op(p, (uint32_t)j) == OP_LAYER && r->unit != UNIT_LOAD && r->unit != UNIT_ALL)
      snprintf(buf, n, "in order behind insn %lld LAYER (its %s copy)", j, isa_unit_names[r->unit]);
    else
      snprintf(buf, n, "in order behind insn %lld %s", j, op);
    break;
  case TL_WEIGHT_CHAIN: snprintf(buf, n, "weight chain (insn %lld %s)", j, op); break;
  case TL_BANK_BUSY: snprintf(buf, n, "bank in use (insn %lld %s)", j, op); break;
  case TL_BANK_LOADING: snprintf(buf, n, "bank loading (insn %lld %s)", j, op); break;
  case TL_STREAM_BUSY: snprintf(buf, n, "stream of insn %lld %s", j, op); break;
  case TL_MODE_SWITCH: snprintf(buf, n, "array mode switch (insn %lld %s)", j, op); break;
  case TL_OS_DRAIN: snprintf(buf, n, "drain of insn %lld %s", j, op); break;
  case TL_IS_ALIGN: snprintf(buf, n, "rotator alignment (insn %lld %s)", j, op); break;
  case TL_ARRAY: snprintf(buf, n, "the array (structural)"); break;
  case TL_CAUSE_COUNT: snprintf(buf, n, "?"); break;
  }
  return buf;
}

TlFormat timeline_format_of(const char *path) {
  size_t n = strlen(path);
  if (n >= 4 && !strcmp(path + n - 4, ".csv")) return TL_FMT_CSV;
  if (n >= 5 && !strcmp(path + n - 5, ".json")) return TL_FMT_JSON;
  return TL_FMT_TEXT;
}

static const char *unit_label(Unit u) { return isa_unit_names[u]; }

static int digits(uint64_t v) {
  int d = 1;
  while (v >= 10) v /= 10, d++;
  return d;
}

static void write_text(FILE *out, const Program *p, const TlRow *rows, const char *label, uint64_t cycles) {
  uint64_t top = cycles;
  int lw = 5;   // "layer"
  char nb[REPORT_NAME_BUF], cause[160];
  for (uint32_t i = 0; i < p->n_layers; i++) {
    int w = (int)strlen(report_layer_name(p, i, nb));
    if (w > lw) lw = w < 24 ? w : 24;
  }
  int cw = digits(top) > 5 ? digits(top) : 5, iw = digits(p->n_insns) > 4 ? digits(p->n_insns) : 4;
  int ow = 10;   // "op": wider only for the SFU's longer mnemonics (SFU_LAYERNORM), when present
  for (uint32_t k = 0; k < p->n_insns; k++) {
    Insn in = prog_insn(p, k);
    int w = (int)strlen(report_op_label(&in));
    if (w > ow) ow = w;
  }
  fprintf(out, "# timeline of %s: %u instructions, %llu cycles (docs/STATS.md \"Timeline\")\n", label, p->n_insns,
          (unsigned long long)cycles);
  fprintf(out, "%*s %-7s %-*s %-*s %*s %*s %*s %*s %*s %*s  %s\n", iw, "insn", "unit", ow, "op", lw, "layer", cw, "fetch",
          cw, "avail", cw, "start", cw, "ready", cw, "end", cw, "dram", "waited for");
  for (uint32_t k = 0; k < p->n_insns; k++) {
    const TlRow *r = &rows[k];
    const char *ln = r->layer < p->n_layers ? report_layer_name(p, r->layer, nb) : "-";
    Insn in = prog_insn(p, k);
    fprintf(out, "%*u %-7s %-*s %-*s %*llu %*llu %*llu %*llu %*llu %*llu  %s\n", iw, k, unit_label(r->unit), ow,
            report_op_label(&in), lw, ln, cw, (unsigned long long)r->fetch, cw, (unsigned long long)r->avail,
            cw, (unsigned long long)r->start, cw, (unsigned long long)r->ready, cw, (unsigned long long)r->end, cw,
            (unsigned long long)r->dram_stall, timeline_cause_text(p, r, cause, sizeof cause));
  }
}

// CSV field: quoted, inner quotes doubled.
static void csv_quoted(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void write_csv(FILE *out, const Program *p, const TlRow *rows) {
  char nb[REPORT_NAME_BUF], text[400];
  fprintf(out, "insn,unit,op,layer,fetch,avail,start,ready,end,dram_stall,cause,wait_insn,wait_unit,asm\n");
  for (uint32_t k = 0; k < p->n_insns; k++) {
    const TlRow *r = &rows[k];
    Insn in = prog_insn(p, k);
    fprintf(out, "%u,%s,%s,", k, unit_label(r->unit), isa_ops[in.op].name);
    csv_quoted(out, r->layer < p->n_layers ? report_layer_name(p, r->layer, nb) : "");
    fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%s,", (unsigned long long)r->fetch, (unsigned long long)r->avail,
            (unsigned long long)r->start, (unsigned long long)r->ready, (unsigned long long)r->end,
            (unsigned long long)r->dram_stall, timeline_cause_name(r->cause));
    if (r->wait_insn >= 0) fprintf(out, "%lld", (long long)r->wait_insn);
    fprintf(out, ",%s,", r->wait_unit >= 0 ? isa_unit_names[r->wait_unit] : "");
    csv_quoted(out, asm_insn_text(&in, text, sizeof text));
    fputc('\n', out);
  }
}

static int write_json(FILE *out, const Program *p, const TlRow *rows, const char *label, uint64_t cycles) {
  char nb[REPORT_NAME_BUF], text[400], cause[160];
  json_t *root = json_object(), *arr = json_array();
  if (!root || !arr) {
    json_decref(root);
    json_decref(arr);
    return -1;
  }
  json_object_set_new(root, "program", json_string(label));
  json_object_set_new(root, "cycles", json_integer((json_int_t)cycles));
  for (uint32_t k = 0; k < p->n_insns; k++) {
    const TlRow *r = &rows[k];
    Insn in = prog_insn(p, k);
    json_t *o = json_object();
    json_object_set_new(o, "insn", json_integer(k));
    json_object_set_new(o, "unit", json_string(unit_label(r->unit)));
    json_object_set_new(o, "op", json_string(isa_ops[in.op].name));
    json_object_set_new(o, "layer", r->layer < p->n_layers ? json_string(report_layer_name(p, r->layer, nb)) : json_null());
    json_object_set_new(o, "fetch", json_integer((json_int_t)r->fetch));
    json_object_set_new(o, "avail", json_integer((json_int_t)r->avail));
    json_object_set_new(o, "start", json_integer((json_int_t)r->start));
    json_object_set_new(o, "ready", json_integer((json_int_t)r->ready));
    json_object_set_new(o, "end", json_integer((json_int_t)r->end));
    json_object_set_new(o, "dram_stall", json_integer((json_int_t)r->dram_stall));
    json_object_set_new(o, "cause", json_string(timeline_cause_name(r->cause)));
    json_object_set_new(o, "wait_insn", r->wait_insn >= 0 ? json_integer(r->wait_insn) : json_null());
    json_object_set_new(o, "wait_unit", r->wait_unit >= 0 ? json_string(isa_unit_names[r->wait_unit]) : json_null());
    json_object_set_new(o, "waited_for", json_string(timeline_cause_text(p, r, cause, sizeof cause)));
    json_object_set_new(o, "asm", json_string(asm_insn_text(&in, text, sizeof text)));
    json_array_append_new(arr, o);
  }
  json_object_set_new(root, "insns", arr);
  int rc = json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
  fputc('\n', out);
  json_decref(root);
  return rc;
}

int timeline_write(FILE *out, const Sim *s, const char *label, TlFormat fmt) {
  const Program *p = sim_program(s);
  TlRow *rows;
  if (timeline_build(p, sim_insn_times(s), &rows)) return -1;
  int rc = 0;
  switch (fmt) {
  case TL_FMT_TEXT: write_text(out, p, rows, label, sim_stats(s)->cycles); break;
  case TL_FMT_CSV: write_csv(out, p, rows); break;
  case TL_FMT_JSON: rc = write_json(out, p, rows, label, sim_stats(s)->cycles); break;
  }
  free(rows);
  return rc || ferror(out) ? -1 : 0;
}
