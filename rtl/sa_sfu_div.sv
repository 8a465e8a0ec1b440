// sa_sfu_div.sv: floor(num / den) by restoring division, one quotient bit per step from the top
// (QuotW steps): the divider of the reciprocal, the inverse square root and the sigmoid
// (docs/SFU.md §2.1). Exact when num < den * 2^QuotW (the callers guarantee it). Combinational;
// a pipelined unit cuts it between steps.
module sa_sfu_div #(
  parameter int unsigned QuotW = 17
) (
  input  logic [31:0]       num_i,
  input  logic [31:0]       den_i,
  output logic [QuotW-1:0]  quot_o
);
  logic [63:0] rem, trial;

  always_comb begin
    rem    = {32'd0, num_i};
    trial  = '0;
    quot_o = '0;
    for (int i = int'(QuotW) - 1; i >= 0; i--) begin
      trial = {32'd0, den_i} << i;
      if (rem >= trial) begin
        rem       = rem - trial;
        quot_o[i] = 1'b1;
      end
    end
  end
endmodule
