/* SOFA's scene forms read as SOFA reads them. SOFA's MeshTopology reading its own mesh file (BaseMeshTopology `filename`, alias `fileTopology`) and its element
 * lists under their aliases (points, lines, tetras, hexas), on tests/scenes/mesh_topology_file.xml: the unit cube
 * of tests/meshes/ from OBJ, from Gmsh, and written out as one hexahedron. Oracles: the cube's eight corners in the
 * files' order; the springs MeshSpringForceField puts on the edges, counted by hand (the OBJ's six quads split in
 * two triangles: 12 cube edges and 6 diagonals; the hexahedron: its 12 edges); a missing file refused with
 * file:line. And Hexa2TetraTopologicalMapping in a node whose state links its points to a grid above
 * (tests/scenes/grid_link_hexa2tetra.xml): the beam moves bit for bit as the same beam with the grid in its own
 * node (the form read before). And SOFA's DefaultCollisionGroupManager (tests/scenes/collision_group_manager.xml):
 * two spring cubes thrown at each other touch (contacts counted), and the run is bit for bit the one without the
 * manager, PhysFlow's solver groups merging touching objects either way. And SOFA's Static integration method under
 * a NewtonRaphsonSolver (tests/scenes/static_method.xml): static Euler as StaticSolver runs it, bit for bit, the
 * hanging point at the spring's equilibrium -1 - m g / k. And SubsetTopology's element lists given apart
 * (tests/scenes/subset_lists_apart.xml): the triangles in the box among those written out, or linked, counted by
 * hand. And SOFA's older syntax <Object type="..."/> with older names (tests/scenes/object_syntax.xml): the same
 * run, bit for bit, as object_syntax_new.xml in today's names, with its three collision models. */
#include "check_main.h"

#include "physflow/scene.h"
#include "scene_files.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

START_TEST(test_topology_files)
{
    pf_scene *s = load_test_scene("mesh_topology_file.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    static const char *const nodes[] = {"obj", "msh", "hexas"};
    for (int k = 0; k < 3; k++) {
        pf_object_id o;
        uint32_t n = 0;
        ck_assert_int_eq(pf_scene_find_object(s, nodes[k], &o), PF_OK);
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_msg(n == 8, "%s: %u points", nodes[k], n);
        for (int p = 0; p < 8; p++)
            for (int a = 0; a < 3; a++)
                ck_assert_msg(x[3 * p + a] == corners[p][a], "%s: point %d [%d] = %g", nodes[k], p, a, x[3 * p + a]);
    }
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_msg(sum.springs == 18 + 12, "%llu springs", (unsigned long long)sum.springs);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_topology_file_refused)
{
    const char *xml = "<Node><Node name='p'><EulerImplicitSolver/>\n<MeshTopology filename='no_such_mesh.obj'/>"
                      "<MechanicalObject/></Node></Node>";
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_int_ne(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s), PF_OK);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "MeshTopology") &&
                      strstr(pf_last_error(), "no_such_mesh.obj"),
                  "%s", pf_last_error());
}
END_TEST

START_TEST(test_hexa2tetra_on_linked_grid)
{
    pf_scene *s = load_test_scene("grid_link_hexa2tetra.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, 25), PF_OK);
    pf_object_id a, b;
    uint32_t na = 0, nb = 0;
    ck_assert_int_eq(pf_scene_find_object(s, "linked", &a), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(s, "own", &b), PF_OK);
    const double *xa = pf_world_positions(w, a, &na), *xb = pf_world_positions(w, b, &nb);
    ck_assert_uint_eq(na, 16);
    ck_assert_uint_eq(nb, 16);
    ck_assert_msg(!memcmp(xa, xb, 3 * (size_t)na * sizeof *xa), "the linked beam differs from its own-grid twin");
    ck_assert_msg(xa[3 * 3 + 1] < -1e-4, "the free end does not sag: y %g", xa[3 * 3 + 1]);
    pf_scene_destroy(s);
}
END_TEST

/* the scene file's text, with `cut` (a line of it) removed when not NULL */
static char *scene_text(const char *file, const char *cut)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TEST_SCENES_DIR, file);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *at = cut ? strstr(buf, cut) : NULL;
    if (cut) {
        ck_assert_ptr_nonnull(at);
        memmove(at, at + strlen(cut), strlen(at + strlen(cut)) + 1);
    }
    return buf;
}

