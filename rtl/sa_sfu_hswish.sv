// sa_sfu_hswish.sv: h-sigmoid and h-swish of isa/sfu_math.c (docs/SFU.md §2.5), exactly rounded:
// c = clamp(x + 3, 0, 6) in Q.11; h-sigmoid = floor((16c + 3) / 6) (Q0.15), h-swish =
// sign(x) floor((2 |x| c + 12288) / 24576) (Q4.11). The divisions by the constants 6 and 3 are
// multiplications by 349526 / 2^21 and 43691 / 2^17, exact over these ranges (the bench checks
// every input against the C divisions). Combinational: sfu_hswish of sa_sfu_fn.svh.
module sa_sfu_hswish (
  input  logic signed [15:0] x_i,
  output logic [15:0]        hsig_o,
  output logic signed [15:0] hswish_o
);
  `include "sa_sfu_fn.svh"
  assign {hsig_o, hswish_o} = sfu_hswish(x_i);
endmodule
