// names.h: names from a file (tensors, layers, arches) shown on a terminal or in a report.
// A name may hold any bytes but NUL; printed raw, an ESC, a carriage return or a newline in it
// could rewrite the screen or forge a line of the tool's output ("output x: ... crc32 ...").
#ifndef SA_NAMES_H
#define SA_NAMES_H

#include <stddef.h>

// name as printable ASCII: every other byte, and the backslash, becomes \xNN (as the layer names
// of sasim's reports). Writes at most cap bytes with the NUL (4 * strlen + 1 holds it all; a
// longer name is cut at a whole character) and returns out.
const char *name_escape(const char *name, char *out, size_t cap);

#endif
