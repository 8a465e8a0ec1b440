// view.h: `sasim run --view FILE.html`, the array in a browser (docs/VIEW.md). An array observer
// (array_snap.h) records each active cycle of the window as compact JSON; after the run,
// view_write puts it, with the instructions' times for the timeline, into one self-contained
// HTML page (the template sim/view_page.html: inline CSS and JavaScript, nothing fetched).
#ifndef SA_VIEW_H
#define SA_VIEW_H

#include <stdint.h>

#include "array_snap.h"
#include "sim.h"

// The cap on the recorded cycles' data: past it the view stops recording, says so on stderr and
// in the page, and keeps what it has (the file stays a little above this size).
#define VIEW_MAX_MB 32

typedef struct View View;

// A view of the cycles [from, to) (to 0: to the end of the run), recording at most max_bytes of
// cycle data. NULL on out of memory.
View *view_new(uint64_t from, uint64_t to, uint64_t max_bytes);
void view_free(View *v);
ArrayObserver *view_observer(View *v);
// After the run of s: writes the page to path (atomically: fileio.h), titled with label. A capped
// view warns on stderr. 0, or -1 with a message in d.
int view_write(View *v, const char *path, const Sim *s, const char *label, Diag *d);

#endif
