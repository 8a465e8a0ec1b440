// lower_sfu.c: the special-function unit's ops (softmax, layernorm, gelu, sigmoid, silu,
// hardswish, hardsigmoid, mul, sub, mul_const) as element-wise MachOps (lower.h).
//
// Each is an ELT op: its int8 input is loaded into accumulator rows (LOAD with MEM=acc and the
// identity scale, or add's scalings for sub), one instruction of the unit runs on the step's rows
// (SFU_MAP, SFU_EW, SFU_SOFTMAX, SFU_LAYERNORM), and a STORE writes int8: requantized with
// PARAM rows (PARAMS=1) out of the function's Q4.11 / Q0.15 format, or as it is (PARAMS=0) for
// softmax and layernorm, which already give int8. mul_const is the post-processor's
// requantization alone (no SFU instruction). A softmax or layernorm row of n channels spans
// ceil(n / C) accumulator rows, one per segment of C channels, the M tile's pixel count apart
// (SSTRIDE), so one step holds whole rows. The arithmetic is docs/NETJSON.md "Integer arithmetic",
// bit for bit; the mapping docs/COMPILER.md "Special functions". Tiling (tile.c), memory
// planning and emission (emit.c) ask the functions at the end what a step uses.
#include "lower.h"

#include <string.h>

static int64_t cdiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int is_row_op(SfuKind k) {
  switch (k) {
  case SFUK_SOFTMAX: case SFUK_LAYERNORM: return 1;
  case SFUK_NONE: case SFUK_MAP: case SFUK_EW: return 0;
  }
  return 0;
}

int lower_sfu_lowers(LayerOp op) {
  switch (op) {
  case LOP_SOFTMAX: case LOP_LAYERNORM: case LOP_GELU: case LOP_SIGMOID: case LOP_SILU: case LOP_HARDSWISH:
  case LOP_HARDSIGMOID: case LOP_MUL: case LOP_SUB: case LOP_MUL_CONST:
    return 1;
  case LOP_CONV2D: case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL: case LOP_AVGPOOL:
  case LOP_GLOBAL_AVGPOOL: case LOP_ADD: case LOP_CONCAT: case LOP_FLATTEN: case LOP_RESHAPE: case LOP_BATCHNORM:
  case LOP_BIAS: case LOP_MATMUL: case LOP_TRANSPOSE:
    return 0;
  }
  return 0;
}

// The second input of mul or sub: the same shape as the first, or one pixel per image (or one
// for all images) broadcast over the map, which SFU_EW's BCAST reads as a single row. Other
// broadcasts (along channels, or along one of H and W) are refused.
static int binary_shape(const Graph *g, const Layer *l, MachOp *op, Diag *d) {
  const Tensor *ta = &g->tensors[l->in[0]], *tb = &g->tensors[l->in[1]];
  int same = 1;
  for (int i = 0; i < ta->rank; i++) same = same && ta->dims[i] == tb->dims[i];
  if (same) return 0;
  const TView *a = &op->in[0], *b = &op->in[1];
  if (b->c == a->c && b->h == 1 && b->w == 1 && (b->n == a->n || b->n == 1)) {
    op->bcast = 1;
    return 0;
  }
  return graph_layer_error(g, l, d, "%s broadcasts its second input [%lld,%lld,%lld,%lld] in a way the "
                                    "special-function unit cannot (SFU_EW broadcasts one pixel of all the "
                                    "channels over the map)", graph_op_name(l->op), (long long)b->n, (long long)b->h,
                           (long long)b->w, (long long)b->c);
}

