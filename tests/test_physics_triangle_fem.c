/* Triangular membrane FEM (physics/fem_triangle.c) and the membrane scene components
 * (scenes/component_membrane.c): one element's stiffness against the analytic plane-stress t A B^T D B, rigid
 * motions, a strip in uniaxial stretch against E t w eps and its Poisson contraction, df against central
 * differences of f, the bending springs of a square and of a closed mesh against brute force, and a hanging
 * sheet's hash over executors. TriangularFEMForceFieldOptim: its force and df on a deformed triangle against
 * SOFA's formulas for it (mu, gamma, the frame of ab and ac), and its scenes bit for bit against
 * TriangularFEMForceField's "large". */
#include "check_main.h"
#include "world_fixture.h"
#include "point_object.h"
#include "rodrigues.h"
#include "triangle_sheet.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/force_field.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pf_world *make_world(pf_executor e, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    d.gravity[0] = d.gravity[1] = d.gravity[2] = 0;
    return create_world(&d);
}

static pf_object_id add_points(pf_world *w, const double *x, uint32_t n)
{
    return add_point_object(w, x, n, 1.0);
}

static pf_object_id add_membrane(pf_world *w, const double *x, uint32_t n, const uint32_t *tris, uint32_t nt,
                                 double E, double nu, double t, pf_fem_method m)
{
    pf_object_id id = add_points(w, x, n);
    pf_triangle_fem_def d = pf_triangle_fem_default_def();
    d.young_modulus = E;
    d.poisson_ratio = nu;
    d.thickness = t;
    d.method = m;
    d.triangles = tris;
    d.ntriangles = nt;
    ck_assert_int_eq(pf_world_add_triangle_fem(w, id, &d, NULL), PF_OK);
    return id;
}

/* ---------- one element against the analytic stiffness ---------- */

/* t A B^T D B of a triangle in the xy plane, from the inverse of [1 x y] (the linear shape functions'
 * coefficients) in world coordinates: no element frame involved */
static void analytic_stiffness(const double p[3][2], double E, double nu, double t, double K[6][6])
{
    double M[3][3], inv[3][3];
    for (int i = 0; i < 3; i++) {
        M[i][0] = 1;
        M[i][1] = p[i][0];
        M[i][2] = p[i][1];
    }
    double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                 M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                 M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            inv[i][j] = (M[r0][c0] * M[r1][c1] - M[r0][c1] * M[r1][c0]) / det;
        }
    /* N_k = inv[0][k] + inv[1][k] x + inv[2][k] y */
    double B[3][6] = {{0}};
    for (int k = 0; k < 3; k++) {
        B[0][2 * k] = inv[1][k];
        B[1][2 * k + 1] = inv[2][k];
        B[2][2 * k] = inv[2][k];
        B[2][2 * k + 1] = inv[1][k];
    }
    double c = E / (1 - nu * nu), D[3][3] = {{c, c * nu, 0}, {c * nu, c, 0}, {0, 0, c * (1 - nu) / 2}};
    double area = fabs(det) / 2;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    s += B[a][i] * D[a][b] * B[b][j];
            K[i][j] = t * area * s;
        }
}

START_TEST(test_element_stiffness)
{
    const double p[3][2] = {{0.1, 0.2}, {1.3, 0.4}, {0.5, 1.1}};
    const double E = 2100, nu = 0.3, t = 0.02;
    double K[6][6];
    analytic_stiffness(p, E, nu, t, K);
    for (int m = 0; m < 2; m++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1);
        double x[9] = {p[0][0], p[0][1], 0, p[1][0], p[1][1], 0, p[2][0], p[2][1], 0};
        uint32_t tri[3] = {0, 1, 2};
        pf_object_id id = add_membrane(w, x, 3, tri, 1, E, nu, t, m ? PF_FEM_LARGE : PF_FEM_LINEAR);
        double f[9], dx[9], df[9];
        force_at(w, id, x, f);
        for (int i = 0; i < 9; i++)
            ck_assert_msg(fabs(f[i]) < 1e-12, "force at rest %g", f[i]);
        for (int j = 0; j < 9; j++) {
            memset(dx, 0, sizeof dx);
            dx[j] = 1;
            dforce_of(w, id, dx, df); /* df = -K e_j */
            for (int i = 0; i < 9; i++) {
                double want = (i % 3 == 2 || j % 3 == 2) ? 0 : K[2 * (i / 3) + i % 3][2 * (j / 3) + j % 3];
                ck_assert_msg(fabs(-df[i] - want) <= 1e-9 * K[0][0],
                              "method %d K[%d][%d] = %.15g, analytic %.15g", m, i, j, -df[i], want);
            }
        }
        pf_world_destroy(w);
    }
}
END_TEST

