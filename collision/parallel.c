/* The broad phases' parallel parts on a runner or on OpenMP threads (see parallel.h). */
#include "parallel.h"

#include <omp.h>
#include <stdatomic.h>

typedef struct seen_run {
    void (*fn)(void *ctx, int worker, int workers);
    void *ctx;
    int *seen;
} seen_run;

/* Records the runner's worker count (worker 0 runs on the caller's thread), so that the next parts are cut for
 * it. */
static void seen_worker(void *ctx, int worker, int workers)
{
    const seen_run *r = ctx;
    if (worker == 0) *r->seen = workers;
    r->fn(r->ctx, worker, workers);
}

void pf_par_run(const pf_par *par, int threads, void (*fn)(void *ctx, int worker, int workers), void *ctx)
{
    if (!par || threads <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    if (par->run) {
        int rc;
        if (par->seen) {
            seen_run r = {fn, ctx, par->seen};
            rc = par->run(par->run_ctx, seen_worker, &r);
        } else {
            rc = par->run(par->run_ctx, fn, ctx);
        }
        if (rc) fn(ctx, 0, 1); /* refused (a graph runs): the work is the caller's */
        return;
    }
#pragma omp parallel num_threads(threads)
    fn(ctx, omp_get_thread_num(), omp_get_num_threads());
}

typedef struct for_run {
    void (*part)(void *ctx, int k, int parts);
    void *ctx;
    int parts;
    _Atomic int next;
} for_run;

/* The parts are taken in turn by whichever worker is free: on a machine with more runnable threads than cores a
 * worker may start late (descheduled, or woken from its futex), and the others then do its parts rather than wait
 * for it at the run's end (a fixed share per worker made the caller wait). Each part writes its own results, so
 * which worker ran it never shows. */
static void for_worker(void *ctx, int worker, int workers)
{
    (void)worker, (void)workers;
    for_run *r = ctx;
    for (int k; (k = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed)) < r->parts;)
        r->part(r->ctx, k, r->parts);
}

void pf_par_for(const pf_par *par, int parts, void (*part)(void *ctx, int k, int parts), void *ctx)
{
    for_run r = {part, ctx, parts, 0};
    /* more parts than workers (finer parts, so that a late worker's share is small): no more OpenMP threads */
    int threads = par && par->workers >= 1 && parts > par->workers ? par->workers : parts;
    pf_par_run(par, threads, for_worker, &r);
}
