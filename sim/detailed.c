// detailed.c: the detailed engine. The machine of docs/TIMING.md stepped one clock at a time:
// the fetch unit, four instruction queues, the token counters, the DRAM model (dram.c) and the
// four units (detailed_load.c, detailed_array.c, detailed_store.c, detailed_sfu.c), each a state machine whose
// registers change only at the clock edge. No closed-form timing is used: every start, beat,
// response, PE step and FIFO move happens in the cycle the hardware would do it, and times[] and
// the statistics are read off the machine as it runs. The fast engine (fast.c) computes the
// same numbers from formulas; the two must agree exactly.
//
// Order of events within cycle t (every decision reads registers as they were at the start of
// t; what is written in t is seen from t + 1, as at a clock edge):
//  1. Token counters hold every push of cycles < t less every pop of cycles < t: the pushes of
//     instructions that ended in t - 1 were added at the edge that closed t - 1.
//  2. Fetch decides from the queue occupancies at the start of t (an entry that its unit
//     dequeues in t still counts): instruction pc is fetched if each queue it is routed to holds
//     fewer than its depth (LAYER: all four); HALT stops fetch. The entry is appended at the
//     end of t (step 7), so its unit can start it from t + 1.
//  3. Each unit, in the order load, compute, store, sfu, looks at its queue head: if the unit is free
//     (its previous instruction's `ready` <= t), every channel in POP holds a token and, for the
//     compute unit, the structural condition holds (weight chain free and bank released for
//     PRELOAD, bank complete for COMPUTE and COMPUTE_IS, the mode switches, stream alignment for
//     COMPUTE_IS, the drain rule for COMPUTE_OS), it
//     dequeues the head and pops its tokens. No two
//     units pop the same channel, so the order among units does not matter.
//  4. Requests: the load unit offers its next read beat (a LOAD started in t offers its first
//     beat in t); the store unit offers the next write beat of its FIFO head row if that row is
//     ready.
//  5. dram_cycle(): responses due in t (accepted in t - L) are delivered first, freeing their
//     slots, then each channel accepts its request if fewer than F beats are in flight. The
//     global buffer's ports (the same model, dram_new_gbuf) answer theirs L_g after acceptance
//     and always accept: a unit offers its beat to one of the two memories (GBUF=1 or not).
//  6. The units advance: load (responses land in its target memory in issue order, one per
//     cycle, an early one waiting for the earlier beats' (TIMING §5a); an accepted beat moves
//     the beat generator on, a refused one is a stall cycle), compute (the weight chain shifts
//     one row; in output-stationary mode the sequencer reads, the drains write ACC and the PEs
//     step; the stream reads one SPAD row; the array steps: ACC writes from the bottom PE
//     registers, then every PE, then the skew lines), store (acknowledgements, one per cycle; the write port;
//     the front end reads one window position, starting a row only if the FIFO had a free slot
//     at the start of t; the post-processing pipeline shifts), sfu (one cycle of the current
//     row's phase, a finished row's results entering the pipeline; the row due from the pipeline
//     written). An instruction that ends in t pushes its tokens into pushes[][].
//  7. Statistics classify the cycle for each unit (TIMING §9); the fetched entry enters its
//     queue(s); pushes are added to the counters, and a count above tokens.max is an error
//     reported at t + 1, the cycle the token would be visible.
//  8. The run ends after the cycle in which HALT has been fetched and every instruction copy
//     has ended: cycles = t + 1. A cycle in which nothing moved while work remains means the
//     state can never change again: a deadlock, reported with each blocked unit.
#include "detailed.h"
#include "stats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t insn_field(const Insn *in, FieldId f) { return isa_has_field(in->op, f) ? in->f[f] : 0; }

// A LAYER is recorded in times[] by its copy in the load queue only (TIMING §8).
static int records_times(const Det *m, Unit u, uint32_t k) {
  return m->insns[k].op != OP_LAYER || u == UNIT_LOAD;
}


LayerStats *det_layer(Det *m, uint32_t k) { return sim_layer(m->s, m->insn_layer[k]); }

void det_end(Det *m, Unit u, uint32_t k) {
  const Insn *in = &m->insns[k];
  if (records_times(m, u, k)) m->s->times[k].end = m->t;
  int64_t push = insn_field(in, FLD_PUSH);
  for (int v = 0; v < NUM_UNITS; v++)
    if ((push >> v) & 1) m->pushes[u][v]++;
  LayerStats *ls = det_layer(m, k);
  if (sim_in_span(in->op, u) && m->t > ls->last_end) ls->last_end = m->t;
  m->remaining--;
  m->ended = 1;
}

