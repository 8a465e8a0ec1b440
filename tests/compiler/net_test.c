// net_test.c: the net.json loader (compiler/net.c): each error case with its exact message
// and location, plus a good network's structure (topological order, names, weight sources).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../compiler/net.h"
#include "../common/check.h"

static char tmpdir[64];

// Parses text (as "net.json", weight files in tmpdir) and prepares it; returns the first error.
static const char *load_msg(const char *text, Graph **out) {
  static Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  if (!net_parse(text, strlen(text), "net.json", tmpdir, &opt, &g, &d)) net_prepare(g, &opt, &d);
  if (out) *out = g;
  else graph_free(g);
  return diag_first(&d);
}

static void expect(const char *text, const char *want) {
  const char *got = load_msg(text, NULL);
  CHECK(!strcmp(got, want), "\n  want: %s\n  got:  %s", want, got);
}

#define HEAD "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 5, 5, 2], \"scale\": 0.1}],\n\"layers\": [\n"
#define CONV(name, in, out, extra)                                                                          \
  "{\"name\": \"" name "\", \"op\": \"conv2d\", \"inputs\": [\"" in "\"], \"output\": \"" out "\", "         \
  "\"scale\": 0.2, \"kernel\": 3, \"cout\": 2, \"weights\": {\"seed\": 1}, \"weight_scale\": 0.01" extra "}"

static void test_syntax(void) {
  expect("{\"inputs\": [1,\n  2 3]}", "net.json:2:5: error: ']' expected near '3'");
  expect("{\"a\": 1, \"a\": 2}", "net.json:1:12: error: duplicate object key near '\"a\"'");
  expect("[1]", "net.json: error: the network must be a JSON object");
  check_case("net_syntax_errors");
}

static void test_semantic(void) {
  expect(HEAD "{\"name\": \"c\", \"op\": \"conv3d\", \"inputs\": [\"x\"], \"output\": \"y\"}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c\": error: unknown op \"conv3d\"");
  expect(HEAD "{\"name\": \"b\", \"op\": \"batchnorm\", \"inputs\": [\"x\"], \"output\": \"y\"}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"b\": error: missing \"gamma\"");
  expect(HEAD CONV("c1", "x", "y", "") "," CONV("c2", "nope", "z", "") "], \"outputs\": [\"z\"]}",
         "net.json: layers[1] \"c2\": error: unknown tensor \"nope\" in \"inputs\"");
  expect(HEAD CONV("c1", "x", "y", "") "," CONV("c2", "y", "y", "") "], \"outputs\": [\"y\"]}",
         "net.json: layers[1] \"c2\": error: tensor \"y\" is already the output of layers[0] \"c1\"");
  expect(HEAD CONV("c1", "x", "x", "") "], \"outputs\": [\"x\"]}",
         "net.json: layers[0] \"c1\": error: tensor \"x\" is already a network input");
  expect(HEAD CONV("c1", "x", "y", "") "," CONV("c1", "y", "z", "") "], \"outputs\": [\"z\"]}",
         "net.json: layers[1] \"c1\": error: duplicate layer name (also layers[0])");
  expect(HEAD CONV("c1", "x", "y", "") "], \"outputs\": [\"q\"]}", "net.json: outputs[0]: error: unknown tensor \"q\"");
  expect(HEAD CONV("c1", "x", "y", ", \"strides\": 2") "], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: unknown key \"strides\"");
  expect(HEAD CONV("c1", "x", "y", ", \"stride\": 0") "], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: \"stride\" value 0 is outside 1..1024");
  expect("{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 5, 5, 2], \"scale\": -1}], \"layers\": [], \"outputs\": [\"x\"]}",
         "net.json: inputs[0] \"x\": error: \"scale\" must be positive, not -1");
  expect(HEAD "{\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"r\": error: \"scale\" must be positive, not 0");
  expect(HEAD "{\"name\": \"a\", \"op\": \"add\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"a\": error: add takes 2 inputs, not 1");
  expect(HEAD "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, \"kernel\": 1, "
         "\"cout\": 2, \"weights\": {\"seed\": 1}, \"weight_scale\": [1, 2, 3]}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c\": error: \"weight_scale\" has 3 values, need 1 or cout = 2");
  expect(HEAD CONV("c1", "x", "y", ", \"weight_scale\": 2") "], \"outputs\": [\"y\"]}",
         "net.json:3:161: error: duplicate object key near '\"weight_scale\"'");
  check_case("net_semantic_errors");
}

