// sa_sfu_exp.sv: exp(x) for x <= 0 of isa/sfu_math.c sfu_exp (docs/SFU.md §2.2): Q4.11 in (x > 0
// taken as 0), Q0.15 out (0..32768). t = |x| log2 e in Q.27, z its integer part, f its fraction;
// 2^-f by a quadratic on one of four segments (Horner, arithmetic shifts), then round(p / 2^(z+1)).
// Widths as docs/SFU.md states them. Combinational.
module sa_sfu_exp (
  input  logic signed [15:0] x_i,
  output logic [15:0]        y_o
);
  logic [15:0]        a;        // -x, 0..32768
  logic [31:0]        t;        // a log2 e in Q.27, < 2^32
  logic [4:0]         z;        // 0..23
  logic [1:0]         k;        // segment
  logic signed [13:0] u;        // offset in the segment, 13 bits, as a signed operand
  logic signed [15:0] c2;
  logic signed [18:0] c1;
  logic signed [17:0] c0;
  logic signed [29:0] c2u;      // |c2 u| < 2^27
  logic signed [19:0] inner;    // c1 + floor(c2 u / 2^13), in (-2^19, 0)
  logic signed [33:0] iu;       // |inner u| < 2^31
  logic signed [18:0] poly;     // 2^-f in Q.16, 0..65536
  logic [24:0]        rounded;  // p + 2^z < 2^25

  assign a = x_i[15] ? 16'(-(17'(x_i))) : 16'd0;
  assign t = 32'(a) * 32'd94548;                         // round(2^16 log2 e)
  assign z = t[31:27];
  assign k = t[26:25];
  assign u = $signed({1'b0, t[24:12]});

  always_comb begin
    unique case (k)
      2'd0:    begin c0 = 18'sd65536; c1 = -19'sd181306; c2 = 16'sd14514; end
      2'd1:    begin c0 = 18'sd55108; c1 = -19'sd152394; c2 = 16'sd12150; end
      2'd2:    begin c0 = 18'sd46340; c1 = -19'sd128148; c2 = 16'sd10216; end
      default: begin c0 = 18'sd38967; c1 = -19'sd107759; c2 = 16'sd8591;  end
    endcase
  end

  assign c2u     = 30'(c2) * 30'(u);
  assign inner   = 20'(c1) + 20'(c2u >>> 13);
  assign iu      = 34'(inner) * 34'(u);
  assign poly    = 19'(c0) + 19'(iu >>> 17);
  assign rounded = (25'(poly[16:0]) + (25'd1 << z)) >> (z + 5'd1);
  assign y_o     = rounded[15:0];

  logic unused_exp;
  assign unused_exp = ^{t[11:0], poly[18:17], rounded[24:16]};   // below the kept fraction; p <= 2^16
endmodule
