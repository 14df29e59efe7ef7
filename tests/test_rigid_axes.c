/* A rigid body's rotation held about some world axes (pf_world_fix_directions on its point 1, SOFA
 * FixedRotationProjectiveConstraint with one or two axes): a sphere spun about a tilted axis with x held turns
 * about y alone (the closed-form rotation), an asymmetric tilted box keeps its twist about x (SOFA's swing-twist
 * split, computed here) and omega_x = 0, a box under a torque with y and z held turns about x at the closed-form
 * rate of PhysFlow's Euler steps, all three axes equal a fixed point 1 bit for bit, a held com direction, and the
 * state hash of every executor and worker count. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static pf_world *make_world(double dt, pf_executor e, int workers)
{
    return new_world_dg(e, workers, dt, (const double[3]){0, 0, 0});
}

static pf_object_id add_body(pf_world *w, pf_rigid_shape shape, pf_solver_kind kind, const double q[4],
                             const double omega[3])
{
    pf_rigid_def r = pf_rigid_default_def();
    r.mass = 2;
    r.shape = shape;
    r.radius = 0.3;
    r.half_extents[0] = 0.1, r.half_extents[1] = 0.2, r.half_extents[2] = 0.3;
    if (q) memcpy(r.orientation, q, sizeof r.orientation);
    if (omega) memcpy(r.angular_velocity, omega, sizeof r.angular_velocity);
    r.solver.kind = kind;
    r.solver.cg_tolerance = 1e-14;
    r.solver.cg_threshold = 1e-30;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_rigid(w, &r, &o), PF_OK);
    return o;
}

static void hold(pf_world *w, pf_object_id o, uint32_t point, double dx, double dy, double dz)
{
    const double d[3] = {dx, dy, dz};
    ck_assert_int_eq(pf_world_fix_directions(w, o, &point, 1, d), PF_OK);
}

static void push(pf_world *w, pf_object_id o, uint32_t point, double fx, double fy, double fz)
{
    pf_constant_force_def d = pf_constant_force_default_def();
    d.points = &point;
    d.npoints = 1;
    d.force[0] = fx, d.force[1] = fy, d.force[2] = fz;
    ck_assert_int_eq(pf_world_add_constant_force(w, o, &d, NULL), PF_OK);
}

/* the twist of quaternion q (x, y, z, w) about the x axis, as a unit (w, x) pair with w >= 0 (q and -q are one
 * rotation) */
static void twist_x(const double q[4], double t[2])
{
    double n = sqrt(q[3] * q[3] + q[0] * q[0]), s = q[3] < 0 ? -1 : 1;
    t[0] = s * q[3] / n, t[1] = s * q[0] / n;
}

/* A sphere (isotropic) spun at omega (1, 2, 0) rad/s with x held turns about y alone: omega (0, 2, 0), and after N
 * steps of h the rotation by 2 N h about y, q = (0, sin(N h), 0, cos(N h)). */
static void sphere_about_y(pf_solver_kind kind)
{
    const double h = 0.01, om0[3] = {1, 2, 0};
    const int N = 100;
    pf_world *w = make_world(h, PF_EXEC_SEQ, 1);
    pf_object_id o = add_body(w, PF_RIGID_SPHERE, kind, NULL, om0);
    hold(w, o, 1, 1, 0, 0);
    double q[4], om[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, o, NULL, NULL, NULL, om), PF_OK);
    ck_assert(om[0] == 0 && om[1] == 2 && om[2] == 0); /* held from the call on */
    ck_assert_int_eq(pf_world_step(w, N), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, o, NULL, q, NULL, om), PF_OK);
    ck_assert(om[0] == 0);
    ck_assert_double_eq_tol(om[1], 2, 1e-12);
    ck_assert_double_eq_tol(om[2], 0, 1e-12);
    const double want[4] = {0, sin(N * h), 0, cos(N * h)};
    for (int a = 0; a < 4; a++)
        ck_assert_msg(fabs(q[a] - want[a]) < 1e-9, "kind %d: q[%d] = %.17g, want %.17g", (int)kind, a, q[a], want[a]);
    pf_world_destroy(w);
}

START_TEST(test_sphere_x_held_explicit)
{
    sphere_about_y(PF_SOLVER_EXPLICIT_EULER);
}
END_TEST

