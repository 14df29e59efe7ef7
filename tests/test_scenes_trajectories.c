/* SOFA's projective constraints along closed-form paths of time (scenes/component_trajectories.c), on the scenes
 * tests/scenes/trajectory_oscillator.xml, trajectory_parabola.xml and trajectory_patch_test.xml: after n steps a driven point sits where
 * SOFA's projectPosition puts it at the last step's start t (the sum of n - 1 steps' dt, added as the world adds
 * them), the points not listed (or outside the parabola's interval) move freely under gravity. Oracles: the
 * sinusoid's closed form; for the parabola, Lagrange interpolation of P1, P2, P3 over their abscissas along P1P3
 * (a form independent of the component's plane frame: a quadratic through the three points); for the patch test,
 * the bilinear interpolation of the corner movements over the square the boundary ring spans, reached linearly in
 * time. Bad attributes are refused with file:line. */
#include "check_main.h"

#include "physflow/scene.h"
#include "scene_files.h"

#include <math.h>
#include <string.h>

/* the time at the start of the n-th step: n - 1 steps of dt, summed one by one */
static double step_start(double dt, int n)
{
    double t = 0;
    for (int k = 0; k + 1 < n; k++) t += dt;
    return t;
}

static pf_scene *stepped(const char *file, int steps)
{
    pf_scene *s = load_test_scene(file, PF_EXEC_SEQ, PF_PART_OWNER, 1);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), (uint32_t)steps), PF_OK);
    return s;
}

static const double *positions(pf_scene *s, const char *node)
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, node, &o), PF_OK);
    return pf_world_positions(pf_scene_world(s), o, NULL);
}

static void rigid_state(pf_scene *s, const char *node, double c[3], double q[4])
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, node, &o), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(pf_scene_world(s), o, c, q, NULL, NULL), PF_OK);
}

START_TEST(test_oscillator)
{
    static const int counts[] = {1, 7, 20, 33};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        double t = step_start(0.05, n);
        pf_scene *s = stepped("trajectory_oscillator.xml", n);
        const double *x = positions(s, "points");
        const double p0[3] = {1 + 0.5 * sin(2 * t + 0.3), 0, 0}, p2[3] = {7, 1, 0.25 * sin(t)};
        for (int a = 0; a < 3; a++) {
            ck_assert_msg(fabs(x[a] - p0[a]) < 1e-12, "%d steps: point 0 [%d] at %.17g, want %.17g", n, a, x[a], p0[a]);
            ck_assert_msg(fabs(x[6 + a] - p2[a]) < 1e-12, "%d steps: point 2 [%d] at %.17g, want %.17g", n, a, x[6 + a],
                          p2[a]);
        }
        ck_assert_msg(x[5] < 0 && x[3] == 3, "the free point does not fall: %g %g", x[3], x[5]);
        double c[3], q[4];
        rigid_state(s, "ball", c, q);
        ck_assert_msg(fabs(c[0]) < 1e-12 && fabs(c[1] - (5 + sin(4 * t))) < 1e-12 && fabs(c[2]) < 1e-12,
                      "%d steps: ball at %g %g %g, want y %g", n, c[0], c[1], c[2], 5 + sin(4 * t));
        ck_assert_msg(q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 1, "the ball turned");
        pf_scene_destroy(s);
    }
}
END_TEST

/* The parabola through P1, P2, P3 at abscissa X along P1P3: Lagrange's quadratic on the abscissas 0, x2, x3. */
static void lagrange(double X, double out[3])
{
    static const double P[3][3] = {{1, 0, 0}, {5, 3, 1}, {7, 6, -5}};
    double d2[3], d3[3], l3 = 0, x2 = 0;
    for (int a = 0; a < 3; a++) d2[a] = P[1][a] - P[0][a], d3[a] = P[2][a] - P[0][a], l3 += d3[a] * d3[a];
    l3 = sqrt(l3);
    for (int a = 0; a < 3; a++) x2 += d2[a] * d3[a] / l3;
    const double u[3] = {0, x2, l3};
    for (int a = 0; a < 3; a++) {
        out[a] = 0;
        for (int i = 0; i < 3; i++) {
            double L = 1;
            for (int j = 0; j < 3; j++)
                if (j != i) L *= (X - u[j]) / (u[i] - u[j]);
            out[a] += L * P[i][a];
        }
    }
}

static double p1p3(void) { return sqrt(36 + 36 + 25); }

