// sa_requant.sv: sat32(round_shift(p, shift)) of isa/numerics.h (docs/ISA.md §6.1): the rounding
// right shift, halves up, computed as floor(p / 2^s) plus bit s-1 of p, then saturated to int32.
// Combinational; used by the load unit (load_scale) and the post-processing unit (requant).
module sa_requant (
  input  logic signed [63:0] p_i,
  input  logic [5:0]         shift_i,
  output logic signed [31:0] q_o
);
  logic signed [63:0] floor_q, r;
  logic               half;

  assign floor_q = p_i >>> shift_i;
  assign half    = (shift_i == 6'd0) ? 1'b0 : p_i[shift_i - 6'd1];
  assign r       = floor_q + {63'd0, half};
  assign q_o     = (r > 64'sh7fff_ffff) ? 32'sh7fff_ffff :
                   (r < -64'sh8000_0000) ? -32'sh8000_0000 : r[31:0];
endmodule
