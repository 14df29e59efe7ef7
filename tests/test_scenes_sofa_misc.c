/* SOFA scene forms met in SOFA's examples (issue 18): Quad2TriangleTopologicalMapping on a flat RegularGridTopology
 * (the grid's own quads, or a container linked to the grid) against the cells' diagonals worked out by hand from
 * SOFA's rule; Hexa2TetraTopologicalMapping of the node's own grid into a container linked to the grid's points,
 * against the empty container's form; SparseGridTopology's `filename`; TriangularFEMForceFieldOptim's restScale
 * against the scaled triangle it comes to rest as; TaitSurfacePressureForceField against the volume where Tait's
 * pressure vanishes, and its injection rate; FixedWeakConstraint's sag m g / k; and the refusals' messages. */
#include "check_main.h"
#include "scene_text.h"

#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Quad2TriangleTopologicalMapping on a flat grid ---- */

/* A grid n="4 1 2" over [0,3] x {0} x [0,1]: three unit cells in a row along x, point (i, 0, k) numbered i + 4 k.
 * The parent node holds it and its state (the first %s; the second: a QuadSetTopologyContainer, linked to the grid
 * or not); the child maps the input to triangles. */
static const char sheet[] =
    "<Node><EulerImplicitSolver/><CGLinearSolver/>\n"
    "<Node name='q'>%s<UniformMass totalMass='1'/>%s\n"
    "<Node name='t'><TriangleSetTopologyContainer name='tri'/>"
    "<Quad2TriangleTopologicalMapping input='%s' output='@tri'/><TriangleCollisionModel/></Node></Node></Node>";

/* Cell c's diagonal: 1 when its triangles share the edge from corner (c, 0) to (c+1, 1) (points c and c + 5), 0
 * when they share (c+1, 0)-(c, 1) (points c + 1 and c + 4); each cell must be cut into two triangles of area 1/2
 * that use only its corners. */
static void cell_diagonals(const pf_scene_collision_model *m, int diag[3])
{
    ck_assert_uint_eq(m->ntriangles, 6);
    for (uint32_t c = 0; c < 3; c++) {
        const uint32_t *t = m->triangles + 6 * c; /* SOFA adds a quad's two triangles one after the other */
        const uint32_t corners[4] = {c, c + 1, c + 4, c + 5};
        int seen[2][4] = {{0}};
        for (int k = 0; k < 2; k++)
            for (int v = 0; v < 3; v++) {
                int found = -1;
                for (int q = 0; q < 4; q++)
                    if (t[3 * k + v] == corners[q]) found = q;
                ck_assert_msg(found >= 0, "cell %u: triangle %d uses point %u", c, k, t[3 * k + v]);
                seen[k][found] = 1;
            }
        /* the shared corners of the two triangles are the diagonal's ends */
        int shared[4], ns = 0;
        for (int q = 0; q < 4; q++)
            if (seen[0][q] && seen[1][q]) shared[ns++] = q;
        ck_assert_int_eq(ns, 2);
        ck_assert_msg((shared[0] == 0 && shared[1] == 3) || (shared[0] == 1 && shared[1] == 2), "cell %u", c);
        diag[c] = shared[0] == 0;
    }
}

/* SOFA's Quad2TriangleTopologicalMapping::init cuts quad i along one diagonal or the other as ((i % scale) ^
 * (i / scale)) & 1, scale the input GridTopology's nx - 1 (here 3: a chessboard) or 2 for any other input, such
 * as a QuadSetTopologyContainer that linked the grid (src="@grid"): cells 0 1 2 then give main, anti, anti. */
