// detailed.h: the state of the detailed engine's machine, shared by detailed.c (clock, fetch,
// queues, tokens, statistics) and the four unit models detailed_load.c, detailed_array.c,
// detailed_store.c and detailed_sfu.c. Only those files include it. Every field below is a register of the machine
// (or a memory); the units compute their next state from the registers as they are at the start
// of a cycle, in the order documented at the top of detailed.c.
#ifndef SA_DETAILED_H
#define SA_DETAILED_H

#include <stdio.h>

#include "array_snap.h"
#include "detailed_step.h"
#include "dram.h"
#include "sfu_exec.h"
#include "sim_internal.h"

// ---- load unit (detailed_load.c) -------------------------------------------------------------

// A read beat in flight: where its bytes go when the response arrives (the unit's sideband),
// and its data once answered. Beats on DRAM and on the global buffer share one ring in issue
// order (a reorder buffer): a response waits in its entry until every earlier beat has landed,
// and one beat lands per cycle (TIMING §5a: A_b = max(I_b + L_b, A_(b-1) + 1)).
typedef struct {
  uint32_t insn;          // the LOAD it belongs to
  uint8_t gbuf;           // read from the global buffer (GBUF=1), else from DRAM
  uint8_t arrived;        // its response came: data holds the beat
  uint32_t beat_bytes;    // the bus width of its memory (bus_bytes or gbuf.bus_bytes)
  uint8_t data[DRAM_MAX_BEAT];   // the response's bytes
  uint8_t mem;            // target memory (MEM_SPAD ...)
  uint8_t accum;          // ACC: add into the row instead of overwriting it
  uint8_t last_of_row;    // the row is complete once this beat has landed
  uint8_t last_of_insn;   // the LOAD ends when this beat lands
  uint8_t transposed;     // TRANSPOSE: byte k of the row goes to WBUF[row + k][col]
  uint8_t block_first;    // transposed, LOAD row r with r mod C == 0 (counts the block's rows)
  uint32_t col;           // transposed: WBUF column r mod C
  uint64_t row;           // destination row (transposed: DST + (r div C)*TSTRIDE, the column's top)
  uint64_t beat_addr;     // DRAM address of the beat (aligned)
  uint64_t seg_addr;      // DRAM address of the segment the beat serves
  uint32_t seg_pos;       // byte position of that segment in the row (g * SEGLEN)
  uint32_t seglen;        // bytes of the segment
  uint32_t row_bytes;     // NSEG * SEGLEN: bytes of the row that come from DRAM
  int32_t mult;           // CFG_LOAD MULT latched at the LOAD's start
  uint32_t shift;         // CFG_LOAD SHIFT latched at the LOAD's start
} LoadBeat;

typedef struct {
  // CFG_LOAD registers
  uint64_t stride_outer, stride_inner, seg_stride;
  int32_t mult;
  uint32_t shift;
  // the LOAD issuing beats (its fields and the CFG_LOAD registers latched at its start)
  int issuing;            // a LOAD is issuing beats; the unit cannot start another
  uint32_t insn;
  uint8_t mem, accum, transposed, gbuf;
  uint64_t addr, dst, so, si, ss, tstride;
  uint32_t outer, inner, nseg, seglen;
  int32_t ld_mult;
  uint32_t ld_shift;
  uint32_t o, i, g;       // position of the next beat: row (o, i), segment g ...
  uint64_t k, k_last;     // ... beat k of the segment's beats k..k_last
  // beats in flight or waiting to land, oldest first (the tag of either memory is the ring
  // index); a beat waits at most max(L, L_g) cycles, so the ring holds max(L, L_g, F) + 1
  LoadBeat *fly;
  uint32_t fly_head, fly_count, fly_cap;
  int offered;            // a beat was offered to the read channel or the GBUF read port this cycle
} LoadUnit;

// ---- compute unit (detailed_array.c) ---------------------------------------------------------

