// sfu_exec.c: one special-function unit instruction's values, cycles and counts (sfu_exec.h),
// exactly as docs/ISA.md section 6.8 and docs/TIMING.md section 7a state them.
#include "sfu_exec.h"

#include "../isa/numerics.h"
#include "../isa/sfu_math.h"

void sfu_regs_set(SfuRegs *r, const Insn *cfg) {
  r->mult = (int32_t)cfg->f[FLD_MULT];
  r->shift = (unsigned)cfg->f[FLD_SHIFT] & 63u;
  r->eps = (uint64_t)cfg->f[FLD_EPS];
}


static int is_row_op(Opcode op) { return op == OP_SFU_SOFTMAX || op == OP_SFU_LAYERNORM || op == OP_SFU_REDUCE; }

uint64_t sfu_segments(const Arch *a, const Insn *in) {
  if (!is_row_op(in->op)) return 1;
  return ((uint64_t)in->f[FLD_LEN] + a->cols - 1) / a->cols;
}

uint64_t sfu_row_cycles(const Arch *a, const Insn *in) { return sfu_row_cycles_of(a, in->op, sfu_segments(a, in)); }

uint64_t sfu_duration(const Arch *a, const Insn *in) {
  uint64_t per = sfu_row_cycles(a, in);
  if (!per) return 1;   // configuration class: ready = s + 1, e = s
  return (uint64_t)in->f[FLD_ROWS] * per + a->sfu_latency;
}

uint64_t sfu_row_out_len(const Arch *a, const Insn *in) {
  return in->op == OP_SFU_REDUCE ? a->cols : sfu_segments(a, in) * a->cols;
}

// ACC value (row, c), 0 outside the memory (prog_check keeps every access inside).
static int32_t acc_at(const Arch *a, const SfuMem *m, uint64_t row, uint64_t c) {
  return row < a->acc_rows ? m->acc[row * m->row_step + c * m->col_step] : 0;
}

static int32_t param_at(const Arch *a, const SfuMem *m, uint64_t row, uint64_t c) {
  return row < a->param_rows ? m->param[row * a->cols + c] : 0;
}

// The accumulator row holding value j of row r, from base (SRC or ACC_ADDR).
static uint64_t seg_row(const Arch *a, const Insn *in, uint64_t base, uint32_t r, uint64_t j) {
  return base + r + j / a->cols * (uint64_t)in->f[FLD_SSTRIDE];
}

static int32_t map_fn(unsigned fn, int16_t v) {
  switch ((int)fn) {
  case FN_IDENTITY: return v;
  case FN_EXP: return sfu_exp(v);
  case FN_GELU: return sfu_gelu(v);
  case FN_SIGMOID: return sfu_sigmoid(v);
  case FN_SILU: return sfu_silu(v);
  case FN_HSIGMOID: return sfu_hsigmoid(v);
  case FN_HSWISH: return sfu_hswish(v);
  default: return 0;   // not a symbol: the loader refuses it
  }
}

static void map_row(const Arch *a, const SfuRegs *g, const Insn *in, const SfuMem *m, uint32_t r, int32_t *out) {
  uint64_t row = (uint64_t)in->f[FLD_SRC] + r;
  for (uint64_t c = 0; c < a->cols; c++) {
    int64_t x = sa_round_shift((int64_t)acc_at(a, m, row, c) * g->mult, g->shift);
    int16_t v = (int16_t)(x < INT16_MIN ? INT16_MIN : x > INT16_MAX ? INT16_MAX : x);
    out[c] = map_fn((unsigned)in->f[FLD_FN], v);
  }
}

static void ew_row(const Arch *a, const Insn *in, const SfuMem *m, uint32_t r, int32_t *out) {
  uint64_t ra = (uint64_t)in->f[FLD_SRC] + r, rb = (uint64_t)in->f[FLD_SRC2] + (in->f[FLD_BCAST] ? 0 : r);
  for (uint64_t c = 0; c < a->cols; c++) {
    int32_t x = acc_at(a, m, ra, c), y = acc_at(a, m, rb, c);
    switch ((int)in->f[FLD_EWOP]) {
    case EWOP_ADD: out[c] = sa_wrap_add32(x, y); break;
    case EWOP_SUB: out[c] = (int32_t)((uint32_t)x - (uint32_t)y); break;
    case EWOP_MUL: out[c] = sa_sat32((int64_t)x * y); break;
    default: out[c] = 0; break;   // not a symbol: the loader refuses it
    }
  }
}

