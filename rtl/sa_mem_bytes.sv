// sa_mem_bytes.sv: an on-chip memory of Rows rows of RowBytes bytes (SPAD, WBUF, PARAM), built
// as a flop array read combinationally (docs/TIMING.md §1: the C engines model such memories).
// One write port with a byte enable per byte (the load unit's beats land in part of a row);
// NumRd read ports (PARAM: the three rows a STORE latches at its start). Contents are zero at
// reset: the model is built with --x-initial 0 and memories are never reset row by row.
module sa_mem_bytes #(
  parameter int unsigned Rows = 64,
  parameter int unsigned RowBytes = 4,
  parameter int unsigned NumRd = 1,
  localparam int unsigned RowW = (Rows > 1) ? $clog2(Rows) : 1
) (
  input  logic                               clk_i,
  input  logic                               we_i,
  input  logic [RowW-1:0]                    wrow_i,
  input  logic [RowBytes-1:0]                wbe_i,
  input  logic [RowBytes-1:0][7:0]           wdata_i,
  input  logic [NumRd-1:0][RowW-1:0]         rrow_i,
  output logic [NumRd-1:0][RowBytes-1:0][7:0] rdata_o
);
  logic [RowBytes-1:0][7:0] mem_q [Rows];
  logic [RowBytes-1:0][7:0] bit_en;   // wbe_i widened to one bit per data bit

  // A masked write of the whole row. (A byte loop of non-blocking writes into mem_q is what one
  // would write, but Verilator 5.006 cannot schedule one that it does not unroll, and it unrolls
  // at most 64 iterations: PARAM rows of a 32-column array have 128 bytes.)
  always_comb begin
    for (int b = 0; b < RowBytes; b++) bit_en[b] = {8{wbe_i[b]}};
  end

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[wrow_i] <= (mem_q[wrow_i] & ~bit_en) | (wdata_i & bit_en);
  end

  for (genvar k = 0; k < NumRd; k++) begin : g_rd
    assign rdata_o[k] = mem_q[rrow_i[k]];
  end
endmodule
