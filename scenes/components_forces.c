/* FORCES-stage components: force fields (hexahedral FEM, spring fields, constant forces), constraints (FixedConstraint, BoxROI) and
 * collision models, added to the objects the STATE stage created. */
#include "components.h"
#include "topology_derived.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

static uint32_t object_points(pf_scene_component *c, pf_object_id o)
{
    uint32_t n = 0;
    pf_world_positions(c->L->scene->world, o, &n);
    return n;
}

/* SOFA's two hexahedral FEM components on one model: HexahedronFEMForceField (methods large, polar, small, and
 * PhysFlow's svd; "linear" read as small) and HexahedralFEMForceField (large, polar). Both take the hexahedra of the
 * node's mesh topology (each element its own stiffness), or the cells of its regular grid. */
static int hexa_fem_component(pf_scene_component *c, int hexahedral, int forced)
{
    const char *type = TYPE(c), *methods = hexahedral ? "large, polar" : "large, polar, small, linear, svd";
    pf_hexa_fem_def d = pf_hexa_fem_default_def();
    int rc;
    if ((rc = pf_scene_component_real(c, "youngModulus", -1e300, 1e300, &d.young_modulus)) < 0) return rc;
    if (!(d.young_modulus > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: youngModulus must be > 0, got %g", type,
                                        d.young_modulus);
    if ((rc = pf_scene_component_real(c, "poissonRatio", -1e300, 1e300, &d.poisson_ratio)) < 0) return rc;
    if (!(d.poisson_ratio >= -1 && d.poisson_ratio < 0.5))
        return pf_scene_component_error(c, PF_EINVAL, "%s: poissonRatio must be in [-1, 0.5), got %g", type,
                                        d.poisson_ratio);
    if (d.poisson_ratio < 0)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: a negative poissonRatio (%g) is not supported yet by "
                                        "the physics", type, d.poisson_ratio);
    const char *m = forced >= 0 ? NULL : pf_scene_component_string(c, "method");
    if (forced >= 0)
        d.method = (pf_fem_method)forced;
    else if (m && !strcmp(m, "large"))
        d.method = PF_FEM_LARGE;
    else if (m && !strcmp(m, "polar"))
        d.method = PF_FEM_POLAR;
    else if (m && !hexahedral && (!strcmp(m, "linear") || !strcmp(m, "small")))
        d.method = PF_FEM_LINEAR;
    else if (m && !hexahedral && !strcmp(m, "svd"))
        d.method = PF_FEM_SVD;
    else if (m)
        return pf_scene_component_error(c, PF_EPARSE, "%s: unknown method '%s' (%s)", type, m, methods);
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "updateStiffnessMatrix");
    pf_scene_component_ignore(c, "assembling");
    sc_node *n = c->node;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (n->topology == SC_TOPO_MESH) {
        if (!n->mesh.nhexa)
            return pf_scene_component_error(c, PF_EINVAL, "%s: the mesh topology of node '%s' has no hexahedra",
                                            type, n->name);
        d.hexahedra = n->mesh.hexa;
        d.nhexahedra = n->mesh.nhexa;
    } else if (n->topology != SC_TOPO_GRID) {
        return pf_scene_component_error(c, PF_EPARSE, "%s needs a topology with hexahedra (RegularGridTopology, "
                                        "MeshTopology, HexahedronSetTopologyContainer, a loader) in node '%s'",
                                        type, n->name);
    }
    pf_force_field_id id;
    if ((rc = pf_world_add_hexa_fem(c->L->scene->world, o, &d, &id))) {
        char copy[400]; /* the physics' message names the bad element */
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: %s", type, copy);
    }
    /* a grid's cells are numbered as SOFA's RegularGridTopology numbers its hexahedra (x fastest) */
    uint32_t cells = d.nhexahedra;
    if (!d.hexahedra) {
        const int *g = n->def.grid;
        cells = (uint32_t)((g[0] - 1) * (g[1] - 1) * (g[2] - 1));
    }
    if ((rc = sc_note_element_field(c, id, SC_ELEMENT_HEXAHEDRA, cells, 1))) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}

int sc_hexa_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return hexa_fem_component(c, 0, -1);
}

int sc_hexa_fem_method(pf_scene_component *c, pf_fem_method method)
{
    return hexa_fem_component(c, 0, (int)method);
}

int sc_hexahedral_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return hexa_fem_component(c, 1, -1);
}

