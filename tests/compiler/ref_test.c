// ref_test.c: the reference interpreter (compiler/ref.c) on tiny hand-computed examples (conv,
// depthwise, stride 2 with padding, max/avg pooling with padding, add with different scales,
// concat), then a float cross-check: random quantized convolutions, recomputed in double from
// the dequantized tensors and quantized, must agree with the int8 reference within 1 LSB.
// The special-function unit's ops (softmax, layernorm, gelu, sigmoid, ..., matmul, transpose)
// are checked against isa/sfu_math's functions with the conversions of docs/NETJSON.md.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/net.h"
#include "../../compiler/ref.h"
#include "../../compiler/shape.h"
#include "../../isa/numerics.h"
#include "../../isa/sfu_math.h"
#include "../common/check.h"

// Loads text, runs it on the given inputs; returns the named tensor's data (copied into out).
static int run(const char *text, const int8_t *const *inputs, const char *tensor, int8_t *out, int64_t n) {
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  RefValues v = {0};
  int rc = net_parse(text, strlen(text), "t.json", NULL, &opt, &g, &d) || net_prepare(g, &opt, &d) ||
           ref_run(g, inputs, &v, &d);
  if (!rc) {
    int t = graph_tensor_find(g, tensor);
    rc = t < 0 || graph_tensor_count(&g->tensors[t]) != n;
    if (!rc) memcpy(out, v.data[t], (size_t)n);
  }
  if (rc) CHECK(0, "run failed: %s", diag_first(&d));
  ref_values_free(&v);
  graph_free(g);
  return rc;
}

static void expect_eq(const int8_t *got, const int *want, int n, const char *what) {
  for (int i = 0; i < n; i++) CHECK(got[i] == want[i], "%s[%d]: got %d, want %d", what, i, got[i], want[i]);
}

static const int8_t x16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static void test_conv(void) {
  // 3x3 weights 1..9 on the 4x4 input 1..16, bias 3, scales giving a factor of 1/8.
  const char *net =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,4,4,1], \"scale\": 1}], \"layers\": ["
      "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 8, \"kernel\": 3,"
      " \"cout\": 1, \"weights\": [[[[1]],[[2]],[[3]]],[[[4]],[[5]],[[6]]],[[[7]],[[8]],[[9]]]], \"weight_scale\": 1,"
      " \"bias\": [3]}], \"outputs\": [\"y\"]}";
  const int8_t *in[] = {x16};
  int8_t y[4];
  int want[4] = {44, 50, 66, 72};  // (348 + 3) / 8 = 43.875 -> 44, ...
  if (!run(net, in, "y", y, 4)) expect_eq(y, want, 4, "conv");
  check_case("ref_conv3x3_4x4");
}

static void test_stride_pad(void) {
  const char *net =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,4,4,1], \"scale\": 1}], \"layers\": ["
      "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 8, \"kernel\": 3,"
      " \"stride\": 2, \"padding\": 1, \"cout\": 1, \"weights\": [1,2,3,4,5,6,7,8,9], \"weight_scale\": 1}],"
      " \"outputs\": [\"y\"]}";
  const int8_t *in[] = {x16};
  int8_t y[4];
  int want[4] = {14, 27, 45, 72};  // 111/8 = 13.875, 217/8 = 27.125, 363/8 = 45.375, 573/8 = 71.625
  if (!run(net, in, "y", y, 4)) expect_eq(y, want, 4, "stride 2 pad 1");
  check_case("ref_conv_stride2_padding");
}

static void test_depthwise(void) {
  // x[y][x][c] = (3y + x + 1) * (c ? -1 : 1); w[ky][kx][0][0] = 2ky + kx + 1, w[..][1] = 5 - that.
  const char *net =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,3,3,2], \"scale\": 0.5}], \"layers\": ["
      "{\"name\": \"dw\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.5, \"kernel\": 2,"
      " \"groups\": 2, \"cout\": 2, \"weights\": [1,4, 2,3, 3,2, 4,1], \"weight_scale\": 1}], \"outputs\": [\"y\"]}";
  int8_t x[18];
  for (int i = 0; i < 9; i++) x[2 * i] = (int8_t)(i + 1), x[2 * i + 1] = (int8_t)-(i + 1);
  const int8_t *in[] = {x};
  int8_t y[8];
  int want[8] = {37, -23, 47, -33, 67, -53, 77, -63};
  if (!run(net, in, "y", y, 8)) expect_eq(y, want, 8, "depthwise");
  check_case("ref_depthwise");
}

