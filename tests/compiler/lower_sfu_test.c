// lower_sfu_test.c: the special-function ops as element-wise MachOps (compiler/lower_sfu.c) on
// small layers worked out by hand: which SFU instruction each op gets and with what registers
// (the into-Q4.11 factor of a map, softmax's SM_MULT/SM_SHIFT/SM_J, layernorm's EPS), the STORE's
// parameter rows (the out-of-Q4.11 factor; layernorm's beta, signed gamma multiplier and shift;
// none for softmax), sub's input scalings, mul's broadcast, what a step needs in ACC and PARAM
// (a softmax row of 300 values is 19 segments of 16), the folded global pool, and the refusals
// naming the layer (a broadcast the unit cannot read, a row too long for the arch).
#include "lowered.h"

// One layer "f" of op `op` (with `extra` keys) on x [1, 1, h, c] at scale 0.05, output "y".
static void one_layer(char *buf, size_t len, const char *op, int h, int c, const char *extra) {
  snprintf(buf, len,
           "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 1, %d, %d], \"scale\": 0.05}], \"layers\": ["
           "{\"name\": \"f\", \"op\": \"%s\", \"inputs\": [\"x\"], \"output\": \"y\"%s}], \"outputs\": [\"y\"]}",
           h, c, op, extra);
}

// gelu at s_in 0.05: into Q4.11 by 0.05 * 2048 = 102.4 = 0.8 * 2^7: mult round(0.8 * 2^31) =
// 1717986918, shift 31 - 7 = 24. Out of Q4.11 at s_out = s_in: 1 / (2048 * 0.05) = 0.009765625
// = 0.625 * 2^-6: mult 1342177280, shift 37. Every channel's STORE row the same, bias 0.
static void test_map(void) {
  Arch a;
  arch_default(&a);
  char json[1024];
  one_layer(json, sizeof json, "gelu", 5, 20, "");
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    CHECK(mp.n_ops == 1 && mp.ops[0].kind == MOP_ELT, "one ELT, not %d ops", mp.n_ops);
    const MachOp *op = &mp.ops[0];
    CHECK(op->sfu == SFUK_MAP && op->sfu_fn == FN_GELU, "sfu %d fn %u", op->sfu, op->sfu_fn);
    CHECK(op->sfu_mult == 1717986918 && op->sfu_shift == 24, "into Q4.11 %d >> %u", op->sfu_mult, op->sfu_shift);
    CHECK(op->N == 20 && op->mult[0] == 1342177280 && op->shift[0] == 37 && op->bias[0] == 0 &&
              op->mult[19] == 1342177280 && op->shift[19] == 37,
          "store %d >> %d bias %d", op->mult[0], op->shift[0], op->bias[0]);
    CHECK(op->in_mult[0] == 1 << 30 && op->in_shift[0] == 30, "load %d >> %u", op->in_mult[0], op->in_shift[0]);
    CHECK(lower_sfu_channel_steps(op, 16) == 2 && lower_sfu_segments(op, 16) == 1 &&
              lower_sfu_acc_rows(op, 5, 16) == 5 && lower_sfu_param_rows(op, 16) == 3 && lower_sfu_store_params(op),
          "a map step: 2 channel tiles of 5 rows, 3 PARAM rows, a requantizing STORE");
  }
  machprog_free(&mp);
  graph_free(g);
  check_case("lower-sfu-map");
  // the five functions and their formats: sigmoid and hardsigmoid's Q0.15 at 1/128 (their
  // default scale): 1 / (32768 / 128) = 2^-8 = 0.5 * 2^-7: mult 2^30, shift 38
  static const struct {
    const char *op;
    unsigned fn;
    int32_t mult;
    int32_t shift;
  } fns[] = {{"silu", FN_SILU, 1342177280, 37}, {"hardswish", FN_HSWISH, 1342177280, 37},
             {"sigmoid", FN_SIGMOID, 1 << 30, 38}, {"hardsigmoid", FN_HSIGMOID, 1 << 30, 38}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
    one_layer(json, sizeof json, fns[i].op, 2, 4, "");
    if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
      const MachOp *op = &mp.ops[0];
      CHECK(op->sfu == SFUK_MAP && op->sfu_fn == fns[i].fn && op->mult[0] == fns[i].mult && op->shift[0] == fns[i].shift,
            "%s: fn %u store %d >> %d", fns[i].op, op->sfu_fn, op->mult[0], op->shift[0]);
    }
    machprog_free(&mp);
    graph_free(g);
  }
  check_case("lower-sfu-map-functions");
}