/* stiffness and damping of a spring field: both >= 0 */
static int spring_constants(pf_scene_component *c, double *k, double *d)
{
    int rc;
    if ((rc = pf_scene_component_real(c, "stiffness", -1e300, 1e300, k)) < 0) return rc;
    if (!(*k >= 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: stiffness must be >= 0, got %g", TYPE(c), *k);
    if ((rc = pf_scene_component_real(c, "damping", -1e300, 1e300, d)) < 0) return rc;
    if (!(*d >= 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: damping must be >= 0, got %g", TYPE(c), *d);
    pf_scene_component_ignore(c, "template");
    return PF_OK;
}

/* A mirrored grid's springs (its mesh numbered as a grid's, scenes/components_state.c): the pairs of points
 * pf_world_add_grid_springs joins on a grid of g points per axis, in its order (lines along the 3 axes and both
 * diagonals of every face), rest length the initial distance. */
static int mirrored_grid_springs(pf_world *w, pf_object_id o, const int g[3], double k, double d, uint32_t *count)
{
    static const int off[9][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, -1, 0},
                                  {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};
    size_t cap = (size_t)g[0] * (size_t)g[1] * (size_t)g[2] * 9;
    pf_spring *s = pf_malloc(cap * sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for grid springs");
    uint32_t m = 0;
    for (int z = 0; z < g[2]; z++)
        for (int y = 0; y < g[1]; y++)
            for (int x = 0; x < g[0]; x++)
                for (int t = 0; t < 9; t++) {
                    int a = x + off[t][0], b = y + off[t][1], e = z + off[t][2];
                    if (a < 0 || a >= g[0] || b < 0 || b >= g[1] || e < 0 || e >= g[2]) continue;
                    s[m++] = (pf_spring){(uint32_t)(x + g[0] * (y + g[1] * z)), (uint32_t)(a + g[0] * (b + g[1] * e)),
                                         k, d, -1.0};
                }
    int rc = pf_world_add_springs(w, o, s, m, NULL);
    pf_free(s);
    if (!rc) *count = m;
    return rc;
}

int sc_regular_grid_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double k = 100, d = 5;
    int rc = spring_constants(c, &k, &d);
    if (rc) return rc;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    const int *g = c->node->grid_points;
    if (c->node->topology != SC_TOPO_GRID && !g[0])
        return pf_scene_component_error(c, PF_EPARSE, "RegularGridSpringForceField needs a RegularGridTopology in "
                                        "node '%s'", c->node->name);
    uint32_t count = 0;
    if (c->node->topology == SC_TOPO_GRID) {
        if ((rc = pf_world_add_grid_springs(c->L->scene->world, o, k, d, &count, NULL))) return rc;
    } else if ((rc = mirrored_grid_springs(c->L->scene->world, o, g, k, d, &count))) {
        return rc;
    }
    c->L->scene->summary.force_fields++;
    c->L->scene->summary.springs += count;
    return PF_OK;
}

typedef struct edge_set {
    PF_VEC(pf_spring) s;
    PF_VEC(uint64_t) keys; /* sorted a<<32|b of the springs so far, for de-duplication */
} edge_set;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int edge_add(edge_set *e, uint32_t a, uint32_t b, double k, double d)
{
    if (a == b) return PF_OK;
    uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    if (e->keys.n && bsearch(&key, e->keys.v, e->keys.n, sizeof key, cmp_u64)) return PF_OK;
    if (pf_vec_reserve(&e->s, e->s.n + 1) || pf_vec_reserve(&e->keys, e->keys.n + 1))
        return pf_error(PF_ENOMEM, "out of memory for springs");
    /* keep keys sorted: insertion (meshes are small next to the cost of a step) */
    size_t i = e->keys.n;
    while (i > 0 && e->keys.v[i - 1] > key) {
        e->keys.v[i] = e->keys.v[i - 1];
        i--;
    }
    e->keys.v[i] = key;
    e->keys.n++;
    e->s.v[e->s.n++] = (pf_spring){a, b, k, d, -1.0};
    return PF_OK;
}

/* MeshSpringForceField: a spring on every edge of the node's topology (mesh edges, triangle and hexahedron edges;
 * grid lines for a regular grid), rest length = initial length. */
int sc_mesh_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double k = 100, d = 5;
    int rc = spring_constants(c, &k, &d);
    if (rc) return rc;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    sc_node *n = c->node;
    edge_set e = {0};
    if (n->topology == SC_TOPO_GRID) {
        const int *g = n->def.grid;
        for (int z = 0; z < g[2] && !rc; z++)
            for (int y = 0; y < g[1] && !rc; y++)
                for (int x = 0; x < g[0] && !rc; x++) {
                    uint32_t i = (uint32_t)(x + g[0] * (y + g[1] * z));
                    if (x + 1 < g[0]) rc = edge_add(&e, i, i + 1, k, d);
                    if (!rc && y + 1 < g[1]) rc = edge_add(&e, i, i + (uint32_t)g[0], k, d);
                    if (!rc && z + 1 < g[2]) rc = edge_add(&e, i, i + (uint32_t)(g[0] * g[1]), k, d);
                }
    } else if (n->topology == SC_TOPO_MESH) {
        const sc_mesh *m = &n->mesh;
        static const int hexa_edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                              {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
        for (uint32_t t = 0; t < m->nedges && !rc; t++) rc = edge_add(&e, m->edges[2 * t], m->edges[2 * t + 1], k, d);
        for (uint32_t t = 0; t < m->ntris && !rc; t++)
            for (int s = 0; s < 3 && !rc; s++)
                rc = edge_add(&e, m->tris[3 * t + s], m->tris[3 * t + (s + 1) % 3], k, d);
        for (uint32_t t = 0; t < m->ntetra && !rc; t++) /* a tetrahedron's 6 edges (SOFA's edges of the mesh) */
            for (int a = 0; a < 4 && !rc; a++)
                for (int b = a + 1; b < 4 && !rc; b++) rc = edge_add(&e, m->tetra[4 * t + a], m->tetra[4 * t + b], k, d);
        for (uint32_t h = 0; h < m->nhexa && !rc; h++)
            for (int s = 0; s < 12 && !rc; s++)
                rc = edge_add(&e, m->hexa[8 * h + hexa_edges[s][0]], m->hexa[8 * h + hexa_edges[s][1]], k, d);
    } else {
        return pf_scene_component_error(c, PF_EPARSE, "MeshSpringForceField needs a topology in node '%s'", n->name);
    }
    /* SOFA makes no spring then (MeshSpringForceField::init walks an empty list): a node whose MeshTopology
     * holds no element (SOFA's TopologyLinearMesh tutorial) runs without the force field */
    if (!rc && e.s.n == 0) pf_scene_component_warning(c, "MeshSpringForceField: the topology has no edges: no springs");
    if (!rc && e.s.n) rc = pf_world_add_springs(c->L->scene->world, o, e.s.v, (uint32_t)e.s.n, NULL);
    if (!rc && e.s.n) {
        c->L->scene->summary.force_fields++;
        c->L->scene->summary.springs += e.s.n;
    }
    pf_vec_free(&e.s);
    pf_vec_free(&e.keys);
    return rc;
}

/* The springs of a StiffSpringForceField: spring="i j ks kd L ..." (L < 0: the initial distance) or
 * indices1/indices2 with stiffness, damping and optional lengths (one per spring). */
static int spring_list(pf_scene_component *c, pf_spring **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    double *v;
    size_t m;
    int rc = sc_parse_reals(c, "spring", &v, &m);
    if (rc < 0) return rc;
    if (rc == 1) {
        if (m % 5 || m == 0) {
            pf_free(v);
            return pf_scene_component_error(c, PF_EPARSE, "%s: 'spring' needs 5 numbers per spring (i j stiffness "
                                            "damping length), got %zu", TYPE(c), m);
        }
        pf_spring *s = pf_malloc(m / 5 * sizeof *s);
        if (!s) {
            pf_free(v);
            return pf_error(PF_ENOMEM, "out of memory for springs");
        }
        for (size_t k = 0; k < m / 5; k++) {
            const double *p = v + 5 * k;
            if (p[0] < 0 || p[1] < 0 || p[0] != floor(p[0]) || p[1] != floor(p[1]) || p[0] > 4e9 || p[1] > 4e9 ||
                !(p[2] >= 0) || !(p[3] >= 0)) {
                pf_free(v);
                pf_free(s);
                return pf_scene_component_error(c, PF_EINVAL, "%s: spring %zu: indices must be integers >= 0 and "
                                                "stiffness, damping >= 0", TYPE(c), k);
            }
            s[k] = (pf_spring){(uint32_t)p[0], (uint32_t)p[1], p[2], p[3], p[4]};
        }
        pf_free(v);
        *out = s;
        *count = m / 5;
        return PF_OK;
    }
    uint32_t *i1 = NULL, *i2 = NULL;
    size_t n1 = 0, n2 = 0;
    double k = 100, d = 5, *len = NULL;
    size_t nlen = 0;
    if ((rc = sc_parse_uints(c, "indices1", &i1, &n1)) < 0 || (rc = sc_parse_uints(c, "indices2", &i2, &n2)) < 0 ||
        (rc = spring_constants(c, &k, &d)) || (rc = sc_parse_reals(c, "lengths", &len, &nlen)) < 0) {
        pf_free(i1);
        pf_free(i2);
        return rc;
    }
    rc = PF_OK;
    if (!i1 || !i2 || n1 != n2 || n1 == 0)
        rc = pf_scene_component_error(c, PF_EPARSE, "%s: give 'spring', or 'indices1' and 'indices2' of one length "
                                      "(got %zu and %zu)", TYPE(c), n1, n2);
    else if (len && nlen != n1)
        rc = pf_scene_component_error(c, PF_EPARSE, "%s: 'lengths' needs one value per spring (%zu), got %zu",
                                      TYPE(c), n1, nlen);
    pf_spring *s = rc ? NULL : pf_malloc(n1 * sizeof *s);
    if (!rc && !s) rc = pf_error(PF_ENOMEM, "out of memory for springs");
    for (size_t q = 0; !rc && q < n1; q++) s[q] = (pf_spring){i1[q], i2[q], k, d, len ? len[q] : -1.0};
    pf_free(i1);
    pf_free(i2);
    pf_free(len);
    if (rc) return rc;
    *out = s;
    *count = n1;
    return PF_OK;
}

/* StiffSpringForceField: springs inside the node's object, or between object1 and object2 (links). */
int sc_stiff_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_object_id own = {0}, oa, ob;
    int has_own = c->node->has_object, rc;
    if (has_own) own = c->node->object;
    int ra = pf_scene_component_link_object(c, "object1", &oa);
    if (ra < 0) return ra;
    int rb = pf_scene_component_link_object(c, "object2", &ob);
    if (rb < 0) return rb;
    if ((!ra || !rb) && !has_own)
        return pf_scene_component_error(c, PF_EPARSE, "%s: give object1 and object2, or put it in a node with a "
                                        "MechanicalObject", TYPE(c));
    if (!ra) oa = own;
    if (!rb) ob = own;
    /* no springs at all: SOFA's field is then empty and adds no force */
    if (!pf_scene_component_string(c, "spring") && !pf_scene_component_string(c, "indices1") &&
        !pf_scene_component_string(c, "indices2")) {
        double k = 100, d = 5;
        if ((rc = spring_constants(c, &k, &d))) return rc;
        (void)pf_scene_component_string(c, "lengths");
        pf_scene_component_warning(c, "%s: no springs ('spring', or 'indices1' and 'indices2'): no force, as in SOFA",
                                   TYPE(c));
        return PF_OK;
    }
    pf_spring *s;
    size_t n;
    if ((rc = spring_list(c, &s, &n))) return rc;
    uint32_t na = object_points(c, oa), nb = object_points(c, ob);
    for (size_t k = 0; k < n; k++)
        if (s[k].a >= na || s[k].b >= nb) {
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: spring %zu: point index out of range (%u of %u, %u of "
                                          "%u)", TYPE(c), k, s[k].a, na, s[k].b, nb);
            pf_free(s);
            return rc;
        }
    pf_world *w = c->L->scene->world;
    rc = oa.index == ob.index ? pf_world_add_springs(w, oa, s, (uint32_t)n, NULL)
                              : pf_world_add_interaction_springs(w, oa, ob, s, (uint32_t)n, NULL);
    pf_free(s);
    if (rc) return rc;
    c->L->scene->summary.force_fields++;
    c->L->scene->summary.springs += n;
    return PF_OK;
}

/* One 3-vector attribute: 1 when present, 0 when absent, or an error naming file:line. */
static int vector3(pf_scene_component *c, const char *attr, double out[3])
{
    double *v;
    size_t m;
    int rc = sc_parse_reals(c, attr, &v, &m);
    if (rc <= 0) return rc;
    if (m != 3) {
        pf_free(v);
        return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' needs 3 numbers (x y z, N), got %zu", TYPE(c), attr,
                                        m);
    }
    memcpy(out, v, 3 * sizeof *out);
    pf_free(v);
    return 1;
}

/* a force of a `forces` list and its position in the list */
typedef struct force_ref {
    const double *f;
    uint32_t k;
} force_ref;

/* by force (its bytes: any fixed order groups equal forces), then position */
static int cmp_force_ref(const void *a, const void *b)
{
    const force_ref *x = a, *y = b;
    int c = memcmp(x->f, y->f, 3 * sizeof(double));
    return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* runs of one force by where it first appears: a run's f points at that first entry of the `forces` array (k is
 * the run's start in the sorted list), so the pointers' order is the list's */
static int cmp_force_ref_first(const void *a, const void *b)
{
    const force_ref *x = a, *y = b;
    return (x->f > y->f) - (x->f < y->f);
}

/* A Rigid3d attribute of 6 numbers per entry (SOFA's Rigid3 Deriv: force x y z, then torque x y z); returns 1 when
 * given (*out pf_malloc'ed, *count entries), 0 when not, < 0 on error. */
static int wrenches(pf_scene_component *c, const char *attr, int one, double **out, size_t *count)
{
    size_t m = 0;
    int rc = sc_parse_reals(c, attr, out, &m);
    if (rc <= 0) return rc;
    if (m == 0 || m % 6 || (one && m != 6)) {
        pf_free(*out);
        *out = NULL;
        return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' on a Rigid3d body needs 6 numbers (force x y z in N, "
                                        "then torque x y z in N m)%s, got %zu", TYPE(c), attr, one ? "" : " per index",
                                        m);
    }
    *count = m / 6;
    return 1;
}

/* ConstantForceField on a Rigid3d node: its one frame (index 0) takes a force at the com and a torque (world frame,
 * as SOFA's Rigid3 force), `forces` (one per index), else `force` (on every index), else `totalForce` (spread over
 * them), the wrenches summed in list order: one constant force on point 0 and one on point 1
 * (pf_world_add_constant_force). */
static int rigid_constant_force(pf_scene_component *c)
{
    double *forces = NULL, *force = NULL, *total = NULL;
    size_t nforces = 0, one = 0;
    uint32_t *idx = NULL;
    size_t m = 0;
    int from_end = 0, rc, has_forces, has_force = 0, has_total = 0;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "showArrowSize");
    pf_scene_component_ignore(c, "showColor");
    if ((has_forces = rc = wrenches(c, "forces", 0, &forces, &nforces)) >= 0 &&
        (has_force = rc = wrenches(c, "force", 1, &force, &one)) >= 0 &&
        (has_total = rc = wrenches(c, "totalForce", 1, &total, &one)) >= 0 &&
        (rc = sc_parse_bool(c, "indexFromEnd", &from_end)) >= 0) {
        const char *link = pf_scene_component_string(c, "indices");
        if (link && link[0] == '@')
            rc = pf_scene_component_error(c, PF_ENOTSUP, "%s on a Rigid3d body: 'indices' links '%s'; give the index "
                                          "(0, the body's one frame)", TYPE(c), link);
        else
            rc = sc_parse_uints(c, "indices", &idx, &m);
    }
    const char *used = has_forces ? "forces" : has_force ? "force" : has_total ? "totalForce" : NULL;
    size_t count = m ? m : 1; /* no indices: every frame, the one */
    for (size_t k = 0; rc >= 0 && k < m; k++)
        if (idx[k] != 0)
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: index %u is out of range (a Rigid3d body is one frame, "
                                          "index 0)", TYPE(c), idx[k]);
    if (rc >= 0 && m == 0 && idx) rc = pf_scene_component_error(c, PF_EPARSE, "%s: 'indices' is empty", TYPE(c));
    if (rc >= 0 && has_forces && nforces != count)
        rc = pf_scene_component_error(c, PF_EINVAL, "%s: 'forces' gives %zu wrenches for %zu indices: one per index is "
                                      "needed", TYPE(c), nforces, count);
    if (rc >= 0 && !used)
        pf_scene_component_warning(c, "%s: none of 'forces', 'force', 'totalForce' is given: no force (as SOFA)",
                                   TYPE(c));
    else if (rc >= 0 && has_forces + has_force + has_total > 1)
        pf_scene_component_warning(c, "%s: '%s' is used, the others ignored (SOFA takes forces, then force, then "
                                   "totalForce)", TYPE(c), used);
    pf_object_id o;
    if (rc >= 0 && used) rc = pf_scene_component_object(c, &o);
    double wrench[6] = {0, 0, 0, 0, 0, 0};
    for (size_t k = 0; rc >= 0 && used && k < count; k++)
        for (int a = 0; a < 6; a++)
            wrench[a] += has_forces ? forces[6 * k + a] : has_force ? force[a] : total[a] / (double)count;
    for (uint32_t p = 0; rc >= 0 && used && p < 2; p++) { /* point 0: the force at the com; point 1: the torque */
        pf_constant_force_def d = pf_constant_force_default_def();
        memcpy(d.force, wrench + 3 * p, sizeof d.force);
        d.points = &p;
        d.npoints = 1;
        if (!(rc = pf_world_add_constant_force(c->L->scene->world, o, &d, NULL))) c->L->scene->summary.force_fields++;
    }
    pf_free(forces);
    pf_free(force);
    pf_free(total);
    pf_free(idx);
    return rc < 0 ? rc : PF_OK;
}

/* ConstantForceField as SOFA reads it: `forces` (one per listed point), else `force` (on every listed point), else
 * `totalForce` (spread evenly over them); the first of these given wins, as in SOFA's init, the others are warned
 * about; none: SOFA warns and pushes nothing. No `indices`: every point of the node's object; `indices` may link
 * an ROI's output ("@box.indices", one selecting none: every point, as SOFA's init); `indexFromEnd` counts them from
 * the last point. Points of equal force share one field (pf_world_add_constant_force), in the
 * order their force first appears. */
int sc_constant_force_field(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    if (c->node->beam_frames) return sc_beam_constant_force(c);
    if (c->node->rigid) return rigid_constant_force(c);
    double force[3] = {0, 0, 0}, total[3], *forces = NULL;
    size_t nforces = 0;
    int has_force, has_total, has_forces, from_end = 0, rc;
    if ((has_forces = sc_parse_reals(c, "forces", &forces, &nforces)) < 0) return has_forces;
    if ((has_force = vector3(c, "force", force)) < 0 || (has_total = vector3(c, "totalForce", total)) < 0 ||
        (rc = sc_parse_bool(c, "indexFromEnd", &from_end)) < 0) {
        pf_free(forces);
        return has_force < 0 ? has_force : has_total < 0 ? has_total : rc;
    }
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "showArrowSize");
    pf_scene_component_ignore(c, "showColor");
    if (has_forces && (nforces == 0 || nforces % 3)) {
        pf_free(forces);
        return pf_scene_component_error(c, PF_EPARSE, "%s: 'forces' needs 3 numbers (x y z, N) per point, got %zu",
                                        TYPE(c), nforces);
    }
    const char *used = has_forces ? "forces" : has_force ? "force" : has_total ? "totalForce" : NULL;
    if (!used) {
        pf_scene_component_ignore(c, "indices");
        pf_scene_component_warning(c, "%s: none of 'forces', 'force', 'totalForce' is given: no force (as SOFA)",
                                   TYPE(c));
        return PF_OK;
    }
    if (has_forces + has_force + has_total > 1)
        pf_scene_component_warning(c, "%s: '%s' is used, %s%s%s ignored (SOFA takes forces, then force, then "
                                   "totalForce)", TYPE(c), used, has_forces && has_force ? "'force'" : "",
                                   has_forces && has_force && has_total ? " and " : "",
                                   has_total ? "'totalForce'" : "");
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) {
        pf_free(forces);
        return rc;
    }
    uint32_t *idx = NULL, npts = object_points(c, o);
    size_t m = 0;
    const char *link = pf_scene_component_string(c, "indices");
    if (link && link[0] == '@') { /* an ROI's output ("@box.indices"), a copy of it */
        const uint32_t *roi;
        uint32_t nroi, *owned;
        if (!(rc = sc_point_indices(c, npts, 0, &roi, &nroi, &owned)) &&
            !(idx = pf_malloc(((size_t)nroi + 1) * sizeof *idx)))
            rc = pf_error(PF_ENOMEM, "out of memory");
        if (!rc) memcpy(idx, roi, (size_t)nroi * sizeof *idx);
        m = nroi;
        pf_free(owned);
        if (!rc && m == 0) { /* SOFA: an empty list of indices is every point (ConstantForceField::init) */
            pf_scene_component_warning(c, "%s: the ROI '%s' selects no point: SOFA then pushes every point", TYPE(c),
                                       link);
            pf_free(idx);
            idx = NULL;
        }
    } else {
        rc = sc_parse_uints(c, "indices", &idx, &m);
    }
    if (rc < 0) {
        pf_free(forces);
        return rc;
    }
    rc = PF_OK;
    for (size_t k = 0; k < m && !rc; k++)
        if (idx[k] >= npts)
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: index %u is out of range (%u points)", TYPE(c), idx[k],
                                          npts);
    if (!rc && m == 0 && idx) rc = pf_scene_component_error(c, PF_EPARSE, "%s: 'indices' is empty", TYPE(c));
    size_t count = m ? m : npts; /* the points listed */
    if (!rc && has_forces && nforces / 3 != count)
        rc = pf_scene_component_error(c, PF_EINVAL, "%s: 'forces' gives %zu forces for %zu points (%s): one per point "
                                      "is needed", TYPE(c), nforces / 3, count, m ? "'indices'" : "every point");
    if (!rc && (from_end || has_forces) && !idx) { /* the points named one by one */
        if (!(idx = pf_malloc(count * sizeof *idx + 1))) rc = pf_error(PF_ENOMEM, "out of memory");
        for (size_t k = 0; k < count && !rc; k++) idx[k] = (uint32_t)k;
        m = count;
    }
    for (size_t k = 0; k < m && from_end && !rc; k++) idx[k] = npts - 1 - idx[k];
    pf_world *w = c->L->scene->world;
    if (!rc && !has_forces) {
        pf_constant_force_def d = pf_constant_force_default_def();
        for (int a = 0; a < 3; a++) d.force[a] = has_force ? force[a] : total[a] / (double)count;
        d.points = idx;
        d.npoints = (uint32_t)m;
        if (!(rc = pf_world_add_constant_force(w, o, &d, NULL))) c->L->scene->summary.force_fields++;
    }
    /* forces: the points of each distinct force together (sorted by force, then position in the list: runs of
     * one force, each in list order), the runs in the order their force first appears */
    force_ref *ref = rc || !has_forces ? NULL : pf_malloc(m * sizeof *ref + 1);
    force_ref *runs = ref ? pf_malloc(m * sizeof *runs + 1) : NULL; /* each run's first position and its start */
    uint32_t *group = ref ? pf_malloc(m * sizeof *group + 1) : NULL, nruns = 0;
    if (!rc && has_forces && (!ref || !runs || !group)) rc = pf_error(PF_ENOMEM, "out of memory");
    if (!rc && has_forces) {
        for (size_t k = 0; k < m; k++) ref[k] = (force_ref){forces + 3 * k, (uint32_t)k};
        qsort(ref, m, sizeof *ref, cmp_force_ref);
        for (size_t k = 0; k < m; k++)
            if (k == 0 || memcmp(ref[k].f, ref[k - 1].f, 3 * sizeof(double)))
                runs[nruns++] = (force_ref){ref[k].f, (uint32_t)k};
        qsort(runs, nruns, sizeof *runs, cmp_force_ref_first);
    }
    for (uint32_t r = 0; r < nruns && !rc; r++) {
        uint32_t k = runs[r].k, ng = 0;
        for (size_t j = k; j < m && !memcmp(ref[j].f, ref[k].f, 3 * sizeof(double)); j++) group[ng++] = idx[ref[j].k];
        pf_constant_force_def d = pf_constant_force_default_def();
        memcpy(d.force, ref[k].f, sizeof d.force);
        d.points = group;
        d.npoints = ng;
        if (!(rc = pf_world_add_constant_force(w, o, &d, NULL))) c->L->scene->summary.force_fields++;
    }
    pf_free(ref);
    pf_free(runs);
    pf_free(group);
    pf_free(idx);
    pf_free(forces);
    return rc;
}