// The registers of one PE: the activation moving right and the partial sum moving down, with
// the control that travels with them (valid, weight bank, row tag). A skew stage uses the same.
typedef struct {
  int8_t act;             // activation
  uint8_t valid;          // act/psum hold data
  uint8_t bank;           // weight bank this datum multiplies with
  int32_t psum;           // partial sum (unused in skew stages)
  uint32_t tag;           // index of the streamed row in ComputeUnit.rowtag
} PeReg;

// What the accumulator writer needs about a streamed row (travels as its tag).
typedef struct {
  uint32_t insn;          // the COMPUTE or COMPUTE_IS
  uint64_t acc_row;       // COMPUTE: ACC_ADDR + m (column c writes its column c); COMPUTE_IS:
                          // ACC_ADDR + (m div C)*ASTRIDE (column c writes row acc_row + c)
  uint8_t accum;          // add into the accumulator row
  uint8_t last;           // m == ROWS - 1: the instruction ends with this row's last column
  uint8_t bank;           // bank used (released when the instruction ends)
  uint8_t transposed;     // COMPUTE_IS: the rotator sends column c to ACC bank acc_bank
  uint8_t block_first;    // COMPUTE_IS: m mod C == 0, the first row of its column block (counts)
  uint32_t acc_bank;      // COMPUTE_IS: m mod C
  uint32_t cols;          // columns that write: C, or COMPUTE_IS's COLS (MACs count these only)
  uint32_t k;             // ROWS of the bank's PRELOAD (MACs count PE rows below it)
  uint32_t gen;           // the bank's fill count when the row was read (a check: no refill under it)
} RowTag;

// One column's accumulator write in a cycle, kept for the array observers (array_snap.h).
typedef SnapAccWrite AccWrite;

// ---- output-stationary mode of the array (detailed_os.c) ---------------------------------------

// The registers of one PE in output-stationary mode: the operands moving right (A) and down (B),
// the control travelling with B (its K position and instruction), and the PE's own accumulator.
typedef struct {
  int8_t a, b;            // A moving right, B moving down: the operands of the PE's last product
  uint8_t a_valid;        // a holds an element of A (rows >= ROWS never do: they multiply zero)
  uint8_t b_valid;        // b holds an element of B: the PE multiplied this cycle
  uint8_t first, last;    // b is row k = 0 / k = KLEN - 1 of B
  uint8_t holds;          // acc holds a partial sum (between the first and the last product)
  uint32_t tag;           // the COMPUTE_OS of b (index into OsArray.ins)
  uint32_t n;             // products in acc (trace)
  int32_t acc;            // the PE's output element, being accumulated
} OsPe;

// One drain register (one per PE): the finished sum on its way down to the accumulator.
typedef struct {
  int32_t v;
  uint8_t valid;
  uint32_t tag;
} OsDrain;

// What the drain needs about a COMPUTE_OS in the array (its tag).
typedef struct {
  uint32_t insn;          // the COMPUTE_OS
  uint64_t acc_addr;      // ACC_ADDR
  uint32_t rows;          // ROWS (M): PE rows >= M are drained but not written
  uint8_t accum;          // add into the accumulator rows
} OsInsn;

typedef struct {
  // sequencer: reads WBUF row WSRC + k in step k, SPAD rows of block j for row r in step j*R + r
  int seq;                // reading (from the start until `ready`)
  uint32_t seq_tag;
  uint64_t step, len;     // steps done; max(K, (J-1)*R + M) steps in all
  uint64_t klen, wsrc, src, kstride;
  uint32_t rows;
  uint32_t users;         // COMPUTE_OS started and not ended (the array is in OS mode)
  uint64_t gate;          // drain rule: the next COMPUTE_OS needs s + KLEN >= gate (a count-down
                          // register in hardware, kept as the cycle it reaches zero)
  // data paths
  int8_t *brow;           // the WBUF row read this cycle (C)
  OsPe b_in;              // its control (b_valid 0 when nothing was read)
  OsPe *bskew;            // column c's B skew line: c stages, bskew[c * C + 0 .. c - 1]
  int8_t *rowreg;         // row r's input shift register: rowreg[r * R + i] (R x R)
  uint32_t *rowpos, *rown;// its next element, and how many of its elements are valid
  OsPe *pe;               // R x C
  OsDrain *dr;            // R x C drain registers
  int32_t *dj;            // per column: cycles into its drain (0..R-1), -1 when not draining
  OsInsn *ins;            // ring of COMPUTE_OS in the array, indexed by tag
  uint32_t ins_mask, ins_next;
  AccWrite *wlog;         // per column, the ACC write of this cycle (for pe_trace)
} OsArray;

