// sa_sfu_recip.sv: 1 / v of isa/sfu_math.c sfu_recip (docs/SFU.md §2.1): v normalised to a 16-bit
// mantissa m in [2^15, 2^16) (truncated), mant = floor(2^31 / m) in (2^15, 2^16], and
// 1 / v ~= mant / 2^shift with shift = bitlen(v) + 15. v == 0 gives mant 0, shift 16.
// Combinational.
module sa_sfu_recip (
  input  logic [31:0] v_i,
  output logic [16:0] mant_o,
  output logic [5:0]  shift_o
);
  logic [5:0]  len;     // bitlen(v), 0..32
  logic [31:0] m;
  logic [16:0] quot;

  always_comb begin
    len = '0;
    for (int i = 0; i < 32; i++) begin
      if (v_i[i]) len = 6'(i + 1);
    end
  end

  assign m = (len >= 6'd16) ? v_i >> (len - 6'd16) : v_i << (6'd16 - len);

  sa_sfu_div #(
    .NumW  (32),
    .DenW  (16),
    .QuotW (17)
  ) u_div (
    .num_i  (32'h8000_0000),
    .den_i  (m[15:0]),
    .quot_o (quot)
  );

  assign mant_o  = (len == 6'd0) ? 17'd0 : quot;
  assign shift_o = (len == 6'd0) ? 6'd16 : len + 6'd15;

  logic unused_m;
  assign unused_m = ^m[31:16];   // m < 2^16 (0 when v is)
endmodule
