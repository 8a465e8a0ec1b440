// net.c: the net.json loader (net.h, docs/NETJSON.md). Parses the JSON with jansson, checks
// every key and attribute of the network, its inputs and its layers, resolves tensor names,
// reads weight files, and sorts the layers topologically (reporting a cycle by its layers).
// Shapes, weight sizes and scales that depend on other layers are shape.c's job.
#include "net.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/fileio.h"
#include "../isa/fileread.h"
#include "../isa/grow.h"
#include "../isa/names.h"
#include "../isa/program.h"
#include "calib.h"
#include "fold.h"
#include "quant.h"
#include "shape.h"

#define NET_MAX_LAYERS 4096
#define NET_MAX_NAME (PROG_NAME_MAX - 1)   // the program binary holds a name and its NUL in PROG_NAME_MAX

typedef struct {
  Graph *g;
  const NetOptions *opt;
  const char *base_dir;
  Diag *d;
} Net;

// ---- messages --------------------------------------------------------------------------------

// `file: <where>: error: <msg>`; where is e.g. `layers[3] "conv2"` or `inputs[0]`.
static int net_error(Net *n, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int net_error(Net *n, const char *where, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (where && *where) return diag_error(n->d, "%s: %s: error: %s", n->g->file, where, msg);
  return diag_error(n->d, "%s: error: %s", n->g->file, msg);
}

static char *dup_str(const char *s) {
  size_t len = strlen(s) + 1;
  char *p = malloc(len);
  if (p) memcpy(p, s, len);
  return p;
}

// Names are file names too (sacc ref writes NAME.npy): [A-Za-z0-9_.-], not starting with '.'.
static int name_ok(const char *s) {
  size_t len = strlen(s);
  if (len == 0 || len > NET_MAX_NAME || s[0] == '.') return 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return 0;
  }
  return 1;
}

// ---- attribute readers -----------------------------------------------------------------------

// Whether key is one of the space-separated words of list.
static int key_listed(const char *list, const char *key) {
  size_t len = strlen(key);
  for (const char *p = list; *p;) {
    size_t w = strcspn(p, " ");
    if (w == len && !strncmp(p, key, len)) return 1;
    p += w;
    p += strspn(p, " ");
  }
  return 0;
}

// Every key of obj is "comment" or one of the space-separated words of allowed (or of extra).
static int check_keys(Net *n, const char *where, json_t *obj, const char *allowed, const char *extra) {
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    if (!strcmp(key, "comment") || key_listed(allowed, key) || (extra && key_listed(extra, key))) continue;
    char shown[4 * 80 + 1];
    return net_error(n, where, "unknown key \"%s\"", name_escape(key, shown, sizeof shown));
  }
  return 0;
}

static int get_name(Net *n, const char *where, json_t *obj, const char *key, const char **out) {
  json_t *v = json_object_get(obj, key);
  if (!v) return net_error(n, where, "missing \"%s\"", key);
  if (!json_is_string(v)) return net_error(n, where, "\"%s\" must be a string", key);
  char shown[4 * 80 + 1];   // the bad name as \xNN where not printable: no ESC or newline in messages
  if (!name_ok(json_string_value(v)))
    return net_error(n, where, "\"%s\": bad name \"%s\" (1 to %d of A-Z a-z 0-9 _ . -, not starting with '.')",
                     key, name_escape(json_string_value(v), shown, sizeof shown), NET_MAX_NAME);
  *out = json_string_value(v);
  return 0;
}

// An integer attribute in [lo, hi]; *out keeps its default when the key is absent.
static int get_int(Net *n, const char *where, json_t *obj, const char *key, int64_t lo, int64_t hi, int64_t *out) {
  json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  if (!json_is_integer(v)) return net_error(n, where, "\"%s\" must be an integer", key);
  int64_t x = json_integer_value(v);
  if (x < lo || x > hi)
    return net_error(n, where, "\"%s\" is %lld, outside %lld..%lld", key, (long long)x, (long long)lo, (long long)hi);
  *out = x;
  return 0;
}

// A number (integer or real) attribute; *present says whether it was given.
static int get_real(Net *n, const char *where, json_t *obj, const char *key, double *out, int *present) {
  json_t *v = json_object_get(obj, key);
  *present = v != NULL;
  if (!v) return 0;
  if (!json_is_number(v)) return net_error(n, where, "\"%s\" must be a number", key);
  *out = json_number_value(v);
  if (!isfinite(*out)) return net_error(n, where, "\"%s\" is not finite", key);
  return 0;
}

static int get_scale(Net *n, const char *where, json_t *obj, double *out, int *present) {
  if (get_real(n, where, obj, "scale", out, present)) return -1;
  if (*present && !(*out > 0)) return net_error(n, where, "\"scale\" must be positive, not %g", *out);
  return 0;
}

