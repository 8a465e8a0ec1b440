// fast.c: the fast engine. Per-instruction exact timing from the closed forms of docs/TIMING.md,
// evaluated only at the cycles where something can happen (a start, a fetch, a token arriving);
// the data of each instruction is moved in one go when it starts (legal programs are race-free,
// so that is the same as moving it over its cycles), and COMPUTE (and COMPUTE_IS, which only
// writes its sums elsewhere) uses a bulk int8 GEMM kernel. An SFU instruction's rows are computed
// and written at its start too (sfu_exec.c, shared with the detailed engine).
// For that kernel the engine keeps the scratchpad and the accumulator transposed (column-major:
// one array of rows per column), so its inner loop runs along the M rows of a COMPUTE, as a
// host GEMM's does; the machine's row-major memories are written back when the run ends.
// The detailed engine (detailed.c) must agree with it on every byte, time and counter.
#include <stdlib.h>
#include <string.h>

#include "../isa/grow.h"
#include "../isa/numerics.h"
#include "fast_par.h"
#include "sfu_exec.h"
#include "sim_internal.h"
#include "stats.h"

#define NEVER UINT64_MAX

// One instruction queue and the unit that drains it. Entries are decoded when fetched, into a
// ring as deep as the queue: the program stays in its 16-byte words (isa.h InsnWord).
typedef struct {
  Insn *insn;             // decoded entries, ring of mask + 1 (LAYER appears in all four queues)
  uint32_t *entry;        // their instruction indices, same ring
  uint32_t mask;          // ring size - 1 (a power of two above the queue depth)
  uint32_t n;             // entries fetched
  uint32_t head;          // entries started
  uint64_t last_start;    // start cycle of the last started entry (head > 0)
  uint64_t free_at;       // `ready` of the last started instruction
  int64_t layer;          // current layer, -1 before any LAYER
} Queue;

// A token channel: visible-from cycles of pushed tokens not yet popped, ascending.
typedef struct {
  uint64_t *t;
  uint32_t n, cap;
} Channel;

// One unit's beats, on DRAM and the global buffer (TIMING §5a): the issue cycles of its last F
// DRAM beats (the in-flight limit counts DRAM beats only), the issue cycle of its last beat on
// either memory (one beat per cycle) and that beat's response cycle (responses in issue order).
typedef struct {
  uint64_t *ring;         // F entries: issue cycles of the last F DRAM beats
  uint64_t count;         // DRAM beats issued so far
  uint64_t issued;        // beats issued so far on either memory
  uint64_t last;          // issue cycle of the last beat (valid when issued > 0)
  uint64_t resp;          // A of the last beat: its response cycle (valid when issued > 0)
  uint32_t F, L;          // DRAM in-flight limit, latency
  uint32_t Lg;            // global buffer latency
} BeatChannel;

typedef struct {
  Sim *s;
  const Arch *a;
  const Program *p;
  Diag *d;
  Queue q[NUM_UNITS];
  Channel ch[NUM_UNITS * NUM_UNITS];   // [from * 3 + to]
  BeatChannel rd, wr;
  uint32_t fetch_k;                    // next instruction to fetch
  uint64_t fetch_next;                 // earliest cycle of the next fetch
  uint64_t halt_cycle;                 // fetch cycle of HALT, NEVER before
  uint64_t max_end;                    // latest end so far
  // Compute unit state.
  uint64_t n_preloads;                 // PRELOADs started
  uint64_t last_preload_start;
  uint64_t bank_ready[2];              // first cycle a COMPUTE may use the bank
  uint64_t bank_free[2];               // first cycle a PRELOAD may refill the bank (its last stream's last row + C)
  uint64_t stream_end;                 // s + ROWS of the last COMPUTE or COMPUTE_IS: the stream sequencer is free
  uint32_t bank_k[2];                  // preloaded ROWS of each bank
  int16_t *bank16[2];                  // the banks widened to int16 for the kernel, [r][c]
  uint64_t ws_free;                    // e + 1 of the last PRELOAD, COMPUTE or COMPUTE_IS (COMPUTE_OS rule a)
  uint64_t compute_free;               // e + 1 of the last COMPUTE (COMPUTE_IS rule c)
  uint64_t is_free;                    // e + 1 of the last COMPUTE_IS (COMPUTE's rule; alignment (d) lapses)
  uint64_t is_start;                   // s of the last COMPUTE_IS (alignment rule (d))
  uint32_t *is_sum;                    // scratch: one COMPUTE_IS's sums, [c][m], COLS x ROWS (wrapping)
  size_t is_sum_cap;                   // elements allocated for is_sum
  uint64_t os_free;                    // e + 1 of the last COMPUTE_OS (mode switch)
  uint64_t os_drain;                   // s + KLEN + R of the last COMPUTE_OS (drain rule)
  uint32_t *os_sum;                    // scratch: one COMPUTE_OS's R x C sums (wrapping)
  int8_t *spad_t;                      // scratchpad, transposed: [r][row], R columns
  uint32_t *acc_t;                     // accumulator, transposed: [c][row], C columns (wraps)
  size_t spad_stride, acc_stride;      // elements from one column to the next
  unsigned bus_log2;                   // log2 of dram.bus_bytes (a power of two)
  unsigned gbuf_log2;                  // log2 of gbuf.bus_bytes (a power of two)
  // Configuration registers (latched by each instruction at its start).
  Insn cfg_load, cfg_store, cfg_pool;
  SfuRegs sfu_regs;                    // CFG_SFU
  int32_t *sfu_out;                    // scratch: one SFU row's results
  size_t sfu_out_cap;                  // elements allocated for sfu_out
  uint64_t *fifo_last;                 // store FIFO: last-beat issue cycle of recent rows, D entries
  uint8_t *bytes;                      // scratch: one post-processed row
  uint8_t *tile;                       // scratch: the rows gathered by one LOAD
  uint64_t tile_cap;                   // bytes allocated for tile
  FastPar *par;                        // the second thread of the bulk kernel, started on first need
  int par_failed;                      // it could not be started: one thread
} Fast;

static int chan_push(Fast *f, int ch, uint64_t visible) {
  Channel *c = &f->ch[ch];
  if (c->n == c->cap) {
    size_t nc = grow_cap(c->cap, (size_t)c->n + 1, 16, sizeof *c->t, UINT32_MAX);
    uint64_t *nt = nc ? realloc(c->t, nc * sizeof *nt) : NULL;
    if (!nt) return diag_error(f->d, "sim: error: out of memory");
    c->t = nt;
    c->cap = (uint32_t)nc;
  }
  uint32_t i = c->n++;
  while (i > 0 && c->t[i - 1] > visible) {
    c->t[i] = c->t[i - 1];
    i--;
  }
  c->t[i] = visible;
  return 0;
}

static void chan_pop(Channel *c) {
  memmove(c->t, c->t + 1, (c->n - 1) * sizeof *c->t);
  c->n--;
}

// --- DRAM beats --------------------------------------------------------------------------------

// n beats issued in consecutive cycles t - n + 1 .. t, each with latency lat: beat b answers in
// A_b = max(I_b + lat, A_(b-1) + 1) (TIMING §5a: in issue order, one per cycle). Both terms grow
// by one from one beat to the next, so the last answers in max(t + lat, A of the beat before + n).
static void beat_respond(BeatChannel *b, uint64_t t, uint32_t lat, uint64_t n) {
  uint64_t A = t + lat;
  if (b->issued && b->resp + n > A) A = b->resp + n;
  b->resp = A;
  b->issued += n;
  b->last = t;
}

