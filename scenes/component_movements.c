/* SOFA's moving projective constraints, on a step hook of the scene (step_hooks.c) each.
 *
 * LinearMovementProjectiveConstraint: the listed points follow a piecewise-linear path through key
 * displacements (`movements`, one per `keyTimes` entry, from the points' first positions, or absolute positions
 * with relativeMovements="false"). As in SOFA (findKeyTimes), the constraint acts while the time lies in
 * [first key, last key) and leaves the points free outside it. At each step's start t the hook puts them at
 * x0 + m(t) and holds them fixed through the step, so they end it where SOFA's
 * projection puts them; their velocity is a fixed point's, zero, where SOFA gives them the movement's rate (only
 * velocity-dependent forces, damping, see the difference while they move).
 *
 * AffineMovementProjectiveConstraint: the listed points are held (their velocity zero, as SOFA projects it) and
 * move from x0 (their first positions) to xf = R x0 + translation, linearly in time over
 * (beginConstraintTime, endConstraintTime], then stay at xf. */
#include "components.h"
#include "step_hooks.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

typedef struct movement {
    pf_object_id o;
    uint32_t *idx, n;
    double *times, *moves; /* nkeys key times (ascending) and 3 * nkeys displacements */
    size_t nkeys;
    int relative;
    double *x0;   /* the points' positions at the first step (3 n) */
    double *x;    /* the object's positions to set (3 * points) */
    int fixed;    /* the points are held by this constraint now */
} movement;

static void movement_free(void *state)
{
    movement *m = state;
    pf_free(m->idx);
    pf_free(m->times);
    pf_free(m->moves);
    pf_free(m->x0);
    pf_free(m->x);
    pf_free(m);
}

/* SOFA's findKeyTimes at time t: the keys k, k + 1 around it (the last at or before t, the first after); 0 when
 * t lies before the first key or at or after the last (no key after it). */
static int key_span(const movement *m, double t, size_t *k)
{
    if (m->nkeys == 0 || t < m->times[0] || t > m->times[m->nkeys - 1]) return 0;
    for (size_t j = 0; j + 1 < m->nkeys; j++)
        if (m->times[j] <= t && t < m->times[j + 1]) { /* keys ascend: j is the last at or before t */
            *k = j;
            return 1;
        }
    return 0;
}

static int apply_movement(pf_world *w, double t, void *ctx)
{
    movement *m = ctx;
    uint32_t np = 0;
    const double *x = pf_world_positions(w, m->o, &np);
    if (!x) return PF_OK; /* the object was removed */
    if (!m->x0) {
        if (!(m->x0 = pf_malloc(3 * (size_t)m->n * sizeof *m->x0)) || !(m->x = pf_malloc(3 * (size_t)np * sizeof *m->x)))
            return pf_error(PF_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < m->n; i++) memcpy(m->x0 + 3 * (size_t)i, x + 3 * (size_t)m->idx[i], 3 * sizeof *x);
    }
    size_t k;
    if (!key_span(m, t, &k)) {
        if (m->fixed) PF_TRY(pf_world_unfix_points(w, m->o, m->idx, m->n));
        m->fixed = 0;
        return PF_OK;
    }
    if (!m->fixed) PF_TRY(pf_world_fix_points(w, m->o, m->idx, m->n));
    m->fixed = 1;
    double s = (t - m->times[k]) / (m->times[k + 1] - m->times[k]), d[3];
    for (int a = 0; a < 3; a++) d[a] = m->moves[3 * k + a] + (m->moves[3 * (k + 1) + a] - m->moves[3 * k + a]) * s;
    memcpy(m->x, x, 3 * (size_t)np * sizeof *x);
    for (uint32_t i = 0; i < m->n; i++)
        for (int a = 0; a < 3; a++)
            m->x[3 * (size_t)m->idx[i] + a] = (m->relative ? m->x0[3 * (size_t)i + a] : 0) + d[a];
    return pf_world_set_state(w, m->o, m->x, NULL);
}