/* ---------- rigid motions ---------- */

/* a 3 x 3 point sheet, tilted out of every coordinate plane, 8 triangles */
static void tilted_sheet(double x[27], uint32_t tris[24])
{
    for (int j = 0, k = 0; j < 3; j++)
        for (int i = 0; i < 3; i++, k++) {
            double u = 0.4 * i + 0.05 * j * j, v = 0.3 * j;
            x[3 * k] = u + 0.1 * v;
            x[3 * k + 1] = 0.8 * v + 0.2 * u;
            x[3 * k + 2] = 0.3 * u - 0.5 * v + 0.02 * i * j;
        }
    for (int j = 0, e = 0; j < 2; j++)
        for (int i = 0; i < 2; i++, e += 2) {
            uint32_t a = (uint32_t)(i + 3 * j);
            uint32_t q[6] = {a, a + 1, a + 4, a + 4, a + 3, a};
            memcpy(tris + 3 * e, q, sizeof q);
        }
}

START_TEST(test_rigid_motions_no_force)
{
    double x0[27];
    uint32_t tris[24];
    tilted_sheet(x0, tris);
    pf_world *w = make_world(PF_EXEC_SEQ, 1);
    pf_object_id large = add_membrane(w, x0, 9, tris, 8, 5000, 0.35, 1, PF_FEM_LARGE);
    pf_object_id linear = add_membrane(w, x0, 9, tris, 8, 5000, 0.35, 1, PF_FEM_LINEAR);
    /* the sheet's normal (in-plane rotation) and an axis in its plane (out-of-plane rotation) */
    double e1[3] = {x0[3] - x0[0], x0[4] - x0[1], x0[5] - x0[2]},
           e2[3] = {x0[9] - x0[0], x0[10] - x0[1], x0[11] - x0[2]};
    double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                     e1[0] * e2[1] - e1[1] * e2[0]};
    double ln = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]),
           l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    double axes[3][3] = {
        {nrm[0] / ln, nrm[1] / ln, nrm[2] / ln}, {e1[0] / l1, e1[1] / l1, e1[2] / l1}, {0.48, 0.6, 0.64}};
    const double angles[3] = {90, 170, -170};
    const double shift[3] = {1.5, -2, 0.7};
    double x[27], f[27], fmax = 0;
    /* scale of the forces a strain of 1e-3 would give: E t h eps */
    const double scale = 5000 * 0.4 * 1e-3;
    for (int a = 0; a < 3; a++)
        for (int g = 0; g < 3; g++) {
            double R[9];
            rodrigues(axes[a], (angles[g]) * M_PI / 180, R);
            for (int k = 0; k < 9; k++)
                for (int d = 0; d < 3; d++)
                    x[3 * k + d] = R[3 * d] * x0[3 * k] + R[3 * d + 1] * x0[3 * k + 1] +
                                   R[3 * d + 2] * x0[3 * k + 2] + shift[d];
            force_at(w, large, x, f);
            for (int i = 0; i < 27; i++)
                fmax = fmax > fabs(f[i]) ? fmax : fabs(f[i]);
            ck_assert_msg(fmax < 1e-9, "axis %d, %g degrees: force %g", a, angles[g], fmax);
        }
    /* a pure translation: no force for either method; a rotation: "linear" does push back (not rotation-free)
     */
    for (int k = 0; k < 27; k++)
        x[k] = x0[k] + shift[k % 3];
    force_at(w, linear, x, f);
    for (int i = 0; i < 27; i++)
        ck_assert_msg(fabs(f[i]) < 1e-9, "linear, translated: %g", f[i]);
    double R[9];
    rodrigues(axes[0], (90) * M_PI / 180, R);
    for (int k = 0; k < 9; k++)
        for (int d = 0; d < 3; d++)
            x[3 * k + d] = R[3 * d] * x0[3 * k] + R[3 * d + 1] * x0[3 * k + 1] + R[3 * d + 2] * x0[3 * k + 2];
    force_at(w, linear, x, f);
    fmax = 0;
    for (int i = 0; i < 27; i++)
        fmax = fmax > fabs(f[i]) ? fmax : fabs(f[i]);
    ck_assert_msg(fmax > 10 * scale, "linear, rotated 90 degrees in plane: force %g", fmax);
    pf_world_destroy(w);
}
END_TEST

/* ---------- uniaxial stretch of a strip ---------- */