// Issues one DRAM beat no earlier than `earliest`; returns its issue cycle (TIMING §5, §7, §5a).
static uint64_t beat_issue(BeatChannel *b, uint64_t earliest) {
  uint64_t t = earliest;
  if (b->issued && b->last + 1 > t) t = b->last + 1;
  if (b->count >= b->F) {
    uint64_t slot = b->ring[b->count % b->F] + b->L;
    if (slot > t) t = slot;
  }
  b->ring[b->count % b->F] = t;
  b->count++;
  beat_respond(b, t, b->L, 1);
  return t;
}

// Issues one global-buffer beat no earlier than `earliest` (it never stalls: TIMING §5a).
static uint64_t gbeat_issue(BeatChannel *b, uint64_t earliest) {
  uint64_t t = earliest;
  if (b->issued && b->last + 1 > t) t = b->last + 1;
  beat_respond(b, t, b->Lg, 1);
  return t;
}

// Beats of 2^bus_log2 bytes that cover [addr, addr + len).
static uint64_t beats_covering(uint64_t addr, uint64_t len, unsigned bus_log2) {
  return ((addr + len - 1) >> bus_log2) - (addr >> bus_log2) + 1;
}

// memcpy for the short segments of a gather: whole 8-byte words inline, then the tail.
static void copy_short(uint8_t *dst, const uint8_t *src, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) memcpy(dst + i, src + i, 8);
  for (; i < n; i++) dst[i] = src[i];
}

// --- Instruction semantics and timing ----------------------------------------------------------
// Each exec_* moves the data, counts the work and returns `ready` and `end` through *t.

static uint32_t row_bytes(const Arch *a, int64_t mem) {
  switch (sim_mem_stat((uint32_t)mem)) {
  case MEM_ST_SPAD: return a->rows;
  case MEM_ST_WBUF: return a->cols;
  case MEM_ST_ACC: return a->cols;
  case MEM_ST_PARAM: return 4 * a->cols;
  }
  return 0;
}

// Transposes an 8x8 byte block: row i of the block is in[i * stride .. + 8); column j goes to
// out[j * ostride .. + 8). Three rounds of block swaps on 64-bit words (4x4, 2x2, 1x1), as in
// Hacker's Delight's transpose8, on bytes instead of bits. Byte j of a word is bits 8j..8j+7.
static void transpose8x8(const uint8_t *in, size_t stride, int8_t *out, size_t ostride) {
  uint64_t a[8];
  for (int i = 0; i < 8; i++) memcpy(&a[i], in + (size_t)i * stride, 8);   // little-endian host
  for (int i = 0; i < 4; i++) {
    uint64_t t = ((a[i] >> 32) ^ a[i + 4]) & 0x00000000FFFFFFFFull;
    a[i] ^= t << 32;
    a[i + 4] ^= t;
  }
  for (int i = 0; i < 8; i += (i % 4 == 1) ? 3 : 1) {   // i = 0, 1, 4, 5
    uint64_t t = ((a[i] >> 16) ^ a[i + 2]) & 0x0000FFFF0000FFFFull;
    a[i] ^= t << 16;
    a[i + 2] ^= t;
  }
  for (int i = 0; i < 8; i += 2) {
    uint64_t t = ((a[i] >> 8) ^ a[i + 1]) & 0x00FF00FF00FF00FFull;
    a[i] ^= t << 8;
    a[i + 1] ^= t;
  }
  for (int j = 0; j < 8; j++) memcpy(out + (size_t)j * ostride, &a[j], 8);
}

// A transposed LOAD (TIMING §5): byte b of row r goes to WBUF[DST + (r div C)*TSTRIDE + b][r mod C];
// nothing else is written. tile holds the rows r0..r0+rows-1, nbytes each.
static void commit_transposed(Fast *f, const Insn *in, const uint8_t *tile, uint64_t first, uint64_t rows,
                              uint32_t nbytes) {
  uint32_t C = f->a->cols;
  uint64_t dst = (uint64_t)in->f[FLD_DST], tstride = (uint64_t)in->f[FLD_TSTRIDE];
  for (uint64_t r = first; r < first + rows; r++) {
    int8_t *col = f->s->wbuf + (dst + (r / C) * tstride) * C + r % C;
    const uint8_t *src = tile + (r - first) * nbytes;
    for (uint32_t b = 0; b < nbytes; b++) col[(size_t)b * C] = (int8_t)src[b];
  }
}

// Writes a LOAD's gathered rows (rows x width bytes in tile) into its target memory. The
// transposed memories are written one column at a time, so every write stream is sequential.
// A transposed LOAD comes in chunks (exec_load): `first` is the LOAD row tile starts with.
static void commit_rows(Fast *f, const Insn *in, const uint8_t *tile, uint64_t first, uint64_t rows, uint32_t width,
                        uint32_t nbytes) {
  const Arch *a = f->a;
  uint64_t dst = (uint64_t)in->f[FLD_DST];
  if (in->f[FLD_TRANSPOSE]) {
    commit_transposed(f, in, tile, first, rows, nbytes);
    return;
  }
  switch (sim_mem_stat((uint32_t)in->f[FLD_MEM])) {
  case MEM_ST_SPAD: {
    uint64_t r0 = 0;
    if (a->rows % 8 == 0 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)   // whole 8x8 blocks first
      for (; r0 + 8 <= rows; r0 += 8)
        for (uint32_t k = 0; k < a->rows; k += 8)
          transpose8x8(tile + r0 * width + k, width, f->spad_t + (size_t)k * f->spad_stride + dst + r0, f->spad_stride);
    for (uint32_t k = 0; k < a->rows; k++) {
      int8_t *col = f->spad_t + (size_t)k * f->spad_stride + dst;
      for (uint64_t r = r0; r < rows; r++) col[r] = (int8_t)tile[r * width + k];
    }
    break;
  }
  case MEM_ST_WBUF:
    memcpy(f->s->wbuf + dst * a->cols, tile, rows * width);
    break;
  case MEM_ST_ACC: {
    int32_t mult = (int32_t)f->cfg_load.f[FLD_MULT];
    unsigned shift = (unsigned)f->cfg_load.f[FLD_SHIFT];
    int accum = (int)in->f[FLD_ACCUM];
    for (uint32_t k = 0; k < a->cols; k++) {
      uint32_t *col = f->acc_t + (size_t)k * f->acc_stride + dst;
      if (k >= nbytes) {   // beyond the loaded bytes: zero, or unchanged when accumulating
        if (!accum) memset(col, 0, rows * sizeof *col);
        continue;
      }
      for (uint64_t r = 0; r < rows; r++) {
        uint32_t v = (uint32_t)sa_load_scale((int8_t)tile[r * width + k], mult, shift);
        col[r] = accum ? col[r] + v : v;
      }
    }
    break;
  }
  case MEM_ST_PARAM:
    for (uint64_t r = 0; r < rows; r++) {
      int32_t *row = f->s->param + (dst + r) * a->cols;
      for (uint32_t k = 0; k < a->cols; k++) {
        const uint8_t *b = tile + r * width + 4 * k;
        row[k] = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
      }
    }
    break;
  }
}

