/* Per-object force fields as kinds: the constant force (SOFA ConstantForceField) against the closed-form
 * recurrences of symplectic and implicit Euler, its argument checks, and the scene component against the API;
 * rest-shape springs (SOFA RestShapeSpringsForceField) against the static equilibrium m g / k, with CG and the
 * direct solver, and their component against the API; polynomial rest-shape springs (SOFA
 * PolynomialRestShapeSpringsForceField): force and stiffness against SOFA's formulas worked by hand, a linear one
 * against the static equilibrium m g L / c_1, the scene component against the API and the MechanicalObject's
 * rest_position. */
#include "check_main.h"
#include "world_fixture.h"
#include "point_object.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static pf_world *make_world(double dt, double gz)
{
    return new_world_dg(PF_EXEC_SEQ, 1, dt, (const double[3]){0, 0, gz});
}

/* one free point of mass m at x0 with velocity v0 */
static pf_object_id add_point(pf_world *w, pf_solver_def sv, double m, const double x0[3], const double v0[3])
{
    pf_object_def od = pf_object_default_def();
    od.points = 1;
    od.positions = x0;
    od.velocities = v0;
    od.vertex_mass = m;
    od.solver = sv;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    return id;
}

/* force F (N) on every point of object id */
static void add_constant_force(pf_world *w, pf_object_id id, const double F[3])
{
    pf_constant_force_def cf = pf_constant_force_default_def();
    memcpy(cf.force, F, sizeof cf.force);
    ck_assert_int_eq(pf_world_add_constant_force(w, id, &cf, NULL), PF_OK);
}

static void assert_close(double got, double want, const char *what, int step)
{
    double tol = 1e-12 * fmax(fabs(want), 1.0);
    ck_assert_msg(fabs(got - want) <= tol, "%s at step %d: %.17g, closed form %.17g", what, step, got, want);
}

/* Symplectic Euler with a = F/m: v_n = v0 + n h a, x_n = x0 + n h v0 + h^2 a n (n + 1) / 2. */
START_TEST(test_constant_force_explicit_closed_form)
{
    const double h = 0.01, m = 0.5, F[3] = {1.5, -2.0, 0.25}, x0[3] = {1, 2, 3}, v0[3] = {0.5, 0, -1};
    pf_world *w = make_world(h, 0);
    pf_solver_def sv = pf_solver_default_def();
    sv.kind = PF_SOLVER_EXPLICIT_EULER;
    pf_object_id id = add_point(w, sv, m, x0, v0);
    add_constant_force(w, id, F);
    for (int n = 1; n <= 200; n++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        const double *x = pf_world_positions(w, id, NULL), *v = pf_world_velocities(w, id, NULL);
        for (int a = 0; a < 3; a++) {
            double acc = F[a] / m;
            assert_close(v[a], v0[a] + n * h * acc, "v", n);
            assert_close(x[a], x0[a] + n * h * v0[a] + h * h * acc * n * (n + 1) / 2.0, "x", n);
        }
    }
    pf_world_destroy(w);
}
END_TEST

/* Implicit Euler with Rayleigh mass damping rM and no stiffness: (1 + h rM) m dv = h (F - rM m v), so
 * v_{k+1} = c (v_k + h a) with c = 1 / (1 + h rM); with v* = a / rM: v_n = v* + c^n (v0 - v*) and
 * x_n = x0 + h (n v* + (v0 - v*) c (1 - c^n) / (1 - c)). Gravity adds to the constant force. */
START_TEST(test_constant_force_implicit_closed_form)
{
    const double h = 0.02, m = 2.0, rm = 0.5, g = -9.81, F[3] = {3.0, 0, 4.0}, x0[3] = {0, 1, 0}, v0[3] = {1, 1, 1};
    pf_world *w = make_world(h, g);
    pf_solver_def sv = pf_solver_default_def();
    sv.rayleigh_mass = rm;
    pf_object_id id = add_point(w, sv, m, x0, v0);
    add_constant_force(w, id, F);
    double c = 1.0 / (1.0 + h * rm);
    for (int n = 1; n <= 200; n++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        const double *x = pf_world_positions(w, id, NULL), *v = pf_world_velocities(w, id, NULL);
        double cn = pow(c, n);
        for (int a = 0; a < 3; a++) {
            double acc = F[a] / m + (a == 2 ? g : 0), vs = acc / rm;
            assert_close(v[a], vs + cn * (v0[a] - vs), "v", n);
            assert_close(x[a], x0[a] + h * (n * vs + (v0[a] - vs) * c * (1 - cn) / (1 - c)), "x", n);
        }
    }
    pf_world_destroy(w);
}
END_TEST

