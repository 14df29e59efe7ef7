/* The direct linear solver (sparse LDL^T of the assembled system, SuiteSparse CHOLMOD) against the
 * matrix-free CG solving the same implicit Euler and static systems to a tight tolerance: states agree to
 * 1e-8 relative; the static step of a linear problem lands on the closed-form equilibrium; every executor and
 * worker count gives seq's state hash; a group with a part that cannot be assembled is solved by CG, bitwise
 * as a CG world. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "tetra_grid.h"

#include <math.h>
#include <string.h>

static pf_solver_def solver(pf_solver_kind kind, pf_linear_solver ls)
{
    pf_solver_def s = pf_solver_default_def();
    s.kind = kind;
    s.linear_solver = ls;
    s.cg_iterations = 2000;
    s.cg_tolerance = 1e-14;
    s.rayleigh_stiffness = 0.01;
    return s;
}

/* two spring grids (a sheet and a block) joined by interaction springs, the sheet held at two corners: one
 * group */
static void coupled_scene(pf_world *w, pf_solver_def s)
{
    pf_object_id ids[2];
    for (int b = 0; b < 2; b++) {
        pf_object_def o = pf_object_default_def();
        o.grid[0] = 6, o.grid[1] = 4, o.grid[2] = b ? 3 : 1;
        o.grid_min[0] = 0.7 * b, o.grid_max[0] = 0.7 * b + 0.5, o.grid_max[1] = 0.3,
        o.grid_max[2] = b ? 0.2 : 0;
        double pm[72]; /* the block's masses differ point to point: M is not a multiple of I */
        for (int i = 0; i < 72; i++)
            pm[i] = 0.01 + 0.0005 * (i % 7);
        o.vertex_mass = 0.01;
        o.point_masses = b ? pm : NULL;
        o.solver = s;
        ck_assert_int_eq(pf_world_add_object(w, &o, &ids[b]), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_springs(w, ids[b], b ? 400 : 150, 0.2, NULL, NULL), PF_OK);
    }
    ck_assert_int_eq(pf_world_fix_points(w, ids[0], (const uint32_t[2]){0, 18}, 2), PF_OK);
    pf_spring link[2] = {{5, 0, 300, 0.1, -1}, {23, 18, 300, 0.1, -1}};
    ck_assert_int_eq(pf_world_add_interaction_springs(w, ids[0], ids[1], link, 2, NULL), PF_OK);
}

static double relative_gap(pf_world *a, pf_world *b)
{
    double num = 0, den = 0;
    for (uint32_t o = 0; o < pf_world_objects(a); o++) {
        uint32_t n, m;
        const double *xa = pf_world_positions(a, (pf_object_id){o}, &n),
                     *xb = pf_world_positions(b, (pf_object_id){o}, &m);
        ck_assert_uint_eq(n, m);
        for (size_t i = 0; i < 3 * (size_t)n; i++) {
            num = fmax(num, fabs(xa[i] - xb[i]));
            den = fmax(den, fabs(xa[i]));
        }
    }
    return num / den;
}

/* a spring block held by its x = 0 face: -K is definite (braced cells), so the static step is well posed */
static void held_block(pf_world *w, pf_solver_def s)
{
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 7, o.grid[1] = 3, o.grid[2] = 3;
    o.grid_max[0] = 0.6, o.grid_max[1] = 0.2, o.grid_max[2] = 0.2;
    o.vertex_mass = 0.05;
    o.solver = s;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 300, 0.2, NULL, NULL), PF_OK);
    double face[6] = {-0.01, -1, -1, 0.01, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, face, NULL), PF_OK);
}