static int exec_load(Fast *f, const Insn *in, InsnTime *t, LayerStats *ls) {
  const Arch *a = f->a;
  Sim *s = f->s;
  const int64_t *c = f->cfg_load.f;
  uint64_t inner = (uint64_t)in->f[FLD_INNER], rows = (uint64_t)in->f[FLD_OUTER] * inner;
  uint32_t nseg = (uint32_t)in->f[FLD_NSEG], seglen = (uint32_t)in->f[FLD_SEGLEN];
  uint32_t nbytes = nseg * seglen;
  uint32_t width = in->f[FLD_TRANSPOSE] ? nbytes : row_bytes(a, in->f[FLD_MEM]);   // transposed: no row limit
  int64_t mem = in->f[FLD_MEM];
  // The rows are gathered and committed in chunks of at most one WBUF's bytes: a plain LOAD's rows
  // fit its memory (prog_check), so it is one chunk; a transposed one may have 4095 x 4095 rows,
  // each rewriting the same WBUF columns (rows x width would be gigabytes). DRAM is only read and
  // WBUF only written, so the chunks give the same bytes as one pass.
  uint64_t chunk = rows;
  if (in->f[FLD_TRANSPOSE]) {
    uint64_t cap_rows = (uint64_t)a->wbuf_rows * a->cols / width;   // >= 1: width = nbytes <= WBUF rows
    if (cap_rows < 1) cap_rows = 1;
    if (chunk > cap_rows) chunk = cap_rows;
  }
  if (chunk * width > f->tile_cap) {
    uint8_t *nt = realloc(f->tile, chunk * width);
    if (!nt) return diag_error(f->d, "sim: error: out of memory");
    f->tile = nt;
    f->tile_cap = chunk * width;
  }
  uint64_t beats = 0, stall = 0;
  int gbuf = in->f[FLD_GBUF] != 0;
  const uint8_t *from_mem = gbuf ? s->gbuf : s->dram;
  unsigned log2 = gbuf ? f->gbuf_log2 : f->bus_log2;
  uint32_t lat = gbuf ? f->rd.Lg : f->rd.L;
  // The in-flight limit can never bind (TIMING §5; a global-buffer beat has none, §5a): the
  // beats issue back to back, and the ring of DRAM issue cycles is never consulted.
  int fast_beats = gbuf || f->rd.F >= f->rd.L;
  for (uint64_t r = 0, r0 = 0; r < rows; r++) {   // r0: the first row of the chunk in f->tile
    uint64_t o = r / inner, i = r % inner;
    uint8_t *row = f->tile + (r - r0) * width;
    memset(row + nbytes, 0, width - nbytes);
    for (uint32_t g = 0; g < nseg; g++) {
      uint64_t addr = (uint64_t)in->f[FLD_DRAM_ADDR] + o * (uint64_t)c[FLD_STRIDE_OUTER] +
                      i * (uint64_t)c[FLD_STRIDE_INNER] + g * (uint64_t)c[FLD_SEG_STRIDE];
      copy_short(row + (size_t)g * seglen, from_mem + addr, seglen);
      uint64_t n = beats_covering(addr, seglen, log2);
      if (fast_beats) {
        uint64_t from = beats == 0 ? t->start : f->rd.last + 1;
        if (!gbuf) f->rd.count += n;
        beat_respond(&f->rd, from + n - 1, lat, n);
      } else {
        for (uint64_t k = 0; k < n; k++) {
          uint64_t base = beats + k == 0 ? t->start : f->rd.last + 1;
          stall += beat_issue(&f->rd, base) - base;
        }
      }
      beats += n;
    }
    if (r + 1 == rows || r + 1 - r0 == chunk) {
      commit_rows(f, in, f->tile, r0, r + 1 - r0, width, nbytes);
      r0 = r + 1;
    }
  }
  MemStatId m = sim_mem_stat(mem);
  // A transposed LOAD touches NSEG*SEGLEN WBUF rows per block of C LOAD rows (TIMING §10).
  uint64_t written = in->f[FLD_TRANSPOSE] ? sim_transposed_load_rows(a, in) : rows;
  ls->mem_writes[m] += written;
  if (mem == MEM_ACC && in->f[FLD_ACCUM]) {
    ls->mem_reads[MEM_ST_ACC] += rows;
  }
  layer_count_read(ls, gbuf, beats, rows * nbytes);
  t->stall = stall;
  t->ready = f->rd.last + 1;
  t->end = f->rd.resp;
  return 0;
}

static void exec_preload(Fast *f, const Insn *in, InsnTime *t, LayerStats *ls) {
  const Arch *a = f->a;
  int b = (int)(f->n_preloads % 2);
  uint32_t k = (uint32_t)in->f[FLD_ROWS];
  size_t C = a->cols;
  int8_t *bank = f->s->bank[b];
  memcpy(bank, f->s->wbuf + (uint64_t)in->f[FLD_SRC] * C, k * C);   // rows beyond ROWS are zero
  memset(bank + k * C, 0, (a->rows - k) * C);
  for (size_t i = 0; i < (size_t)a->rows * C; i++) f->bank16[b][i] = bank[i];
  f->bank_k[b] = k;
  f->n_preloads++;
  f->last_preload_start = t->start;
  t->ready = t->start + 1;
  t->end = t->start + a->rows - 1;
  f->bank_ready[b] = t->end + 1;
  ls->mem_reads[MEM_ST_WBUF] += k;
  ls->preload_shifts += a->rows;
}

// The cycles of a COMPUTE or COMPUTE_IS stream of M rows on bank b (TIMING §6): the unit may issue
// again at s + M, or at s + 1 with OVERLAP (the stream sequencer keeps streaming); the bank may be
// refilled C cycles after the last row is read (the row-gated chain reaches PE row r only after
// the stream has left it); streams follow one another, so these grow with starts.
static void stream_times(Fast *f, const Insn *in, InsnTime *t, int b, uint32_t M) {
  const Arch *a = f->a;
  t->ready = in->f[FLD_OVERLAP] ? t->start + 1 : t->start + M;
  t->end = t->start + M - 1 + a->rows + a->cols - 1;
  f->stream_end = t->start + M;
  f->bank_free[b] = t->start + M - 1 + a->cols;
}

// The bulk kernel's 16-bit trick. An int8 x int8 product fits int16 (|p| <= 16384), and the sum
// of two lies in [-32512, 32768], so with PAIR_BIAS added it fits uint16 exactly: a pair of
// rows is multiplied and added in 16-bit lanes (8 per SSE2 register, where a 32-bit multiply
// has no SSE2 instruction), then zero-extended into the 32-bit sums. The bias of every pair
// is taken off the accumulator beforehand; sums wrap modulo 2^32 as the machine's adders do.
#define PAIR_BIAS 32512u

static inline uint32_t pair16(int16_t x0, int16_t w0, int16_t x1, int16_t w1) {
  return (uint16_t)((uint16_t)(x0 * w0) + (uint16_t)(x1 * w1) + PAIR_BIAS);
}

