// sa_mem_bytes.sv: an on-chip memory of Rows rows of RowBytes bytes (SPAD, WBUF, PARAM), built
// as a flop array read combinationally (docs/TIMING.md §1: the C engines model such memories).
// Two write ports, each with a byte enable per byte: the load unit's beats land in part of a row,
// from its DRAM response path (port 0) and its global-buffer one (port 1), applied in that order.
// NumRd read ports (PARAM: the three rows a STORE latches at its start). With ColWrite set (the
// WBUF) each write port can instead write down one column: byte k of cdata_i into row
// crow_i + k, column ccol_i, for each k < ColBytes with cbe_i[k] (a transposed LOAD's beat,
// TIMING §1 "Ports"). Contents are zero at reset: the model is built with --x-initial 0 and
// memories are never reset row by row.
module sa_mem_bytes #(
  parameter int unsigned Rows = 64,
  parameter int unsigned RowBytes = 4,
  parameter int unsigned NumRd = 1,
  parameter bit ColWrite = 1'b0,
  parameter int unsigned ColBytes = 1,
  localparam int unsigned RowW = (Rows > 1) ? $clog2(Rows) : 1,
  localparam int unsigned ColW = (RowBytes > 1) ? $clog2(RowBytes) : 1
) (
  input  logic                               clk_i,
  // write ports 0 and 1
  input  logic [1:0]                         we_i,
  input  logic [1:0][RowW-1:0]               wrow_i,
  input  logic [1:0][RowBytes-1:0]           wbe_i,
  input  logic [1:0][RowBytes-1:0][7:0]      wdata_i,
  // column writes (only with ColWrite; never in the same cycle as the row write of their port)
  input  logic [1:0]                         cwe_i,
  input  logic [1:0][RowW-1:0]               crow_i,
  input  logic [1:0][ColW-1:0]               ccol_i,
  input  logic [1:0][ColBytes-1:0]           cbe_i,
  input  logic [1:0][ColBytes-1:0][7:0]      cdata_i,
  input  logic [NumRd-1:0][RowW-1:0]         rrow_i,
  output logic [NumRd-1:0][RowBytes-1:0][7:0] rdata_o
);
  logic [RowBytes-1:0][7:0] mem_q [Rows];
  logic [1:0][RowBytes-1:0][7:0] bit_en;   // wbe_i widened to one bit per data bit
  logic [1:0][RowBytes-1:0][7:0] col_en;   // the bits of column ccol_i

  // A masked write of the whole row. (A byte loop of non-blocking writes into mem_q is what one
  // would write, but Verilator 5.006 cannot schedule one that it does not unroll, and it unrolls
  // at most 64 iterations: PARAM rows of a 32-column array have 128 bytes.)
  always_comb begin
    for (int p = 0; p < 2; p++) begin
      for (int b = 0; b < RowBytes; b++) begin
        bit_en[p][b] = {8{wbe_i[p][b]}};
        col_en[p][b] = {8{32'(ccol_i[p]) == b}};
      end
    end
  end

  if (ColWrite) begin : g_colw
    // The column writes loop over the beat's ColBytes rows (the bus width: 32 on the largest
    // shipped arch, within Verilator's 64-iteration unroll limit; tests/rtl/lint.sh checks it).
    always_ff @(posedge clk_i) begin
      if (we_i[0]) mem_q[wrow_i[0]] <= (mem_q[wrow_i[0]] & ~bit_en[0]) | (wdata_i[0] & bit_en[0]);
      if (cwe_i[0]) begin
        for (int k = 0; k < ColBytes; k++) begin
          if (cbe_i[0][k]) begin
            mem_q[RowW'(32'(crow_i[0]) + k)] <= (mem_q[RowW'(32'(crow_i[0]) + k)] & ~col_en[0]) |
                                               ({RowBytes{cdata_i[0][k]}} & col_en[0]);
          end
        end
      end
      if (we_i[1]) mem_q[wrow_i[1]] <= (mem_q[wrow_i[1]] & ~bit_en[1]) | (wdata_i[1] & bit_en[1]);
      if (cwe_i[1]) begin
        for (int k = 0; k < ColBytes; k++) begin
          if (cbe_i[1][k]) begin
            mem_q[RowW'(32'(crow_i[1]) + k)] <= (mem_q[RowW'(32'(crow_i[1]) + k)] & ~col_en[1]) |
                                               ({RowBytes{cdata_i[1][k]}} & col_en[1]);
          end
        end
      end
    end
  end else begin : g_roww
    always_ff @(posedge clk_i) begin
      if (we_i[0]) mem_q[wrow_i[0]] <= (mem_q[wrow_i[0]] & ~bit_en[0]) | (wdata_i[0] & bit_en[0]);
      if (we_i[1]) mem_q[wrow_i[1]] <= (mem_q[wrow_i[1]] & ~bit_en[1]) | (wdata_i[1] & bit_en[1]);
    end
    logic unused_col;
    assign unused_col = ^{cwe_i, crow_i, cbe_i, cdata_i, col_en};
  end

  for (genvar k = 0; k < NumRd; k++) begin : g_rd
    assign rdata_o[k] = mem_q[rrow_i[k]];
  end
endmodule