// "kernel"/"stride"/"dilation": an integer or a pair [h, w], each in 1..max.
static int get_pair(Net *n, const char *where, json_t *obj, const char *key, int max, int *a, int *b) {
  json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  int64_t x[2];
  if (json_is_integer(v)) {
    x[0] = x[1] = json_integer_value(v);
  } else if (json_is_array(v) && json_array_size(v) == 2 && json_is_integer(json_array_get(v, 0)) &&
             json_is_integer(json_array_get(v, 1))) {
    x[0] = json_integer_value(json_array_get(v, 0));
    x[1] = json_integer_value(json_array_get(v, 1));
  } else {
    return net_error(n, where, "\"%s\" must be an integer or [h, w]", key);
  }
  for (int i = 0; i < 2; i++)
    if (x[i] < 1 || x[i] > max) return net_error(n, where, "\"%s\" value %lld is outside 1..%d", key, (long long)x[i], max);
  *a = (int)x[0];
  *b = (int)x[1];
  return 0;
}

// "padding": "same", "valid", an integer p (all sides) or [top, bottom, left, right].
static int get_padding(Net *n, const char *where, json_t *obj, Layer *l) {
  json_t *v = json_object_get(obj, "padding");
  if (!v) return 0;
  if (json_is_string(v)) {
    if (!strcmp(json_string_value(v), "same")) return l->pad_same = 1, 0;
    if (!strcmp(json_string_value(v), "valid")) return 0;
    return net_error(n, where, "\"padding\" must be \"same\", \"valid\", an integer or [top, bottom, left, right]");
  }
  int64_t p[4];
  if (json_is_integer(v)) {
    p[0] = p[1] = p[2] = p[3] = json_integer_value(v);
  } else if (json_is_array(v) && json_array_size(v) == 4) {
    for (int i = 0; i < 4; i++) {
      json_t *e = json_array_get(v, (size_t)i);
      if (!json_is_integer(e)) return net_error(n, where, "\"padding\"[%d] must be an integer", i);
      p[i] = json_integer_value(e);
    }
  } else {
    return net_error(n, where, "\"padding\" must be \"same\", \"valid\", an integer or [top, bottom, left, right]");
  }
  for (int i = 0; i < 4; i++)
    if (p[i] < 0 || p[i] > 1024) return net_error(n, where, "\"padding\" value %lld is outside 0..1024", (long long)p[i]);
  l->pad_t = (int)p[0], l->pad_b = (int)p[1], l->pad_l = (int)p[2], l->pad_r = (int)p[3];
  return 0;
}

// "activation": none|relu|relu6|clip, with "min"/"max" (real values) for clip.
static int get_activation(Net *n, const char *where, json_t *obj, const char *key, Layer *l) {
  json_t *v = json_object_get(obj, key);
  if (v) {
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    if (!strcmp(s, "none")) l->act_kind = ACT_KIND_NONE;
    else if (!strcmp(s, "relu")) l->act_kind = ACT_KIND_RELU;
    else if (!strcmp(s, "relu6")) l->act_kind = ACT_KIND_RELU6;
    else if (!strcmp(s, "clip")) l->act_kind = ACT_KIND_CLIP;
    else return net_error(n, where, "\"%s\" must be \"none\", \"relu\", \"relu6\" or \"clip\"", key);
  }
  int has_min, has_max;
  if (get_real(n, where, obj, "min", &l->clip_lo, &has_min) || get_real(n, where, obj, "max", &l->clip_hi, &has_max))
    return -1;
  if (l->act_kind == ACT_KIND_CLIP) {
    if (!has_min || !has_max) return net_error(n, where, "clip needs \"min\" and \"max\"");
    if (l->clip_lo > l->clip_hi) return net_error(n, where, "clip \"min\" %g exceeds \"max\" %g", l->clip_lo, l->clip_hi);
  } else if (has_min || has_max) {
    return net_error(n, where, "\"min\"/\"max\" apply to clip only");
  }
  return 0;
}

// ---- weight sources --------------------------------------------------------------------------

// Flattens nested arrays of integers in [lo, hi] (or of numbers, when reals) into src.
static int flatten(Net *n, const char *where, const char *key, json_t *v, int depth, int reals, int64_t lo, int64_t hi,
                   Source *src) {
  if (json_is_array(v)) {
    if (depth >= 8) return net_error(n, where, "\"%s\": arrays nested too deep", key);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) if (flatten(n, where, key, e, depth + 1, reals, lo, hi, src)) return -1;
    return 0;
  }
  if (src->count >= n->opt->max_elems) return net_error(n, where, "\"%s\": more than %lld values", key, (long long)n->opt->max_elems);
  if (reals) {
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
      return net_error(n, where, "\"%s\": element %lld is not a finite number", key, (long long)src->count);
  } else {
    if (!json_is_integer(v)) return net_error(n, where, "\"%s\": element %lld is not an integer", key, (long long)src->count);
    int64_t x = json_integer_value(v);
    if (x < lo || x > hi)
      return net_error(n, where, "\"%s\": element %lld is %lld, outside %lld..%lld", key, (long long)src->count,
                       (long long)x, (long long)lo, (long long)hi);
  }
  if ((src->count & (src->count - 1)) == 0) {  // grow at powers of two
    size_t cap = grow_cap((size_t)src->count, (size_t)src->count + 1, 1, sizeof(double), SIZE_MAX);
    void *p = !cap ? NULL : reals ? realloc(src->reals, cap * sizeof(double)) : realloc(src->values, cap * sizeof(int64_t));
    if (!p) return net_error(n, where, "out of memory");
    if (reals) src->reals = p;
    else src->values = p;
  }
  if (reals) src->reals[src->count++] = json_number_value(v);
  else src->values[src->count++] = json_integer_value(v);
  return 0;
}

