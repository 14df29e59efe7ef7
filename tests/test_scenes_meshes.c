/* Mesh files (MeshGmshLoader, MeshVTKLoader, MeshSTLLoader): the hand-written unit cube of tests/meshes/ in every
 * format and its binary twins gives the exact points and elements written in it, and the same node mesh through
 * every loader; bad files of each format fail with name:line (or byte offset) and a reason, and no prefix or
 * corrupted copy of a good file crashes a reader. And the faces and edges SOFA's topology containers derive from a
 * volume mesh listing none (scenes/topology_derived.c), against hand-worked lists and the cube's geometry. */
#include "check_main.h"
#include "scene_files.h"

#include "physflow/scene.h"
#include "base/alloc.h"
#include "scenes/mesh_build.h"
#include "scenes/topological_mappings.h"
#include "scenes/topology_derived.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the cube as written in tests/meshes/ (independent of the readers) */
static const double P[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const uint32_t QUADS[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
static const uint32_t TETS[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};

/* the expected triangles: each quad (a b c d) as (a b c) (a c d) */
static void expected_tris(uint32_t t[12][3])
{
    for (int q = 0; q < 6; q++) {
        const uint32_t *v = QUADS[q];
        uint32_t a[3] = {v[0], v[1], v[2]}, b[3] = {v[0], v[2], v[3]};
        memcpy(t[2 * q], a, sizeof a);
        memcpy(t[2 * q + 1], b, sizeof b);
    }
}

typedef struct mesh_file {
    const char *file;
    sc_mesh_parse_fn parse;
    int volumes; /* tetrahedra and the hexahedron are in the file */
    int edge;    /* the diagonal line 0-6 is in the file */
    int skipped; /* elements of an unused type (a prism / wedge) */
} mesh_file;

static const mesh_file FILES[] = {
    {"cube.msh", sc_parse_msh, 1, 1, 1},      {"cube_bin.msh", sc_parse_msh, 1, 1, 1},
    {"cube41.msh", sc_parse_msh, 1, 1, 1},
    {"cube.vtk", sc_parse_vtk, 1, 1, 1},      {"cube_bin.vtk", sc_parse_vtk, 1, 1, 1},
    {"cube_poly.vtk", sc_parse_vtk, 0, 1, 0}, {"cube51.vtk", sc_parse_vtk, 0, 1, 0},
    {"cube.vtu", sc_parse_vtu, 1, 1, 1},      {"cube.stl", sc_parse_stl, 0, 0, 0},
    {"cube_bin.stl", sc_parse_stl, 0, 0, 0},  {"cube.obj", sc_parse_obj, 0, 0, 0},
};
enum { NFILES = sizeof FILES / sizeof FILES[0] };

static void read_mesh(const mesh_file *f, sc_mesh *m, char *note, size_t note_size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TEST_MESHES_DIR, f->file);
    ck_assert_msg(sc_read_mesh_path(path, f->parse, m, note, note_size) == PF_OK, "%s", pf_last_error());
}

/* STL numbers points by first appearance in its triangles: the permutation the expected triangles imply */
static void stl_order(uint32_t order[8])
{
    uint32_t t[12][3], n = 0;
    int seen[8] = {0};
    expected_tris(t);
    for (int k = 0; k < 36; k++) {
        uint32_t v = t[k / 3][k % 3];
        if (!seen[v]) seen[v] = 1, order[n++] = v;
    }
    ck_assert_uint_eq(n, 8);
}

START_TEST(test_cube_exact)
{
    const mesh_file *f = &FILES[_i];
    sc_mesh m;
    char note[256];
    read_mesh(f, &m, note, sizeof note);
    int stl = f->parse == sc_parse_stl;
    uint32_t order[8] = {0, 1, 2, 3, 4, 5, 6, 7}, inverse[8];
    if (stl) stl_order(order);
    for (int k = 0; k < 8; k++) inverse[order[k]] = (uint32_t)k;
    ck_assert_uint_eq(m.npoints, 8);
    for (int k = 0; k < 8; k++)
        for (int d = 0; d < 3; d++) ck_assert_double_eq(m.points[3 * k + d], P[order[k]][d]);
    uint32_t t[12][3];
    expected_tris(t);
    ck_assert_uint_eq(m.ntris, 12);
    for (int k = 0; k < 12; k++)
        for (int j = 0; j < 3; j++) ck_assert_uint_eq(m.tris[3 * k + j], inverse[t[k][j]]);
    ck_assert_uint_eq(m.nedges, f->edge);
    if (f->edge) ck_assert(m.edges[0] == 0 && m.edges[1] == 6);
    ck_assert_uint_eq(m.ntetra, f->volumes ? 6 : 0);
    ck_assert_uint_eq(m.nhexa, f->volumes ? 1 : 0);
    if (f->volumes) {
        ck_assert_mem_eq(m.tetra, TETS, sizeof TETS);
        for (uint32_t k = 0; k < 8; k++) ck_assert_uint_eq(m.hexa[k], k);
    }
    ck_assert_msg(!!note[0] == f->skipped, "%s: note '%s'", f->file, note);
    if (f->skipped) ck_assert_msg(strstr(note, "1 element"), "%s", note);
    sc_mesh_free(&m);
}
END_TEST

static double tet_volume(const double *x, const uint32_t *t)
{
    const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2], *d = x + 3 * t[3];
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
    return (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] + (u[0] * v[1] - u[1] * v[0]) * w[2];
}

/* the tetrahedra of every volume file fill the unit cube: positive volumes summing to 1 */
START_TEST(test_tetra_fill_cube)
{
    for (int i = 0; i < NFILES; i++) {
        if (!FILES[i].volumes) continue;
        sc_mesh m;
        read_mesh(&FILES[i], &m, NULL, 0);
        double sum = 0;
        for (uint32_t k = 0; k < m.ntetra; k++) {
            double v = tet_volume(m.points, m.tetra + 4 * k) / 6;
            ck_assert_msg(v > 0, "%s: tetrahedron %u is inverted", FILES[i].file, k);
            sum += v;
        }
        ck_assert_double_eq_tol(sum, 1, 1e-15);
        sc_mesh_free(&m);
    }
}
END_TEST

/* every surface triangle faces out of the cube (consistent winding after the quad split) */
START_TEST(test_triangles_face_out)
{
    for (int i = 0; i < NFILES; i++) {
        sc_mesh m;
        read_mesh(&FILES[i], &m, NULL, 0);
        for (uint32_t k = 0; k < m.ntris; k++) {
            const double *a = m.points + 3 * m.tris[3 * k], *b = m.points + 3 * m.tris[3 * k + 1],
                         *c = m.points + 3 * m.tris[3 * k + 2];
            double u[3], v[3], n[3], centre_out[3];
            for (int d = 0; d < 3; d++) u[d] = b[d] - a[d], v[d] = c[d] - a[d];
            n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
            for (int d = 0; d < 3; d++) centre_out[d] = (a[d] + b[d] + c[d]) / 3 - 0.5;
            ck_assert_msg(n[0] * centre_out[0] + n[1] * centre_out[1] + n[2] * centre_out[2] > 0,
                          "%s: triangle %u faces in", FILES[i].file, k);
        }
        sc_mesh_free(&m);
    }
}
END_TEST