START_TEST(test_quad2triangle_flat_grid)
{
    static const char grid[] = "<RegularGridTopology name='grid' n='4 1 2' min='0 0 0' max='3 0 1'/><MechanicalObject/>";
    static const struct {
        const char *grid, *container, *input;
        int diag[3];
    } cases[] = {
        {grid, "", "@../grid", {1, 0, 1}},                                                /* the grid itself */
        {grid, "", "@..", {1, 0, 1}},                                                     /* the parent's grid */
        {grid, "<QuadSetTopologyContainer name='quads' src='@grid'/>", "@../quads", {1, 0, 0}}, /* a container */
        {grid, "<QuadSetTopologyContainer name='quads' quads='@grid.quads'/>", "@../quads", {1, 0, 0}},
        /* the same points and quads written by hand: the container's rule */
        {"<MechanicalObject position='0 0 0 1 0 0 2 0 0 3 0 0 0 0 1 1 0 1 2 0 1 3 0 1'/>",
         "<QuadSetTopologyContainer name='quads' quads='0 1 5 4  1 2 6 5  2 3 7 6'/>", "@../quads", {1, 0, 0}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, sheet, cases[k].grid, cases[k].container, cases[k].input);
        pf_scene *s = load_ok(xml);
        const pf_scene_collision_model *models;
        ck_assert_uint_eq(pf_scene_collision_models(s, &models), 1);
        int diag[3];
        cell_diagonals(&models[0], diag);
        for (int c = 0; c < 3; c++)
            ck_assert_msg(diag[c] == cases[k].diag[c], "case %zu cell %d: diagonal %d", k, c, diag[c]);
        /* the triangles lie on the grid's points: the sheet's area, 3 m^2 */
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "q", &o), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_uint_eq(n, 8);
        double area = 0;
        for (uint32_t t = 0; t < models[0].ntriangles; t++) {
            const uint32_t *v = models[0].triangles + 3 * t;
            double a[3], b[3];
            for (int d = 0; d < 3; d++) a[d] = x[3 * v[1] + d] - x[3 * v[0] + d], b[d] = x[3 * v[2] + d] - x[3 * v[0] + d];
            double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2], cz = a[0] * b[1] - a[1] * b[0];
            area += 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
        }
        ck_assert_double_eq_tol(area, 3, 1e-12);
        pf_scene_destroy(s);
    }
}
END_TEST

/* A grid without quads (a volume, a line) mapped to triangles: refused with the scene's line. */
START_TEST(test_quad2triangle_grid_refused)
{
    static const char fmt[] = "<Node><EulerImplicitSolver/><RegularGridTopology name='grid' n='%s' min='0 0 0' "
                              "max='1 1 1'/>\n<Node name='t'><MechanicalObject/><TriangleSetTopologyContainer "
                              "name='tri'/>\n<Quad2TriangleTopologicalMapping input='@../grid' output='@tri'/></Node>"
                              "</Node>";
    static const char *const shapes[] = {"3 3 3", "3 1 1"};
    for (int k = 0; k < 2; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, fmt, shapes[k]);
        expect_error(xml, PF_EPARSE, "t.xml:3:", "the input node 'root' has no quads");
    }
}
END_TEST

/* ---- Hexa2TetraTopologicalMapping of the node's own grid into a container linked to it ---- */

static uint64_t hash_after(const char *xml, uint32_t steps)
{
    pf_scene *s = load_ok(xml);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), steps), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

/* A cantilever of 2 x 1 x 1 cells held at x = 0, its FEM on the tetrahedra the mapping cuts from the node's grid;
 * the first %s: the container's attributes, the second: the mapping's. */
static const char beam[] =
    "<Node dt='0.01' gravity='0 0 -9.81'><EulerImplicitSolver/><CGLinearSolver iterations='100' tolerance='1e-12'/>\n"
    "<RegularGridTopology name='grid' n='3 2 2' min='0 0 0' max='0.2 0.1 0.1'/><MechanicalObject name='state'/>\n"
    "<TetrahedronSetTopologyContainer name='tetra'%s/>\n<Hexa2TetraTopologicalMapping input='@grid' output='@tetra'%s/>"
    "\n<TetrahedronFEMForceField youngModulus='5e4' poissonRatio='0.3'/><UniformMass totalMass='1'/>"
    "<FixedConstraint indices='0 3 6 9'/></Node>";