static void test_cycle(void) {
  expect(HEAD CONV("c1", "x", "a", "") "," CONV("c2", "c", "b", "") "," CONV("c3", "b", "c", "") "], \"outputs\": [\"a\"]}",
         "net.json: error: the graph has a cycle: \"c2\" <- \"c3\" <- \"c2\"");
  expect(HEAD CONV("c1", "y", "y", "") "], \"outputs\": [\"y\"]}",
         "net.json: error: the graph has a cycle: \"c1\" <- \"c1\"");
  check_case("net_cycle");
}

static void test_sizes(void) {
  expect("{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 3, 3, 2], \"scale\": 0.1}], \"layers\": ["
         "{\"name\": \"conv2\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, \"kernel\": 7, "
         "\"padding\": 1, \"cout\": 2, \"weights\": {\"seed\": 1}, \"weight_scale\": 0.01}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"conv2\": error: kernel 7x7 exceeds padded input 5x5");
  expect(HEAD "{\"name\": \"dw\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, \"kernel\": 3, "
         "\"groups\": 2, \"cout\": 3, \"weights\": {\"seed\": 1}, \"weight_scale\": 0.01}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"dw\": error: groups 2 must divide cin 2 and cout 3");
  expect(HEAD "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, \"kernel\": 1, "
         "\"cout\": 2, \"weights\": [1, 2, 3], \"weight_scale\": 0.01}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c\": error: \"weights\" has 3 values, need 4");
  expect(HEAD "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, \"kernel\": 1, "
         "\"cout\": 2, \"weights\": [1, 2, 3, 200], \"weight_scale\": 0.01}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c\": error: \"weights\": element 3 is 200, outside -128..127");
  expect(HEAD CONV("c1", "x", "y", "") ",{\"name\": \"s\", \"op\": \"add\", \"inputs\": [\"x\", \"y\"], \"output\": \"z\", "
         "\"scale\": 1}], \"outputs\": [\"z\"]}",
         "net.json: layers[1] \"s\": error: add of different shapes 1x5x5x2 and 1x3x3x2");
  expect(HEAD "{\"name\": \"p\", \"op\": \"maxpool\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 2, \"padding\": 2}], "
         "\"outputs\": [\"y\"]}",
         "net.json: layers[0] \"p\": error: padding 2,2,2,2 must be smaller than the window 2x2");
  expect(HEAD "{\"name\": \"r\", \"op\": \"reshape\", \"inputs\": [\"x\"], \"output\": \"y\", \"shape\": [1, 7]}], "
         "\"outputs\": [\"y\"]}",
         "net.json: layers[0] \"r\": error: cannot reshape 1x5x5x2 (50 elements) to the given shape");
  expect(HEAD "{\"name\": \"f\", \"op\": \"fc\", \"inputs\": [\"x\"], \"output\": \"y\", \"cout\": 2, \"weights\": {\"seed\": 1}, "
         "\"weight_scale\": 0.1}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"f\": error: missing \"scale\" of the output");
  check_case("net_impossible_sizes");
}

// batchnorm / bias layers, float weights: each error with its place.
#define BN(name, in, out, extra)                                                                            \
  "{\"name\": \"" name "\", \"op\": \"batchnorm\", \"inputs\": [\"" in "\"], \"output\": \"" out "\", "      \
  "\"gamma\": [1, -2], \"beta\": {\"seed\": 3}, \"mean\": [0, 0.5], \"var\": [1, 4]" extra "}"
