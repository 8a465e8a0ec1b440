// sa_dma_rob.sv: a DMA unit's reorder buffer (docs/TIMING.md §5a): the beats in flight on either
// memory, in issue order, handed over one per cycle. Each issued beat takes the tail entry
// (push_i, with what travels with it: meta_i); its response fills the entry (fill_*_i name the
// entry: the unit keeps the slot numbers of its DRAM beats in issue order, as DRAM answers in
// order, and of its global-buffer beats for GbufLatency cycles), with the response's data for
// the load unit (Data bits; the store unit's acknowledgements carry none). The head entry is
// handed over (pop_o) in the first cycle it is filled, its response's own cycle included (the
// data then comes straight from the response), and at most one entry per cycle, so the hand-over
// cycles are A_b = max(I_b + L_b, A_(b-1) + 1).
// Size: beat b is handed over by I_b + max(L, L_g) (by induction: A_b <= max(I_b + L_b,
// A_(b-1) + 1) <= max(I_b + Lmax, I_(b-1) + Lmax + 1) <= I_b + Lmax, beats issue a cycle apart at
// least), so at the start of a cycle at most Lmax of the beats issued in the Lmax cycles before
// are still held, and the one issued in the cycle makes Lmax + 1 = Depth (RobRoom). F does not
// enter: it only spaces DRAM beats further apart.
`include "sa_assert.svh"

module sa_dma_rob #(
  parameter int unsigned Depth = 4,
  parameter int unsigned MetaW = 8,
  parameter int unsigned Data = 8,
  localparam int unsigned SlotW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             push_i,
  input  logic [MetaW-1:0] meta_i,
  output logic [SlotW-1:0] tail_o,      // the entry a beat issued now takes
  input  logic             fill_dram_i,
  input  logic [SlotW-1:0] fill_dram_slot_i,
  input  logic [Data-1:0]  fill_dram_data_i,
  input  logic             fill_gb_i,
  input  logic [SlotW-1:0] fill_gb_slot_i,
  input  logic [Data-1:0]  fill_gb_data_i,
  output logic             pop_o,       // the head is handed over now
  output logic [MetaW-1:0] meta_o,
  output logic [Data-1:0]  data_o,
  output logic             busy_o       // beats held
);
  logic [MetaW-1:0] meta_q [Depth];
  logic [Data-1:0]  data_q [Depth];
  logic [Depth-1:0] filled_q;
  logic [SlotW-1:0] head_q, tail_q;
  logic [SlotW:0]   count_q;
  logic             head_dram, head_gb;

  function automatic logic [SlotW-1:0] inc(logic [SlotW-1:0] s);
    return (32'(s) == Depth - 1) ? '0 : s + SlotW'(1);
  endfunction

  assign head_dram = fill_dram_i && fill_dram_slot_i == head_q;
  assign head_gb   = fill_gb_i && fill_gb_slot_i == head_q;
  assign pop_o     = count_q != '0 && (filled_q[head_q] || head_dram || head_gb);
  assign meta_o    = meta_q[head_q];
  assign data_o    = head_dram ? fill_dram_data_i : head_gb ? fill_gb_data_i : data_q[head_q];
  assign tail_o    = tail_q;
  assign busy_o    = count_q != '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      filled_q <= '0;
      head_q   <= '0;
      tail_q   <= '0;
      count_q  <= '0;
    end else begin
      if (fill_dram_i) filled_q[fill_dram_slot_i] <= 1'b1;
      if (fill_gb_i) filled_q[fill_gb_slot_i] <= 1'b1;
      if (pop_o) begin
        filled_q[head_q] <= 1'b0;
        head_q           <= inc(head_q);
      end
      if (push_i) tail_q <= inc(tail_q);
      count_q <= count_q + (SlotW + 1)'(push_i) - (SlotW + 1)'(pop_o);
    end
  end

  always_ff @(posedge clk_i) begin
    if (push_i) meta_q[tail_q] <= meta_i;
    if (fill_dram_i) data_q[fill_dram_slot_i] <= fill_dram_data_i;
    if (fill_gb_i) data_q[fill_gb_slot_i] <= fill_gb_data_i;
  end

  // The invariants: the buffer never overflows (the size above), a response fills an entry in
  // flight that is not yet filled, the two memories never answer for one entry, and an entry is
  // handed over once, the oldest first (pop_o is one bit: at most one hand-over per cycle).
  `SA_ASSERT(RobRoom, push_i |-> 32'(count_q) < Depth,
             "sa_dma_rob: more beats in flight than the reorder buffer holds (Depth = max(L, L_g) + 1)")
  `SA_ASSERT(RobFillDram, fill_dram_i |-> count_q != '0 && !filled_q[fill_dram_slot_i] &&
                                          (32'(fill_dram_slot_i) + Depth - 32'(head_q)) % Depth < 32'(count_q),
             "sa_dma_rob: a DRAM response for no beat in flight, or for one already answered")
  `SA_ASSERT(RobFillGbuf, fill_gb_i |-> count_q != '0 && !filled_q[fill_gb_slot_i] &&
                                        !(fill_dram_i && fill_dram_slot_i == fill_gb_slot_i),
             "sa_dma_rob: a global-buffer response for no beat in flight, or for one already answered")
endmodule
