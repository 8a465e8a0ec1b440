// sa_sfu_sigmoid.sv: sigmoid and SiLU of isa/sfu_math.c (docs/SFU.md §2.4): E = exp(-|x|) (an
// sa_sfu_exp), sigmoid(-|x|) = round(E 2^15 / (2^15 + E)) by one 15-step restoring division,
// sigmoid(|x|) = 2^15 - that; SiLU = x sigmoid(x) rounded to Q4.11. Q4.11 in; sigmoid out
// Q0.15 (0..32768), SiLU out Q4.11. Combinational.
module sa_sfu_sigmoid (
  input  logic signed [15:0] x_i,
  output logic [15:0]        sig_o,
  output logic signed [15:0] silu_o
);
  logic [15:0]        a;                    // |x|, 0..32768
  logic signed [15:0] xneg;                 // -|x|
  logic [15:0]        e;                    // exp(-|x|), 0..32768
  logic [16:0]        d;                    // 2^15 + E, 2^15..2^16
  logic [31:0]        num;                  // 2^16 E + D <= 2^31 + 2^16
  logic [17:0]        den;                  // 2 D
  logic [14:0]        sn;                   // sigmoid(-|x|), 0..16384
  logic [15:0]        sp;                   // sigmoid(|x|), 16384..32768
  logic [31:0]        silu_pos, silu_neg;   // |x| s + 2^14 <= 2^30 + 2^14, then / 2^15

  assign a    = x_i[15] ? 16'(-(17'(x_i))) : 16'(x_i);
  assign xneg = $signed(-a);

  sa_sfu_exp u_exp (
    .x_i (xneg),
    .y_o (e)
  );

  assign d   = 17'd32768 + 17'(e);
  assign num = {e, 16'd0} + 32'(d);
  assign den = {d, 1'b0};

  sa_sfu_div #(
    .NumW  (32),
    .DenW  (18),
    .QuotW (15)
  ) u_div (
    .num_i  (num),
    .den_i  (den),
    .quot_o (sn)
  );

  assign sp       = 16'd32768 - 16'(sn);
  assign sig_o    = x_i[15] ? 16'(sn) : sp;
  assign silu_pos = (32'(a) * 32'(sp) + 32'h4000) >> 15;
  assign silu_neg = (32'(a) * 32'(sn) + 32'h4000) >> 15;
  assign silu_o   = x_i[15] ? -(16'(silu_neg)) : 16'(silu_pos);

  logic unused_silu;
  assign unused_silu = ^{silu_pos[31:16], silu_neg[31:16]};   // |SiLU| < 2^15
endmodule
