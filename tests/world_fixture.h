/* A world for a test: quiet, unpinned (meson may run other suites' processes beside this one), on executor e
 * with `workers` workers, the other settings default; or with its own time step and gravity, or from a def the
 * test changed further. */
#ifndef PF_TESTS_WORLD_FIXTURE_H
#define PF_TESTS_WORLD_FIXTURE_H

#include "check_main.h"

#include "physflow/physics.h"

/* the def of new_world: the default one, quiet and unpinned, on executor e with `workers` workers */
static inline pf_world_def test_world_def(pf_executor e, int workers)
{
    pf_world_def d = pf_world_default_def();
    d.runtime.quiet = 1;
    d.runtime.bind = 0;
    d.runtime.workers = workers;
    d.runtime.executor = e;
    return d;
}

/* the world of def d, which the test expects to be accepted */
static inline pf_world *create_world(const pf_world_def *d)
{
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(d, &w), PF_OK);
    return w;
}

static inline pf_world *new_world(pf_executor e, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    return create_world(&d);
}

/* new_world with time step dt (s) and gravity g (m/s^2) */
static inline pf_world *new_world_dg(pf_executor e, int workers, double dt, const double g[3])
{
    pf_world_def d = test_world_def(e, workers);
    d.dt = dt;
    for (int a = 0; a < 3; a++) d.gravity[a] = g[a];
    return create_world(&d);
}

#endif