/* SOFA's examples (BarycentricTetraMapping, FixedWeakConstaint_Vec3, VisualMesh) link the container to the grid's
 * points (position="@grid.position") before the mapping fills it: the same tetrahedra on the same points as the
 * empty container's form, so the same state bit for bit; with `swapping` too. */
START_TEST(test_hexa2tetra_linked_container)
{
    static const char *const links[] = {" position='@grid.position'", " src='@grid'", " position='@state.position'"};
    for (int swapping = 0; swapping < 2; swapping++) {
        const char *sw = swapping ? " swapping='true'" : "";
        char xml[2048];
        snprintf(xml, sizeof xml, beam, "", sw);
        uint64_t empty = hash_after(xml, 20);
        for (size_t k = 0; k < sizeof links / sizeof *links; k++) {
            snprintf(xml, sizeof xml, beam, links[k], sw);
            ck_assert_msg(hash_after(xml, 20) == empty, "link %zu, swapping %d", k, swapping);
        }
    }
    /* a second mapping of the same grid: the node's topology is the first's tetrahedra by then */
    char xml[2048];
    snprintf(xml, sizeof xml, beam, " position='@grid.position'",
             "/><Hexa2TetraTopologicalMapping input='@grid' output='@tetra'");
    expect_error(xml, PF_EPARSE, "t.xml:4:", "its input must be the topology of a node above node 'root'");
}
END_TEST

/* ---- SparseGridTopology's mesh named by `filename` (SOFA's alias of fileTopology) ---- */

START_TEST(test_sparse_grid_filename_alias)
{
    static const char fmt[] = "<Node><EulerImplicitSolver/><Node name='g'><SparseGridTopology n='3 4 5' %s/>"
                              "<MechanicalObject/><UniformMass totalMass='1'/><HexahedronFEMForceField/></Node></Node>";
    static const char *const names[] = {"fileTopology='cube.obj'", "filename='cube.obj'"};
    uint64_t h[2];
    for (int k = 0; k < 2; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, fmt, names[k]);
        pf_scene_load_def d = quiet_load_def();
        d.report = ignore_reports;
        d.data_path = TEST_MESHES_DIR;
        pf_scene *s = NULL;
        ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
        pf_scene_summary sum;
        ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
        ck_assert_uint_eq(sum.points, 3 * 4 * 5);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 5), PF_OK);
        h[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    ck_assert(h[0] == h[1]);
    expect_error("<Node><Node name='g'><SparseGridTopology n='3 3 3' fileTopology='cube.obj' filename='ball.obj'/>"
                 "</Node></Node>",
                 PF_EPARSE, "t.xml:1:", "fileTopology 'cube.obj' and filename 'ball.obj'");
    expect_error("<Node><Node name='g'><SparseGridTopology n='3 3 3'/></Node></Node>", PF_EPARSE, "t.xml:1:",
                 "attribute 'fileTopology' is missing (or 'filename', its alias");
}
END_TEST

/* ---- TriangularFEMForceFieldOptim's restScale ---- */

