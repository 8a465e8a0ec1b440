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

  // The steps, each a function of the fields it reads that returns the fields it writes (one
  // block of adjacent fields), so that no function takes or returns the whole value: Verilator
  // declares every local of a function it inlines, and clears it, at the top of the evaluation
  // function that calls it, on every cycle whether the call runs or not, and the 788-bit copies
  // that whole-value steps made cost more than the rest of the model's cycle (docs/RTL.md,
  // "Speed"). SFU_LANE_SEGMENT below applies them to one value in place.

  // Step 1: {EW, DL, X, V}.
  function automatic logic [88:0] step1(input logic [1:0] kind, input logic [2:0] ewop,
                                        input logic signed [31:0] a, input logic signed [31:0] b,
                                        input logic signed [31:0] mult, input logic [5:0] shift,
                                        input logic [15:0] sm_mult, input logic [4:0] sm_shift,
                                        input logic [15:0] n, input logic signed [7:0] mx,
                                        input logic signed [24:0] s1);
    logic signed [31:0] ew;
    logic signed [7:0]  q;
    logic signed [63:0] p, r, prod;
    logic               half;
    logic [7:0]         d;       // max - q, 0..255 after the maximum pass
    logic signed [15:0] v, arg, x;
    logic [24:0]        dl;
    q     = (a > 32'sd127) ? 8'sd127 : (a < -32'sd128) ? -8'sd128 : a[7:0];
    // sat16(round_shift(a MULT, SHIFT)) (isa/numerics.h; a sat32 in between changes nothing)
    p     = 64'(a) * 64'(mult);
    half  = (shift == 6'd0) ? 1'b0 : p[shift - 6'd1];
    r     = (p >>> shift) + $signed({63'd0, half});
    v     = (r > 64'sd32767) ? 16'sh7fff : (r < -64'sd32768) ? -16'sh8000 : r[15:0];
    d     = 8'(mx - q);
    arg   = sfu_smarg(d, sm_mult, sm_shift);
    prod  = 64'(a) * 64'(b);
    ew    = '0;
    if (ewop[0]) ew = ew | (a + b);
    if (ewop[1]) ew = ew | (a - b);
    if (ewop[2]) ew = ew | ((prod > 64'sh7fff_ffff) ? 32'sh7fff_ffff : (prod < -64'sh8000_0000) ? -32'sh8000_0000 : prod[31:0]);
    x     = (kind == 2'(K_SOFTMAX)) ? arg : v;
    dl    = $signed({9'd0, n}) * 25'(q) - s1;
    step1 = {ew, dl, x, v};
  endfunction

  // Step 2: {Z, HS, GA, SA, EA}.
  function automatic logic [179:0] step2(input logic signed [15:0] v, input logic [15:0] x,
                                         input logic vzero, input logic [24:0] dl,
                                         input logic [16:0] rs_mant, input logic [5:0] rs_shift);
    logic [40:0] ea, sa;
    logic [49:0] ga;
    logic [31:0] hs;
    logic [15:0] z;
    ea    = sfu_exp_a($signed(x));
    sa    = sfu_exp_a($signed(-sfu_abs16(v)));
    ga    = sfu_gelu_a(v);
    hs    = sfu_hswish(v);
    z     = vzero ? 16'sd0 : sfu_lnelem(dl, rs_mant, rs_shift);
    step2 = {z, hs, ga, sa, ea};
  endfunction

  // Step 3: {ZP, SD, PHI, E}.
  function automatic logic [163:0] step3(input logic [40:0] ea, input logic [40:0] sa,
                                         input logic [49:0] ga, input logic [15:0] z,
                                         input logic [31:0] p1);
    logic [15:0] e;
    logic [16:0] phi;
    logic [66:0] sd;
    logic [63:0] zp;
    e     = sfu_exp_b(ea);
    phi   = sfu_gelu_phi(ga);
    sd    = sfu_sigmoid_div(sfu_exp_b(sa));
    zp    = 64'($signed(z)) * 64'($signed(p1));
    step3 = {zp, sd, phi, e};
  endfunction

  // Step 4 (besides the sigmoid's division bits 14..7, sfu_sdiv_hi): {LN, NORM, GELU}; neg and
  // va are the sign of v and |v| that the Phi front keeps.
  function automatic logic [54:0] step4(input logic neg, input logic [15:0] va, input logic [16:0] phi,
                                        input logic [15:0] e, input logic [16:0] rc_mant,
                                        input logic [5:0] rc_shift, input logic [63:0] zp_i,
                                        input logic [31:0] p0, input logic [5:0] p2);
    logic signed [63:0] zp, zb;
    logic               half;
    logic [15:0]        gelu;
    logic [6:0]         norm;
    logic [31:0]        ln;
    zp    = $signed(zp_i);
    gelu  = sfu_gelu_y(neg, va, phi);
    norm  = sfu_smnorm(e, rc_mant, rc_shift);
    half  = (p2 == 6'd0) ? 1'b0 : zp[p2 - 6'd1];
    zb    = (zp >>> p2) + $signed({63'd0, half}) + 64'($signed(p0));   // all signed: an arithmetic shift
    ln    = (zb > 64'sd127) ? 32'd127 : (zb < -64'sd128) ? -32'd128 : 32'($signed(zb[7:0]));
    step4 = {ln, norm, gelu};
  endfunction

  // Step 6: Y (step 5 is the sigmoid's division bits 6..0, sfu_sdiv_lo).
  function automatic logic [31:0] step6(input logic [1:0] kind, input logic [6:0] fn,
                                        input logic [15:0] v, input logic [14:0] sn,
                                        input logic [15:0] e, input logic [15:0] gelu,
                                        input logic [31:0] hs, input logic [31:0] ew,
                                        input logic [6:0] norm, input logic [31:0] ln);
    logic [31:0] sg;      // {sigmoid, SiLU}
    logic [31:0] map_y;
    sg    = sfu_sigmoid_out(v[15], sfu_abs16(v), sn);   // the quotient
    map_y = '0;
    if (fn[0]) map_y = map_y | 32'($signed(v));
    if (fn[1]) map_y = map_y | {16'd0, e};
    if (fn[2]) map_y = map_y | 32'($signed(gelu));
    if (fn[3]) map_y = map_y | {16'd0, sg[31:16]};
    if (fn[4]) map_y = map_y | 32'($signed(sg[15:0]));
    if (fn[5]) map_y = map_y | {16'd0, hs[16 +: 16]};
    if (fn[6]) map_y = map_y | 32'($signed(hs[15:0]));
    unique case (kind)
      2'(K_MAP):       step6 = map_y;
      2'(K_EW):        step6 = ew;
      2'(K_SOFTMAX):   step6 = {25'd0, norm};
      2'(K_LAYERNORM): step6 = ln;
      default:         step6 = '0;
    endcase
  endfunction

  // The steps of segment S on T (a variable of the process, not of a function), in order.
`define SFU_LANE_SEGMENT(S, T)                                                                     \
    if (sfu_lane_seg(1, Latency) == (S))                                                          \
      T[F_V +: 89] = step1(T[F_KIND +: 2], T[F_EWOP +: 3], T[F_A +: 32], T[F_B +: 32],             \
                           T[F_MULT +: 32], T[F_SHIFT +: 6], T[F_SM_MULT +: 16],                 \
                           T[F_SM_SHIFT +: 5], T[F_N +: 16], max_i, s1_i);                       \
    if (sfu_lane_seg(2, Latency) == (S))                                                          \
      T[F_EA +: 180] = step2(T[F_V +: 16], T[F_X +: 16], T[F_VZERO], T[F_DL +: 25],               \
                             T[F_RS_MANT +: 17], T[F_RS_SHIFT +: 6]);                            \
    if (sfu_lane_seg(3, Latency) == (S))                                                          \
      T[F_E +: 164] = step3(T[F_EA +: 41], T[F_SA +: 41], T[F_GA +: 50], T[F_Z +: 16], T[F_P1 +: 32]); \
    if (sfu_lane_seg(4, Latency) == (S)) begin                                                    \
      T[F_GELU +: 55] = step4(T[F_GA + 49], T[F_GA + 33 +: 16], T[F_PHI +: 17], T[F_E +: 16], T[F_RC_MANT +: 17],    \
                              T[F_RC_SHIFT +: 6], T[F_ZP +: 64], T[F_P0 +: 32], T[F_P2 +: 6]);   \
      T[F_SD +: 67]   = sfu_sdiv_hi(T[F_SD +: 67]);                                               \
    end                                                                                           \
    if (sfu_lane_seg(5, Latency) == (S)) T[F_SD +: 67] = sfu_sdiv_lo(T[F_SD +: 67]);              \
    if (sfu_lane_seg(6, Latency) == (S))                                                          \
      T[F_Y +: 32] = step6(T[F_KIND +: 2], T[F_FN +: 7], T[F_V +: 16], T[F_SD +: 15], T[F_E +: 16], \
                           T[F_GELU +: 16], T[F_HS +: 32], T[F_EW +: 32], T[F_NORM +: 7],        \
                           T[F_LN +: 32]);

  // ---- registers 0 .. P-1 ----------------------------------------------------------------------
  logic [LW-1:0]      r_q [Latency] /*verilator split_var*/;   // one variable per register
  logic [Latency-1:0] v_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q <= '0;
    end else begin
      v_q <= Latency'({v_q, valid_i});   // the top bit leaves
    end
  end

  // Register 0 takes the operands (fields KIND .. P2, in order from bit 0; the steps' fields 0).
  always_ff @(posedge clk_i) begin
    if (valid_i)
      r_q[0] <= LW'({p2_i, p1_i, p0_i, rs_shift_i, rs_mant_i, vzero_i, n_i, rc_shift_i, rc_mant_i,
                     sm_shift_i, sm_mult_i, shift_i, mult_i, b_i, a_i, ewop_i, fn_i, kind_i});
  end

  for (genvar s = 1; s < Latency; s++) begin : g_stage
    always_ff @(posedge clk_i) begin : b_seg
      logic [LW-1:0] t;   // a variable of the process: Verilator keeps it in the model, uncleared
      if (v_q[s-1]) begin
        t = r_q[s-1];
        `SFU_LANE_SEGMENT(s, t)
        r_q[s] <= t;
      end
    end
  end

  // Segment P: from the last register to the write (y, and e when step 3 is in it). last_t is
  // copied every cycle (one 788-bit copy: no latch, which yosys would refuse), the steps run only
  // for a value in flight.
  // Waiver: of last_t only the fields the segment's steps read, e and y leave.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [LW-1:0] last_t;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]   e_last;
  always_comb begin
    {e_last, y_o} = '0;
    last_t = r_q[Latency-1];
    if (v_q[Latency-1]) begin
      `SFU_LANE_SEGMENT(Latency, last_t)
      {e_last, y_o} = {last_t[F_E +: 16], last_t[F_Y +: 32]};
    end
  end
`undef SFU_LANE_SEGMENT

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
