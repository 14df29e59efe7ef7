/* More of SOFA's example scenes (issue 18): TetrahedralTensorMassForceField against SOFA's edge tensors
 * computed here from its formulas (TetrahedralTensorMassForceField::applyTetrahedronCreation, addForce); a
 * grid that a Hexa2TetraTopologicalMapping made its node's mesh, still read as a grid by a
 * Hexa2QuadTopologicalMapping below (the quads of the cells, counted by hand); AddDataRepository's folder
 * against the file found there, in SOFA's order; VTK XML PolyData's cells against the hand-made triangles and
 * edges; a topology of elements only taking the points of the MechanicalObject after it (the lumped masses of
 * a tetrahedron); LinearMovementProjectiveConstraint on a BoxROI's points against its closed-form path; a
 * SubsetTopology's triangles taken by a container after the state linked the whole mesh (the squares in the
 * box, by hand); a topological mapping written twice against the scene with one; and the names mapped onto
 * existing components (StaticOdeSolver, ShewchukPCGLinearSolver, the *SetTopologyAlgorithms companions, the
 * input-driven MechanicalStateController, ElementCorotationalFEMForceField and its element-named forms)
 * against the scene written with the component they stand for. */
#include "check_main.h"
#include "scene_text.h"
#include "triangle_sheet.h"

#include "physflow/scene.h"
#include "physics/force_field.h"
#include "physics/world.h"
#include "scenes/mesh_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- TetrahedralTensorMassForceField ---- */

/* two tetrahedra sharing the face 1 2 3, so that three edges carry the tensors of both */
static const double TT_X[15] = {0, 0, 0, 1.2, 0.1, 0, 0.2, 0.9, 0.1, 0.1, 0.2, 1.1, 1.0, 1.0, 0.9};
static const uint32_t TT_T[8] = {0, 1, 2, 3, 1, 2, 3, 4};
static const char tensor_scene[] =
    "<Node gravity='0 0 0'><EulerImplicitSolver/><CGLinearSolver/><Node name='t'>"
    "<MeshTopology position='0 0 0  1.2 0.1 0  0.2 0.9 0.1  0.1 0.2 1.1  1.0 1.0 0.9' "
    "tetrahedra='0 1 2 3  1 2 3 4'/><MechanicalObject/><UniformMass totalMass='1'/>\n%s</Node></Node>";

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

/* SOFA's force at displacements u from rest X: per tetrahedron, 6 V = (p1 - p0) x (p2 - p0) . (p0 - p3),
 * shape vectors s_j = +-(p_{j+2} - p_{j+1}) x (p_{j+3} - p_{j+1}) / (6 V) (minus for odd j), lambda* = lambda
 * |6V| / 6, mu* = mu |6V| / 6; on each edge (k, l) of the tetrahedron the tensor T = lambda* s_l s_k^T + mu*
 * s_k s_l^T + mu* (s_k . s_l) I, and with d = u_l - u_k the force T d on l and -T^T d on k. */