enum { NX = 9, NY = 4 };

/* points (i, j) of an L x W strip in the xy plane; each cell split so that every triangle's first edge lies
 * along x (the "large" frame then stays aligned with the stretch) */
static void strip(double L, double W, double x[3 * NX * NY], uint32_t tris[6 * (NX - 1) * (NY - 1)])
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double *p = x + 3 * (i + NX * j);
            p[0] = L * i / (NX - 1);
            p[1] = W * j / (NY - 1);
            p[2] = 0;
        }
    uint32_t *t = tris;
    for (int j = 0; j + 1 < NY; j++)
        for (int i = 0; i + 1 < NX; i++) {
            uint32_t a = (uint32_t)(i + NX * j), b = a + 1, c = a + NX + 1, d = a + NX;
            uint32_t q[6] = {a, b, c, c, d, a};
            memcpy(t, q, sizeof q);
            t += 6;
        }
}

START_TEST(test_uniaxial_stretch)
{
    const double L = 2, W = 0.5, E = 3000, nu = 0.3, th = 0.01, eps = 1e-3;
    double x0[3 * NX * NY], x[3 * NX * NY], f[3 * NX * NY];
    uint32_t tris[6 * (NX - 1) * (NY - 1)];
    strip(L, W, x0, tris);
    for (int m = 0; m < 2; m++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1);
        pf_object_id id = add_membrane(w, x0, NX * NY, tris, 2 * (NX - 1) * (NY - 1), E, nu, th,
                                       m ? PF_FEM_LARGE : PF_FEM_LINEAR);
        for (int with_poisson = 0; with_poisson < 2; with_poisson++) {
            /* the uniaxial-stress field: u_x = eps x, u_y = -nu eps y (the sides free of traction) */
            for (int k = 0; k < NX * NY; k++) {
                x[3 * k] = x0[3 * k] * (1 + eps);
                x[3 * k + 1] = x0[3 * k + 1] * (1 - (with_poisson ? nu * eps : 0));
                x[3 * k + 2] = 0;
            }
            force_at(w, id, x, f);
            double left = 0, right = 0, side = 0;
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++) {
                    const double *fk = f + 3 * (i + NX * j);
                    if (i == 0) left += fk[0];
                    if (i == NX - 1) right += fk[0];
                    /* every point but the loaded ends' x components must be in equilibrium */
                    double fx = (i == 0 || i == NX - 1) ? 0 : fk[0];
                    side = fmax(side, fmax(fabs(fx), fmax(fabs(fk[1]), fabs(fk[2]))));
                }
            double want = E * th * W * eps;
            if (with_poisson) {
                ck_assert_msg(fabs(left - want) < 1e-9 * want, "method %d: reaction %.15g, E t w eps %.15g",
                              m, left, want);
                ck_assert_msg(fabs(right + want) < 1e-9 * want, "method %d: reaction %.15g", m, right);
                ck_assert_msg(side < 1e-9 * want, "method %d: unbalanced force %g at a free point", m, side);
            } else {
                /* held at its width, the strip pulls its sides inwards: the contraction above is what frees
                 * them */
                ck_assert_msg(side > 1e-3 * want, "method %d: no force without the Poisson contraction", m);
            }
        }
        pf_world_destroy(w);
    }
}
END_TEST

/* ---------- df against central differences ---------- */

START_TEST(test_dforce_central_difference)
{
    double x0[27];
    uint32_t tris[24];
    tilted_sheet(x0, tris);
    for (int m = 0; m < 2; m++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1);
        pf_object_id id = add_membrane(w, x0, 9, tris, 8, 4000, 0.25, 0.5, m ? PF_FEM_LARGE : PF_FEM_LINEAR);
        /* "linear": a deformed state (K is constant); "large": the rest shape rotated (df neglects the
         * frames' variation, which the stress multiplies: exact where there is no stress) */
        double x[27], R[9], ax[3] = {0.6, 0, 0.8};
        rodrigues(ax, (50) * M_PI / 180, R);
        for (int k = 0; k < 9; k++)
            for (int d = 0; d < 3; d++)
                x[3 * k + d] =
                    m ? R[3 * d] * x0[3 * k] + R[3 * d + 1] * x0[3 * k + 1] + R[3 * d + 2] * x0[3 * k + 2]
                      : x0[3 * k + d] + 0.01 * sin(3.0 * k + d);
        double dx[27], df[27], fp[27], fm[27], xp[27], xm[27], f0[27];
        for (int i = 0; i < 27; i++)
            dx[i] = cos(1.7 * i + 0.3);
        force_at(w, id, x, f0); /* frames of x for df */
        dforce_of(w, id, dx, df);
        const double h = 1e-6;
        for (int i = 0; i < 27; i++) {
            xp[i] = x[i] + h * dx[i];
            xm[i] = x[i] - h * dx[i];
        }
        force_at(w, id, xp, fp);
        force_at(w, id, xm, fm);
        double nrm = 0, err = 0;
        for (int i = 0; i < 27; i++) {
            double fd = (fp[i] - fm[i]) / (2 * h);
            nrm = fmax(nrm, fabs(fd));
            err = fmax(err, fabs(fd - df[i]));
        }
        ck_assert_msg(nrm > 1, "method %d: no stiffness seen (%g)", m, nrm);
        ck_assert_msg(err < 1e-6 * nrm, "method %d: df off the central difference by %g (|df| %g)", m, err,
                      nrm);
        pf_world_destroy(w);
    }
}
END_TEST