// Softmax and layernorm: a row of n values is ceil(n / C) accumulator rows; a step needs at
// least one pixel's (and layernorm three PARAM rows per segment) in one buffer slot.
static int row_fits(const Graph *g, const Layer *l, const Arch *a, int64_t n, Diag *d) {
  if (n > isa_field_max(FLD_LEN))
    return graph_layer_error(g, l, d, "%s row of %lld values is longer than SFU %s LEN can hold (%lld)",
                             graph_op_name(l->op), (long long)n, l->op == LOP_SOFTMAX ? "SFU_SOFTMAX" : "SFU_LAYERNORM",
                             (long long)isa_field_max(FLD_LEN));
  int64_t segs = cdiv64(n, a->cols);
  if (segs > a->acc_rows)
    return graph_layer_error(g, l, d, "%s row of %lld values spans %lld accumulator rows of %u values, more than "
                                      "arch \"%s\" has (acc.rows %u)", graph_op_name(l->op), (long long)n,
                             (long long)segs, a->cols, a->name, a->acc_rows);
  if (l->op == LOP_LAYERNORM && 3 * segs > a->param_rows)
    return graph_layer_error(g, l, d, "layernorm row of %lld values needs %lld parameter rows (3 per %u channels), "
                                      "more than arch \"%s\" has (param.rows %u)", (long long)n, (long long)(3 * segs),
                             a->cols, a->name, a->param_rows);
  return 0;
}

int lower_sfu_op(const Graph *g, const Layer *l, const Arch *a, MachOp *op, Diag *d) {
  op->act = ACT_NONE, op->lo = -128, op->hi = 127;
  Requant post = l->out_rq;   // the STORE's requantization, the same for every channel
  switch (l->op) {
  case LOP_GELU: op->sfu_fn = FN_GELU; break;
  case LOP_SIGMOID: op->sfu_fn = FN_SIGMOID; break;
  case LOP_SILU: op->sfu_fn = FN_SILU; break;
  case LOP_HARDSWISH: op->sfu_fn = FN_HSWISH; break;
  case LOP_HARDSIGMOID: op->sfu_fn = FN_HSIGMOID; break;
  case LOP_MUL:   // a * b exact (|.| <= 2^14), then post(., 0, r, none)
    op->sfu = SFUK_EW, op->sfu_fn = EWOP_MUL;
    post = l->rq[0];
    break;
  case LOP_SUB:   // add's LOADs into the common domain, A - B, then post(., 0, r_out, none)
    op->sfu = SFUK_EW, op->sfu_fn = EWOP_SUB;
    op->in_mult[0] = l->rq[0].mult, op->in_shift[0] = l->rq[0].shift;
    op->in_mult[1] = l->rq[1].mult, op->in_shift[1] = l->rq[1].shift;
    break;
  case LOP_MUL_CONST:   // post(x, 0, r, none): the post-processor alone
    post = l->rq[0];
    break;
  case LOP_SOFTMAX:
    op->sfu = SFUK_SOFTMAX;
    op->sfu_mult = (int32_t)l->sm_mult, op->sfu_shift = l->sm_shift, op->sm_j = l->sm_out;
    break;
  case LOP_LAYERNORM:
    op->sfu = SFUK_LAYERNORM;
    op->eps = (uint64_t)l->eps_q;
    break;
  case LOP_CONV2D: case LOP_FC: case LOP_RELU: case LOP_RELU6: case LOP_CLIP: case LOP_MAXPOOL: case LOP_AVGPOOL:
  case LOP_GLOBAL_AVGPOOL: case LOP_ADD: case LOP_CONCAT: case LOP_FLATTEN: case LOP_RESHAPE: case LOP_BATCHNORM:
  case LOP_BIAS: case LOP_MATMUL: case LOP_TRANSPOSE:
    return graph_layer_error(g, l, d, "internal error: %s is not a special-function op", graph_op_name(l->op));
  }
  if (op->sfu_fn && l->op != LOP_MUL && l->op != LOP_SUB) {   // the element functions
    op->sfu = SFUK_MAP;
    op->sfu_mult = l->rq[0].mult, op->sfu_shift = l->rq[0].shift;   // into Q4.11 (CFG_SFU)
  }
  if (op->n_in == 2 && binary_shape(g, l, op, d)) return -1;
  if (is_row_op(op->sfu) && row_fits(g, l, a, op->N, d)) return -1;
  // The parameter rows, per channel: the STORE's (bias 0, the output factor), or layernorm's
  // affine (beta, gamma's signed multiplier, its shift: docs/ISA.md 6.8, PARAM rows PBASE + 3s).
  for (int64_t j = 0; j < op->N; j++) {
    if (op->sfu == SFUK_LAYERNORM) {
      op->bias[j] = l->bias_q[j], op->mult[j] = l->rq[j].mult, op->shift[j] = (int32_t)l->rq[j].shift;
    } else if (op->sfu == SFUK_SOFTMAX) {
      op->bias[j] = 0, op->mult[j] = 1, op->shift[j] = 0;   // unused: the STORE has PARAMS=0
    } else {
      op->bias[j] = 0, op->mult[j] = post.mult, op->shift[j] = (int32_t)post.shift;
    }
  }
  return 0;
}

