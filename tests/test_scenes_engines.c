/* SOFA's engines evaluated at load (scenes/component_select_engines.c, component_transform_engine.c):
 * PointsFromIndices, SubsetTopology and TransformPosition, their outputs against lists computed by hand from the
 * scene's own points and elements, taken by a MechanicalObject and a topology container through their links;
 * their refusals. And a ConstantForceField's indices linked to a BoxROI's; MergeMeshes and MeshBoundaryROI. */
#include "check_main.h"
#include "scene_files.h"

#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pf_scene_load_def quiet_def(void)
{
    return quiet_load_def();
}

static pf_scene *load_ok(const char *xml)
{
    pf_scene_load_def d = quiet_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    return s;
}

static void expect_error(const char *xml, int code, const char *where, const char *what)
{
    pf_scene_load_def d = quiet_def();
    pf_scene *s = NULL;
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s), code);
    ck_assert_msg(strstr(pf_last_error(), where) && strstr(pf_last_error(), what), "%s", pf_last_error());
}

static const double *object_points(pf_scene *s, const char *path, uint32_t *n)
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, path, &o), PF_OK);
    return pf_world_positions(pf_scene_world(s), o, n);
}

/* PointsFromIndices: indices_position lists the linked points in the order of `indices` (repeats kept). */
START_TEST(test_points_from_indices)
{
    pf_scene *s = load_ok("<Node><EulerImplicitSolver/><Node name='a'>"
                          "<MechanicalObject name='m' position='0 0 0  1 0 0  2 0 0  3 1 0  4 2 5'/>"
                          "<UniformMass totalMass='1'/>"
                          "<PointsFromIndices name='pfi' position='@m.position' indices='4 1 1 3'/>"
                          "<Node name='sel'><MechanicalObject position='@../pfi.indices_position'/>"
                          "<UniformMass totalMass='1'/></Node></Node></Node>");
    uint32_t n;
    const double *x = object_points(s, "a/sel", &n);
    static const double want[12] = {4, 2, 5, 1, 0, 0, 1, 0, 0, 3, 1, 0};
    ck_assert_uint_eq(n, 4);
    ck_assert_mem_eq(x, want, sizeof want);
    pf_scene_destroy(s);
    expect_error("<Node><Node name='a'><MechanicalObject name='m' position='0 0 0  1 0 0'/>\n"
                 "<PointsFromIndices position='@m.position' indices='0 2'/></Node></Node>",
                 PF_EINVAL, "t.xml:2:", "PointsFromIndices: indices[1] = 2 is out of range (2 points)");
    expect_error("<Node><Node name='a'><MechanicalObject name='m' position='0 0 0'/><BoxROI name='b'/>\n"
                 "<PointsFromIndices position='@m.position' indices='@b.indices'/></Node></Node>",
                 PF_ENOTSUP, "t.xml:2:", "indices from a link");
    expect_error("<Node><Node name='a'><MechanicalObject name='m' position='0 0 0'/>"
                 "<PointsFromIndices name='p' position='@m.position' indices='0'/>\n<Node name='c'>"
                 "<MechanicalObject position='@../p.output_position'/></Node></Node></Node>",
                 PF_ENOTSUP, "t.xml:2:", "the engine gives no 'output_position' (it gives 'indices_position')");
}
END_TEST

/* A strip of 4 squares along x (points (i, j, 0), i = 0..4, j = 0..1, point i + 5 j), two triangles each
 * (i, i+1, i+6) (i, i+6, i+5); the box x in [1.5, 4.5] holds points 2 3 4 7 8 9 and squares 2 and 3. */
static const char strip[] =
    "<Node><EulerImplicitSolver/><Node name='s'>"
    "<MeshTopology name='mesh' position='0 0 0 1 0 0 2 0 0 3 0 0 4 0 0 0 1 0 1 1 0 2 1 0 3 1 0 4 1 0' "
    "triangles='0 1 6 0 6 5  1 2 7 1 7 6  2 3 8 2 8 7  3 4 9 3 9 8'/>"
    "<SubsetTopology name='sub' box='4.5 -1 -1 1.5 2 1' localIndices='%d'/>\n"
    "<Node name='in'><MechanicalObject name='mo' position='@../sub.pointsInROI'/>"
    "<TriangleSetTopologyContainer name='c' position='@mo.position' triangles='@../sub.trianglesInROI'/>"
    "<UniformMass totalMass='1'/><TriangleCollisionModel/></Node>"
    "<Node name='out'><MechanicalObject position='@../sub.pointsOutROI'/>"
    "<TriangleSetTopologyContainer triangles='@../sub.trianglesOutROI'/>"
    "<UniformMass totalMass='1'/><TriangleCollisionModel/></Node></Node></Node>";