static void softmax_row(const Arch *a, const Insn *in, const SfuMem *m, uint32_t r, int32_t *out) {
  uint64_t n = (uint64_t)in->f[FLD_LEN], C = a->cols, src = (uint64_t)in->f[FLD_SRC];
  uint32_t mult = (uint32_t)in->f[FLD_SM_MULT];
  unsigned shift = (unsigned)in->f[FLD_SM_SHIFT], jj = (unsigned)in->f[FLD_SM_J];
  int8_t mx = INT8_MIN;
  for (uint64_t j = 0; j < n; j++) {
    int8_t q = sa_sat8(acc_at(a, m, seg_row(a, in, src, r, j), j % C));
    if (q > mx) mx = q;
  }
  uint64_t sum = 0;   // <= 65535 * 32768 < 2^31
  for (uint64_t j = 0; j < n; j++) {
    int8_t q = sa_sat8(acc_at(a, m, seg_row(a, in, src, r, j), j % C));
    out[j] = sfu_exp(sfu_softmax_arg((uint32_t)(mx - q), mult, shift));
    sum += (uint64_t)out[j];
  }
  SfuRecip rc = sfu_recip((uint32_t)sum);   // sum >= 32768 (the maximum's exp): shift >= 31
  unsigned t = rc.shift - 7 - jj;           // >= 9
  for (uint64_t j = 0; j < n; j++) {
    uint64_t y = ((uint64_t)(uint32_t)out[j] * rc.mant + ((uint64_t)1 << (t - 1))) >> t;
    out[j] = (int32_t)(y > 127 ? 127 : y);
  }
}

static void layernorm_row(const Arch *a, const SfuRegs *g, const Insn *in, const SfuMem *m, uint32_t r, int32_t *out) {
  uint64_t n = (uint64_t)in->f[FLD_LEN], C = a->cols, src = (uint64_t)in->f[FLD_SRC];
  int64_t s1 = 0;    // |S1| <= 65535 * 128 < 2^23
  uint64_t s2 = 0;   // S2 <= 65535 * 2^14 < 2^30
  for (uint64_t j = 0; j < n; j++) {
    int32_t x = sa_sat8(acc_at(a, m, seg_row(a, in, src, r, j), j % C));
    out[j] = x;
    s1 += x;
    s2 += (uint64_t)(x * x);
  }
  uint64_t v = n * s2 - (uint64_t)(s1 * s1) + g->eps;   // n^2 var + EPS < 2^48
  SfuRecip rs = sfu_rsqrt(v);
  uint64_t pbase = (uint64_t)in->f[FLD_PBASE];
  for (uint64_t j = 0; j < n; j++) {
    int16_t z = v == 0 ? 0 : sfu_layernorm_elem((int32_t)((int64_t)n * out[j] - s1), rs);
    uint64_t prow = pbase + 3 * (j / C), c = j % C;
    int32_t beta = param_at(a, m, prow, c), gamma = param_at(a, m, prow + 1, c);
    unsigned sh = (uint32_t)param_at(a, m, prow + 2, c) & 63u;
    out[j] = sa_sat8(sa_sat32(sa_round_shift((int64_t)z * gamma, sh) + beta));
  }
}

static void reduce_row(const Arch *a, const Insn *in, const SfuMem *m, uint32_t r, int32_t *out) {
  uint64_t n = (uint64_t)in->f[FLD_LEN], C = a->cols, src = (uint64_t)in->f[FLD_SRC];
  int64_t mx = INT32_MIN, sum = 0;   // |sum| <= 65535 * 2^31 < 2^47
  uint64_t sq = 0;                   // saturated at 2^31 - 1: every term is >= 0
  for (uint64_t j = 0; j < n; j++) {
    int64_t x = acc_at(a, m, seg_row(a, in, src, r, j), j % C);
    if (x > mx) mx = x;
    sum += x;
    if (sq < INT32_MAX) sq += (uint64_t)(x * x);   // < 2^31 + 2^62
    if (sq > INT32_MAX) sq = INT32_MAX;
  }
  for (uint64_t c = 0; c < C; c++) out[c] = 0;
  switch ((int)in->f[FLD_RED]) {
  case RED_MAX: out[0] = (int32_t)mx; break;
  case RED_SUM: out[0] = sa_sat32(sum); break;
  case RED_SUMSQ: out[0] = (int32_t)sq; break;
  default: break;   // not a symbol: the loader refuses it
  }
}

