/* Surfaces mapped trilinearly onto a list of hexahedra (PF_SURFACE_TRILINEAR with def.hexahedra; SOFA
 * BarycentricMapping onto a hexahedral mesh). Oracles: the test's own trilinear map of points placed at chosen
 * local coordinates of distorted cells (reproduced at rest, and followed under a non-affine deformation); an affine
 * motion, which the trilinear map of any cell carries exactly; the analytic local coordinates of a parallelepiped
 * (read back as the weight of one corner, by moving that corner alone); a hand-computed trilinear value where the
 * six-tetrahedra split gives another; a scene whose hexahedral parent is deformed by hand; the same state hash for
 * every executor, worker count and partitioner; a brute force over every cell for the cell each point is located
 * in; the argument checks. */
#include "check_main.h"

#include "physics/surface.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "scene_files.h"
#include "tetra_grid.h"
#include "world_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 3, NP = N * N * N, NH = (N - 1) * (N - 1) * (N - 1) };

/* SOFA's corner k of a hexahedron at local (u, v, w) = unit[k] */
static const int unit[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* the (n-1)^3 cells of an n^3 lattice (point (i, j, k) = i + n (j + n k)) in SOFA's corner order */
static void lattice_hexahedra_n(int n, uint32_t *h)
{
    for (int k = 0, c = 0; k < n - 1; k++)
        for (int j = 0; j < n - 1; j++)
            for (int i = 0; i < n - 1; i++, c++)
                for (int q = 0; q < 8; q++)
                    h[8 * c + q] = (uint32_t)(i + unit[q][0] + n * (j + unit[q][1] + n * (k + unit[q][2])));
}

static void lattice_hexahedra(uint32_t *h)
{
    lattice_hexahedra_n(N, h);
}

/* the lattice's points, 0.5 m apart, each moved by up to 0.09 m along a fixed irregular pattern: no cell is a
 * parallelepiped (its faces are not even planar) */
static void distorted_points_n(int n, double *x)
{
    for (int k = 0, p = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++, p++) {
                x[3 * p] = 0.5 * i + 0.09 * sin(1.7 * i + 2.3 * j + 0.9 * k + 0.4);
                x[3 * p + 1] = 0.5 * j + 0.08 * cos(0.8 * i + 1.9 * j + 2.9 * k);
                x[3 * p + 2] = 0.5 * k + 0.07 * sin(2.6 * i + 0.7 * j + 1.3 * k + 1.1);
            }
}

static void distorted_points(double *x)
{
    distorted_points_n(N, x);
}

/* the test's own trilinear map: sum_k N_k(u) x[h[k]] */
static void trilinear(const double *x, const uint32_t *h, const double u[3], double out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < 8; k++) {
        double w = 1;
        for (int d = 0; d < 3; d++) w *= unit[k][d] ? u[d] : 1 - u[d];
        for (int a = 0; a < 3; a++) out[a] += w * x[3 * (size_t)h[k] + a];
    }
}

static pf_object_id add_points(pf_world *w, const double *x, uint32_t n)
{
    pf_object_def o = pf_object_default_def();
    o.points = n;
    o.positions = x;
    o.total_mass = 1;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    return id;
}

static pf_surface_id add_hexa_surface(pf_world *w, pf_object_id o, const double *p, uint32_t nv, const uint32_t *h,
                                      uint32_t nh)
{
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_TRILINEAR;
    sd.vertices = nv, sd.positions = p, sd.hexahedra = h, sd.nhexahedra = nh;
    pf_surface_id sid;
    ck_assert_msg(pf_world_add_surface(w, o, &sd, &sid) == PF_OK, "%s", pf_last_error());
    return sid;
}

/* vertices at chosen local coordinates of chosen cells: inside, on a face shared by two cells, at a corner, and
 * (the last two) a little outside the mesh's boundary faces, which their cell's map extrapolates to */
enum { NV = 8 };
static const int cell_of[NV] = {0, 3, 5, 7, 6, 2, 1, 7};
static const double local_of[NV][3] = {{0.3, 0.6, 0.8},   {0.05, 0.93, 0.41}, {0.5, 0.5, 0.5},   {0.71, 0.18, 0.99},
                                       {0.2, 0.35, 0},    {1, 1, 1},          {1.08, 0.4, 0.7},  {0.6, 0.55, 1.06}};

static void chosen_vertices(const double *x, const uint32_t *h, double *p)
{
    for (int v = 0; v < NV; v++) trilinear(x, h + 8 * cell_of[v], local_of[v], p + 3 * v);
}

