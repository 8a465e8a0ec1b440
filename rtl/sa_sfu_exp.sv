// sa_sfu_exp.sv: exp(x) for x <= 0 of isa/sfu_math.c sfu_exp (docs/SFU.md §2.2): Q4.11 in (x > 0
// taken as 0), Q0.15 out (0..32768). t = |x| log2 e in Q.27, z its integer part, f its fraction;
// 2^-f by a quadratic on one of four segments (Horner, arithmetic shifts), then round(p / 2^(z+1)).
// Combinational.
module sa_sfu_exp (
  input  logic signed [15:0] x_i,
  output logic [15:0]        y_o
);
  logic [31:0]        a, t, u, p, rounded;
  logic [4:0]         z;
  logic [1:0]         k;
  logic signed [31:0] c0, c1, c2, inner, poly;

  assign a = x_i[15] ? unsigned'(-32'(x_i)) : 32'd0;   // -x, 0..32768
  assign t = a * 32'd94548;                              // round(2^16 log2 e): Q.27, < 2^32
  assign z = t[31:27];
  assign k = t[26:25];
  assign u = {19'd0, t[24:12]};                          // offset in the segment, 13 bits

  always_comb begin
    unique case (k)
      2'd0:    begin c0 = 32'sd65536; c1 = -32'sd181306; c2 = 32'sd14514; end
      2'd1:    begin c0 = 32'sd55108; c1 = -32'sd152394; c2 = 32'sd12150; end
      2'd2:    begin c0 = 32'sd46340; c1 = -32'sd128148; c2 = 32'sd10216; end
      default: begin c0 = 32'sd38967; c1 = -32'sd107759; c2 = 32'sd8591;  end
    endcase
  end

  assign inner   = c1 + ((c2 * signed'(u)) >>> 13);
  assign poly    = c0 + ((inner * signed'(u)) >>> 17);     // 2^-f in Q.16
  assign p       = unsigned'(poly);
  assign rounded = (p + (32'd1 << z)) >> (z + 5'd1);
  assign y_o     = rounded[15:0];

  logic unused_rounded;
  assign unused_rounded = ^{rounded[31:16], t[11:0]};   // below the 15 fraction bits kept
endmodule