// acc[j][m] += sum over r of w[r][j] * x[r][m], for j < ncols (1 or 2). Two columns and four
// rows at a time (the fastest shape measured with SSE2, AVX2 and AVX-512): each widened
// activation feeds both columns. Leftover rows go in pairs, an odd last row on its own.
static void gemm_columns(uint32_t *acc0, size_t acc_stride, int ncols, const int8_t *x0, size_t xs,
                         const int16_t *w, uint32_t R, uint32_t C, uint32_t M) {
  uint32_t r = 0;
  if (ncols == 2) {
    uint32_t *restrict a0 = acc0, *restrict a1 = acc0 + acc_stride;
    for (; r + 4 <= R; r += 4) {
      const int16_t *wr = w + (size_t)r * C;
      int16_t w0 = wr[0], w1 = wr[C], w2 = wr[2 * C], w3 = wr[3 * C];
      int16_t v0 = wr[1], v1 = wr[C + 1], v2 = wr[2 * C + 1], v3 = wr[3 * C + 1];
      const int8_t *restrict xa = x0 + r * xs, *restrict xb = xa + xs, *restrict xc = xb + xs, *restrict xd = xc + xs;
      for (uint32_t m = 0; m < M; m++) {
        int16_t pa = xa[m], pb = xb[m], pc = xc[m], pd = xd[m];
        a0[m] += pair16(pa, w0, pb, w1) + pair16(pc, w2, pd, w3);
        a1[m] += pair16(pa, v0, pb, v1) + pair16(pc, v2, pd, v3);
      }
    }
  }
  for (; r + 2 <= R; r += 2)
    for (int j = 0; j < ncols; j++) {
      uint32_t *restrict aj = acc0 + (size_t)j * acc_stride;
      int16_t w0 = w[(size_t)r * C + (uint32_t)j], w1 = w[(size_t)(r + 1) * C + (uint32_t)j];
      const int8_t *restrict xa = x0 + r * xs, *restrict xb = xa + xs;
      for (uint32_t m = 0; m < M; m++) aj[m] += pair16(xa[m], w0, xb[m], w1);
    }
  if (r < R)
    for (int j = 0; j < ncols; j++) {
      uint32_t *restrict aj = acc0 + (size_t)j * acc_stride;
      int16_t wj = w[(size_t)r * C + (uint32_t)j];
      const int8_t *restrict xa = x0 + r * xs;
      for (uint32_t m = 0; m < M; m++) aj[m] += (uint32_t)(int32_t)(int16_t)(xa[m] * wj);
    }
}

// Columns [lo, hi) of one COMPUTE or COMPUTE_IS: out[c][m] (+)= sum over r of w[r][c] * x[r][m]
// (the bulk kernel), each column first started from, or offset by, the pairs' bias. Columns are
// independent, so a job may be split between two threads (fast_par.h) with the same result.
typedef struct {
  uint32_t *out;          // column c's M sums at out + c * out_stride
  size_t out_stride;
  const int8_t *x0;       // the streamed rows, transposed (spad_t + SRC)
  size_t xs;
  const int16_t *w;       // the bank, [r][c]
  uint32_t R, C, M, bias;
  int accum;              // 1: add onto the sums there; 0: start from zero
  uint32_t cols;          // columns 0 .. cols-1
} ColJob;

static void col_range(const ColJob *j, uint32_t lo, uint32_t hi) {
  for (uint32_t c = lo; c < hi; c++) {
    uint32_t *col = j->out + (size_t)c * j->out_stride;
    if (j->accum)
      for (uint32_t m = 0; m < j->M; m++) col[m] -= j->bias;
    else
      for (uint32_t m = 0; m < j->M; m++) col[m] = 0u - j->bias;
  }
  for (uint32_t c = lo; c < hi;) {
    int ncols = c + 2 <= hi ? 2 : 1;
    gemm_columns(j->out + (size_t)c * j->out_stride, j->out_stride, ncols, j->x0, j->xs, j->w + c, j->R, j->C, j->M);
    c += (uint32_t)ncols;
  }
}

// Chunk k of a job: the columns 2k and 2k + 1 (the kernel's pair), for fast_par_run.
static void col_chunk(void *ctx, uint32_t k) {
  const ColJob *j = ctx;
  uint32_t hi = 2 * k + 2 <= j->cols ? 2 * k + 2 : j->cols;
  col_range(j, 2 * k, hi);
}

// Runs a job over its columns, on two threads when it is big enough to pay for the hand-over
// (under a microsecond) and the run allows a second thread.
#define PAR_MIN_MACS 32768u
static void run_cols(Fast *f, const ColJob *j) {
  if (f->s->threads > 1 && j->cols >= 4 && (uint64_t)j->M * j->R * j->cols >= PAR_MIN_MACS) {
    if (!f->par && !f->par_failed && !(f->par = fast_par_new())) f->par_failed = 1;
    if (f->par) {
      fast_par_run(f->par, col_chunk, (void *)j, (j->cols + 1) / 2);
      return;
    }
  }
  col_range(j, 0, j->cols);
}

