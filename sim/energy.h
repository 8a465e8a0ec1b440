// energy.h: the energy and area table (workloads/energy/default.json, docs/PPA.md) and the energy
// of a finished run, computed from the counts the engines produce (never inside them).
// The table gives per-event energies in pJ and the area model's coefficients, each with its
// source; area.h turns the coefficients into mm² per component.
#ifndef SA_ENERGY_H
#define SA_ENERGY_H

#include "../isa/arch.h"
#include "../isa/diag.h"
#include "sim.h"

// Every figure of the table (units in the names). The loader fills all of them: a table file
// must give every key (docs/PPA.md lists them with their sources).
typedef struct {
  char name[64];                  // table name, shown in reports
  char node[16];                  // technology node the figures are for ("45nm")
  double scale_energy;            // multiplies every pJ figure (e.g. to move to another node)
  double scale_area;              // multiplies every area figure
  // energy.*
  double int8_mult_pj;            // int8 x int8 multiply (a MAC: this + int32_add_pj)
  double int32_add_pj;            // 32-bit add (the MAC's accumulation; the post-processor's bias, rounding, clamp)
  double int32_mult_pj;           // 32-bit multiply (the post-processor's requantization)
  double reg_bit_pj;              // one flip-flop bit written (with its share of the clock)
  double pe_slot_reg_bits;        // bits a PE writes per array slot (activation, partial sum, control)
  double weight_reg_bits;         // bits a PE writes per weight-chain shift
  double sram_bit_pj_base;        // SRAM access energy per bit: base + per_sqrt_kib * sqrt(KiB)
  double sram_bit_pj_per_sqrt_kib;
  double sram_write_factor;       // a write costs this times a read of the same row
  double dram_byte_pj;            // DRAM energy per byte on the bus (beats x bus_bytes)
  double leak_logic_mw_per_mm2;   // leakage power density of logic
  double leak_sram_mw_per_mm2;    // leakage power density of SRAM macros
  // energy.sfu_*: the special-function unit, per event its counters count (docs/PPA.md)
  double sfu_stage_reg_bits;      // bits a value latches per pipeline stage of a lane (x sfu.latency per value)
  double sfu_exp_pj;              // one exponential: softmax argument step + exp_q
  double sfu_gelu_pj;             // one GELU: input requantization + Phi polynomial + x Phi product
  double sfu_sigmoid_pj;          // one sigmoid or SiLU: input requantization + exp_q + 15-step division + product
  double sfu_hard_pj;             // one h-sigmoid, h-swish or identity: input requantization + clamp + products
  double sfu_ew_add_pj;           // one element-wise add or subtract
  double sfu_ew_mul_pj;           // one element-wise multiply (64-bit product, saturated)
  double sfu_norm_pj;             // one per-value normalisation multiply (softmax, layer norm)
  double sfu_reduce_pj;           // one value reduced (max compare or sum accumulate)
  double sfu_recip_pj;            // one scalar reciprocal (a softmax row)
  double sfu_rsqrt_pj;            // one scalar inverse square root with its variance (a layer-norm row)
  // area.*
  double um2_per_transistor;      // placed logic area per transistor of the yosys estimate
  double logic_utilization;       // fraction of a logic block's area that is cells
  double pe_tr, skew_tr, edge_tr, fixed_tr;   // array transistors: pe R C + skew R(R-1)/2 + edge (R+C) + fixed
  double post_col_tr;             // transistors of one column's post-processing unit
  double control_tr;              // fetch, queues, tokens, DMA and unit control, in transistors
  double sram_cell_um2;           // SRAM bit cell area
  double sram_array_efficiency;   // fraction of a macro's area that is bit cells
  double sram_port_factor;        // each port beyond the first adds this fraction of the cell area
  double sram_ports[MEM_ST_COUNT];   // ports of spad, wbuf, acc, param
  double sram_ports_gbuf;         // ports of the global buffer (gbuf.bytes; a read and a write port)
  double sfu_lane_tr;             // one SFU lane's datapath (sa_sfu_math without the scalar blocks + input requantization)
  double sfu_scalar_tr;           // the SFU's scalar reciprocal and inverse square root (sa_sfu_recip + sa_sfu_rsqrt)
  double sfu_control_tr;          // the SFU's queue, configuration registers, row sequencer and token channels
  double flip_flop_tr;            // transistors of one flip-flop (the SFU lanes' pipeline registers)
} EnergyTable;

