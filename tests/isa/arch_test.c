// arch_test.c: the arch configuration parser (isa/arch.c): good input, the canonical JSON round
// trip, every error path with its message (file:line:col for syntax, the key's path for values),
// and the shipped configurations in workloads/arch/*.json (run from the repository root, as
// tests/run.sh does).
#include "../../isa/arch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"

static int parse(const char *text, Arch *a, Diag *d) {
  diag_init(d);
  return arch_parse(text, strlen(text), "t.json", a, d);
}

// Parsing `text` fails with a message containing every string in `want` (NULL-terminated).
static void expect_error(const char *what, const char *text, const char *const *want) {
  Arch a;
  Diag d;
  int rc = parse(text, &a, &d);
  CHECK(rc < 0, "%s: accepted", what);
  if (rc >= 0) return;
  CHECK(d.count >= 1, "%s: no message recorded", what);
  for (int i = 0; want[i]; i++)
    CHECK(strstr(diag_first(&d), want[i]) != NULL, "%s: message '%s' lacks '%s'", what, diag_first(&d), want[i]);
}

#define EXPECT_ERROR(what, text, ...)                          \
  do {                                                         \
    static const char *const want_[] = {__VA_ARGS__, NULL};    \
    expect_error(what, text, want_);                           \
  } while (0)

static void test_parse_good(void) {
  const char *text =
      "{\n"
      "  \"name\": \"small\",\n"
      "  \"comment\": \"free text for people\",\n"
      "  \"array\": {\"rows\": 8, \"cols\": 4},\n"
      "  \"spad\": {\"rows\": 512}, \"wbuf\": {\"rows\": 256}, \"acc\": {\"rows\": 128},\n"
      "  \"param\": {\"rows\": 3},\n"
      "  \"dram\": {\"bytes\": 65536, \"bus_bytes\": 8, \"latency\": 20, \"max_inflight\": 6},\n"
      "  \"queues\": {\"load\": 2, \"compute\": 3, \"store\": 4},\n"
      "  \"store\": {\"fifo_rows\": 2, \"post_latency\": 5},\n"
      "  \"tokens\": {\"max\": 7},\n"
      "  \"clock_mhz\": 250.5\n"
      "}\n";
  Arch a;
  Diag d;
  CHECK(parse(text, &a, &d) == 0, "good config rejected: %s", diag_first(&d));
  CHECK(!strcmp(a.name, "small"), "name %s", a.name);
  CHECK(a.rows == 8 && a.cols == 4, "array %ux%u", a.rows, a.cols);
  CHECK(a.spad_rows == 512 && a.wbuf_rows == 256 && a.acc_rows == 128 && a.param_rows == 3, "memory rows");
  CHECK(a.dram_bytes == 65536 && a.bus_bytes == 8 && a.dram_latency == 20 && a.dram_inflight == 6, "dram");
  CHECK(a.queue_depth[0] == 2 && a.queue_depth[1] == 3 && a.queue_depth[2] == 4, "queue depths");
  CHECK(a.store_fifo_rows == 2 && a.post_latency == 5 && a.token_max == 7, "store and tokens");
  CHECK(a.clock_mhz == 250.5, "clock %g", a.clock_mhz);
  CHECK(arch_validate(&a, "t.json", &d) == 0, "parsed config does not validate: %s", diag_first(&d));

  // Keys left out keep the built-in default; an integer clock is a number.
  Arch def;
  arch_default(&def);
  CHECK(parse("{\"array\": {\"rows\": 4}, \"clock_mhz\": 500}", &a, &d) == 0, "partial config: %s", diag_first(&d));
  CHECK(a.rows == 4 && a.cols == def.cols && a.acc_rows == def.acc_rows && a.clock_mhz == 500.0,
        "partial config: rows %u cols %u clock %g", a.rows, a.cols, a.clock_mhz);
  CHECK(parse("{}", &a, &d) == 0 && arch_equal(&a, &def), "{} must give the default configuration");
  // Range ends are inclusive.
  CHECK(parse("{\"array\": {\"rows\": 256, \"cols\": 1}, \"dram\": {\"bus_bytes\": 128, \"bytes\": 4294967296}}", &a,
              &d) == 0,
        "range ends rejected: %s", diag_first(&d));
  CHECK(a.dram_bytes == 4294967296ull, "dram.bytes of 4 GiB read as %llu", (unsigned long long)a.dram_bytes);
  check_case("arch-parse-good");
}

static void test_default_valid(void) {
  Arch a;
  Diag d;
  diag_init(&d);
  arch_default(&a);
  CHECK(arch_validate(&a, "default", &d) == 0, "the default configuration is invalid: %s", diag_first(&d));
  CHECK(!strcmp(a.name, "default") && a.rows == 16 && a.cols == 16, "default is named default and 16x16");
  check_case("arch-default-valid");
}

