// fuzz_net.c: libFuzzer target for the net.json loader (compiler/net.c, shape.c, quant.c) and
// the reference interpreter (compiler/ref.c). The input is net.json text, parsed with file
// access disabled, tensors capped at 2^16 elements and calibration runs (float weights) at
// 2^20 MACs; a network that loads is run through
// the reference on seeded inputs when it has at most 2^20 MACs. Any error must come with a
// message and no graph; the sanitizers catch the rest.
#include <stdio.h>
#include <stdlib.h>

#include "../../compiler/net.h"
#include "../../compiler/ref.h"
#include "../../compiler/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NetOptions opt;
  net_options_default(&opt);
  opt.allow_files = 0;
  opt.max_elems = 1 << 16;
  opt.max_calib_macs = 1 << 20;
  Diag d;
  diag_init(&d);
  Graph *g = NULL;
  if (net_parse((const char *)data, size, "fuzz.json", NULL, &opt, &g, &d) || net_prepare(g, &opt, &d)) {
    if (d.count == 0) {
      fprintf(stderr, "fuzz_net: an error without a message\n");
      abort();
    }
    graph_free(g);
    return 0;
  }
  int64_t macs = 0;
  for (int i = 0; i < g->n_layers; i++) macs += g->layers[i].macs;
  if (macs <= (1 << 20)) {
    int8_t *in[64] = {0};
    uint64_t state = 1;
    for (int i = 0; i < g->n_inputs; i++) {
      int64_t n = graph_tensor_count(&g->tensors[g->inputs[i]]);
      in[i] = malloc((size_t)n + 1);
      for (int64_t k = 0; in[i] && k < n; k++) in[i][k] = (int8_t)(uint8_t)shape_seed_next(&state);
    }
    RefValues v = {0};
    if (ref_run(g, (const int8_t *const *)in, &v, &d)) {
      fprintf(stderr, "fuzz_net: reference failed on a loaded network: %s\n", diag_first(&d));
      abort();
    }
    ref_values_free(&v);
    for (int i = 0; i < 64; i++) free(in[i]);
  }
  graph_free(g);
  return 0;
}
