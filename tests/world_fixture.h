/* A world for a test: quiet, unpinned (meson may run other suites' processes beside this one), on executor e
 * with `workers` workers, the other settings default. */
#ifndef PF_TESTS_WORLD_FIXTURE_H
#define PF_TESTS_WORLD_FIXTURE_H

#include "check_main.h"

#include "physflow/physics.h"

static inline pf_world *new_world(pf_executor e, int workers)
{
    pf_world_def d = pf_world_default_def();
    d.runtime.quiet = 1;
    d.runtime.bind = 0;
    d.runtime.workers = workers;
    d.runtime.executor = e;
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_OK);
    return w;
}

#endif
