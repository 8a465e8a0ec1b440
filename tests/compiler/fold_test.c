// fold_test.c: batchnorm and bias folding (compiler/fold.c), float weights and calibration
// (quant.c, calib.c), the float reference (ref_float.c) and the quantization error measure
// (qerror.c), each against values computed here by hand or from the unfolded network.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/net.h"
#include "../../compiler/qerror.h"
#include "../../compiler/ref.h"
#include "../../compiler/ref_float.h"
#include "../common/check.h"

static Graph *load(const char *text, const NetOptions *o) {
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  if (net_parse(text, strlen(text), "t.json", NULL, o ? o : &opt, &g, &d) || net_prepare(g, o ? o : &opt, &d)) {
    CHECK(0, "load failed: %s", diag_first(&d));
    graph_free(g);
    return NULL;
  }
  return g;
}

// Runs the int8 reference; copies tensor `name` (n values) into out.
static int run8(const Graph *g, const int8_t *x, const char *name, int8_t *out, int n) {
  Diag d;
  diag_init(&d);
  RefValues v = {0};
  const int8_t *in[] = {x};
  int t = graph_tensor_find(g, name);
  int rc = t < 0 || ref_run(g, in, &v, &d);
  if (!rc) memcpy(out, v.data[t], (size_t)n);
  CHECK(!rc, "ref_run: %s", diag_first(&d));
  ref_values_free(&v);
  return rc;
}

static int sat8(double v) { return v > 127 ? 127 : v < -128 ? -128 : (int)lround(v); }

#define IN "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 1, 2, 2], \"scale\": 0.5}], \"layers\": ["

// conv 1x1, 2 -> 2 channels, int8 weights [[1, 2], [3, -128]] (rows cin), weight_scale 0.25,
// bias_float [1, -1]; then batchnorm gamma [2, -0.5], beta [0.5, 1], mean [1, -2], var [3, 0], eps 1.
// Unfolded, by hand: a = gamma / sqrt(var + eps) = [1, -0.5], b = beta - a * mean = [-0.5, 0].
static void test_batchnorm_int8(void) {
  const char *net = IN
      "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"a\", \"kernel\": 1, \"cout\": 2,"
      " \"weights\": [1, 2, 3, -128], \"weight_scale\": 0.25, \"bias_float\": [1, -1]},"
      "{\"name\": \"bn\", \"op\": \"batchnorm\", \"inputs\": [\"a\"], \"output\": \"y\", \"scale\": 0.25,"
      " \"gamma\": [2, -0.5], \"beta\": [0.5, 1], \"mean\": [1, -2], \"var\": [3, 0], \"epsilon\": 1}],"
      " \"outputs\": [\"y\"]}";
  Graph *g = load(net, NULL);
  if (!g) return check_case("fold_batchnorm_int8");
  CHECK(g->n_layers == 1 && g->layers[0].op == LOP_CONV2D && g->n_tensors == 2, "batchnorm and its input tensor removed");
  CHECK(!strcmp(g->tensors[g->layers[0].out].name, "y") && g->tensors[g->layers[0].out].producer == 0, "conv writes y");
  const Layer *l = &g->layers[0];
  CHECK(l->wscale[0] == 0.25 && l->wscale[1] == 0.125, "scales %g %g: s_w |a|", l->wscale[0], l->wscale[1]);
  CHECK(l->w[0] == 1 && l->w[2] == 3 && l->w[1] == -2 && l->w[3] == 127, "channel 1 negated, -128 -> 127: %d %d",
        l->w[1], l->w[3]);
  static const int8_t x[4] = {2, -4, 10, 6};  // pixels (1, -2), (5, 3) in real units
  int8_t y[4];
  if (!run8(g, x, "y", y, 4)) {
    for (int p = 0; p < 2; p++) {  // unfolded: conv in reals, batchnorm, quantize to 0.25
      double x0 = x[2 * p] * 0.5, x1 = x[2 * p + 1] * 0.5;
      double c0 = (x0 * 1 + x1 * 3) * 0.25 + 1, c1 = (x0 * 2 + x1 * -127) * 0.25 - 1;  // the fold makes -128 -127
      double y0 = (c0 - 1) * 2 / 2 + 0.5, y1 = (c1 + 2) * -0.5 / 1 + 1;
      CHECK(y[2 * p] == sat8(y0 / 0.25) && abs(y[2 * p + 1] - sat8(y1 / 0.25)) <= 1,
            "pixel %d: got %d %d, want %.2f %.2f", p, y[2 * p], y[2 * p + 1], y0 / 0.25, y1 / 0.25);
    }
  }
  graph_free(g);
  check_case("fold_batchnorm_int8");
}

