/* The direct linear solver of implicit and static groups (solver_direct.c): A dv = b factorised by sparse
 * LDL^T (SuiteSparse CHOLMOD) in one task per group and step. */
#ifndef PF_PHYSICS_SOLVER_DIRECT_H
#define PF_PHYSICS_SOLVER_DIRECT_H

#include "world.h"

struct pf_direct;

/* 1 when group gr can be assembled (every object of points, every part with stiffness assembled, the accesses
 * within one task's bound); else 0 and `why` says what stops it */
int pf_direct_supported(const pf_world *w, const pf_group *gr, char *why, size_t cap);
/* records the solve task: reads every object's b (complete, projected) and the stiffness caches, writes dv
 * and the residual scalars rr (set to converged); A = mfact M + kfact K */
int pf_record_direct_solve(pf_world *w, pf_group *gr, const pf_task_recorder *rec, double mfact, double kfact,
                           pf_data_id drr);
/* 1 when the latest solve of d failed (the factorisation: dv was set to NaN), clearing it; 0 for NULL */
int pf_direct_failed(struct pf_direct *d);
/* frees a group's solver state (NULL: nothing) */
void pf_direct_free(struct pf_direct *d);

#endif