int det_observing(const Det *m) {
  const Sim *s = m->s;
  return s->n_obs && m->t >= s->win_from && (!s->win_to || m->t < s->win_to);
}

void det_observe(Det *m, SnapMode mode, const AccWrite *wlog, int writes, int chain) {
  Sim *s = m->s;
  ArraySnap snap = {.cycle = m->t,
                    .mode = mode,
                    .rows = m->a->rows,
                    .cols = m->a->cols,
                    .pe = m->cu.snap,
                    .acc = writes ? wlog : NULL,
                    .writes = writes,
                    .chain = chain};
  for (int i = 0; i < s->n_obs; i++) {
    ArrayObserver *o = s->obs[i];
    if (!o->stopped && o->cycle(o, &snap)) o->stopped = 1;
  }
}

void det_ready(Det *m, Unit u, uint32_t k) {
  if (records_times(m, u, k)) m->s->times[k].ready = m->t + 1;
}

// 1 when every channel named in the head's POP holds a token; *missing = first one that does not.
static int tokens_ok(const Det *m, Unit u, const Insn *in, int *missing) {
  int64_t pop = insn_field(in, FLD_POP);
  for (int v = 0; v < NUM_UNITS; v++)
    if (((pop >> v) & 1) && m->tokens[v][u] == 0) {
      if (missing) *missing = v;
      return 0;
    }
  return 1;
}

static int unit_can_start(const Det *m, Unit u, const Insn *in) {
  switch (u) {
  case UNIT_LOAD: return det_load_can_start(m, in);
  case UNIT_COMPUTE: return det_compute_can_start(m, in);
  case UNIT_STORE: return det_store_can_start(m, in);
  case UNIT_SFU: return det_sfu_can_start(m, in);
  case UNIT_ALL:
  case UNIT_FETCH: break;
  }
  return 0;
}

// Step 3: the unit starts its queue head if it can.
static void unit_try_start(Det *m, Unit u) {
  InsnQueue *q = &m->q[u];
  if (!q->count) return;
  uint32_t k = q->entry[q->head];
  const Insn *in = &m->insns[k];
  if (!unit_can_start(m, u, in) || !tokens_ok(m, u, in, NULL)) return;
  int64_t pop = insn_field(in, FLD_POP);
  for (int v = 0; v < NUM_UNITS; v++)
    if ((pop >> v) & 1) m->tokens[v][u]--;
  q->head = (q->head + 1) % q->cap;
  q->count--;
  if (in->op == OP_LAYER) m->unit_layer[u] = in->f[FLD_LAYER_ID];
  m->insn_layer[k] = m->unit_layer[u];
  if (records_times(m, u, k)) {
    m->s->times[k].start = m->t;
    m->s->times[k].stall = 0;
  }
  m->s->stats.unit[u].insns++;
  LayerStats *ls = det_layer(m, k);
  if (!ls->seen && sim_in_span(in->op, u)) {
    ls->seen = 1;
    ls->first_start = ls->last_end = m->t;
  }
  m->inside[u] = 1;
  switch (u) {
  case UNIT_LOAD: det_load_start(m, k); break;
  case UNIT_COMPUTE: det_compute_start(m, k); break;
  case UNIT_STORE: det_store_start(m, k); break;
  case UNIT_SFU: det_sfu_start(m, k); break;
  case UNIT_ALL:
  case UNIT_FETCH: break;
  }
}

// Step 2: fetch decides. Returns 1 when it moved (fetched an instruction or HALT).
static int fetch_decide(Det *m) {
  m->fetched = -1;
  if (m->halted || m->pc >= m->p->n_insns) return 0;
  uint32_t k = m->pc;
  Unit route = isa_ops[m->insns[k].op].unit;
  InsnTime *tm = &m->s->times[k];
  if (route == UNIT_FETCH) {   // HALT: s = e = f, ready = f + 1 (TIMING §8)
    tm->fetch = tm->start = tm->end = m->t;
    tm->ready = m->t + 1;
    m->halted = 1;
    m->pc++;
    return 1;
  }
  for (int v = 0; v < NUM_UNITS; v++)
    if (sim_routed_to(route, v) && m->q[v].count >= m->q[v].cap) {
      m->s->stats.fetch_stall++;
      return 0;
    }
  tm->fetch = m->t;
  m->fetched = k;
  m->pc++;
  return 1;
}

