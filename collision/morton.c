/* The quantiser of paper 000 §5.2: the root cell of a set of boxes (see morton.h). */
#include "morton.h"

#include <math.h>

void pf_quantiser_fit(pf_quantiser *q, const pf_aabb *boxes, size_t n, int threads)
{
    double lo0 = boxes[0].min[0], lo1 = boxes[0].min[1], lo2 = boxes[0].min[2];
    double hi0 = boxes[0].max[0], hi1 = boxes[0].max[1], hi2 = boxes[0].max[2];
    /* min / max reductions are exact: the result does not depend on the thread count */
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 65536) \
    reduction(min : lo0, lo1, lo2) reduction(max : hi0, hi1, hi2)
    for (size_t i = 0; i < n; i++) {
        const pf_aabb *b = &boxes[i];
        lo0 = b->min[0] < lo0 ? b->min[0] : lo0;
        lo1 = b->min[1] < lo1 ? b->min[1] : lo1;
        lo2 = b->min[2] < lo2 ? b->min[2] : lo2;
        hi0 = b->max[0] > hi0 ? b->max[0] : hi0;
        hi1 = b->max[1] > hi1 ? b->max[1] : hi1;
        hi2 = b->max[2] > hi2 ? b->max[2] : hi2;
    }
    q->origin[0] = lo0;
    q->origin[1] = lo1;
    q->origin[2] = lo2;
    /* half extents: hi - lo overflows for boxes spread over more than DBL_MAX */
    double e = hi0 / 2 - lo0 / 2;
    if (hi1 / 2 - lo1 / 2 > e) e = hi1 / 2 - lo1 / 2;
    if (hi2 / 2 - lo2 / 2 > e) e = hi2 / 2 - lo2 / 2;
    double s = e > 0.0 ? (double)(1u << (PF_MORTON_BITS - 1)) / e : 0.0;
    q->scale = isfinite(s) ? s : 0.0;
}
