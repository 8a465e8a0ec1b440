// check.c: see check.h.
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

static int case_failures, any_failed;
static char first_msg[512];

void check_fail(const char *file, int line, const char *fmt, ...) {
  if (case_failures++ == 0) {
    int n = snprintf(first_msg, sizeof first_msg, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof first_msg) vsnprintf(first_msg + n, sizeof first_msg - (size_t)n, fmt, ap);
    va_end(ap);
  }
}

int check_case_failures(void) { return case_failures; }

void check_case(const char *name) {
  if (case_failures) {
    printf("FAIL %s: %s (%d failures)\n", name, first_msg, case_failures);
    any_failed = 1;
  } else {
    printf("PASS %s\n", name);
  }
  fflush(stdout);
  case_failures = 0;
}

int check_status(void) { return any_failed; }
