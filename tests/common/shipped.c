// shipped.c: see shipped.h.
#include "shipped.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "../../isa/asm.h"
#include "check.h"

int shipped_each_program(void (*fn)(Program *p, const char *path, void *ctx), void *ctx) {
  DIR *dir = opendir("workloads/asm");
  if (!dir) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir))) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".s")) continue;
    char path[512];
    snprintf(path, sizeof path, "workloads/asm/%s", e->d_name);
    Diag d;
    diag_init(&d);
    Program *p = NULL;
    if (asm_assemble_file(path, &p, &d)) {
      CHECK(0, "%s: %s", path, diag_first(&d));
      continue;
    }
    fn(p, path, ctx);
    prog_free(p);
    n++;
  }
  closedir(dir);
  return n;
}