/* Only the listed points are pushed (a point listed twice twice); the caller's list is copied. */
START_TEST(test_constant_force_points)
{
    const double h = 0.01;
    pf_world *w = make_world(h, 0);
    pf_object_def od = pf_object_default_def();
    od.points = 3;
    pf_solver_def sv = pf_solver_default_def();
    sv.kind = PF_SOLVER_EXPLICIT_EULER;
    od.solver = sv;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    uint32_t pts[3] = {2, 1, 2};
    pf_constant_force_def cf = pf_constant_force_default_def();
    cf.points = pts;
    cf.npoints = 3;
    cf.force[0] = 1.0;
    ck_assert_int_eq(pf_world_add_constant_force(w, id, &cf, NULL), PF_OK);
    pts[0] = pts[2] = 0; /* the world kept its own copy */
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    const double *v = pf_world_velocities(w, id, NULL);
    ck_assert_double_eq(v[0], 0);
    ck_assert_double_eq(v[3], h * 1.0);
    ck_assert_double_eq(v[6], h * 2.0);
    pf_world_destroy(w);
}
END_TEST

static void expect_error(int rc, const char *text)
{
    ck_assert_int_lt(rc, 0);
    ck_assert_msg(strstr(pf_last_error(), text), "'%s' lacks '%s'", pf_last_error(), text);
}

START_TEST(test_constant_force_bad_arguments)
{
    pf_world *w = make_world(0.01, 0);
    const double x0[3] = {0, 0, 0};
    pf_object_id id = add_point(w, pf_solver_default_def(), 1.0, x0, x0);
    pf_constant_force_def cf = pf_constant_force_default_def();
    ck_assert_int_eq(pf_world_add_constant_force(NULL, id, &cf, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_constant_force(w, id, NULL, NULL), PF_EINVAL);
    expect_error(pf_world_add_constant_force(w, (pf_object_id){7}, &cf, NULL), "no object 7");
    cf.force[1] = NAN;
    expect_error(pf_world_add_constant_force(w, id, &cf, NULL), "not finite");
    cf.force[1] = INFINITY;
    expect_error(pf_world_add_constant_force(w, id, &cf, NULL), "not finite");
    cf.force[1] = 0;
    uint32_t bad = 1;
    cf.points = &bad;
    cf.npoints = 1;
    expect_error(pf_world_add_constant_force(w, id, &cf, NULL), "point 1 out of range");
    cf.points = NULL;
    expect_error(pf_world_add_constant_force(w, id, &cf, NULL), "no point list");
    pf_rigid_def rd = pf_rigid_default_def();
    pf_object_id body;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &body), PF_OK);
    cf.npoints = 0;
    expect_error(pf_world_add_constant_force(w, body, &cf, NULL), "rigid body");
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK); /* nothing was added by the failed calls */
    ck_assert_double_eq(pf_world_positions(w, id, NULL)[1], 0);
    pf_world_destroy(w);
}
END_TEST

/* ---- the scene component ---- */

static const char *scene_fmt = "<Node dt='0.01' gravity='0 0 -10'>\n"
                               "  <EulerImplicitSolver rayleighMass='0.1'/><CGLinearSolver iterations='50'/>\n"
                               "  <Node name='m'>\n"
                               "    <MechanicalObject position='0 0 0  1 0 0  1 1 0  0 1 0'/>\n"
                               "    <MeshTopology position='0 0 0  1 0 0  1 1 0  0 1 0' triangles='0 1 2  0 2 3'/>\n"
                               "    <UniformMass totalMass='2'/>\n"
                               "    <MeshSpringForceField stiffness='50' damping='0.1'/>\n"
                               "    %s\n"
                               "  </Node>\n"
                               "</Node>\n";

static int load(const char *component, pf_scene **out)
{
    char xml[2048];
    snprintf(xml, sizeof xml, scene_fmt, component);
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    return pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, out);
}

