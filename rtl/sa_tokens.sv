// sa_tokens.sv: the token counters, one per ordered pair of distinct units (docs/TIMING.md §4:
// 12 channels with sa_isa_pkg's NUM_UNITS = 4; the [u][u] entries are constant zero).
// count_o[from][to] is the count at the start of the cycle; the pops of the cycle (pop_i[to][from],
// one per channel at most: only the receiving unit pops) and its pushes (push_i[from][to], up to
// END_SLOTS per channel: one unit can end several instructions in a cycle) land at the edge, so a
// token pushed by an instruction ending in cycle e is visible from e + 1. The counters are one bit
// wider than TokenMax needs; overflow_o says a count went past TokenMax (a program bug; the
// harness reports it for the cycle the token becomes visible).
`include "sa_assert.svh"

module sa_tokens
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned TokenMax = 255,
  localparam int unsigned TokW = $clog2(TokenMax + 1) + 2
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [NUM_UNITS-1:0][NUM_UNITS-1:0]      pop_i,    // [to][from]
  input  logic [NUM_UNITS-1:0][NUM_UNITS-1:0][PUSH_CNT_W-1:0] push_i,   // [from][to]: pushes this cycle
  output logic [NUM_UNITS-1:0][NUM_UNITS-1:0][TokW-1:0] count_o,  // [from][to]
  output logic                overflow_o
);
  logic [NUM_UNITS-1:0][NUM_UNITS-1:0][TokW-1:0] count_q, count_d;

  always_comb begin
    overflow_o = 1'b0;
    for (int f = 0; f < NUM_UNITS; f++) begin
      for (int t = 0; t < NUM_UNITS; t++) begin
        // No channel from a unit to itself: its counter stays 0 (and is optimised away).
        count_d[f][t] = (f == t) ? '0 : count_q[f][t] - TokW'(pop_i[t][f]) + TokW'(push_i[f][t]);
      end
    end
    for (int f = 0; f < NUM_UNITS; f++) begin
      for (int t = 0; t < NUM_UNITS; t++) begin
        if (32'(count_q[f][t]) > TokenMax) overflow_o = 1'b1;
      end
    end
  end

  assign count_o = count_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q <= '0;
    end else begin
      count_q <= count_d;
    end
  end

  // A unit starts only with a token on each channel it pops (tok_ok in sa_top), and the harness
  // stops the run at the first count past TokenMax, so no counter ever wraps.
  for (genvar f = 0; f < NUM_UNITS; f++) begin : g_from
    for (genvar t = 0; t < NUM_UNITS; t++) begin : g_to
      `SA_ASSERT(NoPopWhenEmpty, pop_i[t][f] |-> count_q[f][t] != '0, "sa_tokens: a token popped from an empty channel")
      `SA_ASSERT(NoWrap, 32'(count_q[f][t]) + 32'(push_i[f][t]) < 2 ** TokW,
                 "sa_tokens: a token counter wraps")
    end
  end
endmodule
