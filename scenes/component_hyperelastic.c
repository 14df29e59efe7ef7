/* SOFA's TetrahedronHyperelasticityFEMForceField and StandardTetrahedralFEMForceField
 * (Sofa.Component.SolidMechanics.FEM.HyperElastic: the same materials and force f_a = -V F S grad N_a, the
 * latter keeping its stiffness per edge) on the tetrahedra of its node (as TetrahedronFEMForceField finds
 * them), as pf_world_add_hyperelastic_fem: materialName picks the strain energy, ParameterSet lists its
 * parameters in SOFA's order; and SOFA's newer HyperelasticityFEMForceField, whose material is a component of
 * its own (StVenantKirchhoffMaterial, NeoHookeanMaterial: youngModulus, poissonRatio). */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <libxml/tree.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* SOFA's material names (TetrahedronHyperelasticityFEMForceField.inl's materialOptions), ours first; the
 * others are refused by name */
static const struct {
    const char *name;
    pf_hyperelastic_material m;
    const char *params; /* in messages */
} materials[] = {
    {"ArrudaBoyce", PF_HYPER_ARRUDA_BOYCE, "mu k0"},
    {"StVenantKirchhoff", PF_HYPER_ST_VENANT_KIRCHHOFF, "mu lambda"},
    {"NeoHookean", PF_HYPER_NEO_HOOKEAN, "mu lambda"},
    {"MooneyRivlin", PF_HYPER_MOONEY_RIVLIN, "c1 c2 k0"},
    {"Ogden", PF_HYPER_OGDEN, "mu alpha k0"},
};
static const char *const unsupported[] = {"VerondaWestman", "Costa", "StableNeoHookean"};

static int material_of(pf_scene_component *c, int *out)
{
    const char *m = pf_scene_component_string(c, "materialName");
    *out = 0; /* SOFA's default: the first option, ArrudaBoyce */
    if (!m) return PF_OK;
    for (int k = 0; k < (int)(sizeof materials / sizeof *materials); k++)
        if (!strcmp(m, materials[k].name)) {
            *out = k;
            return PF_OK;
        }
    for (size_t k = 0; k < sizeof unsupported / sizeof *unsupported; k++)
        if (!strcmp(m, unsupported[k]))
            return pf_scene_component_error(c, PF_ENOTSUP,
                                            "%s: materialName '%s' is not supported yet (ArrudaBoyce, "
                                            "StVenantKirchhoff, NeoHookean, MooneyRivlin, Ogden)",
                                            TYPE(c), m);
    return pf_scene_component_error(
        c, PF_EPARSE,
        "%s: unknown materialName '%s' (ArrudaBoyce, StVenantKirchhoff, NeoHookean, "
        "MooneyRivlin, Ogden; SOFA's VerondaWestman, Costa, StableNeoHookean are not "
        "supported)",
        TYPE(c), m);
}

/* The field of material def d (its elements still to find) on the node's tetrahedra: its own, or those a
 * Hexa2Tetra split of its hexahedra gives (sc_tetra_fem_elements) */
static int add_field(pf_scene_component *c, pf_hyperelastic_def *d)
{
    pf_object_id o;
    int rc = pf_scene_component_object(c, &o);
    if (rc) return rc;
    sc_mesh split = {0};
    if ((rc = sc_tetra_fem_elements(c, &split, &d->tetrahedra, &d->ntetrahedra))) return rc;
    pf_force_field_id id;
    rc = pf_world_add_hyperelastic_fem(c->L->scene->world, o, d, &id);
    if (!rc)
        rc = sc_note_element_field(c, id, split.ntetra ? SC_ELEMENT_HEXAHEDRA : SC_ELEMENT_TETRAHEDRA,
                                   d->ntetrahedra, !split.ntetra);
    sc_mesh_free(&split);
    if (rc) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}

/* ParameterSet: exactly the material's count (SOFA reads past a short list and ignores a long one) */
static int parameters_of(pf_scene_component *c, int k, pf_hyperelastic_def *d)
{
    double *v = NULL;
    size_t n = 0;
    int rc = sc_parse_reals(c, "ParameterSet", &v, &n);
    if (rc < 0) return rc;
    int want = pf_hyperelastic_parameter_count(materials[k].m);
    if ((size_t)want != n) {
        pf_free(v);
        return pf_scene_component_error(c, PF_EPARSE,
                                        "%s: ParameterSet lists %zu values; material %s takes %d (%s, Pa)",
                                        TYPE(c), n, materials[k].name, want, materials[k].params);
    }
    memcpy(d->parameters, v, n * sizeof *v);
    d->nparameters = (uint32_t)n;
    pf_free(v);
    return PF_OK;
}

