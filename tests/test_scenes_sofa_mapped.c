/* SOFA components mapped onto PhysFlow's models, each in a scene of tests/scenes/ against a closed form or the
 * components it maps onto: CGImplicit (one implicit Euler step of a spring in closed form; the same state as SOFA's
 * replacement EulerImplicitSolver + CGLinearSolver), UniformMass without a mass (SOFA's old default, 1 kg),
 * StringMeshCreator (points and edges, through the masses DiagonalMass lumps on them), the hexahedral FEM with its
 * mass (volume x density; the same state as the FEM beside a DiagonalMass) and FastTetrahedralCorotationalForceField
 * (one tetrahedron's static displacement in closed form; each method the same state as TetrahedronFEMForceField's),
 * BDFIntegrationScheme (order 1: BDF1's state), Static (StaticSolver's state), DampVelocitySolver (free points'
 * paths in closed form) and EdgePressureForceField's constant form (each point's force, pressure x rest length over
 * its edges / 2); a StiffSpringForceField without springs (SOFA's empty field); a MeshTopology's own mesh file (the
 * loader's mesh) and its aliases hexas, tetras; the collision models' older short names (Triangle, Line, Point,
 * Sphere). */
#include "check_main.h"

#include "physflow/scene.h"
#include "scene_files.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct reports {
    int warnings;
    char last[512];
} reports;

static void collect(pf_scene_severity sev, const char *msg, void *ctx)
{
    reports *r = ctx;
    if (sev == PF_SCENE_NOTE) return;
    r->warnings++;
    snprintf(r->last, sizeof r->last, "%s", msg);
}

/* Loads xml, counting warnings into *r; fails the test when it does not load. */
static pf_scene *load_xml(const char *xml, reports *r)
{
    pf_scene_load_def d = quiet_load_def();
    d.report = collect;
    d.report_ctx = r;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    return s;
}

/* The error loading xml gives (the scene must not load). */
static int load_error(const char *xml)
{
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    int rc = pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s);
    ck_assert_ptr_null(s);
    return rc;
}

/* The state hash after `steps` steps of xml (no warning allowed unless `warnings` says how many). */
static uint64_t hash_after(const char *xml, int steps, int warnings)
{
    reports r = {0};
    pf_scene *s = load_xml(xml, &r);
    ck_assert_msg(r.warnings == warnings, "%d warnings, want %d: %s", r.warnings, warnings, r.last);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), steps), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

static uint32_t point_masses(pf_scene *s, const char *path, double *m, uint32_t cap)
{
    pf_object_id o;
    ck_assert_msg(pf_scene_find_object(s, path, &o) == PF_OK, "%s", pf_last_error());
    uint32_t n = 0;
    ck_assert_int_eq(pf_world_get_point_masses(pf_scene_world(s), o, m, cap, &n), PF_OK);
    ck_assert_uint_le(n, cap);
    return n;
}

static const double *positions(pf_scene *s, const char *path, uint32_t *n)
{
    pf_object_id o;
    ck_assert_msg(pf_scene_find_object(s, path, &o) == PF_OK, "%s", pf_last_error());
    return pf_world_positions(pf_scene_world(s), o, n);
}

/* ---- CGImplicit ---- */

/* One step of backward Euler with Rayleigh damping on a point of mass m at distance l0 + s from a fixed point, on a
 * spring of stiffness k and rest length l0, at rest: along the spring (1 + h rM) m dv + h (h + rK) k dv = -h k s, x
 * advances by h dv. The CG of one direction is exact. */
