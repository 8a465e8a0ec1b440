// sa_compute.sv: the compute unit (docs/TIMING.md §6, sim/detailed_array.c): the weight shift
// chain a PRELOAD drives, the stream sequencer a COMPUTE drives, the row-tag table and the
// accumulator writer around the sa_array. In a start cycle the chain or the stream already works
// on the new instruction (its state comes straight from the queue head).
//  - PRELOAD p fills bank p mod 2 over R cycles (row SRC+R-1 enters first; zeros past ROWS);
//    it needs the chain idle and no COMPUTE still in the array on that bank.
//  - COMPUTE reads SPAD[SRC + m] in cycle s + m and needs its bank complete; the row's tag (ACC
//    row, ACCUM, last row, bank) travels through the array with the data, and column c of the
//    bottom row writes ACC[ACC_ADDR + m][c] in cycle s + m + R + c.
module sa_compute
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned ArrayRows = 4,
  parameter int unsigned ArrayCols = 4,
  parameter int unsigned SpadRows = 64,
  parameter int unsigned WbufRows = 32,
  parameter int unsigned AccRows = 64,
  localparam int unsigned SpadW = (SpadRows > 1) ? $clog2(SpadRows) : 1,
  localparam int unsigned WbufW = (WbufRows > 1) ? $clog2(WbufRows) : 1,
  localparam int unsigned AccW = (AccRows > 1) ? $clog2(AccRows) : 1,
  localparam int unsigned TagW = $clog2(ArrayRows + ArrayCols + 2),
  localparam int unsigned KW = $clog2(ArrayRows + 1)
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  input  logic                             head_valid_i,
  input  logic [INSN_W-1:0]                head_insn_i,
  input  logic [IDX_W-1:0]                 head_idx_i,
  input  logic                             tok_ok_i,
  output logic                             start_o,
  // scratchpad and weight buffer read ports
  output logic [SpadW-1:0]                 spad_row_o,
  input  logic [ArrayRows-1:0][7:0]        spad_data_i,
  output logic [WbufW-1:0]                 wbuf_row_o,
  input  logic [ArrayCols-1:0][7:0]        wbuf_data_i,
  // accumulator: a read-modify-write port per column
  output logic [ArrayCols-1:0]             acc_we_o,
  output logic [ArrayCols-1:0][AccW-1:0]   acc_row_o,
  output logic [ArrayCols-1:0]             acc_accum_o,
  output logic [ArrayCols-1:0][31:0]       acc_data_o,
  // events
  output logic                             inside_o,
  output logic                             active_o,
  output logic                             chain_busy_o,
  output logic                             ready_o,
  output logic [IDX_W-1:0]                 ready_idx_o,
  output logic                             end_cfg_o,      // LAYER
  output logic                             end_chain_o,    // a PRELOAD's bank is complete
  output logic [IDX_W-1:0]                 end_chain_idx_o,
  output logic [2:0]                       end_chain_push_o,
  output logic                             end_arr_o,      // a COMPUTE's last ACC write
  output logic [IDX_W-1:0]                 end_arr_idx_o,
  output logic [2:0]                       end_arr_push_o,
  output logic [KW-1:0]                    start_k_o,      // ROWS of the bank a COMPUTE uses
  output logic                             spad_rd_o,
  output logic                             wbuf_rd_o,
  output logic                             acc_wr_o,       // a row's first column written
  output logic                             acc_wr_accum_o
);
  localparam int unsigned NTags = 1 << TagW;

  typedef struct packed {
    logic [IDX_W-1:0] idx;
    logic [2:0]       push;
    logic [15:0]      acc_row;
    logic             accum;
    logic             last;
    logic             bank;
  } rowtag_t;

  typedef struct packed {
    logic             busy;
    logic [IDX_W-1:0] idx;
    logic [2:0]       push;
    logic [15:0]      src;
    logic [15:0]      rows;
    logic [KW-1:0]    step;
    logic             bank;
  } chain_t;

  typedef struct packed {
    logic             busy;
    logic [IDX_W-1:0] idx;
    logic [2:0]       push;
    logic [15:0]      src, acc, rows, m;
    logic             accum;
    logic             bank;
  } stream_t;

  opcode_e op;
  logic    next_bank_q, cur_bank_q;
  logic [1:0] bank_valid_q;
  logic [1:0][KW-1:0] bank_k_q;
  logic [1:0][15:0] bank_users_q;
  chain_t  ch_q, ch_cur, ch_init;
  stream_t st_q, st_cur, st_init;
  logic    can_start, start_pre, start_cmp, start_cfg;
  logic    chain_done, stream_done;
  rowtag_t tags_q [NTags];
  logic [TagW-1:0] tag_next_q;

  assign op = opcode_e'(head_insn_i[OP_LSB +: OP_W]);

  always_comb begin
    unique case (op)
      OP_PRELOAD: can_start = !ch_q.busy && bank_users_q[next_bank_q] == '0;
      OP_COMPUTE: can_start = bank_valid_q[cur_bank_q];
      default:    can_start = 1'b1;  // LAYER
    endcase
  end

  assign start_o   = head_valid_i && tok_ok_i && !st_q.busy && can_start;
  assign start_pre = start_o && op == OP_PRELOAD;
  assign start_cmp = start_o && op == OP_COMPUTE;
  assign start_cfg = start_o && op != OP_PRELOAD && op != OP_COMPUTE;

  always_comb begin
    ch_init      = '0;
    ch_init.busy = 1'b1;
    ch_init.idx  = head_idx_i;
    ch_init.push = head_insn_i[PUSH_LSB +: PUSH_W];
    ch_init.src  = head_insn_i[SRC_LSB +: SRC_W];
    ch_init.rows = head_insn_i[ROWS_LSB +: ROWS_W];
    ch_init.bank = next_bank_q;
    st_init       = '0;
    st_init.busy  = 1'b1;
    st_init.idx   = head_idx_i;
    st_init.push  = head_insn_i[PUSH_LSB +: PUSH_W];
    st_init.src   = head_insn_i[SRC_LSB +: SRC_W];
    st_init.acc   = head_insn_i[ACC_ADDR_LSB +: ACC_ADDR_W];
    st_init.rows  = head_insn_i[ROWS_LSB +: ROWS_W];
    st_init.accum = head_insn_i[ACCUM_LSB];
    st_init.bank  = cur_bank_q;
  end

  assign ch_cur = start_pre ? ch_init : ch_q;
  assign st_cur = start_cmp ? st_init : st_q;

  // Weight chain: row SRC + j enters the top, j = R - 1 - step; zeros for j >= ROWS.
  logic [31:0] chain_j;
  logic        chain_has_row;
  assign chain_j       = ArrayRows - 1 - 32'(ch_cur.step);
  assign chain_has_row = ch_cur.busy && chain_j < 32'(ch_cur.rows);
  assign wbuf_row_o    = WbufW'(32'(ch_cur.src) + chain_j);
  assign chain_done    = ch_cur.busy && 32'(ch_cur.step) == ArrayRows - 1;

  logic [1:0]                  wen;
  logic [ArrayCols-1:0][7:0]   wtop;
  assign wen  = ch_cur.busy ? (ch_cur.bank ? 2'b10 : 2'b01) : 2'b00;
  assign wtop = chain_has_row ? wbuf_data_i : '0;

  // Stream: SPAD[SRC + m] enters the array with a new tag.
  assign spad_row_o  = SpadW'(32'(st_cur.src) + 32'(st_cur.m));
  assign stream_done = st_cur.busy && 32'(st_cur.m) + 1 == 32'(st_cur.rows);

  rowtag_t tag_new;
  always_comb begin
    tag_new         = '0;
    tag_new.idx     = st_cur.idx;
    tag_new.push    = st_cur.push;
    tag_new.acc_row = st_cur.acc + st_cur.m;
    tag_new.accum   = st_cur.accum;
    tag_new.last    = stream_done;
    tag_new.bank    = st_cur.bank;
  end

  logic [ArrayCols-1:0]            out_valid;
  logic [ArrayCols-1:0][31:0]      out_psum;
  logic [ArrayCols-1:0][TagW-1:0]  out_tag;

  sa_array #(
    .Rows (ArrayRows),
    .Cols (ArrayCols),
    .TagW (TagW)
  ) u_array (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (st_cur.busy),
    .in_row_i    (spad_data_i),
    .in_bank_i   (st_cur.bank),
    .in_tag_i    (tag_next_q),
    .wen_i       (wen),
    .wtop_i      (wtop),
    .out_valid_o (out_valid),
    .out_psum_o  (out_psum),
    .out_tag_o   (out_tag)
  );

  // Accumulator writer: the bottom row's registers, through their tags.
  rowtag_t last_tag;
  logic    arr_end;
  for (genvar c = 0; c < ArrayCols; c++) begin : g_accw
    rowtag_t t;
    logic    unused_t;
    assign t              = tags_q[out_tag[c]];
    assign unused_t       = ^{t.idx, t.push, t.last, t.bank};
    assign acc_we_o[c]    = out_valid[c];
    assign acc_row_o[c]   = AccW'(t.acc_row);
    assign acc_accum_o[c] = t.accum;
    assign acc_data_o[c]  = out_psum[c];
  end
  assign last_tag = tags_q[out_tag[ArrayCols-1]];
  assign arr_end  = out_valid[ArrayCols-1] && last_tag.last;

  // Cycles the array still holds streamed data after this one (detailed_array.c drain_cycle): the
  // last row entered holds the array for R + C - 1 cycles.
  localparam int unsigned DrainW = $clog2(ArrayRows + ArrayCols + 1);
  logic [DrainW-1:0] drain_q, drain_d;
  assign drain_d = st_cur.busy ? DrainW'(ArrayRows + ArrayCols - 1) : (drain_q != '0 ? drain_q - DrainW'(1) : '0);

  // Bank bookkeeping.
  logic [1:0][15:0] users_d;
  always_comb begin
    users_d = bank_users_q;
    if (start_cmp) users_d[cur_bank_q] = users_d[cur_bank_q] + 16'd1;
    if (arr_end) users_d[last_tag.bank] = users_d[last_tag.bank] - 16'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      next_bank_q  <= 1'b0;
      cur_bank_q   <= 1'b0;
      bank_valid_q <= '0;
      bank_k_q     <= '0;
      bank_users_q <= '0;
      ch_q         <= '0;
      st_q         <= '0;
      tag_next_q   <= '0;
      drain_q      <= '0;
    end else begin
      bank_users_q <= users_d;
      drain_q      <= drain_d;
      if (start_pre) begin
        next_bank_q <= !next_bank_q;
        cur_bank_q  <= next_bank_q;
        bank_valid_q[next_bank_q] <= 1'b0;
        bank_k_q[next_bank_q] <= (32'(ch_init.rows) < ArrayRows) ? KW'(ch_init.rows) : KW'(ArrayRows);
      end
      ch_q <= ch_cur;
      if (ch_cur.busy) begin
        ch_q.step <= ch_cur.step + KW'(1);
        if (chain_done) begin
          ch_q.busy <= 1'b0;
          bank_valid_q[ch_cur.bank] <= 1'b1;
        end
      end
      st_q <= st_cur;
      if (st_cur.busy) begin
        st_q.m     <= st_cur.m + 16'd1;
        tag_next_q <= tag_next_q + TagW'(1);
        if (stream_done) st_q.busy <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (st_cur.busy) tags_q[tag_next_q] <= tag_new;
  end

  // Events.
  assign inside_o         = start_o || st_cur.busy;
  assign active_o         = (ch_cur.busy && !chain_done) || drain_d != '0;
  assign chain_busy_o     = ch_q.busy;
  assign ready_o          = start_pre || start_cfg || stream_done;
  assign ready_idx_o      = stream_done ? st_cur.idx : head_idx_i;
  assign end_cfg_o        = start_cfg;
  assign end_chain_o      = chain_done;
  assign end_chain_idx_o  = ch_cur.idx;
  assign end_chain_push_o = ch_cur.push;
  assign end_arr_o        = arr_end;
  assign end_arr_idx_o    = last_tag.idx;
  assign end_arr_push_o   = last_tag.push;
  assign start_k_o        = bank_k_q[cur_bank_q];
  assign spad_rd_o        = st_cur.busy;
  assign wbuf_rd_o        = chain_has_row;
  assign acc_wr_o         = out_valid[0];
  assign acc_wr_accum_o   = tags_q[out_tag[0]].accum;

  logic unused_compute;
  assign unused_compute = ^{last_tag.acc_row, last_tag.accum};
endmodule
