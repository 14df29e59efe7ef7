/* Volino's bending vectors (physics/bending_vector.c, SOFA FastTriangularBendingSprings): one hinge's forces
 * when a point is lifted, against the weights and stiffness worked out by hand; no force on a flat sheet
 * however it is stretched in its plane or moved; the hinges of a sheet counted (edges of two triangles);
 * dforce the force's map; the scene component against the API. */
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

#define BASE                                                                                                 \
    "<TriangularFEMForceField youngModulus='500'/>" /* what the sheet holds besides the tested component */

static pf_world *make_world(void)
{
    return new_world(PF_EXEC_SEQ, 1);
}

/* The hinge C = (0 0 0), D = (1 0 0), A = (0.5 -1 0) (height 1), B = (0.3 2 0) (height 2), k = 10: twice the areas
 * |N_A| = 1, |N_B| = 2, |N_C| = |C B A| = 1.3, |N_D| = |D A B| = 1.7, so a = (2/3, 1/3, -1.7/3, -1.3/3) and
 * lambda = 2/3 (1 + 2) / (1 * 4) * 1 * 10 = 5. B lifted by 0.1: R = a_B 0.1 z, f_P = -lambda a_P R. */
START_TEST(test_hinge_by_hand)
{
    static const double rest[12] = {0, 0, 0, 1, 0, 0, 0.5, -1, 0, 0.3, 2, 0}; /* C D A B */
    static const uint32_t tris[6] = {0, 1, 2, 1, 0, 3};
    pf_world *w = make_world();
    pf_object_id id = add_point_object(w, rest, 4, 1.0);
    pf_bending_vectors_def d = pf_bending_vectors_default_def();
    d.bending_stiffness = 10;
    d.triangles = tris;
    d.ntriangles = 2;
    uint32_t hinges = 0;
    ck_assert_int_eq(pf_world_add_bending_vectors(w, id, &d, &hinges, NULL), PF_OK);
    ck_assert_uint_eq(hinges, 1);
    double x[12], f[12];
    memcpy(x, rest, sizeof x);
    x[11] += 0.1;
    force_at(w, id, x, f);
    const double a[4] = {-1.7 / 3, -1.3 / 3, 2.0 / 3, 1.0 / 3}, lambda = 5, Rz = a[3] * 0.1; /* C D A B */
    for (int p = 0; p < 4; p++) {
        ck_assert_msg(fabs(f[3 * p]) < 1e-14 && fabs(f[3 * p + 1]) < 1e-14, "point %d moves in plane", p);
        ck_assert_msg(fabs(f[3 * p + 2] + lambda * a[p] * Rz) < 1e-12, "point %d: f_z %.17g, want %.17g", p,
                      f[3 * p + 2], -lambda * a[p] * Rz);
    }
    /* linear: dforce along the lift is the force */
    double dx[12] = {0}, df[12];
    dx[11] = 0.1;
    dforce_of(w, id, dx, df);
    for (int i = 0; i < 12; i++) ck_assert_msg(fabs(df[i] - f[i]) < 1e-14, "df[%d] %g, f %g", i, df[i], f[i]);
    pf_world_destroy(w);
}
END_TEST

/* a flat 4 x 3 sheet (2 triangles per cell, 13 inner edges): no force at rest, stretched and sheared in its plane,
 * or moved; a bump out of it pushes back */
