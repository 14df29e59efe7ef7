/* STATE-stage components: what a node's object is (MechanicalObject, topologies, mesh loader, mass), how it is
 * integrated (solvers, which child nodes inherit) and the scene's collision pipeline settings. */
#include "components.h"
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"
#include "physics/rotation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* MechanicalObject template="Rigid3d": one frame, position "x y z qx qy qz qw" and velocity "vx vy vz wx wy wz"
 * (SOFA's orders; the angular velocity in the world frame). */
static int rigid_object(pf_scene_component *c, sc_node *n)
{
    double pose[7] = {0, 0, 0, 0, 0, 0, 1}, twist[6] = {0, 0, 0, 0, 0, 0};
    int rc;
    /* SOFA's Rigid3d object may hold several frames (a beam's nodes, BeamFEMForceField); PhysFlow's rigid object is
     * one body, one frame */
    double *frames;
    size_t m;
    if ((rc = sc_parse_reals(c, "position", &frames, &m)) < 0) return rc;
    if (rc == 1 && m > 7 && m % 7 == 0) return sc_beam_frames(c, n, frames, m / 7); /* a beam's nodes */
    if (rc == 1) pf_free(frames);
    if ((rc = pf_scene_component_reals(c, "position", 7, pose)) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "velocity", 6, twist)) < 0) return rc;
    sc_mo_transform t;
    if ((rc = sc_mo_transform_read(c, &t)) < 0) return rc;
    double q2 = pose[3] * pose[3] + pose[4] * pose[4] + pose[5] * pose[5] + pose[6] * pose[6];
    if (!(q2 > 1e-20))
        return pf_scene_component_error(c, PF_EINVAL, "MechanicalObject: the Rigid3d orientation quaternion is zero");
    pf_scene_component_ignore(c, "rest_position");
    pf_scene_component_ignore(c, "showObjectScale");
    double qn = sqrt(q2);
    n->rigid = 1;
    memcpy(n->pose, pose, 3 * sizeof *pose);
    n->pose[3] = pose[6] / qn; /* (w, x, y, z) */
    n->pose[4] = pose[3] / qn;
    n->pose[5] = pose[4] / qn;
    n->pose[6] = pose[5] / qn;
    sc_mo_transform_frame(&t, n->pose); /* the old dx dy dz rx ry rz scale of SOFA's Rigid3 objects among them */
    n->mo_transform = t;
    memcpy(n->twist, twist, sizeof twist);
    n->mo_line = pf_scene_component_line(c);
    return PF_OK;
}

/* PhysFlow's own attributes: decompose="auto|on|off" and blockElements (pf_object_def.decompose, block_elements) */
static int decomposition(pf_scene_component *c, sc_node *n)
{
    static const char *const modes[] = {"auto", "on", "off"};
    const char *mode = pf_scene_component_string(c, "decompose");
    if (mode) {
        int k = 0;
        while (k < 3 && strcmp(mode, modes[k])) k++;
        if (k == 3)
            return pf_scene_component_error(c, PF_EPARSE, "MechanicalObject: decompose must be auto, on or off, got "
                                            "'%s'", mode);
        n->def.decompose = (pf_decompose)k;
    }
    double be = 0;
    int rc = pf_scene_component_real(c, "blockElements", 1, 1e9, &be);
    if (rc < 0) return rc;
    if (rc == 1 && be != (uint32_t)be)
        return pf_scene_component_error(c, PF_EPARSE, "MechanicalObject: blockElements must be a whole number, got %g",
                                        be);
    n->def.block_elements = (uint32_t)be;
    return PF_OK;
}

int sc_parse_coords(pf_scene_component *c, const char *attr, double **out, size_t *n)
{
    int dim = c->node->coords;
    int rc = sc_parse_reals(c, attr, out, n);
    if (rc != 1 || !dim) return rc;
    if (*n % (size_t)dim) {
        pf_free(*out);
        *out = NULL;
        return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' needs %d number%s per point (template Vec%dd), got "
                                        "%zu numbers", TYPE(c), attr, dim, dim > 1 ? "s" : "", dim, *n);
    }
    size_t np = *n / (size_t)dim;
    double *x = pf_calloc(np ? 3 * np : 1, sizeof *x);
    if (!x) {
        pf_free(*out);
        *out = NULL;
        return pf_scene_component_error(c, PF_ENOMEM, "%s: out of memory", TYPE(c));
    }
    for (size_t p = 0; p < np; p++) memcpy(x + 3 * p, *out + (size_t)dim * p, (size_t)dim * sizeof *x);
    pf_free(*out);
    *out = x;
    *n = 3 * np;
    return 1;
}

/* rest_position, when written out (a link, "@...", stays ignored): kept on the node for the components that rest
 * there (RestShapeSpringsForceField, PolynomialRestShapeSpringsForceField); the others rest at the initial
 * positions, so a rest_position other than `position` is a warning */
static int rest_positions(pf_scene_component *c, sc_node *n)
{
    const char *raw = sc_raw_attr(c, "rest_position");
    if (!raw || strchr(raw, '@')) {
        pf_scene_component_ignore(c, "rest_position");
        return PF_OK;
    }
    double *r;
    size_t m;
    int rc = sc_parse_coords(c, "rest_position", &r, &m);
    if (rc < 0) return rc;
    if (m % 3 || m / 3 > (1u << 28)) {
        pf_free(r);
        return pf_scene_component_error(c, PF_EPARSE, "MechanicalObject: 'rest_position' needs 3 numbers per point, "
                                        "got %zu numbers", m);
    }
    n->rest_positions = r;
    n->nrest_positions = (uint32_t)(m / 3);
    if (!n->positions || n->npositions != n->nrest_positions || memcmp(r, n->positions, m * sizeof *r))
        pf_scene_component_warning(c, "MechanicalObject: rest_position differs from position: only "
                                   "RestShapeSpringsForceField and PolynomialRestShapeSpringsForceField rest there, "
                                   "PhysFlow's other components rest at the initial positions");
    return PF_OK;
}

static int mesh_points_from_state(pf_scene_component *c, sc_node *n);

