/* Biquadratic and quadratic springs on triangles (physics/springs_biquadratic.c, SOFA
 * TriangularBiquadraticSpringsForceField, TriangularQuadraticSpringsForceField): zero force at rest and under
 * rigid motions; the force against central differences of an energy written independently (the plane-stress
 * St Venant-Kirchhoff membrane of the same E and nu, which Delingette's biquadratic springs equal; each edge
 * alone without the cross terms; the area term when compressed; SOFA's quadratic form on the lengths); dforce
 * against central differences of the force, also where the area term keeps a flipped or a frozen normal; the
 * stiffness at rest against the linear plane-stress triangle; the scene components against the API; a hanging
 * sheet's hash over executors. */
#include "check_main.h"
#include "world_fixture.h"
#include "point_object.h"
#include "triangle_sheet.h"
#include "rodrigues.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/force_field.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "" /* what the sheet holds besides the tested component */

static pf_world *make_world(pf_executor e, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    d.gravity[0] = d.gravity[1] = d.gravity[2] = 0;
    return create_world(&d);
}

typedef struct model {
    double E, nu;
    int angular, compressible, quadratic;
} model;

static pf_object_id add_sheet(pf_world *w, const double *x, uint32_t n, const uint32_t *tris, uint32_t nt, model m)
{
    pf_object_id id = add_point_object(w, x, n, 1.0);
    pf_biquadratic_springs_def d = pf_biquadratic_springs_default_def();
    d.young_modulus = m.E;
    d.poisson_ratio = m.nu;
    d.angular_springs = m.angular;
    d.compressible = m.compressible;
    d.quadratic = m.quadratic;
    d.triangles = tris;
    d.ntriangles = nt;
    ck_assert_int_eq(pf_world_add_biquadratic_springs(w, id, &d, NULL), PF_OK);
    return id;
}

/* ---------- the energy, written from elasticity ---------- */

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const double *a, const double *b, double *out)
{
    for (int d = 0; d < 3; d++) out[d] = a[d] - b[d];
}

static double area_of(const double *a, const double *b, const double *c)
{
    double u[3], v[3];
    sub3(b, a, u);
    sub3(c, a, v);
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return sqrt(dot3(n, n)) / 2;
}

/* One triangle's energy at x (rest X). With the cross terms: the plane-stress St Venant-Kirchhoff membrane,
 * A0 (lambda/2 tr(E)^2 + G tr(E^2)), lambda = E nu / (1 - nu^2), G = E / (2 (1 + nu)), E the Green strain from the
 * edge metrics (E = 1/2 Gm^-1 (C - Gm)). Without: sum_j k_j/4 (l_j^2 - L_j^2)^2, k_j from the corner's cotangent
 * (u.v / |u x v|). The area term: 3 (lambda + mu) A0 (J - 1)^4 / 4 below J = 1, SOFA's mu = E / (1 + nu). */
