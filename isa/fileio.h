// fileio.h: reading a whole file into memory, and writing an output file safely, with errors
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

// An output file that is never left half-written. A regular path (existing or not) is written
// through a fresh temporary beside it and renamed over it by file_out_close; "-" is stdout
// (binary output is refused on a terminal: it would garble it); an existing file that is not a
// regular file (/dev/null, a FIFO) is written in place, since a rename would replace it.
typedef struct {
  int fd;                 // write here (file_out_write)
  const char *path;       // the target, for messages and the rename
  char *tmp;              // the temporary's name, or NULL when written in place
} FileOut;

// Opens the output. Returns 0, or -1 with "path: error: ..." recorded (nothing to close then).
int file_out_open(FileOut *o, const char *path, int binary, Diag *d);
// Writes all n bytes. Returns 0, or -1 with errno set.
int file_out_write(FileOut *o, const void *buf, size_t n);
// Finishes: with ok, syncs and renames the temporary over the target; without (the caller hit
// an error), removes the temporary. Returns 0, or -1 with an error recorded.
int file_out_close(FileOut *o, int ok, Diag *d);

#endif
