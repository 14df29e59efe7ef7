/* The CG loop's scalar steps (cg_scalars.h). */
#include "cg_scalars.h"

#include <math.h>

void pf_cg_limits_task(const pf_task_ctx *c)
{
    double *rr = c->data[0], tol = *(const double *)c->args;
    rr[1] = tol * tol * rr[0];
}

/* previous rr = rr, rr = rn; rn and pq back to 0 for the next cumulative writes. data: rr, rn, pq */
void pf_cg_next_task(const pf_task_ctx *c)
{
    double *rr = c->data[0], *rn = c->data[1], *pq = c->data[2];
    rr[2] = rr[0];
    rr[0] = *rn;
    *rn = 0;
    pq[0] = pq[1] = 0;
}

int pf_cg_residual_small(const void *datum, const void *args)
{
    (void)args;
    const double *rr = datum;
    return rr[0] <= rr[1];
}

/* |p.Ap| < threshold p.M'p: the stiffness has cancelled (nearly) all of A's inertia along p, which needs a df that
 * is not negative semi-definite; otherwise p.Ap >= p.M'p and a threshold below 1 never fires */
int pf_cg_denominator_small(const void *datum, const void *args)
{
    const double *pq = datum;
    return fabs(pq[0]) < *(const double *)args * pq[1];
}
