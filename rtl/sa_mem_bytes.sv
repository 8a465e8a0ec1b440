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
  localparam int unsigned ColW = (RowBytes > 1) ? $clog2(RowBytes) : 1,
  localparam int unsigned CbW = (ColBytes > 1) ? $clog2(ColBytes) : 1
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

  // A row with the writers of its bytes.
  typedef struct packed {
    logic [RowBytes-1:0][7:0]  d;
    logic [RowBytes-1:0][31:0] v;
  } row_t;

  logic y;   // port 1 carries the younger LOAD's beat
  assign y = younger(wseq_i[1], wseq_i[0]);

  // Row r after port p's writes of this cycle (its row write, or its column write's byte in r).
  function automatic row_t apply_port(row_t x, logic [RowW-1:0] r, logic p);
    row_t        o;
    logic [RowW-1:0] k;
    o = x;
    if (we_i[p] && wrow_i[p] == r) begin
      for (int b = 0; b < RowBytes; b++) begin
        if (wbe_i[p][b] && !younger(x.v[b], wseq_i[p])) begin
          o.d[b] = wdata_i[p][b];
          o.v[b] = wseq_i[p];
        end
      end
    end
    k = r - crow_i[p];
    if (ColWrite && cwe_i[p] && 32'(k) < ColBytes && cbe_i[p][CbW'(k)] && !younger(x.v[ccol_i[p]], wseq_i[p])) begin
      o.d[ccol_i[p]] = cdata_i[p][CbW'(k)];
      o.v[ccol_i[p]] = wseq_i[p];
    end
    return o;
  endfunction

  // Row r after this cycle's writes, the older LOAD's first: every write of the cycle that touches
  // r computes the same new row, so the order of the non-blocking writes below does not matter.
  function automatic row_t new_row(logic [RowW-1:0] r);
    row_t x;
    x.d = mem_q[r];
    x.v = ver_q[r];
    x = apply_port(x, r, !y);
    return apply_port(x, r, y);
  endfunction

  // The new rows, computed only for the ports that write this cycle.
  row_t                         rnew [2];
  row_t [ColBytes-1:0]          cnew [2];
  logic [ColBytes-1:0][RowW-1:0] crows [2];
  always_comb begin
    for (int p = 0; p < 2; p++) begin
      rnew[p] = '0;
      for (int k = 0; k < ColBytes; k++) begin
        crows[p][k] = RowW'(32'(crow_i[p]) + k);
        cnew[p][k]  = '0;
      end
      if (we_i[p]) rnew[p] = new_row(wrow_i[p]);
      if (ColWrite && cwe_i[p]) begin
        for (int k = 0; k < ColBytes; k++) begin
          if (cbe_i[p][k]) cnew[p][k] = new_row(crows[p][k]);
        end
      end
    end
  end

  // (A byte loop of non-blocking writes into mem_q is what one would write, but Verilator 5.006
  // cannot schedule one that it does not unroll, and it unrolls at most 64 iterations: PARAM rows
  // of a 32-column array have 128 bytes. So each write is of a whole row.) The column writes loop
  // over the beat's ColBytes rows (the bus width: 32 on the largest shipped arch, within the
  // unroll limit; tests/rtl/lint.sh checks it).
  always_ff @(posedge clk_i) begin
    if (we_i[0]) begin
      mem_q[wrow_i[0]] <= rnew[0].d;
      ver_q[wrow_i[0]] <= rnew[0].v;
    end
    if (we_i[1]) begin
      mem_q[wrow_i[1]] <= rnew[1].d;
      ver_q[wrow_i[1]] <= rnew[1].v;
    end
    if (ColWrite && cwe_i[0]) begin
      for (int k = 0; k < ColBytes; k++) begin
        if (cbe_i[0][k]) begin
          mem_q[crows[0][k]] <= cnew[0][k].d;
          ver_q[crows[0][k]] <= cnew[0][k].v;
        end
      end
    end
    if (ColWrite && cwe_i[1]) begin
      for (int k = 0; k < ColBytes; k++) begin
        if (cbe_i[1][k]) begin
          mem_q[crows[1][k]] <= cnew[1][k].d;
          ver_q[crows[1][k]] <= cnew[1][k].v;
        end
      end
    end
  end

  for (genvar k = 0; k < NumRd; k++) begin : g_rd
    assign rdata_o[k] = mem_q[rrow_i[k]];
  end
endmodule
