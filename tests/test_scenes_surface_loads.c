/* SOFA's surface loads and the projective constraints PhysFlow refuses: TriangleBendingSprings against the springs
 * it must build written out by hand; TrianglePressureForceField (pressure x rest area / 3 per corner, a constant
 * force) against the velocity it gives free points; the refusals' messages. */
#include "check_main.h"
#include "scene_text.h"

#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Three triangles on the edge 0-2 (a square's two halves and a fin) and a free corner. */
static const char sheet[] =
    "<Node dt='0.01' gravity='0 0 -1'><Node name='s'><EulerImplicitSolver/><CGLinearSolver iterations='50' "
    "tolerance='1e-12'/><MeshTopology position='0 0 0  1 0 0  1 1 0  0 1 0  0.5 0.5 0.8' "
    "triangles='0 1 2  0 2 3  2 0 4'/><MechanicalObject/><UniformMass vertexMass='1'/>"
    "<FixedConstraint indices='0 2'/>%s</Node></Node>";

static uint64_t sheet_hash(const char *field, uint32_t *springs)
{
    char xml[2048];
    snprintf(xml, sizeof xml, sheet, field);
    pf_scene *s = load_ok(xml);
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    *springs = sum.springs;
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_triangle_bending_springs)
{
    /* SOFA's registerTriangle: the edge 0-2 met first in (0 1 2), opposite 1; then (0 2 3) joins 3 to 1 and
     * (2 0 4) joins 4 to 1; no other edge is shared. Defaults stiffness 100, damping 5, rest = initial length */
    uint32_t n, m;
    uint64_t field = sheet_hash("<TriangleBendingSprings/>", &n);
    uint64_t hand = sheet_hash("<StiffSpringForceField spring='3 1 100 5 -1  4 1 100 5 -1'/>", &m);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(m, 2);
    ck_assert(field == hand);
    field = sheet_hash("<TriangleBendingSprings stiffness='40' damping='0'/>", &n);
    hand = sheet_hash("<StiffSpringForceField spring='3 1 40 0 -1  4 1 40 0 -1'/>", &m);
    ck_assert(field == hand);
    /* TriangularBendingSprings makes none on an edge of three triangles */
    sheet_hash("<TriangularBendingSprings/>", &n);
    ck_assert_uint_eq(n, 0);
    /* quads: two triangles (0 1 2) (0 2 3) each, so a spring across the diagonal, 1 to 3 */
    static const char quad[] = "<Node dt='0.01'><Node name='q'><EulerImplicitSolver/><MeshTopology position='0 0 0  "
                               "1 0 0  1 1 0  0 1 0' quads='0 1 2 3'/><MechanicalObject/><UniformMass vertexMass='1'/>"
                               "%s</Node></Node>";
    char a[1024], b[1024];
    snprintf(a, sizeof a, quad, "<TriangleBendingSprings/>");
    snprintf(b, sizeof b, quad, "<StiffSpringForceField spring='3 1 100 5 -1'/>");
    pf_scene *s = load_ok(a), *t = load_ok(b);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK);
    ck_assert_int_eq(pf_world_step(pf_scene_world(t), 10), PF_OK);
    ck_assert(pf_world_state_hash(pf_scene_world(s)) == pf_world_state_hash(pf_scene_world(t)));
    pf_scene_destroy(s);
    pf_scene_destroy(t);
}
END_TEST

/* A unit square of two triangles (area 1/2 each), free points of 1 kg, no gravity: after t s each point moves
 * at F t / m, F = pressure x area / 3 summed over its listed triangles. */
static const char square[] =
    "<Node dt='0.01' gravity='0 0 0'><Node name='s'><EulerExplicitSolver/><MeshTopology position='0 0 0  1 0 0  "
    "1 1 0  0 1 0' triangles='0 1 2  0 2 3'/><MechanicalObject/><UniformMass vertexMass='1'/>%s</Node></Node>";

static void expect_velocities(const char *field, const double vz[4], const double vx[4])
{
    char xml[2048];
    snprintf(xml, sizeof xml, square, field);
    pf_scene *s = load_ok(xml);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK); /* t = 0.1 s */
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "s", &o), PF_OK);
    uint32_t n;
    const double *v = pf_world_velocities(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 4);
    for (uint32_t k = 0; k < 4; k++) {
        ck_assert_msg(fabs(v[3 * k + 2] - vz[k]) < 1e-12, "point %u: vz %.17g, want %g", k, v[3 * k + 2], vz[k]);
        ck_assert_msg(fabs(v[3 * k] - vx[k]) < 1e-12, "point %u: vx %.17g, want %g", k, v[3 * k], vx[k]);
        ck_assert(v[3 * k + 1] == 0);
    }
    pf_scene_destroy(s);
}

