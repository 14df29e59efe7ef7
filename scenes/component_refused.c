/* SOFA components whose model PhysFlow does not have: read, then refused with one error naming what is missing
 * (PF_ENOTSUP), rather than mapped onto a model that is not theirs. */
#include "components.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

static const struct {
    const char *type, *why;
} refused[] = {
    {"FastTriangularBendingSprings",
     "its bending is Volino's linear bending vector (each inner edge's four points weighted by the heights of its two "
     "triangles), not a spring: PhysFlow has no such force (TriangularBendingSprings puts a spring between the two "
     "points opposite each inner edge)"},
    {"TriangularBiquadraticSpringsForceField",
     "its biquadratic springs (Delingette's St Venant-Kirchhoff membrane, written on the squared lengths of the "
     "triangles' edges) are not PhysFlow's linear springs nor its corotational triangle FEM "
     "(TriangularFEMForceField)"},
    {"TriangularQuadraticSpringsForceField",
     "its quadratic springs (Delingette's linear membrane written on the triangles' edges) are not PhysFlow's "
     "linear springs nor its corotational triangle FEM (TriangularFEMForceField)"},
    {"TriangularTensorMassForceField",
     "its tensor-mass membrane (small-strain elasticity on the points' 3-D displacements, not rotated) is not "
     "PhysFlow's triangle FEM, which measures strain in each triangle's plane (TriangularFEMForceField, method "
     "large or small)"},
    {"BDFOdeSolver",
     "its backward differentiation formulas (order 1 to 6, each step solved by Newton-Raphson iterations) are not "
     "PhysFlow's integrators: EulerImplicitSolver solves one linearized backward Euler step"},
    {"TopologicalChangeProcessor",
     "it adds and removes elements during the run (from a file of timed changes), and PhysFlow's topologies do "
     "not change once loaded"},
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