static void test_pool(void) {
  static const int8_t m[9] = {5, -3, 7, -8, 2, 9, 1, -6, 4};
  const int8_t *in[] = {m};
  char net[600];
  const char *fmt = "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,3,3,1], \"scale\": 1}], \"layers\": ["
                    "{\"name\": \"p\", \"op\": \"%s\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1, \"kernel\": 2,"
                    " \"padding\": [1,0,1,0]%s}], \"outputs\": [\"y\"]}";
  int8_t y[4];
  snprintf(net, sizeof net, fmt, "maxpool", "");
  int want_max[4] = {5, 7, 1, 9};
  if (!run(net, in, "y", y, 4)) expect_eq(y, want_max, 4, "maxpool");
  snprintf(net, sizeof net, fmt, "avgpool", "");
  int want_incl[4] = {1, 1, -2, 2};  // 5/4, 4/4, -7/4 = -1.75, 9/4
  if (!run(net, in, "y", y, 4)) expect_eq(y, want_incl, 4, "avgpool count_include_pad");
  snprintf(net, sizeof net, fmt, "avgpool", ", \"count_include_pad\": false");
  int want_excl[4] = {5, 2, -3, 2};  // 5/1, 4/2, -7/2 = -3.5 (half up), 9/4
  if (!run(net, in, "y", y, 4)) expect_eq(y, want_excl, 4, "avgpool excluding padding");
  snprintf(net, sizeof net,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,3,3,1], \"scale\": 1}], \"layers\": ["
           "{\"name\": \"g\", \"op\": \"global_avgpool\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.5}],"
           " \"outputs\": [\"y\"]}");
  int want_g[1] = {2};  // sum 11, 11 / 9 / 0.5 = 2.44 -> 2
  if (!run(net, in, "y", y, 1)) expect_eq(y, want_g, 1, "global_avgpool");
  check_case("ref_pooling_with_padding");
}

static void test_add_concat(void) {
  static const int8_t a[4] = {3, -3, 100, 0}, b[4] = {5, -5, 100, -128};
  const int8_t *in[] = {a, b};
  const char *net =
      "{\"inputs\": [{\"name\": \"a\", \"shape\": [1,4], \"scale\": 0.5}, {\"name\": \"b\", \"shape\": [1,4], \"scale\": 0.25}],"
      " \"layers\": [{\"name\": \"s\", \"op\": \"add\", \"inputs\": [\"a\", \"b\"], \"output\": \"y\", \"scale\": 0.5},"
      " {\"name\": \"r\", \"op\": \"add\", \"inputs\": [\"a\", \"b\"], \"output\": \"z\", \"scale\": 0.5, \"activation\": \"relu\"},"
      " {\"name\": \"c\", \"op\": \"concat\", \"inputs\": [\"a\", \"b\"], \"output\": \"w\", \"scale\": 0.5}],"
      " \"outputs\": [\"y\", \"z\", \"w\"]}";
  int8_t y[8];
  int want_add[4] = {6, -5, 127, -64};  // a + b/2: 5.5 -> 6, -5.5 -> -5, 150 -> 127, -64
  if (!run(net, in, "y", y, 4)) expect_eq(y, want_add, 4, "add");
  int want_relu[4] = {6, 0, 127, 0};
  if (!run(net, in, "z", y, 4)) expect_eq(y, want_relu, 4, "add+relu");
  int want_cat[8] = {3, -3, 100, 0, 3, -2, 50, -64};  // b halved: 2.5 -> 3, -2.5 -> -2
  if (!run(net, in, "w", y, 8)) expect_eq(y, want_cat, 8, "concat");
  check_case("ref_add_concat_scales");
}