START_TEST(test_triangle_pressure)
{
    /* pressure (0.6 0 6): points 0 and 2 in both triangles get 2 x 6 x 0.5 / 3 = 2 N along z, 1 and 3 get 1 N */
    const double vz[4] = {0.2, 0.1, 0.2, 0.1}, vx[4] = {0.02, 0.01, 0.02, 0.01};
    expect_velocities("<TrianglePressureForceField pressure='0.6 0 6' triangleList='0 1' showForces='1'/>", vz, vx);
    /* one triangle, chosen by a BoxROI holding its three corners (SOFA's strict selection) */
    const double vz1[4] = {0.1, 0.1, 0.1, 0}, vx0[4] = {0, 0, 0, 0};
    expect_velocities("<BoxROI name='roi' box='-0.1 -0.1 -0.1 1.1 0.1 0.1  0.9 0.9 -0.1 1.1 1.1 0.1'/>"
                      "<TrianglePressureForceField pressure='0 0 6' triangleList='@roi.triangleIndices'/>",
                      vz1, vx0);
    /* no list: no force (SOFA's), with a warning */
    const double zero[4] = {0, 0, 0, 0};
    expect_velocities("<TrianglePressureForceField pressure='0 0 6'/>", zero, zero);
    /* refusals */
    char xml[2048];
    snprintf(xml, sizeof xml, square, "\n<TrianglePressureForceField pressure='0 0 1' triangleList='0' "
             "useConstantForce='false'/>");
    expect_error(xml, PF_ENOTSUP, "t.xml:2:", "a force that follows the motion");
    snprintf(xml, sizeof xml, square, "\n<TrianglePressureForceField pressure='0 0 1' triangleList='2'/>");
    expect_error(xml, PF_EINVAL, "t.xml:2:", "triangle 2 is out of range (2 triangles)");
    snprintf(xml, sizeof xml, square, "<BoxROI name='roi' box='0 0 0 1 1 1' strict='0'/>\n"
             "<TrianglePressureForceField pressure='0 0 1' triangleList='@roi.triangleIndices'/>");
    expect_error(xml, PF_ENOTSUP, "t.xml:2:", "strict=\"false\"");
    snprintf(xml, sizeof xml, square, "<BoxROI name='roi' box='0 0 0 1 1 1'/>\n"
             "<TrianglePressureForceField pressure='0 0 1' triangleList='@roi.indices'/>");
    expect_error(xml, PF_ENOTSUP, "t.xml:2:", "must name a BoxROI's triangleIndices");
}
END_TEST

/* Models PhysFlow does not have: one error each, saying why. */
START_TEST(test_refused_projective)
{
    static const struct {
        const char *el, *msg;
    } cases[] = {
        /* models PhysFlow does not have (scenes/component_refused.c) */
        {"<EdgePressureForceField edgeIndices='0' binormal='0 0 1' p_intensity='-10'/>",
         "EdgePressureForceField is not supported: its p_intensity is a follower load"},
        {"<BDFOdeSolver order='3'/>", "BDFOdeSolver: order 3 is not supported: PhysFlow integrates the backward"},
        {"<SimpleTesselatedTetraTopologicalMapping input='@a' output='@b'/>",
         "SimpleTesselatedTetraTopologicalMapping is not supported: it cuts each tetrahedron into 8 on new points"},
        {"<Mesh2PointTopologicalMapping input='@a' output='@b' edgeBaryCoords='0.5 0.5 0'/>",
         "Mesh2PointTopologicalMapping is not supported: it makes a point set of new points"},
        {"<IdentityMultiMapping input='@a @b' output='@c'/>",
         "IdentityMultiMapping is not supported: its output's points are those of several input objects"},
        {"<SubsetMultiMapping input='@a @b' output='@c' indexPairs='0 0 1 0'/>",
         "SubsetMultiMapping is not supported: its output's points are picked from several input objects"},
        {"<SubsetTopologicalMultiMapping input='@a @b' output='@c'/>",
         "SubsetTopologicalMultiMapping is not supported: it joins the elements of several input topologies"},
        {"<SparseGridMultipleTopology n='4 4 4' fileTopologies='a.obj b.obj' stiffnessCoefs='10 0.2'/>",
         "SparseGridMultipleTopology is not supported: its cells take a stiffness and a mass coefficient"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[2048];
        snprintf(xml, sizeof xml, square, "\n");
        char el[512];
        snprintf(el, sizeof el, "\n%s", cases[k].el);
        snprintf(xml, sizeof xml, square, el);
        expect_error(xml, PF_ENOTSUP, "t.xml:2:", cases[k].msg);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_surface_loads");
    TCase *tc = tcase_create("loads");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_triangle_bending_springs);
    tcase_add_test(tc, test_triangle_pressure);
    tcase_add_test(tc, test_refused_projective);
    suite_add_tcase(s, tc);
    return s;
}