// Energy components, in the order reports print them.
// EN_SFU is the special-function unit's arithmetic and pipeline registers (its ACC and PARAM
// rows are in EN_ACC and EN_PARAM, priced per row like every unit's). EN_GBUF is the global
// buffer's beats (LOADs and STOREs with GBUF=1), priced like the other memories' rows.
typedef enum {
  EN_MAC, EN_PE_REGS, EN_SPAD, EN_WBUF, EN_ACC, EN_PARAM, EN_GBUF, EN_DRAM, EN_POST, EN_SFU, EN_LEAKAGE, EN_COUNT
} EnergyComp;
extern const char *const energy_comp_names[EN_COUNT];   // "mac", "pe_regs", ..., "gbuf", ..., "sfu", "leakage"

typedef struct {
  double pj[EN_COUNT];   // per component
  double total_pj;
  // What the global buffer saved (docs/PPA.md, "The global buffer"): the bytes its LOADs and
  // STOREs moved on chip instead of over DRAM; what DRAM would have spent on the same transfers
  // (GBUF=0: the same beats when gbuf.bus_bytes = dram.bus_bytes, so beats x bus_bytes x
  // dram_byte_pj; else at least bytes x dram_byte_pj); and that less the buffer's own dynamic
  // energy (pj[EN_GBUF]).
  uint64_t dram_saved_bytes;
  double dram_avoided_pj;
  double dram_saved_pj;
} EnergyBreakdown;

typedef struct {
  EnergyBreakdown run;       // the whole run (leakage over all its cycles)
  double time_us;            // cycles / clock
  double power_mw;           // average power: total energy / time
  double tops_per_w;         // 2 x useful MACs / total energy (ops per pJ = TOPS/W)
  uint32_t n_layers;         // layers has n_layers + 1 entries, as SimStats.layers
  EnergyBreakdown *layers;   // per layer (leakage over the layer's span); owned, energy_report_free
} EnergyReport;

// The built-in table; equal to workloads/energy/default.json (a test checks it).
void energy_default(EnergyTable *t);
// Parses a table from JSON text; `file` names it in messages ("f.json:12:5: energy.dram_byte_pj:
// error: ..."). Unknown and missing keys are errors. Returns 0, or -1 with a message in d.
int energy_parse(const char *text, size_t len, const char *file, EnergyTable *t, Diag *d);
// Reads a file of at most ENERGY_FILE_MAX_BYTES and parses it.
#define ENERGY_FILE_MAX_BYTES ((size_t)1 << 20)
int energy_load_file(const char *path, EnergyTable *t, Diag *d);
// 1 when every figure is equal.
int energy_equal(const EnergyTable *x, const EnergyTable *y);

// Energy per access of one row of on-chip memory m of arch a (pJ, before scale_energy).
double energy_sram_row_pj(const EnergyTable *t, const Arch *a, MemStatId m);
// Energy of one global-buffer beat of arch a: a gbuf.bus_bytes row of a gbuf.bytes SRAM (pJ,
// before scale_energy; a write costs sram_write_factor times this).
double energy_gbuf_beat_pj(const EnergyTable *t, const Arch *a);
// 1 when the buffer's beats are as wide as DRAM's: its transfers with GBUF=0 would be the same
// beats on the DRAM bus, so the saving is priced on them (else on the useful bytes, a lower bound).
int energy_gbuf_beats_as_dram(const Arch *a);
// The energy of a run from its statistics. Returns 0, or -1 when out of memory.
int energy_of(const SimStats *st, const Arch *a, const EnergyTable *t, EnergyReport *out);
void energy_report_free(EnergyReport *r);

#endif
