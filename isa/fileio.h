// fileio.h: reading a whole file into memory, with errors that name the file.
#ifndef SA_FILEIO_H
#define SA_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

// Reads all of a regular file (not a device, FIFO or directory) into a new buffer (*out, caller frees; NUL-terminated one byte past *len,
// so text parsers may treat it as a string). Returns 0, or -1 with "path: error: ..." recorded.
int file_read_all(const char *path, uint8_t **out, size_t *len, Diag *d);

#endif