START_TEST(test_parabola)
{
    static const int counts[] = {16, 21, 26}; /* starts 0.75, 1, 1.25 s: inside [0.5, 1.5] */
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        double t = step_start(0.05, n), want[3];
        lagrange(p1p3() * (t - 0.5) / 1.0, want);
        pf_scene *s = stepped("trajectory_parabola.xml", n);
        const double *x = positions(s, "points");
        for (int p = 0; p < 2; p++)
            for (int a = 0; a < 3; a++)
                ck_assert_msg(fabs(x[3 * p + a] - want[a]) < 1e-9, "%d steps: point %d [%d] at %.17g, want %.17g", n,
                              p, a, x[3 * p + a], want[a]);
        ck_assert_msg(x[8] < 9, "the point not listed does not fall");
        pf_scene_destroy(s);
    }
    /* P2 itself at its own abscissa: the parabola passes through the three points */
    double at2[3];
    lagrange((4 * 6 + 3 * 6 - 1 * 5) / p1p3(), at2);
    ck_assert_msg(fabs(at2[0] - 5) < 1e-12 && fabs(at2[1] - 3) < 1e-12 && fabs(at2[2] - 1) < 1e-12, "oracle");
    /* before the interval and after it the points are free: they fall */
    pf_scene *s = stepped("trajectory_parabola.xml", 5);
    ck_assert_msg(positions(s, "points")[2] < 0, "free before BeginTime");
    pf_scene_destroy(s);
    s = stepped("trajectory_parabola.xml", 40);
    ck_assert_msg(positions(s, "points")[2] < -5, "free after EndTime: z %g", positions(s, "points")[2]);
    /* the rigid ball's centre over [0, 1]: at the 11th step's start, half way along P1P3 */
    double c[3], q[4], want[3];
    pf_scene_destroy(s);
    s = stepped("trajectory_parabola.xml", 11);
    lagrange(p1p3() * step_start(0.05, 11), want);
    rigid_state(s, "ball", c, q);
    for (int a = 0; a < 3; a++)
        ck_assert_msg(fabs(c[a] - want[a]) < 1e-9, "ball [%d] at %.17g, want %.17g", a, c[a], want[a]);
    ck_assert_msg(q[3] == 1, "the ball turned");
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_patch_test)
{
    static const double mv[4][3] = {{-0.3, -0.1, 0}, {0.1, -0.3, 0}, {0.4, 0.2, 0}, {-0.1, 0.5, 0}};
    static const int counts[] = {4, 11, 15}; /* starts 0.3 s, 1 s, 1.4 s (after the end: the final place) */
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        double t = step_start(0.1, n), share = t > 1 ? 1 : t;
        pf_scene *s = stepped("trajectory_patch_test.xml", n);
        const double *x = positions(s, "sheet");
        for (int p = 0; p < 9; p++) {
            if (p == 4) continue; /* the centre: free */
            double px = p % 3, py = p / 3, a = px / 2, b = py / 2;
            for (int c = 0; c < 3; c++) {
                double d = mv[0][c] * (1 - a) * (1 - b) + mv[1][c] * a * (1 - b) + mv[2][c] * a * b +
                           mv[3][c] * (1 - a) * b;
                double want = (c == 0 ? px : c == 1 ? py : 0) + d * share;
                ck_assert_msg(fabs(x[3 * p + c] - want) < 1e-12, "%d steps: point %d [%d] at %.17g, want %.17g", n, p,
                              c, x[3 * p + c], want);
            }
        }
        ck_assert_msg(x[12] != 1 || x[13] != 1, "the centre does not follow its springs");
        pf_scene_destroy(s);
    }
}
END_TEST

static void refused(int rigid, const char *body, int rc, const char *what)
{
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject %s/>\n%s</Node></Node>",
             rigid ? "template='Rigid3' position='0 0 0 0 0 0 1'/><UniformMass totalMass='1'/>"
                                      "<RigidShape type='sphere' radius='1'" : "position='0 0 0  1 0 0'",
             body);
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s), rc);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), what), "%s", pf_last_error());
}

START_TEST(test_refusals)
{
    refused(0, "<OscillatorProjectiveConstraint oscillators='0 1 0 0 1 0 0 1'/>", PF_EPARSE, "9 numbers per point");
    refused(0, "<OscillatorProjectiveConstraint oscillators='2 1 0 0 1 0 0 1 0'/>", PF_EINVAL, "index 2");
    refused(1, "<OscillatorProjectiveConstraint template='Rigid3' oscillators='0 0 0 0 0 0 0 1 0 0 0 0 0 1 1 0'/>",
            PF_ENOTSUP, "angular amplitude");
    refused(0, "<ParabolicProjectiveConstraint indices='0' P1='0 0 0' P2='1 1 1' P3='2 2 2'/>", PF_EINVAL,
            "not on one line");
    refused(0, "<ParabolicProjectiveConstraint indices='0' P1='0 0 0' P2='0 1 0' P3='2 0 0'/>", PF_EINVAL,
            "no parabola");
    refused(0, "<ParabolicProjectiveConstraint indices='0' P1='0 0 0' P2='1 1 0' P3='2 0 0' BeginTime='1' "
            "EndTime='1'/>", PF_EINVAL, "EndTime");
    refused(0, "<ParabolicProjectiveConstraint template='Rigid3' indices='0' P1='0 0 0' P2='1 1 0' P3='2 0 0' "
            "EndTime='1'/>", PF_EINVAL, "template 'Rigid3' on a Vec3d");
    refused(0, "<PatchTestMovementProjectiveConstraint indices='0' constrainedPoints='0 0 0  1 0 0  1 1 0  0 1 0' "
            "cornerMovements='0 0 0'/>", PF_EPARSE, "needs 4 displacements");
    refused(0, "<PatchTestMovementProjectiveConstraint indices='0' cornerMovements='0 0 0'/>", PF_EPARSE,
            "'constrainedPoints' is missing");
    refused(0, "<PatchTestMovementProjectiveConstraint indices='0' constrainedPoints='0 0 0  1 0 0' "
            "cornerMovements='0 0 0  0 0 0  0 0 0  0 0 0'/>", PF_EINVAL, "span no area");
    refused(0, "<ParabolicProjectiveConstraint indices='5' P1='0 0 0' P2='1 1 0' P3='2 0 0' EndTime='1'/>", PF_EINVAL,
            "out of range");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_trajectories");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_oscillator);
    tcase_add_test(tc, test_parabola);
    tcase_add_test(tc, test_patch_test);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return s;
}
