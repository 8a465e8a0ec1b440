// assert_fifo_tb.cpp: a test bench for the RTL assertions (tests/rtl/assert.sh): drives a
// Verilated sa_fifo (built with --assert and -GDepth=2) through one scenario, named by argv[1]:
//   legal      pushes to full, a push with a pop while full, pops to empty: no assertion fires
//   push-full  a push into the full queue: sa_fifo's NoPushWhenFull must stop the model
//   pop-empty  a pop from the empty queue: NoPopWhenEmpty must stop it
//   reset      both violations while rst_ni is low: disable iff keeps them quiet
// A failed assertion ends the process in rtl/sa_vl_stop.cpp (status 1, message on stderr); a
// scenario that ends here prints "assert_fifo_tb: done" and returns 0.
#include <cstdio>
#include <cstring>

#include "Vsa_fifo.h"
#include "verilated.h"

namespace {

// One clock cycle: inputs set with the clock low, then the rising edge.
void cycle(Vsa_fifo &m, int push, int pop) {
  m.clk_i = 0;
  m.push_i = push;
  m.pop_i = pop;
  m.wdata_i = 0x5a;
  m.eval();
  m.clk_i = 1;
  m.eval();
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: assert_fifo_tb legal|push-full|pop-empty|reset\n");
    return 2;
  }
  const char *s = argv[1];
  VerilatedContext ctx;
  Vsa_fifo m(&ctx, "sa_fifo");
  m.clk_i = 0;
  m.rst_ni = 0;
  m.eval();
  if (!std::strcmp(s, "reset")) {
    cycle(m, 0, 1);   // pop from empty, in reset
    cycle(m, 1, 0);
    cycle(m, 1, 0);
    cycle(m, 1, 0);   // push into full, in reset
  }
  m.clk_i = 0;
  m.rst_ni = 1;
  m.eval();
  if (!std::strcmp(s, "legal")) {
    cycle(m, 1, 0);
    cycle(m, 1, 0);   // full (Depth 2)
    cycle(m, 1, 1);   // a push with a pop while full
    cycle(m, 0, 1);
    cycle(m, 0, 1);   // empty
  } else if (!std::strcmp(s, "push-full")) {
    cycle(m, 1, 0);
    cycle(m, 1, 0);
    std::fprintf(stderr, "assert_fifo_tb: pushing into the full queue\n");
    cycle(m, 1, 0);
  } else if (!std::strcmp(s, "pop-empty")) {
    std::fprintf(stderr, "assert_fifo_tb: popping the empty queue\n");
    cycle(m, 0, 1);
  } else if (std::strcmp(s, "reset")) {
    std::fprintf(stderr, "assert_fifo_tb: unknown scenario %s\n", s);
    return 2;
  }
  std::fprintf(stderr, "assert_fifo_tb: done\n");
  return 0;
}