/* ---------- degenerate triangles ---------- */

START_TEST(test_degenerate_refused)
{
    pf_world *w = make_world(PF_EXEC_SEQ, 1);
    double x[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0};
    pf_object_id id = add_points(w, x, 4);
    uint32_t tris[6] = {0, 1, 3, 0, 1, 2};
    pf_triangle_fem_def d = pf_triangle_fem_default_def();
    d.triangles = tris;
    d.ntriangles = 2;
    ck_assert_int_eq(pf_world_add_triangle_fem(w, id, &d, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "triangle 1 (points 0 1 2) has zero area"), "%s", pf_last_error());
    d.ntriangles = 1;
    ck_assert_int_eq(pf_world_add_triangle_fem(w, id, &d, NULL), PF_OK);
    pf_world_destroy(w);
}
END_TEST

/* ---------- a hanging sheet over executors ---------- */

/* an 8 x 8 point sheet (0.7 m square, 98 triangles, implicit Euler) hung by two corners under gravity */
static uint64_t hanging_sheet_hash(pf_executor e, int workers, uint32_t steps)
{
    pf_world *w = new_world_dg(e, workers, 0.01, (const double[3]){0, -9.81, -2});
    enum { N = 8 };
    double x[3 * N * N];
    uint32_t tris[6 * (N - 1) * (N - 1)], *t = tris;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            x[3 * (i + N * j)] = 0.1 * i;
            x[3 * (i + N * j) + 1] = 0.1 * j;
            x[3 * (i + N * j) + 2] = 0;
        }
    for (int j = 0; j + 1 < N; j++)
        for (int i = 0; i + 1 < N; i++) {
            uint32_t a = (uint32_t)(i + N * j), q[6] = {a, a + 1, a + N + 1, a, a + N + 1, a + N};
            memcpy(t, q, sizeof q);
            t += 6;
        }
    pf_object_def od = pf_object_default_def();
    od.points = N * N;
    od.positions = x;
    od.total_mass = 0.5;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_triangle_fem_def fd = pf_triangle_fem_default_def();
    fd.young_modulus = 2e4;
    fd.thickness = 0.01;
    fd.triangles = tris;
    fd.ntriangles = 2 * (N - 1) * (N - 1);
    ck_assert_int_eq(pf_world_add_triangle_fem(w, id, &fd, NULL), PF_OK);
    uint32_t corners[2] = {N * (N - 1), N * N - 1};
    ck_assert_int_eq(pf_world_fix_points(w, id, corners, 2), PF_OK);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    uint32_t n = 0;
    const double *p = pf_world_positions(w, id, &n);
    /* it hangs: the free corner opposite the fixed ones went down, and nothing blew up */
    ck_assert_msg(p[2] < -0.05 && isfinite(p[1]), "corner 0 at (%g, %g, %g)", p[0], p[1], p[2]);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_hanging_sheet_every_executor)
{
    uint64_t ref = hanging_sheet_hash(PF_EXEC_SEQ, 1, 40);
    for (int workers = 1; workers <= 3; workers++) {
        ck_assert_msg(hanging_sheet_hash(PF_EXEC_SEQ, workers, 40) == ref, "seq, %d workers", workers);
        ck_assert_msg(hanging_sheet_hash(PF_EXEC_STATIC, workers, 40) == ref, "static, %d workers", workers);
    }
}
END_TEST

/* ---------- scene components ---------- */

static pf_scene *load_text(const char *text)
{
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.quiet = 1;
    d.world.runtime.bind = 0;
    pf_scene *s = NULL;
    int rc = pf_scene_load_memory(&d, "membrane.xml", text, strlen(text), NULL, &s);
    ck_assert_msg(rc == PF_OK, "load: %s", pf_last_error());
    return s;
}

