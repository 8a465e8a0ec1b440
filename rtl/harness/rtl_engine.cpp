// rtl_engine.cpp: see rtl_engine.h. One call of cycle() is one clock of the machine:
//  1. the program word at the model's pc is put on imem_data_i, the model settles and offers
//     its DRAM requests;
//  2. dram_cycle() answers them (responses due now, acceptance), exactly as in detailed.c (the
//     global buffer is inside the model, sa_gbuf; its write beats are copied into the Sim's
//     buffer, so that its bytes can be compared and reported);
//  3. the answers go back in, the model settles again, and its probes are read: fetches,
//     starts, ready and end events, unit states, row and memory events. They fill times[] and
//     the statistics the way detailed.c fills them;
//  4. the rising clock edge. The falling edge is folded into step 1 of the next cycle: nothing in
//     sa_top acts on it, and it saves the model an eval per cycle (docs/RTL.md, "Speed").
// Lockstep (--engine both) steps sim_detailed_step() first and compares the two cycles: fetch,
// unit states, DRAM and global-buffer beats, the array's accumulator writes (each column, both
// modes) and the times of every instruction that started, became ready or ended.
// --vcd: a model built with Verilator --trace (VM_TRACE, the rtl-vcd variant of rtl.mk) dumps
// each cycle of the window twice: at 10t the settled values of cycle t (clock low), at 10t+5
// the registers after its rising edge; the timescale is 100 ps, so cycle t reads as t ns.
#include "rtl_engine.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "Vsa_top.h"
#include "bits.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

// A switch over an enum of ours must list every case (STYLE.md 3): an error from here on, as in the C
// build, though the model is compiled without -Werror (Verilator's own sources warn).
#pragma GCC diagnostic error "-Wswitch-enum"

namespace {

const int kIdxW = 32;
const int kSlots = 3;   // sa_pkg END_SLOTS

struct Events {
  bool fetch, halt, fetch_stall, halted;
  bool start[NUM_UNITS], ready[NUM_UNITS], stall[NUM_UNITS], active[NUM_UNITS];
  uint32_t start_idx[NUM_UNITS], ready_idx[NUM_UNITS];
  bool end[NUM_UNITS][kSlots];
  uint32_t end_idx[NUM_UNITS][kSlots];
  unsigned state[NUM_UNITS];
  unsigned dma_ends[NUM_UNITS];   // LOADs (load unit) / STOREs (store unit) ending, oldest first
};

class RtlRun {
 public:
  RtlRun(Sim *s, const RunArgs *a, Diag *d) : s_(s), p_(s->prog), a_(s->arch), args_(a), d_(d) {}
  ~RtlRun() {
#if VM_TRACE
    if (vcd_) vcd_->close();
#endif
    if (top_) top_->final();
    dram_free(dram_);
    sim_detailed_end(ref_step_);
    sim_free(ref_);
  }
  int run();

 private:
  int init();
  int open_vcd();
  bool vcd_on(uint64_t t) const {
    return vcd_ && t >= args_->from && (!args_->to || t < args_->to);
  }
  void cycle(uint64_t t, SimCycleLog *mine);
  void read_events(Events *e);
  // account(): one cycle's statistics and times, by concern
  struct ComputeRows {
    uint64_t spad_rd, wbuf_rd, acc_wr, acc_rd;
  };
  struct SfuRows {
    uint64_t acc_rd, acc_wr, param_rd;
  };
  void account(uint64_t t, const Events &e, int rd_ok, int wr_ok);
  void account_fetch(uint64_t t, const Events &e);
  void account_start(uint64_t t, Unit u, uint32_t k);
  void start_work(Unit u, uint32_t k, const Insn *in, LayerStats *ls);
  void compute_rows(LayerStats *ls, uint64_t spad_rd, uint64_t wbuf_rd, uint64_t acc_wr, uint64_t acc_rd);
  void account_ready_end(uint64_t t, const Events &e);
  void account_dram(int rd_ok, int wr_ok);
  void account_gbuf();
  void log_gbuf(SimCycleLog *mine);
  void account_load_rows();
  void account_store_rows();
  void account_sfu_rows();
  void account_compute_probes();
  int check_compute_probes();
  int check_sfu_probes();
  int deadlock(uint64_t t, const Events &e);
  const char *waits_for(const Insn *in) const;
  int compare_cycle(const SimCycleLog &ref, const SimCycleLog &mine, const Events &e);
  int compare_end();
  int diverge(uint64_t t, int unit, int64_t insn, const std::string &what);
  std::string disasm(uint32_t k) const;
  bool records(int u, uint32_t k) const { return prog_op(p_, k) != OP_LAYER || u == UNIT_LOAD; }
  LayerStats *layer_of(uint32_t k) { return sim_layer(s_, insn_layer_[k]); }
  unsigned tokw() const;

