/* The quantiser of Poirrier 2009, §5.2: the root cell of a set of boxes (see morton.h). */
#include "morton.h"

#include <math.h>

typedef struct bounds_run {
    const pf_aabb *boxes;
    size_t n;
    double lo[64][3], hi[64][3]; /* per part */
} bounds_run;

static void bounds_part(void *ctx, int k, int parts)
{
    bounds_run *r = ctx;
    const pf_aabb *boxes = r->boxes;
    size_t i0, i1;
    pf_par_range(r->n, k, parts, &i0, &i1);
    double lo0 = boxes[i0].min[0], lo1 = boxes[i0].min[1], lo2 = boxes[i0].min[2];
    double hi0 = boxes[i0].max[0], hi1 = boxes[i0].max[1], hi2 = boxes[i0].max[2];
    for (size_t i = i0; i < i1; i++) {
        const pf_aabb *b = &boxes[i];
        lo0 = b->min[0] < lo0 ? b->min[0] : lo0;
        lo1 = b->min[1] < lo1 ? b->min[1] : lo1;
        lo2 = b->min[2] < lo2 ? b->min[2] : lo2;
        hi0 = b->max[0] > hi0 ? b->max[0] : hi0;
        hi1 = b->max[1] > hi1 ? b->max[1] : hi1;
        hi2 = b->max[2] > hi2 ? b->max[2] : hi2;
    }
    r->lo[k][0] = lo0, r->lo[k][1] = lo1, r->lo[k][2] = lo2;
    r->hi[k][0] = hi0, r->hi[k][1] = hi1, r->hi[k][2] = hi2;
}

void pf_boxes_bounds(const pf_aabb *boxes, size_t n, const pf_par *par, double lo[3], double hi[3])
{
    /* min / max are exact: the result does not depend on the parts (each non-empty: n >= parts) */
    bounds_run r;
    r.boxes = boxes;
    r.n = n;
    int parts = n > 65536 && par ? par->workers : 1;
    if (parts > 64) parts = 64;
    pf_par_for(par, parts, bounds_part, &r);
    for (int a = 0; a < 3; a++) {
        lo[a] = r.lo[0][a];
        hi[a] = r.hi[0][a];
        for (int k = 1; k < parts; k++) {
            lo[a] = r.lo[k][a] < lo[a] ? r.lo[k][a] : lo[a];
            hi[a] = r.hi[k][a] > hi[a] ? r.hi[k][a] : hi[a];
        }
    }
}

void pf_quantiser_fit(pf_quantiser *q, const pf_aabb *boxes, size_t n, const pf_par *par)
{
    double lo[3], hi[3];
    pf_boxes_bounds(boxes, n, par, lo, hi);
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
