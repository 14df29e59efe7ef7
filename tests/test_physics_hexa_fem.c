/* Hexahedral FEM beyond regular grids: the 3x3 SVD and polar helpers against their defining properties, a list of
 * hexahedra against the grid path, an irregular element's stiffness (symmetry, rigid modes, uniform-strain energy,
 * the patch test), the polar and svd methods (rigid rotations, first order, dforce against finite differences),
 * determinism over executors, and the scene components on tests/scenes/hexa_*.xml. */
#include "check_main.h"
#include "world_fixture.h"
#include "point_object.h"
#include "rodrigues.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/fem_hexa.h"
#include "physics/force_field.h"
#include "physics/rotation.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_SCENES_DIR
#error "TEST_SCENES_DIR: the folder of tests/scenes (set by tests/meson.build)"
#endif

static uint64_t rng = 88172645463325252ull;
static double urand(void) /* xorshift64: uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static void matmul(const double A[9], const double B[9], double C[9]) /* C = A B */
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

static double det(const double M[9])
{
    return M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
           M[2] * (M[3] * M[7] - M[4] * M[6]);
}

/* |M^T M - I| */
static double orthogonality_error(const double M[9])
{
    double e = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = M[i] * M[j] + M[3 + i] * M[3 + j] + M[6 + i] * M[6 + j];
            e = fmax(e, fabs(s - (i == j)));
        }
    return e;
}

/* ---- the 3x3 helpers ---- */

static void check_svd(const double A[9])
{
    double U[9], s[3], V[9], US[9], B[9], Vt[9];
    pf_mat3_svd(A, U, s, V);
    double scale = fmax(max_abs(A, 9), 1e-300);
    ck_assert_msg(orthogonality_error(U) < 1e-13 && orthogonality_error(V) < 1e-13, "U, V not orthonormal");
    ck_assert_msg(fabs(det(U) - 1) < 1e-13 && fabs(det(V) - 1) < 1e-13, "U, V not proper: %g %g", det(U), det(V));
    ck_assert_msg(s[0] >= s[1] && s[1] >= fabs(s[2]), "not sorted: %g %g %g", s[0], s[1], s[2]);
    double dA = det(A);
    if (fabs(dA) > 1e-12 * scale * scale * scale) ck_assert_msg((s[2] < 0) == (dA < 0), "sign of s2 vs det A");
    for (int i = 0; i < 9; i++) US[i] = U[i] * s[i % 3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Vt[3 * i + j] = V[3 * j + i];
    matmul(US, Vt, B);
    ck_assert_msg(max_diff(A, B, 9) <= 1e-13 * scale, "U S V^T != A by %g", max_diff(A, B, 9));
    /* polar: Q orthogonal, Q^T A symmetric positive semi-definite */
    double Q[9], Qt[9], S[9];
    pf_mat3_polar(A, Q);
    ck_assert(orthogonality_error(Q) < 1e-13);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Qt[3 * i + j] = Q[3 * j + i];
    matmul(Qt, A, S);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++)
            ck_assert_msg(fabs(S[3 * i + j] - S[3 * j + i]) <= 1e-13 * scale, "Q^T A not symmetric");
    double m1 = S[0], m2 = S[0] * S[4] - S[1] * S[3], m3 = det(S), tol = 1e-12 * scale;
    ck_assert_msg(m1 >= -tol && m2 >= -tol * scale && m3 >= -tol * scale * scale, "Q^T A not PSD: %g %g %g", m1,
                  m2, m3);
    /* the svd rotation: proper, and the polar factor itself when det A > 0 */
    double R[9];
    pf_mat3_svd_rotation(A, R);
    ck_assert(orthogonality_error(R) < 1e-13 && fabs(det(R) - 1) < 1e-13);
    if (dA > 1e-6 * scale * scale * scale) ck_assert_msg(max_diff(R, Q, 9) < 1e-10, "svd != polar");
}

