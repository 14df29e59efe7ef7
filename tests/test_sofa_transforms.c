/* SOFA's MechanicalObject transforms (scale3d, scale, rotation in degrees, translation, and the old sx.. rx.. dx..)
 * on points given, from a loader and from a grid, against positions computed by hand in SOFA's order (scale, then
 * Rz Ry Rx, then translation); a BoxROI selecting among the transformed points with its box where it is written;
 * mapped nodes and collision models seeing the transformed points; a Rigid3d frame moved and turned. And constant
 * forces and torques on rigid bodies (pf_world_add_constant_force, ConstantForceField on a Rigid3d node) against the
 * closed forms of PhysFlow's Euler steps: v_N = N h F / m, x_N = x_0 + h^2 F / m N (N + 1) / 2, and about a
 * principal axis omega_N = N h tau / I. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "scene_files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pf_scene *load_xml(const char *xml, const char *dir)
{
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    int rc = pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), dir, &s);
    ck_assert_msg(rc == PF_OK, "%s", pf_last_error());
    return s;
}

/* the positions of the scene's first object equal `want` (n points) within 1e-12 */
static void expect_points(pf_scene *s, const char *node, const double *want, uint32_t n)
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, node, &o), PF_OK);
    uint32_t np = 0;
    const double *x = pf_world_positions(pf_scene_world(s), o, &np);
    ck_assert_uint_eq(np, n);
    for (uint32_t i = 0; i < 3 * n; i++)
        ck_assert_msg(fabs(x[i] - want[i]) < 1e-12, "%s: point %u [%u] = %.17g, want %g", node, i / 3, i % 3, x[i],
                      want[i]);
}

static void expect_mo(const char *attrs, const double want[9])
{
    char xml[512];
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>"
                              "<MechanicalObject position='1 0 0  0 2 0  0 0 3' %s/></Node></Node>", attrs);
    pf_scene *s = load_xml(xml, NULL);
    expect_points(s, "a", want, 3);
    pf_scene_destroy(s);
}

/* The scene's only collision surface has 3 vertices, at want (9 numbers). */
static void expect_surface(pf_scene *s, const double want[9])
{
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    uint32_t nv = 0;
    const double *x = pf_world_surface_positions(pf_scene_world(s), m[0].surface, &nv);
    ck_assert_uint_eq(nv, 3);
    for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(x[i], want[i], 1e-12);
}

/* the three points (1,0,0) (0,2,0) (0,0,3), each transform alone and all three together */
START_TEST(test_positions_given)
{
    static const double scaled[9] = {2, 0, 0, 0, 6, 0, 0, 0, 12};
    expect_mo("scale3d='2 3 4'", scaled);
    expect_mo("sx='2' sy='3' sz='4'", scaled);
    static const double uniform[9] = {10, 0, 0, 0, 20, 0, 0, 0, 30};
    expect_mo("scale='10'", uniform);
    static const double about_x[9] = {1, 0, 0, 0, 0, 2, 0, -3, 0}; /* (x, y, z) -> (x, -z, y) */
    expect_mo("rotation='90 0 0'", about_x);
    expect_mo("rx='90'", about_x);
    static const double about_z[9] = {0, 1, 0, -2, 0, 0, 0, 0, 3}; /* (x, y, z) -> (-y, x, z) */
    expect_mo("rotation='0 0 90'", about_z);
    /* x first, then z (R = Rz Ry Rx): (1,0,0) -> (1,0,0) -> (0,1,0); (0,2,0) -> (0,0,2) -> (0,0,2); (0,0,3) ->
     * (0,-3,0) -> (3,0,0). The other order would give (0,0,1) for the first point. */
    static const double x_then_z[9] = {0, 1, 0, 0, 0, 2, 3, 0, 0};
    expect_mo("rotation='90 0 90'", x_then_z);
    static const double moved[9] = {11, 20, 30, 10, 22, 30, 10, 20, 33};
    expect_mo("translation='10 20 30'", moved);
    expect_mo("dx='10' dy='20' dz='30'", moved);
    /* scale (2,6,12 on the axes), then about z, then the translation */
    static const double all[9] = {10, 22, 30, 4, 20, 30, 10, 20, 42};
    expect_mo("scale3d='2 3 4' rotation='0 0 90' translation='10 20 30'", all);
}
END_TEST