START_TEST(test_cg_implicit_spring_step)
{
    const double h = 0.01, rm = 0.3, rk = 0.02, m = 2, k = 50, s0 = 0.2;
    pf_scene *s = load_test_scene("cg_implicit_spring.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
    uint32_t n;
    const double *x = positions(s, "spring", &n);
    ck_assert_uint_eq(n, 2);
    double dv = -h * k * s0 / ((1 + h * rm) * m + h * (h + rk) * k), want = 1.2 + h * dv;
    ck_assert_msg(fabs(x[3] - want) <= 1e-13, "x = %.17g, closed form %.17g", x[3], want);
    ck_assert_double_eq(x[4], 0);
    ck_assert_double_eq(x[5], 0);
    ck_assert_double_eq(x[0], 0);
    pf_scene_destroy(s);
}
END_TEST

/* SOFA replaces CGImplicit by its Objects/CGImplicit.xml: an EulerImplicitSolver (rayleighStiffness 0.1,
 * rayleighMass 0.1) and a CGLinearSolver (iterations 25, tolerance 1e-5, threshold 1e-5), the component's
 * attributes replacing theirs: the solver settings, and the state of a spring bar, are those of the pair. */
static const char bar[] = "<Node dt='0.002' gravity='0 0 -9.81'><Node name='bar'>%s"
                          "<RegularGridTopology n='4 2 2' min='0 0 0' max='0.3 0.1 0.1'/><MechanicalObject/>"
                          "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='500'/>"
                          "<FixedConstraint indices='0 4 8 12'/></Node></Node>";

static uint64_t bar_hash(const char *solver, int warnings)
{
    char xml[1024];
    snprintf(xml, sizeof xml, bar, solver);
    return hash_after(xml, 30, warnings);
}

START_TEST(test_cg_implicit_is_euler_and_cg)
{
    char xml[1024];
    snprintf(xml, sizeof xml, bar, "<CGImplicit/>");
    reports r = {0};
    pf_scene *s = load_xml(xml, &r);
    ck_assert_int_eq(r.warnings, 0);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "bar", &o), PF_OK);
    pf_solver_def d;
    ck_assert_int_eq(pf_world_get_solver(pf_scene_world(s), o, &d), PF_OK);
    ck_assert_int_eq(d.kind, PF_SOLVER_IMPLICIT_EULER);
    ck_assert_int_eq(d.linear_solver, PF_LINEAR_CG);
    ck_assert_double_eq(d.rayleigh_mass, 0.1);
    ck_assert_double_eq(d.rayleigh_stiffness, 0.1);
    ck_assert_uint_eq(d.cg_iterations, 25);
    ck_assert_double_eq(d.cg_tolerance, 1e-5);
    ck_assert_double_eq(d.cg_threshold, 1e-5);
    pf_scene_destroy(s);

    uint64_t pair = bar_hash("<EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>"
                             "<CGLinearSolver iterations='25' tolerance='1e-5' threshold='1e-5'/>", 0);
    ck_assert(bar_hash("<CGImplicit/>", 0) == pair);
    ck_assert(bar_hash("<CGImplicitSolver/>", 0) == pair);
    uint64_t set = bar_hash("<EulerImplicitSolver rayleighStiffness='0.05' rayleighMass='0.2'/>"
                            "<CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>", 0);
    ck_assert(bar_hash("<CGImplicit iterations='40' tolerance='1e-10' threshold='1e-12' rayleighStiffness='0.05' "
                       "rayleighMass='0.2' vdamping='0'/>", 0) == set);
    ck_assert(set != pair);
    /* vdamping > 0 is not applied, and says so */
    ck_assert(bar_hash("<CGImplicit vdamping='2'/>", 1) == pair);
    /* a CGLinearSolver after it sets the CG, as in SOFA's node of the two */
    ck_assert(bar_hash("<CGImplicit/><CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>", 0) ==
              bar_hash("<EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>"
                       "<CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>", 0));
    snprintf(xml, sizeof xml, bar, "<CGImplicit iterations='2.5'/>");
    ck_assert_int_eq(load_error(xml), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "iterations 2.5 is not an integer"), "%s", pf_last_error());
    snprintf(xml, sizeof xml, bar, "<EulerImplicitSolver/><CGImplicit/>");
    ck_assert_int_eq(load_error(xml), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "already has a time integrator"), "%s", pf_last_error());
}
END_TEST

/* ---- UniformMass without a mass ---- */

START_TEST(test_uniform_mass_default)
{
    pf_scene *s = load_test_scene("uniform_mass_default.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    double m[32];
    uint32_t n = point_masses(s, "cube", m, 32);
    ck_assert_uint_eq(n, 20);
    for (uint32_t i = 0; i < n; i++) ck_assert_double_eq_tol(m[i], 1.0 / 20, 1e-15);
    double point, total;
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "cube", &o), PF_OK);
    ck_assert_int_eq(pf_world_get_object_mass(pf_scene_world(s), o, &point, &total), PF_OK);
    ck_assert_double_eq_tol(total, 1, 1e-15);
    /* the same state as totalMass="1" written out */
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    static const char grid[] = "<Node dt='0.01'><Node name='cube'><EulerImplicitSolver/>"
                               "<RegularGridTopology n='2 2 5' min='0 0 0' max='0.1 0.1 0.4'/><MechanicalObject/>%s"
                               "<RegularGridSpringForceField stiffness='50'/></Node></Node>";
    char a[512], b[512];
    snprintf(a, sizeof a, grid, "<UniformMass/>");
    snprintf(b, sizeof b, grid, "<UniformMass totalMass='1'/>");
    reports r = {0};
    s = load_xml(a, &r);
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "t.xml:1: warning: UniformMass: neither totalMass nor vertexMass: totalMass=\"1\""),
                  "%s", r.last);
    pf_scene_destroy(s);
    ck_assert(hash_after(a, 10, 1) == hash_after(b, 10, 0));
    ck_assert(h != 0);
}
END_TEST

/* ---- StringMeshCreator ---- */

