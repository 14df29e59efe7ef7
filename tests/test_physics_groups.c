/* Solver groups under structural change: removing an interaction splits a group, adding one merges groups; only
 * the groups that changed are re-recorded, kept tasks stay on their worker, and the trajectory equals the one of
 * a world built directly in the new configuration from the same state (the oracle: a fresh recording). */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "physics/world.h"

#include <stdlib.h>

enum { OBJS = 4, NX = 4, NY = 3, NZ = 3 };

/* Four small spring-grid bars in a row along x, 0.1 m apart; bar 0 hangs from its x = 0 face. Links (i, i+1)
 * join the facing end faces of bars i and i+1 with springs of rest length 0.1 m. */
static pf_world *make_world(int workers, pf_executor e, const int *links, int nlinks, pf_interaction_id *ids)
{
    pf_world_def d = test_world_def(e, workers);
    /* the update path alone: kept groups keep their workers (a repartition may move them; runtime_update and the
     * golden matrix test that) */
    d.runtime.repartition = PF_REPART_NEVER;
    pf_world *w = create_world(&d);
    const double len = 0.3, gap = 0.1;
    for (int i = 0; i < OBJS; i++) {
        pf_object_def o = pf_object_default_def();
        o.grid[0] = NX, o.grid[1] = NY, o.grid[2] = NZ;
        double x0 = i * (len + gap);
        o.grid_min[0] = x0, o.grid_min[1] = 0, o.grid_min[2] = 0;
        o.grid_max[0] = x0 + len, o.grid_max[1] = 0.2, o.grid_max[2] = 0.2;
        o.total_mass = 0.5;
        o.solver.rayleigh_mass = 0.1;
        o.solver.cg_iterations = 15;
        pf_object_id id;
        ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_springs(w, id, 200, 0.1, NULL, NULL), PF_OK);
    }
    double face[6] = {-0.01, -1, -1, 0.01, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, (pf_object_id){0}, face, NULL), PF_OK);
    for (int k = 0; k < nlinks; k++) {
        pf_spring s[NY * NZ];
        for (int j = 0; j < NY * NZ; j++)
            s[j] = (pf_spring){(uint32_t)(NX - 1 + NX * j), (uint32_t)(NX * j), 300, 0.1, gap};
        ck_assert_int_eq(pf_world_add_interaction_springs(w, (pf_object_id){(uint32_t)links[k]},
                                                          (pf_object_id){(uint32_t)links[k] + 1}, s, NY * NZ,
                                                          ids ? &ids[k] : NULL),
                         PF_OK);
    }
    return w;
}

/* A fresh world with the given links and `from`'s state. */
static pf_world *fresh_copy(const pf_world *from, const int *links, int nlinks)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, links, nlinks, NULL);
    for (uint32_t k = 0; k < OBJS; k++) {
        pf_object_id i = {k};
        ck_assert_int_eq(pf_world_set_state(w, i, pf_world_positions(from, i, NULL), pf_world_velocities(from, i, NULL)),
                         PF_OK);
    }
    return w;
}

static uint64_t hash_after(pf_world *w, uint32_t steps)
{
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    return pf_world_state_hash(w);
}

/* Workers of the tasks of the group holding object o. */
static int *group_workers(const pf_world *w, pf_object_id o, uint32_t *n)
{
    const pf_group *gr = &w->groups[w->obj.v[o.index]->group];
    int *ws = malloc(gr->tasks.n * sizeof *ws);
    for (uint32_t k = 0; k < gr->tasks.n; k++) ws[k] = pf_graph_task_worker(w->g, gr->tasks.v[k]);
    *n = gr->tasks.n;
    return ws;
}

