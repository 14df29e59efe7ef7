/* Objects of a world (objects.c): their creation, state and constraints, and the force fields they carry. */
#ifndef PF_PHYSICS_OBJECTS_H
#define PF_PHYSICS_OBJECTS_H

#include "world.h"

/* every point fixed: contacts push others away from it, and it links no solver groups */
int pf_object_is_static(const pf_object *o);
/* gives o a force field of `kind` (force_field.h) with the kind's state (taken), after the fields of the same
 * and lower kinds: that fixes the order of the sums in f; *out (may be NULL) receives its handle */
int pf_object_add_force_field(pf_world *w, pf_object *o, uint8_t kind, void *state, pf_force_field_id *out);
/* the lumped mass of point i of an object of points, kg */
static inline double pf_point_mass(const pf_object *o, uint32_t i)
{
    return o->pmass ? o->pmass[i] : o->mass;
}
/* PF_EINVAL when group gr, solved by `solver` (its lowest object's), has a rigid body: rigid bodies take implicit
 * or symplectic explicit Euler only */
int pf_group_refuse_rigid(const pf_world *w, const pf_group *gr, const char *solver);
/* checks that object id of w may change and that points[0..n) are its points, in the terms of fn */
int pf_check_point_list(const pf_world *w, uint32_t id, const uint32_t *points, uint32_t n, const char *fn);
/* directions.c: vec -= its components along the held directions of o's points (each point's are orthonormal) */
void pf_project_directions(const pf_object *o, double *vec);
/* the same for one point: its entries, in the same order (the blocks of a decomposed object, decompose.h) */
void pf_project_point_directions(const pf_object *o, uint32_t point, double *vec);
/* drops the held directions of the listed points (pf_world_fix_directions); returns how many entries went */
int pf_free_directions(pf_object *o, const uint32_t *points, uint32_t n);
/* checks a solver definition given to `fn` as `what` ("def.solver") */
int pf_check_solver_def(const pf_solver_def *s, const char *fn, const char *what);

#endif