START_TEST(test_string_mesh_creator)
{
    pf_scene *s = load_test_scene("string_mesh.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    uint32_t n;
    const double *x = positions(s, "string", &n);
    ck_assert_uint_eq(n, 5);
    for (uint32_t p = 0; p < 5; p++) { /* SOFA's x = p / (n - 1), scaled by 2 along x, moved 1 up */
        ck_assert_double_eq_tol(x[3 * p], 2.0 * p / 4.0, 1e-15);
        ck_assert_double_eq(x[3 * p + 1], 0);
        ck_assert_double_eq(x[3 * p + 2], 1);
    }
    /* the edges join each point to the next: a DiagonalMass of 3 kg on their lengths gives the two ends half of
       what each point between them gets, 3/8 and 3/4 kg; and one spring per edge */
    double m[8];
    ck_assert_uint_eq(point_masses(s, "string", m, 8), 5);
    for (uint32_t p = 0; p < 5; p++) ck_assert_double_eq_tol(m[p], p == 0 || p == 4 ? 0.375 : 0.75, 1e-14);
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_uint_eq(sum.springs, 4);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    pf_scene_destroy(s);
    /* SOFA's default resolution, 2: the two ends; fewer than 2 points is refused */
    reports r = {0};
    s = load_xml("<Node><StringMeshCreator name='l'/><Node name='s'><EulerImplicitSolver/>"
                 "<MeshTopology src='@../l'/><MechanicalObject/><UniformMass totalMass='1'/></Node></Node>", &r);
    ck_assert_int_eq(r.warnings, 0);
    x = positions(s, "s", &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_double_eq(x[0], 0);
    ck_assert_double_eq(x[3], 1);
    pf_scene_destroy(s);
    ck_assert_int_eq(load_error("<Node>\n<StringMeshCreator resolution='1'/></Node>"), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: StringMeshCreator: resolution"), "%s", pf_last_error());
    ck_assert_int_eq(load_error("<Node>\n<StringMeshCreator resolution='3.5'/></Node>"), PF_EINVAL);
}
END_TEST

/* ---- HexahedronFEMForceFieldAndMass, HexahedralFEMForceFieldAndMass ---- */

START_TEST(test_hexa_fem_and_mass_masses)
{
    /* 2 x 1 x 4 m in 2 x 2 x 4 cells of 1 x 0.5 x 1 m, 7 kg/m^3: 56 kg, 7 x 0.5 / 8 kg at each corner of a cell */
    pf_scene *s = load_test_scene("hexa_fem_and_mass.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    double m[64];
    uint32_t n = point_masses(s, "block", m, 64);
    ck_assert_uint_eq(n, 45);
    double total = 0, cell = 7 * 0.5 / 8;
    for (uint32_t i = 0; i < n; i++) total += m[i];
    ck_assert_double_eq_tol(total, 56, 1e-12);
    ck_assert_double_eq_tol(m[0], cell, 1e-14);         /* a corner of the block: one cell */
    ck_assert_double_eq_tol(m[1], 2 * cell, 1e-14);     /* (1, 0, 0): two cells */
    ck_assert_double_eq_tol(m[4 + 9], 8 * cell, 1e-14); /* (1, 1, 1): inside, eight cells */
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    pf_scene_destroy(s);
}
END_TEST

/* The FEM half is HexahedronFEMForceField's (HexahedralFEMForceField's) and the mass half DiagonalMass's on the
 * same cells: the same state, bit for bit; SOFA's default density is 1 kg/m^3; lumpedMass="false" says that the
 * mass is lumped; an unknown attribute is warned about once. */
START_TEST(test_hexa_fem_and_mass_is_fem_and_mass)
{
    static const char node[] = "<Node dt='0.01'><Node name='b'><EulerImplicitSolver rayleighMass='0.1'/>"
                               "<CGLinearSolver iterations='50' tolerance='1e-9' threshold='1e-9'/><MechanicalObject/>"
                               "<RegularGridTopology n='3 2 4' min='0 0 0' max='0.4 0.1 0.6'/>"
                               "<FixedConstraint indices='0 1 2 3 4 5'/>%s</Node></Node>";
    static const struct {
        const char *with_mass, *apart;
        int warnings;
    } cases[] = {
        {"<HexahedronFEMForceFieldAndMass youngModulus='3000' poissonRatio='0.3' density='900'/>",
         "<DiagonalMass massDensity='900'/><HexahedronFEMForceField youngModulus='3000' poissonRatio='0.3'/>", 0},
        {"<HexahedronFEMForceFieldAndMass youngModulus='3000' poissonRatio='0.3' method='polar' density='900' "
         "lumpedMass='true'/>",
         "<DiagonalMass massDensity='900'/><HexahedronFEMForceField youngModulus='3000' poissonRatio='0.3' "
         "method='polar'/>", 0},
        {"<HexahedralFEMForceFieldAndMass youngModulus='3000' poissonRatio='0.3' density='900'/>",
         "<DiagonalMass massDensity='900'/><HexahedralFEMForceField youngModulus='3000' poissonRatio='0.3'/>", 0},
        {"<HexahedronFEMForceFieldAndMass youngModulus='3000' poissonRatio='0.3'/>",
         "<DiagonalMass massDensity='1'/><HexahedronFEMForceField youngModulus='3000' poissonRatio='0.3'/>", 0},
        {"<HexahedronFEMForceFieldAndMass youngModulus='3000' poissonRatio='0.3' density='900' lumpedMass='0'/>",
         "<DiagonalMass massDensity='900'/><HexahedronFEMForceField youngModulus='3000' poissonRatio='0.3'/>", 1},
        {"<HexahedronFEMForceFieldAndMass youngModulus='3000' poissonRatio='0.3' density='900' colour='red'/>",
         "<DiagonalMass massDensity='900'/><HexahedronFEMForceField youngModulus='3000' poissonRatio='0.3'/>", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, node, cases[k].with_mass);
        snprintf(b, sizeof b, node, cases[k].apart);
        ck_assert_msg(hash_after(a, 20, cases[k].warnings) == hash_after(b, 20, 0), "case %zu", k);
    }
    char xml[1024];
    snprintf(xml, sizeof xml, node, "<HexahedronFEMForceFieldAndMass density='-1'/>");
    ck_assert_int_eq(load_error(xml), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "density must be > 0, got -1"), "%s", pf_last_error());
    snprintf(xml, sizeof xml, node, "<HexahedronFEMForceFieldAndMass method='fast'/>");
    ck_assert_int_eq(load_error(xml), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "unknown method 'fast'"), "%s", pf_last_error());
    snprintf(xml, sizeof xml, node, "<UniformMass totalMass='1'/><HexahedronFEMForceFieldAndMass/>");
    ck_assert_int_eq(load_error(xml), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "a second mass"), "%s", pf_last_error());
    /* no hexahedra to measure */
    ck_assert_int_eq(load_error("<Node><Node name='t'><EulerImplicitSolver/><MechanicalObject position='0 0 0 1 0 0 "
                                "0 1 0 0 0 1'/><MeshTopology tetrahedra='0 1 2 3'/>\n"
                                "<HexahedronFEMForceFieldAndMass/></Node></Node>"), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "hexahedra"), "%s", pf_last_error());
}
END_TEST