START_TEST(test_sphere_x_held_implicit)
{
    sphere_about_y(PF_SOLVER_IMPLICIT_EULER);
}
END_TEST

/* An asymmetric box, tilted, tumbling about a tilted axis with x held: at every step omega_x = 0 and the twist of
 * the orientation about x is the start's (SOFA's projectPosition), while the body turns (its orientation moves
 * away from the start) */
static void tilted_box(pf_solver_kind kind)
{
    const double c = cos(0.35), s = sin(0.35), n = sqrt(14.0);
    const double q0[4] = {s * 1 / n, s * 2 / n, s * 3 / n, c}, om0[3] = {0.7, -1.1, 0.9};
    pf_world *w = make_world(0.01, PF_EXEC_SEQ, 1);
    pf_object_id o = add_body(w, PF_RIGID_BOX, kind, q0, om0);
    hold(w, o, 1, 1, 0, 0);
    double t0[2], t[2], q[4], om[3], moved = 0;
    twist_x(q0, t0);
    for (int k = 0; k < 300; k++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        ck_assert_int_eq(pf_world_get_rigid_state(w, o, NULL, q, NULL, om), PF_OK);
        ck_assert_msg(om[0] == 0, "step %d: omega_x = %g", k, om[0]);
        twist_x(q, t);
        ck_assert_msg(fabs(t[0] - t0[0]) < 1e-12 && fabs(t[1] - t0[1]) < 1e-12,
                      "step %d: twist about x (%.17g, %.17g), start (%.17g, %.17g)", k, t[0], t[1], t0[0], t0[1]);
        double d = fabs(q[0] * q0[0] + q[1] * q0[1] + q[2] * q0[2] + q[3] * q0[3]);
        moved = fmax(moved, 1 - d);
        ck_assert_double_eq_tol(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1, 1e-14);
    }
    ck_assert_msg(moved > 0.1, "the body hardly turned (%g)", moved);
    pf_world_destroy(w);
}

START_TEST(test_tilted_box_x_held_explicit)
{
    tilted_box(PF_SOLVER_EXPLICIT_EULER);
}
END_TEST

START_TEST(test_tilted_box_x_held_implicit)
{
    tilted_box(PF_SOLVER_IMPLICIT_EULER);
}
END_TEST

/* A box under the torque (0.5, -0.2, 0.3) N m with y and z held, from rest: it turns about x alone, omega_x =
 * N h tau_x / I_x after N steps and the angle h^2 tau_x / I_x N (N + 1) / 2 (PhysFlow's symplectic and implicit Euler
 * alike), omega_y = omega_z = 0 */
START_TEST(test_torque_yz_held)
{
    static const pf_solver_kind kinds[] = {PF_SOLVER_EXPLICIT_EULER, PF_SOLVER_IMPLICIT_EULER};
    const double h = 0.01, tau = 0.5, Ix = 2 * (0.04 + 0.09) / 3;
    const int N = 50;
    for (int k = 0; k < 2; k++) {
        pf_world *w = make_world(h, PF_EXEC_SEQ, 1);
        pf_object_id o = add_body(w, PF_RIGID_BOX, kinds[k], NULL, NULL);
        push(w, o, 1, tau, -0.2, 0.3);
        hold(w, o, 1, 0, 1, 0);
        hold(w, o, 1, 0, 0, 1);
        ck_assert_int_eq(pf_world_step(w, N), PF_OK);
        double q[4], om[3];
        ck_assert_int_eq(pf_world_get_rigid_state(w, o, NULL, q, NULL, om), PF_OK);
        ck_assert_msg(fabs(om[0] - N * h * tau / Ix) < 1e-10, "solver %d: omega_x = %.17g, want %.17g", k, om[0],
                      N * h * tau / Ix);
        ck_assert(om[1] == 0 && om[2] == 0);
        double angle = h * h * tau / Ix * N * (N + 1) / 2;
        ck_assert_double_eq_tol(q[0], sin(angle / 2), 1e-9);
        ck_assert_double_eq_tol(q[1], 0, 1e-12);
        ck_assert_double_eq_tol(q[2], 0, 1e-12);
        ck_assert_double_eq_tol(q[3], cos(angle / 2), 1e-9);
        pf_world_destroy(w);
    }
}
END_TEST

