/* Tetrahedral FEM (physics/fem_tetra.c): the element stiffness read through forces against the closed-form
 * energy of linear elasticity, its symmetry and six rigid modes; corotational forces (large, polar, svd) zero
 * under rigid motions, equal to the linear ones at small displacements and turning with the body; df against
 * a central difference of f; the patch test; inverted and flat elements under svd; a bar under gravity
 * bitwise the same on every executor and worker count; and a scene file of tetrahedra from a Gmsh mesh. */
#include "check_main.h"
#include "world_fixture.h"
#include "point_object.h"
#include "rodrigues.h"
#include "scene_files.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/force_field.h"
#include "physics/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pf_world *make_world(int workers, pf_executor e, double gz)
{
    pf_world_def d = test_world_def(e, workers);
    d.gravity[0] = d.gravity[1] = 0;
    d.gravity[2] = gz;
    return create_world(&d);
}

static pf_object_id add_points(pf_world *w, const double *x, uint32_t n)
{
    return add_point_object(w, x, n, 1.0);
}

static void add_fem(pf_world *w, pf_object_id id, const uint32_t *t, uint32_t nt, pf_fem_method m, double E,
                    double nu)
{
    pf_tetra_fem_def d = pf_tetra_fem_default_def();
    d.young_modulus = E;
    d.poisson_ratio = nu;
    d.method = m;
    d.tetrahedra = t;
    d.ntetrahedra = nt;
    ck_assert_msg(pf_world_add_tetra_fem(w, id, &d, NULL) == PF_OK, "%s", pf_last_error());
}

/* f = the object's force fields at positions x (the rotations cached for dforce) */
static void object_force_at(const pf_object *o, const double *x, double *f)
{
    memset(f, 0, 3 * (size_t)o->n * sizeof *f);
    pf_force_fields_force(o, x, o->v, f, 1);
}

static double max_abs(const double *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

static void apply(const double Q[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = Q[3 * i] * v[0] + Q[3 * i + 1] * v[1] + Q[3 * i + 2] * v[2];
}

static const double AXIS[3] = {0.2672612419124244, 0.5345224838248488, 0.8017837257372732}; /* (1,2,3)/|.| */

/* a box of nx x ny x nz points, spacing h, each cell cut into 6 tetrahedra around its diagonal 0-7 (the same
 * cut in every cell: the faces match); returns the tetrahedra count */
static uint32_t box_mesh(int nx, int ny, int nz, double h, double *x, uint32_t *t)
{
    static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 3, 2, 7}, {0, 2, 6, 7},
                                   {0, 6, 4, 7}, {0, 4, 5, 7}, {0, 5, 1, 7}};
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double *p = x + 3 * (i + nx * (j + ny * k));
                p[0] = i * h, p[1] = j * h, p[2] = k * h;
            }
    uint32_t n = 0;
    for (int k = 0; k + 1 < nz; k++)
        for (int j = 0; j + 1 < ny; j++)
            for (int i = 0; i + 1 < nx; i++) {
                uint32_t c[8];
                for (int b = 0; b < 8; b++)
                    c[b] = (uint32_t)((i + (b & 1)) + nx * ((j + (b >> 1 & 1)) + ny * (k + (b >> 2 & 1))));
                for (int s = 0; s < 6; s++, n++)
                    for (int v = 0; v < 4; v++)
                        t[4 * n + v] = c[kuhn[s][v]];
            }
    return n;
}

/* ---- the oracle: K of one tetrahedron from the energy density lambda tr(e)^2 / 2 + mu e:e ---- */

/* K[(3a+i)*12 + 3b+j] = V (lambda g_a[i] g_b[j] + mu (g_a.g_b delta_ij + g_a[j] g_b[i])), g_a = grad N_a from
 * the face normals: grad N_1 = (e2 x e3) / 6V etc. */
