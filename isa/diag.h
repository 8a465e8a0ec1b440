// diag.h: the error sink every parser and loader reports into (after SQLite's Parse.zErrMsg).
// diag_error() records a message and returns -1, so callers write `return diag_error(d, ...)`.
// Nothing below main() prints or exits: main() decides what to show and the exit status.
#ifndef SA_DIAG_H
#define SA_DIAG_H

#include <stdarg.h>

#define DIAG_MAX_MSGS 16

typedef struct Diag {
  int count;                        // errors recorded (may exceed DIAG_MAX_MSGS)
  char msg[DIAG_MAX_MSGS][512];     // the first messages, in order
} Diag;

void diag_init(Diag *d);
// Records "<fmt>" verbatim (callers put "file:line:col: error: ..." in it). Returns -1.
int diag_error(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int diag_verror(Diag *d, const char *fmt, va_list ap);
// Writes every recorded message, one per line, to stderr.
void diag_print(const Diag *d);
// The first message, or "" when none.
const char *diag_first(const Diag *d);

#endif
