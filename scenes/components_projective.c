/* SOFA's projective constraints beyond FixedProjectiveConstraint: PartialFixedProjectiveConstraint,
 * FixedPlaneProjectiveConstraint, LineProjectiveConstraint, PlaneProjectiveConstraint and PointProjectiveConstraint
 * on PhysFlow's fixed points and held directions (pf_world_fix_points, pf_world_fix_directions);
 * AttachProjectiveConstraint on its attachments (pf_world_add_attachment); FixedRotationProjectiveConstraint on a
 * rigid body's point 1 (fixed, or held about some axes) (LinearMovementProjectiveConstraint,
 * AffineMovementProjectiveConstraint: component_movements.c). */
#include "components.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* Holds the points idx[0..n) of the node's object along each of the nd directions dirs (3 each); counts them. */
static int hold_points(pf_scene_component *c, pf_object_id o, const uint32_t *idx, uint32_t n, const double *dirs,
                       int nd)
{
    pf_world *w = c->L->scene->world;
    for (int k = 0; k < nd; k++) PF_TRY(pf_world_fix_directions(w, o, idx, n, dirs + 3 * k));
    if (n == 0) pf_scene_component_warning(c, "%s holds no point", TYPE(c));
    c->L->scene->summary.constraints++;
    return PF_OK;
}

/* The node's object and the points a constraint names (`indices`, an ROI's, or all with fixAll). */
static int constrained_points(pf_scene_component *c, pf_object_id *o, const uint32_t **idx, uint32_t *n,
                              uint32_t **own)
{
    int all = 0, rc;
    if ((rc = sc_parse_bool(c, "fixAll", &all)) < 0) return rc;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "drawSize");
    pf_scene_component_ignore(c, "projectVelocity");
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: on a Rigid3d body: not supported", TYPE(c));
    if ((rc = pf_scene_component_object(c, o))) return rc;
    uint32_t np;
    pf_world_positions(c->L->scene->world, *o, &np);
    return sc_point_indices(c, np, all, idx, n, own);
}

/* PartialFixedProjectiveConstraint fixedDirections="1 1 0": the listed points held along the axes marked 1 (all
 * three: fixed, as FixedProjectiveConstraint). */
int sc_partial_fixed_constraint(pf_scene_component *c, void *ctx)
{
    double dirs[3] = {1, 1, 1};
    int rc = pf_scene_component_reals(c, "fixedDirections", 3, dirs);
    if (rc < 0) return rc;
    for (int a = 0; a < 3; a++)
        if (dirs[a] != 0 && dirs[a] != 1)
            return pf_scene_component_error(c, PF_EINVAL, "%s: fixedDirections holds 0 or 1 per axis, got %g",
                                            TYPE(c), dirs[a]);
    if (dirs[0] == 1 && dirs[1] == 1 && dirs[2] == 1) {
        pf_scene_component_ignore(c, "projectVelocity");
        return sc_fixed_constraint(c, ctx);
    }
    double axes[9];
    int na = 0;
    for (int a = 0; a < 3; a++)
        if (dirs[a] == 1) {
            for (int d = 0; d < 3; d++) axes[3 * na + d] = d == a;
            na++;
        }
    pf_object_id o;
    const uint32_t *idx;
    uint32_t n, *own = NULL;
    if ((rc = constrained_points(c, &o, &idx, &n, &own))) return rc;
    rc = hold_points(c, o, idx, n, axes, na);
    pf_free(own);
    return rc;
}

/* FixedPlaneProjectiveConstraint direction dmin dmax: SOFA removes the motion along `direction` of the points whose
 * coordinate along it lies in [dmin, dmax] (or of `indices` when given): they slide in the plane. */