static void check_points(pf_scene *s, const char *path, const uint32_t *ids, uint32_t n)
{
    uint32_t m;
    const double *x = object_points(s, path, &m);
    ck_assert_uint_eq(m, n);
    for (uint32_t k = 0; k < n; k++) {
        double want[3] = {ids[k] % 5, ids[k] / 5, 0};
        ck_assert_msg(!memcmp(x + 3 * k, want, sizeof want), "%s point %u", path, k);
    }
}

static void check_tris(pf_scene *s, uint32_t model, const uint32_t *want, uint32_t n)
{
    const pf_scene_collision_model *models;
    ck_assert_uint_gt(pf_scene_collision_models(s, &models), model);
    ck_assert_uint_eq(models[model].ntriangles, n);
    ck_assert_mem_eq(models[model].triangles, want, 3 * n * sizeof *want);
}

/* SubsetTopology with localIndices: the border points (in the box, on triangles that straddle it: 2 and 7) first
 * in both parts, then each part's points in order; the triangles renumbered on them. */
START_TEST(test_subset_topology)
{
    char xml[2048];
    snprintf(xml, sizeof xml, strip, 1);
    pf_scene *s = load_ok(xml);
    static const uint32_t pin[6] = {2, 7, 3, 4, 8, 9}, pout[6] = {2, 7, 0, 1, 5, 6};
    check_points(s, "s/in", pin, 6);
    check_points(s, "s/out", pout, 6);
    /* in: (2 3 8) (2 8 7) (3 4 9) (3 9 8) -> local 0 2 4, 0 4 1, 2 3 5, 2 5 4 */
    static const uint32_t tin[12] = {0, 2, 4, 0, 4, 1, 2, 3, 5, 2, 5, 4};
    /* out: (0 1 6) (0 6 5) (1 2 7) (1 7 6) -> local 2 3 5, 2 5 4, 3 0 1, 3 1 5 */
    static const uint32_t tout[12] = {2, 3, 5, 2, 5, 4, 3, 0, 1, 3, 1, 5};
    check_tris(s, 0, tin, 4);
    check_tris(s, 1, tout, 4);
    pf_scene_destroy(s);
}
END_TEST

/* Without localIndices the element lists keep the input's numbering: a container on the input's points takes the
 * triangles in the ROI; the points in it are a list of their own. Spheres (centers, radii) replace the boxes. */
START_TEST(test_subset_topology_global)
{
    pf_scene *s = load_ok(
        "<Node><EulerImplicitSolver/><Node name='s'>"
        "<MeshTopology name='mesh' position='0 0 0 1 0 0 2 0 0 3 0 0 4 0 0 0 1 0 1 1 0 2 1 0 3 1 0 4 1 0' "
        "triangles='0 1 6 0 6 5  1 2 7 1 7 6  2 3 8 2 8 7  3 4 9 3 9 8'/>"
        "<SubsetTopology name='sub' box='1.5 -1 -1 4.5 2 1' centers='0 0 0' radii='1.5'/>\n"
        "<Node name='in'><MechanicalObject position='@../sub.pointsInROI'/><UniformMass totalMass='1'/></Node>"
        "<Node name='tri'><MechanicalObject/>"
        "<TriangleSetTopologyContainer position='@../mesh.position' triangles='@../sub.trianglesInROI'/>"
        "<UniformMass totalMass='1'/><TriangleCollisionModel/></Node></Node></Node>");
    /* within 1.5 of the origin: points 0 1 5 6 (6 at sqrt 2), and the triangles of square 0 */
    static const uint32_t pin[4] = {0, 1, 5, 6}, all[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    check_points(s, "s/in", pin, 4);
    check_points(s, "s/tri", all, 10);
    static const uint32_t tin[6] = {0, 1, 6, 0, 6, 5};
    check_tris(s, 0, tin, 2);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_subset_topology_refusals)
{
    expect_error("<Node><Node name='s'><MeshTopology position='0 0 0 1 0 0 0 1 0' triangles='0 1 2'/>\n"
                 "<SubsetTopology tetrahedraInput='0'/></Node></Node>",
                 PF_ENOTSUP, "t.xml:2:", "'tetrahedraInput' (a list of tetrahedra to keep) is not supported");
    expect_error("<Node><Node name='s'><MeshTopology position='0 0 0 1 0 0 0 1 0' triangles='0 1 2'/>\n"
                 "<SubsetTopology box='0 0 0 1 1'/></Node></Node>",
                 PF_EPARSE, "t.xml:2:", "'box' needs 6 numbers per box");
    expect_error("<Node><Node name='s'>\n<SubsetTopology/></Node></Node>", PF_EPARSE, "t.xml:2:",
                 "node 's' has no topology to select from");
    expect_error("<Node><Node name='s'><MeshTopology position='0 0 0 1 0 0 0 1 0' triangles='0 1 2'/>"
                 "<SubsetTopology name='sub'/>\n<Node name='c'><MechanicalObject position='@../sub.pointsInside'/>"
                 "</Node></Node></Node>",
                 PF_ENOTSUP, "t.xml:2:", "the engine gives no 'pointsInside'");
}
END_TEST

/* TransformPosition on the points (1 2 3) (0 0 0) (-1 0 2): each method against its output by hand. */
static void expect_transform(const char *attrs, const double want[9])
{
    char xml[2048];
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>"
             "<MechanicalObject name='m' position='1 2 3  0 0 0  -1 0 2'/><UniformMass totalMass='1'/>"
             "<TransformPosition name='t' input_position='@m.position' %s/>"
             "<Node name='b'><MechanicalObject position='@../t.output_position'/><UniformMass totalMass='1'/>"
             "</Node></Node></Node>", attrs);
    pf_scene_load_def d = quiet_def();
    d.data_path = "/tmp";
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s: %s", attrs,
                  pf_last_error());
    uint32_t n;
    const double *x = object_points(s, "a/b", &n);
    ck_assert_uint_eq(n, 3);
    for (int k = 0; k < 9; k++)
        ck_assert_msg(fabs(x[k] - want[k]) < 1e-14, "%s: coordinate %d is %.17g, expected %g", attrs, k, x[k],
                      want[k]);
    pf_scene_destroy(s);
}

