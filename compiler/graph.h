// graph.h: the compiler's graph IR. A Graph holds named tensors (shapes, scales) and layers in
// topological order. net.c builds it from net.json, shape.c fills in shapes and weights,
// quant.c the integer requantization parameters; ref.c and the later passes only read it.
// Every allocation hangs off the Graph and is released by graph_free().
#ifndef SACC_GRAPH_H
#define SACC_GRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "../isa/diag.h"
#include "../isa/isa.h"
#include "../isa/npy.h"

#define GRAPH_MAX_RANK 4

#define GRAPH_MAX_LAYER_INPUTS 64     // most "inputs" of one layer (concat)

// The layer ops, one per row of graph_ops.def.
typedef enum {
#define GOP(name, json, in_min, in_max, scale, flags, keys) LOP_##name,
#include "graph_ops.def"
#undef GOP
} LayerOp;
enum {
  LOP_COUNT = 0
#define GOP(name, json, in_min, in_max, scale, flags, keys) +1
#include "graph_ops.def"
#undef GOP
};

// Where a layer's output scale comes from when net.json does not give it (graph_ops.def).
typedef enum { SCALE_OWN, SCALE_INPUT, SCALE_INPUTS, SCALE_KEEP, SCALE_PROB, SCALE_FACTOR } ScaleRule;

// Per-op properties (graph_ops.def explains each).
enum {
  GOPF_WEIGHTS = 1u << 0,
  GOPF_WINDOW = 1u << 1,
  GOPF_ABSORBS_ACT = 1u << 2,
  GOPF_ACT = 1u << 3,
  GOPF_ABSORBS_POOL = 1u << 4,
  GOPF_POOL = 1u << 5,
  GOPF_DENSE_IN = 1u << 6,
  GOPF_ALIAS = 1u << 7,
  GOPF_FRONT_END = 1u << 8,
  GOPF_SFU = 1u << 9,
};

#define GRAPH_PROB_SCALE (1.0 / 128)  // SCALE_PROB: sigmoid outputs, int8 0..127 for [0, 1)
#define SOFTMAX_K_MIN 7               // softmax's output scale: 2^-k, k in SOFTMAX_K_MIN..MAX
#define SOFTMAX_K_MAX 22              //   (1/128 by default; calibrated when scales are)

typedef struct {
  const char *name;                  // net.json spelling
  int in_min, in_max;                // number of inputs
  ScaleRule scale;                   // output scale when not given
  unsigned flags;                    // GOPF_*
  const char *keys;                  // the op's own net.json keys, space-separated
} GraphOpInfo;

extern const GraphOpInfo graph_ops[LOP_COUNT];

// 1 when op has every property in flags (GOPF_*).
static inline int graph_op_is(LayerOp op, unsigned flags) { return (graph_ops[op].flags & flags) == flags; }

// The real-valued activation a layer asks for; quant.c turns it into the machine's ACT code.
typedef enum { ACT_KIND_NONE, ACT_KIND_RELU, ACT_KIND_RELU6, ACT_KIND_CLIP } ActKind;

typedef struct {
  char *name;                        // unique among tensors
  int rank;                          // 2 ([N, C]) or 4 ([N, H, W, C], NHWC)
  int64_t dims[GRAPH_MAX_RANK];      // shape (filled by shape_infer for layer outputs)
  double scale;                      // real = scale * q; 0 until known
  int producer;                      // index of the producing layer, -1 for a network input
} Tensor;

// One real factor as the machine applies it: f ~= mult / 2^shift (docs/NETJSON.md, quant.c).
typedef struct {
  int32_t mult;                      // in [2^30, 2^31)
  unsigned shift;                    // 0..63
} Requant;

// Where a weight or bias tensor comes from, as written in net.json; shape.c materializes it.
typedef enum { SRC_NONE, SRC_INLINE, SRC_NPY, SRC_SEED } SourceKind;
typedef struct {
  SourceKind kind;
  int64_t *values;                   // SRC_INLINE: count integers, row-major; owned
  double *reals;                     // SRC_INLINE float bias: count reals; owned
  int64_t count;                     // SRC_INLINE: number of values
  NpyArray npy;                      // SRC_NPY: the file's contents; owned
  uint64_t seed;                     // SRC_SEED
  int real_seed;                     // SRC_SEED: 1 generates real values ({"seed": N, "float": true})
  int64_t offset;                    // SRC_SEED integer bias: added to every element ({"offset": B})
} Source;

// batchnorm parameters, in the order of Layer.bn_src / Layer.bn.
enum { BN_GAMMA, BN_BETA, BN_MEAN, BN_VAR, BN_COUNT };