static void test_activations(void) {
  static const int8_t a[6] = {-100, -1, 0, 50, 100, 127};
  const int8_t *in[] = {a};
  const char *net =
      "{\"inputs\": [{\"name\": \"a\", \"shape\": [1,6], \"scale\": 0.1}], \"layers\": ["
      "{\"name\": \"r6\", \"op\": \"relu6\", \"inputs\": [\"a\"], \"output\": \"y\"},"
      "{\"name\": \"cl\", \"op\": \"clip\", \"inputs\": [\"a\"], \"output\": \"z\", \"scale\": 0.2, \"min\": -1, \"max\": 2}],"
      " \"outputs\": [\"y\", \"z\"]}";
  int8_t y[6];
  int want6[6] = {0, 0, 0, 50, 60, 60};
  if (!run(net, in, "y", y, 6)) expect_eq(y, want6, 6, "relu6");
  int wantc[6] = {-5, 0, 0, 10, 10, 10};  // /2 half up: -50 -> -5 (clamped), -0.5 -> 0, 25, 50 -> 10
  if (!run(net, in, "z", y, 6)) expect_eq(y, wantc, 6, "clip");
  check_case("ref_activations");
}

// ---- float cross-check ---------------------------------------------------------------------------

static double unit(uint64_t *s) { return (double)(shape_seed_next(s) >> 11) / 9007199254740992.0; }

static void cross_check(int seed, int h, int w, int cin, int cout, int k, int stride, int dil, int groups, int pad,
                        const char *act) {
  uint64_t st = (uint64_t)seed;
  double s_x = 0.01 + 0.05 * unit(&st), s_y = 0.05 + 0.2 * unit(&st);
  int64_t cpg = cin / groups, nw = (int64_t)k * k * cpg * cout;
  char *net = malloc(100000);
  int len = snprintf(net, 100000,
                     "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,%d,%d,%d], \"scale\": %.17g}], \"layers\": ["
                     "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": %.17g,"
                     " \"kernel\": %d, \"stride\": %d, \"dilation\": %d, \"groups\": %d, \"padding\": %d, \"cout\": %d,"
                     " \"activation\": \"%s\", \"weights\": {\"seed\": %d}, \"weight_scale\": [",
                     h, w, cin, s_x, s_y, k, stride, dil, groups, pad, cout, act, seed);
  double *sw = malloc(sizeof(double) * (size_t)cout), *bias = malloc(sizeof(double) * (size_t)cout);
  for (int c = 0; c < cout; c++) {
    sw[c] = (0.2 + unit(&st)) / (127.0 * k * k * cpg) * 4;
    len += snprintf(net + len, 100000 - (size_t)len, "%s%.17g", c ? "," : "", sw[c]);
  }
  len += snprintf(net + len, 100000 - (size_t)len, "], \"bias_float\": [");
  for (int c = 0; c < cout; c++) {
    bias[c] = (unit(&st) - 0.5) * 2;
    len += snprintf(net + len, 100000 - (size_t)len, "%s%.17g", c ? "," : "", bias[c]);
  }
  snprintf(net + len, 100000 - (size_t)len, "]}], \"outputs\": [\"y\"]}");
  int8_t *x = malloc((size_t)(h * w * cin)), *wq = malloc((size_t)nw);
  for (int i = 0; i < h * w * cin; i++) x[i] = (int8_t)(uint8_t)shape_seed_next(&st);
  uint64_t ws = (uint64_t)seed;
  for (int64_t i = 0; i < nw; i++) wq[i] = (int8_t)(uint8_t)shape_seed_next(&ws);
  int eff = (k - 1) * dil + 1, oh = (h + 2 * pad - eff) / stride + 1, ow = (w + 2 * pad - eff) / stride + 1;
  int8_t *y = malloc((size_t)(oh * ow * cout));
  const int8_t *in[] = {x};
  int worst = 0;
  if (!run(net, in, "y", y, (int64_t)oh * ow * cout)) {
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int oc = 0; oc < cout; oc++) {
          int grp = oc / (cout / groups);
          double acc = bias[oc];
          for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
              int iy = oy * stride - pad + ky * dil, ix = ox * stride - pad + kx * dil;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              for (int ci = 0; ci < cpg; ci++)
                acc += s_x * x[(iy * w + ix) * cin + grp * cpg + ci] * sw[oc] * wq[((ky * k + kx) * cpg + ci) * cout + oc];
            }
          if (!strcmp(act, "relu") && acc < 0) acc = 0;
          double q = round(acc / s_y);
          q = q < -128 ? -128 : q > 127 ? 127 : q;
          int diff = abs((int)q - y[(oy * ow + ox) * cout + oc]);
          if (diff > worst) worst = diff;
        }
    CHECK(worst <= 1, "seed %d: int8 reference differs from float by %d LSB", seed, worst);
  }
  free(net), free(sw), free(bias), free(x), free(wq), free(y);
}