static void oracle_stiffness(const double X[12], double E, double nu, double K[144])
{
    double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double e[3][3], g[4][3];
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            e[k][d] = X[3 * (k + 1) + d] - X[d];
    double c23[3] = {e[1][1] * e[2][2] - e[1][2] * e[2][1], e[1][2] * e[2][0] - e[1][0] * e[2][2],
                     e[1][0] * e[2][1] - e[1][1] * e[2][0]};
    double c31[3] = {e[2][1] * e[0][2] - e[2][2] * e[0][1], e[2][2] * e[0][0] - e[2][0] * e[0][2],
                     e[2][0] * e[0][1] - e[2][1] * e[0][0]};
    double c12[3] = {e[0][1] * e[1][2] - e[0][2] * e[1][1], e[0][2] * e[1][0] - e[0][0] * e[1][2],
                     e[0][0] * e[1][1] - e[0][1] * e[1][0]};
    double v6 = e[0][0] * c23[0] + e[0][1] * c23[1] + e[0][2] * c23[2];
    for (int d = 0; d < 3; d++) {
        g[1][d] = c23[d] / v6;
        g[2][d] = c31[d] / v6;
        g[3][d] = c12[d] / v6;
        g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
    }
    double V = fabs(v6) / 6;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            double gg = g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    K[(3 * a + i) * 12 + 3 * b + j] =
                        V * (lambda * g[a][i] * g[b][j] + mu * ((i == j) * gg + g[a][j] * g[b][i]));
        }
}

/* K of a one-tetrahedron linear field, column by column: K e_j = -f(X + h e_j) / h */
static void measured_stiffness(const double X[12], double E, double nu, double K[144])
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
    static const uint32_t t[4] = {0, 1, 2, 3};
    pf_object_id id = add_points(w, X, 4);
    add_fem(w, id, t, 1, PF_FEM_LINEAR, E, nu);
    const pf_object *o = w->obj.v[id.index];
    const double h = 1e-3;
    double x[12], f[12];
    for (int j = 0; j < 12; j++) {
        memcpy(x, X, sizeof x);
        x[j] += h;
        object_force_at(o, x, f);
        for (int i = 0; i < 12; i++)
            K[12 * i + j] = -f[i] / h;
    }
    pf_world_destroy(w);
}

/* the unit right tetrahedron, and a skewed one given in the other orientation */
static const double TETS[2][12] = {{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1},
                                   {0.1, -0.2, 0.05, 0.3, 1.1, 0.2, 1.2, 0.1, -0.1, 0.4, 0.3, 0.9}};

START_TEST(test_stiffness_closed_form)
{
    const double E = 1000, nu = 0.3;
    for (int s = 0; s < 2; s++) {
        double K[144], Ko[144];
        measured_stiffness(TETS[s], E, nu, K);
        oracle_stiffness(TETS[s], E, nu, Ko);
        double scale = max_abs(Ko, 144);
        ck_assert(scale > 100);
        for (int i = 0; i < 144; i++)
            ck_assert_msg(fabs(K[i] - Ko[i]) <= 1e-9 * scale,
                          "tetrahedron %d: K[%d][%d] = %.17g, closed form %.17g", s, i / 12, i % 12, K[i],
                          Ko[i]);
    }
    /* the unit right tetrahedron by hand: K[0][0] = V (lambda + 2 mu + 2 mu) over grad N_0 = (-1, -1, -1) */
    double K[144], lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    measured_stiffness(TETS[0], E, nu, K);
    ck_assert_double_eq_tol(K[0], (lambda + 4 * mu) / 6, 1e-9 * E);
    ck_assert_double_eq_tol(K[3 * 12 + 3], (lambda + 2 * mu) / 6, 1e-9 * E); /* node 1 along x */
}
END_TEST

