/* Numerical faults: a blow-up (explicit Euler past its stability limit) and a force field that returns NaN stop
 * at the step where they appear, with PF_ENUMERIC naming the object (and the field), and leave the world
 * bitwise in its state before that step (the oracle: the hash taken before the step). */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pf_world *chain(int workers, pf_executor e, double stiffness, pf_object_id *id)
{
    pf_world_def d = test_world_def(e, workers);
    d.dt = 0.01;
    d.max_speed = 100;
    pf_world *w = create_world(&d);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 8, o.grid[1] = o.grid[2] = 1;
    o.grid_max[0] = 0.7;
    o.vertex_mass = 0.01;
    o.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    ck_assert_int_eq(pf_world_add_object(w, &o, id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, *id, stiffness, 0, NULL, NULL), PF_OK);
    uint32_t first = 0;
    ck_assert_int_eq(pf_world_fix_points(w, *id, &first, 1), PF_OK);
    return w;
}

/* Steps one at a time until a step fails; returns the step count reached and checks the state kept. */
static uint64_t step_until_fault(pf_world *w, int max_steps)
{
    for (int s = 0; s < max_steps; s++) {
        uint64_t before = pf_world_state_hash(w);
        int rc = pf_world_step(w, 1);
        if (rc == PF_OK) continue;
        ck_assert_int_eq(rc, PF_ENUMERIC);
        ck_assert_msg(pf_world_state_hash(w) == before, "the world changed in the failing step");
        return (uint64_t)s + 1;
    }
    ck_abort_msg("no fault in %d steps", max_steps);
    return 0;
}

START_TEST(test_blow_up_stops_with_last_good_state)
{
    pf_object_id id;
    /* k h^2 / m = 1e5 * 1e-4 / 0.01 = 1000: far past explicit Euler's limit of 4 */
    uint64_t ref = 0;
    for (int k = 1; k <= 3; k++) {
        pf_world *w = chain(k, k == 1 ? PF_EXEC_SEQ : PF_EXEC_STATIC, 1e5, &id);
        uint64_t at = step_until_fault(w, 100);
        ck_assert_uint_lt(at, 20);
        const char *msg = pf_last_error();
        ck_assert_msg(strstr(msg, "object 0") && strstr(msg, "m/s"), "message: %s", msg);
        if (k == 1) ref = pf_world_state_hash(w);
        ck_assert(pf_world_state_hash(w) == ref); /* same state kept on every worker count */
        /* stepping again fails again, at once, without changing the state */
        ck_assert_int_eq(pf_world_step(w, 1), PF_ENUMERIC);
        ck_assert(pf_world_state_hash(w) == ref);
        pf_world_destroy(w);
    }
}
END_TEST

static void nan_after(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)v;
    if (x[3 * (points - 1) + 2] < *(const double *)ctx) f[3 * (points - 1)] += NAN;
}

START_TEST(test_nan_force_field_named)
{
    pf_object_id id;
    pf_world *w = chain(2, PF_EXEC_STATIC, 50, &id);
    double below = -0.05;
    pf_force_field_def f = pf_force_field_default_def();
    f.add_force = nan_after;
    f.ctx = &below;
    ck_assert_int_eq(pf_world_add_force_field(w, id, &f, NULL), PF_OK);
    step_until_fault(w, 200);
    const char *msg = pf_last_error();
    ck_assert_msg(strstr(msg, "object 0") && strstr(msg, "custom force field"), "message: %s", msg);
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    for (uint32_t i = 0; i < 3 * n; i++) ck_assert(isfinite(x[i]));
    pf_world_destroy(w);
}
END_TEST

/* A grid of 10^12 points is refused before anything is allocated, with the need in the message. */
START_TEST(test_huge_grid_refused)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = o.grid[2] = 10000;
    o.grid_max[0] = o.grid_max[1] = o.grid_max[2] = 1;
    ck_assert_int_eq(pf_world_add_object(w, &o, NULL), PF_ENOMEM);
    ck_assert_msg(strstr(pf_last_error(), "GiB"), "message: %s", pf_last_error());
    ck_assert_uint_eq(pf_world_objects(w), 0);
    pf_world_destroy(w);
}
END_TEST

/* Every allocation failing after the first `budget` ones: building and stepping a world returns errors, never
 * crashes, for every budget up to what a successful run needs. */
static long alloc_budget;

static void *limited_alloc(size_t size, size_t alignment, void *ctx)
{
    (void)ctx;
    if (__atomic_sub_fetch(&alloc_budget, 1, __ATOMIC_RELAXED) < 0) return NULL;
    void *p = NULL;
    return posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size ? size : 1) ? NULL : p;
}

static void limited_free(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

START_TEST(test_allocation_failures_return_errors)
{
    int completed = 0;
    for (long budget = 0; budget < 400 && !completed; budget += 3) {
        alloc_budget = budget;
        pf_set_allocator(limited_alloc, limited_free, NULL);
        pf_world *w = NULL;
        pf_object_id id;
        int rc = PF_OK;
        pf_world_def d = pf_world_default_def();
        d.runtime.quiet = 1;
        d.runtime.bind = 0;
        d.runtime.workers = 2;
        rc = pf_world_create(&d, &w);
        pf_object_def o = pf_object_default_def();
        o.grid[0] = 4, o.grid[1] = o.grid[2] = 2;
        o.grid_max[0] = 0.3, o.grid_max[1] = o.grid_max[2] = 0.1;
        if (!rc) rc = pf_world_add_object(w, &o, &id);
        if (!rc) rc = pf_world_add_grid_springs(w, id, 10, 0, NULL, NULL);
        pf_hexa_fem_def fd = pf_hexa_fem_default_def();
        fd.young_modulus = 1000, fd.poisson_ratio = 0.3;
        if (!rc) rc = pf_world_add_hexa_fem(w, id, &fd, NULL);
        if (!rc) rc = pf_world_step(w, 3);
        ck_assert(rc == PF_OK || rc == PF_ENOMEM);
        completed = rc == PF_OK;
        pf_world_destroy(w);
        pf_set_allocator(NULL, NULL, NULL);
    }
    ck_assert_msg(completed, "no budget under 400 allocations completed the run");
}
END_TEST

START_TEST(test_max_speed_checked)
{
    pf_world_def d = pf_world_default_def();
    d.max_speed = 0;
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_EINVAL);
    d.max_speed = NAN;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_EINVAL);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_faults");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_blow_up_stops_with_last_good_state);
    tcase_add_test(tc, test_nan_force_field_named);
    tcase_add_test(tc, test_max_speed_checked);
    tcase_add_test(tc, test_huge_grid_refused);
    tcase_add_test(tc, test_allocation_failures_return_errors);
    suite_add_tcase(s, tc);
    return s;
}
