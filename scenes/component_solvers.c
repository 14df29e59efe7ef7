/* Time integrators beyond the two Euler solvers: RungeKutta4Solver and StaticSolver, with the Newton settings
 * SOFA keeps in StaticSolver (older scenes) or in a NewtonRaphsonSolver beside it; and SOFA's direct linear
 * solvers. PhysFlow's static step is one Newton iteration (-K dx = f by the node's CG settings, x += dx): a
 * scene that asks for more gets a warning and reaches equilibrium over as many steps instead. */
#include "components.h"

#define TYPE(c) pf_scene_component_type(c)

int sc_runge_kutta4(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return sc_claim_integrator(c, PF_SOLVER_RUNGE_KUTTA4);
}

/* newton iterations asked for under `attr`: more than one is a warning (one per step here) */
static int newton_iterations(pf_scene_component *c, const char *attr)
{
    double it = 1;
    int rc = pf_scene_component_real(c, attr, 0, 1e9, &it);
    if (rc < 0) return rc;
    if (it > 1)
        pf_scene_component_warning(
            c,
            "%s: %s=\"%g\": PhysFlow makes one Newton iteration per step (StaticSolver's, BDF1's: the "
            "linearized step), so a static equilibrium is reached over that many steps",
            TYPE(c), attr, it);
    return PF_OK;
}

/* the tolerances of SOFA's Newton loop: PhysFlow stops on the CG residual of each step instead */
static void newton_tolerances(pf_scene_component *c)
{
    static const char *const attrs[] = {"absolute_correction_tolerance_threshold",
                                        "relative_correction_tolerance_threshold",
                                        "absolute_residual_tolerance_threshold",
                                        "relative_residual_tolerance_threshold",
                                        "should_diverge_when_residual_is_growing",
                                        "absoluteResidualStoppingThreshold",
                                        "relativeSuccessiveStoppingThreshold",
                                        "relativeInitialStoppingThreshold",
                                        "absoluteEstimateDifferenceThreshold",
                                        "relativeEstimateDifferenceThreshold",
                                        "maxNbIterationsLineSearch",
                                        "lineSearchCoefficient",
                                        "warnWhenLineSearchFails",
                                        "warnWhenDiverge"};
    SC_IGNORE_ATTRS(c, attrs);
}

int sc_static_solver(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int rc = newton_iterations(c, "newton_iterations");
    if (rc) return rc;
    newton_tolerances(c);
    pf_scene_component_ignore(c, "newtonSolver");
    return sc_claim_integrator(c, PF_SOLVER_STATIC);
}

/* SOFA's Static integration method (Sofa.Component.ODESolver.Integration, beside BDF1, under a
 * NewtonRaphsonSolver): each Newton iteration solves K dx = f (its matrix factors M 0, B 0, K 1) and adds dx to
 * the positions; StaticSolver's static step, the iterations and tolerances the NewtonRaphsonSolver's. */
int sc_static_method(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return sc_claim_integrator(c, PF_SOLVER_STATIC);
}

int sc_newton_raphson(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int rc = newton_iterations(c, "maxNbIterationsNewton");
    if (rc) return rc;
    newton_tolerances(c);
    return PF_OK;
}

/* SOFA's direct linear solvers (SparseLDLSolver, Eigen's LDLT/LLT/LU, SVD, ...): PhysFlow's direct solver
 * factorises the assembled system by sparse LDL^T. The systems of implicit and static Euler are symmetric, so
 * an LU or an SVD of them gives the same solution; their ordering and storage choices are SOFA's own tuning,
 * read and ignored. */
int sc_direct_linear_solver(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const attrs[] = {"ordering",
                                        "linearSystem",
                                        "parallelInverseProduct",
                                        "applyPermutation",
                                        "factorizationInvalidation",
                                        "verbose",
                                        "printLog",
                                        "useWarping",
                                        "useMultiThread",
                                        "asyncFactorization",
                                        "computeMatrixTransposeBeforeResolution",
                                        "precision",
                                        "threshold",
                                        "constraintCorrection",
                                        "ordering_method",
                                        "useSymbolicFactorization"};
    SC_IGNORE_ATTRS(c, attrs);
    (void)pf_scene_component_string(c, "template"); /* SOFA's matrix storage type: nothing to say about it */
    c->node->solver.linear_solver = PF_LINEAR_DIRECT;
    return PF_OK;
}