static double triangle_energy(const double *X, const double *x, const uint32_t *t, model m)
{
    const double *P[3] = {X + 3 * t[0], X + 3 * t[1], X + 3 * t[2]}, *p[3] = {x + 3 * t[0], x + 3 * t[1], x + 3 * t[2]};
    double lambda = m.E * m.nu / (1 - m.nu * m.nu), mu = m.E / (1 + m.nu), A0 = area_of(P[0], P[1], P[2]);
    double W = 0;
    if (m.quadratic) { /* SOFA's quadratic springs: s_j/2 d_j^2 + h_j d_k d_l on the lengths' changes */
        double cot[3], L[3], d[3];
        for (int j = 0; j < 3; j++) {
            const double *Q = P[j], *Q1 = P[(j + 1) % 3], *Q2 = P[(j + 2) % 3];
            double u[3], v[3], e[3], le[3];
            sub3(Q1, Q, u), sub3(Q2, Q, v), sub3(Q2, Q1, e), sub3(p[(j + 2) % 3], p[(j + 1) % 3], le);
            cot[j] = dot3(u, v) / (2 * area_of(Q, Q1, Q2));
            L[j] = sqrt(dot3(e, e));
            d[j] = sqrt(dot3(le, le)) - L[j];
        }
        for (int j = 0; j < 3; j++) {
            int k = (j + 1) % 3, l = (j + 2) % 3;
            W += L[j] * L[j] * (2 * cot[j] * cot[j] * (lambda + mu) + mu) / (8 * A0) / 2 * d[j] * d[j];
            if (m.angular) W += L[k] * L[l] * (2 * cot[k] * cot[l] * (lambda + mu) - mu) / (8 * A0) * d[k] * d[l];
        }
        return W;
    }
    if (m.angular) {
        double e1[3], e2[3], f1[3], f2[3];
        sub3(P[1], P[0], e1), sub3(P[2], P[0], e2), sub3(p[1], p[0], f1), sub3(p[2], p[0], f2);
        double G[2][2] = {{dot3(e1, e1), dot3(e1, e2)}, {dot3(e2, e1), dot3(e2, e2)}};
        double C[2][2] = {{dot3(f1, f1), dot3(f1, f2)}, {dot3(f2, f1), dot3(f2, f2)}};
        double det = G[0][0] * G[1][1] - G[0][1] * G[1][0];
        double Gi[2][2] = {{G[1][1] / det, -G[0][1] / det}, {-G[1][0] / det, G[0][0] / det}}, M[2][2];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                M[i][j] = 0.5 * (Gi[i][0] * (C[0][j] - G[0][j]) + Gi[i][1] * (C[1][j] - G[1][j]));
        double tr = M[0][0] + M[1][1], tr2 = M[0][0] * M[0][0] + 2 * M[0][1] * M[1][0] + M[1][1] * M[1][1];
        W = A0 * (lambda / 2 * tr * tr + m.E / (2 * (1 + m.nu)) * tr2);
    } else {
        for (int j = 0; j < 3; j++) {
            const double *Q = P[j], *Q1 = P[(j + 1) % 3], *Q2 = P[(j + 2) % 3];
            double u[3], v[3], e[3], le[3];
            sub3(Q1, Q, u), sub3(Q2, Q, v), sub3(Q2, Q1, e), sub3(p[(j + 2) % 3], p[(j + 1) % 3], le);
            double cot = dot3(u, v) / (2 * area_of(Q, Q1, Q2));
            double k = (2 * cot * cot * (lambda + mu) + mu) / (16 * A0), D = dot3(le, le) - dot3(e, e);
            W += k / 4 * D * D;
        }
    }
    double J = area_of(p[0], p[1], p[2]) / A0;
    if (m.angular && m.compressible && J < 1) W += 3 * (lambda + mu) * A0 * pow(J - 1, 4) / 4;
    return W;
}

static double energy(const double *X, const double *x, const uint32_t *tris, uint32_t nt, model m)
{
    double W = 0;
    for (uint32_t e = 0; e < nt; e++) W += triangle_energy(X, x, tris + 3 * e, m);
    return W;
}

/* ---------- the mesh and its states ---------- */

/* four points out of plane, two triangles sharing edge 1-2 */
static const double REST[12] = {0, 0, 0, 1, 0, 0.1, 0.2, 1, 0, 1.1, 1.2, 0.3};
static const uint32_t TRIS[6] = {0, 1, 2, 1, 3, 2};
static const double WIGGLE[12] = {0.03, -0.02, 0.01, -0.04, 0.02, 0.03, 0.01, 0.05, -0.02, 0.02, -0.03, -0.01};

/* REST scaled by s about point 0 in x and y (z kept), then moved by `wiggle` times WIGGLE */
static void state_of(double s, double wiggle, double *x)
{
    for (int i = 0; i < 12; i++) x[i] = (i % 3 == 2 ? REST[i] : s * REST[i]) + wiggle * WIGGLE[i];
}

static const model MODELS[] = {{1000, 0.3, 1, 1, 0}, {15, 0.9, 1, 1, 0}, {800, 0.2, 1, 0, 0},
                               {500, 0.35, 0, 1, 0},  {700, 0.3, 1, 1, 1}, {300, 0.4, 0, 0, 1}};
enum { NMODELS = sizeof MODELS / sizeof MODELS[0] };

START_TEST(test_zero_at_rest_and_under_rigid_motion)
{
    const model m = MODELS[_i];
    pf_world *w = make_world(PF_EXEC_SEQ, 1);
    pf_object_id id = add_sheet(w, REST, 4, TRIS, 2, m);
    double f[12], x[12];
    force_at(w, id, REST, f);
    for (int i = 0; i < 12; i++) ck_assert_msg(fabs(f[i]) < 1e-12 * m.E, "rest: f[%d] = %g", i, f[i]);
    /* turned by 0.7 rad about (1 2 3) and moved */
    double R[9];
    const double r14 = sqrt(14.0);
    rodrigues((const double[3]){1 / r14, 2 / r14, 3 / r14}, 0.7, R);
    for (int p = 0; p < 4; p++)
        for (int a = 0; a < 3; a++)
            x[3 * p + a] = R[3 * a] * REST[3 * p] + R[3 * a + 1] * REST[3 * p + 1] + R[3 * a + 2] * REST[3 * p + 2] +
                           0.5 * a;
    force_at(w, id, x, f);
    for (int i = 0; i < 12; i++) ck_assert_msg(fabs(f[i]) < 1e-10 * m.E, "turned: f[%d] = %g", i, f[i]);
    pf_world_destroy(w);
}
END_TEST