/* x, y and z held one by one: the third makes point 1 a fixed point, the state of pf_world_fix_points bit for
 * bit (a tumbling box under a force and a torque, 30 steps, each solver) */
START_TEST(test_three_axes_fix_the_rotation)
{
    static const pf_solver_kind kinds[] = {PF_SOLVER_EXPLICIT_EULER, PF_SOLVER_IMPLICIT_EULER};
    const double om0[3] = {0.3, -0.4, 0.5};
    for (int k = 0; k < 2; k++) {
        uint64_t hash[2];
        for (int way = 0; way < 2; way++) {
            pf_world *w = make_world(0.01, PF_EXEC_SEQ, 1);
            pf_object_id o = add_body(w, PF_RIGID_BOX, kinds[k], NULL, om0);
            push(w, o, 0, 1, -2, 0.5);
            push(w, o, 1, 0.2, 0.1, -0.3);
            if (way == 0) {
                const uint32_t one = 1;
                ck_assert_int_eq(pf_world_fix_points(w, o, &one, 1), PF_OK);
            } else {
                hold(w, o, 1, 1, 0, 0);
                hold(w, o, 1, 0, 1, 0);
                hold(w, o, 1, 0, 0, 1);
            }
            ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
            hash[way] = pf_world_state_hash(w);
            pf_world_destroy(w);
        }
        ck_assert_msg(hash[0] == hash[1], "solver %d: %016llx vs %016llx", k, (unsigned long long)hash[0],
                      (unsigned long long)hash[1]);
    }
}
END_TEST

/* the com held along z (point 0): it falls no further under gravity, and moves freely in x */
START_TEST(test_com_direction_held)
{
    pf_world *w = make_world(0.01, PF_EXEC_SEQ, 1);
    pf_world_set_gravity(w, (const double[3]){1, 0, -9.81});
    pf_object_id o = add_body(w, PF_RIGID_BOX, PF_SOLVER_IMPLICIT_EULER, NULL, NULL);
    hold(w, o, 0, 0, 0, 1);
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    double x[3], v[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, o, x, NULL, v, NULL), PF_OK);
    ck_assert(v[2] == 0 && x[2] == 0);
    ck_assert_double_eq_tol(v[0], 20 * 0.01, 1e-12);
    pf_world_destroy(w);
}
END_TEST

/* bodies with held axes under loads: one state hash for every executor and worker count */
static uint64_t held_hash(pf_executor e, int workers)
{
    pf_world *w = make_world(0.01, e, workers);
    for (int b = 0; b < 4; b++) {
        const double q0[4] = {0.1 * b, 0.2, -0.3, 1}, om0[3] = {0.5, -0.2 * b, 0.8};
        pf_solver_kind kind = b % 2 ? PF_SOLVER_IMPLICIT_EULER : PF_SOLVER_EXPLICIT_EULER;
        pf_object_id o = add_body(w, PF_RIGID_BOX, kind, q0, om0);
        push(w, o, 1, 0.2, -0.1 * b, 0.05);
        hold(w, o, 1, b == 3, b != 3, 0);
        if (b >= 2) hold(w, o, 1, 0, 0.6, 0.8);
    }
    ck_assert_int_eq(pf_world_step(w, 40), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_held_axes_every_executor)
{
    uint64_t ref = held_hash(PF_EXEC_SEQ, 1);
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++) {
            uint64_t h = held_hash((pf_executor)e, workers);
            ck_assert_msg(h == ref, "%s with %d workers: %016llx, seq %016llx", pf_executor_name((pf_executor)e),
                          workers, (unsigned long long)h, (unsigned long long)ref);
        }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("rigid_axes");
    TCase *t = tcase_create("held_axes");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_sphere_x_held_explicit);
    tcase_add_test(t, test_sphere_x_held_implicit);
    tcase_add_test(t, test_tilted_box_x_held_explicit);
    tcase_add_test(t, test_tilted_box_x_held_implicit);
    tcase_add_test(t, test_torque_yz_held);
    tcase_add_test(t, test_three_axes_fix_the_rotation);
    tcase_add_test(t, test_com_direction_held);
    tcase_add_test(t, test_held_axes_every_executor);
    suite_add_tcase(s, t);
    return s;
}
