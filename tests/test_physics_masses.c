/* Per-point masses (pf_object_def.point_masses, SOFA DiagonalMass) against closed forms: two unequal masses joined
 * by a spring keep their momentum and their centre of mass moves as a free particle (explicit and implicit Euler);
 * under gravity alone every point falls alike whatever its mass; the spring's period is 2 pi / sqrt(k (1/m1 +
 * 1/m2)); Rayleigh mass damping slows every point alike; a uniform array is bit for bit the same object as
 * vertex_mass; the same state for seq and static at 1, 2 and 3 workers. */
#include "check_main.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static pf_world *make_world(double dt, const double g[3], pf_executor e, int workers)
{
    pf_world_def d = pf_world_default_def();
    d.dt = dt;
    memcpy(d.gravity, g, sizeof d.gravity);
    d.runtime.workers = workers;
    d.runtime.executor = e;
    d.runtime.quiet = 1;
    d.runtime.bind = 0; /* meson may run other suites' processes beside this one */
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_OK);
    return w;
}

static const double no_gravity[3] = {0, 0, 0};

static pf_solver_def solver(pf_solver_kind kind)
{
    pf_solver_def s = pf_solver_default_def();
    s.kind = kind;
    s.cg_iterations = 100;
    s.cg_tolerance = 1e-15;
    return s;
}

/* Two points of masses m[0], m[1] joined by one spring (stiffness k, damping c, rest length 1), moving. */
static pf_object_id add_pair(pf_world *w, const double m[2], double k, double c, pf_solver_kind kind)
{
    double x[6] = {0, 0, 0, 1.2, 0.3, -0.1}, v[6] = {1, 0.5, 0, -0.2, 0, 0.3};
    pf_object_def od = pf_object_default_def();
    od.points = 2;
    od.positions = x;
    od.velocities = v;
    od.point_masses = m;
    od.solver = solver(kind);
    pf_object_id o;
    ck_assert_msg(pf_world_add_object(w, &od, &o) == PF_OK, "%s", pf_last_error());
    pf_spring s = {0, 1, k, c, 1.0};
    ck_assert_int_eq(pf_world_add_springs(w, o, &s, 1, NULL), PF_OK);
    return o;
}

static void momentum_and_com(const double *x, const double *v, const double m[2], double p[3], double com[3])
{
    for (int d = 0; d < 3; d++) {
        p[d] = m[0] * v[d] + m[1] * v[3 + d];
        com[d] = (m[0] * x[d] + m[1] * x[3 + d]) / (m[0] + m[1]);
    }
}

START_TEST(test_momentum_and_centre_of_mass)
{
    static const double m[2] = {0.7, 3.1};
    const double h = 0.01;
    for (int kind = 0; kind < 2; kind++) {
        pf_world *w = make_world(h, no_gravity, PF_EXEC_SEQ, 1);
        pf_object_id o = add_pair(w, m, 200, 0.5, (pf_solver_kind)kind);
        double p0[3], c0[3], p[3], c[3];
        momentum_and_com(pf_world_positions(w, o, NULL), pf_world_velocities(w, o, NULL), m, p0, c0);
        double scale = fabs(p0[0]) + fabs(p0[1]) + fabs(p0[2]);
        for (int step = 1; step <= 200; step++) {
            ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
            momentum_and_com(pf_world_positions(w, o, NULL), pf_world_velocities(w, o, NULL), m, p, c);
            for (int d = 0; d < 3; d++) {
                ck_assert_msg(fabs(p[d] - p0[d]) <= 1e-12 * scale, "%s, step %d: momentum[%d] %.17g, was %.17g",
                              kind ? "explicit" : "implicit", step, d, p[d], p0[d]);
                /* both schemes move x by h v after v: the centre of mass by h P / M every step */
                double want = c0[d] + step * h * p0[d] / (m[0] + m[1]);
                ck_assert_msg(fabs(c[d] - want) <= 1e-12 * (1 + fabs(want)), "%s, step %d: com[%d] %.17g, free "
                              "particle %.17g", kind ? "explicit" : "implicit", step, d, c[d], want);
            }
        }
        /* the spring did act: the points' own velocities changed */
        const double *v = pf_world_velocities(w, o, NULL);
        ck_assert_double_gt(fabs(v[0] - 1), 1e-2);
        pf_world_destroy(w);
    }
}
END_TEST

