// archfind.h: an arch given by a shipped name ("tiny") as well as by a file. A bare name (no '/',
// no ".json", not an existing file) is NAME.json in the arch directory beside the tool:
// share/sacc/arch in an installed tree (PREFIX/bin/TOOL), workloads/arch in a source tree
// (BUILD/bin/TOOL), as sweep specs resolve names (scripts/sweep).
#ifndef SA_ARCHFIND_H
#define SA_ARCHFIND_H

#include "arch.h"
#include "diag.h"

// Loads the arch spec names: a file (arch_load_file), or a shipped arch by name. An unknown name
// is an error listing the shipped names.
int arch_load_named(const char *spec, Arch *a, Diag *d);
// Loads the shipped arch called name (the assembler's `.arch tiny`), whatever the current
// directory holds; an unknown name is an error listing the shipped names.
int arch_load_shipped(const char *name, Arch *a, Diag *d);

#endif