START_TEST(test_stiffness_symmetric_rigid_null)
{
    for (int s = 0; s < 2; s++) {
        const double *X = TETS[s];
        double K[144];
        measured_stiffness(X, 2000, 0.45, K);
        double scale = max_abs(K, 144);
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < i; j++)
                ck_assert_msg(fabs(K[12 * i + j] - K[12 * j + i]) <= 1e-9 * scale, "K not symmetric at %d %d",
                              i, j);
        /* three translations and three infinitesimal rotations w x X */
        for (int m = 0; m < 6; m++) {
            double u[12];
            for (int a = 0; a < 4; a++) {
                double wv[3] = {m == 3, m == 4, m == 5}, r[3];
                const double *p = X + 3 * a;
                r[0] = wv[1] * p[2] - wv[2] * p[1];
                r[1] = wv[2] * p[0] - wv[0] * p[2];
                r[2] = wv[0] * p[1] - wv[1] * p[0];
                for (int d = 0; d < 3; d++)
                    u[3 * a + d] = m < 3 ? (d == m) : r[d];
            }
            for (int i = 0; i < 12; i++) {
                double s2 = 0;
                for (int j = 0; j < 12; j++)
                    s2 += K[12 * i + j] * u[j];
                ck_assert_msg(fabs(s2) <= 1e-9 * scale, "tetrahedron %d: rigid mode %d: (K u)[%d] = %g", s, m,
                              i, s2);
            }
        }
        /* and no other: a stretch of the tetrahedron costs energy */
        double u[12] = {0}, e = 0;
        for (int a = 0; a < 4; a++)
            u[3 * a] = X[3 * a];
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++)
                e += u[i] * K[12 * i + j] * u[j];
        ck_assert(e > 1e-3 * scale);
    }
}
END_TEST

/* a 3x3x3-point cube of 48 tetrahedra of 0.5 m under one method */
typedef struct cube {
    pf_world *w;
    const pf_object *o;
    double X[81];
    uint32_t t[48 * 4];
} cube;

static void cube_make(cube *c, pf_fem_method m)
{
    c->w = make_world(1, PF_EXEC_SEQ, 0);
    uint32_t nt = box_mesh(3, 3, 3, 0.5, c->X, c->t);
    ck_assert_uint_eq(nt, 48);
    pf_object_id id = add_points(c->w, c->X, 27);
    add_fem(c->w, id, c->t, nt, m, 1e4, 0.3);
    c->o = c->w->obj.v[id.index];
}

/* x = Q (X + u) + t */
static void moved(const cube *c, const double Q[9], const double *u, const double tr[3], double *x)
{
    for (int p = 0; p < 27; p++) {
        double q[3];
        for (int d = 0; d < 3; d++)
            q[d] = c->X[3 * p + d] + (u ? u[3 * p + d] : 0);
        apply(Q, q, x + 3 * p);
        for (int d = 0; d < 3; d++)
            x[3 * p + d] += tr[d];
    }
}

