// sa_top.sv: the whole machine of docs/ARCH.md and docs/TIMING.md, except DRAM and the program
// memory, which the harness serves through ports: fetch and the four instruction queues, the
// token counters, the load unit, the on-chip memories (SPAD, WBUF, ACC, PARAM, the global buffer;
// the two weight banks live in the PEs), the compute unit with its R x C array, the store unit and the
// special-function unit. Units are numbered as sa_isa_pkg's unit_e (load, compute, store, sfu).
// Parameters come from the arch (rtl/config.sh turns an arch into -G options); DRAM latency and
// in-flight limit are the DRAM model's (sim/dram.c), MaxInflight only sizes the DMA in-flight
// tables. The probe outputs (starts, ends, unit states, row events) let the harness fill the
// same statistics as the C engines without recomputing any of them.
module sa_top
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned ArrayRows = 4,
  parameter int unsigned ArrayCols = 4,
  parameter int unsigned SpadRows = 64,
  parameter int unsigned WbufRows = 32,
  parameter int unsigned AccRows = 64,
  parameter int unsigned ParamRows = 8,
  parameter int unsigned BusBytes = 4,
  parameter int unsigned MaxInflight = 4,
  parameter int unsigned LoadQueue = 4,
  parameter int unsigned ComputeQueue = 4,
  parameter int unsigned StoreQueue = 4,
  parameter int unsigned SfuQueue = 4,
  parameter int unsigned FifoRows = 2,
  parameter int unsigned PostLatency = 3,
  parameter int unsigned TokenMax = 255,
  parameter int unsigned SfuLanes = 4,
  parameter int unsigned SfuLatency = 6,
  parameter int unsigned GbufBytes = 4096,     // 0: no global buffer
  parameter int unsigned GbufBusBytes = 4,
  parameter int unsigned GbufLatency = 2,
  parameter int unsigned DramLatency = 10,     // sizes the DMA units' reorder buffers (sa_dma_rob)
  // Tests only (tests/rtl/assert.sh): 1 makes the fetch unit push into full queues, a planted
  // violation of sa_fetch's *QueueRoom assertions. 0 in every model sasim-rtl runs.
  parameter bit TestPushWhenFull = 1'b0,
  localparam int unsigned TagW = (MaxInflight > 1) ? $clog2(MaxInflight) : 1,
  localparam int unsigned TokW = $clog2(TokenMax + 1) + 2,
  localparam int unsigned KW = $clog2(ArrayRows + 1),
  localparam int unsigned BankW = (ArrayCols > 1) ? $clog2(ArrayCols) : 1
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // program memory (read combinationally)
  output logic [IDX_W-1:0]              imem_addr_o,
  input  logic [INSN_W-1:0]             imem_data_i,
  // DRAM read channel
  output logic                          rd_req_valid_o,
  output logic [ADDR_W-1:0]             rd_req_addr_o,
  output logic [TagW-1:0]               rd_req_tag_o,
  input  logic                          rd_req_accept_i,
  input  logic                          rd_resp_valid_i,
  input  logic [TagW-1:0]               rd_resp_tag_i,
  input  logic [BusBytes*8-1:0]         rd_resp_data_i,
  // DRAM write channel
  output logic                          wr_req_valid_o,
  output logic [ADDR_W-1:0]             wr_req_addr_o,
  output logic [TagW-1:0]               wr_req_tag_o,
  output logic [BusBytes*8-1:0]         wr_req_data_o,
  output logic [BusBytes-1:0]           wr_req_strb_o,
  input  logic                          wr_req_accept_i,
  input  logic                          wr_resp_valid_i,
  input  logic [TagW-1:0]               wr_resp_tag_i,
  // probes: fetch
  output logic                          fetch_o,
  output logic                          fetch_halt_o,
  output logic                          fetch_stall_o,
  output logic                          halted_o,
  // probes: per unit (0 load, 1 compute, 2 store, 3 sfu)
  output logic [NUM_UNITS-1:0]          start_o,
  output logic [NUM_UNITS-1:0][IDX_W-1:0] start_idx_o,
  output logic [NUM_UNITS-1:0]          ready_o,
  output logic [NUM_UNITS-1:0][IDX_W-1:0] ready_idx_o,
  output logic [NUM_UNITS-1:0][END_SLOTS-1:0] end_o,
  output logic [NUM_UNITS-1:0][END_SLOTS-1:0][IDX_W-1:0] end_idx_o,
  output logic [NUM_UNITS-1:0][1:0]     state_o,      // unit_state_e
  output logic [NUM_UNITS-1:0]          stall_o,
  output logic [NUM_UNITS-1:0]          active_o,
  output logic [NUM_UNITS-1:0]          head_valid_o,
  output logic [NUM_UNITS-1:0][IDX_W-1:0] head_idx_o,
  output logic [NUM_UNITS-1:0][NUM_UNITS-1:0][TokW-1:0] tokens_o,     // [from][to]
  output logic                          tok_overflow_o,
  output logic                          chain_busy_o,
  output logic                          dma_pending_o,   // LOADs or STOREs in flight (not ended)
  output logic [15:0]                   ld_end_count_o,  // LOADs ending this cycle (the oldest started)
  output logic [15:0]                   su_end_count_o,  // STOREs ending this cycle
  // probes: the global buffer's beats (issued this cycle)
  output logic                          gb_rd_o,
  output logic [ADDR_W-1:0]             gb_rd_addr_o,
  output logic                          gb_wr_o,
  output logic [ADDR_W-1:0]             gb_wr_addr_o,
  output logic [GbufBusBytes*8-1:0]     gb_wr_data_o,
  output logic [GbufBusBytes-1:0]       gb_wr_strb_o,
  // probes: work counted in the statistics
  output logic                          ld_row_o,
  output logic [IDX_W-1:0]              ld_row_idx_o,
  output logic [15:0]                   ld_row_bytes_o,
  output logic [1:0]                    ld_row_mem_o,
  output logic                          ld_row_accum_o,
  output logic                          ld_row_gbuf_o,
  output logic [KW-1:0]                 cu_start_k_o,
  output logic                          cu_spad_rd_o,
  output logic                          cu_wbuf_rd_o,
  output logic                          cu_acc_wr_o,
  output logic                          cu_acc_wr_accum_o,
  // probes: the array's accumulator writes, one port per column (the lockstep compares them)
  // (column c's ACC write before the rotator, arr_bank_o[c] the bank it goes to)
  output logic [ArrayCols-1:0]          arr_we_o,
  output logic [ArrayCols-1:0][15:0]    arr_row_o,
  output logic [ArrayCols-1:0][BankW-1:0] arr_bank_o,
  output logic [ArrayCols-1:0]          arr_accum_o,
  output logic [ArrayCols-1:0][31:0]    arr_data_o,
  output logic                          su_acc_rd_o,
  output logic                          su_param_rd_o,
  output logic                          su_row_o,
  output logic [IDX_W-1:0]              su_row_idx_o,
  output logic [15:0]                   su_row_bytes_o,
  output logic                          su_row_gbuf_o,
  // probes: the special-function unit's rows (TIMING §10) and its accumulator writes
  output logic [1:0]                    sf_acc_rd_o,
  output logic                          sf_acc_wr_o,
  output logic                          sf_param_rd_o,
  output logic                          sf_we_o,
  output logic [15:0]                   sf_row_o,
  output logic [ArrayCols-1:0]          sf_en_o,
  output logic [ArrayCols-1:0][31:0]    sf_data_o
);
  localparam int unsigned QW = IDX_W + INSN_W;
  localparam int unsigned RowBytes = (ArrayRows > 4 * ArrayCols) ? ArrayRows : 4 * ArrayCols;
  localparam int unsigned SpadW = (SpadRows > 1) ? $clog2(SpadRows) : 1;
  localparam int unsigned WbufW = (WbufRows > 1) ? $clog2(WbufRows) : 1;
  localparam int unsigned AccW = (AccRows > 1) ? $clog2(AccRows) : 1;
  localparam int unsigned ParamW = (ParamRows > 1) ? $clog2(ParamRows) : 1;
  localparam int unsigned TColW = (ArrayCols > 1) ? $clog2(ArrayCols) : 1;
  localparam int unsigned MaxBus = (BusBytes > GbufBusBytes) ? BusBytes : GbufBusBytes;

  // ---- fetch and queues ----------------------------------------------------------------------
  localparam logic [NUM_UNITS-1:0][15:0] QueueDepth = {16'(SfuQueue), 16'(StoreQueue), 16'(ComputeQueue),
                                                       16'(LoadQueue)};
  localparam int unsigned MaxQueue = (LoadQueue > ComputeQueue ? LoadQueue : ComputeQueue) >
                                     (StoreQueue > SfuQueue ? StoreQueue : SfuQueue) ?
                                     (LoadQueue > ComputeQueue ? LoadQueue : ComputeQueue) :
                                     (StoreQueue > SfuQueue ? StoreQueue : SfuQueue);
  localparam int unsigned QCntW = $clog2(MaxQueue + 1);
  logic [NUM_UNITS-1:0] q_push;
  logic [$clog2(LoadQueue + 1)-1:0]    q0_count;
  logic [$clog2(ComputeQueue + 1)-1:0] q1_count;
  logic [$clog2(StoreQueue + 1)-1:0]   q2_count;
  logic [$clog2(SfuQueue + 1)-1:0]     q3_count;
  logic [NUM_UNITS-1:0][QCntW-1:0] q_count;
  logic [NUM_UNITS-1:0][QW-1:0] q_head;
  logic [QW-1:0] q_in;
  logic [NUM_UNITS-1:0] unit_start;

  assign q_count = {QCntW'(q3_count), QCntW'(q2_count), QCntW'(q1_count), QCntW'(q0_count)};

  sa_fetch #(
    .QueueDepth (QueueDepth),
    .IgnoreFull (TestPushWhenFull),
    .CntW       (QCntW)
  ) u_fetch (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .pc_o     (imem_addr_o),
    .insn_i   (imem_data_i),
    .count_i  (q_count),
    .push_o   (q_push),
    .fetch_o  (fetch_o),
    .halt_o   (fetch_halt_o),
    .stall_o  (fetch_stall_o),
    .halted_o (halted_o)
  );

  assign q_in = {imem_addr_o, imem_data_i};

  sa_fifo #(.Width (QW), .Depth (LoadQueue)) u_q_load (
    .clk_i (clk_i), .rst_ni (rst_ni), .push_i (q_push[0]), .wdata_i (q_in), .pop_i (unit_start[0]),
    .rdata_o (q_head[0]), .count_o (q0_count), .head_o (), .tail_o ()
  );
  sa_fifo #(.Width (QW), .Depth (ComputeQueue)) u_q_compute (
    .clk_i (clk_i), .rst_ni (rst_ni), .push_i (q_push[1]), .wdata_i (q_in), .pop_i (unit_start[1]),
    .rdata_o (q_head[1]), .count_o (q1_count), .head_o (), .tail_o ()
  );
  sa_fifo #(.Width (QW), .Depth (StoreQueue)) u_q_store (
    .clk_i (clk_i), .rst_ni (rst_ni), .push_i (q_push[2]), .wdata_i (q_in), .pop_i (unit_start[2]),
    .rdata_o (q_head[2]), .count_o (q2_count), .head_o (), .tail_o ()
  );
  sa_fifo #(.Width (QW), .Depth (SfuQueue)) u_q_sfu (
    .clk_i (clk_i), .rst_ni (rst_ni), .push_i (q_push[3]), .wdata_i (q_in), .pop_i (unit_start[3]),
    .rdata_o (q_head[3]), .count_o (q3_count), .head_o (), .tail_o ()
  );

  logic [NUM_UNITS-1:0] head_valid;
  logic [NUM_UNITS-1:0][INSN_W-1:0] head_insn;
  logic [NUM_UNITS-1:0][IDX_W-1:0]  head_idx;
  for (genvar u = 0; u < NUM_UNITS; u++) begin : g_head
    assign head_valid[u] = q_count[u] != '0;
    assign head_insn[u] = q_head[u][INSN_W-1:0];
    assign head_idx[u]  = q_head[u][QW-1:INSN_W];
  end

  // ---- tokens --------------------------------------------------------------------------------
  // POP and PUSH are 3 bits in the word; units_of turns them into unit sets (the own-unit bit
  // names the SFU, docs/ISA.md §3).
  logic [NUM_UNITS-1:0][NUM_UNITS-1:0][TokW-1:0] tokens;
  logic [NUM_UNITS-1:0][NUM_UNITS-1:0]           tok_pop;     // [to][from]
  logic [NUM_UNITS-1:0][NUM_UNITS-1:0][PUSH_CNT_W-1:0] tok_push;    // [from][to]
  logic [NUM_UNITS-1:0][PUSH_CNT_W-1:0] ld_end_push, su_end_ack_push;  // the DMA units' ends' pushes
  logic [NUM_UNITS-1:0]                          tok_ok;
  logic [NUM_UNITS-1:0][END_SLOTS-1:0][PUSH_W-1:0] end_push;  // the raw PUSH field of each end

  for (genvar u = 0; u < NUM_UNITS; u++) begin : g_tok
    logic [NUM_UNITS-1:0] pop_set;
    assign pop_set = units_of(unit_e'(u), head_insn[u][POP_LSB +: POP_W]);
    always_comb begin
      tok_ok[u] = 1'b1;
      for (int v = 0; v < NUM_UNITS; v++) begin
        if (pop_set[v] && tokens[v][u] == '0) tok_ok[u] = 1'b0;
      end
    end
    assign tok_pop[u] = unit_start[u] ? pop_set : '0;
    logic [END_SLOTS-1:0][NUM_UNITS-1:0] push_set;
    for (genvar s = 0; s < END_SLOTS; s++) begin : g_slot
      assign push_set[s] = units_of(unit_e'(u), end_push[u][s]);
    end
    for (genvar v = 0; v < NUM_UNITS; v++) begin : g_push
      always_comb begin
        tok_push[u][v] = '0;
        for (int s = 0; s < END_SLOTS; s++) begin
          if (end_o[u][s] && push_set[s][v]) tok_push[u][v] = tok_push[u][v] + PUSH_CNT_W'(1);
        end
        if (u == UNIT_LOAD) tok_push[u][v] = tok_push[u][v] + ld_end_push[v];
        if (u == UNIT_STORE) tok_push[u][v] = tok_push[u][v] + su_end_ack_push[v];
      end
    end
  end

  sa_tokens #(
    .TokenMax (TokenMax)
  ) u_tokens (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .pop_i      (tok_pop),
    .push_i     (tok_push),
    .count_o    (tokens),
    .overflow_o (tok_overflow_o)
  );

  // ---- memories ------------------------------------------------------------------------------
  logic                         mw_valid;
  logic [1:0]                   mw_mem;
  logic [15:0]                  mw_row;
  logic [RowBytes-1:0]          mw_be;
  logic [RowBytes-1:0][7:0]     mw_data;
  logic [ArrayCols-1:0]         ld_acc_en;
  logic [ArrayCols-1:0][31:0]   ld_acc_data;
  logic                         ld_acc_accum;
  logic                         mw_t_valid;
  logic [15:0]                  mw_trow;
  logic [TColW-1:0]             mw_tcol;
  logic [MaxBus-1:0]            mw_tbe;
  logic [MaxBus-1:0][7:0]       mw_tdata;
  logic [SpadW-1:0]             spad_rrow;
  logic [0:0][ArrayRows-1:0][7:0] spad_rdata;
  logic [WbufW-1:0]             wbuf_rrow;
  logic [0:0][ArrayCols-1:0][7:0] wbuf_rdata;
  logic [5:0][ParamW-1:0]       param_rrow;      // 0..2 the store unit's, 3..5 the SFU's
  logic [5:0][4*ArrayCols-1:0][7:0] param_rdata;
  logic [1:0][AccW-1:0]         sf_acc_rrow;
  logic [1:0][ArrayCols-1:0][31:0] sf_acc_rdata;
  logic                         sf_we;
  logic [AccW-1:0]              sf_wrow;
  logic [ArrayCols-1:0]         sf_wen;
  logic [ArrayCols-1:0][31:0]   sf_wdata;
  logic [ArrayCols-1:0]         arr_we, arr_accum;       // per array column
  logic [ArrayCols-1:0][AccW-1:0] arr_row;
  logic [ArrayCols-1:0][31:0]   arr_data;
  logic [ArrayCols-1:0][BankW-1:0] arr_bank;
  logic                         rot_is;
  logic [BankW-1:0]             rot;
  logic [ArrayCols-1:0]         bank_we, bank_accum;     // per accumulator bank
  logic [ArrayCols-1:0][AccW-1:0] bank_row;
  logic [ArrayCols-1:0][31:0]   bank_data;
  logic [AccW-1:0]              st_acc_row;
  logic [ArrayCols-1:0][31:0]   st_acc_data;

  sa_mem_bytes #(
    .Rows (SpadRows), .RowBytes (ArrayRows), .NumRd (1)
  ) u_spad (
    .clk_i   (clk_i),
    .we_i    (mw_valid && mw_mem == MEM_SPAD),
    .wrow_i  (SpadW'(mw_row)),
    .wbe_i   (mw_be[ArrayRows-1:0]),
    .wdata_i (mw_data[ArrayRows-1:0]),
    .cwe_i   (1'b0),
    .crow_i  ('0),
    .ccol_i  ('0),
    .cbe_i   ('0),
    .cdata_i ('0),
    .rrow_i  (spad_rrow),
    .rdata_o (spad_rdata)
  );

  // The weight buffer also takes a transposed LOAD's beat down one column (TIMING §1).
  sa_mem_bytes #(
    .Rows (WbufRows), .RowBytes (ArrayCols), .NumRd (1), .ColWrite (1'b1), .ColBytes (MaxBus)
  ) u_wbuf (
    .clk_i   (clk_i),
    .we_i    (mw_valid && mw_mem == MEM_WBUF),
    .wrow_i  (WbufW'(mw_row)),
    .wbe_i   (mw_be[ArrayCols-1:0]),
    .wdata_i (mw_data[ArrayCols-1:0]),
    .cwe_i   (mw_t_valid),
    .crow_i  (WbufW'(mw_trow)),
    .ccol_i  (mw_tcol),
    .cbe_i   (mw_tbe),
    .cdata_i (mw_tdata),
    .rrow_i  (wbuf_rrow),
    .rdata_o (wbuf_rdata)
  );

  sa_mem_bytes #(
    .Rows (ParamRows), .RowBytes (4 * ArrayCols), .NumRd (6)
  ) u_param (
    .clk_i   (clk_i),
    .we_i    (mw_valid && mw_mem == MEM_PARAM),
    .wrow_i  (ParamW'(mw_row)),
    .wbe_i   (mw_be[4*ArrayCols-1:0]),
    .wdata_i (mw_data[4*ArrayCols-1:0]),
    .cwe_i   (1'b0),
    .crow_i  ('0),
    .ccol_i  ('0),
    .cbe_i   ('0),
    .cdata_i ('0),
    .rrow_i  (param_rrow),
    .rdata_o (param_rdata)
  );

  sa_rotator #(
    .Cols (ArrayCols), .RowW (AccW)
  ) u_rot (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .is_i    (rot_is),
    .rot_i   (rot),
    .we_i    (arr_we),
    .bank_i  (arr_bank),
    .row_i   (arr_row),
    .accum_i (arr_accum),
    .data_i  (arr_data),
    .we_o    (bank_we),
    .row_o   (bank_row),
    .accum_o (bank_accum),
    .data_o  (bank_data)
  );

  sa_acc #(
    .Rows (AccRows), .Cols (ArrayCols)
  ) u_acc (
    .clk_i       (clk_i),
    .arr_we_i    (bank_we),
    .arr_row_i   (bank_row),
    .arr_accum_i (bank_accum),
    .arr_data_i  (bank_data),
    .ld_we_i     (mw_valid && mw_mem == MEM_ACC),
    .ld_row_i    (AccW'(mw_row)),
    .ld_en_i     (ld_acc_en),
    .ld_accum_i  (ld_acc_accum),
    .ld_data_i   (ld_acc_data),
    .st_row_i    (st_acc_row),
    .st_data_o   (st_acc_data),
    .sfu_rd_row_i  (sf_acc_rrow),
    .sfu_rd_data_o (sf_acc_rdata),
    .sfu_we_i      (sf_we),
    .sfu_wr_row_i  (sf_wrow),
    .sfu_wr_en_i   (sf_wen),
    .sfu_wr_data_i (sf_wdata)
  );

  // ---- units ---------------------------------------------------------------------------------
  logic [NUM_UNITS-1:0] in_insn, stall, ready;
  logic [NUM_UNITS-1:0][IDX_W-1:0] ready_idx;
  logic sf_end_cfg, sf_end;
  logic [IDX_W-1:0] sf_end_idx;
  logic [PUSH_W-1:0] sf_end_push;
  logic ld_end_cfg, cu_end_cfg, cu_end_chain, cu_end_arr, su_end_cfg;
  logic [IDX_W-1:0] cu_end_chain_idx, cu_end_arr_idx;
  logic [PUSH_W-1:0] cu_end_chain_push, cu_end_arr_push;
  // a DMA unit's LOADs / STOREs end in order, one a cycle at most (sa_dma_rob)
  logic ld_pending, su_pending;
  // the global buffer's ports
  logic gb_rd_valid, gb_rd_resp_valid, gb_wr_valid, gb_wr_ack;
  logic [ADDR_W-1:0] gb_rd_addr, gb_wr_addr;
  logic [GbufBusBytes-1:0][7:0] gb_rd_resp_data, gb_wr_data;
  logic [GbufBusBytes-1:0] gb_wr_strb;

  sa_gbuf #(
    .Bytes (GbufBytes), .BusBytes (GbufBusBytes), .Latency (GbufLatency)
  ) u_gbuf (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .rd_valid_i      (gb_rd_valid),
    .rd_addr_i       (gb_rd_addr),
    .rd_resp_valid_o (gb_rd_resp_valid),
    .rd_resp_data_o  (gb_rd_resp_data),
    .wr_valid_i      (gb_wr_valid),
    .wr_addr_i       (gb_wr_addr),
    .wr_strb_i       (gb_wr_strb),
    .wr_data_i       (gb_wr_data),
    .wr_ack_o        (gb_wr_ack)
  );

  assign gb_rd_o       = gb_rd_valid;
  assign gb_rd_addr_o  = gb_rd_addr;
  assign gb_wr_o       = gb_wr_valid;
  assign gb_wr_addr_o  = gb_wr_addr;
  assign gb_wr_data_o  = gb_wr_data;
  assign gb_wr_strb_o  = gb_wr_strb;
  assign dma_pending_o = ld_pending || su_pending;

  sa_load #(
    .ArrayRows (ArrayRows), .ArrayCols (ArrayCols), .BusBytes (BusBytes), .MaxInflight (MaxInflight),
    .GbufBusBytes (GbufBusBytes), .GbufLatency (GbufLatency), .DramLatency (DramLatency)
  ) u_load (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .head_valid_i    (head_valid[0]),
    .head_insn_i     (head_insn[0]),
    .head_idx_i      (head_idx[0]),
    .tok_ok_i        (tok_ok[0]),
    .start_o         (unit_start[0]),
    .rd_valid_o      (rd_req_valid_o),
    .rd_addr_o       (rd_req_addr_o),
    .rd_tag_o        (rd_req_tag_o),
    .rd_accept_i     (rd_req_accept_i),
    .rd_resp_valid_i (rd_resp_valid_i),
    .rd_resp_tag_i   (rd_resp_tag_i),
    .rd_resp_data_i  (rd_resp_data_i),
    .gb_valid_o      (gb_rd_valid),
    .gb_addr_o       (gb_rd_addr),
    .gb_resp_valid_i (gb_rd_resp_valid),
    .gb_resp_data_i  (gb_rd_resp_data),
    .mw_valid_o      (mw_valid),
    .mw_mem_o        (mw_mem),
    .mw_row_o        (mw_row),
    .mw_be_o         (mw_be),
    .mw_data_o       (mw_data),
    .acc_en_o        (ld_acc_en),
    .acc_data_o      (ld_acc_data),
    .acc_accum_o     (ld_acc_accum),
    .mw_t_valid_o    (mw_t_valid),
    .mw_trow_o       (mw_trow),
    .mw_tcol_o       (mw_tcol),
    .mw_tbe_o        (mw_tbe),
    .mw_tdata_o      (mw_tdata),
    .inside_o        (in_insn[0]),
    .stall_o         (stall[0]),
    .active_o        (active_o[0]),
    .ready_o         (ready[0]),
    .ready_idx_o     (ready_idx[0]),
    .end_cfg_o       (ld_end_cfg),
    .end_ld_count_o  (ld_end_count_o),
    .end_ld_push_o   (ld_end_push),
    .pending_o       (ld_pending),
    .row_o           (ld_row_o),
    .row_idx_o       (ld_row_idx_o),
    .row_bytes_o     (ld_row_bytes_o),
    .row_mem_o       (ld_row_mem_o),
    .row_accum_o     (ld_row_accum_o),
    .row_gbuf_o      (ld_row_gbuf_o)
  );

  sa_compute #(
    .ArrayRows (ArrayRows), .ArrayCols (ArrayCols), .SpadRows (SpadRows), .WbufRows (WbufRows),
    .AccRows (AccRows)
  ) u_compute (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .head_valid_i     (head_valid[1]),
    .head_insn_i      (head_insn[1]),
    .head_idx_i       (head_idx[1]),
    .tok_ok_i         (tok_ok[1]),
    .start_o          (unit_start[1]),
    .spad_row_o       (spad_rrow),
    .spad_data_i      (spad_rdata[0]),
    .wbuf_row_o       (wbuf_rrow),
    .wbuf_data_i      (wbuf_rdata[0]),
    .acc_we_o         (arr_we),
    .acc_bank_o       (arr_bank),
    .rot_is_o         (rot_is),
    .rot_o            (rot),
    .acc_row_o        (arr_row),
    .acc_accum_o      (arr_accum),
    .acc_data_o       (arr_data),
    .inside_o         (in_insn[1]),
    .active_o         (active_o[1]),
    .chain_busy_o     (chain_busy_o),
    .ready_o          (ready[1]),
    .ready_idx_o      (ready_idx[1]),
    .end_cfg_o        (cu_end_cfg),
    .end_chain_o      (cu_end_chain),
    .end_chain_idx_o  (cu_end_chain_idx),
    .end_chain_push_o (cu_end_chain_push),
    .end_arr_o        (cu_end_arr),
    .end_arr_idx_o    (cu_end_arr_idx),
    .end_arr_push_o   (cu_end_arr_push),
    .start_k_o        (cu_start_k_o),
    .spad_rd_o        (cu_spad_rd_o),
    .wbuf_rd_o        (cu_wbuf_rd_o),
    .acc_wr_o         (cu_acc_wr_o),
    .acc_wr_accum_o   (cu_acc_wr_accum_o)
  );
  assign stall[1] = 1'b0;

  sa_store #(
    .ArrayCols (ArrayCols), .AccRows (AccRows), .ParamRows (ParamRows), .BusBytes (BusBytes),
    .MaxInflight (MaxInflight), .FifoRows (FifoRows), .PostLatency (PostLatency),
    .GbufBusBytes (GbufBusBytes), .GbufLatency (GbufLatency), .DramLatency (DramLatency)
  ) u_store (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .head_valid_i    (head_valid[2]),
    .head_insn_i     (head_insn[2]),
    .head_idx_i      (head_idx[2]),
    .tok_ok_i        (tok_ok[2]),
    .start_o         (unit_start[2]),
    .acc_row_o       (st_acc_row),
    .acc_data_i      (st_acc_data),
    .param_row_o     (param_rrow[2:0]),
    .param_data_i    (param_rdata[2:0]),
    .wr_valid_o      (wr_req_valid_o),
    .wr_addr_o       (wr_req_addr_o),
    .wr_tag_o        (wr_req_tag_o),
    .wr_data_o       (wr_req_data_o),
    .wr_strb_o       (wr_req_strb_o),
    .wr_accept_i     (wr_req_accept_i),
    .wr_resp_valid_i (wr_resp_valid_i),
    .wr_resp_tag_i   (wr_resp_tag_i),
    .gb_valid_o      (gb_wr_valid),
    .gb_addr_o       (gb_wr_addr),
    .gb_data_o       (gb_wr_data),
    .gb_strb_o       (gb_wr_strb),
    .gb_ack_i        (gb_wr_ack),
    .inside_o        (in_insn[2]),
    .stall_o         (stall[2]),
    .active_o        (active_o[2]),
    .ready_o         (ready[2]),
    .ready_idx_o     (ready_idx[2]),
    .end_cfg_o       (su_end_cfg),
    .end_ack_count_o (su_end_count_o),
    .end_ack_push_o  (su_end_ack_push),
    .pending_o       (su_pending),
    .row_o           (su_row_o),
    .row_idx_o       (su_row_idx_o),
    .row_bytes_o     (su_row_bytes_o),
    .row_gbuf_o      (su_row_gbuf_o),
    .acc_rd_o        (su_acc_rd_o),
    .param_rd_o      (su_param_rd_o)
  );

  sa_sfu_unit #(
    .ArrayCols (ArrayCols), .AccRows (AccRows), .ParamRows (ParamRows), .Lanes (SfuLanes),
    .Latency (SfuLatency)
  ) u_sfu (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .head_valid_i   (head_valid[3]),
    .head_insn_i    (head_insn[3]),
    .head_idx_i     (head_idx[3]),
    .tok_ok_i       (tok_ok[3]),
    .start_o        (unit_start[3]),
    .acc_rd_row_o   (sf_acc_rrow),
    .acc_rd_data_i  (sf_acc_rdata),
    .acc_we_o       (sf_we),
    .acc_wr_row_o   (sf_wrow),
    .acc_wr_en_o    (sf_wen),
    .acc_wr_data_o  (sf_wdata),
    .param_row_o    (param_rrow[5:3]),
    .param_data_i   (param_rdata[5:3]),
    .inside_o       (in_insn[3]),
    .active_o       (active_o[3]),
    .ready_o        (ready[3]),
    .ready_idx_o    (ready_idx[3]),
    .end_cfg_o      (sf_end_cfg),
    .end_o          (sf_end),
    .end_idx_o      (sf_end_idx),
    .end_push_o     (sf_end_push),
    .acc_rd_o       (sf_acc_rd_o),
    .acc_wr_o       (sf_acc_wr_o),
    .param_rd_o     (sf_param_rd_o)
  );
  assign stall[3]  = 1'b0;
  assign sf_we_o   = sf_we;
  assign sf_row_o  = 16'(sf_wrow);
  assign sf_en_o   = sf_wen;
  assign sf_data_o = sf_wdata;

  // ---- probes --------------------------------------------------------------------------------
  // End slots: 0 the instruction started this cycle (configuration class), 1 a DMA or weight
  // chain end or the SFU's end, 2 the array's last accumulator write. The DMA units' LOADs and
  // STOREs end in order, at most one a cycle each: ld_end_count_o / su_end_count_o.
  always_comb begin
    end_o    = '0;
    end_idx_o = '0;
    end_push = '0;
    end_o[0][0] = ld_end_cfg;  end_idx_o[0][0] = head_idx[0];
    end_push[0][0] = head_insn[0][PUSH_LSB +: PUSH_W];
    end_o[1][0] = cu_end_cfg;  end_idx_o[1][0] = head_idx[1];
    end_push[1][0] = head_insn[1][PUSH_LSB +: PUSH_W];
    end_o[1][1] = cu_end_chain; end_idx_o[1][1] = cu_end_chain_idx; end_push[1][1] = cu_end_chain_push;
    end_o[1][2] = cu_end_arr;  end_idx_o[1][2] = cu_end_arr_idx; end_push[1][2] = cu_end_arr_push;
    end_o[2][0] = su_end_cfg;  end_idx_o[2][0] = head_idx[2];
    end_push[2][0] = head_insn[2][PUSH_LSB +: PUSH_W];

    end_o[3][0] = sf_end_cfg;  end_idx_o[3][0] = head_idx[3];
    end_push[3][0] = head_insn[3][PUSH_LSB +: PUSH_W];
    end_o[3][1] = sf_end;      end_idx_o[3][1] = sf_end_idx;   end_push[3][1] = sf_end_push;
  end

  for (genvar u = 0; u < NUM_UNITS; u++) begin : g_probe
    always_comb begin
      if (in_insn[u]) state_o[u] = stall[u] ? UST_WAIT_RES : UST_BUSY;
      else if (head_valid[u]) state_o[u] = tok_ok[u] ? UST_WAIT_RES : UST_WAIT_TOKEN;
      else state_o[u] = UST_IDLE;
    end
    assign start_idx_o[u] = head_idx[u];
  end

  assign start_o      = unit_start;
  assign ready_o      = ready;
  assign ready_idx_o  = ready_idx;
  assign stall_o      = stall;
  assign head_valid_o = head_valid;
  assign head_idx_o   = head_idx;
  assign tokens_o     = tokens;
  assign arr_we_o     = arr_we;
  assign arr_accum_o  = arr_accum;
  assign arr_bank_o   = arr_bank;
  assign arr_data_o   = arr_data;
  for (genvar c = 0; c < ArrayCols; c++) begin : g_arr_row
    assign arr_row_o[c] = 16'(arr_row[c]);
  end

  // Row numbers are 16 bits in the ISA; each memory uses the bits its size needs.
  logic unused_top;
  assign unused_top = ^{mw_row, mw_trow};
endmodule