/* keyTimes and movements: as many keys as displacements, in time order. */
static int read_keys(pf_scene_component *c, movement *m)
{
    size_t nt = 0, nm = 0;
    int rc = sc_parse_reals(c, "keyTimes", &m->times, &nt);
    if (rc >= 0) rc = sc_parse_reals(c, "movements", &m->moves, &nm);
    if (rc < 0) return rc;
    if (nm > 3 * nt && nm % 3 == 0) /* SOFA reads displacement k for key k (findKeyTimes) and never the rest */
        pf_scene_component_warning(c, "%s: %zu keyTimes use the first %zu of the %zu numbers in 'movements' (one "
                                   "displacement each); the rest are ignored, as in SOFA", TYPE(c), nt, 3 * nt, nm);
    else if (nm != 3 * nt)
        return pf_scene_component_error(c, PF_EINVAL, "%s: %zu keyTimes need %zu numbers in 'movements' (one "
                                        "displacement each), got %zu", TYPE(c), nt, 3 * nt, nm);
    for (size_t k = 1; k < nt; k++)
        if (m->times[k] < m->times[k - 1])
            return pf_scene_component_error(c, PF_EINVAL, "%s: keyTimes must not decrease (%g after %g)", TYPE(c),
                                            m->times[k], m->times[k - 1]);
    m->nkeys = nt;
    return PF_OK;
}

/* The points a moving constraint names among the np of its object (its `indices`, or an ROI's through a link),
 * in a buffer of its own (*idx, *n), which the constraint frees. */
int sc_moved_points(pf_scene_component *c, uint32_t np, uint32_t **idx, uint32_t *n)
{
    const uint32_t *got;
    uint32_t *own;
    int rc = sc_point_indices(c, np, 0, &got, n, &own);
    if (rc) return rc;
    *idx = pf_malloc(((size_t)*n + 1) * sizeof **idx);
    if (*idx) memcpy(*idx, got, (size_t)*n * sizeof *got);
    pf_free(own);
    return *idx ? PF_OK : pf_error(PF_ENOMEM, "out of memory");
}

int sc_linear_movement_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"template", "showMovement", "topology", "drawSize"};
    SC_IGNORE_ATTRS(c, ignored);
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: on a Rigid3d body: not supported", TYPE(c));
    movement *m = pf_calloc(1, sizeof *m);
    if (!m) return pf_error(PF_ENOMEM, "out of memory");
    m->relative = 1;
    int rc = pf_scene_component_on_destroy(c, movement_free, m);
    if (rc) {
        movement_free(m);
        return rc;
    }
    if ((rc = pf_scene_component_object(c, &m->o)) || (rc = read_keys(c, m))) return rc;
    if ((rc = sc_parse_bool(c, "relativeMovements", &m->relative)) < 0) return rc;
    uint32_t np = 0;
    pf_world_positions(c->L->scene->world, m->o, &np);
    if (pf_scene_component_string(c, "indices")) { /* written out, or an ROI's ("@box.indices") */
        if ((rc = sc_moved_points(c, np, &m->idx, &m->n))) return rc;
    } else { /* SOFA's default: point 0 */
        if (!(m->idx = pf_malloc(sizeof *m->idx))) return pf_error(PF_ENOMEM, "out of memory");
        m->idx[0] = 0;
        m->n = 1;
    }
    for (uint32_t i = 0; i < m->n; i++)
        if (m->idx[i] >= np)
            return pf_scene_component_error(c, PF_EINVAL, "%s: index %u is out of range (%u points)", TYPE(c),
                                            m->idx[i], np);
    if (m->nkeys < 2)
        pf_scene_component_warning(c, "%s: fewer than two keyTimes: it never moves the points (as in SOFA)", TYPE(c));
    c->L->scene->summary.constraints++;
    return sc_add_step_hook(c, apply_movement, m);
}

/* ---- AffineMovementProjectiveConstraint ---- */

typedef struct affine {
    pf_object_id o;
    uint32_t *idx, n;
    double rot[9], shift[3], begin, end;
    double *x0, *xf; /* 3 n each, at the first step */
    double *x;       /* the object's positions to set */
} affine;

static void affine_free(void *state)
{
    affine *m = state;
    pf_free(m->idx);
    pf_free(m->x0);
    pf_free(m->xf);
    pf_free(m->x);
    pf_free(m);
}

