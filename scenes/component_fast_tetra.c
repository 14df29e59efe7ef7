/* FastTetrahedralCorotationalForceField (SOFA's): linear tetrahedra, each with the stiffness of isotropic linear
 * elasticity at rest (SOFA writes it per edge from the shape vectors and Lame coefficients: the same K_e = V B^T D B),
 * turned by a rotation per element. Its methods map onto PhysFlow's tetrahedral FEM:
 *   qr (default) / large: the frame of edges 0-1 and 0-2 (x along the first, z normal to both), against the same
 *                         frame at rest: TetrahedronFEMForceField's "large";
 *   polar:               the rotation of the polar decomposition of the deformation gradient: "polar";
 *   none / linear / small: no rotation: "small";
 *   polar2:              the rotation of the polar decomposition of the matrix of edges 0-1, 0-2, 0-3 (not of the
 *                        deformation gradient), against the same at rest: read as "polar", with a warning (the two
 *                        agree on rigid motions and differ under deformation).
 * SOFA's component needs tetrahedra in its topology (it does not split hexahedra as TetrahedronFEMForceField does). */
#include "components.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

int sc_fast_tetra_corotational(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const struct {
        const char *name;
        pf_fem_method method;
    } methods[] = {{"qr", PF_FEM_LARGE},     {"large", PF_FEM_LARGE},  {"polar", PF_FEM_POLAR},
                   {"polar2", PF_FEM_POLAR}, {"none", PF_FEM_LINEAR},  {"linear", PF_FEM_LINEAR},
                   {"small", PF_FEM_LINEAR}};
    pf_fem_method method = PF_FEM_LARGE;
    const char *m = pf_scene_component_string(c, "method");
    if (m) {
        size_t k = 0;
        while (k < sizeof methods / sizeof *methods && strcmp(m, methods[k].name)) k++;
        if (k == sizeof methods / sizeof *methods)
            return pf_scene_component_error(c, PF_EPARSE, "%s: unknown method '%s' (qr, large, polar, polar2, "
                                            "none, linear, small)", TYPE(c), m);
        method = methods[k].method;
        if (!strcmp(m, "polar2"))
            pf_scene_component_warning(c, "%s: method=\"polar2\" (the rotation of the polar decomposition of the "
                                       "element's edge matrix) is read as \"polar\" (that of its deformation "
                                       "gradient): the same on rigid motions, not under deformation", TYPE(c));
    }
    static const char *const drawing[] = {"drawing", "drawColor1", "drawColor2", "drawColor3", "drawColor4"};
    for (size_t k = 0; k < sizeof drawing / sizeof *drawing; k++) /* drawing only: nothing to say */
        (void)pf_scene_component_string(c, drawing[k]);
    const sc_node *n = c->node;
    if (n->topology != SC_TOPO_MESH || !n->mesh.ntetra)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs tetrahedra in node '%s' (a MeshTopology, a "
                                        "TetrahedronSetTopologyContainer, a volume mesh loader or a "
                                        "Hexa2TetraTopologicalMapping); SOFA's component does not split hexahedra",
                                        TYPE(c), n->name);
    return sc_tetra_fem_method(c, method);
}