int sc_mechanical_object(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sc_node *n = c->node;
    if (n->mo_line)
        return pf_scene_component_error(c, PF_EPARSE, "a second MechanicalObject in node '%s' (the first is at line "
                                        "%d)", n->name, n->mo_line);
    const char *tpl = pf_scene_component_string(c, "template");
    /* "Rigid": SOFA's alias of Rigid3d, in its older scenes */
    if (tpl && (!strcmp(tpl, "Rigid3d") || !strcmp(tpl, "Rigid3") || !strcmp(tpl, "Rigid"))) return rigid_object(c, n);
    if (tpl && (!strcmp(tpl, "Vec1d") || !strcmp(tpl, "Vec1"))) n->coords = 1;
    else if (tpl && (!strcmp(tpl, "Vec2d") || !strcmp(tpl, "Vec2"))) n->coords = 2;
    else if (tpl && strcmp(tpl, "Vec3d") && strcmp(tpl, "Vec3"))
        return pf_scene_component_error(c, PF_EPARSE, "MechanicalObject: unknown template '%s' (Vec3d, Vec2d, Vec1d "
                                        "or Rigid3d)", tpl);
    double *v;
    size_t m;
    int rc = sc_parse_coords(c, "position", &v, &m);
    if (rc < 0) return rc;
    if (rc == 1) {
        if (m == 0 || m % 3 || m / 3 > (1u << 28)) {
            pf_free(v);
            return pf_scene_component_error(c, PF_EPARSE, "MechanicalObject: 'position' needs 3 numbers per point "
                                            "(at least one point), got %zu numbers", m);
        }
        n->positions = v;
        n->npositions = (uint32_t)(m / 3);
        if (n->mesh_points_line && n->topology == SC_TOPO_MESH && (rc = mesh_points_from_state(c, n)))
            return rc;
    }
    if ((rc = sc_parse_coords(c, "velocity", &v, &m)) < 0) return rc;
    if (rc == 1) {
        if (m % 3) {
            pf_free(v);
            return pf_scene_component_error(c, PF_EPARSE, "MechanicalObject: 'velocity' needs 3 numbers per point, "
                                            "got %zu numbers", m);
        }
        n->velocities = v;
        n->nvelocities = (uint32_t)(m / 3);
    }
    /* scale3d, rotation, translation: applied to the node's points once its topology is known
     * (sc_mo_transform_apply); components reading positions see them moved, their own boxes and points are not */
    if ((rc = sc_mo_transform_read(c, &n->mo_transform)) < 0) return rc;
    if (n->mo_transform.second)
        return pf_scene_component_error(c, PF_ENOTSUP, "MechanicalObject: rotation2 / translation2 (rx2.. dx2..) move "
                                        "the points away from their rest positions (SOFA applies them after storing "
                                        "these): PhysFlow's objects rest where they start; use rotation / "
                                        "translation");
    if ((rc = rest_positions(c, n)) < 0) return rc;
    pf_scene_component_ignore(c, "showObjectScale");
    if ((rc = decomposition(c, n))) return rc;
    n->mo_line = pf_scene_component_line(c);
    return PF_OK;
}

int sc_mo_positions_from_topology(const sc_node *n)
{
    return n->positions && n->npositions <= 1 &&
           (n->topology == SC_TOPO_GRID || (n->topology == SC_TOPO_MESH && n->mesh.npoints > 1)) &&
           (!n->velocities || n->nvelocities <= 1);
}

static int claim_topology(pf_scene_component *c, sc_topology kind)
{
    sc_node *n = c->node;
    if (n->topology == SC_TOPO_MESH && n->topology_loader) { /* a loader's mesh taken for want of a container */
        sc_mesh_free(&n->mesh);
        n->topology = SC_TOPO_NONE;
        n->topology_loader = NULL;
    }
    if (n->topology != SC_TOPO_NONE)
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' already has a topology (line %d)", TYPE(c),
                                        n->name, n->topology_line);
    n->topology = kind;
    n->topology_line = pf_scene_component_line(c);
    return PF_OK;
}

int sc_claim_topology(pf_scene_component *c, sc_topology kind)
{
    return claim_topology(c, kind);
}

/* One axis value given either in a vector attribute (n, min, max) or alone (nx, xmin, ...). */
static int grid_axis_attr(pf_scene_component *c, const char *const names[3], double v[3])
{
    for (int d = 0; d < 3; d++) {
        int rc = pf_scene_component_reals(c, names[d], 1, &v[d]);
        if (rc < 0) return rc;
    }
    return PF_OK;
}

/* A RegularGridTopology with max below min along some axis: SOFA steps from min towards max all the same
 * (RegularGridTopology::setPos: dx = (max - min) / (n - 1) < 0), so point (i, j, k) = first + (i, j, k) steps runs
 * down that axis, numbered as any grid's, its cells mirrored. PhysFlow's grid objects run up every axis
 * (pf_object_def.grid_max > grid_min): this grid becomes the node's mesh, SOFA's points in SOFA's order with its
 * cells (hexahedra, or a flat grid's quads and their triangles); grid_points keeps its shape for
 * RegularGridSpringForceField and grid_cells for Hexa2TetraTopologicalMapping's swapping. */
