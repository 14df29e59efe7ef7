/* Small helpers every benchmark uses: a monotonic clock, medians, executor lists (random inputs: support/rng.h). */
#ifndef PF_TOOLS_BENCH_UTIL_H
#define PF_TOOLS_BENCH_UTIL_H

#include "physflow/physics.h"
#include "physflow/runtime.h"

#include <stddef.h>
#include <stdint.h>

/* Seconds on the monotonic clock. */
double bench_now_s(void);
/* The median of v[0..n) (sorts v in place); 0 when n is 0. */
double bench_median(double *v, size_t n);

/* The ms that w's graph updates took in its latest step when pf_world_get_last_update's count moved past *count
 * (then updated, and the updates since added to *updates when not NULL); else 0. */
double bench_world_update_ms(const pf_world *w, uint32_t *count, long *updates);

/* Parses a comma-separated executor list for option `opt`; 0, or -1 with a message on stderr. */
int bench_parse_executors(const char *opt, const char *text, pf_executor *out, size_t cap, size_t *n);

#endif