static void fetch_commit(Det *m) {
  if (m->fetched < 0) return;
  uint32_t k = (uint32_t)m->fetched;
  Unit route = isa_ops[m->insns[k].op].unit;
  for (int v = 0; v < NUM_UNITS; v++) {
    InsnQueue *q = &m->q[v];
    if (!sim_routed_to(route, v)) continue;
    q->entry[(q->head + q->count) % q->cap] = k;
    q->count++;
  }
}

// Step 7: the unit's state in this cycle (TIMING §9), counted for the unit and the layer of the
// instruction executing or waited for (the unit's current layer in both cases).
static void unit_classify(Det *m, Unit u) {
  SimUnitState st = SIM_UST_IDLE;
  if (m->inside[u]) {
    st = m->stall[u] ? SIM_UST_WAIT_RESOURCE : SIM_UST_BUSY;
  } else if (m->q[u].count) {
    const Insn *head = &m->insns[m->q[u].entry[m->q[u].head]];
    st = tokens_ok(m, u, head, NULL) ? SIM_UST_WAIT_RESOURCE : SIM_UST_WAIT_TOKEN;
  }
  sim_count_unit_state(m->s, m->unit_layer[u], u, st);
  if (m->log) m->log->state[u] = st;
}

// Step 7: this cycle's pushes become visible at t + 1.
static int tokens_commit(Det *m) {
  for (int u = 0; u < NUM_UNITS; u++)
    for (int v = 0; v < NUM_UNITS; v++) {
      m->tokens[u][v] += m->pushes[u][v];
      m->pushes[u][v] = 0;
      if (m->tokens[u][v] > m->a->token_max)
        return diag_error(m->d, "sim: error: token overflow on channel %s->%s at cycle %llu (tokens.max %u)",
                          isa_unit_names[u], isa_unit_names[v], (unsigned long long)(m->t + 1), m->a->token_max);
    }
  return 0;
}

// One clock. Returns 1 if anything moved, 0 if the machine is frozen, -1 on a runtime error.
static int det_cycle(Det *m) {
  for (int u = 0; u < NUM_UNITS; u++) m->inside[u] = m->stall[u] = 0;
  m->ended = m->landed = 0;
  uint32_t pc_before = m->pc;
  int moved = fetch_decide(m);
  m->halted_now = m->pc != pc_before && m->halted;
  for (int u = 0; u < NUM_UNITS; u++) unit_try_start(m, (Unit)u);
  DramReq rd, wr, grd, gwr;
  DramResp rd_resp, wr_resp, grd_resp, gwr_resp;
  int rd_ok = 0, wr_ok = 0, grd_ok = 0, gwr_ok = 0;
  det_load_request(m, &rd, &grd);
  det_store_request(m, &wr, &gwr);
  dram_cycle(m->dram, &rd, &wr, &rd_resp, &wr_resp, &rd_ok, &wr_ok);
  dram_cycle(m->gbuf, &grd, &gwr, &grd_resp, &gwr_resp, &grd_ok, &gwr_ok);
  det_load_update(m, &rd_resp, &grd_resp, rd_ok || grd_ok);
  det_compute_update(m);
  det_store_update(m, &wr_resp, &gwr_resp, wr_ok || gwr_ok);
  det_sfu_update(m);
  if (m->log) {
    SimCycleLog *lg = m->log;
    lg->cycle = m->t;
    lg->fetched = m->fetched;
    lg->halt_fetched = m->halted_now;
    lg->rd_accepted = rd_ok;
    lg->rd_addr = rd.addr;
    lg->wr_accepted = wr_ok;
    if (wr_ok) lg->wr = wr;
    lg->gbuf_rd_accepted = grd_ok;
    lg->gbuf_rd_addr = grd_ok ? grd.addr : 0;
    lg->gbuf_wr_accepted = gwr_ok;
    if (gwr_ok) lg->gbuf_wr = gwr;
  }
  for (int u = 0; u < NUM_UNITS; u++) {
    unit_classify(m, (Unit)u);
    moved |= m->inside[u];
  }
  fetch_commit(m);
  if (m->oom) return diag_error(m->d, "sim: error: out of memory");
  if (tokens_commit(m)) return -1;
  moved |= m->ended || m->landed || rd_resp.valid || wr_resp.valid || !dram_idle(m->dram) || grd_resp.valid || gwr_resp.valid ||
           !dram_idle(m->gbuf);
  // Real progress, for the watchdog in sim_detailed_run: something fetched, ended, streamed, or a
  // beat moved. No legal state goes long without one.
  m->progressed = m->fetched >= 0 || m->halted_now || m->ended || m->landed || rd_ok || wr_ok || rd_resp.valid || wr_resp.valid ||
                  grd_ok || gwr_ok || grd_resp.valid || gwr_resp.valid || m->inside[UNIT_COMPUTE] ||
                  m->inside[UNIT_SFU];
  moved |= det_load_active(m) || det_compute_active(m) || det_store_active(m) || det_sfu_active(m);
  return moved;
}

