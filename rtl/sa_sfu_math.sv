// sa_sfu_math.sv: the special-function unit's datapath, one element per evaluation: every function
// of isa/sfu_math.h side by side and op_i choosing the result (docs/SFU.md §2, §4). Specified and
// verified, not yet reachable from the ISA: nothing in sa_top instantiates it yet; the next step
// (docs/SFU.md §5) wraps it in a unit with registers and a row sequencer. Combinational (latency 0;
// docs/SFU.md §4 gives the pipeline cut the unit will use).
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

  // Softmax argument: -min(32768, round(d mult / 2^shift)); d mult < 2^24.
  logic [23:0] sm_p;
  logic [24:0] sm_r;
  logic [4:0]  sm_sh;
  logic [15:0] sm_a;
  assign sm_sh = shift_i[4:0];
  assign sm_p  = 24'(a_i[7:0]) * 24'(mant_i[15:0]);
  assign sm_r  = (sm_sh == 5'd0) ? 25'(sm_p) : (25'(sm_p) + (25'd1 << (sm_sh - 5'd1))) >> sm_sh;
  assign sm_a  = (sm_r > 25'd32768) ? 16'h8000 : sm_r[15:0];

  // Softmax normalisation: min(127, round(e mant / 2^(shift - 7))); e mant <= 2^31 and
  // shift - 7 >= 24 (the row sum is at least 2^15), so only bits 23..32 of the sum matter.
  logic [32:0] sn_p;
  logic [5:0]  sn_sh;
  logic [33:0] sn_q;
  assign sn_p  = 33'(a_i[15:0]) * 33'(mant_i);
  assign sn_sh = shift_i - 6'd7;
  assign sn_q  = (sn_sh > 6'd33) ? 34'd0 : (34'(sn_p) + (34'd1 << (sn_sh - 6'd1))) >> sn_sh;

  // Layer-norm element: sign(d) min(32767, round(|d| mant / 2^(shift - 11))); |d| < 2^24 and
  // |d| mant < 2^41; shift - 11 in 5..28.
  logic        ln_neg;
  logic [23:0] ln_a;
  logic [40:0] ln_p;
  logic [41:0] ln_q;
  logic [5:0]  ln_sh;
  logic [15:0] ln_m;
  assign ln_neg = a_i[24];
  assign ln_a   = ln_neg ? 24'(-a_i[24:0]) : a_i[23:0];
  assign ln_p   = 41'(ln_a) * 41'(mant_i);
  assign ln_sh  = shift_i - 6'd11;
  assign ln_q   = (42'(ln_p) + (42'd1 << (ln_sh - 6'd1))) >> ln_sh;
  assign ln_m   = (ln_q > 42'd32767) ? 16'd32767 : ln_q[15:0];

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
      4'd8:    y_o = -(32'(sm_a));
      4'd9:    y_o = (sn_q > 34'd127) ? 32'd127 : {25'd0, sn_q[6:0]};
      4'd10:   y_o = ln_neg ? -(32'(ln_m)) : 32'(ln_m);
      default: y_o = '0;
    endcase
  end

  logic unused_math;
  assign unused_math = ^{gelu_phi, a_i[47:25]};
endmodule
