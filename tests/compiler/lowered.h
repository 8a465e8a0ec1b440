// lowered.h: helpers of the back-end unit tests (tile_test, lower_test, emit_test): a network
// from net.json text, lowered for an arch and a dataflow; the test archs; a conv2d layer as text.
// Header-only (static inline) because the Makefile links each compiler test from its own .c.
#ifndef SACC_TEST_LOWERED_H
#define SACC_TEST_LOWERED_H

#include <stdio.h>
#include <string.h>

#include "../../compiler/lower.h"
#include "../../compiler/net.h"
#include "../../compiler/tile.h"
#include "../common/check.h"

// Parses and prepares json, then lowers it for arch a in dataflow df. 0, or -1 with the first
// message in msg (when msg is not NULL) and every message printed. *g is freed by the caller.
static inline int lowered(const char *json, const Arch *a, Dataflow df, Graph **g, MachProg *mp, char *msg,
                          size_t msg_len) {
  Diag d;
  diag_init(&d);
  NetOptions opt;
  net_options_default(&opt);
  *g = NULL;
  memset(mp, 0, sizeof *mp);
  int rc = net_parse(json, strlen(json), "net.json", ".", &opt, g, &d) || net_prepare(*g, &opt, &d) ||
                   lower_graph(*g, a, df, NULL, 0, mp, &d)
               ? -1
               : 0;
  if (rc && msg) snprintf(msg, msg_len, "%s", diag_first(&d));
  if (rc && !msg) diag_print(&d);
  return rc;
}

// The archs the tests run on: default (16x16), workloads/arch tiny (4x4) and large (32x32), and
// the RTL tests' 2x2 with buffers of a few rows. 0, or -1 when a file does not load.
static inline int test_arch(int i, Arch *a) {
  static const char *const files[] = {NULL, "workloads/arch/tiny.json", "workloads/arch/large.json",
                                      "tests/rtl/arch_2x2.json"};
  Diag d;
  diag_init(&d);
  int rc = 0;
  if (files[i]) rc = arch_load_file(files[i], a, &d);
  else arch_default(a);
  if (rc) diag_print(&d);
  return rc;
}
#define TEST_N_ARCHS 4

// A network of one conv2d layer "c" (int8 weights from a seed) on input x [n, h, w, cin], with
// `extra` keys of the layer (", \"dilation\": 2") and `more` layers after it reading "y"; the
// output is `out`.
static inline void conv_net(char *buf, size_t len, int n, int h, int w, int cin, int k, int stride, int pad,
                            int cout, const char *extra, const char *more, const char *out) {
  snprintf(buf, len,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [%d, %d, %d, %d], \"scale\": 0.1}], \"layers\": ["
           "{\"name\": \"c\", \"op\": \"conv2d\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.2, "
           "\"kernel\": %d, \"stride\": %d, \"padding\": %d, \"cout\": %d, \"weights\": {\"seed\": 1}, "
           "\"weight_scale\": 0.01%s}%s], \"outputs\": [\"%s\"]}",
           n, h, w, cin, k, stride, pad, cout, extra, more, out);
}

#endif
