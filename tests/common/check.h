// check.h: the smallest test harness. A test binary groups CHECKs into cases; each case prints
// "PASS <name>" or "FAIL <name>: <first failure>", which tests/run.sh counts.
#ifndef SA_CHECK_H
#define SA_CHECK_H

void check_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// Ends the current case: prints its PASS/FAIL line and resets the failure count.
void check_case(const char *name);
// Exit status for main(): 1 if any case failed.
int check_status(void);
// Failures recorded in the current case so far.
int check_case_failures(void);

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) check_fail(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

#endif