static double dist(const double *x, uint32_t a, uint32_t b)
{
    double d0 = x[3 * a] - x[3 * b], d1 = x[3 * a + 1] - x[3 * b + 1], d2 = x[3 * a + 2] - x[3 * b + 2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

/* A free triangle whose rest edges are its initial ones times s (SOFA's initTriangleInfo scales ab and ac) comes to
 * rest, damped, as its initial shape scaled by s: every edge s times its initial length; no external force, so its
 * centroid stays where it was. */
START_TEST(test_rest_scale_shrinks_triangle)
{
    static const char fmt[] =
        "<Node dt='0.01' gravity='0 0 0'><Node name='sheet'><EulerImplicitSolver rayleighMass='5'/>"
        "<CGLinearSolver iterations='200' tolerance='1e-14' threshold='1e-20'/>"
        "<MechanicalObject position='0 0 0  2 0 0  0.5 1.5 0'/><MeshTopology triangles='0 1 2'/>"
        "<UniformMass totalMass='3'/><TriangularFEMForceFieldOptim youngModulus='2000' poissonRatio='0.3' "
        "restScale='%g'/></Node></Node>";
    static const double scales[] = {0.9, 1.1};
    static const double x0[9] = {0, 0, 0, 2, 0, 0, 0.5, 1.5, 0};
    for (int k = 0; k < 2; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, fmt, scales[k]);
        pf_scene *s = load_ok(xml);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 2000), PF_OK);
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "sheet", &o), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_uint_eq(n, 3);
        static const uint32_t edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
        for (int e = 0; e < 3; e++)
            ck_assert_double_eq_tol(dist(x, edges[e][0], edges[e][1]),
                                    scales[k] * dist(x0, edges[e][0], edges[e][1]), 1e-6);
        for (int d = 0; d < 3; d++)
            ck_assert_double_eq_tol((x[d] + x[3 + d] + x[6 + d]) / 3, (x0[d] + x0[3 + d] + x0[6 + d]) / 3, 1e-9);
        pf_scene_destroy(s);
    }
    /* refusals: the scene's line, the API's argument */
    expect_error("<Node><Node name='p'><MechanicalObject position='0 0 0 1 0 0 0 1 0'/><MeshTopology triangles='0 1 2'/>"
                 "\n<TriangularFEMForceFieldOptim restScale='0'/></Node></Node>",
                 PF_EINVAL, "t.xml:2:", "restScale must be > 0");
    pf_world *w;
    pf_world_def wd = pf_world_default_def();
    wd.runtime = quiet_load_def().world.runtime;
    ck_assert_int_eq(pf_world_create(&wd, &w), PF_OK);
    pf_object_def od = pf_object_default_def();
    od.points = 3;
    od.positions = x0;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
    static const uint32_t tri[3] = {0, 1, 2};
    pf_triangle_fem_def td = pf_triangle_fem_default_def();
    ck_assert_double_eq(td.rest_scale, 1);
    td.triangles = tri;
    td.ntriangles = 1;
    td.rest_scale = NAN;
    ck_assert_int_eq(pf_world_add_triangle_fem(w, o, &td, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.rest_scale"), "%s", pf_last_error());
    pf_world_destroy(w);
}
END_TEST

/* ---- TaitSurfacePressureForceField ---- */

/* The closed surface of the tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1), triangles turned outward, its base held:
 * the pressure moves the apex only, along z (its volume gradient is minus the base's normal / 6), until
 * P = p0 - B ((V / v0)^gamma - 1) = 0, V = v0 (1 + p0 / B)^(1 / gamma), v0 = 1/6 + the injected volume; the apex
 * then stands at h = 3 V / (base area 1/2). %s: the field's attributes. */
static const char tet_fmt[] =
    "<Node dt='0.01' gravity='0 0 0'><Node name='bag'><EulerImplicitSolver rayleighMass='4'/>"
    "<CGLinearSolver iterations='100' tolerance='1e-14' threshold='1e-20'/>\n"
    "<MechanicalObject position='0 0 0  1 0 0  0 1 0  0 0 1'/>"
    "<MeshTopology triangles='0 2 1  0 1 3  0 3 2  1 2 3'/><UniformMass totalMass='4'/>"
    "<FixedConstraint indices='0 1 2'/>\n<TaitSurfacePressureForceField %s/></Node></Node>";

static const double *apex_after(pf_scene *s, uint32_t steps)
{
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), steps), PF_OK);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "bag", &o), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 4);
    return x + 9;
}

