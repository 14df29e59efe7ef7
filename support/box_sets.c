/* The random box sets of the collision tests (see box_sets.h). */
#include "box_sets.h"

#include "rng.h"

#include <math.h>
#include <stdlib.h>

static double lattice_at(const box_set_def *d, int a, uint32_t j, int cells)
{
    return d->lo[a] + (d->hi[a] - d->lo[a]) * (double)j / (double)cells;
}

void box_set_fill(pf_aabb *out, const box_set_def *d)
{
    rng r = {d->seed};
    int cells = d->lattice > 0 ? d->lattice : 8;
    int nclusters = d->clusters < BOX_SET_MAX_CLUSTERS ? d->clusters : BOX_SET_MAX_CLUSTERS;
    double centre[BOX_SET_MAX_CLUSTERS][3];
    for (int c = 0; c < nclusters; c++)
        for (int a = 0; a < 3; a++)
            centre[c][a] = rng_range(&r, d->lo[a], d->hi[a]);
    double t_points = d->points, t_touch = t_points + d->touching, t_ident = t_touch + d->identical,
           t_huge = t_ident + d->huge, t_slab = t_huge + d->slabs;
    for (size_t i = 0; i < d->n; i++) {
        pf_aabb *b = &out[i];
        double u = urand(&r), c[3], h[3];
        if (u < t_touch) { /* on the lattice: exact corners, so equal coordinates are equal doubles */
            uint32_t j[3];
            for (int a = 0; a < 3; a++)
                j[a] = rng_below(&r, (uint32_t)cells + (u < t_points));
            for (int a = 0; a < 3; a++) {
                b->min[a] = lattice_at(d, a, j[a], cells);
                b->max[a] = u < t_points ? b->min[a] : lattice_at(d, a, j[a] + 1, cells);
            }
            if (d->flat) b->max[2] = b->min[2];
            continue;
        }
        if (u < t_ident) {
            for (int a = 0; a < 3; a++)
                c[a] = 0.5 * (d->lo[a] + d->hi[a]), h[a] = d->special_half;
        } else {
            int k = nclusters > 0 ? (int)rng_below(&r, (uint32_t)nclusters) : -1;
            for (int a = 0; a < 3; a++)
                c[a] = k < 0 ? rng_range(&r, d->lo[a], d->hi[a])
                             : centre[k][a] + d->cluster_edge * (urand(&r) - 0.5);
            if (u < t_huge) {
                for (int a = 0; a < 3; a++)
                    h[a] = d->special_half;
            } else if (d->law == BOX_SIZE_LOG) {
                double s = d->half_min * pow(d->half_max / d->half_min, urand(&r));
                for (int a = 0; a < 3; a++)
                    h[a] = s * (0.5 + urand(&r));
            } else {
                for (int a = 0; a < 3; a++)
                    h[a] = a > 0 && d->law == BOX_SIZE_CUBE ? h[0] : rng_range(&r, d->half_min, d->half_max);
            }
            if (u >= t_huge && u < t_slab) h[rng_below(&r, 3)] = 0;
        }
        if (d->flat) h[2] = 0;
        for (int a = 0; a < 3; a++)
            b->min[a] = c[a] - h[a], b->max[a] = c[a] + h[a];
    }
}

pf_aabb *box_set_create(const box_set_def *d)
{
    pf_aabb *b = malloc((d->n ? d->n : 1) * sizeof *b);
    if (b) box_set_fill(b, d);
    return b;
}
