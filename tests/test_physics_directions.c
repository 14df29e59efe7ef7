/* Points held along some directions only (pf_world_fix_directions: SOFA FixedPlaneProjectiveConstraint,
 * PartialFixedProjectiveConstraint, LineProjectiveConstraint). Oracles: a particle on a plane or a line moves
 * as the projection of free motion onto it, in closed form, under every solver; three directions equal a
 * fixed point bit for bit; the direct solver equals CG on a propped beam; every executor gives seq's hash. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <string.h>

static pf_world *make_world(pf_executor e, int workers, const double g[3])
{
    return new_world_dg(e, workers, 0.01, g);
}

/* one particle from the origin with velocity (1, 2, 3) under gravity (0, -5, -9.81), held along the given
 * directions, 100 steps (1 s) */
static void particle(pf_solver_kind kind, const double (*dirs)[3], int ndirs, double out[3])
{
    static const double g[3] = {0, -5, -9.81};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, g);
    pf_object_def o = pf_object_default_def();
    o.points = 1;
    o.velocities = (const double[3]){1, 2, 3};
    o.solver.kind = kind;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    for (int k = 0; k < ndirs; k++)
        ck_assert_int_eq(pf_world_fix_directions(w, id, (const uint32_t[1]){0}, 1, dirs[k]), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
    uint32_t n;
    memcpy(out, pf_world_positions(w, id, &n), 3 * sizeof(double));
    pf_world_destroy(w);
}

/* held along z (a horizontal plane), then along x and z (a line along y): the motion along the free axes is
 * free fall's, exact for RK4 (uniform acceleration), within O(dt) for the Euler schemes; nothing moves along
 * the held */
START_TEST(plane_and_line_closed_form)
{
    static const double z[1][3] = {{0, 0, 2}}, xz[2][3] = {{1, 0, 0}, {1, 0, 1}};
    static const pf_solver_kind kinds[] = {PF_SOLVER_RUNGE_KUTTA4, PF_SOLVER_EXPLICIT_EULER,
                                           PF_SOLVER_IMPLICIT_EULER, PF_SOLVER_FORWARD_EULER};
    for (size_t k = 0; k < 4; k++) {
        double tol = k == 0 ? 1e-12 : 0.03, p[3];
        particle(kinds[k], z, 1, p);
        ck_assert_msg(fabs(p[0] - 1) < 1e-12 && fabs(p[1] - (2 - 2.5)) < tol && fabs(p[2]) < 1e-12,
                      "solver %d, plane: (%g, %g, %g)", (int)kinds[k], p[0], p[1], p[2]);
        particle(kinds[k], xz, 2, p); /* (1, 0, 1) made orthogonal to x: z */
        ck_assert_msg(fabs(p[0]) < 1e-12 && fabs(p[1] - (2 - 2.5)) < tol && fabs(p[2]) < 1e-12,
                      "solver %d, line: (%g, %g, %g)", (int)kinds[k], p[0], p[1], p[2]);
    }
}
END_TEST

/* a spring grid hanging by its corner, that corner held along three directions or fixed: the same state */
static uint64_t hanging_hash(int three_dirs, pf_executor e, int workers)
{
    static const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(e, workers, g);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = 4, o.grid[2] = 2;
    o.grid_max[0] = o.grid_max[1] = 0.3, o.grid_max[2] = 0.1;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 500, 0.5, NULL, NULL), PF_OK);
    const uint32_t corner[1] = {0};
    if (three_dirs) {
        static const double d[3][3] = {{1, 1, 0}, {0, 1, 0}, {0.3, 0.2, 1}};
        for (int k = 0; k < 3; k++)
            ck_assert_int_eq(pf_world_fix_directions(w, id, corner, 1, d[k]), PF_OK);
    } else {
        ck_assert_int_eq(pf_world_fix_points(w, id, corner, 1), PF_OK);
    }
    /* and one edge's far end slides on a plane */
    ck_assert_int_eq(pf_world_fix_directions(w, id, (const uint32_t[1]){3}, 1, (const double[3]){0, 0, 1}),
                     PF_OK);
    ck_assert_int_eq(pf_world_step(w, 40), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(three_directions_fix_and_executors_agree)
{
    uint64_t ref = hanging_hash(0, PF_EXEC_SEQ, 1);
    ck_assert(hanging_hash(1, PF_EXEC_SEQ, 1) == ref);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++)
            ck_assert_msg(hanging_hash(0, (pf_executor)e, workers) == ref, "executor %d, %d workers", e,
                          workers);
}
END_TEST

