// area.c: mm² per component of a machine from the table's area model (docs/PPA.md §Area).
// Logic (array, post-processing, special-function unit, control) is priced in transistors of
// yosys's `stat -tech cmos` estimate, turned into placed area; memories are bit cells over an
// array efficiency, with a cell-area overhead per port beyond the first; the global buffer
// (gbuf.bytes, 0: none) is one more such memory.
#include "area.h"

const char *const area_comp_names[AR_COUNT] = {"pe_array", "spad", "wbuf", "acc", "param",
                                                 "gbuf",     "post", "sfu",  "control"};

double area_array_transistors(const EnergyTable *t, uint32_t rows, uint32_t cols) {
  double r = rows, c = cols;
  return t->pe_tr * r * c + t->skew_tr * r * (r - 1) / 2 + t->edge_tr * (r + c) + t->fixed_tr;
}

double area_sfu_transistors(const EnergyTable *t, const Arch *a) {
  double lanes = a->sfu_lanes < a->cols ? a->sfu_lanes : a->cols;
  double lane = t->sfu_lane_tr + (double)a->sfu_latency * t->sfu_stage_reg_bits * t->flip_flop_tr;
  return lanes * lane + t->sfu_scalar_tr + t->sfu_control_tr;
}

double area_logic_mm2(const EnergyTable *t, double transistors) {
  return transistors * t->um2_per_transistor / t->logic_utilization * 1e-6;
}

void area_mem_shape(const Arch *a, MemStatId m, double *row_bytes, double *rows) {
  switch (m) {
  case MEM_ST_SPAD: *row_bytes = a->rows, *rows = a->spad_rows; return;
  case MEM_ST_WBUF: *row_bytes = a->cols, *rows = a->wbuf_rows; return;
  case MEM_ST_ACC: *row_bytes = 4.0 * a->cols, *rows = a->acc_rows; return;
  case MEM_ST_PARAM: *row_bytes = 4.0 * a->cols, *rows = a->param_rows; return;
  }
  *row_bytes = *rows = 0;
}

// mm² of an SRAM of `bits` bit cells with `ports` ports (before scale_area).
static double sram_mm2(const EnergyTable *t, double bits, double ports) {
  double cell = t->sram_cell_um2 * (1 + t->sram_port_factor * (ports - 1));
  return bits * cell / t->sram_array_efficiency * 1e-6;
}

void area_of(const Arch *a, const EnergyTable *t, AreaReport *out) {
  double s = t->scale_area;
  out->mm2[AR_PE_ARRAY] = s * area_logic_mm2(t, area_array_transistors(t, a->rows, a->cols));
  out->mm2[AR_POST] = s * area_logic_mm2(t, t->post_col_tr * a->cols);
  out->mm2[AR_SFU] = s * area_logic_mm2(t, area_sfu_transistors(t, a));
  out->mm2[AR_CONTROL] = s * area_logic_mm2(t, t->control_tr);
  out->sram_mm2 = 0;
  for (int m = 0; m < MEM_ST_COUNT; m++) {
    double row_bytes, rows;
    area_mem_shape(a, (MemStatId)m, &row_bytes, &rows);
    out->mm2[AR_SPAD + m] = s * sram_mm2(t, 8.0 * row_bytes * rows, t->sram_ports[m]);
    out->sram_mm2 += out->mm2[AR_SPAD + m];
  }
  out->mm2[AR_GBUF] = s * sram_mm2(t, 8.0 * a->gbuf_bytes, t->sram_ports_gbuf);   // 0 bytes: none, no area
  out->sram_mm2 += out->mm2[AR_GBUF];
  out->logic_mm2 = out->mm2[AR_PE_ARRAY] + out->mm2[AR_POST] + out->mm2[AR_SFU] + out->mm2[AR_CONTROL];
  out->total_mm2 = out->logic_mm2 + out->sram_mm2;
}
