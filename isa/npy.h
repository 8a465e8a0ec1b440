// npy.h: reads and writes NumPy .npy files (format versions 1.0-3.0, C order, little-endian).
#ifndef SA_NPY_H
#define SA_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "fileio.h"

typedef enum { NPY_I8, NPY_U8, NPY_I16, NPY_I32, NPY_I64, NPY_F32, NPY_F64 } NpyType;

typedef struct {
  NpyType type;          // element type
  uint32_t ndim;         // 0..8
  uint64_t dims[8];      // shape
  uint64_t count;        // product of dims
  void *data;            // count elements, little-endian host order; owned
} NpyArray;

int npy_read(const char *path, NpyArray *out, Diag *d);
int npy_parse(const uint8_t *buf, size_t len, const char *file, NpyArray *out, Diag *d);
// Writes the array to path through a temporary (fileio.h: never left half-written).
int npy_write(const char *path, NpyType type, uint32_t ndim, const uint64_t *dims, const void *data, Diag *d);
// Writes the array into an opened output (one of a FileOutSet); the caller finishes it.
int npy_write_to(FileOut *o, NpyType type, uint32_t ndim, const uint64_t *dims, const void *data, Diag *d);
void npy_free(NpyArray *a);
size_t npy_type_size(NpyType t);

#endif