// ACC[acc_addr + m] (+)= SPAD[src + m] x W for m < M: the bulk kernel, column by column over the
// transposed memories, so its inner loops run along the M rows as a host GEMM's do.
static void exec_compute(Fast *f, const Insn *in, InsnTime *t, LayerStats *ls) {
  const Arch *a = f->a;
  int b = (int)((f->n_preloads - 1) % 2);
  uint32_t R = a->rows, C = a->cols, M = (uint32_t)in->f[FLD_ROWS];
  ColJob j = {f->acc_t + in->f[FLD_ACC_ADDR], f->acc_stride, f->spad_t + in->f[FLD_SRC], f->spad_stride,
              f->bank16[b], R, C, M, (R / 2) * PAIR_BIAS, in->f[FLD_ACCUM] != 0, C};
  run_cols(f, &j);
  stream_times(f, in, t, b, M);
  uint64_t macs = (uint64_t)M * f->bank_k[b] * C;
  ls->macs += macs;
  ls->pe_cycles += (uint64_t)M * R * C;
  ls->mem_reads[MEM_ST_SPAD] += M;
  ls->mem_writes[MEM_ST_ACC] += M;
  if (in->f[FLD_ACCUM]) ls->mem_reads[MEM_ST_ACC] += M;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

// COMPUTE_OS (TIMING §6): ACC[ACC_ADDR + m][c] (+)= sum over k < KLEN of A[m][k] x B[k][c], with
// A[m][j*R + i] = SPAD[SRC + j*KSTRIDE + m][i] and B[k][c] = WBUF[WSRC + k][c]. The sums are
// formed k by k over a row of B (a loop along C that compilers vectorize) and wrap modulo 2^32
// like the PE adders; the weight banks are not touched.
static int exec_compute_os(Fast *f, const Insn *in, InsnTime *t, LayerStats *ls) {
  const Arch *a = f->a;
  uint32_t R = a->rows, C = a->cols, M = (uint32_t)in->f[FLD_ROWS];
  uint64_t K = (uint64_t)in->f[FLD_KLEN], J = (K + R - 1) / R;
  uint64_t src = (uint64_t)in->f[FLD_SRC], kstride = (uint64_t)in->f[FLD_KSTRIDE];
  if (!f->os_sum && !(f->os_sum = malloc((size_t)R * C * sizeof *f->os_sum)))
    return diag_error(f->d, "sim: error: out of memory");
  uint32_t *sum = f->os_sum;
  memset(sum, 0, (size_t)M * C * sizeof *sum);
  const int8_t *B = f->s->wbuf + (uint64_t)in->f[FLD_WSRC] * C;
  for (uint64_t k = 0; k < K; k++, B += C) {
    uint64_t i = k % R, row = src + (k / R) * kstride;
    const int8_t *acol = f->spad_t + (size_t)i * f->spad_stride + row;   // A[0..M-1][k]
    for (uint32_t m = 0; m < M; m++) {
      int32_t x = acol[m];
      uint32_t *restrict out = sum + (size_t)m * C;
      for (uint32_t c = 0; c < C; c++) out[c] += (uint32_t)(x * B[c]);
    }
  }
  int accum = (int)in->f[FLD_ACCUM];
  uint64_t acc0 = (uint64_t)in->f[FLD_ACC_ADDR];
  for (uint32_t c = 0; c < C; c++) {
    uint32_t *col = f->acc_t + (size_t)c * f->acc_stride + acc0;
    for (uint32_t m = 0; m < M; m++) col[m] = accum ? col[m] + sum[(size_t)m * C + c] : sum[(size_t)m * C + c];
  }
  uint64_t st = t->start;
  t->ready = st + max_u64(K, (J - 1) * R + M);
  t->end = st + K + 2 * (uint64_t)R + C - 3;
  f->os_free = t->end + 1;
  f->os_drain = st + K + R;
  uint64_t macs = (uint64_t)M * K * C;
  ls->macs += macs;
  ls->pe_cycles += K * R * C;
  ls->mem_reads[MEM_ST_SPAD] += M * J;
  ls->mem_reads[MEM_ST_WBUF] += K;
  ls->mem_writes[MEM_ST_ACC] += M;
  if (accum) ls->mem_reads[MEM_ST_ACC] += M;
  return 0;
}

// COMPUTE_IS (TIMING §6): the COMPUTE stream with a transposed accumulator write. The sum of
// streamed row m, array column c (c < COLS) goes to ACC[ACC_ADDR + (m div C)*ASTRIDE + c][m mod C].
// The sums come from the bulk kernel into a scratch [c][m]; the writes then go in order of m (when
// ASTRIDE < COLS two of them can hit one element, and the later row wins, as in the array).
static int exec_compute_is(Fast *f, const Insn *in, InsnTime *t, LayerStats *ls) {
  const Arch *a = f->a;
  int b = (int)((f->n_preloads - 1) % 2);
  uint32_t R = a->rows, C = a->cols, M = (uint32_t)in->f[FLD_ROWS], cols = (uint32_t)in->f[FLD_COLS];
  size_t need = (size_t)cols * M;
  if (need > f->is_sum_cap) {
    uint32_t *n = realloc(f->is_sum, need * sizeof *n);
    if (!n) return diag_error(f->d, "sim: error: out of memory");
    f->is_sum = n;
    f->is_sum_cap = need;
  }
  uint32_t *sum = f->is_sum;
  ColJob j = {sum, M, f->spad_t + in->f[FLD_SRC], f->spad_stride, f->bank16[b], R, C, M, (R / 2) * PAIR_BIAS, 0, cols};
  run_cols(f, &j);
  int accum = (int)in->f[FLD_ACCUM];
  uint64_t acc0 = (uint64_t)in->f[FLD_ACC_ADDR], astride = (uint64_t)in->f[FLD_ASTRIDE];
  for (uint32_t m = 0; m < M; m++) {
    uint32_t *row = f->acc_t + (size_t)(m % C) * f->acc_stride + acc0 + (m / C) * astride;   // bank m mod C
    for (uint32_t c = 0; c < cols; c++) row[c] = accum ? row[c] + sum[(size_t)c * M + m] : sum[(size_t)c * M + m];
  }
  stream_times(f, in, t, b, M);
  f->is_free = t->end + 1;
  f->is_start = t->start;
  uint64_t macs = (uint64_t)M * f->bank_k[b] * cols, acc_rows = sim_compute_is_acc_rows(a, in);
  ls->macs += macs;
  ls->pe_cycles += (uint64_t)M * R * C;
  ls->mem_reads[MEM_ST_SPAD] += M;
  ls->mem_writes[MEM_ST_ACC] += acc_rows;
  if (accum) {
    ls->mem_reads[MEM_ST_ACC] += acc_rows;
  }
  return 0;
}

// COMPUTE_IS rule (d): the earliest cycle from t on at which the stream is aligned with the last
// COMPUTE_IS y ((s - s_y) mod C = 0) or y has ended (s >= e_y + 1).
static uint64_t is_align(const Fast *f, uint64_t t) {
  if (t == NEVER || t >= f->is_free) return t;   // is_free is 0 before any COMPUTE_IS
  uint64_t off = (t - f->is_start) % f->a->cols;
  if (off == 0) return t;
  uint64_t next = t + f->a->cols - off;
  return next < f->is_free ? next : f->is_free;
}

// COMPUTE_OS's structural condition: the array has left weight-stationary mode (a), and the
// previous COMPUTE_OS's drain ends before this one's begins (b): s + KLEN >= s_o + K_o + R.
static uint64_t os_struct_time(const Fast *f, const Insn *in) {
  uint64_t K = (uint64_t)in->f[FLD_KLEN], t = f->ws_free;
  if (f->os_drain > K && f->os_drain - K > t) t = f->os_drain - K;
  return t;
}

static uint32_t acc_at(const Fast *f, uint64_t row, uint32_t c) {
  return f->acc_t[(size_t)c * f->acc_stride + row];
}

// Post-processes output row (o, i) of a STORE into f->bytes; returns the acc rows it read.
static uint32_t post_row(Fast *f, const Insn *in, uint64_t o, uint64_t i) {
  const Arch *a = f->a;
  const Sim *s = f->s;
  const int64_t *cs = f->cfg_store.f, *cp = f->cfg_pool.f;
  uint32_t C = a->cols, cols = (uint32_t)in->f[FLD_COLS];
  int64_t pool = cp[FLD_POOL];
  uint64_t src = (uint64_t)in->f[FLD_SRC];
  if (in->f[FLD_RAW32]) {
    uint64_t row = src + o * (uint64_t)in->f[FLD_INNER] + i;
    for (uint32_t c = 0; c < cols; c++)
      for (int k = 0; k < 4; k++) f->bytes[4 * c + (uint32_t)k] = (uint8_t)(acc_at(f, row, c) >> (8 * k));
    return 1;
  }
  const int32_t *prm = cs[FLD_PARAMS] ? s->param + (uint64_t)cs[FLD_PROW] * C : NULL;
  unsigned act = (unsigned)cs[FLD_ACT];
  int8_t lo = (int8_t)cs[FLD_CLAMP_LO], hi = (int8_t)cs[FLD_CLAMP_HI];
  if (pool == POOL_NONE) {
    uint64_t row = src + o * (uint64_t)in->f[FLD_INNER] + i;
    for (uint32_t c = 0; c < cols; c++) {
      int32_t bias = prm ? prm[c] : 0, mult = prm ? prm[C + c] : 1;
      unsigned shift = prm ? (unsigned)prm[2 * C + c] & 63u : 0;
      f->bytes[c] = (uint8_t)sa_post((int32_t)acc_at(f, row, c), bias, mult, shift, act, lo, hi);
    }
    return 1;
  }
  int64_t y0 = (int64_t)o * cp[FLD_SH] - cp[FLD_PAD_T], x0 = (int64_t)i * cp[FLD_SW] - cp[FLD_PAD_L];
  uint32_t reads = 0;
  for (uint32_t c = 0; c < cols; c++) {
    int32_t bias = prm ? prm[c] : 0, mult = prm ? prm[C + c] : 1;
    unsigned shift = prm ? (unsigned)prm[2 * C + c] & 63u : 0;
    int8_t best = -128;
    int64_t sum = 0;
    reads = 0;
    for (int64_t dy = 0; dy < cp[FLD_KH]; dy++)
      for (int64_t dx = 0; dx < cp[FLD_KW]; dx++) {
        int64_t y = y0 + dy, x = x0 + dx;
        if (y < 0 || y >= cp[FLD_IN_H] || x < 0 || x >= cp[FLD_IN_W]) continue;
        int32_t v = (int32_t)acc_at(f, src + (uint64_t)(y * cp[FLD_IN_W] + x), c);
        reads++;
        if (pool == POOL_MAX) {
          int8_t q = sa_post(v, bias, mult, shift, act, lo, hi);
          if (q > best) best = q;
        } else {
          sum += sa_sat32((int64_t)v + bias);
        }
      }
    f->bytes[c] = (uint8_t)(pool == POOL_MAX ? best : sa_activate(sa_requant(sa_sat32(sum), mult, shift), act, lo, hi));
  }
  return reads;
}

static void exec_store(Fast *f, const Insn *in, InsnTime *t, LayerStats *ls) {
  const Arch *a = f->a;
  Sim *s = f->s;
  const int64_t *cs = f->cfg_store.f, *cp = f->cfg_pool.f;
  uint64_t inner = (uint64_t)in->f[FLD_INNER], rows = (uint64_t)in->f[FLD_OUTER] * inner;
  uint64_t W = (!in->f[FLD_RAW32] && cp[FLD_POOL] != POOL_NONE) ? (uint64_t)(cp[FLD_KH] * cp[FLD_KW]) : 1;
  uint64_t nbytes = (uint64_t)in->f[FLD_COLS] * (in->f[FLD_RAW32] ? 4 : 1);
  uint32_t D = a->store_fifo_rows, S = a->post_latency;
  uint64_t P = 0, stall = 0, beats = 0, acc_reads = 0;
  int gbuf = in->f[FLD_GBUF] != 0;
  for (uint64_t j = 0; j < rows; j++) {
    uint64_t o = j / inner, i = j % inner;
    // Front end (TIMING §7): reads in P .. P+W-1, limited by the FIFO.
    uint64_t free_j = j < D ? t->start : f->fifo_last[j % D] + 1;
    P = j == 0 ? t->start : P + W;
    if (free_j > P) P = free_j;
    uint64_t rdy = P + W - 1 + S;
    acc_reads += post_row(f, in, o, i);
    uint64_t addr = (uint64_t)in->f[FLD_DRAM_ADDR] + o * (uint64_t)cs[FLD_STRIDE_OUTER] + i * (uint64_t)cs[FLD_STRIDE_INNER];
    memcpy((gbuf ? s->gbuf : s->dram) + addr, f->bytes, nbytes);
    uint64_t n = beats_covering(addr, nbytes, gbuf ? f->gbuf_log2 : f->bus_log2);
    for (uint64_t k = 0; k < n; k++) {
      uint64_t base = rdy;
      if (beats + k > 0 && f->wr.last + 1 > base) base = f->wr.last + 1;
      stall += (gbuf ? gbeat_issue(&f->wr, base) : beat_issue(&f->wr, base)) - base;
    }
    beats += n;
    f->fifo_last[j % D] = f->wr.last;
  }
  ls->mem_reads[MEM_ST_ACC] += acc_reads;
  if (!in->f[FLD_RAW32] && cs[FLD_PARAMS]) {
    ls->mem_reads[MEM_ST_PARAM] += 3;
  }
  if (!in->f[FLD_RAW32]) {
    ls->post_elems += acc_reads * (uint64_t)in->f[FLD_COLS];
  }
  layer_count_write(ls, gbuf, beats, rows * nbytes);
  t->stall = stall;
  t->ready = f->wr.last + 1;
  t->end = f->wr.resp;
}

// --- Scheduling --------------------------------------------------------------------------------

static Unit queue_unit_of(const Program *p, uint32_t k) { return isa_ops[prog_op(p, k)].unit; }

// Cycle from which every token the instruction pops is available, or NEVER.
static uint64_t token_time(const Fast *f, Unit u, const Insn *in) {
  uint64_t t = 0;
  if (!isa_has_field(in->op, FLD_POP)) return 0;
  for (int v = 0; v < NUM_UNITS; v++) {
    if (!((in->f[FLD_POP] >> v) & 1)) continue;
    const Channel *c = &f->ch[v * NUM_UNITS + (int)u];
    if (c->n == 0) return NEVER;
    if (c->t[0] > t) t = c->t[0];
  }
  return t;
}

// An SFU instruction (TIMING §7a): D = ROWS x (cycles per row) + P, ready = s + D, e = s + D - 1;
// its rows are computed and written at the start (the unit runs one instruction at a time, and
// whatever reads its results pops its token, so it starts after e).
static int exec_sfu(Fast *f, const Insn *in, InsnTime *t, LayerStats *ls) {
  const Arch *a = f->a;
  uint64_t D = sfu_duration(a, in), n = sfu_row_out_len(a, in);
  t->ready = t->start + D;
  t->end = t->start + D - 1;
  if (n > f->sfu_out_cap) {
    int32_t *o = realloc(f->sfu_out, n * sizeof *o);
    if (!o) return diag_error(f->d, "sim: error: out of memory");
    f->sfu_out = o;
    f->sfu_out_cap = n;
  }
  SfuMem m = {(int32_t *)f->acc_t, 1, f->acc_stride, f->s->param};
  for (uint32_t r = 0; r < (uint32_t)in->f[FLD_ROWS]; r++) {
    sfu_row_compute(a, &f->sfu_regs, in, &m, r, f->sfu_out);
    sfu_row_write(a, in, &m, r, f->sfu_out);
  }
  sfu_count(a, in, ls);
  return 0;
}

// Cycle from which the structural condition of TIMING §6 holds.
static uint64_t struct_time(const Fast *f, const Insn *in) {
  switch (in->op) {
  case OP_PRELOAD: {
    int b = (int)(f->n_preloads % 2);
    uint64_t t = f->bank_free[b];
    if (f->n_preloads && f->last_preload_start + f->a->rows > t) t = f->last_preload_start + f->a->rows;
    return max_u64(t, f->os_free);
  }
  case OP_COMPUTE:
    return max_u64(max_u64(max_u64(f->bank_ready[(f->n_preloads - 1) % 2], f->os_free), f->is_free), f->stream_end);
  case OP_COMPUTE_IS:   // rules (a)-(c) and the stream sequencer; (d), which is not monotone in s, is is_align's
    return max_u64(max_u64(max_u64(f->bank_ready[(f->n_preloads - 1) % 2], f->os_free), f->compute_free), f->stream_end);
  case OP_COMPUTE_OS: return os_struct_time(f, in);
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
  case OP_HALT: break;   // no structural condition: only the queue and tokens
  }
  return 0;
}

// Earliest cycle the head of unit u may start, NEVER if it waits for something unknown yet.
static uint64_t head_time(const Fast *f, Unit u) {
  const Queue *q = &f->q[u];
  if (q->head == q->n) return NEVER;
  uint32_t k = q->entry[q->head & q->mask];
  const Insn *in = &q->insn[q->head & q->mask];
  uint64_t t = f->s->times[k].fetch + 1;
  if (q->free_at > t) t = q->free_at;
  uint64_t st = struct_time(f, in), tk = token_time(f, u, in);
  if (st > t) t = st;
  if (tk > t) t = tk;
  return in->op == OP_COMPUTE_IS ? is_align(f, t) : t;
}

// Counts the unit-state cycles between the previous instruction and this start (TIMING §9).
static void account_wait(Fast *f, Unit u, uint32_t k, const Insn *in, uint64_t s, LayerStats *ls) {
  Queue *q = &f->q[u];
  UnitStats *us = &f->s->stats.unit[u];
  uint64_t from = q->free_at, avail = f->s->times[k].fetch + 1;
  if (u == UNIT_COMPUTE && f->stream_end > from) {   // an OVERLAP stream still reads rows: busy
    uint64_t to = f->stream_end < s ? f->stream_end : s;
    sim_layer(f->s, q->layer)->busy[u] += to - from;
    from = to;
  }
  if (avail > from) {
    us->idle += avail - from;
    from = avail;
  }
  uint64_t tk = token_time(f, u, in);
  if (tk > s) tk = s;
  if (tk > from) {
    ls->wait_token[u] += tk - from;
    from = tk;
  }
  ls->wait_resource[u] += s - from;
}

static int start_insn(Fast *f, Unit u, uint64_t s) {
  Queue *q = &f->q[u];
  uint32_t k = q->entry[q->head & q->mask];
  const Insn *in = &q->insn[q->head & q->mask];
  InsnTime tm = f->s->times[k];
  int64_t layer = in->op == OP_LAYER ? in->f[FLD_LAYER_ID] : q->layer;
  LayerStats *ls = sim_layer(f->s, layer);
  account_wait(f, u, k, in, s, ls);
  if (isa_has_field(in->op, FLD_POP))
    for (int v = 0; v < NUM_UNITS; v++)
      if ((in->f[FLD_POP] >> v) & 1) chan_pop(&f->ch[v * NUM_UNITS + (int)u]);
  tm.start = s;
  tm.stall = 0;
  tm.ready = s + 1;
  tm.end = s;
  switch (in->op) {
  case OP_LOAD:
    if (exec_load(f, in, &tm, ls)) return -1;
    break;
  case OP_CFG_LOAD: f->cfg_load = *in; break;
  case OP_PRELOAD: exec_preload(f, in, &tm, ls); f->ws_free = max_u64(f->ws_free, tm.end + 1); break;
  case OP_COMPUTE:
    exec_compute(f, in, &tm, ls);
    f->ws_free = max_u64(f->ws_free, tm.end + 1);
    f->compute_free = tm.end + 1;
    break;
  case OP_COMPUTE_OS:
    if (exec_compute_os(f, in, &tm, ls)) return -1;
    break;
  case OP_COMPUTE_IS:
    if (exec_compute_is(f, in, &tm, ls)) return -1;
    f->ws_free = max_u64(f->ws_free, tm.end + 1);
    break;
  case OP_STORE: exec_store(f, in, &tm, ls); break;
  case OP_CFG_STORE: f->cfg_store = *in; break;
  case OP_CFG_POOL: f->cfg_pool = *in; break;
  case OP_CFG_SFU: sfu_regs_set(&f->sfu_regs, in); break;
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:
    if (exec_sfu(f, in, &tm, ls)) return -1;
    break;
  case OP_LAYER: q->layer = layer; break;
  case OP_HALT: break;
  }
  f->s->stats.unit[u].insns++;
  ls->busy[u] += tm.ready - s - tm.stall;
  ls->wait_resource[u] += tm.stall;
  if (sim_in_span(in->op, u)) {
    if (!ls->seen || s < ls->first_start) ls->first_start = s;
    if (!ls->seen || tm.end > ls->last_end) ls->last_end = tm.end;
    ls->seen = 1;
  }
  if (in->op != OP_LAYER || u == UNIT_LOAD) f->s->times[k] = tm;
  q->last_start = s;
  q->head++;
  q->free_at = tm.ready;
  if (tm.end > f->max_end) f->max_end = tm.end;
  if (isa_has_field(in->op, FLD_PUSH))
    for (int v = 0; v < NUM_UNITS; v++)
      if ((in->f[FLD_PUSH] >> v) & 1)
        if (chan_push(f, (int)u * NUM_UNITS + v, tm.end + 1)) return -1;
  return 0;
}

// Entries in u's queue at the start of cycle t (an entry started in t still counts).
static uint32_t occupancy(const Queue *q, uint64_t t) {
  uint32_t n = q->n - q->head;
  if (q->head && q->last_start >= t) n++;
  return n;
}

static int fetch_fits(const Fast *f, uint64_t t) {
  Unit u = queue_unit_of(f->p, f->fetch_k);
  if (u == UNIT_FETCH) return 1;
  for (int v = 0; v < NUM_UNITS; v++)
    if (sim_routed_to(u, v) && occupancy(&f->q[v], t) >= f->a->queue_depth[v]) return 0;
  return 1;
}

static void fetch_one(Fast *f, uint64_t t) {
  uint32_t k = f->fetch_k++;
  Unit u = queue_unit_of(f->p, k);
  f->s->stats.fetch_stall += t - f->fetch_next;
  f->s->times[k].fetch = t;
  f->fetch_next = t + 1;
  if (u == UNIT_FETCH) {
    f->halt_cycle = t;
    f->s->times[k].start = f->s->times[k].end = t;
    f->s->times[k].ready = t + 1;
    return;
  }
  for (int v = 0; v < NUM_UNITS; v++)
    if (sim_routed_to(u, v)) {
      Queue *q = &f->q[v];
      q->entry[q->n & q->mask] = k;
      isa_unpack(&f->p->code[k], &q->insn[q->n & q->mask]);
      q->n++;
    }
}

// Token counts may never pass tokens.max: checked at every evaluated cycle, which covers every
// cycle because counts only fall at starts, and starts happen only at evaluated cycles. Reports
// the earliest overflow over all channels (ties in channel order, as the detailed engine does).
static int check_overflow(Fast *f, uint64_t t) {
  int worst = -1;
  uint64_t first = NEVER;
  for (int c = 0; c < NUM_UNITS * NUM_UNITS; c++) {
    const Channel *ch = &f->ch[c];
    if (ch->n <= f->a->token_max) continue;
    uint64_t when = ch->t[f->a->token_max];
    if (when <= t && when < first) {
      first = when;
      worst = c;
    }
  }
  if (worst < 0) return 0;
  return diag_error(f->d, "sim: error: token overflow on channel %s->%s at cycle %llu (tokens.max %u)",
                    isa_unit_names[worst / NUM_UNITS], isa_unit_names[worst % NUM_UNITS], (unsigned long long)first,
                    f->a->token_max);
}

static int report_deadlock(Fast *f, uint64_t t) {
  char msg[400];
  int n = 0;
  for (int u = 0; u < NUM_UNITS; u++) {
    const Queue *q = &f->q[u];
    if (q->head == q->n) continue;
    uint32_t k = q->entry[q->head & q->mask];
    n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s waits at insn %u (%s) for a token", n ? "; " : "",
                  isa_unit_names[u], k, isa_ops[prog_op(f->p, k)].name);
    if (n >= (int)sizeof msg) break;
  }
  return diag_error(f->d, "sim: error: deadlock at cycle %llu: %s", (unsigned long long)t, msg);
}

