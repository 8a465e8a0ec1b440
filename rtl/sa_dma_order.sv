// sa_dma_order.sv: the order in which a DMA unit's LOADs (or STOREs) end (docs/TIMING.md §5a).
// A unit issues the beats of one instruction after another, each instruction's on one memory (DRAM
// or the global buffer), and takes their responses in issue order: beat b's response comes at
// A_b = max(I_b + L_b, A_(b-1)), so an instruction ends at e = max(its last beat's arrival, the
// previous instruction's end). Each instruction takes an entry at its start (alloc_*; the slot
// number travels with its beats) and is marked when its last beat arrives, on either memory's
// response path (arrive_*); the oldest entries end, in order, once marked: up to two in one cycle
// (END_SLOTS gives a DMA unit two end slots). More than two ending at once, or more than Depth
// instructions in flight, is beyond this model: an assertion stops the run.
`include "sa_assert.svh"

module sa_dma_order
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned Depth = 8,
  localparam int unsigned SlotW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CntW = $clog2(Depth + 1)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       alloc_i,
  input  logic [IDX_W-1:0]           alloc_idx_i,
  input  logic [PUSH_W-1:0]          alloc_push_i,
  output logic [SlotW-1:0]           alloc_slot_o,
  input  logic [1:0]                 arrive_i,        // per response path
  input  logic [1:0][SlotW-1:0]      arrive_slot_i,
  output logic [1:0]                 end_o,
  output logic [1:0][IDX_W-1:0]      end_idx_o,
  output logic [1:0][PUSH_W-1:0]     end_push_o,
  output logic [Depth-1:0]           waiting_o,       // entries in flight whose last beat has not arrived
  output logic                       busy_o           // instructions in flight
);
  logic [Depth-1:0]              valid_q, arrived_q, arrived_now;
  logic [IDX_W-1:0]              idx_q  [Depth];
  logic [PUSH_W-1:0]             push_q [Depth];
  logic [SlotW-1:0]              head_q, tail_q, head1;
  logic [CntW-1:0]               count_q;
  logic [1:0]                    pops;

  function automatic logic [SlotW-1:0] inc(logic [SlotW-1:0] s);
    return (32'(s) == Depth - 1) ? '0 : s + SlotW'(1);
  endfunction

  always_comb begin
    arrived_now = arrived_q;
    for (int p = 0; p < 2; p++) begin
      if (arrive_i[p]) arrived_now[arrive_slot_i[p]] = 1'b1;
    end
  end

  assign head1        = inc(head_q);
  logic end0, end1;
  assign end0         = count_q != '0 && arrived_now[head_q];
  assign end1         = end0 && 32'(count_q) > 1 && arrived_now[head1];
  assign end_o        = {end1, end0};
  assign end_idx_o[0] = idx_q[head_q];
  assign end_idx_o[1] = idx_q[head1];
  assign end_push_o[0] = push_q[head_q];
  assign end_push_o[1] = push_q[head1];
  assign pops         = {1'b0, end0} + {1'b0, end1};
  assign alloc_slot_o = tail_q;
  assign busy_o       = count_q != '0;
  assign waiting_o    = valid_q & ~arrived_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q   <= '0;
      arrived_q <= '0;
      head_q    <= '0;
      tail_q    <= '0;
      count_q   <= '0;
    end else begin
      arrived_q <= arrived_now;
      if (alloc_i) valid_q[tail_q] <= 1'b1;
      if (end0) begin
        arrived_q[head_q] <= 1'b0;
        valid_q[head_q]   <= 1'b0;
      end
      if (end1) begin
        arrived_q[head1] <= 1'b0;
        valid_q[head1]   <= 1'b0;
      end
      head_q  <= end1 ? inc(head1) : end0 ? head1 : head_q;
      if (alloc_i) tail_q <= inc(tail_q);
      count_q <= count_q + CntW'(alloc_i) - CntW'(pops);
    end
  end

  always_ff @(posedge clk_i) begin
    if (alloc_i) begin
      idx_q[tail_q]  <= alloc_idx_i;
      push_q[tail_q] <= alloc_push_i;
    end
  end

  `SA_ASSERT(InFlightRoom, alloc_i |-> 32'(count_q) < Depth,
             "sa_dma_order: more DMA instructions in flight than the RTL tracks (Depth)")
  `SA_ASSERT(TwoEndsAtMost, end1 && 32'(count_q) > 2 |-> !arrived_now[inc(head1)],
             "sa_dma_order: more than two DMA instructions end in one cycle (the RTL has two end slots)")
  `SA_ASSERT(ArriveInFlight, arrive_i[0] || arrive_i[1] |-> count_q != '0,
             "sa_dma_order: a last beat arrived for no instruction in flight")
endmodule