// arch_to_json -> arch_parse -> arch_equal, and the JSON is canonical (printing twice gives the
// same bytes).
static void round_trip(const char *what, const Arch *a) {
  char *j1 = arch_to_json(a);
  CHECK(j1 != NULL, "%s: arch_to_json failed", what);
  if (!j1) return;
  Arch b;
  Diag d;
  diag_init(&d);
  CHECK(arch_parse(j1, strlen(j1), "rt.json", &b, &d) == 0, "%s: own JSON rejected: %s", what, diag_first(&d));
  CHECK(arch_equal(a, &b), "%s: round trip changed the configuration", what);
  char *j2 = arch_to_json(&b);
  CHECK(j2 && !strcmp(j1, j2), "%s: JSON not canonical", what);
  free(j1);
  free(j2);
}

static void test_round_trip(void) {
  Arch a;
  arch_default(&a);
  round_trip("default", &a);
  snprintf(a.name, sizeof a.name, "odd \"name\" \\ with é and a tab\t");
  a.rows = 3;
  a.cols = 256;
  a.spad_rows = 65536;
  a.wbuf_rows = 1;
  a.acc_rows = 7;
  a.param_rows = 3;
  a.dram_bytes = 4096;
  a.bus_bytes = 1;
  a.dram_latency = 100000;
  a.dram_inflight = 1;
  a.queue_depth[0] = 1;
  a.queue_depth[1] = 1024;
  a.queue_depth[2] = 5;
  a.store_fifo_rows = 1;
  a.post_latency = 64;
  a.token_max = 65535;
  a.clock_mhz = 333.33333333333331;
  round_trip("edges", &a);
  a.clock_mhz = 0.1 + 1.2;   // not exactly representable in decimal
  round_trip("clock 1.3", &a);

  // arch_equal notices a change in any one field.
  Arch b = a;
  CHECK(arch_equal(&a, &b), "a copy must be equal");
  b.queue_depth[2]++;
  CHECK(!arch_equal(&a, &b), "queue depth change not noticed");
  b = a;
  b.dram_bytes += 4096;
  CHECK(!arch_equal(&a, &b), "dram.bytes change not noticed");
  b = a;
  b.name[0] = 'x';
  CHECK(!arch_equal(&a, &b), "name change not noticed");
  b = a;
  b.clock_mhz += 1;
  CHECK(!arch_equal(&a, &b), "clock change not noticed");
  b = a;
  b.token_max--;
  CHECK(!arch_equal(&a, &b), "tokens.max change not noticed");
  check_case("arch-json-round-trip");
}

