/* SOFA's masses measured on a mesh: DiagonalMass, MeshMatrixMass (lumped) and FEMMass with its NodalMassDensity.
 * Each spreads density x element measure equally over the element's vertices and gives the node's object one
 * mass per point (pf_object_def.point_masses): SOFA's DiagonalMass, and the row sums of MeshMatrixMass's and
 * FEMMass's consistent matrices (the integral of a vertex's shape function, the same share for an affine
 * element). The mass is set up in the STATE stage, from the topology and positions given before it in its node
 * (SOFA's scenes write it after them). */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* ---- measures ---- */

static const uint32_t element_nodes[] = {[SC_MASS_EDGES] = 2,      [SC_MASS_TRIANGLES] = 3, [SC_MASS_QUADS] = 4,
                                         [SC_MASS_TETRAHEDRA] = 4, [SC_MASS_HEXAHEDRA] = 8};
static const char *const element_names[] = {[SC_MASS_EDGES] = "edges",          [SC_MASS_TRIANGLES] = "triangles",
                                            [SC_MASS_QUADS] = "quads",          [SC_MASS_TETRAHEDRA] = "tetrahedra",
                                            [SC_MASS_HEXAHEDRA] = "hexahedra"};

static void sub(const double *a, const double *b, double d[3])
{
    for (int k = 0; k < 3; k++) d[k] = a[k] - b[k];
}

static double triangle_area(const double *p0, const double *p1, const double *p2)
{
    double u[3], v[3];
    sub(p1, p0, u);
    sub(p2, p0, v);
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

/* 6 x the signed volume of tetrahedron (p0, p1, p2, p3) */
static double tetra_volume6(const double *p0, const double *p1, const double *p2, const double *p3)
{
    double a[3], b[3], d[3];
    sub(p1, p0, a);
    sub(p2, p0, b);
    sub(p3, p0, d);
    return a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) + a[2] * (b[0] * d[1] - b[1] * d[0]);
}

/* A hexahedron (bottom face 0-3, top face 4-7 above it) as six tetrahedra around its diagonal 0-6: each takes
 * one edge of the ring 1-2-3-7-4-5 of the vertices the diagonal does not touch, so that their signed volumes
 * add up to the hexahedron's whatever its shape (exact for planar faces) */
static double hexa_volume(const double *x, const uint32_t *h)
{
    static const int ring[7] = {1, 2, 3, 7, 4, 5, 1};
    double s = 0;
    for (int k = 0; k < 6; k++)
        s += tetra_volume6(x + 3 * (size_t)h[0], x + 3 * (size_t)h[6], x + 3 * (size_t)h[ring[k]],
                           x + 3 * (size_t)h[ring[k + 1]]);
    return fabs(s) / 6.0;
}

