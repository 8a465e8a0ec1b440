// sa_sfu_smnorm.sv: the softmax normalisation of isa/sfu_math.c sfu_softmax_norm (docs/SFU.md
// §2.3): min(127, round(e mant / 2^(shift - 7))) for one exp value e (Q0.15) and the row's
// reciprocal (mant, shift); e mant <= 2^31 and shift - 7 >= 9. SFU_SOFTMAX's SM_J enters as a
// smaller shift (docs/ISA.md §6.8). Combinational; sa_sfu_math (op 9) and sa_sfu_lane use it.
module sa_sfu_smnorm (
  input  logic [15:0] e_i,
  input  logic [16:0] mant_i,
  input  logic [5:0]  shift_i,
  output logic [6:0]  y_o
);
  logic [32:0] p;
  logic [5:0]  sh;
  logic [33:0] q;
  assign p   = 33'(e_i) * 33'(mant_i);
  assign sh  = shift_i - 6'd7;
  assign q   = (sh > 6'd33) ? 34'd0 : (34'(p) + (34'd1 << (sh - 6'd1))) >> sh;
  assign y_o = (q > 34'd127) ? 7'd127 : q[6:0];
endmodule
