// sa_gbuf.sv: the global buffer (docs/TIMING.md §5a, docs/ISA.md §2): Bytes bytes, byte-addressed,
// zero at time 0 (a flop array without reset, like the other memories: the model is built with
// --x-initial 0), stored as words of one beat (BusBytes). Two ports, one per DMA unit, each taking
// one aligned beat per cycle and never stalling:
//  - the read port (load unit): the beat is sampled in its issue cycle and its data comes out
//    Latency cycles later (rd_resp_*), through a pipeline of Latency stages;
//  - the write port (store unit): the beat's strobed bytes are written in its issue cycle (at the
//    clock edge that ends it, so a read in the same cycle sees the old bytes: read before write);
//    its acknowledgement comes Latency cycles later (wr_ack_o).
// Bytes = 0 (an arch without a global buffer): no storage; the loader refuses GBUF=1 there, so the
// ports are never used (the read data is zero).
`include "sa_assert.svh"

module sa_gbuf #(
  parameter int unsigned Bytes = 4096,
  parameter int unsigned BusBytes = 4,
  parameter int unsigned Latency = 2,
  localparam int unsigned Words = (Bytes + BusBytes - 1) / BusBytes,
  localparam int unsigned WordW = (Words > 1) ? $clog2(Words) : 1,
  localparam int unsigned LogB = $clog2(BusBytes)
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  // read port: a beat at byte address rd_addr_i (aligned to BusBytes)
  input  logic                      rd_valid_i,
  input  logic [31:0]               rd_addr_i,
  output logic                      rd_resp_valid_o,
  output logic [BusBytes-1:0][7:0]  rd_resp_data_o,
  // write port
  input  logic                      wr_valid_i,
  input  logic [31:0]               wr_addr_i,
  input  logic [BusBytes-1:0]       wr_strb_i,
  input  logic [BusBytes-1:0][7:0]  wr_data_i,
  output logic                      wr_ack_o
);
  logic [BusBytes-1:0][7:0] rd_now;   // the beat sampled this cycle

  if (Bytes > 0) begin : g_mem
    logic [BusBytes-1:0][7:0] mem_q [Words];
    logic [WordW-1:0] rword, wword;
    logic [BusBytes-1:0][7:0] bit_en;
    assign rword  = WordW'(rd_addr_i >> LogB);
    assign wword  = WordW'(wr_addr_i >> LogB);
    assign rd_now = mem_q[rword];
    always_comb begin
      for (int b = 0; b < BusBytes; b++) bit_en[b] = {8{wr_strb_i[b]}};
    end
    always_ff @(posedge clk_i) begin
      if (wr_valid_i) mem_q[wword] <= (mem_q[wword] & ~bit_en) | (wr_data_i & bit_en);
    end
    // Every beat lies inside the buffer: the loader checks each LOAD's and STORE's bytes against
    // gbuf.bytes, and a beat is the aligned word around them.
    `SA_ASSERT(ReadInside, rd_valid_i |-> (rd_addr_i >> LogB) < 32'(Words),
               "sa_gbuf: a read beat beyond gbuf.bytes")
    `SA_ASSERT(WriteInside, wr_valid_i |-> (wr_addr_i >> LogB) < 32'(Words),
               "sa_gbuf: a write beat beyond gbuf.bytes")
  end else begin : g_none
    assign rd_now = '0;
    logic unused_none;
    assign unused_none = ^{rd_addr_i, wr_addr_i, wr_strb_i, wr_data_i};
    `SA_ASSERT(NoAccess, !rd_valid_i && !wr_valid_i, "sa_gbuf: an access to an arch without a global buffer")
  end

  // The response pipelines: stage k holds what was issued k+1 cycles ago.
  logic [Latency-1:0]                     rv_q, wv_q;
  logic [Latency-1:0][BusBytes-1:0][7:0]  rd_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rv_q <= '0;
      wv_q <= '0;
      rd_q <= '0;
    end else begin
      rv_q[0] <= rd_valid_i;
      wv_q[0] <= wr_valid_i;
      rd_q[0] <= rd_valid_i ? rd_now : '0;
      for (int k = 1; k < Latency; k++) begin
        rv_q[k] <= rv_q[k-1];
        wv_q[k] <= wv_q[k-1];
        rd_q[k] <= rd_q[k-1];
      end
    end
  end
  assign rd_resp_valid_o = rv_q[Latency-1];
  assign rd_resp_data_o  = rd_q[Latency-1];
  assign wr_ack_o        = wv_q[Latency-1];
endmodule