static int grid_as_mesh(const int g[3], const double first[3], const double last[3], sc_mesh *out)
{
    sc_mesh m;
    PF_TRY(sc_grid_mesh(g, first, last, &m));
    uint32_t *q = NULL, nq = 0;
    int rc = sc_grid_quads(g, &q, &nq);
    if (!rc && nq && !(m.tris = pf_malloc((size_t)nq * 6 * sizeof *m.tris)))
        rc = pf_error(PF_ENOMEM, "out of memory for a grid's triangles");
    if (rc) {
        pf_free(q);
        sc_mesh_free(&m);
        return rc;
    }
    for (uint32_t k = 0; k < nq; k++) { /* each quad's triangles (0 1 2) (0 2 3), as sc_mesh keeps them */
        const uint32_t *v = q + 4 * (size_t)k;
        const uint32_t t[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
        memcpy(m.tris + 6 * (size_t)k, t, sizeof t);
    }
    m.quads = q;
    m.nquads = nq;
    m.ntris = 2 * nq;
    *out = m;
    return PF_OK;
}

/* the grid's shape kept for the components that follow a grid's numbering */
static void keep_grid_shape(sc_node *n, const int g[3])
{
    for (int k = 0; k < 3; k++) n->grid_points[k] = g[k];
    n->grid_cells[0] = g[0] - 1;
    n->grid_cells[1] = g[1] - 1;
}

static int mirrored_grid(pf_scene_component *c, const double n[3], const double first[3], const double last[3])
{
    const int g[3] = {(int)n[0], (int)n[1], (int)n[2]};
    sc_mesh m;
    int rc;
    PF_TRY(grid_as_mesh(g, first, last, &m));
    if ((rc = claim_topology(c, SC_TOPO_MESH))) {
        sc_mesh_free(&m);
        return rc;
    }
    c->node->mesh = m;
    keep_grid_shape(c->node, g);
    return PF_OK;
}

int sc_grid_topology_to_mesh(sc_node *n)
{
    pf_object_def *d = &n->def;
    sc_mesh m;
    PF_TRY(grid_as_mesh(d->grid, d->grid_min, d->grid_max, &m));
    sc_mesh_free(&n->mesh);
    n->mesh = m;
    n->topology = SC_TOPO_MESH;
    keep_grid_shape(n, d->grid);
    memset(d->grid, 0, sizeof d->grid);
    memset(d->grid_min, 0, sizeof d->grid_min);
    memset(d->grid_max, 0, sizeof d->grid_max);
    return PF_OK;
}

int sc_regular_grid_topology(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double n[3] = {2, 2, 2}, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int rc;
    if ((rc = pf_scene_component_reals(c, "n", 3, n)) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "min", 3, lo)) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "max", 3, hi)) < 0) return rc;
    static const char *const ns[3] = {"nx", "ny", "nz"}, *const mins[3] = {"xmin", "ymin", "zmin"},
                             *const maxs[3] = {"xmax", "ymax", "zmax"};
    if ((rc = grid_axis_attr(c, ns, n)) || (rc = grid_axis_attr(c, mins, lo)) || (rc = grid_axis_attr(c, maxs, hi)))
        return rc;
    double p0[3];
    int has_p0 = pf_scene_component_reals(c, "p0", 3, p0);
    if (has_p0 < 0) return has_p0;
    pf_scene_component_ignore(c, "computeHexaList");
    pf_scene_component_ignore(c, "computeQuadList");
    pf_scene_component_ignore(c, "computeTriangleList");
    pf_scene_component_ignore(c, "computeEdgeList");
    double total = 1;
    for (int d = 0; d < 3; d++) {
        if (n[d] < 1 || n[d] != floor(n[d]))
            return pf_scene_component_error(c, PF_EINVAL, "RegularGridTopology: empty grid: %g points along axis %c "
                                            "(an integer >= 1 is needed)", n[d], "xyz"[d]);
        if (n[d] > (1 << 20))
            return pf_scene_component_error(c, PF_EINVAL, "RegularGridTopology: %g points along axis %c is too many",
                                            n[d], "xyz"[d]);
        if (n[d] > 1 && hi[d] == lo[d])
            return pf_scene_component_error(c, PF_EINVAL, "RegularGridTopology: max %g equals min along axis %c: "
                                            "%g points need two different ends", hi[d], "xyz"[d], n[d]);
        total *= n[d];
    }
    if (total > (double)(1u << 28))
        return pf_scene_component_error(c, PF_EINVAL, "RegularGridTopology: %g points is too many", total);
    /* p0: SOFA's first point when given (RegularGridTopology::setPos keeps it), the steps still (max - min) / (n - 1):
     * the grid moves by p0 - min */
    double first[3], last[3];
    int down = 0;
    for (int k = 0; k < 3; k++) {
        first[k] = has_p0 ? p0[k] : lo[k];
        last[k] = has_p0 ? p0[k] + (hi[k] - lo[k]) : hi[k];
        down |= n[k] > 1 && hi[k] < lo[k];
    }
    if (down) return mirrored_grid(c, n, first, last);
    if ((rc = claim_topology(c, SC_TOPO_GRID))) return rc;
    pf_object_def *d = pf_scene_component_object_def(c);
    for (int k = 0; k < 3; k++) {
        d->grid[k] = (int)n[k];
        d->grid_min[k] = first[k];
        d->grid_max[k] = last[k];
    }
    return PF_OK;
}

/* CylinderGridTopology: SOFA's GridTopology of n points per axis (the grid's numbering and cells, as a
 * RegularGridTopology's) placed in a cylinder: each (i, j) layer is the square [-r, r]^2 pulled radially onto the
 * disc (a point keeps its direction, at the distance max(|x|, |y|) from the axis), layer k at k length / (nz - 1)
 * along the axis from `center` (CylinderGridTopology::getPointInGrid). Its frame: z the axis, x the world's x (its
 * y when the axis is x), y = z x x, x = y x z. A mesh of hexahedra (quads when nz = 1). */
