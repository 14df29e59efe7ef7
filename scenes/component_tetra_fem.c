/* SOFA's tetrahedral FEM components (TetrahedronFEMForceField, TetrahedralCorotationalFEMForceField) on the
 * tetrahedra of the node's mesh topology or loader, as pf_world_add_tetra_fem. */
#include "components.h"

#include "base/alloc.h"
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
    sc_node *n = c->node;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (n->topology == SC_TOPO_GRID)
        return pf_scene_component_error(c, PF_ENOTSUP,
                                        "%s on a RegularGridTopology is not supported yet (SOFA "
                                        "splits its cells into tetrahedra): use HexahedronFEMForceField",
                                        TYPE(c));
    if (n->topology != SC_TOPO_MESH || n->sparse || (n->mapping != SC_MAP_NONE && n->mapping != SC_MAP_IDENTITY) ||
        n->mesh.ntetra == 0)
        return pf_scene_component_error(
            c, PF_EPARSE,
            "%s needs tetrahedra: a MeshTopology, a "
            "TetrahedronSetTopologyContainer or a volume mesh loader in node '%s'",
            TYPE(c), n->name);
    d.tetrahedra = n->mesh.tetra;
    d.ntetrahedra = n->mesh.ntetra;
    if ((rc = pf_world_add_tetra_fem(c->L->scene->world, o, &d, NULL))) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}