/* implicit Euler on the coupled scene, and the static step on the held block: direct and CG agree */
START_TEST(direct_agrees_with_cg)
{
    static const pf_solver_kind kinds[] = {PF_SOLVER_IMPLICIT_EULER, PF_SOLVER_STATIC};
    for (int k = 0; k < 2; k++) {
        pf_world *cg = new_world(PF_EXEC_SEQ, 1), *ldl = new_world(PF_EXEC_SEQ, 1);
        void (*scene)(pf_world *, pf_solver_def) = k ? held_block : coupled_scene;
        scene(cg, solver(kinds[k], PF_LINEAR_CG));
        scene(ldl, solver(kinds[k], PF_LINEAR_DIRECT));
        ck_assert_msg(pf_world_step(cg, 20) == PF_OK, "%s", pf_last_error());
        ck_assert_msg(pf_world_step(ldl, 20) == PF_OK, "%s", pf_last_error());
        double gap = relative_gap(cg, ldl);
        ck_assert_msg(gap < 1e-8, "solver %d: direct and CG differ by %g relative", (int)kinds[k], gap);
        pf_world_stats st;
        ck_assert_int_eq(pf_world_get_stats(ldl, &st), PF_OK);
        ck_assert_uint_eq(st.cg_iterations, 0); /* no CG loop ran */
        ck_assert_uint_eq(st.cg_solves, 20);
        ck_assert_uint_eq(st.cg_unconverged + st.cg_stalled, 0);
        ck_assert_int_eq(pf_world_get_stats(cg, &st), PF_OK);
        ck_assert_uint_gt(st.cg_iterations, 0);
        pf_world_destroy(cg);
        pf_world_destroy(ldl);
    }
}
END_TEST

/* A chain of 3 points hanging by springs (rest length 0.9, so stretched: a spring at rest has no lateral
 * stiffness, and the direct solver needs A definite) from a fixed point: one static step with the direct
 * solver lands on the closed-form equilibrium, spring j stretched by the weight below it over k, to
 * round-off. */
START_TEST(direct_static_chain_equilibrium)
{
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    double k = 100, m = 0.5;
    pf_object_def o = pf_object_default_def();
    o.points = 4;
    o.positions = (const double[12]){0, 0, 0, 0, 0, -1, 0, 0, -2, 0, 0, -3};
    o.vertex_mass = m;
    o.solver.kind = PF_SOLVER_STATIC;
    o.solver.linear_solver = PF_LINEAR_DIRECT;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, (const uint32_t[1]){0}, 1), PF_OK);
    pf_spring s[3] = {{0, 1, k, 0, 0.9}, {1, 2, k, 0, 0.9}, {2, 3, k, 0, 0.9}};
    ck_assert_int_eq(pf_world_add_springs(w, id, s, 3, NULL), PF_OK);
    ck_assert_msg(pf_world_step(w, 1) == PF_OK, "%s", pf_last_error());
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    double z = 0, g = -pf_world_default_def().gravity[2];
    for (int i = 1; i <= 3; i++) {
        z -= 0.9 + (4 - i) * m * g / k;
        ck_assert_msg(fabs(x[3 * i + 2] - z) < 1e-12, "point %d at %.15g, equilibrium %.15g", i, x[3 * i + 2],
                      z);
    }
    pf_world_destroy(w);
}
END_TEST

/* a 5 x 2 x 2-cell beam held at x = 0 with an FEM of each kind: hexahedra on the grid, the cells cut into 6
 * tetrahedra each (Kuhn), or the top face's cells as 2 membrane triangles each */
enum { NX = 6, NY = 3, NZ = 3 };
static uint32_t corner(int i, int j, int k)
{
    return (uint32_t)(i + NX * (j + NY * k));
}

static void fem_beam(pf_world *w, pf_solver_def s, int kind)
{
    pf_object_def o = pf_object_default_def();
    o.grid[0] = NX, o.grid[1] = NY, o.grid[2] = NZ;
    o.grid_max[0] = 1, o.grid_max[1] = 0.2, o.grid_max[2] = 0.2;
    o.vertex_mass = 0.02;
    o.solver = s;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    uint32_t tets[(NX - 1) * (NY - 1) * (NZ - 1) * 24], tris[(NX - 1) * (NY - 1) * 6];
    uint32_t nt = kuhn_tetrahedra(NX, NY, NZ, tets), nr = 0;
    for (int j = 0; j < NY - 1; j++)
        for (int i = 0; i < NX - 1; i++) {
            uint32_t a = corner(i, j, NZ - 1), b = corner(i + 1, j, NZ - 1), c = corner(i + 1, j + 1, NZ - 1),
                     d = corner(i, j + 1, NZ - 1);
            uint32_t two[6] = {a, b, c, a, c, d};
            memcpy(tris + 3 * nr, two, sizeof two);
            nr += 2;
        }
    if (kind == 0) {
        pf_hexa_fem_def d = pf_hexa_fem_default_def();
        d.young_modulus = 2e4;
        ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &d, NULL), PF_OK);
    } else if (kind == 1) {
        pf_tetra_fem_def d = pf_tetra_fem_default_def();
        d.young_modulus = 2e4, d.tetrahedra = tets, d.ntetrahedra = nt;
        ck_assert_msg(pf_world_add_tetra_fem(w, id, &d, NULL) == PF_OK, "%s", pf_last_error());
    } else {
        ck_assert_int_eq(pf_world_add_grid_springs(w, id, 200, 0.1, NULL, NULL), PF_OK);
        pf_triangle_fem_def d = pf_triangle_fem_default_def();
        d.young_modulus = 1e4, d.thickness = 0.01, d.triangles = tris, d.ntriangles = nr;
        ck_assert_int_eq(pf_world_add_triangle_fem(w, id, &d, NULL), PF_OK);
    }
    double face[6] = {-0.01, -1, -1, 0.01, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, face, NULL), PF_OK);
}