static void test_errors(void) {
  // Syntax errors: file:line:col (1-based), from jansson.
  EXPECT_ERROR("trailing comma", "{\n  \"array\": {\"rows\": 4,}\n}", "t.json:2:23: error: ");
  EXPECT_ERROR("unterminated", "{\n\n  \"array\": {\"rows\": 4}\n", "t.json:4:", ": error: ");
  EXPECT_ERROR("duplicate key", "{\"array\": {\"rows\": 4, \"rows\": 5}}", "t.json:1:", "duplicate");
  EXPECT_ERROR("duplicate group", "{\"array\": {\"rows\": 4},\n \"array\": {\"cols\": 4}}", "t.json:2:", "duplicate");
  EXPECT_ERROR("not JSON", "rows = 4", "t.json:1:", ": error: ");
  // Structure and unknown keys: named by their path.
  EXPECT_ERROR("root array", "[1, 2]", "t.json: error: ", "JSON object");
  EXPECT_ERROR("unknown top key", "{\"arrays\": {}}", "t.json: arrays: error: unknown key");
  EXPECT_ERROR("unknown nested key", "{\"array\": {\"depth\": 4}}", "t.json: array.depth: error: unknown key");
  EXPECT_ERROR("key of another group", "{\"spad\": {\"bus_bytes\": 4}}", "t.json: spad.bus_bytes: error: unknown key");
  // Wrong types.
  EXPECT_ERROR("group not object", "{\"array\": 4}", "t.json: array: error: expected an object");
  EXPECT_ERROR("string for integer", "{\"array\": {\"rows\": \"4\"}}", "t.json: array.rows: error: ", "integer");
  EXPECT_ERROR("real for integer", "{\"array\": {\"rows\": 4.0}}", "t.json: array.rows: error: ", "integer");
  EXPECT_ERROR("negative", "{\"dram\": {\"latency\": -1}}", "t.json: dram.latency: error: ", "non-negative");
  EXPECT_ERROR("null", "{\"tokens\": {\"max\": null}}", "t.json: tokens.max: error: ");
  EXPECT_ERROR("name not string", "{\"name\": 5}", "t.json: name: error: ", "string");
  EXPECT_ERROR("name too long", "{\"name\": \"0123456789012345678901234567890123456789012345678901234567890123\"}",
               "t.json: name: error: ");
  EXPECT_ERROR("clock not number", "{\"clock_mhz\": \"fast\"}", "t.json: clock_mhz: error: expected a number");
  // Values out of range: the key, the value and the range.
  EXPECT_ERROR("rows 0", "{\"array\": {\"rows\": 0}}", "t.json: array.rows: error: 0 is out of range [1, 256]");
  EXPECT_ERROR("cols 257", "{\"array\": {\"cols\": 257}}", "t.json: array.cols: error: 257 is out of range [1, 256]");
  EXPECT_ERROR("param rows 2", "{\"param\": {\"rows\": 2}}", "t.json: param.rows: error: ", "2");
  EXPECT_ERROR("small dram", "{\"dram\": {\"bytes\": 4095}}", "t.json: dram.bytes: error: 4095 is out of range");
  EXPECT_ERROR("huge dram", "{\"dram\": {\"bytes\": 4294967297}}", "t.json: dram.bytes: error: 4294967297");
  EXPECT_ERROR("bus too wide", "{\"dram\": {\"bus_bytes\": 256}}", "t.json: dram.bus_bytes: error: 256 is out of range");
  EXPECT_ERROR("queue 0", "{\"queues\": {\"compute\": 0}}", "t.json: queues.compute: error: 0 is out of range");
  EXPECT_ERROR("post latency", "{\"store\": {\"post_latency\": 65}}", "t.json: store.post_latency: error: 65");
  // The old name of the key (binaries written before the special-function unit) still reads.
  EXPECT_ERROR("old latency name", "{\"store\": {\"sfu_latency\": 65}}", "t.json: store.sfu_latency: error: 65");
  EXPECT_ERROR("clock low", "{\"clock_mhz\": 0.5}", "t.json: clock_mhz: error: 0.5 is out of range");
  EXPECT_ERROR("clock high", "{\"clock_mhz\": 1e6}", "t.json: clock_mhz: error: ", "out of range");
  // A value past 32 bits must not wrap into range (4294967300 = 2^32 + 4).
  EXPECT_ERROR("rows past 2^32", "{\"array\": {\"rows\": 4294967300}}", "t.json: array.rows: error: ", "4294967300");
  EXPECT_ERROR("latency past 2^32", "{\"dram\": {\"latency\": 4294967297}}", "t.json: dram.latency: error: ");
  // Non-power-of-two bus.
  EXPECT_ERROR("bus 24", "{\"dram\": {\"bus_bytes\": 24}}", "t.json: dram.bus_bytes: error: 24 is not a power of two");
  EXPECT_ERROR("bus 3", "{\"dram\": {\"bus_bytes\": 3}}", "dram.bus_bytes", "power of two");

  // arch_validate alone, on a struct built in C.
  Arch a;
  Diag d;
  arch_default(&a);
  a.acc_rows = 0;
  diag_init(&d);
  CHECK(arch_validate(&a, "mem", &d) < 0 && strstr(diag_first(&d), "mem: acc.rows: error: 0 is out of range"),
        "validate acc.rows=0: '%s'", diag_first(&d));
  arch_default(&a);
  a.bus_bytes = 48;
  diag_init(&d);
  CHECK(arch_validate(&a, "mem", &d) < 0 && strstr(diag_first(&d), "dram.bus_bytes"), "validate bus 48: '%s'",
        diag_first(&d));

  // A missing file names the path.
  diag_init(&d);
  CHECK(arch_load_file("/nonexistent/arch.json", &a, &d) < 0 && strstr(diag_first(&d), "/nonexistent/arch.json: error:"),
        "missing file: '%s'", diag_first(&d));
  check_case("arch-errors");
}

// Every shipped configuration parses, validates and round-trips. The `tiny` one is the machine
// of docs/TIMING.md's worked example (4x4, B = 4, L = 10, F = 4).
static void test_shipped(void) {
  const char *dir = "workloads/arch";
  DIR *dp = opendir(dir);
  CHECK(dp != NULL, "cannot open %s (run from the repository root)", dir);
  int n = 0;
  if (dp) {
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
      size_t len = strlen(e->d_name);
      if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
      char path[512];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      Arch a;
      Diag d;
      diag_init(&d);
      n++;
      if (arch_load_file(path, &a, &d) < 0) {
        CHECK(0, "%s", diag_first(&d));
        continue;
      }
      CHECK(arch_validate(&a, path, &d) == 0, "%s", diag_first(&d));
      round_trip(path, &a);
      if (!strcmp(e->d_name, "tiny.json"))
        CHECK(a.rows == 4 && a.cols == 4 && a.bus_bytes == 4 && a.dram_latency == 10 && a.dram_inflight == 4,
              "%s: docs/TIMING.md section 11 says 4x4, B = 4, L = 10, F = 4", path);
    }
    closedir(dp);
  }
  CHECK(n > 0, "no %s/*.json files found: the shipped configurations are missing", dir);
  check_case("arch-shipped-configs");
}

int main(void) {
  test_parse_good();
  test_default_valid();
  test_round_trip();
  test_errors();
  test_shipped();
  return check_status();
}
