/* The host check (host_check.h): a dependent chain of floating-point operations per worker, no memory traffic, so
 * the only thing that can slow a worker down is not getting its core. */
#include "host_check.h"

#include "bench_util.h"

typedef struct kernel_run {
    long iterations;
    int alone; /* worker 0 alone */
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

static void kernel(void *ctx, int worker, int workers)
{
    (void)workers;
    kernel_run *k = ctx;
    if (k->alone && worker != 0) return;
    k->out[worker & 63].v = chain(k->iterations, 1.0 + worker);
}

/* Seconds for one run of the kernel on worker 0 alone or on every worker; < 0 when rt refused. */
static double timed(pf_runtime *rt, long iterations, int alone)
{
    kernel_run k = {.iterations = iterations, .alone = alone};
    double t0 = bench_now_s();
    if (pf_runtime_parallel(rt, kernel, &k) != PF_OK) return -1;
    return bench_now_s() - t0;
}

long host_check_calibrate(pf_runtime *rt, double ms)
{
    long n = 100000;
    double t = timed(rt, n, 1);
    for (int k = 0; k < 3 && t >= 0 && t < 2e-4; k++) t = timed(rt, n *= 10, 1); /* long enough to time */
    if (t <= 0) return 1000;
    double want = (double)n * ms * 1e-3 / t;
    return want < 1000 ? 1000 : (long)want;
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
