// sa_post.sv: the post-processing of one column (docs/ISA.md §6.4, isa/numerics.h sa_post):
// v = sat32(acc + bias), q = sat32(round_shift(v * mult, shift)), the activation (none, relu,
// clamp [lo, hi]) and sat8. Combinational; the store unit has one per column.
module sa_post
  import sa_isa_pkg::*;
(
  input  logic signed [31:0] acc_i,
  input  logic signed [31:0] bias_i,
  input  logic signed [31:0] mult_i,
  input  logic [5:0]         shift_i,
  input  logic [1:0]         act_i,
  input  logic signed [7:0]  lo_i,
  input  logic signed [7:0]  hi_i,
  output logic signed [7:0]  out_o
);
  logic signed [32:0] sum;
  logic signed [31:0] v, q, a;
  logic signed [63:0] p;

  assign sum = {acc_i[31], acc_i} + {bias_i[31], bias_i};
  assign v   = (sum > 33'sh0_7fff_ffff) ? 32'sh7fff_ffff :
               (sum < -33'sh0_8000_0000) ? -32'sh8000_0000 : sum[31:0];
  assign p   = 64'(v) * 64'(mult_i);

  sa_requant u_requant (
    .p_i     (p),
    .shift_i (shift_i),
    .q_o     (q)
  );

  always_comb begin
    a = q;
    unique case (act_e'(act_i))
      ACT_RELU:  a = (q < 0) ? 32'sd0 : q;
      ACT_CLAMP: a = (q < 32'(lo_i)) ? 32'(lo_i) : (q > 32'(hi_i)) ? 32'(hi_i) : q;
      default:   a = q;
    endcase
  end

  assign out_o = (a > 32'sd127) ? 8'sd127 : (a < -32'sd128) ? -8'sd128 : a[7:0];
endmodule
