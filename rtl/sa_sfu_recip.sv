// sa_sfu_recip.sv: 1 / v of isa/sfu_math.c sfu_recip (docs/SFU.md §2.1): v normalised to a 16-bit
// mantissa m in [2^15, 2^16) (truncated), mant = floor(2^31 / m) in (2^15, 2^16] by a 17-step
// restoring division, and 1 / v ~= mant / 2^shift with shift = bitlen(v) + 15. v == 0 gives
// mant 0, shift 16. Combinational: sfu_recip of sa_sfu_fn.svh.
module sa_sfu_recip (
  input  logic [31:0] v_i,
  output logic [16:0] mant_o,
  output logic [5:0]  shift_o
);
  `include "sa_sfu_fn.svh"
  assign {shift_o, mant_o} = sfu_recip(v_i);
endmodule
