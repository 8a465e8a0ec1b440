// sa_fifo.sv: a first-in first-out queue of Depth entries with a combinational head. A push and
// a pop in one cycle both take effect at the clock edge; count_o is the occupancy at the start of
// the cycle. Used for the instruction queues and the DMA in-flight tables, whose slot numbers are
// the DRAM tags (responses come back in order: a response carries the head's slot).
`include "sa_assert.svh"

module sa_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4,
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CntW = $clog2(Depth + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             push_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             pop_i,
  output logic [Width-1:0] rdata_o,
  output logic [CntW-1:0]  count_o,
  output logic [PtrW-1:0]  head_o,     // slot of the head entry
  output logic [PtrW-1:0]  tail_o      // slot the next push fills (a DMA request's tag)
);
  logic [Width-1:0] mem_q [Depth];
  logic [PtrW-1:0]  head_q, tail_q;
  logic [CntW-1:0]  count_q;

  function automatic logic [PtrW-1:0] ptr_inc(logic [PtrW-1:0] p);
    return (32'(p) == Depth - 1) ? '0 : p + PtrW'(1);
  endfunction

  assign rdata_o = mem_q[head_q];
  assign count_o = count_q;
  assign head_o  = head_q;
  assign tail_o  = tail_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q  <= '0;
      tail_q  <= '0;
      count_q <= '0;
    end else begin
      if (push_i) tail_q <= ptr_inc(tail_q);
      if (pop_i) head_q <= ptr_inc(head_q);
      count_q <= count_q + CntW'(push_i) - CntW'(pop_i);
    end
  end

  always_ff @(posedge clk_i) begin
    if (push_i) mem_q[tail_q] <= wdata_i;
  end

  // Users never push into a full queue (a push with a pop in the same cycle is fine) nor pop an
  // empty one: fetch checks the occupancy, the units start only with a head; a DMA table takes the
  // beats DRAM accepts (at most dram.max_inflight <= MaxInflight in flight) and pops on responses.
  `SA_ASSERT(NoPushWhenFull, push_i && !pop_i |-> 32'(count_q) != Depth, "sa_fifo: push into a full queue")
  `SA_ASSERT(NoPopWhenEmpty, pop_i |-> count_q != '0, "sa_fifo: pop from an empty queue")
endmodule
