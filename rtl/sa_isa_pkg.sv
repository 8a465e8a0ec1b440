// sa_isa_pkg.sv: generated from isa/isa_*.def by gen_isa; do not edit.
// Regenerate with `make docs`. The instruction set is described in docs/ISA.md.

package sa_isa_pkg;

  // One instruction: 16 bytes, two little-endian 64-bit halves.
  localparam int unsigned INSN_W = 128;

  // Opcodes (field OP). Any other value is illegal.
  typedef enum logic [5:0] {
    OP_LOAD = 6'h01,
    OP_CFG_LOAD = 6'h02,
    OP_PRELOAD = 6'h08,
    OP_COMPUTE = 6'h09,
    OP_COMPUTE_OS = 6'h0a,
    OP_COMPUTE_IS = 6'h0b,
    OP_STORE = 6'h10,
    OP_CFG_STORE = 6'h11,
    OP_CFG_POOL = 6'h12,
    OP_CFG_SFU = 6'h18,
    OP_SFU_MAP = 6'h19,
    OP_SFU_EW = 6'h1a,
    OP_SFU_SOFTMAX = 6'h1b,
    OP_SFU_LAYERNORM = 6'h1c,
    OP_SFU_REDUCE = 6'h1d,
    OP_LAYER = 6'h20,
    OP_HALT = 6'h3f
  } opcode_e;

  // Execution units: bit u of a decoded unit set names unit u (units_of).
  localparam int unsigned NUM_UNITS = 4;
  typedef enum logic [1:0] {
    UNIT_LOAD = 2'd0,
    UNIT_COMPUTE = 2'd1,
    UNIT_STORE = 2'd2,
    UNIT_SFU = 2'd3
  } unit_e;

  // A POP or PUSH field of an instruction of unit u as the set of units it names: bit i names
  // unit i, except bit u (which could only name u itself) names the SFU (isa_units_decode).
  function automatic logic [NUM_UNITS-1:0] units_of(unit_e u, logic [2:0] raw);
    units_of = {1'b0, raw};
    if (u != UNIT_SFU && raw[u]) begin
      units_of[u] = 1'b0;
      units_of[UNIT_SFU] = 1'b1;
    end
  endfunction

  // Routing (the unit column of isa/isa_ops.def): bit op of UNIT_<NAME>_OPS is set when the
  // fetch unit hands opcode op to that unit's queue (UNIT_ALL opcodes: to each queue); FETCH_OPS
  // are the opcodes fetch consumes itself. Illegal opcodes are in none (the loader rejects them).
  // Each unit checks at elaboration that it decodes exactly the opcodes routed to it.
  localparam int unsigned NUM_OPCODES = 64;
  localparam logic [NUM_OPCODES-1:0] UNIT_LOAD_OPS = 64'h0000000100000006;  // LOAD CFG_LOAD LAYER
  localparam logic [NUM_OPCODES-1:0] UNIT_COMPUTE_OPS = 64'h0000000100000f00;  // PRELOAD COMPUTE COMPUTE_OS COMPUTE_IS LAYER
  localparam logic [NUM_OPCODES-1:0] UNIT_STORE_OPS = 64'h0000000100070000;  // STORE CFG_STORE CFG_POOL LAYER
  localparam logic [NUM_OPCODES-1:0] UNIT_SFU_OPS = 64'h000000013f000000;  // CFG_SFU SFU_MAP SFU_EW SFU_SOFTMAX SFU_LAYERNORM SFU_REDUCE LAYER
  localparam logic [NUM_OPCODES-1:0] FETCH_OPS = 64'h8000000000000000;  // HALT
  // The queues opcode op enters: bit u for unit u.
  function automatic logic [NUM_UNITS-1:0] op_queues(opcode_e op);
    op_queues = {UNIT_SFU_OPS[op], UNIT_STORE_OPS[op], UNIT_COMPUTE_OPS[op], UNIT_LOAD_OPS[op]};
  endfunction
  // The one-opcode set {op}, to write a unit's decoded set.
  function automatic logic [NUM_OPCODES-1:0] op_bit(opcode_e op);
    op_bit = NUM_OPCODES'(1) << op;
  endfunction

  // Instruction fields: <NAME>_LSB is the first bit in the 128-bit word, <NAME>_W the width.
  localparam int unsigned OP_LSB = 0;  // opcode
  localparam int unsigned OP_W = 6;
  localparam int unsigned POP_LSB = 6;  // tokens to pop before starting: one from each named unit's channel to this unit
  localparam int unsigned POP_W = 3;
  localparam int unsigned PUSH_LSB = 9;  // tokens to push when complete: one into this unit's channel to each named unit
  localparam int unsigned PUSH_W = 3;
  localparam int unsigned FN_LSB = 12;  // function applied by SFU_MAP
  localparam int unsigned FN_W = 3;
  localparam int unsigned EWOP_LSB = 12;  // element-wise operation of SFU_EW
  localparam int unsigned EWOP_W = 2;
  localparam int unsigned RED_LSB = 12;  // reduction of SFU_REDUCE
  localparam int unsigned RED_W = 2;
  localparam int unsigned BCAST_LSB = 14;  // 1: SFU_EW's second operand is the one row SRC2, used for every row (per-channel broadcast)
  localparam int unsigned BCAST_W = 1;
  localparam int unsigned MEM_LSB = 12;  // target on-chip memory of a LOAD
  localparam int unsigned MEM_W = 2;
  localparam int unsigned ACT_LSB = 12;  // activation applied by the post-processing unit
  localparam int unsigned ACT_W = 2;
  localparam int unsigned POOL_LSB = 12;  // pooling applied by the post-processing unit
  localparam int unsigned POOL_W = 2;
  localparam int unsigned ACCUM_LSB = 14;  // 1: add into the accumulator rows; 0: overwrite them
  localparam int unsigned ACCUM_W = 1;
  localparam int unsigned TRANSPOSE_LSB = 15;  // 1: LOAD row r lands in WBUF column r mod ARRAY_COLS, its bytes down the rows (MEM=WBUF only)
  localparam int unsigned TRANSPOSE_W = 1;
  localparam int unsigned OVERLAP_LSB = 15;  // 1: the compute unit may start its next instruction (a PRELOAD into the other bank) while this stream runs: ready = s + 1 instead of s + ROWS
  localparam int unsigned OVERLAP_W = 1;
  localparam int unsigned RAW32_LSB = 14;  // 1: STORE writes raw int32 accumulators, no post-processing
  localparam int unsigned RAW32_W = 1;
  localparam int unsigned PARAMS_LSB = 14;  // 1: take bias/multiplier/shift from PARAM rows; 0: identity (0, 1, 0)
  localparam int unsigned PARAMS_W = 1;
  localparam int unsigned DST_LSB = 16;  // first destination row in the target on-chip memory
  localparam int unsigned DST_W = 16;
  localparam int unsigned SRC_LSB = 16;  // first source row (WBUF for PRELOAD, SPAD for COMPUTE, ACC for STORE and the SFU)
  localparam int unsigned SRC_W = 16;
  localparam int unsigned PROW_LSB = 16;  // first of three PARAM rows: bias, multiplier, shift (one int32 per column)
  localparam int unsigned PROW_W = 16;
  localparam int unsigned LAYER_ID_LSB = 16;  // layer number for per-layer statistics
  localparam int unsigned LAYER_ID_W = 16;
  localparam int unsigned KH_LSB = 16;  // pooling window height
  localparam int unsigned KH_W = 4;
  localparam int unsigned KW_LSB = 20;  // pooling window width
  localparam int unsigned KW_W = 4;
  localparam int unsigned SH_LSB = 24;  // pooling stride, vertical
  localparam int unsigned SH_W = 4;
  localparam int unsigned SW_LSB = 28;  // pooling stride, horizontal
  localparam int unsigned SW_W = 4;
  localparam int unsigned DRAM_ADDR_LSB = 32;  // DRAM byte address
  localparam int unsigned DRAM_ADDR_W = 32;
  localparam int unsigned ACC_ADDR_LSB = 32;  // first accumulator row written by COMPUTE or by an SFU instruction
  localparam int unsigned ACC_ADDR_W = 16;
  localparam int unsigned MULT_LSB = 32;  // scale multiplier applied to int8 values loaded into ACC
  localparam int unsigned MULT_W = 32;
  localparam int unsigned CLAMP_LO_LSB = 32;  // lower bound of ACT=clamp, as int8
  localparam int unsigned CLAMP_LO_W = 8;
  localparam int unsigned PAD_T_LSB = 32;  // pooling padding rows above the input
  localparam int unsigned PAD_T_W = 4;
  localparam int unsigned PAD_L_LSB = 36;  // pooling padding columns left of the input
  localparam int unsigned PAD_L_W = 4;
  localparam int unsigned CLAMP_HI_LSB = 40;  // upper bound of ACT=clamp, as int8
  localparam int unsigned CLAMP_HI_W = 8;
  localparam int unsigned IN_H_LSB = 40;  // pooling input height in accumulator rows (pixels)
  localparam int unsigned IN_H_W = 12;
  localparam int unsigned IN_W_LSB = 52;  // pooling input width in accumulator rows (pixels)
  localparam int unsigned IN_W_W = 12;
  localparam int unsigned ROWS_LSB = 48;  // rows streamed by COMPUTE (M), weight rows preloaded (K <= array rows), or output rows of COMPUTE_OS (<= array rows)
  localparam int unsigned ROWS_W = 16;
  localparam int unsigned SHIFT_LSB = 18;  // rounding right shift applied after MULT
  localparam int unsigned SHIFT_W = 6;
  localparam int unsigned OUTER_LSB = 64;  // outer row count of a LOAD/STORE row nest
  localparam int unsigned OUTER_W = 12;
  localparam int unsigned INNER_LSB = 76;  // inner row count of a LOAD/STORE row nest
  localparam int unsigned INNER_W = 12;
  localparam int unsigned NSEG_LSB = 88;  // segments gathered into each LOAD row
  localparam int unsigned NSEG_W = 8;
  localparam int unsigned SEGLEN_LSB = 96;  // bytes per LOAD segment
  localparam int unsigned SEGLEN_W = 15;
  localparam int unsigned COLS_LSB = 88;  // columns (channels) written per STORE row, or array columns whose results COMPUTE_IS writes (<= array cols)
  localparam int unsigned COLS_W = 16;
  localparam int unsigned WSRC_LSB = 64;  // first WBUF row streamed by COMPUTE_OS (row k holds B[k][0..ARRAY_COLS-1])
  localparam int unsigned WSRC_W = 16;
  localparam int unsigned KLEN_LSB = 80;  // reduction length K of COMPUTE_OS: WBUF rows streamed, one per cycle
  localparam int unsigned KLEN_W = 16;
  localparam int unsigned KSTRIDE_LSB = 96;  // SPAD rows between consecutive ARRAY_ROWS-wide K blocks of COMPUTE_OS's A operand
  localparam int unsigned KSTRIDE_W = 16;
  localparam int unsigned ASTRIDE_LSB = 64;  // ACC rows between the blocks of ARRAY_COLS streamed rows of COMPUTE_IS
  localparam int unsigned ASTRIDE_W = 16;
  localparam int unsigned TSTRIDE_LSB = 112;  // WBUF rows between the blocks of ARRAY_COLS rows of a transposed LOAD (0 unless TRANSPOSE)
  localparam int unsigned TSTRIDE_W = 16;
  localparam int unsigned STRIDE_OUTER_LSB = 64;  // DRAM byte stride between outer rows
  localparam int unsigned STRIDE_OUTER_W = 24;
  localparam int unsigned STRIDE_INNER_LSB = 88;  // DRAM byte stride between inner rows
  localparam int unsigned STRIDE_INNER_W = 20;
  localparam int unsigned SRC2_LSB = 64;  // first ACC row of SFU_EW's second operand
  localparam int unsigned SRC2_W = 16;
  localparam int unsigned LEN_LSB = 64;  // values per row of SFU_SOFTMAX, SFU_LAYERNORM, SFU_REDUCE: ceil(LEN / ARRAY_COLS) segments of ARRAY_COLS
  localparam int unsigned LEN_W = 16;
  localparam int unsigned SSTRIDE_LSB = 80;  // ACC rows between consecutive segments of one row (>= ROWS when a row has several segments)
  localparam int unsigned SSTRIDE_W = 16;
  localparam int unsigned PBASE_LSB = 96;  // first PARAM row of layer norm's affine: per segment s, rows PBASE + 3s .. + 3s + 2 hold beta, gamma's multiplier and its shift
  localparam int unsigned PBASE_W = 16;
  localparam int unsigned SM_MULT_LSB = 96;  // softmax: the logits' scale times 2048 is SM_MULT / 2^SM_SHIFT
  localparam int unsigned SM_MULT_W = 16;
  localparam int unsigned SM_SHIFT_LSB = 112;  // softmax: shift of SM_MULT
  localparam int unsigned SM_SHIFT_W = 5;
  localparam int unsigned SM_J_LSB = 117;  // softmax: the output's scale is 2^-(7 + SM_J)
  localparam int unsigned SM_J_W = 4;
  localparam int unsigned EPS_LSB = 64;  // layer norm: added to the row's n^2 variance (n S2 - S1^2), in its units
  localparam int unsigned EPS_W = 48;
  localparam int unsigned SEG_STRIDE_LSB = 108;  // DRAM byte stride between the segments of one LOAD row
  localparam int unsigned SEG_STRIDE_W = 20;
  localparam int unsigned GBUF_LSB = 111;  // 1: DRAM_ADDR is a byte address in the on-chip global buffer (GBUF), not in DRAM
  localparam int unsigned GBUF_W = 1;

  // Bits each format uses (OP included); every other bit must be 0.
  localparam logic [INSN_W-1:0] FMT_LOAD_MASK = 128'hffffffffffffffff_ffffffffffffffff;
  localparam logic [INSN_W-1:0] FMT_CFG_LOAD_MASK = 128'hffffffffffffffff_ffffffff00fc0fff;
  localparam logic [INSN_W-1:0] FMT_PRELOAD_MASK = 128'h0000000000000000_ffff0000ffff0fff;
  localparam logic [INSN_W-1:0] FMT_COMPUTE_MASK = 128'h0000000000000000_ffffffffffffcfff;
  localparam logic [INSN_W-1:0] FMT_COMPUTE_OS_MASK = 128'h0000ffffffffffff_ffffffffffff4fff;
  localparam logic [INSN_W-1:0] FMT_COMPUTE_IS_MASK = 128'h000000ffff00ffff_ffffffffffffcfff;
  localparam logic [INSN_W-1:0] FMT_STORE_MASK = 128'h000080ffffffffff_ffffffffffff4fff;
  localparam logic [INSN_W-1:0] FMT_CFG_STORE_MASK = 128'h00000fffffffffff_0000ffffffff7fff;
  localparam logic [INSN_W-1:0] FMT_CFG_POOL_MASK = 128'h0000000000000000_ffffffffffff3fff;
  localparam logic [INSN_W-1:0] FMT_CFG_SFU_MASK = 128'h0000ffffffffffff_ffffffff00fc0fff;
  localparam logic [INSN_W-1:0] FMT_SFU_MAP_MASK = 128'h0000000000000000_ffffffffffff7fff;
  localparam logic [INSN_W-1:0] FMT_SFU_EW_MASK = 128'h000000000000ffff_ffffffffffff7fff;
  localparam logic [INSN_W-1:0] FMT_SFU_SOFTMAX_MASK = 128'h01ffffffffffffff_ffffffffffff0fff;
  localparam logic [INSN_W-1:0] FMT_SFU_LAYERNORM_MASK = 128'h0000ffffffffffff_ffffffffffff0fff;
  localparam logic [INSN_W-1:0] FMT_SFU_REDUCE_MASK = 128'h00000000ffffffff_ffffffffffff3fff;
  localparam logic [INSN_W-1:0] FMT_LAYER_MASK = 128'h0000000000000000_00000000ffff003f;
  localparam logic [INSN_W-1:0] FMT_NONE_MASK = 128'h0000000000000000_000000000000003f;

  // Values of the mem field.
  typedef enum logic [1:0] {
    MEM_SPAD = 2'd0,
    MEM_WBUF = 2'd1,
    MEM_ACC = 2'd2,
    MEM_PARAM = 2'd3
  } mem_e;

  // Values of the act field.
  typedef enum logic [1:0] {
    ACT_NONE = 2'd0,
    ACT_RELU = 2'd1,
    ACT_CLAMP = 2'd2
  } act_e;

  // Values of the pool field.
  typedef enum logic [1:0] {
    POOL_NONE = 2'd0,
    POOL_MAX = 2'd1,
    POOL_AVG = 2'd2
  } pool_e;

  // Values of the fn field.
  typedef enum logic [2:0] {
    FN_IDENTITY = 3'd0,
    FN_EXP = 3'd1,
    FN_GELU = 3'd2,
    FN_SIGMOID = 3'd3,
    FN_SILU = 3'd4,
    FN_HSIGMOID = 3'd5,
    FN_HSWISH = 3'd6
  } fn_e;

  // Values of the ewop field.
  typedef enum logic [1:0] {
    EWOP_ADD = 2'd0,
    EWOP_SUB = 2'd1,
    EWOP_MUL = 2'd2
  } ewop_e;

  // Values of the red field.
  typedef enum logic [1:0] {
    RED_MAX = 2'd0,
    RED_SUM = 2'd1,
    RED_SUMSQ = 2'd2
  } red_e;

endpackage
