// gemmprog.c: a tiled, token-synchronised GEMM program for any arch (see gemmprog.h), and its
// naive reference.
//
// Tiling. K is cut in k-tiles of KT = min(array.rows, WBUF half) rows, N in column tiles of
// array.cols, M in row tiles of TM rows. An output tile (n-tile, m-tile) is accumulated in one
// ACC half over its K chunks; a chunk is up to KC k-tiles whose A rows (SPAD) and B rows (WBUF)
// are loaded together into one half of SPAD and WBUF. Chunk g uses SPAD/WBUF half g % NB, output
// tile j uses ACC half j % NB, n-tile n uses PARAM rows 3 * (n % NBP) (NB = 2 when double
// buffering, else 1).
//
// Tokens (every pusher is a LOAD, COMPUTE or STORE, whose end is never earlier than the end of
// any instruction before it in its unit, so "k tokens popped" means "the k-th pusher is done"):
//   load -> compute   last LOAD of chunk g          popped by chunk g's first PRELOAD (RAW SPAD, WBUF)
//   compute -> load   last COMPUTE of chunk g      popped by chunk g+NB's first CFG_LOAD (WAR)
//   compute -> store  last COMPUTE of tile j       popped by tile j's STORE (RAW ACC)
//   store -> compute  STORE of tile j              popped by tile j+NB's first PRELOAD (WAR ACC)
//   load -> store     PARAM LOAD of n-tile n       popped by n's first CFG_STORE (RAW PARAM)
//   store -> load     last STORE of n-tile n       popped by the PARAM LOAD of n-tile n+NBP (WAR)
// Program order: the loads of chunks 0..NB-1, then for each chunk g its PRELOAD/COMPUTE pairs,
// the STORE of its tile when g ends one, then the loads of chunk g+NB. Every pop thus follows its
// push in program order, which with in-order units rules out deadlock.
#include "gemmprog.h"

#include <stdlib.h>
#include <string.h>

#include "../../isa/numerics.h"

#define UNIT_BIT(u) (1 << (u))
#define ALIGN 64u

// splitmix64: a tiny seeded generator (same seed, same bytes on every host).
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t align_up(uint64_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }
static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

uint64_t gemmprog_c_bytes(const GemmSpec *g) { return (uint64_t)g->M * g->N * (g->raw32 ? 4 : 1); }

int gemmprog_data_new(const GemmSpec *g, GemmData *out) {
  memset(out, 0, sizeof *out);
  uint64_t s = g->seed;
  out->A = malloc((size_t)g->M * g->K);
  out->B = malloc((size_t)g->K * g->N);
  out->bias = malloc((size_t)g->N * sizeof(int32_t));
  out->mult = malloc((size_t)g->N * sizeof(int32_t));
  out->shift = malloc((size_t)g->N * sizeof(int32_t));
  if (!out->A || !out->B || !out->bias || !out->mult || !out->shift) {
    gemmprog_data_free(out);
    return -1;
  }
  for (uint64_t i = 0; i < (uint64_t)g->M * g->K; i++) out->A[i] = (int8_t)rng_next(&s);
  for (uint64_t i = 0; i < (uint64_t)g->K * g->N; i++) out->B[i] = (int8_t)rng_next(&s);
  // Parameters that spread typical sums over the int8 range, with some saturation and some
  // negative multipliers.
  for (uint32_t n = 0; n < g->N; n++) {
    out->bias[n] = (int32_t)(rng_next(&s) % 8193) - 4096;
    out->mult[n] = (int32_t)(4096 + rng_next(&s) % 28672);
    if (rng_next(&s) % 8 == 0) out->mult[n] = -out->mult[n];
    out->shift[n] = (int32_t)(12 + rng_next(&s) % 13);
  }
  return 0;
}

void gemmprog_data_free(GemmData *dat) {
  free(dat->A);
  free(dat->B);
  free(dat->bias);
  free(dat->mult);
  free(dat->shift);
  memset(dat, 0, sizeof *dat);
}

void gemmprog_reference(const GemmSpec *g, const int8_t *A, const int8_t *B, const int32_t *bias,
                        const int32_t *mult, const int32_t *shift, void *Cout) {
  for (uint32_t m = 0; m < g->M; m++)
    for (uint32_t n = 0; n < g->N; n++) {
      int32_t sum = 0;
      for (uint32_t k = 0; k < g->K; k++)
        sum = sa_wrap_add32(sum, sa_wrap_mul8(A[(uint64_t)m * g->K + k], B[(uint64_t)k * g->N + n]));
      uint64_t at = (uint64_t)m * g->N + n;
      if (g->raw32)
        ((int32_t *)Cout)[at] = sum;
      else
        ((int8_t *)Cout)[at] =
            sa_post(sum, bias[n], mult[n], (unsigned)shift[n] & 63u, g->act, g->clamp_lo, g->clamp_hi);
    }
}