/* f = -dW/dx by central differences, stretched (no area term) and compressed (J about 0.7: the area term) */
START_TEST(test_force_is_minus_gradient)
{
    const model m = MODELS[_i];
    for (int c = 0; c < 2; c++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1);
        pf_object_id id = add_sheet(w, REST, 4, TRIS, 2, m);
        double x[12], f[12], fbig = 0, err = 0;
        state_of(c ? 0.84 : 1.15, 1, x);
        force_at(w, id, x, f);
        for (int i = 0; i < 12; i++) fbig = fmax(fbig, fabs(f[i]));
        const double h = 1e-6;
        for (int i = 0; i < 12; i++) {
            double xp[12], xm[12];
            memcpy(xp, x, sizeof xp), memcpy(xm, x, sizeof xm);
            xp[i] += h, xm[i] -= h;
            double g = (energy(REST, xp, TRIS, 2, m) - energy(REST, xm, TRIS, 2, m)) / (2 * h);
            err = fmax(err, fabs(f[i] + g));
        }
        ck_assert_msg(fbig > 1e-3 * m.E, "model %d case %d: no force (%g)", _i, c, fbig);
        ck_assert_msg(err < 1e-6 * fbig, "model %d case %d: |f + grad W| = %g of %g", _i, c, err, fbig);
        pf_world_destroy(w);
    }
}
END_TEST

/* at rest both forms linearize to the linear plane-stress triangle of E and nu (unit thickness), Delingette's
 * construction: K = -df/dx of a flat triangle in its plane against t A B^T D B (B from [1 x y]^-1) */
START_TEST(test_rest_stiffness_is_plane_stress)
{
    const model m = MODELS[_i];
    const double p[3][2] = {{0.1, 0.2}, {1.3, 0.4}, {0.5, 1.1}};
    const double x[9] = {p[0][0], p[0][1], 0, p[1][0], p[1][1], 0, p[2][0], p[2][1], 0};
    const uint32_t tri[3] = {0, 1, 2};
    pf_world *w = make_world(PF_EXEC_SEQ, 1);
    pf_object_id id = add_sheet(w, x, 3, tri, 1, m);
    double f[9], K[9][9];
    force_at(w, id, x, f);
    for (int c = 0; c < 9; c++) {
        double dx[9] = {0}, df[9];
        dx[c] = 1;
        dforce_of(w, id, dx, df);
        for (int r = 0; r < 9; r++) K[r][c] = -df[r];
    }
    double det = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
    double B[3][6] = {{0}};
    for (int i = 0; i < 3; i++) {
        double gx = (p[(i + 1) % 3][1] - p[(i + 2) % 3][1]) / det, gy = (p[(i + 2) % 3][0] - p[(i + 1) % 3][0]) / det;
        B[0][2 * i] = gx, B[1][2 * i + 1] = gy, B[2][2 * i] = gy, B[2][2 * i + 1] = gx;
    }
    double s = m.E / (1 - m.nu * m.nu), D[3][3] = {{s, s * m.nu, 0}, {s * m.nu, s, 0}, {0, 0, s * (1 - m.nu) / 2}};
    double kmax = 0, err = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double a = 0;
            for (int u = 0; u < 3; u++)
                for (int v = 0; v < 3; v++) a += B[u][i] * D[u][v] * B[v][j];
            a *= fabs(det) / 2;
            kmax = fmax(kmax, fabs(a));
            err = fmax(err, fabs(K[3 * (i / 2) + i % 2][3 * (j / 2) + j % 2] - a));
        }
    if (m.angular) /* the edges alone are not the membrane: their stiffness differs */
        ck_assert_msg(err < 1e-10 * kmax, "model %d: in-plane stiffness off by %g of %g", _i, err, kmax);
    else
        ck_assert_msg(err > 1e-3 * kmax, "model %d: edges alone match the membrane", _i);
    pf_world_destroy(w);
}
END_TEST