typedef struct {
  // weight banks: s->bank[0..1]; control of the banks
  int next_bank;          // bank the next PRELOAD fills (PRELOAD number p mod 2)
  int cur_bank;           // bank of the most recent PRELOAD: the one a COMPUTE uses
  int bank_valid[2];      // bank complete (its PRELOAD has ended)
  uint32_t bank_k[2];     // ROWS of the PRELOAD that filled it (MAC accounting)
  uint32_t bank_users[2]; // COMPUTEs and COMPUTE_ISs started on the bank and not yet ended
  uint64_t bank_free_at[2]; // first cycle a PRELOAD may refill the bank: its last stream's last
                          // row read + C (a count-down register in hardware)
  uint32_t bank_gen[2];   // PRELOADs started on the bank (RowTag.gen)
  uint32_t ws_users;      // COMPUTEs started and not ended (COMPUTE_IS waits for none)
  uint32_t is_users;      // COMPUTE_ISs started and not ended (COMPUTE waits for none)
  uint32_t is_phase;      // (t - s) mod C for the last COMPUTE_IS's start s: the alignment rule
  // weight shift chain (PRELOAD)
  int chain_busy;
  uint32_t chain_insn, chain_step, chain_rows;
  uint64_t chain_src;
  int chain_bank;
  // stream sequencer (COMPUTE, COMPUTE_IS)
  int streaming;
  uint32_t st_insn, st_m, st_rows, st_cols;
  uint64_t st_src, st_acc, st_astride;
  uint8_t st_accum, st_bank, st_transposed;
  uint8_t st_overlap;     // OVERLAP: the unit issued on at once (ready = s + 1); the stream runs on
  // the array: R x C PEs, input skew lines (row r has r stages: skew[r * R + 0 .. r - 1])
  PeReg *pe;
  PeReg *skew;
  int8_t *in_row;         // the SPAD row read this cycle
  RowTag *rowtag;         // ring of streamed rows, indexed by tag
  uint32_t tag_mask, tag_next;
  AccWrite *wlog;         // per column, the ACC write of this cycle (for pe_trace)
  int any_in;             // some row has entered the array
  uint64_t last_in;       // cycle the last row entered (the array drains R + C - 1 cycles later)
  OsArray os;             // the output-stationary mode (COMPUTE_OS)
  SnapPe *snap;           // R x C: the snapshot handed to the array observers (sim_add_observer)
} ComputeUnit;

// ---- store unit (detailed_store.c) -----------------------------------------------------------

enum { SLOT_FREE, SLOT_FILL, SLOT_PIPE, SLOT_READY };

typedef struct {
  int state;              // SLOT_*
  uint32_t row;           // output row j of the STORE
  uint8_t *bytes;         // the row's bytes as written to DRAM (4 * C)
} FifoSlot;

typedef struct {
  uint32_t insn;          // the STORE
  uint8_t last;           // its last beat: the STORE ends with this acknowledgement
  uint8_t arrived;        // acknowledged; waits for the earlier beats' (in issue order, one per cycle, TIMING §5a)
} StoreAck;