/* (a) at rest every vertex is where it was given; under a non-affine deformation of the whole mesh each one stays
 * at its local coordinates: the trilinear map of its cell's moved corners */
START_TEST(test_distorted_mesh_rest_and_deformed)
{
    double x[3 * NP], p[3 * NV];
    uint32_t h[8 * NH];
    distorted_points(x);
    lattice_hexahedra(h);
    chosen_vertices(x, h, p);
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_object_id o = add_points(w, x, NP);
    pf_surface_id s = add_hexa_surface(w, o, p, NV, h, NH);
    uint32_t nv;
    const double *q = pf_world_surface_positions(w, s, &nv);
    ck_assert_uint_eq(nv, NV);
    for (int i = 0; i < 3 * NV; i++)
        ck_assert_msg(fabs(q[i] - p[i]) < 1e-12, "vertex %d axis %d at rest: %.17g, given %.17g", i / 3, i % 3, q[i],
                      p[i]);
    double y[3 * NP];
    for (int k = 0; k < NP; k++) {
        const double *a = x + 3 * k;
        y[3 * k] = a[0] + 0.3 * a[1] * a[1] - 0.1 * a[2];
        y[3 * k + 1] = a[1] + 0.2 * a[0] * a[2] + 0.05 * sin(3 * a[0]);
        y[3 * k + 2] = a[2] - 0.25 * a[0] * a[1] * a[2];
    }
    ck_assert_int_eq(pf_world_set_state(w, o, y, NULL), PF_OK);
    q = pf_world_surface_positions(w, s, NULL);
    for (int v = 0; v < NV; v++) {
        double want[3];
        trilinear(y, h + 8 * cell_of[v], local_of[v], want);
        for (int a = 0; a < 3; a++)
            ck_assert_msg(fabs(q[3 * v + a] - want[a]) < 1e-10, "vertex %d axis %d deformed: %.15g, trilinear %.15g",
                          v, a, q[3 * v + a], want[a]);
    }
    pf_world_destroy(w);
}
END_TEST

/* points well outside the distorted mesh, half a cell to one cell off its corners and edges, where the trilinear
 * maps of the nearest cells fold before reaching them */
enum { NFAR = 4 };
static const double far_points[NFAR][3] = {{-0.45, -0.5, -0.4}, {1.5, -0.55, 0.6}, {1.4, 1.45, 1.5}, {-0.5, 1.1, 1.45}};

/* (b) an affine motion x' = A x + b of the distorted mesh carries every vertex, inside or extrapolated outside, to
 * A p + b (each corner weight sums to 1 and the map is linear in the corners); the points far outside too, which
 * are in place at rest */
START_TEST(test_affine_motion)
{
    double x[3 * NP], p[3 * (NV + NFAR)], y[3 * NP];
    uint32_t h[8 * NH];
    distorted_points(x);
    lattice_hexahedra(h);
    chosen_vertices(x, h, p);
    memcpy(p + 3 * NV, far_points, sizeof far_points);
    static const double A[9] = {1.1, 0.2, -0.1, 0.05, 0.9, 0.3, -0.2, 0.1, 1.3}, b[3] = {0.5, -0.25, 1};
    for (int k = 0; k < NP; k++)
        for (int r = 0; r < 3; r++)
            y[3 * k + r] = A[3 * r] * x[3 * k] + A[3 * r + 1] * x[3 * k + 1] + A[3 * r + 2] * x[3 * k + 2] + b[r];
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_object_id o = add_points(w, x, NP);
    pf_surface_id s = add_hexa_surface(w, o, p, NV + NFAR, h, NH);
    const double *q = pf_world_surface_positions(w, s, NULL);
    for (int i = 0; i < 3 * (NV + NFAR); i++)
        ck_assert_msg(fabs(q[i] - p[i]) < 1e-12, "vertex %d axis %d at rest: %.17g, given %.17g", i / 3, i % 3, q[i],
                      p[i]);
    ck_assert_int_eq(pf_world_set_state(w, o, y, NULL), PF_OK);
    q = pf_world_surface_positions(w, s, NULL);
    for (int v = 0; v < NV + NFAR; v++)
        for (int r = 0; r < 3; r++) {
            const double *c = p + 3 * v;
            double want = A[3 * r] * c[0] + A[3 * r + 1] * c[1] + A[3 * r + 2] * c[2] + b[r];
            ck_assert_msg(fabs(q[3 * v + r] - want) < 1e-12, "vertex %d axis %d: %.15g, affine %.15g", v, r,
                          q[3 * v + r], want);
        }
    pf_world_destroy(w);
}
END_TEST