/* the springs of the object of node "m": its one spring force field */
static const pf_springset *springs_of(pf_scene *s)
{
    pf_object_id id;
    ck_assert_int_eq(pf_scene_find_object(s, "m", &id), PF_OK);
    const pf_object *o = pf_scene_world(s)->obj.v[id.index];
    const pf_springset *found = NULL;
    for (uint32_t k = 0; k < o->ff.n; k++)
        if (o->ff.v[k].kind == PF_FORCE_SPRINGS) {
            ck_assert_msg(!found, "two spring fields");
            found = o->ff.v[k].state;
        }
    ck_assert_msg(found, "no spring field");
    return found;
}

static int same_pair(const pf_spring *s, uint32_t a, uint32_t b)
{
    return (s->a == a && s->b == b) || (s->a == b && s->b == a);
}

START_TEST(test_bending_springs_square)
{
    /* the unit square 0 1 2 3 cut along 0-2: one inner edge, one spring across it, 1-3, of length sqrt 2 */
    pf_scene *s = load_text("<Node name='r'><Node name='m'><EulerImplicitSolver/><MechanicalObject/>"
                            "<MeshTopology position='0 0 0  1 0 0  1 1 0  0 1 0' triangles='0 1 2  0 2 3'/>"
                            "<TriangularBendingSprings stiffness='300' damping='2'/></Node></Node>");
    const pf_springset *sp = springs_of(s);
    ck_assert_uint_eq(sp->n, 1);
    ck_assert(same_pair(&sp->s[0], 1, 3));
    ck_assert(sp->s[0].stiffness == 300 && sp->s[0].damping == 2);
    ck_assert(fabs(sp->s[0].rest_length - sqrt(2.0)) < 1e-15);
    pf_scene_destroy(s);
    /* SOFA's defaults: stiffness 100000, damping 1 */
    s = load_text("<Node name='r'><Node name='m'><EulerImplicitSolver/><MechanicalObject/>"
                  "<MeshTopology position='0 0 0  1 0 0  1 1 0  0 1 0' triangles='0 1 2  0 2 3'/>"
                  "<TriangularBendingSprings/></Node></Node>");
    sp = springs_of(s);
    ck_assert(sp->n == 1 && sp->s[0].stiffness == 100000 && sp->s[0].damping == 1);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_bending_springs_closed_mesh)
{
    /* an octahedron: 8 triangles, 12 edges, every one shared by two triangles */
    static const uint32_t tris[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    char text[1024];
    int len = snprintf(text, sizeof text,
                       "<Node name='r'><Node name='m'><EulerImplicitSolver/><MechanicalObject/>"
                       "<MeshTopology position='1 0 0  -1 0 0  0 1 0  0 -1 0  0 0 1  0 0 -1' triangles='");
    for (int k = 0; k < 24; k++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%u ", tris[k]);
    snprintf(text + len, sizeof text - (size_t)len, "'/><TriangularBendingSprings/></Node></Node>");
    pf_scene *s = load_text(text);
    const pf_springset *sp = springs_of(s);
    ck_assert_uint_eq(sp->n, 12);
    /* brute force: every pair of triangles with two common corners gives one spring between the other two */
    int used[12] = {0};
    for (int t = 0; t < 8; t++)
        for (int u = t + 1; u < 8; u++) {
            int common = 0;
            uint32_t ot = 0, ou = 0;
            for (int i = 0; i < 3; i++) {
                int in_u = 0, in_t = 0;
                for (int j = 0; j < 3; j++) {
                    in_u |= tris[3 * t + i] == tris[3 * u + j];
                    in_t |= tris[3 * u + i] == tris[3 * t + j];
                }
                common += in_u;
                if (!in_u) ot = tris[3 * t + i];
                if (!in_t) ou = tris[3 * u + i];
            }
            if (common != 2) continue;
            int k = 0;
            while (k < 12 && (used[k] || !same_pair(&sp->s[k], ot, ou)))
                k++;
            ck_assert_msg(k < 12, "no spring %u-%u for triangles %d and %d", ot, ou, t, u);
            used[k] = 1;
        }
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_quadular_bending_springs)
{
    /* two quads side by side, 0 1 4 3 and 1 2 5 4 (points x + 3 y): the edge 1-4 they share gives one spring
     * through each of its ends, 0-2 and 3-5; the same from a MeshTopology's quads and from a flat grid */
    const char *const texts[2] = {
        "<Node name='r'><Node name='m'><EulerImplicitSolver/><MechanicalObject/>"
        "<MeshTopology position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0' quads='0 1 4 3  1 2 5 "
        "4'/><QuadularBendingSprings stiffness='3000' damping='1'/></Node></Node>",
        "<Node name='r'><Node name='m'><EulerImplicitSolver/><MechanicalObject/>"
        "<RegularGridTopology n='3 2 1' min='0 0 0' max='2 1 0'/><QuadularBendingSprings stiffness='3000' "
        "damping='1'/></Node></Node>"};
    for (int k = 0; k < 2; k++) {
        pf_scene *s = load_text(texts[k]);
        const pf_springset *sp = springs_of(s);
        ck_assert_uint_eq(sp->n, 2);
        ck_assert_msg(same_pair(&sp->s[0], 0, 2) && same_pair(&sp->s[1], 3, 5), "%u-%u %u-%u", sp->s[0].a,
                      sp->s[0].b, sp->s[1].a, sp->s[1].b);
        ck_assert(fabs(sp->s[0].rest_length - 2) < 1e-15 && sp->s[1].stiffness == 3000);
        pf_scene_destroy(s);
    }
}
END_TEST

/* TriangularFEMForceField on a flat grid is pf_world_add_triangle_fem over its cells split (0 1 2) (0 2 3):
 * the same state hash after 20 steps; and the project's scene file loads and runs */
START_TEST(test_scene_components)
{
    pf_scene *s = load_text(
        "<Node name='r' dt='0.01' gravity='0 -9.81 -3'><Node name='m'><EulerImplicitSolver/>"
        "<CGLinearSolver iterations='25' tolerance='1e-9' threshold='1e-12'/><MechanicalObject/>"
        "<RegularGridTopology n='4 3 1' min='0 0 0' max='0.3 0.2 0'/><UniformMass totalMass='0.12'/>"
        "<TriangleFEMForceField youngModulus='500' poissonRatio='0.25' thickness='0.5' "
        "method='small'/><FixedConstraint indices='0 3'/></Node></Node>");
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    uint64_t scene_hash = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);

    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, (const double[3]){0, -9.81, -3});
    pf_object_def od = pf_object_default_def();
    od.grid[0] = 4, od.grid[1] = 3, od.grid[2] = 1;
    od.grid_max[0] = 0.3, od.grid_max[1] = 0.2;
    od.total_mass = 0.12;
    od.solver.cg_threshold = 1e-12;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    uint32_t tris[36], *t = tris;
    for (uint32_t j = 0; j < 2; j++)
        for (uint32_t i = 0; i < 3; i++, t += 6) {
            uint32_t a = i + 4 * j, q[6] = {a, a + 1, a + 5, a, a + 5, a + 4};
            memcpy(t, q, sizeof q);
        }
    pf_triangle_fem_def fd = pf_triangle_fem_default_def();
    fd.young_modulus = 500, fd.poisson_ratio = 0.25, fd.thickness = 0.5, fd.method = PF_FEM_LINEAR;
    fd.triangles = tris;
    fd.ntriangles = 12;
    ck_assert_int_eq(pf_world_add_triangle_fem(w, id, &fd, NULL), PF_OK);
    uint32_t fixed[2] = {0, 3};
    ck_assert_int_eq(pf_world_fix_points(w, id, fixed, 2), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    ck_assert_msg(pf_world_state_hash(w) == scene_hash, "scene and API differ");
    pf_world_destroy(w);

    pf_scene_load_def ld = pf_scene_default_load_def();
    ld.world.runtime.workers = 1;
    ld.world.runtime.quiet = 1;
    ld.world.runtime.bind = 0;
    ck_assert_msg(pf_scene_load_file(&ld, TEST_SCENES_DIR "/membrane_sheet.xml", &s) == PF_OK, "%s",
                  pf_last_error());
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    /* 10 x 10 points, 162 triangles: inner edges are the 81 cells' diagonals and 2 x 8 x 9 grid lines */
    ck_assert_uint_eq(sum.force_fields, 2);
    ck_assert_uint_eq(sum.springs, 81 + 2 * 8 * 9);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 100), PF_OK);
    uint32_t n = 0;
    const double *p = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &n);
    ck_assert_uint_eq(n, 100);
    /* hung by two corners it sags, fixed corners in place, and stays far above a free fall's 0.49 m */
    ck_assert_msg(p[2] < 0.99 && p[2] > 0.5, "corner 0 at z %g", p[2]);
    ck_assert(p[3 * 99 + 2] == 1 && p[3 * 90 + 2] == 1);
    pf_scene_destroy(s);
}
END_TEST

