/* SOFA's integration methods solved by the NewtonRaphsonSolver beside them (as BDF1 is; Static: component_solvers.c).
 *
 * BDFIntegrationScheme (SOFA's linear multistep integration scheme): the backward differentiation formula of
 * `order` (SOFA's default 2). Order 1 is backward Euler, SOFA's BDF1: its first Newton iteration from the step's
 * start is EulerImplicitSolver's linearized step, mapped as BDF1 is (sc_euler_implicit). Order 2 is PhysFlow's
 * PF_SOLVER_BDF2 (solver_bdf2.c: SOFA's coefficients a = (1/3, -4/3, 1), b = (0, 0, 2/3), its first step at order 1,
 * linearised once per step as order 1 is). Orders 3 and more are refused. BDFOdeSolver, SOFA's older solver of the
 * same formulas (BDFOdeSolver.cpp: the coefficients from the derivative of the Lagrange polynomial through the last
 * order + 1 times), is read the same way with its own default order, 1 (BaseLinearMultiStepMethod), and order 0
 * taken as 1 as SOFA does. */
#include "components.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* order 1 mapped as BDF1, order 2 as PF_SOLVER_BDF2 (with EulerImplicitSolver's Rayleigh damping and CG
 * settings); `order` absent: SOFA's default */
static int bdf_order(pf_scene_component *c, void *ctx, double order)
{
    int rc;
    if ((rc = pf_scene_component_real(c, "order", -1e300, 1e300, &order)) < 0) return rc;
    if (order == 0 && !strcmp(TYPE(c), "BDFOdeSolver")) {
        pf_scene_component_warning(c, "%s: order 0 taken as 1 (as SOFA does)", TYPE(c));
        order = 1;
    }
    if (order != 1 && order != 2) {
        for (const xmlAttr *a = c->el->properties; a; a = a->next) /* read: the error says why they are not used */
            (void)pf_scene_component_string(c, (const char *)a->name);
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: order %g%s is not supported: PhysFlow integrates the "
                                        "backward differentiation formulas of orders 1 (backward Euler) and 2 "
                                        "(PF_SOLVER_BDF2)", TYPE(c), order, rc ? "" : " (SOFA's default)");
    }
    if ((rc = sc_euler_implicit(c, ctx))) return rc;
    if (order == 2) c->node->solver.kind = PF_SOLVER_BDF2;
    return PF_OK;
}

int sc_bdf_scheme(pf_scene_component *c, void *ctx)
{
    return bdf_order(c, ctx, 2);
}

int sc_bdf_ode_solver(pf_scene_component *c, void *ctx)
{
    return bdf_order(c, ctx, 1);
}
