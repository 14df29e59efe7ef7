/* Explicit Euler, symplectic or forward (solver_explicit.c). */
#ifndef PF_PHYSICS_SOLVER_EXPLICIT_H
#define PF_PHYSICS_SOLVER_EXPLICIT_H

#include "world.h"

/* records one group's step through rec */
int pf_record_explicit(pf_world *w, pf_group *gr, const pf_task_recorder *rec);

#endif