static void sofa_tensor_force(const double *X, uint32_t np, const uint32_t *tet, uint32_t nt, const double *u,
                              double E, double nu, double *f)
{
    static const int edges[6][2] = {{0, 1}, {0, 2}, {0, 3},
                                    {1, 2}, {1, 3}, {2, 3}}; /* SOFA's edges in a tetra */
    double lambda = E * nu / ((1 - 2 * nu) * (1 + nu)), mu = E / (2 * (1 + nu));
    memset(f, 0, 3 * np * sizeof *f);
    for (uint32_t e = 0; e < nt; e++) {
        const uint32_t *t = tet + 4 * e;
        const double *p[4] = {X + 3 * t[0], X + 3 * t[1], X + 3 * t[2], X + 3 * t[3]};
        double a[3], b[3], c[3], d0[3], s[4][3];
        for (int i = 0; i < 3; i++)
            a[i] = p[1][i] - p[0][i], b[i] = p[2][i] - p[0][i], d0[i] = p[0][i] - p[3][i];
        cross3(a, b, c);
        double vol6 = dot3(c, d0);
        for (int j = 0; j < 4; j++) {
            const double *q1 = p[(j + 1) % 4], *q2 = p[(j + 2) % 4], *q3 = p[(j + 3) % 4];
            for (int i = 0; i < 3; i++)
                a[i] = q2[i] - q1[i], b[i] = q3[i] - q1[i];
            cross3(a, b, s[j]);
            for (int i = 0; i < 3; i++)
                s[j][i] *= (j % 2 ? -1.0 : 1.0) / vol6;
        }
        double ls = lambda * fabs(vol6) / 6, ms = mu * fabs(vol6) / 6;
        for (int q = 0; q < 6; q++) {
            int k = edges[q][0], l = edges[q][1];
            double T[3][3], d[3];
            for (int r = 0; r < 3; r++) {
                for (int cc = 0; cc < 3; cc++)
                    T[r][cc] = ls * s[l][r] * s[k][cc] + ms * s[k][r] * s[l][cc];
                T[r][r] += ms * dot3(s[k], s[l]);
            }
            for (int i = 0; i < 3; i++)
                d[i] = u[3 * t[l] + i] - u[3 * t[k] + i];
            for (int r = 0; r < 3; r++)
                for (int cc = 0; cc < 3; cc++) {
                    f[3 * t[l] + r] += T[r][cc] * d[cc];
                    f[3 * t[k] + cc] -= T[r][cc] * d[r];
                }
        }
    }
}

/* the scene's force at rest + u against SOFA's, to rounding */
static void check_tensor_force(const char *attrs, double E, double nu)
{
    char xml[1024];
    snprintf(xml, sizeof xml, tensor_scene, attrs);
    pf_scene *s = load_ok(xml);
    pf_object_id id;
    ck_assert_int_eq(pf_scene_find_object(s, "t", &id), PF_OK);
    const pf_object *o = pf_scene_world(s)->obj.v[id.index];
    ck_assert_uint_eq(o->n, 5);
    double u[15], x[15], v[15] = {0}, f[15] = {0}, want[15];
    for (int i = 0; i < 15; i++) {
        u[i] = 0.05 * sin(1.7 * i + 0.3); /* any displacement: the force is linear in it */
        x[i] = TT_X[i] + u[i];
    }
    pf_force_fields_force(o, x, v, f, 0);
    sofa_tensor_force(TT_X, 5, TT_T, 2, u, E, nu, want);
    double scale = 0;
    for (int i = 0; i < 15; i++)
        scale = fmax(scale, fabs(want[i]));
    ck_assert_double_gt(scale, 1e-3 * E * 0.05); /* the displacement loads the elements */
    for (int i = 0; i < 15; i++)
        ck_assert_msg(fabs(f[i] - want[i]) <= 1e-12 * scale, "%s: f[%d] = %.17g, SOFA's %.17g", attrs, i,
                      f[i], want[i]);
    pf_scene_destroy(s);
}

START_TEST(test_tetra_tensor_mass_force)
{
    check_tensor_force("<TetrahedralTensorMassForceField youngModulus='2500' poissonRatio='0.42'/>", 2500,
                       0.42);
    check_tensor_force("<TetrahedralTensorMassForceField/>", 1000, 0.3); /* SOFA's defaults */
}
END_TEST

/* SOFA's component reads tetrahedra only: a grid's hexahedra are not split for it */
START_TEST(test_tetra_tensor_mass_refused)
{
    expect_error("<Node><EulerImplicitSolver/><CGLinearSolver/><Node name='g'><MechanicalObject/>"
                 "<RegularGridTopology n='2 2 2' min='0 0 0' max='1 1 1'/><UniformMass totalMass='1'/>\n"
                 "<TetrahedralTensorMassForceField/></Node></Node>",
                 PF_EPARSE, "t.xml:2:", "TetrahedralTensorMassForceField needs tetrahedra in node 'g'");
    expect_error("<Node><EulerImplicitSolver/><CGLinearSolver/><Node name='g'><MechanicalObject "
                 "position='0 0 0 1 0 0 0 1 0 0 0 1'/><MeshTopology tetrahedra='0 1 2 3'/><UniformMass "
                 "totalMass='1'/>\n"
                 "<TetrahedralTensorMassForceField poissonRatio='0.5'/></Node></Node>",
                 PF_EINVAL, "t.xml:2:", "poissonRatio must be in [-1, 0.5)");
}
END_TEST

