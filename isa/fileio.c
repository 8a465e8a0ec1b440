// fileio.c: see fileio.h.
#define _GNU_SOURCE   // fopencookie (glibc): a stream whose write errors keep their errno
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// ---- The inputs read so far (device, inode), so that no output replaces one ----

typedef struct {
  dev_t dev;
  ino_t ino;
} FileId;
static FileId *seen_inputs;
static size_t n_seen_inputs, cap_seen_inputs;

static int tracking_inputs;

void file_track_inputs(void) { tracking_inputs = 1; }

void file_note_input(const struct stat *st) {
  if (!tracking_inputs || !S_ISREG(st->st_mode)) return;
  for (size_t i = 0; i < n_seen_inputs; i++)
    if (seen_inputs[i].dev == st->st_dev && seen_inputs[i].ino == st->st_ino) return;
  if (n_seen_inputs == cap_seen_inputs) {
    size_t nc = cap_seen_inputs ? cap_seen_inputs * 2 : 16;
    FileId *n = nc < SIZE_MAX / sizeof *n ? realloc(seen_inputs, nc * sizeof *n) : NULL;
    if (!n) return;   // out of memory: the check is lost, the read goes on (it will fail soon anyway)
    seen_inputs = n;
    cap_seen_inputs = nc;
  }
  seen_inputs[n_seen_inputs++] = (FileId){st->st_dev, st->st_ino};
}

int file_not_regular(const char *path, const struct stat *st, Diag *d) {
  return diag_error(d, "%s: error: not a regular file%s", path,
                    S_ISFIFO(st->st_mode) ? " (a FIFO: to read a pipe, give - and redirect the pipe to stdin)" : "");
}

static int is_input(const struct stat *st) {
  for (size_t i = 0; i < n_seen_inputs; i++)
    if (seen_inputs[i].dev == st->st_dev && seen_inputs[i].ino == st->st_ino) return 1;
  return 0;
}

// Opens an input without blocking: open() of a FIFO waits for a writer, forever if none comes,
// before the caller could see that it is not a regular file. A regular file gets its blocking
// mode back (it has no other), anything else is left for the caller to refuse.
// ---- Outputs ----

// Removes "<path>.tmp<PID>.<N>" files beside path whose process no longer runs: what a kill -9
// (or a crash, or a power cut) left behind. A PID that runs again (reused, or seen from another
// PID namespace) keeps its file: never a live writer's temporary is removed.
static void remove_stale_temps(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t dlen = slash ? (size_t)(slash - path) : 1, blen = strlen(base);
  char *dir = malloc(dlen + blen + 48);
  if (!dir) return;
  if (slash) memcpy(dir, dlen ? path : "/", dlen ? dlen : 1), dlen = dlen ? dlen : 1;
  else dir[0] = '.';
  dir[dlen] = 0;
  DIR *dp = opendir(dir);
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    const char *n = e->d_name, *q = n + blen + 4;
    if (strncmp(n, base, blen) || strncmp(n + blen, ".tmp", 4) || *q < '1' || *q > '9') continue;
    char *end;
    errno = 0;
    long pid = strtol(q, &end, 10);
    if (errno || *end != '.' || end[1] < '0' || end[1] > '9' || (pid_t)pid != pid || pid == (long)getpid()) continue;
    for (q = end + 1; *q >= '0' && *q <= '9'; q++) {
    }
    if (*q || strlen(n) > blen + 40) continue;
    if (!kill((pid_t)pid, 0) || errno != ESRCH) continue;   // alive (EPERM: alive, someone else's)
    snprintf(dir + dlen, blen + 48, "/%s", n);
    unlink(dir);
    dir[dlen] = 0;
  }
  if (dp) closedir(dp);
  free(dir);
}

// Opens o for path. replace: always through a temporary, whatever the path names now (a set's
// file: a planted symlink, FIFO or device is replaced, never written through).
static int out_open(FileOut *o, const char *path, int binary, int replace, Diag *d) {
  *o = (FileOut){.fd = -1};
  struct stat st;
  if (!strcmp(path, "-") && !replace) {
    if (binary && isatty(STDOUT_FILENO))
      return diag_error(d, "-: error: refusing to write a binary to a terminal (redirect stdout to a file or a pipe)");
    if (!(o->path = strdup(path))) return diag_error(d, "-: error: out of memory");
    fflush(stdout);   // whatever stdio holds goes first
    o->fd = STDOUT_FILENO;
    return 0;
  }
  int exists = replace ? !lstat(path, &st) : !stat(path, &st);
  if (exists && S_ISREG(st.st_mode) && is_input(&st))
    return diag_error(d, "%s: error: is one of this command's inputs; refusing to replace it", path);
  if (exists && S_ISDIR(st.st_mode)) return diag_error(d, "%s: error: is a directory", path);
  if (!(o->path = strdup(path))) return diag_error(d, "%s: error: out of memory", path);
  if (exists && !replace && !S_ISREG(st.st_mode)) {
    o->fd = open(path, O_WRONLY);
    if (o->fd >= 0) return 0;
    int rc = diag_error(d, "%s: error: cannot write: %s", path, strerror(errno));
    free(o->path);
    o->path = NULL;
    return rc;
  }
  remove_stale_temps(path);
  size_t n = strlen(path) + 40;
  if (!(o->tmp = malloc(n))) {
    free(o->path);
    o->path = NULL;
    return diag_error(d, "%s: error: out of memory", path);
  }
  // A fresh name beside the target (same file system, so rename() is atomic).
  for (int i = 0; i < 100 && o->fd < 0; i++) {
    snprintf(o->tmp, n, "%s.tmp%ld.%d", path, (long)getpid(), i);
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (o->fd < 0 && errno != EEXIST) break;
  }
  if (o->fd >= 0) return 0;
  int rc = diag_error(d, "%s: error: cannot create %s: %s", path, o->tmp, strerror(errno));
  free(o->tmp);
  free(o->path);
  *o = (FileOut){.fd = -1};
  return rc;
}