/* ---- through the scene loader ---- */

static pf_scene_load_def quiet_def(void)
{
    return quiet_load_def();
}

typedef struct notes {
    int skipped; /* notes about skipped elements */
    char last[512];
} notes;

static void collect(pf_scene_severity sev, const char *msg, void *ctx)
{
    notes *r = ctx;
    if (sev == PF_SCENE_NOTE && strstr(msg, "skipped (")) r->skipped++;
    snprintf(r->last, sizeof r->last, "%s", msg);
}

/* One node per loader on cube files, translated and scaled: every node's object has the same points (the
 * scale3d-then-translation of P) and its triangle model the same 12 triangles as the OBJ node. */
START_TEST(test_scene_every_loader)
{
    static const char *const loaders[][2] = {{"MeshObjLoader", "cube.obj"},   {"MeshGmshLoader", "cube.msh"},
                                             {"MeshGmshLoader", "cube_bin.msh"}, {"MeshVTKLoader", "cube.vtk"},
                                             {"MeshVTKLoader", "cube_bin.vtk"},  {"MeshVTKLoader", "cube.vtu"},
                                             {"MeshOBJLoader", "cube.obj"},    {"MeshVTKLoader", "cube_poly.vtk"},
                                             {"MeshGmshLoader", "cube41.msh"}, {"MeshSTLLoader", "cube.stl"}};
    enum { N = sizeof loaders / sizeof loaders[0] };
    char xml[8192];
    size_t len = (size_t)snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/>\n");
    for (int k = 0; k < N; k++)
        len += (size_t)snprintf(xml + len, sizeof xml - len,
                                "<Node name='n%d'><%s filename='%s/%s' translation='%d 0 1' scale3d='2 3 4'/>"
                                "<MechanicalObject/><UniformMass vertexMass='1'/><TriangleCollisionModel/></Node>\n",
                                k, loaders[k][0], TEST_MESHES_DIR, loaders[k][1], 10 * k);
    snprintf(xml + len, sizeof xml - len, "</Node>\n");
    pf_scene_load_def d = quiet_def();
    notes r = {0};
    d.report = collect;
    d.report_ctx = &r;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.skipped, 6); /* the prism / wedge skipped by the MSH, VTK and VTU files (and twins) */
    const pf_scene_collision_model *models;
    ck_assert_uint_eq(pf_scene_collision_models(s, &models), N);
    for (int k = 0; k < N; k++) {
        char path[32];
        snprintf(path, sizeof path, "n%d", k);
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, path, &o), PF_OK);
        /* STL numbers its points by first appearance: point p of the node is P[order[p]] */
        uint32_t order[8] = {0, 1, 2, 3, 4, 5, 6, 7}, n;
        if (!strcmp(loaders[k][0], "MeshSTLLoader")) stl_order(order);
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_uint_eq(n, 8);
        for (int p = 0; p < 8; p++) {
            ck_assert_double_eq(x[3 * p + 0], 2 * P[order[p]][0] + 10 * k);
            ck_assert_double_eq(x[3 * p + 1], 3 * P[order[p]][1]);
            ck_assert_double_eq(x[3 * p + 2], 4 * P[order[p]][2] + 1);
        }
        ck_assert_uint_eq(models[k].ntriangles, 12);
        for (int i = 0; i < 36; i++) ck_assert_uint_eq(order[models[k].triangles[i]], models[0].triangles[i]);
    }
    pf_scene_destroy(s);
}
END_TEST

/* As SOFA's scenes write them: relative file names found through the data path, loaders named and linked
 * (src="@loader", a child's src="@../Container"); in strict mode, so no attribute is left unknown. */
START_TEST(test_scene_sofa_style)
{
    const char *xml =
        "<Node><EulerImplicitSolver/>\n"
        "<Node name='p'><MeshGmshLoader name='loader' filename='cube41.msh' scale3d='1 1 1'/>\n"
        "<MeshTopology src='@loader'/><MechanicalObject src='@loader'/><UniformMass totalMass='1'/>"
        "<TriangleCollisionModel/></Node>\n"
        "<Node name='q'><MeshVTKLoader name='Container' filename='cube.vtu' translation='5 0 0'/>\n"
        "<Node name='c'><MechanicalObject src='@../Container'/><UniformMass totalMass='1'/><TriangleCollisionModel/>"
        "</Node></Node>\n"
        "<Node name='s'><MeshSTLLoader name='loader' filename='cube_bin.stl'/><MechanicalObject/>"
        "<UniformMass totalMass='1'/><TriangleCollisionModel/></Node></Node>\n";
    pf_scene_load_def d = quiet_def();
    d.strict = 1;
    d.data_path = "/nonexistent:" TEST_MESHES_DIR;
    notes r = {0};
    d.report = collect;
    d.report_ctx = &r;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.objects, 3);
    ck_assert_uint_eq(sum.points, 24);
    const pf_scene_collision_model *models;
    ck_assert_uint_eq(pf_scene_collision_models(s, &models), 3);
    for (int k = 0; k < 3; k++) ck_assert_uint_eq(models[k].ntriangles, 12);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "q/c", &o), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 8);
    ck_assert_double_eq(x[3 * 6], 6); /* point 6 (1 1 1) moved by the loader's translation */
    pf_scene_destroy(s);
    /* without the data path: not found, the places looked in named */
    d.data_path = NULL;
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s), PF_EIO);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: MeshGmshLoader: cannot open mesh file 'cube41.msh': not found"),
                  "%s", pf_last_error());
}
END_TEST

/* Quad2TriangleTopologicalMapping below an OBJ's quads (SOFA's tutorial layout): the same triangles as below the
 * quads written by hand in a QuadSetTopologyContainer. */
