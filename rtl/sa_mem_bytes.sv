// sa_mem_bytes.sv: an on-chip memory of Rows rows of RowBytes bytes (SPAD, WBUF, PARAM), built
// as a flop array read combinationally (docs/TIMING.md §1: the C engines model such memories).
// One write port with a byte enable per byte (the load unit's beats land in part of a row);
// NumRd read ports (PARAM: the three rows a STORE latches at its start). With ColWrite set (the
// WBUF) the write port can instead write down one column: byte k of cdata_i into row
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
  input  logic                               we_i,
  input  logic [RowW-1:0]                    wrow_i,
  input  logic [RowBytes-1:0]                wbe_i,
  input  logic [RowBytes-1:0][7:0]           wdata_i,
  // column write (only with ColWrite; never in the same cycle as we_i)
  input  logic                               cwe_i,
  input  logic [RowW-1:0]                    crow_i,
  input  logic [ColW-1:0]                    ccol_i,
  input  logic [ColBytes-1:0]                cbe_i,
  input  logic [ColBytes-1:0][7:0]           cdata_i,
  input  logic [NumRd-1:0][RowW-1:0]         rrow_i,
  output logic [NumRd-1:0][RowBytes-1:0][7:0] rdata_o
);
  logic [RowBytes-1:0][7:0] mem_q [Rows];
  logic [RowBytes-1:0][7:0] bit_en;   // wbe_i widened to one bit per data bit
  logic [RowBytes-1:0][7:0] col_en;   // the bits of column ccol_i

  // A masked write of the whole row. (A byte loop of non-blocking writes into mem_q is what one
  // would write, but Verilator 5.006 cannot schedule one that it does not unroll, and it unrolls
  // at most 64 iterations: PARAM rows of a 32-column array have 128 bytes.)
  always_comb begin
    for (int b = 0; b < RowBytes; b++) begin
      bit_en[b] = {8{wbe_i[b]}};
      col_en[b] = {8{32'(ccol_i) == b}};
    end
  end

  if (ColWrite) begin : g_colw
    // The column write loops over the beat's ColBytes rows (the bus width: 32 on the largest
    // shipped arch, within Verilator's 64-iteration unroll limit; tests/rtl/lint.sh checks it).
    always_ff @(posedge clk_i) begin
      if (we_i) mem_q[wrow_i] <= (mem_q[wrow_i] & ~bit_en) | (wdata_i & bit_en);
      if (cwe_i) begin
        for (int k = 0; k < ColBytes; k++) begin
          if (cbe_i[k]) begin
            mem_q[RowW'(32'(crow_i) + k)] <= (mem_q[RowW'(32'(crow_i) + k)] & ~col_en) |
                                            ({RowBytes{cdata_i[k]}} & col_en);
          end
        end
      end
    end
  end else begin : g_roww
    always_ff @(posedge clk_i) begin
      if (we_i) mem_q[wrow_i] <= (mem_q[wrow_i] & ~bit_en) | (wdata_i & bit_en);
    end
    logic unused_col;
    assign unused_col = ^{cwe_i, crow_i, cbe_i, cdata_i, col_en};
  end

  for (genvar k = 0; k < NumRd; k++) begin : g_rd
    assign rdata_o[k] = mem_q[rrow_i[k]];
  end
endmodule