int sc_cylinder_grid_topology(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double n[3] = {2, 2, 2}, center[3] = {0, 0, 0}, axis[3] = {0, 0, 1}, r = 1, length = 1;
    int rc;
    static const char *const ns[3] = {"nx", "ny", "nz"};
    if ((rc = pf_scene_component_reals(c, "n", 3, n)) < 0 || (rc = grid_axis_attr(c, ns, n)) < 0 ||
        (rc = pf_scene_component_reals(c, "center", 3, center)) < 0 ||
        (rc = pf_scene_component_reals(c, "axis", 3, axis)) < 0 ||
        (rc = pf_scene_component_real(c, "radius", -1e300, 1e300, &r)) < 0 ||
        (rc = pf_scene_component_real(c, "length", -1e300, 1e300, &length)) < 0)
        return rc;
    pf_scene_component_ignore(c, "p0");
    pf_scene_component_ignore(c, "computeHexaList");
    pf_scene_component_ignore(c, "computeQuadList");
    pf_scene_component_ignore(c, "computeTriangleList");
    pf_scene_component_ignore(c, "computeEdgeList");
    double total = 1;
    for (int d = 0; d < 3; d++) {
        /* SOFA spreads x and y over n - 1 steps across the disc: one point there has no place */
        int least = d < 2 ? 2 : 1;
        if (n[d] < least || n[d] != floor(n[d]) || n[d] > (1 << 20))
            return pf_scene_component_error(c, PF_EINVAL, "%s: %g points along axis %c (an integer in [%d, %d] is "
                                            "needed)", TYPE(c), n[d], "xyz"[d], least, 1 << 20);
        total *= n[d];
    }
    if (total > (double)(1u << 28))
        return pf_scene_component_error(c, PF_EINVAL, "%s: %g points is too many", TYPE(c), total);
    if (!(r > 0 && isfinite(r)))
        return pf_scene_component_error(c, PF_EINVAL, "%s: radius must be > 0, got %g", TYPE(c), r);
    if (!(length > 0 && isfinite(length)))
        return pf_scene_component_error(c, PF_EINVAL, "%s: length must be > 0, got %g", TYPE(c), length);
    double la = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(la > 0 && isfinite(la)))
        return pf_scene_component_error(c, PF_EINVAL, "%s: axis must be a nonzero vector, got %g %g %g", TYPE(c),
                                        axis[0], axis[1], axis[2]);
    double Z[3] = {axis[0] / la, axis[1] / la, axis[2] / la}, X[3] = {1, 0, 0}, Y[3];
    double dz[3] = {Z[0] - 1, Z[1], Z[2]};
    if (sqrt(dz[0] * dz[0] + dz[1] * dz[1] + dz[2] * dz[2]) < 1e-6) X[0] = 0, X[1] = 1;
    pf_cross(Z, X, Y);
    pf_cross(Y, Z, X);
    double lx = sqrt(X[0] * X[0] + X[1] * X[1] + X[2] * X[2]), ly = sqrt(Y[0] * Y[0] + Y[1] * Y[1] + Y[2] * Y[2]);
    for (int a = 0; a < 3; a++) X[a] /= lx, Y[a] /= ly;
    const int g[3] = {(int)n[0], (int)n[1], (int)n[2]};
    sc_mesh m;
    PF_TRY(sc_grid_mesh(g, (const double[3]){0, 0, 0}, (const double[3]){1, 1, 1}, &m));
    for (int k = 0; k < g[2]; k++)
        for (int j = 0; j < g[1]; j++)
            for (int i = 0; i < g[0]; i++) {
                double p[3] = {i * 2 * r / (g[0] - 1) - r, j * 2 * r / (g[1] - 1) - r, 0};
                double norm = sqrt(p[0] * p[0] + p[1] * p[1]);
                if (norm > 1e-7) {
                    double s = fmax(fabs(p[0]), fabs(p[1])) / norm;
                    p[0] *= s, p[1] *= s;
                }
                if (g[2] > 1) p[2] = k * length / (g[2] - 1);
                double *q = m.points + 3 * ((size_t)i + (size_t)g[0] * ((size_t)j + (size_t)g[1] * (size_t)k));
                for (int a = 0; a < 3; a++) q[a] = center[a] + X[a] * p[0] + Y[a] * p[1] + Z[a] * p[2];
            }
    if (g[2] == 1) { /* one layer: GridTopology's quads, (i, j) around each cell, and their two triangles each */
        uint32_t nq = (uint32_t)((g[0] - 1) * (g[1] - 1));
        if (!(m.quads = pf_malloc((size_t)nq * 4 * sizeof *m.quads)) ||
            !(m.tris = pf_malloc((size_t)nq * 6 * sizeof *m.tris))) {
            sc_mesh_free(&m);
            return pf_error(PF_ENOMEM, "out of memory for a cylinder's quads");
        }
        uint32_t q = 0;
        for (int j = 0; j + 1 < g[1]; j++)
            for (int i = 0; i + 1 < g[0]; i++, q++) {
                uint32_t p = (uint32_t)i + (uint32_t)g[0] * (uint32_t)j, dy = (uint32_t)g[0];
                const uint32_t v[4] = {p, p + 1, p + 1 + dy, p + dy}, t[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
                memcpy(m.quads + 4 * (size_t)q, v, sizeof v);
                memcpy(m.tris + 6 * (size_t)q, t, sizeof t);
            }
        m.nquads = nq;
        m.ntris = 2 * nq;
    }
    if ((rc = claim_topology(c, SC_TOPO_MESH))) {
        sc_mesh_free(&m);
        return rc;
    }
    c->node->mesh = m;
    c->node->grid_cells[0] = g[0] - 1;
    c->node->grid_cells[1] = g[1] - 1;
    return PF_OK;
}

/* Index list attribute with `per` indices per item, each < npoints. */
static int index_list(pf_scene_component *c, const char *attr, size_t per, uint32_t npoints, uint32_t **out,
                      uint32_t *count)
{
    size_t m;
    /* SOFA's MeshTopology also reads its edges, tetrahedra and hexahedra under their aliases `lines`, `tetras` and
     * `hexas` */
    const char *alias = !strcmp(attr, "tetrahedra") ? "tetras"
                        : !strcmp(attr, "hexahedra") ? "hexas"
                        : !strcmp(attr, "edges")     ? "lines"
                                                     : NULL;
    if (alias && !pf_scene_component_string(c, attr) && pf_scene_component_string(c, alias)) attr = alias;
    int rc = sc_parse_uints(c, attr, out, &m);
    *count = 0;
    if (rc <= 0) return rc;
    if (m % per) {
        pf_free(*out);
        *out = NULL;
        return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' needs %zu indices per element, got %zu", TYPE(c),
                                        attr, per, m);
    }
    for (size_t k = 0; k < m; k++)
        if ((*out)[k] >= npoints) {
            uint32_t bad = (*out)[k];
            pf_free(*out);
            *out = NULL;
            return pf_scene_component_error(c, PF_EINVAL, "%s: '%s' index %u is out of range (%u points)", TYPE(c),
                                            attr, bad, npoints);
        }
    *count = (uint32_t)(m / per);
    return 1;
}

/* whether a MechanicalObject with `position` follows element el in its node */
static int state_positions_follow(const xmlNode *el)
{
    for (const xmlNode *e = el->next; e; e = e->next)
        if (e->type == XML_ELEMENT_NODE && !xmlStrcmp(e->name, (const xmlChar *)"MechanicalObject"))
            return xmlHasProp(e, (const xmlChar *)"position") != NULL;
    return 0;
}

/* The mesh of a MeshTopology of elements only (mesh_points_line) takes the node's MechanicalObject's
 * positions as its points; every element's points must be among them. */
static int mesh_points_from_state(pf_scene_component *c, sc_node *n)
{
    sc_mesh *m = &n->mesh;
    const uint32_t *lists[5] = {m->edges, m->tris, m->quads, m->tetra, m->hexa};
    const size_t counts[5] = {2 * (size_t)m->nedges, 3 * (size_t)m->ntris, 4 * (size_t)m->nquads,
                              4 * (size_t)m->ntetra, 8 * (size_t)m->nhexa};
    for (int k = 0; k < 5; k++)
        for (size_t j = 0; j < counts[k]; j++)
            if (lists[k][j] >= n->npositions)
                return pf_scene_component_error(c, PF_EINVAL,
                                                "MechanicalObject: the topology (line %d) uses point %u, "
                                                "but 'position' gives %u points",
                                                n->mesh_points_line, lists[k][j], n->npositions);
    size_t bytes = 3 * (size_t)n->npositions * sizeof *m->points;
    if (!(m->points = pf_malloc(bytes))) return pf_error(PF_ENOMEM, "out of memory");
    memcpy(m->points, n->positions, bytes);
    m->npoints = n->npositions;
    n->mesh_points_line = 0;
    return PF_OK;
}

/* MeshTopology, EdgeSetTopologyContainer: points (`position`, or the node's MechanicalObject's when it gave
 * them first or, for a topology of elements only, right after it), edges, triangles, quads (two triangles
 * each), hexahedra. */
