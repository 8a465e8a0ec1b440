// sa_sfu_rsqrt.sv: 1 / sqrt(v) for 1 <= v < 2^48 of isa/sfu_math.c sfu_rsqrt (docs/SFU.md §2.1):
// v shifted by an even amount 2j to m in [2^30, 2^32) (truncated when shifted right),
// s = floor(sqrt(m)) in [2^15, 2^16), mant = floor(2^31 / s), 1 / sqrt(v) ~= mant / 2^(31 - j).
// v == 0 gives mant 0, shift 16. Combinational: sfu_rsqrt of sa_sfu_fn.svh.
module sa_sfu_rsqrt (
  input  logic [47:0] v_i,
  output logic [16:0] mant_o,
  output logic [5:0]  shift_o
);
  `include "sa_sfu_fn.svh"
  assign {shift_o, mant_o} = sfu_rsqrt(v_i);
endmodule