START_TEST(test_transform_position)
{
    static const double translated[9] = {2, 1, 3, 1, -1, 0, 0, -1, 2};
    expect_transform("method='translation' translation='1 -1 0'", translated);
    /* about origin (1 0 0), by 2 3 -1 */
    static const double scaled[9] = {1, 6, -3, -1, 0, 0, -3, 0, -2};
    expect_transform("method='scale' origin='1 0 0' scale='2 3 -1'", scaled);
    static const double scaled_moved[9] = {3, 6, -2, 1, 0, 1, -1, 0, -1};
    expect_transform("method='scaleTranslation' scale='2 3 -1' translation='1 0 1'", scaled_moved);
    /* 90 degrees about z: (x, y, z) -> (-y, x, z) */
    static const double turned[9] = {-2, 1, 3, 0, 0, 0, 0, -1, 2};
    expect_transform("method='rotation' rotation='0 0 90'", turned);
    static const double srt[9] = {-6, 2, 4, 0, 0, 1, 0, -2, 3};
    expect_transform("method='scaleRotationTranslation' scale='2 3 1' rotation='0 0 90' translation='0 0 1'", srt);
    /* onto the plane z = 1 (normal given unnormalized) */
    static const double projected[9] = {1, 2, 1, 0, 0, 1, -1, 0, 1};
    expect_transform("method='projectOnPlane' origin='5 5 1' normal='0 0 2'", projected);
    /* x' = (y + 1) / 2, y' = x / 2, z' = z / 2: the last row's w = 2 divides */
    static const double affine[9] = {1.5, 0.5, 1.5, 0.5, 0, 0, 0.5, -0.5, 1};
    expect_transform("method='affine' matrix='0 1 0 1  1 0 0 0  0 0 1 0  0 0 0 2' fixedIndices=''", affine);
    static const double kept[9] = {1.5, 0.5, 1.5, 0, 0, 0, 0.5, -0.5, 1};
    expect_transform("method='affine' matrix='0 1 0 1  1 0 0 0  0 0 1 0  0 0 0 2' fixedIndices='1'", kept);
    /* an ITK file: the matrix by rows, then the translation, which SOFA reads last number first: (3 2 1) -> t
     * (1 2 3); x' = x, y' = -z, z' = y, plus t */
    char tfm[] = "/tmp/pf_tfm_XXXXXX.tfm";
    int fd = mkstemps(tfm, 4);
    ck_assert_int_ge(fd, 0);
    static const char text[] = "#Insight Transform File V1.0\n#Transform 0\nTransform: AffineTransform_double_3_3\n"
                               "Parameters: 1 0 0 0 0 -1 0 1 0 3 2 1\nFixedParameters: 0 0 0\n";
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char attrs[256];
    snprintf(attrs, sizeof attrs, "method='fromFile' filename='%s'", strrchr(tfm, '/') + 1);
    static const double from_tfm[9] = {2, -1, 5, 1, 2, 3, 0, 0, 3};
    expect_transform(attrs, from_tfm);
    unlink(tfm);
    /* .trm: the translation's line, then the matrix's three */
    char trm[] = "/tmp/pf_trm_XXXXXX.trm";
    fd = mkstemps(trm, 4);
    ck_assert_int_ge(fd, 0);
    static const char text2[] = "1 2 3\n\n1 0 0\n0 0 -1\n0 1 0\n";
    ck_assert_int_eq(write(fd, text2, sizeof text2 - 1), (ssize_t)(sizeof text2 - 1));
    close(fd);
    snprintf(attrs, sizeof attrs, "method='fromFile' filename='%s'", trm);
    expect_transform(attrs, from_tfm);
    unlink(trm);
}
END_TEST

