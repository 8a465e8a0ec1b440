// sa_sfu_fn.svh: the special functions of docs/SFU.md §2 as SystemVerilog functions, bit-exact to
// isa/sfu_math.c. One source for two users: the combinational blocks (sa_sfu_exp, _gelu, _sigmoid,
// _hswish, _recip, _rsqrt, _isqrt, _smarg, _smnorm, _lnelem, behind sa_sfu_math, which
// tests/rtl/sfu_math.sh checks exhaustively) are one-line wrappers around them, and the unit's
// pipelined lane (sa_sfu_lane) calls them inside its registers' enables, so that Verilator
// evaluates them only for a chunk in flight (an idle unit costs one test per stage and cycle).
// The functions that the lane spreads over its stages come in pieces: exp and GELU in a front
// (the segment lookup and the first multiply) and a back, the sigmoid's 15-step division in a
// top half (quotient bits 14..7) and a bottom half (6..0). Included inside a module body; no
// state, no package (yosys 0.23 reads it as it is).
// Waiver: the functions' locals are as wide as the C reference's intermediates and keep bits the
// result does not use (the fraction below a kept part, a product's top bits); a module's unused_*
// signal cannot name a function's local, so UNUSEDSIGNAL is off in this file only.
/* verilator lint_off UNUSEDSIGNAL */