static double element_measure(const double *x, sc_mass_element kind, const uint32_t *e)
{
#define P(k) (x + 3 * (size_t)e[k])
    switch (kind) {
    case SC_MASS_EDGES: {
        double d[3];
        sub(P(1), P(0), d);
        return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    case SC_MASS_TRIANGLES: return triangle_area(P(0), P(1), P(2));
    case SC_MASS_QUADS: return triangle_area(P(0), P(1), P(2)) + triangle_area(P(0), P(2), P(3));
    case SC_MASS_TETRAHEDRA: return fabs(tetra_volume6(P(0), P(1), P(2), P(3))) / 6.0;
    case SC_MASS_HEXAHEDRA: return hexa_volume(x, e);
    }
#undef P
    return 0;
}

double sc_lump_masses(const double *points, sc_mass_element kind, const uint32_t *elem, uint32_t nelem,
                      const double *density, uint32_t ndensity, double *mass)
{
    uint32_t k = element_nodes[kind];
    double total = 0;
    for (uint32_t i = 0; i < nelem; i++) {
        const uint32_t *e = elem + (size_t)k * i;
        double share = density[ndensity > 1 ? i : 0] * element_measure(points, kind, e) / (double)k;
        for (uint32_t j = 0; j < k; j++) mass[e[j]] += share;
        total += share * (double)k;
    }
    return total;
}

/* ---- the node's points and elements ---- */

/* The elements a mass is measured on: a mesh's own lists, or the cells of a regular grid (owned). */
typedef struct mass_mesh {
    const double *points; /* 3 per point: the rest positions */
    uint32_t npoints;
    uint32_t *elem[SC_MASS_HEXAHEDRA + 1];
    uint32_t nelem[SC_MASS_HEXAHEDRA + 1];
    double *owned_points;
    uint32_t *owned_elem; /* a grid's cells */
} mass_mesh;

static void mass_mesh_free(mass_mesh *m)
{
    pf_free(m->owned_points);
    pf_free(m->owned_elem);
}

/* A regular grid's points (as pf_world_add_object places them, offset aside) and cells: hexahedra, or quads
 * when one axis has a single point, or edges when two have */
static int grid_mesh(const pf_object_def *d, mass_mesh *m)
{
    uint32_t n[3] = {(uint32_t)d->grid[0], (uint32_t)d->grid[1], (uint32_t)d->grid[2]};
    size_t np = (size_t)n[0] * n[1] * n[2];
    int axes[3], na = 0;
    for (int a = 0; a < 3; a++)
        if (n[a] > 1) axes[na++] = a;
    size_t ncell = na ? 1 : 0;
    for (int a = 0; a < na; a++) ncell *= n[axes[a]] - 1;
    sc_mass_element kind = na == 3 ? SC_MASS_HEXAHEDRA : na == 2 ? SC_MASS_QUADS : SC_MASS_EDGES;
    m->owned_points = pf_malloc(np * 3 * sizeof(double));
    m->owned_elem = pf_malloc((ncell ? ncell : 1) * element_nodes[kind] * sizeof(uint32_t));
    if (!m->owned_points || !m->owned_elem) return pf_error(PF_ENOMEM, "out of memory for a mass");
    for (uint32_t k = 0; k < n[2]; k++)
        for (uint32_t j = 0; j < n[1]; j++)
            for (uint32_t i = 0; i < n[0]; i++) {
                uint32_t ijk[3] = {i, j, k};
                double *p = m->owned_points + 3 * (i + (size_t)n[0] * (j + (size_t)n[1] * k));
                for (int a = 0; a < 3; a++)
                    p[a] = n[a] == 1 ? d->grid_min[a]
                                     : d->grid_min[a] + (d->grid_max[a] - d->grid_min[a]) * ijk[a] / (double)(n[a] - 1);
            }
    /* the corners of each cell, in the order VTK gives a hexahedron's (bottom face counter-clockwise, then the
     * top face) or a quad's; offsets along the cell's axes */
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    uint32_t nc[3] = {1, 1, 1}; /* cells along the grid's axes that have any */
    for (int a = 0; a < na; a++) nc[a] = n[axes[a]] - 1;
    uint32_t *e = m->owned_elem;
    for (uint32_t c2 = 0; c2 < (na > 2 ? nc[2] : 1) && ncell; c2++)
        for (uint32_t c1 = 0; c1 < (na > 1 ? nc[1] : 1); c1++)
            for (uint32_t c0 = 0; c0 < nc[0]; c0++)
                for (uint32_t v = 0; v < element_nodes[kind]; v++) {
                    uint32_t at[3] = {0, 0, 0}, cell[3] = {c0, c1, c2};
                    for (int a = 0; a < na; a++) at[axes[a]] = cell[a] + (uint32_t)corner[v][a];
                    *e++ = at[0] + n[0] * (at[1] + n[1] * at[2]);
                }
    m->points = m->owned_points;
    m->npoints = (uint32_t)np;
    m->elem[kind] = m->owned_elem;
    m->nelem[kind] = (uint32_t)ncell;
    return PF_OK;
}

/* The points and elements of node t's topology; its MechanicalObject's positions, when it has them, are the
 * rest positions (SOFA measures on the rest positions). */
static int node_mesh(pf_scene_component *c, const sc_node *t, mass_mesh *m)
{
    memset(m, 0, sizeof *m);
    if (t->topology == SC_TOPO_GRID) {
        int rc = grid_mesh(&t->def, m);
        if (rc) return rc;
    } else if (t->topology == SC_TOPO_MESH) {
        m->points = t->mesh.points;
        m->npoints = t->mesh.npoints;
        m->elem[SC_MASS_EDGES] = t->mesh.edges, m->nelem[SC_MASS_EDGES] = t->mesh.nedges;
        m->elem[SC_MASS_TRIANGLES] = t->mesh.tris, m->nelem[SC_MASS_TRIANGLES] = t->mesh.ntris;
        m->elem[SC_MASS_TETRAHEDRA] = t->mesh.tetra, m->nelem[SC_MASS_TETRAHEDRA] = t->mesh.ntetra;
        m->elem[SC_MASS_HEXAHEDRA] = t->mesh.hexa, m->nelem[SC_MASS_HEXAHEDRA] = t->mesh.nhexa;
    }
    if (t->positions && !sc_mo_positions_from_topology(t)) {
        if (t->topology != SC_TOPO_NONE && t->npositions != m->npoints) {
            mass_mesh_free(m);
            return pf_scene_component_error(c, PF_EINVAL, "%s: node '%s' has %u positions but its topology has %u "
                                            "points", TYPE(c), t->name, t->npositions, m->npoints);
        }
        m->points = t->positions;
        m->npoints = t->npositions;
    }
    /* a mass measured before the node's MechanicalObject transform reached its points (it does at the end of the
     * node's STATE components) measures them transformed, as SOFA's mass measures the state's rest positions */
    if (sc_mo_transform_pending(t) && m->npoints) {
        if (m->points != m->owned_points) {
            double *x = pf_malloc((size_t)m->npoints * 3 * sizeof *x);
            if (!x) {
                mass_mesh_free(m);
                return pf_error(PF_ENOMEM, "out of memory for a mass");
            }
            memcpy(x, m->points, (size_t)m->npoints * 3 * sizeof *x);
            pf_free(m->owned_points);
            m->owned_points = x;
            m->points = x;
        }
        sc_mo_transform_points(t, m->owned_points, m->npoints);
    }
    return PF_OK;
}

/* ---- what the three mass components share ---- */

/* The mass information of one component: SOFA's rule is totalMass first, then massDensity, then vertexMass, then
 * totalMass = 1. */
typedef struct mass_input {
    double total;
    int has_total;
    double *density; /* owned; 1 value, or one per element (MeshMatrixMass) */
    size_t ndensity;
    double *vertex; /* owned */
    size_t nvertex;
    sc_mass_element kind; /* the element kind asked for (FEMMass's template); 0: the highest the topology has */
} mass_input;

static void mass_input_free(mass_input *in)
{
    pf_free(in->density);
    pf_free(in->vertex);
}

static int check_positive_list(pf_scene_component *c, const char *attr, const double *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!(v[k] > 0))
            return pf_scene_component_error(c, PF_EINVAL, "%s: %s[%zu] must be > 0, got %g (every point needs a "
                                            "mass > 0)", TYPE(c), attr, k, v[k]);
    return PF_OK;
}

