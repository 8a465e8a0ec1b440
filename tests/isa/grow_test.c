// grow_test.c: overflow-checked array growth (isa/grow.h) and the Program builders that use it
// (issue 18 item 15): a doubling capacity that would pass its type's range must fail cleanly,
// never wrap to 0 and loop forever or allocate too little.
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../isa/grow.h"
#include "../../isa/program.h"
#include "../common/check.h"
#include "../common/testarch.h"

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL grow: a builder looped forever on a full capacity\n";
  if (write(2, msg, sizeof msg - 1)) {}
  _exit(1);
}

static void test_grow_cap(void) {
  CHECK(grow_cap(0, 1, 16, 1, UINT32_MAX) == 16, "first capacity");
  CHECK(grow_cap(16, 17, 16, 1, UINT32_MAX) == 32, "doubles");
  CHECK(grow_cap(16, 1000, 16, 1, UINT32_MAX) == 1024, "doubles until it fits");
  CHECK(grow_cap(1u << 31, (1u << 31) + 1, 16, 1, UINT32_MAX) == UINT32_MAX, "clamped to the maximum");
  CHECK(grow_cap(16, 16, 16, 1, UINT32_MAX) == 16, "room already");
  CHECK(grow_cap(UINT32_MAX, (size_t)UINT32_MAX + 1, 16, 1, UINT32_MAX) == 0, "past the maximum");
  CHECK(grow_cap(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 2, 16, 1, SIZE_MAX) == SIZE_MAX, "size_t clamped");
  CHECK(grow_cap(16, SIZE_MAX / 8 + 1, 16, 8, SIZE_MAX) == 0, "elements times their size past SIZE_MAX");
  CHECK(grow_cap(16, SIZE_MAX / 8, 16, 8, SIZE_MAX) == SIZE_MAX / 8, "just fits in bytes");
  check_case("grow_cap");
}

// A Program whose capacity is at the top of uint32: the next add must fail, not loop.
static void test_program_full(void) {
  signal(SIGALRM, on_alarm);
  alarm(10);
  Arch a = testarch_tiny();
  Program *p = prog_new(&a);
  CHECK(p != NULL, "prog_new");
  if (!p) return;
  p->n_layers = p->cap_layers = UINT32_MAX;
  CHECK(prog_add_layer(p, "x") == -1, "a layer past 2^32-1 must fail");
  p->n_layers = p->cap_layers = 0;
  p->n_tensors = p->cap_tensors = UINT32_MAX;
  TensorInfo t;
  memset(&t, 0, sizeof t);
  CHECK(prog_add_tensor(p, &t) == -1, "a tensor past 2^32-1 must fail");
  p->n_tensors = p->cap_tensors = 0;
  alarm(0);
  prog_free(p);
  check_case("program_capacity_full");
}

int main(void) {
  test_grow_cap();
  test_program_full();
  return check_status();
}
