/* Private helpers shared by the narrow-phase files: small double-precision vector operations and the filling of
 * a pf_contact from a distance and a normal. */
#ifndef PF_COLLISION_NARROW_PROXIMITY_H
#define PF_COLLISION_NARROW_PROXIMITY_H

#include "physflow/narrowphase.h"

#include <math.h>

static inline void pf_v3_sub(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}

static inline double pf_v3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void pf_v3_cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* r = a + s * d */
static inline void pf_v3_madd(double r[3], const double a[3], double s, const double d[3])
{
    r[0] = a[0] + s * d[0];
    r[1] = a[1] + s * d[1];
    r[2] = a[2] + s * d[2];
}

/* Fills a contact between a sphere-like feature A (centre ca, radius ra) and a feature B whose closest point to
 * A's centre is cb grown by rb along the unit normal n (from B to A); `gap` is |ca - cb| - ra - rb. */
static inline void pf_contact_fill(pf_contact *out, const pf_proximity_def *def, const double ca[3], double ra,
                                   const double cb[3], double rb, const double n[3], double gap, uint32_t object_a,
                                   uint32_t element_a, uint32_t object_b, uint32_t element_b)
{
    for (int k = 0; k < 3; k++) {
        out->normal[k] = n[k];
        out->point_a[k] = ca[k] - ra * n[k];
        out->point_b[k] = cb[k] + rb * n[k];
    }
    out->distance = gap;
    out->depth = def->contact_distance - gap;
    out->object_a = object_a;
    out->object_b = object_b;
    out->element_a = element_a;
    out->element_b = element_b;
}

/* Unchecked kernels (arguments already validated), shared by the single and batch entry points.
 * Each returns 1 with *out filled when the gap is below the alarm distance, else 0. */
int pf_narrow_sphere_sphere_kernel(const pf_proximity_def *def, const pf_sphere *a, const pf_sphere *b,
                                   pf_contact *out);
int pf_narrow_ball_triangle_kernel(const pf_proximity_def *def, const double c[3], double r, uint32_t object,
                                   uint32_t element, const pf_triangle *t, pf_contact *out);

#endif
