/* SOFA's tetrahedral FEM components (TetrahedronFEMForceField, TetrahedralCorotationalFEMForceField) on the
 * tetrahedra of the node's mesh topology or loader, or on a grid's or mesh's hexahedra split as SOFA splits them,
 * as pf_world_add_tetra_fem. */
#include "components.h"
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* youngModulus: one value, or SOFA's per-element list, of which PhysFlow takes the first (SOFA's value for
 * the elements past the end of a short list) with a warning */
static int young_modulus(pf_scene_component *c, double *E)
{
    const char *s = pf_scene_component_string(c, "youngModulus");
    if (s && s[strspn(s, " \t\r\n")] == '@')
        return pf_scene_component_error(c, PF_ENOTSUP,
                                        "%s: youngModulus from a link ('%s') is not supported: give "
                                        "the value",
                                        TYPE(c), s);
    double *v;
    size_t n;
    int rc = sc_parse_reals(c, "youngModulus", &v, &n);
    if (rc < 0) return rc;
    if (n > 0) *E = v[0];
    if (n > 1)
        pf_scene_component_warning(
            c,
            "%s: youngModulus lists %zu values (per element): PhysFlow takes one modulus "
            "for all elements, the first (%g Pa)",
            TYPE(c), n, v[0]);
    pf_free(v);
    if (!(*E > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: youngModulus must be > 0, got %g", TYPE(c), *E);
    return PF_OK;
}

static int fem_method(pf_scene_component *c, pf_fem_method *out)
{
    static const char *const names[] = {"small", "large", "polar", "svd"};
    const char *m = pf_scene_component_string(c, "method");
    if (!m) return PF_OK; /* SOFA's default: large */
    for (int k = 0; k < 4; k++)
        if (!strcmp(m, names[k])) {
            *out = (pf_fem_method)k;
            return PF_OK;
        }
    if (!strcmp(m, "linear")) { /* HexahedronFEMForceField's word for small */
        *out = PF_FEM_LINEAR;
        return PF_OK;
    }
    return pf_scene_component_error(c, PF_EPARSE, "%s: unknown method '%s' (small, large, polar, svd)",
                                    TYPE(c), m);
}

/* A topology without tetrahedra but with hexahedra (a regular grid of 2 or more points per axis, or a hexahedral
 * mesh): *split holds SOFA's six tetrahedra per hexahedron (TetrahedronFEMForceField::init; a grid's cells per row
 * and column give the mirroring pattern, a CylinderGridTopology's too, 2 and 1 for a mesh, as SOFA takes them).
 * Else split stays empty. */
static int hexahedra_split(pf_scene_component *c, sc_mesh *split)
{
    sc_node *n = c->node;
    if (n->topology == SC_TOPO_GRID) {
        const int *g = n->def.grid;
        if (g[0] < 2 || g[1] < 2 || g[2] < 2)
            return pf_scene_component_error(c, PF_EPARSE, "%s needs tetrahedra or hexahedra: the "
                                            "RegularGridTopology of node '%s' is %d x %d x %d points, which makes no "
                                            "cells", TYPE(c), n->name, g[0], g[1], g[2]);
        sc_mesh grid;
        PF_TRY(sc_grid_mesh(g, n->def.grid_min, n->def.grid_max, &grid));
        int rc = sc_hexa_to_tetra_fem(&grid, g[0] - 1, g[1] - 1, split);
        sc_mesh_free(&grid);
        return rc;
    }
    if (n->topology == SC_TOPO_MESH && (n->mapping == SC_MAP_NONE || n->mapping == SC_MAP_IDENTITY) &&
        !n->mesh.ntetra && n->mesh.nhexa)
        return n->grid_cells[0] ? sc_hexa_to_tetra_fem(&n->mesh, n->grid_cells[0], n->grid_cells[1], split)
                                : sc_hexa_to_tetra_fem(&n->mesh, 2, 1, split);
    return PF_OK;
}

int sc_tetra_fem_elements(pf_scene_component *c, sc_mesh *split, const uint32_t **t, uint32_t *nt)
{
    sc_node *n = c->node;
    if (n->sparse)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a SparseGridTopology is not supported (PhysFlow does "
                                        "not list its cells): use HexahedronFEMForceField", TYPE(c));
    int rc;
    if ((rc = hexahedra_split(c, split))) return rc;
    if (!split->ntetra &&
        (n->topology != SC_TOPO_MESH || (n->mapping != SC_MAP_NONE && n->mapping != SC_MAP_IDENTITY) ||
         n->mesh.ntetra == 0))
        return pf_scene_component_error(
            c, PF_EPARSE,
            "%s needs tetrahedra: a MeshTopology, a "
            "TetrahedronSetTopologyContainer or a volume mesh loader in node '%s' (or hexahedra: a "
            "RegularGridTopology or a hexahedral mesh, split as SOFA splits them)",
            TYPE(c), n->name);
    *t = split->ntetra ? split->tetra : n->mesh.tetra;
    *nt = split->ntetra ? split->ntetra : n->mesh.ntetra;
    return PF_OK;
}

static int add_tetra_fem(pf_scene_component *c, pf_tetra_fem_def d);

int sc_tetra_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_fem_method method = pf_tetra_fem_default_def().method;
    int rc = fem_method(c, &method);
    return rc ? rc : sc_tetra_fem_method(c, method);
}

int sc_tetra_fem_method(pf_scene_component *c, pf_fem_method method)
{
    pf_tetra_fem_def d = pf_tetra_fem_default_def();
    d.method = method;
    return add_tetra_fem(c, d);
}

/* TetrahedralTensorMassForceField (SOFA's SolidMechanics/TensorMass; Cotin, Delingette and Ayache 2000):
 * linear elasticity on the displacements from rest, not rotated, kept as one 3x3 tensor per edge; the tensor
 * of edge (k, l) sums over the edge's tetrahedra V (lambda s_l s_k^T + mu s_k s_l^T + mu (s_k . s_l) I)
 * (shape vectors s, rest volume V; SOFA's lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu))), which
 * is the off-diagonal block (k, l) of the linear tetrahedron's stiffness: the same force as
 * TetrahedronFEMForceField method="small". Its defaults are SOFA's: youngModulus 1000, poissonRatio 0.3. A
 * topology of hexahedra is not split (SOFA's component reads tetrahedra only). */
int sc_tetra_tensor_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    if (c->node->topology != SC_TOPO_MESH || !c->node->mesh.ntetra)
        return pf_scene_component_error(c, PF_EPARSE,
                                        "%s needs tetrahedra in node '%s' (a "
                                        "TetrahedronSetTopologyContainer, a volume mesh loader or a "
                                        "Hexa2TetraTopologicalMapping before it)",
                                        TYPE(c), c->node->name);
    pf_tetra_fem_def d = pf_tetra_fem_default_def();
    d.method = PF_FEM_LINEAR;
    d.young_modulus = 1000;
    d.poisson_ratio = 0.3;
    pf_scene_component_ignore(c, "topology");
    return add_tetra_fem(c, d);
}

