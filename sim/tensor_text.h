// tensor_text.h: a tensor for people and graders: printed as text (numpy-like, `sasim run
// --print`), and compared with a reference .npy (`sasim run --expect`). Both work on the dense
// C-order copy of a tensor that sim_get_tensor makes, so they serve every engine alike.
#ifndef SA_TENSOR_TEXT_H
#define SA_TENSOR_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "../isa/diag.h"
#include "../isa/program.h"

// Tensors of more elements than this are summarized: each axis longer than 2 * TENSOR_EDGE_ITEMS
// shows its first and last TENSOR_EDGE_ITEMS entries around "..." (numpy's threshold and edgeitems).
#define TENSOR_PRINT_THRESHOLD 1000
#define TENSOR_EDGE_ITEMS 3
// Lines of values wrap before this many characters (numpy's linewidth).
#define TENSOR_LINE_WIDTH 75
// --expect lists at most this many differing elements.
#define TENSOR_DIFF_SHOWN 10

// Prints "NAME: DTYPE [D0,D1,...]" (with the count of elided elements when summarized), then the
// values as numpy's str() does: nested brackets, one row of the last axis per line, wrapped.
// data: t's elements, dense, in C order. Returns 0, or -1 when f fails.
int tensor_print(FILE *f, const TensorInfo *t, const void *data);

// Compares t's elements (data, as above) with the array in the .npy file ref_path: dtype, shape,
// then every value. Prints one line on f, "expect NAME: ok, N elements equal REF" or
// "expect NAME: mismatch with REF: ...", the mismatch followed by the differing elements' count
// and the first TENSOR_DIFF_SHOWN as "  [i,j]: got G, expected E". Returns 0 when equal, 1 on a
// mismatch, -1 when the file cannot be read (the error in d).
int tensor_expect(FILE *f, const TensorInfo *t, const void *data, const char *ref_path, Diag *d);

#endif