// Appends "; " (after the first) and a formatted note to msg.
static void note_append(char *msg, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note_append(char *msg, size_t cap, size_t *len, const char *fmt, ...) {
  if (*len + 3 >= cap) return;
  if (*len) {
    memcpy(msg + *len, "; ", 3);
    *len += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg + *len, cap - *len, fmt, ap);
  va_end(ap);
  if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

// Nothing moved in cycle t and nothing ever will: names each blocked unit and what it waits on.
static int report_deadlock(Det *m) {
  if (!m->halted && m->pc >= m->p->n_insns) return diag_error(m->d, "sim: error: the program has no HALT");
  char msg[400] = "";
  size_t len = 0;
  for (int u = 0; u < NUM_UNITS; u++) {
    if (!m->q[u].count) continue;
    uint32_t k = m->q[u].entry[m->q[u].head];
    const Insn *in = &m->insns[k];
    int v = 0;
    if (!tokens_ok(m, (Unit)u, in, &v))
      note_append(msg, sizeof msg, &len, "%s waits at insn %u (%s) for a token on %s->%s", isa_unit_names[u], k,
                  isa_ops[in->op].name, isa_unit_names[v], isa_unit_names[u]);
    else
      note_append(msg, sizeof msg, &len, "%s waits at insn %u (%s) for %s", isa_unit_names[u], k,
                  isa_ops[in->op].name, u == UNIT_COMPUTE ? det_compute_blocker(m, in) : "nothing");
  }
  if (!m->halted && m->pc < m->p->n_insns) {
    const Insn *in = &m->insns[m->pc];
    Unit route = isa_ops[in->op].unit;
    for (int v = 0; v < NUM_UNITS; v++)
      if (sim_routed_to(route, v) && m->q[v].count >= m->q[v].cap) {
        note_append(msg, sizeof msg, &len, "fetch waits at insn %u (%s) for space in the %s queue", m->pc,
                    isa_ops[in->op].name, isa_unit_names[v]);
        break;
      }
  }
  if (!len) note_append(msg, sizeof msg, &len, "%llu instruction copies never ended", (unsigned long long)m->remaining);
  return diag_error(m->d, "sim: error: deadlock at cycle %llu: %s", (unsigned long long)m->t, msg);
}


static void det_free(Det *m) {
  for (int u = 0; u < NUM_UNITS; u++) free(m->q[u].entry);
  free(m->insn_layer);
  free((void *)m->insns);
  dram_free(m->dram);
  dram_free(m->gbuf);
  det_load_free(m);
  det_compute_free(m);
  det_store_free(m);
  det_sfu_free(m);
}

static int det_init(Det *m, Sim *s, Diag *d) {
  memset(m, 0, sizeof *m);
  m->s = s;
  m->a = s->arch;
  m->p = s->prog;
  m->d = d;
  m->fetched = -1;
  for (int u = 0; u < NUM_UNITS; u++) {
    m->unit_layer[u] = -1;
    m->q[u].cap = m->a->queue_depth[u] ? m->a->queue_depth[u] : 1;
    m->q[u].entry = calloc(m->q[u].cap, sizeof(uint32_t));
  }
  m->insn_layer = calloc(m->p->n_insns ? m->p->n_insns : 1, sizeof(int64_t));
  Insn *insns = malloc((m->p->n_insns ? m->p->n_insns : 1) * sizeof *insns);
  for (uint32_t k = 0; insns && k < m->p->n_insns; k++) insns[k] = prog_insn(m->p, k);
  m->insns = insns;
  m->dram = dram_new(m->a, s->dram);
  m->gbuf = dram_new_gbuf(m->a, s->gbuf);
  int rc = !m->insn_layer || !m->insns || !m->dram || !m->gbuf;
  for (int u = 0; u < NUM_UNITS; u++) rc |= !m->q[u].entry;
  rc |= det_load_init(m) != 0;
  rc |= det_compute_init(m) != 0;
  rc |= det_store_init(m) != 0;
  rc |= det_sfu_init(m) != 0;
  if (rc) return diag_error(d, "sim: error: out of memory");
  for (uint32_t k = 0; k < m->p->n_insns; k++) {
    Unit route = isa_ops[m->insns[k].op].unit;
    m->remaining += (uint64_t)sim_unit_copies(route);
  }
  return 0;
}

// The engine fills every statistic and time from zero.
static void reset_results(Sim *s) {
  stats_reset(&s->stats);
  memset(s->times, 0, (s->prog->n_insns ? s->prog->n_insns : 1) * sizeof *s->times);
}

struct SimDetStep {
  Det m;
  Sim *s;
  Diag *d;
  uint64_t patience, last_progress;
  int rc;        // an error happened (init or run)
  int finished;  // the program ended (cycles set) or an error was reported
};

SimDetStep *sim_detailed_begin(Sim *s, Diag *d) {
  reset_results(s);
  SimDetStep *st = calloc(1, sizeof *st);
  if (!st) {
    diag_error(d, "sim: error: out of memory");
    return NULL;
  }
  st->s = s;
  st->d = d;
  st->rc = det_init(&st->m, s, d);
  // Watchdog: the longest legal stretch without progress is about one DRAM latency plus an array
  // drain and a pooling window; far past that, the engine itself is stuck (a bug), so stop.
  const Arch *a = s->arch;
  st->patience =
      4 * ((uint64_t)a->dram_latency + a->gbuf_latency + 2 * (a->rows + a->cols) + a->post_latency + 256) + 1024;
  return st;
}

int sim_detailed_step(SimDetStep *st, SimCycleLog *log) {
  Det *m = &st->m;
  Sim *s = st->s;
  Diag *d = st->d;
  if (st->rc) return -1;
  if (st->finished) return 0;
  if (s->max_cycles && m->t >= s->max_cycles) {
    st->rc = sim_cycle_limit_error(s, d);
    return -1;
  }
  m->log = log;
  int moved = det_cycle(m);
  m->log = NULL;
  int rc = 0, done = 0;
  if (m->progressed) st->last_progress = m->t;
  if (moved >= 0 && m->t - st->last_progress > st->patience) {
    st->rc = diag_error(d, "sim: internal error: the detailed engine made no progress from cycle %llu to %llu",
                        (unsigned long long)st->last_progress, (unsigned long long)m->t);
    return -1;
  }
  if (moved < 0) {
    rc = -1;
  } else if (m->halted && m->remaining == 0) {
    stats_finish(&s->stats, m->t + 1);
    done = 1;
    // The layers' pe_cycles are counted per row as it enters, the slots PE by PE: a check.
    if (m->pe_slots != s->stats.pe_cycles)
      rc = diag_error(d, "sim: internal error: %llu array slots used, the layers count %llu",
                      (unsigned long long)m->pe_slots, (unsigned long long)s->stats.pe_cycles);
  } else if (!moved) {
    rc = report_deadlock(m);
  }
  if (!done && s->progress && m->t % SIM_PROGRESS_CYCLES == SIM_PROGRESS_CYCLES - 1)
    fprintf(s->progress, "sasim: cycle %llu, %u of %u instructions fetched\n", (unsigned long long)m->t + 1, m->pc,
            s->prog->n_insns);
  m->t++;
  if (rc) {
    st->rc = -1;
    return -1;
  }
  if (done) st->finished = 1;
  return done ? 0 : 1;
}

void sim_detailed_end(SimDetStep *st) {
  if (!st) return;
  det_free(&st->m);
  free(st);
}

int sim_detailed_run(Sim *s, Diag *d) {
  SimDetStep *st = sim_detailed_begin(s, d);
  if (!st) return -1;
  int r;
  while ((r = sim_detailed_step(st, NULL)) == 1) {
  }
  sim_detailed_end(st);
  return r < 0 ? -1 : 0;
}
