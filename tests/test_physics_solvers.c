/* The solvers beyond implicit and symplectic Euler: forward Euler (SOFA EulerExplicitSolver symplectic="0"),
 * classical Runge-Kutta 4 (RungeKutta4Solver) and the quasi-static Newton step (StaticSolver). Oracles: the
 * harmonic oscillator's closed forms (forward Euler's energy grows by exactly 1 + (h w)^2 a step; RK4's
 * global error falls as h^4; uniform acceleration is integrated exactly by RK4), the equilibrium of a hanging
 * spring chain in closed form, the vanishing residual force of a nonlinear (corotational FEM) beam, and the
 * sequential executor's state hash for every executor and worker count. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <string.h>

static pf_world *make_world(pf_executor e, int workers, double dt, const double g[3])
{
    return new_world_dg(e, workers, dt, g);
}

static const double no_gravity[3] = {0, 0, 0};

/* A point of mass m on a spring (stiffness k, rest length 1) to a fixed point at the origin, along x,
 * released at x = 1 + a at rest: a harmonic oscillator of angular frequency sqrt(k / m) about x = 1. */
static pf_world *oscillator(pf_solver_kind kind, double dt, double k, double m, double a)
{
    pf_world *w = make_world(PF_EXEC_SEQ, 1, dt, no_gravity);
    pf_object_def o = pf_object_default_def();
    o.points = 2;
    o.positions = (const double[6]){0, 0, 0, 1 + a, 0, 0};
    o.vertex_mass = m;
    o.solver.kind = kind;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, (const uint32_t[1]){0}, 1), PF_OK);
    ck_assert_int_eq(pf_world_add_springs(w, id, &(pf_spring){0, 1, k, 0, 1.0}, 1, NULL), PF_OK);
    return w;
}

static void point_state(pf_world *w, double *x, double *v)
{
    uint32_t n;
    *x = pf_world_positions(w, (pf_object_id){0}, &n)[3];
    *v = pf_world_velocities(w, (pf_object_id){0}, &n)[3];
}

/* Forward Euler on x'' = -w^2 x: (x, v) -> (x + h v, v - h w^2 x), whose energy w^2 x^2 + v^2 grows by
 * exactly 1 + (h w)^2 a step (symplectic Euler keeps a modified energy instead). */
START_TEST(forward_euler_energy_grows_as_closed_form)
{
    double k = 4, m = 1, a = 0.1, h = 0.01, w2 = k / m;
    pf_world *w = oscillator(PF_SOLVER_FORWARD_EULER, h, k, m, a);
    double x, v;
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    point_state(w, &x, &v);
    ck_assert_double_eq_tol(x - 1, a, 1e-15); /* x moves with the start's velocity, 0 */
    ck_assert_double_eq_tol(v, -h * w2 * a, 1e-15);
    int steps = 500;
    ck_assert_int_eq(pf_world_step(w, (uint32_t)steps - 1), PF_OK);
    point_state(w, &x, &v);
    double e = w2 * (x - 1) * (x - 1) + v * v, e0 = w2 * a * a;
    double expect = e0 * pow(1 + h * h * w2, steps);
    ck_assert_msg(fabs(e - expect) < 1e-9 * expect, "energy %.15g, closed form %.15g", e, expect);
    pf_world_destroy(w);

    /* the symplectic default's energy stays within O(h) of the start instead */
    w = oscillator(PF_SOLVER_EXPLICIT_EULER, h, k, m, a);
    ck_assert_int_eq(pf_world_step(w, (uint32_t)steps), PF_OK);
    point_state(w, &x, &v);
    ck_assert_double_lt(fabs(w2 * (x - 1) * (x - 1) + v * v - e0), 0.05 * e0);
    pf_world_destroy(w);
}
END_TEST

static double rk4_error(double h, double t_end)
{
    double k = 9, m = 1, a = 0.2, om = sqrt(k / m);
    pf_world *w = oscillator(PF_SOLVER_RUNGE_KUTTA4, h, k, m, a);
    uint32_t steps = (uint32_t)lround(t_end / h);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    double x, v;
    point_state(w, &x, &v);
    pf_world_destroy(w);
    double t = h * steps;
    return hypot(x - 1 - a * cos(om * t), (v + a * om * sin(om * t)) / om);
}

/* RK4 is 4th order: halving h divides the global error by about 16. */
START_TEST(rk4_is_fourth_order)
{
    double e1 = rk4_error(0.02, 2.0), e2 = rk4_error(0.01, 2.0), e3 = rk4_error(0.005, 2.0);
    ck_assert_msg(e1 < 1e-5, "error %g at h = 0.02", e1);
    ck_assert_msg(e1 / e2 > 13 && e1 / e2 < 19 && e2 / e3 > 13 && e2 / e3 < 19, "errors %g %g %g", e1, e2,
                  e3);
}
END_TEST