/* totalMass, massDensity, vertexMass and the attributes both SOFA masses read the same way */
static int read_mass_input(pf_scene_component *c, int density_list, mass_input *in)
{
    int rc;
    memset(in, 0, sizeof *in);
    if ((rc = pf_scene_component_reals(c, "totalMass", 1, &in->total)) < 0) return rc;
    in->has_total = rc;
    if (in->has_total && !(in->total > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: totalMass must be > 0, got %g", TYPE(c), in->total);
    if ((rc = sc_parse_reals(c, "massDensity", &in->density, &in->ndensity)) < 0) return rc;
    if ((rc = sc_parse_reals(c, "vertexMass", &in->vertex, &in->nvertex)) < 0) return rc;
    if (in->density && (in->ndensity == 0 || (!density_list && in->ndensity > 1)))
        return pf_scene_component_error(c, PF_EINVAL, "%s: massDensity needs one number, got %zu", TYPE(c),
                                        in->ndensity);
    if (in->vertex && in->nvertex == 0)
        return pf_scene_component_error(c, PF_EINVAL, "%s: vertexMass is empty", TYPE(c));
    if ((rc = check_positive_list(c, "massDensity", in->density, in->ndensity)) ||
        (rc = check_positive_list(c, "vertexMass", in->vertex, in->nvertex)))
        return rc;
    const char *tpl = pf_scene_component_string(c, "template");
    if (tpl && strncmp(tpl, "Vec3", 4))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: template '%s' is not supported (PhysFlow's masses are "
                                        "on Vec3d points; a rigid body takes its mass from RigidShape or "
                                        "UniformMass)", TYPE(c), tpl);
    int on_rest = 1;
    if ((rc = sc_parse_bool(c, "computeMassOnRest", &on_rest)) < 0) return rc;
    /* false measures the current positions: at load time they are the rest positions */
    pf_scene_component_ignore(c, "showGravityCenter");
    pf_scene_component_ignore(c, "showAxisSizeFactor");
    if (in->has_total && (in->density || in->vertex))
        pf_scene_component_warning(c, "%s: totalMass overrides %s, as in SOFA", TYPE(c),
                                   in->density ? "massDensity" : "vertexMass");
    else if (in->density && in->vertex)
        pf_scene_component_warning(c, "%s: massDensity overrides vertexMass, as in SOFA", TYPE(c));
    return PF_OK;
}

/* The node whose topology the mass is measured on: its own, or the one `topology` links to. */
static int topology_node(pf_scene_component *c, sc_node **out)
{
    *out = c->node;
    const char *link = pf_scene_component_string(c, "topology");
    if (!link) return PF_OK;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, "topology", link, out, &comp, &field);
    if (rc) return rc;
    if (field)
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute 'topology' = '%s' must link a topology, not a "
                                        "field", TYPE(c), link);
    return PF_OK;
}

