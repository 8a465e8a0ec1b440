// diag.c: records error messages for the caller; see diag.h.
#include "diag.h"

#include <stdio.h>
#include <string.h>

void diag_init(Diag *d) { memset(d, 0, sizeof *d); }

int diag_verror(Diag *d, const char *fmt, va_list ap) {
  if (d) {
    if (d->count < DIAG_MAX_MSGS) vsnprintf(d->msg[d->count], sizeof d->msg[0], fmt, ap);
    d->count++;
  }
  return -1;
}

int diag_error(Diag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, fmt, ap);
  va_end(ap);
  return -1;
}

void diag_print(const Diag *d) {
  int n = d->count < DIAG_MAX_MSGS ? d->count : DIAG_MAX_MSGS;
  for (int i = 0; i < n; i++) fprintf(stderr, "%s\n", d->msg[i]);
  if (d->count > n) fprintf(stderr, "(%d more errors)\n", d->count - n);
}

const char *diag_first(const Diag *d) { return d->count ? d->msg[0] : ""; }
