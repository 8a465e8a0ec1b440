// fileread.h: reading a whole input file with a size limit, checking its head before the rest.
// Every reader of a file format goes through file_read_limited(): a file (or stdin) longer than
// the format allows is refused before it is read (regular files: from their size) or as soon as
// the limit is passed (pipes), and the head (magic, header) is checked before the body is read,
// so that `cat /dev/zero | sasim run -` or a 3 GB sparse file fail at once with a clear error.
// (isa/fileio.h keeps file_map, the input tracking and the writers.)
#ifndef SA_FILEREAD_H
#define SA_FILEREAD_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

// Checks the first n bytes of a file (n < the bytes asked for only at the end of the file, then
// at_eof is 1). Returns -1 after recording an error (the file is refused), 0 when the head is
// good (no further call), or a number k > n: call again once k bytes are in (or at the end).
// It may lower *max_bytes (say, to the size the header gives).
typedef long long (*FileHeadCheck)(const uint8_t *buf, size_t n, int at_eof, size_t *max_bytes, void *ctx,
                                   const char *path, Diag *d);

typedef struct {
  size_t max_bytes;       // longest file accepted (the format's limit)
  const char *what;       // the limit in words, for the message: "the limit of a net.json"
  size_t head_bytes;      // call head once this many bytes are in (0: no head check)
  FileHeadCheck head;     // NULL: no head check
  void *ctx;              // passed to head
} FileReadLimits;

// Reads a whole file ("-" is stdin, only regular files otherwise, a terminal is refused,
// NUL-terminated one past *len) within *lim. Errors: "path: error: N bytes, more than <what> (M)"
// or the head check's own.
int file_read_limited(const char *path, const FileReadLimits *lim, uint8_t **out, size_t *len, Diag *d);

// A head check for text formats: the first bytes hold no NUL (a binary or /dev/zero is refused
// at once), and with ctx pointing at a char, the first non-blank character is that one ('{' for
// JSON). head_bytes up to 4096 is sensible.
long long file_head_text(const uint8_t *buf, size_t n, int at_eof, size_t *max_bytes, void *ctx, const char *path,
                         Diag *d);

#endif