#define FCONV(name, in, out, extra)                                                                         \
  "{\"name\": \"" name "\", \"op\": \"conv2d\", \"inputs\": [\"" in "\"], \"output\": \"" out "\", "         \
  "\"kernel\": 3, \"cout\": 2, \"weights\": {\"seed\": 1, \"float\": true}" extra "}"

static void test_fold_errors(void) {
  expect(HEAD BN("bn1", "x", "y", "") "], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"bn1\": error: batchnorm must follow a conv2d or fc whose output it alone reads");
  expect(HEAD CONV("c1", "x", "a", "") "," BN("bn1", "a", "y", "") ",{\"name\": \"s\", \"op\": \"add\", \"inputs\": "
         "[\"a\", \"y\"], \"output\": \"z\", \"scale\": 1}], \"outputs\": [\"z\"]}",
         "net.json: layers[1] \"bn1\": error: batchnorm must follow a conv2d or fc whose output it alone reads");
  expect(HEAD CONV("c1", "x", "a", "") "," BN("bn1", "a", "y", "") "], \"outputs\": [\"a\", \"y\"]}",
         "net.json: layers[1] \"bn1\": error: batchnorm must follow a conv2d or fc whose output it alone reads");
  expect(HEAD CONV("c1", "x", "a", ", \"activation\": \"relu\"") "," BN("bn1", "a", "y", "") "], \"outputs\": [\"y\"]}",
         "net.json: layers[1] \"bn1\": error: batchnorm cannot fold through the activation of layers[0] \"c1\"");
  expect(HEAD CONV("c1", "x", "a", "") ",{\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"a\"], \"output\": \"b\"},"
         "{\"name\": \"bb\", \"op\": \"bias\", \"inputs\": [\"b\"], \"output\": \"y\", \"bias\": [1, 2]}], \"outputs\": [\"y\"]}",
         "net.json: layers[2] \"bb\": error: bias must follow a conv2d or fc whose output it alone reads");
  expect(HEAD CONV("c1", "x", "a", "") "," BN("bn1", "a", "y", ", \"epsilon\": 0, \"var\": [1, 0]") "], \"outputs\": [\"y\"]}",
         "net.json:3:305: error: duplicate object key near '\"var\"'");
  expect(HEAD CONV("c1", "x", "a", "") ",{\"name\": \"bn1\", \"op\": \"batchnorm\", \"inputs\": [\"a\"], \"output\": \"y\", "
         "\"gamma\": [1, 1], \"beta\": [0, 0], \"mean\": [0, 0], \"var\": [1, -1], \"epsilon\": 0.5}], \"outputs\": [\"y\"]}",
         "net.json: layers[1] \"bn1\": error: var + epsilon of channel 1 is -0.5, must be positive");
  expect(HEAD CONV("c1", "x", "a", "") ",{\"name\": \"bn1\", \"op\": \"batchnorm\", \"inputs\": [\"a\"], \"output\": \"y\", "
         "\"gamma\": [1, 1, 1], \"beta\": [0, 0], \"mean\": [0, 0], \"var\": [1, 1]}], \"outputs\": [\"y\"]}",
         "net.json: layers[1] \"bn1\": error: \"gamma\" has 3 values, need 2 (the channels)");
  expect(HEAD CONV("c1", "x", "a", "") ",{\"name\": \"bn1\", \"op\": \"batchnorm\", \"inputs\": [\"a\"], \"output\": \"y\", "
         "\"gamma\": [1, 1], \"beta\": [0, 0], \"mean\": [0, 0], \"var\": [1, 1], \"kernel\": 3}], \"outputs\": [\"y\"]}",
         "net.json: layers[1] \"bn1\": error: unknown key \"kernel\"");
  expect(HEAD FCONV("c1", "x", "y", ", \"weight_scale\": 0.1") "], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: float weights take no \"weight_scale\" (sacc quantizes them per output channel)");
  expect(HEAD "{\"name\": \"c1\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 1, \"cout\": 1, "
         "\"weights\": [0.5, 1.5], \"weight_scale\": 0.1}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: \"weights\": element 0 is not an integer");
  expect(HEAD "{\"name\": \"c1\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 1, \"cout\": 1, "
         "\"weights\": {\"seed\": 1}}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: missing \"weight_scale\"");
  expect(HEAD FCONV("c1", "x", "y", ", \"bias\": {\"seed\": 2, \"offset\": 5}") "], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: \"bias\": \"offset\" applies to int8 weights only");
  expect(HEAD CONV("c1", "x", "y", ", \"bias\": {\"seed\": 2, \"offset\": 0.5}") "], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: \"bias\": \"offset\" must be an int32 integer");
  expect(HEAD "{\"name\": \"c1\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1, \"kernel\": 1, "
         "\"cout\": 1, \"weights\": {\"seed\": 1, \"offset\": 3}, \"weight_scale\": 1}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: \"weights\": \"offset\" applies to an integer seeded bias only");
  expect(HEAD FCONV("c1", "x", "y", ", \"weights\": {\"seed\": 1, \"float\": 1}") "], \"outputs\": [\"y\"]}",
         "net.json:3:135: error: duplicate object key near '\"weights\"'");
  expect(HEAD "{\"name\": \"c1\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 1, \"cout\": 1, "
         "\"weights\": {\"seed\": 1, \"float\": 1}}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"c1\": error: \"weights\": \"float\" must be true or false");
  // Without float weights (or --calib) a scale left out is still an error; with them it is calibrated.
  expect("{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 5, 5, 2]}], \"layers\": [" CONV("c1", "x", "y", "") "], \"outputs\": [\"y\"]}",
         "net.json: inputs[0] \"x\": error: missing \"scale\"");
  expect("{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 5, 5, 2]}], \"layers\": [" FCONV("c1", "x", "y", "") "], \"outputs\": [\"y\"]}", "");
  // An integer bias needs its input's scale to become real (the float reference, calibration).
  expect("{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 5, 5, 2]}], \"layers\": [" FCONV("c1", "x", "a", "") ","
         "{\"name\": \"c2\", \"op\": \"conv2d\", \"inputs\": [\"a\"], \"output\": \"y\", \"kernel\": 1, \"cout\": 1, "
         "\"weights\": [1, 2], \"weight_scale\": 0.1, \"bias\": [7]}], \"outputs\": [\"y\"]}",
         "net.json: layers[1] \"c2\": error: an integer \"bias\" needs the input's scale (give it, or use \"bias_float\")");
  check_case("net_fold_and_float_errors");
}

