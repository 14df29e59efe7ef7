/* The force tasks of a step (forces.c), shared by both solvers. */
#ifndef PF_PHYSICS_FORCES_H
#define PF_PHYSICS_FORCES_H

#include "world.h"

/* records the per-object force tasks and the interaction force tasks of group gr; want_jac: the force fields
 * also refresh the stiffness the implicit solver's df reads */
int pf_record_forces(pf_world *w, pf_group *gr, int want_jac, const pf_task_recorder *rec);

#endif