START_TEST(test_refusals)
{
    static const char *const bad[] = {
        "<Node><Node name='a'>\n<MechanicalObject position='0 0 0' scale='1 2 3'/></Node></Node>",
        "<Node><Node name='a'>\n<MechanicalObject position='0 0 0' translation2='1 0 0'/></Node></Node>",
        "<Node><Node name='a'>\n<MechanicalObject position='0 0 0' rx2='10'/></Node></Node>",
        "<Node><Node name='a'><SparseGridTopology n='3 3 3' fileTopology='cube.obj'/>\n"
        "<MechanicalObject rotation='0 0 10'/></Node></Node>",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        pf_scene_load_def d = quiet_load_def();
        pf_scene *s = NULL;
        ck_assert_int_ne(pf_scene_load_memory(&d, "t.xml", bad[k], strlen(bad[k]), TEST_MESHES_DIR, &s), PF_OK);
        ck_assert_msg(strstr(pf_last_error(), "t.xml:2:"), "%zu: %s", k, pf_last_error());
    }
}
END_TEST

/* a loader's points (its own translation first, as SOFA's loader applies it) under the object's scale and turn */
START_TEST(test_from_loader)
{
    char dir[] = "/tmp/pf_motf_XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/tri.obj", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    fclose(f);
    const char *xml = "<Node><EulerImplicitSolver/><Node name='a'>"
                      "<MeshObjLoader name='l' filename='tri.obj' translation='1 0 0'/>"
                      "<MechanicalObject src='@l' scale='10' rotation='0 0 90' translation='0 0 5'/>"
                      "<TriangleCollisionModel/></Node></Node>";
    pf_scene *s = load_xml(xml, dir);
    /* loader: (1,0,0) (2,0,0) (1,1,0); x10: (10,0,0) (20,0,0) (10,10,0); about z: (0,10,0) (0,20,0) (-10,10,0) */
    static const double want[9] = {0, 10, 5, 0, 20, 5, -10, 10, 5};
    expect_points(s, "a", want, 3);
    expect_surface(s, want);
    pf_scene_destroy(s);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* a grid's points, numbered x fastest: scaled and moved it stays a grid; turned it becomes a mesh of the same
 * points, whose hexahedral FEM still steps */
START_TEST(test_from_grid)
{
    double want[24];
    for (int k = 0; k < 8; k++) {
        double p[3] = {k & 1, (k >> 1) & 1, (k >> 2) & 1};
        want[3 * k] = 2 * p[0] + 1, want[3 * k + 1] = 3 * p[1], want[3 * k + 2] = 4 * p[2];
    }
    pf_scene *s = load_xml("<Node><EulerImplicitSolver/><Node name='a'>"
                           "<RegularGridTopology n='2 2 2' min='0 0 0' max='1 1 1'/>"
                           "<MechanicalObject scale3d='2 3 4' translation='1 0 0'/></Node></Node>", NULL);
    expect_points(s, "a", want, 8);
    pf_scene_destroy(s);
    for (int k = 0; k < 8; k++) { /* about z: (x, y, z) -> (-y, x, z) after the scale, then the translation */
        double p[3] = {k & 1, (k >> 1) & 1, (k >> 2) & 1};
        want[3 * k] = -3 * p[1] + 1, want[3 * k + 1] = 2 * p[0], want[3 * k + 2] = 4 * p[2];
    }
    s = load_xml("<Node gravity='0 0 -10'><EulerImplicitSolver/><Node name='a'>"
                 "<RegularGridTopology n='2 2 2' min='0 0 0' max='1 1 1'/>"
                 "<MechanicalObject scale3d='2 3 4' rotation='0 0 90' translation='1 0 0'/><UniformMass totalMass='1'/>"
                 "<HexahedronFEMForceField youngModulus='1000' poissonRatio='0.3' method='large'/></Node></Node>",
                 NULL);
    expect_points(s, "a", want, 8);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 2), PF_OK);
    pf_scene_destroy(s);
}
END_TEST

/* a mass measured on the points: DiagonalMass massDensity 2 on the triangle (0,0,0) (1,0,0) (0,1,0) scaled by 10
 * (area 50): 100 kg, whether the mass comes before the topology or after it */
