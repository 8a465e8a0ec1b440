// sa_acc.sv: the accumulator, Rows rows of Cols int32 (docs/TIMING.md §1 "Ports"): a column
// bank per column. Each column has a read-modify-write port for the array (column c writes the
// row of the sum leaving the bottom of column c), the load unit has two read-modify-write ports
// on a whole row (its DRAM and global-buffer response paths) (with an enable per column), the store unit a combinational read port, and the
// special-function unit two combinational read ports and a write port with an enable per column. A
// flop array read combinationally: consecutive read-modify-writes of a row see each other.
// Legal (race-free) programs never write one element from two ports in one cycle, except the
// load unit's two paths, whose beats land when they arrive, possibly out of issue order (TIMING
// §5a): each element remembers the LOADs that wrote it (sequence numbers, and whether they
// accumulated: ord_t), so that a late beat gives the value the beats would give landed in issue
// order, and two beats on one row in one cycle apply in issue order. A late non-accumulating beat
// between accumulating beats that landed before it is beyond this model (OrderedAccumulate).
`include "sa_assert.svh"

module sa_acc #(
  parameter int unsigned Rows = 64,
  parameter int unsigned Cols = 4,
  localparam int unsigned RowW = (Rows > 1) ? $clog2(Rows) : 1
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // array: one port per column
  input  logic [Cols-1:0]            arr_we_i,
  input  logic [Cols-1:0][RowW-1:0]  arr_row_i,
  input  logic [Cols-1:0]            arr_accum_i,
  input  logic [Cols-1:0][31:0]      arr_data_i,
  // load unit: its DRAM and global-buffer response paths, applied in that order
  input  logic [1:0]                 ld_we_i,
  input  logic [1:0][RowW-1:0]       ld_row_i,
  input  logic [1:0][Cols-1:0]       ld_en_i,
  input  logic [1:0]                 ld_accum_i,
  input  logic [1:0][Cols-1:0][31:0] ld_data_i,
  input  logic [1:0][31:0]           ld_seq_i,    // the writing LOAD's sequence number
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
  function automatic logic younger(logic [31:0] a, logic [31:0] b);   // a issued after b
    return $signed(a - b) > 0;
  endfunction

  // What an element remembers of the LOADs that wrote it, to put a late beat in its place: the
  // youngest LOAD that wrote it without accumulating, and the sum of the accumulating LOADs'
  // values landed since (with their youngest and oldest numbers).
  typedef struct packed {
    logic        wv;
    logic [31:0] w;
    logic        an;
    logic [31:0] asum, amin, amax;
  } ord_t;

  typedef struct packed {
    logic [31:0] v;
    ord_t        o;
    logic        bad;
  } land_t;

  // Element value v with history o takes the beat of LOAD s (accumulating when a) of value d:
  // the result is the value the beats would give landed in issue order.
  function automatic land_t land(logic [31:0] v, ord_t o, logic [31:0] s, logic a, logic [31:0] d);
    land_t r;
    r.v   = v;
    r.o   = o;
    r.bad = 1'b0;
    if (o.wv && younger(o.w, s)) return r;   // a younger LOAD overwrote it: nothing to do
    if (a) begin
      r.v      = v + d;
      r.o.asum = o.an ? o.asum + d : d;
      r.o.amin = (!o.an || younger(o.amin, s)) ? s : o.amin;
      r.o.amax = (!o.an || younger(s, o.amax)) ? s : o.amax;
      r.o.an   = 1'b1;
    end else begin
      r.o.wv = 1'b1;
      r.o.w  = s;
      if (!o.an || younger(s, o.amax)) begin   // every accumulation landed so far is older
        r.v      = d;
        r.o.an   = 1'b0;
        r.o.asum = '0;
      end else if (younger(o.amin, s)) begin   // every one is younger: they go on top of it
        r.v = d + o.asum;
      end else begin                           // some of each: beyond this model
        r.bad = 1'b1;
      end
    end
    return r;
  endfunction

  for (genvar c = 0; c < Cols; c++) begin : g_col
    logic [31:0] mem_q [Rows];
    ord_t        ord_q [Rows];
    logic [1:0]  wr;
    logic        same, y;
    land_t       r0, r1, ro, ry;
    always_comb begin
      for (int p = 0; p < 2; p++) wr[p] = ld_we_i[p] && ld_en_i[p][c];
      same = wr[0] && wr[1] && ld_row_i[0] == ld_row_i[1];
      y    = younger(ld_seq_i[1], ld_seq_i[0]);
      r0   = land(mem_q[ld_row_i[0]], ord_q[ld_row_i[0]], ld_seq_i[0], ld_accum_i[0], ld_data_i[0][c]);
      r1   = land(mem_q[ld_row_i[1]], ord_q[ld_row_i[1]], ld_seq_i[1], ld_accum_i[1], ld_data_i[1][c]);
      // both on one row: the older first, then the younger
      ro   = y ? r0 : r1;
      ry   = land(ro.v, ro.o, ld_seq_i[y], ld_accum_i[y], ld_data_i[y][c]);
    end
    always_ff @(posedge clk_i) begin
      if (same) begin
        mem_q[ld_row_i[0]] <= ry.v;
        ord_q[ld_row_i[0]] <= ry.o;
      end else begin
        if (wr[0]) begin
          mem_q[ld_row_i[0]] <= r0.v;
          ord_q[ld_row_i[0]] <= r0.o;
        end
        if (wr[1]) begin
          mem_q[ld_row_i[1]] <= r1.v;
          ord_q[ld_row_i[1]] <= r1.o;
        end
      end
      if (arr_we_i[c]) begin
        mem_q[arr_row_i[c]] <= arr_accum_i[c] ? mem_q[arr_row_i[c]] + arr_data_i[c] : arr_data_i[c];
      end
      if (sfu_we_i && sfu_wr_en_i[c]) mem_q[sfu_wr_row_i] <= sfu_wr_data_i[c];
    end
    assign st_data_o[c]        = mem_q[st_row_i];
    assign sfu_rd_data_o[0][c] = mem_q[sfu_rd_row_i[0]];
    assign sfu_rd_data_o[1][c] = mem_q[sfu_rd_row_i[1]];
    logic unordered;
    assign unordered = (wr[0] && r0.bad) || (wr[1] && r1.bad) || (same && (ro.bad || ry.bad));
    `SA_ASSERT(OrderedAccumulate, !unordered,
               "sa_acc: a late LOAD beat on an ACC element falls between accumulating LOADs' beats that landed before it (the RTL lands at arrival)")
  end
endmodule
