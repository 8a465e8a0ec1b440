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
  logic signed [31:0] xs, cs;
  logic [31:0]        a, c, nh, ns;
  logic [63:0]        qh, qs;

  assign xs = 32'(x_i);
  assign a  = (xs < 0) ? unsigned'(-xs) : unsigned'(xs);
  assign cs = xs + 32'sd6144;
  assign c  = (cs < 0) ? 32'd0 : (cs > 32'sd12288) ? 32'd12288 : unsigned'(cs);

  assign nh = 32'd16 * c + 32'd3;                        // < 2^18
  assign qh = ({32'd0, nh} * 64'd349526) >> 21;          // floor(nh / 6)
  assign ns = (32'd2 * a * c + 32'd12288) >> 13;         // < 2^17
  assign qs = ({32'd0, ns} * 64'd43691) >> 17;           // floor(ns / 3)

  assign hsig_o   = qh[15:0];
  assign hswish_o = (xs < 0) ? -16'(qs[15:0]) : 16'(qs[15:0]);

  logic unused_q;
  assign unused_q = ^{qh[63:16], qs[63:16]};
endmodule