/* Uniform acceleration is a cubic-exact problem for RK4: free fall lands on x0 + v0 t + g t^2 / 2. */
START_TEST(rk4_free_fall_exact)
{
    const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0.01, g);
    pf_object_def o = pf_object_default_def();
    o.points = 1;
    o.positions = (const double[3]){0, 0, 10};
    o.velocities = (const double[3]){1, 0, 2};
    o.solver.kind = PF_SOLVER_RUNGE_KUTTA4;
    ck_assert_int_eq(pf_world_add_object(w, &o, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(w, (pf_object_id){0}, &n),
                 *v = pf_world_velocities(w, (pf_object_id){0}, &n);
    ck_assert_double_eq_tol(x[0], 1.0, 1e-12);
    ck_assert_double_eq_tol(x[2], 10 + 2 - 0.5 * 9.81, 1e-12);
    ck_assert_double_eq_tol(v[2], 2 - 9.81, 1e-12);
    pf_world_destroy(w);
}
END_TEST

/* A chain of 3 points of mass m hanging by springs (stiffness k, rest length 1) from a fixed point: spring j
 * carries the weight of the 4 - j points below it, so point i rests at z = -(i + sum_{j<=i} (4 - j) m g / k).
 * The system is linear along z: one static step reaches it. */
START_TEST(static_chain_reaches_equilibrium_in_one_step)
{
    const double g[3] = {0, 0, -9.81};
    double k = 100, m = 0.5;
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0.01, g);
    pf_object_def o = pf_object_default_def();
    o.points = 4;
    o.positions = (const double[12]){0, 0, 0, 0, 0, -1, 0, 0, -2, 0, 0, -3};
    o.vertex_mass = m;
    o.solver.kind = PF_SOLVER_STATIC;
    o.solver.cg_tolerance = 1e-14;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, (const uint32_t[1]){0}, 1), PF_OK);
    pf_spring s[3] = {{0, 1, k, 0, 1.0}, {1, 2, k, 0, 1.0}, {2, 3, k, 0, 1.0}};
    ck_assert_int_eq(pf_world_add_springs(w, id, s, 3, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n), *v = pf_world_velocities(w, id, &n);
    double z = 0;
    for (int i = 1; i <= 3; i++) {
        z -= 1 + (4 - i) * m * 9.81 / k;
        ck_assert_msg(fabs(x[3 * i + 2] - z) < 1e-10, "point %d at z %.15g, equilibrium %.15g", i,
                      x[3 * i + 2], z);
        ck_assert_double_eq(v[3 * i + 2], 0);
    }
    ck_assert_double_eq(x[2], 0); /* the fixed point stays */
    pf_world_destroy(w);
}
END_TEST

/* the largest force on a free point of object id, gravity included: the residual of equilibrium */
static double residual(pf_world *w, pf_object_id id, const double g[3], double m, double young)
{
    /* rebuild the same beam in a second world at this state, one explicit step with dt -> 0 measures f / m */
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    pf_world *probe = make_world(PF_EXEC_SEQ, 1, 1e-9, g);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 6, o.grid[1] = 2, o.grid[2] = 2;
    o.grid_max[0] = 1, o.grid_max[1] = 0.2, o.grid_max[2] = 0.2;
    o.vertex_mass = m;
    o.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    pf_object_id p;
    ck_assert_int_eq(pf_world_add_object(probe, &o, &p), PF_OK);
    pf_hexa_fem_def fem = pf_hexa_fem_default_def();
    fem.young_modulus = young;
    ck_assert_int_eq(pf_world_add_hexa_fem(probe, p, &fem, NULL), PF_OK);
    ck_assert_int_eq(pf_world_set_state(probe, p, x, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(probe, 1), PF_OK);
    const double *v = pf_world_velocities(probe, p, &n);
    double worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i % 6 == 0) continue; /* the clamped end (x = 0) */
        for (int a = 0; a < 3; a++)
            worst = fmax(worst, fabs(v[3 * i + a]) * m / 1e-9);
    }
    pf_world_destroy(probe);
    return worst;
}

/* A corotational FEM beam clamped at one end, bent by gravity well beyond small strain: the static solver's
 * Newton steps drive the residual force to nothing. */
START_TEST(static_beam_residual_vanishes)
{
    const double g[3] = {0, 0, -9.81};
    double m = 0.05, young = 2e4;
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0.01, g);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 6, o.grid[1] = 2, o.grid[2] = 2;
    o.grid_max[0] = 1, o.grid_max[1] = 0.2, o.grid_max[2] = 0.2;
    o.vertex_mass = m;
    o.solver.kind = PF_SOLVER_STATIC;
    o.solver.cg_iterations = 200;
    o.solver.cg_tolerance = 1e-12;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    pf_hexa_fem_def fem = pf_hexa_fem_default_def();
    fem.young_modulus = young;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fem, NULL), PF_OK);
    double box[6] = {-0.01, -1, -1, 0.01, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, box, NULL), PF_OK);
    double r0 = residual(w, id, g, m, young);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    double r1 = residual(w, id, g, m, young);
    ck_assert_int_eq(pf_world_step(w, 9), PF_OK);
    double r10 = residual(w, id, g, m, young);
    uint32_t n;
    double tip = pf_world_positions(w, id, &n)[3 * 5 + 2];
    ck_assert_msg(tip < -0.05, "tip at z %g: the beam should bend visibly", tip);
    ck_assert_msg(r10 < 1e-6 * r0 && r10 < r1, "residual %g, after 1 step %g, after 10 steps %g", r0, r1,
                  r10);
    pf_world_destroy(w);
}
END_TEST

