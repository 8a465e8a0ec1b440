// sa_sfu_math.sv: the special-function unit's datapath, one element per evaluation: every function
// of isa/sfu_math.h side by side and op_i choosing the result (docs/SFU.md §2, §4). Specified and
// verified against isa/sfu_math.c (tests/rtl/sfu_math.sh). The unit (sa_sfu_unit) does not use this
// wrapper: its lanes (sa_sfu_lane) chain the same modules directly. Combinational.
//   op_i  function         a_i                       mant_i, shift_i      y_o
//   0     exp              x Q4.11 in [15:0]         -                    Q0.15, 0..32768
//   1     gelu             x Q4.11                   -                    Q4.11 (sign-extended)
//   2     sigmoid          x Q4.11                   -                    Q0.15
//   3     silu             x Q4.11                   -                    Q4.11
//   4     h-sigmoid        x Q4.11                   -                    Q0.15
//   5     h-swish          x Q4.11                   -                    Q4.11
//   6     reciprocal       v in [31:0]               -                    {shift[5:0], mant[16:0]}
//   7     inverse sqrt     v in [47:0]               -                    {shift[5:0], mant[16:0]}
//   8     softmax arg      d = max - q in [7:0]      mult in mant_i[15:0], shift_i 0..31: exp input (Q4.11)
//   9     softmax norm     e Q0.15 in [15:0]         the row's reciprocal  int8 0..127
//   10    layer-norm elem  d = n x - sum, [24:0]     the row's rsqrt       Q4.11
module sa_sfu_math (
  input  logic [3:0]  op_i,
  input  logic [47:0] a_i,
  input  logic [16:0] mant_i,
  input  logic [5:0]  shift_i,
  output logic [31:0] y_o
);
  logic signed [15:0] x;
  logic [15:0]        exp_y, sig_y, hsig_y;
  logic signed [15:0] gelu_y, silu_y, hswish_y;
  logic [16:0]        gelu_phi, rc_mant, rs_mant;
  logic [5:0]         rc_shift, rs_shift;

  assign x = $signed(a_i[15:0]);

  sa_sfu_exp u_exp (
    .x_i (x),
    .y_o (exp_y)
  );
  sa_sfu_gelu u_gelu (
    .x_i   (x),
    .y_o   (gelu_y),
    .phi_o (gelu_phi)
  );
  sa_sfu_sigmoid u_sigmoid (
    .x_i    (x),
    .sig_o  (sig_y),
    .silu_o (silu_y)
  );
  sa_sfu_hswish u_hswish (
    .x_i      (x),
    .hsig_o   (hsig_y),
    .hswish_o (hswish_y)
  );
  sa_sfu_recip u_recip (
    .v_i     (a_i[31:0]),
    .mant_o  (rc_mant),
    .shift_o (rc_shift)
  );
  sa_sfu_rsqrt u_rsqrt (
    .v_i     (a_i),
    .mant_o  (rs_mant),
    .shift_o (rs_shift)
  );

  // The softmax and layer-norm steps (their own modules, which the unit's lanes chain).
  logic signed [15:0] sm_a, ln_z;
  logic [6:0]         sn_y;
  sa_sfu_smarg u_smarg (
    .d_i     (a_i[7:0]),
    .mult_i  (mant_i[15:0]),
    .shift_i (shift_i[4:0]),
    .arg_o   (sm_a)
  );
  sa_sfu_smnorm u_smnorm (
    .e_i     (a_i[15:0]),
    .mant_i  (mant_i),
    .shift_i (shift_i),
    .y_o     (sn_y)
  );
  sa_sfu_lnelem u_lnelem (
    .d_i     (a_i[24:0]),
    .mant_i  (mant_i),
    .shift_i (shift_i),
    .z_o     (ln_z)
  );

  always_comb begin
    unique case (op_i)
      4'd0:    y_o = {16'd0, exp_y};
      4'd1:    y_o = 32'(gelu_y);
      4'd2:    y_o = {16'd0, sig_y};
      4'd3:    y_o = 32'(silu_y);
      4'd4:    y_o = {16'd0, hsig_y};
      4'd5:    y_o = 32'(hswish_y);
      4'd6:    y_o = {9'd0, rc_shift, rc_mant};
      4'd7:    y_o = {9'd0, rs_shift, rs_mant};
      4'd8:    y_o = 32'(sm_a);
      4'd9:    y_o = {25'd0, sn_y};
      4'd10:   y_o = 32'(ln_z);
      default: y_o = '0;
    endcase
  end

  logic unused_math;
  assign unused_math = ^{gelu_phi, a_i[47:25]};
endmodule
