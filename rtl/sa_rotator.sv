// sa_rotator.sv: between the bottom of the array and the accumulator's column banks (docs/
// TIMING.md §1 "Ports"). Weight-stationary and output-stationary work write column c to bank c.
// A COMPUTE_IS writes the row m a column carries to bank m mod C; the C columns carry C
// consecutive rows (stream alignment keeps that true across instructions, TIMING §6), so column
// c's bank is (rot_i - c) mod C and bank b takes column (rot_i - b) mod C: a fixed reversal of
// the columns and a rotation by rot_i (a barrel shifter in hardware; a multiplexer per bank
// here). What each column says its bank is (bank_i, from its row tag) must agree.
`include "sa_assert.svh"

module sa_rotator #(
  parameter int unsigned Cols = 4,
  parameter int unsigned RowW = 6,
  localparam int unsigned BankW = (Cols > 1) ? $clog2(Cols) : 1
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       is_i,
  input  logic [BankW-1:0]           rot_i,
  // per array column
  input  logic [Cols-1:0]            we_i,
  input  logic [Cols-1:0][BankW-1:0] bank_i,
  input  logic [Cols-1:0][RowW-1:0]  row_i,
  input  logic [Cols-1:0]            accum_i,
  input  logic [Cols-1:0][31:0]      data_i,
  // per accumulator bank
  output logic [Cols-1:0]            we_o,
  output logic [Cols-1:0][RowW-1:0]  row_o,
  output logic [Cols-1:0]            accum_o,
  output logic [Cols-1:0][31:0]      data_o
);
  logic [Cols-1:0][BankW-1:0] src;   // the column bank b takes

  for (genvar b = 0; b < Cols; b++) begin : g_bank
    logic [31:0] sum;   // rot_i + C - b, in 1 .. 2C - 1
    assign sum        = 32'(rot_i) + Cols - b;
    assign src[b]     = !is_i ? BankW'(b) : (sum >= Cols) ? BankW'(sum - Cols) : BankW'(sum);
    assign we_o[b]    = we_i[src[b]];
    assign row_o[b]   = row_i[src[b]];
    assign accum_o[b] = accum_i[src[b]];
    assign data_o[b]  = data_i[src[b]];
  end

  // Every column's write reaches the bank its row tag names.
  for (genvar c = 0; c < Cols; c++) begin : g_chk
    `SA_ASSERT(BankOfTag, we_i[c] |-> 32'(src[bank_i[c]]) == c, "sa_rotator: a column's write goes to the wrong bank")
  end

  logic unused_rot;
  assign unused_rot = ^{clk_i, rst_ni, bank_i};
endmodule