/* ---- FastTetrahedralCorotationalForceField ---- */

/* One tetrahedron (0,0,0) (L,0,0) (0,L,0) (0,0,L), three corners held, force F on the fourth: the linear static
 * displacement is K33^-1 F with K33 = V (mu |g|^2 I + (lambda + mu) g g^T), g = grad N3 = (0, 0, 1/L), V = L^3/6. */
START_TEST(test_fast_tetra_static_closed_form)
{
    const double L = 0.5, E = 1000, nu = 0.3, F[3] = {2, -1, 3};
    const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu)), V = L * L * L / 6;
    const double want[3] = {F[0] * L * L / (V * mu), F[1] * L * L / (V * mu), F[2] * L * L / (V * (lambda + 2 * mu))};
    pf_scene *s = load_test_scene("fast_tetra_single.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
    uint32_t n;
    const double *x = positions(s, "tetra", &n);
    ck_assert_uint_eq(n, 4);
    const double rest[3] = {0, 0, L};
    for (int a = 0; a < 3; a++) {
        double u = x[9 + a] - rest[a];
        ck_assert_msg(fabs(u - want[a]) <= 1e-10 * fabs(want[a]), "u[%d] = %.17g, closed form %.17g", a, u, want[a]);
    }
    pf_scene_destroy(s);
}
END_TEST

/* Each method is TetrahedronFEMForceField's: qr (the default) and large, polar (polar2 with a warning), none,
 * linear and small; on hexahedra alone it is refused, as in SOFA. */
