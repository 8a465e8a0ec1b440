// gen_randprog.c: writes seeded random legal programs (tests/common/randprog.c) for one arch as
// program binaries, so the RTL tests can run them through sasim and sasim-rtl.
// Usage: gen_randprog ARCH.json FIRST_SEED COUNT OUT_DIR   (writes OUT_DIR/r<seed>.bin)
#include <stdio.h>
#include <stdlib.h>

#include "../../isa/arch.h"
#include "../common/randprog.h"

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: gen_randprog ARCH.json FIRST_SEED COUNT OUT_DIR\n");
    return 2;
  }
  Diag d;
  diag_init(&d);
  Arch a;
  if (arch_load_file(argv[1], &a, &d)) {
    diag_print(&d);
    return 1;
  }
  uint64_t first = strtoull(argv[2], NULL, 10), n = strtoull(argv[3], NULL, 10);
  // The RTL models all three dataflows and the special-function unit: draw COMPUTE_OS,
  // COMPUTE_IS, transposed LOADs, the SFU's instructions and LOADs / STOREs on the global buffer too.
  RandProgOptions o = {.arch = &a, .min_insns = 0, .max_insns = 0, .with_is = 1, .with_sfu = 1, .with_gbuf = 1};
  for (uint64_t seed = first; seed < first + n; seed++) {
    Program *p = randprog_generate(seed, &o, &d);
    char path[4096];
    snprintf(path, sizeof path, "%s/r%llu.bin", argv[4], (unsigned long long)seed);
    if (!p || prog_save(p, path, 0, &d)) {
      prog_free(p);
      diag_print(&d);
      return 1;
    }
    prog_free(p);
  }
  return 0;
}