START_TEST(test_svd_and_polar_helpers)
{
    for (int t = 0; t < 2000; t++) {
        double A[9];
        for (int i = 0; i < 9; i++) A[i] = urand() * (t % 7 == 0 ? 1e-3 : 10);
        check_svd(A);
    }
    /* special shapes: identity, diagonal with reflections, rank 2, rank 1, zero, repeated singular values */
    const double special[][9] = {
        {1, 0, 0, 0, 1, 0, 0, 0, 1},  {2, 0, 0, 0, -3, 0, 0, 0, 1},  {-1, 0, 0, 0, -1, 0, 0, 0, -1},
        {1, 2, 3, 4, 5, 6, 7, 8, 9},  {1, 2, 3, 2, 4, 6, 3, 6, 9},   {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 1, 0, 1, 0, 0, 0, 0, 1},  {5, 0, 0, 0, 5, 0, 0, 0, 1e-9}, {0, 0, 0, 0, 0, 0, 0, 0, 4},
    };
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++) check_svd(special[k]);
    /* an exact rotation times a diagonal stretch: the polar factor is that rotation */
    double n[3] = {0.48, -0.6, 0.64}, Rq[9], D[9] = {2, 0, 0, 0, 0.5, 0, 0, 0, 1.5}, A[9], Q[9];
    rodrigues(n, 2.0, Rq);
    matmul(Rq, D, A);
    pf_mat3_polar(A, Q);
    ck_assert(max_diff(Q, Rq, 9) < 1e-14);
}
END_TEST

/* ---- worlds of points carrying a hexahedral FEM ---- */

static pf_world *make_world(pf_executor ex, int workers)
{
    pf_world_def d = test_world_def(ex, workers);
    d.dt = 0.01;
    return create_world(&d);
}

static pf_object_id add_points(pf_world *w, const double *x, uint32_t n)
{
    return add_point_object(w, x, n, 0.1);
}

static const pf_object *object(pf_world *w, pf_object_id id) { return w->obj.v[id.index]; }

/* f = the object's FEM force at x (its rotations refreshed for dforce) */
static void fem_force(pf_world *w, pf_object_id id, const double *x, double *f)
{
    const pf_object *o = object(w, id);
    memset(f, 0, 3 * o->n * sizeof *f);
    pf_force_fields_force(o, x, o->v, f, 1);
}

static void fem_dforce(pf_world *w, pf_object_id id, const double *dx, double *df)
{
    const pf_object *o = object(w, id);
    memset(df, 0, 3 * o->n * sizeof *df);
    pf_force_fields_dforce(o, dx, df, 1.0);
}

/* the cells of an n0 x n1 x n2 grid in SOFA's corner order */
static uint32_t grid_cells(const int n[3], uint32_t *h)
{
    uint32_t e = 0;
#define P(i, j, k) (uint32_t)((i) + n[0] * ((j) + n[1] * (k)))
    for (int k = 0; k + 1 < n[2]; k++)
        for (int j = 0; j + 1 < n[1]; j++)
            for (int i = 0; i + 1 < n[0]; i++, e++) {
                uint32_t c[8] = {P(i, j, k),         P(i + 1, j, k),         P(i + 1, j + 1, k),
                                 P(i, j + 1, k),     P(i, j, k + 1),         P(i + 1, j, k + 1),
                                 P(i + 1, j + 1, k + 1), P(i, j + 1, k + 1)};
                memcpy(h + 8 * e, c, sizeof c);
            }
#undef P
    return e;
}

/* A grid object with the FEM on its cells, and a plain object of the same points with the same cells as a list:
 * forces and dforce agree at random states for every method, bitwise when the cells are exact boxes. */