static void write_npy(const char *name, NpyType t, uint32_t ndim, const uint64_t *dims, const void *data) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  Diag d;
  diag_init(&d);
  CHECK(!npy_write(path, t, ndim, dims, data, &d), "npy_write %s: %s", path, diag_first(&d));
}

#define FILE_CONV(w, b)                                                                                     \
  HEAD "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, "      \
       "\"kernel\": [1, 2], \"cout\": 3, \"weights\": {\"file\": \"" w "\"}, \"weight_scale\": 0.01" b "}], " \
       "\"outputs\": [\"y\"]}"

static void test_files(void) {
  int8_t w[12];
  for (int i = 0; i < 12; i++) w[i] = (int8_t)(i - 6);
  int32_t b[3] = {5, -7, 100000};
  float bf[3] = {0.5f, -0.25f, 0};
  uint64_t wd[4] = {1, 2, 2, 3}, bad[4] = {1, 2, 3, 2}, bd[1] = {3};
  write_npy("w.npy", NPY_I8, 4, wd, w);
  write_npy("w32.npy", NPY_I32, 1, bd, b);
  write_npy("wbad.npy", NPY_I8, 4, bad, w);
  write_npy("b.npy", NPY_I32, 1, bd, b);
  write_npy("bf.npy", NPY_F32, 1, bd, bf);
  Graph *g = NULL;
  const char *msg = load_msg(FILE_CONV("w.npy", ", \"bias\": {\"file\": \"b.npy\"}"), &g);
  CHECK(!*msg && g, "good file net: %s", msg);
  if (g) {
    const Layer *l = &g->layers[0];
    CHECK(l->w_count == 12 && l->w[0] == -6 && l->w[11] == 5, "weights from w.npy");
    CHECK(l->bias_q[2] == 100000 && l->bias_q[1] == -7, "bias from b.npy");
  }
  graph_free(g);
  msg = load_msg(FILE_CONV("w.npy", ", \"bias\": {\"file\": \"bf.npy\"}"), &g);
  CHECK(!*msg && g && g->layers[0].bias_q[0] == 500 && g->layers[0].bias_q[1] == -250, "float bias: %s", msg);
  graph_free(g);
  char want[256];
  snprintf(want, sizeof want, "net.json: layers[0] \"c\": error: \"weights\": %s/missing.npy: error: cannot open: No such file or directory", tmpdir);
  const char *got = load_msg(FILE_CONV("missing.npy", ""), NULL);
  CHECK(!strncmp(got, want, 60) && strstr(got, "missing.npy"), "missing file:\n  want: %s\n  got:  %s", want, got);
  expect(FILE_CONV("w32.npy", ""), "net.json: layers[0] \"c\": error: \"weights\": file \"w32.npy\" has dtype int32, need int8");
  expect(FILE_CONV("w.npy", ", \"bias\": {\"file\": \"w.npy\"}"),
         "net.json: layers[0] \"c\": error: \"bias\": file \"w.npy\" has dtype int8, need int32");
  expect(FILE_CONV("wbad.npy", ""), "net.json: layers[0] \"c\": error: weights file has dimension 2 of 3, need 2");
  // float weights from a float32 file: no weight_scale; given one, an error
  float wf[12];
  for (int i = 0; i < 12; i++) wf[i] = (float)(i - 6) / 8;
  write_npy("wf.npy", NPY_F32, 4, wd, wf);
#define FILE_FCONV(w, b)                                                                                    \
  HEAD "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, "      \
       "\"kernel\": [1, 2], \"cout\": 3, \"weights\": {\"file\": \"" w "\"}" b "}], \"outputs\": [\"y\"]}"
  msg = load_msg(FILE_FCONV("wf.npy", ""), &g);
  CHECK(!*msg && g, "float weight file: %s", msg);
  if (g) {  // channel 0 holds -6/8, -3/8, 0, 3/8: scale 0.75/127, values -127, -64 (63.5 rounds away), 0, 64
    const Layer *l = &g->layers[0];
    CHECK(l->n_wscale == 3 && fabs(l->wscale[0] - 0.75 / 127) < 1e-12, "per-channel scale %g", l->wscale[0]);
    CHECK(l->w[0] == -127 && l->w[3] == -64 && l->w[6] == 0 && l->w[9] == 64, "quantized %d %d %d %d", l->w[0], l->w[3],
          l->w[6], l->w[9]);
  }
  graph_free(g);
  expect(FILE_FCONV("wf.npy", ", \"weight_scale\": 0.1"),
         "net.json: layers[0] \"c\": error: float weights take no \"weight_scale\" (sacc quantizes them per output channel)");
  expect(FILE_FCONV("wf.npy", ", \"bias\": {\"file\": \"b.npy\"}"),
         "net.json: layers[0] \"c\": error: \"bias\": float weights need a float32 or float64 bias file");
  expect(HEAD CONV("c1", "x", "a", "") ",{\"name\": \"bn\", \"op\": \"batchnorm\", \"inputs\": [\"a\"], \"output\": \"y\", "
         "\"gamma\": {\"file\": \"b.npy\"}, \"beta\": [0, 0], \"mean\": [0, 0], \"var\": [1, 1]}], \"outputs\": [\"y\"]}",
         "net.json: layers[1] \"bn\": error: \"gamma\": file \"b.npy\" has dtype int32, need float32 or float64");
  check_case("net_weight_files");
}