int sc_fixed_plane_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double dir[3] = {0, 0, 1}, lo = -1e300, hi = 1e300;
    int rc;
    if ((rc = pf_scene_component_reals(c, "direction", 3, dir)) < 0 ||
        (rc = pf_scene_component_real(c, "dmin", -1e300, 1e300, &lo)) < 0 ||
        (rc = pf_scene_component_real(c, "dmax", -1e300, 1e300, &hi)) < 0)
        return rc;
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: on a Rigid3d body: not supported", TYPE(c));
    pf_scene_component_ignore(c, "template");
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    uint32_t np, n = 0;
    const double *x = pf_world_positions(c->L->scene->world, o, &np);
    uint32_t *idx = NULL;
    size_t m = 0;
    if ((rc = sc_parse_uints(c, "indices", &idx, &m)) < 0) return rc;
    rc = PF_OK; /* sc_parse_uints said whether the list was there: idx says it too */
    if (!idx) { /* the points between the two planes */
        if (!(idx = pf_malloc(((size_t)np + 1) * sizeof *idx))) return pf_error(PF_ENOMEM, "out of memory");
        for (uint32_t p = 0; p < np; p++) {
            const double *q = x + 3 * (size_t)p;
            double s = q[0] * dir[0] + q[1] * dir[1] + q[2] * dir[2];
            if (s >= lo && s <= hi) idx[n++] = p;
        }
    } else {
        n = (uint32_t)m;
        for (uint32_t k = 0; k < n && !rc; k++)
            if (idx[k] >= np)
                rc = pf_scene_component_error(c, PF_EINVAL, "%s: index %u is out of range (%u points)", TYPE(c),
                                              idx[k], np);
    }
    if (!rc) rc = hold_points(c, o, idx, n, dir, 1);
    pf_free(idx);
    return rc;
}

/* LineProjectiveConstraint origin direction / PlaneProjectiveConstraint origin normal: SOFA projects the listed
 * points onto the line (the plane) and keeps them on it: moved there, then held across the line (along the
 * normal). DirectionProjectiveConstraint (`through`): the line through each point's own first position, along
 * `direction`: nothing moves, the points are held across it. */
static int project_onto(pf_scene_component *c, int line, int through)
{
    double origin[3] = {0, 0, 0}, dir[3] = {line ? 1 : 0, 0, line ? 0 : 1};
    int rc;
    if ((!through && (rc = pf_scene_component_reals(c, "origin", 3, origin)) < 0) ||
        (rc = pf_scene_component_reals(c, line ? "direction" : "normal", 3, dir)) < 0)
        return rc;
    double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    if (!(len > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: '%s' is the zero vector", TYPE(c),
                                        line ? "direction" : "normal");
    for (int a = 0; a < 3; a++) dir[a] /= len, origin[a] += c->node->offset[a];
    pf_object_id o;
    const uint32_t *idx;
    uint32_t n, *own = NULL, np;
    if ((rc = constrained_points(c, &o, &idx, &n, &own))) return rc;
    pf_world *w = c->L->scene->world;
    const double *x = pf_world_positions(w, o, &np);
    double *moved = pf_malloc(((size_t)np * 3 + 1) * sizeof *moved);
    if (!moved) {
        pf_free(own);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    memcpy(moved, x, (size_t)np * 3 * sizeof *moved);
    for (uint32_t k = 0; k < n && !through; k++) {
        double *p = moved + 3 * (size_t)idx[k], r[3], s = 0;
        for (int a = 0; a < 3; a++) r[a] = p[a] - origin[a], s += r[a] * dir[a];
        for (int a = 0; a < 3; a++) p[a] = line ? origin[a] + s * dir[a] : p[a] - s * dir[a];
    }
    rc = pf_world_set_state(w, o, moved, NULL);
    pf_free(moved);
    /* a line: held along two directions normal to it; a plane: along its normal */
    double held[6];
    int nh = 1;
    memcpy(held, dir, sizeof dir);
    if (line) {
        double e[3] = {fabs(dir[0]) < 0.9 ? 1 : 0, fabs(dir[0]) < 0.9 ? 0 : 1, 0};
        held[0] = dir[1] * e[2] - dir[2] * e[1], held[1] = dir[2] * e[0] - dir[0] * e[2];
        held[2] = dir[0] * e[1] - dir[1] * e[0];
        held[3] = dir[1] * held[2] - dir[2] * held[1], held[4] = dir[2] * held[0] - dir[0] * held[2];
        held[5] = dir[0] * held[1] - dir[1] * held[0];
        nh = 2;
    }
    if (!rc) rc = hold_points(c, o, idx, n, held, nh);
    pf_free(own);
    return rc;
}

int sc_line_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return project_onto(c, 1, 0);
}

int sc_direction_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return project_onto(c, 1, 1);
}