START_TEST(test_mass_on_transformed)
{
    static const char *const forms[] = {
        "<MechanicalObject position='0 0 0  1 0 0  0 1 0' scale='10'/><MeshTopology triangles='0 1 2'/>"
        "<DiagonalMass massDensity='2'/>",
        "<MechanicalObject position='0 0 0  1 0 0  0 1 0' scale='10'/><DiagonalMass massDensity='2'/>"
        "<MeshTopology triangles='0 1 2'/>",
        "<MechanicalObject position='0 0 0  1 0 0  0 1 0' scale3d='10 5 1' rotation='0 0 30'/>"
        "<MeshTopology triangles='0 1 2'/><DiagonalMass massDensity='4'/>",
    };
    for (int k = 0; k < 3; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>%s</Node></Node>", forms[k]);
        pf_scene_load_def d = quiet_load_def();
        pf_scene *s = NULL;
        int rc = pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s);
        if (k == 1 && rc != PF_OK) continue; /* a mass before its topology may be refused: nothing to measure */
        ck_assert_msg(rc == PF_OK, "%d: %s", k, pf_last_error());
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "a", &o), PF_OK);
        double total = 0;
        ck_assert_int_eq(pf_world_get_object_mass(pf_scene_world(s), o, NULL, &total), PF_OK);
        ck_assert_msg(fabs(total - 100) < 1e-9, "%d: %.17g kg", k, total);
        pf_scene_destroy(s);
    }
}
END_TEST

/* which of the object's points a FixedConstraint on `@box.indices` holds: the others fall in one step */
static unsigned held_points(const char *mo, const char *box)
{
    char xml[768];
    snprintf(xml, sizeof xml, "<Node gravity='0 0 -10' dt='0.1'><EulerImplicitSolver/><Node name='a'>"
                              "<MechanicalObject position='0 0 0  1 0 0  2 0 0' %s/><UniformMass vertexMass='1'/>"
                              "<BoxROI name='box' box='%s'/><FixedConstraint indices='@box.indices'/>"
                              "</Node></Node>", mo, box);
    pf_scene *s = load_xml(xml, NULL);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "a", &o), PF_OK);
    uint32_t np;
    double z0[3];
    const double *x = pf_world_positions(pf_scene_world(s), o, &np);
    for (int i = 0; i < 3; i++) z0[i] = x[3 * i + 2];
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
    x = pf_world_positions(pf_scene_world(s), o, &np);
    unsigned held = 0;
    for (int i = 0; i < 3; i++) held |= (x[3 * i + 2] == z0[i]) << i;
    pf_scene_destroy(s);
    return held;
}

/* SOFA's BoxROI tests the object's positions after its transform, the box as written: scaled by 10 the points sit
 * at x = 0, 10, 20 (a box up to x = 1.5 takes point 0 only, not 0 and 1 as the points as written would); moved by
 * 5 they sit at 5, 6, 7 (the box around x = 0 takes none) */
START_TEST(test_box_roi)
{
    ck_assert_uint_eq(held_points("", "-1 -1 -1  1.5 1 1"), 3);
    ck_assert_uint_eq(held_points("scale='10'", "-1 -1 -1  1.5 1 1"), 1);
    ck_assert_uint_eq(held_points("scale='10'", "9 -1 -1  21 1 1"), 6);
    ck_assert_uint_eq(held_points("translation='5 0 0'", "4.5 -1 -1  6.5 1 1"), 3);
}
END_TEST

/* an IdentityMapping child's collision model on the transformed points; a BarycentricMapping child's mesh under its
 * own MechanicalObject's scale inside a scaled grid */
START_TEST(test_mapped_children)
{
    pf_scene *s = load_xml("<Node><EulerImplicitSolver/><Node name='a'>"
                           "<MechanicalObject position='0 0 0  1 0 0  0 1 0' scale='2' translation='0 0 1'/>"
                           "<MeshTopology triangles='0 1 2'/>"
                           "<Node name='c'><MechanicalObject/><IdentityMapping/><TriangleCollisionModel/></Node>"
                           "</Node></Node>", NULL);
    static const double want[9] = {0, 0, 1, 2, 0, 1, 0, 2, 1};
    expect_surface(s, want);
    pf_scene_destroy(s);
    s = load_xml("<Node><EulerImplicitSolver/><Node name='a'>"
                 "<RegularGridTopology n='3 3 3' min='0 0 0' max='1 1 1'/><MechanicalObject scale='2'/>"
                 "<Node name='c'><MeshTopology position='0.5 0.5 0.5  1 0.5 0.5  0.5 1 0.5' triangles='0 1 2'/>"
                 "<MechanicalObject scale='2'/><BarycentricMapping/><TriangleCollisionModel/></Node>"
                 "</Node></Node>", NULL);
    static const double inside[9] = {1, 1, 1, 2, 1, 1, 1, 2, 1};
    expect_surface(s, inside);
    pf_scene_destroy(s);
}
END_TEST

