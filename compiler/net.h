// net.h: loads a net.json network description (docs/NETJSON.md) into the graph IR (graph.h).
// net_parse/net_load check the syntax, the attributes of every layer, tensor names and the
// graph's structure (missing inputs, duplicates, cycles) and sort the layers topologically;
// net_prepare then runs shape inference (shape.c) and quantization (quant.c).
// Errors go to the Diag: "net.json:14:9: error: ..." for syntax, `net.json: layers[3] "conv2":
// error: ...` for meaning. Nothing prints or exits.
#ifndef SACC_NET_H
#define SACC_NET_H

#include <stddef.h>

#include "graph.h"

typedef struct {
  int allow_files;        // 1: {"file": "w.npy"} may read files; 0: it is an error (fuzzing)
  int64_t max_elems;      // cap on the element count of any tensor or weight array
  const float *const *calib;  // NULL, or per network input (Graph.inputs order) its real
                              // calibration values (NHWC, the input's shape), NULL entries
                              // generated (calib.h); given, it calibrates every missing scale
  int64_t max_calib_macs;     // 0, or a cap on the MACs of a calibration run (fuzzing)
  int64_t max_macs;           // 0, or a cap on the network's MACs (NET_MAX_MACS; --allow-large: 0)
  int64_t max_bytes;          // 0, or a cap on its activation and weight bytes (NET_MAX_BYTES)
} NetOptions;

// The default limits on what a network may cost (docs/NETJSON.md "Limits"): 10^11 MACs (VGG-16
// has 1.55 * 10^10; the reference interpreter takes minutes per 10^11) and 2 GiB of int8
// activations plus weights (float32 weights at 4 bytes). sacc's --allow-large lifts both.
#define NET_MAX_MACS ((int64_t)100000000000)
#define NET_MAX_BYTES ((int64_t)2 << 30)

void net_options_default(NetOptions *opt);
// Parses net.json text. file names the text in messages; base_dir (may be NULL: ".") is where
// relative weight files are looked up. On success *out is a new Graph (graph_free).
int net_parse(const char *text, size_t len, const char *file, const char *base_dir, const NetOptions *opt,
              Graph **out, Diag *d);
// Reads path (at most NET_FILE_MAX_BYTES, docs/NETJSON.md; text, no NUL byte) and parses it,
// with weight files relative to path's directory.
#define NET_FILE_MAX_BYTES ((size_t)1 << 30)
int net_load(const char *path, const NetOptions *opt, Graph **out, Diag *d);
// Shape inference and weight materialization (shape.c), folding of batchnorm and bias layers
// (fold.c), quantization of float weights, calibration of missing scales (calib.c), then
// the integer parameters (quant.c). After it, the graph holds only conv2d .. reshape layers.
int net_prepare(Graph *g, const NetOptions *opt, Diag *d);

#endif