// "weights" / "bias": an array, {"file": "x.npy"} or {"seed": N}. want is the .npy dtype
// required; a float .npy is also accepted when float_ok (then *is_float is set).
static int get_source(Net *n, const char *where, json_t *obj, const char *key, NpyType want, int64_t lo, int64_t hi,
                      int float_ok, Source *src, int *is_float) {
  json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  if (json_is_array(v)) {
    src->kind = SRC_INLINE;
    return flatten(n, where, key, v, 0, 0, lo, hi, src);
  }
  if (!json_is_object(v)) return net_error(n, where, "\"%s\" must be an array, {\"file\": ...} or {\"seed\": N}", key);
  json_t *file = json_object_get(v, "file"), *seed = json_object_get(v, "seed");
  json_t *fl = json_object_get(v, "float"), *off = json_object_get(v, "offset");
  if (!file == !seed || json_object_size(v) != (size_t)(1 + (fl != NULL) + (off != NULL)) || (file && (fl || off)))
    return net_error(n, where, "\"%s\" must be an array, {\"file\": ...} or {\"seed\": N}", key);
  if (seed) {
    if (!json_is_integer(seed) || json_integer_value(seed) < 0)
      return net_error(n, where, "\"%s\": \"seed\" must be a non-negative integer", key);
    if (fl && !json_is_boolean(fl)) return net_error(n, where, "\"%s\": \"float\" must be true or false", key);
    src->kind = SRC_SEED;
    src->seed = (uint64_t)json_integer_value(seed);
    src->real_seed = fl && json_is_true(fl);
    if (src->real_seed && !float_ok) return net_error(n, where, "\"%s\": real values are not allowed here", key);
    if (src->real_seed) *is_float = 1;
    if (off) {
      if (want != NPY_I32 || src->real_seed)
        return net_error(n, where, "\"%s\": \"offset\" applies to an integer seeded bias only", key);
      if (!json_is_integer(off) || json_integer_value(off) < INT32_MIN || json_integer_value(off) > INT32_MAX)
        return net_error(n, where, "\"%s\": \"offset\" must be an int32 integer", key);
      src->offset = json_integer_value(off);
    }
    return 0;
  }
  if (!json_is_string(file)) return net_error(n, where, "\"%s\": \"file\" must be a string", key);
  if (!n->opt->allow_files) return net_error(n, where, "\"%s\": file access is disabled", key);
  const char *name = json_string_value(file);
  size_t len = strlen(n->base_dir) + strlen(name) + 2;
  char *path = malloc(len);
  if (!path) return net_error(n, where, "out of memory");
  if (name[0] == '/') snprintf(path, len, "%s", name);
  else snprintf(path, len, "%s/%s", n->base_dir, name);
  Diag inner;
  diag_init(&inner);
  int rc = npy_read(path, &src->npy, &inner);
  free(path);
  if (rc) return net_error(n, where, "\"%s\": %s", key, diag_first(&inner));
  src->kind = SRC_NPY;
  NpyType t = src->npy.type;
  if (float_ok && (t == NPY_F32 || t == NPY_F64)) {
    *is_float = 1;
    return 0;
  }
  if (t != want)
    return net_error(n, where, "\"%s\": file \"%s\" has dtype %s, need %s", key, name,
                     t == NPY_I8 ? "int8" : t == NPY_U8 ? "uint8" : t == NPY_I16 ? "int16" : t == NPY_I32 ? "int32"
                     : t == NPY_I64 ? "int64" : t == NPY_F32 ? "float32" : "float64",
                     want == NPY_I8 ? "int8" : want == NPY_I32 ? "int32" : "float32 or float64");
  return 0;
}

// A real-valued per-channel parameter (batchnorm, bias op): an array of numbers, a float32 or
// float64 .npy, or {"seed": N} (real values; "float": true may be said).
static int get_reals(Net *n, const char *where, json_t *obj, const char *key, Source *src) {
  json_t *v = json_object_get(obj, key);
  if (!v) return net_error(n, where, "missing \"%s\"", key);
  if (json_is_array(v)) {
    src->kind = SRC_INLINE;
    return flatten(n, where, key, v, 0, 1, 0, 0, src);
  }
  int is_float = 0;
  if (get_source(n, where, obj, key, NPY_F64, 0, 0, 1, src, &is_float)) return -1;
  if (src->kind == SRC_SEED) src->real_seed = 1;
  return 0;
}