/* hexahedral, tetrahedral and membrane FEM, corotational, bent by gravity: implicit Euler with the direct
 * solver against CG */
START_TEST(direct_fem_agrees_with_cg)
{
    for (int kind = 0; kind < 3; kind++) {
        pf_world *cg = new_world(PF_EXEC_SEQ, 1), *ldl = new_world(PF_EXEC_SEQ, 1);
        fem_beam(cg, solver(PF_SOLVER_IMPLICIT_EULER, PF_LINEAR_CG), kind);
        fem_beam(ldl, solver(PF_SOLVER_IMPLICIT_EULER, PF_LINEAR_DIRECT), kind);
        ck_assert_msg(pf_world_step(cg, 30) == PF_OK, "%s", pf_last_error());
        ck_assert_msg(pf_world_step(ldl, 30) == PF_OK, "%s", pf_last_error());
        pf_world_stats st;
        ck_assert_int_eq(pf_world_get_stats(ldl, &st), PF_OK);
        ck_assert_uint_eq(st.cg_iterations, 0); /* solved directly, not by the CG fallback */
        double gap = relative_gap(cg, ldl);
        uint32_t n;
        double sag = -pf_world_positions(cg, (pf_object_id){0}, &n)[3 * (NX - 1) + 2];
        ck_assert_msg(sag > 1e-3, "kind %d: the beam should bend (tip %g)", kind, sag);
        ck_assert_msg(gap < 1e-8, "kind %d: direct and CG differ by %g relative", kind, gap);
        pf_world_destroy(cg);
        pf_world_destroy(ldl);
    }
}
END_TEST

/* A chain hanging by springs at their rest length has no lateral stiffness: the static system is singular,
 * the factorisation fails, and the step says so and keeps the last good state. */
START_TEST(direct_singular_system_reported)
{
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_object_def o = pf_object_default_def();
    o.points = 3;
    o.positions = (const double[9]){0, 0, 0, 0, 0, -1, 0, 0, -2};
    o.solver.kind = PF_SOLVER_STATIC;
    o.solver.linear_solver = PF_LINEAR_DIRECT;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, (const uint32_t[1]){0}, 1), PF_OK);
    pf_spring s[2] = {{0, 1, 100, 0, 1.0}, {1, 2, 100, 0, 1.0}};
    ck_assert_int_eq(pf_world_add_springs(w, id, s, 2, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_ENUMERIC);
    ck_assert_msg(strstr(pf_last_error(), "could not factorise the system of object 0's group"), "%s",
                  pf_last_error());
    uint32_t n;
    ck_assert_double_eq(pf_world_positions(w, id, &n)[5], -1); /* the last good state */
    pf_world_destroy(w);
}
END_TEST

/* a spring box resting on a static floor (contacts with friction and damping, pushing against an object outside
 * the group) and leaning on a second box (contacts between two members): direct and CG agree step by step */