int sc_tetra_hyperelastic(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_hyperelastic_def d = pf_hyperelastic_default_def();
    int k, rc;
    if ((rc = material_of(c, &k))) return rc;
    d.material = materials[k].m;
    if ((rc = parameters_of(c, k, &d))) return rc;
    const char *dirs = pf_scene_component_string(c, "AnisotropyDirections");
    if (dirs && dirs[strspn(dirs, " \t\r\n")])
        return pf_scene_component_error(c, PF_ENOTSUP,
                                        "%s: AnisotropyDirections is not supported: PhysFlow's materials are "
                                        "isotropic",
                                        TYPE(c));
    int reg = 0;
    if ((rc = sc_parse_bool(c, "matrixRegularization", &reg)) < 0) return rc;
    if (reg)
        pf_scene_component_warning(c,
                                   "%s: matrixRegularization is ignored: PhysFlow uses the exact tangent "
                                   "stiffness",
                                   TYPE(c));
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "listening");
    pf_scene_component_ignore(
        c, "ParameterFile"); /* StandardTetrahedralFEMForceField's, read by none of its code */
    return add_field(c, &d);
}

/* ---- SOFA's element hyperelasticity: a material component and the force field that finds it ---- */

/* youngModulus (Pa, > 0, SOFA's default 1e6) and poissonRatio ([0, 0.5), default 0.45) of a material element
 * (LinearMechanicalParametersComponent's), read through component m */
static int material_moduli(pf_scene_component *m, double *E, double *nu)
{
    *E = 1e6;
    *nu = 0.45;
    int rc;
    if ((rc = pf_scene_component_real(m, "youngModulus", 0, 1e300, E)) < 0) return rc;
    if ((rc = pf_scene_component_real(m, "poissonRatio", -1, 0.5, nu)) < 0) return rc;
    if (!(*E > 0))
        return pf_scene_component_error(m, PF_EINVAL, "%s: youngModulus must be > 0, got %g", TYPE(m), *E);
    if (!(*nu >= 0 && *nu < 0.5))
        return pf_scene_component_error(m, PF_EINVAL, "%s: poissonRatio must be in [0, 0.5), got %g", TYPE(m),
                                        *nu);
    return PF_OK;
}

int sc_hyperelastic_material(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double E, nu;
    pf_scene_component_ignore(c, "template");
    return material_moduli(c, &E, &nu); /* read again by the HyperelasticityFEMForceField that uses it */
}

static int is_material(const xmlNode *e)
{
    return e->type == XML_ELEMENT_NODE &&
           (!xmlStrcmp(e->name, (const xmlChar *)"StVenantKirchhoffMaterial") ||
            !xmlStrcmp(e->name, (const xmlChar *)"NeoHookeanMaterial"));
}

/* the material element: the one `material` links to, else the first in the node or the nearest node above
 * (SOFA looks the context up) */
static int find_material(pf_scene_component *c, sc_node **holder, xmlNode **el)
{
    const char *link = pf_scene_component_string(c, "material");
    if (link) {
        const char *field;
        int rc = sc_resolve_link(c, "material", link, holder, el, &field);
        if (rc) return rc;
        if (!*el || !is_material(*el))
            return pf_scene_component_error(c, PF_ENOTSUP,
                                            "%s: material = '%s' is no StVenantKirchhoffMaterial or "
                                            "NeoHookeanMaterial",
                                            TYPE(c), link);
        return PF_OK;
    }
    for (sc_node *n = c->node; n; n = n->parent)
        for (xmlNode *e = n->el->children; e; e = e->next)
            if (is_material(e)) {
                *holder = n;
                *el = e;
                return PF_OK;
            }
    return pf_scene_component_error(c, PF_EPARSE,
                                    "%s: no StVenantKirchhoffMaterial or NeoHookeanMaterial in node "
                                    "'%s' or above (it gives the material)",
                                    TYPE(c), c->node->name);
}

/* HyperelasticityFEMForceField template="Vec3,Tetrahedron": pf_world_add_hyperelastic_fem with the material's
 * Lame coefficients (StVenantKirchhoff or NeoHookean, as the same names of materialName above) */
int sc_hyperelasticity_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *t = pf_scene_component_string(c, "template");
    if (!t || (strcmp(t, "Vec3,Tetrahedron") && strcmp(t, "Vec3d,Tetrahedron")))
        return pf_scene_component_error(c, PF_ENOTSUP,
                                        "%s: template '%s' is not supported: PhysFlow's hyperelastic "
                                        "elements are tetrahedra (Vec3,Tetrahedron)",
                                        TYPE(c), t ? t : "(none)");
    int rc;
    if ((rc = sc_own_topology(c))) return rc;
    pf_scene_component_ignore(c, "computeForceStrategy");
    pf_scene_component_ignore(c, "computeForceDerivStrategy");
    sc_node *holder;
    xmlNode *el;
    if ((rc = find_material(c, &holder, &el))) return rc;
    pf_scene_component m = {.L = c->L, .node = holder, .el = el, .entry = c->entry, .stage = c->stage};
    double E, nu;
    if ((rc = material_moduli(&m, &E, &nu))) return rc;
    pf_hyperelastic_def d = pf_hyperelastic_default_def();
    d.material = xmlStrcmp(el->name, (const xmlChar *)"NeoHookeanMaterial") ? PF_HYPER_ST_VENANT_KIRCHHOFF
                                                                            : PF_HYPER_NEO_HOOKEAN;
    d.parameters[0] = E / (2 * (1 + nu));
    d.parameters[1] = E * nu / ((1 + nu) * (1 - 2 * nu));
    d.nparameters = 2;
    return add_field(c, &d);
}
