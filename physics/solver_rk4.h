/* Classical 4th-order Runge-Kutta (solver_rk4.c). */
#ifndef PF_PHYSICS_SOLVER_RK4_H
#define PF_PHYSICS_SOLVER_RK4_H

#include "world.h"

/* records one group's step through rec */
int pf_record_rk4(pf_world *w, pf_group *gr, const pf_task_recorder *rec);

#endif
