/* Membrane components: SOFA's TriangularFEMForceField and TriangleFEMForceField (pf_world_add_triangle_fem),
 * TriangularBiquadraticSpringsForceField and TriangularQuadraticSpringsForceField (pf_world_add_biquadratic_springs)
 * and TriangularTensorMassForceField (pf_world_add_tensor_mass) over the node's triangles; the bending of its
 * surface: FastTriangularBendingSprings (pf_world_add_bending_vectors) and the springs TriangularBendingSprings and
 * QuadularBendingSprings (pf_world_add_springs, rest length = initial distance). */
#include "components.h"
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* ---- the node's surface ---- */

/* The node's triangles (*out owned by the caller): its mesh's (quads already split by the readers), or a flat
 * grid's quads split in two as SOFA's TriangleFEMForceField splits them, (0 1 2) (0 2 3). */
static int node_triangles(pf_scene_component *c, uint32_t **out, uint32_t *nt)
{
    sc_node *n = c->node;
    *out = NULL;
    *nt = 0;
    if (n->topology == SC_TOPO_MESH && n->mesh.ntris) {
        size_t bytes = (size_t)n->mesh.ntris * 3 * sizeof **out;
        if (!(*out = pf_malloc(bytes))) return pf_error(PF_ENOMEM, "out of memory for triangles");
        memcpy(*out, n->mesh.tris, bytes);
        *nt = n->mesh.ntris;
        return PF_OK;
    }
    if (n->topology == SC_TOPO_GRID) {
        uint32_t *q, nq;
        int rc = sc_grid_quads(n->def.grid, &q, &nq);
        if (rc) return rc;
        if (nq) {
            uint32_t *t = pf_malloc((size_t)nq * 6 * sizeof *t);
            if (!t) {
                pf_free(q);
                return pf_error(PF_ENOMEM, "out of memory for triangles");
            }
            for (uint32_t k = 0; k < nq; k++) {
                const uint32_t *v = q + 4 * k;
                uint32_t s[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
                memcpy(t + 6 * k, s, sizeof s);
            }
            pf_free(q);
            *out = t;
            *nt = 2 * nq;
            return PF_OK;
        }
    }
    return pf_scene_component_error(c, PF_EPARSE,
                                    "%s needs triangles in node '%s': a topology or mesh loader with "
                                    "triangles or quads, or a RegularGridTopology with one dimension of 1",
                                    TYPE(c), n->name);
}

/* The node's quads (*out owned by the caller): its mesh's, or a flat grid's cells. */
static int node_quads(pf_scene_component *c, uint32_t **out, uint32_t *nq)
{
    sc_node *n = c->node;
    *out = NULL;
    *nq = 0;
    if (n->topology == SC_TOPO_MESH && n->mesh.nquads) {
        size_t bytes = (size_t)n->mesh.nquads * 4 * sizeof **out;
        if (!(*out = pf_malloc(bytes))) return pf_error(PF_ENOMEM, "out of memory for quads");
        memcpy(*out, n->mesh.quads, bytes);
        *nq = n->mesh.nquads;
        return PF_OK;
    }
    if (n->topology == SC_TOPO_GRID) {
        int rc = sc_grid_quads(n->def.grid, out, nq);
        if (rc || *nq) return rc;
    }
    return pf_scene_component_error(c, PF_EPARSE,
                                    "%s needs quads in node '%s': a topology or mesh loader with quads, "
                                    "or a RegularGridTopology with one dimension of 1",
                                    TYPE(c), n->name);
}

/* ---- FEM ---- */

/* TriangularFEMForceField and TriangleFEMForceField: SOFA's attributes and defaults (E 1000, nu 0.3, "large";
 * TriangleFEMForceField also has thickness 1 and planeStrain false). */
/* youngModulus (> 0) and poissonRatio into *E and *nu (kept when absent): nu must lie in [nu_min, 0.5) for a
 * material model that needs nu < 0.5 (`below_half`), else in (-1, 1) */
static int elastic_moduli(pf_scene_component *c, double *E, double *nu, int below_half)
{
    int rc;
    if ((rc = pf_scene_component_real(c, "youngModulus", -1e300, 1e300, E)) < 0) return rc;
    if (!(*E > 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: youngModulus must be > 0, got %g", TYPE(c), *E);
    if ((rc = pf_scene_component_real(c, "poissonRatio", -1e300, 1e300, nu)) < 0) return rc;
    if (below_half ? !(*nu >= 0 && *nu < 0.5) : !(*nu > -1 && *nu < 1))
        return pf_scene_component_error(c, PF_EINVAL, "%s: poissonRatio must be in %s, got %g", TYPE(c),
                                        below_half ? "[0, 0.5)" : "(-1, 1)", *nu);
    return PF_OK;
}

/* what adding a field to the node's triangles gave (the physics' message names the bad triangle): counted, or the
 * error under the component's name */
/* a field over node_triangles' list: the topology's triangles one for one when the node's mesh has no quads (a
 * quad is two of them) */
static int note_triangles(pf_scene_component *c, pf_force_field_id id, uint32_t nt)
{
    const sc_node *n = c->node;
    int same = n->topology == SC_TOPO_MESH && !n->mesh.nquads && nt == n->mesh.ntris;
    return sc_note_element_field(c, id, SC_ELEMENT_TRIANGLES, nt, same);
}

static int field_added(pf_scene_component *c, int rc)
{
    if (rc) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: %s", TYPE(c), copy);
    }
    c->L->scene->summary.force_fields++;
    return PF_OK;
}

/* pf_world_add_triangle_fem(d) over the node's triangles */
static int add_triangle_fem(pf_scene_component *c, pf_triangle_fem_def *d)
{
    pf_object_id o;
    int rc;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    uint32_t *tris, nt;
    if ((rc = node_triangles(c, &tris, &nt))) return rc;
    d->triangles = tris;
    d->ntriangles = nt;
    pf_force_field_id id;
    rc = pf_world_add_triangle_fem(c->L->scene->world, o, d, &id);
    pf_free(tris);
    if (rc || (rc = note_triangles(c, id, nt))) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}

int sc_triangle_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_triangle_fem_def d = pf_triangle_fem_default_def();
    int triangle = !strcmp(TYPE(c), "TriangleFEMForceField"), rc;
    if ((rc = elastic_moduli(c, &d.young_modulus, &d.poisson_ratio, 1))) return rc;
    if (triangle) {
        if ((rc = pf_scene_component_real(c, "thickness", -1e300, 1e300, &d.thickness)) < 0) return rc;
        if (!(d.thickness > 0))
            return pf_scene_component_error(c, PF_EINVAL, "%s: thickness must be > 0, got %g", TYPE(c),
                                            d.thickness);
        int plane_strain = 0;
        if ((rc = sc_parse_bool(c, "planeStrain", &plane_strain)) < 0) return rc;
        if (plane_strain)
            return pf_scene_component_error(
                c, PF_ENOTSUP, "%s: planeStrain is not supported yet (plane stress only)", TYPE(c));
    }
    const char *m = pf_scene_component_string(c, "method");
    if (m && !strcmp(m, "large"))
        d.method = PF_FEM_LARGE;
    else if (m && !strcmp(m, "small"))
        d.method = PF_FEM_LINEAR;
    else if (m)
        return pf_scene_component_error(c, PF_EPARSE, "%s: unknown method '%s' (large, small)", TYPE(c), m);
    static const char *const ignored[] = {"template",
                                          "rotatedInitialElements",
                                          "initialTransformation",
                                          "hosfordExponant",
                                          "criteriaValue",
                                          "showStressValue",
                                          "showStressVector",
                                          "showFracturableTriangles",
                                          "computePrincipalStress",
                                          "initialPoints",
                                          "topology"};
    SC_IGNORE_ATTRS(c, ignored);
    return add_triangle_fem(c, &d);
}

/* TriangularFEMForceFieldOptim: SOFA's TriangularFEMForceField "large" written out by hand (checked against
 * SOFA's TriangularFEMForceFieldOptim.inl): the same frame (x along ab, y in the plane), the same local
 * displacements of b and c, the plane-stress D as mu = E / (1 + nu) and gamma = E nu / (1 - nu^2) (D11 = mu +
 * gamma = E / (1 - nu^2), D33 = mu / 2), area A, thickness 1, and df = -R^T Ke R dx with the current frame: so
 * pf_world_add_triangle_fem, PF_FEM_LARGE. Its defaults are BaseLinearElasticityFEMForceField's (E 5000, nu
 * 0.45); SOFA ignores a method other than "large" with a warning, and so does PhysFlow; its `damping` is read
 * but used nowhere in SOFA. `restScale` scales each triangle's rest edges (SOFA's initTriangleInfo): a
 * pre-stretched membrane below 1. */
int sc_triangle_fem_optim(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_triangle_fem_def d = pf_triangle_fem_default_def();
    d.young_modulus = 5000;
    d.poisson_ratio = 0.45;
    int rc;
    if ((rc = elastic_moduli(c, &d.young_modulus, &d.poisson_ratio, 1))) return rc;
    const char *m = pf_scene_component_string(c, "method");
    if (m && *m && strcmp(m, "large"))
        pf_scene_component_warning(c, "%s: method '%s' ignored: it implements \"large\" only (as in SOFA)",
                                   TYPE(c), m);
    if ((rc = pf_scene_component_real(c, "restScale", -1e300, 1e300, &d.rest_scale)) < 0) return rc;
    if (!(d.rest_scale > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: restScale must be > 0 (the rest shape's scale), got %g",
                                        TYPE(c), d.rest_scale);
    static const char *const ignored[] = {"template",          "topology",          "damping",
                                          "computePrincipalStress", "stressMaxValue", "showStressVector",
                                          "showStressThreshold"};
    SC_IGNORE_ATTRS(c, ignored);
    return add_triangle_fem(c, &d);
}

/* TriangularBiquadraticSpringsForceField and TriangularQuadraticSpringsForceField (pf_world_add_biquadratic_springs,
 * quadratic for the second) over the node's triangles: SOFA's attributes and defaults (E 1000, nu 0.3,
 * useAngularSprings on; the biquadratic's compressible on). dampingRatio (SOFA's damping on the edges' rate) is read
 * as 0 only; matrixRegularization is ignored: PhysFlow's stiffness is the force's exact derivative. */
int sc_biquadratic_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_biquadratic_springs_def d = pf_biquadratic_springs_default_def();
    d.quadratic = !strcmp(TYPE(c), "TriangularQuadraticSpringsForceField");
    int rc;
    double damping = 0;
    if ((rc = elastic_moduli(c, &d.young_modulus, &d.poisson_ratio, 0))) return rc;
    if ((rc = sc_parse_bool(c, "useAngularSprings", &d.angular_springs)) < 0) return rc;
    if (!d.quadratic && (rc = sc_parse_bool(c, "compressible", &d.compressible)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "dampingRatio", -1e300, 1e300, &damping)) < 0) return rc;
    if (damping != 0)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: dampingRatio %g is not supported (0 only): use the "
                                        "solver's rayleighStiffness", TYPE(c), damping);
    static const char *const ignored[] = {"template", "initialPoints", "topology"};
    SC_IGNORE_ATTRS(c, ignored);
    if (!d.quadratic) pf_scene_component_ignore(c, "matrixRegularization");
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    uint32_t *tris, nt;
    if ((rc = node_triangles(c, &tris, &nt))) return rc;
    d.triangles = tris;
    d.ntriangles = nt;
    pf_force_field_id id;
    rc = pf_world_add_biquadratic_springs(c->L->scene->world, o, &d, &id);
    pf_free(tris);
    if (!rc) rc = note_triangles(c, id, nt);
    return field_added(c, rc);
}