  Sim *s_;
  const Program *p_;
  const Arch *a_;
  const RunArgs *args_;
  Diag *d_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vsa_top> top_;
  Dram *dram_ = nullptr;
  std::vector<uint8_t> words_;          // the program, 16 bytes per instruction
  std::vector<int64_t> insn_layer_;
  std::vector<uint8_t> transposed_;     // the instruction is a transposed LOAD
  unsigned bank_w_ = 1;                 // bits of an ACC bank number (arr_bank_o)
  int64_t unit_layer_[NUM_UNITS];      // each unit's current layer (-1 before its first LAYER)
  uint32_t dma_insn_[NUM_UNITS] = {};   // the LOAD / STORE in progress (stall cycles), the SFU's instruction
  std::deque<uint32_t> dma_fly_[NUM_UNITS];    // LOADs / STOREs started and not ended, in start order
  std::vector<uint32_t> dma_ended_[NUM_UNITS]; // those that ended this cycle
  uint64_t remaining_ = 0;
  uint64_t writes_ = 0;                 // write beats accepted (for --flip-write-bit)
  uint64_t acc_writes_ = 0;             // array ACC writes seen (for --flip-acc-bit)
  Events ev_{};
  ComputeRows probed_{}, closed_{};     // the compute unit's row events: probes, closed forms
  SfuRows sfu_probed_{}, sfu_closed_{}; // the special-function unit's, likewise
  bool frozen_ = false;                 // nothing moved in the last cycle
#if VM_TRACE
  std::unique_ptr<VerilatedVcdC> vcd_;  // --vcd, open while the run lasts
#else
  void *vcd_ = nullptr;
#endif
  // lockstep
  Sim *ref_ = nullptr;
  SimDetStep *ref_step_ = nullptr;
  std::vector<SimAccWrite> ref_acc_, mine_acc_;   // this cycle's ACC writes per column (lockstep)
  std::string ref_error_;               // the detailed engine's runtime error, once it stopped
  uint64_t ref_error_cycle_ = 0;
};

int RtlRun::init() {
  const Arch *a = a_;
  ctx_.reset(new VerilatedContext);
  ctx_->randReset(0);
  if (args_->vcd) ctx_->traceEverOn(true);   // before the model exists, so it registers its signals
  top_.reset(new Vsa_top(ctx_.get(), "sa_top"));
  if (args_->vcd && open_vcd()) return -1;
  dram_ = dram_new(a, s_->dram);
  if (!dram_) return diag_error(d_, "sasim-rtl: error: out of memory");
  words_.resize((size_t)p_->n_insns * ISA_WORD_BYTES);
  if (p_->n_insns) memcpy(words_.data(), p_->code, words_.size());
  insn_layer_.assign(p_->n_insns ? p_->n_insns : 1, -1);
  for (int64_t &l : unit_layer_) l = -1;
  transposed_.assign(p_->n_insns ? p_->n_insns : 1, 0);
  for (uint32_t k = 0; k < p_->n_insns; k++) {
    Unit route = isa_ops[prog_op(p_, k)].unit;
    remaining_ += (uint64_t)sim_unit_copies(route);
    if (prog_op(p_, k) == OP_LOAD) transposed_[k] = prog_insn(p_, k).f[FLD_TRANSPOSE] != 0;
  }
  while ((1u << bank_w_) < a->cols) bank_w_++;
  // Reset: statistics from zero, as the C engines do, and the model's reset pulse.
  stats_reset(&s_->stats);
  memset(s_->times, 0, (p_->n_insns ? p_->n_insns : 1) * sizeof *s_->times);
  top_->clk_i = 0;
  top_->rst_ni = 0;
  top_->eval();
  top_->rst_ni = 1;
  top_->eval();
  if (args_->engine == RUN_ENGINE_BOTH) {
    ref_ = sim_new(p_, SIM_DETAILED, d_);
    if (!ref_) return -1;
    // The inputs applied to s (--input writes tensors): copy every tensor's bytes. Touching all of
    // a large DRAM would cost more than the whole run.
    for (uint32_t i = 0; i < p_->n_tensors; i++) {
      const TensorInfo *ti = &p_->tensors[i];
      uint64_t span = prog_tensor_span(ti);
      if (ti->addr < a->dram_bytes && span <= a->dram_bytes - ti->addr) memcpy(ref_->dram + ti->addr, s_->dram + ti->addr, span);
    }
    sim_set_max_cycles(ref_, s_->max_cycles);
    ref_acc_.resize(a->cols);
    mine_acc_.resize(a->cols);
    ref_step_ = sim_detailed_begin(ref_, d_);
    if (!ref_step_) return -1;
  }
  return 0;
}

// --vcd FILE [--vcd-units LIST]: the scopes of each unit (docs/RTL.md); sa_top's own signals
// (ports, probes, the wires between units) are always traced, one level deep.
int RtlRun::open_vcd() {
#if VM_TRACE
  static const struct {
    unsigned bit;
    const char *scopes[4];
  } units[] = {
      {RUN_VCD_FETCH, {"sa_top.u_fetch", "sa_top.u_q_load", "sa_top.u_q_compute", "sa_top.u_q_store"}},
      {RUN_VCD_FETCH, {"sa_top.u_q_sfu", "sa_top.u_tokens", nullptr, nullptr}},
      {RUN_VCD_LOAD, {"sa_top.u_load", nullptr, nullptr, nullptr}},
      {RUN_VCD_COMPUTE, {"sa_top.u_compute", nullptr, nullptr, nullptr}},
      {RUN_VCD_STORE, {"sa_top.u_store", nullptr, nullptr, nullptr}},
      {RUN_VCD_ARRAY, {"sa_top.u_compute.u_array", nullptr, nullptr, nullptr}},
  };
  vcd_.reset(new VerilatedVcdC);
  if (args_->vcd_units) {
    // Verilator's scopes: "sa_top" (the model's name) holds the ports, "sa_top.sa_top" the module.
    vcd_->dumpvars(1, "sa_top");
    vcd_->dumpvars(1, "sa_top.sa_top");
    for (const auto &u : units)
      if (args_->vcd_units & u.bit)
        for (const char *sc : u.scopes)
          if (sc) vcd_->dumpvars(99, std::string("sa_top.") + sc);
  }
  top_->trace(vcd_.get(), 99);
  vcd_->set_time_unit("100ps");
  vcd_->set_time_resolution("100ps");
  vcd_->open(args_->vcd);
  if (!vcd_->isOpen()) {
    vcd_.reset();
    return diag_error(d_, "%s: error: cannot write the waveform", args_->vcd);
  }
  return 0;
#else
  return diag_error(d_, "sasim-rtl: error: --vcd: this model was built without tracing (make rtl-model-vcd)");
#endif
}

unsigned RtlRun::tokw() const {
  unsigned w = 0;
  while ((1ull << w) < (uint64_t)a_->token_max + 1) w++;
  return w + 2;
}

void RtlRun::read_events(Events *e) {
  Vsa_top *m = top_.get();
  e->fetch = m->fetch_o;
  e->halt = m->fetch_halt_o;
  e->fetch_stall = m->fetch_stall_o;
  e->halted = m->halted_o;
  e->dma_ends[UNIT_LOAD] = m->ld_end_count_o;
  e->dma_ends[UNIT_STORE] = m->su_end_count_o;
  e->dma_ends[UNIT_COMPUTE] = e->dma_ends[UNIT_SFU] = 0;
  for (int u = 0; u < NUM_UNITS; u++) {
    e->start[u] = get_bits(m->start_o, u, 1);
    e->start_idx[u] = (uint32_t)get_bits(m->start_idx_o, u * kIdxW, kIdxW);
    e->ready[u] = get_bits(m->ready_o, u, 1);
    e->ready_idx[u] = (uint32_t)get_bits(m->ready_idx_o, u * kIdxW, kIdxW);
    e->stall[u] = get_bits(m->stall_o, u, 1);
    e->active[u] = get_bits(m->active_o, u, 1);
    e->state[u] = (unsigned)get_bits(m->state_o, 2 * u, 2);
    for (int k = 0; k < kSlots; k++) {
      e->end[u][k] = get_bits(m->end_o, u * kSlots + k, 1);
      e->end_idx[u][k] = (uint32_t)get_bits(m->end_idx_o, (u * kSlots + k) * kIdxW, kIdxW);
    }
  }
}

// The statistics and times of one cycle, filled as detailed.c fills them (TIMING §9, §10): each
// event is counted once, in its instruction's layer (stats_finish totals them at the end).
void RtlRun::account(uint64_t t, const Events &e, int rd_ok, int wr_ok) {
  account_fetch(t, e);
  for (int u = 0; u < NUM_UNITS; u++)
    if (e.start[u]) account_start(t, (Unit)u, e.start_idx[u]);
  account_ready_end(t, e);
  account_dram(rd_ok, wr_ok);
  account_gbuf();
  account_load_rows();
  account_store_rows();
  account_sfu_rows();
  account_compute_probes();
  for (int u = 0; u < NUM_UNITS; u++) sim_count_unit_state(s_, unit_layer_[u], (Unit)u, (SimUnitState)e.state[u]);
}

// Fetch: the cycle each instruction was fetched (HALT's whole time), and fetch stalls.
void RtlRun::account_fetch(uint64_t t, const Events &e) {
  uint32_t pc = top_->imem_addr_o;
  if (e.halt) {
    InsnTime *tm = &s_->times[pc];
    tm->fetch = tm->start = tm->end = t;
    tm->ready = t + 1;
  }
  if (e.fetch) s_->times[pc].fetch = t;
  if (e.fetch_stall) s_->stats.fetch_stall++;
}

// Unit u started instruction k: its layer, its start time, and the work its start fixes.
void RtlRun::account_start(uint64_t t, Unit u, uint32_t k) {
  const Insn in = prog_insn(p_, k);
  if (in.op == OP_LAYER) unit_layer_[u] = in.f[FLD_LAYER_ID];
  insn_layer_[k] = unit_layer_[u];
  if (records(u, k)) {
    s_->times[k].start = t;
    s_->times[k].stall = 0;
  }
  s_->stats.unit[u].insns++;
  LayerStats *ls = layer_of(k);
  if (!ls->seen && sim_in_span(in.op, u)) {
    ls->seen = 1;
    ls->first_start = ls->last_end = t;
  }
  start_work(u, k, &in, ls);
}

// The compute unit's row events carry no instruction index: an instruction's are fixed by its
// fields, so its layer gets them at its start, in full (closed_ keeps their sum, which
// check_compute_probes compares with the events the probes showed).
void RtlRun::compute_rows(LayerStats *ls, uint64_t spad_rd, uint64_t wbuf_rd, uint64_t acc_wr, uint64_t acc_rd) {
  ls->mem_reads[MEM_ST_SPAD] += spad_rd;
  ls->mem_reads[MEM_ST_WBUF] += wbuf_rd;
  ls->mem_writes[MEM_ST_ACC] += acc_wr;
  ls->mem_reads[MEM_ST_ACC] += acc_rd;
  closed_.spad_rd += spad_rd;
  closed_.wbuf_rd += wbuf_rd;
  closed_.acc_wr += acc_wr;
  closed_.acc_rd += acc_rd;
}

// TIMING §10: the work an instruction's start fixes, and the DMA unit's current instruction.
void RtlRun::start_work(Unit u, uint32_t k, const Insn *in, LayerStats *ls) {
  const Arch *a = a_;
  const uint64_t R = a->rows, C = a->cols, rows = (uint64_t)in->f[FLD_ROWS];
  const bool accum = isa_has_field(in->op, FLD_ACCUM) && in->f[FLD_ACCUM];
  switch (in->op) {
  case OP_LOAD:
    dma_insn_[u] = k;
    dma_fly_[u].push_back(k);
    // Each block of C LOAD rows writes NSEG*SEGLEN WBUF rows, one byte of each per LOAD row; the
    // landing rows (ld_row_o) are not WBUF rows here.
    if (transposed_[k]) ls->mem_writes[MEM_ST_WBUF] += sim_transposed_load_rows(a, in);
    break;
  case OP_STORE:
    dma_insn_[u] = k;
    dma_fly_[u].push_back(k);
    break;
  case OP_PRELOAD:   // R shift cycles, ROWS (<= R) weight buffer reads
    ls->preload_shifts += R;
    compute_rows(ls, 0, rows, 0, 0);
    break;
  case OP_COMPUTE: {   // ROWS x K x C MACs in ROWS x R x C slots; ROWS SPAD reads, ROWS ACC writes
    uint64_t kk = top_->cu_start_k_o;
    ls->macs += rows * kk * C;
    ls->pe_cycles += rows * R * C;
    compute_rows(ls, rows, 0, rows, accum ? rows : 0);
    break;
  }
  case OP_COMPUTE_OS: {   // ROWS x KLEN x C MACs in KLEN x R x C slots
    // ROWS SPAD reads per R-wide K block, KLEN WBUF reads, ROWS ACC writes (read too when ACCUM).
    uint64_t klen = (uint64_t)in->f[FLD_KLEN], blocks = (klen + R - 1) / R;
    ls->macs += rows * klen * C;
    ls->pe_cycles += klen * R * C;
    compute_rows(ls, rows * blocks, klen, rows, accum ? rows : 0);
    break;
  }
  case OP_COMPUTE_IS: {   // ROWS x K x COLS MACs in ROWS x R x C slots
    uint64_t kk = top_->cu_start_k_o, acc_rows = sim_compute_is_acc_rows(a, in);
    ls->macs += rows * kk * (uint64_t)in->f[FLD_COLS];
    ls->pe_cycles += rows * R * C;
    compute_rows(ls, rows, 0, 0, 0);
    // COLS ACC rows per block of C streamed rows, written (and read when ACCUM): no probe
    // shows them, so they count here only.
    ls->mem_writes[MEM_ST_ACC] += acc_rows;
    if (accum) ls->mem_reads[MEM_ST_ACC] += acc_rows;
    break;
  }
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE: {
    // Its work and rows in full (sim/sfu_exec.c, as the C engines count them); the rows also
    // in sfu_closed_, which check_sfu_probes compares with the rows the probes showed.
    dma_insn_[u] = k;
    sfu_count(a, in, ls);
    LayerStats one;
    memset(&one, 0, sizeof one);
    sfu_count(a, in, &one);
    sfu_closed_.acc_rd += one.mem_reads[MEM_ST_ACC];
    sfu_closed_.acc_wr += one.mem_writes[MEM_ST_ACC];
    sfu_closed_.param_rd += one.mem_reads[MEM_ST_PARAM];
    break;
  }
  case OP_CFG_LOAD:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:
  case OP_LAYER:
  case OP_HALT: break;   // no work counted
  }
}

// Ready and end events: the instructions' times, the layers' last cycles, DMA stall cycles.
void RtlRun::account_ready_end(uint64_t t, const Events &e) {
  for (int u = 0; u < NUM_UNITS; u++) {
    if (e.ready[u] && records(u, e.ready_idx[u])) s_->times[e.ready_idx[u]].ready = t + 1;
    std::vector<uint32_t> ended;
    for (int k = 0; k < kSlots; k++)
      if (e.end[u][k]) ended.push_back(e.end_idx[u][k]);
    // The DMA unit's LOADs / STOREs end in start order: the model says how many.
    dma_ended_[u].clear();
    for (unsigned k = 0; k < e.dma_ends[u] && !dma_fly_[u].empty(); k++) {
      dma_ended_[u].push_back(dma_fly_[u].front());
      ended.push_back(dma_fly_[u].front());
      dma_fly_[u].pop_front();
    }
    for (uint32_t i : ended) {
      if (records(u, i)) s_->times[i].end = t;
      LayerStats *ls = layer_of(i);
      if (sim_in_span(prog_op(p_, i), (Unit)u) && t > ls->last_end) ls->last_end = t;
      remaining_--;
    }
    if (e.stall[u]) s_->times[dma_insn_[u]].stall++;
  }
}

// DRAM beats accepted. A DMA unit issues beats and reads rows only for the LOAD / STORE it
// started last (the next one starts after its last beat), so dma_insn_ names their layer.
void RtlRun::account_dram(int rd_ok, int wr_ok) {
  if (rd_ok) layer_of(dma_insn_[UNIT_LOAD])->dram_read_beats++;
  if (wr_ok) layer_of(dma_insn_[UNIT_STORE])->dram_write_beats++;
}

// The global buffer's beats issued this cycle (the port never refuses one): counted in the layer of
// the unit's LOAD / STORE; a write is copied into the Sim's buffer (sa_gbuf holds the model's own).
void RtlRun::account_gbuf() {
  Vsa_top *m = top_.get();
  const unsigned G = a_->gbuf_bus_bytes;
  if (m->gb_rd_o) layer_of(dma_insn_[UNIT_LOAD])->gbuf_read_beats++;
  if (m->gb_wr_o) {
    layer_of(dma_insn_[UNIT_STORE])->gbuf_write_beats++;
    uint8_t data[ARCH_MAX_BUS_BYTES];
    get_bytes(m->gb_wr_data_o, data, G);
    for (unsigned x = 0; x < G; x++) {
      uint64_t addr = (uint64_t)m->gb_wr_addr_o + x;
      if (get_bits(m->gb_wr_strb_o, x, 1) && addr < a_->gbuf_bytes) s_->gbuf[addr] = data[x];
    }
  }
}

// The global buffer's beats of this cycle, for the lockstep.
void RtlRun::log_gbuf(SimCycleLog *mine) {
  Vsa_top *m = top_.get();
  const unsigned G = a_->gbuf_bus_bytes;
  mine->gbuf_rd_accepted = m->gb_rd_o;
  mine->gbuf_rd_addr = m->gb_rd_o ? m->gb_rd_addr_o : 0;
  mine->gbuf_wr_accepted = m->gb_wr_o;
  if (m->gb_wr_o) {
    mine->gbuf_wr.valid = 1;
    mine->gbuf_wr.addr = m->gb_wr_addr_o;
    get_bytes(m->gb_wr_data_o, mine->gbuf_wr.data, G);
    for (unsigned x = 0; x < G; x++) mine->gbuf_wr.strobe[x] = (uint8_t)get_bits(m->gb_wr_strb_o, x, 1);
  }
}

// A LOAD row completed (ld_row_o): the row written, the ACC row read when accumulating, its bytes
// (read from DRAM or the global buffer).
void RtlRun::account_load_rows() {
  Vsa_top *m = top_.get();
  if (!m->ld_row_o) return;
  uint32_t k = m->ld_row_idx_o;
  LayerStats *ls = layer_of(k);
  MemStatId mem = sim_mem_stat(m->ld_row_mem_o);
  if (!transposed_[k]) ls->mem_writes[mem]++;   // a transposed LOAD's count at its start
  if (mem == MEM_ST_ACC && m->ld_row_accum_o) ls->mem_reads[MEM_ST_ACC]++;
  if (m->ld_row_gbuf_o) ls->gbuf_read_bytes += m->ld_row_bytes_o;
  else ls->dram_read_bytes += m->ld_row_bytes_o;
}

// The store unit: a row written to DRAM, ACC rows read into the post-processor, parameter rows read.
void RtlRun::account_store_rows() {
  Vsa_top *m = top_.get();
  if (m->su_row_o) {
    LayerStats *ls = layer_of(m->su_row_idx_o);
    if (m->su_row_gbuf_o) ls->gbuf_write_bytes += m->su_row_bytes_o;
    else ls->dram_write_bytes += m->su_row_bytes_o;
  }
  if (!m->su_acc_rd_o && !m->su_param_rd_o) return;
  const Insn in = prog_insn(p_, dma_insn_[UNIT_STORE]);
  LayerStats *ls = layer_of(dma_insn_[UNIT_STORE]);
  if (m->su_acc_rd_o) {
    ls->mem_reads[MEM_ST_ACC]++;
    if (!in.f[FLD_RAW32]) ls->post_elems += (uint64_t)in.f[FLD_COLS];   // the row enters the post-processor
  }
  if (m->su_param_rd_o) ls->mem_reads[MEM_ST_PARAM] += 3;
}

// The special-function unit's accumulator and parameter rows (TIMING §10) as its probes show
// them (counted at the starts: a check, check_sfu_probes).
void RtlRun::account_sfu_rows() {
  Vsa_top *m = top_.get();
  sfu_probed_.acc_rd += m->sf_acc_rd_o;
  sfu_probed_.acc_wr += m->sf_acc_wr_o;
  if (m->sf_param_rd_o) sfu_probed_.param_rd += 3;
}

// At the end: the special-function unit read and wrote the rows its instructions' fields say.
int RtlRun::check_sfu_probes() {
  const SfuRows &x = sfu_probed_, &y = sfu_closed_;
  if (x.acc_rd == y.acc_rd && x.acc_wr == y.acc_wr && x.param_rd == y.param_rd) return 0;
  return diag_error(d_,
                    "sasim-rtl: error: the special-function unit's row events (ACC reads %llu, ACC writes %llu, "
                    "PARAM reads %llu) differ from its instructions' (%llu, %llu, %llu)",
                    (unsigned long long)x.acc_rd, (unsigned long long)x.acc_wr, (unsigned long long)x.param_rd,
                    (unsigned long long)y.acc_rd, (unsigned long long)y.acc_wr, (unsigned long long)y.param_rd);
}

// The compute unit's row events as the probes show them (counted at the starts: a check).
void RtlRun::account_compute_probes() {
  Vsa_top *m = top_.get();
  probed_.spad_rd += m->cu_spad_rd_o;
  probed_.wbuf_rd += m->cu_wbuf_rd_o;
  if (m->cu_acc_wr_o) {
    probed_.acc_wr++;
    if (m->cu_acc_wr_accum_o) probed_.acc_rd++;
  }
}

// At the end: the compute unit did the row accesses its instructions' fields say (TIMING §10).
int RtlRun::check_compute_probes() {
  const ComputeRows &x = probed_, &y = closed_;
  if (x.spad_rd == y.spad_rd && x.wbuf_rd == y.wbuf_rd && x.acc_wr == y.acc_wr && x.acc_rd == y.acc_rd) return 0;
  char b[300];
  snprintf(b, sizeof b,
           "the compute unit's row events (SPAD reads %llu, WBUF reads %llu, ACC writes %llu, ACC reads %llu) "
           "differ from its instructions' (%llu, %llu, %llu, %llu)",
           (unsigned long long)x.spad_rd, (unsigned long long)x.wbuf_rd, (unsigned long long)x.acc_wr,
           (unsigned long long)x.acc_rd, (unsigned long long)y.spad_rd, (unsigned long long)y.wbuf_rd,
           (unsigned long long)y.acc_wr, (unsigned long long)y.acc_rd);
  return diag_error(d_, "sasim-rtl: error: %s", b);
}

void RtlRun::cycle(uint64_t t, SimCycleLog *mine) {
  Vsa_top *m = top_.get();
  const unsigned B = a_->bus_bytes;
  uint32_t pc = m->imem_addr_o;
  static const uint8_t zero[ISA_WORD_BYTES] = {0};
  m->clk_i = 0;
  set_bytes(m->imem_data_i, pc < p_->n_insns ? &words_[(size_t)pc * ISA_WORD_BYTES] : zero, ISA_WORD_BYTES);
  m->rd_req_accept_i = 0;
  m->rd_resp_valid_i = 0;
  m->wr_req_accept_i = 0;
  m->wr_resp_valid_i = 0;
  m->eval();
  DramReq rd{}, wr{};
  rd.valid = m->rd_req_valid_o;
  rd.addr = m->rd_req_addr_o;
  rd.tag = m->rd_req_tag_o;
  wr.valid = m->wr_req_valid_o;
  wr.addr = m->wr_req_addr_o;
  wr.tag = m->wr_req_tag_o;
  get_bytes(m->wr_req_data_o, wr.data, B);
  for (unsigned x = 0; x < B; x++) wr.strobe[x] = (uint8_t)get_bits(m->wr_req_strb_o, x, 1);
  if (wr.valid && args_->flip_write_bit && writes_ + 1 == (uint64_t)args_->flip_write_bit) {
    for (unsigned x = 0; x < B; x++)   // a planted bug: bit 0 of the beat's first written byte
      if (wr.strobe[x]) {
        wr.data[x] ^= 1;
        break;
      }
  }
  DramResp rd_resp{}, wr_resp{};
  int rd_ok = 0, wr_ok = 0;
  dram_cycle(dram_, &rd, &wr, &rd_resp, &wr_resp, &rd_ok, &wr_ok);
  if (wr_ok) writes_++;
  m->rd_req_accept_i = rd_ok;
  m->rd_resp_valid_i = rd_resp.valid;
  m->rd_resp_tag_i = rd_resp.tag;
  set_bytes(m->rd_resp_data_i, rd_resp.data, B);
  m->wr_req_accept_i = wr_ok;
  m->wr_resp_valid_i = wr_resp.valid;
  m->wr_resp_tag_i = wr_resp.tag;
  m->eval();
  read_events(&ev_);
  account(t, ev_, rd_ok, wr_ok);
  if (mine) {
    mine->cycle = t;
    mine->fetched = ev_.fetch ? (int64_t)pc : -1;
    mine->halt_fetched = ev_.halt;
    for (int u = 0; u < NUM_UNITS; u++) mine->state[u] = (SimUnitState)ev_.state[u];
    mine->rd_accepted = rd_ok;
    mine->rd_addr = rd.addr;
    mine->wr_accepted = wr_ok;
    if (wr_ok) mine->wr = wr;
    log_gbuf(mine);
    if (mine->acc) {
      for (unsigned c = 0; c < a_->cols; c++) {
        SimAccWrite &w = mine->acc[c];
        w = SimAccWrite{UINT64_MAX, 0, 0, c, 0};
        if (!get_bits(m->arr_we_o, c, 1)) continue;
        w.row = get_bits(m->arr_row_o, 16 * c, 16);
        w.value = (int32_t)(uint32_t)get_bits(m->arr_data_o, 32 * c, 32);
        w.accum = (int)get_bits(m->arr_accum_o, c, 1);
        w.bank = (uint32_t)get_bits(m->arr_bank_o, bank_w_ * c, bank_w_);
        if (++acc_writes_ == (uint64_t)args_->flip_acc_bit) w.value ^= 1;   // a planted bug (tests)
      }
    }
  }
  // Moved this cycle (for the deadlock check, as in detailed.c).
  bool moved = ev_.fetch || ev_.halt || rd_resp.valid || wr_resp.valid || !dram_idle(dram_) || m->dma_pending_o;
  for (int u = 0; u < NUM_UNITS; u++) {
    moved = moved || ev_.start[u] || ev_.state[u] == SIM_UST_BUSY || ev_.stall[u] || ev_.active[u];
    for (int k = 0; k < kSlots; k++) moved = moved || ev_.end[u][k];
    moved = moved || ev_.dma_ends[u];
  }
  frozen_ = !moved;
#if VM_TRACE
  const bool dump = vcd_on(t);
  if (dump) vcd_->dump(t * 10);
#endif
  m->clk_i = 1;
  m->eval();
#if VM_TRACE
  if (dump) vcd_->dump(t * 10 + 5);
#endif
}

std::string RtlRun::disasm(uint32_t k) const {
  Program *one = prog_new(&p_->arch);
  if (!one) return "?";
  for (uint32_t l = 0; l < p_->n_layers; l++) prog_add_layer(one, p_->layer_names[l]);
  Insn in = prog_insn(p_, k);
  prog_add_insn(one, &in);
  char *text = asm_disassemble(one);
  prog_free(one);
  if (!text) return "?";
  std::string all(text), line;
  free(text);
  size_t end = all.find_last_not_of('\n');
  size_t start = all.rfind('\n', end);
  line = all.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
  return line;
}

int RtlRun::diverge(uint64_t t, int unit, int64_t insn, const std::string &what) {
  std::string where;
  if (unit >= 0) where += std::string(", ") + isa_unit_names[unit] + " unit";
  if (insn >= 0 && (uint64_t)insn < p_->n_insns)
    where += ", insn " + std::to_string(insn) + " (" + disasm((uint32_t)insn) + ")";
  return diag_error(d_, "sasim-rtl: error: RTL and detailed engine diverge at cycle %llu%s: %s",
                    (unsigned long long)t, where.c_str(), what.c_str());
}

static const char *state_name(unsigned s) {
  static const char *n[] = {"idle", "busy", "wait_token", "wait_resource"};
  return s < 4 ? n[s] : "?";
}

static std::string times_text(const InsnTime &x) {
  char b[160];
  snprintf(b, sizeof b, "fetch %llu start %llu ready %llu end %llu stall %llu", (unsigned long long)x.fetch,
           (unsigned long long)x.start, (unsigned long long)x.ready, (unsigned long long)x.end,
           (unsigned long long)x.stall);
  return b;
}

// A write beat (DRAM or the global buffer, B bytes) as the divergence message shows it.
static std::string write_text(int accepted, const DramReq &w, unsigned B) {
  if (!accepted) return "none";
  char b[32];
  snprintf(b, sizeof b, "0x%llx [", (unsigned long long)w.addr);
  std::string s = b;
  for (unsigned x = 0; x < B; x++) {
    if (w.strobe[x]) snprintf(b, sizeof b, "%s%02x", x ? " " : "", w.data[x]);
    else snprintf(b, sizeof b, "%s--", x ? " " : "");
    s += b;
  }
  return s + "]";
}

static bool same_write(int acc_x, const DramReq &x, int acc_y, const DramReq &y, unsigned B) {
  if (acc_x != acc_y) return false;
  if (!acc_x) return true;
  if (x.addr != y.addr) return false;
  for (unsigned i = 0; i < B; i++)
    if (x.strobe[i] != y.strobe[i] || (x.strobe[i] && x.data[i] != y.data[i])) return false;
  return true;
}

static bool times_equal(const InsnTime &x, const InsnTime &y) {
  return x.fetch == y.fetch && x.start == y.start && x.ready == y.ready && x.end == y.end && x.stall == y.stall;
}

int RtlRun::compare_cycle(const SimCycleLog &ref, const SimCycleLog &mine, const Events &e) {
  uint64_t t = mine.cycle;
  char b[400];
  if (ref.fetched != mine.fetched || ref.halt_fetched != mine.halt_fetched) {
    snprintf(b, sizeof b, "fetch: detailed fetched %lld%s, rtl %lld%s", (long long)ref.fetched,
             ref.halt_fetched ? " (HALT)" : "", (long long)mine.fetched, mine.halt_fetched ? " (HALT)" : "");
    return diverge(t, -1, ref.fetched >= 0 ? ref.fetched : mine.fetched, b);
  }
  for (int u = 0; u < NUM_UNITS; u++)
    if (ref.state[u] != mine.state[u]) {
      snprintf(b, sizeof b, "unit state: detailed %s, rtl %s", state_name(ref.state[u]), state_name(mine.state[u]));
      return diverge(t, u, e.start[u] ? (int64_t)e.start_idx[u] : -1, b);
    }
  if (ref.rd_accepted != mine.rd_accepted || (ref.rd_accepted && ref.rd_addr != mine.rd_addr)) {
    snprintf(b, sizeof b, "DRAM read beat: detailed %s 0x%llx, rtl %s 0x%llx", ref.rd_accepted ? "reads" : "none",
             (unsigned long long)ref.rd_addr, mine.rd_accepted ? "reads" : "none", (unsigned long long)mine.rd_addr);
    return diverge(t, UNIT_LOAD, dma_insn_[UNIT_LOAD], b);
  }
  bool wr_same = ref.wr_accepted == mine.wr_accepted;
  if (wr_same && ref.wr_accepted) {
    wr_same = ref.wr.addr == mine.wr.addr;
    for (unsigned x = 0; x < a_->bus_bytes && wr_same; x++)
      wr_same = ref.wr.strobe[x] == mine.wr.strobe[x] && (!ref.wr.strobe[x] || ref.wr.data[x] == mine.wr.data[x]);
  }
  if (!wr_same) {
    std::string w[2];
    const SimCycleLog *l[2] = {&ref, &mine};
    for (int i = 0; i < 2; i++) {
      if (!l[i]->wr_accepted) {
        w[i] = "none";
        continue;
      }
      snprintf(b, sizeof b, "0x%llx [", (unsigned long long)l[i]->wr.addr);
      w[i] = b;
      for (unsigned x = 0; x < a_->bus_bytes; x++) {
        if (l[i]->wr.strobe[x]) snprintf(b, sizeof b, "%s%02x", x ? " " : "", l[i]->wr.data[x]);
        else snprintf(b, sizeof b, "%s--", x ? " " : "");
        w[i] += b;
      }
      w[i] += "]";
    }
    return diverge(t, UNIT_STORE, dma_insn_[UNIT_STORE],
                   "DRAM write beat: detailed " + w[0] + ", rtl " + w[1]);
  }
  if (ref.gbuf_rd_accepted != mine.gbuf_rd_accepted || (ref.gbuf_rd_accepted && ref.gbuf_rd_addr != mine.gbuf_rd_addr)) {
    snprintf(b, sizeof b, "GBUF read beat: detailed %s 0x%llx, rtl %s 0x%llx", ref.gbuf_rd_accepted ? "reads" : "none",
             (unsigned long long)ref.gbuf_rd_addr, mine.gbuf_rd_accepted ? "reads" : "none",
             (unsigned long long)mine.gbuf_rd_addr);
    return diverge(t, UNIT_LOAD, dma_insn_[UNIT_LOAD], b);
  }
  if (!same_write(ref.gbuf_wr_accepted, ref.gbuf_wr, mine.gbuf_wr_accepted, mine.gbuf_wr, a_->gbuf_bus_bytes))
    return diverge(t, UNIT_STORE, dma_insn_[UNIT_STORE],
                   "GBUF write beat: detailed " + write_text(ref.gbuf_wr_accepted, ref.gbuf_wr, a_->gbuf_bus_bytes) +
                       ", rtl " + write_text(mine.gbuf_wr_accepted, mine.gbuf_wr, a_->gbuf_bus_bytes));
  // The array's accumulator writes, column by column (the weight-stationary sums leaving the
  // bottom row, the output-stationary drains).
  for (unsigned c = 0; ref.acc && mine.acc && c < a_->cols; c++) {
    const SimAccWrite &x = ref.acc[c], &y = mine.acc[c];
    bool none = x.row == UINT64_MAX && y.row == UINT64_MAX;
    if (none || (x.row == y.row && x.bank == y.bank && x.value == y.value && x.accum == y.accum)) continue;
    std::string w[2];
    const SimAccWrite *l[2] = {&x, &y};
    for (int i = 0; i < 2; i++) {
      if (l[i]->row == UINT64_MAX) {
        w[i] = "none";
        continue;
      }
      snprintf(b, sizeof b, "ACC[%llu][%u] %s %d", (unsigned long long)l[i]->row, l[i]->bank, l[i]->accum ? "+=" : "=",
               l[i]->value);
      w[i] = b;
    }
    snprintf(b, sizeof b, "array ACC write, column %u: detailed %s, rtl %s", c, w[0].c_str(), w[1].c_str());
    return diverge(t, UNIT_COMPUTE, x.row != UINT64_MAX ? (int64_t)x.insn : -1, b);
  }
  // Every instruction the RTL reported on this cycle has the same times as in the C engine.
  for (int u = 0; u < NUM_UNITS; u++) {
    std::vector<uint32_t> ks;
    if (e.start[u]) ks.push_back(e.start_idx[u]);
    if (e.ready[u]) ks.push_back(e.ready_idx[u]);
    for (int k = 0; k < kSlots; k++)
      if (e.end[u][k]) ks.push_back(e.end_idx[u][k]);
    ks.insert(ks.end(), dma_ended_[u].begin(), dma_ended_[u].end());
    for (uint32_t k : ks) {
      if (!records(u, k) || times_equal(ref_->times[k], s_->times[k])) continue;
      return diverge(t, u, k, "times: detailed " + times_text(ref_->times[k]) + "; rtl " + times_text(s_->times[k]));
    }
  }
  return 0;
}

int RtlRun::compare_end() {
  uint64_t t = s_->stats.cycles;
  for (uint32_t k = 0; k < p_->n_insns; k++)
    if (!times_equal(ref_->times[k], s_->times[k]))
      return diverge(t, isa_ops[prog_op(p_, k)].unit < NUM_UNITS ? (int)isa_ops[prog_op(p_, k)].unit : -1, k,
                     "times: detailed " + times_text(ref_->times[k]) + "; rtl " + times_text(s_->times[k]));
  char what[256];
  if (stats_compare(&ref_->stats, &s_->stats, what, sizeof what))
    return diverge(t, -1, -1, std::string("statistics differ: ") + what + " (detailed vs rtl)");
  // The global buffer's bytes: every write beat was compared as it happened, here the result.
  for (uint64_t i = 0; i < a_->gbuf_bytes; i++)
    if (ref_->gbuf[i] != s_->gbuf[i]) {
      char b[160];
      snprintf(b, sizeof b, "GBUF byte 0x%llx: detailed %02x, rtl %02x", (unsigned long long)i, ref_->gbuf[i], s_->gbuf[i]);
      return diverge(t, -1, -1, b);
    }
  // Every write beat was compared as it happened; here the tensors (outputs included) once more.
  for (uint32_t k = 0; k < p_->n_tensors; k++) {
    const TensorInfo *ti = &p_->tensors[k];
    uint64_t span = prog_tensor_span(ti);
    if (ti->addr >= a_->dram_bytes || span > a_->dram_bytes - ti->addr) continue;
    for (uint64_t i = ti->addr; i < ti->addr + span; i++)
      if (ref_->dram[i] != s_->dram[i]) {
        char b[200];
        snprintf(b, sizeof b, "DRAM byte 0x%llx (tensor %s): detailed %02x, rtl %02x", (unsigned long long)i, ti->name,
                 ref_->dram[i], s_->dram[i]);
        return diverge(t, -1, -1, b);
      }
  }
  return 0;
}

// What a unit's head instruction waits for when it has its tokens (the deadlock message).
const char *RtlRun::waits_for(const Insn *in) const {
  switch (in->op) {
  case OP_PRELOAD:
    return top_->chain_busy_o ? " for the weight shift chain" : " for its weight bank to be released by the array";
  case OP_COMPUTE:
  case OP_COMPUTE_IS: return " for weights (no PRELOAD filled its bank)";
  case OP_COMPUTE_OS:
  case OP_LOAD:
  case OP_CFG_LOAD:
  case OP_STORE:
  case OP_CFG_STORE:
  case OP_CFG_POOL:
  case OP_CFG_SFU:
  case OP_SFU_MAP:
  case OP_SFU_EW:
  case OP_SFU_SOFTMAX:
  case OP_SFU_LAYERNORM:
  case OP_SFU_REDUCE:   // the SFU starts whenever it has its tokens and the previous one ended
  case OP_LAYER:
  case OP_HALT: break;   // the probes say nothing more
  }
  return " for nothing";
}

int RtlRun::deadlock(uint64_t t, const Events &) {
  Vsa_top *m = top_.get();
  std::string msg;
  unsigned w = tokw();
  for (int u = 0; u < NUM_UNITS; u++) {
    if (!get_bits(m->head_valid_o, u, 1)) continue;
    uint32_t k = (uint32_t)get_bits(m->head_idx_o, u * kIdxW, kIdxW);
    const Insn insn = prog_insn(p_, k), *in = &insn;
    int64_t pop = isa_has_field(in->op, FLD_POP) ? in->f[FLD_POP] : 0;
    int missing = -1;
    for (int v = 0; v < NUM_UNITS && missing < 0; v++)
      if (((pop >> v) & 1) && get_bits(m->tokens_o, (v * NUM_UNITS + u) * w, w) == 0) missing = v;
    if (!msg.empty()) msg += "; ";
    msg += std::string(isa_unit_names[u]) + " waits at insn " + std::to_string(k) + " (" + isa_ops[in->op].name + ")";
    if (missing >= 0) {
      msg += std::string(" for a token on ") + isa_unit_names[missing] + "->" + isa_unit_names[u];
    } else {
      msg += waits_for(in);
    }
  }
  if (!m->halted_o && m->imem_addr_o < p_->n_insns) {
    if (!msg.empty()) msg += "; ";
    msg += "fetch waits at insn " + std::to_string(m->imem_addr_o) + " (" +
           isa_ops[prog_op(p_, m->imem_addr_o)].name + ") for queue space";
  }
  if (msg.empty()) msg = std::to_string(remaining_) + " instruction copies never ended";
  return diag_error(d_, "sim: error: deadlock at cycle %llu: %s", (unsigned long long)t, msg.c_str());
}

int RtlRun::run() {
  if (init()) return -1;
  const bool both = ref_step_ != nullptr;
  for (uint64_t t = 0;; t++) {
    if (s_->max_cycles && t >= s_->max_cycles) {
      if (both && sim_detailed_step(ref_step_, nullptr) != -1)
        return diverge(t, -1, -1, "the detailed engine did not stop at the cycle limit");
      return sim_cycle_limit_error(s_, d_);
    }
    SimCycleLog ref{}, mine{};
    if (both) {
      for (SimAccWrite &w : ref_acc_) w.row = UINT64_MAX;
      ref.acc = ref_acc_.data();
      mine.acc = mine_acc_.data();
    }
    int ref_rc = both && ref_error_.empty() ? sim_detailed_step(ref_step_, &ref) : 0;
    if (both && ref_rc < 0) {
      // A runtime error (deadlock, token overflow): the RTL must stop with one too. The cycle a
      // deadlock is noticed is informative only, so the RTL runs on a little to find its own.
      ref_error_ = diag_first(d_);
      diag_init(d_);
      ref_error_cycle_ = t;
    }
    bool ref_live = both && ref_error_.empty();
    cycle(t, ref_live ? &mine : nullptr);
    bool frozen = frozen_;
    if (ref_live && compare_cycle(ref, mine, ev_)) return -1;
    if (both && !ref_live && t > ref_error_cycle_ + 100000)
      return diverge(t, -1, -1, "the detailed engine stopped with \"" + ref_error_ + "\"; the RTL runs on");
    Vsa_top *m = top_.get();
    if (m->tok_overflow_o) {
      unsigned w = tokw();
      for (int f = 0; f < NUM_UNITS; f++)
        for (int to = 0; to < NUM_UNITS; to++)
          if (get_bits(m->tokens_o, (f * NUM_UNITS + to) * w, w) > a_->token_max)
            return diag_error(d_, "sim: error: token overflow on channel %s->%s at cycle %llu (tokens.max %u)",
                              isa_unit_names[f], isa_unit_names[to], (unsigned long long)(t + 1), a_->token_max);
    }
    bool done = m->halted_o && remaining_ == 0;
    if (both && !ref_live && done)
      return diverge(t, -1, -1, "the detailed engine stopped with \"" + ref_error_ + "\"; the RTL finished");
    if (ref_live && done != (ref_rc == 0))
      return diverge(t, -1, -1, done ? "the RTL finished, the detailed engine did not" : "the detailed engine finished, the RTL did not");
    if (done) {
      stats_finish(&s_->stats, t + 1);
      if (check_compute_probes() || check_sfu_probes()) return -1;
      return ref_live ? compare_end() : 0;
    }
    if (frozen) return deadlock(t, ev_);
    if (s_->progress && t % SIM_PROGRESS_CYCLES == SIM_PROGRESS_CYCLES - 1)
      fprintf(s_->progress, "sasim-rtl: cycle %llu\n", (unsigned long long)t + 1);
  }
}

}  // namespace

int rtl_engine_run(void *, Sim *s, const RunArgs *a, Diag *d) {
  RtlRun r(s, a, d);
  return r.run();
}