START_TEST(test_transform_position_refusals)
{
    static const char head[] = "<Node><Node name='a'><MechanicalObject name='m' position='1 2 3'/>\n";
    static const struct {
        const char *el;
        int code;
        const char *msg;
    } cases[] = {
        {"<TransformPosition input_position='@m.position' method='random'/>", PF_ENOTSUP, "method 'random' is not "
                                                                                          "supported"},
        {"<TransformPosition input_position='@m.position' method='shear'/>", PF_EPARSE, "unknown method 'shear'"},
        {"<TransformPosition input_position='@m.position'/>", PF_EINVAL, "'projectOnPlane' needs a nonzero 'normal'"},
        {"<TransformPosition input_position='@m.position' method='fromFile'/>", PF_EPARSE, "needs 'filename'"},
        {"<TransformPosition input_position='@m.position' method='fromFile' filename='x.obj'/>", PF_ENOTSUP,
         "a matrix file is .tfm, .trm, .txt or .xfm"},
        {"<TransformPosition input_position='@m.position' method='fromFile' filename='none.tfm'/>", PF_EIO,
         "TransformPosition: cannot open matrix file 'none.tfm': not found"},
        {"<TransformPosition input_position='@m.position' method='affine' matrix='1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 0'/>",
         PF_EINVAL, "sends point 0 to infinity"},
        {"<TransformPosition input_position='@m.position' method='translation' fixedIndices='1'/>", PF_EINVAL,
         "fixedIndices[0] = 1 is out of range (1 points)"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "%s%s</Node></Node>", head, cases[k].el);
        expect_error(xml, cases[k].code, "t.xml:2:", cases[k].msg);
    }
}
END_TEST

/* ConstantForceField indices="@box.indices" (SOFA's BoxConstantForceField): the points a BoxROI selects pushed, bit
 * for bit as the same indices written out; an ROI selecting none pushes every point, as SOFA's init does with an
 * empty list (bit for bit as no indices); a link to what is not an ROI's indices: file:line. */
static uint64_t pushed_hash(const char *indices)
{
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node dt='0.01' gravity='0 0 0'><Node name='s'><EulerImplicitSolver/><CGLinearSolver/>"
             "<MechanicalObject position='0 0 0  1 0 0  1 1 0  0 1 0'/><UniformMass vertexMass='0.1'/>"
             "<MeshTopology triangles='0 1 2  0 2 3'/><MeshSpringForceField stiffness='10'/>"
             "<BoxROI name='low' box='-0.1 -0.1 -0.1  1.1 0.5 0.1'/><BoxROI name='none' box='5 5 5  6 6 6'/>"
             "<ConstantForceField %s force='0 -1 0.5'/></Node></Node>", indices);
    pf_scene *s = load_ok(xml);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_constant_force_roi_link)
{
    uint64_t linked = pushed_hash("indices='@low.indices'"), written = pushed_hash("indices='0 1'");
    ck_assert_msg(linked == written, "the ROI's points pushed differ from the same points written out");
    ck_assert_msg(linked != pushed_hash("indices='0 1 2'"), "the hash does not see which points are pushed");
    ck_assert_msg(pushed_hash("indices='@none.indices'") == pushed_hash(""), "an empty ROI is not every point");
    expect_error("<Node><Node name='s'><MechanicalObject position='0 0 0'/>\n"
                 "<ConstantForceField indices='@s.position' force='1 0 0'/></Node></Node>",
                 PF_EPARSE, "t.xml:2:", "must name a BoxROI's");
}
END_TEST

