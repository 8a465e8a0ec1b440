// array_snap.h: one cycle of the detailed engine's array as a plain snapshot, and the observer
// interface through which it is handed out. The engine (detailed_array.c, detailed_os.c) fills
// a snapshot at the end of every active cycle inside the cycle window and calls each observer;
// the text --pe-trace (pe_trace.c) and the HTML view (view.c) are two observers of the same
// hook, so what the page draws and what the text prints cannot drift apart.
// An active cycle: a PE holds data, the accumulator is written, the weight chain shifts, or a
// COMPUTE_OS is in the array.
#ifndef SA_ARRAY_SNAP_H
#define SA_ARRAY_SNAP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// What the array runs this cycle: the kind of its data (docs/TIMING.md §6).
typedef enum {
  SNAP_WS,   // weight-stationary (COMPUTE): weights stay, activations move right, sums down
  SNAP_IS,   // input-stationary (COMPUTE_IS): the inputs stay (loaded like weights), weights move
  SNAP_OS    // output-stationary (COMPUTE_OS): each PE keeps its output, A moves right, B down
} SnapMode;

typedef enum {
  SNAP_PE_EMPTY,   // nothing in the PE
  SNAP_PE_MAC,     // the PE multiplied this cycle
  SNAP_PE_HOLD     // OS: the PE holds a partial sum but did not multiply
} SnapPeState;

// One PE after the cycle's clock edge.
typedef struct {
  uint8_t state;      // SnapPeState
  uint8_t drained;    // OS: the product was the last (k = KLEN - 1): the sum went to the drain register
  uint8_t bank;       // WS/IS: the weight bank of the PE's datum (the current bank when empty)
  uint8_t dr_valid;   // OS: the drain register holds a finished sum
  int8_t act;         // WS/IS: the operand passed right (activation in WS, weight in IS); OS: A
  int8_t b;           // OS: B, passed down
  int8_t weight;      // WS/IS: the stationary operand, the bank's element at this PE
  uint32_t n;         // OS: products in sum
  int32_t sum;        // WS/IS: the partial sum passed down; OS: the PE's own sum (the stationary output)
  int32_t dr;         // OS: the drain register
} SnapPe;

// One column's accumulator write in the cycle.
typedef struct {
  uint64_t row;       // ACC row, UINT64_MAX when the column wrote nothing
  uint32_t bank;      // ACC column written (the array column, except through IS's rotator)
  int32_t sum;        // the value written (added when accum)
  uint8_t accum;
  uint8_t transposed; // a COMPUTE_IS write through the rotator
} SnapAccWrite;

typedef struct {
  uint64_t cycle;
  SnapMode mode;
  uint32_t rows, cols;
  const SnapPe *pe;          // rows x cols, pe[r * cols + c]
  const SnapAccWrite *acc;   // cols entries
  int writes;                // accumulator writes this cycle
  int chain;                 // WS/IS: the weight chain shifted a row in this cycle (PRELOAD)
} ArraySnap;

// An observer: cycle() is called once per active cycle of the window, in cycle order. It returns
// 0, or -1 to stop being called (its own error, reported by its owner after the run).
typedef struct ArrayObserver {
  int (*cycle)(struct ArrayObserver *o, const ArraySnap *snap);
  int stopped;               // set when cycle() returned -1
} ArrayObserver;

#define SIM_MAX_OBSERVERS 2

#ifdef __cplusplus
}
#endif

#endif