// "weight_scale": a number (per tensor) or an array of cout numbers, each finite and > 0.
static int get_wscale(Net *n, const char *where, json_t *obj, Layer *l) {
  json_t *v = json_object_get(obj, "weight_scale");
  if (!v) return net_error(n, where, "missing \"weight_scale\"");
  size_t count = json_is_array(v) ? json_array_size(v) : 1;
  if (json_is_array(v) && count != 1 && count != (size_t)l->cout)
    return net_error(n, where, "\"weight_scale\" has %zu values, need 1 or cout = %lld", count, (long long)l->cout);
  l->wscale = malloc(count * sizeof(double));
  if (!l->wscale) return net_error(n, where, "out of memory");
  l->n_wscale = (int)count;
  for (size_t i = 0; i < count; i++) {
    json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
    double s = json_is_number(e) ? json_number_value(e) : NAN;
    if (!isfinite(s) || !(s > 0)) return net_error(n, where, "\"weight_scale\"[%zu] must be a finite positive number", i);
    l->wscale[i] = s;
  }
  return 0;
}

// "weights": int8 values with "weight_scale", or real values without it (sacc quantizes them):
// an array of numbers, a float32/float64 .npy, or {"seed": N, "float": true}.
static int parse_weights(Net *n, const char *where, json_t *obj, Layer *l) {
  json_t *v = json_object_get(obj, "weights");
  int has_scale = json_object_get(obj, "weight_scale") != NULL;
  if (json_is_array(v) && !has_scale) {
    l->w_src.kind = SRC_INLINE;
    l->w_is_float = 1;
    return flatten(n, where, "weights", v, 0, 1, 0, 0, &l->w_src);
  }
  if (get_source(n, where, obj, "weights", NPY_I8, -128, 127, 1, &l->w_src, &l->w_is_float)) return -1;
  if (l->w_is_float && has_scale)
    return net_error(n, where, "float weights take no \"weight_scale\" (sacc quantizes them per output channel)");
  if (l->w_is_float) return 0;
  return get_wscale(n, where, obj, l);
}

// ---- layers ----------------------------------------------------------------------------------

// Keys every layer takes; graph_ops.def lists each op's own.
static const char *const keys_layer = "name op inputs output scale";