START_TEST(test_flat_sheet)
{
    double rest[3 * 12], x[3 * 12], f[3 * 12];
    uint32_t t[3 * 12], nt = 0;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++) {
            double *p = rest + 3 * (i + 4 * j);
            p[0] = 0.5 * i + 0.1 * j, p[1] = 0.4 * j, p[2] = 0;
        }
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 3; i++) {
            uint32_t a = (uint32_t)(i + 4 * j), q[6] = {a, a + 1, a + 5, a, a + 5, a + 4};
            memcpy(t + 3 * nt, q, sizeof q);
            nt += 2;
        }
    pf_world *w = make_world();
    pf_object_id id = add_point_object(w, rest, 12, 1.0);
    pf_bending_vectors_def d = pf_bending_vectors_default_def();
    d.bending_stiffness = 3;
    d.triangles = t;
    d.ntriangles = nt;
    uint32_t hinges = 0;
    ck_assert_int_eq(pf_world_add_bending_vectors(w, id, &d, &hinges, NULL), PF_OK);
    ck_assert_uint_eq(hinges, 3 + 4 + 6); /* inner edges: 3 along the middle row, 2 x 2 across, the 6 diagonals */
    for (int c = 0; c < 3; c++) {
        for (int p = 0; p < 12; p++) {
            const double *r = rest + 3 * p;
            double *q = x + 3 * p;
            if (c == 0) q[0] = r[0], q[1] = r[1];
            if (c == 1) q[0] = 1.3 * r[0] + 0.2 * r[1], q[1] = 0.7 * r[1] - 0.1 * r[0]; /* stretched and sheared */
            if (c == 2) q[0] = r[0] + 4, q[1] = r[1] - 1;                               /* moved */
            q[2] = c == 2 ? 2.5 : 0;
        }
        force_at(w, id, x, f);
        for (int i = 0; i < 36; i++) ck_assert_msg(fabs(f[i]) < 1e-12, "case %d: f[%d] = %g", c, i, f[i]);
    }
    memcpy(x, rest, sizeof x);
    x[3 * 5 + 2] = 0.05; /* an inner point lifted */
    force_at(w, id, x, f);
    ck_assert_msg(f[3 * 5 + 2] < 0, "the bump is not pushed back: %g", f[3 * 5 + 2]);
    double sum[3] = {0, 0, 0};
    for (int p = 0; p < 12; p++)
        for (int a = 0; a < 3; a++) sum[a] += f[3 * p + a];
    ck_assert(fabs(sum[0]) + fabs(sum[1]) + fabs(sum[2]) < 1e-12); /* internal forces */
    pf_world_destroy(w);
}
END_TEST

/* FastTriangularBendingSprings over a MeshTopology is pf_world_add_bending_vectors with the same stiffness, added to
 * the scene without it; with it the sheet's hash differs; a negative stiffness is an error at its line */
START_TEST(test_scene_component)
{
    pf_scene *s;
    ck_assert_msg(load_triangle_sheet(BASE, "", &s) == PF_OK, "%s", pf_last_error());
    uint64_t none = stepped_hash(s);
    ck_assert_msg(load_triangle_sheet(BASE, "", &s) == PF_OK, "%s", pf_last_error());
    pf_bending_vectors_def d = pf_bending_vectors_default_def();
    d.bending_stiffness = 40;
    d.triangles = TRIANGLE_SHEET_TRIS;
    d.ntriangles = 4;
    uint32_t hinges;
    ck_assert_int_eq(pf_world_add_bending_vectors(pf_scene_world(s), (pf_object_id){0}, &d, &hinges, NULL),
                     PF_OK);
    ck_assert_uint_eq(hinges, 3);
    uint64_t want = stepped_hash(s);
    ck_assert_msg(load_triangle_sheet(
                      BASE, "<FastTriangularBendingSprings bendingStiffness='40' minDistValidity='1e-6'/>",
                      &s) == PF_OK,
                  "%s", pf_last_error());
    uint64_t h = stepped_hash(s);
    ck_assert_uint_eq(h, want);
    ck_assert_uint_ne(h, none);
    ck_assert_int_eq(load_triangle_sheet(BASE, "<FastTriangularBendingSprings bendingStiffness='-1'/>", &s),
                     PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") &&
                      strstr(pf_last_error(), "bendingStiffness must be >= 0"),
                  "%s", pf_last_error());
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_bending_vectors");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_hinge_by_hand);
    tcase_add_test(tc, test_flat_sheet);
    tcase_add_test(tc, test_scene_component);
    suite_add_tcase(s, tc);
    return s;
}
