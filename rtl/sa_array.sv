// sa_array.sv: the R x C grid of sa_pe with its input lines (sim/detailed_array.c), in both modes
// of docs/TIMING.md §6 (os_mode_i selects; it changes only while the array is empty).
//  - Weight-stationary: element r of the scratchpad row entering in cycle t waits r cycles in
//    row r's skew line and enters PE (r, 0) in cycle t + r; activations move right one PE per
//    cycle and partial sums move down, so the sum for column c leaves the bottom row's
//    registers in cycle t + R + c (the accumulator write). The weight chain enters at the top
//    row: during a PRELOAD of bank b every PE row r with wrow_i[r] takes the bank-b weights of
//    the row above, and row 0 takes wtop_i (the chain is row-gated: rows below the step keep
//    their weights, which a stream may still be reading).
//  - Output-stationary: row r has an input shift register of R - 1 bytes. In a cycle with
//    os_ld_i[r] it takes the scratchpad row in_row_i: element 0 enters PE (r, 0) at once, the
//    others in the next R - 1 cycles. Rows that are not loaded at the start of a stream
//    (first, rows >= ROWS) carry zeros. The weight-buffer row wb_row_i enters the column skew
//    lines: element c reaches PE (0, c) c cycles later and moves down one PE per cycle. The
//    control of the stream (valid, first, last) enters row 0 with in_valid_i and waits in the
//    same skew lines as the weight-stationary control, so PE (r, c) multiplies A[r][k] x
//    B[k][c] in cycle s + k + r + c. drain_sh_i (PE (r, c) at index r * Cols + c) moves the
//    drain registers down; the bottom row's drain registers feed the accumulator writer.
//
// Vectors are flat, one field after the other (element r of in_row_i in bits [8r+7:8r], PE
// (r, c)'s registers at index p = r * Cols + c), instead of [Rows-1:0][7:0]-style packed arrays:
// yosys 0.23 (Debian 12) reads no multi-dimensional packed arrays, and make synth synthesizes
// this module as it is (rtl/synth/). The bit layout is the same as the packed arrays' so
// sa_compute connects its [Cols-1:0][31:0] signals unchanged.
`include "sa_assert.svh"

module sa_array #(
  parameter int unsigned Rows = 4,
  parameter int unsigned Cols = 4,
  parameter int unsigned TagW = 4
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     os_mode_i,
  // the stream entering row 0 this cycle: its control, and (weight-stationary) its scratchpad
  // row, element r in bits [8r+7:8r]
  input  logic                     in_valid_i,
  input  logic [Rows*8-1:0]        in_row_i,
  input  logic                     in_bank_i,
  input  logic [TagW-1:0]          in_tag_i,
  input  logic                     in_first_i,
  input  logic                     in_last_i,
  // output-stationary: row r's input line takes in_row_i; the B row entering the columns
  input  logic [Rows-1:0]          os_ld_i,
  input  logic [Cols*8-1:0]        wb_row_i,
  // output-stationary drain: PE (r, c)'s drain register takes the one above it
  input  logic [Rows*Cols-1:0]     drain_sh_i,
  // weight chain (column c in bits [8c+7:8c])
  input  logic [1:0]               wen_i,
  input  logic [Rows-1:0]          wrow_i,
  input  logic [Cols*8-1:0]        wtop_i,
  // the bottom row's registers (the accumulator writer reads them), column c at index c
  output logic [Cols-1:0]          out_valid_o,
  output logic [Cols*32-1:0]       out_psum_o,
  output logic [Cols*TagW-1:0]     out_tag_o,
  output logic [Cols*32-1:0]       out_drain_o
);
  localparam int unsigned NumPe = Rows * Cols;

  // Left inputs of column 0 per row (after the skew lines), and every PE's registers.
  logic [Rows-1:0]        left_valid, left_first, left_last;
  logic [Rows*8-1:0]      left_act, ws_act, os_act;
  logic [Rows-1:0]        left_bank;
  logic [Rows*TagW-1:0]   left_tag;
  logic [Cols*8-1:0]      top_b;

  logic [NumPe-1:0]       pe_valid, pe_bank, pe_first, pe_last;
  logic [NumPe*8-1:0]     pe_act, pe_b;
  logic [NumPe*TagW-1:0]  pe_tag;
  logic [NumPe*32-1:0]    pe_psum, pe_drain;
  logic [NumPe*16-1:0]    pe_w;
`ifndef SYNTHESIS
  logic [NumPe-1:0]       misaligned, drain_clash, shift_clash;   // per PE: a rule broken (assertions below)
