// sa_compute.sv: the compute unit (docs/TIMING.md §6, sim/detailed_array.c): the weight shift
// chain a PRELOAD drives, the stream sequencers a COMPUTE and a COMPUTE_OS drive, the row-tag
// table, the output-stationary drain sequencer and the accumulator writer around the sa_array.
// In a start cycle the chain or the stream already works on the new instruction (its state
// comes straight from the queue head).
//  - PRELOAD p fills bank p mod 2 over R cycles (row SRC+R-1 enters first; zeros past ROWS);
//    the chain is row-gated (in step j PE rows 0..j shift: wrow). It needs the chain idle, its
//    bank released (no stream on it reading rows, and rel_q, loaded with C - 1 when a stream on
//    the bank reads its last row, down to 0) and no COMPUTE_OS left in the array.
//  - COMPUTE reads SPAD[SRC + m] in cycle s + m and needs its bank complete, no COMPUTE_OS
//    left and the stream sequencer free (st_q); with OVERLAP it is ready at once and only a
//    PRELOAD or LAYER may start while it streams (otherwise nothing may). The row's tag (ACC row, ACCUM, last row, bank) travels through the array with the
//    data, and column c of the bottom row writes ACC[ACC_ADDR + m][c] in cycle s + m + R + c.
//  - COMPUTE_IS is COMPUTE's stream with a transposed write: row m's tag holds the block's ACC
//    row ACC_ADDR + (m div C)*ASTRIDE, the target bank m mod C and COLS, and column c < COLS
//    writes row + c of that bank (the rotator in sa_top routes it; acc_bank_o names the bank).
//    It needs its bank complete, no COMPUTE_OS and no COMPUTE left in the array, and stream
//    alignment with the last COMPUTE_IS y: (s - s_y) mod C == 0 (is_ph_q, a counter modulo C
//    restarted by each COMPUTE_IS) or y has ended; COMPUTE waits for every COMPUTE_IS to end.
//    While the array holds COMPUTE_IS rows, column c carries a row with m + c = t - s - R
//    (mod C) for all of them, so its bank is (rot - c) mod C with rot = (t - s_y - R) mod C
//    (rot_o): the rotator turns by rot.
//  - COMPUTE_OS reads WBUF[WSRC + k] in cycle s + k (into the column skew lines) and
//    SPAD[SRC + j*KSTRIDE + r] in cycle s + j*R + r (into row r's input line), one row of each
//    per cycle at most. It needs the chain idle and no COMPUTE in the array (mode switch), and
//    s + K >= s_o + K_o + R for the previous COMPUTE_OS o (a down-counter, fence_q, holds
//    s_o + K_o + R - t). Its drain descriptor (ACC row, ROWS, ACCUM) waits in os_pend_q from
//    its last WBUF read until the last product reaches PE (R-1, 0), then walks right one
//    column per cycle (os_dr_q); column c spends R cycles writing PE rows R-1 .. 0 (rows below
//    ROWS only) and tells the array which drain registers move down.
`include "sa_assert.svh"

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
  localparam int unsigned KW = $clog2(ArrayRows + 1),
  localparam int unsigned BankW = (ArrayCols > 1) ? $clog2(ArrayCols) : 1
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
  // accumulator writes, per array column (the rotator in sa_top takes each to its bank)
  output logic [ArrayCols-1:0]             acc_we_o,
  output logic [ArrayCols-1:0][BankW-1:0]  acc_bank_o,     // the ACC bank column c writes
  output logic                             rot_is_o,       // the rotator turns (COMPUTE_IS) ...
  output logic [BankW-1:0]                 rot_o,          // ... by this: bank b <- column (rot - b) mod C
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
  localparam int unsigned ColsW = $clog2(ArrayCols + 1);
  localparam int unsigned RModC = ArrayRows % ArrayCols;

  typedef struct packed {
    logic [IDX_W-1:0] idx;
    logic [PUSH_W-1:0] push;
    logic [15:0]      acc_row;   // COMPUTE: the row; COMPUTE_IS: the block's row (column c adds c)
    logic             accum;
    logic             last;
    logic             bank;      // the weight bank
    logic             is;        // COMPUTE_IS: the transposed write
    logic [BankW-1:0] abank;     // COMPUTE_IS: the ACC bank, m mod C
    logic [ColsW-1:0] cols;      // COMPUTE_IS: columns c < cols write
  } rowtag_t;

  typedef struct packed {
    logic             busy;
    logic [IDX_W-1:0] idx;
    logic [PUSH_W-1:0] push;
    logic [SRC_W-1:0] src;
    logic [ROWS_W-1:0] rows;
    logic [KW-1:0]    step;
    logic             bank;
  } chain_t;

  typedef struct packed {
    logic             busy;
    logic [IDX_W-1:0] idx;
    logic [PUSH_W-1:0] push;
    logic [15:0]      src, acc, rows, m;
    logic             accum;
    logic             bank;
    logic             is;
    logic [ColsW-1:0] cols;
    logic [15:0]      astride;
    logic [15:0]      blk;     // COMPUTE_IS: ACC_ADDR + (m div C)*ASTRIDE
    logic [BankW-1:0] mc;      // COMPUTE_IS: m mod C
    logic             ovl;     // OVERLAP: ready at the start, the unit issues on
  } stream_t;

  // A COMPUTE_OS's drain: what its accumulator writes need, and its end event.
  typedef struct packed {
    logic [IDX_W-1:0] idx;
    logic [PUSH_W-1:0] push;
    logic [15:0]      acc, rows;
    logic             accum;
  } osdesc_t;

  typedef struct packed {
    logic             busy;
    osdesc_t          d;
    logic [15:0]      wsrc, klen, kstride;
    logic [31:0]      n;       // cycles since the start: k of the WBUF row read (while n < K)
    logic [31:0]      kbase;   // j*R: first k of the current block
    logic [31:0]      blk;     // SRC + j*KSTRIDE: the block's first SPAD row
    logic [KW-1:0]    r;       // row read in this cycle of the block (n = kbase + r)
  } os_t;

  typedef struct packed {
    logic             busy;
    logic [KW-1:0]    cnt;     // cycles until the last product reaches PE (R-1, 0)
    osdesc_t          d;
  } ospend_t;

  typedef struct packed {
    logic             active;
    logic [KW-1:0]    j;       // drain cycle of the column: PE row R-1-j is written
    osdesc_t          d;
  } osdrain_t;

  opcode_e op;
  logic    next_bank_q, cur_bank_q;
  logic [1:0] bank_valid_q;
  logic [1:0][KW-1:0] bank_k_q;
  logic [1:0][15:0] bank_users_q;
  logic [1:0][BankW-1:0] rel_q, rel_d;   // PRELOAD rule (b): cycles until the bank may be refilled
  chain_t  ch_q, ch_cur, ch_init;
  stream_t st_q, st_cur, st_init;
  logic    can_start, start_pre, start_cmp, start_is, start_cfg;
  logic    chain_done, stream_done;
  rowtag_t tags_q [NTags];
  logic [TagW-1:0] tag_next_q;
  os_t     os_q, os_cur, os_init;
  ospend_t os_pend_q;
  osdrain_t [ArrayCols-1:0] os_dr_q;
  logic    start_os, os_mode_q, os_mode;
  logic [15:0] os_users_q, os_users_d;
  logic [31:0] fence_q;
  logic [15:0] ws_users_q, is_users_q;   // COMPUTEs, COMPUTE_ISs in the array
  logic [BankW-1:0] is_ph_q, is_ph;      // (t - s_y) mod C for the last COMPUTE_IS y
  logic    is_mode_q, is_mode;           // the array's bottom carries COMPUTE_IS rows

  assign op = opcode_e'(head_insn_i[OP_LSB +: OP_W]);

  always_comb begin
    unique case (op)
      OP_PRELOAD: can_start = !ch_q.busy && rel_q[next_bank_q] == '0 &&
                              !(st_q.busy && st_q.bank == next_bank_q) && os_users_q == '0;
      OP_COMPUTE: can_start = bank_valid_q[cur_bank_q] && os_users_q == '0 && is_users_q == '0;
      // No other mode in the array (the rotator turns only with the bottom empty), and stream
      // alignment modulo C with the last COMPUTE_IS unless it has ended.
      OP_COMPUTE_IS: can_start = bank_valid_q[cur_bank_q] && os_users_q == '0 && ws_users_q == '0 &&
                                 (is_ph_q == '0 || is_users_q == '0);
      // The array has left weight-stationary mode, and this drain cannot catch up the last one.
      OP_COMPUTE_OS: can_start = !ch_q.busy && bank_users_q == '0 &&
                                 32'(head_insn_i[KLEN_LSB +: KLEN_W]) >= fence_q;
      default:    can_start = 1'b1;  // LAYER
    endcase
  end

  // A stream holds the issue, except an OVERLAP stream for a PRELOAD or a LAYER.
  logic issue_free;
  assign issue_free = !st_q.busy || (st_q.ovl && (op == OP_PRELOAD || op == OP_LAYER));
  assign start_o   = head_valid_i && tok_ok_i && issue_free && !os_q.busy && can_start;
  assign start_pre = start_o && op == OP_PRELOAD;
  assign start_cmp = start_o && op == OP_COMPUTE;
  assign start_os  = start_o && op == OP_COMPUTE_OS;
  assign start_is  = start_o && op == OP_COMPUTE_IS;
  assign start_cfg = start_o && op != OP_PRELOAD && op != OP_COMPUTE && op != OP_COMPUTE_OS &&
                     op != OP_COMPUTE_IS;

  // The opcodes this unit decodes. isa/isa_ops.def must route exactly these here: a new opcode
  // routed to the compute unit stops elaboration until the unit handles it.
  localparam logic [NUM_OPCODES-1:0] Decoded = op_bit(OP_PRELOAD) | op_bit(OP_COMPUTE) | op_bit(OP_COMPUTE_OS) |
                                                op_bit(OP_COMPUTE_IS) | op_bit(OP_LAYER);
  if (Decoded != UNIT_COMPUTE_OPS) begin : g_isa_check
    localparam logic [NUM_OPCODES-1:0] Diff = Decoded ^ UNIT_COMPUTE_OPS;
    localparam logic [OP_W-1:0] First = OP_W'($clog2(Diff & ~(Diff - 1)));   // lowest differing opcode
    if (UNIT_COMPUTE_OPS[First]) begin : g_new
      $fatal(1, "sa_compute: isa/isa_ops.def routes opcode 0x%h to the compute unit, which does not decode it", First);
    end else begin : g_gone
      $fatal(1, "sa_compute: isa/isa_ops.def no longer routes opcode 0x%h to the compute unit, which decodes it", First);
    end
  end
  `SA_ASSERT(OwnOpcode, start_o |-> UNIT_COMPUTE_OPS[op], "sa_compute: started an opcode routed to another unit")

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
    st_init.is    = op == OP_COMPUTE_IS;
    st_init.cols  = ColsW'(head_insn_i[COLS_LSB +: COLS_W]);
    st_init.astride = head_insn_i[ASTRIDE_LSB +: ASTRIDE_W];
    st_init.blk   = head_insn_i[ACC_ADDR_LSB +: ACC_ADDR_W];
    st_init.ovl   = head_insn_i[OVERLAP_LSB];
    os_init         = '0;
    os_init.busy    = 1'b1;
    os_init.d.idx   = head_idx_i;
    os_init.d.push  = head_insn_i[PUSH_LSB +: PUSH_W];
    os_init.d.acc   = head_insn_i[ACC_ADDR_LSB +: ACC_ADDR_W];
    os_init.d.rows  = head_insn_i[ROWS_LSB +: ROWS_W];
    os_init.d.accum = head_insn_i[ACCUM_LSB];
    os_init.wsrc    = head_insn_i[WSRC_LSB +: WSRC_W];
    os_init.klen    = head_insn_i[KLEN_LSB +: KLEN_W];
    os_init.kstride = head_insn_i[KSTRIDE_LSB +: KSTRIDE_W];
    os_init.blk     = 32'(head_insn_i[SRC_LSB +: SRC_W]);
  end

  assign ch_cur  = start_pre ? ch_init : ch_q;
  assign st_cur  = (start_cmp || start_is) ? st_init : st_q;
  assign os_cur  = start_os ? os_init : os_q;
  // The PEs' mode: it changes only while the array is empty (the structural conditions).
  assign os_mode = start_os ? 1'b1 : ((start_cmp || start_is) ? 1'b0 : os_mode_q);
  assign is_mode = start_is ? 1'b1 : ((start_cmp || start_os) ? 1'b0 : is_mode_q);
  assign is_ph   = start_is ? '0 : is_ph_q;

  // Weight chain: row SRC + j enters the top, j = R - 1 - step; zeros for j >= ROWS.
  logic [31:0] chain_j;
  logic        chain_has_row;
  assign chain_j       = ArrayRows - 1 - 32'(ch_cur.step);
  assign chain_has_row = ch_cur.busy && chain_j < 32'(ch_cur.rows);
  assign wbuf_row_o    = os_cur.busy ? WbufW'(32'(os_cur.wsrc) + os_cur.n) : WbufW'(32'(ch_cur.src) + chain_j);
  assign chain_done    = ch_cur.busy && 32'(ch_cur.step) == ArrayRows - 1;

  logic [1:0]                  wen;
  logic [ArrayCols-1:0][7:0]   wtop;
  logic [ArrayRows-1:0]        wrow;   // PE rows whose weights shift this cycle: 0 .. step
  assign wen  = ch_cur.busy ? (ch_cur.bank ? 2'b10 : 2'b01) : 2'b00;
  assign wrow[0] = ch_cur.busy;
  for (genvar r = 1; r < ArrayRows; r++) begin : g_wrow
    assign wrow[r] = ch_cur.busy && 32'(ch_cur.step) >= r;
  end
  assign wtop = chain_has_row ? wbuf_data_i : '0;

  // Stream: SPAD[SRC + m] enters the array with a new tag.
  assign spad_row_o  = os_cur.busy ? SpadW'(os_cur.blk + 32'(os_cur.r)) :
                                     SpadW'(32'(st_cur.src) + 32'(st_cur.m));
  assign stream_done = st_cur.busy && 32'(st_cur.m) + 1 == 32'(st_cur.rows);

  // Output-stationary stream: the WBUF row k = n while n < K; the SPAD row of block j = kbase/R
  // for PE row r while r < ROWS and kbase < K. It is ready once neither has a row left.
  logic os_wb_rd, os_sp_rd, os_first, os_last, os_done;
  logic [ArrayRows-1:0] os_ld;
  assign os_wb_rd = os_cur.busy && os_cur.n < 32'(os_cur.klen);
  assign os_sp_rd = os_cur.busy && 32'(os_cur.r) < 32'(os_cur.d.rows) && os_cur.kbase < 32'(os_cur.klen);
  assign os_first = os_wb_rd && os_cur.n == '0;
  assign os_last  = os_wb_rd && os_cur.n + 32'd1 == 32'(os_cur.klen);
  assign os_done  = os_cur.busy && os_cur.n + 32'd1 >= 32'(os_cur.klen) &&
                    os_cur.kbase + ArrayRows >= 32'(os_cur.klen) &&
                    32'(os_cur.r) + 32'd1 >= 32'(os_cur.d.rows);
  for (genvar r = 0; r < ArrayRows; r++) begin : g_osld
    assign os_ld[r] = os_sp_rd && 32'(os_cur.r) == r;
  end

  rowtag_t tag_new;
  always_comb begin
    tag_new         = '0;
    tag_new.idx     = st_cur.idx;
    tag_new.push    = st_cur.push;
    tag_new.acc_row = st_cur.is ? st_cur.blk : st_cur.acc + st_cur.m;
    tag_new.accum   = st_cur.accum;
    tag_new.last    = stream_done;
    tag_new.bank    = st_cur.bank;
    tag_new.is      = st_cur.is;
    tag_new.abank   = st_cur.mc;
    tag_new.cols    = st_cur.cols;
  end

  logic [ArrayCols-1:0]            out_valid;
  logic [ArrayCols-1:0][31:0]      out_psum, out_drain;
  logic [ArrayCols-1:0][TagW-1:0]  out_tag;

  sa_array #(
    .Rows (ArrayRows),
    .Cols (ArrayCols),
    .TagW (TagW)
  ) u_array (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .os_mode_i   (os_mode),
    .in_valid_i  (st_cur.busy || os_wb_rd),
    .in_row_i    (spad_data_i),
    .in_bank_i   (st_cur.bank),
    .in_tag_i    (tag_next_q),
    .in_first_i  (os_first),
    .in_last_i   (os_last),
    .os_ld_i     (os_ld),
    .wb_row_i    (wbuf_data_i),
    .drain_sh_i  (drain_sh),
    .wen_i       (wen),
    .wrow_i      (wrow),
    .wtop_i      (wtop),
    .out_valid_o (out_valid),
    .out_psum_o  (out_psum),
    .out_tag_o   (out_tag),
    .out_drain_o (out_drain)
  );

  // Output-stationary drain. The descriptor enters column 0 when the last product reaches PE
  // (R-1, 0), R - 1 cycles after the last WBUF read (at once when R = 1); rule (b) keeps the
  // last WBUF reads of two COMPUTE_OS at least R cycles apart, so one waiting slot suffices.
  logic     os_launch;
  osdesc_t  os_launch_d;
  ospend_t  os_pend_d;
  always_comb begin
    os_pend_d   = os_pend_q;
    os_launch   = 1'b0;
    os_launch_d = os_pend_q.d;
    if (os_pend_q.busy) begin
      if (os_pend_q.cnt == '0) begin
        os_launch      = 1'b1;
        os_pend_d.busy = 1'b0;
      end else begin
        os_pend_d.cnt = os_pend_q.cnt - KW'(1);
      end
    end
    if (os_last) begin
      if (ArrayRows == 1) begin
        os_launch   = 1'b1;
        os_launch_d = os_cur.d;
      end else begin
        os_pend_d.busy = 1'b1;
        os_pend_d.cnt  = KW'(ArrayRows - 2);
        os_pend_d.d    = os_cur.d;
      end
    end
  end

  // Column c drains in cycles D_c .. D_c + R - 1 (D_c = D_0 + c): in drain cycle j it writes PE
  // row R-1-j's result (from the bottom drain register) when that row is below ROWS, and drain
  // register r moves down while j < r.
  osdrain_t [ArrayCols-1:0]        os_dr_d;
  logic [ArrayCols-1:0]            os_we;
  logic [ArrayCols-1:0][15:0]      os_row;
  logic [ArrayRows*ArrayCols-1:0]  drain_sh;
  logic                            os_end;
  for (genvar c = 0; c < ArrayCols; c++) begin : g_osdr
    logic    dr_start;
    osdesc_t dr_src;
    logic [31:0] pe_row;   // PE row written in this drain cycle
    if (c == 0) begin : g_first
      assign dr_start = os_launch;
      assign dr_src   = os_launch_d;
    end else begin : g_next
      assign dr_start = os_dr_q[c-1].active && os_dr_q[c-1].j == '0;
      assign dr_src   = os_dr_q[c-1].d;
    end
    always_comb begin
      os_dr_d[c] = os_dr_q[c];
      if (dr_start) begin
        os_dr_d[c].active = 1'b1;
        os_dr_d[c].j      = '0;
        os_dr_d[c].d      = dr_src;
      end else if (os_dr_q[c].active) begin
        if (32'(os_dr_q[c].j) == ArrayRows - 1) os_dr_d[c].active = 1'b0;
        else os_dr_d[c].j = os_dr_q[c].j + KW'(1);
      end
    end
    assign pe_row    = ArrayRows - 1 - 32'(os_dr_q[c].j);
    assign os_we[c]  = os_dr_q[c].active && pe_row < 32'(os_dr_q[c].d.rows);
    assign os_row[c] = os_dr_q[c].d.acc + 16'(pe_row);
    assign drain_sh[c] = 1'b0;   // row 0 has nothing above it
    for (genvar r = 1; r < ArrayRows; r++) begin : g_sh
      assign drain_sh[r * ArrayCols + c] = os_dr_q[c].active && 32'(os_dr_q[c].j) < r;
    end
  end
  assign os_end = os_dr_q[ArrayCols-1].active && 32'(os_dr_q[ArrayCols-1].j) == ArrayRows - 1;

  // Drain fence (rule (b)): s_o + K_o + R - t for the last COMPUTE_OS o, down to 0.
  logic [31:0] fence_d;
  assign fence_d = start_os ? 32'(os_init.klen) + ArrayRows - 1 :
                   (fence_q != '0 ? fence_q - 32'd1 : '0);
  assign os_users_d = os_users_q + (start_os ? 16'd1 : 16'd0) - (os_end ? 16'd1 : 16'd0);

  // Accumulator writer: the bottom row's registers, through their tags (weight-stationary and
  // input-stationary), or the bottom drain registers (output-stationary; the bottom row's valid
  // then means an output-stationary product, not a sum to write). A COMPUTE_IS row writes
  // column c < COLS to row (block row + c) of bank m mod C; the other columns spend the cycle.
  rowtag_t last_tag;
  logic    arr_end;
  logic [ArrayCols-1:0] ws_out, ws_we, is_we;
  for (genvar c = 0; c < ArrayCols; c++) begin : g_accw
    rowtag_t t;
    logic    unused_t;
    assign t              = tags_q[out_tag[c]];
    assign unused_t       = ^{t.idx, t.push, t.last, t.bank};
    assign ws_out[c]      = out_valid[c] && !os_mode;
    assign ws_we[c]       = ws_out[c] && !t.is;
    assign is_we[c]       = ws_out[c] && t.is && 32'(c) < 32'(t.cols);
    assign acc_we_o[c]    = ws_we[c] || is_we[c] || os_we[c];
    assign acc_bank_o[c]  = is_we[c] ? t.abank : BankW'(c);
    assign acc_row_o[c]   = os_we[c] ? AccW'(os_row[c]) :
                            (t.is ? AccW'(t.acc_row + 16'(c)) : AccW'(t.acc_row));
    assign acc_accum_o[c] = os_we[c] ? os_dr_q[c].d.accum : t.accum;
    assign acc_data_o[c]  = os_we[c] ? out_drain[c] : out_psum[c];
  end
  assign last_tag = tags_q[out_tag[ArrayCols-1]];
  assign arr_end  = ws_out[ArrayCols-1] && last_tag.last;

  // The rotator's turn: rot = (t - s_y - R) mod C (see the header).
  assign rot_is_o = is_mode;
  logic [31:0] rot_sum;   // is_ph + C - R mod C, in 1 .. 2C - 1
  assign rot_sum  = 32'(is_ph) + ArrayCols - RModC;
  assign rot_o    = (rot_sum >= ArrayCols) ? BankW'(rot_sum - ArrayCols) : BankW'(rot_sum);

  // Cycles the array still holds streamed data after this one (detailed_array.c drain_cycle): the
  // last row entered holds the array for R + C - 1 cycles.
  localparam int unsigned DrainW = $clog2(ArrayRows + ArrayCols + 1);
  logic [DrainW-1:0] drain_q, drain_d;
  assign drain_d = st_cur.busy ? DrainW'(ArrayRows + ArrayCols - 1) : (drain_q != '0 ? drain_q - DrainW'(1) : '0);

  // Bank bookkeeping.
  logic [1:0][15:0] users_d;
  logic [15:0] ws_users_d, is_users_d;
  always_comb begin
    users_d = bank_users_q;
    if (start_cmp || start_is) users_d[cur_bank_q] = users_d[cur_bank_q] + 16'd1;
    if (arr_end) users_d[last_tag.bank] = users_d[last_tag.bank] - 16'd1;
  end
  assign ws_users_d = ws_users_q + (start_cmp ? 16'd1 : 16'd0) - ((arr_end && !last_tag.is) ? 16'd1 : 16'd0);
  assign is_users_d = is_users_q + (start_is ? 16'd1 : 16'd0) - ((arr_end && last_tag.is) ? 16'd1 : 16'd0);

  // PRELOAD rule (b): C - 1 more cycles after the last row of a stream on the bank is read.
  always_comb begin
    for (int b = 0; b < 2; b++) rel_d[b] = (rel_q[b] != '0) ? rel_q[b] - BankW'(1) : '0;
    if (stream_done) rel_d[st_cur.bank] = BankW'(ArrayCols - 1);
  end

  // An instruction ends only after it started, so no user count goes below zero.
  `SA_ASSERT(BankUsersNoUnderflow, arr_end |-> bank_users_q[last_tag.bank] != '0,
             "sa_compute: a weight bank's user count underflows")
  `SA_ASSERT(ModeUsersNoUnderflow, arr_end |-> (last_tag.is ? is_users_q : ws_users_q) != '0,
             "sa_compute: the array's COMPUTE or COMPUTE_IS count underflows")
  `SA_ASSERT(OsUsersNoUnderflow, os_end |-> os_users_q != '0, "sa_compute: the COMPUTE_OS count underflows")

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      next_bank_q  <= 1'b0;
      cur_bank_q   <= 1'b0;
      bank_valid_q <= '0;
      bank_k_q     <= '0;
      bank_users_q <= '0;
      rel_q        <= '0;
      ch_q         <= '0;
      st_q         <= '0;
      tag_next_q   <= '0;
      drain_q      <= '0;
      os_q         <= '0;
      os_pend_q    <= '0;
      os_dr_q      <= '0;
      os_mode_q    <= 1'b0;
      os_users_q   <= '0;
      fence_q      <= '0;
      ws_users_q   <= '0;
      is_users_q   <= '0;
      is_ph_q      <= '0;
      is_mode_q    <= 1'b0;
    end else begin
      ws_users_q   <= ws_users_d;
      is_users_q   <= is_users_d;
      is_ph_q      <= (32'(is_ph) == ArrayCols - 1) ? '0 : is_ph + BankW'(1);
      is_mode_q    <= is_mode;
      bank_users_q <= users_d;
      rel_q        <= rel_d;
      drain_q      <= drain_d;
      os_pend_q    <= os_pend_d;
      os_dr_q      <= os_dr_d;
      os_mode_q    <= os_mode;
      os_users_q   <= os_users_d;
      fence_q      <= fence_d;
      os_q         <= os_cur;
      if (os_cur.busy) begin
        os_q.n <= os_cur.n + 32'd1;
        if (32'(os_cur.r) == ArrayRows - 1) begin
          os_q.r     <= '0;
          os_q.kbase <= os_cur.kbase + ArrayRows;
          os_q.blk   <= os_cur.blk + 32'(os_cur.kstride);
        end else begin
          os_q.r <= os_cur.r + KW'(1);
        end
        if (os_done) os_q.busy <= 1'b0;
      end
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
        if (32'(st_cur.mc) == ArrayCols - 1) begin
          st_q.mc  <= '0;
          st_q.blk <= st_cur.blk + st_cur.astride;
        end else begin
          st_q.mc  <= st_cur.mc + BankW'(1);
        end
        tag_next_q <= tag_next_q + TagW'(1);
        if (stream_done) st_q.busy <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (st_cur.busy) tags_q[tag_next_q] <= tag_new;
  end

  // Events.
  assign inside_o         = start_o || st_cur.busy || os_cur.busy;
  assign active_o         = (ch_cur.busy && !chain_done) || drain_d != '0 || os_users_q != '0;
  assign chain_busy_o     = ch_q.busy;
  // A stream is ready when its last row is read, or at its start with OVERLAP.
  logic stream_ready;
  assign stream_ready     = stream_done && !st_cur.ovl;
  assign ready_o          = start_pre || start_cfg || ((start_cmp || start_is) && st_init.ovl) || stream_ready ||
                            os_done;
  assign ready_idx_o      = os_done ? os_cur.d.idx : (stream_ready ? st_cur.idx : head_idx_i);
  assign end_cfg_o        = start_cfg;
  assign end_chain_o      = chain_done;
  assign end_chain_idx_o  = ch_cur.idx;
  assign end_chain_push_o = ch_cur.push;
  // A COMPUTE ends with its last ACC write, a COMPUTE_OS with its last column's last drain
  // cycle; never both in one cycle (the mode switch waits for the array to empty).
  assign end_arr_o        = arr_end || os_end;
  assign end_arr_idx_o    = os_end ? os_dr_q[ArrayCols-1].d.idx : last_tag.idx;
  assign end_arr_push_o   = os_end ? os_dr_q[ArrayCols-1].d.push : last_tag.push;
  assign start_k_o        = bank_k_q[cur_bank_q];
  assign spad_rd_o        = st_cur.busy || os_sp_rd;
  assign wbuf_rd_o        = chain_has_row || os_wb_rd;
  // ACC row writes of COMPUTE and COMPUTE_OS (a row's column 0); the harness counts a
  // COMPUTE_IS's (COLS x ceil(ROWS/C), TIMING §10) at its start.
  assign acc_wr_o         = ws_we[0] || os_we[0];
  assign acc_wr_accum_o   = acc_accum_o[0];

  logic unused_compute;
  assign unused_compute = ^{last_tag.acc_row, last_tag.accum, last_tag.abank, last_tag.cols};
endmodule