START_TEST(test_scene_obj_quads_mapped)
{
    static const char *const quads[] = {
        "<MeshObjLoader name='loader' filename='cube.obj'/><MechanicalObject src='@loader'/>"
        "<QuadSetTopologyContainer src='@loader' name='Container'/>",
        "<MechanicalObject position='0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1'/>"
        "<QuadSetTopologyContainer name='Container' quads='0 3 2 1 4 5 6 7 0 1 5 4 1 2 6 5 2 3 7 6 3 0 4 7'/>"};
    uint32_t tris[2][36];
    for (int k = 0; k < 2; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='q'>%s<UniformMass totalMass='1'/>\n"
                 "<Node name='t'><TriangleSetTopologyContainer name='Container'/>"
                 "<Quad2TriangleTopologicalMapping input='@../Container' output='@Container'/>"
                 "<TriangleCollisionModel/></Node></Node></Node>", quads[k]);
        pf_scene_load_def d = quiet_def();
        d.data_path = TEST_MESHES_DIR;
        pf_scene *s = NULL;
        ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%d: %s", k,
                      pf_last_error());
        const pf_scene_collision_model *models;
        ck_assert_uint_eq(pf_scene_collision_models(s, &models), 1);
        ck_assert_uint_eq(models[0].ntriangles, 12);
        memcpy(tris[k], models[0].triangles, sizeof tris[k]);
        pf_scene_destroy(s);
    }
    ck_assert_mem_eq(tris[0], tris[1], sizeof tris[0]);
}
END_TEST

/* A mesh error through the scene: the scene's file:line, then the mesh's. */
START_TEST(test_scene_mesh_error)
{
    char dir[] = "/tmp/pf_mesh_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char msh[256], xmlp[256];
    snprintf(msh, sizeof msh, "%s/bad.msh", dir);
    snprintf(xmlp, sizeof xmlp, "%s/s.xml", dir);
    FILE *f = fopen(msh, "w");
    fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n1\n1 2 0 1 1 7\n"
               "$EndElements\n");
    fclose(f);
    f = fopen(xmlp, "w");
    fprintf(f, "<Node><EulerImplicitSolver/>\n<Node name='m'>\n<MeshGmshLoader filename='bad.msh'/>\n"
               "<MechanicalObject/></Node></Node>\n");
    fclose(f);
    pf_scene_load_def d = quiet_def();
    pf_scene *s = NULL;
    ck_assert_int_eq(pf_scene_load_file(&d, xmlp, &s), PF_EPARSE);
    char want[300];
    snprintf(want, sizeof want, "%s:3:", xmlp);
    ck_assert_msg(strstr(pf_last_error(), want), "%s", pf_last_error());
    snprintf(want, sizeof want, "bad.msh:10: element 1: node 7 is not defined");
    ck_assert_msg(strstr(pf_last_error(), want), "%s", pf_last_error());
    unlink(msh);
    unlink(xmlp);
    rmdir(dir);
}
END_TEST

/* ---- bad files ---- */

typedef struct bad_file {
    sc_mesh_parse_fn parse;
    const char *text;
    size_t length; /* the texts with binary parts hold NUL bytes */
    const char *want; /* in the message, after the file's name */
} bad_file;

#define MSH_HEAD "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
#define VTK_HEAD "# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n"
#define VTK_PTS "POINTS 3 float\n0 0 0 1 0 0 0 1 0\n"
#define VTU_HEAD "<VTKFile type='UnstructuredGrid'><UnstructuredGrid>\n<Piece NumberOfPoints='3' NumberOfCells='1'>\n" \
                 "<Points><DataArray NumberOfComponents='3' format='ascii'>0 0 0 1 0 0 0 1 0</DataArray></Points>\n"
#define FACET "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n"

