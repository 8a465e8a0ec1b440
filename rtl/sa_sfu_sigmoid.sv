// sa_sfu_sigmoid.sv: sigmoid and SiLU of isa/sfu_math.c (docs/SFU.md §2.4): E = exp(-|x|) (an
// sa_sfu_exp), sigmoid(-|x|) = round(E 2^15 / (2^15 + E)) by one 15-bit restoring division,
// sigmoid(|x|) = 2^15 - that; SiLU = x sigmoid(x) rounded to Q4.11. Q4.11 in; sigmoid out
// Q0.15 (0..32768), SiLU out Q4.11. Combinational.
module sa_sfu_sigmoid (
  input  logic signed [15:0] x_i,
  output logic [15:0]        sig_o,
  output logic signed [15:0] silu_o
);
  logic signed [31:0] xs;
  logic [31:0]        a, e, d, sn, sp, silu_pos, silu_neg;
  logic [15:0]        e16;
  logic [14:0]        quot;

  assign xs = 32'(x_i);
  assign a  = (xs < 0) ? unsigned'(-xs) : unsigned'(xs);   // 0..32768

  sa_sfu_exp u_exp (
    .x_i (signed'(-a[15:0])),
    .y_o (e16)
  );

  assign e = {16'd0, e16};
  assign d = 32'd32768 + e;

  sa_sfu_div #(
    .QuotW (15)
  ) u_div (
    .num_i  ((e << 16) + d),
    .den_i  (d << 1),
    .quot_o (quot)
  );

  assign sn       = {17'd0, quot};   // sigmoid(-|x|), 0..16384
  assign sp       = 32'd32768 - sn;  // sigmoid(|x|)
  assign sig_o    = (xs < 0) ? sn[15:0] : sp[15:0];
  assign silu_pos = (a * sp + 32'h4000) >> 15;
  assign silu_neg = (a * sn + 32'h4000) >> 15;
  assign silu_o   = (xs < 0) ? -16'(silu_neg) : 16'(silu_pos);

  logic unused_silu;
  assign unused_silu = ^{silu_pos[31:16], silu_neg[31:16]};   // |SiLU| < 2^15
endmodule
