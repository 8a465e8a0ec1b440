// sa_sfu_isqrt.sv: floor(sqrt(m)) of a 32-bit m by the digit-by-digit (restoring) square root,
// 16 steps, one root bit per step from the top; isa/sfu_math.c sfu_isqrt32 (docs/SFU.md §2.1).
// The remainder stays at most 2 root < 2^17, so 19 bits hold it after two bits are shifted in.
// Combinational: sfu_isqrt of sa_sfu_fn.svh (the inverse square root calls it there).
module sa_sfu_isqrt (
  input  logic [31:0] m_i,
  output logic [15:0] root_o
);
  `include "sa_sfu_fn.svh"
  assign root_o = sfu_isqrt(m_i);
endmodule