/* `geometryState`, the state whose positions are measured: SOFA's default, the topology's node, is the only one
 * PhysFlow measures on. */
static int check_geometry_state(pf_scene_component *c, const sc_node *t)
{
    const char *link = pf_scene_component_string(c, "geometryState");
    if (!link) return PF_OK;
    sc_node *g;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, "geometryState", link, &g, &comp, &field);
    if (rc) return rc;
    if (g != t)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: geometryState = '%s' is not the state of the topology's "
                                        "node '%s', which is the only one supported", TYPE(c), link, t->name);
    return PF_OK;
}

/* The highest kind of element the mesh has (SOFA's order: hexahedra, tetrahedra, quads, triangles, edges). */
static sc_mass_element highest_kind(const mass_mesh *m)
{
    for (int k = SC_MASS_HEXAHEDRA; k >= SC_MASS_EDGES; k--)
        if (m->nelem[k]) return (sc_mass_element)k;
    return 0;
}

/* The points' masses from the mass input, measured on the mesh when vertexMass does not give them. */
static int compute_masses(pf_scene_component *c, const sc_node *t, const mass_mesh *m, const mass_input *in,
                          double *mass)
{
    uint32_t n = m->npoints;
    if (!in->has_total && !in->density && in->vertex) {
        if (in->nvertex > n)
            return pf_scene_component_error(c, PF_EINVAL, "%s: vertexMass has %zu values for %u points", TYPE(c),
                                            in->nvertex, n);
        /* SOFA's DiagonalMass repeats the last value over the points a shorter list leaves out */
        for (uint32_t i = 0; i < n; i++) mass[i] = in->vertex[i < in->nvertex ? i : in->nvertex - 1];
        return PF_OK;
    }
    sc_mass_element kind = in->kind ? in->kind : highest_kind(m);
    if (!kind || !m->nelem[kind])
        return pf_scene_component_error(c, PF_EINVAL, "%s: the topology of node '%s' has no %s to measure the mass "
                                        "on", TYPE(c), t->name,
                                        in->kind ? element_names[in->kind] : "elements (edges, triangles, quads, "
                                                                              "tetrahedra, hexahedra)");
    uint32_t k = element_nodes[kind], ne = m->nelem[kind];
    for (size_t i = 0; i < (size_t)ne * k; i++)
        if (m->elem[kind][i] >= n)
            return pf_scene_component_error(c, PF_EINVAL, "%s: the %s of node '%s' name point %u of %u", TYPE(c),
                                            element_names[kind], t->name, m->elem[kind][i], n);
    if (in->density && in->ndensity > 1 && in->ndensity != ne)
        return pf_scene_component_error(c, PF_EINVAL, "%s: massDensity has %zu values: give one, or one per element "
                                        "(%u %s)", TYPE(c), in->ndensity, ne, element_names[kind]);
    int by_density = !in->has_total && in->density;
    const double one = 1.0;
    memset(mass, 0, n * sizeof *mass);
    double total = sc_lump_masses(m->points, kind, m->elem[kind], ne, by_density ? in->density : &one,
                                  by_density ? (uint32_t)in->ndensity : 1, mass);
    if (!(total > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: the %s of node '%s' measure 0: no mass to spread", TYPE(c),
                                        element_names[kind], t->name);
    if (!by_density) { /* totalMass, given or SOFA's default 1: the density that gives it */
        double rho = (in->has_total ? in->total : 1.0) / total;
        for (uint32_t i = 0; i < n; i++) mass[i] *= rho;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!(mass[i] > 0))
            return pf_scene_component_error(c, PF_EINVAL, "%s: point %u of node '%s' is in none of its %s, so its "
                                            "mass would be 0 (every point needs a mass > 0: give vertexMass, or "
                                            "leave the unused point out of the mesh)", TYPE(c), i, t->name,
                                            element_names[kind]);
    return PF_OK;
}

/* Measures the node's masses and gives them to its object. */
static int set_point_masses(pf_scene_component *c, const mass_input *in)
{
    sc_node *n = c->node, *t;
    if (n->mass_line)
        return pf_scene_component_error(c, PF_EPARSE, "a second mass in node '%s' (line %d)", n->name, n->mass_line);
    if (!n->mo_line)
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' has no MechanicalObject before it (the mass "
                                        "is measured on the topology and positions given before it)", TYPE(c),
                                        n->name);
    if (n->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: node '%s' is a rigid body (Rigid3d): its mass comes "
                                        "from RigidShape or UniformMass", TYPE(c), n->name);
    int rc = topology_node(c, &t);
    if (rc || (rc = check_geometry_state(c, t))) return rc;
    mass_mesh m;
    if ((rc = node_mesh(c, t, &m))) return rc;
    /* the object's own point count: its positions, else its topology's */
    uint32_t npts = n->positions && !sc_mo_positions_from_topology(n) ? n->npositions
                    : n->topology == SC_TOPO_MESH ? n->mesh.npoints
                    : n->topology == SC_TOPO_GRID
                        ? (uint32_t)n->def.grid[0] * (uint32_t)n->def.grid[1] * (uint32_t)n->def.grid[2]
                        : 0;
    if (!m.points && !(in->vertex && !in->has_total && !in->density)) {
        mass_mesh_free(&m);
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' has no topology before it to measure the mass "
                                        "on", TYPE(c), t->name);
    }
    if (!m.points) m.npoints = npts; /* vertexMass alone needs no topology */
    if (m.npoints != npts) {
        mass_mesh_free(&m);
        return pf_scene_component_error(c, PF_EINVAL, "%s: the topology of node '%s' has %u points, the "
                                        "MechanicalObject of node '%s' %u", TYPE(c), t->name, m.npoints, n->name,
                                        npts);
    }
    double *mass = pf_malloc((npts ? npts : 1) * sizeof *mass);
    if (!mass) {
        mass_mesh_free(&m);
        return pf_error(PF_ENOMEM, "out of memory for a mass");
    }
    rc = compute_masses(c, t, &m, in, mass);
    mass_mesh_free(&m);
    if (rc) {
        pf_free(mass);
        return rc;
    }
    pf_free(n->point_masses);
    n->point_masses = mass;
    pf_scene_component_object_def(c)->point_masses = mass;
    n->mass_line = pf_scene_component_line(c);
    return PF_OK;
}

