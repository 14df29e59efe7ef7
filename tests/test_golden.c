/* The determinism matrix against stored golden hashes (tests/golden_hashes.txt): every built-in scene listed
 * there, after its steps, has the stored hash for seq and for static (both partitioners), barrier and omptasks
 * at 1, 2, 3, 4 and 8 workers. The same test runs in the optimised build and in the -O0 sanitizer build, so the
 * hashes also hold across optimisation levels. Scenes of more than 100,000 points run a reduced matrix. */
#include "check_main.h"

#include "physflow/scene.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t run_scene(const char *name, uint32_t steps, pf_executor e, pf_partitioner p, int workers,
                          uint64_t *points)
{
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.workers = workers;
    d.world.executor = e;
    d.world.partitioner = p;
    d.world.bind = 0; /* meson may run other suites' processes beside this one */
    d.world.quiet = 1;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_builtin(&d, name, &s) == PF_OK, "%s: %s", name, pf_last_error());
    ck_assert_msg(pf_world_step(pf_scene_world(s), steps) == PF_OK, "%s: %s", name, pf_last_error());
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    if (points) *points = sum.points;
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_golden_matrix)
{
    FILE *f = fopen(GOLDEN_FILE, "r");
    ck_assert_msg(f != NULL, "cannot open %s", GOLDEN_FILE);
    char line[256];
    int scenes = 0, failures = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64];
        unsigned steps;
        uint64_t want;
        if (line[0] == '#' || sscanf(line, "%63s %u %" SCNx64, name, &steps, &want) != 3) continue;
        scenes++;
        uint64_t points;
        uint64_t h = run_scene(name, steps, PF_EXEC_SEQ, PF_PART_OWNER, 1, &points);
        if (h != want) {
            fprintf(stderr, "%s: seq gives %016" PRIx64 ", golden %016" PRIx64 "\n", name, h, want);
            failures++;
            continue;
        }
        static const int all[] = {1, 2, 3, 4, 8}, few[] = {2, 8};
        int big = points > 100000;
        const int *counts = big ? few : all;
        int ncounts = big ? 2 : 5;
        for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
            for (int k = 0; k < ncounts; k++)
                for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                    if (big && e != PF_EXEC_STATIC) continue;
                    h = run_scene(name, steps, (pf_executor)e, (pf_partitioner)p, counts[k], NULL);
                    if (h != want) {
                        fprintf(stderr, "%s: %s/%s at %d workers gives %016" PRIx64 ", golden %016" PRIx64 "\n", name,
                                pf_executor_name((pf_executor)e), pf_partitioner_name((pf_partitioner)p), counts[k],
                                h, want);
                        failures++;
                    }
                }
    }
    fclose(f);
    ck_assert_int_gt(scenes, 0);
    ck_assert_msg(failures == 0, "%d runs differ from the golden hashes (see stderr)", failures);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("golden");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_golden_matrix);
    suite_add_tcase(s, tc);
    return s;
}
