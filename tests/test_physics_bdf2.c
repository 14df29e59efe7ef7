/* BDF2 (PF_SOLVER_BDF2, SOFA BDFOdeSolver order="2"): a point on a linear spring (a harmonic oscillator, with and
 * without Rayleigh damping) against the BDF2 recurrence computed here step by step from its definition (backward
 * Euler first, then x' = 4/3 x - 1/3 x_prev + 2/3 h v', v' = 4/3 v - 1/3 v_prev + 2/3 h f(x', v') / m solved in
 * closed form), second-order convergence against the exact solution, the state hash of every executor and worker
 * count, a checkpoint restored mid-run repeating the run bit for bit, and the refusals. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pf_world *make_world(pf_executor e, int workers, double dt, double gz)
{
    return new_world_dg(e, workers, dt, (const double[3]){0, 0, gz});
}

/* A point of mass m on a spring (stiffness k, rest length 1) to a fixed point at the origin, along x, released at
 * x = 1 + a at rest: about x = 1, y'' = -(k/m) y - rm y' - rk (k/m) y' (Rayleigh damping). Along x the spring is
 * linear, so the step's linearisation is exact and only the formula's error is left. */
static pf_world *oscillator(double h, double k, double m, double a, double rm, double rk)
{
    pf_world *w = make_world(PF_EXEC_SEQ, 1, h, 0);
    pf_object_def o = pf_object_default_def();
    o.points = 2;
    o.positions = (const double[6]){0, 0, 0, 1 + a, 0, 0};
    o.vertex_mass = m;
    o.solver.kind = PF_SOLVER_BDF2;
    o.solver.rayleigh_mass = rm;
    o.solver.rayleigh_stiffness = rk;
    o.solver.cg_tolerance = 1e-15;
    o.solver.cg_threshold = 0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, (const uint32_t[1]){0}, 1), PF_OK);
    ck_assert_int_eq(pf_world_add_springs(w, id, &(pf_spring){0, 1, k, 0, 1.0}, 1, NULL), PF_OK);
    return w;
}

static void point_state(pf_world *w, double *y, double *v)
{
    uint32_t n;
    *y = pf_world_positions(w, (pf_object_id){0}, &n)[3] - 1;
    *v = pf_world_velocities(w, (pf_object_id){0}, &n)[3];
}

/* One step of the scalar recurrence y' = yh + beta v', v' = vh + beta (-w2 y' - c v') with c = rm + rk w2: from
 * (yh, vh) and beta, v' (1 + beta c + beta^2 w2) = vh - beta w2 yh. */
static void implicit_step(double yh, double vh, double beta, double w2, double c, double *y, double *v)
{
    *v = (vh - beta * w2 * yh) / (1 + beta * c + beta * beta * w2);
    *y = yh + beta * *v;
}

/* The BDF2 solution of the damped oscillator after each of `steps` steps, into y[], v[] (index 0: the start). */
static void recurrence(double h, double w2, double c, double a, int steps, double *y, double *v)
{
    y[0] = a, v[0] = 0;
    implicit_step(y[0], v[0], h, w2, c, &y[1], &v[1]); /* backward Euler */
    for (int n = 1; n < steps; n++)
        implicit_step(4.0 / 3 * y[n] - 1.0 / 3 * y[n - 1], 4.0 / 3 * v[n] - 1.0 / 3 * v[n - 1], 2.0 / 3 * h, w2, c,
                      &y[n + 1], &v[n + 1]);
}

static void against_recurrence(double rm, double rk)
{
    const double k = 9, m = 0.5, a = 0.2, h = 0.01, w2 = k / m;
    enum { N = 300 };
    double y[N + 1], v[N + 1];
    recurrence(h, w2, rm + rk * w2, a, N, y, v);
    pf_world *w = oscillator(h, k, m, a, rm, rk);
    double scale = a * (1 + sqrt(w2));
    for (int n = 1; n <= N; n++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        double yy, vv;
        point_state(w, &yy, &vv);
        ck_assert_msg(fabs(yy - y[n]) < 1e-12 * scale && fabs(vv - v[n]) < 1e-12 * scale,
                      "step %d: (%.17g, %.17g), recurrence (%.17g, %.17g)", n, yy, vv, y[n], v[n]);
    }
    /* not backward Euler all along: its solution is far from BDF2's by now */
    double yb = a, vb = 0;
    for (int n = 0; n < N; n++) implicit_step(yb, vb, h, w2, rm + rk * w2, &yb, &vb);
    ck_assert_msg(fabs(yb - y[N]) > 1e-3, "backward Euler %g, BDF2 %g", yb, y[N]);
    pf_world_destroy(w);
}

START_TEST(test_oscillator_recurrence)
{
    against_recurrence(0, 0);
}
END_TEST

START_TEST(test_damped_oscillator_recurrence)
{
    against_recurrence(0.3, 0.02);
}
END_TEST

/* the error at t = 2 s against the exact solution a cos(w t) */
static double error_at(double h)
{
    const double k = 9, m = 1, a = 0.2, om = 3;
    pf_world *w = oscillator(h, k, m, a, 0, 0);
    uint32_t steps = (uint32_t)lround(2.0 / h);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    double y, v, t = h * steps;
    point_state(w, &y, &v);
    pf_world_destroy(w);
    return hypot(y - a * cos(om * t), (v + a * om * sin(om * t)) / om);
}