// A bias layer folds to exactly what bias_float on the conv gives: identical int8 outputs.
static void test_bias_layer(void) {
  const char *a = IN
      "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"t\", \"kernel\": 1, \"cout\": 2,"
      " \"weights\": {\"seed\": 5}, \"weight_scale\": [0.01, 0.02], \"bias\": [100, -50]},"
      "{\"name\": \"b\", \"op\": \"bias\", \"inputs\": [\"t\"], \"output\": \"y\", \"scale\": 0.3, \"bias\": [0.75, -1.5]}],"
      " \"outputs\": [\"y\"]}";
  // bias 100 in accumulator units is 100 * 0.5 * 0.01 = 0.5 real; -50 is -50 * 0.5 * 0.02 = -0.5
  const char *b = IN
      "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.3, \"kernel\": 1, \"cout\": 2,"
      " \"weights\": {\"seed\": 5}, \"weight_scale\": [0.01, 0.02], \"bias_float\": [1.25, -2]}], \"outputs\": [\"y\"]}";
  Graph *ga = load(a, NULL), *gb = load(b, NULL);
  if (ga && gb) {
    CHECK(ga->layers[0].bias_q[0] == gb->layers[0].bias_q[0] && ga->layers[0].bias_q[1] == gb->layers[0].bias_q[1],
          "bias_q %d %d vs %d %d", ga->layers[0].bias_q[0], ga->layers[0].bias_q[1], gb->layers[0].bias_q[0],
          gb->layers[0].bias_q[1]);
    static const int8_t x[4] = {100, -100, 7, 127};
    int8_t ya[4], yb[4];
    if (!run8(ga, x, "y", ya, 4) && !run8(gb, x, "y", yb, 4)) CHECK(!memcmp(ya, yb, 4), "outputs differ");
  }
  graph_free(ga), graph_free(gb);
  check_case("fold_bias_layer");
}

// Float weights + batchnorm, calibrated on a given input: the float reference of the folded
// graph equals the unfolded network computed here; the scales are max|x| / 127.
static void test_float_calibration(void) {
  const char *net =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 2]}], \"layers\": ["
      "{\"name\": \"f\", \"op\": \"fc\", \"inputs\": [\"x\"], \"output\": \"t\", \"cout\": 2, \"weights\": [1, 2, 3, 4.5],"
      " \"bias\": [0.5, 0]},"
      "{\"name\": \"bn\", \"op\": \"batchnorm\", \"inputs\": [\"t\"], \"output\": \"u\", \"gamma\": [1, 2], \"beta\": [0, 1],"
      " \"mean\": [1, 0], \"var\": [4, 1], \"epsilon\": 0},"
      "{\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"u\"], \"output\": \"y\"}], \"outputs\": [\"y\"]}";
  static const float x[2] = {1.0f, -2.0f};
  const float *calib[1] = {x};
  NetOptions opt;
  net_options_default(&opt);
  opt.calib = calib;
  Graph *g = load(net, &opt);
  if (!g) return check_case("fold_float_calibration");
  // fc: [1 + -6 + 0.5, 2 - 9] = [-4.5, -7]; bn: [(-4.5 - 1) / 2, -7 * 2 + 1] = [-2.75, -13]; relu: 0.
  int u = graph_tensor_find(g, "u"), y = graph_tensor_find(g, "y");
  CHECK(g->n_layers == 2 && u >= 0 && y >= 0, "folded: %d layers", g->n_layers);
  if (u >= 0 && y >= 0) {
    CHECK(fabs(g->tensors[g->inputs[0]].scale - 2.0 / 127) < 1e-12, "input scale %g", g->tensors[g->inputs[0]].scale);
    CHECK(fabs(g->tensors[u].scale - 13.0 / 127) < 1e-6, "u scale %g, want 13/127", g->tensors[u].scale);
    CHECK(g->tensors[y].scale == g->tensors[u].scale, "relu inherits its input's scale");
    Diag d;
    diag_init(&d);
    RefFloat r = {0};
    const float *in[] = {x};
    if (!ref_float_run(g, in, &r, &d)) {
      CHECK(fabs(r.data[u][0] + 2.75) < 1e-5 && fabs(r.data[u][1] + 13) < 1e-5, "float ref %g %g", r.data[u][0], r.data[u][1]);
      CHECK(r.data[y][0] == 0 && r.data[y][1] == 0, "relu");
    } else {
      CHECK(0, "ref_float_run: %s", diag_first(&d));
    }
    ref_float_free(&r);
    const Layer *l = &g->layers[0];  // weights rows cin: channel 0 (1, 3), channel 1 (2, 4.5), times a = (0.5, 2)
    CHECK(fabs(l->wscale[0] - 1.5 / 127) < 1e-9 && fabs(l->wscale[1] - 9.0 / 127) < 1e-9, "weight scales %g %g",
          l->wscale[0], l->wscale[1]);
    CHECK(l->w[0] == 42 && l->w[2] == 127 && l->w[1] == 56 && l->w[3] == 127, "weights %d %d %d %d", l->w[0], l->w[2],
          l->w[1], l->w[3]);
  }
  graph_free(g);
  check_case("fold_float_calibration");
}

