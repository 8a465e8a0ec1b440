// fileio.c: see fileio.h.
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int file_read_all(const char *path, uint8_t **out, size_t *len, Diag *d) {
  *out = NULL;
  *len = 0;
  int is_stdin = !strcmp(path, "-");
  if (is_stdin && isatty(STDIN_FILENO))
    return diag_error(d, "-: error: refusing to read stdin from a terminal (pipe or redirect a file into it)");
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) return diag_error(d, "%s: error: cannot open: %s", path, strerror(errno));
  struct stat st;
  int regular = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
  if (!is_stdin && !regular) {   // /dev/zero, a FIFO, a directory...
    fclose(f);
    return diag_error(d, "%s: error: not a regular file", path);
  }
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  // Sized from the file once (programs are tens of megabytes: doubling copied them and touched
  // twice the pages); the loop still copes with a file that grows while it is read.
  // (stdin: only when it is a redirected regular file; a pipe grows the buffer as it reads.)
  if (regular && st.st_size > 0 && (uintmax_t)st.st_size < SIZE_MAX / 2 && (buf = malloc((size_t)st.st_size + 2)))
    cap = (size_t)st.st_size + 2;
  setvbuf(f, NULL, _IONBF, 0);   // fread straight into buf, not through stdio's buffer
  for (;;) {
    if (cap - n < 2) {   // room for at least one byte and the terminating NUL
      size_t nc = cap ? cap * 2 : 65536;
      uint8_t *nb = nc > cap ? realloc(buf, nc) : NULL;
      if (!nb) {
        rc = diag_error(d, "%s: error: out of memory reading the file", path);
        break;
      }
      buf = nb;
      cap = nc;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) rc = diag_error(d, "%s: error: read error", path);
      break;
    }
  }
  if (!is_stdin) fclose(f);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return 0;
}

int file_out_open(FileOut *o, const char *path, int binary, Diag *d) {
  o->path = path, o->tmp = NULL, o->fd = -1;
  struct stat st;
  if (!strcmp(path, "-")) {
    if (binary && isatty(STDOUT_FILENO))
      return diag_error(d, "-: error: refusing to write a binary to a terminal (redirect stdout to a file or a pipe)");
    fflush(stdout);   // whatever stdio holds goes first
    o->fd = STDOUT_FILENO;
    return 0;
  }
  if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
    o->fd = open(path, O_WRONLY);
    return o->fd < 0 ? diag_error(d, "%s: error: cannot write: %s", path, strerror(errno)) : 0;
  }
  size_t n = strlen(path) + 40;
  if (!(o->tmp = malloc(n))) return diag_error(d, "%s: error: out of memory", path);
  // A fresh name beside the target (same file system, so rename() is atomic).
  for (int i = 0; i < 100 && o->fd < 0; i++) {
    snprintf(o->tmp, n, "%s.tmp%ld.%d", path, (long)getpid(), i);
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (o->fd < 0 && errno != EEXIST) break;
  }
  if (o->fd >= 0) return 0;
  int rc = diag_error(d, "%s: error: cannot create %s: %s", path, o->tmp, strerror(errno));
  free(o->tmp);
  o->tmp = NULL;
  return rc;
}

int file_out_write(FileOut *o, const void *buf, size_t n) {
  const uint8_t *b = buf;
  for (size_t done = 0; done < n;) {
    ssize_t w = write(o->fd, b + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return -1;
    }
    done += (size_t)w;
  }
  return 0;
}

int file_out_close(FileOut *o, int ok, Diag *d) {
  int rc = 0;
  if (!o->tmp) {   // stdout or written in place
    if (o->fd != STDOUT_FILENO && close(o->fd) && ok)
      rc = diag_error(d, "%s: error: cannot close: %s", o->path, strerror(errno));
    return ok ? rc : -1;
  }
  if (ok && fsync(o->fd)) rc = diag_error(d, "%s: error: cannot sync %s: %s", o->path, o->tmp, strerror(errno));
  if (close(o->fd) && ok && !rc) rc = diag_error(d, "%s: error: cannot close %s: %s", o->path, o->tmp, strerror(errno));
  if (ok && !rc && rename(o->tmp, o->path))
    rc = diag_error(d, "%s: error: cannot rename %s to it: %s", o->path, o->tmp, strerror(errno));
  if (!ok || rc) unlink(o->tmp);
  free(o->tmp);
  o->tmp = NULL;
  return ok ? rc : -1;
}

int file_map(const char *path, uint8_t **out, size_t *len, Diag *d) {
  *out = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return diag_error(d, "%s: error: cannot open: %s", path, strerror(errno));
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || (uintmax_t)st.st_size > SIZE_MAX) {
    rc = diag_error(d, "%s: error: not a non-empty regular file", path);
  } else {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      rc = diag_error(d, "%s: error: cannot map: %s", path, strerror(errno));
    } else {
      *out = m;
      *len = (size_t)st.st_size;
    }
  }
  close(fd);
  return rc;
}

void file_unmap(uint8_t *p, size_t len) {
  if (p) munmap(p, len);
}
