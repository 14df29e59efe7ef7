/* Surfaces mapped barycentrically onto a tetrahedral mesh (SOFA BarycentricMapping onto tetrahedra). Oracles:
 * a barycentric (and, outside the mesh, extrapolated) interpolation reproduces any affine motion of the mesh
 * exactly; a sphere embedded in a tetrahedral FEM block falls onto a floor and rests there (its contact
 * forces reach the block through J^T); the argument checks. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "tetra_grid.h"

#include <math.h>
#include <string.h>

enum { N = 3 }; /* a 3 x 3 x 3 grid of points, 8 cubes of 6 tetrahedra (Kuhn) */

static pf_world *make_world(double gz)
{
    pf_world_def d = test_world_def(PF_EXEC_SEQ, 1);
    d.gravity[2] = gz;
    return create_world(&d);
}

/* a 0.3 m block of N^3 points from `lo` */
static pf_object_id block(pf_world *w, double z0)
{
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = o.grid[2] = N;
    o.grid_min[0] = o.grid_min[1] = -0.15, o.grid_min[2] = z0;
    o.grid_max[0] = o.grid_max[1] = 0.15, o.grid_max[2] = z0 + 0.3;
    o.total_mass = 2;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    return id;
}

START_TEST(barycentric_follows_affine_motion)
{
    pf_world *w = make_world(0);
    pf_object_id id = block(w, 0);
    uint32_t tets[8 * 6 * 4], nt = kuhn_tetrahedra(N, N, N, tets);
    const double pts[4 * 3] = {0.01, -0.02, 0.13, 0.14, 0.14, 0.29, -0.149, 0.05, 0.001, 0.3, 0.2, 0.4};
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_BARYCENTRIC;
    sd.vertices = 4, sd.positions = pts, sd.tetrahedra = tets, sd.ntetrahedra = nt;
    pf_surface_id sid;
    ck_assert_int_eq(pf_world_add_surface(w, id, &sd, &sid), PF_OK);
    /* the mesh moved by x' = A x + b */
    const double A[9] = {1.1, 0.2, -0.1, 0.05, 0.9, 0.3, -0.2, 0.1, 1.3}, b[3] = {0.5, -0.25, 1};
    uint32_t n;
    const double *x0 = pf_world_positions(w, id, &n);
    double x[3 * N * N * N];
    for (uint32_t i = 0; i < n; i++)
        for (int r = 0; r < 3; r++)
            x[3 * i + r] =
                A[3 * r] * x0[3 * i] + A[3 * r + 1] * x0[3 * i + 1] + A[3 * r + 2] * x0[3 * i + 2] + b[r];
    ck_assert_int_eq(pf_world_set_state(w, id, x, NULL), PF_OK);
    uint32_t nv;
    const double *p = pf_world_surface_positions(w, sid, &nv);
    ck_assert_uint_eq(nv, 4);
    for (int v = 0; v < 4; v++) /* the last vertex lies outside the mesh: extrapolated, still exact */
        for (int r = 0; r < 3; r++) {
            const double *q = pts + 3 * v;
            double expect = A[3 * r] * q[0] + A[3 * r + 1] * q[1] + A[3 * r + 2] * q[2] + b[r];
            ck_assert_msg(fabs(p[3 * v + r] - expect) < 1e-12, "vertex %d axis %d: %.15g, affine %.15g", v, r,
                          p[3 * v + r], expect);
        }
    pf_world_destroy(w);
}
END_TEST

/* an icosphere of radius 0.14 m embedded in a tetrahedral FEM block falls 0.2 m onto a static floor and rests
 * on it: the floor pushes the sphere, the sphere the block */
START_TEST(embedded_sphere_rests_on_floor)
{
    pf_world *w = make_world(-9.81);
    pf_collision_def cd = pf_collision_default_def();
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
    pf_object_def fo = pf_object_default_def();
    fo.grid[0] = fo.grid[1] = fo.grid[2] = 2;
    fo.grid_min[0] = fo.grid_min[1] = -1, fo.grid_min[2] = -0.2;
    fo.grid_max[0] = fo.grid_max[1] = 1, fo.grid_max[2] = 0;
    pf_object_id floor;
    ck_assert_int_eq(pf_world_add_object(w, &fo, &floor), PF_OK);
    double all[6] = {-9, -9, -9, 9, 9, 9};
    ck_assert_int_eq(pf_world_fix_box(w, floor, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
    pf_object_id id = block(w, 0.06);
    uint32_t tets[8 * 6 * 4], nt = kuhn_tetrahedra(N, N, N, tets);
    pf_tetra_fem_def fem = pf_tetra_fem_default_def();
    fem.young_modulus = 2e5, fem.tetrahedra = tets, fem.ntetrahedra = nt;
    ck_assert_int_eq(pf_world_add_tetra_fem(w, id, &fem, NULL), PF_OK);
    pf_mesh ball;
    ck_assert_int_eq(pf_mesh_icosphere(0.14, 1, &ball), PF_OK);
    for (uint32_t v = 0; v < ball.vertices; v++)
        ball.positions[3 * v + 2] += 0.06 + 0.15;
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_BARYCENTRIC;
    sd.vertices = ball.vertices, sd.positions = ball.positions;
    sd.indices = ball.indices, sd.triangles = ball.triangles;
    sd.tetrahedra = tets, sd.ntetrahedra = nt;
    pf_surface_id sid;
    ck_assert_int_eq(pf_world_add_surface(w, id, &sd, &sid), PF_OK);
    pf_mesh_free(&ball);
    ck_assert_msg(pf_world_step(w, 150) == PF_OK, "%s", pf_last_error()); /* 1.5 s */
    uint32_t nv, np;
    const double *p = pf_world_surface_positions(w, sid, &nv), *v = pf_world_velocities(w, id, &np);
    double low = INFINITY;
    for (uint32_t k = 0; k < nv; k++)
        low = fmin(low, p[3 * k + 2]);
    ck_assert_msg(low > -cd.contact_distance && low < 2 * cd.alarm_distance, "lowest sphere vertex at %g",
                  low);
    ck_assert_msg(fabs(v[2]) < 0.05, "the block still moves at %g m/s", v[2]);
    pf_world_destroy(w);
}
END_TEST

START_TEST(barycentric_refusals)
{
    pf_world *w = make_world(0);
    pf_object_id id = block(w, 0);
    const double pts[3] = {0, 0, 0.1};
    uint32_t bad[4] = {0, 1, 3, 99};
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_BARYCENTRIC;
    sd.vertices = 1, sd.positions = pts;
    ck_assert_int_eq(pf_world_add_surface(w, id, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.ntetrahedra"), "%s", pf_last_error());
    sd.ntetrahedra = 1;
    ck_assert_int_eq(pf_world_add_surface(w, id, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.tetrahedra"), "%s", pf_last_error());
    sd.tetrahedra = bad;
    ck_assert_int_eq(pf_world_add_surface(w, id, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.tetrahedra[3] = 99"), "%s", pf_last_error());
    pf_rigid_def rd = pf_rigid_default_def();
    pf_object_id r;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_OK);
    bad[3] = 0;
    ck_assert_int_eq(pf_world_add_surface(w, r, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "rigid body"), "%s", pf_last_error());
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_barycentric");
    TCase *tc = tcase_create("barycentric");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, barycentric_follows_affine_motion);
    tcase_add_test(tc, embedded_sphere_rests_on_floor);
    tcase_add_test(tc, barycentric_refusals);
    suite_add_tcase(s, tc);
    return s;
}
