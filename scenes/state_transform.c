/* A MechanicalObject's scale3d, rotation and translation, applied to the node's points as SOFA's
 * MechanicalObject::init does (reinit: scale, then rotation, then translation, on the positions only). */
#include "components.h"
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/error.h"
#include "physics/rotation.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* One of SOFA's old per-axis attributes (MechanicalObject::parse): when any of the three is given the vector is
 * theirs, an absent one taking `absent`. Returns 1 when given, 0 when not, < 0 on error. */
static int per_axis(pf_scene_component *c, const char *const names[3], double absent, double v[3])
{
    double w[3] = {absent, absent, absent};
    int any = 0;
    for (int a = 0; a < 3; a++) {
        int rc = pf_scene_component_real(c, names[a], -1e300, 1e300, &w[a]);
        if (rc < 0) return rc;
        any |= rc;
    }
    if (any) memcpy(v, w, sizeof w);
    return any;
}

/* translation2 / rotation2 (dx2.. rx2..): SOFA applies them after storing the rest positions */
static int second_transform(pf_scene_component *c, double r2[3], double t2[3])
{
    static const char *const rn[3] = {"rx2", "ry2", "rz2"}, *const dn[3] = {"dx2", "dy2", "dz2"};
    int rc;
    if ((rc = pf_scene_component_reals(c, "rotation2", 3, r2)) < 0 || (rc = per_axis(c, rn, 0, r2)) < 0 ||
        (rc = pf_scene_component_reals(c, "translation2", 3, t2)) < 0 || (rc = per_axis(c, dn, 0, t2)) < 0)
        return rc;
    return PF_OK;
}

int sc_mo_transform_read(pf_scene_component *c, sc_mo_transform *t)
{
    static const char *const sn[3] = {"sx", "sy", "sz"}, *const rn[3] = {"rx", "ry", "rz"},
                             *const dn[3] = {"dx", "dy", "dz"};
    *t = (sc_mo_transform){.scale = {1, 1, 1}};
    double uniform;
    int rc;
    /* SOFA's parse: scale3d, then `scale` (one number, every axis), then sx sy sz, each replacing the one before */
    if ((rc = pf_scene_component_reals(c, "scale3d", 3, t->scale)) < 0) return rc;
    const char *raw = sc_raw_attr(c, "scale");
    if (raw) {
        double *v;
        size_t m;
        if ((rc = sc_parse_reals(c, "scale", &v, &m)) < 0) return rc;
        if (m != 1) {
            pf_free(v);
            return pf_scene_component_error(c, PF_EPARSE, "%s: 'scale' is one number (every axis; scale3d takes "
                                            "three), got %zu", TYPE(c), m);
        }
        uniform = v[0];
        pf_free(v);
        t->scale[0] = t->scale[1] = t->scale[2] = uniform;
    }
    if ((rc = per_axis(c, sn, 1, t->scale)) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "rotation", 3, t->rotation)) < 0 || (rc = per_axis(c, rn, 0, t->rotation)) < 0)
        return rc;
    if ((rc = pf_scene_component_reals(c, "translation", 3, t->translation)) < 0 ||
        (rc = per_axis(c, dn, 0, t->translation)) < 0)
        return rc;
    if ((rc = second_transform(c, t->rotation2, t->translation2)) < 0) return rc;
    for (int a = 0; a < 3; a++) {
        t->scaled |= t->scale[a] != 1;
        t->turned |= t->rotation[a] != 0;
        t->moved |= t->translation[a] != 0;
        t->second |= t->rotation2[a] != 0 || t->translation2[a] != 0;
    }
    return PF_OK;
}

/* p <- R (s ⊙ p) + t over n points, the rotation skipped when there is none (so that a translation alone adds
 * exactly t, as the node's offset did before); `coords` 1 or 2: the axes beyond dropped, as SOFA's
 * DataTypes::set of a Vec1/Vec2 point does; 0: Vec3 */
static void transform_points(const sc_mo_transform *t, int coords, double *p, size_t n)
{
    double R[9];
    sc_euler_rotation(t->rotation, R);
    for (size_t i = 0; i < n; i++) {
        double *x = p + 3 * i, q[3];
        for (int a = 0; a < 3; a++) q[a] = x[a] * t->scale[a];
        if (t->turned) {
            double r[3];
            pf_mat3_vec(R, q, r);
            memcpy(q, r, sizeof q);
        }
        for (int a = 0; a < 3; a++) x[a] = q[a] + t->translation[a];
        for (int a = coords; coords && a < 3; a++) x[a] = 0; /* a Vec1/Vec2 coordinate keeps its own axes */
    }
}