#define B(parse, text, want) {parse, text, sizeof text - 1, want}
static const bad_file BAD[] = {
    /* MSH */
    B(sc_parse_msh, "", ": no $Nodes section"),
    B(sc_parse_msh, "$Mesh\n", ":1: '$Mesh' is not a section of an MSH file"),
    B(sc_parse_msh, "$MeshFormat\n4.0 0 8\n$EndMeshFormat\n", ":2: MSH format version 4 is not read"),
    B(sc_parse_msh, "$MeshFormat\n4.1 1 8\n$EndMeshFormat\n", ":2: binary MSH 4.1 is not read"),
    B(sc_parse_msh, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 2\n0 1 0 1\n1\n0 0 0\n$EndNodes\n",
      ":8: node blocks hold 1 nodes, 2 announced"),
    B(sc_parse_msh, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n0 1 0 1\n1\n0 0 0\n$EndNodes\n"
      "$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n", ":13: element 1: node 2 is not defined"),
    B(sc_parse_msh, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n0 1 0 2\n1\n0 0 0\n$EndNodes\n",
      ":6: node blocks hold more than the 1 nodes announced"),
    B(sc_parse_msh, MSH_HEAD "$Nodes\n2\n1 0 0 0\n2 1 0 x\n$EndNodes\n", ":7: a coordinate 'x' is not a finite number"),
    B(sc_parse_msh, MSH_HEAD "$Nodes\n1\n1 0 0 0\n", ":6: '$EndNodes' expected, found 'the end of the file'"),
    B(sc_parse_msh, MSH_HEAD "$Nodes\n900\n1 0 0 0\n$EndNodes\n", ":5: 900 nodes announced, more than the file holds"),
    B(sc_parse_msh, MSH_HEAD "$Nodes\n2\n1 0 0 0\n1 1 0 0\n$EndNodes\n", ": node number 1 is defined twice"),
    B(sc_parse_msh, MSH_HEAD "$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n1\n1 2 0 1 1 2\n$EndElements\n",
     ":10: element 1: node 2 is not defined"),
    B(sc_parse_msh, MSH_HEAD "$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n1\n1 99 0 1\n$EndElements\n",
     ":10: element 1: unknown element type 99"),
    B(sc_parse_msh, MSH_HEAD "$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n2\n1 15 0 1\n$EndElements\n",
     ":11: an element number '$EndElements' is not an integer"),
    B(sc_parse_msh, MSH_HEAD "$Elements\n0\n$EndElements\n", ":4: elements before the nodes"),
    B(sc_parse_msh, MSH_HEAD "$Comments\nno end\n", ":4: section $Comments has no '$EndComments'"),
    B(sc_parse_msh, "$MeshFormat\n2.2 1 8\n\x02\0\0\0\n$EndMeshFormat\n", ": byte 20: byte-order integer is 2, not 1"),
    B(sc_parse_msh, "$MeshFormat\n2.2 1 8\n\x01\0\0\0\n$EndMeshFormat\n$Nodes\n1\n\x01\0\0\0"
      "\0\0\0\0\0\0\xf8\x7f" "\0\0\0\0\0\0\0\0" "\0\0\0\0\0\0\0\0\n$EndNodes\n",
      ": byte 49: node 1: coordinate is not finite"),
    /* legacy VTK */
    B(sc_parse_vtk, "vtk\n", ":1: not a legacy VTK file"),
    B(sc_parse_vtk, "# vtk DataFile Version 3.0\nt\nTEXT\n", ":3: 'ASCII' or 'BINARY' expected on line 3"),
    B(sc_parse_vtk, "# vtk DataFile Version 3.0\nt\nASCII\nDATASET STRUCTURED_POINTS\n", ":4: dataset 'STRUCTURED_POINTS'"),
    B(sc_parse_vtk, VTK_HEAD "POINTS 3 float\n0 0 0 1 0 0 0 1\n", ":6: file ends where a coordinate was expected"),
    B(sc_parse_vtk, VTK_HEAD "POINTS 3 char\n0 0 0 1 0 0 0 1 0\n", ":5: POINTS of type 'char'"),
    B(sc_parse_vtk, VTK_HEAD VTK_PTS "CELLS 1 4\n3 0 1 3\nCELL_TYPES 1\n5\n", ":8: point index 3 is out of range (3 points)"),
    B(sc_parse_vtk, VTK_HEAD VTK_PTS "CELLS 1 5\n3 0 1 2 0\nCELL_TYPES 1\n5\n", ":8: 1 cells use 4 values, but the size given is 5"),
    B(sc_parse_vtk, VTK_HEAD VTK_PTS "CELLS 1 4\n3 0 1 2\nCELL_TYPES 2\n5 5\n", ":9: 2 cell types for 1 cells"),
    B(sc_parse_vtk, VTK_HEAD VTK_PTS "CELLS 1 4\n3 0 1 2\nCELL_TYPES 1\n9\n", ":10: cell 0 of type 9 cannot have 3 points"),
    B(sc_parse_vtk, VTK_HEAD VTK_PTS "CELLS 1 4\n3 0 1 2\n", ":7: CELLS without CELL_TYPES"),
    B(sc_parse_vtk, VTK_HEAD VTK_PTS "CELLS 1 4\n9 0 1 2\nCELL_TYPES 1\n5\n", ":8: cell 0 overruns the cell list of size 4"),
    B(sc_parse_vtk, VTK_HEAD VTK_PTS "POLYGONS 1 4\n3 0 1 2\n", ":7: unknown keyword 'POLYGONS' in a UNSTRUCTURED_GRID"),
    B(sc_parse_vtk, VTK_HEAD "CELLS 1 4\n3 0 1 2\n", ":5: 'CELLS' before POINTS"),
    B(sc_parse_vtk, "# vtk DataFile Version 3.0\nt\nBINARY\nDATASET POLYDATA\nPOINTS 2 double\n"
      "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
      ": byte 69: file ends inside the 2 points"),
    /* VTU */
    B(sc_parse_vtu, "<VTKFile>\n<UnstructuredGrid>\n</VTKFile>\n", ":3: malformed XML"),
    B(sc_parse_vtu, "<VTKFile type='ImageData'/>", ":1: VTKFile type 'ImageData' is not read"),
    B(sc_parse_vtu, VTU_HEAD "<Cells>\n<DataArray Name='connectivity' format='ascii'>0 1 3</DataArray>\n"
     "<DataArray Name='offsets' format='ascii'>3</DataArray>\n<DataArray Name='types' format='ascii'>5</DataArray>\n"
     "</Cells></Piece></UnstructuredGrid></VTKFile>", ":5: point index 3 is out of range (3 points)"),
    B(sc_parse_vtu, VTU_HEAD "<Cells>\n<DataArray Name='connectivity' format='ascii'>0 1 2</DataArray>\n"
     "<DataArray Name='offsets' format='ascii'>3 6</DataArray>\n<DataArray Name='types' format='ascii'>5</DataArray>\n"
     "</Cells></Piece></UnstructuredGrid></VTKFile>", ":6: DataArray offsets has more than the 1 values expected"),
    B(sc_parse_vtu, VTU_HEAD "<Cells>\n<DataArray Name='connectivity' format='binary'>AAAA</DataArray>\n"
     "<DataArray Name='offsets' format='ascii'>3</DataArray>\n<DataArray Name='types' format='ascii'>5</DataArray>\n"
     "</Cells></Piece></UnstructuredGrid></VTKFile>", ":5: DataArray connectivity has format 'binary'"),
    B(sc_parse_vtu, "<VTKFile type='UnstructuredGrid'><UnstructuredGrid>\n<Piece NumberOfCells='0'/>"
     "</UnstructuredGrid></VTKFile>", ":2: <Piece> needs attribute 'NumberOfPoints'"),
    B(sc_parse_vtu, "<VTKFile type='UnstructuredGrid'><UnstructuredGrid>\n<Piece NumberOfPoints='2' NumberOfCells='0'>\n"
     "<Points><DataArray NumberOfComponents='3' format='ascii'>0 0 0\n1 0 q</DataArray></Points>"
     "</Piece></UnstructuredGrid></VTKFile>", ":4: DataArray of points: 'q' is not a finite number"),
    B(sc_parse_vtu, "<!DOCTYPE x [<!ENTITY a 'b'>]><VTKFile/>", ":1: DOCTYPE declarations are not allowed"),
    /* STL */
    B(sc_parse_stl, "solid x\n" FACET "endsolid x\n" FACET, NULL), /* text after endsolid is ignored */
    B(sc_parse_stl, "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendfacet\n",
     ":7: 'endloop' expected, found 'endfacet'"),
    B(sc_parse_stl, "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 e\n", ":5: a coordinate 'e' is not"),
    B(sc_parse_stl, "solid x\n" FACET, ":8: the file ends without 'endsolid'"),
    B(sc_parse_stl, "solid x\nfacets\n", ":2: 'facet' or 'endsolid' expected, found 'facets'"),
    B(sc_parse_stl, "solid x\nendsolid x\n", ":2: no facets"),
    B(sc_parse_stl, "binary", ": byte 6: a binary STL needs 84 bytes"),
    /* SOFA's sphere files */
    B(sc_parse_sph, "", ":1: not a sphere file: the first line must be 'sph 1.0'"),
    B(sc_parse_sph, "sph 2.0\n", ":1: not a sphere file"),
    B(sc_parse_sph, "sph 1.0\n# nothing\n", ":3: no sphere"),
    B(sc_parse_sph, "sph 1.0\nsphe 1 0 0 0 1\nsphe 2 0 x 0 1\n", ":3: "),
    B(sc_parse_sph, "sph 1.0\nsphe 1 0 0 0 1\n\nsphe 2 0 0 0 -1\n", ":4: sphere radius must be > 0, got -1"),
    B(sc_parse_sph, "sph 1.0\nnums -3\n", ":2: "),
    B(sc_parse_sph, "sph 1.0\nsphe 1 0 0\n", ":"),
    /* OBJ */
    B(sc_parse_obj, "", ": no vertices (the file is empty)"),
    B(sc_parse_obj, "# only a comment\n", ": no vertices"),
    B(sc_parse_obj, "v 0 0 0\nv 1 y\n", ":2: a vertex needs 1 to 3 finite numbers"),
    B(sc_parse_obj, "v 0 0 0\nv\n", ":2: a vertex needs 1 to 3 finite numbers"),
    B(sc_parse_obj, "v 0 0 0\r\nv 1 0 nan\r\n", ":2: a vertex needs 1 to 3 finite numbers"),
    B(sc_parse_obj, "v 0 0 0\nf 1 2 3\n", ":2: face corner '2' is not a vertex index (1..1)"),
};
enum { NBAD = sizeof BAD / sizeof BAD[0] };

