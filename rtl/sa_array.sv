// sa_array.sv: the R x C grid of sa_pe with the input skew lines (sim/detailed_array.c).
// Element r of the scratchpad row entering in cycle t waits r cycles in row r's skew line and
// enters PE (r, 0) in cycle t + r; activations move right one PE per cycle and partial sums
// move down, so the sum for column c leaves the bottom row's registers in cycle t + R + c (the
// accumulator write). The weight chain enters at the top row: during a PRELOAD of bank b every
// PE row takes the bank-b weights of the row above, and row 0 takes wtop_i.
//
// Vectors are flat, one field after the other (element r of in_row_i in bits [8r+7:8r], PE
// (r, c)'s registers at index p = r * Cols + c), instead of [Rows-1:0][7:0]-style packed arrays:
// yosys 0.23 (Debian 12) reads no multi-dimensional packed arrays, and make synth synthesizes
// this module as it is (rtl/synth/). The bit layout is the same as the packed arrays' so
// sa_compute connects its [Cols-1:0][31:0] signals unchanged.
module sa_array #(
  parameter int unsigned Rows = 4,
  parameter int unsigned Cols = 4,
  parameter int unsigned TagW = 4
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // the streamed row entering this cycle (element r in bits [8r+7:8r])
  input  logic                     in_valid_i,
  input  logic [Rows*8-1:0]        in_row_i,
  input  logic                     in_bank_i,
  input  logic [TagW-1:0]          in_tag_i,
  // weight chain (column c in bits [8c+7:8c])
  input  logic [1:0]               wen_i,
  input  logic [Cols*8-1:0]        wtop_i,
  // the bottom row's registers (the accumulator writer reads them), column c at index c
  output logic [Cols-1:0]          out_valid_o,
  output logic [Cols*32-1:0]       out_psum_o,
  output logic [Cols*TagW-1:0]     out_tag_o
);
  localparam int unsigned NumPe = Rows * Cols;

  // Left inputs of column 0 per row (after the skew lines), and every PE's registers.
  logic [Rows-1:0]        left_valid;
  logic [Rows*8-1:0]      left_act;
  logic [Rows-1:0]        left_bank;
  logic [Rows*TagW-1:0]   left_tag;

  logic [NumPe-1:0]       pe_valid, pe_bank;
  logic [NumPe*8-1:0]     pe_act;
  logic [NumPe*TagW-1:0]  pe_tag;
  logic [NumPe*32-1:0]    pe_psum;
  logic [NumPe*16-1:0]    pe_w;

  assign left_valid[0]    = in_valid_i;
  assign left_act[7:0]    = in_row_i[7:0];
  assign left_bank[0]     = in_bank_i;
  assign left_tag[TagW-1:0] = in_tag_i;

  for (genvar r = 1; r < Rows; r++) begin : g_skew
    // Row r's line has r stages; stage 0 takes element r of the entering row.
    logic [r-1:0]        sk_valid_q, sk_bank_q;
    logic [r*8-1:0]      sk_act_q;
    logic [r*TagW-1:0]   sk_tag_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        sk_valid_q <= '0;
        sk_bank_q  <= '0;
        sk_act_q   <= '0;
        sk_tag_q   <= '0;
      end else begin
        sk_valid_q[0]         <= in_valid_i;
        sk_bank_q[0]          <= in_bank_i;
        sk_act_q[7:0]         <= in_row_i[r*8 +: 8];
        sk_tag_q[TagW-1:0]    <= in_tag_i;
        for (int k = 1; k < r; k++) begin
          sk_valid_q[k]          <= sk_valid_q[k-1];
          sk_bank_q[k]           <= sk_bank_q[k-1];
          sk_act_q[k*8 +: 8]     <= sk_act_q[(k-1)*8 +: 8];
          sk_tag_q[k*TagW +: TagW] <= sk_tag_q[(k-1)*TagW +: TagW];
        end
      end
    end
    assign left_valid[r]           = sk_valid_q[r-1];
    assign left_act[r*8 +: 8]      = sk_act_q[(r-1)*8 +: 8];
    assign left_bank[r]            = sk_bank_q[r-1];
    assign left_tag[r*TagW +: TagW] = sk_tag_q[(r-1)*TagW +: TagW];
  end

  for (genvar r = 0; r < Rows; r++) begin : g_row
    for (genvar c = 0; c < Cols; c++) begin : g_col
      localparam int unsigned P = r * Cols + c;   // this PE's index in the pe_* vectors
      logic              valid_in, bank_in;
      logic [7:0]        act_in;
      logic [TagW-1:0]   tag_in;
      logic [31:0]       psum_in;
      logic [15:0]       w_in;
      if (c == 0) begin : g_left_edge
        assign valid_in = left_valid[r];
        assign act_in   = left_act[r*8 +: 8];
        assign bank_in  = left_bank[r];
        assign tag_in   = left_tag[r*TagW +: TagW];
      end else begin : g_left_pe
        assign valid_in = pe_valid[P-1];
        assign act_in   = pe_act[(P-1)*8 +: 8];
        assign bank_in  = pe_bank[P-1];
        assign tag_in   = pe_tag[(P-1)*TagW +: TagW];
      end
      if (r == 0) begin : g_top_edge
        assign psum_in = '0;
        assign w_in    = {wtop_i[c*8 +: 8], wtop_i[c*8 +: 8]};
      end else begin : g_top_pe
        assign psum_in = pe_psum[(P-Cols)*32 +: 32];
        assign w_in    = pe_w[(P-Cols)*16 +: 16];
      end
      sa_pe #(
        .TagW (TagW)
      ) u_pe (
        .clk_i   (clk_i),
        .rst_ni  (rst_ni),
        .valid_i (valid_in),
        .act_i   (act_in),
        .bank_i  (bank_in),
        .tag_i   (tag_in),
        .psum_i  (psum_in),
        .wen_i   (wen_i),
        .w_i     (w_in),
        .valid_o (pe_valid[P]),
        .act_o   (pe_act[P*8 +: 8]),
        .bank_o  (pe_bank[P]),
        .tag_o   (pe_tag[P*TagW +: TagW]),
        .psum_o  (pe_psum[P*32 +: 32]),
        .w_o     (pe_w[P*16 +: 16])
      );
