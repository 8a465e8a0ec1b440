// sa_sfu_lane.sv: one lane of the special-function unit (docs/ISA.md §6.8, docs/SFU.md), pipelined
// over the unit's Latency = P cycles (docs/TIMING.md §7a): a value read in cycle c enters register
// 0 with its operands (valid_i), and its result leaves on y_o in cycle c + P, the cycle the unit
// writes it. In between, six steps (the cuts of docs/SFU.md §5.4: after the requantization, after
// each multiply of exp and Phi, after 8 of the sigmoid's 15 division steps):
//   1  requantization v = sat16(round_shift(a MULT, SHIFT)); softmax's argument x of d = max - q;
//      layer norm's d = n q - S1; SFU_EW's a + b, a - b, sat32(a b)
//   2  exp front (x; the sigmoid's -|v|), Phi front, h-sigmoid and h-swish, layer norm's z
//   3  exp back (e = exp(x), the sigmoid's E and its division's operands), Phi, z gamma
//   4  GELU, softmax's min(127, round(e / sum)), the sigmoid's quotient bits 14..7, layer norm's
//      round, beta and sat8
//   5  the sigmoid's quotient bits 6..0
//   6  sigmoid, SiLU; FN and the instruction class pick y
// Step k runs in segment sfu_lane_seg(k, P) (sa_sfu_fn.svh): one step per cycle for P >= 6 (the
// registers past step 6 only delay y), steps shared out evenly for P < 6 (P = 1: all six between
// register 0 and the write). Each register loads only when its stage holds a value (valid_i
// delayed), and the steps run inside those enables: an idle lane costs the simulation one test
// per stage and cycle, and synthesis sees registers with enables.
// The unit's row state is read live where the step that needs it runs: max_i and s1_i in step 1
// (segment 1, where the unit accumulates them: a value of the next pass sees the whole previous
// pass). The unit's reductions take a1_o (the element, in segment 1) and e_o (exp(x), after step
// 3: register sfu_lane_seg(3, P), or the last segment when that is P).
// FN and EWOP come one-hot (the unit decodes them with sa_isa_pkg), so that the lane reads without
// the package: yosys 0.23 synthesizes it as it is (rtl/synth/timing.py --only sfu_lane).
module sa_sfu_lane #(
  parameter int unsigned Latency = 6,
  localparam int unsigned K_MAP = 0,
  localparam int unsigned K_EW = 1,
  localparam int unsigned K_SOFTMAX = 2,
  localparam int unsigned K_LAYERNORM = 3
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               valid_i,     // a value enters the lane this cycle
  input  logic [1:0]         kind_i,
  input  logic [6:0]         fn_i,        // SFU_MAP's FN, one-hot: identity exp gelu sigmoid silu hsigmoid hswish
  input  logic [2:0]         ewop_i,      // SFU_EW's EWOP, one-hot: add sub mul
  input  logic signed [31:0] a_i,         // the element
  input  logic signed [31:0] b_i,         // SFU_EW's second operand
  input  logic signed [31:0] mult_i,      // CFG_SFU
  input  logic [5:0]         shift_i,
  input  logic [15:0]        sm_mult_i,   // softmax
  input  logic [4:0]         sm_shift_i,
  input  logic [16:0]        rc_mant_i,   // softmax: the reciprocal of the row's sum
  input  logic [5:0]         rc_shift_i,  // (its shift less SM_J)
  input  logic [15:0]        n_i,         // layer norm: LEN
  input  logic               vzero_i,     // its n^2 variance is 0
  input  logic [16:0]        rs_mant_i,   // its inverse square root
  input  logic [5:0]         rs_shift_i,
  input  logic signed [31:0] p0_i,        // beta, gamma's multiplier and shift (PARAM)
  input  logic signed [31:0] p1_i,
  input  logic [5:0]         p2_i,
  input  logic signed [7:0]  max_i,       // softmax: the row's maximum (live, step 1)
  input  logic signed [24:0] s1_i,        // layer norm: the row's sum (live, step 1)
  output logic signed [31:0] a1_o,        // the element in segment 1
  output logic [15:0]        e_o,         // exp(x) after step 3
  output logic [31:0]        y_o          // the result, P cycles after valid_i
);
  `include "sa_sfu_fn.svh"

  // A value and what the steps so far made of it, one flat vector (yosys 0.23 reads no struct in a
  // function): field F at bits [F_F +: width], in this order from bit 0.
  localparam int unsigned F_KIND     = 0;   // operands, registered with the value
  localparam int unsigned F_FN       = F_KIND + 2;
  localparam int unsigned F_EWOP     = F_FN + 7;
  localparam int unsigned F_A        = F_EWOP + 3;
  localparam int unsigned F_B        = F_A + 32;
  localparam int unsigned F_MULT     = F_B + 32;
  localparam int unsigned F_SHIFT    = F_MULT + 32;
  localparam int unsigned F_SM_MULT  = F_SHIFT + 6;
  localparam int unsigned F_SM_SHIFT = F_SM_MULT + 16;
  localparam int unsigned F_RC_MANT  = F_SM_SHIFT + 5;
  localparam int unsigned F_RC_SHIFT = F_RC_MANT + 17;
  localparam int unsigned F_N        = F_RC_SHIFT + 6;
  localparam int unsigned F_VZERO    = F_N + 16;
  localparam int unsigned F_RS_MANT  = F_VZERO + 1;
  localparam int unsigned F_RS_SHIFT = F_RS_MANT + 17;
  localparam int unsigned F_P0       = F_RS_SHIFT + 6;
  localparam int unsigned F_P1       = F_P0 + 32;
  localparam int unsigned F_P2       = F_P1 + 32;
  localparam int unsigned F_V        = F_P2 + 6;   // step 1: SFU_MAP's Q4.11 input
  localparam int unsigned F_X        = F_V + 16;   // step 1: the exp input (softmax's argument, or v)
  localparam int unsigned F_DL       = F_X + 16;   // step 1: layer norm's n q - S1
  localparam int unsigned F_EW       = F_DL + 25;   // step 1: SFU_EW's result
  localparam int unsigned F_EA       = F_EW + 32;   // step 2: exp front of x (sfu_exp_a)
  localparam int unsigned F_SA       = F_EA + 41;   // step 2: exp front of -|v|, the sigmoid's
  localparam int unsigned F_GA       = F_SA + 41;   // step 2: Phi front of v (sfu_gelu_a)
  localparam int unsigned F_HS       = F_GA + 50;   // step 2: {h-sigmoid, h-swish}
  localparam int unsigned F_Z        = F_HS + 32;   // step 2: layer norm's element, Q4.11
  localparam int unsigned F_E        = F_Z + 16;   // step 3: exp(x)
  localparam int unsigned F_PHI      = F_E + 16;   // step 3: Phi(|v|)
  localparam int unsigned F_SD       = F_PHI + 17;   // steps 3-5: the sigmoid's division (sfu_sdiv_*)
  localparam int unsigned F_ZP       = F_SD + 67;   // step 3: z gamma
  localparam int unsigned F_GELU     = F_ZP + 64;   // step 4
  localparam int unsigned F_NORM     = F_GELU + 16;   // step 4: softmax's output
  localparam int unsigned F_LN       = F_NORM + 7;   // step 4: layer norm's output
  localparam int unsigned F_Y        = F_LN + 32;   // step 6: the result
  localparam int unsigned LW         = F_Y + 32;   // 788 bits

  function automatic logic [LW-1:0] step1(input logic [LW-1:0] s, input logic signed [7:0] mx,
                                          input logic signed [24:0] s1);
    logic [LW-1:0]      t;
    logic signed [31:0] a, b, mult, ew;
    logic [5:0]         shift;
    logic [2:0]         ewop;
    logic signed [7:0]  q;
    logic signed [63:0] p, r, prod;
    logic               half;
    logic [7:0]         d;       // max - q, 0..255 after the maximum pass
    logic signed [15:0] v, arg;
    t     = s;
    a     = $signed(t[F_A +: 32]);
    b     = $signed(t[F_B +: 32]);
    mult  = $signed(t[F_MULT +: 32]);
    shift = t[F_SHIFT +: 6];
    ewop  = t[F_EWOP +: 3];
    q     = (a > 32'sd127) ? 8'sd127 : (a < -32'sd128) ? -8'sd128 : a[7:0];
    // sat16(round_shift(a MULT, SHIFT)) (isa/numerics.h; a sat32 in between changes nothing)
    p     = 64'(a) * 64'(mult);
    half  = (shift == 6'd0) ? 1'b0 : p[shift - 6'd1];
    r     = (p >>> shift) + $signed({63'd0, half});
    v     = (r > 64'sd32767) ? 16'sh7fff : (r < -64'sd32768) ? -16'sh8000 : r[15:0];
    d     = 8'(mx - q);
    arg   = sfu_smarg(d, t[F_SM_MULT +: 16], t[F_SM_SHIFT +: 5]);
    prod  = 64'(a) * 64'(b);
    ew    = '0;
    if (ewop[0]) ew = ew | (a + b);
    if (ewop[1]) ew = ew | (a - b);
    if (ewop[2]) ew = ew | ((prod > 64'sh7fff_ffff) ? 32'sh7fff_ffff : (prod < -64'sh8000_0000) ? -32'sh8000_0000 : prod[31:0]);
    t[F_V +: 16]  = v;
    t[F_X +: 16]  = (t[F_KIND +: 2] == 2'(K_SOFTMAX)) ? arg : v;
    t[F_DL +: 25] = $signed({9'd0, t[F_N +: 16]}) * 25'(q) - s1;
    t[F_EW +: 32] = ew;
    step1 = t;
  endfunction

  function automatic logic [LW-1:0] step2(input logic [LW-1:0] s);
    logic [LW-1:0]      t;
    logic signed [15:0] v;
    t = s;
    v = $signed(t[F_V +: 16]);
    t[F_EA +: 41] = sfu_exp_a($signed(t[F_X +: 16]));
    t[F_SA +: 41] = sfu_exp_a($signed(-sfu_abs16(v)));
    t[F_GA +: 50] = sfu_gelu_a(v);
    t[F_HS +: 32] = sfu_hswish(v);
    t[F_Z +: 16]  = t[F_VZERO] ? 16'sd0 : sfu_lnelem(t[F_DL +: 25], t[F_RS_MANT +: 17], t[F_RS_SHIFT +: 6]);
    step2 = t;
  endfunction

  function automatic logic [LW-1:0] step3(input logic [LW-1:0] s);
    logic [LW-1:0] t;
    t = s;
    t[F_E +: 16]   = sfu_exp_b(t[F_EA +: 41]);
    t[F_PHI +: 17] = sfu_gelu_phi(t[F_GA +: 50]);
    t[F_SD +: 67]  = sfu_sigmoid_div(sfu_exp_b(t[F_SA +: 41]));
    t[F_ZP +: 64]  = 64'($signed(t[F_Z +: 16])) * 64'($signed(t[F_P1 +: 32]));
    step3 = t;
  endfunction

  function automatic logic [LW-1:0] step4(input logic [LW-1:0] s);
    logic [LW-1:0]      t;
    logic [5:0]         p2;
    logic signed [63:0] zp, zb;
    logic               half;
    t  = s;
    p2 = t[F_P2 +: 6];
    zp = $signed(t[F_ZP +: 64]);
    t[F_GELU +: 16] = sfu_gelu_y(t[F_GA + 49], t[F_GA + 33 +: 16], t[F_PHI +: 17]);   // neg, |v|
    t[F_NORM +: 7]  = sfu_smnorm(t[F_E +: 16], t[F_RC_MANT +: 17], t[F_RC_SHIFT +: 6]);
    t[F_SD +: 67]   = sfu_sdiv_hi(t[F_SD +: 67]);
    half = (p2 == 6'd0) ? 1'b0 : zp[p2 - 6'd1];
    zb   = (zp >>> p2) + $signed({63'd0, half}) + 64'($signed(t[F_P0 +: 32]));   // all signed: an arithmetic shift
    t[F_LN +: 32]   = (zb > 64'sd127) ? 32'd127 : (zb < -64'sd128) ? -32'd128 : 32'($signed(zb[7:0]));
    step4 = t;
  endfunction

  function automatic logic [LW-1:0] step5(input logic [LW-1:0] s);
    logic [LW-1:0] t;
    t = s;
    t[F_SD +: 67] = sfu_sdiv_lo(t[F_SD +: 67]);
    step5 = t;
  endfunction

  function automatic logic [LW-1:0] step6(input logic [LW-1:0] s);
    logic [LW-1:0]      t;
    logic [6:0]         fn;
    logic [15:0]        v;
    logic [31:0]        sg;      // {sigmoid, SiLU}
    logic [31:0]        map_y;
    t     = s;
    fn    = t[F_FN +: 7];
    v     = t[F_V +: 16];
    sg    = sfu_sigmoid_out(v[15], sfu_abs16(v), t[F_SD +: 15]);   // the quotient
    map_y = '0;
    if (fn[0]) map_y = map_y | 32'($signed(v));
    if (fn[1]) map_y = map_y | {16'd0, t[F_E +: 16]};
    if (fn[2]) map_y = map_y | 32'($signed(t[F_GELU +: 16]));
    if (fn[3]) map_y = map_y | {16'd0, sg[31:16]};
    if (fn[4]) map_y = map_y | 32'($signed(sg[15:0]));
    if (fn[5]) map_y = map_y | {16'd0, t[F_HS + 16 +: 16]};
    if (fn[6]) map_y = map_y | 32'($signed(t[F_HS +: 16]));
    unique case (t[F_KIND +: 2])
      2'(K_MAP):       t[F_Y +: 32] = map_y;
      2'(K_EW):        t[F_Y +: 32] = t[F_EW +: 32];
      2'(K_SOFTMAX):   t[F_Y +: 32] = {25'd0, t[F_NORM +: 7]};
      2'(K_LAYERNORM): t[F_Y +: 32] = t[F_LN +: 32];
      default:         t[F_Y +: 32] = '0;
    endcase
    step6 = t;
  endfunction

  // The steps of segment s, in order.
  function automatic logic [LW-1:0] segment(input int unsigned s, input logic [LW-1:0] v,
                                            input logic signed [7:0] mx, input logic signed [24:0] s1);
    logic [LW-1:0] t;
    t = v;
    if (sfu_lane_seg(1, Latency) == s) t = step1(t, mx, s1);
    if (sfu_lane_seg(2, Latency) == s) t = step2(t);
    if (sfu_lane_seg(3, Latency) == s) t = step3(t);
    if (sfu_lane_seg(4, Latency) == s) t = step4(t);
    if (sfu_lane_seg(5, Latency) == s) t = step5(t);
    if (sfu_lane_seg(6, Latency) == s) t = step6(t);
    segment = t;
  endfunction

  // ---- registers 0 .. P-1 ----------------------------------------------------------------------
  logic [LW-1:0]      r_q [Latency];
  logic [Latency-1:0] v_q;

  // The operands as register 0 takes them (called inside its enable: assembling the wide vector
  // every cycle would cost an idle lane more than the steps save).
  function automatic logic [LW-1:0] operands();
    logic [LW-1:0] t;
    t                  = '0;
    t[F_KIND +: 2]     = kind_i;
    t[F_FN +: 7]       = fn_i;
    t[F_EWOP +: 3]     = ewop_i;
    t[F_A +: 32]       = a_i;
    t[F_B +: 32]       = b_i;
    t[F_MULT +: 32]    = mult_i;
    t[F_SHIFT +: 6]    = shift_i;
    t[F_SM_MULT +: 16] = sm_mult_i;
    t[F_SM_SHIFT +: 5] = sm_shift_i;
    t[F_RC_MANT +: 17] = rc_mant_i;
    t[F_RC_SHIFT +: 6] = rc_shift_i;
    t[F_N +: 16]       = n_i;
    t[F_VZERO]         = vzero_i;
    t[F_RS_MANT +: 17] = rs_mant_i;
    t[F_RS_SHIFT +: 6] = rs_shift_i;
    t[F_P0 +: 32]      = p0_i;
    t[F_P1 +: 32]      = p1_i;
    t[F_P2 +: 6]       = p2_i;
    operands = t;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q <= '0;
    end else begin
      v_q <= Latency'({v_q, valid_i});   // the top bit leaves
    end
  end

  always_ff @(posedge clk_i) begin
    if (valid_i) r_q[0] <= operands();
  end

  for (genvar s = 1; s < Latency; s++) begin : g_stage
    always_ff @(posedge clk_i) begin
      if (v_q[s-1]) r_q[s] <= segment(s, r_q[s-1], max_i, s1_i);
    end
  end

  // Segment P: from the last register to the write (y, and e when step 3 is in it).
  // Waiver: t is the whole value, of which only e and y leave (a module-level copy for an unused_*
  // signal would have to be cleared every cycle, the cost this structure avoids).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [47:0] last_segment(input logic [LW-1:0] v, input logic signed [7:0] mx,
                                               input logic signed [24:0] s1);
    logic [LW-1:0] t;
    t            = segment(Latency, v, mx, s1);
    last_segment = {t[F_E +: 16], t[F_Y +: 32]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  logic [15:0] e_last;
  always_comb begin
    {e_last, y_o} = '0;
    if (v_q[Latency-1]) {e_last, y_o} = last_segment(r_q[Latency-1], max_i, s1_i);
  end

  localparam int unsigned ESeg = sfu_lane_seg(3, Latency);
  if (ESeg < Latency) begin : g_e_reg
    assign e_o = r_q[ESeg][F_E +: 16];
    logic unused_e;
    assign unused_e = ^e_last;
  end else begin : g_e_last
    assign e_o = e_last;
  end
  assign a1_o = $signed(r_q[0][F_A +: 32]);
endmodule