/* ---- a grid made its node's mesh by Hexa2TetraTopologicalMapping, still a grid to the nodes below ---- */

/* SOFA's TetrahedralTensorMassForceField.scn: the grid, a TetrahedronSetTopologyContainer filled from it in
 * the same node, and below, quads from the grid (input="@../grid"). The grid of 2 x 2 x 3 points is two cells
 * one on the other; Hexa2QuadTopologicalMapping keeps the quads on the border (one hexahedron around them): 4
 * sides of each cell and the 2 ends, 10 quads, 20 triangles for the collision model, on the grid's 12 points.
 */
START_TEST(test_grid_read_after_hexa2tetra)
{
    pf_scene *s = load_ok(
        "<Node gravity='0 0 0'><EulerImplicitSolver/><CGLinearSolver/><Node name='g'><MechanicalObject/>"
        "<UniformMass totalMass='1'/><RegularGridTopology name='grid' n='2 2 3' min='0 0 0' max='1 1 2'/>"
        "<TetrahedronSetTopologyContainer name='tet'/><Hexa2TetraTopologicalMapping input='@grid' "
        "output='@tet'/>"
        "<TetrahedralTensorMassForceField/><Node name='q'><QuadSetTopologyContainer name='quads'/>"
        "<Hexa2QuadTopologicalMapping input='@../grid' output='@quads'/><TriangleCollisionModel/></Node>"
        "</Node></Node>");
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    ck_assert_uint_eq(m[0].ntriangles, 20);
    for (uint32_t k = 0; k < 3 * m[0].ntriangles; k++)
        ck_assert_uint_lt(m[0].triangles[k], 12);
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_uint_eq(sum.points, 12);
    pf_scene_destroy(s);
}
END_TEST

/* ---- AddDataRepository ---- */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void keep_warnings(pf_scene_severity sev, const char *msg, void *ctx)
{
    if (sev == PF_SCENE_WARNING && strstr(msg, "AddDataRepository")) snprintf(ctx, 512, "%s", msg);
}

static int load_in(const char *dir, const char *xml, pf_scene **s, char *warning)
{
    pf_scene_load_def d = silent_load_def();
    d.report = keep_warnings;
    d.report_ctx = warning;
    warning[0] = 0;
    return pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), dir, s);
}

/* SOFA's AddDataRepository adds its folder (relative to the scene's) last to the places looked in, when it is
 * read: a loader after it finds a file there, one before does not; an absolute folder works alike; a folder
 * that does not exist adds nothing, with a warning (an error message in SOFA, the scene going on). */
START_TEST(test_add_data_repository)
{
    char dir[] = "/tmp/pf_repo_XXXXXX", sub[64], obj[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/meshes", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(obj, sizeof obj, "%s/tri.obj", sub);
    write_text(obj, "v 0 0 0\nv 2 0 0\nv 0 3 0\nf 1 2 3\n");
    static const char fmt[] =
        "<Node gravity='0 0 0'><EulerImplicitSolver/><CGLinearSolver/>%s\n<Node name='m'>"
        "<MeshObjLoader name='l' filename='tri.obj'/><MeshTopology src='@l'/>"
        "<MechanicalObject/><UniformMass totalMass='1'/></Node>%s</Node>";
    char xml[1024], abs_repo[160], warning[512];
    const char *repos[2] = {"<AddDataRepository path='meshes'/>", abs_repo};
    snprintf(abs_repo, sizeof abs_repo, "<AddDataRepository path='%s'/>", sub);
    for (int k = 0; k < 2; k++) {
        snprintf(xml, sizeof xml, fmt, repos[k], "");
        pf_scene *s = NULL;
        ck_assert_msg(load_in(dir, xml, &s, warning) == PF_OK, "%s", pf_last_error());
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "m", &o), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_uint_eq(n, 3);
        ck_assert_double_eq(x[3], 2);
        ck_assert_double_eq(x[7], 3);
        pf_scene_destroy(s);
    }
    /* after the loader: too late for it */
    snprintf(xml, sizeof xml, fmt, "", repos[0]);
    pf_scene *s = NULL;
    ck_assert_int_eq(load_in(dir, xml, &s, warning), PF_EIO);
    ck_assert_msg(strstr(pf_last_error(), "cannot open mesh file 'tri.obj'"), "%s", pf_last_error());
    /* a folder that is not there */
    snprintf(xml, sizeof xml, fmt, "<AddDataRepository path='nowhere'/>", "");
    ck_assert_int_eq(load_in(dir, xml, &s, warning), PF_EIO);
    ck_assert_msg(strstr(warning, "nowhere' is not a folder"), "%s", warning);
    expect_error("<Node>\n<AddDataRepository/></Node>", PF_EPARSE,
                 "t.xml:2:", "attribute 'path' (a folder) is missing");
    unlink(obj);
    rmdir(sub);
    rmdir(dir);
}
END_TEST