// --- The builder -------------------------------------------------------------------------------

typedef struct {
  const Arch *a;
  const GemmSpec *g;
  Program *p;
  Diag *d;
  int oom;                      // an allocation failed
  uint32_t nb, nbp;             // buffer halves: SPAD/WBUF/ACC, PARAM (0 when raw32)
  uint32_t spad_half, wbuf_half, acc_half;
  uint32_t kt, nk, kc, nkc;     // k-tile rows, k-tiles, k-tiles per chunk, chunks per output tile
  uint32_t tm, nm, nn;          // m-tile rows, m-tiles, n-tiles
  uint32_t n_chunks, n_tiles;
  uint64_t a_addr, b_addr, p_addr, c_addr;   // DRAM layout
} Gb;

static Insn insn(Opcode op) {
  Insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  return in;
}

static void emit(Gb *b, const Insn *in) {
  if (prog_add_insn(b->p, in)) b->oom = 1;
}

static void emit_cfg_load(Gb *b, int64_t pop, uint64_t stride_outer, uint64_t stride_inner) {
  Insn in = insn(OP_CFG_LOAD);
  in.f[FLD_POP] = pop;
  in.f[FLD_STRIDE_OUTER] = (int64_t)stride_outer;
  in.f[FLD_STRIDE_INNER] = (int64_t)stride_inner;
  in.f[FLD_MULT] = 1;
  emit(b, &in);
}

static Insn load(int64_t mem, uint64_t dst, uint64_t addr, uint32_t outer, uint32_t inner, uint32_t seglen) {
  Insn in = insn(OP_LOAD);
  in.f[FLD_MEM] = mem;
  in.f[FLD_DST] = (int64_t)dst;
  in.f[FLD_DRAM_ADDR] = (int64_t)addr;
  in.f[FLD_OUTER] = outer;
  in.f[FLD_INNER] = inner;
  in.f[FLD_NSEG] = 1;
  in.f[FLD_SEGLEN] = seglen;
  return in;
}

// Where chunk g sits: its output tile, its first k-tile and how many k-tiles it holds.
typedef struct {
  uint32_t tile, ni, mi, ci;    // output tile j = ni * nm + mi, chunk ci of it
  uint32_t m0, mt, n0, nt;      // rows and columns of the output tile
  uint32_t t0, ntiles;          // k-tiles t0 .. t0 + ntiles - 1
} Chunk;

static Chunk chunk_at(const Gb *b, uint32_t g) {
  Chunk c;
  c.tile = g / b->nkc;
  c.ci = g % b->nkc;
  c.ni = c.tile / b->nm;
  c.mi = c.tile % b->nm;
  c.m0 = c.mi * b->tm;
  c.mt = min_u32(b->tm, b->g->M - c.m0);
  c.n0 = c.ni * b->a->cols;
  c.nt = min_u32(b->a->cols, b->g->N - c.n0);
  c.t0 = c.ci * b->kc;
  c.ntiles = min_u32(b->kc, b->nk - c.t0);
  return c;
}

static uint32_t ktile_rows(const Gb *b, uint32_t t) { return min_u32(b->kt, b->g->K - t * b->kt); }

