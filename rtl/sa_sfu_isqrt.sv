// sa_sfu_isqrt.sv: floor(sqrt(m)) of a 32-bit m by the digit-by-digit (restoring) square root,
// 16 steps, one root bit per step from the top; isa/sfu_math.c sfu_isqrt32 (docs/SFU.md §2.1).
// The remainder stays at most 2 root < 2^17, so 19 bits hold it after two bits are shifted in.
// Combinational.
module sa_sfu_isqrt (
  input  logic [31:0] m_i,
  output logic [15:0] root_o
);
  logic [18:0] rem;
  logic [19:0] diff;   // rem - (4 root + 1); its top bit set when that does not fit

  always_comb begin
    rem    = '0;
    diff   = '0;
    root_o = '0;
    for (int i = 15; i >= 0; i--) begin
      rem    = {rem[16:0], m_i[2*i+1 -: 2]};
      diff   = {1'b0, rem} - {2'b00, root_o[15:0], 2'b01};
      root_o = {root_o[14:0], 1'b0};
      if (!diff[19]) begin
        rem       = diff[18:0];
        root_o[0] = 1'b1;
      end
    end
  end
endmodule
