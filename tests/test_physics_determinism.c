/* Physics determinism: small versions of the bars and tiled spring-sheet scenes leave, after 50 steps, the state
 * hash of the seq executor for every executor (static, barrier, omptasks), both partitioners and 1, 2, 3 workers;
 * and a replayed step equals a freshly recorded one. */
#include "check_main.h"
#include "world_fixture.h"
#include "physics_scenes.h"

#include "physflow/physics.h"

static uint64_t run_hash(int scene, pf_executor e, pf_partitioner p, int workers, uint32_t steps)
{
    pf_world_def d = test_world_def(e, workers);
    d.runtime.partitioner = p;
    pf_world *w = create_world(&d);
    if (scene == 0)
        ck_assert_int_eq(scene_bars(w, 5, 8, 3, 3, 10, PF_FEM_LARGE), PF_OK);
    else
        ck_assert_int_eq(scene_springgrid(w, 24, 3, 10), PF_OK);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    pf_world_stats st;
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.records, 1);
    if (scene == 1) ck_assert_uint_eq(st.groups, 1);       /* interaction springs join all tiles */
    if (scene == 0) ck_assert_uint_eq(st.groups, 5);       /* one solver per bar */
    ck_assert_uint_gt(st.cg_iterations, 0);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

static void all_executors(int scene)
{
    uint64_t ref = run_hash(scene, PF_EXEC_SEQ, PF_PART_OWNER, 1, 50);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++)
            for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                uint64_t h = run_hash(scene, (pf_executor)e, (pf_partitioner)p, workers, 50);
                ck_assert_msg(h == ref, "scene %d: %s/%s with %d workers: hash %016llx, seq %016llx", scene,
                              pf_executor_name((pf_executor)e), pf_partitioner_name((pf_partitioner)p), workers,
                              (unsigned long long)h, (unsigned long long)ref);
            }
}

START_TEST(test_bars_hash_every_executor)
{
    all_executors(0);
}
END_TEST

START_TEST(test_springgrid_hash_every_executor)
{
    all_executors(1);
}
END_TEST

/* Switching the executor of a live world replays the same recorded graph: 20 steps with seq then 30 with static
 * on 2 workers end where 50 seq steps end. */
START_TEST(test_switch_executor_midway)
{
    uint64_t ref = run_hash(1, PF_EXEC_SEQ, PF_PART_OWNER, 1, 50);
    pf_world *w = new_world(PF_EXEC_SEQ, 2);
    ck_assert_int_eq(scene_springgrid(w, 24, 3, 10), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    ck_assert_int_eq(pf_world_set_executor(w, PF_EXEC_STATIC), PF_OK);
    ck_assert_int_eq(pf_world_set_partitioner(w, PF_PART_METIS), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    ck_assert(pf_world_state_hash(w) == ref);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_determinism");
    TCase *tc = tcase_create("hash");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bars_hash_every_executor);
    tcase_add_test(tc, test_springgrid_hash_every_executor);
    tcase_add_test(tc, test_switch_executor_midway);
    suite_add_tcase(s, tc);
    return s;
}
