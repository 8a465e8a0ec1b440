// sa_fetch.sv: the fetch unit (docs/TIMING.md §2). It reads the program word at pc_q (the program
// memory answers combinationally, as a ROM would) and, when every queue the opcode is routed to
// had room at the start of the cycle, hands it to those queues (they append it at the clock
// edge). Routing follows isa/isa_ops.def (sa_isa_pkg's op_queues): LAYER goes to all NUM_UNITS
// queues; HALT stops fetching and enters none. QueueDepth[u] and count_i[u] are queue u's depth
// and occupancy (unit u of sa_isa_pkg's unit_e).
`include "sa_assert.svh"

module sa_fetch
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter logic [NUM_UNITS-1:0][15:0] QueueDepth = {NUM_UNITS{16'd4}},
  parameter bit          IgnoreFull = 1'b0,   // tests only: push into full queues (sa_top)
  parameter int unsigned CntW = 3             // width of the occupancies (the deepest queue's)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  output logic [IDX_W-1:0]  pc_o,         // program memory address (instruction index)
  input  logic [INSN_W-1:0] insn_i,       // the word at pc_o
  input  logic [NUM_UNITS-1:0][CntW-1:0] count_i,  // queue occupancies at the start of the cycle
  output logic [NUM_UNITS-1:0] push_o,  // append insn_i (and pc_o) to queue u at the edge
  output logic              fetch_o,      // an instruction was fetched into the queues
  output logic              halt_o,       // HALT was fetched this cycle
  output logic              stall_o,      // an instruction waits for queue space (fetch_stall)
  output logic              halted_o      // HALT fetched in an earlier cycle
);
  logic [IDX_W-1:0] pc_q;
  logic             halted_q;
  logic [NUM_UNITS-1:0] route;
  logic [NUM_UNITS-1:0] full;
  logic             is_halt;
  opcode_e          op;

  assign op = opcode_e'(insn_i[OP_LSB +: OP_W]);

  // Fetch routes by opcode only; the units decode the rest.
  logic unused_insn;
  assign unused_insn = ^insn_i[INSN_W-1:OP_W];

  // Routing comes from the ISA table (sa_isa_pkg: op_queues, FETCH_OPS); an illegal opcode goes
  // nowhere (the loader rejects it). The fetch unit itself implements only HALT.
  assign route   = op_queues(op);
  assign is_halt = op == OP_HALT;
  if (FETCH_OPS != op_bit(OP_HALT)) begin : g_isa_check
    $fatal(1, "sa_fetch: isa/isa_ops.def has the fetch unit consume opcodes %h; it implements only HALT", FETCH_OPS);
  end

  for (genvar u = 0; u < NUM_UNITS; u++) begin : g_full
    assign full[u] = !IgnoreFull && 32'(count_i[u]) >= 32'(QueueDepth[u]);
  end

  assign halt_o   = !halted_q && is_halt;
  assign stall_o  = !halted_q && !is_halt && |(route & full);
  assign fetch_o  = !halted_q && !is_halt && !(|(route & full)) && |route;
  assign push_o   = fetch_o ? route : '0;
  assign pc_o     = pc_q;
  assign halted_o = halted_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pc_q     <= '0;
      halted_q <= 1'b0;
    end else begin
      if (fetch_o || halt_o) pc_q <= pc_q + IDX_W'(1);
      if (halt_o) halted_q <= 1'b1;
    end
  end

  // The loader accepts only legal opcodes, and HALT ends every program, so fetch never meets a
  // word it cannot route.
  `SA_ASSERT(LegalOpcode, !halted_q |-> is_halt || route != '0, "sa_fetch: fetched an illegal opcode")
  // TIMING §2: an instruction enters a queue only if that queue had room at the start of the
  // cycle (stricter than sa_fifo's rule, which allows a push into a full queue that pops).
  // One named assertion per queue, so that a failure names it.
  `SA_ASSERT(LoadQueueRoom, push_o[UNIT_LOAD] |-> 32'(count_i[UNIT_LOAD]) < 32'(QueueDepth[UNIT_LOAD]),
             "sa_fetch: pushed into a full load queue")
  `SA_ASSERT(ComputeQueueRoom, push_o[UNIT_COMPUTE] |-> 32'(count_i[UNIT_COMPUTE]) < 32'(QueueDepth[UNIT_COMPUTE]),
             "sa_fetch: pushed into a full compute queue")
  `SA_ASSERT(StoreQueueRoom, push_o[UNIT_STORE] |-> 32'(count_i[UNIT_STORE]) < 32'(QueueDepth[UNIT_STORE]),
             "sa_fetch: pushed into a full store queue")
  `SA_ASSERT(SfuQueueRoom, push_o[UNIT_SFU] |-> 32'(count_i[UNIT_SFU]) < 32'(QueueDepth[UNIT_SFU]),
             "sa_fetch: pushed into a full sfu queue")
  if (NUM_UNITS != 4) begin : g_units_check
    $fatal(1, "sa_fetch: sa_isa_pkg has %0d units; the QueueRoom assertions above name four", NUM_UNITS);
  end
endmodule