/* BarycentricMapping onto a grid its MechanicalObject turns (a hexahedral mesh then, mapped through six
 * tetrahedra per cell): the mapped vertices start at the turned points given (90 degrees about z: (x, y) ->
 * (-y, x)), and under gravity along z, which turns nothing, they fall with the grid: each vertex at its start plus
 * the grid's point 0's displacement (within 1e-6 m of a 0.02 m fall: the turned grid's springs, rounded, move its
 * points apart by ~1e-9). */
START_TEST(test_mapped_onto_turned_grid)
{
    pf_scene *s = load_xml("<Node dt='0.01' gravity='0 0 -9.81'><Node name='a'><EulerImplicitSolver/>"
                           "<CGLinearSolver iterations='100' tolerance='1e-14' threshold='1e-20'/>"
                           "<RegularGridTopology n='3 3 3' min='0 0 0' max='1 1 1'/>"
                           "<MechanicalObject rotation='0 0 90'/><UniformMass totalMass='1'/>"
                           "<RegularGridSpringForceField stiffness='100'/>"
                           "<Node name='c'><MeshTopology position='0.25 0.5 0.5  0.75 0.5 0.5  0.5 0.9 0.1' "
                           "triangles='0 1 2'/><MechanicalObject rotation='0 0 90'/><BarycentricMapping/>"
                           "<TriangleCollisionModel/></Node></Node></Node>", NULL);
    static const double want[9] = {-0.5, 0.25, 0.5, -0.5, 0.75, 0.5, -0.9, 0.5, 0.1};
    expect_surface(s, want);
    const pf_scene_collision_model *m;
    pf_scene_collision_models(s, &m);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "a", &o), PF_OK);
    double p0[3];
    memcpy(p0, pf_world_positions(pf_scene_world(s), o, NULL), sizeof p0);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    const double *p = pf_world_positions(pf_scene_world(s), o, NULL);
    ck_assert_msg(p[2] - p0[2] < -0.01, "the grid did not fall: %g", p[2] - p0[2]);
    const double *x = pf_world_surface_positions(pf_scene_world(s), m[0].surface, NULL);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(fabs(x[i] - (want[i] + p[i % 3] - p0[i % 3])) < 1e-6, "coordinate %d: %.12g, want %.12g", i, x[i],
                      want[i] + p[i % 3] - p0[i % 3]);
    pf_scene_destroy(s);
}
END_TEST

/* a Rigid3 frame: SOFA's old attributes; its centre scaled, turned and moved, its orientation turned */
START_TEST(test_rigid_frame)
{
    pf_scene *s = load_xml("<Node gravity='0 0 0'><EulerImplicitSolver/><Node name='r'>"
                           "<MechanicalObject template='Rigid3' position='1 0 0 0 0 0 1' dx='2' dy='0' dz='0' rx='0' "
                           "ry='0' rz='90' scale='3'/><UniformMass totalMass='1'/>"
                           "<RigidShape type='box' halfExtents='0.1 0.2 0.3'/></Node></Node>", NULL);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "r", &o), PF_OK);
    double p[3], q[4];
    ck_assert_int_eq(pf_world_get_rigid_state(pf_scene_world(s), o, p, q, NULL, NULL), PF_OK);
    /* (1,0,0) x3 = (3,0,0), about z (0,3,0), + (2,0,0); the orientation a quarter turn about z */
    const double wp[3] = {2, 3, 0}, wq[4] = {0, 0, sqrt(0.5), sqrt(0.5)};
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(p[a], wp[a], 1e-12);
    for (int a = 0; a < 4; a++) ck_assert_double_eq_tol(q[a], wq[a], 1e-12);
    pf_scene_destroy(s);
}
END_TEST