// softmax of 300 values at s_in 0.05 into its default 1/128: SM_MULT / 2^SM_SHIFT = 102.4 with
// the largest shift keeping the multiplier within 16 bits: 102.4 * 2^9 = 52428.8 -> 52429, shift
// 9; SM_J 0. A row is 19 segments of 16 on the default arch (18 full, one of 12); on tiny 75
// segments of 4: more than its 64 accumulator rows, refused naming the layer.
static void test_softmax(void) {
  Arch a;
  arch_default(&a);
  char json[1024];
  one_layer(json, sizeof json, "softmax", 3, 300, "");
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    const MachOp *op = &mp.ops[0];
    CHECK(op->sfu == SFUK_SOFTMAX && op->sfu_mult == 52429 && op->sfu_shift == 9 && op->sm_j == 0,
          "softmax %d >> %u j %u", op->sfu_mult, op->sfu_shift, op->sm_j);
    CHECK(lower_sfu_channel_steps(op, 16) == 1 && lower_sfu_segments(op, 16) == 19 &&
              lower_sfu_acc_rows(op, 3, 16) == 57 && lower_sfu_param_rows(op, 16) == 0 && !lower_sfu_store_params(op),
          "a softmax step: every segment (19 x 3 rows), no PARAM rows, a plain STORE");
  }
  machprog_free(&mp);
  graph_free(g);
  // at scale 2^-10 the output shift moves by 3
  one_layer(json, sizeof json, "softmax", 3, 300, ", \"scale\": 0.0009765625");
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) CHECK(mp.ops[0].sm_j == 3, "SM_J %u, want 3", mp.ops[0].sm_j);
  machprog_free(&mp);
  graph_free(g);
  check_case("lower-sfu-softmax");
  Arch tiny;
  if (test_arch(1, &tiny)) return;
  one_layer(json, sizeof json, "softmax", 3, 300, "");
  char msg[512] = "";
  CHECK(lowered(json, &tiny, DF_WS, &g, &mp, msg, sizeof msg) != 0 &&
            strstr(msg, "net.json: layers[0] \"f\": error: softmax row of 300 values spans 75 accumulator rows of 4 "
                        "values, more than arch \"tiny\" has (acc.rows 64)"),
        "tiny: %s", msg);
  machprog_free(&mp);
  graph_free(g);
  check_case("lower-sfu-softmax-too-long");
}

// layernorm of 20 channels, gamma -0.5 on channel 0 and 0 on channel 1 (1 elsewhere), beta 0.3
// on channel 2, s_out 0.02: gamma / (2048 * 0.02) = 1 / 40.96 = 0.78125 * 2^-5 -> 1677721600,
// shift 36 (-0.5: half of that, 0.78125 * 2^-6 -> 1677721600, shift 37, negated); gamma 0 gives
// 0; beta round(0.3 / 0.02) = 15. EPS = round(1e-5 * 400 / 0.0025) = 2 (default epsilon 1e-5).
// Two segments: 6 PARAM rows.
static void test_layernorm(void) {
  Arch a;
  arch_default(&a);
  char gamma[256] = "-0.5, 0", beta[256] = "0, 0, 0.3";
  for (int i = 2; i < 20; i++) strcat(gamma, ", 1");
  for (int i = 3; i < 20; i++) strcat(beta, ", 0");
  char extra[700], json[1400];
  snprintf(extra, sizeof extra, ", \"scale\": 0.02, \"gamma\": [%s], \"beta\": [%s]", gamma, beta);
  one_layer(json, sizeof json, "layernorm", 2, 20, extra);
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    const MachOp *op = &mp.ops[0];
    CHECK(op->sfu == SFUK_LAYERNORM && op->eps == 2, "layernorm eps %llu", (unsigned long long)op->eps);
    CHECK(op->mult[0] == -1677721600 && op->shift[0] == 37 && op->mult[1] == 0 && op->mult[2] == 1677721600 &&
              op->shift[2] == 36 && op->bias[2] == 15 && op->bias[0] == 0,
          "params: %d >> %d, %d, %d >> %d bias %d", op->mult[0], op->shift[0], op->mult[1], op->mult[2], op->shift[2],
          op->bias[2]);
    CHECK(lower_sfu_segments(op, 16) == 2 && lower_sfu_param_rows(op, 16) == 6 && lower_sfu_acc_rows(op, 2, 16) == 4 &&
              lower_sfu_params_once(op),
          "two segments, 6 PARAM rows loaded once for the layer");
  }
  machprog_free(&mp);
  graph_free(g);
  check_case("lower-sfu-layernorm");
}

