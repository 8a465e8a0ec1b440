// sa_sfu_hswish.sv: h-sigmoid and h-swish of isa/sfu_math.c (docs/SFU.md §2.5), exactly rounded:
// c = clamp(x + 3, 0, 6) in Q.11; h-sigmoid = floor((16c + 3) / 6) (Q0.15), h-swish =
// sign(x) floor((2 |x| c + 12288) / 24576) (Q4.11). The divisions by the constants 6 and 3 are
// multiplications by 349526 / 2^21 and 43691 / 2^17, exact over these ranges (the bench checks
// every input against the C divisions). Combinational.
module sa_sfu_hswish (
  input  logic signed [15:0] x_i,
  output logic [15:0]        hsig_o,
  output logic signed [15:0] hswish_o
);
  logic [15:0]        a;        // |x|, 0..32768
  logic signed [16:0] cs;       // x + 3
  logic [13:0]        c;        // clamp(x + 3, 0, 6), 0..12288
  logic [17:0]        nh;       // 16 c + 3 < 2^18
  logic [29:0]        ns;       // 2 |x| c + 12288 < 2^30
  logic [16:0]        ns3;      // ns / 2^13 < 2^17
  logic [38:0]        qh;       // nh 349526 < 2^37
  logic [33:0]        qs;       // ns3 43691 < 2^33

  assign a   = x_i[15] ? 16'(-(17'(x_i))) : 16'(x_i);
  assign cs  = 17'(x_i) + 17'sd6144;
  assign c   = (cs < 0) ? 14'd0 : (cs > 17'sd12288) ? 14'd12288 : cs[13:0];
  assign nh  = {c, 4'd0} + 18'd3;
  assign qh  = 39'(nh) * 39'd349526 >> 21;          // floor(nh / 6)
  assign ns  = 30'(a) * 30'(c) * 30'd2 + 30'd12288;
  assign ns3 = ns[29:13];
  assign qs  = 34'(ns3) * 34'd43691 >> 17;          // floor(ns3 / 3)

  assign hsig_o   = qh[15:0];
  assign hswish_o = x_i[15] ? -(qs[15:0]) : qs[15:0];

  logic unused_hswish;
  assign unused_hswish = ^{qh[38:16], qs[33:16], ns[12:0]};
endmodule
