/* The determinism matrix against stored golden hashes (tests/golden_hashes.txt): every built-in scene listed
 * there, after its steps, has the stored hash for seq and for static (both partitioners), barrier and omptasks
 * at 1, 2, 3, 4 and 8 workers, static also under each repartitioning policy (never, always; auto is the
 * default every other run uses). The same test runs in the optimised build and in the -O1 sanitizer build, so the
 * hashes also hold across optimisation levels. Scenes of more than 100,000 points run a reduced matrix, and
 * PHYSFLOW_GOLDEN=quick a minimal one. */
#include "check_main.h"

#include "physflow/scene.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t run_scene(const char *name, uint32_t steps, pf_executor e, pf_partitioner p, pf_repartition r,
                          int workers, uint64_t *points)
{
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = workers;
    d.world.runtime.executor = e;
    d.world.runtime.partitioner = p;
    d.world.runtime.repartition = r;
    d.world.runtime.bind = 0; /* meson may run other suites' processes beside this one */
    d.world.runtime.quiet = 1;
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
    /* PHYSFLOW_GOLDEN=quick (the slow sanitizer build): seq, and static at 2 workers for scenes up to
     * 100,000 points — enough to hold -O1 to the optimised build's hashes */
    const char *mode = getenv("PHYSFLOW_GOLDEN");
    int quick = mode && !strcmp(mode, "quick");
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
        uint64_t h = run_scene(name, steps, PF_EXEC_SEQ, PF_PART_OWNER, PF_REPART_AUTO, 1, &points);
        if (h != want) {
            fprintf(stderr, "%s: seq gives %016" PRIx64 ", golden %016" PRIx64 "\n", name, h, want);
            failures++;
            continue;
        }
        static const int all[] = {1, 2, 3, 4, 8}, few[] = {2, 8};
        int big = points > 100000;
        const int *counts = big || quick ? few : all;
        int ncounts = quick ? 1 : big ? 2 : 5;
        for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT && !(quick && big); e++)
            for (int k = 0; k < ncounts; k++)
                for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                    if ((big || quick) && e != PF_EXEC_STATIC) continue;
                    /* static: every policy at 2 and 3 workers (auto, the default, at every count) */
                    int policies = e == PF_EXEC_STATIC && (counts[k] == 2 || counts[k] == 3) ? PF_REPART_COUNT : 1;
                    for (int r = 0; r < policies; r++) {
                        h = run_scene(name, steps, (pf_executor)e, (pf_partitioner)p, (pf_repartition)r, counts[k],
                                      NULL);
                        if (h == want) continue;
                        fprintf(stderr, "%s: %s/%s/%s at %d workers gives %016" PRIx64 ", golden %016" PRIx64 "\n",
                                name, pf_executor_name((pf_executor)e), pf_partitioner_name((pf_partitioner)p),
                                pf_repartition_name((pf_repartition)r), counts[k], h, want);
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