START_TEST(test_fast_tetra_methods)
{
    static const char node[] = "<Node dt='0.01'><Node name='b'><EulerImplicitSolver rayleighMass='0.1'/>"
                               "<CGLinearSolver iterations='60' tolerance='1e-9' threshold='1e-9'/>"
                               "<RegularGridTopology name='g' n='3 2 4' min='0 0 0' max='0.4 0.1 0.6'/><MechanicalObject/>"
                               "<TetrahedronSetTopologyContainer name='t'/>"
                               "<Hexa2TetraTopologicalMapping input='@g' output='@t'/><DiagonalMass massDensity='500'/>"
                               "<FixedConstraint indices='0 1 2 3 4 5'/>%s</Node></Node>";
    static const struct {
        const char *fast, *tetra;
        int warnings;
    } cases[] = {
        {"", "large", 0},        {"method='qr'", "large", 0},   {"method='large'", "large", 0},
        {"method='polar'", "polar", 0}, {"method='polar2'", "polar", 1}, {"method='none'", "small", 0},
        {"method='linear'", "small", 0}, {"method='small'", "small", 0},
    };
    uint64_t large = 0, small = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char a[1024], b[1024], fa[256], fb[256];
        snprintf(fa, sizeof fa, "<FastTetrahedralCorotationalForceField youngModulus='3000' poissonRatio='0.3' %s "
                 "drawing='1' drawColor1='0 0 1 1'/>", cases[k].fast);
        snprintf(fb, sizeof fb, "<TetrahedronFEMForceField youngModulus='3000' poissonRatio='0.3' method='%s'/>",
                 cases[k].tetra);
        snprintf(a, sizeof a, node, fa);
        snprintf(b, sizeof b, node, fb);
        uint64_t h = hash_after(b, 20, 0);
        ck_assert_msg(hash_after(a, 20, cases[k].warnings) == h, "case %zu", k);
        if (k == 0) large = h;
        if (k == 5) small = h;
    }
    ck_assert(large != small);
    ck_assert_int_eq(load_error("<Node><Node name='b'><EulerImplicitSolver/><MechanicalObject/>"
                                "<RegularGridTopology n='2 2 2' min='0 0 0' max='1 1 1'/>\n"
                                "<FastTetrahedralCorotationalForceField/></Node></Node>"), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "needs tetrahedra"), "%s",
                  pf_last_error());
    char xml[1024];
    snprintf(xml, sizeof xml, node, "<FastTetrahedralCorotationalForceField method='svd2'/>");
    ck_assert_int_eq(load_error(xml), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "unknown method 'svd2'"), "%s", pf_last_error());
}
END_TEST

/* ---- BDFIntegrationScheme, Static ---- */

/* Order 1 is BDF1's step (the same state); SOFA's default order 2 is PF_SOLVER_BDF2 (BDFOdeSolver order='2''s
 * state, another than BDF1's), higher orders are refused. Static is StaticSolver's step. */
START_TEST(test_bdf_scheme)
{
    uint64_t bdf1 = bar_hash("<BDF1 rayleighMass='0.1' rayleighStiffness='0.05'/><NewtonRaphsonSolver/>"
                             "<CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>", 0);
    ck_assert(bar_hash("<BDFIntegrationScheme order='1' rayleighMass='0.1' rayleighStiffness='0.05'/>"
                       "<NewtonRaphsonSolver/><CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>",
                       0) == bdf1);
    char xml[1024];
    uint64_t bdf2 = bar_hash("<BDFIntegrationScheme rayleighMass='0.1' rayleighStiffness='0.05'/>"
                             "<NewtonRaphsonSolver/>"
                             "<CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>", 0);
    ck_assert(bdf2 != bdf1);
    ck_assert(bar_hash("<BDFOdeSolver order='2' rayleighMass='0.1' rayleighStiffness='0.05'/>"
                       "<CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>", 0) == bdf2);
    snprintf(xml, sizeof xml, bar, "<BDFIntegrationScheme/><NewtonRaphsonSolver/>");
    pf_scene *s = load_xml(xml, NULL);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "bar", &o), PF_OK);
    pf_solver_def d;
    ck_assert_int_eq(pf_world_get_solver(pf_scene_world(s), o, &d), PF_OK);
    ck_assert_int_eq(d.kind, PF_SOLVER_BDF2);
    pf_scene_destroy(s);
    /* Static (SOFA's static integration method) is StaticSolver's step */
    ck_assert(bar_hash("<Static/><NewtonRaphsonSolver maxNbIterationsNewton='1'/><SparseLDLSolver/>", 0) ==
              bar_hash("<StaticSolver/><SparseLDLSolver/>", 0));
    snprintf(xml, sizeof xml, bar, "<BDFIntegrationScheme order='3'/>");
    ck_assert_int_eq(load_error(xml), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "order 3 is not supported"), "%s", pf_last_error());
}
END_TEST

/* ---- DampVelocitySolver ---- */

/* No force: each step moves a point by dt v, and v is then scaled by f = exp(-rate dt) = e^-1, or zeroed once
 * under 0.1 m/s (from the fourth step on: 1, f, f^2 = 0.135, then f^3 = 0.050). After 6 steps a point has moved
 * dt (1 + f + f^2) v0 / |v0|; SOFA's positions, step by step. */
