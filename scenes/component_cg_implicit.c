/* CGImplicit (CGImplicitSolver): SOFA's old implicit Euler with its conjugate gradient inside one component. Its
 * step is EulerImplicitSolver's, (M (1 + h rM) - h (h + rK) K) dv = h (f + (h + rK) K v - rM M v), solved by CG,
 * so it maps onto PhysFlow's implicit Euler and CG settings; its own defaults differ from the two components'
 * (SOFA's CGImplicitSolver: iterations 25, tolerance 1e-5, threshold 1e-5, rayleighStiffness 0.1,
 * rayleighMass 0.1, vdamping 0). */
#include "components.h"

#include <math.h>

#define TYPE(c) pf_scene_component_type(c)

int sc_cg_implicit(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double rm = 0.1, rk = 0.1, it = 25, tol = 1e-5, thr = 1e-5, vdamping = 0;
    int rc;
    if ((rc = pf_scene_component_real(c, "rayleighMass", 0, 1e300, &rm)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "rayleighStiffness", 0, 1e300, &rk)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "iterations", 1, 1e9, &it)) < 0) return rc;
    if (it != floor(it))
        return pf_scene_component_error(c, PF_EINVAL, "%s: iterations %g is not an integer", TYPE(c), it);
    /* tolerance: |r| / |b| at which CG stops, as CGLinearSolver's; threshold: CGLinearSolver's (pf_solver_def) */
    if ((rc = pf_scene_component_real(c, "tolerance", 0, 1e300, &tol)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "threshold", 0, 1e300, &thr)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "vdamping", 0, 1e300, &vdamping)) < 0) return rc;
    /* vdamping scales the velocity by exp(-h vdamping) after each step: no PhysFlow solver does */
    if (vdamping > 0)
        pf_scene_component_warning(c, "%s: vdamping=\"%g\" (velocities scaled by exp(-dt vdamping) after each "
                                   "step) is not applied: use rayleighMass for a damping of the velocity",
                                   TYPE(c), vdamping);
    if ((rc = sc_claim_integrator(c, PF_SOLVER_IMPLICIT_EULER))) return rc;
    pf_solver_def *s = &c->node->solver;
    s->rayleigh_mass = rm;
    s->rayleigh_stiffness = rk;
    s->cg_iterations = (uint32_t)it;
    s->cg_tolerance = tol;
    s->cg_threshold = thr;
    s->linear_solver = PF_LINEAR_CG;
    return PF_OK;
}