static int fast_alloc(Fast *f) {
  const Arch *a = f->a;
  for (int u = 0; u < NUM_UNITS; u++) {
    uint32_t size = 2;   // holds the unstarted entries, at most queue_depth (fetch_fits)
    while (size <= a->queue_depth[u]) size *= 2;
    f->q[u].mask = size - 1;
    f->q[u].entry = calloc(size, sizeof(uint32_t));
    f->q[u].insn = calloc(size, sizeof(Insn));
    f->q[u].layer = -1;
    if (!f->q[u].entry || !f->q[u].insn) return -1;
  }
  f->rd = (BeatChannel){.ring = calloc(a->dram_inflight, sizeof(uint64_t)), .F = a->dram_inflight,
                        .L = a->dram_latency, .Lg = a->gbuf_latency};
  f->wr = (BeatChannel){.ring = calloc(a->dram_inflight, sizeof(uint64_t)), .F = a->dram_inflight,
                        .L = a->dram_latency, .Lg = a->gbuf_latency};
  f->bank16[0] = calloc((size_t)a->rows * a->cols, sizeof(int16_t));
  f->bank16[1] = calloc((size_t)a->rows * a->cols, sizeof(int16_t));
  // Column strides a little off the (usually power-of-two) row counts, so that the columns do
  // not all fall into the same cache sets.
  while ((1u << f->bus_log2) < a->bus_bytes) f->bus_log2++;
  while ((1u << f->gbuf_log2) < a->gbuf_bus_bytes) f->gbuf_log2++;
  f->spad_stride = (size_t)a->spad_rows + 64;
  f->acc_stride = (size_t)a->acc_rows + 16;
  f->spad_t = calloc((size_t)a->rows * f->spad_stride, 1);
  f->acc_t = calloc((size_t)a->cols * f->acc_stride, sizeof(uint32_t));
  f->fifo_last = calloc(a->store_fifo_rows, sizeof(uint64_t));
  f->bytes = calloc(4 * (size_t)(a->cols > a->rows ? a->cols : a->rows), 1);
  if (!f->rd.ring || !f->wr.ring || !f->bank16[0] || !f->bank16[1] || !f->spad_t || !f->acc_t ||
      !f->fifo_last || !f->bytes)
    return -1;
  f->cfg_load.op = OP_CFG_LOAD;
  f->cfg_store.op = OP_CFG_STORE;
  f->cfg_pool.op = OP_CFG_POOL;
  f->halt_cycle = NEVER;
  return 0;
}