/* ---- the components ---- */

int sc_diagonal_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    if (pf_scene_component_string(c, "filename") || pf_scene_component_string(c, "fileMass"))
        return pf_scene_component_error(c, PF_ENOTSUP, "DiagonalMass: mass files (filename, Xsp) are not supported: "
                                        "give vertexMass, massDensity or totalMass");
    mass_input in;
    int rc = read_mass_input(c, 0, &in);
    if (!rc) rc = set_point_masses(c, &in);
    mass_input_free(&in);
    return rc;
}

int sc_mesh_matrix_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int lumping = 1, rc;
    if ((rc = sc_parse_bool(c, "lumping", &lumping)) < 0) return rc;
    if (pf_scene_component_string(c, "edgeMass"))
        return pf_scene_component_error(c, PF_ENOTSUP, "MeshMatrixMass: edgeMass (the consistent matrix's "
                                        "off-diagonal terms) is not supported: PhysFlow's masses are lumped");
    pf_scene_component_ignore(c, "printMass");
    if (!lumping)
        pf_scene_component_warning(c, "MeshMatrixMass: lumping=\"false\": the consistent mass matrix is lumped (its "
                                   "row sums on the diagonal); PhysFlow's masses are diagonal");
    mass_input in;
    rc = read_mass_input(c, 1, &in);
    if (!rc) rc = set_point_masses(c, &in);
    mass_input_free(&in);
    return rc;
}

/* The NodalMassDensity element FEMMass uses: the one `nodalMassDensity` links to, else the first in its node
 * or the nearest node above (SOFA looks up the context). */