START_TEST(test_damp_velocity)
{
    pf_scene *s = load_test_scene("damp_velocity.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    const double f = exp(-1.0), dt = 0.1;
    const double path[6] = {1, 1 + f, 1 + f + f * f, 1 + f + f * f, 1 + f + f * f, 1 + f + f * f};
    for (int k = 0; k < 6; k++) {
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
        uint32_t n;
        const double *x = positions(s, "points", &n);
        ck_assert_uint_eq(n, 2);
        double d = dt * path[k];
        ck_assert_msg(fabs(x[0] - d) <= 1e-13, "step %d: x %.17g, want %.17g", k + 1, x[0], d);
        ck_assert_msg(fabs(x[3] - 1) <= 1e-15 && fabs(x[4] - 0.6 * d) <= 1e-13 && fabs(x[5] - 0.8 * d) <= 1e-13,
                      "step %d: second point (%.17g %.17g %.17g)", k + 1, x[3], x[4], x[5]);
    }
    pf_scene_destroy(s);
    /* SOFA's defaults: rate 0.99, threshold 0; an object below the solver's node is damped too */
    reports r = {0};
    s = load_xml("<Node dt='0.5' gravity='0 0 0'><EulerImplicitSolver/><DampVelocitySolver/><Node name='p'>"
                 "<MechanicalObject position='0 0 0' velocity='2 0 0'/><UniformMass vertexMass='1'/></Node></Node>", &r);
    ck_assert_int_eq(r.warnings, 0);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 2), PF_OK);
    uint32_t n;
    const double *x = positions(s, "p", &n);
    ck_assert_msg(fabs(x[0] - 0.5 * 2 * (1 + exp(-0.99 * 0.5))) <= 1e-13, "x %.17g", x[0]);
    pf_scene_destroy(s);
    ck_assert_int_eq(load_error("<Node><EulerImplicitSolver/>\n<DampVelocitySolver/></Node>"), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "no MechanicalObject"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load_error("<Node><Node name='p'><EulerImplicitSolver/>\n<DampVelocitySolver rate='-1'/>"
                                "<MechanicalObject position='0 0 0'/><UniformMass vertexMass='1'/></Node></Node>"),
                     PF_EINVAL);
}
END_TEST

/* ---- EdgePressureForceField, constant form ---- */

/* The velocities after one symplectic Euler step from rest, v = dt f / m, give each point's force: pressure x rest
 * length over the selected edges, half to each end. */
static void edge_forces(pf_scene *s, double *fz)
{
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "line", &o), PF_OK);
    uint32_t n;
    const double *v = pf_world_velocities(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 4);
    for (uint32_t p = 0; p < 4; p++) {
        ck_assert_double_eq(v[3 * p], 0);
        ck_assert_double_eq(v[3 * p + 1], 0);
        fz[p] = v[3 * p + 2] * 0.25 / 0.01;
    }
}

START_TEST(test_edge_pressure)
{
    double fz[4];
    pf_scene *s = load_test_scene("edge_pressure.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    edge_forces(s, fz);
    const double all[4] = {0.5, 1, 1, 0.5};
    for (int p = 0; p < 4; p++) ck_assert_msg(fabs(fz[p] - all[p]) <= 1e-12, "point %d: %.17g N", p, fz[p]);
    pf_scene_destroy(s);
    static const char line[] = "<Node dt='0.01' gravity='0 0 0'><StringMeshCreator name='l' resolution='4' "
                               "scale3d='1.5 1 1'/><Node name='line'><EulerExplicitSolver/><EdgeSetTopologyContainer "
                               "name='t' position='@../l.position' edges='@../l.edges'/><MechanicalObject/>"
                               "<UniformMass vertexMass='0.25'/>\n<EdgePressureForceField %s/></Node></Node>";
    static const struct {
        const char *attrs;
        double f[4];
    } cases[] = {
        {"edgeIndices='0 2' pressure='0 0 2'", {0.5, 0.5, 0.5, 0.5}},
        {"edges='1 2' pressure='0 0 4'", {0, 1, 1, 0}},
        /* both ends strictly between dmin and dmax along normal, at rest (points at x = 0, 0.5, 1, 1.5) */
        {"normal='1 0 0' dmin='-0.1' dmax='0.6' pressure='0 0 2'", {0.5, 0.5, 0, 0}},
        {"normal='2 0 0' dmin='0.5' dmax='3.1' pressure='0 0 2'", {0, 0.5, 1, 0.5}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, line, cases[k].attrs);
        reports r = {0};
        s = load_xml(xml, &r);
        ck_assert_msg(r.warnings == 0, "%s", r.last);
        edge_forces(s, fz);
        for (int p = 0; p < 4; p++)
            ck_assert_msg(fabs(fz[p] - cases[k].f[p]) <= 1e-12, "case %zu, point %d: %.17g N", k, p, fz[p]);
        pf_scene_destroy(s);
    }
    char xml[1024];
    snprintf(xml, sizeof xml, line, "edges='2 1' pressure='0 0 1'");
    ck_assert_int_eq(load_error(xml), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "edge 2 1 is not an edge"), "%s",
                  pf_last_error());
    snprintf(xml, sizeof xml, line, "edgeIndices='3' pressure='0 0 1'");
    ck_assert_int_eq(load_error(xml), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "edge 3 is out of range (3 edges)"), "%s", pf_last_error());
    snprintf(xml, sizeof xml, line, "edgeIndices='0' binormal='0 0 1' p_intensity='-10'");
    ck_assert_int_eq(load_error(xml), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "p_intensity is a follower load"), "%s", pf_last_error());
    /* no pressure, no intensity: no force, and a warning */
    snprintf(xml, sizeof xml, line, "edgeIndices='0'");
    reports r = {0};
    s = load_xml(xml, &r);
    ck_assert_int_eq(r.warnings, 1);
    edge_forces(s, fz);
    for (int p = 0; p < 4; p++) ck_assert_double_eq(fz[p], 0);
    pf_scene_destroy(s);
}
END_TEST