START_TEST(test_tait_pressure_equilibrium)
{
    static const struct {
        const char *attrs;
        double p0, B, gamma, injected;
    } cases[] = {
        {"B='100' gamma='1' injectedVolume='0.0833333333333333'", 0, 100, 1, 1.0 / 12}, /* v0 1/4: h 1.5 */
        {"B='100' gamma='5' injectedVolume='0.0833333333333333'", 0, 100, 5, 1.0 / 12}, /* the same, any gamma */
        {"B='100' gamma='2' p0='10'", 10, 100, 2, 0},      /* a rest pressure: V = v0 sqrt(1.1) */
        {"B='50' gamma='3' p0='-5' injectedVolume='-0.02'", -5, 50, 3, -0.02}, /* a drawn volume, p0 < 0 */
        {"p0='0' B='0' gamma='5'", 0, 0, 5, 0},             /* B 0: P = p0 = 0, nothing moves */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, tet_fmt, cases[k].attrs);
        pf_scene *s = load_ok(xml);
        const double *a = apex_after(s, 3000);
        double v0 = 1.0 / 6 + cases[k].injected;
        double V = cases[k].B > 0 ? v0 * pow(1 + cases[k].p0 / cases[k].B, 1 / cases[k].gamma) : 1.0 / 6;
        ck_assert_msg(fabs(a[2] - 3 * V / 0.5) < 1e-7, "case %zu: apex at z %.12g, expected %.12g", k, a[2],
                      3 * V / 0.5);
        ck_assert_double_eq_tol(a[0], 0, 1e-12);
        ck_assert_double_eq_tol(a[1], 0, 1e-12);
        pf_scene_destroy(s);
    }
}
END_TEST

/* maxInjectionRate: the injected volume grows by at most rate dt a step (SOFA's AnimateBeginEvent), so a slow
 * injection lags the immediate one, and both end at the same apex. */
START_TEST(test_tait_injection_rate)
{
    char xml[1024];
    double z[2][2];
    static const char *const rates[] = {"", " maxInjectionRate='0.5'"}; /* default 1000: at once; 0.5: 17 steps */
    for (int k = 0; k < 2; k++) {
        char attrs[256];
        snprintf(attrs, sizeof attrs, "B='100' gamma='1' injectedVolume='0.0833333333333333'%s", rates[k]);
        snprintf(xml, sizeof xml, tet_fmt, attrs);
        pf_scene *s = load_ok(xml);
        z[k][0] = apex_after(s, 5)[2];
        z[k][1] = apex_after(s, 3000)[2];
        pf_scene_destroy(s);
    }
    ck_assert_msg(z[1][0] < z[0][0] - 1e-3, "after 5 steps: slow %.9g, immediate %.9g", z[1][0], z[0][0]);
    ck_assert_double_eq_tol(z[0][1], 1.5, 1e-7);
    ck_assert_double_eq_tol(z[1][1], 1.5, 1e-7);
}
END_TEST

START_TEST(test_tait_refused)
{
    char xml[1024];
    snprintf(xml, sizeof xml, tet_fmt, "B='-1'");
    expect_error(xml, PF_EINVAL, "t.xml:3:", "B");
    snprintf(xml, sizeof xml, tet_fmt, "maxInjectionRate='-2'");
    expect_error(xml, PF_EINVAL, "t.xml:3:", "maxInjectionRate");
    expect_error("<Node><EulerImplicitSolver/><Node name='p'><MechanicalObject position='0 0 0 1 0 0'/>"
                 "<MeshTopology edges='0 1'/><UniformMass totalMass='1'/>\n<TaitSurfacePressureForceField B='1' "
                 "gamma='1'/></Node></Node>",
                 PF_EPARSE, "t.xml:2:", "TaitSurfacePressureForceField needs the triangles of a closed surface");
}
END_TEST

/* ---- FixedWeakConstraint ---- */

/* Two points under gravity, the first held by FixedWeakConstraint (k 50 N/m, by a BoxROI's indices or written
 * out): damped, it comes to rest m g / k = 0.2 kg 9.81 / 50 below where it started; the other falls free, unheld. */