int sc_plane_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return project_onto(c, 0, 0);
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

/* AttachProjectiveConstraint's attributes that PhysFlow reads but does not act on: a warning each when set to
 * something that would matter. */
static int attach_unsupported(pf_scene_component *c, int two_way)
{
    int rc, clamp = 0;
    double min_distance = -1, last_dir[3] = {0, 0, 0};
    if (two_way)
        pf_scene_component_warning(c, "%s: twoWay=\"true\": PhysFlow attaches one way (object2's points follow "
                                   "object1's, object1 does not feel them)", TYPE(c));
    pf_scene_component_ignore(c, "responseFactor"); /* SOFA uses it for twoWay only */
    /* rotations of Rigid3d points: the objects are of points (a rigid body is refused) */
    const char *rigid_only[] = {"freeRotations", "lastFreeRotation", "restRotations"};
    sc_ignore_attrs(c, rigid_only, sizeof rigid_only / sizeof rigid_only[0]);
    if ((rc = pf_scene_component_real(c, "minDistance", -INFINITY, INFINITY, &min_distance)) < 0) return rc;
    if (min_distance != -1)
        pf_scene_component_warning(c, "%s: minDistance=%g: PhysFlow never releases an attached pair (SOFA frees it "
                                   "beyond that distance)", TYPE(c), min_distance);
    if ((rc = pf_scene_component_reals(c, "lastDir", 3, last_dir)) < 0) return rc;
    (void)pf_scene_component_string(c, "lastPos");
    if ((rc = sc_parse_bool(c, "clamp", &clamp)) < 0) return rc;
    if (last_dir[0] != 0 || last_dir[1] != 0 || last_dir[2] != 0)
        pf_scene_component_warning(c, "%s: lastPos/lastDir: PhysFlow never releases an attached pair (SOFA frees "
                                   "or clamps the points past that plane)", TYPE(c));
    return PF_OK;
}

/* AttachProjectiveConstraint: points indices2 of object2 follow points indices1 of object1 (SOFA's one-way
 * meaning: object2's points take object1's positions and velocities, blended by constraintFactor, and do not
 * move on their own). Lists of different lengths: the pairs of the shorter, with a warning, as SOFA. */
int sc_attach_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_object_id o1, o2;
    int rc, two_way = 0;
    pf_scene_component_ignore(c, "template");
    int r1 = pf_scene_component_link_object(c, "object1", &o1);
    if (r1 < 0) return r1;
    int r2 = pf_scene_component_link_object(c, "object2", &o2);
    if (r2 < 0) return r2;
    if (!r1 || !r2)
        return pf_scene_component_error(c, PF_EPARSE, "%s: give object1 and object2 (links to the two objects' "
                                        "nodes or MechanicalObjects)", TYPE(c));
    if ((rc = sc_parse_bool(c, "twoWay", &two_way)) < 0) return rc;
    if ((rc = attach_unsupported(c, two_way))) return rc;
    pf_attachment_def def = pf_attachment_default_def();
    if ((rc = pf_scene_component_real(c, "positionFactor", 0, 1, &def.position_factor)) < 0 ||
        (rc = pf_scene_component_real(c, "velocityFactor", 0, 1, &def.velocity_factor)) < 0)
        return rc;
    uint32_t *i1 = NULL, *i2 = NULL;
    double *cf = NULL;
    size_t n1 = 0, n2 = 0, ncf = 0;
    if ((rc = sc_parse_uints(c, "indices1", &i1, &n1)) < 0 || (rc = sc_parse_uints(c, "indices2", &i2, &n2)) < 0 ||
        (rc = sc_parse_reals(c, "constraintFactor", &cf, &ncf)) < 0)
        goto done;
    rc = PF_OK;
    size_t n = n1 < n2 ? n1 : n2;
    if (n1 != n2)
        pf_scene_component_warning(c, "%s: indices1 has %zu points and indices2 %zu: the first %zu pairs are attached, "
                                   "as in SOFA", TYPE(c), n1, n2, n);
    if (n == 0) pf_scene_component_warning(c, "%s attaches no point", TYPE(c));
    if (ncf && ncf != n2) {
        rc = pf_scene_component_error(c, PF_EINVAL, "%s: constraintFactor needs one value per point of indices2 "
                                      "(%zu), got %zu", TYPE(c), n2, ncf);
        goto done;
    }
    uint32_t np1 = 0, np2 = 0;
    pf_world *w = c->L->scene->world;
    pf_world_positions(w, o1, &np1);
    pf_world_positions(w, o2, &np2);
    for (size_t k = 0; k < n && !rc; k++)
        if (i1[k] >= np1 || i2[k] >= np2)
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: pair %zu: %s %u is out of range (object%d has %u "
                                          "points)", TYPE(c), k, i1[k] >= np1 ? "indices1" : "indices2",
                                          i1[k] >= np1 ? i1[k] : i2[k], i1[k] >= np1 ? 1 : 2,
                                          i1[k] >= np1 ? np1 : np2);
    if (rc) goto done;
    def.source_points = i1, def.target_points = i2, def.npoints = (uint32_t)n, def.factors = ncf ? cf : NULL;
    if ((rc = pf_world_add_attachment(w, o1, o2, &def))) {
        char copy[300];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        rc = pf_scene_component_error(c, rc, "%s: %s", TYPE(c), copy);
        goto done;
    }
    c->L->scene->summary.constraints++;
