/* The implicit solver's CG stopping tests against closed forms: free fall of a 1 g point, a 1000 kg rigid body and
 * a free 200 g cloth follows the implicit-Euler recurrence v += h g, x += h v (built in code and loaded from
 * tests/scenes/, with the same hash for every executor, worker count and partitioner); the relative threshold
 * compared with p·Ap / p·M'p, which is exactly 1 in free fall; and the counters of stalled and unconverged solves. */
#include "check_main.h"
#include "world_fixture.h"
#include "scene_files.h"

#include "physflow/physics.h"
#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define STEPS 100

static const double G = -9.81;

static pf_world *make_world(double dt, pf_executor e, pf_partitioner p, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    d.dt = dt;
    d.gravity[0] = d.gravity[1] = 0;
    d.gravity[2] = G;
    d.runtime.partitioner = p;
    return create_world(&d);
}

/* The oracle: implicit Euler of a free point from rest at z0, v += h g then z += h v, `steps` times. */
static double recurrence_z(double z0, double h, int steps)
{
    double v = 0, z = z0;
    for (int k = 0; k < steps; k++) {
        v += h * G;
        z += h * v;
    }
    return z;
}

/* Every listed point at (x0, y0, recurrence) within 1e-6 of the fall, and the counters of a clean solve. */
static void check_fall(pf_world *w, pf_object_id o, uint32_t npoints, const double *x0, double h, const char *what)
{
    uint32_t n;
    const double *x = pf_world_positions(w, o, &n);
    ck_assert_uint_ge(n, npoints);
    for (uint32_t i = 0; i < npoints; i++) {
        double want = recurrence_z(x0[3 * i + 2], h, STEPS), fall = fabs(want - x0[3 * i + 2]);
        ck_assert_msg(fabs(x[3 * i + 2] - want) <= 1e-6 * fall, "%s, point %u: z %.15g, implicit Euler %.15g", what,
                      i, x[3 * i + 2], want);
        ck_assert_msg(x[3 * i] == x0[3 * i] && x[3 * i + 1] == x0[3 * i + 1], "%s, point %u moved sideways", what, i);
    }
    pf_world_stats st;
    ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.cg_solves, STEPS);
    ck_assert_msg(st.cg_stalled == 0 && st.cg_unconverged == 0, "%s: %llu stalled, %llu unconverged", what,
                  (unsigned long long)st.cg_stalled, (unsigned long long)st.cg_unconverged);
}

/* ---------- the three bodies built in code, with the settings of their scene files ---------- */

enum { POINT_1G, RIGID_1000KG, CLOTH_200G, CASES };
static const char *const scene_file[CASES] = {"free_fall_1g.xml", "free_fall_1000kg.xml", "free_fall_cloth.xml"};
static const double case_dt[CASES] = {0.01, 0.01, 0.005};

/* Adds case c's body with solver settings s to w; *npoints: the points that fall (a rigid body: its com). */
static pf_object_id add_body(pf_world *w, int c, const pf_solver_def *s, uint32_t *npoints)
{
    pf_object_id id;
    if (c == RIGID_1000KG) {
        pf_rigid_def rd = pf_rigid_default_def();
        rd.position[2] = 10;
        rd.mass = 1000;
        rd.solver = *s;
        ck_assert_int_eq(pf_world_add_rigid(w, &rd, &id), PF_OK);
        *npoints = 1;
        return id;
    }
    pf_object_def od = pf_object_default_def();
    od.solver = *s;
    if (c == POINT_1G) {
        od.points = 1;
        od.vertex_mass = 1e-3;
    } else {
        od.grid[0] = od.grid[1] = 20;
        od.grid[2] = 1;
        od.grid_min[2] = od.grid_max[2] = 1;
        od.grid_max[0] = od.grid_max[1] = 0.19;
        od.total_mass = 0.2;
    }
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    if (c == CLOTH_200G) ck_assert_int_eq(pf_world_add_grid_springs(w, id, 100, 5, NULL, NULL), PF_OK);
    *npoints = c == POINT_1G ? 1 : 400;
    return id;
}

static pf_world *make_case(int c, const pf_solver_def *s, pf_executor e, pf_partitioner p, int workers,
                           pf_object_id *id, uint32_t *npoints, double *x0)
{
    pf_world *w = make_world(case_dt[c], e, p, workers);
    *id = add_body(w, c, s, npoints);
    memcpy(x0, pf_world_positions(w, *id, NULL), 3 * *npoints * sizeof *x0);
    return w;
}

static double x0_buf[3 * 400];

/* SOFA's default settings (25 iterations, tolerance and threshold 1e-9): every body falls as the recurrence
 * says, whatever its mass, and no solve stalls or ends unconverged */
