/* The CG loop's scalars and the steps on them that every implicit recording shares (cg_scalars.c): the
 * whole-object loop of solver_implicit.c and the blocks' of solver_blocks.c. */
#ifndef PF_PHYSICS_CG_SCALARS_H
#define PF_PHYSICS_CG_SCALARS_H

#include "physflow/runtime.h"

/* offsets into pf_group.scal: rr = {r.r, tol^2 b.b, previous r.r}, pq = {p.Ap, p.M'p}, rn = {new r.r}, each on
 * its own cache line */
enum { PF_CG_RR = 0, PF_CG_PQ = 8, PF_CG_RN = 16 };

/* rr[1] = tol^2 rr[0]. args: the tolerance; data: rr */
void pf_cg_limits_task(const pf_task_ctx *c);
/* previous rr = rr, rr = rn; rn and pq back to 0 for the next cumulative writes. data: rr, rn, pq */
void pf_cg_next_task(const pf_task_ctx *c);
/* the loop's break tests: the residual on rr, the denominator on pq (args: the threshold) */
int pf_cg_residual_small(const void *datum, const void *args);
int pf_cg_denominator_small(const void *datum, const void *args);

#endif
