// sa_load.sv: the load unit (docs/TIMING.md §5, sim/detailed_load.c). CFG_LOAD and LAYER execute
// in their start cycle. A LOAD latches its fields and the CFG_LOAD registers at its start; its
// beat generator walks rows (o outer, i inner), segments g and the aligned beats covering each
// segment, offering one beat per cycle to the read channel from the start cycle on (in the start
// cycle the generator state comes straight from the instruction). A refused beat is offered again
// next cycle (a stall). Each accepted beat's destination goes into an in-flight table (responses
// come back in order); the response's bytes land in the target memory in the response cycle, and
// the row's last beat also zeroes the rest of the row (not for an accumulating ACC load).
// A transposed LOAD (TRANSPOSE=1, WBUF only) walks the same beats; each response goes down one
// WBUF column instead (byte b of LOAD row r to WBUF[DST + (r div C)*TSTRIDE + b][r mod C]):
// the generator keeps r mod C (tcol) and the block's first row (row), and the beat's bytes leave
// on the column-write port (mw_t_*), nothing zeroed.
// A LOAD with GBUF=1 (TIMING §5a) issues the same walk's beats, aligned to GbufBusBytes, to the
// global buffer's read port instead: never refused, answered GbufLatency cycles later. Every
// issued beat, on either memory, takes an entry of the reorder buffer (sa_dma_rob), which its
// response fills with its data; the buffer hands the beats over in issue order, one per cycle
// (A_b = max(I_b + L_b, A_(b-1) + 1)), and the beat handed over lands through the memories'
// one write port. ready = I_last + 1, and the LOAD ends when its last beat lands (e = A_last).
`include "sa_assert.svh"

module sa_load
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned ArrayRows = 4,
  parameter int unsigned ArrayCols = 4,
  parameter int unsigned BusBytes = 4,
  parameter int unsigned MaxInflight = 4,
  parameter int unsigned GbufBusBytes = 4,
  parameter int unsigned GbufLatency = 2,
  parameter int unsigned DramLatency = 10,
  localparam int unsigned RowBytes = (ArrayRows > 4 * ArrayCols) ? ArrayRows : 4 * ArrayCols,
  localparam int unsigned TagW = (MaxInflight > 1) ? $clog2(MaxInflight) : 1,
  localparam int unsigned MaxBus = (BusBytes > GbufBusBytes) ? BusBytes : GbufBusBytes,
  localparam int unsigned BW = $clog2(MaxBus) + 1,
  localparam int unsigned OffW = $clog2(MaxBus) > 0 ? $clog2(MaxBus) : 1,
  localparam int unsigned TColW = (ArrayCols > 1) ? $clog2(ArrayCols) : 1,
  localparam int unsigned RobDepth = ((DramLatency > GbufLatency) ? DramLatency : GbufLatency) + 1,
  localparam int unsigned RobW = (RobDepth > 1) ? $clog2(RobDepth) : 1
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // queue head
  input  logic                          head_valid_i,
  input  logic [INSN_W-1:0]             head_insn_i,
  input  logic [IDX_W-1:0]              head_idx_i,
  input  logic                          tok_ok_i,
  output logic                          start_o,
  // DRAM read channel
  output logic                          rd_valid_o,
  output logic [ADDR_W-1:0]             rd_addr_o,
  output logic [TagW-1:0]               rd_tag_o,
  input  logic                          rd_accept_i,
  input  logic                          rd_resp_valid_i,
  input  logic [TagW-1:0]               rd_resp_tag_i,
  input  logic [BusBytes-1:0][7:0]      rd_resp_data_i,
  // global buffer read port (sa_gbuf)
  output logic                          gb_valid_o,
  output logic [ADDR_W-1:0]             gb_addr_o,
  input  logic                          gb_resp_valid_i,
  input  logic [GbufBusBytes-1:0][7:0]  gb_resp_data_i,
  // one row write per cycle into SPAD, WBUF or PARAM (bytes) or ACC (scaled columns)
  output logic                          mw_valid_o,
  output logic [MEM_W-1:0]              mw_mem_o,
  output logic [15:0]                   mw_row_o,
  output logic [RowBytes-1:0]           mw_be_o,
  output logic [RowBytes-1:0][7:0]      mw_data_o,
  output logic [ArrayCols-1:0]          acc_en_o,
  output logic [ArrayCols-1:0][31:0]    acc_data_o,
  output logic                          acc_accum_o,
  // a transposed LOAD's beat down one WBUF column: byte k to row mw_trow_o + k when mw_tbe_o[k]
  output logic                          mw_t_valid_o,
  output logic [15:0]                   mw_trow_o,
  output logic [TColW-1:0]              mw_tcol_o,
  output logic [MaxBus-1:0]             mw_tbe_o,
  output logic [MaxBus-1:0][7:0]        mw_tdata_o,
  // events (statistics and the harness)
  output logic                          inside_o,     // inside an instruction this cycle
  output logic                          stall_o,      // ... waiting for a read slot
  output logic                          active_o,     // a LOAD is issuing beats
  output logic                          ready_o,
  output logic [IDX_W-1:0]              ready_idx_o,
  output logic                          end_cfg_o,    // the instruction started now ends now
  output logic [15:0]                   end_ld_count_o, // LOADs ending now (0 or 1), the oldest in flight
  output logic [NUM_UNITS-1:0][PUSH_CNT_W-1:0] end_ld_push_o, // ... its token pushes per unit
  output logic                          pending_o,    // LOAD beats in flight (not landed)
  output logic                          row_o,        // a destination row is complete
  output logic [IDX_W-1:0]              row_idx_o,
  output logic [15:0]                   row_bytes_o,
  output logic [MEM_W-1:0]              row_mem_o,
  output logic                          row_accum_o,
  output logic                          row_gbuf_o    // ... read from the global buffer
);
  // What travels with a beat in flight (detailed.h LoadBeat).
  typedef struct packed {
    logic [IDX_W-1:0]  idx;
    logic [PUSH_W-1:0] push;       // its LOAD's PUSH field (the last beat ends the LOAD)
    logic              gbuf;
    logic [MEM_W-1:0]  mem;
    logic              accum;
    logic              transposed;
    logic [TColW-1:0]  tcol;       // transposed: the WBUF column (LOAD row mod C)
    logic              last_of_row;
    logic              last_of_insn;
    logic [15:0]       row;        // destination row (transposed: the block's first WBUF row)
    logic [BW-1:0]     x_lo;       // bytes x_lo .. x_hi-1 of the beat belong to the segment
    logic [BW-1:0]     x_hi;
    logic signed [17:0] pos0;      // row position of beat byte 0 (negative: before the segment)
    logic [15:0]       row_bytes;  // NSEG * SEGLEN
    logic [MULT_W-1:0] mult;
    logic [SHIFT_W-1:0] shift;
  } beat_t;

  // The LOAD being issued, with the position of its next beat.
  typedef struct packed {
    logic              issuing;
    logic              gbuf;       // GBUF=1: beats of GbufBusBytes to the global buffer
    logic [IDX_W-1:0]  idx;
    logic [PUSH_W-1:0] push;
    logic [MEM_W-1:0]  mem;
    logic              accum;
    logic              transposed;
    logic [TColW-1:0]  tcol;
    logic [TSTRIDE_W-1:0] tstride;
    logic [DRAM_ADDR_W-1:0] addr;
    logic [15:0]       row;
    logic [OUTER_W-1:0] outer, o;
    logic [INNER_W-1:0] inner, i;
    logic [NSEG_W-1:0] nseg, g;
    logic [SEGLEN_W-1:0] seglen;
    logic [15:0]       seg_pos;
    logic [15:0]       row_bytes;
    logic [STRIDE_OUTER_W-1:0] so;
    logic [STRIDE_INNER_W-1:0] si;
    logic [SEG_STRIDE_W-1:0]   ss;
    logic [MULT_W-1:0] mult;
    logic [SHIFT_W-1:0] shift;
    logic [31:0]       beat, beat_last;
  } gen_t;

  // CFG_LOAD registers, as wide as their fields (sa_isa_pkg)
  logic [STRIDE_OUTER_W-1:0] so_q;
  logic [STRIDE_INNER_W-1:0] si_q;
  logic [SEG_STRIDE_W-1:0]   ss_q;
  logic [MULT_W-1:0]         mult_q;
  logic [SHIFT_W-1:0]        shift_q;

  gen_t  gen_q, gen_cur, gen_d, gen_init;
  opcode_e op;
  logic  start_ld, start_cfg;
  logic  accepted, done;

  // Bytes per beat and the aligned beat around address a, on DRAM (g = 0) or the global buffer.
  function automatic logic [31:0] bsz(logic g);
    return g ? 32'(GbufBusBytes) : 32'(BusBytes);
  endfunction

  function automatic logic [31:0] align(logic [31:0] a, logic g);
    return a & ~(bsz(g) - 32'd1);
  endfunction

  // DRAM address of segment s of row (o, i).
  function automatic logic [31:0] seg_addr(logic [31:0] a, logic [STRIDE_OUTER_W-1:0] so,
                                           logic [STRIDE_INNER_W-1:0] si, logic [SEG_STRIDE_W-1:0] ss,
                                           logic [OUTER_W-1:0] o, logic [INNER_W-1:0] i, logic [NSEG_W-1:0] s);
    return a + 32'(o) * 32'(so) + 32'(i) * 32'(si) + 32'(s) * 32'(ss);
  endfunction

  assign op        = opcode_e'(head_insn_i[OP_LSB +: OP_W]);
  assign start_o   = head_valid_i && tok_ok_i && !gen_q.issuing;
  assign start_ld  = start_o && op == OP_LOAD;
  assign start_cfg = start_o && op != OP_LOAD;

  // The opcodes this unit decodes. isa/isa_ops.def must route exactly these here: a new opcode
  // routed to the load unit stops elaboration until the unit handles it.
  localparam logic [NUM_OPCODES-1:0] Decoded = op_bit(OP_LOAD) | op_bit(OP_CFG_LOAD) | op_bit(OP_LAYER);
  if (Decoded != UNIT_LOAD_OPS) begin : g_isa_check
    localparam logic [NUM_OPCODES-1:0] Diff = Decoded ^ UNIT_LOAD_OPS;
    localparam logic [OP_W-1:0] First = OP_W'($clog2(Diff & ~(Diff - 1)));   // lowest differing opcode
    if (UNIT_LOAD_OPS[First]) begin : g_new
      $fatal(1, "sa_load: isa/isa_ops.def routes opcode 0x%h to the load unit, which does not decode it", First);
    end else begin : g_gone
      $fatal(1, "sa_load: isa/isa_ops.def no longer routes opcode 0x%h to the load unit, which decodes it", First);
    end
  end
  `SA_ASSERT(OwnOpcode, start_o |-> UNIT_LOAD_OPS[op], "sa_load: started an opcode routed to another unit")

  always_comb begin
    gen_init           = '0;
    gen_init.issuing   = 1'b1;
    gen_init.gbuf      = head_insn_i[GBUF_LSB];
    gen_init.idx       = head_idx_i;
    gen_init.push      = head_insn_i[PUSH_LSB +: PUSH_W];
    gen_init.mem       = head_insn_i[MEM_LSB +: MEM_W];
    gen_init.accum     = head_insn_i[ACCUM_LSB];
    gen_init.transposed = head_insn_i[TRANSPOSE_LSB];
    gen_init.tstride   = head_insn_i[TSTRIDE_LSB +: TSTRIDE_W];
    gen_init.addr      = head_insn_i[DRAM_ADDR_LSB +: DRAM_ADDR_W];
    gen_init.row       = head_insn_i[DST_LSB +: DST_W];
    gen_init.outer     = head_insn_i[OUTER_LSB +: OUTER_W];
    gen_init.inner     = head_insn_i[INNER_LSB +: INNER_W];
    gen_init.nseg      = head_insn_i[NSEG_LSB +: NSEG_W];
    gen_init.seglen    = head_insn_i[SEGLEN_LSB +: SEGLEN_W];
    gen_init.row_bytes = 16'(32'(gen_init.nseg) * 32'(gen_init.seglen));
    gen_init.so        = so_q;
    gen_init.si        = si_q;
    gen_init.ss        = ss_q;
    gen_init.mult      = mult_q;
    gen_init.shift     = shift_q;
    gen_init.beat      = align(gen_init.addr, gen_init.gbuf);
    gen_init.beat_last = align(gen_init.addr + 32'(gen_init.seglen) - 32'd1, gen_init.gbuf);
  end

  assign gen_cur = start_ld ? gen_init : gen_q;

  // The beat offered this cycle and what it carries.
  logic [31:0]      seg;
  logic             last_of_row, last_of_insn;
  beat_t            bt_new;
  logic [31:0]      seg_end;

  assign seg          = seg_addr(gen_cur.addr, gen_cur.so, gen_cur.si, gen_cur.ss, gen_cur.o, gen_cur.i, gen_cur.g);
  assign seg_end      = seg + 32'(gen_cur.seglen);
  assign last_of_row  = gen_cur.beat == gen_cur.beat_last && 32'(gen_cur.g) + 1 == 32'(gen_cur.nseg);
  assign last_of_insn = last_of_row && 32'(gen_cur.i) + 1 == 32'(gen_cur.inner) &&
                        32'(gen_cur.o) + 1 == 32'(gen_cur.outer);

  always_comb begin
    bt_new              = '0;
    bt_new.idx          = gen_cur.idx;
    bt_new.push         = gen_cur.push;
    bt_new.gbuf         = gen_cur.gbuf;
    bt_new.mem          = gen_cur.mem;
    bt_new.accum        = gen_cur.accum;
    bt_new.transposed   = gen_cur.transposed;
    bt_new.tcol         = gen_cur.tcol;
    bt_new.last_of_row  = last_of_row;
    bt_new.last_of_insn = last_of_insn;
    bt_new.row          = gen_cur.row;
    bt_new.x_lo         = (seg > gen_cur.beat) ? BW'(seg - gen_cur.beat) : '0;
    bt_new.x_hi         = (seg_end - gen_cur.beat >= bsz(gen_cur.gbuf)) ? BW'(bsz(gen_cur.gbuf)) :
                                                                          BW'(seg_end - gen_cur.beat);
    bt_new.pos0         = 18'(32'(gen_cur.seg_pos) + gen_cur.beat - seg);
    bt_new.row_bytes    = gen_cur.row_bytes;
    bt_new.mult         = gen_cur.mult;
    bt_new.shift        = gen_cur.shift;
  end

  // One beat per cycle on either memory; the global buffer's port never refuses one.
  assign rd_valid_o = gen_cur.issuing && !gen_cur.gbuf;
  assign rd_addr_o  = gen_cur.beat;
  assign gb_valid_o = gen_cur.issuing && gen_cur.gbuf;
  assign gb_addr_o  = gen_cur.beat;
  assign accepted   = gen_cur.issuing && (gen_cur.gbuf || rd_accept_i);

  // Next generator position after an accepted beat.
  always_comb begin
    logic [31:0] nseg_addr;
    gen_d     = gen_cur;
    done      = 1'b0;
    nseg_addr = '0;
    if (accepted) begin
      if (gen_cur.beat != gen_cur.beat_last) begin
        gen_d.beat = gen_cur.beat + bsz(gen_cur.gbuf);
      end else begin
        if (32'(gen_cur.g) + 1 < 32'(gen_cur.nseg)) begin
          gen_d.g       = gen_cur.g + NSEG_W'(1);
          gen_d.seg_pos = gen_cur.seg_pos + gen_cur.seglen;
        end else begin
          gen_d.g       = '0;
          gen_d.seg_pos = '0;
          if (!gen_cur.transposed) begin
            gen_d.row = gen_cur.row + 16'd1;
          end else if (32'(gen_cur.tcol) == ArrayCols - 1) begin
            gen_d.tcol = '0;
            gen_d.row  = gen_cur.row + gen_cur.tstride;
          end else begin
            gen_d.tcol = gen_cur.tcol + TColW'(1);
          end
          if (32'(gen_cur.i) + 1 < 32'(gen_cur.inner)) begin
            gen_d.i = gen_cur.i + INNER_W'(1);
          end else begin
            gen_d.i = '0;
            if (32'(gen_cur.o) + 1 < 32'(gen_cur.outer)) begin
              gen_d.o = gen_cur.o + OUTER_W'(1);
            end else begin
              done = 1'b1;
            end
          end
        end
        nseg_addr       = seg_addr(gen_cur.addr, gen_cur.so, gen_cur.si, gen_cur.ss, gen_d.o, gen_d.i, gen_d.g);
        gen_d.beat      = align(nseg_addr, gen_cur.gbuf);
        gen_d.beat_last = align(nseg_addr + 32'(gen_cur.seglen) - 32'd1, gen_cur.gbuf);
      end
      if (done) gen_d.issuing = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      gen_q   <= '0;
      so_q    <= '0;
      si_q    <= '0;
      ss_q    <= '0;
      mult_q  <= '0;
      shift_q <= '0;
    end else begin
      gen_q <= gen_d;
      if (start_cfg && op == OP_CFG_LOAD) begin
        so_q    <= head_insn_i[STRIDE_OUTER_LSB +: STRIDE_OUTER_W];
        si_q    <= head_insn_i[STRIDE_INNER_LSB +: STRIDE_INNER_W];
        ss_q    <= head_insn_i[SEG_STRIDE_LSB +: SEG_STRIDE_W];
        mult_q  <= head_insn_i[MULT_LSB +: MULT_W];
        shift_q <= head_insn_i[SHIFT_LSB +: SHIFT_W];
      end
    end
  end

  // Every issued beat takes a reorder-buffer entry; the DRAM read channel answers in order, so
  // the entries of the DRAM beats in flight wait in a FIFO (its slot number is the beat's tag),
  // and a global-buffer beat's entry travels GbufLatency stages beside sa_gbuf's data pipeline.
  logic            dram_acc, gb_iss;
  logic [TagW-1:0] tag_q, resp_tag_q;
  logic [$clog2(MaxInflight + 1)-1:0] fly_count;
  logic [RobW-1:0] rob_tail, fly_slot;

  assign dram_acc = accepted && !gen_cur.gbuf;
  assign gb_iss   = accepted && gen_cur.gbuf;

  sa_fifo #(
    .Width (RobW),
    .Depth (MaxInflight)
  ) u_fly (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .push_i  (dram_acc),
    .wdata_i (rob_tail),
    .pop_i   (rd_resp_valid_i),
    .rdata_o (fly_slot),
    .count_o (fly_count),
    .head_o  (resp_tag_q),
    .tail_o  (tag_q)
  );

  assign rd_tag_o = tag_q;

  // DRAM answers in order, one response per accepted beat.
  `SA_ASSERT(ReadRespExpected, rd_resp_valid_i |-> rd_resp_tag_i == resp_tag_q && fly_count != '0,
             "sa_load: a read response with no beat in flight or out of order")

  logic [GbufLatency-1:0] gv_q;
  logic [RobW-1:0]        gs_q [GbufLatency];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      gv_q <= '0;
    end else begin
      gv_q <= GbufLatency'({gv_q, gb_iss});
    end
  end
  always_ff @(posedge clk_i) begin
    gs_q[0] <= rob_tail;
    for (int k = 1; k < GbufLatency; k++) gs_q[k] <= gs_q[k-1];
  end

  `SA_ASSERT(GbufRespExpected, gb_resp_valid_i == gv_q[GbufLatency-1],
             "sa_load: the global buffer's response does not match the beat issued GbufLatency cycles earlier")

  // The reorder buffer: responses fill their entries, the head lands in the first cycle it is
  // filled, one beat per cycle.
  logic [MaxBus-1:0][7:0] dram_data, gb_data, land_data;
  logic                   land_v;
  beat_t                  b;
  always_comb begin
    dram_data = '0;
    gb_data   = '0;
    dram_data[BusBytes-1:0]   = rd_resp_data_i;
    gb_data[GbufBusBytes-1:0] = gb_resp_data_i;
  end

  sa_dma_rob #(
    .Depth (RobDepth),
    .MetaW ($bits(beat_t)),
    .Data  (8 * MaxBus)
  ) u_rob (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .push_i           (accepted),
    .meta_i           (bt_new),
    .tail_o           (rob_tail),
    .fill_dram_i      (rd_resp_valid_i),
    .fill_dram_slot_i (fly_slot),
    .fill_dram_data_i (dram_data),
    .fill_gb_i        (gv_q[GbufLatency-1]),
    .fill_gb_slot_i   (gs_q[GbufLatency-1]),
    .fill_gb_data_i   (gb_data),
    .pop_o            (land_v),
    .meta_o           (b),
    .data_o           (land_data),
    .busy_o           (pending_o)
  );

  // The LOAD ends when its last beat lands: at most one a cycle.
  assign end_ld_count_o = 16'(land_v && b.last_of_insn);
  always_comb begin
    logic [NUM_UNITS-1:0] to;
    to = units_of(UNIT_LOAD, b.push);
    for (int v = 0; v < NUM_UNITS; v++) end_ld_push_o[v] = PUSH_CNT_W'(land_v && b.last_of_insn && to[v]);
  end

  // The beat lands: its bytes at their row positions, then (last beat of the row) zeros past
  // NSEG * SEGLEN, except for an accumulating ACC load.
  logic zero_fill;
  assign zero_fill = b.last_of_row && !(b.mem == MEM_ACC && b.accum) && !b.transposed;

  // (Computed only when a beat lands: Verilator evaluates this loop on every settle otherwise.)
  always_comb begin
    logic signed [18:0] x;
    logic               in_beat;
    mw_be_o   = '0;
    mw_data_o = '0;
    x         = '0;
    in_beat   = 1'b0;
    if (land_v) begin
      for (int q = 0; q < RowBytes; q++) begin
        x       = 19'(q) - 19'(b.pos0);
        in_beat = x >= $signed(19'(b.x_lo)) && x < $signed(19'(b.x_hi));
        mw_be_o[q]   = in_beat || (zero_fill && 32'(q) >= 32'(b.row_bytes));
        mw_data_o[q] = in_beat ? land_data[x[OffW-1:0]] : 8'd0;
      end
    end
  end

  assign mw_valid_o  = land_v && !b.transposed;
  assign mw_mem_o    = b.mem;
  assign mw_row_o    = b.row;
  assign acc_accum_o = b.accum;

  // Transposed: beat byte x_lo + k is row byte pos0 + x_lo + k (pos0 + x_lo is the segment's
  // first row byte or later, never negative), so it goes to WBUF row row + pos0 + x_lo + k.
  assign mw_t_valid_o = land_v && b.transposed;
  assign mw_trow_o    = b.row + 16'(b.pos0 + 18'(b.x_lo));
  assign mw_tcol_o    = b.tcol;
  always_comb begin
    for (int k = 0; k < MaxBus; k++) begin
      mw_tbe_o[k]   = 32'(k) < 32'(b.x_hi) - 32'(b.x_lo);
      mw_tdata_o[k] = land_data[OffW'(32'(b.x_lo) + k)];
    end
  end

  for (genvar c = 0; c < ArrayCols; c++) begin : g_scale
    sa_requant u_scale (
      .p_i     (64'($signed(mw_data_o[c])) * 64'($signed(b.mult))),
      .shift_i (b.shift),
      .q_o     (acc_data_o[c])
    );
    assign acc_en_o[c] = mw_be_o[c];
  end

  assign row_o       = land_v && b.last_of_row;
  assign row_idx_o   = b.idx;
  assign row_bytes_o = b.row_bytes;
  assign row_mem_o   = b.mem;
  assign row_accum_o = b.accum;
  assign row_gbuf_o  = b.gbuf;

  // Events.
  assign inside_o      = start_o || gen_cur.issuing;
  assign stall_o       = gen_cur.issuing && !gen_cur.gbuf && !rd_accept_i;
  assign active_o      = gen_q.issuing;
  assign ready_o       = start_cfg || (accepted && done);
  assign ready_idx_o   = start_cfg ? head_idx_i : gen_cur.idx;
  assign end_cfg_o     = start_cfg;

  logic unused_fly;
  assign unused_fly = ^{fly_count, rd_resp_tag_i, resp_tag_q};
endmodule
