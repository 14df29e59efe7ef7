/* The quantiser of Poirrier 2009, §5.2: the root cell of a set of boxes (see morton.h). */
#include "morton.h"

#include <math.h>

void pf_boxes_bounds(const pf_aabb *boxes, size_t n, int threads, double lo[3], double hi[3])
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
    lo[0] = lo0;
    lo[1] = lo1;
    lo[2] = lo2;
    hi[0] = hi0;
    hi[1] = hi1;
    hi[2] = hi2;
}

void pf_quantiser_fit(pf_quantiser *q, const pf_aabb *boxes, size_t n, int threads)
{
    double lo[3], hi[3];
    pf_boxes_bounds(boxes, n, threads, lo, hi);
    pf_quantiser_from_bounds(q, lo, hi);
}

void pf_quantiser_from_bounds(pf_quantiser *q, const double lo[3], const double hi[3])
{
    for (int a = 0; a < 3; a++) q->origin[a] = lo[a];
    /* half extents: hi - lo overflows for boxes spread over more than DBL_MAX */
    double e = hi[0] / 2 - lo[0] / 2;
    if (hi[1] / 2 - lo[1] / 2 > e) e = hi[1] / 2 - lo[1] / 2;
    if (hi[2] / 2 - lo[2] / 2 > e) e = hi[2] / 2 - lo[2] / 2;
    double s = e > 0.0 ? (double)(1u << (PF_MORTON_BITS - 1)) / e : 0.0;
    q->scale = isfinite(s) ? s : 0.0;
}