static uint64_t group_run(const char *cut, uint32_t *touching)
{
    const char *xml = scene_text("collision_group_manager.xml", cut);
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "g.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    pf_world *w = pf_scene_world(s);
    *touching = 0;
    for (int k = 0; k < 60; k++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        pf_collision_stats st;
        ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
        if (st.pairs > *touching) *touching = st.pairs;
    }
    uint64_t h = pf_world_state_hash(w);
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_collision_group_manager)
{
    uint32_t with = 0, without = 0;
    uint64_t a = group_run(NULL, &with), b = group_run("<DefaultCollisionGroupManager/>", &without);
    ck_assert_msg(with == 1 && without == 1, "the cubes do not touch (%u, %u pairs)", with, without);
    ck_assert_msg(a == b, "the group manager changed the run");
    static const char *const aliases[] = {"CollisionGroupManager", "CollisionGroup", "TreeCollisionGroupManager"};
    for (int k = 0; k < 3; k++) {
        char xml[256];
        snprintf(xml, sizeof xml, "<Node><%s/><Node name='p'><EulerImplicitSolver/><MechanicalObject "
                 "position='0 0 0'/><UniformMass vertexMass='1'/></Node></Node>", aliases[k]);
        pf_scene_load_def d = quiet_load_def();
        pf_scene *s = NULL;
        ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s: %s", aliases[k],
                      pf_last_error());
        pf_scene_destroy(s);
    }
}
END_TEST

START_TEST(test_static_method)
{
    pf_scene *s = load_test_scene("static_method.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    pf_object_id a, b;
    ck_assert_int_eq(pf_scene_find_object(s, "method", &a), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(s, "solver", &b), PF_OK);
    pf_solver_def sa, sb;
    ck_assert_int_eq(pf_world_get_solver(w, a, &sa), PF_OK);
    ck_assert_int_eq(pf_world_get_solver(w, b, &sb), PF_OK);
    ck_assert_int_eq(sa.kind, PF_SOLVER_STATIC);
    ck_assert_int_eq(sb.kind, PF_SOLVER_STATIC);
    const double *xa = pf_world_positions(w, a, NULL), *xb = pf_world_positions(w, b, NULL);
    ck_assert_msg(!memcmp(xa, xb, 6 * sizeof *xa), "Static differs from StaticSolver");
    ck_assert_msg(fabs(xa[4] - (-1 - 1 * 10.0 / 1000)) < 1e-9, "hanging at y %.17g", xa[4]);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_subset_lists_apart)
{
    pf_scene *s = load_test_scene("subset_lists_apart.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    const pf_scene_collision_model *models;
    ck_assert_uint_eq(pf_scene_collision_models(s, &models), 2);
    static const uint32_t apart[6] = {2, 3, 8, 2, 8, 7}, linked[12] = {2, 3, 8, 2, 8, 7, 3, 4, 9, 3, 9, 8};
    ck_assert_uint_eq(models[0].ntriangles, 2);
    ck_assert_mem_eq(models[0].triangles, apart, sizeof apart);
    ck_assert_uint_eq(models[1].ntriangles, 4);
    ck_assert_mem_eq(models[1].triangles, linked, sizeof linked);
    pf_scene_destroy(s);
    const char *bad = "<Node><Node name='s'><MeshTopology position='0 0 0 1 0 0 0 1 0' triangles='0 1 2'/>\n"
                      "<SubsetTopology box='0 0 0 1 1 1' triangles='0 1 7'/></Node></Node>";
    pf_scene_load_def d = quiet_load_def();
    s = NULL;
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", bad, strlen(bad), NULL, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "names point 7"), "%s",
                  pf_last_error());
}
END_TEST

static uint64_t run_hash(const char *file, uint32_t *models)
{
    pf_scene *s = load_test_scene(file, PF_EXEC_SEQ, PF_PART_OWNER, 1);
    const pf_scene_collision_model *m;
    *models = (uint32_t)pf_scene_collision_models(s, &m);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 50), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_object_syntax)
{
    uint32_t a = 0, b = 0;
    ck_assert_msg(run_hash("object_syntax.xml", &a) == run_hash("object_syntax_new.xml", &b),
                  "<Object type=...> differs from today's names");
    ck_assert_uint_eq(a, 3);
    ck_assert_uint_eq(b, 3);
    const char *xml = "<Node><Node name='s'>\n<Object position='0 0 0'/></Node></Node>";
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "unknown component 'Object'"), "%s",
                  pf_last_error());
}
END_TEST

/* A collision model on a volume mesh that lists no faces or edges (SOFA's ModelizationTriangleBased: a MeshTopology
 * of one hexahedron): the triangles are its six faces, two each (12), every one on a face of the unit cube (its
 * three corners share a coordinate at 0 or 1); a tetrahedron's, its four faces. (Floor and tetrahedron are held by
 * FixedConstraint: a node without a solver takes PhysFlow's default one, with a warning.) The cube dropped on a fixed floor
 * of two triangles touches it (contacts seen) and stays above it, where without the floor it would fall 4.9 m in
 * the 1 s run. A node with points only still has no triangles: refused with file:line. */