`endif

  assign left_valid[0]      = in_valid_i;
  assign ws_act[7:0]        = in_row_i[7:0];
  assign left_bank[0]       = in_bank_i;
  assign left_tag[TagW-1:0] = in_tag_i;
  assign left_first[0]      = in_first_i;
  assign left_last[0]       = in_last_i;
  assign left_act           = os_mode_i ? os_act : ws_act;

  for (genvar r = 1; r < Rows; r++) begin : g_skew
    // Row r's line has r stages; stage 0 takes element r of the entering row and the control.
    logic [r-1:0]        sk_valid_q, sk_bank_q, sk_first_q, sk_last_q;
    logic [r*8-1:0]      sk_act_q;
    logic [r*TagW-1:0]   sk_tag_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        sk_valid_q <= '0;
        sk_bank_q  <= '0;
        sk_first_q <= '0;
        sk_last_q  <= '0;
        sk_act_q   <= '0;
        sk_tag_q   <= '0;
      end else begin
        sk_valid_q[0]         <= in_valid_i;
        sk_bank_q[0]          <= in_bank_i;
        sk_first_q[0]         <= in_first_i;
        sk_last_q[0]          <= in_last_i;
        sk_act_q[7:0]         <= in_row_i[r*8 +: 8];
        sk_tag_q[TagW-1:0]    <= in_tag_i;
        for (int k = 1; k < r; k++) begin
          sk_valid_q[k]          <= sk_valid_q[k-1];
          sk_bank_q[k]           <= sk_bank_q[k-1];
          sk_first_q[k]          <= sk_first_q[k-1];
          sk_last_q[k]           <= sk_last_q[k-1];
          sk_act_q[k*8 +: 8]     <= sk_act_q[(k-1)*8 +: 8];
          sk_tag_q[k*TagW +: TagW] <= sk_tag_q[(k-1)*TagW +: TagW];
        end
      end
    end
    assign left_valid[r]           = sk_valid_q[r-1];
    assign ws_act[r*8 +: 8]        = sk_act_q[(r-1)*8 +: 8];
    assign left_bank[r]            = sk_bank_q[r-1];
    assign left_tag[r*TagW +: TagW] = sk_tag_q[(r-1)*TagW +: TagW];
    assign left_first[r]           = sk_first_q[r-1];
    assign left_last[r]            = sk_last_q[r-1];
  end

  // Output-stationary input lines: row r feeds element 0 of the row it loads at once and keeps
  // elements 1 .. R-1 for the next cycles (element i in bits [8(i-1)+7:8(i-1)] after the load).
  for (genvar r = 0; r < Rows; r++) begin : g_osrow
    if (Rows > 1) begin : g_line
      logic [(Rows-1)*8-1:0] line_q;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          line_q <= '0;
        end else if (os_ld_i[r]) begin
          line_q <= in_row_i[Rows*8-1:8];
        end else if (left_first[r]) begin
          line_q <= '0;   // a stream that does not read this row: zeros
        end else begin
          line_q <= line_q >> 8;
        end
      end
      assign os_act[r*8 +: 8] = os_ld_i[r] ? in_row_i[7:0] : (left_first[r] ? 8'd0 : line_q[7:0]);
    end else begin : g_one
      assign os_act[r*8 +: 8] = os_ld_i[r] ? in_row_i[7:0] : 8'd0;
    end
  end

  // Output-stationary B: column c's skew line has c stages.
  assign top_b[7:0] = wb_row_i[7:0];
  for (genvar c = 1; c < Cols; c++) begin : g_bskew
    logic [c*8-1:0] bs_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        bs_q <= '0;
      end else begin
        bs_q[7:0] <= wb_row_i[c*8 +: 8];
        for (int k = 1; k < c; k++) bs_q[k*8 +: 8] <= bs_q[(k-1)*8 +: 8];
      end
    end
    assign top_b[c*8 +: 8] = bs_q[(c-1)*8 +: 8];
  end

  for (genvar r = 0; r < Rows; r++) begin : g_row
    for (genvar c = 0; c < Cols; c++) begin : g_col
      localparam int unsigned P = r * Cols + c;   // this PE's index in the pe_* vectors
      logic              valid_in, bank_in, first_in, last_in;
      logic [7:0]        act_in, b_in;
      logic [TagW-1:0]   tag_in;
      logic [31:0]       psum_in, drain_in;
      logic [15:0]       w_in;
      if (c == 0) begin : g_left_edge
        assign valid_in = left_valid[r];
        assign act_in   = left_act[r*8 +: 8];
        assign bank_in  = left_bank[r];
        assign tag_in   = left_tag[r*TagW +: TagW];
        assign first_in = left_first[r];
        assign last_in  = left_last[r];
      end else begin : g_left_pe
        assign valid_in = pe_valid[P-1];
        assign act_in   = pe_act[(P-1)*8 +: 8];
        assign bank_in  = pe_bank[P-1];
        assign tag_in   = pe_tag[(P-1)*TagW +: TagW];
        assign first_in = pe_first[P-1];
        assign last_in  = pe_last[P-1];
      end
      if (r == 0) begin : g_top_edge
        assign psum_in  = '0;
        assign b_in     = top_b[c*8 +: 8];
        assign drain_in = '0;
        assign w_in     = {wtop_i[c*8 +: 8], wtop_i[c*8 +: 8]};
      end else begin : g_top_pe
        assign psum_in  = pe_psum[(P-Cols)*32 +: 32];
        assign b_in     = pe_b[(P-Cols)*8 +: 8];
        assign drain_in = pe_drain[(P-Cols)*32 +: 32];
        assign w_in     = pe_w[(P-Cols)*16 +: 16];
      end
      sa_pe #(
        .TagW (TagW)
      ) u_pe (
        .clk_i      (clk_i),
        .rst_ni     (rst_ni),
        .os_mode_i  (os_mode_i),
        .valid_i    (valid_in),
        .act_i      (act_in),
        .bank_i     (bank_in),
        .tag_i      (tag_in),
        .first_i    (first_in),
        .last_i     (last_in),
        .psum_i     (psum_in),
        .b_i        (b_in),
        .drain_i    (drain_in),
        .drain_sh_i (drain_sh_i[P]),
        .wen_i      (wrow_i[r] ? wen_i : 2'b00),
        .w_i        (w_in),
        .valid_o    (pe_valid[P]),
        .act_o      (pe_act[P*8 +: 8]),
        .bank_o     (pe_bank[P]),
        .tag_o      (pe_tag[P*TagW +: TagW]),
        .first_o    (pe_first[P]),
        .last_o     (pe_last[P]),
        .psum_o     (pe_psum[P*32 +: 32]),
        .b_o        (pe_b[P*8 +: 8]),
        .drain_o    (pe_drain[P*32 +: 32]),
        .w_o        (pe_w[P*16 +: 16])
      );
`ifndef SYNTHESIS
      // What the assertions below check, per PE. Weight-stationary: the partial sum from above
      // belongs to the same streamed row (detailed_array.c asserts it); output-stationary: B from
      // above is this wavefront's. And no result reaches the drain register while the column drains.
      if (r > 0) begin : g_chk
        assign misaligned[P] = valid_in && !(pe_valid[P-Cols] && (os_mode_i || pe_tag[(P-Cols)*TagW +: TagW] == tag_in));
      end else begin : g_chk_top
        assign misaligned[P] = 1'b0;
      end
      assign drain_clash[P] = drain_sh_i[P] && valid_in && os_mode_i && last_in;
      // PRELOAD rule (b): no stream reads a bank row while a refill shifts it.
      assign shift_clash[P] = valid_in && !os_mode_i && wrow_i[r] && wen_i[bank_in];