/* SOFA's quaternion of Euler angles in degrees (createQuaterFromEuler's default order: Rz Ry Rx), (w, x, y, z) */
static void euler_quat(const double deg[3], double q[4])
{
    double c[3], s[3];
    for (int a = 0; a < 3; a++) {
        c[a] = cos(deg[a] * M_PI / 360);
        s[a] = sin(deg[a] * M_PI / 360);
    }
    q[0] = c[0] * c[1] * c[2] + s[0] * s[1] * s[2];
    q[1] = s[0] * c[1] * c[2] - c[0] * s[1] * s[2];
    q[2] = c[0] * s[1] * c[2] + s[0] * c[1] * s[2];
    q[3] = c[0] * c[1] * s[2] - s[0] * s[1] * c[2];
}

/* q <- e q (e applied after q), both (w, x, y, z) */
static void quat_premultiply(const double e[4], double q[4])
{
    const double r[4] = {e[0] * q[0] - e[1] * q[1] - e[2] * q[2] - e[3] * q[3],
                         e[0] * q[1] + e[1] * q[0] + e[2] * q[3] - e[3] * q[2],
                         e[0] * q[2] - e[1] * q[3] + e[2] * q[0] + e[3] * q[1],
                         e[0] * q[3] + e[1] * q[2] - e[2] * q[1] + e[3] * q[0]};
    memcpy(q, r, sizeof r);
}

/* one rotation (degrees) then a translation of a frame: the centre turns about the origin and moves, the
 * orientation turns (SOFA's Rigid3 applyRotation: centre q.rotate(c), orientation q * orientation) */
static void turn_frame(double pose[7], const double deg[3], const double t[3])
{
    if (deg[0] != 0 || deg[1] != 0 || deg[2] != 0) {
        double e[4], R[9], c[3];
        euler_quat(deg, e);
        pf_quat_to_mat(e, R);
        pf_mat3_vec(R, pose, c);
        memcpy(pose, c, sizeof c);
        quat_premultiply(e, pose + 3);
        pf_quat_normalize(pose + 3);
    }
    for (int a = 0; a < 3; a++) pose[a] += t[a];
}

void sc_mo_transform_frame(const sc_mo_transform *t, double pose[7])
{
    for (int a = 0; a < 3; a++) pose[a] *= t->scale[a]; /* the centre only: a frame has no size */
    turn_frame(pose, t->rotation, t->translation);
    turn_frame(pose, t->rotation2, t->translation2);
}

int sc_mo_transform_pending(const sc_node *n)
{
    const sc_mo_transform *t = &n->mo_transform;
    return !n->rigid && !n->mo_transform_done && n->mapping != SC_MAP_IDENTITY && (t->scaled || t->turned || t->moved);
}

void sc_mo_transform_points(const sc_node *n, double *p, size_t np)
{
    transform_points(&n->mo_transform, n->coords, p, np);
}

int sc_mo_transform_apply(sc_loader *L, sc_node *n)
{
    const sc_mo_transform *t = &n->mo_transform;
    if (n->mo_transform_done) return PF_OK;
    n->mo_transform_done = 1;
    if (n->rigid || !(t->scaled || t->turned || t->moved)) return PF_OK;
    /* an IdentityMapping sets the node's points from its input's at SOFA's init: its own transform is overwritten */
    if (n->mapping == SC_MAP_IDENTITY) return PF_OK;
    if (n->topology == SC_TOPO_GRID && n->sparse) {
        int flips = t->scale[0] <= 0 || t->scale[1] <= 0 || t->scale[2] <= 0;
        if (t->turned || flips)
            return sc_error(L, n->mo_line, PF_ENOTSUP, "MechanicalObject in node '%s': a SparseGridTopology's grid "
                            "runs along the axes, up each: it takes a positive scale and a translation, not %s", n->name,
                            t->turned ? "a rotation" : "a scale <= 0");
    } else if (n->topology == SC_TOPO_GRID) {
        int flips = t->scale[0] <= 0 || t->scale[1] <= 0 || t->scale[2] <= 0;
        /* a turned or mirrored grid is no longer one along the axes: its points become a mesh (as a grid of max
         * below min does), numbered as the grid's */
        if ((t->turned || flips) && sc_grid_topology_to_mesh(n))
            return sc_error(L, n->mo_line, PF_ENOMEM, "MechanicalObject in node '%s': out of memory", n->name);
    }
    if (n->topology == SC_TOPO_GRID) {
        pf_object_def *d = &n->def;
        for (int a = 0; a < 3; a++) {
            d->grid_min[a] = d->grid_min[a] * t->scale[a] + t->translation[a];
            d->grid_max[a] = d->grid_max[a] * t->scale[a] + t->translation[a];
        }
    }
    if (n->positions) transform_points(t, n->coords, n->positions, n->npositions);
    if ((n->topology == SC_TOPO_MESH || n->sparse) && n->mesh.points) transform_points(t, n->coords, n->mesh.points, n->mesh.npoints);
    return PF_OK;
}
