// sa_sfu_sigmoid.sv: sigmoid and SiLU of isa/sfu_math.c (docs/SFU.md §2.4): E = exp(-|x|),
// sigmoid(-|x|) = round(E 2^15 / (2^15 + E)) by one 15-step restoring division,
// sigmoid(|x|) = 2^15 - that; SiLU = x sigmoid(x) rounded to Q4.11. Q4.11 in; sigmoid out
// Q0.15 (0..32768), SiLU out Q4.11. Combinational: sfu_sigmoid of sa_sfu_fn.svh (exp, the
// division's two halves and the product, which the unit's lanes pipeline).
module sa_sfu_sigmoid (
  input  logic signed [15:0] x_i,
  output logic [15:0]        sig_o,
  output logic signed [15:0] silu_o
);
  `include "sa_sfu_fn.svh"
  assign {sig_o, silu_o} = sfu_sigmoid(x_i);
endmodule