static void count_contacts(const pf_world_contact *c, uint32_t n, void *ctx)
{
    (void)c;
    *(uint32_t *)ctx += n;
}

START_TEST(test_volume_collision_faces)
{
    const char *xml =
        "<Node dt='0.01' gravity='0 0 -9.81'><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>"
        "<MinProximityIntersection alarmDistance='0.1' contactDistance='0.05'/><CollisionResponse stiffness='10000' damping='10'/>"
        "<Node name='cube'><EulerImplicitSolver/><CGLinearSolver iterations='25' tolerance='1e-9' threshold='1e-9'/>"
        "<MechanicalObject position='0 0 0.2  1 0 0.2  0 1 0.2  1 1 0.2  0 0 1.2  1 0 1.2  0 1 1.2  1 1 1.2'/>"
        "<MeshTopology hexas='0 4 6 2 1 5 7 3'/><UniformMass totalMass='1'/>"
        "<MeshSpringForceField stiffness='1000' damping='1'/>"
        "<TriangleCollisionModel/><LineCollisionModel/><PointCollisionModel/></Node>"
        "<Node name='tet'><MechanicalObject position='5 0 0  6 0 0  5 1 0  5 0 1'/>"
        "<MeshTopology tetrahedra='0 1 2 3'/><FixedConstraint fixAll='1'/><TriangleCollisionModel/></Node>"
        "<Node name='floor'><MechanicalObject position='-5 -5 0  5 -5 0  5 5 0  -5 5 0'/>"
        "<MeshTopology triangles='0 1 2  0 2 3'/><FixedConstraint fixAll='1'/><TriangleCollisionModel/></Node></Node>";
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    const pf_scene_collision_model *m;
    uint32_t nm = pf_scene_collision_models(s, &m);
    ck_assert_uint_eq(nm, 5);
    ck_assert_int_eq(m[0].kind, PF_COLLIDE_TRIANGLE);
    ck_assert_uint_eq(m[0].ntriangles, 12);
    pf_object_id cube;
    uint32_t np;
    ck_assert_int_eq(pf_scene_find_object(s, "cube", &cube), PF_OK);
    pf_world *w = pf_scene_world(s);
    const double *x = pf_world_positions(w, cube, &np);
    for (uint32_t t = 0; t < 12; t++) {
        const uint32_t *v = m[0].triangles + 3 * t;
        int on_face = 0;
        for (int a = 0; a < 3; a++) {
            double c = x[3 * v[0] + a] - (a == 2 ? 0.2 : 0);
            on_face |= (c == 0 || c == 1) && x[3 * v[1] + a] == x[3 * v[0] + a] && x[3 * v[2] + a] == x[3 * v[0] + a];
        }
        ck_assert_msg(on_face, "triangle %u (%u %u %u) is on no face of the cube", t, v[0], v[1], v[2]);
    }
    ck_assert_int_eq(m[3].kind, PF_COLLIDE_TRIANGLE);
    ck_assert_uint_eq(m[3].ntriangles, 4);
    uint32_t contacts = 0;
    ck_assert_int_eq(pf_world_set_contact_callback(w, count_contacts, &contacts), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
    ck_assert_uint_gt(contacts, 0);
    x = pf_world_positions(w, cube, &np);
    for (uint32_t p = 0; p < np; p++) ck_assert_msg(x[3 * p + 2] > -0.05, "point %u at z %g", p, x[3 * p + 2]);
    pf_scene_destroy(s);
    const char *bad = "<Node><Node name='p'><MechanicalObject position='0 0 0  1 0 0'/>\n"
                      "<TriangleCollisionModel/></Node></Node>";
    ck_assert_int_ne(pf_scene_load_memory(&d, "b.xml", bad, strlen(bad), NULL, &s), PF_OK);
    ck_assert_msg(strstr(pf_last_error(), "b.xml:2:") && strstr(pf_last_error(), "needs triangles"), "%s",
                  pf_last_error());
}
END_TEST

/* SOFA's CubeTopology (CubeTopology.cpp): a box's surface of quads on nx x ny x nz grid points. 2 x 2 x 2: the eight
 * corners, numbered x fastest, and six quads, by hand from SOFA's updateQuads (Z0, Z1, Y0, Y1, X0, X1), each facing
 * out. 3 x 3 x 3: the 26 surface points of the grid (its centre left out), each once; 24 quads. splitNormals on
 * 3 x 3 x 5 (SOFA's example): each face its own points, 2 (9 + 15 + 15) = 78, every quad's corners on one face
 * plane and every point in the quads of one face only. xmin ... zmax with scale, in single precision as SOFA's parse reads them. Bad sizes: file:line. The quads
 * are read back through a TriangleCollisionModel: two triangles (0 1 2) (0 2 3) each. */
static pf_scene *load_cube(const char *attrs, const double **x, uint32_t *np, const uint32_t **tris, uint32_t *nt)
{
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node gravity='0 0 0'><Node name='c'><EulerImplicitSolver/><CGLinearSolver/>"
                              "<CubeTopology %s/><MechanicalObject/><UniformMass totalMass='1'/>"
                              "<TriangleCollisionModel/></Node></Node>", attrs);
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "c", &o), PF_OK);
    *x = pf_world_positions(pf_scene_world(s), o, np);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    *tris = m[0].triangles;
    *nt = m[0].ntriangles;
    return s;
}