// A rows into SPAD (k-tile-major: row tl * mt + m), B rows into WBUF (row tl * kt + r).
static void emit_chunk_loads(Gb *b, uint32_t g) {
  Chunk c = chunk_at(b, g);
  uint32_t half = g % b->nb, K = b->g->K, N = b->g->N;
  uint64_t spad = (uint64_t)half * b->spad_half, wbuf = (uint64_t)half * b->wbuf_half;
  uint32_t full = c.ntiles;
  if (ktile_rows(b, c.t0 + c.ntiles - 1) < b->kt) full--;
  emit_cfg_load(b, g >= b->nb ? UNIT_BIT(UNIT_COMPUTE) : 0, b->kt, K);
  uint64_t a_at = b->a_addr + (uint64_t)c.m0 * K + (uint64_t)c.t0 * b->kt;
  Insn in;
  if (full) {
    in = load(MEM_SPAD, spad, a_at, full, c.mt, b->kt);
    emit(b, &in);
  }
  if (full < c.ntiles) {
    in = load(MEM_SPAD, spad + (uint64_t)full * c.mt, a_at + (uint64_t)full * b->kt, 1, c.mt,
              ktile_rows(b, c.t0 + full));
    emit(b, &in);
  }
  emit_cfg_load(b, 0, N, 0);
  uint32_t k_first = c.t0 * b->kt, k_rows = 0;
  for (uint32_t t = 0; t < c.ntiles; t++) k_rows += ktile_rows(b, c.t0 + t);
  uint32_t max_outer = (uint32_t)isa_field_max(FLD_OUTER);
  for (uint32_t r = 0; r < k_rows; r += max_outer) {
    uint32_t n = min_u32(max_outer, k_rows - r);
    in = load(MEM_WBUF, wbuf + r, b->b_addr + (uint64_t)(k_first + r) * N + c.n0, n, 1, c.nt);
    if (r + n == k_rows) in.f[FLD_PUSH] = UNIT_BIT(UNIT_COMPUTE);
    emit(b, &in);
  }
}

static void emit_chunk_computes(Gb *b, uint32_t g) {
  Chunk c = chunk_at(b, g);
  uint32_t half = g % b->nb, acc_half = c.tile % b->nb;
  uint64_t spad = (uint64_t)half * b->spad_half, wbuf = (uint64_t)half * b->wbuf_half;
  for (uint32_t tl = 0; tl < c.ntiles; tl++) {
    Insn in = insn(OP_PRELOAD);
    in.f[FLD_SRC] = (int64_t)(wbuf + (uint64_t)tl * b->kt);
    in.f[FLD_ROWS] = ktile_rows(b, c.t0 + tl);
    if (tl == 0) {
      in.f[FLD_POP] = UNIT_BIT(UNIT_LOAD);
      if (c.ci == 0 && c.tile >= b->nb) in.f[FLD_POP] |= UNIT_BIT(UNIT_STORE);
    }
    emit(b, &in);
    in = insn(OP_COMPUTE);
    in.f[FLD_SRC] = (int64_t)(spad + (uint64_t)tl * c.mt);
    in.f[FLD_ACC_ADDR] = (int64_t)acc_half * b->acc_half;
    in.f[FLD_ROWS] = c.mt;
    in.f[FLD_ACCUM] = !(c.ci == 0 && tl == 0);
    if (tl == c.ntiles - 1) {
      if (g + b->nb < b->n_chunks) in.f[FLD_PUSH] |= UNIT_BIT(UNIT_LOAD);
      if (c.ci == b->nkc - 1) in.f[FLD_PUSH] |= UNIT_BIT(UNIT_STORE);
    }
    emit(b, &in);
  }
}

// Bias, multiplier and shift rows of n-tile ni into PARAM rows 3 * (ni % nbp).
static void emit_param_load(Gb *b, uint32_t ni) {
  uint32_t N = b->g->N, n0 = ni * b->a->cols, nt = min_u32(b->a->cols, N - n0);
  emit_cfg_load(b, ni >= b->nbp ? UNIT_BIT(UNIT_STORE) : 0, 4ull * N, 0);
  Insn in = load(MEM_PARAM, 3ull * (ni % b->nbp), b->p_addr + 4ull * n0, 3, 1, 4 * nt);
  in.f[FLD_PUSH] = UNIT_BIT(UNIT_STORE);
  emit(b, &in);
}