static int add_tetra_fem(pf_scene_component *c, pf_tetra_fem_def d)
{
    int rc;
    if ((rc = young_modulus(c, &d.young_modulus))) return rc;
    if ((rc = pf_scene_component_real(c, "poissonRatio", -1e300, 1e300, &d.poisson_ratio)) < 0) return rc;
    if (!(d.poisson_ratio >= -1 && d.poisson_ratio < 0.5))
        return pf_scene_component_error(c, PF_EINVAL, "%s: poissonRatio must be in [-1, 0.5), got %g",
                                        TYPE(c), d.poisson_ratio);
    if (d.poisson_ratio < 0)
        return pf_scene_component_error(c, PF_ENOTSUP,
                                        "%s: a negative poissonRatio (%g) is not supported yet by "
                                        "the physics",
                                        TYPE(c), d.poisson_ratio);
    /* SOFA's switches for an assembled matrix and a stiffness recomputed as the element deforms: off is what
     * PhysFlow does (a matrix-free CG, the stiffness computed once at rest), on is said to be ignored */
    static const char *const off_only[] = {"computeGlobalMatrix", "assembling", "updateStiffnessMatrix"};
    for (int k = 0; k < 3; k++) {
        const char *v = pf_scene_component_string(c, off_only[k]);
        if (v && strcmp(v, "0") && strcmp(v, "false"))
            pf_scene_component_warning(c,
                                       "%s: %s=\"%s\" is ignored: PhysFlow's CG is matrix-free and the "
                                       "stiffness is computed once at rest",
                                       TYPE(c), off_only[k], v);
    }
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "listening");
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    sc_mesh split = {0};
    if ((rc = sc_tetra_fem_elements(c, &split, &d.tetrahedra, &d.ntetrahedra))) return rc;
    pf_force_field_id id;
    rc = pf_world_add_tetra_fem(c->L->scene->world, o, &d, &id);
    /* split from hexahedra: six a hexahedron, not the topology's elements */
    if (!rc) rc = sc_note_element_field(c, id, split.ntetra ? SC_ELEMENT_HEXAHEDRA : SC_ELEMENT_TETRAHEDRA,
                                        d.ntetrahedra, !split.ntetra);
    sc_mesh_free(&split);
    if (rc) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}