/* second order: halving h divides the global error by about 4 (backward Euler's would halve) */
START_TEST(test_second_order)
{
    double e1 = error_at(0.01), e2 = error_at(0.005), e3 = error_at(0.0025);
    ck_assert_msg(e1 / e2 > 3.6 && e1 / e2 < 4.4 && e2 / e3 > 3.8 && e2 / e3 < 4.2, "errors %g %g %g (ratios %g %g)",
                  e1, e2, e3, e1 / e2, e2 / e3);
}
END_TEST

/* a cloth of grid springs hanging from two corners, with per-point masses, under gravity */
static pf_world *cloth(pf_executor e, int workers)
{
    pf_world *w = make_world(e, workers, 0.01, -9.81);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 9, o.grid[1] = 9, o.grid[2] = 1;
    o.grid_max[0] = 1, o.grid_max[1] = 1;
    o.vertex_mass = 0.01;
    o.solver.kind = PF_SOLVER_BDF2;
    o.solver.rayleigh_mass = 0.1;
    o.solver.rayleigh_stiffness = 0.01;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, (const uint32_t[2]){0, 8}, 2), PF_OK);
    uint32_t count = 0;
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 200, 0.5, &count, NULL), PF_OK);
    ck_assert_uint_gt(count, 0);
    return w;
}

START_TEST(test_every_executor)
{
    pf_world *w = cloth(PF_EXEC_SEQ, 1);
    ck_assert_int_eq(pf_world_step(w, 40), PF_OK);
    uint64_t ref = pf_world_state_hash(w);
    pf_world_destroy(w);
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++) {
            w = cloth((pf_executor)e, workers);
            ck_assert_int_eq(pf_world_step(w, 40), PF_OK);
            uint64_t h = pf_world_state_hash(w);
            ck_assert_msg(h == ref, "%s with %d workers: %016llx, seq %016llx", pf_executor_name((pf_executor)e),
                          workers, (unsigned long long)h, (unsigned long long)ref);
            pf_world_destroy(w);
        }
}
END_TEST

/* Saved after 15 steps, restored into a world built the same way (fresh, and one that ran 7 steps of its own): 25
 * more steps give the uninterrupted run's state bit for bit. Restoring only x and v would not: the history enters
 * every step. */
START_TEST(test_checkpoint_restores_the_history)
{
    char path[] = "/tmp/pf_bdf2_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    pf_world *a = cloth(PF_EXEC_SEQ, 1);
    ck_assert_int_eq(pf_world_step(a, 15), PF_OK);
    ck_assert_int_eq(pf_world_save_state(a, path, "bdf2"), PF_OK);
    ck_assert_int_eq(pf_world_step(a, 25), PF_OK);
    uint64_t want = pf_world_state_hash(a);
    for (int before = 0; before <= 7; before += 7) {
        pf_world *b = cloth(PF_EXEC_STATIC, 2);
        ck_assert_int_eq(pf_world_step(b, (uint32_t)before), PF_OK);
        ck_assert_int_eq(pf_world_load_state(b, path, NULL, 0), PF_OK);
        ck_assert_int_eq(pf_world_step(b, 25), PF_OK);
        ck_assert_msg(pf_world_state_hash(b) == want, "restored after %d steps of its own", before);
        pf_world_destroy(b);
    }
    /* the run that saved, restored to its own checkpoint, repeats itself too */
    ck_assert_int_eq(pf_world_load_state(a, path, NULL, 0), PF_OK);
    ck_assert_int_eq(pf_world_step(a, 25), PF_OK);
    ck_assert(pf_world_state_hash(a) == want);
    pf_world_destroy(a);
    unlink(path);
}
END_TEST

/* BDF2 steps objects alone: an interaction in its group and a rigid body refused with a message */
START_TEST(test_refusals)
{
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0.01, -9.81);
    pf_object_def o = pf_object_default_def();
    o.points = 1;
    o.solver.kind = PF_SOLVER_BDF2;
    pf_object_id a, b;
    ck_assert_int_eq(pf_world_add_object(w, &o, &a), PF_OK);
    o.positions = (const double[3]){1, 0, 0};
    ck_assert_int_eq(pf_world_add_object(w, &o, &b), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
    ck_assert_int_eq(pf_world_add_interaction_springs(w, a, b, &(pf_spring){0, 0, 10, 0, -1}, 1, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "BDF2") && strstr(pf_last_error(), "interaction"), "%s", pf_last_error());
    pf_world_destroy(w);

    w = make_world(PF_EXEC_SEQ, 1, 0.01, -9.81);
    pf_rigid_def r = pf_rigid_default_def();
    r.solver.kind = PF_SOLVER_BDF2;
    ck_assert_int_eq(pf_world_add_rigid(w, &r, NULL), PF_EINVAL);
    o.solver.kind = (pf_solver_kind)6;
    ck_assert_int_eq(pf_world_add_object(w, &o, NULL), PF_EINVAL);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_bdf2");
    TCase *t = tcase_create("bdf2");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_oscillator_recurrence);
    tcase_add_test(t, test_damped_oscillator_recurrence);
    tcase_add_test(t, test_second_order);
    tcase_add_test(t, test_every_executor);
    tcase_add_test(t, test_checkpoint_restores_the_history);
    tcase_add_test(t, test_refusals);
    suite_add_tcase(s, t);
    return s;
}