/* ---- VTK XML PolyData ---- */

static int tri_cmp(const void *a, const void *b)
{
    return memcmp(a, b, 3 * sizeof(uint32_t));
}

#define VTP_HEAD "<VTKFile type='PolyData' version='0.1'><PolyData>\n"
#define VTP_POINTS                                                                                           \
    "<Points><DataArray type='Float32' NumberOfComponents='3' format='ascii'>0 0 0 1 0 0 1 1 0 0 1 0 2 0.5 " \
    "0"                                                                                                      \
    "</DataArray></Points>\n"

/* 5 points; a polyline 0 1 4 (two edges), a strip 0 1 3 2 (triangles 0 1 3 and, turned to keep the winding, 3
 * 1 2), polygons 0 1 2 3 (fanned: 0 1 2, 0 2 3) and 1 4 2; a vertex adds nothing */
START_TEST(test_vtp_polydata)
{
    static const char text[] = VTP_HEAD
        "<Piece NumberOfPoints='5' NumberOfVerts='1' NumberOfLines='1' NumberOfStrips='1' "
        "NumberOfPolys='2'>\n" VTP_POINTS "<Verts><DataArray Name='connectivity' format='ascii'>4</DataArray>"
        "<DataArray Name='offsets' format='ascii'>1</DataArray></Verts>\n"
        "<Lines><DataArray Name='connectivity' format='ascii'>0 1 4</DataArray>"
        "<DataArray Name='offsets' format='ascii'>3</DataArray></Lines>\n"
        "<Strips><DataArray Name='connectivity' format='ascii'>0 1 3 2</DataArray>"
        "<DataArray Name='offsets' format='ascii'>4</DataArray></Strips>\n"
        "<Polys><DataArray Name='connectivity' format='ascii'>0 1 2 3 1 4 2</DataArray>"
        "<DataArray Name='offsets' format='ascii'>4 7</DataArray></Polys>\n"
        "</Piece></PolyData></VTKFile>\n";
    sc_mesh m;
    char note[256] = "";
    ck_assert_msg(sc_parse_vtu("p.vtp", text, strlen(text), &m, note, sizeof note) == PF_OK, "%s",
                  pf_last_error());
    ck_assert_uint_eq(m.npoints, 5);
    ck_assert_double_eq(m.points[13], 0.5);
    ck_assert_uint_eq(m.nedges, 2);
    uint32_t want[5][3] = {{0, 1, 3}, {3, 1, 2}, {0, 1, 2}, {0, 2, 3}, {1, 4, 2}}, got[5][3];
    ck_assert_uint_eq(m.ntris, 5);
    memcpy(got, m.tris, sizeof got);
    qsort(want, 5, sizeof want[0], tri_cmp);
    qsort(got, 5, sizeof got[0], tri_cmp);
    ck_assert_mem_eq(got, want, sizeof want);
    uint32_t e[4];
    memcpy(e, m.edges, sizeof e);
    ck_assert_msg((e[0] == 0 && e[1] == 1 && e[2] == 1 && e[3] == 4) ||
                      (e[0] == 1 && e[1] == 4 && e[2] == 0 && e[3] == 1),
                  "edges %u %u, %u %u", e[0], e[1], e[2], e[3]);
    sc_mesh_free(&m);
}
END_TEST

