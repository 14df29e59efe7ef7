/* The host check (host_check.h): a dependent chain of floating-point operations per worker, no memory traffic,
 * cut into rounds that all the workers finish before any starts the next (a spinning barrier), as the workers
 * of a graph meet at its synchronisations. Only not getting a core, or getting it late, slows a round down. */
#include "host_check.h"

#include "bench_util.h"

#include <stdatomic.h>
#include <unistd.h>

#define ROUNDS 100 /* per check: on the order of a solver's synchronisations in a few steps */

typedef struct spin_barrier {
    _Atomic int count, generation;
} spin_barrier;

typedef struct kernel_run {
    long iterations; /* per round */
    int alone;       /* worker 0 alone, no barrier */
    spin_barrier barrier;
    struct {
        double v;
        char pad[56]; /* a cache line each: the workers' results share none */
    } out[64];
} kernel_run;

static double chain(long n, double x)
{
    for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9; /* each step waits for the previous one */
    return x;
}

static void barrier_wait(spin_barrier *b, int workers)
{
    int g = atomic_load_explicit(&b->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == workers - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->generation, 1, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&b->generation, memory_order_acquire) == g) {
    }
}

static void kernel(void *ctx, int worker, int workers)
{
    kernel_run *k = ctx;
    if (k->alone && worker != 0) return;
    double x = 1.0 + worker;
    for (int r = 0; r < ROUNDS; r++) {
        x = chain(k->iterations, x);
        if (!k->alone) barrier_wait(&k->barrier, workers);
    }
    k->out[worker & 63].v = x;
}

/* Seconds for the rounds on worker 0 alone or on every worker; < 0 when rt refused. */
static double timed(pf_runtime *rt, long iterations, int alone)
{
    kernel_run k = {.iterations = iterations, .alone = alone};
    double t0 = bench_now_s();
    if (pf_runtime_parallel(rt, kernel, &k) != PF_OK) return -1;
    return bench_now_s() - t0;
}

long host_check_calibrate(pf_runtime *rt, double ms)
{
    long n = 1000;
    double t = timed(rt, n, 1);
    for (int k = 0; k < 3 && t >= 0 && t < 2e-4; k++) t = timed(rt, n *= 10, 1); /* long enough to time */
    if (t <= 0) return 10;
    double want = (double)n * ms * 1e-3 / t;
    return want < 10 ? 10 : (long)want;
}

double host_check(pf_runtime *rt, long iterations)
{
    if (pf_runtime_workers(rt) < 2) return 1;
    double one = 0, all[3];
    for (int k = 0; k < 3; k++) {
        double t = timed(rt, iterations, 1);
        all[k] = timed(rt, iterations, 0);
        if (t < 0 || all[k] <= 0) return 0;
        if (k == 0 || t < one) one = t; /* one worker undisturbed: the least of its times */
    }
    return one / bench_median(all, 3);
}

enum { ROUND_TRIPS = 20000 };
#define ROUND_TRIPS_S 0.25 /* a run given up after this long: two threads that share one core (unbound, or the
                            * machine busy) pass the line once a time slice, and 20,000 of those take minutes */

typedef struct pingpong_run {
    _Alignas(64) _Atomic long flag; /* odd: worker 0's turn given to worker 1; even: the answer; -1: given up */
    double seconds;                 /* < 0 when given up */
} pingpong_run;

static void pingpong(void *ctx, int worker, int workers)
{
    (void)workers;
    pingpong_run *p = ctx;
    if (worker == 0) {
        double t0 = bench_now_s();
        for (long i = 0; i < ROUND_TRIPS; i++) {
            atomic_store_explicit(&p->flag, 2 * i + 1, memory_order_release);
            for (long spins = 1; atomic_load_explicit(&p->flag, memory_order_acquire) != 2 * i + 2; spins++)
                if (spins % 4096 == 0 && bench_now_s() - t0 > ROUND_TRIPS_S) {
                    atomic_store_explicit(&p->flag, -1, memory_order_release);
                    p->seconds = -1;
                    return;
                }
        }
        p->seconds = bench_now_s() - t0;
    } else if (worker == 1) {
        for (long i = 0; i < ROUND_TRIPS; i++) {
            long v;
            while ((v = atomic_load_explicit(&p->flag, memory_order_acquire)) != 2 * i + 1)
                if (v < 0) return;
            atomic_store_explicit(&p->flag, 2 * i + 2, memory_order_release);
        }
    }
}

double host_round_trip_ns(int bind)
{
    pf_runtime_def d = pf_runtime_default_def();
    d.workers = 2;
    d.bind = bind;
    d.bind_caller = 1;
    d.quiet = 1;
    pf_runtime *rt;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || pf_runtime_create(&d, &rt) != PF_OK) return 0;
    double ns[5];
    int k = 0, runs = 0;
    for (; runs < 5; runs++) {
        pingpong_run p = {.seconds = 0};
        atomic_init(&p.flag, 0);
        if (pf_runtime_parallel(rt, pingpong, &p) != PF_OK) break;
        if (p.seconds > 0) ns[k++] = p.seconds * 1e9 / ROUND_TRIPS;
    }
    pf_runtime_destroy(rt);
    return k >= 3 ? bench_median(ns, (size_t)k) : 0; /* most runs given up: no figure */
}