static void emit_tile_store(Gb *b, uint32_t j) {
  Chunk c = chunk_at(b, j * b->nkc);
  const GemmSpec *g = b->g;
  uint32_t esize = g->raw32 ? 4 : 1;
  Insn in = insn(OP_CFG_STORE);
  if (!g->raw32) {
    in.f[FLD_ACT] = g->act;
    in.f[FLD_PARAMS] = 1;
    in.f[FLD_PROW] = 3 * (c.ni % b->nbp);
    if (g->act == ACT_CLAMP) {
      in.f[FLD_CLAMP_LO] = g->clamp_lo;
      in.f[FLD_CLAMP_HI] = g->clamp_hi;
    }
    if (c.mi == 0) in.f[FLD_POP] = UNIT_BIT(UNIT_LOAD);
  }
  in.f[FLD_STRIDE_OUTER] = (int64_t)g->N * esize;
  emit(b, &in);
  int free_params = !g->raw32 && c.mi == b->nm - 1 && c.ni + b->nbp < b->nn;
  in = insn(OP_STORE);
  in.f[FLD_RAW32] = g->raw32 != 0;
  in.f[FLD_SRC] = (int64_t)(j % b->nb) * b->acc_half;
  in.f[FLD_DRAM_ADDR] = (int64_t)(b->c_addr + ((uint64_t)c.m0 * g->N + c.n0) * esize);
  in.f[FLD_OUTER] = c.mt;
  in.f[FLD_INNER] = 1;
  in.f[FLD_COLS] = c.nt;
  in.f[FLD_POP] = UNIT_BIT(UNIT_COMPUTE);
  if (j + b->nb < b->n_tiles) in.f[FLD_PUSH] |= UNIT_BIT(UNIT_COMPUTE);
  if (free_params) in.f[FLD_PUSH] |= UNIT_BIT(UNIT_LOAD);
  emit(b, &in);
  if (free_params) emit_param_load(b, c.ni + b->nbp);
}

// Picks the tile sizes and the DRAM layout; reports what does not fit.
static int plan(Gb *b) {
  const Arch *a = b->a;
  const GemmSpec *g = b->g;
  if (!g->M || !g->K || !g->N) return diag_error(b->d, "gemmprog: error: M, K and N must be at least 1");
  if (!g->raw32 && g->act != ACT_NONE && g->act != ACT_RELU && g->act != ACT_CLAMP)
    return diag_error(b->d, "gemmprog: error: unknown activation %u", g->act);
  if (!g->raw32 && g->act == ACT_CLAMP && g->clamp_lo > g->clamp_hi)
    return diag_error(b->d, "gemmprog: error: clamp bounds %d > %d", g->clamp_lo, g->clamp_hi);
  b->nb = g->double_buffer ? 2 : 1;
  b->nbp = g->raw32 ? 1 : (g->double_buffer && a->param_rows >= 6 ? 2 : 1);
  b->spad_half = a->spad_rows / b->nb;
  b->wbuf_half = a->wbuf_rows / b->nb;
  b->acc_half = a->acc_rows / b->nb;
  if (!b->spad_half || !b->wbuf_half || !b->acc_half)
    return diag_error(b->d, "gemmprog: error: arch \"%s\" memories are too small to split in %u halves", a->name,
                      b->nb);
  uint32_t max_cnt = (uint32_t)isa_field_max(FLD_OUTER);   // OUTER and INNER are 12-bit counts
  b->kt = min_u32(a->rows, b->wbuf_half);
  b->nk = ceil_div(g->K, b->kt);
  uint32_t kc = g->k_tiles ? g->k_tiles : b->nk;
  kc = min_u32(kc, b->nk);
  kc = min_u32(kc, b->wbuf_half / b->kt);
  kc = min_u32(kc, max_cnt);
  // Leave room for m-tiles of a useful height: at least min(M, 64) rows when SPAD allows.
  uint32_t want_m = min_u32(g->M, 64);
  if (b->spad_half / kc < want_m) kc = b->spad_half / want_m;
  if (kc == 0) kc = 1;
  kc = min_u32(kc, b->spad_half);
  b->kc = kc;
  b->nkc = ceil_div(b->nk, kc);
  uint32_t tm = g->tile_m ? g->tile_m : g->M;
  tm = min_u32(tm, g->M);
  tm = min_u32(tm, b->spad_half / kc);
  tm = min_u32(tm, b->acc_half);
  tm = min_u32(tm, max_cnt);
  b->tm = tm;
  b->nm = ceil_div(g->M, tm);
  b->nn = ceil_div(g->N, a->cols);
  b->n_tiles = b->nm * b->nn;
  b->n_chunks = b->n_tiles * b->nkc;
  uint32_t esize = g->raw32 ? 4 : 1;
  b->a_addr = 0;
  b->b_addr = align_up(b->a_addr + (uint64_t)g->M * g->K);
  b->p_addr = align_up(b->b_addr + (uint64_t)g->K * g->N);
  b->c_addr = align_up(b->p_addr + (g->raw32 ? 0 : 12ull * g->N));
  uint64_t end = b->c_addr + (uint64_t)g->M * g->N * esize;
  if (end > a->dram_bytes)
    return diag_error(b->d, "gemmprog: error: %ux%ux%u needs %llu bytes of DRAM, arch \"%s\" has %llu", g->M, g->K,
                      g->N, (unsigned long long)end, a->name, (unsigned long long)a->dram_bytes);
  if (end > (uint64_t)isa_field_max(FLD_DRAM_ADDR) + 1)
    return diag_error(b->d, "gemmprog: error: DRAM layout of %llu bytes passes the 32-bit DRAM_ADDR",
                      (unsigned long long)end);
  if (g->K > isa_field_max(FLD_STRIDE_INNER) || 4ull * g->N > (uint64_t)isa_field_max(FLD_STRIDE_OUTER))
    return diag_error(b->d, "gemmprog: error: K=%u or N=%u too large for the LOAD/STORE stride fields", g->K, g->N);
  return 0;
}