/* ---------- TriangularFEMForceFieldOptim ---------- */

static void cross3(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* SOFA's frame of TriangularFEMForceFieldOptim: rows ab / |ab| and ((ab x ac) x ab) / |..| */
static void optim_frame(const double *ab, const double *ac, double fx[3], double fy[3])
{
    double n[3];
    cross3(ab, ac, n);
    cross3(n, ab, fy);
    double lx = sqrt(dot3(ab, ab)), ly = sqrt(dot3(fy, fy));
    for (int d = 0; d < 3; d++) {
        fx[d] = ab[d] / lx;
        fy[d] /= ly;
    }
}

/* SOFA's TriangularFEMForceFieldOptim on one triangle, written from its addForce (dx NULL) and addDForce (the
 * frame of x, kFactor 1): the force at x of a triangle at rest at x0, or df for dx */
static void optim_oracle(const double x0[9], const double x[9], const double *dx, double E, double nu, double f[9])
{
    double mu = E / (1 + nu), gamma = E * nu / (1 - nu * nu);
    double ab0[3], ac0[3], ab[3], ac[3], fx[3], fy[3];
    for (int d = 0; d < 3; d++) {
        ab0[d] = x0[3 + d] - x0[d], ac0[d] = x0[6 + d] - x0[d];
        ab[d] = x[3 + d] - x[d], ac[d] = x[6 + d] - x[d];
    }
    optim_frame(ab0, ac0, fx, fy);
    double bx = dot3(fx, ab0), cx = dot3(fx, ac0), cy = dot3(fy, ac0), ss = 0.5 / (bx * cy);
    optim_frame(ab, ac, fx, fy);
    double strain[3];
    if (!dx) { /* displacement rest - current in the current frame, dby = 0 */
        double dbx = bx - dot3(fx, ab), dcx = cx - dot3(fx, ac), dcy = cy - dot3(fy, ac);
        strain[0] = cy * dbx, strain[1] = bx * dcy, strain[2] = bx * dcx - cx * dbx;
    } else {
        double dab[3], dac[3];
        for (int d = 0; d < 3; d++) dab[d] = dx[3 + d] - dx[d], dac[d] = dx[6 + d] - dx[d];
        double dbx = dot3(fx, dab), dby = dot3(fy, dab), dcx = dot3(fx, dac), dcy = dot3(fy, dac);
        strain[0] = cy * dbx, strain[1] = bx * dcy - cx * dby, strain[2] = bx * dcx - cx * dbx + cy * dby;
    }
    double g = gamma * (strain[0] + strain[1]);
    double st[3] = {(mu * strain[0] + g) * ss, (mu * strain[1] + g) * ss, 0.5 * mu * strain[2] * ss};
    double sign = dx ? -1 : 1; /* addDForce subtracts what addForce adds */
    for (int d = 0; d < 3; d++) {
        double fb = fx[d] * (cy * st[0] - cx * st[2]) + fy[d] * (cy * st[2] - cx * st[1]);
        double fc = fx[d] * (bx * st[2]) + fy[d] * (bx * st[1]);
        f[d] = sign * (-fb - fc), f[3 + d] = sign * fb, f[6 + d] = sign * fc;
    }
}

/* one triangle tilted out of the coordinate planes, turned and stretched: the force and df (for an arbitrary dx)
 * of the scene's TriangularFEMForceFieldOptim equal SOFA's formulas for them */
START_TEST(test_optim_against_sofa_formulas)
{
    const double x0[9] = {0.1, 0.2, 0.05, 1.3, 0.4, -0.2, 0.5, 1.1, 0.3};
    const double E = 2100, nu = 0.3;
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node name='r' gravity='0 0 0'><Node name='m'><EulerImplicitSolver/><MechanicalObject "
             "position='%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g'/><MeshTopology triangles='0 1 2'/>"
             "<UniformMass vertexMass='1'/><TriangularFEMForceFieldOptim youngModulus='%g' poissonRatio='%g'/>"
             "</Node></Node>",
             x0[0], x0[1], x0[2], x0[3], x0[4], x0[5], x0[6], x0[7], x0[8], E, nu);
    pf_scene *s = load_text(xml);
    pf_object_id id;
    ck_assert_int_eq(pf_scene_find_object(s, "m", &id), PF_OK);
    pf_world *w = pf_scene_world(s);
    /* turned by 0.7 rad about (1, 2, 2) / 3, then each point moved on its own */
    double R[9], x[9], f[9], want[9], df[9];
    const double axis[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, moved[9] = {0.02, -0.01, 0.03, 0.15, 0.04, -0.02,
                                                                     -0.03, 0.08, 0.05};
    rodrigues(axis, 0.7, R);
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < 3; i++)
            x[3 * p + i] = R[3 * i] * x0[3 * p] + R[3 * i + 1] * x0[3 * p + 1] + R[3 * i + 2] * x0[3 * p + 2] +
                           moved[3 * p + i];
    force_at(w, id, x, f);
    optim_oracle(x0, x, NULL, E, nu, want);
    double scale = 0;
    for (int i = 0; i < 9; i++) scale = fmax(scale, fabs(want[i]));
    ck_assert_msg(scale > 1, "the deformation gives a force (%g)", scale);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(fabs(f[i] - want[i]) <= 1e-12 * scale, "f[%d] = %.15g, SOFA's %.15g", i, f[i], want[i]);
    const double dx[9] = {0.3, -0.1, 0.2, -0.4, 0.5, 0.1, 0.2, 0.3, -0.6};
    dforce_of(w, id, dx, df);
    optim_oracle(x0, x, dx, E, nu, want);
    scale = 0;
    for (int i = 0; i < 9; i++) scale = fmax(scale, fabs(want[i]));
    for (int i = 0; i < 9; i++)
        ck_assert_msg(fabs(df[i] - want[i]) <= 1e-12 * scale, "df[%d] = %.15g, SOFA's %.15g", i, df[i], want[i]);
    pf_scene_destroy(s);
}
END_TEST