START_TEST(test_gravity_falls_alike)
{
    static const double m[3] = {1e-3, 1, 1e3};
    const double g[3] = {0.5, -1, -9.81}, h = 0.01;
    const int steps = 100;
    for (int kind = 0; kind < 2; kind++) {
        pf_world *w = make_world(h, g, PF_EXEC_SEQ, 1);
        double x0[9] = {0, 0, 10, 1, 0, 10, 2, 0, 10};
        pf_object_def od = pf_object_default_def();
        od.points = 3;
        od.positions = x0;
        od.point_masses = m;
        od.solver = solver((pf_solver_kind)kind);
        pf_object_id o;
        ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
        ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
        const double *x = pf_world_positions(w, o, NULL), *v = pf_world_velocities(w, o, NULL);
        /* both schemes: v_n = n h g, x_n = x_0 + h^2 g n (n + 1) / 2 */
        double dn = h * h * steps * (steps + 1) / 2.0;
        for (int i = 0; i < 3; i++)
            for (int d = 0; d < 3; d++) {
                double want_x = x0[3 * i + d] + g[d] * dn, want_v = steps * h * g[d];
                ck_assert_msg(fabs(x[3 * i + d] - want_x) <= 1e-12 * (fabs(want_x) + 1) &&
                                  fabs(v[3 * i + d] - want_v) <= 1e-12 * fabs(g[d]),
                              "%s, point %d (%g kg), axis %d: x %.17g v %.17g, closed form %.17g %.17g",
                              kind ? "explicit" : "implicit", i, m[i], d, x[3 * i + d], v[3 * i + d], want_x, want_v);
            }
        pf_world_destroy(w);
    }
}
END_TEST

/* The spring's elongation l - l0 at rest centre; upward zero crossings, linearly interpolated. */
START_TEST(test_two_mass_period)
{
    static const double m[2] = {1, 4};
    const double k = 100, h = 2e-4;
    const double want = 2 * M_PI / sqrt(k * (1 / m[0] + 1 / m[1]));
    pf_world *w = make_world(h, no_gravity, PF_EXEC_SEQ, 1);
    double x0[6] = {0, 0, 0, 1.1, 0, 0};
    pf_object_def od = pf_object_default_def();
    od.points = 2;
    od.positions = x0;
    od.point_masses = m;
    od.solver = solver(PF_SOLVER_EXPLICIT_EULER);
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
    pf_spring s = {0, 1, k, 0, 1.0};
    ck_assert_int_eq(pf_world_add_springs(w, o, &s, 1, NULL), PF_OK);
    double first = -1, last = -1, prev = 0.1;
    int crossings = 0;
    for (int step = 1; crossings < 6 && step < 100000; step++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        const double *x = pf_world_positions(w, o, NULL);
        double e = x[3] - x[0] - 1;
        if (prev < 0 && e >= 0) {
            double t = h * (step - 1 + prev / (prev - e));
            if (crossings == 0) first = t;
            last = t;
            crossings++;
        }
        prev = e;
    }
    ck_assert_int_eq(crossings, 6);
    double period = (last - first) / 5;
    ck_assert_msg(fabs(period - want) <= 1e-4 * want, "period %.9g s, 2 pi / sqrt(k (1/m1 + 1/m2)) = %.9g s", period,
                  want);
    pf_world_destroy(w);
}
END_TEST

/* Implicit Euler with Rayleigh mass damping rM, no force: M (1 + h rM) dv = -h rM M v, so v /= 1 + h rM each step
 * for every point, whatever its mass. */
START_TEST(test_rayleigh_mass_damping)
{
    static const double m[3] = {0.01, 1, 50};
    const double h = 0.01, rm = 3;
    pf_world *w = make_world(h, no_gravity, PF_EXEC_SEQ, 1);
    double v0[9] = {1, 2, 3, -1, 0.5, 0, 0, 0, 2};
    pf_object_def od = pf_object_default_def();
    od.points = 3;
    od.velocities = v0;
    od.point_masses = m;
    od.solver = solver(PF_SOLVER_IMPLICIT_EULER);
    od.solver.rayleigh_mass = rm;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 50), PF_OK);
    const double *v = pf_world_velocities(w, o, NULL);
    double f = pow(1 + h * rm, -50);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(fabs(v[i] - v0[i] * f) <= 1e-12 * fabs(v0[i]) + 1e-300, "v[%d] %.17g, want %.17g", i, v[i],
                      v0[i] * f);
    pf_world_destroy(w);
}
END_TEST

