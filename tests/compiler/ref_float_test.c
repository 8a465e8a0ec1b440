// ref_float_test.c: the float reference (compiler/ref_float.c) on hand-computed examples (conv
// with padding and stride, depthwise, pooling with padding both ways, add, concat, the
// activations), then on the small generated networks: the int8 reference must stay close to it
// (SQNR above 20 dB per output), which fails if either reference computes something else.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/net.h"
#include "../../compiler/qerror.h"
#include "../../compiler/ref.h"
#include "../../compiler/ref_float.h"
#include "../common/check.h"

// Runs text on one real input; copies tensor `name` (n values) into out.
static int run(const char *text, const float *x, const char *name, float *out, int n) {
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  RefFloat r = {0};
  const float *in[] = {x};
  int rc = net_parse(text, strlen(text), "t.json", NULL, &opt, &g, &d) || net_prepare(g, &opt, &d) ||
           ref_float_run(g, in, &r, &d);
  if (!rc) {
    int t = graph_tensor_find(g, name);
    rc = t < 0 || graph_tensor_count(&g->tensors[t]) != n;
    if (!rc) memcpy(out, r.data[t], (size_t)n * sizeof(float));
  }
  CHECK(!rc, "run failed: %s", diag_first(&d));
  ref_float_free(&r);
  graph_free(g);
  return rc;
}

static void expect(const float *got, const double *want, int n, const char *what) {
  for (int i = 0; i < n; i++) CHECK(fabs(got[i] - want[i]) < 1e-5, "%s[%d]: got %g, want %g", what, i, got[i], want[i]);
}

#define NET(shape, layers, outs) \
  "{\"inputs\": [{\"name\": \"x\", \"shape\": " shape ", \"scale\": 1}], \"layers\": [" layers "], \"outputs\": [" outs "]}"

