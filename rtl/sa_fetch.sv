// sa_fetch.sv: the fetch unit (docs/TIMING.md §2). It reads the program word at pc_q (the program
// memory answers combinationally, as a ROM would) and, when every queue the opcode is routed to
// had room at the start of the cycle, hands it to those queues (they append it at the clock
// edge). LAYER goes to all three queues; HALT stops fetching and enters none.
module sa_fetch
  import sa_isa_pkg::*;
  import sa_pkg::*;
#(
  parameter int unsigned QueueDepth0 = 4,
  parameter int unsigned QueueDepth1 = 4,
  parameter int unsigned QueueDepth2 = 4,
  localparam int unsigned CntW0 = $clog2(QueueDepth0 + 1),
  localparam int unsigned CntW1 = $clog2(QueueDepth1 + 1),
  localparam int unsigned CntW2 = $clog2(QueueDepth2 + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  output logic [IDX_W-1:0]  pc_o,         // program memory address (instruction index)
  input  logic [INSN_W-1:0] insn_i,       // the word at pc_o
  input  logic [CntW0-1:0]  count0_i,     // queue occupancies at the start of the cycle
  input  logic [CntW1-1:0]  count1_i,
  input  logic [CntW2-1:0]  count2_i,
  output logic [2:0]        push_o,       // append insn_i (and pc_o) to queue u at the edge
  output logic              fetch_o,      // an instruction was fetched into the queues
  output logic              halt_o,       // HALT was fetched this cycle
  output logic              stall_o,      // an instruction waits for queue space (fetch_stall)
  output logic              halted_o      // HALT fetched in an earlier cycle
);
  logic [IDX_W-1:0] pc_q;
  logic             halted_q;
  logic [2:0]       route;
  logic [2:0]       full;
  logic             is_halt;
  opcode_e          op;

  assign op = opcode_e'(insn_i[OP_LSB +: OP_W]);

  // Fetch routes by opcode only; the units decode the rest.
  logic unused_insn;
  assign unused_insn = ^insn_i[INSN_W-1:OP_W];

  always_comb begin
    route   = 3'b000;
    is_halt = 1'b0;
    unique case (op)
      OP_LOAD, OP_CFG_LOAD:              route = 3'b001;
      OP_PRELOAD, OP_COMPUTE, OP_COMPUTE_OS, OP_COMPUTE_IS: route = 3'b010;
      OP_STORE, OP_CFG_STORE, OP_CFG_POOL: route = 3'b100;
      OP_LAYER:                          route = 3'b111;
      OP_HALT:                           is_halt = 1'b1;
      default:                           route = 3'b000;  // illegal: the loader rejects it
    endcase
  end

  assign full[0] = 32'(count0_i) >= QueueDepth0;
  assign full[1] = 32'(count1_i) >= QueueDepth1;
  assign full[2] = 32'(count2_i) >= QueueDepth2;

  assign halt_o   = !halted_q && is_halt;
  assign stall_o  = !halted_q && !is_halt && |(route & full);
  assign fetch_o  = !halted_q && !is_halt && !(|(route & full)) && |route;
  assign push_o   = fetch_o ? route : 3'b000;
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
endmodule