static int find_nodal_density(pf_scene_component *c, sc_node **holder, xmlNode **el)
{
    const char *link = pf_scene_component_string(c, "nodalMassDensity");
    if (link) {
        const char *field;
        int rc = sc_resolve_link(c, "nodalMassDensity", link, holder, el, &field);
        if (rc) return rc;
        if (!*el || xmlStrcmp((*el)->name, (const xmlChar *)"NodalMassDensity"))
            return pf_scene_component_error(c, PF_EINVAL, "FEMMass: nodalMassDensity = '%s' does not name a "
                                            "NodalMassDensity", link);
        return PF_OK;
    }
    for (sc_node *n = c->node; n; n = n->parent)
        for (xmlNode *e = n->el->children; e; e = e->next)
            if (e->type == XML_ELEMENT_NODE && !xmlStrcmp(e->name, (const xmlChar *)"NodalMassDensity")) {
                *holder = n;
                *el = e;
                return PF_OK;
            }
    return pf_scene_component_error(c, PF_EPARSE, "FEMMass: no NodalMassDensity in node '%s' or above (it gives "
                                    "the density)", c->node->name);
}

/* NodalMassDensity's `property`: one density per point, the last one repeating over the points a shorter list
 * leaves out; SOFA's default 1. PhysFlow takes a density that is the same at every point. */
static int nodal_density(pf_scene_component *c, double *rho)
{
    sc_node *holder;
    xmlNode *el;
    int rc = find_nodal_density(c, &holder, &el);
    if (rc) return rc;
    pf_scene_component d = {.L = c->L, .node = holder, .el = el, .entry = c->entry, .stage = c->stage};
    double *v;
    size_t n;
    if ((rc = sc_parse_reals(&d, "property", &v, &n)) < 0) return rc;
    *rho = rc == 1 && n > 0 ? v[0] : 1.0;
    for (size_t k = 1; rc == 1 && k < n; k++)
        if (v[k] != v[0]) {
            pf_free(v);
            return pf_scene_component_error(c, PF_ENOTSUP, "FEMMass: the NodalMassDensity at line %d varies from "
                                            "point to point, which is not supported (one density for all points)",
                                            sc_line(el));
        }
    pf_free(v);
    if (!(*rho > 0))
        return pf_scene_component_error(c, PF_EINVAL, "FEMMass: the NodalMassDensity at line %d must be > 0, got %g",
                                        sc_line(el), *rho);
    return PF_OK;
}

int sc_nodal_mass_density(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double *v;
    size_t n;
    int rc = sc_parse_reals(c, "property", &v, &n);
    if (rc < 0) return rc;
    rc = check_positive_list(c, "property", v, n);
    pf_free(v);
    pf_scene_component_ignore(c, "template");
    return rc; /* read by the FEMMass that uses it */
}

int sc_fem_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    mass_input in = {0};
    /* template "Vec3,Hexahedron": the element kind after the comma */
    const char *tpl = pf_scene_component_string(c, "template");
    const char *comma = tpl ? strchr(tpl, ',') : NULL;
    if (tpl && strncmp(tpl, "Vec3", 4))
        return pf_scene_component_error(c, PF_ENOTSUP, "FEMMass: template '%s' is not supported (Vec3 points)", tpl);
    if (comma) {
        static const struct {
            const char *name;
            sc_mass_element kind;
        } kinds[] = {{"Edge", SC_MASS_EDGES},
                     {"Triangle", SC_MASS_TRIANGLES},
                     {"Quad", SC_MASS_QUADS},
                     {"Tetrahedron", SC_MASS_TETRAHEDRA},
                     {"Hexahedron", SC_MASS_HEXAHEDRA}};
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds && !in.kind; k++)
            if (!strcmp(comma + 1, kinds[k].name)) in.kind = kinds[k].kind;
        if (!in.kind)
            return pf_scene_component_error(c, PF_ENOTSUP, "FEMMass: element '%s' is not supported (Edge, Triangle, "
                                            "Quad, Tetrahedron, Hexahedron)", comma + 1);
    }
    double rho;
    int rc = nodal_density(c, &rho);
    if (rc) return rc;
    in.density = &rho;
    in.ndensity = 1;
    return set_point_masses(c, &in);
}

int sc_density_masses(pf_scene_component *c, sc_mass_element kind, double density)
{
    mass_input in = {.density = &density, .ndensity = 1, .kind = kind};
    return set_point_masses(c, &in);
}