// The special-function unit's ops: every key range-checked, shapes that do not agree refused
// naming the layer.
#define SEQ "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 1, 8, 12], \"scale\": 0.1}, {\"name\": \"w\", " \
            "\"shape\": [1, 3, 8, 4], \"scale\": 0.1}],\n\"layers\": [\n"
#define ONE(op, ins, extra) "{\"name\": \"l\", \"op\": \"" op "\", \"inputs\": [" ins "], \"output\": \"y\"" extra "}], \"outputs\": [\"y\"]}"
static void test_sfu_errors(void) {
  expect(SEQ ONE("softmax", "\"x\"", ", \"axis\": 2"),
         "net.json: layers[0] \"l\": error: softmax is along the last axis only (axis -1 or 3), not 2");
  expect(SEQ ONE("softmax", "\"x\"", ", \"axis\": 7"), "net.json: layers[0] \"l\": error: \"axis\" is 7, outside -1..3");
  expect(SEQ ONE("softmax", "\"x\"", ", \"scale\": 0.01"),
         "net.json: layers[0] \"l\": error: softmax's output scale must be a power of two from 2^-7 to 2^-22, not 0.01");
  expect(SEQ ONE("softmax", "\"x\"", ", \"scale\": 0.015625"),
         "net.json: layers[0] \"l\": error: softmax's output scale must be a power of two from 2^-7 to 2^-22, not 0.015625");
  expect(SEQ ONE("layernorm", "\"x\"", ", \"scale\": 0.1, \"epsilon\": 2"),
         "net.json: layers[0] \"l\": error: \"epsilon\" must be in 0..1");
  expect(SEQ ONE("layernorm", "\"x\"", ", \"scale\": 0.1, \"gamma\": [1, 2]"),
         "net.json: layers[0] \"l\": error: \"gamma\" has 2 values, need 12 (the channels)");
  expect(SEQ ONE("layernorm", "\"x\"", ""), "net.json: layers[0] \"l\": error: missing \"scale\" of the output");
  expect(SEQ ONE("gelu", "\"x\"", ", \"axis\": -1"), "net.json: layers[0] \"l\": error: unknown key \"axis\"");
  expect(SEQ ONE("matmul", "\"x\", \"w\"", ", \"scale\": 1"),
         "net.json: layers[0] \"l\": error: matmul batch axis 1 differs: 1x1x8x12 and 1x3x8x4");
  expect(SEQ ONE("matmul", "\"x\", \"x\"", ", \"scale\": 1"),
         "net.json: layers[0] \"l\": error: matmul inner dimensions differ: 1x1x8x12 x 1x1x8x12 (12 against 8)");
  expect(SEQ ONE("mul", "\"x\", \"w\"", ", \"scale\": 1"),
         "net.json: layers[0] \"l\": error: mul of shapes 1x1x8x12 and 1x3x8x4: the second must equal the first or be 1 "
         "along each axis");
  expect(SEQ ONE("sub", "\"w\", \"w\"", ""), "net.json: layers[0] \"l\": error: missing \"scale\" of the output");
  expect(SEQ ONE("mul_const", "\"x\"", ", \"factor\": -2"),
         "net.json: layers[0] \"l\": error: \"factor\" must be a positive number in 2^-24..2^24 (a negative one: use sub)");
  expect(SEQ ONE("mul_const", "\"x\"", ""), "net.json: layers[0] \"l\": error: missing \"factor\"");
  expect(SEQ ONE("transpose", "\"x\"", ", \"perm\": [0, 1, 1, 2]"),
         "net.json: layers[0] \"l\": error: \"perm\" must be a permutation of 0..3 (entry 2)");
  expect(SEQ ONE("transpose", "\"x\"", ", \"perm\": [1, 0]"),
         "net.json: layers[0] \"l\": error: \"perm\" has 2 axes, the input has rank 4");
  expect(SEQ ONE("softmax", "\"x\"", ", \"scale\": 0.0078125") "x",
         "net.json:3:103: error: end of file expected near 'x'");
  // heads not dividing the hidden size: the reshape to [N, S, heads, D] cannot be made
  expect(SEQ ONE("reshape", "\"x\"", ", \"shape\": [1, 8, 5, -1]"),
         "net.json: layers[0] \"l\": error: cannot reshape 1x1x8x12 (96 elements) to the given shape");
  check_case("net_sfu_op_errors");
}