/* (b) local coordinates against the analytic ones: a cube of 2 x 2 x 2 cells sheared and stretched by M (a mesh of
 * parallelepipeds) gives a point p the coordinates u = M^-1 (p - corner 0) / 0.5 in its cell; moving one corner
 * alone by e moves the vertex by its weight times e, the product of u or 1-u per axis */
START_TEST(test_parallelepiped_local_coordinates)
{
    static const double M[9] = {1.2, 0.3, 0.1, -0.2, 0.9, 0.25, 0.15, -0.1, 1.1};
    double x[3 * NP];
    for (int k = 0, i = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int l = 0; l < N; l++, i++)
                for (int r = 0; r < 3; r++) x[3 * i + r] = 0.5 * (M[3 * r] * l + M[3 * r + 1] * j + M[3 * r + 2] * k);
    uint32_t h[8 * NH];
    lattice_hexahedra(h);
    /* the points at M (cell + u) / 2: u chosen, in cell (1, 0, 1) = cell 5 */
    static const double u[3] = {0.37, 0.81, 0.12};
    const double g[3] = {1 + u[0], u[1], 1 + u[2]};
    double p[3];
    for (int r = 0; r < 3; r++) p[r] = 0.5 * (M[3 * r] * g[0] + M[3 * r + 1] * g[1] + M[3 * r + 2] * g[2]);
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_object_id o = add_points(w, x, NP);
    pf_surface_id s = add_hexa_surface(w, o, p, 1, h, NH);
    for (int k = 0; k < 8; k++) {
        double y[3 * NP];
        memcpy(y, x, sizeof y);
        uint32_t c = h[8 * 5 + k];
        y[3 * c] += 1, y[3 * c + 2] -= 2; /* e = (1, 0, -2) */
        ck_assert_int_eq(pf_world_set_state(w, o, y, NULL), PF_OK);
        const double *q = pf_world_surface_positions(w, s, NULL);
        double wk = 1;
        for (int d = 0; d < 3; d++) wk *= unit[k][d] ? u[d] : 1 - u[d];
        ck_assert_msg(fabs((q[0] - p[0]) - wk) < 1e-12 && fabs(q[1] - p[1]) < 1e-12 &&
                          fabs((q[2] - p[2]) + 2 * wk) < 1e-12,
                      "corner %d: moved (%.15g %.15g %.15g), want weight %.15g", k, q[0] - p[0], q[1] - p[1],
                      q[2] - p[2], wk);
    }
    pf_world_destroy(w);
}
END_TEST

/* (c) one unit cube, the point at (0.3, 0.6, 0.8), corner 6 (1, 1, 1) moved by d: trilinear moves the point by
 * 0.3 x 0.6 x 0.8 d = 0.144 d; the six tetrahedra of Kuhn's split along the diagonal 0-6 (a BARYCENTRIC surface
 * on them) move it by its smallest coordinate, 0.3 d */
