/* An object of n points at positions x (copied), for the FEM tests: each adds its elements to it. */
#ifndef PF_TESTS_POINT_OBJECT_H
#define PF_TESTS_POINT_OBJECT_H

#include <check.h>

#include "physflow/physics.h"

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

#endif