static void add_tensor(Gb *b, const char *name, DType dt, TensorRole role, uint32_t d0, uint32_t d1, uint64_t addr) {
  TensorInfo t;
  memset(&t, 0, sizeof t);
  strncpy(t.name, name, sizeof t.name - 1);
  t.dtype = dt;
  t.role = role;
  t.ndim = 2;
  t.dims[0] = d0;
  t.dims[1] = d1;
  t.addr = addr;
  prog_dense_strides(&t);
  if (prog_add_tensor(b->p, &t)) b->oom = 1;
}

// Tensors and their initial bytes (params as little-endian int32 rows: bias, mult, shift).
static void add_data(Gb *b, const GemmData *dat) {
  const GemmSpec *g = b->g;
  add_tensor(b, "A", DT_INT8, ROLE_INPUT, g->M, g->K, b->a_addr);
  add_tensor(b, "B", DT_INT8, ROLE_CONST, g->K, g->N, b->b_addr);
  add_tensor(b, "C", g->raw32 ? DT_INT32 : DT_INT8, ROLE_OUTPUT, g->M, g->N, b->c_addr);
  if (prog_add_data(b->p, b->a_addr, dat->A, (uint64_t)g->M * g->K)) b->oom = 1;
  if (prog_add_data(b->p, b->b_addr, dat->B, (uint64_t)g->K * g->N)) b->oom = 1;
  if (g->raw32) return;
  add_tensor(b, "params", DT_INT32, ROLE_CONST, 3, g->N, b->p_addr);
  uint8_t *bytes = malloc(12ull * g->N);
  if (!bytes) {
    b->oom = 1;
    return;
  }
  const int32_t *rows[3] = {dat->bias, dat->mult, dat->shift};
  for (int r = 0; r < 3; r++)
    for (uint32_t n = 0; n < g->N; n++)
      for (int k = 0; k < 4; k++) bytes[(r * (uint64_t)g->N + n) * 4 + (unsigned)k] = (uint8_t)((uint32_t)rows[r][n] >> (8 * k));
  if (prog_add_data(b->p, b->p_addr, bytes, 12ull * g->N)) b->oom = 1;
  free(bytes);
}

Program *gemmprog_build(const Arch *a, const GemmSpec *g, Diag *d) {
  Gb b;
  memset(&b, 0, sizeof b);
  b.a = a;
  b.g = g;
  b.d = d;
  if (plan(&b)) return NULL;
  GemmData dat;
  b.p = prog_new(a);
  if (!b.p || gemmprog_data_new(g, &dat)) {
    prog_free(b.p);
    diag_error(d, "gemmprog: error: out of memory");
    return NULL;
  }
  add_data(&b, &dat);
  gemmprog_data_free(&dat);
  if (prog_add_layer(b.p, "gemm")) b.oom = 1;
  Insn in = insn(OP_LAYER);
  emit(&b, &in);
  if (!g->raw32)
    for (uint32_t ni = 0; ni < b.nbp && ni < b.nn; ni++) emit_param_load(&b, ni);
  for (uint32_t gi = 0; gi < b.nb && gi < b.n_chunks; gi++) emit_chunk_loads(&b, gi);
  for (uint32_t gi = 0; gi < b.n_chunks; gi++) {
    emit_chunk_computes(&b, gi);
    if (gi % b.nkc == b.nkc - 1) emit_tile_store(&b, gi / b.nkc);
    if (gi + b.nb < b.n_chunks) emit_chunk_loads(&b, gi + b.nb);
  }
  in = insn(OP_HALT);
  emit(&b, &in);
  if (b.oom) {
    prog_free(b.p);
    diag_error(d, "gemmprog: error: out of memory");
    return NULL;
  }
  if (prog_check(b.p, "gemmprog", d)) {
    prog_free(b.p);
    return NULL;
  }
  return b.p;
}