/* MergeMeshes and MeshBoundaryROI (scenes/component_mesh_engines.c). A square (one quad) merged with a 3 x 3-point
 * sheet of four quads: 4 + 9 points, the sheet's renumbered from 4; its centre (merged point 8) is the only point on
 * no boundary edge, so a FixedConstraint on "@roi.indices" holds every point but it, which gravity alone moves.
 * A linked `triangles` is SOFA's list: a MeshTopology's triangle 0 1 2 without the two triangles PhysFlow keeps
 * beside its quad 2 1 3 4, so the boundary of those triangles is 0 1 2 and points 3 and 4 fall. Bad lists: file:line. */
static void moved(pf_scene *s, const char *node, const int *want, uint32_t n)
{
    pf_object_id o;
    uint32_t np;
    ck_assert_int_eq(pf_scene_find_object(s, node, &o), PF_OK);
    pf_world *w = pf_scene_world(s);
    const double *x = pf_world_positions(w, o, &np);
    ck_assert_uint_eq(np, n);
    double *x0 = malloc(3 * n * sizeof *x0);
    memcpy(x0, x, 3 * n * sizeof *x0);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    x = pf_world_positions(w, o, &np);
    for (uint32_t p = 0; p < n; p++)
        ck_assert_msg((x[3 * p + 2] != x0[3 * p + 2]) == want[p], "%s: point %u moved %g", node, p,
                      x[3 * p + 2] - x0[3 * p + 2]);
    free(x0);
}

START_TEST(test_merge_meshes_boundary)
{
    const char *xml =
        "<Node dt='0.01' gravity='0 0 -9.81'><EulerImplicitSolver/><CGLinearSolver/>"
        "<Node name='merged'><MergeMeshes name='m' nbMeshes='2' position1='0 0 0  1 0 0  1 1 0  0 1 0' quads1='0 1 2 3'"
        " position2='2 0 0  3 0 0  4 0 0  2 1 0  3 1 0  4 1 0  2 2 0  3 2 0  4 2 0'"
        " quads2='0 1 4 3  1 2 5 4  3 4 7 6  4 5 8 7'/>"
        "<MechanicalObject position='@m.position'/><UniformMass vertexMass='1'/>"
        "<MeshBoundaryROI name='roi' quads='@m.quads'/><FixedConstraint indices='@roi.indices'/></Node>"
        "<Node name='split'><MeshTopology name='t' position='0 0 0  1 0 0  0 1 0  1 1 0  1 2 0' triangles='0 1 2'"
        " quads='2 1 3 4'/><MechanicalObject/><UniformMass vertexMass='1'/>"
        "<MeshBoundaryROI name='roi' triangles='@t.triangles'/><FixedConstraint indices='@roi.indices'/></Node></Node>";
    pf_scene *s = load_ok(xml);
    uint32_t n;
    const double *x = object_points(s, "merged", &n);
    ck_assert_uint_eq(n, 13);
    ck_assert_double_eq(x[3 * 4], 2);     /* the sheet's first point after the square's four */
    ck_assert_double_eq(x[3 * 12 + 1], 2); /* its last */
    static const int merged[13] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, split[5] = {0, 0, 0, 1, 1};
    moved(s, "merged", merged, 13);
    moved(s, "split", split, 5);
    pf_scene_destroy(s);
    expect_error("<Node><Node name='s'>\n<MergeMeshes nbMeshes='0'/></Node></Node>", PF_EINVAL, "t.xml:2:",
                 "nbMeshes must be");
    expect_error("<Node><Node name='s'>\n<MergeMeshes position1='0 0 0  1 0 0' edges1='0 1 1'/></Node></Node>",
                 PF_EPARSE, "t.xml:2:", "'edges1' needs 2 indices per element");
    expect_error("<Node><Node name='s'>\n<MergeMeshes position1='0 0 0  1 0 0' edges1='0 2'/></Node></Node>",
                 PF_EINVAL, "t.xml:2:", "names point 2 but position1 has 2 points");
    expect_error("<Node><Node name='s'><MechanicalObject position='0 0 0  1 0 0  0 1 0'/>\n"
                 "<MeshBoundaryROI triangles='0 1'/></Node></Node>", PF_EPARSE, "t.xml:2:",
                 "'triangles' needs 3 indices per element");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_engines");
    TCase *tc = tcase_create("engines");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_points_from_indices);
    tcase_add_test(tc, test_subset_topology);
    tcase_add_test(tc, test_subset_topology_global);
    tcase_add_test(tc, test_subset_topology_refusals);
    tcase_add_test(tc, test_transform_position);
    tcase_add_test(tc, test_transform_position_refusals);
    tcase_add_test(tc, test_constant_force_roi_link);
    tcase_add_test(tc, test_merge_meshes_boundary);
    suite_add_tcase(s, tc);
    return s;
}