// Op-specific attributes of layer l (its name, op, inputs and output are already read).
static int parse_attrs(Net *n, const char *where, json_t *obj, Layer *l) {
  int64_t x;
  l->kh = l->kw = l->sh = l->sw = l->dh = l->dw = l->groups = 1;
  l->count_include_pad = 1;
  switch (l->op) {
  case LOP_CONV2D:
  case LOP_MAXPOOL:
  case LOP_AVGPOOL:
    if (!json_object_get(obj, "kernel")) return net_error(n, where, "missing \"kernel\"");
    if (get_pair(n, where, obj, "kernel", 1024, &l->kh, &l->kw)) return -1;
    l->sh = l->kh, l->sw = l->kw;  // pooling strides default to the window
    if (l->op == LOP_CONV2D) l->sh = l->sw = 1;
    if (get_pair(n, where, obj, "stride", 1024, &l->sh, &l->sw) || get_padding(n, where, obj, l)) return -1;
    if (l->op == LOP_AVGPOOL) {
      json_t *c = json_object_get(obj, "count_include_pad");
      if (c && !json_is_boolean(c)) return net_error(n, where, "\"count_include_pad\" must be true or false");
      if (c) l->count_include_pad = json_is_true(c);
    }
    if (l->op != LOP_CONV2D) return 0;
    if (get_pair(n, where, obj, "dilation", 1024, &l->dh, &l->dw)) return -1;
    x = 1;
    if (get_int(n, where, obj, "groups", 1, 1 << 20, &x)) return -1;
    l->groups = (int)x;
    /* fall through */
  case LOP_FC:
    if (l->op == LOP_FC) l->kh = l->kw = 1;
    if (!json_object_get(obj, "cout")) return net_error(n, where, "missing \"cout\"");
    if (get_int(n, where, obj, "cout", 1, 1 << 20, &l->cout)) return -1;
    if (!json_object_get(obj, "weights")) return net_error(n, where, "missing \"weights\"");
    if (parse_weights(n, where, obj, l)) return -1;
    if (json_object_get(obj, "bias") && json_object_get(obj, "bias_float"))
      return net_error(n, where, "give \"bias\" or \"bias_float\", not both");
    if (json_object_get(obj, "bias_float") || (l->w_is_float && json_is_array(json_object_get(obj, "bias")))) {
      const char *key = json_object_get(obj, "bias_float") ? "bias_float" : "bias";
      json_t *b = json_object_get(obj, key);
      if (!json_is_array(b)) return net_error(n, where, "\"bias_float\" must be an array of numbers");
      l->b_src.kind = SRC_INLINE;
      l->b_is_float = 1;
      if (flatten(n, where, key, b, 0, 1, 0, 0, &l->b_src)) return -1;
    } else if (get_source(n, where, obj, "bias", NPY_I32, INT32_MIN, INT32_MAX, 1, &l->b_src, &l->b_is_float)) {
      return -1;
    }
    if (l->w_is_float && l->b_src.kind == SRC_SEED && !l->b_is_float) {  // a seeded bias of real weights is real
      if (l->b_src.offset) return net_error(n, where, "\"bias\": \"offset\" applies to int8 weights only");
      l->b_src.real_seed = l->b_is_float = 1;
    }
    if (l->w_is_float && l->b_src.kind == SRC_NPY && !l->b_is_float)
      return net_error(n, where, "\"bias\": float weights need a float32 or float64 bias file");
    return get_activation(n, where, obj, "activation", l);
  case LOP_ADD:
    return get_activation(n, where, obj, "activation", l);
  case LOP_RELU: l->act_kind = ACT_KIND_RELU; return 0;
  case LOP_RELU6: l->act_kind = ACT_KIND_RELU6; return 0;
  case LOP_CLIP:  // "activation" is not a clip key, so only "min"/"max" are read
    l->act_kind = ACT_KIND_CLIP;
    return get_activation(n, where, obj, "activation", l);
  case LOP_BATCHNORM: {
    static const char *const keys[BN_COUNT] = {"gamma", "beta", "mean", "var"};
    for (int k = 0; k < BN_COUNT; k++)
      if (get_reals(n, where, obj, keys[k], &l->bn_src[k])) return -1;
    int present;
    l->bn_eps = 1e-5;
    if (get_real(n, where, obj, "epsilon", &l->bn_eps, &present)) return -1;
    if (!(l->bn_eps >= 0)) return net_error(n, where, "\"epsilon\" must not be negative");
    return 0;
  }
  case LOP_BIAS:
    l->b_is_float = 1;
    return get_reals(n, where, obj, "bias", &l->b_src);
  case LOP_CONCAT:
    x = -1;
    if (get_int(n, where, obj, "axis", -1, 3, &x)) return -1;
    if (x != -1 && x != 3) return net_error(n, where, "concat is along the channel axis only (axis -1 or 3)");
    return 0;
  case LOP_RESHAPE: {
    json_t *s = json_object_get(obj, "shape");
    if (!json_is_array(s) || (json_array_size(s) != 2 && json_array_size(s) != 4))
      return net_error(n, where, "\"shape\" must be an array of 2 or 4 integers");
    l->reshape_rank = (int)json_array_size(s);
    int wild = 0;
    for (int i = 0; i < l->reshape_rank; i++) {
      json_t *e = json_array_get(s, (size_t)i);
      int64_t dv = json_is_integer(e) ? json_integer_value(e) : 0;
      if (dv == -1 && !wild++) {
        l->reshape_dims[i] = -1;
        continue;
      }
      if (dv < 1 || dv > (1 << 30)) return net_error(n, where, "\"shape\"[%d] must be a positive integer (or one -1)", i);
      l->reshape_dims[i] = dv;
    }
    return 0;
  }
  case LOP_GLOBAL_AVGPOOL:  // the window is the whole map (shape.c)
  case LOP_FLATTEN:
    return 0;
  case LOP_SOFTMAX:
  case LOP_LAYERNORM: {  // over the last (channel) axis only: -1, or the rank's last index (shape.c)
    x = -1;
    if (get_int(n, where, obj, "axis", -1, 3, &x)) return -1;
    l->axis = (int)x;  // checked against the input's rank by shape.c
    if (l->op == LOP_SOFTMAX) return 0;
    for (int k = BN_GAMMA; k <= BN_BETA; k++) {  // optional: gamma 1, beta 0
      static const char *const keys[2] = {"gamma", "beta"};
      if (json_object_get(obj, keys[k]) && get_reals(n, where, obj, keys[k], &l->bn_src[k])) return -1;
    }
    int present;
    l->bn_eps = 1e-5;
    if (get_real(n, where, obj, "epsilon", &l->bn_eps, &present)) return -1;
    if (!(l->bn_eps >= 0 && l->bn_eps <= 1)) return net_error(n, where, "\"epsilon\" must be in 0..1");
    return 0;
  }
  case LOP_MUL_CONST: {
    int present;
    if (get_real(n, where, obj, "factor", &l->factor, &present)) return -1;
    if (!present) return net_error(n, where, "missing \"factor\"");
    if (!(l->factor >= 0x1p-24 && l->factor <= 0x1p24))
      return net_error(n, where, "\"factor\" must be a positive number in 2^-24..2^24 (a negative one: use sub)");
    return 0;
  }
  case LOP_TRANSPOSE: {
    json_t *s = json_object_get(obj, "perm");
    if (!json_is_array(s) || (json_array_size(s) != 2 && json_array_size(s) != 4))
      return net_error(n, where, "\"perm\" must be an array of 2 or 4 axes (a permutation of 0..rank-1)");
    l->reshape_rank = (int)json_array_size(s);
    unsigned seen = 0;
    for (int i = 0; i < l->reshape_rank; i++) {
      json_t *e = json_array_get(s, (size_t)i);
      int64_t a = json_is_integer(e) ? json_integer_value(e) : -1;
      if (a < 0 || a >= l->reshape_rank || (seen >> a & 1))
        return net_error(n, where, "\"perm\" must be a permutation of 0..%d (entry %d)", l->reshape_rank - 1, i);
      seen |= 1u << a;
      l->perm[i] = (int)a;
    }
    return 0;
  }
  case LOP_GELU: case LOP_SIGMOID: case LOP_SILU: case LOP_HARDSWISH: case LOP_HARDSIGMOID:
  case LOP_MUL: case LOP_SUB: case LOP_MATMUL:
    return 0;
  }
  return net_error(n, where, "internal error: op %d", (int)l->op);
}