START_TEST(test_fixed_weak_constraint)
{
    static const char fmt[] =
        "<Node dt='0.01' gravity='0 0 -9.81'><Node name='p'><EulerImplicitSolver rayleighMass='3'/>"
        "<CGLinearSolver iterations='50' tolerance='1e-14' threshold='1e-20'/>"
        "<MechanicalObject position='0 0 1  5 0 1'/><UniformMass vertexMass='0.2'/>"
        "<BoxROI name='box' box='-0.1 -0.1 0.9 0.1 0.1 1.1'/>\n<FixedWeakConstraint %s/></Node></Node>";
    static const char *const picks[] = {"indices='@box.indices' stiffness='50'", "indices='0' stiffness='50'"};
    for (int k = 0; k < 2; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, fmt, picks[k]);
        pf_scene *s = load_ok(xml);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1500), PF_OK);
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "p", &o), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_double_eq_tol(x[2], 1 - 0.2 * 9.81 / 50, 1e-9);
        ck_assert_double_eq_tol(x[0], 0, 1e-12);
        ck_assert_msg(x[5] < -1, "the unheld point is at z %g", x[5]);
        pf_scene_destroy(s);
    }
    char xml[1024];
    snprintf(xml, sizeof xml, fmt, "indices='7'");
    expect_error(xml, PF_EINVAL, "t.xml:2:", "index 7 is out of range (2 points)");
    snprintf(xml, sizeof xml, fmt, "stiffness='-1' indices='0'");
    expect_error(xml, PF_EINVAL, "t.xml:2:", "stiffness");
}
END_TEST

/* ---- A saved scene's MechanicalObject position="0 0 0" over a topology ---- */

/* SOFA's MechanicalObject::init takes the topology's points when at most one position and one velocity are given
 * (scenes saved by SOFA's GUI write position="0 0 0"): the unit corner tetrahedron (volume 1/6) gets its four
 * points, and DiagonalMass at density 6 spreads 1 kg over them, 1/4 each (a tetrahedron's lumped mass). With two
 * positions given, the count must match the topology's. */
START_TEST(test_placeholder_position_takes_topology_points)
{
    static const char fmt[] =
        "<Node gravity='0 0 0'><EulerImplicitSolver/><CGLinearSolver/><Node name='t'>"
        "<MeshTopology position='0 0 0  1 0 0  0 1 0  0 0 1' tetrahedra='0 1 2 3'/>\n"
        "<MechanicalObject position='%s' velocity='0 0 1'/>\n<DiagonalMass massDensity='6'/></Node></Node>";
    char xml[1024];
    snprintf(xml, sizeof xml, fmt, "0 0 0");
    pf_scene *s = load_ok(xml);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "t", &o), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_double_eq(x[3], 1);
    ck_assert_double_eq(x[11], 1);
    double m[4];
    uint32_t nm;
    ck_assert_int_eq(pf_world_get_point_masses(pf_scene_world(s), o, m, 4, &nm), PF_OK);
    for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(m[k], 0.25, 1e-15);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK); /* the velocity given moves every point */
    x = pf_world_positions(pf_scene_world(s), o, &n);
    for (int k = 0; k < 4; k++) ck_assert_double_gt(x[3 * k + 2], k == 3 ? 1 : 0);
    pf_scene_destroy(s);
    snprintf(xml, sizeof xml, fmt, "0 0 0  1 0 0");
    expect_error(xml, PF_EINVAL, "t.xml:3:", "has 2 positions but its topology has 4 points");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_sofa_misc");
    TCase *tc = tcase_create("sofa_misc");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_quad2triangle_flat_grid);
    tcase_add_test(tc, test_quad2triangle_grid_refused);
    tcase_add_test(tc, test_hexa2tetra_linked_container);
    tcase_add_test(tc, test_sparse_grid_filename_alias);
    tcase_add_test(tc, test_rest_scale_shrinks_triangle);
    tcase_add_test(tc, test_tait_pressure_equilibrium);
    tcase_add_test(tc, test_tait_injection_rate);
    tcase_add_test(tc, test_tait_refused);
    tcase_add_test(tc, test_fixed_weak_constraint);
    tcase_add_test(tc, test_placeholder_position_takes_topology_points);
    suite_add_tcase(s, tc);
    return s;
}
