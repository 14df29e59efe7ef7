/* Points held along some directions only (SOFA FixedPlaneProjectiveConstraint, PartialFixedProjectiveConstraint,
 * LineProjectiveConstraint): a point may not move along its held directions, and moves freely across them. Like
 * fixed points, they are projective: every solver removes those components from its velocities, right-hand sides
 * and matrix products (pf_project_directions), so the point's motion stays in the free subspace. On a rigid body
 * point 0 is its com and point 1 its rotation: a direction held there holds the rotation about that axis (SOFA
 * FixedRotationProjectiveConstraint, rigid.c). */
#include "world_guard.h"
#include "objects.h"
#include "rigid.h"

#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

/* p (one point's 3 values) -= its component along h's direction */
static void project_held(const pf_held_direction *h, double *p)
{
    double s = p[0] * h->d[0] + p[1] * h->d[1] + p[2] * h->d[2];
    p[0] -= s * h->d[0];
    p[1] -= s * h->d[1];
    p[2] -= s * h->d[2];
}

void pf_project_directions(const pf_object *o, double *vec)
{
    for (size_t k = 0; k < o->held.n; k++) project_held(&o->held.v[k], vec + 3 * (size_t)o->held.v[k].point);
}

void pf_project_point_directions(const pf_object *o, uint32_t point, double *vec)
{
    size_t lo = 0, hi = o->held.n; /* the first entry of `point` (entries sorted by point) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->held.v[mid].point < point) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo; k < o->held.n && o->held.v[k].point == point; k++)
        project_held(&o->held.v[k], vec + 3 * (size_t)point);
}

/* the held directions of point p: [*first, *first + *count) in o->held (sorted by point) */
static void point_range(const pf_object *o, uint32_t p, size_t *first, size_t *count)
{
    size_t k = 0;
    while (k < o->held.n && o->held.v[k].point < p) k++;
    *first = k;
    while (k < o->held.n && o->held.v[k].point == p) k++;
    *count = k - *first;
}

/* Holds point p along unit direction d: d's part orthogonal to the point's held directions joins them; a third
 * makes the point fixed. */
static int hold(pf_world *w, pf_object *o, uint32_t p, const double d[3])
{
    if (o->fixed[p]) return PF_OK;
    size_t first, count;
    point_range(o, p, &first, &count);
    double u[3] = {d[0], d[1], d[2]};
    for (size_t k = first; k < first + count; k++) { /* Gram-Schmidt against the ones held */
        const double *e = o->held.v[k].d;
        double s = u[0] * e[0] + u[1] * e[1] + u[2] * e[2];
        for (int a = 0; a < 3; a++) u[a] -= s * e[a];
    }
    double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (len < 1e-9) return PF_OK; /* already held along d */
    if (count == 2) { /* the three axes: a fixed point */
        pf_free_directions(o, &p, 1);
        return pf_world_fix_points(w, (pf_object_id){o->id}, &p, 1);
    }
    if (count == 0 && o->kind == PF_OBJECT_RIGID && p == 1) /* the orientation its held rotations keep */
        memcpy(o->rot_ref, o->x + PF_RIGID_QUAT, sizeof o->rot_ref);
    pf_held_direction h = {p, {u[0] / len, u[1] / len, u[2] / len}};
    if (pf_vec_reserve(&o->held, o->held.n + 1)) return pf_error(PF_ENOMEM, "out of memory");
    memmove(o->held.v + first + count + 1, o->held.v + first + count,
            (o->held.n - first - count) * sizeof *o->held.v);
    o->held.v[first + count] = h;
    o->held.n++;
    double *v = o->v + 3 * (size_t)p, s = v[0] * h.d[0] + v[1] * h.d[1] + v[2] * h.d[2];
    for (int a = 0; a < 3; a++) v[a] -= s * h.d[a]; /* at rest along d from now on */
    return PF_OK;
}

int pf_world_fix_directions(pf_world *w, pf_object_id id, const uint32_t *points, uint32_t n, const double direction[3])
{
    static const char fn[] = "pf_world_fix_directions";
    PF_TRY(pf_check_point_list(w, id.index, points, n, fn));
    PF_TRY(pf_check_given(direction, fn, "direction"));
    PF_TRY(pf_check_finite_n(direction, 3, fn, "direction"));
    double len = sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
    if (!(len > 0))
        return pf_error(PF_EINVAL, "%s: direction (0, 0, 0) has no direction", fn);
    pf_object *o = w->obj.v[id.index];
    const double d[3] = {direction[0] / len, direction[1] / len, direction[2] / len};
    for (uint32_t k = 0; k < n; k++) PF_TRY(hold(w, o, points[k], d));
    o->changed = 1;
    w->dirty = 1;
    return PF_OK;
}
