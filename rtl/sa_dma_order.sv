// sa_dma_order.sv: the order in which a DMA unit's LOADs (or STOREs) end (docs/TIMING.md §5a).
// A unit issues the beats of one instruction after another, each instruction's on one memory (DRAM
// or the global buffer), and takes their responses in issue order: beat b's response comes at
// A_b = max(I_b + L_b, A_(b-1)), so an instruction ends at e = max(its last beat's arrival, the
// previous instruction's end). Each instruction takes an entry at its start (alloc_*; the slot
// number travels with its beats) and is marked when its last beat arrives, on either memory's
// response path (arrive_*); the oldest entries end, in order, once marked: up to DMA_ENDS in one
// cycle (sa_pkg). More ending at once, or more than Depth instructions in flight, is beyond this
// model: an assertion stops the run.
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
  output logic [DMA_ENDS-1:0]        end_o,
  output logic [DMA_ENDS-1:0][IDX_W-1:0] end_idx_o,
  output logic [DMA_ENDS-1:0][PUSH_W-1:0] end_push_o,
  output logic [Depth-1:0]           waiting_o,       // entries in flight whose last beat has not arrived
  output logic                       busy_o           // instructions in flight
);
  logic [Depth-1:0]              valid_q, arrived_q, arrived_now;
  logic [IDX_W-1:0]              idx_q  [Depth];
  logic [PUSH_W-1:0]             push_q [Depth];
  logic [SlotW-1:0]              head_q, tail_q;
  logic [CntW-1:0]               count_q;
  logic [DMA_ENDS:0][SlotW-1:0]  at;      // the slots of the oldest DMA_ENDS + 1 entries
  logic [DMA_ENDS:0]             ends;    // entry k ends now (k = DMA_ENDS: it would, beyond the slots)
  logic [CntW-1:0]               pops;

  function automatic logic [SlotW-1:0] inc(logic [SlotW-1:0] s);
    return (32'(s) == Depth - 1) ? '0 : s + SlotW'(1);
  endfunction

  for (genvar k = 0; k <= DMA_ENDS; k++) begin : g_at
    assign at[k] = SlotW'((32'(head_q) + k) % Depth);
  end

  always_comb begin
    logic run;
    arrived_now = arrived_q;
    for (int p = 0; p < 2; p++) begin
      if (arrive_i[p]) arrived_now[arrive_slot_i[p]] = 1'b1;
    end
    run  = 1'b1;
    pops = '0;
    for (int k = 0; k <= DMA_ENDS; k++) begin
      run     = run && 32'(count_q) > k && arrived_now[at[k]];
      ends[k] = run;
      if (run && k < DMA_ENDS) pops = pops + CntW'(1);
    end
  end

  for (genvar k = 0; k < DMA_ENDS; k++) begin : g_end
    assign end_o[k]      = ends[k];
    assign end_idx_o[k]  = idx_q[at[k]];
    assign end_push_o[k] = push_q[at[k]];
  end
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
      for (int k = 0; k < DMA_ENDS; k++) begin
        if (ends[k]) begin
          arrived_q[at[k]] <= 1'b0;
          valid_q[at[k]]   <= 1'b0;
        end
      end
      head_q  <= (pops == '0) ? head_q : at[pops];
      if (alloc_i) tail_q <= inc(tail_q);
      count_q <= count_q + CntW'(alloc_i) - pops;
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
  `SA_ASSERT(EndSlotsEnough, !ends[DMA_ENDS],
             "sa_dma_order: more DMA instructions end in one cycle than the RTL has end slots (DMA_ENDS)")
  `SA_ASSERT(ArriveInFlight, arrive_i[0] || arrive_i[1] |-> count_q != '0,
             "sa_dma_order: a last beat arrived for no instruction in flight")
endmodule