static pf_world *make_world(double dt, pf_executor e, int workers)
{
    return new_world_dg(e, workers, dt, (const double[3]){0, 0, 0});
}

/* a box body of mass 2, half extents (0.1, 0.2, 0.3): I_z = m (a^2 + b^2) / 3 */
static pf_object_id add_box(pf_world *w, pf_solver_kind kind)
{
    pf_rigid_def r = pf_rigid_default_def();
    r.mass = 2;
    r.half_extents[0] = 0.1, r.half_extents[1] = 0.2, r.half_extents[2] = 0.3;
    r.position[0] = 1;
    r.solver.kind = kind;
    r.solver.cg_tolerance = 1e-14;
    r.solver.cg_threshold = 1e-30;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_rigid(w, &r, &o), PF_OK);
    return o;
}

static void push(pf_world *w, pf_object_id o, uint32_t point, double fx, double fy, double fz)
{
    pf_constant_force_def d = pf_constant_force_default_def();
    d.points = &point;
    d.npoints = 1;
    d.force[0] = fx, d.force[1] = fy, d.force[2] = fz;
    ck_assert_int_eq(pf_world_add_constant_force(w, o, &d, NULL), PF_OK);
}

/* N steps of h under a force (3, -1, 2) N at the com and a torque 0.5 N m about z, from rest, with each solver
 * that moves rigid bodies: the closed forms of symplectic / implicit Euler (no stiffness, no damping) */
START_TEST(test_rigid_force_and_torque)
{
    static const pf_solver_kind kinds[] = {PF_SOLVER_EXPLICIT_EULER, PF_SOLVER_IMPLICIT_EULER};
    const double h = 0.01, m = 2, F[3] = {3, -1, 2}, tau = 0.5, Iz = m * (0.01 + 0.04) / 3;
    const int N = 50;
    for (int k = 0; k < 2; k++) {
        pf_world *w = make_world(h, PF_EXEC_SEQ, 1);
        pf_object_id o = add_box(w, kinds[k]);
        push(w, o, 0, F[0], F[1], F[2]);
        push(w, o, 1, 0, 0, tau);
        ck_assert_int_eq(pf_world_step(w, N), PF_OK);
        double p[3], q[4], v[3], om[3];
        ck_assert_int_eq(pf_world_get_rigid_state(w, o, p, q, v, om), PF_OK);
        for (int a = 0; a < 3; a++) {
            double x0 = a == 0 ? 1 : 0;
            ck_assert_msg(fabs(v[a] - N * h * F[a] / m) < 1e-12, "solver %d: v[%d] = %.17g", k, a, v[a]);
            ck_assert_msg(fabs(p[a] - x0 - h * h * F[a] / m * N * (N + 1) / 2) < 1e-12, "solver %d: x[%d] = %.17g",
                          k, a, p[a]);
        }
        ck_assert_msg(fabs(om[2] - N * h * tau / Iz) < 1e-10, "solver %d: omega_z = %.17g, want %.17g", k, om[2],
                      N * h * tau / Iz);
        ck_assert_double_eq_tol(om[0], 0, 1e-12);
        ck_assert_double_eq_tol(om[1], 0, 1e-12);
        /* the angle turned, h sum of omega_k = h^2 tau / I N (N + 1) / 2, about z */
        double angle = h * h * tau / Iz * N * (N + 1) / 2;
        ck_assert_double_eq_tol(q[2], sin(angle / 2), 1e-9);
        ck_assert_double_eq_tol(q[3], cos(angle / 2), 1e-9);
        pf_world_destroy(w);
    }
}
END_TEST

/* the same loads on several bodies and an object of points: one state, bit for bit, for every executor and
 * worker count */