START_TEST(test_free_fall_in_code)
{
    static const char *const what[CASES] = {"1 g point", "1000 kg rigid body", "200 g cloth"};
    pf_solver_def s = pf_solver_default_def();
    for (int c = 0; c < CASES; c++) {
        pf_object_id id;
        uint32_t np;
        pf_world *w = make_case(c, &s, PF_EXEC_SEQ, PF_PART_OWNER, 1, &id, &np, x0_buf);
        ck_assert_int_eq(pf_world_step(w, STEPS), PF_OK);
        check_fall(w, id, np, x0_buf, case_dt[c], what[c]);
        pf_world_destroy(w);
    }
}
END_TEST

static pf_scene *load_case(int c, pf_executor e, pf_partitioner p, int workers)
{
    return load_test_scene(scene_file[c], e, p, workers);
}

/* The scene files give the same bodies: the recurrence holds, the state equals the one built in code bit for
 * bit, and every executor, worker count (1-3) and partitioner gives the seq executor's hash */
START_TEST(test_free_fall_scene_files)
{
    static const char *const node[CASES] = {"particle", "body", "cloth"};
    pf_solver_def sd = pf_solver_default_def();
    for (int c = 0; c < CASES; c++) {
        pf_object_id cid;
        uint32_t np;
        pf_world *code = make_case(c, &sd, PF_EXEC_SEQ, PF_PART_OWNER, 1, &cid, &np, x0_buf);
        ck_assert_int_eq(pf_world_step(code, STEPS), PF_OK);
        uint64_t want = pf_world_state_hash(code);
        pf_world_destroy(code);

        pf_scene *s = load_case(c, PF_EXEC_SEQ, PF_PART_OWNER, 1);
        pf_world *w = pf_scene_world(s);
        pf_object_id id;
        ck_assert_int_eq(pf_scene_find_object(s, node[c], &id), PF_OK);
        ck_assert_uint_eq(pf_world_objects(w), 1);
        ck_assert_int_eq(pf_world_step(w, STEPS), PF_OK);
        check_fall(w, id, np, x0_buf, case_dt[c], scene_file[c]);
        ck_assert_msg(pf_world_state_hash(w) == want, "%s: the scene's state differs from the one built in code",
                      scene_file[c]);
        pf_scene_destroy(s);

        for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
            for (int k = 1; k <= 3; k++)
                for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                    s = load_case(c, (pf_executor)e, (pf_partitioner)p, k);
                    ck_assert_int_eq(pf_world_step(pf_scene_world(s), STEPS), PF_OK);
                    uint64_t h = pf_world_state_hash(pf_scene_world(s));
                    pf_world_stats st;
                    pf_world_get_stats(pf_scene_world(s), &st);
                    ck_assert_msg(h == want && st.cg_stalled == 0 && st.cg_unconverged == 0,
                                  "%s: %s/%s at %d workers: hash %016llx, seq %016llx", scene_file[c],
                                  pf_executor_name((pf_executor)e), pf_partitioner_name((pf_partitioner)p), k,
                                  (unsigned long long)h, (unsigned long long)want);
                    pf_scene_destroy(s);
                }
    }
}
END_TEST

/* ---------- the threshold is relative: p·Ap / p·M'p is exactly 1 in free fall ---------- */

/* In free fall A = M' (no stiffness acts on a uniform motion), so the denominator test |p·Ap| < threshold p·M'p
 * fires at the first iteration exactly when threshold > 1, for a 1 g point as for a 1000 kg one, for a rigid
 * body, and for two points joined by an interaction spring (p·M'p summed by the linked objects' tasks). Below 1
 * the bodies fall as the recurrence says and the iteration counts do not depend on the mass; above 1 every
 * solve stalls: nothing moves, and cg_stalled counts each step. */
