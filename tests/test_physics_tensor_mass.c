/* Tensor-mass membrane (physics/tensor_mass.c, SOFA TriangularTensorMassForceField): a flat triangle's
 * stiffness against the analytic plane-stress t A B^T D B in its plane (t = 1) and (lambda + mu)/2 times the
 * cotangent Laplacian across it; the force linear in the displacement, zero under translation, dforce the
 * same map; the scene component against the API. */
#include "check_main.h"
#include "world_fixture.h"
#include "point_object.h"
#include "triangle_sheet.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/force_field.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "" /* what the sheet holds besides the tested component */

static pf_world *make_world(void)
{
    pf_world_def d = test_world_def(PF_EXEC_SEQ, 1);
    d.gravity[2] = 0;
    return create_world(&d);
}

static pf_object_id add_membrane(pf_world *w, const double *x, uint32_t n, const uint32_t *tris, uint32_t nt,
                                 double E, double nu)
{
    pf_object_id id = add_point_object(w, x, n, 1.0);
    pf_tensor_mass_def d = pf_tensor_mass_default_def();
    d.young_modulus = E;
    d.poisson_ratio = nu;
    d.triangles = tris;
    d.ntriangles = nt;
    ck_assert_int_eq(pf_world_add_tensor_mass(w, id, &d, NULL), PF_OK);
    return id;
}

/* df = kfact K dx (dforce_of at a factor) */
static void dforce_scaled(pf_world *w, pf_object_id id, const double *dx, double *df, double kfact)
{
    const pf_object *o = w->obj.v[id.index];
    memset(df, 0, 3 * (size_t)o->n * sizeof *df);
    pf_force_fields_dforce(o, dx, df, kfact);
}

/* K = -df/dx of a triangle in the plane z = 0.3: its in-plane 6x6 part is t A B^T D B (t = 1, D plane stress, B
 * from the shape functions of [1 x y]^-1), its z part (lambda + mu)/2 sum_j cot_j (e_k - e_l)(e_k - e_l)^T (cot_j
 * from u.v / |u x v| at corner j), no coupling between them; kfact scales df */
START_TEST(test_flat_triangle_stiffness)
{
    const double p[3][2] = {{0.1, 0.2}, {1.3, 0.4}, {0.5, 1.1}}, E = 2100, nu = 0.3;
    const double x[9] = {p[0][0], p[0][1], 0.3, p[1][0], p[1][1], 0.3, p[2][0], p[2][1], 0.3};
    const uint32_t tri[3] = {0, 1, 2};
    pf_world *w = make_world();
    pf_object_id id = add_membrane(w, x, 3, tri, 1, E, nu);
    double K[9][9];
    for (int c = 0; c < 9; c++) {
        double dx[9] = {0}, df[9];
        dx[c] = 1;
        dforce_scaled(w, id, dx, df, 2.5);
        for (int r = 0; r < 9; r++) K[r][c] = -df[r] / 2.5;
    }
    /* the analytic plane-stress stiffness */
    double det = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
    double gx[3], gy[3], B[3][6] = {{0}};
    for (int i = 0; i < 3; i++) {
        gx[i] = (p[(i + 1) % 3][1] - p[(i + 2) % 3][1]) / det;
        gy[i] = (p[(i + 2) % 3][0] - p[(i + 1) % 3][0]) / det;
        B[0][2 * i] = gx[i], B[1][2 * i + 1] = gy[i], B[2][2 * i] = gy[i], B[2][2 * i + 1] = gx[i];
    }
    double s = E / (1 - nu * nu), D[3][3] = {{s, s * nu, 0}, {s * nu, s, 0}, {0, 0, s * (1 - nu) / 2}};
    double area = fabs(det) / 2, kmax = 0, err = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double a = 0;
            for (int m = 0; m < 3; m++)
                for (int n = 0; n < 3; n++) a += B[m][i] * D[m][n] * B[n][j];
            a *= area;
            kmax = fmax(kmax, fabs(a));
            err = fmax(err, fabs(K[3 * (i / 2) + i % 2][3 * (j / 2) + j % 2] - a));
        }
    ck_assert_msg(err < 1e-10 * kmax, "in-plane stiffness off by %g of %g", err, kmax);
    /* across the plane: the cotangent Laplacian; no coupling */
    double lambda = E * nu / (1 - nu * nu), mu = E * (1 - nu) / (1 - nu * nu), Z[3][3] = {{0}};
    for (int j = 0; j < 3; j++) {
        int k = (j + 1) % 3, l = (j + 2) % 3;
        double u[2] = {p[k][0] - p[j][0], p[k][1] - p[j][1]}, v[2] = {p[l][0] - p[j][0], p[l][1] - p[j][1]};
        double c = (lambda + mu) / 2 * (u[0] * v[0] + u[1] * v[1]) / fabs(u[0] * v[1] - u[1] * v[0]);
        Z[k][k] += c, Z[l][l] += c, Z[k][l] -= c, Z[l][k] -= c;
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            ck_assert_msg(fabs(K[3 * a + 2][3 * b + 2] - Z[a][b]) < 1e-10 * kmax, "zz %d %d: %g, want %g", a, b,
                          K[3 * a + 2][3 * b + 2], Z[a][b]);
            for (int d = 0; d < 2; d++) {
                ck_assert(fabs(K[3 * a + 2][3 * b + d]) < 1e-10 * kmax);
                ck_assert(fabs(K[3 * a + d][3 * b + 2]) < 1e-10 * kmax);
            }
        }
    pf_world_destroy(w);
}
END_TEST