START_TEST(test_rigid_force_deterministic)
{
    static const pf_executor ex[] = {PF_EXEC_SEQ, PF_EXEC_STATIC, PF_EXEC_STATIC, PF_EXEC_BARRIER};
    static const int workers[] = {1, 2, 3, 2};
    uint64_t first = 0;
    for (int k = 0; k < 4; k++) {
        pf_world *w = make_world(0.01, ex[k], workers[k]);
        for (int b = 0; b < 4; b++) {
            pf_object_id o = add_box(w, b % 2 ? PF_SOLVER_IMPLICIT_EULER : PF_SOLVER_EXPLICIT_EULER);
            push(w, o, 0, 0.1 * b, 1, -0.3);
            push(w, o, 1, 0.2, -0.1 * b, 0.05);
            push(w, o, 1, 0.01, 0.02, 0.03);
        }
        ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
        uint64_t hsh = pf_world_state_hash(w);
        if (k == 0) first = hsh;
        ck_assert_msg(hsh == first, "executor %d, %d workers: %016llx vs %016llx", (int)ex[k], workers[k],
                      (unsigned long long)hsh, (unsigned long long)first);
        pf_world_destroy(w);
    }
}
END_TEST

START_TEST(test_rigid_force_api)
{
    pf_world *w = make_world(0.01, PF_EXEC_SEQ, 1);
    pf_object_id o = add_box(w, PF_SOLVER_IMPLICIT_EULER);
    pf_constant_force_def d = pf_constant_force_default_def();
    uint32_t two = 2;
    d.points = &two;
    d.npoints = 1;
    d.force[0] = 1;
    ck_assert_int_eq(pf_world_add_constant_force(w, o, &d, NULL), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "out of range"));
    d.points = NULL;
    d.npoints = 0; /* every point: not on a rigid body */
    ck_assert_int_eq(pf_world_add_constant_force(w, o, &d, NULL), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "rigid body"));
    pf_world_destroy(w);
}
END_TEST

/* ConstantForceField on a Rigid3 node: forces (6 numbers: force, torque) on index 0, against the closed form; an
 * index other than 0 refused at its line */
START_TEST(test_rigid_constant_force_field)
{
    const char *xml = "<Node gravity='0 0 0' dt='0.01'><Node name='r'>"
                      "<EulerImplicitSolver/><CGLinearSolver iterations='50' tolerance='1e-14' threshold='1e-30'/>"
                      "<MechanicalObject template='Rigid3' dx='1'/><UniformMass totalMass='2'/>"
                      "<RigidShape type='box' halfExtents='0.1 0.2 0.3'/>"
                      "<ConstantForceField indices='0' forces='3 -1 2  0 0 0.5'/></Node></Node>";
    pf_scene *s = load_xml(xml, NULL);
    const double h = 0.01, m = 2, F[3] = {3, -1, 2}, tau = 0.5, Iz = m * (0.01 + 0.04) / 3;
    const int N = 50;
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, N), PF_OK);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "r", &o), PF_OK);
    double p[3], v[3], om[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, o, p, NULL, v, om), PF_OK);
    for (int a = 0; a < 3; a++) {
        ck_assert_double_eq_tol(v[a], N * h * F[a] / m, 1e-12);
        ck_assert_double_eq_tol(p[a], (a == 0) + h * h * F[a] / m * N * (N + 1) / 2, 1e-12);
    }
    ck_assert_double_eq_tol(om[2], N * h * tau / Iz, 1e-10);
    pf_scene_destroy(s);
    const char *bad = "<Node><Node name='r'><EulerImplicitSolver/>"
                      "<MechanicalObject template='Rigid3'/><UniformMass totalMass='2'/><RigidShape type='box'/>\n"
                      "<ConstantForceField indices='1' force='0 0 1 0 0 0'/></Node></Node>";
    pf_scene_load_def d = quiet_load_def();
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", bad, strlen(bad), NULL, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "index 1"), "%s", pf_last_error());
    const char *short6 = "<Node><Node name='r'><EulerImplicitSolver/>"
                         "<MechanicalObject template='Rigid3'/><UniformMass totalMass='2'/><RigidShape type='box'/>\n"
                         "<ConstantForceField force='0 0 1'/></Node></Node>";
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", short6, strlen(short6), NULL, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "6 numbers"), "%s", pf_last_error());
}
END_TEST

/* FixedRotationProjectiveConstraint on a Rigid3 node: all three axes hold the rotation against a torque (the
 * orientation bit for bit as it started, no angular velocity) while the com still follows its force (v = N h F /
 * m); two axes (x, z) hold those (omega_x = omega_z = 0) while the torque turns the body about y, the state of
 * pf_world_fix_directions on point 1 along x then z; on an object of points an error. */