/* ---- constraints ---- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* BoxROI: the points of the node's object inside any of its boxes (xmin ymin zmin xmax ymax zmax each, moved with a
 * replicated copy), in increasing order, for `@name.indices` links. */
int sc_box_roi(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double *b;
    size_t m;
    int rc = sc_parse_reals(c, "box", &b, &m);
    if (rc < 0) return rc;
    if (rc == 0 || m == 0 || m % 6) {
        pf_free(b);
        return pf_scene_component_error(c, PF_EPARSE, "BoxROI: 'box' needs 6 numbers per box (xmin ymin zmin xmax "
                                        "ymax zmax), got %zu", m);
    }
    pf_scene_component_ignore(c, "drawBoxes");
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "position");
    /* SOFA's BoxROI::roiInit puts each box's bounds in order, axis by axis: a box written max first selects the
     * same points (sc_parse_reals refused bounds that are not finite numbers) */
    for (size_t k = 0; k < m / 6; k++)
        for (int d = 0; d < 3; d++)
            if (b[6 * k + d] > b[6 * k + 3 + d]) {
                double t = b[6 * k + d];
                b[6 * k + d] = b[6 * k + 3 + d];
                b[6 * k + 3 + d] = t;
            }
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) {
        pf_free(b);
        return rc;
    }
    pf_world *w = c->L->scene->world;
    uint32_t *idx = NULL, n = 0;
    for (size_t k = 0; k < m / 6 && !rc; k++) {
        double box[6];
        for (int d = 0; d < 6; d++) box[d] = b[6 * k + d] + c->node->offset[d % 3];
        uint32_t cnt;
        if ((rc = pf_world_box_select(w, o, box, NULL, 0, &cnt))) break;
        uint32_t *grown = pf_realloc(idx, (size_t)n * sizeof *idx, ((size_t)n + cnt + 1) * sizeof *idx);
        if (!grown) {
            rc = pf_error(PF_ENOMEM, "out of memory");
            break;
        }
        idx = grown;
        pf_world_box_select(w, o, box, idx + n, cnt, &cnt);
        n += cnt;
    }
    pf_free(b);
    if (!rc && m > 6) { /* union of several boxes: sorted, unique */
        qsort(idx, n, sizeof *idx, cmp_u32);
        uint32_t u = 0;
        for (uint32_t k = 0; k < n; k++)
            if (u == 0 || idx[u - 1] != idx[k]) idx[u++] = idx[k];
        n = u;
    }
    sc_loader *L = c->L;
    if (!rc && pf_vec_push(&L->boxes, ((sc_box_cache){c->node, c->el, idx, n})))
        rc = pf_error(PF_ENOMEM, "out of memory");
    if (rc) pf_free(idx);
    return rc;
}

