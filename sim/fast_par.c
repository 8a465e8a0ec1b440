// fast_par.c: the fast engine's second thread (fast_par.h). A job is published as one 64-bit word,
// its generation above the next unclaimed chunk; both threads claim chunks by compare-and-swap on
// it, so a worker that wakes late finds the generation moved on and claims nothing. A chunk
// claimed belongs to an unfinished job, so the job's fn and ctx are still the current ones when
// its claimer reads them. The worker polls for a while after each job (the next COMPUTE usually
// comes within microseconds) and then sleeps on a condition variable; the poster signals under
// the mutex, so a worker going to sleep cannot miss a job.
#include "fast_par.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SPIN_ROUNDS 5000  // polls (about 0.1-0.2 ms) before the worker sleeps or the caller yields

struct FastPar {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  _Atomic uint64_t job;      // generation << 32 | next unclaimed chunk
  atomic_uint finished;      // chunks of the current job done
  atomic_int quit;
  FastParFn *fn;             // the current job, written before its generation is published
  void *ctx;
  uint32_t n;
};

static void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Claims and runs chunks of generation gen while there are any. Returns the chunks it ran.
static uint32_t work(FastPar *p, uint32_t gen) {
  uint32_t ran = 0;
  uint64_t cur = atomic_load_explicit(&p->job, memory_order_acquire);
  for (;;) {
    if ((uint32_t)(cur >> 32) != gen) break;
    uint32_t k = (uint32_t)cur;
    // p->n is the current job's: the chunk is not claimed yet, so the job is not finished.
    if (k >= p->n) break;
    if (!atomic_compare_exchange_weak_explicit(&p->job, &cur, cur + 1, memory_order_acq_rel, memory_order_acquire))
      continue;
    p->fn(p->ctx, k);
    atomic_fetch_add_explicit(&p->finished, 1, memory_order_release);
    ran++;
    cur = atomic_load_explicit(&p->job, memory_order_acquire);
  }
  return ran;
}

static void *worker(void *arg) {
  FastPar *p = arg;
  uint32_t seen = 0;
  for (;;) {
    uint32_t gen;
    int spins = 0;
    while ((gen = (uint32_t)(atomic_load_explicit(&p->job, memory_order_acquire) >> 32)) == seen) {
      if (atomic_load_explicit(&p->quit, memory_order_acquire)) return NULL;
      if (++spins < SPIN_ROUNDS) {
        relax();
        continue;
      }
      pthread_mutex_lock(&p->mu);
      while ((uint32_t)(atomic_load_explicit(&p->job, memory_order_acquire) >> 32) == seen &&
             !atomic_load_explicit(&p->quit, memory_order_acquire))
        pthread_cond_wait(&p->cv, &p->mu);
      pthread_mutex_unlock(&p->mu);
      spins = 0;
    }
    seen = gen;
    work(p, gen);
  }
}

FastPar *fast_par_new(void) {
  FastPar *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (pthread_mutex_init(&p->mu, NULL)) goto fail_mu;
  if (pthread_cond_init(&p->cv, NULL)) goto fail_cv;
  if (pthread_create(&p->thread, NULL, worker, p)) goto fail_thread;
  return p;
fail_thread:
  pthread_cond_destroy(&p->cv);
fail_cv:
  pthread_mutex_destroy(&p->mu);
fail_mu:
  free(p);
  return NULL;
}

void fast_par_free(FastPar *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  atomic_store_explicit(&p->quit, 1, memory_order_release);
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
  pthread_join(p->thread, NULL);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

void fast_par_run(FastPar *p, FastParFn *fn, void *ctx, uint32_t n) {
  // The previous job is finished (this thread waited for it), so nobody reads these now.
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  atomic_store_explicit(&p->finished, 0, memory_order_relaxed);
  uint32_t gen = (uint32_t)(atomic_load_explicit(&p->job, memory_order_relaxed) >> 32) + 1;
  pthread_mutex_lock(&p->mu);
  atomic_store_explicit(&p->job, (uint64_t)gen << 32, memory_order_release);
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
  work(p, gen);
  for (int spins = 0; atomic_load_explicit(&p->finished, memory_order_acquire) != n;)
    if (++spins < SPIN_ROUNDS) relax();
    else sched_yield();   // the worker was descheduled in the middle of a chunk: let it finish
}