int sc_mesh_topology(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sc_mesh m = {0};
    size_t np = 0;
    int rc = sc_topology_file(c, &m); /* a mesh file of its own (SOFA's `filename`, `fileTopology`) */
    if (rc < 0) return rc;
    if (rc == 1) {
        static const char *const given[] = {"position",  "points",    "edges",  "lines", "triangles",
                                            "quads",     "tetrahedra", "tetras", "hexahedra", "hexas"};
        for (size_t k = 0; k < sizeof given / sizeof *given; k++)
            if (pf_scene_component_string(c, given[k])) {
                sc_mesh_free(&m);
                return pf_scene_component_error(c, PF_EPARSE, "%s: give a mesh file or '%s', not both", TYPE(c),
                                                given[k]);
            }
        if ((rc = claim_topology(c, SC_TOPO_MESH))) {
            sc_mesh_free(&m);
            return rc;
        }
        c->node->mesh = m;
        return PF_OK;
    }
    /* SOFA's alias of `position` here: `points` */
    rc = sc_parse_coords(c, pf_scene_component_string(c, "position") ? "position" : "points", &m.points, &np);
    if (rc < 0) return rc;
    if (rc == 0 && c->node->positions) { /* SOFA's topology containers take the points of the state */
        np = 3 * (size_t)c->node->npositions;
        if (!(m.points = pf_malloc(np * sizeof *m.points))) return pf_error(PF_ENOMEM, "out of memory");
        memcpy(m.points, c->node->positions, np * sizeof *m.points);
    }
    int lists = 0; /* a container without points nor elements waits for a topological mapping to fill it */
    static const char *const list_attrs[] = {"edges", "lines", "triangles", "quads", "tetrahedra", "tetras",
                                             "hexahedra", "hexas"};
    for (size_t k = 0; k < sizeof list_attrs / sizeof *list_attrs; k++)
        lists |= pf_scene_component_string(c, list_attrs[k]) != NULL;
    if (np == 0 && rc == 0 && !lists && c->node->topology_source) return PF_OK; /* a mapping above filled it */
    /* an empty container beside a RegularGridTopology waits too: a topological mapping of the node's own grid
     * (Hexa2TetraTopologicalMapping input="@grid") fills it on the grid's points */
    if (np == 0 && rc == 0 && !lists && !c->node->pending_container &&
        (c->node->topology == SC_TOPO_NONE || (c->node->topology == SC_TOPO_GRID && !c->node->sparse))) {
        c->node->pending_container = c->el;
        return PF_OK;
    }
    /* elements only, the node's MechanicalObject after it with positions: its points, once read (SOFA's
     * MeshTopology without points indexes the state's) */
    int later = np == 0 && rc == 0 && lists && !c->node->mo_line && state_positions_follow(c->el);
    if (!later && (np == 0 || np % 3)) {
        pf_free(m.points);
        return pf_scene_component_error(c, PF_EPARSE, "%s: 'position' needs 3 numbers per point (at least one "
                                        "point), got %zu numbers%s", TYPE(c), np,
                                        rc == 0 ? " (none, and no MechanicalObject before it gave positions)" : "");
    }
    m.npoints =
        later ? UINT32_MAX : (uint32_t)(np / 3); /* later: the indices are checked against the state's */
    if ((rc = index_list(c, "edges", 2, m.npoints, &m.edges, &m.nedges)) < 0 ||
        (rc = index_list(c, "triangles", 3, m.npoints, &m.tris, &m.ntris)) < 0 ||
        (rc = index_list(c, "quads", 4, m.npoints, &m.quads, &m.nquads)) < 0 ||
        (rc = index_list(c, "tetrahedra", 4, m.npoints, &m.tetra, &m.ntetra)) < 0 ||
        (rc = index_list(c, "hexahedra", 8, m.npoints, &m.hexa, &m.nhexa)) < 0) {
        sc_mesh_free(&m);
        return rc;
    }
    if (m.nquads) { /* quads become two triangles each, as SOFA's triangle collision does */
        uint32_t *t = pf_realloc(m.tris, (size_t)m.ntris * 3 * sizeof *t,
                                 ((size_t)m.ntris + 2 * (size_t)m.nquads) * 3 * sizeof *t);
        if (!t) {
            sc_mesh_free(&m);
            return pf_error(PF_ENOMEM, "out of memory");
        }
        m.tris = t;
        for (uint32_t q = 0; q < m.nquads; q++) {
            const uint32_t *v = m.quads + 4 * (size_t)q;
            uint32_t *d = m.tris + 3 * (size_t)m.ntris;
            d[0] = v[0], d[1] = v[1], d[2] = v[2], d[3] = v[0], d[4] = v[2], d[5] = v[3];
            m.ntris += 2;
        }
    }
    if (later) m.npoints = 0;
    if ((rc = claim_topology(c, SC_TOPO_MESH))) {
        sc_mesh_free(&m);
        return rc;
    }
    c->node->mesh = m;
    if (later) c->node->mesh_points_line = pf_scene_component_line(c), c->node->mesh_points_type = TYPE(c);
    return PF_OK;
}

/* PointSetTopologyContainer: a topology of points only. With `position` it gives the node's points (as
 * MeshTopology); without, the node's points are its state's, and a loader's mesh the node took for want of a
 * container loses its elements (SOFA's topology of the node is then the point set). */
int sc_point_set_topology(pf_scene_component *c, void *ctx)
{
    sc_node *n = c->node;
    static const char *const lists[] = {"edges", "triangles", "quads", "tetrahedra", "hexahedra"};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
        if (pf_scene_component_string(c, lists[k]))
            return pf_scene_component_error(c, PF_EPARSE, "%s: a point set has no %s (a MeshTopology or a "
                                            "container of that element lists them)", TYPE(c), lists[k]);
    pf_scene_component_ignore(c, "nbPoints");
    pf_scene_component_ignore(c, "checkTopology");
    if (pf_scene_component_string(c, "position")) return sc_mesh_topology(c, ctx);
    if (n->topology == SC_TOPO_MESH && n->topology_loader && !n->topology_linked) {
        sc_mesh points = {.points = n->mesh.points, .npoints = n->mesh.npoints};
        n->mesh.points = NULL;
        sc_mesh_free(&n->mesh);
        n->mesh = points;
        n->topology_loader = NULL;
        n->topology_line = pf_scene_component_line(c);
    }
    return PF_OK;
}

int sc_mesh_obj_loader(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *file = pf_scene_component_string(c, "filename");
    if (!file || !file[0]) return pf_scene_component_error(c, PF_EPARSE, "MeshObjLoader: attribute 'filename' is missing");
    int rc;
    pf_scene_component_ignore(c, "triangulate");
    pf_scene_component_ignore(c, "flipNormals");
    sc_mesh m = {0};
    if ((rc = sc_read_scene_mesh(c->L, file, &m))) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "MeshObjLoader: %s", copy);
    }
    if ((rc = sc_mesh_loader_transform(c, &m))) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_loader_provide(c, &m);
}