// Declares tensor name (produced by layer `producer`, -1 for a network input).
static int add_tensor(Net *n, const char *where, const char *name, int producer, int json_index, int *out) {
  Graph *g = n->g;
  int t = graph_tensor_find(g, name);
  if (t >= 0) {
    int p = g->tensors[t].producer;
    if (p < 0) return net_error(n, where, "tensor \"%s\" is already a network input", name);
    return net_error(n, where, "tensor \"%s\" is already the output of layers[%d] \"%s\"", name, g->layers[p].json_index,
                     g->layers[p].name);
  }
  (void)json_index;
  Tensor *nt = realloc(g->tensors, (size_t)(g->n_tensors + 1) * sizeof *nt);
  if (!nt) return net_error(n, where, "out of memory");
  g->tensors = nt;
  Tensor *tt = &g->tensors[g->n_tensors];
  memset(tt, 0, sizeof *tt);
  tt->producer = producer;
  if (!(tt->name = dup_str(name))) return net_error(n, where, "out of memory");
  *out = g->n_tensors++;
  return 0;
}

static int parse_input(Net *n, json_t *v, int i) {
  char where[96];
  snprintf(where, sizeof where, "inputs[%d]", i);
  if (!json_is_object(v)) return net_error(n, where, "must be an object");
  const char *name;
  if (check_keys(n, where, v, "name shape scale", NULL) || get_name(n, where, v, "name", &name)) return -1;
  snprintf(where, sizeof where, "inputs[%d] \"%s\"", i, name);
  int t;
  if (add_tensor(n, where, name, -1, -1, &t)) return -1;
  n->g->inputs[i] = t;
  Tensor *tt = &n->g->tensors[t];
  json_t *s = json_object_get(v, "shape");
  if (!json_is_array(s) || (json_array_size(s) != 2 && json_array_size(s) != 4))
    return net_error(n, where, "\"shape\" must be [N, H, W, C] or [N, C]");
  tt->rank = (int)json_array_size(s);
  int64_t count = 1;
  for (int k = 0; k < tt->rank; k++) {
    json_t *e = json_array_get(s, (size_t)k);
    if (!json_is_integer(e) || json_integer_value(e) < 1 || json_integer_value(e) > (1 << 24))
      return net_error(n, where, "\"shape\"[%d] must be an integer in 1..%d", k, 1 << 24);
    tt->dims[k] = json_integer_value(e);
    count *= tt->dims[k];
    if (count > n->opt->max_elems)
      return net_error(n, where, "more than %lld elements", (long long)n->opt->max_elems);
  }
  int present;  // a missing scale is calibrated, or reported by shape_scales
  return get_scale(n, where, v, &tt->scale, &present);
}

static int parse_layer(Net *n, json_t *v, int i) {
  Graph *g = n->g;
  char where[96];
  snprintf(where, sizeof where, "layers[%d]", i);
  if (!json_is_object(v)) return net_error(n, where, "must be an object");
  const char *name;
  if (get_name(n, where, v, "name", &name)) return -1;
  snprintf(where, sizeof where, "layers[%d] \"%s\"", i, name);
  for (int k = 0; k < g->n_layers; k++)
    if (!strcmp(g->layers[k].name, name))
      return net_error(n, where, "duplicate layer name (also layers[%d])", g->layers[k].json_index);
  Layer *l = &g->layers[g->n_layers++];
  memset(l, 0, sizeof *l);
  l->json_index = i;
  if (!(l->name = dup_str(name))) return net_error(n, where, "out of memory");
  json_t *op = json_object_get(v, "op");
  if (!json_is_string(op)) return net_error(n, where, "missing \"op\" (a string)");
  const char *ops = json_string_value(op);
  int o = graph_op_parse(ops);
  if (o < 0) return net_error(n, where, "unknown op \"%.40s\"", ops);
  l->op = (LayerOp)o;
  if (check_keys(n, where, v, keys_layer, graph_ops[l->op].keys)) return -1;
  json_t *ins = json_object_get(v, "inputs");
  if (!json_is_array(ins)) return net_error(n, where, "\"inputs\" must be an array of tensor names");
  size_t n_in = json_array_size(ins);
  size_t want_lo = (size_t)graph_ops[l->op].in_min, want_hi = (size_t)graph_ops[l->op].in_max;
  if (n_in < want_lo || n_in > want_hi) {
    if (want_lo == want_hi) return net_error(n, where, "%s takes %zu input%s, not %zu", ops, want_lo, want_lo > 1 ? "s" : "", n_in);
    return net_error(n, where, "%s takes %zu to %zu inputs, not %zu", ops, want_lo, want_hi, n_in);
  }
  l->in = calloc(n_in, sizeof(int));
  if (!l->in) return net_error(n, where, "out of memory");
  l->n_in = (int)n_in;
  for (size_t k = 0; k < n_in; k++) {  // names now, indices after every layer is known
    json_t *e = json_array_get(ins, k);
    if (!json_is_string(e)) return net_error(n, where, "\"inputs\"[%zu] must be a string", k);
    l->in[k] = -1;
  }
  const char *out;
  if (get_name(n, where, v, "output", &out) || add_tensor(n, where, out, g->n_layers - 1, i, &l->out)) return -1;
  int present;
  if (get_scale(n, where, v, &g->tensors[l->out].scale, &present)) return -1;
  return parse_attrs(n, where, v, l);
}

