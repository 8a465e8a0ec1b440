// sa_sfu_gelu.sv: GELU(x) = x Phi(x) of isa/sfu_math.c sfu_gelu (docs/SFU.md §2.3), Q4.11 in and
// out. Phi(|x|) in Q0.16 by a quadratic on one of 16 segments of 1/4 (Horner, arithmetic
// shifts), clipped to 1 for |x| >= 4; x >= 0 gives round(|x| Phi / 2^16), x < 0 the negated
// round(|x| (1 - Phi) / 2^16). Also outputs Phi. Combinational.
module sa_sfu_gelu (
  input  logic signed [15:0] x_i,
  output logic signed [15:0] y_o,
  output logic [16:0]        phi_o
);
  logic [15:0]        a;        // |x|, 0..32768
  logic [3:0]         k;        // segment (|x| < 4)
  logic signed [9:0]  u;        // offset in the segment, 9 bits, as a signed operand
  logic signed [17:0] c0, c1;
  logic signed [13:0] c2;
  logic signed [23:0] c2u;      // |c2 u| < 2^22
  logic signed [18:0] inner;    // c1 + floor(c2 u / 2^9), in (0, 2^17)
  logic signed [28:0] iu;
  logic signed [18:0] poly;     // Phi in Q.16
  logic [16:0]        phi;      // clipped to 65536
  logic [16:0]        phin;     // 1 - Phi = Phi(-|x|)
  logic [32:0]        pos, neg; // |x| Phi + 2^15, |x| (1 - Phi) + 2^15 < 2^32

  assign a = x_i[15] ? 16'(-(17'(x_i))) : 16'(x_i);
  assign k = a[12:9];
  assign u = $signed({1'b0, a[8:0]});

  always_comb begin
    unique case (k)
      4'd0:    begin c0 = 18'sd32766; c1 = 18'sd105178; c2 = -14'sd1610; end
      4'd1:    begin c0 = 18'sd39236; c1 = 18'sd101862; c2 = -14'sd4546; end
      4'd2:    begin c0 = 18'sd45315; c1 = 18'sd92614;  c2 = -14'sd6691; end
      4'd3:    begin c0 = 18'sd50684; c1 = 18'sd79057;  c2 = -14'sd7772; end
      4'd4:    begin c0 = 18'sd55139; c1 = 18'sd63360;  c2 = -14'sd7789; end
      4'd5:    begin c0 = 18'sd58613; c1 = 18'sd47678;  c2 = -14'sd6973; end
      4'd6:    begin c0 = 18'sd61159; c1 = 18'sd33688;  c2 = -14'sd5671; end
      4'd7:    begin c0 = 18'sd62912; c1 = 18'sd22351;  c2 = -14'sd4231; end
      4'd8:    begin c0 = 18'sd64046; c1 = 18'sd13925;  c2 = -14'sd2913; end
      4'd9:    begin c0 = 18'sd64736; c1 = 18'sd8147;   c2 = -14'sd1859; end
      4'd10:   begin c0 = 18'sd65130; c1 = 18'sd4476;   c2 = -14'sd1102; end
      4'd11:   begin c0 = 18'sd65341; c1 = 18'sd2309;   c2 = -14'sd608;  end
      4'd12:   begin c0 = 18'sd65448; c1 = 18'sd1119;   c2 = -14'sd313;  end
      4'd13:   begin c0 = 18'sd65499; c1 = 18'sd509;    c2 = -14'sd150;  end
      4'd14:   begin c0 = 18'sd65521; c1 = 18'sd218;    c2 = -14'sd68;   end
      default: begin c0 = 18'sd65531; c1 = 18'sd87;     c2 = -14'sd28;   end
    endcase
  end

  assign c2u   = 24'(c2) * 24'(u);
  assign inner = 19'(c1) + 19'(c2u >>> 9);
  assign iu    = 29'(inner) * 29'(u);
  assign poly  = 19'(c0) + 19'(iu >>> 13);
  assign phi   = (a >= 16'd8192 || poly > 19'sd65536) ? 17'd65536 : poly[16:0];
  assign pos   = (33'(a) * 33'(phi) + 33'h8000) >> 16;
  assign phin  = 17'd65536 - phi;
  assign neg   = (33'(a) * 33'(phin) + 33'h8000) >> 16;
  assign y_o   = x_i[15] ? -(16'(neg)) : 16'(pos);
  assign phi_o = phi;

  logic unused_gelu;
  assign unused_gelu = ^{pos[32:16], neg[32:16], poly[18:17]};   // |y| < 2^15, Phi <= 2^16
endmodule
