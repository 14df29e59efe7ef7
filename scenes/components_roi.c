/* SphereROI, PlaneROI and PairBoxROI: the points of the node's object inside spheres, flat boxes or between two boxes
 * (their initial positions, moved with a replicated copy), in increasing order, for `@name.indices` links as
 * BoxROI's. */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"
#include "physics/rotation.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* SOFA's ROIs also list the edges, triangles and tetrahedra inside and draw themselves: not used by PhysFlow. */
static void ignore_roi_extras(pf_scene_component *c)
{
    static const char *const extras[] = {"template", "position", "drawSphere", "drawSpheres", "drawBoxes",
                                         "drawPoints", "drawEdges", "drawTriangles", "drawTetrahedra", "drawSize",
                                         "computeEdges", "computeTriangles", "computeTetrahedra", "computeQuad",
                                         "edges", "triangles", "tetrahedra", "quad"};
    SC_IGNORE_ATTRS(c, extras);
}

typedef int (*inside_fn)(const double *p, const double *shape);

/* Selects the object's points inside any of the `count` shapes (`per` numbers each) and caches them for links. */
static int select_points(pf_scene_component *c, const double *shapes, size_t count, size_t per, inside_fn inside)
{
    pf_object_id o;
    int rc = pf_scene_component_object(c, &o);
    if (rc) return rc;
    uint32_t np;
    const double *x = pf_world_positions(c->L->scene->world, o, &np);
    const double *off = c->node->offset;
    uint32_t *idx = pf_malloc(((size_t)np + 1) * sizeof *idx), n = 0;
    if (!idx) return pf_error(PF_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < np; i++) {
        const double p[3] = {x[3 * i] - off[0], x[3 * i + 1] - off[1], x[3 * i + 2] - off[2]};
        for (size_t k = 0; k < count; k++)
            if (inside(p, shapes + per * k)) {
                idx[n++] = i;
                break;
            }
    }
    if (pf_vec_push(&c->L->boxes, ((sc_box_cache){c->node, c->el, idx, n}))) {
        pf_free(idx);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    return PF_OK;
}

/* shape: centre x y z, radius */
static int in_sphere(const double *p, const double *s)
{
    double d[3] = {p[0] - s[0], p[1] - s[1], p[2] - s[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) <= s[3];
}

/* SphereROI centers="x y z ..." radii="r ...": a point within distance r of a centre (bounds included). */
int sc_sphere_roi(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double *centres = NULL, *radii = NULL;
    size_t nc = 0, nr = 0;
    int rc = sc_parse_reals(c, "centers", &centres, &nc);
    if (rc >= 0) rc = sc_parse_reals(c, "radii", &radii, &nr);
    ignore_roi_extras(c);
    pf_scene_component_ignore(c, "direction");
    pf_scene_component_ignore(c, "normal");
    pf_scene_component_ignore(c, "edgeAngle");
    pf_scene_component_ignore(c, "triAngle");
    if (rc >= 0 && (nc == 0 || nc % 3))
        rc = pf_scene_component_error(c, PF_EPARSE, "SphereROI: 'centers' needs 3 numbers per sphere, got %zu", nc);
    else if (rc >= 0 && nr != nc / 3)
        rc = pf_scene_component_error(c, PF_EPARSE, "SphereROI: 'radii' needs one radius per centre (%zu), got %zu",
                                      nc / 3, nr);
    double *s = NULL;
    if (rc >= 0 && !(s = pf_malloc(nr * 4 * sizeof *s))) rc = pf_error(PF_ENOMEM, "out of memory");
    for (size_t k = 0; rc >= 0 && k < nr; k++) {
        if (!(radii[k] >= 0)) {
            rc = pf_scene_component_error(c, PF_EINVAL, "SphereROI: radius %zu must be >= 0, got %g", k, radii[k]);
            break;
        }
        memcpy(s + 4 * k, centres + 3 * k, 3 * sizeof *s);
        s[4 * k + 3] = radii[k];
    }
    pf_free(centres);
    pf_free(radii);
    if (rc >= 0) rc = select_points(c, s, nr, 4, in_sphere);
    pf_free(s);
    return rc < 0 ? rc : PF_OK;
}

static double dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int unit(double *v)
{
    double n = sqrt(dot(v, v));
    if (!(n > 0)) return -1;
    for (int k = 0; k < 3; k++) v[k] /= n;
    return 0;
}

/* A plane of PlaneROI, prepared: p0, p2, the unit normals of its sides and of the plane, its extents. */
enum { PLANE_P0 = 0, PLANE_P2 = 3, PLANE_N0 = 6, PLANE_N1 = 9, PLANE_N2 = 12, PLANE_N3 = 15, PLANE_DEPTH_N = 18,
       PLANE_WIDTH = 21, PLANE_LENGTH = 22, PLANE_HALF_DEPTH = 23, PLANE_SIZE = 24 };

/* SOFA's PlaneROI::computePlane: p0 p1 p2 span a parallelogram (p3 = p0 + p2 - p1), `depth` thick about it. */
static int prepare_plane(const double *in, double *pl)
{
    const double *p0 = in, *p1 = in + 3, *p2 = in + 6;
    double a[3], b[3], vd[3], p3[3], p4[3], p6[3], e[3], f[3];
    for (int k = 0; k < 3; k++) a[k] = p1[k] - p0[k], b[k] = p2[k] - p0[k];
    pf_cross(a, b, vd);
    if (unit(vd)) return -1;
    for (int k = 0; k < 3; k++) {
        p3[k] = p0[k] + p2[k] - p1[k];
        p4[k] = p0[k] + vd[k] * in[9] / 2;
        p6[k] = p2[k] + vd[k] * in[9] / 2;
    }
    double *n0 = pl + PLANE_N0, *n1 = pl + PLANE_N1, *n2 = pl + PLANE_N2, *n3 = pl + PLANE_N3;
    for (int k = 0; k < 3; k++) e[k] = p4[k] - p0[k];
    pf_cross(a, e, n0); /* (p1 - p0) x (p4 - p0) */
    for (int k = 0; k < 3; k++) a[k] = p2[k] - p3[k], e[k] = p6[k] - p3[k];
    pf_cross(a, e, n1); /* (p2 - p3) x (p6 - p3) */
    for (int k = 0; k < 3; k++) a[k] = p3[k] - p0[k], e[k] = p4[k] - p0[k];
    pf_cross(a, e, n2); /* (p3 - p0) x (p4 - p0) */
    for (int k = 0; k < 3; k++) a[k] = p2[k] - p1[k], f[k] = p6[k] - p2[k];
    pf_cross(a, f, n3); /* (p2 - p1) x (p6 - p2) */
    /* with depth 0 the side normals vanish and, as in SOFA (a zero vector stays zero), the sides bound nothing:
     * every point of the plane is in */
    unit(n0), unit(n1), unit(n2), unit(n3);
    memcpy(pl + PLANE_P0, p0, 3 * sizeof *pl);
    memcpy(pl + PLANE_P2, p2, 3 * sizeof *pl);
    memcpy(pl + PLANE_DEPTH_N, vd, 3 * sizeof *pl);
    pl[PLANE_WIDTH] = fabs(dot(b, n0));
    pl[PLANE_LENGTH] = fabs(dot(b, n2));
    pl[PLANE_HALF_DEPTH] = fabs(in[9] / 2);
    return 0;
}

/* SOFA's PlaneROI::isPointInPlane */
static int in_plane(const double *p, const double *pl)
{
    double v0[3], v1[3];
    for (int k = 0; k < 3; k++) v0[k] = p[k] - pl[PLANE_P0 + k], v1[k] = p[k] - pl[PLANE_P2 + k];
    return fabs(dot(v0, pl + PLANE_N0)) <= pl[PLANE_WIDTH] && fabs(dot(v1, pl + PLANE_N1)) <= pl[PLANE_WIDTH] &&
           fabs(dot(v0, pl + PLANE_N2)) <= pl[PLANE_LENGTH] && fabs(dot(v1, pl + PLANE_N3)) <= pl[PLANE_LENGTH] &&
           fabs(dot(v0, pl + PLANE_DEPTH_N)) <= pl[PLANE_HALF_DEPTH];
}

/* PlaneROI plane="p0x p0y p0z p1x p1y p1z p2x p2y p2z depth ...": points in the parallelogram p0 p1 p2 grown
 * `depth`/2 to each side of it (SOFA's test; with depth 0, every point on the plane). */
int sc_plane_roi(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double *v = NULL;
    size_t n = 0;
    int rc = sc_parse_reals(c, "plane", &v, &n);
    ignore_roi_extras(c);
    if (rc >= 0 && (n == 0 || n % 10))
        rc = pf_scene_component_error(c, PF_EPARSE, "PlaneROI: 'plane' needs 10 numbers per plane (3 corners and a "
                                      "depth), got %zu", n);
    double *pl = NULL;
    if (rc >= 0 && !(pl = pf_malloc(n / 10 * PLANE_SIZE * sizeof *pl))) rc = pf_error(PF_ENOMEM, "out of memory");
    for (size_t k = 0; rc >= 0 && k < n / 10; k++)
        if (prepare_plane(v + 10 * k, pl + PLANE_SIZE * k))
            rc = pf_scene_component_error(c, PF_EINVAL, "PlaneROI: plane %zu: its three corners are on a line", k);
    pf_free(v);
    if (rc >= 0) rc = select_points(c, pl, n / 10, PLANE_SIZE, in_plane);
    pf_free(pl);
    return rc < 0 ? rc : PF_OK;
}

/* shape: the inclusive box then the included one (xmin ymin zmin xmax ymax zmax each, bounds in order) */
static int in_pair(const double *p, const double *s)
{
    int in[2];
    for (int b = 0; b < 2; b++) {
        const double *box = s + 6 * b;
        in[b] = p[0] >= box[0] && p[0] <= box[3] && p[1] >= box[1] && p[1] <= box[4] && p[2] >= box[2] &&
                p[2] <= box[5];
    }
    return in[0] && !in[1];
}

/* PairBoxROI inclusiveBox="..." includedBox="...": the points inside the first box and not inside the second (the
 * shell between them; bounds included, each box's bounds put in order), SOFA's PairBoxROI::doUpdate; either box
 * left at zero selects nothing, as there. */
int sc_pair_box_roi(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double s[12] = {0};
    int rc;
    if ((rc = pf_scene_component_reals(c, "inclusiveBox", 6, s)) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "includedBox", 6, s + 6)) < 0) return rc;
    ignore_roi_extras(c);
    static const char *const drawn[] = {"drawInclusiveBox", "drawIncludedBox", "meshPosition", "rest_position"};
    SC_IGNORE_ATTRS(c, drawn);
    int zero = 0;
    for (int b = 0; b < 2; b++) {
        double *box = s + 6 * b;
        int all = 1;
        for (int k = 0; k < 6; k++) all &= box[k] == 0;
        zero |= all;
        for (int d = 0; d < 3; d++)
            if (box[d] > box[3 + d]) {
                double t = box[d];
                box[d] = box[3 + d];
                box[3 + d] = t;
            }
    }
    if (zero) pf_scene_component_warning(c, "PairBoxROI: a box left at zero: no point selected, as in SOFA");
    return select_points(c, s, zero ? 0 : 1, 12, in_pair);
}