START_TEST(test_bad_file)
{
    const bad_file *b = &BAD[_i];
    sc_mesh m;
    int rc = b->parse("bad", b->text, b->length, &m, NULL, 0);
    if (!b->want) {
        ck_assert_msg(rc == PF_OK, "%s", pf_last_error());
        sc_mesh_free(&m);
        return;
    }
    ck_assert_msg(rc < 0, "case %d loaded", _i);
    char want[300];
    snprintf(want, sizeof want, "bad%s", b->want);
    ck_assert_msg(strstr(pf_last_error(), want), "case %d: '%s' lacks '%s'", _i, pf_last_error(), want);
    ck_assert_ptr_null(m.points);
}
END_TEST

START_TEST(test_binary_stl_count)
{
    char buf[84 + 50] = "solid but binary";
    buf[80] = 2; /* two triangles announced, one present */
    sc_mesh m;
    ck_assert_int_eq(sc_parse_stl("bad", buf, sizeof buf, &m, NULL, 0), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "bad: byte 80: 2 triangles announced: 184 bytes expected, the file has 134"),
                  "%s", pf_last_error());
}
END_TEST

/* every prefix of every good file, and copies with one byte changed, read or fail with a message naming the file */
START_TEST(test_prefixes_and_corruptions)
{
    const mesh_file *f = &FILES[_i];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TEST_MESHES_DIR, f->file);
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    static char data[1 << 16];
    size_t n = fread(data, 1, sizeof data, fp);
    fclose(fp);
    char *copy = malloc(n + 1);
    uint64_t seed = 12345;
    for (size_t len = 0; len <= n + 200; len++) {
        size_t use = len <= n ? len : n;
        memcpy(copy, data, use);
        if (len > n) { /* a changed byte at a pseudo-random place */
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            copy[(seed >> 33) % n] = (char)(seed >> 13);
        }
        sc_mesh m;
        int rc = f->parse(f->file, copy, use, &m, NULL, 0);
        if (rc == PF_OK) {
            ck_assert_uint_gt(m.npoints, 0);
            for (size_t k = 0; k < 3 * (size_t)m.ntris; k++) ck_assert_uint_lt(m.tris[k], m.npoints);
            for (size_t k = 0; k < 4 * (size_t)m.ntetra; k++) ck_assert_uint_lt(m.tetra[k], m.npoints);
            sc_mesh_free(&m);
        } else {
            ck_assert_msg(strstr(pf_last_error(), f->file), "%s", pf_last_error());
        }
    }
    free(copy);
}
END_TEST

/* ASCII and binary twins: the same arrays */
START_TEST(test_twins_equal)
{
    static const int pairs[][2] = {{0, 1}, {0, 2}, {3, 4}, {8, 9}};
    for (int p = 0; p < 4; p++) {
        sc_mesh a, b;
        read_mesh(&FILES[pairs[p][0]], &a, NULL, 0);
        read_mesh(&FILES[pairs[p][1]], &b, NULL, 0);
        ck_assert_uint_eq(a.npoints, b.npoints);
        ck_assert_mem_eq(a.points, b.points, 3 * a.npoints * sizeof *a.points);
        ck_assert_uint_eq(a.ntris, b.ntris);
        ck_assert_mem_eq(a.tris, b.tris, 3 * a.ntris * sizeof *a.tris);
        ck_assert_uint_eq(a.ntetra, b.ntetra);
        if (a.ntetra) ck_assert_mem_eq(a.tetra, b.tetra, 4 * a.ntetra * sizeof *a.tetra);
        ck_assert_uint_eq(a.nhexa, b.nhexa);
        if (a.nhexa) ck_assert_mem_eq(a.hexa, b.hexa, 8 * a.nhexa * sizeof *a.hexa);
        sc_mesh_free(&a);
        sc_mesh_free(&b);
    }
}
END_TEST

/* a sphere file: centres and radii as written, comments and the count skipped, an unknown keyword noted */
START_TEST(test_sphere_file)
{
    static const char text[] = "sph 1.0\n#nums 3\nnums 3\nsphe 1 -4 1.25 0 0.85\n# a comment\n"
                               "sphe 2 1 0 0 0.5\nmystery 1 2\nsphe 3 0 1 2e-1 0.25\n";
    sc_mesh m;
    char note[256];
    ck_assert_msg(sc_parse_sph("s.sph", text, sizeof text - 1, &m, note, sizeof note) == PF_OK, "%s",
                  pf_last_error());
    static const double centres[9] = {-4, 1.25, 0, 1, 0, 0, 0, 1, 0.2}, radii[3] = {0.85, 0.5, 0.25};
    ck_assert_uint_eq(m.npoints, 3);
    ck_assert_mem_eq(m.points, centres, sizeof centres);
    ck_assert_mem_eq(m.radii, radii, sizeof radii);
    ck_assert_uint_eq(m.ntris + m.nedges + m.ntetra + m.nhexa, 0);
    ck_assert_msg(strstr(note, "mystery (line 7)"), "%s", note);
    sc_mesh_free(&m);
}
END_TEST

/* OBJ faces: a triangle, a quad (kept whole and split 0 1 2 / 0 2 3, as before), a pentagon (fanned, no quad), a
 * quad written with slashes and negative indices: the triangles and quads hand-listed. */