// Resolves each layer's input names to tensors; a layer may not read its own output.
static int resolve_inputs(Net *n, json_t *layers) {
  Graph *g = n->g;
  for (int li = 0; li < g->n_layers; li++) {
    Layer *l = &g->layers[li];
    json_t *ins = json_object_get(json_array_get(layers, (size_t)l->json_index), "inputs");
    for (int k = 0; k < l->n_in; k++) {
      const char *name = json_string_value(json_array_get(ins, (size_t)k));
      int t = graph_tensor_find(g, name);
      if (t < 0) return graph_layer_error(g, l, n->d, "unknown tensor \"%.80s\" in \"inputs\"", name);
      l->in[k] = t;
    }
  }
  return 0;
}

// Kahn's algorithm; on a cycle, walks back through unsorted producers to name one.
static int sort_layers(Net *n) {
  Graph *g = n->g;
  int nl = g->n_layers;
  int *order = malloc((size_t)(nl + 1) * sizeof(int)), *done = calloc((size_t)nl + 1, sizeof(int));
  int *pos = malloc((size_t)(nl + 1) * sizeof(int));
  int rc = -1;
  if (!order || !done || !pos) {
    net_error(n, NULL, "out of memory");
    goto out;
  }
  int count = 0;
  for (int progress = 1; progress && count < nl;) {  // O(n^2) over a small graph: simple wins
    progress = 0;
    for (int i = 0; i < nl; i++) {
      if (done[i]) continue;
      int ready = 1;
      for (int k = 0; k < g->layers[i].n_in && ready; k++) {
        int p = g->tensors[g->layers[i].in[k]].producer;
        if (p >= 0 && !done[p]) ready = 0;
      }
      if (ready) done[i] = 1, order[count++] = i, progress = 1;
    }
  }
  if (count < nl) {
    int cur = 0;
    while (done[cur]) cur++;
    for (int i = 0; i < nl; i++) pos[i] = -1;
    int steps = 0;
    while (pos[cur] < 0) {  // every unsorted layer has an unsorted producer
      pos[cur] = steps++;
      const Layer *l = &g->layers[cur];
      for (int k = 0; k < l->n_in; k++) {
        int p = g->tensors[l->in[k]].producer;
        if (p >= 0 && !done[p]) {
          cur = p;
          break;
        }
      }
    }
    char path[400] = "";
    size_t used = 0;
    int start = cur;
    do {  // cur's chain goes consumer -> producer; print it producer -> consumer
      const Layer *l = &g->layers[cur];
      int next = -1;
      for (int k = 0; k < l->n_in && next < 0; k++) {
        int p = g->tensors[l->in[k]].producer;
        if (p >= 0 && !done[p] && pos[p] >= 0) next = p;
      }
      int w = snprintf(path + used, sizeof path - used, "%s\"%s\"", used ? " <- " : "", l->name);
      if (w > 0 && used + (size_t)w < sizeof path) used += (size_t)w;
      cur = next;
    } while (cur != start && cur >= 0);
    snprintf(path + used, sizeof path - used, " <- \"%s\"", g->layers[start].name);
    net_error(n, NULL, "the graph has a cycle: %s", path);
    goto out;
  }
  Layer *sorted = malloc((size_t)nl * sizeof(Layer) + 1);
  if (!sorted) {
    net_error(n, NULL, "out of memory");
    goto out;
  }
  for (int i = 0; i < nl; i++) sorted[i] = g->layers[order[i]], pos[order[i]] = i;
  for (int t = 0; t < g->n_tensors; t++)
    if (g->tensors[t].producer >= 0) g->tensors[t].producer = pos[g->tensors[t].producer];
  free(g->layers);
  g->layers = sorted;
  rc = 0;
out:
  free(order);
  free(done);
  free(pos);
  return rc;
}

