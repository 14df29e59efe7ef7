/* SOFA's projective constraints beyond FixedProjectiveConstraint: PartialFixedProjectiveConstraint,
 * FixedPlaneProjectiveConstraint, PointProjectiveConstraint; AttachProjectiveConstraint,
 * FixedRotationProjectiveConstraint, LinearMovementProjectiveConstraint and LineProjectiveConstraint refused. PhysFlow fixes whole points (pf_world_fix_points):
 * a constraint on some directions only is refused with an error that says so, never approximated. */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* PartialFixedProjectiveConstraint fixedDirections="1 1 0": the listed points fixed along the axes marked 1. With
 * all three marked it is FixedProjectiveConstraint; otherwise not supported. */
int sc_partial_fixed_constraint(pf_scene_component *c, void *ctx)
{
    double dirs[3] = {1, 1, 1};
    int rc = pf_scene_component_reals(c, "fixedDirections", 3, dirs);
    if (rc < 0) return rc;
    pf_scene_component_ignore(c, "projectVelocity");
    for (int a = 0; a < 3; a++)
        if (dirs[a] != 0 && dirs[a] != 1)
            return pf_scene_component_error(c, PF_EINVAL, "%s: fixedDirections holds 0 or 1 per axis, got %g",
                                            TYPE(c), dirs[a]);
    if (dirs[0] == 1 && dirs[1] == 1 && dirs[2] == 1) return sc_fixed_constraint(c, ctx);
    return pf_scene_component_error(c, PF_ENOTSUP, "%s: fixedDirections=\"%g %g %g\" fixes some axes only, which "
                                    "PhysFlow cannot do (it fixes whole points): fixedDirections=\"1 1 1\" or "
                                    "FixedProjectiveConstraint fixes the points", TYPE(c), dirs[0], dirs[1], dirs[2]);
}

/* FixedPlaneProjectiveConstraint direction dmin dmax: SOFA removes the motion along `direction` of the points
 * between the planes dmin and dmax (they slide in the plane): a constraint on one direction only. */
int sc_fixed_plane_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double dir[3] = {0, 0, 1}, lo = 0, hi = 0;
    int rc;
    if ((rc = pf_scene_component_reals(c, "direction", 3, dir)) < 0 ||
        (rc = pf_scene_component_real(c, "dmin", -1e300, 1e300, &lo)) < 0 ||
        (rc = pf_scene_component_real(c, "dmax", -1e300, 1e300, &hi)) < 0)
        return rc;
    return pf_scene_component_error(c, PF_ENOTSUP, "%s: it holds points along direction (%g %g %g) only, letting "
                                    "them slide in the plane, which PhysFlow cannot do (it fixes whole points: "
                                    "FixedProjectiveConstraint with a BoxROI fixes them)", TYPE(c), dir[0], dir[1],
                                    dir[2]);
}

/* PointProjectiveConstraint point="x y z" indices="...": SOFA projects the listed points onto `point` (moved with
 * a replicated copy) and holds them there: they start at it and are fixed. */
int sc_point_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double point[3] = {0, 0, 0};
    int rc, all = 0;
    if ((rc = pf_scene_component_reals(c, "point", 3, point)) < 0) return rc;
    if ((rc = sc_parse_bool(c, "fixAll", &all)) < 0) return rc;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "drawSize");
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: on a Rigid3d body: not supported (it moves points)",
                                        TYPE(c));
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    pf_world *w = c->L->scene->world;
    uint32_t np;
    const double *x = pf_world_positions(w, o, &np);
    const uint32_t *idx;
    uint32_t n, *own;
    if ((rc = sc_point_indices(c, np, all, &idx, &n, &own))) return rc;
    if (n == 0) pf_scene_component_warning(c, "%s holds no point", TYPE(c));
    double *moved = pf_malloc(((size_t)np * 3 + 1) * sizeof *moved);
    if (!moved) {
        pf_free(own);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    memcpy(moved, x, (size_t)np * 3 * sizeof *moved);
    for (uint32_t k = 0; k < n; k++)
        for (int a = 0; a < 3; a++) moved[3 * (size_t)idx[k] + (size_t)a] = point[a] + c->node->offset[a];
    rc = pf_world_set_state(w, o, moved, NULL);
    pf_free(moved);
    if (!rc) rc = pf_world_fix_points(w, o, idx, n);
    pf_free(own);
    if (rc) return rc;
    c->L->scene->summary.constraints++;
    c->L->scene->summary.fixed_points += n;
    return PF_OK;
}

/* Projective constraints that hold something other than whole points still: each refused with what PhysFlow lacks
 * (its constraints fix points, pf_world_fix_points), never approximated. */
int sc_refused_projective(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *t = TYPE(c), *why;
    if (!strcmp(t, "AttachProjectiveConstraint"))
        why = "it ties points of one object to points of another (object1, object2), which needs a constraint "
              "between two objects' points; PhysFlow fixes points of one object only (StiffSpringForceField "
              "object1/object2 joins them by springs)";
    else if (!strcmp(t, "FixedRotationProjectiveConstraint"))
        why = "it removes rotations about chosen axes of a Rigid3d body, which PhysFlow's rigid bodies cannot "
              "constrain";
    else if (!strcmp(t, "LinearMovementProjectiveConstraint"))
        why = "it moves points along prescribed paths over time (keyTimes, movements), and PhysFlow's fixed points "
              "stay where they start";
    else
        why = "it holds points on a line (they slide along its direction), and PhysFlow fixes whole points: "
              "FixedProjectiveConstraint fixes them";
    for (const xmlAttr *a = c->el->properties; a; a = a->next) /* read: the error says why they are not used */
        (void)pf_scene_component_string(c, (const char *)a->name);
    return pf_scene_component_error(c, PF_ENOTSUP, "%s: %s", t, why);
}