START_TEST(test_obj_quads)
{
    static const char text[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\n"
                               "f 1 2 3\n"
                               "f 1 2 3 4\n"
                               "f 1 5 6 3 4\n"
                               "f 2/1/1 5//2 -1 3/4\n";
    sc_mesh m;
    ck_assert_msg(sc_read_obj_memory("q.obj", text, sizeof text - 1, &m) == PF_OK, "%s", pf_last_error());
    static const uint32_t tris[] = {0, 1, 2, 0, 1, 2, 0, 2, 3, 0, 4, 5, 0, 5, 2, 0, 2, 3, 1, 4, 5, 1, 5, 2};
    static const uint32_t quads[] = {0, 1, 2, 3, 1, 4, 5, 2};
    ck_assert_uint_eq(m.ntris, sizeof tris / sizeof tris[0] / 3);
    ck_assert_mem_eq(m.tris, tris, sizeof tris);
    ck_assert_uint_eq(m.nquads, 2);
    ck_assert_mem_eq(m.quads, quads, sizeof quads);
    sc_mesh_free(&m);
    /* the cube file's six faces are quads, as written (1-based there) */
    const mesh_file obj = {"cube.obj", sc_parse_obj, 0, 0, 0};
    read_mesh(&obj, &m, NULL, 0);
    ck_assert_uint_eq(m.nquads, 6);
    ck_assert_mem_eq(m.quads, QUADS, sizeof QUADS);
    sc_mesh_free(&m);
}
END_TEST

/* OBJ vertices as SOFA's MeshOBJLoader reads them: CRLF line ends, a line of one or two numbers (the others kept
 * from the vertex before, 0 before the first: SOFA streams each line into the same vector), numbers after the
 * third (vertex colours) left out; the points hand-listed. */
START_TEST(test_obj_short_and_long_vertices)
{
    static const char text[] = "v 0.5\r\nv 1 2\r\nv 1 2 3 0.1 0.2 0.3\r\nv 7\r\n\r\nv -1 -2 -3\r\n";
    static const double want[] = {0.5, 0, 0, 1, 2, 0, 1, 2, 3, 7, 2, 3, -1, -2, -3};
    sc_mesh m;
    ck_assert_msg(sc_read_obj_memory("s.obj", text, sizeof text - 1, &m) == PF_OK, "%s", pf_last_error());
    ck_assert_uint_eq(m.npoints, 5);
    ck_assert_mem_eq(m.points, want, sizeof want);
    ck_assert_uint_eq(m.ntris + m.nquads, 0);
    sc_mesh_free(&m);
}
END_TEST

/* ---- topological mappings (scenes/topological_mappings.c) against hand-written element lists ---- */

/* (x - o) . ((b - a) x (c - a)): > 0 when triangle a b c faces away from o */
static double faces_away(const double *x, const uint32_t *t, const double *o)
{
    const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2];
    double u[3], v[3], n[3], d[3];
    for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k], d[k] = (a[k] + b[k] + c[k]) / 3 - o[k];
    n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
    return n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
}

/* the unit cube as a 2x2x2 grid: point (i, j, k) is i + 2 j + 4 k; its hexahedron is 0 1 3 2 4 5 7 6 */
START_TEST(test_grid_hexa)
{
    const int n[3] = {2, 2, 2};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    sc_mesh g;
    ck_assert_int_eq(sc_grid_mesh(n, lo, hi, &g), PF_OK);
    ck_assert_uint_eq(g.npoints, 8);
    ck_assert_uint_eq(g.nhexa, 1);
    static const uint32_t hexa[8] = {0, 1, 3, 2, 4, 5, 7, 6};
    ck_assert_mem_eq(g.hexa, hexa, sizeof hexa);
    for (uint32_t p = 0; p < 8; p++)
        for (int a = 0; a < 3; a++) ck_assert_double_eq(g.points[3 * p + a], (p >> a) & 1);
    sc_mesh_free(&g);
}
END_TEST

/* one hexahedron -> SOFA's six tetrahedra around the diagonal c0-c6, filling it */
START_TEST(test_hexa_to_tetra)
{
    const int n[3] = {2, 2, 2};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    sc_mesh g, t;
    ck_assert_int_eq(sc_grid_mesh(n, lo, hi, &g), PF_OK);
    ck_assert_int_eq(sc_hexa_to_tetra(&g, 1, 1, 0, &t), PF_OK);
    /* corners c0..c7 = 0 1 3 2 4 5 7 6: (c0 c5 c1 c6) (c0 c1 c3 c6) (c1 c3 c6 c2) (c6 c3 c0 c7) (c6 c7 c0 c5)
     * (c7 c5 c4 c0) */
    static const uint32_t want[24] = {0, 5, 1, 7, 0, 1, 2, 7, 1, 2, 7, 3, 7, 2, 0, 6, 7, 6, 0, 5, 6, 5, 4, 0};
    ck_assert_uint_eq(t.ntetra, 6);
    ck_assert_uint_eq(t.npoints, 8);
    ck_assert_mem_eq(t.tetra, want, sizeof want);
    double sum = 0;
    for (uint32_t k = 0; k < 6; k++) {
        double v = tet_volume(t.points, t.tetra + 4 * k) / 6;
        ck_assert_double_eq_tol(fabs(v), 1.0 / 6, 1e-15);
        sum += v;
    }
    ck_assert_double_eq_tol(sum, 1, 1e-15); /* all positive: the cube exactly */
    sc_mesh_free(&t);
    /* swapping: the first cell mirrored along x (an even column), the mirrored split: still six filling it */
    ck_assert_int_eq(sc_hexa_to_tetra(&g, 1, 1, 1, &t), PF_OK);
    static const uint32_t first[4] = {1, 4, 6, 0}; /* (c0 c5 c6 c1) of the mirrored corners 1 0 2 3 5 4 6 7 */
    ck_assert_mem_eq(t.tetra, first, sizeof first);
    sum = 0;
    for (uint32_t k = 0; k < 6; k++) sum += fabs(tet_volume(t.points, t.tetra + 4 * k)) / 6;
    ck_assert_double_eq_tol(sum, 1, 1e-15);
    sc_mesh_free(&t);
    sc_mesh_free(&g);
}
END_TEST

/* TetrahedronFEMForceField's own split of a grid's cells (SOFA's TetrahedronFEMForceField::init): a 4 x 3 x 3-point
 * grid (3 x 2 x 2 cells of 1 x 0.5 x 2) gives 6 tetrahedra per cell, each of a sixth of its cell, filling the grid;
 * the cells whose corners are mirrored an odd number of times (x on even columns, y on odd rows, z on odd layers)
 * keep the plain pattern, so their tetrahedra are inverted. The first cell (mirrored along x), by hand. */
START_TEST(test_hexa_to_tetra_fem)
{
    const int n[3] = {4, 3, 3};
    const double lo[3] = {0, 0, 0}, hi[3] = {3, 1, 4};
    sc_mesh g, t;
    ck_assert_int_eq(sc_grid_mesh(n, lo, hi, &g), PF_OK);
    ck_assert_int_eq(sc_hexa_to_tetra_fem(&g, 3, 2, &t), PF_OK);
    ck_assert_uint_eq(t.ntetra, 6 * 12);
    /* cell 0: corners 0 1 5 4 12 13 17 16 mirrored along x: 1 0 4 5 13 12 16 17; (c0 c5 c1 c6) = 1 12 0 16 */
    static const uint32_t first[4] = {1, 12, 0, 16};
    ck_assert_mem_eq(t.tetra, first, sizeof first);
    double sum = 0;
    for (uint32_t k = 0; k < t.ntetra; k++) {
        uint32_t cell = k / 6, x = cell % 3, y = cell / 3 % 2, z = cell / 6;
        int mirrors = !(x & 1) + (int)(y & 1) + (int)(z & 1);
        double v = tet_volume(t.points, t.tetra + 4 * k) / 6;
        ck_assert_double_eq_tol(fabs(v), 1.0 / 6, 1e-14);
        ck_assert_msg((v < 0) == (mirrors & 1), "tetrahedron %u of cell %u: volume %g", k, cell, v);
        sum += fabs(v);
    }
    ck_assert_double_eq_tol(sum, 3 * 1 * 4, 1e-12);
    sc_mesh_free(&t);
    sc_mesh_free(&g);
}
END_TEST