static uint64_t stepped_hash(pf_scene *s)
{
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

/* the scene without the component, the constant force then added through the API */
static uint64_t api_hash(const uint32_t *points, uint32_t npoints, const double force[3])
{
    pf_scene *s = NULL;
    ck_assert_msg(load("", &s) == PF_OK, "%s", pf_last_error());
    pf_constant_force_def cf = pf_constant_force_default_def();
    cf.points = points;
    cf.npoints = npoints;
    memcpy(cf.force, force, sizeof cf.force);
    ck_assert_int_eq(pf_world_add_constant_force(pf_scene_world(s), (pf_object_id){0}, &cf, NULL), PF_OK);
    return stepped_hash(s);
}

static uint64_t scene_hash(const char *component)
{
    pf_scene *s = NULL;
    ck_assert_msg(load(component, &s) == PF_OK, "%s", pf_last_error());
    return stepped_hash(s);
}

START_TEST(test_constant_force_scene_matches_api)
{
    const uint32_t pts[2] = {1, 3};
    const double f[3] = {0.5, 0, 2.0}, all[3] = {0.25, -1, 0};
    ck_assert_uint_eq(scene_hash("<ConstantForceField indices='1 3' force='0.5 0 2'/>"), api_hash(pts, 2, f));
    ck_assert_uint_eq(scene_hash("<ConstantForceField indices='1 3' totalForce='1 0 4'/>"), api_hash(pts, 2, f));
    ck_assert_uint_eq(scene_hash("<ConstantForceField totalForce='1 -4 0'/>"), api_hash(NULL, 0, all));
    ck_assert_uint_ne(scene_hash("<ConstantForceField force='0.25 -1 0'/>"), api_hash(NULL, 0, f));
    /* SOFA's precedence: force over totalForce (a warning says the other is ignored) */
    ck_assert_uint_eq(scene_hash("<ConstantForceField indices='1 3' force='0.5 0 2' totalForce='9 9 9'/>"),
                      api_hash(pts, 2, f));
    /* indexFromEnd: index 0 is the last of the 4 points */
    const uint32_t last = 3, first_two[2] = {2, 3};
    ck_assert_uint_eq(scene_hash("<ConstantForceField indices='0' indexFromEnd='1' force='0.5 0 2'/>"),
                      api_hash(&last, 1, f));
    ck_assert_uint_eq(scene_hash("<ConstantForceField indices='0 1' indexFromEnd='true' totalForce='1 0 4'/>"),
                      api_hash(first_two, 2, f));
    /* none given: SOFA warns and pushes nothing: the scene without it */
    ck_assert_uint_eq(scene_hash("<ConstantForceField indices='1'/>"), scene_hash(""));
}
END_TEST

/* `forces`, one per listed point (ConstantForceField.scn's form), over `force` and `totalForce`: the same as the
 * API's constant forces added by hand, one per distinct force over its points, in the order the forces first
 * appear; without indices, one force per point of the object. */
START_TEST(test_constant_forces_per_point)
{
    const double a[3] = {0.5, 0, 2.0}, b[3] = {-1, 1, 0}, c[3] = {0, 0, 3}, d[3] = {1, 2, 3};
    uint64_t want[2];
    for (int k = 0; k < 2; k++) {
        pf_scene *s = NULL;
        ck_assert_msg(load("", &s) == PF_OK, "%s", pf_last_error());
        pf_world *w = pf_scene_world(s);
        pf_constant_force_def cf = pf_constant_force_default_def();
        const uint32_t on_a[2] = {1, 0}, on_b = 3, on[4] = {0, 1, 2, 3};
        const double *fs[4] = {d, c, b, a};
        if (k == 0) {
            cf.points = on_a, cf.npoints = 2, memcpy(cf.force, a, sizeof cf.force);
            ck_assert_int_eq(pf_world_add_constant_force(w, (pf_object_id){0}, &cf, NULL), PF_OK);
            cf.points = &on_b, cf.npoints = 1, memcpy(cf.force, b, sizeof cf.force);
            ck_assert_int_eq(pf_world_add_constant_force(w, (pf_object_id){0}, &cf, NULL), PF_OK);
        } else {
            for (int p = 0; p < 4; p++) {
                cf.points = on + p, cf.npoints = 1, memcpy(cf.force, fs[p], sizeof cf.force);
                ck_assert_int_eq(pf_world_add_constant_force(w, (pf_object_id){0}, &cf, NULL), PF_OK);
            }
        }
        want[k] = stepped_hash(s);
    }
    ck_assert_uint_eq(scene_hash("<ConstantForceField indices='1 3 0' forces='0.5 0 2  -1 1 0  0.5 0 2' "
                                 "force='7 7 7'/>"), want[0]);
    ck_assert_uint_eq(scene_hash("<ConstantForceField forces='1 2 3  0 0 3  -1 1 0  0.5 0 2'/>"), want[1]);
    ck_assert_uint_ne(want[0], want[1]);
}
END_TEST

static void scene_error(const char *component, int code, const char *text)
{
    pf_scene *s = NULL;
    ck_assert_int_eq(load(component, &s), code);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:8") && strstr(pf_last_error(), text), "%s", pf_last_error());
}

START_TEST(test_constant_force_scene_errors)
{
    scene_error("<ConstantForceField forces='1 0 0  0 1 0'/>", PF_EINVAL, "'forces' gives 2 forces for 4 points");
    scene_error("<ConstantForceField indices='1' forces='1 0 0  0 1 0'/>", PF_EINVAL, "2 forces for 1 points");
    scene_error("<ConstantForceField indices='1' forces='1 0'/>", PF_EPARSE, "3 numbers (x y z, N) per point");
    scene_error("<ConstantForceField force='1 0'/>", PF_EPARSE, "needs 3 numbers");
    scene_error("<ConstantForceField indices='0 4' force='1 0 0'/>", PF_EINVAL, "index 4 is out of range");
}
END_TEST

/* ---------- rest-shape springs ---------- */

/* three points of mass m on rest-shape springs (stiffness k_i) under gravity: one static step puts each at
 * its rest position + m g / k_i, by CG and by the direct solver; a point without a spring falls freely */
START_TEST(test_rest_shape_static_equilibrium)
{
    for (int direct = 0; direct < 2; direct++) {
        pf_world *w = make_world(0.01, -9.81);
        pf_object_def od = pf_object_default_def();
        od.points = 4;
        od.positions = (const double[12]){0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
        od.vertex_mass = 0.5;
        od.solver.kind = PF_SOLVER_STATIC;
        od.solver.linear_solver = direct ? PF_LINEAR_DIRECT : PF_LINEAR_CG;
        od.solver.cg_tolerance = 1e-14;
        pf_object_id id;
        ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
        pf_rest_shape_springs_def rs = pf_rest_shape_springs_default_def();
        const uint32_t pts[3] = {0, 1, 2};
        const double k[3] = {10, 20, 40};
        rs.points = pts, rs.npoints = 3, rs.stiffnesses = k;
        pf_force_field_id ff;
        ck_assert_int_eq(pf_world_add_rest_shape_springs(w, id, &rs, &ff), PF_OK);
        /* the free point 3 makes A singular for the static step: hold it */
        ck_assert_int_eq(pf_world_fix_points(w, id, (const uint32_t[1]){3}, 1), PF_OK);
        ck_assert_msg(pf_world_step(w, 1) == PF_OK, "%s", pf_last_error());
        uint32_t n;
        const double *x = pf_world_positions(w, id, &n);
        for (int i = 0; i < 3; i++)
            ck_assert_msg(fabs(x[3 * i + 2] + 0.5 * 9.81 / k[i]) < 1e-12, "direct %d point %d at %.15g", direct, i,
                          x[3 * i + 2]);
        ck_assert_double_eq(x[3 * 3 + 2], 0);
        pf_world_destroy(w);
    }
}
END_TEST

START_TEST(test_rest_shape_bad_arguments)
{
    pf_world *w = make_world(0.01, 0);
    pf_object_id id = add_point(w, pf_solver_default_def(), 1, (const double[3]){0, 0, 0}, (const double[3]){0, 0, 0});
    pf_rest_shape_springs_def rs = pf_rest_shape_springs_default_def();
    ck_assert_int_eq(pf_world_add_rest_shape_springs(w, id, NULL, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_rest_shape_springs(NULL, id, &rs, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_rest_shape_springs(w, (pf_object_id){7}, &rs, NULL), PF_EINVAL);
    rs.stiffness = -1;
    ck_assert_int_eq(pf_world_add_rest_shape_springs(w, id, &rs, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.stiffness"), "%s", pf_last_error());
    rs = pf_rest_shape_springs_default_def();
    rs.npoints = 1;
    ck_assert_int_eq(pf_world_add_rest_shape_springs(w, id, &rs, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.points is NULL"), "%s", pf_last_error());
    rs.points = (const uint32_t[1]){1};
    ck_assert_int_eq(pf_world_add_rest_shape_springs(w, id, &rs, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "out of range"), "%s", pf_last_error());
    rs = pf_rest_shape_springs_default_def();
    rs.rest_positions = (const double[3]){0, NAN, 0};
    ck_assert_int_eq(pf_world_add_rest_shape_springs(w, id, &rs, NULL), PF_EINVAL);
    rs.rest_positions = NULL;
    rs.stiffnesses = (const double[1]){INFINITY};
    ck_assert_int_eq(pf_world_add_rest_shape_springs(w, id, &rs, NULL), PF_EINVAL);
    pf_world_destroy(w);
}
END_TEST

static uint64_t api_rest_hash(const uint32_t *points, uint32_t npoints, const double *k, double k1)
{
    pf_scene *s = NULL;
    ck_assert_msg(load("", &s) == PF_OK, "%s", pf_last_error());
    pf_rest_shape_springs_def rs = pf_rest_shape_springs_default_def();
    rs.points = points, rs.npoints = npoints, rs.stiffnesses = k, rs.stiffness = k1;
    ck_assert_int_eq(pf_world_add_rest_shape_springs(pf_scene_world(s), (pf_object_id){0}, &rs, NULL), PF_OK);
    return stepped_hash(s);
}

START_TEST(test_rest_shape_scene_matches_api)
{
    const uint32_t pts[2] = {1, 3};
    const double k[2] = {30, 60};
    ck_assert_uint_eq(scene_hash("<RestShapeSpringsForceField points='1 3' stiffness='30 60'/>"),
                      api_rest_hash(pts, 2, k, 1));
    ck_assert_uint_eq(scene_hash("<RestShapeSpringsForceField stiffness='25'/>"), api_rest_hash(NULL, 0, NULL, 25));
    scene_error("<RestShapeSpringsForceField points='1 3' stiffness='1 2 3'/>", PF_EINVAL, "give one, or one per");
    scene_error("<RestShapeSpringsForceField external_rest_shape='@../x'/>", PF_ENOTSUP, "another state");
}
END_TEST

/* ---------- polynomial rest-shape springs ---------- */

/* one point at rest + (0.3, -0.4, 1.2) (|d| = 1.3), L = 2 (s = 0.65), P(s) = 10 s + 4 s^2 - 2 s^3, shift 0.5, scale
 * 0.8: f = -P d / l, l = sqrt(|d|^2 + exp(shift - scale |d|^2)); df = -J dx, SOFA's diagonal
 * J_a = (P'(s) / L - P / l) (1 - scale e) (d_a / l)^2 + P / l */
START_TEST(test_polynomial_springs_by_hand)
{
    pf_world *w = make_world(0.01, 0);
    const double r[3] = {0.5, 1, -2}, d[3] = {0.3, -0.4, 1.2};
    double x[6] = {r[0] + d[0], r[1] + d[1], r[2] + d[2], 7, 7, 7};
    pf_object_def od = pf_object_default_def();
    od.points = 2, od.positions = x;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_polynomial_springs_def pd = pf_polynomial_springs_default_def();
    pd.points = (const uint32_t[1]){0}, pd.npoints = 1, pd.rest_positions = r;
    pd.degrees = (const uint32_t[1]){3}, pd.coefficients = (const double[3]){10, 4, -2};
    pd.initial_length = 2, pd.smooth_shift = 0.5, pd.smooth_scale = 0.8;
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_OK);
    double f[6], df[6];
    force_at(w, id, x, f);
    const double s = 0.65, P = 10 * s + 4 * s * s - 2 * s * s * s, dP = 10 + 8 * s - 6 * s * s;
    const double e = exp(0.5 - 0.8 * 1.69), l = sqrt(1.69 + e);
    for (int a = 0; a < 3; a++) assert_close(f[a], -P * d[a] / l, "f", a);
    for (int a = 3; a < 6; a++) ck_assert_double_eq(f[a], 0);
    const double dx[6] = {1, 1, 1, 1, 1, 1};
    dforce_of(w, id, dx, df);
    for (int a = 0; a < 3; a++) {
        double J = (dP / 2 - P / l) * (1 - 0.8 * e) * (d[a] / l) * (d[a] / l) + P / l;
        assert_close(df[a], -J, "df", a);
    }
    for (int a = 3; a < 6; a++) ck_assert_double_eq(df[a], 0);
    pf_world_destroy(w);
}
END_TEST

/* P(s) = c s with the smoothing gone (shift -40: exp below 1e-17) is a linear spring of stiffness c / L: one static
 * step under gravity from 0.1 m below rest (at rest SOFA's stiffness is 0) puts each point at rest - m g L / c, by
 * CG and by the direct solver */
START_TEST(test_polynomial_springs_linear_equilibrium)
{
    for (int direct = 0; direct < 2; direct++) {
        pf_world *w = make_world(0.01, -9.81);
        pf_object_def od = pf_object_default_def();
        od.points = 2;
        od.positions = (const double[6]){0, 0, -0.1, 1, 0, -0.1};
        od.vertex_mass = 0.5;
        od.solver.kind = PF_SOLVER_STATIC;
        od.solver.linear_solver = direct ? PF_LINEAR_DIRECT : PF_LINEAR_CG;
        od.solver.cg_tolerance = 1e-14;
        pf_object_id id;
        ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
        pf_polynomial_springs_def pd = pf_polynomial_springs_default_def();
        pd.degrees = (const uint32_t[2]){1, 1}, pd.npolynomials = 2, pd.coefficients = (const double[2]){30, 80};
        pd.initial_lengths = (const double[2]){0.5, 2};
        pd.rest_positions = (const double[6]){0, 0, 0, 1, 0, 0};
        pd.smooth_shift = -40;
        ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_OK);
        ck_assert_msg(pf_world_step(w, 1) == PF_OK, "%s", pf_last_error());
        uint32_t n;
        const double *x = pf_world_positions(w, id, &n);
        const double k[2] = {30 / 0.5, 80 / 2.0};
        for (int i = 0; i < 2; i++)
            ck_assert_msg(fabs(x[3 * i + 2] + 0.5 * 9.81 / k[i]) < 1e-12, "direct %d point %d at %.15g", direct, i,
                          x[3 * i + 2]);
        pf_world_destroy(w);
    }
}
END_TEST

START_TEST(test_polynomial_springs_bad_arguments)
{
    pf_world *w = make_world(0.01, 0);
    pf_object_id id = add_point(w, pf_solver_default_def(), 1, (const double[3]){0, 0, 0}, (const double[3]){0, 0, 0});
    pf_polynomial_springs_def pd = pf_polynomial_springs_default_def();
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, NULL, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, (pf_object_id){7}, &pd, NULL), PF_EINVAL);
    pd.npolynomials = 2;
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.npolynomials"), "%s", pf_last_error());
    pd = pf_polynomial_springs_default_def();
    pd.degrees = (const uint32_t[1]){0};
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.degrees[0]"), "%s", pf_last_error());
    pd = pf_polynomial_springs_default_def();
    pd.coefficients = (const double[1]){NAN};
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_EINVAL);
    pd = pf_polynomial_springs_default_def();
    pd.initial_length = 0;
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.initial_length"), "%s", pf_last_error());
    pd = pf_polynomial_springs_default_def();
    pd.smooth_scale = INFINITY;
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_EINVAL);
    pd = pf_polynomial_springs_default_def();
    pd.points = (const uint32_t[1]){1}, pd.npoints = 1;
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &pd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "out of range"), "%s", pf_last_error());
    pf_world_destroy(w);
}
END_TEST