/* ---- StiffSpringForceField without springs ---- */

/* SOFA's field is then empty: the same state as without it, and a warning. */
START_TEST(test_empty_stiff_springs)
{
    uint64_t without = bar_hash("<EulerImplicitSolver/><CGLinearSolver/>", 0);
    ck_assert(bar_hash("<EulerImplicitSolver/><CGLinearSolver/><StiffSpringForceField name='FF'/>", 1) == without);
    ck_assert(bar_hash("<EulerImplicitSolver/><CGLinearSolver/><StiffSpringForceField stiffness='10'/>", 1) ==
              without);
    char xml[1024];
    snprintf(xml, sizeof xml, bar, "<EulerImplicitSolver/><StiffSpringForceField indices1='0 1'/>");
    ck_assert_int_eq(load_error(xml), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "of one length (got 2 and 0)"), "%s", pf_last_error());
}
END_TEST

/* ---- a topology container's own mesh file, MeshTopology's aliases ---- */

/* MeshTopology fileTopology (or filename) reads the file as the loader of its format and a MeshTopology linked to
 * it do: the same points and elements, the same state; `hexas` and `tetras` are SOFA's aliases of hexahedra and
 * tetrahedra. */
START_TEST(test_topology_file)
{
    static const struct {
        const char *file, *loader;
    } files[] = {{"cube.msh", "MeshGmshLoader"}, {"cube.vtk", "MeshVTKLoader"}, {"cube.vtu", "MeshVTKLoader"},
                 {"cube.stl", "MeshSTLLoader"},  {"cube.obj", "MeshObjLoader"}};
    static const char node[] = "<Node dt='0.01'><Node name='c'><EulerImplicitSolver/><CGLinearSolver/>%s"
                               "<MechanicalObject/><UniformMass totalMass='1'/><MeshSpringForceField stiffness='50'/>"
                               "<FixedConstraint indices='0'/></Node></Node>";
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char topo[512], a[1024], b[1024], c[1024];
        snprintf(topo, sizeof topo, "<MeshTopology fileTopology='%s/%s'/>", TEST_MESHES_DIR, files[k].file);
        snprintf(a, sizeof a, node, topo);
        snprintf(topo, sizeof topo, "<MeshTopology filename='%s/%s'/>", TEST_MESHES_DIR, files[k].file);
        snprintf(c, sizeof c, node, topo);
        snprintf(topo, sizeof topo, "<%s name='l' filename='%s/%s'/><MeshTopology src='@l'/>", files[k].loader,
                 TEST_MESHES_DIR, files[k].file);
        snprintf(b, sizeof b, node, topo);
        uint64_t h = hash_after(b, 10, 0);
        ck_assert_msg(hash_after(a, 10, 0) == h, "%s", files[k].file);
        ck_assert_msg(hash_after(c, 10, 0) == h, "%s", files[k].file);
    }
    /* SOFA's included files name no file: fileTopology="" reads nothing */
    ck_assert(hash_after("<Node><Node name='t'><EulerImplicitSolver/><TriangleSetTopologyContainer fileTopology='' "
                         "position='0 0 0 1 0 0 0 1 0' triangles='0 1 2'/><MechanicalObject/>"
                         "<UniformMass totalMass='1'/></Node></Node>", 5, 0) ==
              hash_after("<Node><Node name='t'><EulerImplicitSolver/><TriangleSetTopologyContainer "
                         "position='0 0 0 1 0 0 0 1 0' triangles='0 1 2'/><MechanicalObject/>"
                         "<UniformMass totalMass='1'/></Node></Node>", 5, 0));
    char xml[1024], topo[512];
    snprintf(topo, sizeof topo, "\n<MeshTopology fileTopology='%s/cube.msh' position='0 0 0'/>", TEST_MESHES_DIR);
    snprintf(xml, sizeof xml, node, topo);
    ck_assert_int_eq(load_error(xml), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: MeshTopology: give a mesh file or 'position', not both"), "%s",
                  pf_last_error());
    snprintf(xml, sizeof xml, node, "\n<MeshTopology fileTopology='mesh/a.off'/>");
    ck_assert_int_eq(load_error(xml), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: MeshTopology: mesh file 'mesh/a.off'"), "%s", pf_last_error());
    snprintf(xml, sizeof xml, node, "\n<MeshTopology fileTopology='no_such_file.msh'/>");
    ck_assert_int_lt(load_error(xml), 0);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: MeshTopology:") && strstr(pf_last_error(), "no_such_file.msh"),
                  "%s", pf_last_error());

    static const char cube[] = "<Node dt='0.01'><Node name='c'><EulerImplicitSolver/><CGLinearSolver/>"
                               "<MechanicalObject position='0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1'/>"
                               "<MeshTopology %s='0 1 2 3 4 5 6 7'/><UniformMass totalMass='1'/>"
                               "<HexahedronFEMForceField youngModulus='100' poissonRatio='0.3'/>"
                               "<FixedConstraint indices='0 1 2 3'/></Node></Node>";
    char a[1024], b[1024];
    snprintf(a, sizeof a, cube, "hexas");
    snprintf(b, sizeof b, cube, "hexahedra");
    ck_assert(hash_after(a, 10, 0) == hash_after(b, 10, 0));
    static const char tet[] = "<Node dt='0.01'><Node name='c'><EulerImplicitSolver/><CGLinearSolver/>"
                              "<MechanicalObject position='0 0 0 1 0 0 0 1 0 0 0 1'/>"
                              "<MeshTopology %s='0 1 2 3'/><UniformMass totalMass='1'/>"
                              "<TetrahedronFEMForceField youngModulus='100' poissonRatio='0.3'/>"
                              "<FixedConstraint indices='0 1 2'/></Node></Node>";
    snprintf(a, sizeof a, tet, "tetras");
    snprintf(b, sizeof b, tet, "tetrahedra");
    ck_assert(hash_after(a, 10, 0) == hash_after(b, 10, 0));
}
END_TEST

