/* The tests' own scene files (tests/scenes/, TEST_SCENES_DIR from tests/meson.build), loaded quietly and unbound
 * with the given executor, partitioner and worker count; a failure to load fails the test with the loader's
 * message. */
#ifndef PF_TESTS_SCENE_FILES_H
#define PF_TESTS_SCENE_FILES_H

#include <check.h>
#include <stdio.h>

#include "physflow/scene.h"

/* a load definition for tests: one worker, the seq executor, unbound, quiet */
static inline pf_scene_load_def quiet_load_def(void)
{
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    return d;
}

static inline pf_scene *load_test_scene(const char *file, pf_executor e, pf_partitioner p, int workers)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TEST_SCENES_DIR, file);
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.executor = e;
    d.world.runtime.partitioner = p;
    d.world.runtime.workers = workers;
    d.world.runtime.quiet = 1;
    d.world.runtime.bind = 0; /* meson may run other suites' processes beside this one */
    pf_scene *s = NULL;
    int rc = pf_scene_load_file(&d, path, &s);
    ck_assert_msg(rc == PF_OK, "%s: %s", path, pf_last_error());
    return s;
}

#endif
