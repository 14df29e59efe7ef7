/* Implicit Euler solved by a task-graph conjugate gradient (solver_implicit.c). */
#ifndef PF_PHYSICS_SOLVER_IMPLICIT_H
#define PF_PHYSICS_SOLVER_IMPLICIT_H

#include "world.h"

/* records one group's step through rec */
int pf_record_implicit(pf_world *w, pf_group *gr, const pf_task_recorder *rec);

/* How a group's CG loop ended in the step just run, read from its scalars (the same on every executor). */
typedef enum pf_cg_outcome {
    PF_CG_CONVERGED = 0, /* |r| <= tolerance |b| (b = 0 included) */
    PF_CG_STALLED,       /* above the tolerance without a single update: dv = 0 although b asked for motion */
    PF_CG_UNCONVERGED    /* above the tolerance after one update or more: the iteration bound, or a later
                            denominator break */
} pf_cg_outcome;
pf_cg_outcome pf_implicit_outcome(const pf_group *gr);

#endif