START_TEST(test_rigid_fixed_rotation)
{
    const char *fmt = "<Node gravity='0 0 0' dt='0.01'><Node name='r'>"
                      "<EulerImplicitSolver/><CGLinearSolver iterations='50' tolerance='1e-14' threshold='1e-30'/>"
                      "<MechanicalObject template='Rigid3' position='0 0 0  0 0 0.3826834323650898 "
                      "0.9238795325112867'/><UniformMass totalMass='2'/>"
                      "<RigidShape type='box' halfExtents='0.1 0.2 0.3'/>"
                      "<ConstantForceField indices='0' forces='3 -1 2  0.5 -0.2 0.5'/>\n%s</Node></Node>";
    char xml[1024];
    snprintf(xml, sizeof xml, fmt,
             "<FixedRotationProjectiveConstraint FixedXRotation='1' FixedYRotation='true' FixedZRotation='1'/>");
    pf_scene *s = load_xml(xml, NULL);
    pf_world *w = pf_scene_world(s);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "r", &o), PF_OK);
    double q0[4], q[4], v[3], om[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, o, NULL, q0, NULL, NULL), PF_OK);
    const int N = 40;
    ck_assert_int_eq(pf_world_step(w, N), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, o, NULL, q, v, om), PF_OK);
    for (int a = 0; a < 4; a++) ck_assert_msg(q[a] == q0[a], "orientation[%d] %.17g, was %.17g", a, q[a], q0[a]);
    const double F[3] = {3, -1, 2};
    for (int a = 0; a < 3; a++) {
        ck_assert_msg(om[a] == 0, "angular velocity[%d] = %g", a, om[a]);
        ck_assert_double_eq_tol(v[a], N * 0.01 * F[a] / 2, 1e-12);
    }
    pf_scene_destroy(s);
    uint64_t hash[2];
    for (int way = 0; way < 2; way++) {
        snprintf(xml, sizeof xml, fmt,
                 way ? "" : "<FixedRotationProjectiveConstraint FixedXRotation='1' FixedZRotation='1'/>");
        s = load_xml(xml, NULL);
        w = pf_scene_world(s);
        ck_assert_int_eq(pf_scene_find_object(s, "r", &o), PF_OK);
        for (int a = 0; way && a < 3; a += 2) {
            const uint32_t one = 1;
            const double axis[3] = {a == 0, 0, a == 2};
            ck_assert_int_eq(pf_world_fix_directions(w, o, &one, 1, axis), PF_OK);
        }
        ck_assert_int_eq(pf_world_step(w, N), PF_OK);
        ck_assert_int_eq(pf_world_get_rigid_state(w, o, NULL, q, NULL, om), PF_OK);
        ck_assert_msg(om[0] == 0 && om[2] == 0 && fabs(om[1]) > 0.1, "omega (%g, %g, %g)", om[0], om[1], om[2]);
        hash[way] = pf_world_state_hash(w);
        pf_scene_destroy(s);
    }
    ck_assert(hash[0] == hash[1]);
    pf_scene_load_def d = quiet_load_def();
    const char *points = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0'/>"
                         "<UniformMass vertexMass='1'/>\n<FixedRotationProjectiveConstraint FixedXRotation='1' "
                         "FixedYRotation='1' FixedZRotation='1'/></Node></Node>";
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", points, strlen(points), NULL, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "not a Rigid3d object"), "%s",
                  pf_last_error());
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("sofa_transforms");
    TCase *t = tcase_create("mechanical_object");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_positions_given);
    tcase_add_test(t, test_refusals);
    tcase_add_test(t, test_from_loader);
    tcase_add_test(t, test_from_grid);
    tcase_add_test(t, test_mass_on_transformed);
    tcase_add_test(t, test_box_roi);
    tcase_add_test(t, test_mapped_children);
    tcase_add_test(t, test_mapped_onto_turned_grid);
    tcase_add_test(t, test_rigid_frame);
    suite_add_tcase(s, t);
    TCase *r = tcase_create("rigid_loads");
    tcase_set_timeout(r, 60);
    tcase_add_test(r, test_rigid_force_and_torque);
    tcase_add_test(r, test_rigid_force_deterministic);
    tcase_add_test(r, test_rigid_force_api);
    tcase_add_test(r, test_rigid_constant_force_field);
    tcase_add_test(r, test_rigid_fixed_rotation);
    suite_add_tcase(s, r);
    return s;
}