/* SOFA's projectPosition at time t for points moved from x0 to xf over (begin, end]: (xf - x0) t + x0 end - xf
 * begin, over end - begin, inside it; xf after it; before it the points stay where they are. x: the object's np
 * positions; scratch: room for a copy of them. */
int sc_follow_linear_path(pf_world *w, pf_object_id o, const double *x, uint32_t np, double *scratch,
                          const sc_linear_path *path, double t)
{
    double span = path->end - path->begin;
    int moving = t > path->begin && t <= path->end && span > 0, done = t > path->end;
    if (!moving && !done) return PF_OK;
    memcpy(scratch, x, 3 * (size_t)np * sizeof *x);
    const double *x0 = path->x0, *xf = path->xf;
    for (uint32_t i = 0; i < path->n; i++)
        for (int a = 0; a < 3; a++) {
            size_t k = 3 * (size_t)i + a;
            scratch[3 * (size_t)path->idx[i] + a] =
                moving ? ((xf[k] - x0[k]) * t + (x0[k] * path->end - xf[k] * path->begin)) / span : xf[k];
        }
    return pf_world_set_state(w, o, scratch, NULL);
}

/* The affine movement's end positions xf = rotation x0 + translation, then its linear path. */
static int apply_affine(pf_world *w, double t, void *ctx)
{
    affine *m = ctx;
    uint32_t np = 0;
    const double *x = pf_world_positions(w, m->o, &np);
    if (!x) return PF_OK;
    if (!m->x0) {
        size_t n3 = 3 * (size_t)m->n;
        if (!(m->x0 = pf_malloc(n3 * sizeof *m->x0)) || !(m->xf = pf_malloc(n3 * sizeof *m->xf)) ||
            !(m->x = pf_malloc(3 * (size_t)np * sizeof *m->x)))
            return pf_error(PF_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < m->n; i++) {
            const double *p = x + 3 * (size_t)m->idx[i];
            memcpy(m->x0 + 3 * (size_t)i, p, 3 * sizeof *p);
            for (int r = 0; r < 3; r++)
                m->xf[3 * (size_t)i + r] = m->rot[3 * r] * p[0] + m->rot[3 * r + 1] * p[1] + m->rot[3 * r + 2] * p[2] +
                                           m->shift[r];
        }
    }
    return sc_follow_linear_path(w, m->o, x, np, m->x,
                                 &(sc_linear_path){m->idx, m->n, m->x0, m->xf, m->begin, m->end}, t);
}

int sc_affine_movement_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"template", "drawConstrainedPoints", "topology", "meshIndices"};
    SC_IGNORE_ATTRS(c, ignored);
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: on a Rigid3d body: not supported", TYPE(c));
    affine *m = pf_calloc(1, sizeof *m);
    if (!m) return pf_error(PF_ENOMEM, "out of memory");
    int rc = pf_scene_component_on_destroy(c, affine_free, m);
    if (rc) {
        affine_free(m);
        return rc;
    }
    m->end = 20; /* SOFA's defaults: (0, 20] */
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(m->rot, identity, sizeof identity);
    if ((rc = pf_scene_component_object(c, &m->o))) return rc;
    if ((rc = pf_scene_component_reals(c, "rotation", 9, m->rot)) < 0 ||
        (rc = pf_scene_component_reals(c, "translation", 3, m->shift)) < 0 ||
        (rc = pf_scene_component_real(c, "beginConstraintTime", -1e300, 1e300, &m->begin)) < 0 ||
        (rc = pf_scene_component_real(c, "endConstraintTime", -1e300, 1e300, &m->end)) < 0)
        return rc;
    if (pf_scene_component_string(c, "quaternion"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: 'quaternion' turns Rigid3d frames, which PhysFlow's "
                                        "points are not: give 'rotation'", TYPE(c));
    uint32_t np = 0;
    pf_world_positions(c->L->scene->world, m->o, &np);
    if ((rc = sc_moved_points(c, np, &m->idx, &m->n))) return rc;
    if (m->n && (rc = pf_world_fix_points(c->L->scene->world, m->o, m->idx, m->n))) return rc;
    c->L->scene->summary.constraints++;
    return sc_add_step_hook(c, apply_affine, m);
}