int sc_uniform_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sc_node *n = c->node;
    if (n->mass_line)
        return pf_scene_component_error(c, PF_EPARSE, "a second mass in node '%s' (line %d)", n->name, n->mass_line);
    if (n->beam_frames) return sc_beam_uniform_mass(c); /* Rigid3d masses of a beam's frames */
    double total = 0, vertex = 0;
    int rt, rv;
    if ((rt = pf_scene_component_reals(c, "totalMass", 1, &total)) < 0) return rt;
    if ((rv = pf_scene_component_reals(c, "vertexMass", 1, &vertex)) < 0) return rv;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "showAxisSizeFactor");
    if (rt && rv)
        return pf_scene_component_error(c, PF_EPARSE, "UniformMass: give totalMass or vertexMass, not both");
    /* neither: SOFA before its change #3927 spread its default totalMass of 1 kg over the points, which the example
     * scenes written then count on; SOFA now reports an error and leaves the mass invalid (the object massless) */
    if (!rt && !rv) {
        pf_scene_component_warning(c, "UniformMass: neither totalMass nor vertexMass: totalMass=\"1\" (1 kg over "
                                   "the points), SOFA's default before its change #3927 (SOFA now leaves such a "
                                   "mass invalid)");
        total = 1;
        rt = 1;
    }
    if ((rt && !(total > 0)) || (rv && !(vertex > 0)))
        return pf_scene_component_error(c, PF_EINVAL, "UniformMass: %s must be > 0, got %g",
                                        rt ? "totalMass" : "vertexMass", rt ? total : vertex);
    pf_object_def *d = pf_scene_component_object_def(c);
    d->total_mass = rt ? total : 0;
    if (rv) d->vertex_mass = vertex;
    n->mass_line = pf_scene_component_line(c);
    return PF_OK;
}

/* ---- solvers: set on the node, inherited by the nodes below ---- */

int sc_claim_integrator(pf_scene_component *c, pf_solver_kind kind)
{
    sc_node *n = c->node;
    if (n->solver_line && n->solver_line != (n->parent ? n->parent->solver_line : 0))
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' already has a time integrator (line %d)",
                                        TYPE(c), n->name, n->solver_line);
    n->solver.kind = kind;
    n->solver_line = pf_scene_component_line(c);
    return PF_OK;
}

/* EulerImplicitSolver, and SOFA's BDF1 (velocity-based backward Euler, BDF1.cpp): BDF1's first Newton iteration from
 * (x_n, v_n) solves (M (1 + h rm) - h (h + rk) K) dv = h f + h (h + rk) K v_n - h rm M v_n, EulerImplicitSolver's
 * system, and NewtonRaphsonSolver makes one by default (more: its warning) */
int sc_euler_implicit(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_solver_def *s = &c->node->solver;
    double rm = 0, rk = 0;
    int rc;
    if ((rc = pf_scene_component_real(c, "rayleighMass", 0, 1e300, &rm)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "rayleighStiffness", 0, 1e300, &rk)) < 0) return rc;
    pf_scene_component_ignore(c, "vdamping");
    pf_scene_component_ignore(c, "trapezoidalScheme");
    pf_scene_component_ignore(c, "solveConstraint");
    pf_scene_component_ignore(c, "threadSafeVisitor");
    if ((rc = sc_claim_integrator(c, PF_SOLVER_IMPLICIT_EULER))) return rc;
    s->rayleigh_mass = rm;
    s->rayleigh_stiffness = rk;
    return PF_OK;
}

int sc_euler_explicit(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int symplectic = 1, rc;
    if ((rc = sc_parse_bool(c, "symplectic", &symplectic)) < 0) return rc;
    pf_scene_component_ignore(c, "optimizedForDiagonalMatrix");
    pf_scene_component_ignore(c, "threadSafeVisitor");
    return sc_claim_integrator(c, symplectic ? PF_SOLVER_EXPLICIT_EULER : PF_SOLVER_FORWARD_EULER);
}

int sc_cg_linear_solver(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_solver_def *s = &c->node->solver;
    double it = s->cg_iterations, tol = s->cg_tolerance, thr = s->cg_threshold;
    int rc;
    if ((rc = pf_scene_component_real(c, "iterations", 1, 1e9, &it)) < 0) return rc;
    if (it != floor(it))
        return pf_scene_component_error(c, PF_EINVAL, "%s: iterations %g is not an integer", TYPE(c), it);
    if ((rc = pf_scene_component_real(c, "tolerance", 0, 1e300, &tol)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "threshold", 0, 1e300, &thr)) < 0) return rc;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "warmStart");
    s->cg_iterations = (uint32_t)it;
    s->cg_tolerance = tol;
    s->cg_threshold = thr;
    s->linear_solver = PF_LINEAR_CG;
    return PF_OK;
}

/* PCGLinearSolver: SOFA's preconditioned CG solves the same system as CGLinearSolver; PhysFlow's CG runs without
 * the preconditioner (the same answer within the tolerance, in more iterations), and says so. */
int sc_pcg_linear_solver(pf_scene_component *c, void *ctx)
{
    static const char *const precond[] = {"preconditioner", "preconditioners", "use_precond", "update_step",
                                          "build_precond"};
    for (size_t k = 0; k < sizeof precond / sizeof *precond; k++) /* read: the warning below covers them */
        (void)pf_scene_component_string(c, precond[k]);
    pf_scene_component_warning(c, "%s: solved by PhysFlow's CG without a preconditioner", TYPE(c));
    return sc_cg_linear_solver(c, ctx);
}

/* MinResLinearSolver: SOFA's MINRES (from tminres) on the node's system, which is symmetric positive definite, so
 * CG converges to the same solution; PhysFlow solves it with its CG under MINRES's iterations and tolerance (SOFA's
 * defaults 25 and 1e-5), reading the tolerance as CG's relative residual where MINRES tests ||r|| / (||A|| ||x||),
 * and says so. */
int sc_minres_linear_solver(pf_scene_component *c, void *ctx)
{
    pf_solver_def *s = &c->node->solver;
    s->cg_iterations = 25;
    s->cg_tolerance = 1e-5;
    pf_scene_component_warning(c, "%s: solved by PhysFlow's CG (the system is symmetric positive definite: the same "
                               "solution); its tolerance is read as CG's ||r|| <= tolerance ||b||, where MINRES "
                               "tests ||r|| / (||A|| ||x||)", TYPE(c));
    pf_scene_component_ignore(c, "graph");
    pf_scene_component_ignore(c, "verbose");
    return sc_cg_linear_solver(c, ctx);
}

