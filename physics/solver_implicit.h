/* Implicit Euler solved by a task-graph conjugate gradient (solver_implicit.c). */
#ifndef PF_PHYSICS_SOLVER_IMPLICIT_H
#define PF_PHYSICS_SOLVER_IMPLICIT_H

#include "world.h"

/* records one group's step through rec */
int pf_record_implicit(pf_world *w, pf_group *gr, const pf_task_recorder *rec);

#endif
