// fileio.h: mapping an input file, tracking the inputs, and writing an output file safely, with errors
// that name the file. The path "-" means stdin (read) or stdout (write), as in most Unix tools.
#ifndef SA_FILEIO_H
#define SA_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

// Maps all of a non-empty regular file into memory (private: writes stay in this process).
// Returns 0, or -1 with a message (the caller may fall back on file_read_limited, fileread.h). Undo with
// file_unmap(*out, *len). Cheaper than reading a big file: no copy, pages faulted in batches.
int file_map(const char *path, uint8_t **out, size_t *len, Diag *d);
void file_unmap(uint8_t *p, size_t len);

// After file_track_inputs() (a command-line tool calls it once, at the start), every regular
// file read by file_read_limited (fileread.h) or file_map (stdin too, when it is a redirected file) is remembered
// by device and inode, so that file_out_open refuses to replace one of the command's own inputs
// (`sacc compile n.json -o n.json`), even under another name. Libraries and tests that write
// what they read leave it off.
void file_track_inputs(void);
// Remembers a regular file just read as one of the command's inputs (after file_track_inputs();
// other readers of whole files, fileread.c, call it too). st: fstat of the open file.
struct stat;
void file_note_input(const struct stat *st);
// Records "path: error: not a regular file" (with a hint for a FIFO) and returns -1.
int file_not_regular(const char *path, const struct stat *st, Diag *d);

// An output file that is never left half-written. A regular path (existing or not) is written
// through a fresh temporary "<path>.tmp<PID>.<N>" beside it and renamed over it by
// file_out_close; "-" is stdout (binary output is refused on a terminal: it would garble it); an
// existing file that is not a regular file (/dev/null, a FIFO, a terminal) is written in place,
// since a rename would replace it. Opening removes the temporaries of the same path left by
// processes that no longer run (a kill -9 leaves its temporary behind).
typedef struct {
  int fd;                 // write here (file_out_write), or through the stream (file_out_stream)
  char *path;             // the target (a copy), for messages and the rename
  char *tmp;              // the temporary's name, or NULL when written in place
  void *stream;           // the FILE of file_out_stream, or NULL
  int err;                // errno of the first failed write through the stream, or 0
} FileOut;

// Opens the output. Returns 0, or -1 with "path: error: ..." recorded (nothing to close then).
int file_out_open(FileOut *o, const char *path, int binary, Diag *d);
// Writes all n bytes. Returns 0, or -1 with errno set.
int file_out_write(FileOut *o, const void *buf, size_t n);
// A stdio stream over the output (stdout for "-"), for formatted writers; file_out_finish
// flushes it and reports its write errors with their reason. Returns a FILE *, or NULL with an
// error recorded. The FileOut must not move while the stream is open.
void *file_out_stream(FileOut *o, Diag *d);
// Finishes: with ok, flushes and syncs the temporary (or the in-place file, or stdout) and closes
// it, keeping the temporary for file_out_commit; without ok (the caller hit an error), or when
// this fails, removes the temporary. Returns 0, or -1 (an error recorded, unless !ok).
int file_out_finish(FileOut *o, int ok, Diag *d);
// After a successful file_out_finish: renames the temporary over the target. 0, or -1.
int file_out_commit(FileOut *o, Diag *d);
// Removes a finished, uncommitted temporary (the set it belongs to failed).
void file_out_discard(FileOut *o);
// file_out_finish, then file_out_commit (ok) or file_out_discard.
int file_out_close(FileOut *o, int ok, Diag *d);

// A set of outputs written as a whole (--output-dir): each file goes to its own temporary, and
// the temporaries are renamed over their targets only once every file is written. The targets
// are always replaced, never written through: a symlink, a FIFO or a device planted at one of
// their names is replaced by the file. Zero-initialize; one file is open at a time.
typedef struct {
  FileOut *files;
  size_t n, cap;
} FileOutSet;

// Opens the next file of the set (the previous one finished). Returns it, or NULL with an error.
FileOut *file_set_open(FileOutSet *s, const char *path, Diag *d);
// ok: renames every file (each finished with file_out_finish) over its target; else removes
// every temporary. Frees the set. Returns 0, or -1.
int file_set_close(FileOutSet *s, int ok, Diag *d);

// At the end of a command: flushes stdout and reports a write error on it (a full disk, a closed
// pipe, /dev/full) as "tool: error: cannot write stdout: reason". Returns 0, or 1 after printing
// (once: the error is cleared).
int file_stdout_check(const char *tool);

#endif