/* A preconditioner of PCGLinearSolver (JacobiPreconditioner, BlockJacobiPreconditioner, SSORPreconditioner): not
 * applied (sc_pcg_linear_solver). */
int sc_preconditioner(pf_scene_component *c, void *ctx)
{
    pf_scene_component_warning(c, "%s: not applied (PhysFlow's CG runs without a preconditioner)", TYPE(c));
    return sc_accept_companion(c, ctx);
}

/* ---- collision pipeline (scene-level settings, given to pf_world_set_collision) ---- */

static int claim_setting(pf_scene_component *c, int slot, const char *what)
{
    int *line = &c->L->collision_lines[slot];
    if (*line && *line != pf_scene_component_line(c))
        return pf_scene_component_error(c, PF_EPARSE, "%s: the scene already has a %s (line %d)", TYPE(c), what,
                                        *line);
    *line = pf_scene_component_line(c);
    return PF_OK;
}

int sc_collision_pipeline(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_scene_component_ignore(c, "depth");
    pf_scene_component_ignore(c, "verbose");
    pf_scene_component_ignore(c, "draw");
    int rc = claim_setting(c, 0, "collision pipeline");
    if (!rc) c->L->scene->collision.enabled = 1;
    return rc;
}

int sc_brute_force_broad_phase(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int rc = claim_setting(c, 1, "broad phase");
    if (!rc) c->L->scene->collision.broadphase = PF_BP_BRUTE;
    return rc;
}

int sc_broad_phase(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *m = pf_scene_component_string(c, "method");
    if (!m) return pf_scene_component_error(c, PF_EPARSE, "BroadPhase: attribute 'method' is missing");
    pf_broadphase_method bp;
    if (pf_broadphase_method_parse(m, &bp) || bp == PF_BP_KD_RAW)
        return pf_scene_component_error(c, PF_EPARSE, "BroadPhase: unknown method '%s' (kd, hhash, mlhash, grid, "
                                        "sap, brute)", m);
    int rc = claim_setting(c, 1, "broad phase");
    if (!rc) c->L->scene->collision.broadphase = bp;
    return rc;
}

int sc_narrow_phase(pf_scene_component *c, void *ctx)
{
    (void)c;
    (void)ctx;
    return PF_OK; /* BVHNarrowPhase: the narrow phase is chosen by the collision models' kinds */
}

int sc_min_proximity(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_scene_collision *s = &c->L->scene->collision;
    int rc;
    if ((rc = pf_scene_component_real(c, "alarmDistance", 0, 1e300, &s->alarm_distance)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "contactDistance", 0, 1e300, &s->contact_distance)) < 0) return rc;
    pf_scene_component_ignore(c, "useSphereTriangle");
    pf_scene_component_ignore(c, "usePointPoint");
    pf_scene_component_ignore(c, "useLinePoint");
    pf_scene_component_ignore(c, "useLineLine");
    return claim_setting(c, 2, "proximity intersection");
}

/* responseParams: SOFA's "key=value" list joined by '&' ("mu=0.3&tol=1e-6"); PhysFlow's penalty response reads
 * mu (the Coulomb coefficient) and notes the others, which belong to SOFA's constraint-based responses. */
static int response_params(pf_scene_component *c, double *mu)
{
    const char *p = pf_scene_component_string(c, "responseParams");
    while (p && *p) {
        const char *end = strchr(p, '&'), *eq = strchr(p, '=');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!eq || eq >= p + len)
            return pf_scene_component_error(c, PF_EPARSE, "%s: responseParams entry '%.*s' is not key=value", TYPE(c),
                                            (int)len, p);
        if (eq - p == 2 && !strncmp(p, "mu", 2)) {
            char num[64], *stop;
            size_t nl = (size_t)(p + len - eq - 1);
            if (nl == 0 || nl >= sizeof num)
                return pf_scene_component_error(c, PF_EPARSE, "%s: responseParams mu has no value", TYPE(c));
            memcpy(num, eq + 1, nl);
            num[nl] = 0;
            double v = strtod(num, &stop);
            if (*stop || !(v >= 0) || !isfinite(v))
                return pf_scene_component_error(c, PF_EINVAL, "%s: responseParams mu must be a number >= 0, got '%s'",
                                                TYPE(c), num);
            *mu = v;
        } else {
            pf_scene_component_warning(c, "%s: responseParams '%.*s' has no effect on penalty contacts", TYPE(c),
                                       (int)len, p);
        }
        p = end ? end + 1 : NULL;
    }
    return PF_OK;
}

/* DiscreteIntersection: SOFA's exact-intersection method, no distances. PhysFlow's contacts are proximities:
 * alarm and contact distance 0, so surfaces touch only as they meet, and every approaching pair is searched over
 * its motion within the step (docs/physics.md, "Contacts"). */
int sc_discrete_intersection(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_scene_collision *s = &c->L->scene->collision;
    s->alarm_distance = 0;
    s->contact_distance = 0;
    pf_scene_component_warning(c, "%s: proximity contacts with alarm and contact distance 0 (PhysFlow's contacts "
                               "are penalty proximities: MinProximityIntersection sets the distances)", TYPE(c));
    return claim_setting(c, 2, "proximity intersection");
}

