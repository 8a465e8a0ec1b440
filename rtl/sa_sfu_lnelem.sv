// sa_sfu_lnelem.sv: one layer-norm element of isa/sfu_math.c sfu_layernorm_elem (docs/SFU.md
// §2.4): sign(d) min(32767, round(|d| mant / 2^(shift - 11))) for d = n x - sum (|d| < 2^24) and
// the row's inverse square root (mant, shift); |d| mant < 2^41, shift - 11 in 5..28. Q4.11 out.
// Combinational: sfu_lnelem of sa_sfu_fn.svh; sa_sfu_math (op 10) uses it.
module sa_sfu_lnelem (
  input  logic [24:0]        d_i,
  input  logic [16:0]        mant_i,
  input  logic [5:0]         shift_i,
  output logic signed [15:0] z_o
);
  `include "sa_sfu_fn.svh"
  assign z_o = sfu_lnelem(d_i, mant_i, shift_i);
endmodule
