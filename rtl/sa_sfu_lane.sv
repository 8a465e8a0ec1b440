// sa_sfu_lane.sv: one lane of the special-function unit (docs/ISA.md §6.8, docs/SFU.md): the value
// of one accumulator element through the step its instruction's pass asks for. Combinational;
// the unit (sa_sfu_unit) has L of them and registers their results (its pipeline).
//   kind_i      y_o (the value written back)                        also used by the unit
//   K_MAP       FN(sat16(round_shift(a * MULT, SHIFT)))               -
//   K_EW        a + b, a - b (wrap32) or sat32(a * b)                 -
//   K_SOFTMAX   min(127, round(e mant / 2^(shift - 7)))               q_o (max pass), e_o (sum pass)
//   K_LAYERNORM sat8(round_shift(z P1, P2 mod 64) + P0), z of d = n x - S1   q_o (sum pass)
// q_o is sat8(a) (the int8 of softmax and layer norm); e_o = sfu_exp(sfu_softmax_arg(max - q)).
// FN and EWOP come one-hot (the unit decodes them with sa_isa_pkg), so that the lane reads without
// the package: yosys 0.23 synthesizes it as it is (make synth, rtl/synth/timing.py --only sfu_lane).
module sa_sfu_lane #(
  localparam int unsigned K_MAP = 0,
  localparam int unsigned K_EW = 1,
  localparam int unsigned K_SOFTMAX = 2,
  localparam int unsigned K_LAYERNORM = 3
) (
  input  logic [1:0]         kind_i,
  input  logic [6:0]         fn_i,        // SFU_MAP's FN, one-hot: identity exp gelu sigmoid silu hsigmoid hswish
  input  logic [2:0]         ewop_i,      // SFU_EW's EWOP, one-hot: add sub mul
  input  logic signed [31:0] a_i,         // the element
  input  logic signed [31:0] b_i,         // SFU_EW's second operand
  input  logic signed [31:0] mult_i,      // CFG_SFU
  input  logic [5:0]         shift_i,
  input  logic signed [7:0]  max_i,       // softmax: the row's maximum
  input  logic [15:0]        sm_mult_i,
  input  logic [4:0]         sm_shift_i,
  input  logic [16:0]        rc_mant_i,   // softmax: the reciprocal of the row's sum
  input  logic [5:0]         rc_shift_i,  // (its shift less SM_J)
  input  logic [15:0]        n_i,         // layer norm: LEN
  input  logic signed [24:0] s1_i,        // the row's sum
  input  logic               vzero_i,     // its n^2 variance is 0
  input  logic [16:0]        rs_mant_i,   // its inverse square root
  input  logic [5:0]         rs_shift_i,
  input  logic signed [31:0] p0_i,        // beta, gamma's multiplier and shift (PARAM)
  input  logic signed [31:0] p1_i,
  input  logic [5:0]         p2_i,
  output logic signed [7:0]  q_o,
  output logic [15:0]        e_o,
  output logic [31:0]        y_o
);
  // sat8 of the element (softmax, layer norm).
  assign q_o = (a_i > 32'sd127) ? 8'sd127 : (a_i < -32'sd128) ? -8'sd128 : a_i[7:0];

  // SFU_MAP's input: sat16(round_shift(a MULT, SHIFT)), the Q4.11 value (sat32 first changes nothing).
  logic signed [31:0] rq;
  logic signed [15:0] v;
  sa_requant u_requant (
    .p_i     (64'(a_i) * 64'(mult_i)),
    .shift_i (shift_i),
    .q_o     (rq)
  );
  assign v = (rq > 32'sd32767) ? 16'sh7fff : (rq < -32'sd32768) ? -16'sh8000 : rq[15:0];

  // Softmax: d = max - q (0..255 in the passes after the maximum), the exp argument, exp, norm.
  logic [8:0]         d9;
  logic signed [15:0] arg, x;
  logic [6:0]         norm;
  assign d9 = 9'($signed(max_i)) - 9'($signed(q_o));
  sa_sfu_smarg u_smarg (
    .d_i     (d9[7:0]),
    .mult_i  (sm_mult_i),
    .shift_i (sm_shift_i),
    .arg_o   (arg)
  );
  assign x = (kind_i == 2'(K_SOFTMAX)) ? arg : v;

  logic [15:0]        exp_y, sig_y, hsig_y;
  logic signed [15:0] gelu_y, silu_y, hswish_y;
  logic [16:0]        gelu_phi;
  sa_sfu_exp u_exp (
    .x_i (x),
    .y_o (exp_y)
  );
  sa_sfu_gelu u_gelu (
    .x_i   (v),
    .y_o   (gelu_y),
    .phi_o (gelu_phi)
  );
  sa_sfu_sigmoid u_sigmoid (
    .x_i    (v),
    .sig_o  (sig_y),
    .silu_o (silu_y)
  );
  sa_sfu_hswish u_hswish (
    .x_i      (v),
    .hsig_o   (hsig_y),
    .hswish_o (hswish_y)
  );
  sa_sfu_smnorm u_smnorm (
    .e_i     (exp_y),
    .mant_i  (rc_mant_i),
    .shift_i (rc_shift_i),
    .y_o     (norm)
  );
  assign e_o = exp_y;

  // Layer norm: d = n x - S1 (|d| < 2^24), z (Q4.11), then gamma and beta.
  logic signed [24:0] d;
  logic signed [15:0] lz, z;
  logic signed [63:0] zp, zr, zb;
  logic               half;
  assign d = $signed({9'd0, n_i}) * 25'(q_o) - s1_i;
  sa_sfu_lnelem u_lnelem (
    .d_i     (d),
    .mant_i  (rs_mant_i),
    .shift_i (rs_shift_i),
    .z_o     (lz)
  );
  assign z    = vzero_i ? 16'sd0 : lz;
  assign zp   = 64'(z) * 64'(p1_i);
  assign half = (p2_i == 6'd0) ? 1'b0 : zp[p2_i - 6'd1];
  assign zr   = (zp >>> p2_i) + $signed({63'd0, half});   // all signed: an arithmetic shift
  assign zb   = zr + 64'(p0_i);

  // The map function and the element-wise operation.
  logic signed [31:0] map_y, ew_y;
  logic signed [63:0] prod;
  assign prod = 64'(a_i) * 64'(b_i);
  always_comb begin
    map_y = '0;
    if (fn_i[0]) map_y = map_y | 32'(v);
    if (fn_i[1]) map_y = map_y | {16'd0, exp_y};
    if (fn_i[2]) map_y = map_y | 32'(gelu_y);
    if (fn_i[3]) map_y = map_y | {16'd0, sig_y};
    if (fn_i[4]) map_y = map_y | 32'(silu_y);
    if (fn_i[5]) map_y = map_y | {16'd0, hsig_y};
    if (fn_i[6]) map_y = map_y | 32'(hswish_y);
    ew_y = '0;
    if (ewop_i[0]) ew_y = ew_y | (a_i + b_i);
    if (ewop_i[1]) ew_y = ew_y | (a_i - b_i);
    if (ewop_i[2]) begin
      ew_y = ew_y | ((prod > 64'sh7fff_ffff) ? 32'sh7fff_ffff : (prod < -64'sh8000_0000) ? -32'sh8000_0000 : prod[31:0]);
    end
  end

  always_comb begin
    unique case (kind_i)
      2'(K_MAP):     y_o = map_y;
      2'(K_EW):      y_o = ew_y;
      2'(K_SOFTMAX): y_o = {25'd0, norm};
      2'(K_LAYERNORM): y_o = (zb > 64'sd127) ? 32'd127 : (zb < -64'sd128) ? -32'd128 : 32'($signed(zb[7:0]));
    endcase
  end

  logic unused_lane;
  assign unused_lane = ^{gelu_phi, d9[8]};
endmodule