static void pseudo_random(double *u, size_t n, double size, unsigned seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        u[i] = size * ((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
    }
}

static const double ANGLES[2] = {M_PI / 2, 170 * M_PI / 180}, SHIFT[3] = {0.3, -1.2, 2.5};

START_TEST(test_corotational_rigid_motion)
{
    for (int m = PF_FEM_LARGE; m <= PF_FEM_SVD; m++)
        for (int a = 0; a < 2; a++) {
            cube c;
            cube_make(&c, (pf_fem_method)m);
            double Q[9], x[81], f[81];
            rodrigues(AXIS, ANGLES[a], Q);
            moved(&c, Q, NULL, SHIFT, x);
            object_force_at(c.o, x, f);
            ck_assert_msg(max_abs(f, 81) <= 1e-9, "method %d, %g degrees: force %g N", m,
                          ANGLES[a] * 180 / M_PI, max_abs(f, 81));
            pf_world_destroy(c.w);
        }
    /* the linear formulation is not invariant: the oracle can tell */
    cube c;
    cube_make(&c, PF_FEM_LINEAR);
    double Q[9], x[81], f[81];
    rodrigues(AXIS, ANGLES[0], Q);
    moved(&c, Q, NULL, SHIFT, x);
    object_force_at(c.o, x, f);
    ck_assert(max_abs(f, 81) > 100);
    pf_world_destroy(c.w);
}
END_TEST

/* at displacement u of 1e-6 m the corotational force is the linear one (rotated with the body) up to O(u^2)
 */
START_TEST(test_corotational_small_displacement_is_linear)
{
    double u[81], fl[81];
    pseudo_random(u, 81, 1e-6, 7);
    cube lin;
    cube_make(&lin, PF_FEM_LINEAR);
    double xl[81];
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
    moved(&lin, I, u, zero, xl);
    object_force_at(lin.o, xl, fl);
    double scale = max_abs(fl, 81);
    ck_assert(scale > 1e-3);
    for (int m = PF_FEM_LARGE; m <= PF_FEM_SVD; m++)
        for (int a = -1; a < 2; a++) {
            cube c;
            cube_make(&c, (pf_fem_method)m);
            double Q[9], x[81], f[81];
            if (a < 0)
                memcpy(Q, I, sizeof Q);
            else
                rodrigues(AXIS, ANGLES[a], Q);
            moved(&c, Q, u, a < 0 ? zero : SHIFT, x);
            object_force_at(c.o, x, f);
            for (int p = 0; p < 27; p++) {
                double want[3];
                apply(Q, fl + 3 * p, want);
                for (int d = 0; d < 3; d++)
                    ck_assert_msg(fabs(f[3 * p + d] - want[d]) <= 1e-4 * scale,
                                  "method %d, rotation %d: point %d: f %.9g, linear %.9g", m, a, p,
                                  f[3 * p + d], want[d]);
            }
            pf_world_destroy(c.w);
        }
    pf_world_destroy(lin.w);
}
END_TEST

/* a corotational force turns with the body: f(Q x + t) = Q f(x), here at a 10 % deformation */
START_TEST(test_corotational_frame_indifference)
{
    double u[81];
    pseudo_random(u, 81, 0.05, 3);
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
    for (int m = PF_FEM_LARGE; m <= PF_FEM_SVD; m++) {
        cube c;
        cube_make(&c, (pf_fem_method)m);
        double x[81], f0[81], Q[9], xr[81], fr[81];
        moved(&c, I, u, zero, x);
        object_force_at(c.o, x, f0);
        double scale = max_abs(f0, 81);
        ck_assert(scale > 10);
        rodrigues(AXIS, ANGLES[1], Q);
        moved(&c, Q, u, SHIFT, xr);
        object_force_at(c.o, xr, fr);
        for (int p = 0; p < 27; p++) {
            double want[3];
            apply(Q, f0 + 3 * p, want);
            for (int d = 0; d < 3; d++)
                ck_assert_msg(fabs(fr[3 * p + d] - want[d]) <= 1e-9 * scale,
                              "method %d: point %d: %.12g, %.12g", m, p, fr[3 * p + d], want[d]);
        }
        pf_world_destroy(c.w);
    }
}
END_TEST

/* df = kfact K dx against (f(x + h dx) - f(x - h dx)) / 2h: linear at a deformed state; the corotational ones
 * at a rigidly rotated state, where the rotation's own variation (which df neglects, as SOFA) changes nothing
 */
START_TEST(test_dforce_central_difference)
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
    for (int m = PF_FEM_LINEAR; m <= PF_FEM_SVD; m++) {
        cube c;
        cube_make(&c, (pf_fem_method)m);
        double u[81], dx[81], x[81], Q[9];
        pseudo_random(u, 81, 0.05, 11);
        pseudo_random(dx, 81, 1, 12);
        if (m == PF_FEM_LINEAR)
            moved(&c, I, u, zero, x);
        else {
            rodrigues(AXIS, ANGLES[1], Q);
            moved(&c, Q, NULL, SHIFT, x);
        }
        const double h = 1e-6;
        double xp[81], xm[81], fp[81], fm[81], fd[81], f[81], df[81];
        for (int i = 0; i < 81; i++)
            xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
        object_force_at(c.o, xp, fp);
        object_force_at(c.o, xm, fm);
        for (int i = 0; i < 81; i++)
            fd[i] = (fp[i] - fm[i]) / (2 * h);
        object_force_at(c.o, x, f); /* caches the rotations at x */
        const double kfact = -0.25, prior = 3.0;
        for (int i = 0; i < 81; i++)
            df[i] = prior;
        pf_force_fields_dforce(c.o, dx, df, kfact);
        double scale = max_abs(fd, 81);
        ck_assert(scale > 1e3);
        for (int i = 0; i < 81; i++)
            ck_assert_msg(fabs(df[i] - prior - kfact * fd[i]) <= 1e-6 * scale,
                          "method %d: df[%d] = %.12g, "
                          "difference %.12g",
                          m, i, df[i] - prior, kfact * fd[i]);
        pf_world_destroy(c.w);
    }
}
END_TEST