done:
    pf_free(i1);
    pf_free(i2);
    pf_free(cf);
    return rc;
}

/* FixedRotationProjectiveConstraint (SOFA, Rigid3d): FixedXRotation, FixedYRotation, FixedZRotation keep the
 * body from turning about those world axes. All three hold its rotation (its point 1 fixed, pf_world_fix_points);
 * one or two hold its point 1 along those axes (pf_world_fix_directions, x then y then z as SOFA takes them): its
 * rotation about them stays the initial orientation's; none leaves it free. */
int sc_fixed_rotation_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const axes[3] = {"FixedXRotation", "FixedYRotation", "FixedZRotation"};
    int on[3] = {0, 0, 0}, fixed = 0, rc;
    for (int k = 0; k < 3; k++) {
        if ((rc = sc_parse_bool(c, axes[k], &on[k])) < 0) return rc;
        fixed += on[k] != 0;
    }
    pf_scene_component_ignore(c, "template");
    if (c->node->beam_frames && c->node->beam_line) /* a beam's frames are held whole only (FixedProjectiveConstraint) */
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: node '%s' is a beam of %u frames, whose rotations PhysFlow "
                                        "holds only with their positions (FixedProjectiveConstraint)", TYPE(c),
                                        c->node->name, c->node->beam_frames);
    if (!c->node->rigid)
        return pf_scene_component_error(c, PF_EINVAL, "%s: node '%s' is not a Rigid3d object (it removes rotations)",
                                        TYPE(c), c->node->name);
    if (fixed == 0) {
        pf_scene_component_warning(c, "%s: no axis fixed (FixedXRotation, FixedYRotation, FixedZRotation): no effect",
                                   TYPE(c));
        return PF_OK;
    }
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    /* independent frames (scenes/components_joints.c): SOFA holds every frame of the object, a body each */
    uint32_t nbodies = c->node->frame_objects ? c->node->beam_frames : 1;
    static const uint32_t rotation[1] = {1}; /* a rigid body's point 1 is its angular part */
    for (uint32_t b = 0; b < nbodies; b++) {
        if (c->node->frame_objects) o = c->node->frame_objects[b];
        if (fixed == 3) {
            if ((rc = pf_world_fix_points(c->L->scene->world, o, rotation, 1))) return rc;
        } else {
            for (int k = 0; k < 3; k++) {
                const double axis[3] = {k == 0, k == 1, k == 2};
                if (on[k] && (rc = pf_world_fix_directions(c->L->scene->world, o, rotation, 1, axis))) return rc;
            }
        }
    }
    c->L->scene->summary.constraints++;
    return PF_OK;
}