START_TEST(test_vtp_bad)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {VTP_HEAD "<Piece NumberOfPoints='5' NumberOfPolys='1'>\n" VTP_POINTS "</Piece></PolyData></VTKFile>",
         "p.vtp:2: <Piece> has NumberOfPolys but no <Polys>"},
        {VTP_HEAD
         "<Piece NumberOfPoints='5' NumberOfPolys='1'>\n" VTP_POINTS
         "<Polys><DataArray Name='connectivity' format='ascii'>0 1 9</DataArray>\n"
         "<DataArray Name='offsets' format='ascii'>3</DataArray></Polys></Piece></PolyData></VTKFile>",
         "p.vtp:4: point index 9 is out of range (5 points)"},
        {VTP_HEAD
         "<Piece NumberOfPoints='5' NumberOfLines='1'>\n" VTP_POINTS
         "<Lines><DataArray Name='connectivity' format='ascii'>0 1</DataArray></Lines></Piece></PolyData>"
         "</VTKFile>",
         "<Lines> needs DataArrays connectivity, offsets"},
        {"<VTKFile type='ImageData'><ImageData/></VTKFile>", "VTKFile type 'ImageData' is not read"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        sc_mesh m;
        char note[64];
        ck_assert_int_eq(sc_parse_vtu("p.vtp", bad[k].text, strlen(bad[k].text), &m, note, sizeof note),
                         PF_EPARSE);
        ck_assert_msg(strstr(pf_last_error(), bad[k].want), "%zu: %s", k, pf_last_error());
    }
}
END_TEST

/* ---- a topology of elements only, its points from the MechanicalObject after it ---- */

/* SOFA's oneTetrahedron.scn: MeshTopology tetrahedra="0 1 2 3" before the MechanicalObject giving the points.
 * The unit corner tetrahedron (volume 1/6) at density 6 is 1 kg, a quarter on each corner (DiagonalMass); the
 * points are the state's. An element using a point the state does not have is an error at the
 * MechanicalObject. */
START_TEST(test_topology_points_from_later_state)
{
    static const char fmt[] =
        "<Node gravity='0 0 0'><EulerImplicitSolver/><CGLinearSolver/><Node name='t'>"
        "<MeshTopology tetrahedra='0 1 2 %s'/>\n<MechanicalObject position='0 0 0  1 0 0  0 1 0  "
        "0 0 1'/><DiagonalMass massDensity='6'/></Node></Node>";
    char xml[512];
    snprintf(xml, sizeof xml, fmt, "3");
    pf_scene *s = load_ok(xml);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "t", &o), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_double_eq(x[11], 1);
    double m[4];
    uint32_t nm;
    ck_assert_int_eq(pf_world_get_point_masses(pf_scene_world(s), o, m, 4, &nm), PF_OK);
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq_tol(m[k], 0.25, 1e-15);
    pf_scene_destroy(s);
    snprintf(xml, sizeof xml, fmt, "4");
    expect_error(xml, PF_EINVAL, "t.xml:2:",
                 "MechanicalObject: the topology (line 1) uses point 4, but 'position' "
                 "gives 4 points");
    /* no MechanicalObject with positions after it: the error it always was */
    expect_error(
        "<Node><EulerImplicitSolver/><CGLinearSolver/><Node name='t'>\n<MeshTopology tetrahedra='0 1 2 3'/>"
        "<MechanicalObject/></Node></Node>",
        PF_EPARSE, "t.xml:2:", "got 0 numbers (none, and no MechanicalObject before it gave positions)");
}
END_TEST

/* ---- LinearMovementProjectiveConstraint on an ROI's points ---- */

/* SOFA's elongation.scn moves the points of a BoxROI (indices="@box.indices"). On a grid 3 x 2 x 2 over
 * [0,2] x [0,1] x [0,1] (point i + 3 j + 6 k at x = i), the box around x = 2 holds points 2 5 8 11: the same
 * scene as with those indices written out, and after 10 steps of 0.01 s the points stand where the hook put
 * them at the last step's start, t = 0.09: x0 + (0.09, 0, 0) on the path 0 -> (1, 0, 0) over keys 0 and 1. */