typedef struct {
  char *name;                        // unique among layers
  LayerOp op;
  int json_index;                    // position in net.json's "layers" (for messages)
  int n_in;                          // number of input tensors
  int *in;                           // tensor indices; owned
  int out;                           // output tensor index
  // Window geometry (conv2d, maxpool, avgpool).
  int kh, kw, sh, sw, dh, dw;        // kernel, stride, dilation
  int pad_t, pad_b, pad_l, pad_r;    // explicit padding (resolved by shape_infer for "same")
  int pad_same;                      // 1: "same" padding, computed from the input size
  int groups;                        // conv2d groups (1: dense; cin: depthwise)
  int count_include_pad;             // avgpool: 1 divides by kh*kw, 0 by the positions inside
  int64_t cout;                      // conv2d / fc output channels
  ActKind act_kind;                  // fused (conv2d, fc, add) or the op's own (relu, relu6, clip)
  double clip_lo, clip_hi;           // ACT_KIND_CLIP bounds, real values
  int reshape_rank;                  // reshape: target shape (one entry may be -1)
  int64_t reshape_dims[GRAPH_MAX_RANK];
  int axis;                          // softmax, layernorm: as given (-1 or the last axis)
  int perm[GRAPH_MAX_RANK];          // transpose: output dim i is input dim perm[i]
  double factor;                     // mul_const: the real constant (> 0)
  // Special-function unit parameters (quant.c; docs/NETJSON.md "Exact arithmetic"):
  uint32_t sm_mult;                  // softmax: mult / 2^sm_shift = s_in * 2048, mult 1..65535
  unsigned sm_shift;                 //   shift 0..31 (the arguments of sfu_softmax_row)
  unsigned sm_out;                   // softmax: output scale 2^-(7 + sm_out), sm_out 0..15
  int64_t eps_q;                     // layernorm: epsilon in units of n^2 var of the int8 row
  // Weights (conv2d, fc), materialized by shape_infer.
  Source w_src, b_src;               // as written in net.json
  int b_is_float;                    // bias given as reals (quantized by quant.c)
  int n_wscale;                      // 1 (per tensor) or cout (per output channel)
  double *wscale;                    // weight scales; owned
  int8_t *w;                         // conv: [kh][kw][cin/groups][cout]; fc: [cin][cout]; owned
  int64_t w_count;
  int64_t cin;                       // input channels (fc: product of the non-batch dims)
  // Integer parameters, filled by quant_graph.
  int n_rq;                          // conv/fc: cout; add/sub/concat: n_in; avgpool: kh*kw; else 1;
                                     // layernorm: cout, gamma / (2048 s_out) with a signed mult
  Requant *rq;                       // owned
  Requant out_rq;                    // add, sub: common accumulator domain -> output scale;
                                     // gelu..hardsigmoid: function output format -> output scale
  int32_t *bias_q;                   // conv/fc: cout int32 biases in accumulator scale;
                                     // layernorm: round(beta / s_out) per channel; owned
  unsigned mach_act;                 // the machine's ACT code: ACT_NONE, ACT_RELU, ACT_CLAMP (isa.h)
  int8_t act_lo, act_hi;             // clamp bounds in output units
  int64_t macs;                      // multiply-accumulates of the layer (conv2d, fc)
  // Float weights (conv2d, fc given real weights without weight_scale): shape.c fills wf,
  // fold.c scales it, quant.c quantizes it per output channel into w and wscale.
  int w_is_float;                    // 1: the weights are real values
  float *wf;                         // real weights, layout of w; owned (w_is_float)
  double *bias_add;                  // conv/fc: cout real offsets folded in from bias/batchnorm
                                     // layers, added to the bias by quant.c; owned (NULL: none)
  // batchnorm (until fold.c removes it): y = gamma * (x - mean) / sqrt(var + eps) + beta.
  Source bn_src[BN_COUNT];           // as written in net.json
  double *bn[BN_COUNT];              // cout values each, materialized by shape_infer; owned
  double bn_eps;                     // epsilon (default 1e-5)
} Layer;

typedef struct Graph {
  char *file;                        // the net.json path, for messages
  char *name;                        // the network's "name"
  int n_tensors;
  Tensor *tensors;                   // owned
  int n_layers;
  Layer *layers;                     // topological order; owned
  int n_inputs, n_outputs;
  int *inputs, *outputs;             // tensor indices; owned
} Graph;

const char *graph_op_name(LayerOp op);
// Looks an op up by its net.json spelling; -1 when unknown.
int graph_op_parse(const char *s);
int graph_tensor_find(const Graph *g, const char *name);
int64_t graph_tensor_count(const Tensor *t);    // number of elements
// Records `file: layers[i] "name": error: ...` and returns -1.
int graph_layer_error(const Graph *g, const Layer *l, Diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
// Writes the IR, one line per tensor input and per layer (sacc check --dump-ir).
void graph_dump(const Graph *g, FILE *f);
void graph_free(Graph *g);
// Frees what one layer owns (not the Layer itself).
void graph_layer_free(Layer *l);
void source_free(Source *s);

#endif
