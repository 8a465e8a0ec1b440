// sa_sfu_smarg.sv: the softmax argument of isa/sfu_math.c sfu_softmax_arg (docs/SFU.md §2.3): from
// d = max - q (0..255) to the exp input -min(32768, round(d mult / 2^shift)), Q4.11; d mult < 2^24.
// Combinational: sfu_smarg of sa_sfu_fn.svh; sa_sfu_math (op 8) uses it.
module sa_sfu_smarg (
  input  logic [7:0]         d_i,
  input  logic [15:0]        mult_i,
  input  logic [4:0]         shift_i,
  output logic signed [15:0] arg_o
);
  `include "sa_sfu_fn.svh"
  assign arg_o = sfu_smarg(d_i, mult_i, shift_i);
endmodule
