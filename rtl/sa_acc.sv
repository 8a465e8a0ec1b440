// sa_acc.sv: the accumulator, Rows rows of Cols int32 (docs/TIMING.md §1 "Ports"): a column
// bank per column. Each column has a read-modify-write port for the array (column c writes the
// row of the sum leaving the bottom of column c), the load unit has a read-modify-write port on
// a whole row (with an enable per column), the store unit a combinational read port, and the
// special-function unit two combinational read ports and a write port with an enable per column. A
// flop array read combinationally: consecutive read-modify-writes of a row see each other.
// Legal (race-free) programs never write one element from two ports in one cycle.
module sa_acc #(
  parameter int unsigned Rows = 64,
  parameter int unsigned Cols = 4,
  localparam int unsigned RowW = (Rows > 1) ? $clog2(Rows) : 1
) (
  input  logic                       clk_i,
  // array: one port per column
  input  logic [Cols-1:0]            arr_we_i,
  input  logic [Cols-1:0][RowW-1:0]  arr_row_i,
  input  logic [Cols-1:0]            arr_accum_i,
  input  logic [Cols-1:0][31:0]      arr_data_i,
  // load unit
  input  logic                       ld_we_i,
  input  logic [RowW-1:0]            ld_row_i,
  input  logic [Cols-1:0]            ld_en_i,
  input  logic                       ld_accum_i,
  input  logic [Cols-1:0][31:0]      ld_data_i,
  // store unit
  input  logic [RowW-1:0]            st_row_i,
  output logic [Cols-1:0][31:0]      st_data_o,
  // special-function unit
  input  logic [1:0][RowW-1:0]       sfu_rd_row_i,
  output logic [1:0][Cols-1:0][31:0] sfu_rd_data_o,
  input  logic                       sfu_we_i,
  input  logic [RowW-1:0]            sfu_wr_row_i,
  input  logic [Cols-1:0]            sfu_wr_en_i,
  input  logic [Cols-1:0][31:0]      sfu_wr_data_i
);
  // One memory per column, each with its own always_ff: a column loop of non-blocking writes
  // into one [Rows][Cols] array would stop Verilator 5.006 past 64 columns (it unrolls at most
  // 64 iterations and cannot schedule such writes in a loop it keeps).
  for (genvar c = 0; c < Cols; c++) begin : g_col
    logic [31:0] mem_q [Rows];
    always_ff @(posedge clk_i) begin
      if (ld_we_i && ld_en_i[c]) begin
        mem_q[ld_row_i] <= ld_accum_i ? mem_q[ld_row_i] + ld_data_i[c] : ld_data_i[c];
      end
      if (arr_we_i[c]) begin
        mem_q[arr_row_i[c]] <= arr_accum_i[c] ? mem_q[arr_row_i[c]] + arr_data_i[c] : arr_data_i[c];
      end
      if (sfu_we_i && sfu_wr_en_i[c]) mem_q[sfu_wr_row_i] <= sfu_wr_data_i[c];
    end
    assign st_data_o[c]        = mem_q[st_row_i];
    assign sfu_rd_data_o[0][c] = mem_q[sfu_rd_row_i[0]];
    assign sfu_rd_data_o[1][c] = mem_q[sfu_rd_row_i[1]];
  end
endmodule