/* one tetrahedron -> its 4 faces, each facing away from the corner opposite it; inverted input, same faces out */
START_TEST(test_tetra_to_triangles)
{
    static const double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint32_t tet[4] = {0, 1, 2, 3};
    sc_mesh in = {.points = (double *)x, .npoints = 4, .tetra = tet, .ntetra = 1}, out;
    ck_assert_int_eq(sc_tetra_to_triangles(&in, &out), PF_OK);
    static const uint32_t want[12] = {1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1};
    ck_assert_uint_eq(out.ntris, 4);
    ck_assert_mem_eq(out.tris, want, sizeof want);
    const double centre[3] = {0.25, 0.25, 0.25};
    for (uint32_t k = 0; k < 4; k++) ck_assert(faces_away(out.points, out.tris + 3 * k, centre) > 0);
    sc_mesh_free(&out);
    uint32_t inverted[4] = {0, 2, 1, 3};
    in.tetra = inverted;
    ck_assert_int_eq(sc_tetra_to_triangles(&in, &out), PF_OK);
    ck_assert_uint_eq(out.ntris, 4);
    for (uint32_t k = 0; k < 4; k++) ck_assert(faces_away(out.points, out.tris + 3 * k, centre) > 0);
    sc_mesh_free(&out);
    /* two tetrahedra sharing the face 1 2 3: the 6 others, none of them 1 2 3 */
    static const double y[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    uint32_t two[8] = {0, 1, 2, 3, 4, 1, 3, 2};
    sc_mesh in2 = {.points = (double *)y, .npoints = 5, .tetra = two, .ntetra = 2};
    ck_assert_int_eq(sc_tetra_to_triangles(&in2, &out), PF_OK);
    ck_assert_uint_eq(out.ntris, 6);
    const double mid[3] = {0.5, 0.5, 0.5}; /* inside the union (a convex double pyramid) */
    for (uint32_t k = 0; k < 6; k++) {
        const uint32_t *t = out.tris + 3 * k;
        ck_assert(t[0] == 0 || t[1] == 0 || t[2] == 0 || t[0] == 4 || t[1] == 4 || t[2] == 4);
        ck_assert(faces_away(out.points, t, mid) > 0);
    }
    sc_mesh_free(&out);
}
END_TEST

/* one hexahedron -> its 6 faces outward (and two triangles each); two side by side -> 10 quads */
START_TEST(test_hexa_to_quads)
{
    const int n[3] = {2, 2, 2}, n2[3] = {3, 2, 2};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, hi2[3] = {2, 1, 1};
    sc_mesh g, q;
    ck_assert_int_eq(sc_grid_mesh(n, lo, hi, &g), PF_OK);
    ck_assert_int_eq(sc_hexa_to_quads(&g, &q), PF_OK);
    static const uint32_t want[24] = {0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 1, 3, 7, 5, 3, 2, 6, 7, 2, 0, 4, 6};
    ck_assert_uint_eq(q.nquads, 6);
    ck_assert_mem_eq(q.quads, want, sizeof want);
    ck_assert_uint_eq(q.ntris, 12);
    const double centre[3] = {0.5, 0.5, 0.5};
    for (uint32_t k = 0; k < 12; k++) ck_assert(faces_away(q.points, q.tris + 3 * k, centre) > 0);
    sc_mesh_free(&q);
    sc_mesh_free(&g);
    ck_assert_int_eq(sc_grid_mesh(n2, lo, hi2, &g), PF_OK);
    ck_assert_int_eq(sc_hexa_to_quads(&g, &q), PF_OK);
    ck_assert_uint_eq(q.nquads, 10);
    const double c2[3] = {1, 0.5, 0.5};
    for (uint32_t k = 0; k < q.ntris; k++) ck_assert(faces_away(q.points, q.tris + 3 * k, c2) > 0);
    sc_mesh_free(&q);
    sc_mesh_free(&g);
}
END_TEST

/* quads -> two triangles each, SOFA's diagonal alternating: quad 0 (1 2 0)(3 0 2), quad 1 (0 1 3)(2 3 1) */
START_TEST(test_quads_to_triangles)
{
    static const double x[18] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 2, 1, 0};
    uint32_t quads[8] = {0, 1, 2, 3, 1, 4, 5, 2};
    sc_mesh in = {.points = (double *)x, .npoints = 6, .quads = quads, .nquads = 2}, out;
    ck_assert_int_eq(sc_quads_to_triangles(&in, 2, &out), PF_OK);
    static const uint32_t want[12] = {1, 2, 0, 3, 0, 2, 1, 4, 2, 5, 2, 4};
    ck_assert_uint_eq(out.ntris, 4);
    ck_assert_mem_eq(out.tris, want, sizeof want);
    sc_mesh_free(&out);
}
END_TEST

