// sa_pe.sv: one processing element of the array (sim/detailed_array.c PeReg), in both modes of
// docs/TIMING.md §6. One multiplier and one adder serve both.
//  - Weight-stationary (os_mode_i = 0): it holds two weight banks and the registers that move
//    on: the activation (to the right), the partial sum (down), and the control travelling with
//    them (valid, bank select, row tag). In a cycle where valid_i is set it latches act_i and
//    psum_i + act_i * w[bank_i]; otherwise it only clears valid. The weights shift down the
//    column during a PRELOAD of their bank (wen_i[b]).
//  - Output-stationary (os_mode_i = 1): the activation still moves right and a B operand moves
//    down (b_i, b_o); psum_q stays put as the PE's own accumulator: the first product of a
//    COMPUTE_OS (first_i) replaces it, the others add to it, and the last (last_i) goes, with
//    the sum so far, into the drain register instead. first/last travel right with valid.
//    The drain registers of a column form a chain: drain_sh_i makes this one take drain_i (the
//    one above) while the column drains bottom first into the accumulator. The weight banks
//    are neither read nor changed.
// The two banks travel as one flat vector (bank b in bits [8b+7:8b]), not a [1:0][7:0] array,
// so that yosys 0.23 (Debian 12), which reads no multi-dimensional packed arrays, synthesizes
// this module as it is (make synth, rtl/synth/).
module sa_pe #(
  parameter int unsigned TagW = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // the array's mode (changes only while the array is empty)
  input  logic              os_mode_i,
  // from the left neighbour (or the row's input line)
  input  logic              valid_i,
  input  logic signed [7:0] act_i,
  input  logic              bank_i,
  input  logic [TagW-1:0]   tag_i,
  input  logic              first_i,
  input  logic              last_i,
  // from the PE above (0 in the top row; b_i comes from the column's skew line there)
  input  logic signed [31:0] psum_i,
  input  logic signed [7:0] b_i,
  input  logic [31:0]       drain_i,
  input  logic              drain_sh_i,
  // weight shift chain: bank b takes w_i[8b+7:8b] when wen_i[b]
  input  logic [1:0]        wen_i,
  input  logic [15:0]       w_i,
  // registers
  output logic              valid_o,
  output logic signed [7:0] act_o,
  output logic              bank_o,
  output logic [TagW-1:0]   tag_o,
  output logic              first_o,
  output logic              last_o,
  output logic signed [31:0] psum_o,
  output logic signed [7:0] b_o,
  output logic [31:0]       drain_o,
  output logic [15:0]       w_o
);
  logic              valid_q, bank_q, first_q, last_q;
  logic signed [7:0] act_q, b_q;
  logic [TagW-1:0]   tag_q;
  logic signed [31:0] psum_q, sum;
  logic [31:0]       drain_q;
  logic [7:0]        w0_q, w1_q;
  logic signed [7:0] w_sel, mul_b;
  logic signed [31:0] addend;
  logic signed [15:0] prod;

  assign w_sel  = bank_i ? w1_q : w0_q;
  assign mul_b  = os_mode_i ? b_i : w_sel;
  assign prod   = act_i * mul_b;                 // exact: int8 x int8 fits 16 bits
  assign addend = !os_mode_i ? psum_i : (first_i ? '0 : psum_q);
  assign sum    = addend + 32'(prod);            // wraps modulo 2^32 like sa_wrap_add32

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      act_q   <= '0;
      bank_q  <= 1'b0;
      tag_q   <= '0;
      first_q <= 1'b0;
      last_q  <= 1'b0;
      b_q     <= '0;
      psum_q  <= '0;
    end else begin
      valid_q <= valid_i;
      if (valid_i) begin
        act_q <= act_i;
        if (!os_mode_i) begin
          bank_q <= bank_i;
          tag_q  <= tag_i;
          psum_q <= sum;
        end else begin
          first_q <= first_i;
          last_q  <= last_i;
          b_q     <= b_i;
          if (!last_i) psum_q <= sum;
        end
      end
    end
  end

  // The drain register: a COMPUTE_OS result, then the chain down the column. The two never
  // coincide (TIMING §6, COMPUTE_OS rule (b)).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      drain_q <= '0;
    end else if (drain_sh_i) begin
      drain_q <= drain_i;
    end else if (valid_i && os_mode_i && last_i) begin
      drain_q <= sum;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w0_q <= '0;
      w1_q <= '0;
    end else begin
      if (wen_i[0]) w0_q <= w_i[7:0];
      if (wen_i[1]) w1_q <= w_i[15:8];
    end
  end

  // The rule that no result reaches drain_q while the column drains (drain_sh_i) is asserted in
  // sa_array, once for all PEs (a concurrent assertion in each PE would copy its inputs every cycle).

  assign valid_o = valid_q;
  assign act_o   = act_q;
  assign bank_o  = bank_q;
  assign tag_o   = tag_q;
  assign first_o = first_q;
  assign last_o  = last_q;
  assign psum_o  = psum_q;
  assign b_o     = b_q;
  assign drain_o = drain_q;
  assign w_o     = {w1_q, w0_q};
endmodule