int file_out_open(FileOut *o, const char *path, int binary, Diag *d) { return out_open(o, path, binary, 0, d); }

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

static int is_stdout(const FileOut *o) { return o->fd == STDOUT_FILENO && !o->tmp && !strcmp(o->path, "-"); }

#ifdef __GLIBC__
static ssize_t stream_write(void *cookie, const char *buf, size_t n) {
  FileOut *o = cookie;
  if (!file_out_write(o, buf, n)) return (ssize_t)n;
  if (!o->err) o->err = errno;
  return 0;   // an error (fopencookie: never negative)
}
#endif

void *file_out_stream(FileOut *o, Diag *d) {
  if (o->stream) return o->stream;
  FILE *f = NULL;
  if (is_stdout(o)) {
    f = stdout;
  } else {
#ifdef __GLIBC__
    f = fopencookie(o, "w", (cookie_io_functions_t){.write = stream_write});
    if (f) setvbuf(f, NULL, _IOFBF, 1 << 16);
#else
    int fd = dup(o->fd);   // the stream closes its own descriptor
    if (fd >= 0 && !(f = fdopen(fd, "w"))) close(fd);
#endif
  }
  if (!f) diag_error(d, "%s: error: cannot open a stream: %s", o->path, strerror(errno));
  return o->stream = f;
}

int file_out_finish(FileOut *o, int ok, Diag *d) {
  int rc = 0;
  if (o->stream) {   // its buffer first
    FILE *f = o->stream;
    o->stream = NULL;
    errno = 0;
    int bad = fflush(f) != 0;
    int e = o->err ? o->err : errno;
    bad |= ferror(f);
    if (f == stdout) clearerr(f);   // reported here, not again by file_stdout_check
    else if (fclose(f)) bad = 1;
    if (bad && ok) rc = diag_error(d, "%s: error: cannot write: %s", o->path, e ? strerror(e) : "write error");
  }
  if (is_stdout(o)) {
    // stays open: file_stdout_check reports what fails later
  } else if (!o->tmp) {   // written in place
    if (close(o->fd) && ok && !rc) rc = diag_error(d, "%s: error: cannot close: %s", o->path, strerror(errno));
  } else {
    if (ok && !rc && fsync(o->fd)) rc = diag_error(d, "%s: error: cannot sync %s: %s", o->path, o->tmp, strerror(errno));
    if (close(o->fd) && ok && !rc) rc = diag_error(d, "%s: error: cannot close %s: %s", o->path, o->tmp, strerror(errno));
    if (!ok || rc) {
      unlink(o->tmp);
      free(o->tmp);
      o->tmp = NULL;
    }
  }
  o->fd = -1;
  return ok ? rc : -1;
}

int file_out_commit(FileOut *o, Diag *d) {
  int rc = 0;
  if (o->tmp && rename(o->tmp, o->path)) {
    rc = diag_error(d, "%s: error: cannot rename %s to it: %s", o->path, o->tmp, strerror(errno));
    unlink(o->tmp);
  }
  free(o->tmp);
  free(o->path);
  o->tmp = o->path = NULL;
  return rc;
}

void file_out_discard(FileOut *o) {
  if (o->tmp) unlink(o->tmp);
  free(o->tmp);
  free(o->path);
  o->tmp = o->path = NULL;
}

int file_out_close(FileOut *o, int ok, Diag *d) {
  int rc = file_out_finish(o, ok, d);
  if (ok && !rc) return file_out_commit(o, d);
  file_out_discard(o);
  return -1;
}

FileOut *file_set_open(FileOutSet *s, const char *path, Diag *d) {
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 8;
    FileOut *n = nc < SIZE_MAX / sizeof *n ? realloc(s->files, nc * sizeof *n) : NULL;
    if (!n) {
      diag_error(d, "%s: error: out of memory", path);
      return NULL;
    }
    s->files = n;
    s->cap = nc;
  }
  if (out_open(&s->files[s->n], path, 1, 1, d)) return NULL;
  return &s->files[s->n++];
}

int file_set_close(FileOutSet *s, int ok, Diag *d) {
  int rc = ok ? 0 : -1;
  for (size_t i = 0; i < s->n; i++) {
    if (!rc) rc = file_out_commit(&s->files[i], d);
    else file_out_discard(&s->files[i]);
  }
  free(s->files);
  *s = (FileOutSet){0};
  return rc;
}

int file_stdout_check(const char *tool) {
  errno = 0;
  int bad = fflush(stdout) != 0;
  int e = errno;
  if (!bad && !ferror(stdout)) return 0;
  fprintf(stderr, "%s: error: cannot write stdout: %s\n", tool, e ? strerror(e) : "write error");
  clearerr(stdout);   // reported once
  return 1;
}
int file_map(const char *path, uint8_t **out, size_t *len, Diag *d) {
  *out = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK);   // not blocking on a FIFO (refused below)
  if (fd < 0) return diag_error(d, "%s: error: cannot open: %s", path, strerror(errno));
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || (uintmax_t)st.st_size > SIZE_MAX) {
    rc = diag_error(d, "%s: error: not a non-empty regular file", path);
  } else {
    file_note_input(&st);
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