static void list_equals_grid(const double gmax[3], int bitwise)
{
    const int n[3] = {4, 3, 3};
    for (int method = PF_FEM_LINEAR; method <= PF_FEM_SVD; method++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1);
        pf_object_def od = pf_object_default_def();
        memcpy(od.grid, n, sizeof od.grid);
        memcpy(od.grid_max, gmax, sizeof od.grid_max);
        od.total_mass = 1;
        pf_object_id g;
        ck_assert_int_eq(pf_world_add_object(w, &od, &g), PF_OK);
        pf_hexa_fem_def fd = pf_hexa_fem_default_def();
        fd.method = (pf_fem_method)method;
        ck_assert_int_eq(pf_world_add_hexa_fem(w, g, &fd, NULL), PF_OK);
        uint32_t np;
        const double *X = pf_world_positions(w, g, &np);
        pf_object_id l = add_points(w, X, np);
        uint32_t cells[8 * 12];
        fd.nhexahedra = grid_cells(n, cells);
        fd.hexahedra = cells;
        ck_assert_int_eq(pf_world_add_hexa_fem(w, l, &fd, NULL), PF_OK);
        double x[108], dx[108], fg[108], fl[108], dg[108], dl[108];
        for (int trial = 0; trial < 3; trial++) {
            double R[9], ax[3] = {0.6, 0, 0.8};
            rodrigues(ax, trial * 1.1, R);
            for (uint32_t p = 0; p < np; p++) {
                pf_mat3_vec(R, X + 3 * p, x + 3 * p);
                for (int d = 0; d < 3; d++) x[3 * p + d] += 0.05 * urand(), dx[3 * p + d] = urand();
            }
            fem_force(w, g, x, fg);
            fem_force(w, l, x, fl);
            fem_dforce(w, g, dx, dg);
            fem_dforce(w, l, dx, dl);
            if (bitwise) {
                ck_assert_msg(!memcmp(fg, fl, sizeof fg) && !memcmp(dg, dl, sizeof dg), "method %d not bitwise",
                              method);
            } else {
                ck_assert_msg(max_diff(fg, fl, 108) <= 1e-12 * max_abs(fg, 108), "method %d force: %g of %g",
                              method, max_diff(fg, fl, 108), max_abs(fg, 108));
                ck_assert_msg(max_diff(dg, dl, 108) <= 1e-12 * max_abs(dg, 108), "method %d dforce", method);
            }
        }
        pf_world_destroy(w);
    }
}

START_TEST(test_list_equals_grid)
{
    const double exact[3] = {3, 1, 1}, inexact[3] = {0.3, 0.7, 0.11};
    list_equals_grid(exact, 1);
    list_equals_grid(inexact, 0);
}
END_TEST

/* a sheared, tapered, warped hexahedron in bit order (corner k at (k&1, k>>1&1, k>>2&1)) */
static const double skewed[24] = {0,   0,   0,    1.1, 0.1, 0,   0.3, 0.9, 0.05, 1.5, 1.2, 0.1,
                                  0.2, 0.1, 1.0,  1.2, 0.3, 0.9, 0.6, 1.0, 1.1,  1.4, 1.3, 1.3};

START_TEST(test_irregular_element_stiffness)
{
    const double E = 1000, nu = 0.3;
    double ke[576];
    ck_assert_int_eq(pf_hexa_stiffness(skewed, E, nu, ke), -1);
    double kmax = max_abs(ke, 576);
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < i; j++)
            ck_assert_msg(fabs(ke[24 * i + j] - ke[24 * j + i]) <= 1e-13 * kmax, "not symmetric at %d %d", i, j);
    /* the six rigid modes: three translations, three infinitesimal rotations w x X */
    for (int m = 0; m < 6; m++) {
        double u[24], f[24] = {0};
        for (int k = 0; k < 8; k++) {
            double e[3] = {0, 0, 0};
            e[m % 3] = 1;
            if (m < 3)
                memcpy(u + 3 * k, e, sizeof e);
            else
                pf_cross(e, skewed + 3 * k, u + 3 * k);
        }
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) f[i] += ke[24 * i + j] * u[j];
        ck_assert_msg(max_abs(f, 24) <= 1e-12 * kmax * max_abs(u, 24), "rigid mode %d: force %g", m, max_abs(f, 24));
    }
    /* a uniform strain eps (u = eps X, eps symmetric) stores the energy u.Ku = V eps:C:eps exactly (2x2x2 Gauss
     * integrates the trilinear det J exactly); an affine image of the unit cube has V = |det M| */
    const double M[9] = {1.2, 0.3, -0.1, 0.2, 0.9, 0.25, -0.15, 0.1, 1.1};
    double X[24];
    for (int k = 0; k < 8; k++) {
        double c[3] = {k & 1, k >> 1 & 1, k >> 2 & 1};
        pf_mat3_vec(M, c, X + 3 * k);
    }
    ck_assert_int_eq(pf_hexa_stiffness(X, E, nu, ke), -1);
    const double eps[9] = {1e-3, 2e-4, -3e-4, 2e-4, -5e-4, 1e-4, -3e-4, 1e-4, 7e-4};
    double u[24], Ku = 0;
    for (int k = 0; k < 8; k++) pf_mat3_vec(eps, X + 3 * k, u + 3 * k);
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) Ku += u[i] * ke[24 * i + j] * u[j];
    double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu)), tr = eps[0] + eps[4] + eps[8];
    double ee = 0;
    for (int i = 0; i < 9; i++) ee += eps[i] * eps[i];
    double want = fabs(det(M)) * (lambda * tr * tr + 2 * mu * ee);
    ck_assert_msg(fabs(Ku - want) <= 1e-12 * want, "energy %.17g, closed form %.17g", Ku, want);
    /* an inverted element fails at a Gauss point; its corners say so too */
    double inv[24];
    memcpy(inv, skewed, sizeof inv);
    for (int k = 0; k < 8; k++) inv[3 * k] = -inv[3 * k];
    ck_assert_int_ge(pf_hexa_stiffness(inv, E, nu, ke), 0);
    int corner;
    ck_assert(pf_hexa_corner_quality(inv, &corner) < 0);
    ck_assert(pf_hexa_corner_quality(skewed, &corner) > 0.1);
}
END_TEST