/* TriangularTensorMassForceField (pf_world_add_tensor_mass) over the node's triangles: SOFA's attributes and
 * defaults (E 1000, nu 0.3). */
int sc_tensor_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_tensor_mass_def d = pf_tensor_mass_default_def();
    int rc;
    if ((rc = elastic_moduli(c, &d.young_modulus, &d.poisson_ratio, 0))) return rc;
    static const char *const ignored[] = {"template", "topology"};
    SC_IGNORE_ATTRS(c, ignored);
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    uint32_t *tris, nt;
    if ((rc = node_triangles(c, &tris, &nt))) return rc;
    d.triangles = tris;
    d.ntriangles = nt;
    pf_force_field_id id;
    rc = pf_world_add_tensor_mass(c->L->scene->world, o, &d, &id);
    pf_free(tris);
    if (!rc) rc = note_triangles(c, id, nt);
    return field_added(c, rc);
}

/* FastTriangularBendingSprings (pf_world_add_bending_vectors) over the node's triangles: SOFA's attributes and
 * defaults (bendingStiffness 1, minDistValidity 1e-6). */
int sc_fast_bending_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_bending_vectors_def d = pf_bending_vectors_default_def();
    int rc;
    if ((rc = pf_scene_component_real(c, "bendingStiffness", -1e300, 1e300, &d.bending_stiffness)) < 0) return rc;
    if (!(d.bending_stiffness >= 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: bendingStiffness must be >= 0, got %g", TYPE(c),
                                        d.bending_stiffness);
    if ((rc = pf_scene_component_real(c, "minDistValidity", -1e300, 1e300, &d.min_distance)) < 0) return rc;
    if (!(d.min_distance >= 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: minDistValidity must be >= 0, got %g", TYPE(c),
                                        d.min_distance);
    static const char *const ignored[] = {"template", "topology"};
    SC_IGNORE_ATTRS(c, ignored);
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    uint32_t *tris, nt, hinges = 0;
    if ((rc = node_triangles(c, &tris, &nt))) return rc;
    d.triangles = tris;
    d.ntriangles = nt;
    rc = pf_world_add_bending_vectors(c->L->scene->world, o, &d, &hinges, NULL);
    pf_free(tris);
    if (rc) return rc;
    c->L->scene->summary.force_fields += hinges > 0;
    return PF_OK;
}

/* ---- bending springs ---- */

/* SOFA's stiffness and damping of a bending spring field (the defaults k0, d0): both >= 0 */
static int bending_constants(pf_scene_component *c, double k0, double d0, double *k, double *d)
{
    *k = k0;
    *d = d0;
    int rc;
    if ((rc = pf_scene_component_real(c, "stiffness", -1e300, 1e300, k)) < 0) return rc;
    if (!(*k >= 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: stiffness must be >= 0, got %g", TYPE(c), *k);
    if ((rc = pf_scene_component_real(c, "damping", -1e300, 1e300, d)) < 0) return rc;
    if (!(*d >= 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: damping must be >= 0, got %g", TYPE(c), *d);
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "topology");
    return PF_OK;
}

/* One side of an edge in a face: the edge (lo, hi), the face and the face's corner where the edge starts. */
typedef struct face_edge {
    uint32_t lo, hi, face, corner;
} face_edge;

static int cmp_face_edge(const void *a, const void *b)
{
    const face_edge *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return x->face < y->face ? -1 : x->face > y->face;
}

/* Every edge of faces of k corners, sorted by edge then face: the faces sharing an edge come together. */
static face_edge *face_edges(const uint32_t *faces, uint32_t nf, int k)
{
    face_edge *e = pf_malloc((size_t)nf * (size_t)k * sizeof *e + 1);
    if (!e) return NULL;
    for (uint32_t f = 0; f < nf; f++)
        for (int s = 0; s < k; s++) {
            uint32_t a = faces[(size_t)k * f + (size_t)s], b = faces[(size_t)k * f + (size_t)((s + 1) % k)];
            e[(size_t)k * f + (size_t)s] = (face_edge){a < b ? a : b, a < b ? b : a, f, (uint32_t)s};
        }
    qsort(e, (size_t)nf * (size_t)k, sizeof *e, cmp_face_edge);
    return e;
}

/* The bending springs of a surface of faces of k corners (3: TriangularBendingSprings, 4:
 * QuadularBendingSprings): for every edge shared by exactly two faces (as SOFA, edges of one face or of more
 * than two make none), triangles: one spring between the two corners opposite the edge; quads: two springs,
 * one through each end of the edge, between that end's neighbours off the edge in either quad. With `fan`
 * (TriangleBendingSprings, triangles only) an edge shared by more faces makes a spring from each later face's
 * opposite corner to the first face's, as SOFA's registerTriangle does. In the order of the edges (lo, hi). */
static int bending_springs(const uint32_t *faces, uint32_t nf, int k, int fan, double stiffness, double damping,
                           pf_spring **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    face_edge *e = face_edges(faces, nf, k);
    size_t ne = (size_t)nf * (size_t)k;
    pf_spring *s = pf_malloc(2 * ne * sizeof *s + 1); /* at most two springs per face edge */
    if (!e || !s) {
        pf_free(e);
        pf_free(s);
        return pf_error(PF_ENOMEM, "out of memory for bending springs");
    }
    uint32_t m = 0;
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi)
            j++;
        if (fan && k == 3 && j - i >= 2) {
            const uint32_t *f0 = faces + (size_t)k * e[i].face;
            for (size_t l = i + 1; l < j; l++) {
                const uint32_t *f1 = faces + (size_t)k * e[l].face;
                s[m++] = (pf_spring){f1[(e[l].corner + 2) % 3], f0[(e[i].corner + 2) % 3], stiffness, damping, -1.0};
            }
        } else if (fan && j - i >= 2) { /* quads: each later face's two springs to the first's, as below */
            const uint32_t *f0 = faces + (size_t)k * e[i].face;
            uint32_t c0 = e[i].corner;
            for (size_t l = i + 1; l < j; l++) {
                const uint32_t *f1 = faces + (size_t)k * e[l].face;
                uint32_t c1 = e[l].corner;
                for (int end = 0; end < 2; end++) {
                    uint32_t p = end ? e[i].hi : e[i].lo;
                    uint32_t a = f0[c0] == p ? f0[(c0 + 3) % 4] : f0[(c0 + 2) % 4];
                    uint32_t b = f1[c1] == p ? f1[(c1 + 3) % 4] : f1[(c1 + 2) % 4];
                    s[m++] = (pf_spring){b, a, stiffness, damping, -1.0};
                }
            }
        } else if (j - i == 2) {
            const uint32_t *f0 = faces + (size_t)k * e[i].face, *f1 = faces + (size_t)k * e[i + 1].face;
            uint32_t c0 = e[i].corner, c1 = e[i + 1].corner;
            if (k == 3) {
                s[m++] = (pf_spring){f0[(c0 + 2) % 3], f1[(c1 + 2) % 3], stiffness, damping, -1.0};
            } else {
                /* in a quad the edge runs from corner c to c+1: c's neighbour off the edge is c-1, c+1's is
                 * c+2 */
                for (int end = 0; end < 2; end++) {
                    uint32_t p = end ? e[i].hi : e[i].lo;
                    uint32_t a = f0[c0] == p ? f0[(c0 + 3) % 4] : f0[(c0 + 2) % 4];
                    uint32_t b = f1[c1] == p ? f1[(c1 + 3) % 4] : f1[(c1 + 2) % 4];
                    s[m++] = (pf_spring){a, b, stiffness, damping, -1.0};
                }
            }
        }
        i = j;
    }
    pf_free(e);
    *out = s;
    *n = m;
    return PF_OK;
}

typedef struct spring_pair {
    uint32_t lo, hi, i;
} spring_pair;

static int cmp_spring_pair(const void *x, const void *y)
{
    const spring_pair *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The springs s[0..*n) with each pair of points once (in either order), the first kept, in their order. */
static int unique_pairs(pf_spring *s, uint32_t *n)
{
    spring_pair *p = pf_malloc(((size_t)*n + 1) * sizeof *p);
    uint8_t *drop = pf_calloc((size_t)*n + 1, 1);
    if (!p || !drop) {
        pf_free(p);
        pf_free(drop);
        return pf_error(PF_ENOMEM, "out of memory for bending springs");
    }
    for (uint32_t i = 0; i < *n; i++)
        p[i] = (spring_pair){s[i].a < s[i].b ? s[i].a : s[i].b, s[i].a < s[i].b ? s[i].b : s[i].a, i};
    qsort(p, *n, sizeof *p, cmp_spring_pair);
    for (uint32_t i = 1; i < *n; i++)
        if (p[i].lo == p[i - 1].lo && p[i].hi == p[i - 1].hi) drop[p[i].i] = 1;
    uint32_t m = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (!drop[i]) s[m++] = s[i];
    *n = m;
    pf_free(p);
    pf_free(drop);
    return PF_OK;
}

/* The bending springs of nf faces of k corners on the node's object (bending_springs; `once`: each pair of points
 * joined once), as one spring field. */
static int add_bending(pf_scene_component *c, const uint32_t *faces, uint32_t nf, int k, int fan, int once,
                       double stiffness, double damping)
{
    pf_object_id o;
    int rc = pf_scene_component_object(c, &o);
    if (rc) return rc;
    pf_spring *s;
    uint32_t n;
    if ((rc = bending_springs(faces, nf, k, fan, stiffness, damping, &s, &n))) return rc;
    if (once && (rc = unique_pairs(s, &n))) { /* a pair of points joined once */
        pf_free(s);
        return rc;
    }
    /* a surface with no shared edge bends freely: no springs, no field */
    if (n) rc = pf_world_add_springs(c->L->scene->world, o, s, n, NULL);
    pf_free(s);
    if (rc) return rc;
    c->L->scene->summary.force_fields += n > 0;
    c->L->scene->summary.springs += n;
    return PF_OK;
}

int sc_triangular_bending_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double k, d;
    int rc = bending_constants(c, 100000, 1, &k, &d);
    if (rc) return rc;
    uint32_t *tris, nt;
    if ((rc = node_triangles(c, &tris, &nt))) return rc;
    rc = add_bending(c, tris, nt, 3, 0, 0, k, d);
    pf_free(tris);
    return rc;
}

/* TriangleBendingSprings: SOFA's older bending springs, a StiffSpringForceField (defaults stiffness 100, damping
 * 5) that joins the corners opposite each edge its triangles share (quads as two triangles (0 1 2) (0 2 3), so
 * also across each quad's diagonal), an edge of more than two triangles fanned from the first. */
int sc_triangle_bending_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double k, d;
    int rc = bending_constants(c, 100, 5, &k, &d);
    if (rc) return rc;
    uint32_t *tris, nt;
    if ((rc = node_triangles(c, &tris, &nt))) return rc;
    rc = add_bending(c, tris, nt, 3, 1, 0, k, d);
    pf_free(tris);
    return rc;
}

int sc_quadular_bending_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double k, d;
    int rc = bending_constants(c, 100000, 1, &k, &d);
    if (rc) return rc;
    uint32_t *quads, nq;
    if ((rc = node_quads(c, &quads, &nq))) return rc;
    rc = add_bending(c, quads, nq, 4, 0, 0, k, d);
    pf_free(quads);
    return rc;
}

/* QuadBendingSprings: SOFA's bending springs on quads, a StiffSpringForceField (defaults stiffness 100, damping 5):
 * for an edge its quads share, a spring through each end of the edge between that end's neighbours off the edge in
 * either quad (the corners of the two quads' edges opposite the shared one), an edge of more than two quads fanned
 * from the first; a pair of points joined once (QuadBendingSprings::registerEdge and addSpring's set). */
int sc_quad_bending_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double k, d;
    int rc = bending_constants(c, 100, 5, &k, &d);
    if (rc) return rc;
    uint32_t *quads, nq;
    if ((rc = node_quads(c, &quads, &nq))) return rc;
    rc = add_bending(c, quads, nq, 4, 1, 1, k, d);
    pf_free(quads);
    return rc;
}
