/* Helpers shared by the benchmarks (see bench_util.h). */
#include "bench_util.h"

#include "cli_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_parse_executors(const char *opt, const char *text, pf_executor *out, size_t cap, size_t *n)
{
    char buf[256], *names[16];
    if (cli_str_list(opt, text, buf, sizeof buf, names, cap < 16 ? cap : 16, n)) return -1;
    for (size_t k = 0; k < *n; k++)
        if (pf_executor_parse(names[k], &out[k])) {
            fprintf(stderr, "physflow: %s: %s\n", opt, pf_last_error());
            return -1;
        }
    return 0;
}

double bench_world_update_ms(const pf_world *w, uint32_t *count, long *updates)
{
    pf_world_update u;
    uint32_t now = 0;
    if (pf_world_get_last_update(w, &u, &now) != PF_OK || now == *count) return 0;
    if (updates) *updates += now - *count;
    *count = now;
    return u.ms_record + u.ms_runtime;
}