static pf_world *boxes_on_floor(pf_linear_solver ls)
{
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_collision_def cd = pf_collision_default_def();
    cd.friction = 0.5;
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
    pf_object_def fo = pf_object_default_def();
    fo.grid[0] = fo.grid[1] = fo.grid[2] = 2;
    fo.grid_min[0] = fo.grid_min[1] = -1, fo.grid_min[2] = -0.2;
    fo.grid_max[0] = fo.grid_max[1] = 1;
    fo.solver = solver(PF_SOLVER_IMPLICIT_EULER, ls); /* its own group (static): solved alike */
    pf_object_id floor;
    ck_assert_int_eq(pf_world_add_object(w, &fo, &floor), PF_OK);
    double all[6] = {-9, -9, -9, 9, 9, 9};
    ck_assert_int_eq(pf_world_fix_box(w, floor, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
    for (int b = 0; b < 2; b++) {
        pf_object_def o = pf_object_default_def();
        o.grid[0] = o.grid[1] = o.grid[2] = 3;
        o.grid_min[0] = -0.25 + 0.255 * b, o.grid_min[1] = -0.1, o.grid_min[2] = 0.004 + 0.1 * b;
        o.grid_max[0] = o.grid_min[0] + 0.25, o.grid_max[1] = 0.15, o.grid_max[2] = o.grid_min[2] + 0.25;
        o.total_mass = 1;
        o.solver = solver(PF_SOLVER_IMPLICIT_EULER, ls);
        o.solver.rayleigh_stiffness = 0;
        pf_object_id id;
        ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_springs(w, id, 3000, 1, NULL, NULL), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_surface(w, id, NULL), PF_OK);
    }
    return w;
}

START_TEST(direct_contacts_agree_with_cg)
{
    pf_world *cg = boxes_on_floor(PF_LINEAR_CG), *ldl = boxes_on_floor(PF_LINEAR_DIRECT);
    for (int step = 0; step < 40; step++) {
        ck_assert_msg(pf_world_step(cg, 1) == PF_OK, "%s", pf_last_error());
        ck_assert_msg(pf_world_step(ldl, 1) == PF_OK, "%s", pf_last_error());
        double gap = relative_gap(cg, ldl);
        ck_assert_msg(gap < 1e-8, "step %d: direct and CG differ by %g relative", step, gap);
    }
    pf_collision_stats cs;
    ck_assert_int_eq(pf_world_get_collision_stats(ldl, &cs), PF_OK);
    ck_assert_uint_gt(cs.contacts, 0);
    pf_world_stats st;
    ck_assert_int_eq(pf_world_get_stats(ldl, &st), PF_OK);
    ck_assert_uint_eq(st.cg_iterations, 0); /* the contacts were assembled: no CG fallback */
    pf_world_destroy(cg);
    pf_world_destroy(ldl);
}
END_TEST

static uint64_t coupled_hash(pf_executor e, int workers)
{
    pf_world *w = new_world(e, workers);
    coupled_scene(w, solver(PF_SOLVER_IMPLICIT_EULER, PF_LINEAR_DIRECT));
    ck_assert_int_eq(pf_world_step(w, 15), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(direct_same_hash_every_executor)
{
    uint64_t ref = coupled_hash(PF_EXEC_SEQ, 1);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++)
            ck_assert_msg(coupled_hash((pf_executor)e, workers) == ref, "executor %d, %d workers", e,
                          workers);
}
END_TEST

static void soft_pull(const double *x, const double *v, double *f, uint32_t n, void *ctx)
{
    (void)v, (void)ctx;
    for (uint32_t i = 0; i < n; i++)
        f[3 * i] -= 2 * x[3 * i];
}

static void soft_pull_df(const double *x, const double *dx, double *df, double kfact, uint32_t n, void *ctx)
{
    (void)x, (void)ctx;
    for (uint32_t i = 0; i < n; i++)
        df[3 * i] -= kfact * 2 * dx[3 * i];
}

static uint64_t custom_hash(pf_linear_solver ls)
{
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    coupled_scene(w, solver(PF_SOLVER_IMPLICIT_EULER, ls));
    pf_force_field_def ff = pf_force_field_default_def();
    ff.add_force = soft_pull, ff.add_dforce = soft_pull_df;
    ck_assert_int_eq(pf_world_add_force_field(w, (pf_object_id){1}, &ff, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

/* a host force field with stiffness cannot be assembled: the group is solved by CG, exactly as asked of CG */
START_TEST(unassembled_group_falls_back_to_cg)
{
    ck_assert(custom_hash(PF_LINEAR_DIRECT) == custom_hash(PF_LINEAR_CG));
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_direct");
    TCase *tc = tcase_create("direct");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, direct_agrees_with_cg);
    tcase_add_test(tc, direct_static_chain_equilibrium);
    tcase_add_test(tc, direct_fem_agrees_with_cg);
    tcase_add_test(tc, direct_singular_system_reported);
    tcase_add_test(tc, direct_contacts_agree_with_cg);
    tcase_add_test(tc, direct_same_hash_every_executor);
    tcase_add_test(tc, unassembled_group_falls_back_to_cg);
    suite_add_tcase(s, tc);
    return s;
}
