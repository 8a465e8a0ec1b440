// names.c: see names.h.
#include "names.h"

#include <stdio.h>

const char *name_escape(const char *name, char *out, size_t cap) {
  size_t n = 0;
  if (!cap) return out;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
    int plain = *c >= 0x20 && *c < 0x7f && *c != '\\';
    if (n + (plain ? 1 : 4) >= cap) break;
    if (plain)
      out[n++] = (char)*c;
    else
      n += (size_t)snprintf(out + n, 5, "\\x%02x", *c);
  }
  out[n] = 0;
  return out;
}