START_TEST(test_linear_movement_roi)
{
    static const char fmt[] =
        "<Node dt='0.01' gravity='0 0 -9.81'><Node name='g'><EulerImplicitSolver/><CGLinearSolver "
        "iterations='100' "
        "tolerance='1e-12'/><RegularGridTopology n='3 2 2' min='0 0 0' max='2 1 1'/><MechanicalObject/>"
        "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='100'/>"
        "<BoxROI name='box' box='1.9 -0.1 -0.1 2.1 1.1 1.1'/><FixedConstraint indices='0 3 6 9'/>"
        "<LinearMovementProjectiveConstraint indices='%s' keyTimes='0 1' movements='0 0 0  1 0 "
        "0'/></Node></Node>";
    char a[1024], b[1024];
    snprintf(a, sizeof a, fmt, "@box.indices");
    snprintf(b, sizeof b, fmt, "2 5 8 11");
    pf_scene *s = load_ok(a);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "g", &o), PF_OK);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 12);
    static const uint32_t moved[4] = {2, 5, 8, 11};
    for (int k = 0; k < 4; k++) {
        const double *p = x + 3 * moved[k];
        ck_assert_double_eq_tol(p[0], 2.09, 1e-12);
        ck_assert_double_eq_tol(p[1], (moved[k] / 3) % 2, 1e-12);
        ck_assert_double_eq_tol(p[2], moved[k] / 6, 1e-12);
    }
    ck_assert_double_gt(fabs(x[3] - 1) + fabs(x[4]) + fabs(x[5]), 1e-9); /* a free point moves */
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    ck_assert_uint_eq(stepped_hash(load_ok(b)), h);
    snprintf(a, sizeof a, fmt, "@box.nothing");
    expect_error(a, PF_EPARSE, "t.xml:1:", "'indices' link '@box.nothing' must name a BoxROI's");
}
END_TEST

/* ---- an engine's elements after the state's position link ---- */

/* SOFA's SubsetTopology.scn: the node's MechanicalObject links the whole mesh's points
 * (position="@../m.position", points only in SOFA), then its container takes a SubsetTopology's triangles. A
 * strip of 4 squares along x (point i + 5 j at (i, j, 0), triangles (i, i+1, i+6) (i, i+6, i+5)); the box x
 * in [1.5, 4.5] holds squares 2 and 3: the node's triangles are theirs, on the strip's 10 points. */
START_TEST(test_engine_elements_after_state_link)
{
    pf_scene *s = load_ok(
        "<Node><EulerImplicitSolver/><CGLinearSolver/><Node name='s'>"
        "<MeshTopology name='mesh' position='0 0 0 1 0 0 2 0 0 3 0 0 4 0 0 0 1 0 1 1 0 2 1 0 3 1 0 4 1 0' "
        "triangles='0 1 6 0 6 5  1 2 7 1 7 6  2 3 8 2 8 7  3 4 9 3 9 8'/>"
        "<SubsetTopology name='sub' box='1.5 -1 -1 4.5 2 1'/>"
        "<Node name='in'><MechanicalObject name='mo' position='@../mesh.position'/>"
        "<TriangleSetTopologyContainer position='@mo.position' triangles='@../sub.trianglesInROI'/>"
        "<UniformMass totalMass='1'/><TriangleCollisionModel/></Node></Node></Node>");
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    static const uint32_t want[12] = {2, 3, 8, 2, 8, 7, 3, 4, 9, 3, 9, 8};
    ck_assert_uint_eq(m[0].ntriangles, 4);
    ck_assert_mem_eq(m[0].triangles, want, sizeof want);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "s/in", &o), PF_OK);
    uint32_t n;
    ck_assert_ptr_nonnull(pf_world_positions(pf_scene_world(s), o, &n));
    ck_assert_uint_eq(n, 10);
    pf_scene_destroy(s);
}
END_TEST

/* ---- the same topological mapping twice ---- */

/* SOFA's TopoMap_Hexa2Quad2Triangle.scn writes its Hexa2QuadTopologicalMapping twice: SOFA's init clears the
 * output and fills it again, so the node is the same as with one (the same state after 10 steps); a second
 * mapping giving other elements is still an error. */