/* ---- SOFA's older short names of the collision models ---- */

START_TEST(test_collision_model_short_names)
{
    static const char scene[] = "<Node dt='0.01'><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>"
                                "<MinProximityIntersection alarmDistance='0.2' contactDistance='0.1'/>"
                                "<CollisionResponse stiffness='500'/><Node name='box'><EulerImplicitSolver/>"
                                "<CGLinearSolver/><RegularGridTopology n='2 2 2' min='0 0 0.3' max='1 1 1.3'/>"
                                "<MechanicalObject/><UniformMass totalMass='1'/>"
                                "<RegularGridSpringForceField stiffness='100'/>%s</Node>"
                                "<Node name='floor'><MechanicalObject position='-2 -2 0 2 -2 0 2 2 0 -2 2 0'/>"
                                "<MeshTopology triangles='0 1 2 0 2 3'/><%s/></Node></Node>";
    static const char *const names[][2] = {{"<Triangle/>", "<TriangleCollisionModel/>"},
                                           {"<Triangle/><Line/>", "<TriangleCollisionModel/><LineCollisionModel/>"},
                                           {"<Point/>", "<PointCollisionModel/>"},
                                           {"<Sphere radius='0.1'/>", "<SphereCollisionModel radius='0.1'/>"}};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        char a[2048], b[2048];
        snprintf(a, sizeof a, scene, names[k][0], "Triangle");
        snprintf(b, sizeof b, scene, names[k][1], "TriangleCollisionModel");
        reports r = {0};
        pf_scene *s = load_xml(a, &r), *t = load_xml(b, &r);
        ck_assert_uint_eq(pf_scene_collision_models(s, NULL), pf_scene_collision_models(t, NULL));
        ck_assert_uint_ge(pf_scene_collision_models(s, NULL), 2);
        pf_scene_destroy(s);
        pf_scene_destroy(t);
        ck_assert_msg(hash_after(a, 60, 1) == hash_after(b, 60, 1), "%s", names[k][0]); /* the floor has no solver */
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_sofa_mapped");
    TCase *t = tcase_create("mapped");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_cg_implicit_spring_step);
    tcase_add_test(t, test_cg_implicit_is_euler_and_cg);
    tcase_add_test(t, test_uniform_mass_default);
    tcase_add_test(t, test_string_mesh_creator);
    tcase_add_test(t, test_hexa_fem_and_mass_masses);
    tcase_add_test(t, test_hexa_fem_and_mass_is_fem_and_mass);
    tcase_add_test(t, test_fast_tetra_static_closed_form);
    tcase_add_test(t, test_fast_tetra_methods);
    tcase_add_test(t, test_bdf_scheme);
    tcase_add_test(t, test_damp_velocity);
    tcase_add_test(t, test_edge_pressure);
    tcase_add_test(t, test_empty_stiff_springs);
    tcase_add_test(t, test_topology_file);
    tcase_add_test(t, test_collision_model_short_names);
    suite_add_tcase(s, t);
    return s;
}
