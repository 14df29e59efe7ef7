/* SOFA's integration methods solved by the NewtonRaphsonSolver beside them (as BDF1 is; Static: component_solvers.c).
 *
 * BDFIntegrationScheme (SOFA's linear multistep integration scheme): the backward differentiation formula of
 * `order` (SOFA's default 2). Order 1 is backward Euler, SOFA's BDF1: its first Newton iteration from the step's
 * start is EulerImplicitSolver's linearized step, mapped as BDF1 is (sc_euler_implicit). Higher orders use the
 * states of earlier steps, which PhysFlow's integrators do not keep: refused. BDFOdeSolver, SOFA's older solver of the
 * same formulas (BDFOdeSolver.cpp: at order 1 its coefficients are a = (-1, 1), b = (0, 1), backward Euler), is
 * read the same way with its own default order, 1 (BaseLinearMultiStepMethod), and order 0 taken as 1 as SOFA does. */
#include "components.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* order 1 mapped as BDF1; `order` absent: SOFA's default */
static int bdf_order(pf_scene_component *c, void *ctx, double order)
{
    int rc;
    if ((rc = pf_scene_component_real(c, "order", -1e300, 1e300, &order)) < 0) return rc;
    if (order == 0 && !strcmp(TYPE(c), "BDFOdeSolver")) {
        pf_scene_component_warning(c, "%s: order 0 taken as 1 (as SOFA does)", TYPE(c));
        order = 1;
    }
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

int sc_bdf_scheme(pf_scene_component *c, void *ctx)
{
    return bdf_order(c, ctx, 2);
}

int sc_bdf_ode_solver(pf_scene_component *c, void *ctx)
{
    return bdf_order(c, ctx, 1);
}