/* Patch test: a uniform strain (x = Q (I + S) X, S symmetric) leaves the interior point (the cube's centre)
 * without force and the whole body in balance; linear with Q = I, polar and svd also with Q a rotation of 170
 * degrees ("large" takes its frame from each element's edges, which a strain turns differently per element).
 */
START_TEST(test_patch_uniform_strain)
{
    static const double S[9] = {2e-3, 5e-4, -3e-4, 5e-4, -1e-3, 7e-4, -3e-4, 7e-4, 1.5e-3};
    static const pf_fem_method methods[3] = {PF_FEM_LINEAR, PF_FEM_POLAR, PF_FEM_SVD};
    for (int k = 0; k < 3; k++) {
        cube c;
        cube_make(&c, methods[k]);
        double Q[9], u[81], x[81], f[81];
        if (k == 0) {
            static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            memcpy(Q, I, sizeof Q);
        } else {
            rodrigues(AXIS, ANGLES[1], Q);
        }
        for (int p = 0; p < 27; p++)
            apply(S, c.X + 3 * p, u + 3 * p);
        moved(&c, Q, u, SHIFT, x);
        object_force_at(c.o, x, f);
        double scale = max_abs(f, 81);
        ck_assert(scale > 1);
        ck_assert_msg(max_abs(f + 3 * 13, 3) <= 1e-10 * scale, "method %d: interior force %g N of %g",
                      (int)methods[k], max_abs(f + 3 * 13, 3), scale);
        for (int d = 0; d < 3; d++) {
            double sum = 0;
            for (int p = 0; p < 27; p++)
                sum += f[3 * p + d];
            ck_assert_msg(fabs(sum) <= 1e-10 * scale, "method %d: net force %g", (int)methods[k], sum);
        }
        pf_world_destroy(c.w);
    }
}
END_TEST

/* svd: an element pushed through its opposite face (inverted) or onto it (flat) is pushed back out, and the
 * forces are in balance; the polar method takes the same rotation there (no polar rotation exists) */
START_TEST(test_svd_inverted_element)
{
    static const uint32_t t[4] = {0, 1, 2, 3};
    const double zs[2] = {-0.5, 0.0};
    for (int m = PF_FEM_POLAR; m <= PF_FEM_SVD; m++)
        for (int k = 0; k < 2; k++) {
            pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
            pf_object_id id = add_points(w, TETS[0], 4);
            add_fem(w, id, t, 1, (pf_fem_method)m, 1000, 0.3);
            const pf_object *o = w->obj.v[id.index];
            double x[12], f[12];
            memcpy(x, TETS[0], sizeof x);
            x[11] = zs[k];
            x[9] = 0.1; /* off the axis, not on an edge */
            object_force_at(o, x, f);
            for (int i = 0; i < 12; i++)
                ck_assert(isfinite(f[i]));
            ck_assert_msg(f[11] > 1, "method %d, z %g: the apex is pulled by %g N", m, zs[k], f[11]);
            for (int d = 0; d < 3; d++)
                ck_assert(fabs(f[d] + f[3 + d] + f[6 + d] + f[9 + d]) <= 1e-9 * f[11]);
            pf_world_destroy(w);
        }
}
END_TEST

/* Four bars of 7x3x3 points (one per method), fixed at x = 0, 40 implicit steps under gravity: the state hash
 * of seq with 1 worker is the one of static with 1, 2 and 3 workers; the tips sag. */
