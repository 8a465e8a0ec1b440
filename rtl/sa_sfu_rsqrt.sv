// sa_sfu_rsqrt.sv: 1 / sqrt(v) for 1 <= v < 2^48 of isa/sfu_math.c sfu_rsqrt (docs/SFU.md §2.1):
// v shifted by an even amount 2j to m in [2^30, 2^32) (truncated when shifted right),
// s = floor(sqrt(m)) in [2^15, 2^16), mant = floor(2^31 / s), 1 / sqrt(v) ~= mant / 2^(31 - j).
// v == 0 gives mant 0, shift 16. Combinational.
module sa_sfu_rsqrt (
  input  logic [47:0] v_i,
  output logic [16:0] mant_o,
  output logic [5:0]  shift_o
);
  logic [5:0]  len;        // bitlen(v), 0..48
  logic [5:0]  jl, jr;     // j = jl when len <= 32 (left shift 2 jl), j = -jr otherwise
  logic [47:0] shifted;
  logic [31:0] m;
  logic [15:0] s;
  logic [16:0] quot;

  always_comb begin
    len = '0;
    for (int i = 0; i < 48; i++) begin
      if (v_i[i]) len = 6'(i + 1);
    end
  end

  assign jl      = (len <= 6'd32) ? (6'd32 - len) >> 1 : 6'd0;
  assign jr      = (len > 6'd32) ? (len - 6'd31) >> 1 : 6'd0;
  assign shifted = (len <= 6'd32) ? v_i << (2 * jl) : v_i >> (2 * jr);
  assign m       = shifted[31:0];

  sa_sfu_isqrt u_isqrt (
    .m_i    (m),
    .root_o (s)
  );

  sa_sfu_div #(
    .NumW  (32),
    .DenW  (16),
    .QuotW (17)
  ) u_div (
    .num_i  (32'h8000_0000),
    .den_i  (s),
    .quot_o (quot)
  );

  assign mant_o  = (len == 6'd0) ? 17'd0 : quot;
  assign shift_o = (len == 6'd0) ? 6'd16 : (len <= 6'd32) ? 6'd31 - jl : 6'd31 + jr;

  logic unused_shifted;
  assign unused_shifted = ^shifted[47:32];
endmodule