START_TEST(test_trilinear_not_tetrahedra)
{
    static const double x[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
    static const uint32_t hex[8] = {0, 1, 3, 2, 4, 5, 7, 6}; /* SOFA's order on the points (grid order) */
    static const double p[3] = {0.3, 0.6, 0.8}, d[3] = {0.5, -0.2, 0.3};
    uint32_t tets[6 * 4];
    ck_assert_uint_eq(kuhn_tetrahedra(2, 2, 2, tets), 6);
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_object_id o = add_points(w, x, 8);
    pf_surface_id s = add_hexa_surface(w, o, p, 1, hex, 1);
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_BARYCENTRIC;
    sd.vertices = 1, sd.positions = p, sd.tetrahedra = tets, sd.ntetrahedra = 6;
    pf_surface_id t;
    ck_assert_int_eq(pf_world_add_surface(w, o, &sd, &t), PF_OK);
    double y[24];
    memcpy(y, x, sizeof y);
    for (int a = 0; a < 3; a++) y[3 * 7 + a] += d[a];
    ck_assert_int_eq(pf_world_set_state(w, o, y, NULL), PF_OK);
    const double *q = pf_world_surface_positions(w, s, NULL);
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(q[a], p[a] + 0.144 * d[a], 1e-14);
    q = pf_world_surface_positions(w, t, NULL);
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(q[a], p[a] + 0.3 * d[a], 1e-14);
    pf_world_destroy(w);
}
END_TEST

/* (d) a scene: a MeshTopology of one distorted hexahedron, a child point mapped with BarycentricMapping. At rest
 * the point is where the child gives it; with corner 6 of the parent moved by hand it moves by its trilinear weight
 * there (0.144 at (0.3, 0.6, 0.8) of the rest cell, found here from the scene's own positions) */
START_TEST(test_scene_hexahedral_parent)
{
    /* a unit cube with corner 2 pulled out: the point at local (0.3, 0.6, 0.8) of that cell, by the trilinear map */
    static const double c[24] = {0, 0, 0, 1, 0, 0, 1.3, 1.2, -0.1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    static const uint32_t hex[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const double u[3] = {0.3, 0.6, 0.8};
    double p[3];
    trilinear(c, hex, u, p);
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node dt='0.01' gravity='0 0 0'><Node name='a'><EulerImplicitSolver/><CGLinearSolver/>"
             "<MeshTopology position='0 0 0 1 0 0 1.3 1.2 -0.1 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1' "
             "hexahedra='0 1 2 3 4 5 6 7'/><MechanicalObject/><UniformMass totalMass='1'/>"
             "<Node name='c'><MeshTopology position='%.17g %.17g %.17g'/><MechanicalObject/><BarycentricMapping/>"
             "<PointCollisionModel/></Node></Node></Node>",
             p[0], p[1], p[2]);
    pf_scene_load_def ld = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&ld, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    pf_world *w = pf_scene_world(s);
    uint32_t nv;
    const double *q = pf_world_surface_positions(w, m[0].surface, &nv);
    ck_assert_uint_eq(nv, 1);
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(q[a], p[a], 1e-12);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "a", &o), PF_OK);
    double y[24];
    memcpy(y, c, sizeof y);
    static const double d[3] = {0.4, 0.1, -0.3};
    for (int a = 0; a < 3; a++) y[18 + a] += d[a];
    ck_assert_int_eq(pf_world_set_state(w, o, y, NULL), PF_OK);
    q = pf_world_surface_positions(w, m[0].surface, NULL);
    for (int a = 0; a < 3; a++)
        ck_assert_msg(fabs(q[a] - (p[a] + 0.144 * d[a])) < 1e-10, "axis %d: %.15g, trilinear %.15g", a, q[a],
                      p[a] + 0.144 * d[a]);
    pf_scene_destroy(s);
}
END_TEST

/* a hexahedral FEM block of distorted cells carrying an icosphere through the mapping falls onto a fixed floor: it
 * comes to rest on it (the contact forces reach the block through J^T), with the same state hash for every
 * executor, worker count and partitioner */
static uint64_t run_block_on_floor(pf_executor e, int workers, pf_partitioner part, double *low)
{
    pf_world_def wd = test_world_def(e, workers);
    wd.runtime.partitioner = part;
    wd.gravity[2] = -9.81;
    pf_world *w = create_world(&wd);
    pf_collision_def cd = pf_collision_default_def();
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
    pf_object_def fo = pf_object_default_def();
    fo.grid[0] = fo.grid[1] = fo.grid[2] = 2;
    fo.grid_min[0] = fo.grid_min[1] = -2, fo.grid_min[2] = -0.2;
    fo.grid_max[0] = fo.grid_max[1] = 3, fo.grid_max[2] = 0;
    pf_object_id floor;
    ck_assert_int_eq(pf_world_add_object(w, &fo, &floor), PF_OK);
    const double all[6] = {-9, -9, -9, 9, 9, 9};
    ck_assert_int_eq(pf_world_fix_box(w, floor, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
    double x[3 * NP];
    uint32_t h[8 * NH];
    distorted_points(x);
    lattice_hexahedra(h);
    for (int k = 0; k < NP; k++) x[3 * k + 2] += 0.2;
    pf_object_def od = pf_object_default_def();
    od.points = NP, od.positions = x, od.total_mass = 2;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
    pf_hexa_fem_def fem = pf_hexa_fem_default_def();
    fem.young_modulus = 2e5, fem.hexahedra = h, fem.nhexahedra = NH;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, o, &fem, NULL), PF_OK);
    pf_mesh ball;
    ck_assert_int_eq(pf_mesh_icosphere(0.45, 1, &ball), PF_OK);
    for (uint32_t v = 0; v < ball.vertices; v++)
        ball.positions[3 * v] += 0.5, ball.positions[3 * v + 1] += 0.5, ball.positions[3 * v + 2] += 0.7;
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_TRILINEAR;
    sd.vertices = ball.vertices, sd.positions = ball.positions;
    sd.indices = ball.indices, sd.triangles = ball.triangles;
    sd.hexahedra = h, sd.nhexahedra = NH;
    pf_surface_id sid;
    ck_assert_msg(pf_world_add_surface(w, o, &sd, &sid) == PF_OK, "%s", pf_last_error());
    pf_mesh_free(&ball);
    ck_assert_msg(pf_world_step(w, 120) == PF_OK, "%s", pf_last_error());
    uint32_t nv;
    const double *p = pf_world_surface_positions(w, sid, &nv);
    *low = INFINITY;
    for (uint32_t k = 0; k < nv; k++) *low = fmin(*low, p[3 * k + 2]);
    uint64_t hash = pf_world_state_hash(w);
    pf_world_destroy(w);
    return hash;
}

