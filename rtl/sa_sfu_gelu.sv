// sa_sfu_gelu.sv: GELU(x) = x Phi(x) of isa/sfu_math.c sfu_gelu (docs/SFU.md §2.3), Q4.11 in and
// out. Phi(|x|) in Q0.16 by a quadratic on one of 16 segments of 1/4 (Horner, arithmetic
// shifts), clipped to 1 for |x| >= 4; x >= 0 gives round(|x| Phi / 2^16), x < 0 the negated
// round(|x| (1 - Phi) / 2^16). Also outputs Phi. Combinational: sfu_gelu_a, sfu_gelu_phi and
// sfu_gelu_y of sa_sfu_fn.svh, which the unit's lanes pipeline.
module sa_sfu_gelu (
  input  logic signed [15:0] x_i,
  output logic signed [15:0] y_o,
  output logic [16:0]        phi_o
);
  `include "sa_sfu_fn.svh"
  logic [49:0] s;   // {neg, |x|, ...}: sa_sfu_fn.svh
  assign s     = sfu_gelu_a(x_i);
  assign phi_o = sfu_gelu_phi(s);
  assign y_o   = sfu_gelu_y(s[49], s[48:33], phi_o);
endmodule
