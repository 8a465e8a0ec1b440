// sa_sfu_gelu.sv: GELU(x) = x Phi(x) of isa/sfu_math.c sfu_gelu (docs/SFU.md §2.3), Q4.11 in and
// out. Phi(|x|) in Q0.16 by a quadratic on one of 16 segments of 1/4 (Horner, arithmetic
// shifts), clipped to 1 for |x| >= 4; x >= 0 gives round(|x| Phi / 2^16), x < 0 the negated
// round(|x| (1 - Phi) / 2^16). Also outputs Phi. Combinational.
module sa_sfu_gelu (
  input  logic signed [15:0] x_i,
  output logic signed [15:0] y_o,
  output logic [16:0]        phi_o
);
  logic signed [31:0] xs, c0, c1, c2, inner, poly;
  logic [31:0]        a, u, phi, pos, neg;
  logic [3:0]         k;

  assign xs = 32'(x_i);
  assign a  = (xs < 0) ? unsigned'(-xs) : unsigned'(xs);   // 0..32768
  assign k  = a[12:9];
  assign u  = {23'd0, a[8:0]};

  always_comb begin
    unique case (k)
      4'd0:    begin c0 = 32'sd32766; c1 = 32'sd105178; c2 = -32'sd1610; end
      4'd1:    begin c0 = 32'sd39236; c1 = 32'sd101862; c2 = -32'sd4546; end
      4'd2:    begin c0 = 32'sd45315; c1 = 32'sd92614;  c2 = -32'sd6691; end
      4'd3:    begin c0 = 32'sd50684; c1 = 32'sd79057;  c2 = -32'sd7772; end
      4'd4:    begin c0 = 32'sd55139; c1 = 32'sd63360;  c2 = -32'sd7789; end
      4'd5:    begin c0 = 32'sd58613; c1 = 32'sd47678;  c2 = -32'sd6973; end
      4'd6:    begin c0 = 32'sd61159; c1 = 32'sd33688;  c2 = -32'sd5671; end
      4'd7:    begin c0 = 32'sd62912; c1 = 32'sd22351;  c2 = -32'sd4231; end
      4'd8:    begin c0 = 32'sd64046; c1 = 32'sd13925;  c2 = -32'sd2913; end
      4'd9:    begin c0 = 32'sd64736; c1 = 32'sd8147;   c2 = -32'sd1859; end
      4'd10:   begin c0 = 32'sd65130; c1 = 32'sd4476;   c2 = -32'sd1102; end
      4'd11:   begin c0 = 32'sd65341; c1 = 32'sd2309;   c2 = -32'sd608;  end
      4'd12:   begin c0 = 32'sd65448; c1 = 32'sd1119;   c2 = -32'sd313;  end
      4'd13:   begin c0 = 32'sd65499; c1 = 32'sd509;    c2 = -32'sd150;  end
      4'd14:   begin c0 = 32'sd65521; c1 = 32'sd218;    c2 = -32'sd68;   end
      default: begin c0 = 32'sd65531; c1 = 32'sd87;     c2 = -32'sd28;   end
    endcase
  end

  assign inner = c1 + ((c2 * signed'(u)) >>> 9);
  assign poly  = c0 + ((inner * signed'(u)) >>> 13);
  assign phi   = (a >= 32'd8192 || poly > 32'sd65536) ? 32'd65536 : unsigned'(poly);
  assign pos   = (a * phi + 32'h8000) >> 16;
  assign neg   = (a * (32'd65536 - phi) + 32'h8000) >> 16;
  assign y_o   = (xs < 0) ? -16'(neg) : 16'(pos);
  assign phi_o = phi[16:0];

  logic unused_phi;
  assign unused_phi = ^{phi[31:17], pos[31:16], neg[31:16]};   // phi <= 2^16, |y| < 2^15
endmodule