static void fast_free(Fast *f) {
  for (int u = 0; u < NUM_UNITS; u++) {
    free(f->q[u].entry);
    free(f->q[u].insn);
  }
  for (int c = 0; c < NUM_UNITS * NUM_UNITS; c++) free(f->ch[c].t);
  free(f->rd.ring);
  free(f->wr.ring);
  free(f->bank16[0]);
  free(f->bank16[1]);
  free(f->spad_t);
  free(f->acc_t);
  free(f->fifo_last);
  free(f->bytes);
  free(f->tile);
  free(f->os_sum);
  free(f->is_sum);
  free(f->sfu_out);
  fast_par_free(f->par);
}

static int fast_loop(Fast *f) {
  uint64_t t = 0;
  for (;;) {
    if (check_overflow(f, t)) return -1;
    for (int u = 0; u < NUM_UNITS; u++)
      if (head_time(f, (Unit)u) == t && start_insn(f, (Unit)u, t)) return -1;
    if (f->halt_cycle == NEVER && f->fetch_k < f->p->n_insns && f->fetch_next <= t && fetch_fits(f, t))
      fetch_one(f, t);
    // The next cycle at which anything can happen.
    uint64_t next = NEVER;
    for (int u = 0; u < NUM_UNITS; u++) {
      uint64_t h = head_time(f, (Unit)u);
      if (h < next) next = h;
    }
    if (f->halt_cycle == NEVER && f->fetch_k < f->p->n_insns && fetch_fits(f, t + 1) && t + 1 < next) next = t + 1;
    if (next == NEVER) {
      int drained = f->halt_cycle != NEVER;
      for (int u = 0; u < NUM_UNITS; u++) drained &= f->q[u].head == f->q[u].n;
      if (drained) return 0;
      if (f->halt_cycle == NEVER && f->fetch_k >= f->p->n_insns)
        return diag_error(f->d, "sim: error: the program has no HALT");
      // Tokens already pushed still become visible while the machine is stuck: an overflow among
      // them happens first (the detailed engine runs on into it).
      if (check_overflow(f, NEVER - 1)) return -1;
      return report_deadlock(f, t);
    }
    if (f->s->max_cycles && next >= f->s->max_cycles) return sim_cycle_limit_error(f->s, f->d);
    t = next;
  }
}

