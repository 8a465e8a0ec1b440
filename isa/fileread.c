// fileread.c: see fileread.h. Reads with read(2) into one buffer, sized from a regular file's
// length once its head passed, grown by doubling (overflow-checked) for a pipe.
#include "fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "grow.h"

static int too_large(const char *path, unsigned long long have, int at_least, const FileReadLimits *lim, size_t max,
                     Diag *d) {
  return diag_error(d, "%s: error: %s%llu bytes, more than %s (%zu bytes)", path, at_least ? "at least " : "", have,
                    lim->what, max);
}

// Reads until n >= want or the end (*eof set). 0, or -1 after recording a read error.
static int fill(int fd, const char *path, uint8_t **buf, size_t *cap, size_t *n, size_t want, int *eof, Diag *d) {
  while (*n < want && !*eof) {
    if (*cap - *n < 2) {   // room for a byte and the terminating NUL
      size_t nc = grow_cap(*cap, *n + 2, 65536, 1, SIZE_MAX);
      uint8_t *nb = nc ? realloc(*buf, nc) : NULL;
      if (!nb) return diag_error(d, "%s: error: out of memory reading the file", path);
      *buf = nb;
      *cap = nc;
    }
    size_t room = *cap - *n - 1;
    if (room > want - *n) room = want - *n;
    ssize_t got = read(fd, *buf + *n, room);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) return diag_error(d, "%s: error: read error: %s", path, strerror(errno));
    if (got == 0) *eof = 1;
    *n += (size_t)got;
  }
  return 0;
}

int file_read_limited(const char *path, const FileReadLimits *lim, uint8_t **out, size_t *len, Diag *d) {
  *out = NULL;
  *len = 0;
  int is_stdin = !strcmp(path, "-");
  if (is_stdin && isatty(STDIN_FILENO))
    return diag_error(d, "-: error: refusing to read stdin from a terminal (pipe or redirect a file into it)");
  // O_NONBLOCK: opening a FIFO does not wait for a writer; it is refused just below.
  int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return diag_error(d, "%s: error: cannot open: %s", path, strerror(errno));
  struct stat st;
  int regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
  if (!is_stdin && !regular) {   // /dev/zero, a FIFO, a directory...
    close(fd);
    return file_not_regular(path, &st, d);
  }
  if (regular) file_note_input(&st);   // an output may not replace it (fileio.h)
  if (!is_stdin) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  size_t max = lim->max_bytes;
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0;
  int eof = 0, rc = 0;
  if (regular && (uintmax_t)st.st_size > max) rc = too_large(path, (unsigned long long)st.st_size, 0, lim, max, d);
  // The head first: nothing more is read (or allocated) before it passed.
  long long want = lim->head && lim->head_bytes ? (long long)lim->head_bytes : 0;
  while (!rc && want > 0) {
    rc = fill(fd, path, &buf, &cap, &n, (size_t)want, &eof, d);
    if (!rc) want = lim->head(buf, n, eof, &max, lim->ctx, path, d);
    if (want < 0) rc = -1;
    if (!rc && want > 0 && ((size_t)want <= n || eof)) want = 0;   // a check that asks again for nothing
  }
  if (!rc && n > max) rc = too_large(path, (unsigned long long)n, 0, lim, max, d);
  if (!rc && regular && (uintmax_t)st.st_size > max) rc = too_large(path, (unsigned long long)st.st_size, 0, lim, max, d);
  // The body: one allocation sized from a regular file (the loop still copes with one that grows).
  if (!rc && regular && (uintmax_t)st.st_size + 2 > cap) {
    uint8_t *nb = realloc(buf, (size_t)st.st_size + 2);
    if (!nb) rc = diag_error(d, "%s: error: out of memory reading the file", path);
    else buf = nb, cap = (size_t)st.st_size + 2;
  }
  if (!rc) rc = fill(fd, path, &buf, &cap, &n, max < SIZE_MAX - 1 ? max + 1 : SIZE_MAX - 1, &eof, d);
  if (!rc && n > max) rc = too_large(path, (unsigned long long)n, 1, lim, max, d);
  if (!is_stdin) close(fd);
  if (!rc && !buf && !(buf = malloc(1))) rc = diag_error(d, "%s: error: out of memory reading the file", path);
  if (rc) {
    free(buf);
    return -1;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return 0;
}

long long file_head_text(const uint8_t *buf, size_t n, int at_eof, size_t *max_bytes, void *ctx, const char *path,
                         Diag *d) {
  (void)at_eof, (void)max_bytes;
  if (memchr(buf, 0, n)) return diag_error(d, "%s: error: not a text file (a NUL byte in its first %zu bytes)", path, n);
  const char *first = ctx;
  if (!first) return 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = buf[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == (uint8_t)*first) return 0;
    return diag_error(d, "%s: error: expected '%c' at the start of the file, found byte 0x%02x", path, *first, c);
  }
  return 0;
}
