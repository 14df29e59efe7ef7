/* BDF2 (SOFA BDFOdeSolver, BaseLinearMultiStepMethod) for objects of points: the previous step's state and the
 * terms it adds to the implicit solver's step.
 *
 * With h = dt, SOFA's coefficients at order 2 (the derivative of the Lagrange polynomial through t_{n-1}, t_n,
 * t_{n+1}, scaled so that a_2 = 1) are a = (1/3, -4/3, 1), b_2 = 2/3:
 *   x_{n+1} = 4/3 x_n - 1/3 x_{n-1} + beta v_{n+1},   M v_{n+1} = M (4/3 v_n - 1/3 v_{n-1}) + beta f(x_{n+1}, v_{n+1}),
 * beta = 2/3 h. SOFA starts at order 1 (its order is min(order, steps solved + 1)): the first step is backward
 * Euler, beta = h. Linearised once at (x_n, v_n), as the implicit Euler step is (SOFA's first Newton iteration),
 * with f = f(x) - rM M v + rK K v and v_{n+1} = v_n + dv, x_{n+1} - x_n = d + beta v_n + beta dv, d = (x_n -
 * x_{n-1}) / 3:
 *   (M (1 + beta rM) - beta (beta + rK) K) dv = beta (f - rM M v_n) + beta (beta + rK) K v_n
 *                                               + M (v_n - v_{n-1}) / 3 + beta K d,
 * the implicit Euler system with h -> beta plus the last two terms (pf_bdf2_rhs_history). */
#include "solver_bdf2.h"

#include "force_field.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

int pf_bdf2_prepare(pf_object *o)
{
    if (o->xb) return PF_OK;
    size_t n3 = 3 * (size_t)o->n;
    o->xb = pf_calloc(n3, sizeof *o->xb);
    o->vb = pf_calloc(n3, sizeof *o->vb);
    if (!o->xb || !o->vb) {
        pf_free(o->xb), pf_free(o->vb);
        o->xb = o->vb = NULL;
        return pf_error(PF_ENOMEM, "out of memory for the BDF2 history of object %u", o->id);
    }
    o->bdf_history = 0;
    return PF_OK;
}

double pf_bdf2_beta(const pf_object *o, double h)
{
    return o->bdf_history ? 2.0 / 3.0 * h : h;
}

void pf_bdf2_rhs_history(const pf_object *o, double beta, const double *x, const double *v, double *tmp, double *b)
{
    if (!o->bdf_history) return;
    size_t n3 = 3 * (size_t)o->n;
    for (size_t i = 0; i < n3; i++) {
        b[i] += pf_point_mass(o, (uint32_t)(i / 3)) * ((v[i] - o->vb[i]) / 3);
        tmp[i] = (x[i] - o->xb[i]) / 3;
    }
    pf_force_fields_dforce(o, tmp, b, beta);
}

void pf_bdf2_positions(pf_object *o, double h, const double *v, double *x)
{
    double beta = pf_bdf2_beta(o, h);
    for (uint32_t p = 0; p < o->n; p++)
        for (size_t i = 3 * (size_t)p; i < 3 * (size_t)p + 3; i++) {
            double xn = x[i];
            if (!o->fixed[p]) x[i] = o->bdf_history ? xn + (xn - o->xb[i]) / 3 + beta * v[i] : xn + beta * v[i];
            o->xb[i] = xn;
        }
    o->bdf_history = 1;
}