/* 27 points: a 2x2x2 block of unit cells with every point but the block's 8 corners moved, 8 irregular hexahedra
 * (SOFA order) */
static void patch(double X[81], uint32_t h[64])
{
    for (int k = 0, p = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++, p++) {
                X[3 * p] = i, X[3 * p + 1] = j, X[3 * p + 2] = k;
                int corner = (i != 1) && (j != 1) && (k != 1);
                if (!corner)
                    for (int d = 0; d < 3; d++) X[3 * p + d] += 0.2 * urand();
            }
    const int n[3] = {3, 3, 3};
    grid_cells(n, h);
}

START_TEST(test_patch_test)
{
    double X[81], x[81], f[81];
    uint32_t h[64];
    patch(X, h);
    pf_world *w = make_world(PF_EXEC_SEQ, 1);
    pf_object_id id = add_points(w, X, 27);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.method = PF_FEM_LINEAR;
    fd.hexahedra = h;
    fd.nhexahedra = 8;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_OK);
    const double eps[9] = {1e-3, 2e-4, -3e-4, 2e-4, -5e-4, 1e-4, -3e-4, 1e-4, 7e-4};
    for (int p = 0; p < 27; p++) {
        pf_mat3_vec(eps, X + 3 * p, x + 3 * p);
        for (int d = 0; d < 3; d++) x[3 * p + d] += X[3 * p + d];
    }
    fem_force(w, id, x, f);
    double boundary = max_abs(f, 81), interior = max_abs(f + 3 * 13, 3);
    ck_assert_msg(boundary > 0.1, "the strain loads the boundary: %g", boundary);
    ck_assert_msg(interior <= 1e-12 * boundary, "interior point's force %g (boundary %g)", interior, boundary);
    pf_world_destroy(w);
}
END_TEST

/* polar and svd (and large) on the irregular patch: rigid rotations by 90 and 170 degrees give no force, small
 * displacements the linear force to first order, dforce the central finite difference near a rotated rest state */
START_TEST(test_corotational_methods)
{
    double X[81], x[81], f[81], fl[81], u[81], dx[81], df[81], fp[81], fm[81], xp[81], xm[81];
    uint32_t h[64];
    patch(X, h);
    for (int i = 0; i < 81; i++) u[i] = urand(), dx[i] = urand();
    pf_world *w = make_world(PF_EXEC_SEQ, 1);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.hexahedra = h;
    fd.nhexahedra = 8;
    fd.method = PF_FEM_LINEAR;
    pf_object_id lin = add_points(w, X, 27);
    ck_assert_int_eq(pf_world_add_hexa_fem(w, lin, &fd, NULL), PF_OK);
    const double delta = 1e-6;
    for (int i = 0; i < 81; i++) x[i] = X[i] + delta * u[i];
    fem_force(w, lin, x, fl);
    const double flscale = max_abs(fl, 81);
    for (int method = PF_FEM_LARGE; method <= PF_FEM_SVD; method++) {
        fd.method = (pf_fem_method)method;
        pf_object_id id = add_points(w, X, 27);
        ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_OK);
        /* first order: |f - f_linear| = O(delta^2) */
        for (int i = 0; i < 81; i++) x[i] = X[i] + delta * u[i];
        fem_force(w, id, x, f);
        ck_assert_msg(max_diff(f, fl, 81) <= 1e-4 * flscale, "method %d: %g from linear (%g)", method,
                      max_diff(f, fl, 81), flscale);
        const double axis[2][3] = {{0, 0, 1}, {0.36, 0.48, 0.8}}, angle[2] = {M_PI / 2, 170 * M_PI / 180};
        for (int r = 0; r < 2; r++) {
            double R[9];
            rodrigues(axis[r], angle[r], R);
            for (int p = 0; p < 27; p++) {
                pf_mat3_vec(R, X + 3 * p, x + 3 * p);
                x[3 * p] += 5, x[3 * p + 2] -= 2;
            }
            fem_force(w, id, x, f);
            ck_assert_msg(max_abs(f, 81) <= 1e-9 * flscale / delta, "method %d rotation %d: force %g", method, r,
                          max_abs(f, 81));
            /* near the rotated rest state: a small deformation, dforce against (f(x+h dx) - f(x-h dx)) / 2h */
            for (int i = 0; i < 81; i++) x[i] += 1e-5 * u[i];
            const double hstep = 1e-6;
            for (int i = 0; i < 81; i++) xp[i] = x[i] + hstep * dx[i], xm[i] = x[i] - hstep * dx[i];
            fem_force(w, id, xp, fp);
            fem_force(w, id, xm, fm);
            fem_force(w, id, x, f);
            fem_dforce(w, id, dx, df);
            double fd_[81];
            for (int i = 0; i < 81; i++) fd_[i] = (fp[i] - fm[i]) / (2 * hstep);
            ck_assert_msg(max_diff(df, fd_, 81) <= 1e-3 * max_abs(fd_, 81), "method %d rotation %d: dforce %g off",
                          method, r, max_diff(df, fd_, 81) / max_abs(fd_, 81));
        }
    }
    pf_world_destroy(w);
}
END_TEST

