/* Solver groups and the step graph (groups.c). */
#ifndef PF_PHYSICS_GROUPS_H
#define PF_PHYSICS_GROUPS_H

#include "world.h"

/* brings the graph up to date with the world: registers new data, regroups, re-records the groups that changed */
int pf_world_sync_graph(pf_world *w);
void pf_world_free_groups(pf_world *w);
/* adds the step just run's CG outcomes of the implicit groups to the world's counters */
void pf_world_count_cg(pf_world *w);

#endif
