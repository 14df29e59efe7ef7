/* Built-in reducers for cumulative writes. */
#include "physflow/runtime.h"

#include <string.h>

static void sum_f64_init(void *buf, size_t size, void *ctx)
{
    (void)ctx;
    memset(buf, 0, size); /* all-zero bits is +0.0 */
}

static void sum_f64_combine(void *dst, const void *src, size_t size, void *ctx)
{
    (void)ctx;
    double *d = dst;
    const double *s = src;
    size_t n = size / sizeof(double);
    for (size_t i = 0; i < n; i++) d[i] += s[i];
}

pf_reducer pf_reducer_sum_f64(void)
{
    return (pf_reducer){sum_f64_init, sum_f64_combine, NULL};
}