static void test_float_cross_check(void) {
  cross_check(1, 7, 7, 3, 5, 3, 1, 1, 1, 1, "none");
  cross_check(2, 8, 9, 4, 6, 3, 2, 1, 1, 1, "relu");
  cross_check(3, 9, 9, 4, 4, 3, 1, 2, 4, 2, "none");  // depthwise, dilated
  cross_check(4, 6, 5, 6, 4, 1, 1, 1, 2, 0, "relu");  // grouped 1x1
  cross_check(5, 5, 5, 16, 8, 5, 2, 1, 1, 2, "none");
  check_case("ref_float_cross_check");
}

// A one-layer network on the 256 int8 values [1, 256] at scale 1/16: op with the given extra keys.
static int run_unary(const char *op, const char *extra, int8_t *y) {
  static int8_t all[256];
  for (int i = 0; i < 256; i++) all[i] = (int8_t)(i - 128);
  char net[512];
  snprintf(net, sizeof net,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,256], \"scale\": 0.0625}], \"layers\": ["
           "{\"name\": \"f\", \"op\": \"%s\", \"inputs\": [\"x\"], \"output\": \"y\"%s}], \"outputs\": [\"y\"]}",
           op, extra);
  const int8_t *in[] = {all};
  return run(net, in, "y", y, 256);
}

static void test_sfu_functions(void) {
  // x at 1/16 enters Q4.11 exactly as x * 128; out at 1/16 is round(v / 128) (Q4.11) and
  // at the default 1/128 round(p / 256) (Q0.15), saturated to int8.
  int8_t y[256];
  static const char *const ops[5] = {"gelu", "silu", "hardswish", "sigmoid", "hardsigmoid"};
  for (int k = 0; k < 5; k++) {
    if (run_unary(ops[k], "", y)) continue;
    int bad = 0;
    for (int i = 0; i < 256 && !bad; i++) {
      int16_t v = (int16_t)((i - 128) * 128);
      int32_t f = k == 0 ? sfu_gelu(v) : k == 1 ? sfu_silu(v) : k == 2 ? sfu_hswish(v) : k == 3 ? sfu_sigmoid(v) : sfu_hsigmoid(v);
      int want = sa_sat8((int32_t)sa_round_shift(f, k < 3 ? 7 : 8));
      bad = y[i] != want;
      CHECK(!bad, "%s(%d / 16): got %d, want %d", ops[k], i - 128, y[i], want);
    }
    char name[64];
    snprintf(name, sizeof name, "ref_sfu_%s_all_int8", ops[k]);
    check_case(name);
  }
  // Hand values: sigmoid(0) = 1/2 -> 64; gelu(16/16 = 1) = 0.8413 -> 13/16; h-sigmoid(3) = 1 -> 127.
  if (!run_unary("sigmoid", "", y)) CHECK(y[128] == 64, "sigmoid(0) = %d, want 64", y[128]);
  if (!run_unary("gelu", "", y)) CHECK(y[144] == 13, "gelu(1) = %d, want 13", y[144]);
  if (!run_unary("hardsigmoid", "", y)) CHECK(y[128 + 48] == 127, "hardsigmoid(3) = %d, want 127", y[176]);
  check_case("ref_sfu_hand_values");
  // mul_const with the default scale copies the bytes; with a given one it requantizes.
  if (!run_unary("mul_const", ", \"factor\": 0.125", y))
    for (int i = 0; i < 256; i++) CHECK(y[i] == i - 128, "mul_const [%d] = %d", i, y[i]);
  if (!run_unary("mul_const", ", \"factor\": 0.5, \"scale\": 0.0625", y))
    CHECK(y[0] == -64 && y[255] == 64 && y[129] == 1, "mul_const 0.5: %d %d %d", y[0], y[255], y[129]);  // 0.5 -> 1 (half up)
  check_case("ref_sfu_mul_const");
}