/* out of plane, two triangles: f(x) = -K (x - rest) with K from dforce; a translation gives no force; a rotation
 * does (the model is not rotated) */
START_TEST(test_linear_in_displacement)
{
    static const double rest[12] = {0, 0, 0, 1, 0, 0.1, 0.2, 1, 0, 1.1, 1.2, 0.3};
    static const double move[12] = {0.03, -0.02, 0.01, -0.04, 0.02, 0.03, 0.01, 0.05, -0.02, 0.02, -0.03, -0.01};
    const uint32_t tris[6] = {0, 1, 2, 1, 3, 2};
    pf_world *w = make_world();
    pf_object_id id = add_membrane(w, rest, 4, tris, 2, 500, 0.45);
    double x[12], f[12], df[12];
    for (int i = 0; i < 12; i++) x[i] = rest[i] + move[i];
    force_at(w, id, x, f);
    dforce_scaled(w, id, move, df, 1.0);
    double fbig = 0;
    for (int i = 0; i < 12; i++) fbig = fmax(fbig, fabs(f[i]));
    ck_assert(fbig > 1);
    for (int i = 0; i < 12; i++) ck_assert_msg(fabs(f[i] - df[i]) < 1e-12 * fbig, "%d: %g vs %g", i, f[i], df[i]);
    for (int i = 0; i < 12; i++) x[i] = rest[i] + (i % 3 == 1 ? 0.7 : -0.2);
    force_at(w, id, x, f);
    for (int i = 0; i < 12; i++) ck_assert_msg(fabs(f[i]) < 1e-12 * fbig, "translated: f[%d] = %g", i, f[i]);
    for (int p = 0; p < 4; p++) /* a quarter turn about z */
        x[3 * p] = -rest[3 * p + 1], x[3 * p + 1] = rest[3 * p], x[3 * p + 2] = rest[3 * p + 2];
    force_at(w, id, x, f);
    double turned = 0;
    for (int i = 0; i < 12; i++) turned = fmax(turned, fabs(f[i]));
    ck_assert_msg(turned > fbig, "a rotation gives %g", turned);
    pf_world_destroy(w);
}
END_TEST

/* TriangularTensorMassForceField over a MeshTopology is pf_world_add_tensor_mass with the same E and nu, added to
 * the scene without it; a Poisson ratio out of range is an error at its line */
START_TEST(test_scene_component)
{
    pf_scene *s;
    ck_assert_msg(load_triangle_sheet(BASE, "", &s) == PF_OK, "%s", pf_last_error());
    pf_tensor_mass_def d = pf_tensor_mass_default_def();
    d.young_modulus = 15;
    d.poisson_ratio = 0.9;
    d.triangles = TRIANGLE_SHEET_TRIS;
    d.ntriangles = 4;
    ck_assert_int_eq(pf_world_add_tensor_mass(pf_scene_world(s), (pf_object_id){0}, &d, NULL), PF_OK);
    uint64_t want = stepped_hash(s);
    ck_assert_msg(
        load_triangle_sheet(BASE, "<TriangularTensorMassForceField youngModulus='15' poissonRatio='0.9'/>",
                            &s) == PF_OK,
        "%s", pf_last_error());
    ck_assert_uint_eq(stepped_hash(s), want);
    ck_assert_int_eq(load_triangle_sheet(BASE, "<TriangularTensorMassForceField poissonRatio='-1'/>", &s),
                     PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") &&
                      strstr(pf_last_error(), "poissonRatio must be in (-1, 1)"),
                  "%s", pf_last_error());
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_tensor_mass");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_flat_triangle_stiffness);
    tcase_add_test(tc, test_linear_in_displacement);
    tcase_add_test(tc, test_scene_component);
    suite_add_tcase(s, tc);
    return s;
}
