// archfind.c: `--arch tiny`: a shipped arch found by name beside the tool (see archfind.h).
#include "archfind.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// The arch directories beside the running tool, most specific first: an installed tree's, then a
// source tree's. Linux only (/proc/self/exe); elsewhere there are none and names are not found.
static int arch_dirs(char dirs[2][4200]) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 0;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return 0;
  *slash = 0;   // self: the tool's directory (PREFIX/bin or BUILD/bin)
  snprintf(dirs[0], sizeof dirs[0], "%s/../share/sacc/arch", self);
  snprintf(dirs[1], sizeof dirs[1], "%s/../../workloads/arch", self);
  return 2;
}

static int is_dir(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int by_name(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

// "default, large, small, tiny" (the NAME.json files of dir, sorted) into out.
static void list_names(const char *dir, char *out, size_t size) {
  out[0] = 0;
  DIR *dp = opendir(dir);
  if (!dp) return;
  char *names[64];
  size_t k = 0;
  for (struct dirent *e; (e = readdir(dp)) != NULL && k < 64;) {
    size_t len = strlen(e->d_name);
    if (len > 5 && e->d_name[0] != '.' && !strcmp(e->d_name + len - 5, ".json"))
      if ((names[k] = strndup(e->d_name, len - 5)) != NULL) k++;
  }
  closedir(dp);
  qsort(names, k, sizeof names[0], by_name);
  size_t used = 0;
  for (size_t i = 0; i < k; i++) {
    int w = snprintf(out + used, size - used, "%s%s", i ? ", " : "", names[i]);
    if (w > 0 && (size_t)w < size - used) used += (size_t)w;
    free(names[i]);
  }
}

static int is_bare_name(const char *spec) {
  size_t len = strlen(spec);
  if (!len || !strcmp(spec, "-") || strchr(spec, '/')) return 0;
  if (len >= 5 && !strcmp(spec + len - 5, ".json")) return 0;
  return access(spec, F_OK) != 0;   // a file of that name in the current directory stays a file
}

// NAME.json of the first arch directory beside the tool; else "NAME: error: WHAT (shipped: ...)".
static int load_shipped(const char *name, const char *what, Arch *a, Diag *d) {
  char dirs[2][4200];
  int n = strchr(name, '/') ? 0 : arch_dirs(dirs);
  for (int i = 0; i < n; i++) {
    if (!is_dir(dirs[i])) continue;
    char path[4400];
    int w = snprintf(path, sizeof path, "%s/%s.json", dirs[i], name);
    if (w > 0 && (size_t)w < sizeof path && !access(path, F_OK)) return arch_load_file(path, a, d);
    char names[1024];
    list_names(dirs[i], names, sizeof names);
    return diag_error(d, "%s: error: %s (shipped: %s)", name, what, names[0] ? names : "none");
  }
  return diag_error(d, "%s: error: %s, and no shipped arches were found beside the tool", name, what);
}

int arch_load_shipped(const char *name, Arch *a, Diag *d) { return load_shipped(name, "not a shipped arch", a, d); }

int arch_load_named(const char *spec, Arch *a, Diag *d) {
  if (!is_bare_name(spec)) return arch_load_file(spec, a, d);
  return load_shipped(spec, "no such file, nor a shipped arch", a, d);
}
