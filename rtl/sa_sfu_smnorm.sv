// sa_sfu_smnorm.sv: the softmax normalisation of isa/sfu_math.c sfu_softmax_norm (docs/SFU.md
// §2.3): min(127, round(e mant / 2^(shift - 7))) for one exp value e (Q0.15) and the row's
// reciprocal (mant, shift); e mant <= 2^31 and shift - 7 >= 9. SFU_SOFTMAX's SM_J enters as a
// smaller shift (docs/ISA.md §6.8). Combinational: sfu_smnorm of sa_sfu_fn.svh; sa_sfu_math (op 9).
module sa_sfu_smnorm (
  input  logic [15:0] e_i,
  input  logic [16:0] mant_i,
  input  logic [5:0]  shift_i,
  output logic [6:0]  y_o
);
  `include "sa_sfu_fn.svh"
  assign y_o = sfu_smnorm(e_i, mant_i, shift_i);
endmodule