/* svd keeps a proper rotation where polar turns an inverted element into a reflection */
START_TEST(test_svd_inverted_element)
{
    double inv[24], R[9], Q[9];
    memcpy(inv, skewed, sizeof inv);
    for (int k = 0; k < 8; k++) inv[3 * k + 2] *= -1; /* mirrored: det of its edge matrix < 0 */
    pf_hexa_frame_polar(inv, 1, R);
    pf_hexa_frame_polar(inv, 0, Q);
    ck_assert(fabs(det(R) - 1) < 1e-13);
    ck_assert(fabs(det(Q) + 1) < 1e-13);
}
END_TEST

/* a 4x2x2-cell block of perturbed hexahedra, fixed at one end, falling under gravity with the implicit solver:
 * the same state hash under the sequential executor and the static one at 1, 2, 3 workers */
static uint64_t run_block(pf_executor ex, int workers, pf_fem_method method)
{
    const int n[3] = {5, 3, 3};
    double X[135];
    uint64_t saved = rng;
    rng = 12345;
    for (int k = 0, p = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 5; i++, p++) {
                X[3 * p] = 0.5 * i + 0.03 * urand();
                X[3 * p + 1] = 0.5 * j + 0.1 * k + 0.03 * urand();
                X[3 * p + 2] = 0.5 * k + 0.03 * urand();
            }
    rng = saved;
    uint32_t h[8 * 16];
    uint32_t ne = grid_cells(n, h);
    pf_world *w = make_world(ex, workers);
    pf_object_id id = add_points(w, X, 45);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.method = method;
    fd.young_modulus = 2e4;
    fd.hexahedra = h;
    fd.nhexahedra = ne;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_OK);
    uint32_t fixed[9];
    for (int q = 0; q < 9; q++) fixed[q] = (uint32_t)(5 * q);
    ck_assert_int_eq(pf_world_fix_points(w, id, fixed, 9), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    const double *x = pf_world_positions(w, id, NULL);
    ck_assert_msg(x[3 * 44 + 2] < X[3 * 44 + 2] - 1e-3, "the free end sags");
    uint64_t hash = pf_world_state_hash(w);
    pf_world_destroy(w);
    return hash;
}

START_TEST(test_determinism_over_executors)
{
    for (int m = PF_FEM_POLAR; m <= PF_FEM_SVD; m++) {
        uint64_t ref = run_block(PF_EXEC_SEQ, 1, (pf_fem_method)m);
        for (int workers = 1; workers <= 3; workers++)
            ck_assert_msg(run_block(PF_EXEC_STATIC, workers, (pf_fem_method)m) == ref, "method %d static %d", m,
                          workers);
    }
}
END_TEST

/* ---- scenes ---- */

static void silent(pf_scene_severity severity, const char *message, void *ctx)
{
    (void)severity, (void)message, (void)ctx;
}