typedef struct {
  // CFG_STORE and CFG_POOL registers
  int64_t act, params, prow, lo, hi, so, si;
  int64_t pool, kh, kw, sh, sw, pad_t, pad_l, in_h, in_w;
  // the STORE in progress, with the registers latched at its start
  int active;             // from its start until its last beat is issued
  uint32_t insn;
  int raw32;
  int gbuf;               // writes the global buffer (GBUF=1), else DRAM
  uint32_t B;             // its memory's beat: bus_bytes or gbuf.bus_bytes
  uint64_t src, addr;
  uint32_t outer, inner, cols, nrows, W, nbytes;
  int64_t l_act, l_lo, l_hi, l_so, l_si, l_pool, l_kw, l_sh, l_sw, l_pad_t, l_pad_l, l_in_h, l_in_w;
  int32_t *bias, *mult;   // per column, from the PARAM rows (or 0, 1)
  uint32_t *shift;        // per column (or 0)
  // front end: reads one window position per cycle
  int fe_busy;
  uint32_t fe_row, fe_pos, fe_slot, rows_started;
  int64_t *win;           // per column: running value of the window (sum, max or the value)
  // post-processing pipeline: S stages carrying FIFO slot numbers (-1 empty)
  int32_t *pipe;
  uint32_t pipe_count;
  // FIFO of D rows
  FifoSlot *slot;
  uint32_t fifo_head, fifo_tail, fifo_count;
  // write port
  uint32_t beats_done;    // beats of the head row already issued
  uint32_t rows_written;
  int offered;            // a beat was offered to the write channel this cycle
  // acknowledgements in flight or waiting, oldest first (ring as the load unit's)
  StoreAck *fly;
  uint32_t fly_head, fly_count, fly_cap;
} StoreUnit;

// ---- the special-function unit (detailed_sfu.c) --------------------------------------------------

// A row's results on their way through the unit's pipeline to the accumulator.
typedef struct {
  uint32_t row;           // the instruction's row r
  uint64_t due;           // the cycle they are written
  int32_t *vals;          // sfu_row_out_len values
} SfuWrite;

// The phases of one row (TIMING §7a): passes of the row's S x k lane cycles, the scalar steps.
typedef enum { SFU_PH_LANES, SFU_PH_PASS, SFU_PH_SCALAR } SfuPhaseKind;
#define SFU_MAX_PHASES 4

typedef struct {
  SfuRegs regs;           // CFG_SFU
  // the instruction in progress (from its start until its last row is written)
  int active;
  uint32_t insn, rows;
  uint32_t n_phases;
  SfuPhaseKind phase_kind[SFU_MAX_PHASES];
  uint64_t phase_cycles[SFU_MAX_PHASES];
  uint32_t row, phase;    // the row in the lanes and its phase ...
  uint64_t cyc;           // ... and the cycles of that phase done
  uint32_t written;       // rows written
  // the pipeline: rows computed and not yet written, oldest first (ring of P + 1)
  SfuWrite *pipe;
  uint32_t pipe_cap, pipe_head, pipe_count;
  uint64_t vals_cap;      // values allocated in each entry
} SfuUnit;

// ---- the machine -----------------------------------------------------------------------------

typedef struct {
  uint32_t *entry;        // instruction indices, ring of the queue's depth
  uint32_t cap, head, count;
} InsnQueue;

typedef struct Det {
  Sim *s;
  const Arch *a;
  const Program *p;
  const Insn *insns;                // p's code decoded once: every cycle looks at the queue heads
  Diag *d;
  Dram *dram;
  Dram *gbuf;                       // the global buffer's read and write ports (dram.c's model)
  uint64_t t;                       // the cycle being computed
  // fetch
  uint32_t pc;                      // next instruction to fetch
  int halted;                       // HALT fetched
  int64_t fetched;                  // instruction fetched this cycle (enqueued at its end), or -1
  InsnQueue q[NUM_UNITS];
  // tokens: count[from][to] (visible at the start of the cycle, less this cycle's pops)
  uint32_t tokens[NUM_UNITS][NUM_UNITS];
  uint32_t pushes[NUM_UNITS][NUM_UNITS];   // pushed this cycle, visible next cycle
  // bookkeeping
  int64_t unit_layer[NUM_UNITS];    // layer of the last LAYER each unit started, -1 before
  int64_t *insn_layer;              // layer of each started instruction
  uint64_t remaining;               // unit instruction copies not yet ended
  uint64_t pe_slots;                // array slots used, PE by PE (must equal the layers' pe_cycles)
  int inside[NUM_UNITS];            // the unit is inside an instruction this cycle (s <= t < ready)
  int stall[NUM_UNITS];             // ... and the cycle is a stall cycle (DRAM slots all in flight)
  int ended;                        // some instruction ended this cycle
  int landed;                       // a load beat landed or a store acknowledgement was taken this cycle
  int oom;                          // a unit ran out of memory (reported at the end of the cycle)
  LoadUnit ld;
  ComputeUnit cu;
  StoreUnit su;
  SfuUnit sfu;
  int progressed;                   // this cycle fetched, ended, streamed or moved a beat (watchdog)
  int halted_now;                   // this cycle fetched HALT
  SimCycleLog *log;                 // sim_detailed_step's record of this cycle, or NULL
} Det;

