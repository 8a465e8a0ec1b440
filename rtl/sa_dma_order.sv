// sa_dma_order.sv: the order in which a DMA unit's LOADs (or STOREs) end (docs/TIMING.md §5a).
// A unit issues the beats of one instruction after another, each instruction's on one memory (DRAM
// or the global buffer), and takes their responses in issue order: beat b's response comes at
// A_b = max(I_b + L_b, A_(b-1)), so an instruction ends at e = max(its last beat's arrival, the
// previous instruction's end). Each instruction takes an entry at its start (alloc_*; the slot
// number travels with its beats) and is marked when its last beat arrives, on either memory's
// response path (arrive_*); the oldest entries end, in order, once marked, any number in one
// cycle (those whose responses waited for an older one's): end_count_o of them, pushing
// push_cnt_o[v] tokens toward unit v in all. The harness knows which: the unit's LOADs / STOREs
// in start order. More than Depth instructions in flight is beyond this model (an assertion).
`include "sa_assert.svh"

module sa_dma_order
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned Depth = 8,
  parameter unit_e Unit = UNIT_LOAD,
  localparam int unsigned SlotW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CntW = $clog2(Depth + 1)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       alloc_i,
  input  logic [PUSH_W-1:0]          alloc_push_i,
  output logic [SlotW-1:0]           alloc_slot_o,
  input  logic [1:0]                 arrive_i,        // per response path
  input  logic [1:0][SlotW-1:0]      arrive_slot_i,
  output logic [15:0]                end_count_o,
  output logic [NUM_UNITS-1:0][PUSH_CNT_W-1:0] push_cnt_o,
  output logic                       busy_o           // instructions in flight
);
  logic [Depth-1:0]              arrived_q, arrived_now, ends;
  logic [PUSH_W-1:0]             push_q [Depth];
  logic [SlotW-1:0]              head_q, tail_q;
  logic [CntW-1:0]               count_q, pops;

  function automatic logic [SlotW-1:0] inc(logic [SlotW-1:0] s);
    return (32'(s) == Depth - 1) ? '0 : s + SlotW'(1);
  endfunction

  // The prefix of marked entries from the oldest on ends now (ends: by slot).
  always_comb begin
    logic             run;
    logic [SlotW-1:0] at;
    logic [NUM_UNITS-1:0] to;
    arrived_now = arrived_q;
    for (int p = 0; p < 2; p++) begin
      if (arrive_i[p]) arrived_now[arrive_slot_i[p]] = 1'b1;
    end
    run        = 1'b1;
    at         = head_q;
    to         = '0;
    pops       = '0;
    ends       = '0;
    push_cnt_o = '0;
    if (arrive_i != '0 || arrived_q != '0) begin
      for (int k = 0; k < Depth; k++) begin
        run = run && 32'(count_q) > k && arrived_now[at];
        to  = units_of(Unit, push_q[at]);
        if (run) begin
          ends[at] = 1'b1;
          pops     = pops + CntW'(1);
          for (int v = 0; v < NUM_UNITS; v++) push_cnt_o[v] = push_cnt_o[v] + PUSH_CNT_W'(to[v]);
        end
        at = inc(at);
      end
    end
  end

  assign end_count_o  = 16'(pops);
  assign alloc_slot_o = tail_q;
  assign busy_o       = count_q != '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      arrived_q <= '0;
      head_q    <= '0;
      tail_q    <= '0;
      count_q   <= '0;
    end else begin
      arrived_q <= arrived_now & ~ends;
      head_q    <= SlotW'((32'(head_q) + 32'(pops)) % Depth);
      if (alloc_i) tail_q <= inc(tail_q);
      count_q <= count_q + CntW'(alloc_i) - pops;
    end
  end

  always_ff @(posedge clk_i) begin
    if (alloc_i) push_q[tail_q] <= alloc_push_i;
  end

  `SA_ASSERT(InFlightRoom, alloc_i |-> 32'(count_q) < Depth,
             "sa_dma_order: more DMA instructions in flight than the RTL tracks (Depth)")
  `SA_ASSERT(ArriveInFlight, arrive_i != '0 |-> count_q != '0,
             "sa_dma_order: a last beat arrived for no instruction in flight")
endmodule