/* dforce(dx) = (f(x + h dx) - f(x - h dx)) / 2h at x, for dx along each coordinate and a mixed one */
static void check_dforce(pf_world *w, pf_object_id id, const double *x, uint32_t n, const char *what)
{
    double dx[12], xp[12], xm[12], fp[12], fm[12], f[12], df[12];
    ck_assert_uint_le(n, 4);
    const double h = 1e-7;
    for (uint32_t k = 0; k <= 3 * n; k++) {
        for (uint32_t i = 0; i < 3 * n; i++) dx[i] = k < 3 * n ? (i == k) : WIGGLE[i] * 20;
        for (uint32_t i = 0; i < 3 * n; i++) xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
        force_at(w, id, xp, fp);
        force_at(w, id, xm, fm);
        force_at(w, id, x, f);
        dforce_of(w, id, dx, df);
        double dmax = 0, err = 0;
        for (uint32_t i = 0; i < 3 * n; i++) {
            double fd = (fp[i] - fm[i]) / (2 * h);
            dmax = fmax(dmax, fabs(fd));
            err = fmax(err, fabs(df[i] - fd));
        }
        ck_assert_msg(err <= 1e-5 * dmax + 1e-9, "%s, dx %u: |df - fd| = %g of %g", what, k, err, dmax);
    }
}

START_TEST(test_dforce_is_derivative)
{
    const model m = MODELS[_i];
    for (int c = 0; c < 2; c++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1);
        pf_object_id id = add_sheet(w, REST, 4, TRIS, 2, m);
        double x[12];
        state_of(c ? 0.84 : 1.15, 1, x);
        char what[64];
        snprintf(what, sizeof what, "model %d %s", _i, c ? "compressed" : "stretched");
        check_dforce(w, id, x, 4, what);
        pf_world_destroy(w);
    }
}
END_TEST

/* the area term past its smooth range: a triangle turned over (J 0.49, its normal against the last valid one:
 * pushed back along it) and one crushed to J 0.005 (the last valid normal stands in); the force stays finite and
 * pushes the area back up, and dforce is still the force's derivative */
START_TEST(test_flipped_and_crushed_triangles)
{
    static const double rest[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const double flipped[9] = {0, 0, 0, 0.7, 0, 0, 0, -0.7, 0}, crushed[9] = {0, 0, 0, 1, 0, 0, 0.4, 0.005, 0};
    const uint32_t tri[3] = {0, 1, 2};
    const model m = {1000, 0.3, 1, 1, 0};
    const double *states[2] = {flipped, crushed};
    for (int c = 0; c < 2; c++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1);
        pf_object_id id = add_sheet(w, rest, 3, tri, 1, m);
        double f[9];
        force_at(w, id, states[c], f);
        /* f . dA/dx > 0 along the last valid normal's side: the area term's power raises the area seen from +z */
        double push = 0;
        for (int p = 0; p < 3; p++) {
            const double *a = states[c] + 3 * ((p + 1) % 3), *b = states[c] + 3 * ((p + 2) % 3);
            double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, gz[3] = {-e[1] / 2, e[0] / 2, 0}; /* z x e / 2 */
            push += dot3(f + 3 * p, gz);
            for (int d = 0; d < 3; d++) ck_assert(isfinite(f[3 * p + d]));
        }
        ck_assert_msg(push > 0, "%s: the force does not restore the area (%g)", c ? "crushed" : "flipped", push);
        check_dforce(w, id, states[c], 3, c ? "crushed" : "flipped");
        pf_world_destroy(w);
    }
}
END_TEST

/* ---------- the scene component ---------- */

/* TriangularBiquadraticSpringsForceField (TriangularQuadraticSpringsForceField) over a MeshTopology's triangles is
 * pf_world_add_biquadratic_springs with the same E, nu and switches (quadratic), added to the scene without it; a
 * damping ratio or a Poisson ratio out of range is an error at its line */
