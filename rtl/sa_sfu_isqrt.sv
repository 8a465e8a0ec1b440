// sa_sfu_isqrt.sv: floor(sqrt(m)) of a 32-bit m by the digit-by-digit (restoring) square root,
// 16 steps, one root bit per step from the top; isa/sfu_math.c sfu_isqrt32 (docs/SFU.md §2.1).
// Combinational.
module sa_sfu_isqrt (
  input  logic [31:0] m_i,
  output logic [15:0] root_o
);
  logic [33:0] rem, trial;

  always_comb begin
    rem    = '0;
    trial  = '0;
    root_o = '0;
    for (int i = 15; i >= 0; i--) begin
      rem   = {rem[31:0], m_i[2*i+1 -: 2]};
      trial = {16'd0, root_o, 2'b01};
      root_o = {root_o[14:0], 1'b0};
      if (rem >= trial) begin
        rem       = rem - trial;
        root_o[0] = 1'b1;
      end
    end
  end
endmodule
