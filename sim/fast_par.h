// fast_par.h: a second thread for the fast engine's bulk kernel. The sums of a COMPUTE's columns
// are independent (each array column writes its own accumulator column), so a job's chunks (pairs
// of columns) are shared between the calling thread and one worker; the values are the same as
// with one thread, and the timing, computed by the caller alone, does not depend on them (issue 15:
// "the value computation may use both cores while timing stays exact").
#ifndef SA_FAST_PAR_H
#define SA_FAST_PAR_H

#include <stdint.h>

typedef struct FastPar FastPar;

// Work on chunk k of whatever ctx describes.
typedef void FastParFn(void *ctx, uint32_t k);

// Starts the worker thread. NULL when it cannot be started (the caller then works alone).
FastPar *fast_par_new(void);
// Stops and joins the worker.
void fast_par_free(FastPar *p);
// fn(ctx, k) for every k < n, each exactly once, on this thread and the worker; returns when all
// are done. The caller never waits for the worker to start: chunks the worker has not claimed it
// takes itself (on a loaded machine the worker may not run at all), so it waits at most for the
// chunks the worker is in the middle of.
void fast_par_run(FastPar *p, FastParFn *fn, void *ctx, uint32_t n);

#endif