/* TriangularFEMForceFieldOptim is TriangularFEMForceField's "large", bit for bit: with given moduli, with its
 * defaults (E 5000, nu 0.45), with a method SOFA ignores; a restScale not > 0 and a bad poissonRatio are refused
 * naming the line */
START_TEST(test_optim_scene_equals_triangular_fem)
{
    pf_scene *s;
    const char *optim[] = {"<TriangularFEMForceFieldOptim youngModulus='300' poissonRatio='0.35' restScale='1' "
                           "damping='0.2'/>",
                           "<TriangularFEMForceFieldOptim/>",
                           "<TriangularFEMForceFieldOptim youngModulus='300' poissonRatio='0.35' method='small'/>"};
    const char *fem[] = {"<TriangularFEMForceField youngModulus='300' poissonRatio='0.35' method='large'/>",
                         "<TriangularFEMForceField youngModulus='5000' poissonRatio='0.45'/>",
                         "<TriangularFEMForceField youngModulus='300' poissonRatio='0.35'/>"};
    for (int k = 0; k < 3; k++) {
        ck_assert_msg(load_triangle_sheet("", optim[k], &s) == PF_OK, "%s", pf_last_error());
        uint64_t a = stepped_hash(s);
        ck_assert_msg(load_triangle_sheet("", fem[k], &s) == PF_OK, "%s", pf_last_error());
        uint64_t b = stepped_hash(s);
        ck_assert_msg(a == b, "case %d: Optim %016llx, TriangularFEMForceField %016llx", k, (unsigned long long)a,
                      (unsigned long long)b);
    }
    ck_assert_int_eq(load_triangle_sheet("", "<TriangularFEMForceFieldOptim restScale='-1'/>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "restScale"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load_triangle_sheet("", "<TriangularFEMForceFieldOptim poissonRatio='0.5'/>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "poissonRatio"), "%s",
                  pf_last_error());
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_triangle_fem");
    TCase *tc = tcase_create("element");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_element_stiffness);
    tcase_add_test(tc, test_rigid_motions_no_force);
    tcase_add_test(tc, test_uniaxial_stretch);
    tcase_add_test(tc, test_dforce_central_difference);
    tcase_add_test(tc, test_degenerate_refused);
    suite_add_tcase(s, tc);
    TCase *ts = tcase_create("scenes");
    tcase_set_timeout(ts, 60);
    tcase_add_test(ts, test_bending_springs_square);
    tcase_add_test(ts, test_bending_springs_closed_mesh);
    tcase_add_test(ts, test_quadular_bending_springs);
    tcase_add_test(ts, test_scene_components);
    tcase_add_test(ts, test_optim_against_sofa_formulas);
    tcase_add_test(ts, test_optim_scene_equals_triangular_fem);
    suite_add_tcase(s, ts);
    TCase *tm = tcase_create("executors");
    tcase_set_timeout(tm, 120);
    tcase_add_test(tm, test_hanging_sheet_every_executor);
    suite_add_tcase(s, tm);
    return s;
}
