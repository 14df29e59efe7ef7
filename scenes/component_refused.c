/* SOFA components whose model PhysFlow does not have: read, then refused with one error naming what is missing
 * (PF_ENOTSUP), rather than mapped onto a model that is not theirs; and TetrahedronCollisionModel, which finds
 * contacts in SOFA only where PhysFlow has none to give. */
#include "components.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

static const struct {
    const char *type, *why;
} refused[] = {
    {"SimpleTesselatedTetraTopologicalMapping",
     "it cuts each tetrahedron into 8 on new points (its edges' midpoints), which SimpleTesselatedTetraMechanicalMapping "
     "moves; PhysFlow's topological mappings keep the input's points (Hexa2TetraTopologicalMapping, "
     "Tetra2TriangleTopologicalMapping, ...)"},
    {"SimpleTesselatedTetraMechanicalMapping",
     "it moves the points a SimpleTesselatedTetraTopologicalMapping adds (its edges' midpoints), which PhysFlow does "
     "not create"},
    {"Mesh2PointTopologicalMapping",
     "it makes a point set of new points (at barycentric coordinates in each point, edge, triangle or "
     "tetrahedron of the input), which Mesh2PointMechanicalMapping moves; PhysFlow's topological mappings keep the "
     "input's points"},
    {"Mesh2PointMechanicalMapping",
     "it moves the points a Mesh2PointTopologicalMapping creates, which PhysFlow does not create"},
    {"IdentityMultiMapping",
     "its output's points are those of several input objects, one after the other; a mapped node of PhysFlow follows "
     "one object (IdentityMapping, SubsetMapping)"},
    {"SubsetMultiMapping",
     "its output's points are picked from several input objects (indexPairs: object, point); a mapped node of "
     "PhysFlow follows one object (SubsetMapping picks from one)"},
    {"SubsetTopologicalMultiMapping",
     "it joins the elements of several input topologies, on points of several objects (a SubsetMultiMapping's); "
     "PhysFlow's topological mappings have one input"},
    {"SparseGridMultipleTopology",
     "its cells take a stiffness and a mass coefficient from the region meshes holding them (fileTopologies, "
     "stiffnessCoefs, massCoefs), which HexahedronFEMForceField and the masses of SOFA's sparse grid read; PhysFlow's "
     "grid FEM and masses are uniform over a grid (SparseGridTopology)"},
};

int sc_refused_model(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *t = TYPE(c), *why = "PhysFlow has no model for it";
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
        if (!strcmp(refused[k].type, t)) why = refused[k].why;
    for (const xmlAttr *a = c->el->properties; a; a = a->next) /* read: the error says why they are not used */
        (void)pf_scene_component_string(c, (const char *)a->name);
    return pf_scene_component_error(c, PF_ENOTSUP, "%s is not supported: %s", t, why);
}

/* 1 when an element named `name` is in the tree under el. */
static int has_element(const xmlNode *el, const char *name)
{
    for (const xmlNode *k = el; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE &&
            (!xmlStrcmp(k->name, (const xmlChar *)name) || has_element(k->children, name)))
            return 1;
    return 0;
}

/* TetrahedronCollisionModel: SOFA tests tetrahedra only against points, and only under DiscreteIntersection
 * (TetrahedronDiscreteIntersection); its proximity intersections (MinProximityIntersection, NewProximity...) have
 * no tetrahedron intersector, so there the model finds no contact. PhysFlow has no point-in-tetrahedron test:
 * under DiscreteIntersection the model is refused; otherwise it is read for the nothing it does in SOFA. */
int sc_tetrahedron_model(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"template", "moving", "simulated", "contactStiffness", "group",
                                          "proximity", "color", "selfCollision", "contactFriction"};
    SC_IGNORE_ATTRS(c, ignored);
    if (has_element(xmlDocGetRootElement(c->L->doc), "DiscreteIntersection"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s is not supported with DiscreteIntersection: SOFA finds "
                                        "the points inside its tetrahedra there, a test PhysFlow does not have (a "
                                        "TriangleCollisionModel on the volume's boundary collides it)", TYPE(c));
    pf_scene_component_warning(c, "%s finds no contacts: SOFA's proximity intersections have no tetrahedron "
                               "intersector (it collides only points, under DiscreteIntersection); PhysFlow adds "
                               "none either", TYPE(c));
    return PF_OK;
}