// softmax's (mult, shift) for the input scale s (docs/NETJSON.md): 0 when loaded, -1 on an error.
static int softmax_params(double s, uint32_t *mult, unsigned *shift) {
  char net[320];
  snprintf(net, sizeof net,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,4], \"scale\": %.17g}], \"layers\": ["
           "{\"name\": \"p\", \"op\": \"softmax\", \"inputs\": [\"x\"], \"output\": \"y\"}], \"outputs\": [\"y\"]}", s);
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  int rc = net_parse(net, strlen(net), "t.json", NULL, &opt, &g, &d) || net_prepare(g, &opt, &d) ? -1 : 0;
  if (!rc) *mult = g->layers[0].sm_mult, *shift = g->layers[0].sm_shift;
  graph_free(g);
  return rc;
}

static void test_sfu_rows(void) {
  uint32_t m = 0;
  unsigned sh = 0;
  CHECK(!softmax_params(0.0625, &m, &sh) && m == 32768 && sh == 8, "softmax at 1/16: (%u, %u)", m, sh);
  CHECK(!softmax_params(0.1, &m, &sh) && m == 52429 && sh == 8, "softmax at 0.1: (%u, %u)", m, sh);
  CHECK(!softmax_params(1e-9, &m, &sh) && m == 4398 && sh == 31, "softmax at 1e-9: (%u, %u)", m, sh);
  CHECK(softmax_params(40, &m, &sh) && softmax_params(1e-20, &m, &sh), "softmax scales 40 and 1e-20 not refused");
  check_case("ref_sfu_softmax_params");
  // softmax at s_in = 1/16: s_in * 2048 = 128 = 32768 / 2^8, the largest shift under 65536.
  static const int8_t q[8] = {0, 16, 32, -128, 5, 5, 5, 5};
  const char *sm =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [2,4], \"scale\": 0.0625}], \"layers\": ["
      "{\"name\": \"p\", \"op\": \"softmax\", \"inputs\": [\"x\"], \"output\": \"y\"}], \"outputs\": [\"y\"]}";
  const int8_t *in[] = {q};
  int8_t y[8], want[8];
  sfu_softmax_row(q, 4, 32768, 8, want);
  sfu_softmax_row(q + 4, 4, 32768, 8, want + 4);
  if (!run(sm, in, "y", y, 8))
    for (int i = 0; i < 8; i++) CHECK(y[i] == want[i], "softmax[%d] = %d, want %d", i, y[i], want[i]);
  CHECK(want[4] == 32 && want[3] == 0, "softmax of equal values: %d, of -128: %d", want[4], want[3]);
  // s_in = 0.1: 204.8 * 2^8 = 52428.8 -> (52429, 8); 2^9 would need 104858 > 65535.
  const char *sm1 =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [2,4], \"scale\": 0.1}], \"layers\": ["
      "{\"name\": \"p\", \"op\": \"softmax\", \"inputs\": [\"x\"], \"output\": \"y\"}], \"outputs\": [\"y\"]}";
  sfu_softmax_row(q, 4, 52429, 8, want);
  sfu_softmax_row(q + 4, 4, 52429, 8, want + 4);
  if (!run(sm1, in, "y", y, 8))
    for (int i = 0; i < 8; i++) CHECK(y[i] == want[i], "softmax at 0.1 [%d] = %d, want %d", i, y[i], want[i]);
  // A finer output scale 2^-(7+j): equal values of a row of 4 give 1/4 = 64 at 2^-8, 128 -> 127 at 2^-9.
  const char *sm8 =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [2,4], \"scale\": 0.0625}], \"layers\": ["
      "{\"name\": \"p\", \"op\": \"softmax\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.00390625}],"
      " \"outputs\": [\"y\"]}";
  if (!run(sm8, in, "y", y, 8)) CHECK(y[4] == 64 && y[7] == 64 && y[3] == 0, "softmax at 2^-8: %d %d %d", y[4], y[7], y[3]);
  const char *sm9 =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [2,4], \"scale\": 0.0625}], \"layers\": ["
      "{\"name\": \"p\", \"op\": \"softmax\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.001953125}],"
      " \"outputs\": [\"y\"]}";
  if (!run(sm9, in, "y", y, 8)) CHECK(y[4] == 127 && y[2] == 127, "softmax at 2^-9: %d %d", y[4], y[2]);
  check_case("ref_sfu_softmax_rows");
  // layernorm, epsilon 0, gamma 1, beta 0, out 1/16: y = round(z / 128) of sfu_layernorm_row;
  // gamma -2, beta 0.5: y = round(-z / 64) + 8.
  static const int8_t xr[8] = {-100, -3, 7, 90, 1, 2, 3, 4};
  int16_t z[8];
  sfu_layernorm_row(xr, 4, z);
  sfu_layernorm_row(xr + 4, 4, z + 4);
  const char *ln =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,1,2,4], \"scale\": 0.5}], \"layers\": ["
      "{\"name\": \"n\", \"op\": \"layernorm\", \"epsilon\": 0, \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.0625}"
      "], \"outputs\": [\"y\"]}";
  const char *ln2 =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,1,2,4], \"scale\": 0.5}], \"layers\": ["
      "{\"name\": \"n\", \"op\": \"layernorm\", \"epsilon\": 0, \"gamma\": [-2,-2,-2,-2], \"beta\": [0.5,0.5,0.5,0.5],"
      " \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.0625}], \"outputs\": [\"y\"]}";
  const int8_t *lin[] = {xr};
  if (!run(ln, lin, "y", y, 8))
    for (int i = 0; i < 8; i++)
      CHECK(y[i] == sa_sat8((int32_t)sa_round_shift(z[i], 7)), "layernorm[%d] = %d, z %d", i, y[i], z[i]);
  if (!run(ln2, lin, "y", y, 8))
    for (int i = 0; i < 8; i++)
      CHECK(y[i] == sa_sat8((int32_t)sa_round_shift(-z[i], 6) + 8), "layernorm gamma -2 [%d] = %d, z %d", i, y[i], z[i]);
  check_case("ref_sfu_layernorm_rows");
}