static void test_conv(void) {
  static const float x[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  float y[4];
  // int8 weights 1..9 with weight_scale 0.5, bias_float 1, stride 2, padding 1 (see ref_test.c:
  // the sums are 111, 217, 363, 573) -> 0.5 * sum + 1
  const char *net = NET("[1,4,4,1]", "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1,"
                        " \"kernel\": 3, \"stride\": 2, \"padding\": 1, \"cout\": 1, \"weights\": [1,2,3,4,5,6,7,8,9],"
                        " \"weight_scale\": 0.5, \"bias_float\": [1]}", "\"y\"");
  double want[4] = {56.5, 109.5, 182.5, 287.5};
  if (!run(net, x, "y", y, 4)) expect(y, want, 4, "conv");
  // float weights, depthwise 2x2 over 2 channels: channel 0 weights (1, 0.5, 0, -1) ...
  static const float x2[8] = {1, -1, 2, -2, 3, -3, 4, -4};  // 2x2 map, 2 channels
  const char *dw = "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,2,2,2], \"scale\": 1}], \"layers\": ["
                   "{\"name\": \"d\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 2, \"groups\": 2,"
                   " \"cout\": 2, \"weights\": [1, 2, 0.5, 0, 0, 0.25, -1, 1], \"activation\": \"relu\"}], \"outputs\": [\"y\"]}";
  double want2[2] = {1 * 1 + 2 * 0.5 + 3 * 0 + 4 * -1 > 0 ? 1 : 0, -1 * 2 + -2 * 0 + -3 * 0.25 + -4 * 1 > 0 ? 1 : 0};
  if (!run(dw, x2, "y", y, 2)) expect(y, want2, 2, "depthwise + relu");
  check_case("ref_float_conv");
}

static void test_pool_add_concat(void) {
  static const float m[9] = {5, -3, 7, -8, 2, 9, 1, -6, 4};
  float y[8];
  char net[700];
  const char *fmt = NET("[1,3,3,1]", "{\"name\": \"p\", \"op\": \"%s\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1,"
                        " \"kernel\": 2, \"padding\": [1,0,1,0]%s}", "\"y\"");
  snprintf(net, sizeof net, fmt, "maxpool", "");
  double want_max[4] = {5, 7, 1, 9};
  if (!run(net, m, "y", y, 4)) expect(y, want_max, 4, "maxpool");
  snprintf(net, sizeof net, fmt, "avgpool", "");
  double want_incl[4] = {5 / 4.0, 4 / 4.0, -7 / 4.0, 9 / 4.0};
  if (!run(net, m, "y", y, 4)) expect(y, want_incl, 4, "avgpool");
  snprintf(net, sizeof net, fmt, "avgpool", ", \"count_include_pad\": false");
  double want_excl[4] = {5, 2, -3.5, 9 / 4.0};
  if (!run(net, m, "y", y, 4)) expect(y, want_excl, 4, "avgpool excluding padding");
  const char *g = NET("[1,3,3,1]", "{\"name\": \"g\", \"op\": \"global_avgpool\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1}",
                      "\"y\"");
  double want_g[1] = {11 / 9.0};
  if (!run(g, m, "y", y, 1)) expect(y, want_g, 1, "global_avgpool");
  static const float a[4] = {3, -3, 100, 0};
  const char *ac = NET("[1,4]",
                       "{\"name\": \"r\", \"op\": \"relu6\", \"inputs\": [\"x\"], \"output\": \"r\"},"
                       "{\"name\": \"s\", \"op\": \"add\", \"inputs\": [\"x\", \"r\"], \"output\": \"y\", \"scale\": 1, \"activation\": \"clip\", \"min\": -2, \"max\": 50},"
                       "{\"name\": \"c\", \"op\": \"concat\", \"inputs\": [\"r\", \"x\"], \"output\": \"z\"}",
                       "\"y\", \"z\"");
  double want_add[4] = {6, -2, 50, 0}, want_cat[8] = {3, 0, 6, 0, 3, -3, 100, 0};
  if (!run(ac, a, "y", y, 4)) expect(y, want_add, 4, "relu6 + add + clip");
  if (!run(ac, a, "z", y, 8)) expect(y, want_cat, 8, "concat");
  check_case("ref_float_pool_add_concat");
}

// Every small generated network (scales from scripts/gen-nets.py or calibrated): the int8
// reference is within 20 dB SQNR of the float one. (The hand-written residual and depthwise
// examples are left out: their scales saturate a few percent of some layers, 11 to 15 dB.)
static void test_shipped(void) {
  static const char *const nets[] = {"lenet5", "tiny_cnn", "edge_odd", "edge_padding",
                                     "edge_dilation", "edge_channels", "edge_depthwise", "edge_residual", "edge_concat",
                                     "edge_pooling", "edge_gap_fc", "edge_activations", "edge_reshape", "edge_float_bn"};
  for (size_t k = 0; k < sizeof nets / sizeof *nets; k++) {
    char path[128];
    snprintf(path, sizeof path, "workloads/nets/%s.json", nets[k]);
    Diag d;
    diag_init(&d);
    NetOptions opt;
    net_options_default(&opt);
    Graph *g = NULL;
    if (net_load(path, &opt, &g, &d) || net_prepare(g, &opt, &d)) {
      CHECK(0, "%s", diag_first(&d));
      graph_free(g);
      continue;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f && !qerror_report(g, &opt, 0, f, &d)) {
      fclose(f);
      f = NULL;
      for (char *line = strstr(text, "\noutput "); line; line = strstr(line + 1, "\noutput ")) {
        char *sq = strstr(line, " sqnr ");
        double db = sq ? atof(sq + 6) : 0;
        CHECK(db > 20, "%s: %.60s", nets[k], line + 1);
      }
    } else {
      CHECK(0, "%s: %s", nets[k], diag_first(&d));
    }
    if (f) fclose(f);
    free(text);
    graph_free(g);
  }
  check_case("ref_float_vs_int8_shipped");
}

// The special-function unit's ops in float: softmax, layernorm (gamma, beta, epsilon), the
// element functions, matmul, transpose, sub, mul_const (mul's broadcast: sfu_models.py's SE block).
static void test_sfu_ops(void) {
  static const float x[8] = {1, 2, 3, 4, -1, 0, 0.5f, 2};
  float y[8];
  const char *sm = NET("[2,4]", "{\"name\": \"p\", \"op\": \"softmax\", \"inputs\": [\"x\"], \"output\": \"y\"}", "\"y\"");
  double z = exp(1) + exp(2) + exp(3) + exp(4);
  double want_sm[4] = {exp(1) / z, exp(2) / z, exp(3) / z, exp(4) / z};
  if (!run(sm, x, "y", y, 8)) expect(y, want_sm, 4, "softmax");
  const char *ln = NET("[2,4]", "{\"name\": \"n\", \"op\": \"layernorm\", \"gamma\": [2,2,2,2], \"beta\": [1,1,1,1],"
                                " \"epsilon\": 0, \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1}", "\"y\"");
  double sd = sqrt(1.25);   // the population variance of 1..4
  double want_ln[4] = {1 - 3 / sd, 1 - 1 / sd, 1 + 1 / sd, 1 + 3 / sd};
  if (!run(ln, x, "y", y, 8)) expect(y, want_ln, 4, "layernorm");
  static const char *const ops[5] = {"gelu", "sigmoid", "silu", "hardswish", "hardsigmoid"};
  double at2[5] = {2 * 0.5 * (1 + erf(2 / sqrt(2.0))), 1 / (1 + exp(-2.0)), 2 / (1 + exp(-2.0)), 2 * 5 / 6.0, 5 / 6.0};
  for (int k = 0; k < 5; k++) {
    char net[300];
    snprintf(net, sizeof net, NET("[2,4]", "{\"name\": \"f\", \"op\": \"%s\", \"inputs\": [\"x\"], \"output\": \"y\"}", "\"y\""),
             ops[k]);
    if (!run(net, x, "y", y, 8)) expect(y + 7, at2 + k, 1, ops[k]);   // x[7] = 2
  }
  // [1,1,2,4] x its transpose [1,1,4,2] = the 2x2 Gram matrix; mul by the broadcast row, sub, mul_const.
  const char *mm = NET("[1,1,2,4]",
                       "{\"name\": \"t\", \"op\": \"transpose\", \"perm\": [0,1,3,2], \"inputs\": [\"x\"], \"output\": \"xt\"},"
                       "{\"name\": \"m\", \"op\": \"matmul\", \"inputs\": [\"x\", \"xt\"], \"output\": \"g\", \"scale\": 1},"
                       "{\"name\": \"r\", \"op\": \"reshape\", \"shape\": [1,1,4,2], \"inputs\": [\"x\"], \"output\": \"x2\"},"
                       "{\"name\": \"s\", \"op\": \"sub\", \"inputs\": [\"xt\", \"x2\"], \"output\": \"d\", \"scale\": 1},"
                       "{\"name\": \"k\", \"op\": \"mul_const\", \"factor\": 0.5, \"inputs\": [\"g\"], \"output\": \"h\"}",
                       "\"g\", \"d\", \"h\"");
  double want_g[4] = {30, 8.5, 8.5, 5.25}, want_h[4] = {15, 4.25, 4.25, 2.625};
  if (!run(mm, x, "g", y, 4)) expect(y, want_g, 4, "matmul");
  if (!run(mm, x, "h", y, 4)) expect(y, want_h, 4, "mul_const");
  double want_d[8] = {0, -3, -1, -4, 4, 0.5, 3.5, 0};   // x^T [4,2] - x read as [4,2]
  if (!run(mm, x, "d", y, 8)) expect(y, want_d, 8, "sub");
  check_case("ref_float_sfu_ops");
}

int main(void) {
  test_conv();
  test_pool_add_concat();
  test_shipped();
  test_sfu_ops();
  return check_status();
}
