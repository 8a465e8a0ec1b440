// sa_sfu_exp.sv: exp(x) for x <= 0 of isa/sfu_math.c sfu_exp (docs/SFU.md §2.2): Q4.11 in (x > 0
// taken as 0), Q0.15 out (0..32768). t = |x| log2 e in Q.27, z its integer part, f its fraction;
// 2^-f by a quadratic on one of four segments (Horner, arithmetic shifts), then round(p / 2^(z+1)).
// Combinational: sfu_exp_a and sfu_exp_b of sa_sfu_fn.svh, which the unit's lanes pipeline.
module sa_sfu_exp (
  input  logic signed [15:0] x_i,
  output logic [15:0]        y_o
);
  `include "sa_sfu_fn.svh"
  assign y_o = sfu_exp(x_i);
endmodule