// Squeeze-excitation's squeeze: a global average pool over a map larger than 15x15 (MobileNetV3,
// EfficientNet) is folded into a window the STORE can pool (lower.h).
int lower_fold_pool(const Graph *g, const Layer *l, const Arch *a, MachOp *op, Diag *d) {
  int64_t kmax = isa_field_max(FLD_KH) < isa_field_max(FLD_KW) ? isa_field_max(FLD_KH) : isa_field_max(FLD_KW);
  int64_t H = op->in[0].h, W = op->in[0].w, half = a->acc_rows / 2;
  int64_t fw = W < kmax ? W : kmax, fh = H < kmax ? H : kmax;
  if (fw > half) fw = half;
  if (fh * fw > half) fh = half / fw;
  if (fw < 1 || fh < 1)
    return graph_layer_error(g, l, d, "global_avgpool over %lldx%lld cannot be folded into arch \"%s\"'s accumulator",
                             (long long)H, (long long)W, a->name);
  op->fold_w = fw;
  op->oh = fh, op->ow = fw;          // the folded map the STORE pools
  op->pkh = (int)fh, op->pkw = (int)fw;
  return 0;
}

int64_t lower_sfu_channel_steps(const MachOp *op, uint32_t cols) {
  return is_row_op(op->sfu) ? 1 : cdiv64(op->N, cols);
}

int64_t lower_sfu_segments(const MachOp *op, uint32_t cols) { return is_row_op(op->sfu) ? cdiv64(op->N, cols) : 1; }

uint64_t lower_sfu_acc_rows(const MachOp *op, uint64_t tile_rows, uint32_t cols) {
  switch (op->sfu) {
  case SFUK_NONE: case SFUK_MAP: return tile_rows;
  case SFUK_EW: return tile_rows + (op->bcast ? 1 : tile_rows);   // the second operand beside the first
  case SFUK_SOFTMAX: case SFUK_LAYERNORM: return tile_rows * (uint64_t)cdiv64(op->N, cols);
  }
  return tile_rows;
}

uint32_t lower_sfu_param_rows(const MachOp *op, uint32_t cols) {
  switch (op->sfu) {
  case SFUK_NONE: case SFUK_MAP: case SFUK_EW: return 3;
  case SFUK_SOFTMAX: return 0;
  case SFUK_LAYERNORM: return 3u * (uint32_t)cdiv64(op->N, cols);
  }
  return 3;
}

int lower_sfu_store_params(const MachOp *op) { return !is_row_op(op->sfu); }

int lower_sfu_params_once(const MachOp *op) { return op->sfu == SFUK_LAYERNORM; }

const char *lower_sfu_name(const MachOp *op) {
  switch (op->sfu) {
  case SFUK_NONE: return "";
  case SFUK_MAP: return "SFU_MAP";
  case SFUK_EW: return "SFU_EW";
  case SFUK_SOFTMAX: return "SFU_SOFTMAX";
  case SFUK_LAYERNORM: return "SFU_LAYERNORM";
  }
  return "";
}