static void threshold_case(int kind, double mass, double threshold, pf_world_stats *st, double *z)
{
    pf_solver_def s = pf_solver_default_def();
    s.cg_threshold = threshold;
    pf_world *w = make_world(0.01, PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_object_id id;
    if (kind == 1) {
        pf_rigid_def rd = pf_rigid_default_def();
        rd.mass = mass;
        rd.solver = s;
        ck_assert_int_eq(pf_world_add_rigid(w, &rd, &id), PF_OK);
    } else {
        pf_object_def od = pf_object_default_def();
        od.points = 1;
        od.vertex_mass = mass;
        od.solver = s;
        ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
        if (kind == 2) { /* a second point 1 m away, linked by a spring at rest */
            const double at[3] = {1, 0, 0};
            od.positions = at;
            pf_object_id other;
            ck_assert_int_eq(pf_world_add_object(w, &od, &other), PF_OK);
            pf_spring sp = {0, 0, 1000, 1, -1};
            ck_assert_int_eq(pf_world_add_interaction_springs(w, id, other, &sp, 1, NULL), PF_OK);
        }
    }
    ck_assert_int_eq(pf_world_step(w, STEPS), PF_OK);
    ck_assert_int_eq(pf_world_get_stats(w, st), PF_OK);
    ck_assert_uint_eq(st->groups, 1);
    *z = pf_world_positions(w, id, NULL)[2];
    pf_world_destroy(w);
}

START_TEST(test_threshold_relative)
{
    static const char *const kinds[] = {"point", "rigid body", "two linked points"};
    double want = recurrence_z(0, 0.01, STEPS);
    uint32_t iterations = 0;
    for (int kind = 0; kind < 3; kind++)
        for (double mass = 1e-3; mass <= 1e3; mass *= 1e3) {
            pf_world_stats st;
            double z;
            threshold_case(kind, mass, 0.5, &st, &z);
            ck_assert_msg(fabs(z - want) <= 1e-6 * fabs(want), "%s of %g kg, threshold 0.5: z %.15g, want %.15g",
                          kinds[kind], mass, z, want);
            ck_assert_msg(st.cg_stalled == 0 && st.cg_unconverged == 0, "%s of %g kg, threshold 0.5", kinds[kind],
                          mass);
            if (!iterations) iterations = st.cg_iterations;
            ck_assert_msg(st.cg_iterations == iterations, "%s of %g kg: %u CG iterations in the last step, %u for "
                          "the 1 g point", kinds[kind], mass, st.cg_iterations, iterations);
            threshold_case(kind, mass, 2, &st, &z);
            ck_assert_msg(z == 0, "%s of %g kg, threshold 2: z %g, the solve should have stalled", kinds[kind], mass,
                          z);
            ck_assert_msg(st.cg_solves == STEPS && st.cg_stalled == STEPS && st.cg_unconverged == 0,
                          "%s of %g kg, threshold 2: %llu solves, %llu stalled, %llu unconverged", kinds[kind], mass,
                          (unsigned long long)st.cg_solves, (unsigned long long)st.cg_stalled,
                          (unsigned long long)st.cg_unconverged);
        }
}
END_TEST

/* ---------- the unconverged counter ---------- */

/* A stiff clamped FEM bar: with one CG iteration a step cannot reach the tolerance, so every solve counts as
 * unconverged (none stalled: one update was made); with iterations enough (the system has 270 free unknowns)
 * none does. The counters add up over steps and report the same on every executor. */
static void bar_counts(uint32_t iterations, pf_executor e, int workers, pf_world_stats *st, uint64_t *hash)
{
    pf_world *w = make_world(0.01, e, PF_PART_OWNER, workers);
    pf_object_def od = pf_object_default_def();
    od.grid[0] = 11;
    od.grid[1] = od.grid[2] = 3;
    od.grid_max[0] = 1;
    od.grid_max[1] = od.grid_max[2] = 0.1;
    od.total_mass = 10;
    od.solver.cg_iterations = iterations;
    od.solver.cg_tolerance = 1e-6;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.young_modulus = 1e7;
    fd.poisson_ratio = 0.3;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_OK);
    const double box[6] = {-1e-9, -1, -1, 1e-9, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, box, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    ck_assert_int_eq(pf_world_get_stats(w, st), PF_OK);
    *hash = pf_world_state_hash(w);
    pf_world_destroy(w);
}

START_TEST(test_unconverged_counts)
{
    pf_world_stats st;
    uint64_t h, h1;
    bar_counts(1, PF_EXEC_SEQ, 1, &st, &h1);
    ck_assert_msg(st.cg_solves == 10 && st.cg_unconverged == 10 && st.cg_stalled == 0,
                  "1 iteration: %llu solves, %llu unconverged, %llu stalled", (unsigned long long)st.cg_solves,
                  (unsigned long long)st.cg_unconverged, (unsigned long long)st.cg_stalled);
    ck_assert_uint_eq(st.cg_iterations, 1);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++) {
        bar_counts(1, (pf_executor)e, 2, &st, &h);
        ck_assert_msg(h == h1 && st.cg_unconverged == 10 && st.cg_stalled == 0, "%s at 2 workers",
                      pf_executor_name((pf_executor)e));
    }
    bar_counts(1000, PF_EXEC_SEQ, 1, &st, &h);
    ck_assert_msg(st.cg_solves == 10 && st.cg_unconverged == 0 && st.cg_stalled == 0,
                  "1000 iterations: %llu unconverged, %llu stalled (last step: %u iterations)",
                  (unsigned long long)st.cg_unconverged, (unsigned long long)st.cg_stalled, st.cg_iterations);
    ck_assert_uint_gt(st.cg_iterations, 2); /* a stiff system: the tolerance takes real iterations */
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_cg");
    TCase *tc = tcase_create("cg");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_free_fall_in_code);
    tcase_add_test(tc, test_free_fall_scene_files);
    tcase_add_test(tc, test_threshold_relative);
    tcase_add_test(tc, test_unconverged_counts);
    suite_add_tcase(s, tc);
    return s;
}
