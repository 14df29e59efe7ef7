/* SOFA's integration methods solved by the NewtonRaphsonSolver beside them (as BDF1 is; Static: component_solvers.c).
 *
 * BDFIntegrationScheme (SOFA's linear multistep integration scheme): the backward differentiation formula of
 * `order` (SOFA's default 2). Order 1 is backward Euler, SOFA's BDF1: its first Newton iteration from the step's
 * start is EulerImplicitSolver's linearized step, mapped as BDF1 is (sc_euler_implicit). Higher orders use the
 * states of earlier steps, which PhysFlow's integrators do not keep: refused. */
#include "components.h"

#define TYPE(c) pf_scene_component_type(c)

int sc_bdf_scheme(pf_scene_component *c, void *ctx)
{
    double order = 2;
    int rc;
    if ((rc = pf_scene_component_real(c, "order", -1e300, 1e300, &order)) < 0) return rc;
    if (order != 1) {
        for (const xmlAttr *a = c->el->properties; a; a = a->next) /* read: the error says why they are not used */
            (void)pf_scene_component_string(c, (const char *)a->name);
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: order %g%s is not supported: a backward differentiation "
                                        "formula of order 2 and more steps from the states of earlier steps, which "
                                        "PhysFlow's integrators do not keep (order 1, backward Euler, is)", TYPE(c),
                                        order, rc ? "" : " (SOFA's default)");
    }
    return sc_euler_implicit(c, ctx);
}