/* a hexahedral FEM beam clamped at x = 0, its tip held vertically (a roller): static steps by the direct
 * solver and by CG agree; the tip does not move vertically */
static double propped_beam(pf_linear_solver ls, double *tip_z)
{
    static const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, g);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 9, o.grid[1] = o.grid[2] = 3;
    o.grid_max[0] = 0.4, o.grid_max[1] = o.grid_max[2] = 0.05;
    o.total_mass = 1;
    o.solver.kind = PF_SOLVER_STATIC, o.solver.linear_solver = ls;
    o.solver.cg_iterations = 3000, o.solver.cg_tolerance = 1e-14;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    pf_hexa_fem_def f = pf_hexa_fem_default_def();
    f.young_modulus = 1e5, f.method = PF_FEM_LINEAR;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &f, NULL), PF_OK);
    double clamp[6] = {-0.01, -1, -1, 0.01, 1, 1}, tip[6] = {0.39, -1, -1, 0.41, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, clamp, NULL), PF_OK);
    uint32_t held[9], nheld = 0;
    ck_assert_int_eq(pf_world_box_select(w, id, tip, held, 9, &nheld), PF_OK);
    ck_assert_int_eq(pf_world_fix_directions(w, id, held, nheld, (const double[3]){0, 0, 1}), PF_OK);
    ck_assert_msg(pf_world_step(w, 1) == PF_OK, "%s", pf_last_error());
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    *tip_z = x[3 * 8 + 2];
    double mid = x[3 * 4 + 2]; /* the middle of the bottom edge sags */
    pf_world_destroy(w);
    return mid;
}

START_TEST(direct_equals_cg_on_a_propped_beam)
{
    double tip_d, tip_c, mid_d = propped_beam(PF_LINEAR_DIRECT, &tip_d),
                         mid_c = propped_beam(PF_LINEAR_CG, &tip_c);
    ck_assert_double_eq(tip_d, 0);
    ck_assert_double_eq(tip_c, 0);
    ck_assert_msg(mid_d < -1e-4, "the middle should sag: %g", mid_d);
    ck_assert_msg(fabs(mid_d / mid_c - 1) < 1e-8, "direct %.15g, CG %.15g", mid_d, mid_c);
}
END_TEST

START_TEST(refusals)
{
    static const double g[3] = {0, 0, 0};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, g);
    pf_object_def o = pf_object_default_def();
    o.points = 2;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    const uint32_t p0[1] = {0}, p9[1] = {9};
    ck_assert_int_eq(pf_world_fix_directions(w, id, p0, 1, (const double[3]){0, 0, 0}), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "no direction"), "%s", pf_last_error());
    ck_assert_int_eq(pf_world_fix_directions(w, id, p0, 1, (const double[3]){0, NAN, 1}), PF_EINVAL);
    ck_assert_int_eq(pf_world_fix_directions(w, id, p0, 1, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_fix_directions(w, id, p9, 1, (const double[3]){0, 0, 1}), PF_EINVAL);
    ck_assert_int_eq(pf_world_fix_directions(NULL, id, p0, 1, (const double[3]){0, 0, 1}), PF_EINVAL);
    pf_rigid_def rd = pf_rigid_default_def();
    pf_object_id r;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_OK);
    /* a rigid body has points 0 (its com) and 1 (its rotation, tests/test_rigid_axes.c) */
    ck_assert_int_eq(pf_world_fix_directions(w, r, (const uint32_t[1]){2}, 1, (const double[3]){0, 0, 1}), PF_EINVAL);
    ck_assert_int_eq(pf_world_fix_directions(w, r, p0, 1, (const double[3]){0, 0, 1}), PF_OK);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_directions");
    TCase *tc = tcase_create("directions");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, plane_and_line_closed_form);
    tcase_add_test(tc, three_directions_fix_and_executors_agree);
    tcase_add_test(tc, direct_equals_cg_on_a_propped_beam);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}
