/* SOFA's element FEM components (LinearSmallStrainFEMForceField, CorotationalFEMForceField, the latter's
 * older name ElementCorotationalFEMForceField and its element-named forms): one linear elastic material on
 * the elements the template names ("Vec3,Tetrahedron", "Vec3d,Hexahedron"), mapped onto PhysFlow's
 * tetrahedral FEM (pf_world_add_tetra_fem) and hexahedral FEM (pf_world_add_hexa_fem). */
#include "components.h"

#include "base/error.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

typedef enum element_kind { ELEMENT_TETRAHEDRON, ELEMENT_HEXAHEDRON } element_kind;

/* template="Vec3,Tetrahedron": the state's type (3D points) and the element; the element-named forms of
 * SOFA's ElementCorotationalFEMForceField (TetrahedronCorotationalFEMForceField,
 * HexahedronCorotationalFEMForceField, registered for Vec3 with that element) take it from their name, the
 * template giving the state's type only. */
static int element_template(pf_scene_component *c, element_kind *out)
{
    const char *t = pf_scene_component_string(c, "template"), *name = TYPE(c);
    int named = !strncmp(name, "Tetrahedron", 11) ? 1 : !strncmp(name, "Hexahedron", 10) ? 2 : 0;
    if (named) {
        if (t && strcmp(t, "Vec3") && strcmp(t, "Vec3d"))
            return pf_scene_component_error(c, PF_ENOTSUP,
                                            "%s: template '%s': PhysFlow's points are Vec3 (Vec3d)", name, t);
        *out = named == 1 ? ELEMENT_TETRAHEDRON : ELEMENT_HEXAHEDRON;
        return PF_OK;
    }
    if (!t)
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute 'template' is missing: it names the element "
                                        "(template=\"Vec3,Tetrahedron\" or \"Vec3,Hexahedron\")", TYPE(c));
    const char *comma = strchr(t, ',');
    size_t vlen = comma ? (size_t)(comma - t) : strlen(t);
    if (!((vlen == 4 && !strncmp(t, "Vec3", 4)) || (vlen == 5 && !strncmp(t, "Vec3d", 5))))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: template '%s': PhysFlow's points are Vec3 (Vec3d)",
                                        TYPE(c), t);
    const char *e = comma ? comma + 1 : "";
    if (!strcmp(e, "Tetrahedron")) {
        *out = ELEMENT_TETRAHEDRON;
    } else if (!strcmp(e, "Hexahedron")) {
        *out = ELEMENT_HEXAHEDRON;
    } else {
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: template '%s': the element '%s' is not supported "
                                        "(Tetrahedron, Hexahedron; TriangularFEMForceField for triangles)", TYPE(c),
                                        t, e);
    }
    return PF_OK;
}

int sc_own_topology(pf_scene_component *c)
{
    const char *link = pf_scene_component_string(c, "topology");
    if (!link || !strcmp(link, "@")) return PF_OK;
    sc_node *n;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, "topology", link, &n, &comp, &field);
    if (rc) return rc;
    if (n != c->node || field)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: topology '%s' is not the topology of its node '%s': "
                                        "PhysFlow takes the elements of the force field's own node", TYPE(c), link,
                                        c->node->name);
    return PF_OK;
}

static int element_fem(pf_scene_component *c, pf_fem_method tetra, pf_fem_method hexa)
{
    element_kind kind = ELEMENT_TETRAHEDRON;
    int rc;
    if ((rc = element_template(c, &kind)) || (rc = sc_own_topology(c))) return rc;
    /* how SOFA spreads the element loops over threads: PhysFlow's runtime schedules its own, deterministically */
    pf_scene_component_ignore(c, "computeForceStrategy");
    pf_scene_component_ignore(c, "computeForceDerivStrategy");
    return kind == ELEMENT_TETRAHEDRON ? sc_tetra_fem_method(c, tetra) : sc_hexa_fem_method(c, hexa);
}

/* LinearSmallStrainFEMForceField: linear elasticity at small strain, the stiffness of the rest shape. */
int sc_linear_small_strain_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return element_fem(c, PF_FEM_LINEAR, PF_FEM_LINEAR);
}

/* CorotationalFEMForceField: the same elements in a frame that follows each element's rotation; SOFA's default
 * rotation (rotationMethod) is the frame of a tetrahedron's first triangle and of a hexahedron's edges, which
 * PhysFlow's PF_FEM_LARGE is; "polar" is PF_FEM_POLAR, "identity" PF_FEM_LINEAR. */
int sc_corotational_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *m = pf_scene_component_string(c, "rotationMethod");
    pf_fem_method method = PF_FEM_LARGE;
    if (m && !strcmp(m, "polar"))
        method = PF_FEM_POLAR;
    else if (m && !strcmp(m, "identity")) /* SOFA: "equivalent to the linear small strain FEM" */
        method = PF_FEM_LINEAR;
    else if (m && strcmp(m, "triangle") && strcmp(m, "hexahedron"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: rotationMethod '%s' is not supported (triangle or "
                                        "hexahedron: the default, the elements' method large; polar; identity)",
                                        TYPE(c), m);
    return element_fem(c, method, method);
}
