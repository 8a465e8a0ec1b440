// sa_pkg.sv: constants and types shared by the sa_* modules (the ISA itself is in the generated
// sa_isa_pkg.sv). Widths here are those of the machine's registers, not of the arch parameters.
package sa_pkg;

  // Instruction index carried with every instruction (queues, in-flight tables): it is what the
  // harness reports per instruction, as a debug tag in a real design would be.
  localparam int unsigned IDX_W = 32;
  // DRAM byte addresses (the ISA's DRAM_ADDR is 32 bits; prog_check keeps every byte below 4 GiB).
  localparam int unsigned ADDR_W = 32;

  // State of a unit in one cycle (docs/TIMING.md §9).
  typedef enum logic [1:0] {
    UST_IDLE       = 2'd0,
    UST_BUSY       = 2'd1,
    UST_WAIT_TOKEN = 2'd2,
    UST_WAIT_RES   = 2'd3
  } unit_state_e;

  // Ends a unit can report in one cycle: a configuration-class instruction ending at its start,
  // a weight-chain or the SFU's end, and (compute only) the array's last accumulator write. A DMA
  // unit's LOADs / STOREs end in order, one a cycle at most (its reorder buffer, sa_dma_rob,
  // TIMING §5a), counted beside the slots.
  localparam int unsigned END_SLOTS = 3;
  // Pushes of one channel in one cycle: at most 3 (the compute unit's three end slots; a DMA
  // unit's configuration end and its LOAD / STORE end).
  localparam int unsigned PUSH_CNT_W = 2;

endpackage