static void test_sfu_tensor_ops(void) {
  // matmul [1,1,2,3] x [1,1,3,2], scales 1 -> exact integers; transpose; mul with broadcast; sub.
  static const int8_t a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, -1, 2, 0, 0, 3}, gate[2] = {7, 16};
  const char *net =
      "{\"inputs\": [{\"name\": \"a\", \"shape\": [1,1,2,3], \"scale\": 1}, {\"name\": \"b\", \"shape\": [1,1,3,2],"
      " \"scale\": 1}, {\"name\": \"g\", \"shape\": [1,1,1,2], \"scale\": 1}], \"layers\": ["
      "{\"name\": \"m\", \"op\": \"matmul\", \"inputs\": [\"a\", \"b\"], \"output\": \"ab\", \"scale\": 1},"
      "{\"name\": \"t\", \"op\": \"transpose\", \"perm\": [0,1,3,2], \"inputs\": [\"a\"], \"output\": \"at\"},"
      "{\"name\": \"s\", \"op\": \"sub\", \"inputs\": [\"at\", \"b\"], \"output\": \"d\", \"scale\": 1},"
      "{\"name\": \"e\", \"op\": \"mul\", \"inputs\": [\"ab\", \"g\"], \"output\": \"se\", \"scale\": 2}"
      "], \"outputs\": [\"ab\", \"at\", \"d\", \"se\"]}";
  const int8_t *in[] = {a, b, gate};
  int8_t y[6];
  int ab[4] = {5, 8, 14, 14};   // [1 2 3; 4 5 6] x [1 -1; 2 0; 0 3]
  if (!run(net, in, "ab", y, 4)) expect_eq(y, ab, 4, "matmul");
  int at[6] = {1, 4, 2, 5, 3, 6};
  if (!run(net, in, "at", y, 6)) expect_eq(y, at, 6, "transpose");
  int d[6] = {0, 5, 0, 5, 3, 3};
  if (!run(net, in, "d", y, 6)) expect_eq(y, d, 6, "sub");
  // the gate [7, 16] broadcast over the two rows, product / 2 rounded half up
  int se[4] = {18, 64, 49, 112};   // 35/2 = 17.5 -> 18, 128/2, 98/2, 224/2
  if (!run(net, in, "se", y, 4)) expect_eq(y, se, 4, "mul broadcast");
  check_case("ref_sfu_matmul_transpose_sub_mul");
}

int main(void) {
  test_conv();
  test_stride_pad();
  test_depthwise();
  test_pool();
  test_add_concat();
  test_activations();
  test_float_cross_check();
  test_sfu_functions();
  test_sfu_rows();
  test_sfu_tensor_ops();
  return check_status();
}