static int parse_root(Net *n, json_t *root) {
  Graph *g = n->g;
  if (!json_is_object(root)) return net_error(n, NULL, "the network must be a JSON object");
  if (check_keys(n, NULL, root, "name inputs layers outputs", NULL)) return -1;
  json_t *name = json_object_get(root, "name");
  if (name && !json_is_string(name)) return net_error(n, NULL, "\"name\" must be a string");
  if (!(g->name = dup_str(name ? json_string_value(name) : "net"))) return net_error(n, NULL, "out of memory");
  json_t *ins = json_object_get(root, "inputs"), *layers = json_object_get(root, "layers");
  json_t *outs = json_object_get(root, "outputs");
  if (!json_is_array(ins) || json_array_size(ins) == 0 || json_array_size(ins) > 64)
    return net_error(n, NULL, "\"inputs\" must be an array of 1 to 64 tensors");
  if (!json_is_array(layers) || json_array_size(layers) > NET_MAX_LAYERS)
    return net_error(n, NULL, "\"layers\" must be an array of at most %d layers", NET_MAX_LAYERS);
  if (!json_is_array(outs) || json_array_size(outs) == 0 || json_array_size(outs) > 64)
    return net_error(n, NULL, "\"outputs\" must be an array of 1 to 64 tensor names");
  g->n_inputs = (int)json_array_size(ins);
  g->n_outputs = (int)json_array_size(outs);
  g->inputs = calloc((size_t)g->n_inputs, sizeof(int));
  g->outputs = calloc((size_t)g->n_outputs, sizeof(int));
  g->layers = calloc(json_array_size(layers) + 1, sizeof(Layer));
  if (!g->inputs || !g->outputs || !g->layers) return net_error(n, NULL, "out of memory");
  for (int i = 0; i < g->n_inputs; i++)
    if (parse_input(n, json_array_get(ins, (size_t)i), i)) return -1;
  for (int i = 0; i < (int)json_array_size(layers); i++)
    if (parse_layer(n, json_array_get(layers, (size_t)i), i)) return -1;
  for (int i = 0; i < g->n_outputs; i++) {
    json_t *e = json_array_get(outs, (size_t)i);
    char where[32];
    snprintf(where, sizeof where, "outputs[%d]", i);
    if (!json_is_string(e)) return net_error(n, where, "must be a tensor name");
    int t = graph_tensor_find(g, json_string_value(e));
    if (t < 0) return net_error(n, where, "unknown tensor \"%.80s\"", json_string_value(e));
    for (int k = 0; k < i; k++)
      if (g->outputs[k] == t) return net_error(n, where, "tensor \"%s\" is listed twice", g->tensors[t].name);
    g->outputs[i] = t;
  }
  if (resolve_inputs(n, layers)) return -1;
  return sort_layers(n);
}

void net_options_default(NetOptions *opt) {
  opt->allow_files = 1;
  opt->max_elems = (int64_t)1 << 28;
  opt->max_macs = NET_MAX_MACS;
  opt->max_bytes = NET_MAX_BYTES;
  opt->calib = NULL;
  opt->max_calib_macs = 0;
}

int net_parse(const char *text, size_t len, const char *file, const char *base_dir, const NetOptions *opt,
              Graph **out, Diag *d) {
  *out = NULL;
  Graph *g = calloc(1, sizeof *g);
  if (!g || !(g->file = dup_str(file))) {
    free(g);
    return diag_error(d, "%s: error: out of memory", file);
  }
  json_error_t err;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
  if (!root) {
    diag_error(d, "%s:%d:%d: error: %s", file, err.line, err.column, err.text);
    graph_free(g);
    return -1;
  }
  Net n = {g, opt, base_dir ? base_dir : ".", d};
  int rc = parse_root(&n, root);
  json_decref(root);
  if (rc) {
    graph_free(g);
    return -1;
  }
  *out = g;
  return 0;
}

int net_load(const char *path, const NetOptions *opt, Graph **out, Diag *d) {
  *out = NULL;
  uint8_t *buf;
  size_t len;
  FileReadLimits lim = {NET_FILE_MAX_BYTES, "the limit of a net.json (large weights go in .npy files)", 4096,
                        file_head_text, NULL};
  if (file_read_limited(path, &lim, &buf, &len, d)) return -1;
  char *dir = dup_str(path);
  if (!dir) {
    free(buf);
    return diag_error(d, "%s: error: out of memory", path);
  }
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
  int rc = net_parse((const char *)buf, len, path, slash ? dir : ".", opt, out, d);
  free(dir);
  free(buf);
  return rc;
}

int net_prepare(Graph *g, const NetOptions *opt, Diag *d) {
  ShapeLimits lim = {opt->max_elems, opt->max_macs, opt->max_bytes};
  if (shape_infer(g, &lim, d) || fold_graph(g, d) || quant_weights(g, d) || calib_scales(g, opt, d))
    return -1;
  return quant_graph(g, d);
}