int sc_point_indices(pf_scene_component *c, uint32_t npts, int all, const uint32_t **out, uint32_t *count,
                     uint32_t **owned)
{
    int rc;
    const char *s = pf_scene_component_string(c, "indices");
    uint32_t *own = NULL, n = 0;
    const uint32_t *idx = NULL;
    *out = NULL;
    *count = 0;
    *owned = NULL;
    if (all) {
        if (!(own = pf_malloc((size_t)npts * sizeof *own))) return pf_error(PF_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < npts; k++) own[k] = k;
        idx = own;
        n = npts;
    } else if (s && s[0] == '@') {
        sc_node *node;
        xmlNode *comp;
        const char *field;
        if ((rc = sc_resolve_link(c, "indices", s, &node, &comp, &field))) return rc;
        int roi = comp && (!xmlStrcmp(comp->name, (const xmlChar *)"BoxROI") ||
                           !xmlStrcmp(comp->name, (const xmlChar *)"SphereROI") ||
                           !xmlStrcmp(comp->name, (const xmlChar *)"PairBoxROI") ||
                           !xmlStrcmp(comp->name, (const xmlChar *)"PlaneROI") ||
                           !xmlStrcmp(comp->name, (const xmlChar *)"MeshBoundaryROI"));
        if (!roi || !field || strcmp(field, "indices"))
            return pf_scene_component_error(c, PF_EPARSE, "%s: 'indices' link '%s' must name a BoxROI's, SphereROI's, "
                                            "PairBoxROI's, PlaneROI's or MeshBoundaryROI's indices ('@box.indices')",
                                            TYPE(c), s);
        if (node != c->node)
            return pf_scene_component_error(c, PF_EPARSE, "%s: the ROI '%s' selects points of another node's "
                                            "object", TYPE(c), s);
        if ((rc = sc_box_indices(c, node, comp, &idx, &n))) return rc;
    } else if (s) {
        size_t m;
        if ((rc = sc_parse_uints(c, "indices", &own, &m)) < 0) return rc;
        idx = own;
        n = (uint32_t)m;
    } else {
        return pf_scene_component_error(c, PF_EPARSE, "%s: give 'indices' or fixAll=\"true\"", TYPE(c));
    }
    for (uint32_t k = 0; k < n; k++)
        if (idx[k] >= npts) {
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: index %u is out of range (%u points)", TYPE(c), idx[k],
                                          npts);
            pf_free(own);
            return rc;
        }
    *out = idx;
    *count = n;
    *owned = own;
    return PF_OK;
}

