// sa_pe.sv: one processing element of the weight-stationary array (sim/detailed_array.c PeReg).
// It holds two weight banks and the registers that move on: the activation (to the right), the
// partial sum (down), and the control travelling with them (valid, bank select, row tag). In a
// cycle where valid_i is set it latches act_i and psum_i + act_i * w[bank_i]; otherwise it only
// clears valid. The weights shift down the column during a PRELOAD of their bank (wen_i[b]).
// The two banks travel as one flat vector (bank b in bits [8b+7:8b]), not a [1:0][7:0] array,
// so that yosys 0.23 (Debian 12), which reads no multi-dimensional packed arrays, synthesizes
// this module as it is (make synth, rtl/synth/).
module sa_pe #(
  parameter int unsigned TagW = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // from the left neighbour (or the skew line)
  input  logic              valid_i,
  input  logic signed [7:0] act_i,
  input  logic              bank_i,
  input  logic [TagW-1:0]   tag_i,
  // from the PE above (0 in the top row)
  input  logic signed [31:0] psum_i,
  // weight shift chain: bank b takes w_i[8b+7:8b] when wen_i[b]
  input  logic [1:0]        wen_i,
  input  logic [15:0]       w_i,
  // registers
  output logic              valid_o,
  output logic signed [7:0] act_o,
  output logic              bank_o,
  output logic [TagW-1:0]   tag_o,
  output logic signed [31:0] psum_o,
  output logic [15:0]       w_o
);
  logic              valid_q, bank_q;
  logic signed [7:0] act_q;
  logic [TagW-1:0]   tag_q;
  logic signed [31:0] psum_q, psum_d;
  logic [7:0]        w0_q, w1_q;
  logic signed [7:0] w_sel;
  logic signed [15:0] prod;

  assign w_sel  = bank_i ? w1_q : w0_q;
  assign prod   = act_i * w_sel;                 // exact: int8 x int8 fits 16 bits
  assign psum_d = psum_i + 32'(prod);            // wraps modulo 2^32 like sa_wrap_add32

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      act_q   <= '0;
      bank_q  <= 1'b0;
      tag_q   <= '0;
      psum_q  <= '0;
    end else begin
      valid_q <= valid_i;
      if (valid_i) begin
        act_q  <= act_i;
        bank_q <= bank_i;
        tag_q  <= tag_i;
        psum_q <= psum_d;
      end
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

  assign valid_o = valid_q;
  assign act_o   = act_q;
  assign bank_o  = bank_q;
  assign tag_o   = tag_q;
  assign psum_o  = psum_q;
  assign w_o     = {w1_q, w0_q};
endmodule