START_TEST(test_mapping_written_twice)
{
    static const char fmt[] =
        "<Node dt='0.01' gravity='0 0 -9.81'><Node name='h'><EulerImplicitSolver/><CGLinearSolver/>"
        "<RegularGridTopology name='grid' n='3 2 2' min='0 0 0' max='2 1 1'/><MechanicalObject/>"
        "<UniformMass totalMass='1'/><FixedConstraint indices='0 3 6 9'/>"
        "<Node name='q'><QuadSetTopologyContainer name='quads'/>"
        "<Hexa2QuadTopologicalMapping input='@../grid' output='@quads'/>\n%s"
        "<QuadularBendingSprings stiffness='100'/></Node></Node></Node>";
    char a[1024], b[1024];
    snprintf(a, sizeof a, fmt, "<Hexa2QuadTopologicalMapping input='@../grid' output='@quads'/>");
    snprintf(b, sizeof b, fmt, "");
    ck_assert_uint_eq(stepped_hash(load_ok(a)), stepped_hash(load_ok(b)));
    snprintf(a, sizeof a, fmt, "<Hexa2TetraTopologicalMapping input='@../grid' output='@quads'/>");
    expect_error(a, PF_EPARSE, "t.xml:2:",
                 "node 'q' already has a topology (line 1), filled by another "
                 "topological mapping");
}
END_TEST

/* ---- names mapped onto existing components ---- */

/* each pair: the scene with the name and with the component it stands for, the same state after 10 steps; the
 * scene with a force more, another (the sheet moves under the forces) */
START_TEST(test_names_as_their_components)
{
    static const struct {
        const char *name, *with, *as;
    } pairs[] = {
        /* SOFA v25.12's static solver takes its Newton settings from a NewtonRaphsonSolver beside it */
        {"StaticOdeSolver",
         "<NewtonRaphsonSolver maxNbIterationsNewton='1'/><StaticOdeSolver/><CGLinearSolver/>",
         "<StaticSolver/><CGLinearSolver/>"},
        {"ShewchukPCGLinearSolver",
         "<EulerImplicitSolver/><ShewchukPCGLinearSolver iterations='50' tolerance='1e-10' update_step='1'/>",
         "<EulerImplicitSolver/><CGLinearSolver iterations='50' tolerance='1e-10'/>"},
        /* moves its state on mouse or haptic-device input only, of which a run has none */
        {"MechanicalStateController",
         "<EulerImplicitSolver/><CGLinearSolver/><MechanicalStateController listening='true' "
         "mainDirection='-1 0 0' handleEventTriggersUpdate='true'/>",
         "<EulerImplicitSolver/><CGLinearSolver/>"},
        {"the topology algorithms",
         "<EulerImplicitSolver/><CGLinearSolver/><PointSetTopologyAlgorithms/><EdgeSetTopologyAlgorithms/>"
         "<TriangleSetTopologyAlgorithms template='Vec3d'/><QuadSetTopologyAlgorithms/>"
         "<TetrahedronSetTopologyAlgorithms/><HexahedronSetTopologyAlgorithms/>",
         "<EulerImplicitSolver/><CGLinearSolver/>"},
    };
    static const char fmt[] = "<Node dt='0.01' gravity='0 -9.81 0'><Node name='s'>%s<MechanicalObject "
                              "position='0 0 0  1 0 0  1 1 0  "
                              "0 1 0  2 0 0  2 1 0'/><MeshTopology triangles='0 1 2  0 2 3  1 4 5  1 5 "
                              "2'/><UniformMass vertexMass='1'/>"
                              "<FixedConstraint indices='0 3'/><TriangularFEMForceField youngModulus='300' "
                              "poissonRatio='0.3'/>%s</Node>"
                              "</Node>";
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        char a[2048], b[2048], c[2048];
        snprintf(a, sizeof a, fmt, pairs[k].with, "");
        snprintf(b, sizeof b, fmt, pairs[k].as, "");
        snprintf(c, sizeof c, fmt, pairs[k].as, "<ConstantForceField indices='4' forces='1 0 0'/>");
        uint64_t ha = stepped_hash(load_ok(a)), hb = stepped_hash(load_ok(b)), hc = stepped_hash(load_ok(c));
        ck_assert_msg(ha == hb, "%s: %016llx, %016llx", pairs[k].name, (unsigned long long)ha,
                      (unsigned long long)hb);
        ck_assert_msg(hc != hb, "%s", pairs[k].name);
    }
}
END_TEST