/* A 4 x 3 x 2 grid with grid springs under gravity, its corner fixed; masses uniform (vertex_mass) or given. */
static pf_object_id add_grid(pf_world *w, const double *masses, double vertex_mass, pf_solver_kind kind)
{
    pf_object_def od = pf_object_default_def();
    od.grid[0] = 4, od.grid[1] = 3, od.grid[2] = 2;
    od.grid_max[0] = 0.3, od.grid_max[1] = 0.2, od.grid_max[2] = 0.1;
    od.vertex_mass = vertex_mass;
    od.point_masses = masses;
    od.solver = solver(kind);
    od.solver.rayleigh_mass = 0.1;
    od.solver.rayleigh_stiffness = 0.01;
    pf_object_id o;
    ck_assert_msg(pf_world_add_object(w, &od, &o) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(pf_world_add_grid_springs(w, o, 500, 0.2, NULL, NULL), PF_OK);
    uint32_t fixed = 0;
    ck_assert_int_eq(pf_world_fix_points(w, o, &fixed, 1), PF_OK);
    return o;
}

START_TEST(test_uniform_array_is_vertex_mass)
{
    static const double g[3] = {0, 0, -9.81};
    double same[24];
    for (int i = 0; i < 24; i++) same[i] = 0.037;
    for (int kind = 0; kind < 2; kind++) {
        double dt = kind == PF_SOLVER_EXPLICIT_EULER ? 0.002 : 0.01;
        pf_world *a = make_world(dt, g, PF_EXEC_SEQ, 1), *b = make_world(dt, g, PF_EXEC_SEQ, 1);
        pf_object_id oa = add_grid(a, NULL, 0.037, (pf_solver_kind)kind);
        pf_object_id ob = add_grid(b, same, 5.0 /* ignored */, (pf_solver_kind)kind);
        ck_assert_msg(pf_world_step(a, 40) == PF_OK, "%s", pf_last_error());
        ck_assert_int_eq(pf_world_step(b, 40), PF_OK);
        ck_assert_msg(pf_world_state_hash(a) == pf_world_state_hash(b), "%s: uniform point_masses differ from "
                      "vertex_mass", kind ? "explicit" : "implicit");
        double pa, ta, pb, tb;
        ck_assert_int_eq(pf_world_get_object_mass(a, oa, &pa, &ta), PF_OK);
        ck_assert_int_eq(pf_world_get_object_mass(b, ob, &pb, &tb), PF_OK);
        ck_assert(pa == pb && ta == tb);
        pf_world_destroy(a);
        pf_world_destroy(b);
    }
}
END_TEST

START_TEST(test_get_point_masses)
{
    double m[24], sum = 0;
    for (int i = 0; i < 24; i++) sum += (m[i] = 0.01 * (1 + i % 5));
    pf_world *w = make_world(0.01, no_gravity, PF_EXEC_SEQ, 1);
    pf_object_id o = add_grid(w, m, 1, PF_SOLVER_IMPLICIT_EULER), u = add_grid(w, NULL, 0.5, PF_SOLVER_IMPLICIT_EULER);
    uint32_t n = 0;
    ck_assert_int_eq(pf_world_get_point_masses(w, o, NULL, 0, &n), PF_OK);
    ck_assert_uint_eq(n, 24);
    double got[30];
    for (int i = 0; i < 30; i++) got[i] = -1;
    ck_assert_int_eq(pf_world_get_point_masses(w, o, got, 10, &n), PF_OK); /* fewer than the points */
    ck_assert_uint_eq(n, 24);
    ck_assert(got[9] == m[9] && got[10] == -1);
    ck_assert_int_eq(pf_world_get_point_masses(w, o, got, 30, &n), PF_OK);
    for (int i = 0; i < 24; i++) ck_assert(got[i] == m[i]);
    ck_assert(got[24] == -1);
    double pm, tm;
    ck_assert_int_eq(pf_world_get_object_mass(w, o, &pm, &tm), PF_OK);
    ck_assert(tm == sum); /* summed in point order, as here */
    ck_assert_double_eq_tol(pm, sum / 24, 1e-15);
    ck_assert_int_eq(pf_world_get_point_masses(w, u, got, 30, &n), PF_OK);
    for (int i = 0; i < 24; i++) ck_assert(got[i] == 0.5);
    pf_world_destroy(w);
}
END_TEST

/* Two grids of unequal masses joined by interaction springs: one state hash for seq and static at 1, 2, 3 workers. */
static uint64_t linked_grids_hash(pf_executor e, int workers, pf_solver_kind kind)
{
    static const double g[3] = {0, -2, -9.81};
    pf_world *w = make_world(kind == PF_SOLVER_EXPLICIT_EULER ? 0.002 : 0.01, g, e, workers);
    double m[24];
    for (int i = 0; i < 24; i++) m[i] = 0.02 + 0.013 * (i % 7);
    pf_object_id a = add_grid(w, m, 1, kind), b = add_grid(w, m + 0, 1, kind), c = add_grid(w, NULL, 0.05, kind);
    pf_spring s[2] = {{3, 0, 300, 0.1, 0.05}, {23, 12, 300, 0.1, 0.05}};
    ck_assert_int_eq(pf_world_add_interaction_springs(w, a, b, s, 2, NULL), PF_OK);
    (void)c;
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_executors_and_workers)
{
    for (int kind = 0; kind < 2; kind++) {
        uint64_t h = linked_grids_hash(PF_EXEC_SEQ, 1, (pf_solver_kind)kind);
        for (int workers = 1; workers <= 3; workers++)
            ck_assert_msg(linked_grids_hash(PF_EXEC_STATIC, workers, (pf_solver_kind)kind) == h,
                          "%s: static at %d workers differs from seq", kind ? "explicit" : "implicit", workers);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_masses");
    TCase *tc = tcase_create("masses");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_momentum_and_centre_of_mass);
    tcase_add_test(tc, test_gravity_falls_alike);
    tcase_add_test(tc, test_two_mass_period);
    tcase_add_test(tc, test_rayleigh_mass_damping);
    tcase_add_test(tc, test_uniform_array_is_vertex_mass);
    tcase_add_test(tc, test_get_point_masses);
    tcase_add_test(tc, test_executors_and_workers);
    suite_add_tcase(s, tc);
    return s;
}