/* triangles -> their boundary edges: one triangle's 3 sides; two sharing a side, the 4 others */
START_TEST(test_triangles_to_edges)
{
    static const double x[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    uint32_t tris[6] = {0, 1, 2, 0, 2, 3};
    sc_mesh in = {.points = (double *)x, .npoints = 4, .tris = tris, .ntris = 1}, out;
    ck_assert_int_eq(sc_triangles_to_edges(&in, &out), PF_OK);
    static const uint32_t one[6] = {0, 1, 1, 2, 2, 0};
    ck_assert_uint_eq(out.nedges, 3);
    ck_assert_mem_eq(out.edges, one, sizeof one);
    sc_mesh_free(&out);
    in.ntris = 2;
    ck_assert_int_eq(sc_triangles_to_edges(&in, &out), PF_OK);
    static const uint32_t two[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    ck_assert_uint_eq(out.nedges, 4);
    ck_assert_mem_eq(out.edges, two, sizeof two);
    sc_mesh_free(&out);
}
END_TEST

/* SOFA's containers derive the faces of a volume mesh that lists none (MeshTopology's TriangleUpdate and QuadUpdate,
 * TetrahedronSetTopologyContainer::createTriangleSetArray): the faces of trianglesOrientationInTetrahedronArray
 * {1 2 3} {0 3 2} {1 3 0} {0 2 1} and quadsOrientationInHexahedronArray, each started at its smallest index, each
 * face once (inner ones too), in the order met. Two tetrahedra sharing the face 1 2 3, by hand: the second one's
 * (1 3 2) is that face from its other side, dropped; its (4 2 3) (1 2 4) (4 3 1) kept, started at the smallest. The
 * faces of a positive tetrahedron face out. */
START_TEST(test_volume_faces_tetra)
{
    static const double y[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    uint32_t two[8] = {0, 1, 2, 3, 4, 1, 3, 2};
    sc_mesh m = {.points = (double *)y, .npoints = 5, .tetra = two, .ntetra = 2};
    ck_assert_int_eq(sc_derive_volume_faces(&m), 7);
    static const uint32_t want[21] = {1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1, 2, 3, 4, 1, 2, 4, 1, 4, 3};
    ck_assert_uint_eq(m.ntris, 7);
    ck_assert_uint_eq(m.nquads, 0);
    ck_assert_mem_eq(m.tris, want, sizeof want);
    const double centre[3] = {0.25, 0.25, 0.25};
    for (uint32_t k = 0; k < 4; k++) ck_assert(faces_away(m.points, m.tris + 3 * k, centre) > 0);
    /* a mesh that has triangles keeps them */
    ck_assert_int_eq(sc_derive_volume_faces(&m), 0);
    ck_assert_uint_eq(m.ntris, 7);
    pf_free(m.tris);
    pf_free(m.quads);
}
END_TEST

/* The hexahedra's faces as quads (and two triangles each, 0 1 2 and 0 2 3): one cube, its 6 faces all facing out
 * (SOFA's table turns them outward for a hexahedron with its top above its bottom); two cubes side by side, 11
 * quads (the shared one once). The first quad, by hand: corners 0 3 2 1 of the grid's first hexahedron
 * 0 1 4 3 6 7 10 9 -> 0 3 4 1. */
START_TEST(test_volume_faces_hexa)
{
    const int n[3] = {2, 2, 2}, n2[3] = {3, 2, 2};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, hi2[3] = {2, 1, 1};
    sc_mesh g;
    ck_assert_int_eq(sc_grid_mesh(n, lo, hi, &g), PF_OK);
    ck_assert_int_eq(sc_derive_volume_faces(&g), 6);
    ck_assert_uint_eq(g.nquads, 6);
    ck_assert_uint_eq(g.ntris, 12);
    const double centre[3] = {0.5, 0.5, 0.5};
    for (uint32_t k = 0; k < 12; k++) ck_assert(faces_away(g.points, g.tris + 3 * k, centre) > 0);
    for (uint32_t k = 0; k < 6; k++) {
        const uint32_t *q = g.quads + 4 * k, *t = g.tris + 6 * k;
        for (int a = 1; a < 4; a++) ck_assert_uint_lt(q[0], q[a]); /* started at the smallest */
        const uint32_t halves[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        ck_assert_mem_eq(t, halves, sizeof halves);
    }
    sc_mesh_free(&g);
    ck_assert_int_eq(sc_grid_mesh(n2, lo, hi2, &g), PF_OK);
    ck_assert_int_eq(sc_derive_volume_faces(&g), 11);
    ck_assert_uint_eq(g.nquads, 11);
    ck_assert_uint_eq(g.ntris, 22);
    static const uint32_t first[4] = {0, 3, 4, 1};
    ck_assert_mem_eq(g.quads, first, sizeof first);
    sc_mesh_free(&g);
}
END_TEST

/* The edges of a volume (SOFA's EdgeUpdate::updateFromVolume): a tetrahedron's 6 in edgesInTetrahedronArray's order;
 * one grid cube's 12, each an axis-aligned segment of length 1, smaller index first, all different; two cubes, 20
 * (4 shared). A mesh that lists edges keeps them. */
START_TEST(test_volume_edges)
{
    static const double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint32_t tet[4] = {3, 1, 0, 2};
    sc_mesh t = {.points = (double *)x, .npoints = 4, .tetra = tet, .ntetra = 1};
    ck_assert_int_eq(sc_derive_volume_edges(&t), 6);
    static const uint32_t want[12] = {1, 3, 0, 3, 2, 3, 0, 1, 1, 2, 0, 2};
    ck_assert_mem_eq(t.edges, want, sizeof want);
    ck_assert_int_eq(sc_derive_volume_edges(&t), 0);
    pf_free(t.edges);
    const int n[3] = {2, 2, 2}, n2[3] = {3, 2, 2};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, hi2[3] = {2, 1, 1};
    sc_mesh g;
    ck_assert_int_eq(sc_grid_mesh(n, lo, hi, &g), PF_OK);
    ck_assert_int_eq(sc_derive_volume_edges(&g), 12);
    for (uint32_t e = 0; e < 12; e++) {
        const uint32_t *v = g.edges + 2 * e;
        ck_assert_uint_lt(v[0], v[1]);
        int axes = 0;
        for (int a = 0; a < 3; a++) {
            double d = g.points[3 * v[1] + a] - g.points[3 * v[0] + a];
            ck_assert(d == 0 || d == 1);
            axes += d != 0;
        }
        ck_assert_int_eq(axes, 1);
        for (uint32_t f = 0; f < e; f++) ck_assert(memcmp(v, g.edges + 2 * f, 2 * sizeof *v));
    }
    sc_mesh_free(&g);
    ck_assert_int_eq(sc_grid_mesh(n2, lo, hi2, &g), PF_OK);
    ck_assert_int_eq(sc_derive_volume_edges(&g), 20);
    sc_mesh_free(&g);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_meshes");
    TCase *tc = tcase_create("cube");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_cube_exact, 0, NFILES);
    tcase_add_test(tc, test_tetra_fill_cube);
    tcase_add_test(tc, test_triangles_face_out);
    tcase_add_test(tc, test_twins_equal);
    tcase_add_test(tc, test_obj_quads);
    tcase_add_test(tc, test_obj_short_and_long_vertices);
    tcase_add_test(tc, test_scene_every_loader);
    tcase_add_test(tc, test_scene_mesh_error);
    tcase_add_test(tc, test_scene_sofa_style);
    tcase_add_test(tc, test_scene_obj_quads_mapped);
    tcase_add_test(tc, test_grid_hexa);
    tcase_add_test(tc, test_sphere_file);
    tcase_add_test(tc, test_hexa_to_tetra);
    tcase_add_test(tc, test_hexa_to_tetra_fem);
    tcase_add_test(tc, test_tetra_to_triangles);
    tcase_add_test(tc, test_hexa_to_quads);
    tcase_add_test(tc, test_quads_to_triangles);
    tcase_add_test(tc, test_triangles_to_edges);
    tcase_add_test(tc, test_volume_faces_tetra);
    tcase_add_test(tc, test_volume_faces_hexa);
    tcase_add_test(tc, test_volume_edges);
    suite_add_tcase(s, tc);
    TCase *tb = tcase_create("bad");
    tcase_set_timeout(tb, 120);
    tcase_add_loop_test(tb, test_bad_file, 0, NBAD);
    tcase_add_test(tb, test_binary_stl_count);
    tcase_add_loop_test(tb, test_prefixes_and_corruptions, 0, NFILES);
    suite_add_tcase(s, tb);
    return s;
}
