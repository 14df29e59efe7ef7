/* Finding a step's proximities (collide.c). */
#ifndef PF_PHYSICS_COLLIDE_H
#define PF_PHYSICS_COLLIDE_H

#include "collision_stage.h"

/* This step's proximities into c->cand: sorted by object pair, vertex, kind, other object and distance, one
 * per vertex and object for triangles. *examined: the feature pairs the narrow phase tested. */
int pf_collide(pf_world *w, pf_collision_stage *c, uint64_t *examined);
void pf_collide_free(pf_collision_stage *c);
/* The memory of this pass's contacts (their sides and tangential springs, after the contact fields were filled),
 * for the next pass. */
int pf_collide_remember(pf_collision_stage *c);

#endif