int sc_collision_response(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_scene_collision *s = &c->L->scene->collision;
    const char *r = pf_scene_component_string(c, "response");
    /* "PenalityContactForceField" is SOFA's own spelling of the component; both name the penalty response */
    if (r && strcmp(r, "PenaltyContactForceField") && strcmp(r, "PenalityContactForceField") && strcmp(r, "default"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: response '%s' is not supported "
                                        "(PenaltyContactForceField, also spelt PenalityContactForceField)", TYPE(c), r);
    int rc = pf_scene_component_real(c, "stiffness", 0, 1e300, &s->stiffness);
    if (rc < 0) return rc;
    c->L->response_stiffness = rc > 0;
    if ((rc = pf_scene_component_real(c, "damping", 0, 1e300, &s->damping)) < 0) return rc;
    if ((rc = response_params(c, &s->friction)) < 0) return rc;
    s->response = PF_RESPONSE_PENALTY;
    return claim_setting(c, 3, "contact response");
}

int sc_accept(pf_scene_component *c, void *ctx)
{
    (void)c;
    (void)ctx;
    return PF_OK;
}

/* A companion that has nothing to do in PhysFlow (a topology modifier or geometry algorithms of a topology that
 * never changes, a linear system object of a matrix-free CG): accepted with its attributes, which only draw or
 * tune what PhysFlow does not have. */
int sc_accept_companion(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    for (const xmlAttr *a = c->el->properties; a; a = a->next) /* read: taken, with nothing to warn about */
        (void)pf_scene_component_string(c, (const char *)a->name);
    return PF_OK;
}

/* RigidShape (PhysFlow): the shape giving a rigid body's inertia when it has no mesh: type="box" halfExtents, or
 * type="sphere" radius. */
int sc_rigid_shape(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sc_node *n = c->node;
    if (n->shape_line)
        return pf_scene_component_error(c, PF_EPARSE, "RigidShape: node '%s' already has one (line %d)", n->name,
                                        n->shape_line);
    const char *type = pf_scene_component_string(c, "type");
    double half[3] = {0.5, 0.5, 0.5}, r = 0.5;
    int rc;
    if ((rc = pf_scene_component_reals(c, "halfExtents", 3, half)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "radius", -1e300, 1e300, &r)) < 0) return rc;
    if (!type) return pf_scene_component_error(c, PF_EPARSE, "RigidShape: attribute 'type' is missing (box, sphere)");
    if (!strcmp(type, "box")) {
        for (int d = 0; d < 3; d++)
            if (!(half[d] > 0))
                return pf_scene_component_error(c, PF_EINVAL, "RigidShape: halfExtents must be > 0, got %g", half[d]);
        n->shape = PF_RIGID_BOX;
    } else if (!strcmp(type, "sphere")) {
        if (!(r > 0)) return pf_scene_component_error(c, PF_EINVAL, "RigidShape: radius must be > 0, got %g", r);
        n->shape = PF_RIGID_SPHERE;
    } else {
        return pf_scene_component_error(c, PF_EPARSE, "RigidShape: unknown type '%s' (box, sphere)", type);
    }
    memcpy(n->half_extents, half, sizeof half);
    n->radius = r;
    n->shape_line = pf_scene_component_line(c);
    return PF_OK;
}

/* SparseGridTopology n="nx ny nz" fileTopology="mesh.obj": the deformable grid of Hermann et al. 2009, §4.2 — a
 * lattice of n points per axis over the mesh's bounding box grown by 1e-3 of its diagonal on every side (as
 * pf_world_add_deformable_grid sizes it), carrying the mesh (a TRILINEAR surface once a collision model asks). */
int sc_sparse_grid_topology(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double n[3] = {4, 4, 4};
    int rc;
    if ((rc = pf_scene_component_reals(c, "n", 3, n)) < 0) return rc;
    /* SOFA's MeshTopology data `fileTopology`, also spelt `filename` (its alias) */
    const char *file = pf_scene_component_string(c, "fileTopology"), *alias = pf_scene_component_string(c, "filename");
    if (alias && alias[0] && file && file[0] && strcmp(alias, file))
        return pf_scene_component_error(c, PF_EPARSE, "SparseGridTopology: fileTopology '%s' and filename '%s' "
                                        "(SOFA's alias) name two meshes", file, alias);
    if (!file || !file[0]) file = alias;
    pf_scene_component_ignore(c, "nbVirtualFinerLevels");
    pf_scene_component_ignore(c, "finestConnectivity");
    pf_scene_component_ignore(c, "fillWeighted");
    if (!file || !file[0])
        return pf_scene_component_error(c, PF_EPARSE, "SparseGridTopology: attribute 'fileTopology' is missing (or "
                                        "'filename', its alias: the OBJ mesh the grid is built around)");
    for (int d = 0; d < 3; d++)
        if (n[d] < 2 || n[d] > 1024 || n[d] != floor(n[d]))
            return pf_scene_component_error(c, PF_EINVAL, "SparseGridTopology: n along %c must be an integer in "
                                            "[2, 1024], got %g", "xyz"[d], n[d]);
    sc_mesh m = {0};
    if ((rc = sc_read_scene_mesh(c->L, file, &m))) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "SparseGridTopology: %s", copy);
    }
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) lo[a] = hi[a] = m.points[a];
    for (size_t i = 1; i < m.npoints; i++)
        for (int a = 0; a < 3; a++) {
            double p = m.points[3 * i + a];
            lo[a] = p < lo[a] ? p : lo[a];
            hi[a] = p > hi[a] ? p : hi[a];
        }
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
    pf_object_def *d = pf_scene_component_object_def(c);
    for (int a = 0; a < 3; a++) {
        d->grid[a] = (int)n[a];
        d->grid_min[a] = lo[a] - 1e-3 * diag;
        d->grid_max[a] = hi[a] + 1e-3 * diag;
        if (!(d->grid_max[a] > d->grid_min[a])) {
            sc_mesh_free(&m);
            return pf_scene_component_error(c, PF_EINVAL, "SparseGridTopology: the mesh '%s' is flat along %c", file,
                                            "xyz"[a]);
        }
    }
    if ((rc = claim_topology(c, SC_TOPO_GRID))) {
        sc_mesh_free(&m);
        return rc;
    }
    c->node->mesh = m;
    c->node->sparse = 1;
    return PF_OK;
}

/* RigidMapping / BarycentricMapping: the node has no object of its own; its mesh is carried by the parent's object
 * (a rigid body; a grid). `input`/`output` are read but the mapping always goes from the parent node's object. */
static int mapping(pf_scene_component *c, sc_mapping kind)
{
    sc_node *n = c->node;
    pf_scene_component_string(c, "input");
    pf_scene_component_string(c, "output");
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "globalToLocalCoords");
    if (kind == SC_MAP_RIGID) { /* the frame each point follows: read by independent frames (components_joints.c) */
        int rc;
        size_t m = 0;
        double index = 0;
        if ((rc = pf_scene_component_real(c, "index", 0, 4294967295.0, &index)) < 0) return rc;
        n->rigid_index0 = (uint32_t)index;
        pf_free(n->rigid_index);
        n->rigid_index = NULL;
        if ((rc = sc_parse_uints(c, "rigidIndexPerPoint", &n->rigid_index, &m)) < 0) return rc;
        n->nrigid_index = (uint32_t)m;
    } else {
        pf_scene_component_ignore(c, "index");
    }
    if (n->mapping_line)
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' already has a mapping (line %d)", TYPE(c),
                                        n->name, n->mapping_line);
    if (!n->parent) return pf_scene_component_error(c, PF_EPARSE, "%s: the root node has no parent to map from", TYPE(c));
    n->mapping = kind;
    n->mapping_line = pf_scene_component_line(c);
    return PF_OK;
}

int sc_rigid_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return mapping(c, SC_MAP_RIGID);
}

int sc_barycentric_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return mapping(c, SC_MAP_BARYCENTRIC);
}
