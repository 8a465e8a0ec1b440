// sa_sfu_smarg.sv: the softmax argument of isa/sfu_math.c sfu_softmax_arg (docs/SFU.md §2.3): from
// d = max - q (0..255) to the exp input -min(32768, round(d mult / 2^shift)), Q4.11; d mult < 2^24.
// Combinational; sa_sfu_math (op 8) and the unit's lanes (sa_sfu_lane) use it.
module sa_sfu_smarg (
  input  logic [7:0]         d_i,
  input  logic [15:0]        mult_i,
  input  logic [4:0]         shift_i,
  output logic signed [15:0] arg_o
);
  logic [23:0] p;
  logic [24:0] r;
  logic [15:0] a;
  assign p     = 24'(d_i) * 24'(mult_i);
  assign r     = (shift_i == 5'd0) ? 25'(p) : (25'(p) + (25'd1 << (shift_i - 5'd1))) >> shift_i;
  assign a     = (r > 25'd32768) ? 16'h8000 : r[15:0];
  assign arg_o = -$signed(a);
endmodule