int sc_fixed_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_object_id o;
    int rc, all = 0;
    if ((rc = sc_parse_bool(c, "fixAll", &all)) < 0) return rc;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "showObject");
    pf_scene_component_ignore(c, "drawSize");
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (c->node->beam_frames) return sc_beam_fixed_frames(c, o, all);
    /* a Rigid3d object has one frame (index 0), which fixes the whole body: both of its points */
    int rigid = c->node->rigid;
    uint32_t npts = rigid ? 1 : object_points(c, o);
    uint32_t *own, n;
    const uint32_t *idx;
    if ((rc = sc_point_indices(c, npts, all, &idx, &n, &own))) return rc;
    if (n == 0) pf_scene_component_warning(c, "%s fixes no point", TYPE(c));
    static const uint32_t both[2] = {0, 1};
    rc = pf_world_fix_points(c->L->scene->world, o, rigid && n ? both : idx, rigid && n ? 2 : n);
    pf_free(own);
    if (rc) return rc;
    c->L->scene->summary.constraints++;
    c->L->scene->summary.fixed_points += n;
    return PF_OK;
}

/* ---- collision models: recorded on their node; the loader attaches one surface per node once every force
 * field exists (scenes/surfaces.c) ---- */

static void ignore_collision_flags(pf_scene_component *c)
{
    static const char *const flags[] = {"template", "moving", "simulated", "group", "proximity", "color"};
    SC_IGNORE_ATTRS(c, flags);
}