`endif
    end
  end

  // One assertion per rule for the whole grid: Verilator copies every signal a concurrent
  // assertion reads each cycle, which per PE cost more than the grid itself. The rule vectors
  // exist only for the assertions, so synthesis (yosys) reads the grid without them.
`ifndef SYNTHESIS
  `SA_ASSERT(AlignedWithAbove, misaligned == '0,
             "sa_array: a row's activation and the partial sum (or B) from above are misaligned")
  `SA_ASSERT(NoDrainCollision, drain_clash == '0,
             "sa_array: a result reaches a PE's drain register while its column drains")
  `SA_ASSERT(NoReadWhileShifting, shift_clash == '0,
             "sa_array: a stream reads a weight bank row that a PRELOAD is shifting")
  logic unused_chk;   // read only by the assertions (lint without --assert)
  assign unused_chk = ^{misaligned, drain_clash, shift_clash};
`endif

  // What goes nowhere: the bottom row's weights and B operands (and partial sums in
  // output-stationary mode, read only in the other mode), the last column's activations and
  // the control travelling with them (the bottom-right tag does go to out_tag_o; folding it in
  // here too is harmless).
  logic unused_w;
  always_comb begin
    unused_w = ^pe_w[(NumPe-Cols)*16 +: Cols*16] ^ (^pe_b[(NumPe-Cols)*8 +: Cols*8]);
    for (int r = 0; r < Rows; r++) begin
      unused_w = unused_w ^ (^pe_act[(r*Cols+Cols-1)*8 +: 8]) ^ pe_bank[r*Cols+Cols-1] ^
                 (^pe_tag[(r*Cols+Cols-1)*TagW +: TagW]) ^ pe_first[r*Cols+Cols-1] ^
                 pe_last[r*Cols+Cols-1];
    end
  end

  for (genvar c = 0; c < Cols; c++) begin : g_out
    assign out_valid_o[c]              = pe_valid[NumPe-Cols+c];
    assign out_psum_o[c*32 +: 32]      = pe_psum[(NumPe-Cols+c)*32 +: 32];
    assign out_tag_o[c*TagW +: TagW]   = pe_tag[(NumPe-Cols+c)*TagW +: TagW];
    assign out_drain_o[c*32 +: 32]     = pe_drain[(NumPe-Cols+c)*32 +: 32];
  end
endmodule