static void test_qerror(void) {
  static const int8_t q[4] = {10, -20, 0, 127};
  static const float f[4] = {1.0f, -2.1f, 0.05f, 12.7f};
  QError e;
  qerror_measure(q, 0.1, f, 4, &e);
  double err2 = 0.01 + 0.0025, sig2 = 1 + 4.41 + 0.0025 + 161.29;
  CHECK(fabs(e.max_abs - 0.1) < 1e-6, "max_abs %g", e.max_abs);
  CHECK(fabs(e.rms - sqrt(err2 / 4)) < 1e-6, "rms %g", e.rms);
  CHECK(fabs(e.sqnr_db - 10 * log10(sig2 / err2)) < 1e-3, "sqnr %g", e.sqnr_db);
  check_case("qerror_measure");
}

// docs/NETJSON.md "Exact arithmetic of the float path": a zero gamma zeroes an int8 channel's
// weights and integer bias but keeps its weight scale; the real offset is rounded (halves away
// from zero) before the integer bias is added. conv 1x1, int8 weights [[1, 2], [3, 4]], scale
// 0.25, integer bias [5, -3]; batchnorm gamma [0, 1], var 0, eps 1 (a = [0, 1]), mean 0, beta
// [0.25, 0.3125]: b / (s_in s_w) = [2, 2.5]. bias_q = [0 + 2, -3 + round(2.5) = 0] (rounding
// after the add would give round(-0.5) = -1).
static void test_zero_gamma_bias_order(void) {
  const char *net = IN
      "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"a\", \"kernel\": 1, \"cout\": 2,"
      " \"weights\": [1, 2, 3, 4], \"weight_scale\": 0.25, \"bias\": [5, -3]},"
      "{\"name\": \"bn\", \"op\": \"batchnorm\", \"inputs\": [\"a\"], \"output\": \"y\", \"scale\": 0.25,"
      " \"gamma\": [0, 1], \"beta\": [0.25, 0.3125], \"mean\": [0, 0], \"var\": [0, 0], \"epsilon\": 1}],"
      " \"outputs\": [\"y\"]}";
  Graph *g = load(net, NULL);
  if (!g) return check_case("fold_zero_gamma_bias_order");
  const Layer *l = &g->layers[0];
  CHECK(l->wscale[0] == 0.25 && l->wscale[1] == 0.25, "weight scales %g %g: a zero gamma keeps it", l->wscale[0],
        l->wscale[1]);
  CHECK(l->w[0] == 0 && l->w[2] == 0 && l->w[1] == 2 && l->w[3] == 4, "channel 0 zeroed: %d %d %d %d", l->w[0], l->w[1],
        l->w[2], l->w[3]);
  CHECK(l->bias_q[0] == 2 && l->bias_q[1] == 0, "bias_q %d %d, want 2 0", l->bias_q[0], l->bias_q[1]);
  graph_free(g);
  check_case("fold_zero_gamma_bias_order");
}

int main(void) {
  test_batchnorm_int8();
  test_zero_gamma_bias_order();
  test_bias_layer();
  test_float_calibration();
  test_qerror();
  return check_status();
}
