// quant_test.c: real factors to the machine's (mult, shift) (compiler/quant.c): exact powers of
// two, the 2^-31 relative precision over a wide range, the refused range, and the parameters
// the graph gets (per-channel conv factors, relu6/clip bounds, the add decomposition).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../compiler/net.h"
#include "../../compiler/quant.h"
#include "../../compiler/shape.h"
#include "../common/check.h"

static void test_factor(void) {
  Requant r;
  CHECK(!quant_factor(1.0, &r) && r.mult == 1 << 30 && r.shift == 30, "1.0 -> %d>>%u", r.mult, r.shift);
  CHECK(!quant_factor(0.5, &r) && r.mult == 1 << 30 && r.shift == 31, "0.5");
  CHECK(!quant_factor(0.75, &r) && r.mult == 3 << 29 && r.shift == 31, "0.75");
  CHECK(!quant_factor(1.0 / 3, &r) && r.mult == 1431655765 && r.shift == 32, "1/3 -> %d>>%u", r.mult, r.shift);
  CHECK(!quant_factor(ldexp(1, -33), &r) && r.shift == 63, "smallest: 2^-33");
  CHECK(quant_factor(ldexp(1, -34), &r) == -1, "2^-34 is refused");
  CHECK(!quant_factor(ldexp(1, 31) * (1 - ldexp(1, -30)), &r) && r.shift == 0, "just below 2^31");
  CHECK(quant_factor(ldexp(1, 31), &r) == -1, "2^31 is refused");
  CHECK(quant_factor(0, &r) == -1 && quant_factor(-1, &r) == -1 && quant_factor(NAN, &r) == -1 &&
            quant_factor(INFINITY, &r) == -1, "non-positive or non-finite");
  uint64_t st = 7;
  double worst = 0;
  for (int i = 0; i < 100000; i++) {
    double f = ldexp(1.0 + (double)(shape_seed_next(&st) >> 11) / 9007199254740992.0, (int)(shape_seed_next(&st) % 60) - 30);
    if (quant_factor(f, &r)) {
      CHECK(0, "factor %g refused", f);
      break;
    }
    CHECK(r.mult >= 1 << 30 && r.shift <= 63, "mult %d out of [2^30, 2^31)", r.mult);
    double err = fabs(quant_value(r) - f) / f;
    if (err > worst) worst = err;
  }
  CHECK(worst <= ldexp(1, -31), "relative error %g exceeds 2^-31", worst);
  check_case("quant_factor_precision");
}

static void test_graph(void) {
  const char *text =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,4,4,2], \"scale\": 0.5}, {\"name\": \"z\", \"shape\": [1,4,4,2], \"scale\": 0.125}],"
      " \"layers\": [{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.25, \"kernel\": 1,"
      " \"cout\": 2, \"weights\": {\"seed\": 1}, \"weight_scale\": [0.5, 0.25], \"bias_float\": [1, -0.3], \"activation\": \"relu6\"},"
      " {\"name\": \"k\", \"op\": \"clip\", \"inputs\": [\"x\"], \"output\": \"k\", \"min\": -1, \"max\": 100},"
      " {\"name\": \"a\", \"op\": \"add\", \"inputs\": [\"x\", \"z\"], \"output\": \"s\", \"scale\": 1}],"
      " \"outputs\": [\"y\"]}";
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  if (net_parse(text, strlen(text), "q.json", NULL, &opt, &g, &d) || net_prepare(g, &opt, &d)) {
    CHECK(0, "load: %s", diag_first(&d));
  } else {
    const Layer *c = &g->layers[0], *k = &g->layers[1], *a = &g->layers[2];
    CHECK(quant_value(c->rq[0]) == 1.0 && quant_value(c->rq[1]) == 0.5, "per-channel factors");
    CHECK(c->bias_q[0] == 4 && c->bias_q[1] == -2, "bias 1 / 0.25 = 4, -0.3 / 0.125 = -2.4 -> %d", c->bias_q[1]);
    CHECK(c->mach_act == ACT_CLAMP && c->act_lo == 0 && c->act_hi == 24, "relu6 -> clamp [0, 6 / 0.25]");
    CHECK(k->mach_act == ACT_CLAMP && k->act_lo == -2 && k->act_hi == 127, "clip bounds in units");
    CHECK(quant_value(a->rq[0]) == ldexp(1, QUANT_ADD_BITS) && quant_value(a->rq[1]) == ldexp(1, QUANT_ADD_BITS - 2) &&
              quant_value(a->out_rq) == ldexp(0.5, -QUANT_ADD_BITS),
          "add: inputs to s_acc = 0.5 / 2^20, then to the output scale");
  }
  graph_free(g);
  check_case("quant_graph_parameters");
}

static void test_range_error(void) {
  const char *text =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1,2], \"scale\": 1e-12}], \"layers\": [{\"name\": \"r\", \"op\": \"relu\","
      " \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 1000}], \"outputs\": [\"y\"]}";
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  Graph *g = NULL;
  int rc = net_parse(text, strlen(text), "q.json", NULL, &opt, &g, &d) || net_prepare(g, &opt, &d);
  CHECK(rc && !strcmp(diag_first(&d), "q.json: layers[0] \"r\": error: rescale factor 1e-15 (s_in / s_out, input 0) is "
                                        "outside the machine's range [2^-33, 2^31)"),
        "got: %s", diag_first(&d));
  graph_free(g);
  check_case("quant_range_error");
}

int main(void) {
  test_factor();
  test_graph();
  test_range_error();
  return check_status();
}
