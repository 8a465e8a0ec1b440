// sa_sfu_unit.sv: the special-function unit (docs/ISA.md §5 and §6.8, docs/TIMING.md §7a, the C
// engines' sim/sfu_exec.c). CFG_SFU and LAYER execute in their start cycle. Every other
// instruction runs alone (the next one starts after it ended) through a sequencer that reads
// accumulator rows in chunks of Lp = min(Lanes, C) columns, k = ceil(C / Lp) cycles a row, and
// passes each chunk through Lp lanes (sa_sfu_lane), pipelined over Latency cycles: a chunk read in
// cycle c is written in c + Latency, its control beside it in a Latency-deep pipeline here:
//  - SFU_MAP, SFU_EW: one pass, row i in cycles s + i k .. s + i k + k - 1;
//  - SFU_SOFTMAX: per row of S = ceil(LEN / C) segments, a pass for the maximum, a pass for the
//    exponentials' sum, 17 cycles of the scalar reciprocal, a pass that writes;
//  - SFU_LAYERNORM: a pass for the sums, 33 cycles of the inverse square root, a pass that
//    writes (gamma and beta from PARAM rows PBASE + 3 g .. + 2 for segment g);
//  - SFU_REDUCE: one pass; the row's result is written with its last chunk.
// The last chunk enters the pipeline in cycle s + D - Latency - 1 and is written Latency cycles
// later, in e = s + D - 1; ready = e + 1. Reads are combinational (flop arrays, TIMING §1), with
// the unit's own ports: two ACC row reads (SFU_EW's second operand; a broadcast row is read once,
// at the start, and kept), one ACC write with a column enable, three PARAM row reads. The row
// reductions run in the lanes' segment 1 (maximum, S1, S2, SFU_REDUCE's value: a value of the next
// pass reads them there, a whole pass later) and, for the exponentials' sum, after the lanes' exp
// (step 3). The scalar reciprocal and inverse square root (sfu_recip, sfu_rsqrt) are
// combinational, computed and registered in the last of their 17 and 33 waiting cycles (the
// sequential versions' cycle counts, SFU.md §4): a multicycle path, whose sums are complete a few
// cycles into the wait. Nothing here or in the lanes is evaluated while the unit is idle but the
// sequencer and the enables.
// Probes acc_rd_o / acc_wr_o / param_rd_o count the rows TIMING §10 counts.
`include "sa_assert.svh"

module sa_sfu_unit
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned ArrayCols = 4,
  parameter int unsigned AccRows = 64,
  parameter int unsigned ParamRows = 8,
  parameter int unsigned Lanes = 4,
  parameter int unsigned Latency = 6,
  localparam int unsigned AccW = (AccRows > 1) ? $clog2(AccRows) : 1,
  localparam int unsigned ParamW = (ParamRows > 1) ? $clog2(ParamRows) : 1,
  localparam int unsigned Lp = (Lanes < ArrayCols) ? Lanes : ArrayCols,
  localparam int unsigned K = (ArrayCols + Lp - 1) / Lp,
  localparam int unsigned JW = (K > 1) ? $clog2(K) : 1,
  localparam int unsigned RowBytes = 4 * ArrayCols
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  input  logic                            head_valid_i,
  input  logic [INSN_W-1:0]               head_insn_i,
  input  logic [IDX_W-1:0]                head_idx_i,
  input  logic                            tok_ok_i,
  output logic                            start_o,
  // accumulator: two read ports, one write port with a column enable
  output logic [1:0][AccW-1:0]            acc_rd_row_o,
  input  logic [1:0][ArrayCols-1:0][31:0] acc_rd_data_i,
  output logic                            acc_we_o,
  output logic [AccW-1:0]                 acc_wr_row_o,
  output logic [ArrayCols-1:0]            acc_wr_en_o,
  output logic [ArrayCols-1:0][31:0]      acc_wr_data_o,
  // PARAM: three row reads (layer norm's beta, gamma multiplier, gamma shift)
  output logic [2:0][ParamW-1:0]          param_row_o,
  input  logic [2:0][RowBytes-1:0][7:0]   param_data_i,
  // events
  output logic                            inside_o,
  output logic                            active_o,
  output logic                            ready_o,
  output logic [IDX_W-1:0]                ready_idx_o,
  output logic                            end_cfg_o,
  output logic                            end_o,
  output logic [IDX_W-1:0]                end_idx_o,
  output logic [PUSH_W-1:0]               end_push_o,
  // rows counted in the statistics (TIMING §10), this cycle
  output logic [1:0]                      acc_rd_o,
  output logic                            acc_wr_o,
  output logic                            param_rd_o
);
  // Instruction classes and sequencer phases.
  typedef enum logic [2:0] {
    C_MAP = 3'd0,
    C_EW = 3'd1,
    C_SOFTMAX = 3'd2,
    C_LAYERNORM = 3'd3,
    C_REDUCE = 3'd4
  } cls_e;
  typedef enum logic [2:0] {
    PH_A = 3'd0,      // softmax: maximum; layer norm: sums; reduce: the reduction
    PH_B = 3'd1,      // softmax: exponentials and their sum
    PH_WAIT = 3'd2,   // the scalar reciprocal (17 cycles) or inverse square root (33)
    PH_OUT = 3'd3,    // the pass that writes (MAP, EW, softmax, layer norm)
    PH_DRAIN = 3'd4   // the last chunk in the pipeline
  } phase_e;
  localparam logic [5:0] RecipCycles = 6'd17;
  localparam logic [5:0] RsqrtCycles = 6'd33;

  // The instruction in progress and its fields.
  typedef struct packed {
    logic              active;
    logic [IDX_W-1:0]  idx;
    logic [PUSH_W-1:0] push;
    cls_e              cls;
    logic [2:0]        fn;
    logic [1:0]        ewop;
    logic [1:0]        red;
    logic              bcast;
    logic [15:0]       src, src2, dst, rows, len, sstride, pbase, nseg;
    logic [15:0]       sm_mult;
    logic [4:0]        sm_shift;
    logic [3:0]        sm_j;
  } lat_t;

  // Sequencer position.
  typedef struct packed {
    phase_e      phase;
    logic [15:0] r;       // row
    logic [15:0] g;       // segment
    logic [JW-1:0] j;     // chunk
    logic [5:0]  cnt;     // cycles left in PH_WAIT / PH_DRAIN
  } seq_t;

  // One pipeline stage: a chunk's control on its way to the accumulator (the lanes carry the values).
  typedef struct packed {
    logic                        we;
    logic                        full;    // a reduction's row: column 0 the result, the others 0
    logic                        count;   // a row write as TIMING §10 counts it
    logic                        last;    // the instruction's last chunk
    logic [AccW-1:0]             row;
    logic [JW-1:0]               j;
    logic [Lp-1:0]               en;      // the columns written
    logic                        rd;      // a chunk was read (a pass's, written or not)
    logic                        pa;      // ... in PH_A (maximum, sums, reduction)
    logic                        pb;      // ... in PH_B (the exponentials' sum)
    logic                        first;   // ... the first of its row's pass
    logic [Lp-1:0]               on;      // its lanes holding a value of the row
    logic [31:0]                 red;     // SFU_REDUCE's result, from stage 1 on
  } stage_t;

  opcode_e op;
  logic    start_cfg, start_op;

  // CFG_SFU registers
  logic signed [31:0] mult_q;
  logic [5:0]         shift_q;
  logic [47:0]        eps_q;

  lat_t l_q, l_init, l_cur, l_d;
  seq_t s_q, s_cur, s_d;

  // Row accumulators: softmax maximum and sum; layer norm S1, S2; a reduction's value.
  logic signed [7:0]  mx_q, mx_d;
  logic [31:0]        sum_q, sum_d;
  logic signed [24:0] s1_q, s1_d;
  logic [31:0]        s2_q, s2_d;
  logic signed [63:0] red_q, red_d;
  // Scalar results, registered in PH_WAIT
  logic [16:0] rc_mant_q, rs_mant_q;
  logic [5:0]  rc_shift_q, rs_shift_q;
  logic        vzero_q;
  // SFU_EW's broadcast row, read at the start
  logic [ArrayCols-1:0][31:0] b_q, b_cur;

  `include "sa_sfu_fn.svh"

  assign op        = opcode_e'(head_insn_i[OP_LSB +: OP_W]);
  assign start_o   = head_valid_i && tok_ok_i && !l_q.active;
  assign start_cfg = start_o && (op == OP_CFG_SFU || op == OP_LAYER);
  assign start_op  = start_o && !(op == OP_CFG_SFU || op == OP_LAYER);

  // The opcodes this unit decodes. isa/isa_ops.def must route exactly these here: a new opcode
  // routed to the special-function unit stops elaboration until the unit handles it.
  localparam logic [NUM_OPCODES-1:0] Decoded = op_bit(OP_CFG_SFU) | op_bit(OP_SFU_MAP) | op_bit(OP_SFU_EW) |
      op_bit(OP_SFU_SOFTMAX) | op_bit(OP_SFU_LAYERNORM) | op_bit(OP_SFU_REDUCE) | op_bit(OP_LAYER);
  if (Decoded != UNIT_SFU_OPS) begin : g_isa_check
    localparam logic [NUM_OPCODES-1:0] Diff = Decoded ^ UNIT_SFU_OPS;
    localparam logic [OP_W-1:0] First = OP_W'($clog2(Diff & ~(Diff - 1)));   // lowest differing opcode
    if (UNIT_SFU_OPS[First]) begin : g_new
      $fatal(1, "sa_sfu_unit: isa/isa_ops.def routes opcode 0x%h to the sfu unit, which does not decode it", First);
    end else begin : g_gone
      $fatal(1, "sa_sfu_unit: isa/isa_ops.def no longer routes opcode 0x%h to the sfu unit, which decodes it", First);
    end
  end
  if (Latency < 1 || Latency > 64) begin : g_latency_check
    $fatal(1, "sa_sfu_unit: Latency %0d is outside 1..64 (sfu.latency, docs/ARCH.md)", Latency);
  end
  `SA_ASSERT(OwnOpcode, start_o |-> UNIT_SFU_OPS[op], "sa_sfu_unit: started an opcode routed to another unit")

  // ---- latch at the start --------------------------------------------------------------------
  always_comb begin
    logic [15:0] n;
    l_init          = '0;
    l_init.active   = 1'b1;
    l_init.idx      = head_idx_i;
    l_init.push     = head_insn_i[PUSH_LSB +: PUSH_W];
    l_init.fn       = head_insn_i[FN_LSB +: FN_W];
    l_init.ewop     = head_insn_i[EWOP_LSB +: EWOP_W];
    l_init.red      = head_insn_i[RED_LSB +: RED_W];
    l_init.bcast    = head_insn_i[BCAST_LSB];
    l_init.src      = head_insn_i[SRC_LSB +: SRC_W];
    l_init.src2     = head_insn_i[SRC2_LSB +: SRC2_W];
    l_init.dst      = head_insn_i[ACC_ADDR_LSB +: ACC_ADDR_W];
    l_init.rows     = head_insn_i[ROWS_LSB +: ROWS_W];
    l_init.sm_mult  = head_insn_i[SM_MULT_LSB +: SM_MULT_W];
    l_init.sm_shift = head_insn_i[SM_SHIFT_LSB +: SM_SHIFT_W];
    l_init.sm_j     = head_insn_i[SM_J_LSB +: SM_J_W];
    l_init.pbase    = head_insn_i[PBASE_LSB +: PBASE_W];
    // Element instructions are rows of C values in one segment.
    n = 16'(ArrayCols);
    l_init.sstride = '0;
    unique case (op)
      OP_SFU_MAP: l_init.cls = C_MAP;
      OP_SFU_EW:  l_init.cls = C_EW;
      OP_SFU_SOFTMAX, OP_SFU_LAYERNORM, OP_SFU_REDUCE: begin
        l_init.cls     = (op == OP_SFU_SOFTMAX) ? C_SOFTMAX : (op == OP_SFU_LAYERNORM) ? C_LAYERNORM : C_REDUCE;
        n              = head_insn_i[LEN_LSB +: LEN_W];
        l_init.sstride = head_insn_i[SSTRIDE_LSB +: SSTRIDE_W];
      end
      default: l_init.cls = C_MAP;
    endcase
    l_init.len  = n;
    l_init.nseg = 16'((32'(n) + ArrayCols - 1) / ArrayCols);
  end

  assign l_cur = start_op ? l_init : l_q;

  always_comb begin
    s_cur = s_q;
    if (start_op) begin
      s_cur = '0;
      s_cur.phase = (l_init.cls == C_MAP || l_init.cls == C_EW) ? PH_OUT : PH_A;
    end
  end

  // ---- reads ---------------------------------------------------------------------------------
  logic        reading, row_first, seg_last, chunk_last, pass_last;
  logic [31:0] seg_row;

  assign reading    = l_cur.active && (s_cur.phase == PH_A || s_cur.phase == PH_B || s_cur.phase == PH_OUT);
  assign chunk_last = 32'(s_cur.j) == K - 1;
  assign seg_last   = s_cur.g == l_cur.nseg - 16'd1;
  assign pass_last  = chunk_last && seg_last;
  assign row_first  = s_cur.g == '0 && s_cur.j == '0;
  assign seg_row    = 32'(s_cur.r) + 32'(s_cur.g) * 32'(l_cur.sstride);

  assign acc_rd_row_o[0] = AccW'(32'(l_cur.src) + seg_row);
  assign acc_rd_row_o[1] = AccW'((start_op && l_init.bcast) ? 32'(l_init.src2) : 32'(l_cur.src2) + 32'(s_cur.r));
  assign b_cur           = (start_op && l_init.bcast) ? acc_rd_data_i[1] : b_q;

  assign param_row_o[0] = ParamW'(32'(l_cur.pbase) + 32'd3 * 32'(s_cur.g));
  assign param_row_o[1] = ParamW'(32'(l_cur.pbase) + 32'd3 * 32'(s_cur.g) + 32'd1);
  assign param_row_o[2] = ParamW'(32'(l_cur.pbase) + 32'd3 * 32'(s_cur.g) + 32'd2);

  // ---- the lanes -----------------------------------------------------------------------------
  logic [1:0]                kind;
  logic [Lp-1:0]             lane_on;
  logic [Lp-1:0][31:0]       lane_a, lane_b, lane_y, lane_a1;
  logic [Lp-1:0][15:0]       lane_e;
  logic [Lp-1:0][31:0]       lane_p0, lane_p1;
  logic [Lp-1:0][5:0]        lane_p2;

  always_comb begin
    unique case (l_cur.cls)
      C_MAP:       kind = 2'd0;
      C_EW:        kind = 2'd1;
      C_SOFTMAX:   kind = 2'd2;
      C_LAYERNORM: kind = 2'd3;
      default:     kind = 2'd0;
    endcase
  end

  // FN and EWOP one-hot for the lanes (bit v for value v of fn_e, ewop_e).
  logic [6:0] fn_sel;
  logic [2:0] ewop_sel;
  always_comb begin
    fn_sel = '0;
    unique case (fn_e'(l_cur.fn))
      FN_IDENTITY: fn_sel[0] = 1'b1;
      FN_EXP:      fn_sel[1] = 1'b1;
      FN_GELU:     fn_sel[2] = 1'b1;
      FN_SIGMOID:  fn_sel[3] = 1'b1;
      FN_SILU:     fn_sel[4] = 1'b1;
      FN_HSIGMOID: fn_sel[5] = 1'b1;
      FN_HSWISH:   fn_sel[6] = 1'b1;
      default:     fn_sel = '0;   // not a symbol: the loader refuses it
    endcase
    ewop_sel = '0;
    unique case (ewop_e'(l_cur.ewop))
      EWOP_ADD: ewop_sel[0] = 1'b1;
      EWOP_SUB: ewop_sel[1] = 1'b1;
      EWOP_MUL: ewop_sel[2] = 1'b1;
      default:  ewop_sel = '0;
    endcase
  end

  // Lane l takes column j Lp + l of the chunk j being read.
  for (genvar l = 0; l < Lp; l++) begin : g_lane
    always_comb begin
      logic [31:0] col;
      lane_a[l]  = '0;
      lane_b[l]  = '0;
      lane_p0[l] = '0;
      lane_p1[l] = '0;
      lane_p2[l] = '0;
      col = 32'(s_cur.j) * Lp + l;
      for (int jj = 0; jj < K; jj++) begin
        if (reading && 32'(s_cur.j) == jj && jj * Lp + l < ArrayCols) begin
          lane_a[l]  = acc_rd_data_i[0][jj * Lp + l];
          lane_b[l]  = l_cur.bcast ? b_cur[jj * Lp + l] : acc_rd_data_i[1][jj * Lp + l];
          lane_p0[l] = param_data_i[0][4 * (jj * Lp + l) +: 4];
          lane_p1[l] = param_data_i[1][4 * (jj * Lp + l) +: 4];
          lane_p2[l] = param_data_i[2][4 * (jj * Lp + l)][5:0];
        end
      end
      // Column col of segment g is a value of the row when it is a column and g C + col < LEN.
      lane_on[l] = reading && col < ArrayCols && 32'(s_cur.g) * ArrayCols + col < 32'(l_cur.len);
    end

    sa_sfu_lane #(
      .Latency (Latency)
    ) u_lane (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .valid_i    (lane_on[l]),
      .kind_i     (kind),
      .fn_i       (fn_sel),
      .ewop_i     (ewop_sel),
      .a_i        (lane_a[l]),
      .b_i        (lane_b[l]),
      .mult_i     (mult_q),
      .shift_i    (shift_q),
      .sm_mult_i  (l_cur.sm_mult),
      .sm_shift_i (l_cur.sm_shift),
      .rc_mant_i  (rc_mant_q),
      .rc_shift_i (rc_shift_q - 6'(l_cur.sm_j)),
      .n_i        (l_cur.len),
      .vzero_i    (vzero_q),
      .rs_mant_i  (rs_mant_q),
      .rs_shift_i (rs_shift_q),
      .p0_i       (lane_p0[l]),
      .p1_i       (lane_p1[l]),
      .p2_i       (lane_p2[l]),
      .max_i      (mx_q),
      .s1_i       (s1_q),
      .a1_o       (lane_a1[l]),
      .e_o        (lane_e[l]),
      .y_o        (lane_y[l])
    );
  end

  // ---- the chunk entering the pipeline -------------------------------------------------------
  stage_t in_stage;
  always_comb begin
    in_stage       = '0;
    in_stage.j     = s_cur.j;
    in_stage.last  = reading && s_cur.r == l_cur.rows - 16'd1 && pass_last &&
                     (s_cur.phase == PH_OUT || l_cur.cls == C_REDUCE);
    in_stage.rd    = reading;
    in_stage.pa    = reading && s_cur.phase == PH_A;
    in_stage.pb    = reading && s_cur.phase == PH_B;
    in_stage.first = row_first;
    in_stage.on    = lane_on;
    if (reading && s_cur.phase == PH_OUT) begin
      in_stage.we    = 1'b1;
      in_stage.count = s_cur.j == '0;
      in_stage.row   = AccW'(32'(l_cur.dst) + seg_row);
      in_stage.en    = lane_on;
    end else if (reading && l_cur.cls == C_REDUCE && pass_last) begin
      in_stage.we    = 1'b1;
      in_stage.full  = 1'b1;
      in_stage.count = 1'b1;
      in_stage.row   = AccW'(32'(l_cur.dst) + 32'(s_cur.r));
    end
  end

  // ---- the pipeline: Latency stages; the last one writes -------------------------------------
  // Stage i holds the control of the chunk in the lanes' register i. Idle, the stages hold zeros
  // (the last chunk left in the instruction's last cycle), so they shift only while it runs.
  stage_t [Latency-1:0] pipe_q;
  stage_t               out_stage;
  logic [31:0]          red_out;   // SFU_REDUCE's result for the chunk in stage 0 (segment 1)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pipe_q <= '0;
    end else if (l_q.active || start_op) begin
      pipe_q[0] <= in_stage;
      for (int i = 1; i < Latency; i++) pipe_q[i] <= pipe_q[i-1];
      if (Latency > 1) pipe_q[1 % Latency].red <= red_out;
    end
  end
  assign out_stage = pipe_q[Latency-1];

  // ---- the row reductions ----------------------------------------------------------------------
  // The maximum, S1, S2 and SFU_REDUCE's value in segment 1, from the lanes' registered elements
  // (stage 0); each starts from its identity at the row's first chunk of a pass. A value of the
  // pass after reads the maximum and S1 in the same segment, so it sees them complete.
  always_comb begin
    logic signed [7:0]  c_mx;
    logic [31:0]        c_s2;
    logic signed [24:0] c_s1;
    logic signed [63:0] c_red;
    mx_d    = mx_q;
    s1_d    = s1_q;
    s2_d    = s2_q;
    red_d   = red_q;
    red_out = '0;
    if (pipe_q[0].pa) begin
      c_mx  = pipe_q[0].first ? -8'sd128 : mx_q;
      c_s1  = pipe_q[0].first ? '0 : s1_q;
      c_s2  = pipe_q[0].first ? '0 : s2_q;
      unique case (red_e'(l_q.red))
        RED_MAX: c_red = pipe_q[0].first ? -64'sh8000_0000 : red_q;
        default: c_red = pipe_q[0].first ? 64'sd0 : red_q;
      endcase
      for (int l = 0; l < Lp; l++) begin
        if (pipe_q[0].on[l]) begin
          logic signed [31:0] a;
          logic signed [7:0]  q;
          logic signed [15:0] qw;   // wide enough for q * q: a cast of a product would keep 8 bits
          logic signed [63:0] sq;
          a  = $signed(lane_a1[l]);
          q  = (a > 32'sd127) ? 8'sd127 : (a < -32'sd128) ? -8'sd128 : a[7:0];
          qw = 16'(q);
          if (q > c_mx) c_mx = q;
          c_s1 = c_s1 + 25'(q);
          c_s2 = c_s2 + 32'(qw * qw);
          sq = 64'(a) * 64'(a);
          unique case (red_e'(l_q.red))
            RED_MAX: if (64'(a) > c_red) c_red = 64'(a);
            RED_SUM: c_red = c_red + 64'(a);
            // Squares are >= 0, so once the sum passes 2^31 the result is INT32_MAX: clamp there.
            default: c_red = (c_red + ((sq > 64'sh8000_0000) ? 64'sh8000_0000 : sq) > 64'sh8000_0000) ?
                             64'sh8000_0000 : c_red + ((sq > 64'sh8000_0000) ? 64'sh8000_0000 : sq);
          endcase
        end
      end
      mx_d    = c_mx;
      s1_d    = c_s1;
      s2_d    = c_s2;
      red_d   = c_red;
      red_out = (c_red > 64'sh7fff_ffff) ? 32'h7fff_ffff : (c_red < -64'sh8000_0000) ? 32'h8000_0000 : c_red[31:0];
    end
  end

  // The exponentials' sum where the lanes' exp leaves step 3 (stage ESum); complete a few cycles
  // into the 17 of the reciprocal, which reads it in the last.
  localparam int unsigned ESum = (sfu_lane_seg(3, Latency) < Latency) ? sfu_lane_seg(3, Latency) : Latency - 1;
  always_comb begin
    sum_d = sum_q;
    if (pipe_q[ESum].pb) begin
      sum_d = pipe_q[ESum].first ? '0 : sum_q;
      for (int l = 0; l < Lp; l++) begin
        if (pipe_q[ESum].on[l]) sum_d = sum_d + 32'(lane_e[l]);
      end
    end
  end

  assign acc_we_o     = out_stage.we;
  assign acc_wr_row_o = out_stage.row;
  for (genvar c = 0; c < ArrayCols; c++) begin : g_wr
    localparam int unsigned J = c / Lp;
    localparam int unsigned L = c % Lp;
    logic [31:0] red_w;
    assign red_w            = (Latency > 1) ? out_stage.red : red_out;
    assign acc_wr_en_o[c]   = out_stage.we && (out_stage.full || (32'(out_stage.j) == J && out_stage.en[L]));
    assign acc_wr_data_o[c] = out_stage.full ? ((c == 0) ? red_w : 32'd0) : lane_y[L];
  end

  // ---- the scalar step -----------------------------------------------------------------------
  // In the last cycle of the wait (PH_WAIT with cnt 0): softmax's reciprocal of the sum, layer
  // norm's inverse square root of its n^2 variance. Their inputs are complete well before (the sum
  // ESum + 2 <= 5 cycles after the pass, S1 and S2 two): multicycle paths of 12 and 31 cycles.
  logic               wait_last, rc_take, rs_take;
  logic signed [49:0] var_n;   // n S2 - S1^2 + EPS, in [0, 2^48)
  assign wait_last = l_q.active && s_q.phase == PH_WAIT && s_q.cnt == '0;
  assign rc_take   = wait_last && l_q.cls == C_SOFTMAX;
  assign rs_take   = wait_last && l_q.cls == C_LAYERNORM;
  always_comb begin
    var_n = '0;
    if (rs_take) begin
      var_n = $signed({34'd0, l_q.len}) * $signed({18'd0, s2_q}) - 50'(s1_q) * 50'(s1_q) +
              $signed({2'b00, eps_q});
    end
  end

  // ---- next state ----------------------------------------------------------------------------
  logic finish;   // the instruction's last cycle (its last chunk leaves the pipeline)
  assign finish = l_q.active && s_q.phase == PH_DRAIN && s_q.cnt == '0;

  always_comb begin
    l_d   = l_cur;
    s_d   = s_cur;
    if (reading) begin
      // the next chunk, segment, pass or row
      if (!chunk_last) begin
        s_d.j = s_cur.j + JW'(1);
      end else begin
        s_d.j = '0;
        s_d.g = seg_last ? '0 : s_cur.g + 16'd1;
      end
      if (pass_last) begin
        logic row_done;
        row_done = 1'b0;
        unique case (s_cur.phase)
          PH_A: begin
            if (l_cur.cls == C_SOFTMAX) s_d.phase = PH_B;
            else if (l_cur.cls == C_LAYERNORM) begin
              s_d.phase = PH_WAIT;
              s_d.cnt   = RsqrtCycles - 6'd1;
            end else row_done = 1'b1;
          end
          PH_B: begin
            s_d.phase = PH_WAIT;
            s_d.cnt   = RecipCycles - 6'd1;
          end
          default: row_done = 1'b1;
        endcase
        if (row_done) begin
          if (s_cur.r == l_cur.rows - 16'd1) begin
            s_d.phase = PH_DRAIN;
            s_d.cnt   = 6'(Latency - 1);
          end else begin
            s_d.r     = s_cur.r + 16'd1;
            s_d.phase = (l_cur.cls == C_MAP || l_cur.cls == C_EW) ? PH_OUT : PH_A;
          end
        end
      end
    end else if (l_cur.active && s_cur.phase == PH_WAIT) begin
      if (s_cur.cnt == '0) s_d.phase = PH_OUT;
      else s_d.cnt = s_cur.cnt - 6'd1;
    end else if (l_cur.active && s_cur.phase == PH_DRAIN) begin
      if (s_cur.cnt == '0) l_d.active = 1'b0;
      else s_d.cnt = s_cur.cnt - 6'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mult_q     <= '0;
      shift_q    <= '0;
      eps_q      <= '0;
      l_q        <= '0;
      s_q        <= '0;
      mx_q       <= '0;
      sum_q      <= '0;
      s1_q       <= '0;
      s2_q       <= '0;
      red_q      <= '0;
      rc_mant_q  <= '0;
      rc_shift_q <= '0;
      rs_mant_q  <= '0;
      rs_shift_q <= '0;
      vzero_q    <= 1'b0;
      b_q        <= '0;
    end else begin
      if (start_cfg && op == OP_CFG_SFU) begin
        mult_q  <= head_insn_i[MULT_LSB +: MULT_W];
        shift_q <= head_insn_i[SHIFT_LSB +: SHIFT_W];
        eps_q   <= head_insn_i[EPS_LSB +: EPS_W];
      end
      l_q   <= l_d;
      s_q   <= s_d;
      mx_q  <= mx_d;
      sum_q <= sum_d;
      s1_q  <= s1_d;
      s2_q  <= s2_d;
      red_q <= red_d;
      if (start_op && l_init.bcast) b_q <= b_cur;
      if (rc_take) {rc_shift_q, rc_mant_q} <= sfu_recip(sum_q);
      if (rs_take) begin
        {rs_shift_q, rs_mant_q} <= sfu_rsqrt(var_n[47:0]);
        vzero_q                 <= var_n == '0;
      end
    end
  end

  // The instruction's last chunk leaves the pipeline in its last cycle, and no chunk is left.
  `SA_ASSERT(LastChunkAtEnd, finish |-> out_stage.last, "sa_sfu_unit: the instruction ended before its last write")
  `SA_ASSERT(NoStartWhileActive, start_o |-> !l_q.active, "sa_sfu_unit: an instruction started before the previous ended")
  `SA_ASSERT(VarianceInRange, rs_take |->
             var_n >= 0 && var_n < 50'sh1_0000_0000_0000, "sa_sfu_unit: layer norm's n^2 variance outside [0, 2^48)")

  // ---- events --------------------------------------------------------------------------------
  assign inside_o    = start_o || l_q.active;
  assign active_o    = l_d.active;
  assign ready_o     = start_cfg || finish;
  assign ready_idx_o = start_cfg ? head_idx_i : l_q.idx;
  assign end_cfg_o   = start_cfg;
  assign end_o       = finish;
  assign end_idx_o   = l_q.idx;
  assign end_push_o  = l_q.push;
  assign acc_rd_o    = 2'(reading && s_cur.j == '0) +
                       2'(reading && l_cur.cls == C_EW && s_cur.j == '0 && (!l_cur.bcast || start_op));
  assign acc_wr_o    = out_stage.we && out_stage.count;
  assign param_rd_o  = reading && l_cur.cls == C_LAYERNORM && s_cur.phase == PH_OUT && s_cur.j == '0;

  logic unused_sfu;
  assign unused_sfu = ^{var_n[49:48], out_stage.rd, out_stage.pa, out_stage.pb, out_stage.first, out_stage.on};
endmodule