/* Two spring grids joined by interaction springs, one solver group, under each solver: the state hash of seq
 * for static at 1, 2 and 3 workers and for the barrier and omptasks executors. */
static uint64_t coupled_hash(pf_solver_kind kind, pf_executor e, int workers)
{
    const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(e, workers, 0.002, g);
    pf_object_id ids[2];
    for (int b = 0; b < 2; b++) {
        pf_object_def o = pf_object_default_def();
        o.grid[0] = 5, o.grid[1] = 3, o.grid[2] = 2;
        o.grid_min[0] = 0.6 * b, o.grid_max[0] = 0.6 * b + 0.5, o.grid_max[1] = 0.2, o.grid_max[2] = 0.1;
        double pm[30]; /* masses that differ point to point */
        for (int i = 0; i < 30; i++)
            pm[i] = 1 + 0.1 * (i % 4);
        o.point_masses = b ? pm : NULL;
        o.solver.kind = kind;
        ck_assert_int_eq(pf_world_add_object(w, &o, &ids[b]), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_springs(w, ids[b], 800, 0.5, NULL, NULL), PF_OK);
    }
    ck_assert_int_eq(pf_world_fix_points(w, ids[0], (const uint32_t[2]){0, 25}, 2), PF_OK);
    pf_spring link[2] = {{4, 0, 500, 0.2, -1}, {29, 25, 500, 0.2, -1}};
    ck_assert_int_eq(pf_world_add_interaction_springs(w, ids[0], ids[1], link, 2, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(solvers_same_hash_every_executor)
{
    static const pf_solver_kind kinds[] = {PF_SOLVER_FORWARD_EULER, PF_SOLVER_RUNGE_KUTTA4, PF_SOLVER_STATIC};
    for (size_t k = 0; k < 3; k++) {
        uint64_t ref = coupled_hash(kinds[k], PF_EXEC_SEQ, 1);
        for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
            for (int workers = 1; workers <= 3; workers++)
                ck_assert_msg(coupled_hash(kinds[k], (pf_executor)e, workers) == ref,
                              "solver %d, executor %d, %d workers differ from seq", (int)kinds[k], e,
                              workers);
    }
}
END_TEST

/* A rigid body joins a group through contacts only; a group solved by a solver that does not integrate
 * rotations (here Runge-Kutta 4, the settings of its lowest object) refuses it, and the step says why. */
START_TEST(rigid_body_in_rk4_group_refused)
{
    const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0.01, g);
    pf_collision_def cd = pf_collision_default_def();
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = 3, o.grid[2] = 2;
    o.grid_min[0] = o.grid_min[1] = -1, o.grid_min[2] = -0.2;
    o.grid_max[0] = o.grid_max[1] = 1, o.grid_max[2] = 0;
    o.solver.kind = PF_SOLVER_RUNGE_KUTTA4;
    pf_object_id slab, box;
    ck_assert_int_eq(pf_world_add_object(w, &o, &slab), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, slab, 1e4, 1, NULL, NULL), PF_OK);
    double bottom[6] = {-9, -9, -0.3, 9, 9, -0.1};
    ck_assert_int_eq(pf_world_fix_box(w, slab, bottom, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, slab, NULL), PF_OK);
    pf_rigid_def rd = pf_rigid_default_def();
    rd.half_extents[0] = rd.half_extents[1] = rd.half_extents[2] = 0.1;
    rd.position[2] = 0.1 + 0.5 * cd.contact_distance;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &box), PF_OK);
    ck_assert_int_eq(pf_world_add_rigid_shape_surface(w, box, &rd, NULL), PF_OK);
    int rc = PF_OK;
    for (int k = 0; k < 50 && rc == PF_OK; k++)
        rc = pf_world_step(w, 1);
    ck_assert_int_eq(rc, PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "rigid body in a group solved by Runge-Kutta 4"), "%s",
                  pf_last_error());
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_solvers");
    TCase *tc = tcase_create("solvers");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, forward_euler_energy_grows_as_closed_form);
    tcase_add_test(tc, rk4_is_fourth_order);
    tcase_add_test(tc, rk4_free_fall_exact);
    tcase_add_test(tc, static_chain_reaches_equilibrium_in_one_step);
    tcase_add_test(tc, static_beam_residual_vanishes);
    tcase_add_test(tc, solvers_same_hash_every_executor);
    tcase_add_test(tc, rigid_body_in_rk4_group_refused);
    suite_add_tcase(s, tc);
    return s;
}
