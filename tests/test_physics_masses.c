/* Per-point masses (pf_object_def.point_masses, SOFA DiagonalMass) against closed forms: two unequal masses joined
 * by a spring keep their momentum and their centre of mass moves as a free particle (explicit and implicit Euler);
 * under gravity alone every point falls alike whatever its mass; the spring's period is 2 pi / sqrt(k (1/m1 +
 * 1/m2)); Rayleigh mass damping slows every point alike; a uniform array is bit for bit the same object as
 * vertex_mass; the same state for seq and static at 1, 2 and 3 workers. Then the lumped masses a scene measures
 * on a mesh (scenes/component_mass.c) against hand computations: a cube of tetrahedra, hexahedra, a closed
 * triangle surface, quads, edges. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "scenes/components.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static pf_world *make_world(double dt, const double g[3], pf_executor e, int workers)
{
    return new_world_dg(e, workers, dt, g);
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

/* ---------- lumped masses measured on a mesh (scenes/component_mass.c) ---------- */

/* cube [0, s]^3, vertex v = i + 2j + 4k at (i, j, k) s */
static void cube_points(double s, double x[24])
{
    for (int v = 0; v < 8; v++)
        for (int d = 0; d < 3; d++) x[3 * v + d] = (v >> d & 1) * s;
}

START_TEST(test_lumped_tetrahedra)
{
    const double s = 0.7, rho = 1200;
    double x[24], mass[8] = {0};
    cube_points(s, x);
    /* four corner tetrahedra (s^3/6 each) and the middle one (s^3/3) */
    static const uint32_t tets[20] = {0, 1, 2, 4, 3, 1, 2, 7, 5, 1, 4, 7, 6, 2, 4, 7, 1, 2, 4, 7};
    double total = sc_lump_masses(x, SC_MASS_TETRAHEDRA, tets, 5, &rho, 1, mass);
    double v = s * s * s, sum = 0;
    ck_assert_msg(fabs(total - v * rho) <= 1e-12 * v * rho, "total %.17g, side^3 x density %.17g", total, v * rho);
    for (int i = 0; i < 8; i++) {
        /* a corner of one corner tetrahedron: rho s^3/24; a vertex of the middle one: 3 rho s^3/24 + rho s^3/12 */
        int middle = i == 1 || i == 2 || i == 4 || i == 7;
        double want = rho * v * (middle ? 5.0 / 24 : 1.0 / 24);
        ck_assert_msg(fabs(mass[i] - want) <= 1e-12 * want, "vertex %d: %.17g, by hand %.17g", i, mass[i], want);
        sum += mass[i];
    }
    ck_assert_double_eq_tol(sum, total, 1e-12 * total);
    /* a density per element: the middle one 3 times denser adds 2 rho s^3 / 3 to its four vertices */
    double dens[5] = {rho, rho, rho, rho, 3 * rho}, m2[8] = {0};
    total = sc_lump_masses(x, SC_MASS_TETRAHEDRA, tets, 5, dens, 5, m2);
    ck_assert_double_eq_tol(total, rho * v * (4.0 / 6 + 1.0), 1e-12 * total);
    ck_assert_double_eq_tol(m2[7], rho * v * (3.0 / 24 + 3.0 / 12), 1e-12 * total);
    ck_assert_double_eq_tol(m2[0], rho * v / 24, 1e-12 * total);
}
END_TEST

START_TEST(test_lumped_hexahedra)
{
    /* a parallelepiped: edges a, b, c; volume |a . (b x c)|, V/8 per vertex, whatever the vertex order's mirror */
    const double a[3] = {0.5, 0, 0}, b[3] = {0.1, 0.4, 0}, c[3] = {0.05, -0.1, 0.3}, rho = 7.5;
    double x[24];
    /* VTK order: bottom face 0 1 2 3 = o, a, a+b, b; top face 4-7 the same plus c */
    static const int ab[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int v = 0; v < 8; v++)
        for (int d = 0; d < 3; d++) x[3 * v + d] = ab[v % 4][0] * a[d] + ab[v % 4][1] * b[d] + (v >= 4) * c[d];
    double vol = fabs(a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                      a[2] * (b[0] * c[1] - b[1] * c[0]));
    static const uint32_t hex[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {4, 5, 6, 7, 0, 1, 2, 3}}; /* and upside down */
    for (int k = 0; k < 2; k++) {
        double mass[8] = {0};
        double total = sc_lump_masses(x, SC_MASS_HEXAHEDRA, hex[k], 1, &rho, 1, mass);
        ck_assert_msg(fabs(total - vol * rho) <= 1e-12 * vol * rho, "total %.17g, volume x density %.17g", total,
                      vol * rho);
        for (int i = 0; i < 8; i++) ck_assert_double_eq_tol(mass[i], vol * rho / 8, 1e-12 * vol * rho);
    }
}
END_TEST

START_TEST(test_lumped_surfaces_and_edges)
{
    /* a closed box surface: its area x density */
    const double e[3] = {0.5, 1, 1.5}, rho = 2.5;
    pf_mesh box;
    ck_assert_int_eq(pf_mesh_box(e, &box), PF_OK);
    double mass[8] = {0};
    double total = sc_lump_masses(box.positions, SC_MASS_TRIANGLES, box.indices, box.triangles, &rho, 1, mass);
    double area = 8 * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0]), sum = 0;
    ck_assert_msg(fabs(total - area * rho) <= 1e-12 * area * rho, "total %.17g, area x density %.17g", total,
                  area * rho);
    for (int i = 0; i < 8; i++) sum += mass[i];
    ck_assert_double_eq_tol(sum, area * rho, 1e-12 * area * rho);
    pf_mesh_free(&box);
    /* a unit square as two triangles (0 1 2) (0 2 3): the diagonal's ends in both, 1/3 each; the others 1/6 */
    const double sq[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, one = 1;
    static const uint32_t tris[6] = {0, 1, 2, 0, 2, 3}, quad[4] = {0, 1, 2, 3}, edges[4] = {0, 1, 1, 2};
    double m[4] = {0};
    sc_lump_masses(sq, SC_MASS_TRIANGLES, tris, 2, &one, 1, m);
    ck_assert_double_eq_tol(m[0], 1.0 / 3, 1e-15);
    ck_assert_double_eq_tol(m[2], 1.0 / 3, 1e-15);
    ck_assert_double_eq_tol(m[1], 1.0 / 6, 1e-15);
    ck_assert_double_eq_tol(m[3], 1.0 / 6, 1e-15);
    /* as one quad: a quarter each */
    memset(m, 0, sizeof m);
    ck_assert_double_eq_tol(sc_lump_masses(sq, SC_MASS_QUADS, quad, 1, &rho, 1, m), rho, 1e-15);
    for (int i = 0; i < 4; i++) ck_assert_double_eq_tol(m[i], rho / 4, 1e-15);
    /* two edges of length 1: half each to their ends, the shared point both halves */
    memset(m, 0, sizeof m);
    ck_assert_double_eq_tol(sc_lump_masses(sq, SC_MASS_EDGES, edges, 2, &rho, 1, m), 2 * rho, 1e-15);
    ck_assert_double_eq_tol(m[0], rho / 2, 1e-15);
    ck_assert_double_eq_tol(m[1], rho, 1e-15);
    ck_assert_double_eq_tol(m[2], rho / 2, 1e-15);
    ck_assert(m[3] == 0);
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
    tcase_add_test(tc, test_lumped_tetrahedra);
    tcase_add_test(tc, test_lumped_hexahedra);
    tcase_add_test(tc, test_lumped_surfaces_and_edges);
    suite_add_tcase(s, tc);
    return s;
}