void sfu_row_compute(const Arch *a, const SfuRegs *regs, const Insn *in, const SfuMem *m, uint32_t r, int32_t *out) {
  switch (in->op) {
  case OP_SFU_MAP: map_row(a, regs, in, m, r, out); return;
  case OP_SFU_EW: ew_row(a, in, m, r, out); return;
  case OP_SFU_SOFTMAX: softmax_row(a, in, m, r, out); return;
  case OP_SFU_LAYERNORM: layernorm_row(a, regs, in, m, r, out); return;
  case OP_SFU_REDUCE: reduce_row(a, in, m, r, out); return;
  case OP_CFG_SFU:
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_PRELOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_HALT: return;   // no rows
  }
}

void sfu_row_write(const Arch *a, const Insn *in, const SfuMem *m, uint32_t r, const int32_t *out) {
  uint64_t C = a->cols, dst = (uint64_t)in->f[FLD_ACC_ADDR];
  if (!is_row_op(in->op) || in->op == OP_SFU_REDUCE) {   // one accumulator row, every column
    uint64_t row = dst + r;
    if (row < a->acc_rows)
      for (uint64_t c = 0; c < C; c++) m->acc[row * m->row_step + c * m->col_step] = out[c];
    return;
  }
  uint64_t n = (uint64_t)in->f[FLD_LEN];   // the columns of the last segment past LEN stay
  for (uint64_t j = 0; j < n; j++) {
    uint64_t row = seg_row(a, in, dst, r, j);
    if (row < a->acc_rows) m->acc[row * m->row_step + j % C * m->col_step] = out[j];
  }
}

void sfu_count(const Arch *a, const Insn *in, LayerStats *ls) {
  uint64_t rows = (uint64_t)in->f[FLD_ROWS], C = a->cols, S = sfu_segments(a, in);
  uint64_t vals = is_row_op(in->op) ? rows * (uint64_t)in->f[FLD_LEN] : 0;
  switch (in->op) {
  case OP_SFU_MAP:
    ls->sfu_elems += rows * C;
    switch ((int)in->f[FLD_FN]) {
    case FN_EXP: ls->sfu_exp += rows * C; break;
    case FN_GELU: ls->sfu_gelu += rows * C; break;
    case FN_SIGMOID:
    case FN_SILU: ls->sfu_sigmoid += rows * C; break;
    default: ls->sfu_hard += rows * C; break;   // identity, h-sigmoid, h-swish
    }
    ls->mem_reads[MEM_ST_ACC] += rows;
    ls->mem_writes[MEM_ST_ACC] += rows;
    return;
  case OP_SFU_EW:
    ls->sfu_elems += rows * C;
    if (in->f[FLD_EWOP] == EWOP_MUL) ls->sfu_ew_mul += rows * C;
    else ls->sfu_ew_add += rows * C;
    ls->mem_reads[MEM_ST_ACC] += in->f[FLD_BCAST] ? rows + 1 : 2 * rows;
    ls->mem_writes[MEM_ST_ACC] += rows;
    return;
  case OP_SFU_SOFTMAX:
    ls->sfu_elems += 3 * rows * S * C;
    ls->sfu_exp += 2 * vals;
    ls->sfu_norm += vals;
    ls->sfu_reduce += 2 * vals;
    ls->sfu_recip += rows;
    ls->mem_reads[MEM_ST_ACC] += 3 * rows * S;
    ls->mem_writes[MEM_ST_ACC] += rows * S;
    return;
  case OP_SFU_LAYERNORM:
    ls->sfu_elems += 2 * rows * S * C;
    ls->sfu_norm += vals;
    ls->sfu_reduce += vals;
    ls->sfu_rsqrt += rows;
    ls->mem_reads[MEM_ST_ACC] += 2 * rows * S;
    ls->mem_writes[MEM_ST_ACC] += rows * S;
    ls->mem_reads[MEM_ST_PARAM] += 3 * rows * S;
    return;
  case OP_SFU_REDUCE:
    ls->sfu_elems += rows * S * C;
    ls->sfu_reduce += vals;
    ls->mem_reads[MEM_ST_ACC] += rows * S;
    ls->mem_writes[MEM_ST_ACC] += rows;
    return;
  case OP_CFG_SFU:
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_PRELOAD:
  case OP_COMPUTE:
  case OP_COMPUTE_OS:
  case OP_COMPUTE_IS:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_LAYER:
  case OP_HALT: return;   // nothing counted
  }
}
