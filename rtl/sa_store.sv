// sa_store.sv: the store unit (docs/TIMING.md §7, sim/detailed_store.c). CFG_STORE, CFG_POOL and
// LAYER execute in their start cycle. A STORE latches its fields, the configuration registers and
// (PARAMS=1) the bias, multiplier and shift rows of PARAM at its start, then three stages work
// at once, the front end from the start cycle on:
//  - front end: output row j takes W cycles, one window position per cycle (W = KH*KW pooled,
//    else 1); a position inside the input reads one ACC row and folds it into the per-column
//    window value (the post-processed value for none/max, the biased sum for avg, the raw int32
//    for RAW32). A row starts only if the FIFO had a free slot at the start of the cycle; its
//    slot is held until its last beat is issued. At its last position the row's bytes are made
//    (sa_post per column) and written into the slot;
//  - the post-processing pipeline: a row finished in cycle x is ready to write from cycle x + S;
//  - the write port: the oldest FIFO row, once ready, offers its aligned beats with byte strobes
//    to the write channel, one per cycle; a refused beat is a stall.
// A STORE with GBUF=1 (TIMING §5a) writes its rows in beats of GbufBusBytes to the global
// buffer's write port instead (sa_gbuf: written in the issue cycle, never refused, acknowledged
// GbufLatency cycles later). Every issued beat, on either memory, takes an entry of the reorder
// buffer (sa_dma_rob), which its acknowledgement fills; the buffer hands the acknowledgements over
// in issue order, one per cycle (A_b = max(I_b + L_b, A_(b-1) + 1)).
// ready = the cycle after the last beat was accepted; the STORE ends when the acknowledgement of
// its last beat is handed over (e = A_last).
`include "sa_assert.svh"

module sa_store
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned ArrayCols = 4,
  parameter int unsigned AccRows = 64,
  parameter int unsigned ParamRows = 8,
  parameter int unsigned BusBytes = 4,
  parameter int unsigned MaxInflight = 4,
  parameter int unsigned FifoRows = 2,
  parameter int unsigned PostLatency = 3,
  parameter int unsigned GbufBusBytes = 4,
  parameter int unsigned GbufLatency = 2,
  parameter int unsigned DramLatency = 10,
  localparam int unsigned AccW = (AccRows > 1) ? $clog2(AccRows) : 1,
  localparam int unsigned ParamW = (ParamRows > 1) ? $clog2(ParamRows) : 1,
  localparam int unsigned TagW = (MaxInflight > 1) ? $clog2(MaxInflight) : 1,
  localparam int unsigned SlotW = (FifoRows > 1) ? $clog2(FifoRows) : 1,
  localparam int unsigned CntW = $clog2(FifoRows + 1),
  localparam int unsigned RowBytes = 4 * ArrayCols,
  localparam int unsigned LogB = $clog2(BusBytes),
  localparam int unsigned LogG = $clog2(GbufBusBytes),
  localparam int unsigned MaxBus = (BusBytes > GbufBusBytes) ? BusBytes : GbufBusBytes,
  localparam int unsigned RobDepth = ((DramLatency > GbufLatency) ? DramLatency : GbufLatency) + 1,
  localparam int unsigned RobW = (RobDepth > 1) ? $clog2(RobDepth) : 1
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  input  logic                            head_valid_i,
  input  logic [INSN_W-1:0]               head_insn_i,
  input  logic [IDX_W-1:0]                head_idx_i,
  input  logic                            tok_ok_i,
  output logic                            start_o,
  // accumulator and parameter read ports
  output logic [AccW-1:0]                 acc_row_o,
  input  logic [ArrayCols-1:0][31:0]      acc_data_i,
  output logic [2:0][ParamW-1:0]          param_row_o,
  input  logic [2:0][RowBytes-1:0][7:0]   param_data_i,
  // DRAM write channel
  output logic                            wr_valid_o,
  output logic [ADDR_W-1:0]               wr_addr_o,
  output logic [TagW-1:0]                 wr_tag_o,
  output logic [BusBytes-1:0][7:0]        wr_data_o,
  output logic [BusBytes-1:0]             wr_strb_o,
  input  logic                            wr_accept_i,
  input  logic                            wr_resp_valid_i,
  input  logic [TagW-1:0]                 wr_resp_tag_i,
  // global buffer write port (sa_gbuf)
  output logic                            gb_valid_o,
  output logic [ADDR_W-1:0]               gb_addr_o,
  output logic [GbufBusBytes-1:0][7:0]    gb_data_o,
  output logic [GbufBusBytes-1:0]         gb_strb_o,
  input  logic                            gb_ack_i,
  // events
  output logic                            inside_o,
  output logic                            stall_o,
  output logic                            active_o,
  output logic                            ready_o,
  output logic [IDX_W-1:0]                ready_idx_o,
  output logic                            end_cfg_o,
  output logic [15:0]                     end_ack_count_o, // STOREs ending now, the oldest in flight
  output logic [NUM_UNITS-1:0][PUSH_CNT_W-1:0] end_ack_push_o, // ... their token pushes per unit
  output logic                            pending_o,    // STOREs in flight (not ended)
  output logic                            row_o,        // a row's last beat was accepted
  output logic [IDX_W-1:0]                row_idx_o,
  output logic [15:0]                     row_bytes_o,
  output logic                            row_gbuf_o,   // ... into the global buffer
  output logic                            acc_rd_o,
  output logic                            param_rd_o
);
  // The STORE in progress with the registers it latched.
  typedef struct packed {
    logic             active;
    logic             gbuf;       // GBUF=1: beats of GbufBusBytes to the global buffer
    logic [IDX_W-1:0] idx;
    logic [PUSH_W-1:0] push;      // its PUSH field (the last acknowledgement ends the STORE)
    logic             raw32;
    logic [SRC_W-1:0] src;
    logic [DRAM_ADDR_W-1:0] addr;
    logic [OUTER_W-1:0] outer;
    logic [INNER_W-1:0] inner;
    logic [23:0]      nrows;
    logic [15:0]      nbytes;
    logic [ACT_W-1:0] act;
    logic [CLAMP_LO_W-1:0] lo;
    logic [CLAMP_HI_W-1:0] hi;
    logic [STRIDE_OUTER_W-1:0] so;
    logic [STRIDE_INNER_W-1:0] si;
    logic [POOL_W-1:0] pool;
    logic [KH_W-1:0]  kh;
    logic [KW_W-1:0]  kw;
    logic [SH_W-1:0]  sh;
    logic [SW_W-1:0]  sw;
    logic [PAD_T_W-1:0] pad_t;
    logic [PAD_L_W-1:0] pad_l;
    logic [IN_H_W-1:0] in_h;
    logic [IN_W_W-1:0] in_w;
  } lat_t;

  // Front end and write-port progress.
  typedef struct packed {
    logic             busy;        // a row's window is being read
    logic [SlotW-1:0] slot;
    logic [23:0]      j;           // its row number
    logic [11:0]      o, i;        // its coordinates
    logic [3:0]       ky, kx;      // the window position read next
    logic [23:0]      started;     // rows started
    logic [11:0]      no, ni;      // coordinates of the next row to start
    logic [23:0]      written;     // rows whose last beat was accepted
    logic [15:0]      beats;       // beats of the head row already accepted
  } prog_t;

  typedef struct packed {
    logic [PUSH_W-1:0] push;
    logic             last;
  } ack_t;

  opcode_e op;
  logic    start_st, start_cfg;

  // CFG_STORE / CFG_POOL registers, as wide as their fields (sa_isa_pkg)
  logic [ACT_W-1:0]          act_q;
  logic [POOL_W-1:0]         pool_q;
  logic                      params_q;
  logic [PROW_W-1:0]         prow_q;
  logic [CLAMP_LO_W-1:0]     lo_q;
  logic [CLAMP_HI_W-1:0]     hi_q;
  logic [STRIDE_OUTER_W-1:0] so_q;
  logic [STRIDE_INNER_W-1:0] si_q;
  logic [KH_W-1:0]           kh_q;
  logic [KW_W-1:0]           kw_q;
  logic [SH_W-1:0]           sh_q;
  logic [SW_W-1:0]           sw_q;
  logic [PAD_T_W-1:0]        pad_t_q;
  logic [PAD_L_W-1:0]        pad_l_q;
  logic [IN_H_W-1:0]         in_h_q;
  logic [IN_W_W-1:0]         in_w_q;

  lat_t  l_q, l_cur, l_init, l_d;
  prog_t p_q, p_cur, p_d;
  logic [ArrayCols-1:0][31:0] bias_q, mult_q, bias_cur, mult_cur, bias_init, mult_init;
  logic [ArrayCols-1:0][5:0]  shift_q, shift_cur, shift_init;
  logic [ArrayCols-1:0][39:0] win_q, win_n;

  // FIFO of rows
  logic [SlotW-1:0] head_q, tail_q;
  logic [CntW-1:0]  count_q;
  logic [FifoRows-1:0] ready_q;
  logic [31:0]          slot_addr_q [FifoRows];
  logic [RowBytes-1:0][7:0] slot_bytes_q [FifoRows];

  assign op        = opcode_e'(head_insn_i[OP_LSB +: OP_W]);
  assign start_o   = head_valid_i && tok_ok_i && !l_q.active;
  assign start_st  = start_o && op == OP_STORE;
  assign start_cfg = start_o && op != OP_STORE;

  // The opcodes this unit decodes. isa/isa_ops.def must route exactly these here: a new opcode
  // routed to the store unit stops elaboration until the unit handles it.
  localparam logic [NUM_OPCODES-1:0] Decoded = op_bit(OP_STORE) | op_bit(OP_CFG_STORE) | op_bit(OP_CFG_POOL) | op_bit(OP_LAYER);
  if (Decoded != UNIT_STORE_OPS) begin : g_isa_check
    localparam logic [NUM_OPCODES-1:0] Diff = Decoded ^ UNIT_STORE_OPS;
    localparam logic [OP_W-1:0] First = OP_W'($clog2(Diff & ~(Diff - 1)));   // lowest differing opcode
    if (UNIT_STORE_OPS[First]) begin : g_new
      $fatal(1, "sa_store: isa/isa_ops.def routes opcode 0x%h to the store unit, which does not decode it", First);
    end else begin : g_gone
      $fatal(1, "sa_store: isa/isa_ops.def no longer routes opcode 0x%h to the store unit, which decodes it", First);
    end
  end
  `SA_ASSERT(OwnOpcode, start_o |-> UNIT_STORE_OPS[op], "sa_store: started an opcode routed to another unit")

  // ---- latch at the start --------------------------------------------------------------------
  logic use_params;
  always_comb begin
    logic [15:0] cols;
    l_init        = '0;
    l_init.active = 1'b1;
    l_init.gbuf   = head_insn_i[GBUF_LSB];
    l_init.idx    = head_idx_i;
    l_init.push   = head_insn_i[PUSH_LSB +: PUSH_W];
    l_init.raw32  = head_insn_i[RAW32_LSB];
    l_init.src    = head_insn_i[SRC_LSB +: SRC_W];
    l_init.addr   = head_insn_i[DRAM_ADDR_LSB +: DRAM_ADDR_W];
    l_init.outer  = head_insn_i[OUTER_LSB +: OUTER_W];
    l_init.inner  = head_insn_i[INNER_LSB +: INNER_W];
    cols          = head_insn_i[COLS_LSB +: COLS_W];
    if (32'(cols) > ArrayCols) cols = 16'(ArrayCols);
    l_init.nrows  = 24'(l_init.outer) * 24'(l_init.inner);
    l_init.nbytes = l_init.raw32 ? {cols[13:0], 2'b00} : cols;
    l_init.act    = act_q;
    l_init.lo     = lo_q;
    l_init.hi     = hi_q;
    l_init.so     = so_q;
    l_init.si     = si_q;
    l_init.pool   = l_init.raw32 ? POOL_NONE : pool_q;
    l_init.kh     = kh_q;
    l_init.kw     = kw_q;
    l_init.sh     = sh_q;
    l_init.sw     = sw_q;
    l_init.pad_t  = pad_t_q;
    l_init.pad_l  = pad_l_q;
    l_init.in_h   = in_h_q;
    l_init.in_w   = in_w_q;
  end

  assign use_params     = params_q && !head_insn_i[RAW32_LSB];
  assign param_row_o[0] = ParamW'(prow_q);
  assign param_row_o[1] = ParamW'(32'(prow_q) + 32'd1);
  assign param_row_o[2] = ParamW'(32'(prow_q) + 32'd2);

  for (genvar c = 0; c < ArrayCols; c++) begin : g_param
    assign bias_init[c]  = use_params ? param_data_i[0][4*c +: 4] : 32'd0;
    assign mult_init[c]  = use_params ? param_data_i[1][4*c +: 4] : 32'd1;
    assign shift_init[c] = use_params ? param_data_i[2][4*c][5:0] : 6'd0;
  end

  assign l_cur     = start_st ? l_init : l_q;
  assign bias_cur  = start_st ? bias_init : bias_q;
  assign mult_cur  = start_st ? mult_init : mult_q;
  assign shift_cur = start_st ? shift_init : shift_q;

  always_comb begin
    p_cur = p_q;
    if (start_st) p_cur = '0;
  end

  // ---- write port (the FIFO head row) --------------------------------------------------------
  logic        offered, accepted, row_done, freed;
  logic [31:0] ra, beat, nbeats, bsz;
  logic [5:0]  logb;
  logic signed [32:0] off;
  logic [MaxBus-1:0]      strb;
  logic [MaxBus-1:0][7:0] data;

  assign bsz     = l_cur.gbuf ? 32'(GbufBusBytes) : 32'(BusBytes);
  assign logb    = l_cur.gbuf ? 6'(LogG) : 6'(LogB);
  assign ra      = slot_addr_q[head_q];
  assign beat    = (ra & ~(bsz - 32'd1)) + 32'(p_cur.beats) * bsz;
  assign off     = $signed({1'b0, beat}) - $signed({1'b0, ra});
  assign nbeats  = ((ra + 32'(l_cur.nbytes) - 32'd1) >> logb) - (ra >> logb) + 32'd1;
  assign offered = l_cur.active && count_q != '0 && ready_q[head_q];
  // One beat per cycle on either memory; the global buffer's port never refuses one.
  assign accepted = offered && (l_cur.gbuf || wr_accept_i);
  assign row_done = accepted && 32'(p_cur.beats) + 1 == nbeats;
  assign freed    = row_done;

  always_comb begin
    for (int x = 0; x < MaxBus; x++) begin
      logic signed [33:0] pos;
      logic               in_row;
      pos     = 34'(off) + 34'(x);
      in_row  = 32'(x) < bsz && pos >= 0 && pos < $signed(34'(l_cur.nbytes));
      strb[x] = offered && in_row;
      data[x] = in_row ? slot_bytes_q[head_q][pos[$clog2(RowBytes)-1:0]] : 8'd0;
    end
  end
  assign wr_valid_o = offered && !l_cur.gbuf;
  assign wr_addr_o  = beat;
  assign wr_strb_o  = strb[BusBytes-1:0];
  assign wr_data_o  = data[BusBytes-1:0];
  assign gb_valid_o = offered && l_cur.gbuf;
  assign gb_addr_o  = beat;
  assign gb_strb_o  = strb[GbufBusBytes-1:0];
  assign gb_data_o  = data[GbufBusBytes-1:0];

  // ---- front end -----------------------------------------------------------------------------
  logic alloc, fe_on, last_pos, inside_in;
  logic [11:0] fo, fi;
  logic [3:0]  fky, fkx;
  logic [23:0] fj;
  logic [SlotW-1:0] fslot;
  logic signed [17:0] y, x;
  logic [31:0] acc_row;

  assign alloc = l_cur.active && !p_cur.busy && p_cur.started < l_cur.nrows && 32'(count_q) < FifoRows;
  assign fe_on = p_cur.busy || alloc;
  assign fo    = alloc ? p_cur.no : p_cur.o;
  assign fi    = alloc ? p_cur.ni : p_cur.i;
  assign fj    = alloc ? p_cur.started : p_cur.j;
  assign fky   = alloc ? 4'd0 : p_cur.ky;
  assign fkx   = alloc ? 4'd0 : p_cur.kx;
  assign fslot = alloc ? tail_q : p_cur.slot;

  assign y = $signed(18'(fo) * 18'(l_cur.sh)) - $signed(18'(l_cur.pad_t)) + $signed(18'(fky));
  assign x = $signed(18'(fi) * 18'(l_cur.sw)) - $signed(18'(l_cur.pad_l)) + $signed(18'(fkx));
  assign inside_in = (l_cur.pool == POOL_NONE) ||
                     (y >= 0 && y < $signed(18'(l_cur.in_h)) && x >= 0 && x < $signed(18'(l_cur.in_w)));
  assign acc_row = (l_cur.pool == POOL_NONE) ? 32'(l_cur.src) + 32'(fj) :
                   32'(l_cur.src) + 32'(y) * 32'(l_cur.in_w) + 32'(x);
  assign acc_row_o = AccW'(acc_row);
  assign last_pos  = (l_cur.pool == POOL_NONE) || (fky == l_cur.kh - 4'd1 && fkx == l_cur.kw - 4'd1);

  // Per column: the window fold and the post-processing.
  logic [ArrayCols-1:0][7:0] post_out;
  logic [RowBytes-1:0][7:0]  row_bytes;
  for (genvar c = 0; c < ArrayCols; c++) begin : g_col
    logic signed [31:0] v, biased, post_in, post_bias;
    logic signed [32:0] bsum;
    logic signed [39:0] w_n, base, avg_n;
    assign v      = acc_data_i[c];
    assign bsum   = {v[31], v} + {bias_cur[c][31], bias_cur[c]};
    assign biased = (bsum > 33'sh0_7fff_ffff) ? 32'sh7fff_ffff :
                    (bsum < -33'sh0_8000_0000) ? -32'sh8000_0000 : bsum[31:0];
    assign base   = alloc ? ((l_cur.pool == POOL_MAX) ? -40'sd128 : 40'sd0) : $signed(win_q[c]);
    always_comb begin
      w_n = base;
      if (fe_on && inside_in) begin
        unique case (pool_e'(l_cur.pool))
          POOL_MAX: w_n = (40'($signed(post_out[c])) > base) ? 40'($signed(post_out[c])) : base;
          POOL_AVG: w_n = avg_n;
          default:  w_n = 40'(v);
        endcase
      end
    end
    assign win_n[c]  = w_n;
    // The average's sum is computed apart from w_n, so the post unit's input never depends on
    // its own output (max pooling folds the post-processed value).
    assign avg_n     = (fe_on && inside_in) ? base + 40'(biased) : base;
    assign post_in   = (l_cur.pool == POOL_AVG) ?
                       ((avg_n > 40'sh00_7fff_ffff) ? 32'sh7fff_ffff :
                        (avg_n < -40'sh00_8000_0000) ? -32'sh8000_0000 : avg_n[31:0]) : v;
    assign post_bias = (l_cur.pool == POOL_AVG) ? 32'sd0 : bias_cur[c];
    sa_post u_post (
      .acc_i   (post_in),
      .bias_i  (post_bias),
      .mult_i  (mult_cur[c]),
      .shift_i (shift_cur[c]),
      .act_i   (l_cur.act),
      .lo_i    (l_cur.lo),
      .hi_i    (l_cur.hi),
      .out_o   (post_out[c])
    );
    // Bytes of the finished row: 4 per column for RAW32, else one.
    always_comb begin
      for (int b = 0; b < 4; b++) begin
        if (l_cur.raw32) row_bytes[4*c+b] = w_n[8*b +: 8];
        else if (b == 0) row_bytes[4*c+b] = (l_cur.pool == POOL_MAX) ? w_n[7:0] : post_out[c];
        else row_bytes[4*c+b] = 8'd0;
      end
    end
  end

  // Bytes of a non-RAW32 row sit at positions 0..C-1: move column c's byte from 4c to c.
  logic [RowBytes-1:0][7:0] slot_in;
  always_comb begin
    slot_in = row_bytes;
    if (!l_cur.raw32) begin
      slot_in = '0;
      for (int c = 0; c < ArrayCols; c++) slot_in[c] = row_bytes[4*c];
    end
  end

  logic finish;
  assign finish = fe_on && last_pos;

  // post-processing pipeline: S stages carrying the finished row's slot; it is ready after the last.
  logic                             post_out_v;
  logic [SlotW-1:0]                 post_out_s;
  if (PostLatency == 1) begin : g_post_none
    assign post_out_v = finish;
    assign post_out_s = fslot;
  end else begin : g_post
    logic [PostLatency-2:0]            pv_q;
    logic [PostLatency-2:0][SlotW-1:0] ps_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        pv_q <= '0;
        ps_q <= '0;
      end else begin
        pv_q[0] <= finish;
        ps_q[0] <= fslot;
        for (int k = 1; k < PostLatency - 1; k++) begin
          pv_q[k] <= pv_q[k-1];
          ps_q[k] <= ps_q[k-1];
        end
      end
    end
    assign post_out_v = pv_q[PostLatency-2];
    assign post_out_s = ps_q[PostLatency-2];
  end

  // ---- next state ----------------------------------------------------------------------------
  function automatic logic [SlotW-1:0] slot_inc(logic [SlotW-1:0] s);
    return (32'(s) == FifoRows - 1) ? '0 : s + SlotW'(1);
  endfunction

  always_comb begin
    p_d = p_cur;
    l_d = l_cur;
    if (accepted) begin
      p_d.beats = p_cur.beats + 16'd1;
      if (row_done) begin
        p_d.beats   = '0;
        p_d.written = p_cur.written + 24'd1;
      end
    end
    if (alloc) begin
      p_d.busy    = 1'b1;
      p_d.slot    = tail_q;
      p_d.j       = p_cur.started;
      p_d.o       = p_cur.no;
      p_d.i       = p_cur.ni;
      p_d.started = p_cur.started + 24'd1;
      if (32'(p_cur.ni) + 1 < 32'(l_cur.inner)) begin
        p_d.ni = p_cur.ni + 12'd1;
      end else begin
        p_d.ni = '0;
        p_d.no = p_cur.no + 12'd1;
      end
    end
    if (fe_on) begin
      if (finish) begin
        p_d.busy = 1'b0;
      end else if (fkx + 4'd1 == l_cur.kw) begin
        p_d.kx = '0;
        p_d.ky = fky + 4'd1;
      end else begin
        p_d.kx = fkx + 4'd1;
        p_d.ky = fky;
      end
      if (finish) begin
        p_d.kx = '0;
        p_d.ky = '0;
      end
    end
    if (l_cur.active && p_d.written == l_cur.nrows) l_d.active = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_q <= '0; pool_q <= '0; params_q <= 1'b0; prow_q <= '0; lo_q <= '0; hi_q <= '0;
      so_q <= '0; si_q <= '0; kh_q <= '0; kw_q <= '0; sh_q <= '0; sw_q <= '0;
      pad_t_q <= '0; pad_l_q <= '0; in_h_q <= '0; in_w_q <= '0;
      l_q <= '0;
      p_q <= '0;
      bias_q <= '0;
      mult_q <= '0;
      shift_q <= '0;
      win_q <= '0;
      head_q <= '0;
      tail_q <= '0;
      count_q <= '0;
      ready_q <= '0;
    end else begin
      if (start_cfg && op == OP_CFG_STORE) begin
        act_q    <= head_insn_i[ACT_LSB +: ACT_W];
        params_q <= head_insn_i[PARAMS_LSB];
        prow_q   <= head_insn_i[PROW_LSB +: PROW_W];
        lo_q     <= head_insn_i[CLAMP_LO_LSB +: CLAMP_LO_W];
        hi_q     <= head_insn_i[CLAMP_HI_LSB +: CLAMP_HI_W];
        so_q     <= head_insn_i[STRIDE_OUTER_LSB +: STRIDE_OUTER_W];
        si_q     <= head_insn_i[STRIDE_INNER_LSB +: STRIDE_INNER_W];
      end
      if (start_cfg && op == OP_CFG_POOL) begin
        pool_q  <= head_insn_i[POOL_LSB +: POOL_W];
        kh_q    <= head_insn_i[KH_LSB +: KH_W];
        kw_q    <= head_insn_i[KW_LSB +: KW_W];
        sh_q    <= head_insn_i[SH_LSB +: SH_W];
        sw_q    <= head_insn_i[SW_LSB +: SW_W];
        pad_t_q <= head_insn_i[PAD_T_LSB +: PAD_T_W];
        pad_l_q <= head_insn_i[PAD_L_LSB +: PAD_L_W];
        in_h_q  <= head_insn_i[IN_H_LSB +: IN_H_W];
        in_w_q  <= head_insn_i[IN_W_LSB +: IN_W_W];
      end
      l_q     <= l_d;
      p_q     <= p_d;
      bias_q  <= bias_cur;
      mult_q  <= mult_cur;
      shift_q <= shift_cur;
      if (fe_on) win_q <= win_n;
      if (alloc) tail_q <= slot_inc(tail_q);
      if (freed) head_q <= slot_inc(head_q);
      count_q <= count_q + CntW'(alloc) - CntW'(freed);
      for (int s = 0; s < FifoRows; s++) begin
        if (freed && 32'(head_q) == s) ready_q[s] <= 1'b0;
        if (post_out_v && 32'(post_out_s) == s) ready_q[s] <= 1'b1;
      end
    end
  end

  // A FIFO slot is taken free (not ready), becomes ready once, when its row leaves the post-processor
  // pipeline, and is freed after its last beat: a row never lands on a slot still waiting to go out.
  `SA_ASSERT(SlotReadyOnce, post_out_v |-> !ready_q[post_out_s], "sa_store: a row finished into a FIFO slot not yet written out")

  always_ff @(posedge clk_i) begin
    if (alloc) slot_addr_q[tail_q] <= l_cur.addr + 32'(p_cur.no) * 32'(l_cur.so) + 32'(p_cur.ni) * 32'(l_cur.si);
    if (finish) slot_bytes_q[fslot] <= slot_in;
  end

  // Every issued beat takes a reorder-buffer entry; DRAM acknowledges in order, so the entries
  // of the DRAM beats in flight wait in a FIFO (its slot number is the beat's tag), and a
  // global-buffer beat's entry travels GbufLatency stages beside sa_gbuf's.
  ack_t ack_new, ack_out;
  logic dram_acc, gb_iss, ack_v;
  logic [TagW-1:0] tag_q, resp_tag_q;
  logic [$clog2(MaxInflight + 1)-1:0] fly_count;
  logic [RobW-1:0] rob_tail, fly_slot;
  logic unused_rob_data;
  assign ack_new  = '{push: l_cur.push, last: row_done && p_d.written == l_cur.nrows};
  assign dram_acc = accepted && !l_cur.gbuf;
  assign gb_iss   = accepted && l_cur.gbuf;

  sa_fifo #(
    .Width (RobW),
    .Depth (MaxInflight)
  ) u_fly (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .push_i  (dram_acc),
    .wdata_i (rob_tail),
    .pop_i   (wr_resp_valid_i),
    .rdata_o (fly_slot),
    .count_o (fly_count),
    .head_o  (resp_tag_q),
    .tail_o  (tag_q)
  );

  assign wr_tag_o = tag_q;

  // DRAM acknowledges in order, one acknowledgement per accepted beat.
  `SA_ASSERT(WriteAckExpected, wr_resp_valid_i |-> wr_resp_tag_i == resp_tag_q && fly_count != '0,
             "sa_store: a write acknowledgement with no beat in flight or out of order")

  logic [GbufLatency-1:0] gv_q;
  logic [RobW-1:0]        gs_q [GbufLatency];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) gv_q <= '0;
    else gv_q <= GbufLatency'({gv_q, gb_iss});
  end
  always_ff @(posedge clk_i) begin
    gs_q[0] <= rob_tail;
    for (int k = 1; k < GbufLatency; k++) gs_q[k] <= gs_q[k-1];
  end

  `SA_ASSERT(GbufAckExpected, gb_ack_i == gv_q[GbufLatency-1],
             "sa_store: the global buffer's acknowledgement does not match the beat issued GbufLatency cycles earlier")

  // The reorder buffer (acknowledgements carry no data): one handed over per cycle at most.
  sa_dma_rob #(
    .Depth (RobDepth),
    .MetaW ($bits(ack_t)),
    .Data  (1)
  ) u_rob (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .push_i           (accepted),
    .meta_i           (ack_new),
    .tail_o           (rob_tail),
    .fill_dram_i      (wr_resp_valid_i),
    .fill_dram_slot_i (fly_slot),
    .fill_dram_data_i (1'b0),
    .fill_gb_i        (gv_q[GbufLatency-1]),
    .fill_gb_slot_i   (gs_q[GbufLatency-1]),
    .fill_gb_data_i   (1'b0),
    .pop_o            (ack_v),
    .meta_o           (ack_out),
    .data_o           (unused_rob_data),
    .busy_o           (pending_o)
  );

  // The STORE ends when its last acknowledgement is handed over: at most one a cycle.
  assign end_ack_count_o = 16'(ack_v && ack_out.last);
  always_comb begin
    logic [NUM_UNITS-1:0] to;
    to = units_of(UNIT_STORE, ack_out.push);
    for (int v = 0; v < NUM_UNITS; v++) end_ack_push_o[v] = PUSH_CNT_W'(ack_v && ack_out.last && to[v]);
  end

  // Events.
  assign inside_o       = start_o || l_cur.active;
  assign stall_o        = offered && !l_cur.gbuf && !wr_accept_i;
  assign active_o       = l_d.active;
  assign ready_o        = start_cfg || (l_cur.active && !l_d.active);
  assign ready_idx_o    = start_cfg ? head_idx_i : l_cur.idx;
  assign end_cfg_o      = start_cfg;
  assign row_o          = row_done;
  assign row_idx_o      = l_cur.idx;
  assign row_bytes_o    = l_cur.nbytes;
  assign row_gbuf_o     = l_cur.gbuf;
  assign acc_rd_o       = fe_on && inside_in;
  assign param_rd_o     = start_st && use_params;

  logic unused_store;
  assign unused_store = ^{unused_rob_data, fly_count, wr_resp_tag_i, resp_tag_q, p_cur.j, l_cur.outer, acc_row[31:AccW]};
endmodule