START_TEST(test_block_on_floor_deterministic)
{
    double low;
    uint64_t ref = run_block_on_floor(PF_EXEC_SEQ, 1, PF_PART_OWNER, &low);
    pf_collision_def cd = pf_collision_default_def();
    ck_assert_msg(low > -cd.contact_distance && low < 2 * cd.alarm_distance, "lowest sphere vertex at %g", low);
    static const struct {
        pf_executor e;
        int workers;
        pf_partitioner part;
    } runs[] = {{PF_EXEC_STATIC, 1, PF_PART_OWNER},   {PF_EXEC_STATIC, 2, PF_PART_OWNER},
                {PF_EXEC_STATIC, 3, PF_PART_METIS},   {PF_EXEC_BARRIER, 2, PF_PART_OWNER},
                {PF_EXEC_OMPTASKS, 4, PF_PART_OWNER}, {PF_EXEC_STATIC, 4, PF_PART_METIS}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        double l;
        uint64_t hh = run_block_on_floor(runs[r].e, runs[r].workers, runs[r].part, &l);
        ck_assert_msg(hh == ref, "executor %d, %d workers, partitioner %d: hash %016llx, sequential %016llx",
                      (int)runs[r].e, runs[r].workers, (int)runs[r].part, (unsigned long long)hh,
                      (unsigned long long)ref);
    }
}
END_TEST

/* ---- the choice of a vertex's cell against a brute force over every cell ---- */

/* the box of cell h's corners: lo[3], hi[3] */
static void cell_box(const double *x, const uint32_t *h, double b[6])
{
    for (int a = 0; a < 3; a++) b[a] = INFINITY, b[3 + a] = -INFINITY;
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++) {
            b[a] = fmin(b[a], x[3 * (size_t)h[k] + a]);
            b[3 + a] = fmax(b[3 + a], x[3 * (size_t)h[k] + a]);
        }
}

/* The rule of the cell choice, over every cell: among the cells holding p (its box does, within 1e-9 of the box's
 * size, and the cell's projected Newton reaches p as near), the one with the deepest coordinates (least max(-u,
 * u - 1)); for a point in none, the cell whose projected Newton point is nearest. Ties: the lowest index. */
static uint32_t brute_force_cell(const double *x, const uint32_t *hexa, uint32_t nh, const double p[3], int *inside)
{
    uint32_t best = UINT32_MAX;
    double best_key = INFINITY;
    for (uint32_t c = 0; c < nh; c++) {
        double b[6], u[3], s = 0, m = -INFINITY;
        cell_box(x, hexa + 8 * c, b);
        double size = fmax(fmax(b[3] - b[0], b[4] - b[1]), b[5] - b[2]);
        for (int a = 0; a < 3; a++) {
            double e = fmax(fmax(b[a] - p[a], p[a] - b[3 + a]), 0);
            s += e * e;
        }
        if (sqrt(s) > 1e-9 * size) continue;
        double res = pf_hexa_project(x, hexa + 8 * c, p, u);
        for (int a = 0; a < 3; a++) m = fmax(m, fmax(-u[a], u[a] - 1));
        if (res <= 1e-9 * size && m < best_key) best = c, best_key = m;
    }
    *inside = best != UINT32_MAX;
    if (*inside) return best;
    for (uint32_t c = 0; c < nh; c++) {
        double u[3], d = pf_hexa_project(x, hexa + 8 * c, p, u);
        if (d < best_key) best = c, best_key = d;
    }
    return best;
}

/* (c) on a distorted 7^3 lattice (216 cells) the cells chosen for random points inside and around the mesh (up to
 * 1.5 m out), for its nodes (shared by up to 8 cells: ties) and for the centres of its faces (shared by 2) are the
 * brute force's */