`ifdef SA_ASSERT
      if (r > 0) begin : g_chk
        // The partial sum from above belongs to the same streamed row (detailed_array.c asserts it).
        always_ff @(posedge clk_i) begin
          if (rst_ni && valid_in) begin
            assert (pe_valid[P-Cols] && pe_tag[(P-Cols)*TagW +: TagW] == tag_in)
              else $error("sa_array: psum/act misaligned");
          end
        end
      end
`endif
    end
  end

  // The bottom row's weights and the last column's activations, banks and tags go nowhere
  // (the bottom-right tag does, to out_tag_o; folding it in here too is harmless).
  logic unused_w;
  always_comb begin
    unused_w = ^pe_w[(NumPe-Cols)*16 +: Cols*16];
    for (int r = 0; r < Rows; r++) begin
      unused_w = unused_w ^ (^pe_act[(r*Cols+Cols-1)*8 +: 8]) ^ pe_bank[r*Cols+Cols-1] ^
                 (^pe_tag[(r*Cols+Cols-1)*TagW +: TagW]);
    end
  end

  for (genvar c = 0; c < Cols; c++) begin : g_out
    assign out_valid_o[c]              = pe_valid[NumPe-Cols+c];
    assign out_psum_o[c*32 +: 32]      = pe_psum[(NumPe-Cols+c)*32 +: 32];
    assign out_tag_o[c*TagW +: TagW]   = pe_tag[(NumPe-Cols+c)*TagW +: TagW];
  end
endmodule
