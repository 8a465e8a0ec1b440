// fileio.h: reading a whole file into memory, with errors that name the file.
#ifndef SA_FILEIO_H
#define SA_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

// Reads all of a regular file (not a device, FIFO or directory) into a new buffer (*out, caller frees; NUL-terminated one byte past *len,
// so text parsers may treat it as a string). Returns 0, or -1 with "path: error: ..." recorded.
int file_read_all(const char *path, uint8_t **out, size_t *len, Diag *d);
// Maps all of a non-empty regular file into memory (private: writes stay in this process).
// Returns 0, or -1 with a message (the caller may fall back on file_read_all). Undo with
// file_unmap(*out, *len). Cheaper than reading a big file: no copy, pages faulted in batches.
int file_map(const char *path, uint8_t **out, size_t *len, Diag *d);
void file_unmap(uint8_t *p, size_t len);

#endif