static uint64_t bars_hash(pf_executor e, int workers, double *tip_z)
{
    pf_world *w = make_world(workers, e, -9.81);
    double X[63 * 3];
    uint32_t t[36 * 4 * 6];
    uint32_t nt = box_mesh(7, 3, 3, 0.1, X, t);
    for (int m = 0; m < 4; m++) {
        double Xm[63 * 3];
        for (int p = 0; p < 63; p++)
            for (int d = 0; d < 3; d++)
                Xm[3 * p + d] = X[3 * p + d] + (d == 1 ? 0.5 * m : 0);
        pf_object_def od = pf_object_default_def();
        od.points = 63;
        od.positions = Xm;
        od.total_mass = 20;
        pf_object_id id;
        ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
        add_fem(w, id, t, nt, (pf_fem_method)m, 2e6, 0.3);
        uint32_t fixed[9], nf = 0;
        for (uint32_t p = 0; p < 63; p++)
            if (p % 7 == 0) fixed[nf++] = p;
        ck_assert_int_eq(pf_world_fix_points(w, id, fixed, nf), PF_OK);
    }
    ck_assert_int_eq(pf_world_step(w, 40), PF_OK);
    for (int m = 0; m < 4; m++) {
        uint32_t n;
        const double *x = pf_world_positions(w, (pf_object_id){(uint32_t)m}, &n);
        tip_z[m] = x[3 * 6 + 2];
    }
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_bar_gravity_deterministic)
{
    double ref_tip[4], tip[4];
    uint64_t ref = bars_hash(PF_EXEC_SEQ, 1, ref_tip);
    for (int m = 0; m < 4; m++) {
        /* it sags, less than a free fall of 0.4 s would take it (0.78 m), and all methods nearly agree */
        ck_assert_msg(ref_tip[m] < -1e-3 && ref_tip[m] > -0.2, "method %d: tip at z = %g", m, ref_tip[m]);
        ck_assert_msg(fabs(ref_tip[m] - ref_tip[0]) <= 0.1 * fabs(ref_tip[0]), "method %d: tip %g, linear %g",
                      m, ref_tip[m], ref_tip[0]);
    }
    for (int workers = 1; workers <= 3; workers++) {
        uint64_t h = bars_hash(PF_EXEC_STATIC, workers, tip);
        ck_assert_msg(h == ref, "static with %d workers: hash %016llx, seq %016llx", workers,
                      (unsigned long long)h, (unsigned long long)ref);
    }
}
END_TEST

/* tests/scenes/beam_tetra.xml: TetrahedronFEMForceField (large) and TetrahedralCorotationalFEMForceField
 * (polar) on tetrahedra of a Gmsh file; both beams hold up (fixed end unmoved, the tip below 0.1 m where a
 * free fall of 0.5 s ends at 1.2 m) and alike */
START_TEST(test_scene_file_tetra)
{
    pf_scene *s = load_test_scene("beam_tetra.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_uint_eq(sum.objects, 2);
    ck_assert_uint_eq(sum.force_fields, 2);
    ck_assert_uint_eq(sum.fixed_points, 8);
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, 50), PF_OK);
    double tips[2];
    const char *nodes[2] = {"large", "polar"};
    for (int k = 0; k < 2; k++) {
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, nodes[k], &o), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(w, o, &n);
        ck_assert_uint_eq(n, 24);
        ck_assert(x[0] == 0 && x[1] == 0 && x[2] == 0); /* fixed */
        tips[k] = x[3 * 5 + 2];                         /* (1, 0, 0) */
        ck_assert_msg(tips[k] < -1e-4 && tips[k] > -0.1, "%s: tip at z = %g", nodes[k], tips[k]);
    }
    ck_assert_msg(fabs(tips[0] - tips[1]) <= 0.05 * fabs(tips[0]), "tips %g and %g", tips[0], tips[1]);
    pf_scene_destroy(s);
}
END_TEST

/* ---- the scene components' rules ---- */

typedef struct reports {
    int warnings;
    char last[512];
} reports;

static void collect(pf_scene_severity sev, const char *msg, void *ctx)
{
    reports *r = ctx;
    if (sev == PF_SCENE_WARNING) {
        r->warnings++;
        snprintf(r->last, sizeof r->last, "%s", msg);
    }
}

/* one tetrahedron, base fixed, its apex falling under gravity; `fem` is the component's element */
static int load_tetra_scene(const char *fem, reports *r, pf_scene **out)
{
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node dt='0.01' gravity='0 0 -9.81'>\n<Node name='t'><EulerImplicitSolver/><CGLinearSolver/>"
             "<MeshTopology position='0 0 0 1 0 0 0 1 0 0.2 0.1 1' tetrahedra='0 1 2 3'/><MechanicalObject/>"
             "<UniformMass vertexMass='0.5'/>\n%s\n<FixedConstraint indices='0 1 2'/></Node></Node>\n",
             fem);
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    d.report = collect;
    d.report_ctx = r;
    return pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, out);
}