// detailed.c: services for the units.
// Records the end of instruction k (unit u) in the current cycle: its tokens are pushed.
void det_end(Det *m, Unit u, uint32_t k);
// Records ready = next cycle for instruction k (unit u).
void det_ready(Det *m, Unit u, uint32_t k);
// Layer statistics of instruction k (started).
LayerStats *det_layer(Det *m, uint32_t k);

// Units. *_init allocate (0 or -1), *_free release, *_can_start says whether the unit (free
// and structurally able) could start `in` this cycle, *_start starts it (tokens already taken).
// *_active: the unit has work of its own for the next cycle (beats in flight are the DRAM's).
// Entries of a DMA unit's ring of beats in flight: a response can come back max(dram.latency,
// gbuf.latency) cycles after its request, and at most dram.inflight requests wait in DRAM.
static inline uint32_t det_fly_cap(const Arch *a) {
  uint32_t wait = a->dram_latency > a->gbuf_latency ? a->dram_latency : a->gbuf_latency;
  return (wait > a->dram_inflight ? wait : a->dram_inflight) + 1;
}
int det_load_init(Det *m);
void det_load_free(Det *m);
int det_load_can_start(const Det *m, const Insn *in);
void det_load_start(Det *m, uint32_t k);
// The load unit offers its next beat to the DRAM read channel (*req) or to the GBUF read port
// (*greq); `accepted`: the memory it offered to took it. Responses of both land in issue order.
void det_load_request(Det *m, DramReq *req, DramReq *greq);
void det_load_update(Det *m, const DramResp *resp, const DramResp *gresp, int accepted);
int det_load_active(const Det *m);

int det_compute_init(Det *m);
void det_compute_free(Det *m);
int det_compute_can_start(const Det *m, const Insn *in);
// Why the head cannot start (structural), for the deadlock report.
const char *det_compute_blocker(const Det *m, const Insn *in);
void det_compute_start(Det *m, uint32_t k);
void det_compute_update(Det *m);
// The array observers want cycle t (some are set and t is in the window).
int det_observing(const Det *m);
// Hands the snapshot of this cycle (cu.snap filled by the mode's unit) to every observer.
void det_observe(Det *m, SnapMode mode, const AccWrite *wlog, int writes, int chain);
int det_compute_active(const Det *m);

// detailed_os.c: the output-stationary mode, driven by detailed_array.c.
int det_os_init(Det *m);
void det_os_free(Det *m);
int det_os_can_start(const Det *m, const Insn *in);   // the drain rule (b); the unit is free
void det_os_start(Det *m, uint32_t k);
void det_os_update(Det *m);                          // one clock of the OS data paths

int det_store_init(Det *m);
void det_store_free(Det *m);
int det_store_can_start(const Det *m, const Insn *in);
void det_store_start(Det *m, uint32_t k);
// As the load unit's: a write beat to DRAM (*req) or to the GBUF write port (*greq).
void det_store_request(Det *m, DramReq *req, DramReq *greq);
void det_store_update(Det *m, const DramResp *resp, const DramResp *gresp, int accepted);
int det_store_active(const Det *m);

int det_sfu_init(Det *m);
void det_sfu_free(Det *m);
int det_sfu_can_start(const Det *m, const Insn *in);
void det_sfu_start(Det *m, uint32_t k);
void det_sfu_update(Det *m);
int det_sfu_active(const Det *m);

#endif