START_TEST(test_scene_component)
{
    static const char *const comps[4] = {
        "<TriangularBiquadraticSpringsForceField youngModulus='50' poissonRatio='0.45' dampingRatio='0' "
        "matrixRegularization='0.4'/>",
        "<TriangularBiquadraticSpringsForceField youngModulus='50' poissonRatio='0.45' "
        "useAngularSprings='0'/>",
        "<TriangularBiquadraticSpringsForceField youngModulus='50' poissonRatio='0.45' "
        "compressible='false'/>",
        "<TriangularQuadraticSpringsForceField youngModulus='50' poissonRatio='0.45' dampingRatio='0'/>"};
    uint64_t h[4];
    for (int k = 0; k < 4; k++) {
        pf_scene *s;
        ck_assert_msg(load_triangle_sheet(BASE, "", &s) == PF_OK, "%s", pf_last_error());
        pf_biquadratic_springs_def bd = pf_biquadratic_springs_default_def();
        bd.young_modulus = 50;
        bd.poisson_ratio = 0.45;
        bd.angular_springs = k != 1;
        bd.compressible = k != 2;
        bd.quadratic = k == 3;
        bd.triangles = TRIANGLE_SHEET_TRIS;
        bd.ntriangles = 4;
        ck_assert_int_eq(pf_world_add_biquadratic_springs(pf_scene_world(s), (pf_object_id){0}, &bd, NULL),
                         PF_OK);
        uint64_t want = stepped_hash(s);
        ck_assert_msg(load_triangle_sheet(BASE, comps[k], &s) == PF_OK, "%s", pf_last_error());
        h[k] = stepped_hash(s);
        ck_assert_msg(h[k] == want, "case %d: scene %016llx, API %016llx", k, (unsigned long long)h[k],
                      (unsigned long long)want);
    }
    ck_assert(h[0] != h[1] && h[1] != h[2] && h[2] != h[3]);
    static const char *const bad[][3] = {
        {"<TriangularBiquadraticSpringsForceField dampingRatio='0.1'/>", "t.xml:2:", "dampingRatio"},
        {"<TriangularBiquadraticSpringsForceField poissonRatio='1'/>",
         "t.xml:2:", "poissonRatio must be in (-1, 1)"},
        {"<TriangularBiquadraticSpringsForceField youngModulus='0'/>",
         "t.xml:2:", "youngModulus must be > 0"}};
    for (int k = 0; k < 3; k++) {
        pf_scene *s;
        ck_assert_int_lt(load_triangle_sheet(BASE, bad[k][0], &s), 0);
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(pf_last_error(), bad[k][1]) && strstr(pf_last_error(), bad[k][2]), "%s",
                      pf_last_error());
    }
}
END_TEST

/* a sheet of 6 x 5 points hanging from one edge: the same state hash on every executor and worker count */
static uint64_t hanging_sheet_hash(pf_executor e, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    d.gravity[2] = -9.81;
    pf_world *w = create_world(&d);
    double x[3 * 30];
    uint32_t t[3 * 40], nt = 0;
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 6; i++) {
            double *p = x + 3 * (i + 6 * j);
            p[0] = 0.2 * i, p[1] = 0.2 * j, p[2] = 0;
        }
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 5; i++) {
            uint32_t a = (uint32_t)(i + 6 * j), q[6] = {a, a + 1, a + 7, a, a + 7, a + 6};
            memcpy(t + 3 * nt, q, sizeof q);
            nt += 2;
        }
    pf_object_id id = add_sheet(w, x, 30, t, nt, (model){2000, 0.3, 1, 1, 0});
    const uint32_t edge[6] = {0, 1, 2, 3, 4, 5};
    ck_assert_int_eq(pf_world_fix_points(w, id, edge, 6), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    uint32_t n;
    const double *xs = pf_world_positions(w, id, &n);
    ck_assert_double_lt(xs[3 * 29 + 2], -1e-3); /* the free edge fell */
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_hanging_sheet_every_executor)
{
    uint64_t ref = hanging_sheet_hash(PF_EXEC_SEQ, 1);
    for (int workers = 1; workers <= 3; workers++) {
        ck_assert_msg(hanging_sheet_hash(PF_EXEC_SEQ, workers) == ref, "seq, %d workers", workers);
        ck_assert_msg(hanging_sheet_hash(PF_EXEC_STATIC, workers) == ref, "static, %d workers", workers);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_biquadratic_springs");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_zero_at_rest_and_under_rigid_motion, 0, NMODELS);
    tcase_add_loop_test(tc, test_force_is_minus_gradient, 0, NMODELS);
    tcase_add_loop_test(tc, test_dforce_is_derivative, 0, NMODELS);
    tcase_add_loop_test(tc, test_rest_stiffness_is_plane_stress, 0, NMODELS);
    tcase_add_test(tc, test_flipped_and_crushed_triangles);
    tcase_add_test(tc, test_scene_component);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("executors");
    tcase_set_timeout(tm, 120);
    tcase_add_test(tm, test_hanging_sheet_every_executor);
    suite_add_tcase(s, tm);
    return s;
}