/* the scene component is the API call with SOFA's meaning of its attributes: per-point polynomials, one length,
 * the smoothing; SOFA's defaults (100 s, L 1, shift 0, scale 1); one polynomial for all when their count is not
 * the points' */
START_TEST(test_polynomial_springs_scene_matches_api)
{
    const uint32_t pts[2] = {1, 3}, deg[2] = {2, 1};
    const double c[3] = {10, 5, 20};
    pf_polynomial_springs_def pd = pf_polynomial_springs_default_def();
    pd.points = pts, pd.npoints = 2, pd.degrees = deg, pd.npolynomials = 2, pd.coefficients = c;
    pd.initial_length = 0.5, pd.smooth_shift = -1, pd.smooth_scale = 3;
    pf_polynomial_springs_def defaults = pf_polynomial_springs_default_def();
    pf_polynomial_springs_def first = pd;
    first.npolynomials = 1;
    const char *xml[3] = {"<PolynomialRestShapeSpringsForceField points='1 3' polynomialStiffness='10 5 20' "
                          "polynomialDegree='2 1' initialLength='0.5' smoothShift='-1' smoothScale='3'/>",
                          "<PolynomialRestShapeSpringsForceField/>",
                          "<PolynomialRestShapeSpringsForceField points='1 3' polynomialStiffness='10 5 20' "
                          "polynomialDegree='2 1 1' initialLength='0.5' smoothShift='-1' smoothScale='3'/>"};
    const pf_polynomial_springs_def *api[3] = {&pd, &defaults, &first};
    for (int k = 0; k < 3; k++) {
        pf_scene *s = NULL;
        ck_assert_msg(load("", &s) == PF_OK, "%s", pf_last_error());
        ck_assert_int_eq(pf_world_add_polynomial_springs(pf_scene_world(s), (pf_object_id){0}, api[k], NULL), PF_OK);
        uint64_t want = stepped_hash(s);
        ck_assert_msg(scene_hash(xml[k]) == want, "case %d: scene and API differ", k);
    }
    scene_error("<PolynomialRestShapeSpringsForceField polynomialDegree='3' polynomialStiffness='1 2'/>", PF_EINVAL,
                "its polynomials' degrees need 3");
    scene_error("<PolynomialRestShapeSpringsForceField points='1 3' initialLength='1 2 3'/>", PF_EINVAL,
                "give one, or one per");
    scene_error("<PolynomialRestShapeSpringsForceField initialLength='0'/>", PF_EINVAL, "def.initial_length");
    scene_error("<PolynomialRestShapeSpringsForceField external_rest_shape='@../x'/>", PF_ENOTSUP, "another state");
}
END_TEST