// ---- exp (§2.2): Q4.11 in (x > 0 taken as 0), Q0.15 out ---------------------------------------
// The front's result, 41 bits: {z[4:0] (integer part of |x| log2 e, 0..23), k[1:0] (segment of
// the fraction), u[13:0] (offset in the segment, signed), inner[19:0] (c1 + floor(c2 u / 2^13))}.
// (Flat vectors rather than structs: yosys 0.23 reads no struct in a function, and no `return`.)
function automatic logic [40:0] sfu_exp_a(input logic signed [15:0] x);
  logic [15:0]        a;       // -x, 0..32768
  logic [31:0]        t;       // a log2 e in Q.27
  logic [4:0]         z;
  logic [1:0]         k;
  logic signed [13:0] u;
  logic signed [18:0] c1;
  logic signed [15:0] c2;
  logic signed [29:0] c2u;
  logic signed [19:0] inner;
  a = x[15] ? 16'(-(17'(x))) : 16'd0;
  t = 32'(a) * 32'd94548;                         // round(2^16 log2 e)
  z = t[31:27];
  k = t[26:25];
  u = $signed({1'b0, t[24:12]});
  unique case (k)
    2'd0:    begin c1 = -19'sd181306; c2 = 16'sd14514; end
    2'd1:    begin c1 = -19'sd152394; c2 = 16'sd12150; end
    2'd2:    begin c1 = -19'sd128148; c2 = 16'sd10216; end
    default: begin c1 = -19'sd107759; c2 = 16'sd8591;  end
  endcase
  c2u       = 30'(c2) * 30'(u);
  inner     = 20'(c1) + 20'(c2u >>> 13);
  sfu_exp_a = {z, k, u, inner};
endfunction

function automatic logic [15:0] sfu_exp_b(input logic [40:0] s);
  logic [4:0]         z;
  logic [1:0]         k;
  logic signed [13:0] u;
  logic signed [19:0] inner;
  logic signed [17:0] c0;
  logic signed [33:0] iu;      // |inner u| < 2^31
  logic signed [18:0] poly;    // 2^-f in Q.16, 0..65536
  logic [24:0]        rounded; // p + 2^z < 2^25
  {z, k, u, inner} = s;
  unique case (k)
    2'd0:    c0 = 18'sd65536;
    2'd1:    c0 = 18'sd55108;
    2'd2:    c0 = 18'sd46340;
    default: c0 = 18'sd38967;
  endcase
  iu        = 34'(inner) * 34'(u);
  poly      = 19'(c0) + 19'(iu >>> 17);
  rounded   = (25'(poly[16:0]) + (25'd1 << z)) >> (z + 5'd1);
  sfu_exp_b = rounded[15:0];
endfunction

function automatic logic [15:0] sfu_exp(input logic signed [15:0] x);
  sfu_exp = sfu_exp_b(sfu_exp_a(x));
endfunction

// ---- Phi and GELU (§2.3): Q4.11 in and out ------------------------------------------------------
// The front's result, 50 bits: {neg (x < 0), a[15:0] (|x|), k[3:0] (segment, |x| < 4), u[9:0]
// (offset in the segment, signed), inner[18:0] (c1 + floor(c2 u / 2^9))}.
function automatic logic [49:0] sfu_gelu_a(input logic signed [15:0] x);
  logic [15:0]        a;
  logic [3:0]         k;
  logic signed [9:0]  u;
  logic signed [17:0] c1;
  logic signed [13:0] c2;
  logic signed [23:0] c2u;
  logic signed [18:0] inner;
  a = x[15] ? 16'(-(17'(x))) : 16'(x);
  k = a[12:9];
  u = $signed({1'b0, a[8:0]});
  unique case (k)
    4'd0:    begin c1 = 18'sd105178; c2 = -14'sd1610; end
    4'd1:    begin c1 = 18'sd101862; c2 = -14'sd4546; end
    4'd2:    begin c1 = 18'sd92614;  c2 = -14'sd6691; end
    4'd3:    begin c1 = 18'sd79057;  c2 = -14'sd7772; end
    4'd4:    begin c1 = 18'sd63360;  c2 = -14'sd7789; end
    4'd5:    begin c1 = 18'sd47678;  c2 = -14'sd6973; end
    4'd6:    begin c1 = 18'sd33688;  c2 = -14'sd5671; end
    4'd7:    begin c1 = 18'sd22351;  c2 = -14'sd4231; end
    4'd8:    begin c1 = 18'sd13925;  c2 = -14'sd2913; end
    4'd9:    begin c1 = 18'sd8147;   c2 = -14'sd1859; end
    4'd10:   begin c1 = 18'sd4476;   c2 = -14'sd1102; end
    4'd11:   begin c1 = 18'sd2309;   c2 = -14'sd608;  end
    4'd12:   begin c1 = 18'sd1119;   c2 = -14'sd313;  end
    4'd13:   begin c1 = 18'sd509;    c2 = -14'sd150;  end
    4'd14:   begin c1 = 18'sd218;    c2 = -14'sd68;   end
    default: begin c1 = 18'sd87;     c2 = -14'sd28;   end
  endcase
  c2u        = 24'(c2) * 24'(u);
  inner      = 19'(c1) + 19'(c2u >>> 9);
  sfu_gelu_a = {x[15], a, k, u, inner};
endfunction

// Phi(|x|) in Q0.16, clipped to 65536 (for |x| >= 4 too).
function automatic logic [16:0] sfu_gelu_phi(input logic [49:0] s);
  logic               neg;
  logic [15:0]        a;
  logic [3:0]         k;
  logic signed [9:0]  u;
  logic signed [18:0] inner;
  logic signed [17:0] c0;
  logic signed [28:0] iu;
  logic signed [18:0] poly;
  {neg, a, k, u, inner} = s;
  unique case (k)
    4'd0:    c0 = 18'sd32766;
    4'd1:    c0 = 18'sd39236;
    4'd2:    c0 = 18'sd45315;
    4'd3:    c0 = 18'sd50684;
    4'd4:    c0 = 18'sd55139;
    4'd5:    c0 = 18'sd58613;
    4'd6:    c0 = 18'sd61159;
    4'd7:    c0 = 18'sd62912;
    4'd8:    c0 = 18'sd64046;
    4'd9:    c0 = 18'sd64736;
    4'd10:   c0 = 18'sd65130;
    4'd11:   c0 = 18'sd65341;
    4'd12:   c0 = 18'sd65448;
    4'd13:   c0 = 18'sd65499;
    4'd14:   c0 = 18'sd65521;
    default: c0 = 18'sd65531;
  endcase
  iu           = 29'(inner) * 29'(u);
  poly         = 19'(c0) + 19'(iu >>> 13);
  sfu_gelu_phi = (a >= 16'd8192 || poly > 19'sd65536) ? 17'd65536 : poly[16:0];
endfunction

// GELU from |x|, its sign and Phi(|x|): round(|x| Phi / 2^16), or the negated round(|x| (1 - Phi) / 2^16).
function automatic logic signed [15:0] sfu_gelu_y(input logic neg, input logic [15:0] a, input logic [16:0] phi);
  logic [16:0] f;   // Phi, or 1 - Phi = Phi(-|x|)
  logic [32:0] p;   // |x| f + 2^15 < 2^32
  f = neg ? 17'd65536 - phi : phi;
  p = (33'(a) * 33'(f) + 33'h8000) >> 16;
  sfu_gelu_y = neg ? -(16'(p)) : 16'(p);
endfunction

// ---- the restoring divisions (§2.1) --------------------------------------------------------------
// The sigmoid's: floor(num / den) with num < 2^32, den = 2 (2^15 + E) in 18 bits, 15 quotient bits,
// in two halves. The partial remainder starts as num / 2^15 (below den) and stays below 2 den.
// Its state, 67 bits: {rem[18:0], num[14:0] (the numerator bits still to shift in), den[17:0],
// quot[14:0]}; the quotient is bits 14..0.
function automatic logic [66:0] sfu_sdiv_init(input logic [31:0] num, input logic [17:0] den);
  sfu_sdiv_init = {19'(num[31:15]), num[14:0], den, 15'd0};   // rem = num / 2^15, below den
endfunction

function automatic logic [66:0] sfu_sdiv_step(input logic [66:0] s, input int unsigned i);
  logic [18:0] rem;
  logic [14:0] num, quot;
  logic [17:0] den;
  logic [19:0] diff;
  {rem, num, den, quot} = s;
  rem  = {rem[17:0], num[i]};
  diff = {1'b0, rem} - {2'b00, den};
  if (!diff[19]) begin
    rem     = diff[18:0];
    quot[i] = 1'b1;
  end
  sfu_sdiv_step = {rem, num, den, quot};
endfunction

function automatic logic [66:0] sfu_sdiv_hi(input logic [66:0] s);
  logic [66:0] t;
  t = s;
  for (int i = 14; i >= 7; i--) t = sfu_sdiv_step(t, i);
  sfu_sdiv_hi = t;
endfunction

function automatic logic [66:0] sfu_sdiv_lo(input logic [66:0] s);
  logic [66:0] t;
  t = s;
  for (int i = 6; i >= 0; i--) t = sfu_sdiv_step(t, i);
  sfu_sdiv_lo = t;
endfunction

// The reciprocal's and the inverse square root's: floor(2^31 / den), den in [2^15, 2^16), 17 bits.
function automatic logic [16:0] sfu_div31(input logic [15:0] den);
  logic [16:0] rem;
  logic [17:0] diff;
  logic [16:0] quot;
  rem  = 17'd16384;   // 2^31 / 2^17
  quot = '0;
  for (int i = 16; i >= 0; i--) begin
    rem  = {rem[15:0], 1'b0};   // the numerator's low 17 bits are 0
    diff = {1'b0, rem} - {2'b00, den};
    if (!diff[17]) begin
      rem     = diff[16:0];
      quot[i] = 1'b1;
    end
  end
  sfu_div31 = quot;
endfunction

// ---- sigmoid and SiLU (§2.4) ---------------------------------------------------------------------
// The division's operands from E = exp(-|x|): sigmoid(-|x|) = round(E 2^15 / (2^15 + E)).
function automatic logic [66:0] sfu_sigmoid_div(input logic [15:0] e);
  logic [16:0] d;
  d               = 17'd32768 + 17'(e);
  sfu_sigmoid_div = sfu_sdiv_init({e, 16'd0} + 32'(d), {d, 1'b0});
endfunction

// {sigmoid(x) Q0.15, SiLU(x) Q4.11} from x's sign, |x| and sn = sigmoid(-|x|).
function automatic logic [31:0] sfu_sigmoid_out(input logic neg, input logic [15:0] a, input logic [14:0] sn);
  logic [15:0] sp, s;
  logic [31:0] silu;   // |x| s + 2^14 <= 2^30 + 2^14, then / 2^15
  sp   = 16'd32768 - 16'(sn);
  s    = neg ? 16'(sn) : sp;
  silu = (32'(a) * 32'(s) + 32'h4000) >> 15;
  sfu_sigmoid_out = {s, neg ? -(silu[15:0]) : silu[15:0]};
endfunction

function automatic logic [15:0] sfu_abs16(input logic signed [15:0] x);
  sfu_abs16 = x[15] ? 16'(-(17'(x))) : 16'(x);
endfunction

function automatic logic [31:0] sfu_sigmoid(input logic signed [15:0] x);
  logic [66:0] s;
  s           = sfu_sdiv_lo(sfu_sdiv_hi(sfu_sigmoid_div(sfu_exp($signed(-sfu_abs16(x))))));
  sfu_sigmoid = sfu_sigmoid_out(x[15], sfu_abs16(x), s[14:0]);
endfunction

// ---- h-sigmoid and h-swish (§2.5): {h-sigmoid Q0.15, h-swish Q4.11} ------------------------------
// The divisions by 6 and 3 are multiplications by 349526 / 2^21 and 43691 / 2^17, exact here.
function automatic logic [31:0] sfu_hswish(input logic signed [15:0] x);
  logic [15:0]        a;
  logic signed [16:0] cs;   // x + 3
  logic [13:0]        c;    // clamp(x + 3, 0, 6)
  logic [17:0]        nh;
  logic [29:0]        ns;
  logic [38:0]        qh;
  logic [33:0]        qs;
  a  = sfu_abs16(x);
  cs = 17'(x) + 17'sd6144;
  c  = (cs < 0) ? 14'd0 : (cs > 17'sd12288) ? 14'd12288 : cs[13:0];
  nh = {c, 4'd0} + 18'd3;
  qh = 39'(nh) * 39'd349526 >> 21;               // floor(nh / 6)
  ns = 30'(a) * 30'(c) * 30'd2 + 30'd12288;
  qs = 34'(ns[29:13]) * 34'd43691 >> 17;         // floor(ns / 2^13 / 3)
  sfu_hswish = {qh[15:0], x[15] ? -(qs[15:0]) : qs[15:0]};
endfunction

// ---- reciprocal and inverse square root (§2.1): {shift[5:0], mant[16:0]} -----------------------
// floor(sqrt(m)), digit by digit, 16 steps.
function automatic logic [15:0] sfu_isqrt(input logic [31:0] m);
  logic [18:0] rem;
  logic [19:0] diff;
  logic [15:0] root;
  rem  = '0;
  root = '0;
  for (int i = 15; i >= 0; i--) begin
    rem  = {rem[16:0], m[2*i+1 -: 2]};
    diff = {1'b0, rem} - {2'b00, root, 2'b01};
    root = {root[14:0], 1'b0};
    if (!diff[19]) begin
      rem     = diff[18:0];
      root[0] = 1'b1;
    end
  end
  sfu_isqrt = root;
endfunction

// 1 / v ~= mant / 2^shift: v normalised to m in [2^15, 2^16), mant = floor(2^31 / m),
// shift = bitlen(v) + 15; v == 0 gives mant 0, shift 16.
function automatic logic [22:0] sfu_recip(input logic [31:0] v);
  logic [5:0]  len;
  logic [31:0] m;
  len = '0;
  for (int i = 0; i < 32; i++) if (v[i]) len = 6'(i + 1);
  m = (len >= 6'd16) ? v >> (len - 6'd16) : v << (6'd16 - len);
  sfu_recip = (len == 6'd0) ? {6'd16, 17'd0} : {len + 6'd15, sfu_div31(m[15:0])};
endfunction

// 1 / sqrt(v), 1 <= v < 2^48: v shifted by an even 2j to m in [2^30, 2^32), s = floor(sqrt(m)),
// mant = floor(2^31 / s), shift 31 - j; v == 0 gives mant 0, shift 16.
function automatic logic [22:0] sfu_rsqrt(input logic [47:0] v);
  logic [5:0]  len, jl, jr;
  logic [47:0] sh;
  len = '0;
  for (int i = 0; i < 48; i++) if (v[i]) len = 6'(i + 1);
  jl = (len <= 6'd32) ? (6'd32 - len) >> 1 : 6'd0;
  jr = (len > 6'd32) ? (len - 6'd31) >> 1 : 6'd0;
  sh = (len <= 6'd32) ? v << (2 * jl) : v >> (2 * jr);
  sfu_rsqrt = (len == 6'd0) ? {6'd16, 17'd0} :
              {(len <= 6'd32) ? 6'd31 - jl : 6'd31 + jr, sfu_div31(sfu_isqrt(sh[31:0]))};
endfunction

// ---- the softmax and layer-norm steps (§2.3, §2.4) ---------------------------------------------
// The exp input -min(32768, round(d mult / 2^shift)) from d = max - q (0..255).
function automatic logic signed [15:0] sfu_smarg(input logic [7:0] d, input logic [15:0] mult, input logic [4:0] shift);
  logic [23:0] p;
  logic [24:0] r;
  logic [15:0] a;
  p = 24'(d) * 24'(mult);
  r = (shift == 5'd0) ? 25'(p) : (25'(p) + (25'd1 << (shift - 5'd1))) >> shift;
  a = (r > 25'd32768) ? 16'h8000 : r[15:0];
  sfu_smarg = -$signed(a);
endfunction

// min(127, round(e mant / 2^(shift - 7))) for an exp value e (Q0.15) and the row's reciprocal.
function automatic logic [6:0] sfu_smnorm(input logic [15:0] e, input logic [16:0] mant, input logic [5:0] shift);
  logic [32:0] p;
  logic [5:0]  sh;
  logic [33:0] q;
  p  = 33'(e) * 33'(mant);
  sh = shift - 6'd7;
  q  = (sh > 6'd33) ? 34'd0 : (34'(p) + (34'd1 << (sh - 6'd1))) >> sh;
  sfu_smnorm = (q > 34'd127) ? 7'd127 : q[6:0];
endfunction

// sign(d) min(32767, round(|d| mant / 2^(shift - 11))) for d = n x - sum (|d| < 2^24), Q4.11.
function automatic logic signed [15:0] sfu_lnelem(input logic [24:0] d, input logic [16:0] mant, input logic [5:0] shift);
  logic [23:0] a;
  logic [40:0] p;
  logic [41:0] q;
  logic [5:0]  sh;
  logic [15:0] m;
  a  = d[24] ? 24'(-d) : d[23:0];
  p  = 41'(a) * 41'(mant);
  sh = shift - 6'd11;
  q  = (42'(p) + (42'd1 << (sh - 6'd1))) >> sh;
  m  = (q > 42'd32767) ? 16'd32767 : q[15:0];
  sfu_lnelem = d[24] ? -$signed(m) : $signed(m);
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// ---- the lane's pipeline (sa_sfu_lane, sa_sfu_unit) ---------------------------------------------
// The lane's datapath is SfuLaneSteps steps; with P = sfu.latency registers between the read and
// the write, step k runs in segment sfu_lane_seg(k, P) (segment s: between register s-1 and s;
// segment P: from the last register to the accumulator write). P >= 6 gives one step a segment
// (the extra registers only delay the result); a smaller P shares the steps out evenly,
// ceil(k P / 6). Step 1 is always in segment 1.
localparam int unsigned SfuLaneSteps = 6;

function automatic int unsigned sfu_lane_seg(input int unsigned k, input int unsigned p);
  sfu_lane_seg = (p >= SfuLaneSteps) ? k : (k * p + SfuLaneSteps - 1) / SfuLaneSteps;
endfunction
