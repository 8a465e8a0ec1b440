// fileio.h: reading a whole file into memory, and writing binary data to stdout, with errors
// that name the file. The path "-" means stdin (read) or stdout (write), as in most Unix tools.
#ifndef SA_FILEIO_H
#define SA_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

// Reads all of a regular file (not a device, FIFO or directory) into a new buffer (*out, caller frees; NUL-terminated one byte past *len,
// so text parsers may treat it as a string). Returns 0, or -1 with "path: error: ..." recorded.
// "-" reads stdin to its end (a pipe or a redirected file; a terminal is refused, since a binary
// or a JSON file is never typed in by hand and the tool would seem to hang).
int file_read_all(const char *path, uint8_t **out, size_t *len, Diag *d);
// Maps all of a non-empty regular file into memory (private: writes stay in this process).
// Returns 0, or -1 with a message (the caller may fall back on file_read_all). Undo with
// file_unmap(*out, *len). Cheaper than reading a big file: no copy, pages faulted in batches.
int file_map(const char *path, uint8_t **out, size_t *len, Diag *d);
void file_unmap(uint8_t *p, size_t len);

// Writes n bytes of binary data to stdout ("-" in an -o option). Refuses when stdout is a
// terminal: binary bytes would garble it. Returns 0, or -1 with an error recorded.
int file_write_stdout(const void *buf, size_t n, Diag *d);

#endif