static pf_scene *load_scene(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TEST_SCENES_DIR, file);
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    d.report = silent;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_file(&d, path, &s) == PF_OK, "%s: %s", file, pf_last_error());
    return s;
}

/* the grid's cells given as a MeshTopology move exactly as the grid; the irregular nodes (svd,
 * HexahedralFEMForceField) run, keep their fixed points and sag */
START_TEST(test_scene_mesh_topology)
{
    pf_scene *sg = load_scene("hexa_grid.xml"), *sm = load_scene("hexa_mesh.xml");
    pf_world *wg = pf_scene_world(sg), *wm = pf_scene_world(sm);
    ck_assert_int_eq(pf_world_step(wg, 40), PF_OK);
    ck_assert_int_eq(pf_world_step(wm, 40), PF_OK);
    pf_object_id og, om, osk, ohx;
    ck_assert_int_eq(pf_scene_find_object(sg, "block", &og), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(sm, "block", &om), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(sm, "skewed", &osk), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(sm, "hexahedral", &ohx), PF_OK);
    uint32_t ng, nm;
    const double *xg = pf_world_positions(wg, og, &ng), *xm = pf_world_positions(wm, om, &nm);
    ck_assert_uint_eq(ng, 36);
    ck_assert_uint_eq(nm, 36);
    ck_assert_msg(!memcmp(xg, xm, 36 * 3 * sizeof *xg), "the mesh block differs from the grid block");
    ck_assert(xg[3 * 35 + 2] < 1 - 1e-3); /* the free corner (3, 1, 1) sagged */
    for (int k = 0; k < 2; k++) {
        uint32_t np;
        const double *x = pf_world_positions(wm, k ? ohx : osk, &np);
        ck_assert_uint_eq(np, 12);
        ck_assert(x[0] == 0 && x[1] == 0 && x[2] == 0); /* fixed point 0 */
        ck_assert_msg(x[3 * 11 + 2] < 1.1 - 1e-3 && x[3 * 11 + 2] > 0, "free corner at z %g", x[3 * 11 + 2]);
    }
    pf_scene_destroy(sg);
    pf_scene_destroy(sm);
}
END_TEST

static void expect_scene_error(const char *xml, int code, const char *what)
{
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.quiet = 1;
    d.report = silent;
    pf_scene *s = NULL;
    int rc = pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s);
    ck_assert_msg(rc == code && strstr(pf_last_error(), what), "got %d '%s', want %d '%s'", rc, pf_last_error(),
                  code, what);
    ck_assert_ptr_null(s);
}

START_TEST(test_scene_refusals)
{
    /* corners in VTK's voxel order (not SOFA's): the element folds */
    expect_scene_error("<Node><Node><MeshTopology position='0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1' "
                       "hexahedra='0 1 2 3 4 5 6 7'/><MechanicalObject/>\n"
                       "<HexahedronFEMForceField/></Node></Node>",
                       PF_EINVAL, "hexahedron 0");
    expect_scene_error("<Node><Node><MeshTopology position='0 0 0 1 0 0 1 1 0'/><MechanicalObject/>"
                       "<HexahedronFEMForceField/></Node></Node>",
                       PF_EINVAL, "no hexahedra");
    expect_scene_error("<Node><Node><RegularGridTopology n='2 2 2'/><MechanicalObject/>"
                       "<HexahedralFEMForceField method='svd'/></Node></Node>",
                       PF_EPARSE, "unknown method 'svd' (large, polar)");
    expect_scene_error("<Node><Node><RegularGridTopology n='2 2 2'/><MechanicalObject/>"
                       "<HexahedronFEMForceField method='corotated'/></Node></Node>",
                       PF_EPARSE, "unknown method 'corotated'");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_hexa_fem");
    TCase *tc = tcase_create("hexa_fem");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_svd_and_polar_helpers);
    tcase_add_test(tc, test_list_equals_grid);
    tcase_add_test(tc, test_irregular_element_stiffness);
    tcase_add_test(tc, test_patch_test);
    tcase_add_test(tc, test_corotational_methods);
    tcase_add_test(tc, test_svd_inverted_element);
    tcase_add_test(tc, test_determinism_over_executors);
    tcase_add_test(tc, test_scene_mesh_topology);
    tcase_add_test(tc, test_scene_refusals);
    suite_add_tcase(s, tc);
    return s;
}