static void split_then_merge(pf_executor e, int workers)
{
    int both[] = {0, 2}, right[] = {2}, merged[] = {2, 1};
    pf_interaction_id ids[2];
    pf_world *w = make_world(workers, e, both, 2, ids);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    pf_world_stats st;
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.groups, 2);
    uint32_t n0, n1;
    int *before = group_workers(w, (pf_object_id){2}, &n0);

    /* split: {0,1} becomes {0} and {1}; {2,3} is kept */
    ck_assert_int_eq(pf_world_remove_interaction(w, ids[0]), PF_OK);
    ck_assert_int_eq(pf_world_remove_interaction(w, ids[0]), PF_EINVAL); /* gone */
    pf_world *oracle = fresh_copy(w, right, 1);
    uint64_t h = hash_after(w, 10), ref = hash_after(oracle, 10);
    ck_assert_msg(h == ref, "%s/%d after the split: %016llx, fresh recording %016llx", pf_executor_name(e), workers,
                  (unsigned long long)h, (unsigned long long)ref);
    pf_world_destroy(oracle);
    pf_world_update up;
    uint32_t count;
    ck_assert_int_eq(pf_world_get_last_update(w, &up, &count), PF_OK);
    ck_assert_uint_eq(count, 2);
    ck_assert_uint_eq(up.step, 10);
    ck_assert_uint_eq(up.groups_kept, 1);
    ck_assert_uint_eq(up.groups_removed, 1);
    ck_assert_uint_eq(up.groups_recorded, 2);
    ck_assert_uint_eq(up.tasks_moved, 0);
    ck_assert_uint_gt(up.tasks_removed, 0);
    int *after = group_workers(w, (pf_object_id){2}, &n1);
    ck_assert_uint_eq(n0, n1);
    for (uint32_t k = 0; k < n0; k++) ck_assert_int_eq(before[k], after[k]); /* the kept group did not move */
    free(before);
    free(after);

    /* merge: {1} and {2,3} become {1,2,3}; {0} is kept */
    pf_spring s[NY * NZ];
    for (int j = 0; j < NY * NZ; j++) s[j] = (pf_spring){(uint32_t)(NX - 1 + NX * j), (uint32_t)(NX * j), 300, 0.1, 0.1};
    ck_assert_int_eq(
        pf_world_add_interaction_springs(w, (pf_object_id){1}, (pf_object_id){2}, s, NY * NZ, NULL), PF_OK);
    oracle = fresh_copy(w, merged, 2);
    h = hash_after(w, 10);
    ref = hash_after(oracle, 10);
    ck_assert_msg(h == ref, "%s/%d after the merge: %016llx, fresh recording %016llx", pf_executor_name(e), workers,
                  (unsigned long long)h, (unsigned long long)ref);
    pf_world_destroy(oracle);
    ck_assert_int_eq(pf_world_get_last_update(w, &up, &count), PF_OK);
    ck_assert_uint_eq(count, 3);
    ck_assert_uint_eq(up.groups_kept, 1);
    ck_assert_uint_eq(up.groups_removed, 2);
    ck_assert_uint_eq(up.groups_recorded, 1);
    ck_assert_uint_eq(up.tasks_moved, 0);
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.groups, 2);
    pf_world_destroy(w);
}

START_TEST(test_split_merge_seq)
{
    split_then_merge(PF_EXEC_SEQ, 1);
}
END_TEST

START_TEST(test_split_merge_static)
{
    for (int k = 1; k <= 3; k++) split_then_merge(PF_EXEC_STATIC, k);
}
END_TEST

START_TEST(test_split_merge_baselines)
{
    split_then_merge(PF_EXEC_BARRIER, 2);
    split_then_merge(PF_EXEC_OMPTASKS, 2);
}
END_TEST

/* A step with no structural change records nothing. */
START_TEST(test_no_change_no_update)
{
    int both[] = {0, 2};
    pf_world *w = make_world(2, PF_EXEC_STATIC, both, 2, NULL);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    uint32_t count;
    pf_world_update up;
    pf_world_get_last_update(w, &up, &count);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(up.groups_recorded, 2);
    pf_world_stats st;
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.records, 1);
    pf_world_destroy(w);
}
END_TEST

START_TEST(test_set_state_checks)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, NULL, 0, NULL);
    double bad[3 * NX * NY * NZ] = {0};
    bad[5] = 1.0 / 0.0;
    ck_assert_int_eq(pf_world_set_state(w, (pf_object_id){0}, bad, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_set_state(w, (pf_object_id){OBJS}, NULL, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_remove_interaction(w, (pf_interaction_id){0}), PF_EINVAL);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_groups");
    TCase *tc = tcase_create("groups");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_split_merge_seq);
    tcase_add_test(tc, test_split_merge_static);
    tcase_add_test(tc, test_split_merge_baselines);
    tcase_add_test(tc, test_no_change_no_update);
    tcase_add_test(tc, test_set_state_checks);
    suite_add_tcase(s, tc);
    return s;
}
