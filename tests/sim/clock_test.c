// clock_test.c: the achievable-clock model (sim/clock.c, docs/PPA.md "Clock"): the estimate for
// the shipped default arch equals the figure the documentation gives, the slowest block sets
// it, the array's path grows with the PE count but only logarithmically, and the rotator's with
// the column count.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/clock.h"
#include "../common/check.h"

// docs/PPA.md, Clock: the default 16x16 arch (after scripts/timing-fit --write, update both)
#define DEFAULT_MHZ 187.0
#define DEFAULT_ARRAY_PS 1997.0

static Arch sized(uint32_t rows, uint32_t cols) {
  Arch a;
  arch_default(&a);
  a.rows = rows;
  a.cols = cols;
  return a;
}

static void test_default(void) {
  Arch a;
  arch_default(&a);
  ClockEstimate e;
  clock_estimate(&a, &e);
  double worst = 0;
  for (int b = 0; b < CLK_BLOCKS; b++) {
    CHECK(e.block_ps[b] > 0, "block %s: %.1f ps", clock_block_names[b], e.block_ps[b]);
    if (e.block_ps[b] > worst) worst = e.block_ps[b];
  }
  CHECK(e.block_ps[e.critical] == worst, "critical %s is not the slowest", e.critical_name);
  CHECK(fabs(e.mhz - 1e6 / worst) < 1e-9, "mhz %.3f, want %.3f", e.mhz, 1e6 / worst);
  CHECK(!strcmp(e.critical_name, clock_block_names[e.critical]), "name %s", e.critical_name);
  // docs/PPA.md, Clock: the default 16x16 arch
  CHECK(e.critical == CLK_POST, "default arch: critical %s, want post", e.critical_name);
  CHECK(fabs(e.mhz - DEFAULT_MHZ) < 0.05, "default arch: %.2f MHz, docs say %.1f", e.mhz, DEFAULT_MHZ);
  CHECK(fabs(e.block_ps[CLK_PE_ARRAY] - DEFAULT_ARRAY_PS) < 0.5, "default arch: pe_array %.1f ps, docs say %.1f",
        e.block_ps[CLK_PE_ARRAY], DEFAULT_ARRAY_PS);
  check_case("clock-default-arch");
}

static void test_sizes(void) {
  ClockEstimate prev, e;
  Arch a = sized(1, 1);
  clock_estimate(&a, &prev);
  for (uint32_t n = 2; n <= 256; n *= 2) {
    a = sized(n, n);
    clock_estimate(&a, &e);
    CHECK(e.block_ps[CLK_PE_ARRAY] >= prev.block_ps[CLK_PE_ARRAY], "%ux%u array faster than the smaller one", n, n);
    CHECK(e.block_ps[CLK_ROTATOR] >= prev.block_ps[CLK_ROTATOR], "%ux%u rotator faster than the smaller one", n, n);
    CHECK(e.block_ps[CLK_POST] == prev.block_ps[CLK_POST], "post depends on the size");
    prev = e;
  }
  // 65,536 times the PEs, a bounded slow-down of the array's path: the classroom answer
  Arch one = sized(1, 1), big = sized(256, 256);
  ClockEstimate e1, eb;
  clock_estimate(&one, &e1);
  clock_estimate(&big, &eb);
  double growth = eb.block_ps[CLK_PE_ARRAY] / e1.block_ps[CLK_PE_ARRAY];
  CHECK(growth > 1.0 && growth < 1.5, "1x1 -> 256x256 array path x%.2f", growth);
  check_case("clock-sizes");
}

int main(void) {
  test_default();
  test_sizes();
  return check_status();
}