static void test_good(void) {
  Graph *g = NULL;
  // Layers listed out of order: the loader sorts them.
  const char *msg = load_msg(HEAD CONV("c2", "a", "b", ", \"padding\": \"same\"") "," CONV("c1", "x", "a", ", \"padding\": 1")
                             "], \"outputs\": [\"b\"]}", &g);
  CHECK(!*msg && g, "good net: %s", msg);
  if (g) {
    CHECK(g->n_layers == 2 && !strcmp(g->layers[0].name, "c1") && !strcmp(g->layers[1].name, "c2"), "topological order");
    CHECK(g->tensors[g->layers[1].in[0]].producer == 0, "producer index remapped");
    CHECK(g->layers[0].w_count == 3 * 3 * 2 * 2, "seeded weight count");
  }
  graph_free(g);
  check_case("net_good_and_sorted");
}

// The op table (compiler/graph_ops.def): every op has a name that parses back to it, sane input
// counts, and keys of its own; the loader applies them: a key of another op is unknown, and the
// input counts are checked with the table's bounds.
static void test_op_table(void) {
  for (int i = 0; i < LOP_COUNT; i++) {
    const GraphOpInfo *o = &graph_ops[i];
    CHECK(o->name && graph_op_parse(o->name) == i, "op %d: name %s", i, o->name ? o->name : "(null)");
    CHECK(o->in_min >= 1 && o->in_min <= o->in_max && o->in_max <= GRAPH_MAX_LAYER_INPUTS, "op %d: inputs %d..%d", i,
          o->in_min, o->in_max);
    CHECK(o->keys && !strstr(o->keys, "name") && !strstr(o->keys, "inputs") && !strstr(o->keys, "output"),
          "op %d: keys \"%s\" restate the common ones", i, o->keys ? o->keys : "(null)");
  }
  CHECK(graph_op_parse("conv") == -1 && graph_op_parse("") == -1, "prefixes are not ops");
  expect(HEAD "{\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"x\"], \"output\": \"y\", \"kernel\": 3}], "
         "\"outputs\": [\"y\"]}",
         "net.json: layers[0] \"r\": error: unknown key \"kernel\"");
  expect(HEAD "{\"name\": \"r\", \"op\": \"clip\", \"inputs\": [\"x\"], \"output\": \"y\", \"min\": 0, "
         "\"max\": 1, \"mi\": 2}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"r\": error: unknown key \"mi\"");
  expect(HEAD "{\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"x\"], \"output\": \"y\", "
         "\"kernel stride\": 3}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"r\": error: unknown key \"kernel stride\"");
  expect(HEAD "{\"name\": \"k\", \"op\": \"concat\", \"inputs\": [], \"output\": \"y\"}], \"outputs\": [\"y\"]}",
         "net.json: layers[0] \"k\": error: concat takes 1 to 64 inputs, not 0");
  expect(HEAD "{\"name\": \"r\", \"op\": \"relu6\", \"inputs\": [\"x\", \"x\"], \"output\": \"y\"}], "
         "\"outputs\": [\"y\"]}",
         "net.json: layers[0] \"r\": error: relu6 takes 1 input, not 2");
  check_case("net_op_table");
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/net_test.XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  test_syntax();
  test_semantic();
  test_sfu_errors();
  test_cycle();
  test_sizes();
  test_files();
  test_fold_errors();
  test_good();
  test_op_table();
  const char *names[] = {"w.npy", "w32.npy", "wbad.npy", "b.npy", "bf.npy", "wf.npy"};
  for (int i = 0; i < 6; i++) {
    char p[128];
    snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
    unlink(p);
  }
  rmdir(tmpdir);
  return check_status();
}
