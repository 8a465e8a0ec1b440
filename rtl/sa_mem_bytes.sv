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
  input  logic [1:0][31:0]                   wseq_i,     // the writing LOAD's sequence number
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
  // The LOAD each byte was last written by (its sequence number, wseq_i): a beat lands when its
  // response arrives, which on the two paths can be out of issue order (a global-buffer beat
  // behind a slower DRAM one, or the reverse); a byte a younger LOAD already wrote keeps that
  // value, so every byte ends as if the beats had landed in issue order (TIMING §5a).
  logic [RowBytes-1:0][31:0] ver_q [Rows];

  function automatic logic younger(logic [31:0] a, logic [31:0] b);   // a issued after b
    return $signed(a - b) > 0;
  endfunction

  // Per port, the bytes it writes (its enables, minus those a younger LOAD wrote), as bit masks.
  logic [1:0][RowBytes-1:0]       keep;
  logic [1:0][RowBytes-1:0][7:0]  bit_en;
  logic [1:0][RowBytes-1:0][31:0] ver_en;
  logic                           same;      // both ports write one row this cycle
  logic                           y;         // the port of the younger LOAD
  logic [RowBytes-1:0][7:0]       both_en_y, both_en_o;
  logic [RowBytes-1:0][31:0]      both_ver_y, both_ver_o;

  // (A byte loop of non-blocking writes into mem_q is what one would write, but Verilator 5.006
  // cannot schedule one that it does not unroll, and it unrolls at most 64 iterations: PARAM rows
  // of a 32-column array have 128 bytes. So each write is a masked write of the whole row.)
  always_comb begin
    for (int p = 0; p < 2; p++) begin
      for (int b = 0; b < RowBytes; b++) begin
        keep[p][b]   = wbe_i[p][b] && !younger(ver_q[wrow_i[p]][b], wseq_i[p]);
        bit_en[p][b] = {8{keep[p][b]}};
        ver_en[p][b] = {32{keep[p][b]}};
      end
    end
    same = we_i[0] && we_i[1] && wrow_i[0] == wrow_i[1];
    y    = younger(wseq_i[1], wseq_i[0]);
    for (int b = 0; b < RowBytes; b++) begin
      both_en_y[b]  = {8{keep[y][b]}};
      both_en_o[b]  = {8{keep[!y][b] && !keep[y][b]}};
      both_ver_y[b] = {32{keep[y][b]}};
      both_ver_o[b] = {32{keep[!y][b] && !keep[y][b]}};
    end
  end

  logic [RowBytes-1:0][31:0] seq_row [2];
  for (genvar p = 0; p < 2; p++) begin : g_seq
    assign seq_row[p] = {RowBytes{wseq_i[p]}};
  end

  // Column ccol_i of each row, as masks (column writes, ColWrite only).
  logic [1:0][RowBytes-1:0][7:0]  col_en;
  logic [1:0][RowBytes-1:0][31:0] col_ven;
  always_comb begin
    for (int p = 0; p < 2; p++) begin
      for (int b = 0; b < RowBytes; b++) begin
        col_en[p][b]  = {8{ColWrite && 32'(ccol_i[p]) == b}};
        col_ven[p][b] = {32{ColWrite && 32'(ccol_i[p]) == b}};
      end
    end
  end

  // The column writes loop over the beat's ColBytes rows (the bus width: 32 on the largest
  // shipped arch, within Verilator's 64-iteration unroll limit; tests/rtl/lint.sh checks it).
  always_ff @(posedge clk_i) begin
    if (same) begin
      mem_q[wrow_i[0]] <= (mem_q[wrow_i[0]] & ~both_en_y & ~both_en_o) | (wdata_i[y] & both_en_y) |
                          (wdata_i[!y] & both_en_o);
      ver_q[wrow_i[0]] <= (ver_q[wrow_i[0]] & ~both_ver_y & ~both_ver_o) | (seq_row[y] & both_ver_y) |
                          (seq_row[!y] & both_ver_o);
    end else begin
      if (we_i[0]) begin
        mem_q[wrow_i[0]] <= (mem_q[wrow_i[0]] & ~bit_en[0]) | (wdata_i[0] & bit_en[0]);
        ver_q[wrow_i[0]] <= (ver_q[wrow_i[0]] & ~ver_en[0]) | (seq_row[0] & ver_en[0]);
      end
      if (we_i[1]) begin
        mem_q[wrow_i[1]] <= (mem_q[wrow_i[1]] & ~bit_en[1]) | (wdata_i[1] & bit_en[1]);
        ver_q[wrow_i[1]] <= (ver_q[wrow_i[1]] & ~ver_en[1]) | (seq_row[1] & ver_en[1]);
      end
    end
    if (ColWrite && cwe_i[0]) begin
      for (int k = 0; k < ColBytes; k++) begin
        if (cbe_i[0][k] && !younger(ver_q[RowW'(32'(crow_i[0]) + k)][ccol_i[0]], wseq_i[0])) begin
          mem_q[RowW'(32'(crow_i[0]) + k)] <= (mem_q[RowW'(32'(crow_i[0]) + k)] & ~col_en[0]) |
                                             ({RowBytes{cdata_i[0][k]}} & col_en[0]);
          ver_q[RowW'(32'(crow_i[0]) + k)] <= (ver_q[RowW'(32'(crow_i[0]) + k)] & ~col_ven[0]) |
                                             (seq_row[0] & col_ven[0]);
        end
      end
    end
    if (ColWrite && cwe_i[1]) begin
      for (int k = 0; k < ColBytes; k++) begin
        if (cbe_i[1][k] && !younger(ver_q[RowW'(32'(crow_i[1]) + k)][ccol_i[1]], wseq_i[1])) begin
          mem_q[RowW'(32'(crow_i[1]) + k)] <= (mem_q[RowW'(32'(crow_i[1]) + k)] & ~col_en[1]) |
                                             ({RowBytes{cdata_i[1][k]}} & col_en[1]);
          ver_q[RowW'(32'(crow_i[1]) + k)] <= (ver_q[RowW'(32'(crow_i[1]) + k)] & ~col_ven[1]) |
                                             (seq_row[1] & col_ven[1]);
        end
      end
    end
  end

  for (genvar k = 0; k < NumRd; k++) begin : g_rd
    assign rdata_o[k] = mem_q[rrow_i[k]];
  end
endmodule