// Leaves the machine's row-major memories as the run left them.
static void write_back(Fast *f) {
  const Arch *a = f->a;
  for (uint32_t row = 0; row < a->spad_rows; row++)
    for (uint32_t r = 0; r < a->rows; r++) f->s->spad[(size_t)row * a->rows + r] = f->spad_t[(size_t)r * f->spad_stride + row];
  for (uint32_t row = 0; row < a->acc_rows; row++)
    for (uint32_t c = 0; c < a->cols; c++) f->s->acc[(size_t)row * a->cols + c] = (int32_t)acc_at(f, row, c);
}

int sim_fast_run(Sim *s, Diag *d) {
  Fast f;
  memset(&f, 0, sizeof f);
  f.s = s;
  f.a = s->arch;
  f.p = s->prog;
  f.d = d;
  int rc = fast_alloc(&f) ? diag_error(d, "sim: error: out of memory") : fast_loop(&f);
  if (rc == 0) rc = check_overflow(&f, NEVER - 1);
  uint64_t last = f.max_end > f.halt_cycle ? f.max_end : f.halt_cycle;
  if (rc == 0 && s->max_cycles && last >= s->max_cycles) rc = sim_cycle_limit_error(s, d);
  if (rc == 0) {
    SimStats *st = &s->stats;
    Queue *cq = &f.q[UNIT_COMPUTE];
    if (f.stream_end > cq->free_at) {   // the last OVERLAP stream's rows after the unit's last start
      sim_layer(s, cq->layer)->busy[UNIT_COMPUTE] += f.stream_end - cq->free_at;
      cq->free_at = f.stream_end;
    }
    stats_finish(st, last + 1);
    for (int u = 0; u < NUM_UNITS; u++) st->unit[u].idle += st->cycles - f.q[u].free_at;
    write_back(&f);
  }
  fast_free(&f);
  return rc;
}