/* SOFA's ElementCorotationalFEMForceField (CorotationalFEMForceField's older name) and its element-named
 * forms TetrahedronCorotationalFEMForceField, HexahedronCorotationalFEMForceField: the same state after 10
 * steps as CorotationalFEMForceField with the element in the template, another than the linear FEM's; a 2D
 * template is refused. */
START_TEST(test_element_named_corotational)
{
    static const char fmt[] =
        "<Node dt='0.01' gravity='0 0 -9.81'><Node name='g'><EulerImplicitSolver/><CGLinearSolver "
        "iterations='200' "
        "tolerance='1e-12'/><RegularGridTopology n='4 2 2' min='0 0 0' max='3 1 1'/><MechanicalObject/>"
        "<UniformMass totalMass='1'/><FixedConstraint indices='0 4 8 12'/>\n<%s youngModulus='300' "
        "poissonRatio='0.3'%s/></Node></Node>";
    static const struct {
        const char *name, *tpl, *as_tpl;
    } cases[] = {
        {"TetrahedronCorotationalFEMForceField", "", "Vec3,Tetrahedron"},
        {"HexahedronCorotationalFEMForceField", " template='Vec3d'", "Vec3,Hexahedron"},
        {"ElementCorotationalFEMForceField", " template='Vec3,Hexahedron'", "Vec3,Hexahedron"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char a[1024], b[1024], tpl[64];
        snprintf(a, sizeof a, fmt, cases[k].name, cases[k].tpl);
        snprintf(tpl, sizeof tpl, " template='%s'", cases[k].as_tpl);
        snprintf(b, sizeof b, fmt, "CorotationalFEMForceField", tpl);
        uint64_t ha = stepped_hash(load_ok(a));
        ck_assert_msg(ha == stepped_hash(load_ok(b)), "%s", cases[k].name);
        snprintf(b, sizeof b, fmt, "LinearSmallStrainFEMForceField", tpl);
        ck_assert_msg(ha != stepped_hash(load_ok(b)), "%s", cases[k].name);
    }
    char a[1024];
    snprintf(a, sizeof a, fmt, "TetrahedronCorotationalFEMForceField", " template='Vec2'");
    expect_error(a, PF_ENOTSUP, "t.xml:2:", "template 'Vec2': PhysFlow's points are Vec3");
}
END_TEST

static void keep_controller_warning(pf_scene_severity sev, const char *msg, void *ctx)
{
    if (sev == PF_SCENE_WARNING && strstr(msg, "MechanicalStateController")) snprintf(ctx, 512, "%s", msg);
}

/* the controller says it does nothing in a run */
START_TEST(test_input_controller_warns)
{
    static const char xml[] = "<Node><EulerImplicitSolver/><CGLinearSolver/><Node name='n'>"
                              "<MechanicalObject position='0 0 0'/><UniformMass totalMass='1'/>\n"
                              "<MechanicalStateController/></Node></Node>";
    char warning[512] = "";
    pf_scene_load_def d = silent_load_def();
    d.report = keep_controller_warning;
    d.report_ctx = warning;
    pf_scene *s = NULL;
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s), PF_OK);
    ck_assert_msg(strstr(warning, "t.xml:2:") && strstr(warning, "mouse or haptic-device input only"), "%s",
                  warning);
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_sofa_more");
    TCase *tc = tcase_create("sofa_more");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tetra_tensor_mass_force);
    tcase_add_test(tc, test_tetra_tensor_mass_refused);
    tcase_add_test(tc, test_grid_read_after_hexa2tetra);
    tcase_add_test(tc, test_add_data_repository);
    tcase_add_test(tc, test_vtp_polydata);
    tcase_add_test(tc, test_vtp_bad);
    tcase_add_test(tc, test_topology_points_from_later_state);
    tcase_add_test(tc, test_linear_movement_roi);
    tcase_add_test(tc, test_engine_elements_after_state_link);
    tcase_add_test(tc, test_mapping_written_twice);
    tcase_add_test(tc, test_names_as_their_components);
    tcase_add_test(tc, test_input_controller_warns);
    tcase_add_test(tc, test_element_named_corotational);
    suite_add_tcase(s, tc);
    return s;
}
