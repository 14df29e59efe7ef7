/* How the broad phases run their parallel parts: through the def's runner (a runtime's worker team) or on
 * OpenMP threads, and the split of work into chunks that the output order may depend on. */
#ifndef PF_COLLISION_PARALLEL_H
#define PF_COLLISION_PARALLEL_H

#include "physflow/collision.h"

#include <stddef.h>

typedef struct pf_par {
    pf_parallel_runner run; /* NULL: OpenMP */
    void *run_ctx;
    int workers; /* OpenMP threads, or the runner's worker count (the last seen) */
    int *seen;   /* where a run through the runner records its worker count; may be NULL */
} pf_par;

/* The def's way of running (broadphase.c has put the runner's worker count in def->threads). */
static inline pf_par pf_par_of(const pf_broadphase_def *def)
{
    pf_par p = {def->parallel, def->parallel_ctx, def->threads, NULL};
    return p;
}

/* Runs fn(ctx, worker, workers) on up to `threads` workers (OpenMP) or on the runner's workers, and returns when
 * all have returned; on the calling thread alone (fn(ctx, 0, 1)) when threads <= 1, par is NULL, or the runner
 * refuses. fn must cover its work for any (worker, workers): the runner's count need not be `threads`. */
void pf_par_run(const pf_par *par, int threads, void (*fn)(void *ctx, int worker, int workers), void *ctx);

/* Runs part(ctx, k, parts) for every k in [0, parts), each part taken by the next free worker (a late worker's
 * parts go to the others); on the calling thread when parts <= 1. A part must not depend on which worker runs it.
 * Parts may outnumber the workers (at most par->workers OpenMP threads run them). */
void pf_par_for(const pf_par *par, int parts, void (*part)(void *ctx, int k, int parts), void *ctx);

/* The worker's contiguous static range of [0, n): worker k of `workers` gets [*lo, *hi). */
static inline void pf_par_range(size_t n, int worker, int workers, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)worker / (size_t)workers;
    *hi = n * (size_t)(worker + 1) / (size_t)workers;
}

#endif