START_TEST(test_location_against_brute_force)
{
    enum { M = 7, MP = M * M * M, MH = (M - 1) * (M - 1) * (M - 1), NRAND = 1500, NPTS = NRAND + MP + MH };
    double *x = malloc(3 * MP * sizeof *x), *p = malloc(3 * NPTS * sizeof *p);
    uint32_t *h = malloc(8 * MH * sizeof *h), *cell = malloc(NPTS * sizeof *cell);
    distorted_points_n(M, x);
    lattice_hexahedra_n(M, h);
    uint64_t seed = 12345;
    for (int i = 0; i < 3 * NRAND; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = -1.5 + (0.5 * (M - 1) + 3) * (double)(seed >> 11) / 9007199254740992.0;
    }
    memcpy(p + 3 * NRAND, x, 3 * MP * sizeof *x);
    for (int c = 0; c < MH; c++) /* the centre of face (corners 1 2 6 5), shared with the next cell along x */
        for (int a = 0; a < 3; a++)
            p[3 * (NRAND + MP + c) + a] =
                0.25 * (x[3 * h[8 * c + 1] + a] + x[3 * h[8 * c + 2] + a] + x[3 * h[8 * c + 6] + a] +
                        x[3 * h[8 * c + 5] + a]);
    ck_assert_int_eq(pf_hexa_locate(x, h, MH, p, NPTS, cell), PF_OK);
    int ins = 0, outs = 0;
    for (int i = 0; i < NPTS; i++) {
        int inside;
        uint32_t want = brute_force_cell(x, h, MH, p + 3 * i, &inside);
        ins += inside, outs += !inside;
        ck_assert_msg(cell[i] == want, "point %d (%g %g %g, %s): cell %u, brute force %u", i, p[3 * i], p[3 * i + 1],
                      p[3 * i + 2], inside ? "inside" : "outside", cell[i], want);
    }
    ck_assert_int_gt(ins, 500); /* both rules are exercised */
    ck_assert_int_gt(outs, 500);
    free(x), free(p), free(h), free(cell);
}
END_TEST

START_TEST(test_refusals)
{
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    /* corners in VTK's voxel order (not SOFA's): the cell folds onto itself, flat at its centre */
    static const double x[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
    pf_object_id o = add_points(w, x, 8);
    static const double p[3] = {0.5, 0.5, 0.5};
    uint32_t hex[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_TRILINEAR;
    sd.vertices = 1, sd.positions = p, sd.hexahedra = hex, sd.nhexahedra = 1;
    ck_assert_int_eq(pf_world_add_surface(w, o, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "hexahedron 0 of def.hexahedra is flat"), "%s", pf_last_error());
    sd.nhexahedra = 0; /* hexahedra without a count */
    ck_assert_int_eq(pf_world_add_surface(w, o, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.nhexahedra"), "%s", pf_last_error());
    sd.hexahedra = NULL, sd.nhexahedra = 1; /* a count without hexahedra */
    ck_assert_int_eq(pf_world_add_surface(w, o, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.hexahedra"), "%s", pf_last_error());
    hex[2] = 3, hex[3] = 8; /* out of range */
    sd.hexahedra = hex;
    ck_assert_int_eq(pf_world_add_surface(w, o, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.hexahedra[3] = 8"), "%s", pf_last_error());
    sd.hexahedra = NULL, sd.nhexahedra = 0; /* no hexahedra on an object that is no grid */
    ck_assert_int_eq(pf_world_add_surface(w, o, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.hexahedra or a grid object"), "%s", pf_last_error());
    hex[2] = 2, hex[3] = 3;
    sd.hexahedra = hex, sd.nhexahedra = 1;
    pf_rigid_def rd = pf_rigid_default_def();
    pf_object_id r;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_OK);
    ck_assert_int_eq(pf_world_add_surface(w, r, &sd, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "rigid body"), "%s", pf_last_error());
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("surface_hexa");
    TCase *tc = tcase_create("surface_hexa");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_distorted_mesh_rest_and_deformed);
    tcase_add_test(tc, test_affine_motion);
    tcase_add_test(tc, test_parallelepiped_local_coordinates);
    tcase_add_test(tc, test_trilinear_not_tetrahedra);
    tcase_add_test(tc, test_scene_hexahedral_parent);
    tcase_add_test(tc, test_block_on_floor_deterministic);
    tcase_add_test(tc, test_location_against_brute_force);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return s;
}
