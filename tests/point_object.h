/* An object of n points at positions x (copied), for the FEM tests: each adds its elements to it; and its force
 * fields' force and stiffness product at given positions. */
#ifndef PF_TESTS_POINT_OBJECT_H
#define PF_TESTS_POINT_OBJECT_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "physflow/physics.h"
#include "physics/force_field.h"
#include "physics/world.h"

static inline pf_object_id add_point_object(pf_world *w, const double *x, uint32_t n, double vertex_mass)
{
    pf_object_def od = pf_object_default_def();
    od.points = n;
    od.positions = x;
    od.vertex_mass = vertex_mass;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    return id;
}

/* f = the object's force at positions x (zero velocities); refreshes the state df reads (rotations, ...) */
static inline void force_at(pf_world *w, pf_object_id id, const double *x, double *f)
{
    const pf_object *o = w->obj.v[id.index];
    double *v = calloc(3 * (size_t)o->n, sizeof *v);
    memset(f, 0, 3 * (size_t)o->n * sizeof *f);
    pf_force_fields_force(o, x, v, f, 1);
    free(v);
}

/* df = K dx with K from the latest force_at */
static inline void dforce_of(pf_world *w, pf_object_id id, const double *dx, double *df)
{
    const pf_object *o = w->obj.v[id.index];
    memset(df, 0, 3 * (size_t)o->n * sizeof *df);
    pf_force_fields_dforce(o, dx, df, 1.0);
}

#endif
