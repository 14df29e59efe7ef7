/* Numerical faults of a step (faults.c). */
#ifndef PF_PHYSICS_FAULTS_H
#define PF_PHYSICS_FAULTS_H

#include "world.h"

/* around each object's integration (in its integrate task): keep the state, then check the new one */
void pf_state_save(pf_object *o, const double *x, const double *v);
void pf_state_check(pf_object *o, const double *x, const double *v, double max_speed);
/* after a run: PF_OK, or every object restored to its saved state and PF_ENUMERIC naming the faulty object */
int pf_world_check_faults(pf_world *w);

#endif
