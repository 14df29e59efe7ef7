/* Small helpers every benchmark uses: a monotonic clock, medians, executor lists (random inputs: support/rng.h). */
#ifndef PF_TOOLS_BENCH_UTIL_H
#define PF_TOOLS_BENCH_UTIL_H

#include "physflow/runtime.h"

#include <stddef.h>
#include <stdint.h>

/* Seconds on the monotonic clock. */
double bench_now_s(void);
/* The median of v[0..n) (sorts v in place); 0 when n is 0. */
double bench_median(double *v, size_t n);

/* Parses a comma-separated executor list for option `opt`; 0, or -1 with a message on stderr. */
int bench_parse_executors(const char *opt, const char *text, pf_executor *out, size_t cap, size_t *n);

#endif
