// shape_test.c: shape inference (compiler/shape.c) for every op: "same" padding with stride 2
// (odd padding at the bottom/right), asymmetric padding, dilation, depthwise, pooling defaults,
// concat, flatten, reshape with -1, fc on an NHWC input, scale inheritance, MAC counts.
#include <stdio.h>
#include <string.h>

#include "../../compiler/net.h"
#include "../common/check.h"

static Graph *load(const char *layers, const char *shape) {
  char text[4096];
  snprintf(text, sizeof text, "{\"inputs\": [{\"name\": \"x\", \"shape\": %s, \"scale\": 0.1}], \"layers\": [%s], \"outputs\": [\"x\"]}",
           shape, layers);
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  if (net_parse(text, strlen(text), "s.json", NULL, &opt, &g, &d) || net_prepare(g, &opt, &d)) {
    CHECK(0, "load failed: %s", diag_first(&d));
    graph_free(g);
    return NULL;
  }
  return g;
}

// The shape of tensor name as "a,b,c,d".
static const char *shape_of(const Graph *g, const char *name) {
  static char buf[64];
  int t = graph_tensor_find(g, name);
  if (t < 0) return "?";
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < g->tensors[t].rank; i++)
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%lld", i ? "," : "", (long long)g->tensors[t].dims[i]);
  return buf;
}

#define EXPECT_SHAPE(g, name, want) \
  CHECK(!strcmp(shape_of(g, name), want), "%s: got %s, want %s", name, shape_of(g, name), want)

#define CONV(name, in, out, attrs)                                                                             \
  "{\"name\": \"" name "\", \"op\": \"conv2d\", \"inputs\": [\"" in "\"], \"output\": \"" out "\", \"scale\": 0.2," \
  " \"weights\": {\"seed\": 3}, \"weight_scale\": 0.01, " attrs "}"

static void test_conv_shapes(void) {
  Graph *g = load(CONV("a", "x", "ya", "\"kernel\": 3, \"stride\": 2, \"padding\": \"same\", \"cout\": 4") ","
                  CONV("b", "x", "yb", "\"kernel\": 3, \"padding\": [1, 0, 2, 0], \"cout\": 2") ","
                  CONV("c", "x", "yc", "\"kernel\": 3, \"dilation\": 2, \"cout\": 2") ","
                  CONV("d", "x", "yd", "\"kernel\": [3, 1], \"groups\": 4, \"cout\": 8, \"padding\": \"valid\"") ","
                  CONV("e", "x", "ye", "\"kernel\": 2, \"stride\": 2, \"padding\": \"same\", \"cout\": 1"),
                  "[2, 6, 7, 4]");
  if (g) {
    EXPECT_SHAPE(g, "ya", "2,3,4,4");  // ceil(6/2), ceil(7/2)
    const Layer *a = &g->layers[0];
    CHECK(a->pad_t == 0 && a->pad_b == 1 && a->pad_l == 1 && a->pad_r == 1, "same s2: pads %d,%d,%d,%d", a->pad_t,
          a->pad_b, a->pad_l, a->pad_r);
    CHECK(a->macs == 2 * 3 * 4 * 4 * 9 * 4, "macs %lld", (long long)a->macs);
    EXPECT_SHAPE(g, "yb", "2,5,7,2");  // 6+1-3+1, 7+2-3+1
    EXPECT_SHAPE(g, "yc", "2,2,3,2");  // effective kernel 5
    EXPECT_SHAPE(g, "yd", "2,4,7,8");
    CHECK(g->layers[3].w_count == 3 * 1 * 1 * 8, "depthwise weights %lld", (long long)g->layers[3].w_count);
    EXPECT_SHAPE(g, "ye", "2,3,4,1");
    CHECK(g->layers[4].pad_b == 0 && g->layers[4].pad_r == 1, "same k2 s2 on 7: right pad 1");
  }
  graph_free(g);
  check_case("shape_conv");
}

static void test_other_shapes(void) {
  Graph *g = load("{\"name\": \"mp\", \"op\": \"maxpool\", \"inputs\": [\"x\"], \"output\": \"m\", \"kernel\": 2},"
                  "{\"name\": \"ap\", \"op\": \"avgpool\", \"inputs\": [\"x\"], \"output\": \"a\", \"scale\": 0.1,"
                  " \"kernel\": 3, \"stride\": 2, \"padding\": \"same\"},"
                  "{\"name\": \"gp\", \"op\": \"global_avgpool\", \"inputs\": [\"x\"], \"output\": \"g\", \"scale\": 0.1},"
                  "{\"name\": \"r\", \"op\": \"relu\", \"inputs\": [\"x\"], \"output\": \"r\"},"
                  "{\"name\": \"cat\", \"op\": \"concat\", \"inputs\": [\"x\", \"r\", \"x\"], \"output\": \"c\"},"
                  "{\"name\": \"f\", \"op\": \"flatten\", \"inputs\": [\"c\"], \"output\": \"f\"},"
                  "{\"name\": \"rs\", \"op\": \"reshape\", \"inputs\": [\"f\"], \"output\": \"rs\", \"shape\": [1, -1, 5, 3]},"
                  "{\"name\": \"fc\", \"op\": \"fc\", \"inputs\": [\"x\"], \"output\": \"fc\", \"scale\": 0.3, \"cout\": 7,"
                  " \"weights\": {\"seed\": 1}, \"weight_scale\": 0.01},"
                  "{\"name\": \"ad\", \"op\": \"add\", \"inputs\": [\"x\", \"r\"], \"output\": \"ad\", \"scale\": 0.2}",
                  "[1, 5, 5, 3]");
  if (g) {
    EXPECT_SHAPE(g, "m", "1,2,2,3");  // stride defaults to the window
    EXPECT_SHAPE(g, "a", "1,3,3,3");
    EXPECT_SHAPE(g, "g", "1,1,1,3");
    EXPECT_SHAPE(g, "r", "1,5,5,3");
    EXPECT_SHAPE(g, "c", "1,5,5,9");
    EXPECT_SHAPE(g, "f", "1,225");
    EXPECT_SHAPE(g, "rs", "1,15,5,3");
    EXPECT_SHAPE(g, "fc", "1,7");
    EXPECT_SHAPE(g, "ad", "1,5,5,3");
    CHECK(g->tensors[graph_tensor_find(g, "r")].scale == 0.1, "relu keeps the input scale");
    CHECK(g->tensors[graph_tensor_find(g, "f")].scale == 0.1, "flatten keeps the input scale");
    CHECK(g->layers[7].cin == 75 && g->layers[7].macs == 75 * 7, "fc cin %lld", (long long)g->layers[7].cin);
  }
  graph_free(g);
  check_case("shape_pool_concat_reshape_fc");
}

int main(void) {
  test_conv_shapes();
  test_other_shapes();
  return check_status();
}