/* the same through the API: pf_tetra_fem_default_def() and Young's modulus E */
static uint64_t api_tetra_hash(double E, uint32_t steps)
{
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, (const double[3]){0, 0, -9.81});
    static const double X[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.1, 1};
    static const uint32_t t[4] = {0, 1, 2, 3}, fixed[3] = {0, 1, 2};
    pf_object_def od = pf_object_default_def();
    od.points = 4;
    od.positions = X;
    od.vertex_mass = 0.5;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_tetra_fem_def fd = pf_tetra_fem_default_def();
    fd.young_modulus = E;
    fd.tetrahedra = t;
    fd.ntetrahedra = 1;
    ck_assert_int_eq(pf_world_add_tetra_fem(w, id, &fd, NULL), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, fixed, 3), PF_OK);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

static uint64_t scene_hash(pf_scene *s, uint32_t steps)
{
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), steps), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

/* SOFA's defaults (E 5000, nu 0.45, large) are pf_tetra_fem_default_def's: the scene steps as the API world;
 * a per-element modulus list takes its first value, with a warning; bad input is refused with its reason */
START_TEST(test_scene_components_rules)
{
    const uint64_t ref = api_tetra_hash(5000, 30);
    ck_assert(ref != api_tetra_hash(5200, 30)); /* the hash tells the moduli apart */
    static const char *const same[] = {
        "<TetrahedronFEMForceField/>",
        "<TetrahedralCorotationalFEMForceField/>",
        "<TetrahedronFEMForceField youngModulus='5000' poissonRatio='0.45' method='large' "
        "computeGlobalMatrix='false'/>",
    };
    for (int k = 0; k < 3; k++) {
        reports r = {0};
        pf_scene *s = NULL;
        ck_assert_msg(load_tetra_scene(same[k], &r, &s) == PF_OK, "%s: %s", same[k], pf_last_error());
        ck_assert_msg(r.warnings == 0, "%s: %s", same[k], r.last);
        ck_assert_msg(scene_hash(s, 30) == ref, "%s steps otherwise than the API defaults", same[k]);
    }
    reports r = {0};
    pf_scene *s = NULL;
    ck_assert_int_eq(load_tetra_scene("<TetrahedronFEMForceField youngModulus='5000 7000 9000'/>", &r, &s),
                     PF_OK);
    ck_assert_msg(r.warnings == 1 && strstr(r.last, "first"), "%d warnings, last: %s", r.warnings, r.last);
    ck_assert(scene_hash(s, 30) == ref);
    ck_assert_int_eq(load_tetra_scene("<TetrahedronFEMForceField method='qr'/>", &r, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:3:") && strstr(pf_last_error(), "unknown method 'qr'"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load_tetra_scene("<TetrahedronFEMForceField poissonRatio='0.5'/>", &r, &s), PF_EINVAL);
    ck_assert_int_eq(load_tetra_scene("<TetrahedronFEMForceField youngModulus='0'/>", &r, &s), PF_EINVAL);
    /* a topology without tetrahedra */
    const char *tri = "<Node><EulerImplicitSolver/><Node name='t'><MeshTopology position='0 0 0 1 0 0 0 1 0' "
                      "triangles='0 1 2'/><MechanicalObject/>\n<TetrahedronFEMForceField/></Node></Node>";
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.quiet = 1;
    d.world.runtime.bind = 0;
    d.report = collect;
    d.report_ctx = &r;
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", tri, strlen(tri), NULL, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "needs tetrahedra"), "%s",
                  pf_last_error());
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_tetra_fem");
    TCase *tc = tcase_create("tetra_fem");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_stiffness_closed_form);
    tcase_add_test(tc, test_stiffness_symmetric_rigid_null);
    tcase_add_test(tc, test_corotational_rigid_motion);
    tcase_add_test(tc, test_corotational_small_displacement_is_linear);
    tcase_add_test(tc, test_corotational_frame_indifference);
    tcase_add_test(tc, test_dforce_central_difference);
    tcase_add_test(tc, test_patch_uniform_strain);
    tcase_add_test(tc, test_svd_inverted_element);
    tcase_add_test(tc, test_bar_gravity_deterministic);
    tcase_add_test(tc, test_scene_file_tetra);
    tcase_add_test(tc, test_scene_components_rules);
    suite_add_tcase(s, tc);
    return s;
}