// mul and sub of x [1, 3, 4, 8] and g: mul broadcasts g [1, 1, 1, 8] (BCAST, one extra ACC row);
// sub takes add's scalings into s_acc = max(0.05, 0.1) / 2^20: x by 0.5 * 2^20 (2^30, shift
// 11), g by 2^20 (2^30, shift 10). A g of [1, 3, 1, 8] (broadcast along W only) is refused.
static void test_binary(void) {
  Arch a;
  arch_default(&a);
  static const char *const fmt =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, 3, 4, 8], \"scale\": 0.05}, "
      "{\"name\": \"g\", \"shape\": [1, %d, %d, 8], \"scale\": 0.1}], \"layers\": ["
      "{\"name\": \"f\", \"op\": \"%s\", \"inputs\": [\"x\", \"g\"], \"output\": \"y\", \"scale\": 0.02}], "
      "\"outputs\": [\"y\"]}";
  char json[1024];
  Graph *g;
  MachProg mp;
  snprintf(json, sizeof json, fmt, 1, 1, "mul");
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    const MachOp *op = &mp.ops[0];
    CHECK(op->sfu == SFUK_EW && op->sfu_fn == EWOP_MUL && op->bcast && op->n_in == 2, "mul: sfu %d bcast %d",
          op->sfu, op->bcast);
    CHECK(lower_sfu_acc_rows(op, 12, 16) == 13, "mul: 12 rows and the broadcast row");
  }
  machprog_free(&mp);
  graph_free(g);
  snprintf(json, sizeof json, fmt, 3, 4, "sub");
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    const MachOp *op = &mp.ops[0];
    CHECK(op->sfu == SFUK_EW && op->sfu_fn == EWOP_SUB && !op->bcast, "sub: sfu %d bcast %d", op->sfu, op->bcast);
    CHECK(op->in_mult[0] == 1 << 30 && op->in_shift[0] == 11 && op->in_mult[1] == 1 << 30 && op->in_shift[1] == 10,
          "sub scalings %d >> %u, %d >> %u", op->in_mult[0], op->in_shift[0], op->in_mult[1], op->in_shift[1]);
    CHECK(lower_sfu_acc_rows(op, 12, 16) == 24, "sub: both operands' rows");
  }
  machprog_free(&mp);
  graph_free(g);
  check_case("lower-sfu-binary");
  snprintf(json, sizeof json, fmt, 3, 1, "mul");
  char msg[512] = "";
  CHECK(lowered(json, &a, DF_WS, &g, &mp, msg, sizeof msg) != 0 &&
            strstr(msg, "net.json: layers[0] \"f\": error: mul broadcasts its second input [1,3,1,8] in a way the "
                        "special-function unit cannot"),
        "%s", msg);
  machprog_free(&mp);
  graph_free(g);
  check_case("lower-sfu-broadcast-refused");
}

// mul_const needs no unit: the STORE's factor 0.05 * 0.5 / 0.025 = 1 -> (2^30, 30).
static void test_mul_const(void) {
  Arch a;
  arch_default(&a);
  char json[1024];
  one_layer(json, sizeof json, "mul_const", 2, 4, ", \"factor\": 0.5");
  Graph *g;
  MachProg mp;
  if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
    const MachOp *op = &mp.ops[0];
    CHECK(op->sfu == SFUK_NONE && op->mult[0] == 1 << 30 && op->shift[0] == 30 && lower_sfu_param_rows(op, 16) == 3,
          "mul_const: sfu %d, %d >> %d", op->sfu, op->mult[0], op->shift[0]);
  }
  machprog_free(&mp);
  graph_free(g);
  check_case("lower-sfu-mul-const");
}

// global_avgpool over 20x17: folded to 15x15 on the default arch (1024 rows a slot), to 2x15 on
// tiny (32 rows a slot); a 7x7 map is pooled as it is.
static void test_fold(void) {
  static const char *const fmt =
      "{\"inputs\": [{\"name\": \"x\", \"shape\": [1, %d, %d, 8], \"scale\": 0.05}], \"layers\": ["
      "{\"name\": \"p\", \"op\": \"global_avgpool\", \"inputs\": [\"x\"], \"output\": \"y\", \"scale\": 0.01}], "
      "\"outputs\": [\"y\"]}";
  static const struct {
    int arch, h, w;
    int64_t fh, fw;
  } cases[] = {{0, 20, 17, 15, 15}, {1, 20, 17, 2, 15}, {0, 7, 7, 7, 0}, {0, 3, 40, 3, 15}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Arch a;
    if (test_arch(cases[i].arch, &a)) continue;
    char json[1024];
    snprintf(json, sizeof json, fmt, cases[i].h, cases[i].w);
    Graph *g;
    MachProg mp;
    if (!lowered(json, &a, DF_WS, &g, &mp, NULL, 0)) {
      const MachOp *op = &mp.ops[0];
      CHECK(op->fold_w == cases[i].fw && op->oh == cases[i].fh && op->pool == POOL_AVG &&
                (!op->fold_w || (op->pkh == cases[i].fh && op->pkw == cases[i].fw)),
            "%dx%d on %s: folded %lldx%lld, window %dx%d", cases[i].h, cases[i].w, a.name, (long long)op->oh,
            (long long)op->fold_w, op->pkh, op->pkw);
    }
    machprog_free(&mp);
    graph_free(g);
  }
  check_case("lower-sfu-fold-pool");
}

int main(void) {
  test_map();
  test_softmax();
  test_layernorm();
  test_binary();
  test_mul_const();
  test_fold();
  return check_status();
}