/* the springs rest at the MechanicalObject's rest_position (SOFA's restPosition): a particle at 1.1 from it feels
 * P(1.1) = 10 s + 10 s^2 = 23.1 N back (smoothScale 1e7: the direction is the unit vector) */
START_TEST(test_polynomial_springs_rest_position)
{
    const char *xml = "<Node dt='0.01' gravity='0 0 0'><Node name='p'><EulerImplicitSolver/>"
                      "<MechanicalObject rest_position='0 0 0' position='1.1 0 0'/><UniformMass totalMass='1'/>"
                      "<PolynomialRestShapeSpringsForceField polynomialStiffness='10 10' polynomialDegree='2' "
                      "points='0' smoothShift='0.0001' smoothScale='10000000'/></Node></Node>";
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "p.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    double x[3] = {1.1, 0, 0}, f[3];
    force_at(pf_scene_world(s), (pf_object_id){0}, x, f);
    assert_close(f[0], -(10 * 1.1 + 10 * 1.1 * 1.1), "f", 0);
    ck_assert(f[1] == 0 && f[2] == 0);
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_forces");
    TCase *tc = tcase_create("constant force");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_constant_force_explicit_closed_form);
    tcase_add_test(tc, test_constant_force_implicit_closed_form);
    tcase_add_test(tc, test_constant_force_points);
    tcase_add_test(tc, test_constant_force_bad_arguments);
    tcase_add_test(tc, test_constant_force_scene_matches_api);
    tcase_add_test(tc, test_constant_forces_per_point);
    tcase_add_test(tc, test_constant_force_scene_errors);
    tcase_add_test(tc, test_rest_shape_static_equilibrium);
    tcase_add_test(tc, test_rest_shape_bad_arguments);
    tcase_add_test(tc, test_rest_shape_scene_matches_api);
    tcase_add_test(tc, test_polynomial_springs_by_hand);
    tcase_add_test(tc, test_polynomial_springs_linear_equilibrium);
    tcase_add_test(tc, test_polynomial_springs_bad_arguments);
    tcase_add_test(tc, test_polynomial_springs_scene_matches_api);
    tcase_add_test(tc, test_polynomial_springs_rest_position);
    suite_add_tcase(s, tc);
    return s;
}
