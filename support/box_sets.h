/* The one maker of random box sets for the collision tests: seeded, described by a box_set_def (where the
 * centres lie, how large the boxes are, how they cluster, which special boxes are mixed in). */
#ifndef PF_SUPPORT_BOX_SETS_H
#define PF_SUPPORT_BOX_SETS_H

#include "physflow/collision.h"

#include <stddef.h>
#include <stdint.h>

typedef enum box_size_law {
    BOX_SIZE_UNIFORM, /* each half extent uniform in [half_min, half_max), axis by axis */
    BOX_SIZE_CUBE,    /* cubes, half extent uniform in [half_min, half_max) */
    BOX_SIZE_LOG,     /* polydisperse: a half extent log-uniform in [half_min, half_max), times 0.5 .. 1.5 per
                         axis */
} box_size_law;

enum { BOX_SET_MAX_CLUSTERS = 64 };

typedef struct box_set_def {
    size_t n;                  /* boxes */
    uint64_t seed;             /* of the splitmix64 generator (rng.h) */
    double lo[3], hi[3];       /* the centres lie in [lo, hi) (lo == hi on an axis: all on that plane) */
    double half_min, half_max; /* half extents, drawn by `law` */
    box_size_law law;
    int clusters; /* > 0: the centres lie within cluster_edge / 2 of that many random points */
    double cluster_edge;
    int flat; /* the z extents are 0 */
    /* Fractions of special boxes (their sum at most 1; the others are drawn as above): */
    double points;   /* zero-size boxes at the nodes of a lattice of `lattice` cells per axis: coincidences */
    double touching; /* whole cells of that lattice: neighbours touch exactly */
    double identical; /* one box, centred in [lo, hi) with half extent special_half */
    double huge;      /* centres as the regular boxes, half extent special_half */
    double slabs;     /* regular boxes with one axis (at random) of zero thickness */
    int lattice;      /* cells per axis of points and touching (0: 8) */
    double special_half;
} box_set_def;

/* Writes def->n boxes into out. */
void box_set_fill(pf_aabb *out, const box_set_def *def);
/* The boxes of def in a malloc'd array (free it), or NULL when out of memory. */
pf_aabb *box_set_create(const box_set_def *def);

/* b: the cube of half-edge `half` centred on (x, y, z). */
static inline void cube_box(pf_aabb *b, double x, double y, double z, double half)
{
    b->min[0] = x - half;
    b->min[1] = y - half;
    b->min[2] = z - half;
    b->max[0] = x + half;
    b->max[1] = y + half;
    b->max[2] = z + half;
}

#endif