/* A value the collision models of a node give its surfaces together (contactFriction, contactStiffness): x is
 * kept in *v, or refused when another model of the node gave another. */
static int node_surface_value(pf_scene_component *c, const char *name, double x, int *has, double *v)
{
    if (*has && *v != x)
        return pf_scene_component_error(c, PF_EINVAL, "%s: %s %g differs from %g given by another collision model "
                                        "of node '%s' (they share its surface)", TYPE(c), name, x, *v, c->node->name);
    *has = 1;
    *v = x;
    return PF_OK;
}

/* contactFriction (SOFA CollisionModel): the Coulomb coefficient of the node's surfaces, over the response's */
static int collision_friction(pf_scene_component *c)
{
    double mu = 0;
    int rc = pf_scene_component_real(c, "contactFriction", 0, 1e300, &mu);
    if (rc <= 0) return rc;
    return node_surface_value(c, "contactFriction", mu, &c->node->has_friction, &c->node->friction);
}

/* contactStiffness (SOFA CollisionModel, > 0, default 10): the node's surfaces' factor in SOFA's penalty stiffness
 * k_a k_b / (contact distance + radii) of each contact (pf_world_set_surface_contact_stiffness), unless the
 * response gives its own `stiffness` (scenes/bodies.c) */
static int collision_stiffness(pf_scene_component *c)
{
    double k = 10;
    int rc = pf_scene_component_real(c, "contactStiffness", -1e300, 1e300, &k);
    if (rc <= 0) return rc;
    if (!(k > 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: contactStiffness must be > 0, got %g", TYPE(c), k);
    return node_surface_value(c, "contactStiffness", k, &c->node->has_contact_stiffness, &c->node->contact_stiffness);
}

/* selfCollision="1" on a triangle, line or point model: the node's surface collides with itself (its spheres
 * always meet each other: a sphere model ignores the flag) */
static int self_collision_flag(pf_scene_component *c)
{
    int self = 0;
    int rc = sc_parse_bool(c, "selfCollision", &self);
    if (rc < 0) return rc;
    if (self) c->node->self_collide = 1;
    return PF_OK;
}

/* listRadius: radii written out, or linked from a SphereLoader ("@loader.listRadius", "@[-2].listRadius").
 * PhysFlow's sphere surfaces have one radius: equal radii are that radius; different ones take the largest,
 * with a warning. 0 when absent. */
static int list_radius(pf_scene_component *c, double *r)
{
    const char *s = pf_scene_component_string(c, "listRadius");
    if (!s) return 0;
    double *own = NULL;
    const double *radii = NULL;
    size_t n = 0;
    if (s[0] == '@') {
        sc_node *from;
        xmlNode *comp;
        const char *field;
        int rc = sc_resolve_link(c, "listRadius", s, &from, &comp, &field);
        if (rc) return rc;
        const sc_mesh *m = sc_loaded_mesh(from, comp);
        if (!m || !m->radii || (field && strcmp(field, "listRadius")))
            return pf_scene_component_error(c, PF_EINVAL, "%s: listRadius = '%s' links no SphereLoader's radii",
                                            TYPE(c), s);
        radii = m->radii;
        n = m->npoints;
    } else {
        int rc = sc_parse_reals(c, "listRadius", &own, &n);
        if (rc < 0) return rc;
        radii = own;
    }
    if (n == 0) {
        pf_free(own);
        return pf_scene_component_error(c, PF_EPARSE, "%s: listRadius holds no radius", TYPE(c));
    }
    double lo = radii[0], hi = radii[0];
    for (size_t k = 1; k < n; k++) {
        lo = radii[k] < lo ? radii[k] : lo;
        hi = radii[k] > hi ? radii[k] : hi;
    }
    pf_free(own);
    if (!(lo > 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: listRadius: radius %g is not > 0", TYPE(c), lo);
    if (lo != hi)
        pf_scene_component_warning(c, "%s: listRadius: radii from %g to %g; PhysFlow's spheres share one radius: "
                                   "all take %g", TYPE(c), lo, hi, hi);
    *r = hi;
    return 1;
}

int sc_sphere_model(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double r = 1;
    int rc = pf_scene_component_real(c, "radius", -1e300, 1e300, &r);
    if (rc < 0) return rc;
    if (!(r > 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: radius must be > 0, got %g", TYPE(c), r);
    if ((rc = list_radius(c, &r)) < 0) return rc;
    if ((rc = collision_friction(c)) < 0 || (rc = collision_stiffness(c)) < 0) return rc;
    ignore_collision_flags(c);
    pf_scene_component_ignore(c, "selfCollision");
    if (c->node->collide & SC_COLLIDE_SPHERES)
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' already has spheres", TYPE(c), c->node->name);
    return sc_add_collision_model(c, PF_COLLIDE_SPHERE, r, NULL, 0);
}

/* Triangles for collision: a mesh's (MeshTopology, MeshObjLoader, the mesh of a SparseGridTopology or of a mapped
 * node; a volume mesh without triangles: every face of its elements, as SOFA's container lists them), a regular
 * grid's boundary, or a RigidShape's. */
int sc_triangle_model(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int rc = collision_friction(c);
    if (rc < 0 || (rc = collision_stiffness(c)) < 0) return rc;
    ignore_collision_flags(c);
    if ((rc = self_collision_flag(c))) return rc;
    sc_node *n = c->node;
    const sc_mesh *m = &n->mesh;
    if (n->topology == SC_TOPO_MESH && (rc = sc_derive_volume_faces(&n->mesh)) < 0) return rc;
    int has_mesh = m->ntris > 0 && (n->topology == SC_TOPO_MESH || n->sparse);
    int grid = n->topology == SC_TOPO_GRID && !n->sparse && n->mapping == SC_MAP_NONE;
    int shape = n->rigid && n->shape_line;
    if (!has_mesh && !grid && !shape)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs triangles: a MeshTopology or MeshObjLoader with "
                                        "triangles, a SparseGridTopology, a RegularGridTopology or a RigidShape in "
                                        "node '%s'", TYPE(c), n->name);
    return sc_add_collision_model(c, PF_COLLIDE_TRIANGLE, 0, has_mesh ? m->tris : NULL, has_mesh ? m->ntris : 0);
}

int sc_point_model(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int rc = collision_friction(c);
    if (rc < 0 || (rc = collision_stiffness(c)) < 0) return rc;
    ignore_collision_flags(c);
    if ((rc = self_collision_flag(c))) return rc;
    return sc_add_collision_model(c, PF_COLLIDE_POINT, 0, NULL, 0);
}

/* LineCollisionModel: the edges of the node's topology (EdgeSetTopologyContainer or MeshTopology edges, the edges
 * of a volume mesh's elements when it lists none, the edges of its triangles, of a mesh loader's, of a grid's
 * boundary or of a rigid shape) as the surface's lines, which meet the lines of other surfaces edge to edge. */
int sc_line_model(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int rc = collision_friction(c);
    if (rc < 0 || (rc = collision_stiffness(c)) < 0) return rc;
    ignore_collision_flags(c);
    if ((rc = self_collision_flag(c))) return rc;
    sc_node *n = c->node;
    const sc_mesh *m = &n->mesh;
    if (n->topology == SC_TOPO_MESH && (rc = sc_derive_volume_edges(&n->mesh)) < 0) return rc;
    int has_mesh = (m->nedges > 0 || m->ntris > 0) && (n->topology == SC_TOPO_MESH || n->sparse);
    int grid = n->topology == SC_TOPO_GRID && !n->sparse && n->mapping == SC_MAP_NONE;
    int shape = n->rigid && n->shape_line;
    if (!has_mesh && !grid && !shape)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs edges: an EdgeSetTopologyContainer or MeshTopology "
                                        "with edges or triangles, a MeshObjLoader, a SparseGridTopology, a "
                                        "RegularGridTopology or a RigidShape in node '%s'", TYPE(c), n->name);
    return sc_add_collision_model(c, PF_COLLIDE_LINE, 0, NULL, 0);
}
