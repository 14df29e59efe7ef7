/* The checks a public world call starts with (world_guard.c): the world given, not in the middle of its own step
 * (a call from a contact callback or a host force field), an object id that exists. */
#ifndef PF_PHYSICS_WORLD_GUARD_H
#define PF_PHYSICS_WORLD_GUARD_H

#include "world.h"

/* w given: PF_OK or PF_EINVAL "fn: world is required (NULL given)" */
int pf_world_check_given(const pf_world *w, const char *fn);
/* w given and not stepping: a call that changes the world or steps it, made from a callback that the step runs,
 * would change what the step is reading; PF_ESTATE names the function and says so */
int pf_world_check_mutable(const pf_world *w, const char *fn);
/* object id of w (w already checked): one handed out, and not removed (PF_EINVAL "fn: object 3 was removed") */
int pf_world_check_object(const pf_world *w, uint32_t id, const char *fn);
/* The start of a call that adds an interaction between objects oa and ob: w mutable, both objects exist, and
 * they differ (else PF_EINVAL "fn: oa and ob are both object 3: " followed by `same`, which says what to use) */
int pf_world_check_pair(const pf_world *w, uint32_t oa, uint32_t ob, const char *fn, const char *same);
/* Room for one more interaction in w: PF_OK, or PF_ENOMEM when the interaction ids are spent or memory is out */
int pf_world_reserve_interaction(pf_world *w, const char *fn);
/* Adds s (room reserved by pf_world_reserve_interaction) to w with the next interaction id, into *out if given */
void pf_world_push_interaction(pf_world *w, pf_springset *s, pf_interaction_id *out);
/* what an object of kind k is, for messages: "a rigid body (...)", "a beam (...)", with what its points are */
const char *pf_object_kind_noun(pf_object_kind k);
/* o an object of points: PF_OK, or PF_EINVAL "fn: object 3 is a beam (...); why" (why: "springs need points") */
int pf_object_check_points(const pf_object *o, const char *fn, const char *why);
/* def.points of a force on points of object `id` (checked): an object of points (else `what` says why, "rest-shape
 * springs act on points"), and npoints indices below its point count, given when npoints > 0 */
int pf_world_check_point_list(const pf_world *w, uint32_t id, const uint32_t *points, uint32_t npoints,
                              const char *fn, const char *what);

#endif