START_TEST(test_cube_topology)
{
    const double *x;
    const uint32_t *t;
    uint32_t np, nt;
    pf_scene *s = load_cube("nx='2' ny='2' nz='2' min='0 0 0' max='1 2 3'", &x, &np, &t, &nt);
    ck_assert_uint_eq(np, 8);
    for (uint32_t p = 0; p < 8; p++)
        for (int a = 0; a < 3; a++) ck_assert_double_eq(x[3 * p + a], ((p >> a) & 1) * (a + 1.0));
    static const uint32_t quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                         {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    ck_assert_uint_eq(nt, 12);
    const double centre[3] = {0.5, 1, 1.5};
    for (uint32_t q = 0; q < 6; q++) {
        const uint32_t *a = t + 6 * q, *v = quads[q];
        const uint32_t want[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
        ck_assert_mem_eq(a, want, sizeof want);
        for (int h = 0; h < 2; h++) { /* (b - a) x (c - a) . (a - centre) > 0: facing out */
            const double *A = x + 3 * a[3 * h], *B = x + 3 * a[3 * h + 1], *C = x + 3 * a[3 * h + 2];
            double u[3], w[3];
            for (int k = 0; k < 3; k++) u[k] = B[k] - A[k], w[k] = C[k] - A[k];
            double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
            ck_assert(n[0] * (A[0] - centre[0]) + n[1] * (A[1] - centre[1]) + n[2] * (A[2] - centre[2]) > 0);
        }
    }
    pf_scene_destroy(s);
    s = load_cube("nx='3' ny='3' nz='3'", &x, &np, &t, &nt);
    ck_assert_uint_eq(np, 26);
    ck_assert_uint_eq(nt, 48);
    int seen[27] = {0};
    for (uint32_t p = 0; p < np; p++) {
        int g[3];
        for (int a = 0; a < 3; a++) {
            g[a] = (int)(x[3 * p + a] * 2);
            ck_assert_double_eq(x[3 * p + a], g[a] / 2.0);
        }
        ck_assert_msg(g[0] != 1 || g[1] != 1 || g[2] != 1, "the centre is a point");
        ck_assert_int_eq(seen[g[0] + 3 * g[1] + 9 * g[2]]++, 0);
    }
    pf_scene_destroy(s);
    s = load_cube("nx='3' ny='3' nz='5' splitNormals='1' internalPoints='0' min='-1 -1 -2' max='1 1 2'", &x, &np, &t,
                  &nt);
    ck_assert_uint_eq(np, 78);
    ck_assert_uint_eq(nt, 2 * (2 * 4 + 2 * 8 + 2 * 8));
    int face_of[78];
    for (uint32_t p = 0; p < 78; p++) face_of[p] = -1;
    for (uint32_t q = 0; q < nt / 2; q++) {
        const uint32_t v[4] = {t[6 * q], t[6 * q + 1], t[6 * q + 2], t[6 * q + 5]};
        int face = -1;
        for (int a = 0; a < 3; a++) {
            double c = x[3 * v[0] + a];
            int same = fabs(c) == (a == 2 ? 2 : 1);
            for (int k = 1; k < 4; k++) same &= x[3 * v[k] + a] == c;
            if (same) face = 2 * a + (c > 0);
        }
        ck_assert_msg(face >= 0, "quad %u is on no face", q);
        for (int k = 0; k < 4; k++) { /* split normals: a point belongs to one face only */
            ck_assert_msg(face_of[v[k]] < 0 || face_of[v[k]] == face, "point %u on faces %d and %d", v[k],
                          face_of[v[k]], face);
            face_of[v[k]] = face;
        }
    }
    for (uint32_t p = 0; p < 78; p++) ck_assert_int_ge(face_of[p], 0);
    pf_scene_destroy(s);
    s = load_cube("nx='2' ny='2' nz='2' xmin='0.1' ymin='0' zmin='0' xmax='0.3' ymax='1' zmax='1' scale='3'", &x, &np,
                  &t, &nt);
    ck_assert_double_eq(x[0], (double)(0.1f * 3.0f));
    ck_assert_double_eq(x[3], (double)(0.3f * 3.0f));
    pf_scene_destroy(s);
    const char *bad[] = {"nx='0' ny='2' nz='2'", "nx='2' ny='2.5' nz='2'", "nx='2' ny='2' nz='2' splitNormals='x'"};
    for (int k = 0; k < 3; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><Node name='c'>\n<CubeTopology %s/><MechanicalObject/></Node></Node>", bad[k]);
        pf_scene_load_def d = quiet_load_def();
        ck_assert_int_ne(pf_scene_load_memory(&d, "b.xml", xml, strlen(xml), NULL, &s), PF_OK);
        ck_assert_msg(strstr(pf_last_error(), "b.xml:2:") && strstr(pf_last_error(), "CubeTopology"), "%s",
                      pf_last_error());
    }
}
END_TEST

/* SOFA 1.0's generic MeshLoader (sofa/component/container/MeshLoader.cpp, read by SOFA's older scenes as
 * collisionMultipleMask): the reader chosen by the file's extension, and the node's MeshTopology without data taking
 * its mesh. The unit cube of tests/meshes/ in OBJ and Gmsh, springs on its edges, runs bit for bit as today's
 * MeshObjLoader / MeshGmshLoader linked by src. Today's loaders keep today's rule (a MeshTopology without data or
 * link is refused, as it stays empty in SOFA); an extension PhysFlow does not read, or no filename: file:line. */
static uint64_t cube_springs_hash(const char *loader, const char *topology, const char *file)
{
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node dt='0.01' gravity='0 0 -9.81'><Node name='c'><EulerImplicitSolver/><CGLinearSolver/>"
             "<%s name='l' filename='%s'/><%s/><MechanicalObject/><UniformMass totalMass='1'/>"
             "<FixedConstraint indices='0'/><MeshSpringForceField stiffness='100'/></Node></Node>",
             loader, file, topology);
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), TEST_MESHES_DIR, &s) == PF_OK, "%s",
                  pf_last_error());
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_uint_gt(sum.springs, 0);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_generic_mesh_loader)
{
    ck_assert(cube_springs_hash("MeshLoader", "Mesh", "cube.obj") ==
              cube_springs_hash("MeshObjLoader", "MeshTopology src='@l'", "cube.obj"));
    ck_assert(cube_springs_hash("MeshLoader", "MeshTopology", "cube.msh") ==
              cube_springs_hash("MeshGmshLoader", "MeshTopology src='@l'", "cube.msh"));
    ck_assert(cube_springs_hash("MeshLoader", "Mesh", "cube.obj") !=
              cube_springs_hash("MeshLoader", "Mesh", "cube.msh")); /* the OBJ's quads, the Gmsh file's hexahedron */
    static const char *const bad[][2] = {
        {"<MeshLoader filename='cube.ply'/>", "PhysFlow reads .obj"},
        {"<MeshLoader/>", "'filename' is missing"},
        {"<MeshObjLoader filename='cube.obj'/><MeshTopology/>", "'position' needs 3 numbers"},
    };
    for (int k = 0; k < 3; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><Node name='c'>\n%s<MechanicalObject/></Node></Node>", bad[k][0]);
        pf_scene_load_def d = quiet_load_def();
        pf_scene *s = NULL;
        ck_assert_int_ne(pf_scene_load_memory(&d, "b.xml", xml, strlen(xml), TEST_MESHES_DIR, &s), PF_OK);
        ck_assert_msg(strstr(pf_last_error(), "b.xml:2:") && strstr(pf_last_error(), bad[k][1]), "%s",
                      pf_last_error());
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_sofa_forms");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_topology_files);
    tcase_add_test(tc, test_topology_file_refused);
    tcase_add_test(tc, test_hexa2tetra_on_linked_grid);
    tcase_add_test(tc, test_collision_group_manager);
    tcase_add_test(tc, test_static_method);
    tcase_add_test(tc, test_subset_lists_apart);
    tcase_add_test(tc, test_object_syntax);
    tcase_add_test(tc, test_volume_collision_faces);
    tcase_add_test(tc, test_cube_topology);
    tcase_add_test(tc, test_generic_mesh_loader);
    suite_add_tcase(s, tc);
    return s;
}
