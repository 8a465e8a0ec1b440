// sa_sfu_div.sv: floor(num / den) by restoring division (docs/SFU.md §2.1): the partial remainder
// starts as num / 2^QuotW (below den, which the callers guarantee: num < den * 2^QuotW), then each
// of QuotW steps, from the top quotient bit down, shifts in the next numerator bit and subtracts
// den when it fits. The remainder never needs more than DenW + 1 bits. The divider of the
// reciprocal, the inverse square root and the sigmoid. Combinational; a pipelined unit cuts it
// between steps.
module sa_sfu_div #(
  parameter int NumW  = 32,
  parameter int DenW  = 16,
  parameter int QuotW = 17
) (
  input  logic [NumW-1:0]  num_i,
  input  logic [DenW-1:0]  den_i,
  output logic [QuotW-1:0] quot_o
);
  logic [DenW:0]   rem;    // partial remainder, < 2 den after the shift-in
  logic [DenW+1:0] diff;   // rem - den; its top bit set when den does not fit
  logic [NumW-1:0] high;

  assign high = num_i >> QuotW;

  always_comb begin
    rem    = high[DenW:0];
    diff   = '0;
    quot_o = '0;
    for (int i = QuotW - 1; i >= 0; i--) begin
      rem  = {rem[DenW-1:0], num_i[i]};
      diff = {1'b0, rem} - {2'b00, den_i};
      if (!diff[DenW+1]) begin
        rem       = diff[DenW:0];
        quot_o[i] = 1'b1;
      end
    end
  end

  logic unused_high;
  assign unused_high = ^high[NumW-1:DenW+1];
endmodule
