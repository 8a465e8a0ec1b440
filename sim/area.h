// area.h: the area model: mm² per component of a machine at the table's node (docs/PPA.md).
// The PE array from coefficients fitted on yosys synthesis of rtl/ (scripts/calibrate-area), the
// memories (SPAD, WBUF, ACC, PARAM and the global buffer) from a per-bit cell area with periphery
// and port overheads, the post-processing unit per column, the special-function unit per lane
// (yosys synthesis of rtl/sa_sfu_*.sv) plus its scalar reciprocal / inverse square root and
// control, and a fixed figure for fetch, queues, tokens, DMA and control.
#ifndef SA_AREA_H
#define SA_AREA_H

#include "energy.h"

typedef enum { AR_PE_ARRAY, AR_SPAD, AR_WBUF, AR_ACC, AR_PARAM, AR_GBUF, AR_POST, AR_SFU, AR_CONTROL, AR_COUNT } AreaComp;
extern const char *const area_comp_names[AR_COUNT];   // "pe_array", "spad", ..., "gbuf", ..., "sfu", "control"

typedef struct {
  double mm2[AR_COUNT];   // per component, after scale_area
  double total_mm2;
  double logic_mm2;       // pe_array + post + sfu + control (leaks at the logic density)
  double sram_mm2;        // the memories: spad, wbuf, acc, param, gbuf (leak at the SRAM density)
} AreaReport;

// Transistors of the R x C array by the fitted model (what `make synth` would estimate).
double area_array_transistors(const EnergyTable *t, uint32_t rows, uint32_t cols);
// Transistors of the special-function unit of arch a: min(sfu.lanes, cols) lanes (more would
// never be used), each its datapath and sfu.latency pipeline stages of registers, plus the scalar
// reciprocal / inverse square root and the unit's control.
double area_sfu_transistors(const EnergyTable *t, const Arch *a);
// mm² of logic with that many transistors (placed, at the table's utilization; before scale_area).
double area_logic_mm2(const EnergyTable *t, double transistors);
void area_of(const Arch *a, const EnergyTable *t, AreaReport *out);
// Bytes of one row of on-chip memory m and its rows (docs/ARCH.md: SPAD rows of R int8, WBUF
// rows of C int8, ACC and PARAM rows of C int32): the geometry both models price.
void area_mem_shape(const Arch *a, MemStatId m, double *row_bytes, double *rows);

#endif
