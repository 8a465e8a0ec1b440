// sa_sfu_lnelem.sv: one layer-norm element of isa/sfu_math.c sfu_layernorm_elem (docs/SFU.md
// §2.4): sign(d) min(32767, round(|d| mant / 2^(shift - 11))) for d = n x - sum (|d| < 2^24) and
// the row's inverse square root (mant, shift); |d| mant < 2^41, shift - 11 in 5..28. Q4.11 out.
// Combinational; sa_sfu_math (op 10) and sa_sfu_lane use it.
module sa_sfu_lnelem (
  input  logic [24:0]        d_i,
  input  logic [16:0]        mant_i,
  input  logic [5:0]         shift_i,
  output logic signed [15:0] z_o
);
  logic        neg;
  logic [23:0] a;
  logic [40:0] p;
  logic [41:0] q;
  logic [5:0]  sh;
  logic [15:0] m;
  assign neg = d_i[24];
  assign a   = neg ? 24'(-d_i) : d_i[23:0];
  assign p   = 41'(a) * 41'(mant_i);
  assign sh  = shift_i - 6'd11;
  assign q   = (42'(p) + (42'd1 << (sh - 6'd1))) >> sh;
  assign m   = (q > 42'd32767) ? 16'd32767 : q[15:0];
  assign z_o = neg ? -$signed(m) : $signed(m);
endmodule
