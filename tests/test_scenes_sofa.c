/* SOFA's rules for a scene file: an unknown attribute is a warning with file:line (an error under strict); both
 * spellings of the penalty response; relative files found through the data path (the load def's and
 * PHYSFLOW_DATA_PATH), with the places looked in when not found; <include> in place, its errors naming the
 * included file, cycles refused; a misspelt component with the nearest name; draw-only components skipped and
 * the constraint-based pipeline refused; masses measured on the node's mesh (DiagonalMass, MeshMatrixMass,
 * FEMMass), read back through pf_world_get_point_masses. */
#include "check_main.h"

#include "physflow/scene.h"
#include "scene_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct reports {
    int notes, warnings;
    char last[512], last_note[512]; /* the last report, the last note */
} reports;

static void collect(pf_scene_severity sev, const char *msg, void *ctx)
{
    reports *r = ctx;
    if (sev == PF_SCENE_NOTE) {
        r->notes++;
        snprintf(r->last_note, sizeof r->last_note, "%s", msg);
    } else
        r->warnings++;
    snprintf(r->last, sizeof r->last, "%s", msg);
}

static pf_scene_load_def quiet_def(reports *r)
{
    pf_scene_load_def d = quiet_load_def();
    d.report = collect;
    d.report_ctx = r;
    return d;
}

static int load(const pf_scene_load_def *d, const char *xml, pf_scene **s)
{
    return pf_scene_load_memory(d, "t.xml", xml, strlen(xml), NULL, s);
}

/* Loads xml (quiet reports) and asserts it loads without a warning. */
static pf_scene *load_clean(const char *xml)
{
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(r.warnings == 0, "%s", r.last);
    return s;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static const char tetra_obj[] = "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

/* A node no solver reaches stays where it is, as SOFA integrates only the states below an ODE solver: a grid
 * without one keeps every point's position bit for bit over 30 steps under gravity while the same grid under an
 * EulerImplicitSolver falls, and the loader warns once, naming the node. The still grid also anchors springs to
 * a simulated point as a fixed one would: the point's end state equals that of a fixed anchor object. */
START_TEST(test_node_without_solver_stays)
{
    const char *xml = "<Node dt='0.01' gravity='0 0 -9.81'>\n<Node name='floor'><RegularGridTopology n='2 2 2' "
                      "min='0 0 0' max='1 1 1'/><MechanicalObject/><UniformMass totalMass='1'/></Node>\n"
                      "<Node name='box'><EulerImplicitSolver/><CGLinearSolver/><RegularGridTopology n='2 2 2' "
                      "min='0 0 2' max='1 1 3'/><MechanicalObject/><UniformMass totalMass='1'/></Node></Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "t.xml:2") && strstr(r.last, "no solver in node 'floor'") &&
                      strstr(r.last, "stay where they are"), "%s", r.last);
    pf_object_id floor, box;
    ck_assert_int_eq(pf_scene_find_object(s, "floor", &floor), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(s, "box", &box), PF_OK);
    uint32_t n;
    double x0[24];
    memcpy(x0, pf_world_positions(pf_scene_world(s), floor, &n), sizeof x0);
    ck_assert_uint_eq(n, 8);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
    const double *x = pf_world_positions(pf_scene_world(s), floor, &n);
    for (int k = 0; k < 24; k++) ck_assert_double_eq(x[k], x0[k]);
    ck_assert_double_lt(pf_world_positions(pf_scene_world(s), box, &n)[2], 2 - 0.01);
    pf_scene_destroy(s);

    /* a spring from the still node's point to a simulated point, against the same spring to a fixed point */
    static const char *anchor[] = {"", "<FixedConstraint indices='0'/><EulerImplicitSolver/><CGLinearSolver/>"};
    double zb[2];
    for (int k = 0; k < 2; k++) {
        char spring[1024];
        snprintf(spring, sizeof spring, "<Node dt='0.01' gravity='0 0 -9.81'><Node name='a'>%s<MechanicalObject "
                 "position='0 0 1'/><UniformMass totalMass='1'/></Node><Node name='b'><EulerImplicitSolver/>"
                 "<CGLinearSolver iterations='50' tolerance='1e-12' threshold='1e-14'/><MechanicalObject "
                 "position='0 0 0'/><UniformMass totalMass='1'/></Node><StiffSpringForceField object1='@a' "
                 "object2='@b' spring='0 0 100 1 1'/></Node>", anchor[k]);
        r = (reports){0};
        ck_assert_msg(load(&d, spring, &s) == PF_OK, "%s", pf_last_error());
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 40), PF_OK);
        pf_object_id b;
        ck_assert_int_eq(pf_scene_find_object(s, "b", &b), PF_OK);
        const double *xb = pf_world_positions(pf_scene_world(s), b, &n);
        ck_assert_double_lt(xb[2], -0.01); /* it hangs below the anchor */
        zb[k] = xb[2];
        pf_scene_destroy(s);
    }
    ck_assert_msg(zb[0] == zb[1], "the still anchor and the fixed one give different motions: %.17g, %.17g", zb[0],
                  zb[1]);
}
END_TEST

START_TEST(test_unknown_attribute_warns)
{
    const char *xml = "<Node dt='0.01' showBoundingTree='0'>\n<DefaultAnimationLoop computeBoundingBox='0'/>\n"
                      "<Node name='p'>\n<MechanicalObject position='0 0 0' showIndices='1'/></Node></Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.warnings, 4); /* three attributes, and no solver above the object */
    pf_scene_destroy(s);
    /* each warning names file:line and the attribute */
    const char *one = "<Node>\n<EulerImplicitSolver colour='red'/>\n<Node><MechanicalObject position='0 0 0'/></Node>"
                      "</Node>";
    r = (reports){0};
    ck_assert_msg(load(&d, one, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "t.xml:2: warning: EulerImplicitSolver: unknown attribute 'colour'"), "%s", r.last);
    pf_scene_destroy(s);
    /* strict: an error naming the same place, nothing loaded */
    d.strict = 1;
    s = (pf_scene *)1;
    ck_assert_int_eq(load(&d, one, &s), PF_EPARSE);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: EulerImplicitSolver: unknown attribute 'colour'"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load(&d, xml, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:1: Node: unknown attribute 'showBoundingTree'"), "%s",
                  pf_last_error());
    d.strict = 2;
    ck_assert_int_eq(load(&d, xml, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.strict"), "%s", pf_last_error());
}
END_TEST

START_TEST(test_response_spellings)
{
    static const char *const spellings[] = {"PenaltyContactForceField", "PenalityContactForceField", "default"};
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    for (int k = 0; k < 3; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>"
                 "<MinProximityIntersection/>\n<DefaultContactManager response='%s' stiffness='50'/></Node>",
                 spellings[k]);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s: %s", spellings[k], pf_last_error());
        ck_assert_int_eq(pf_scene_collision_settings(s)->response, PF_RESPONSE_PENALTY);
        ck_assert_double_eq(pf_scene_collision_settings(s)->stiffness, 50);
        pf_scene_destroy(s);
    }
    const char *other = "<Node><CollisionPipeline/>\n<CollisionResponse response='FrictionContactConstraint'/></Node>";
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, other, &s), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "PenalityContactForceField"), "%s",
                  pf_last_error());
}
END_TEST

/* SOFA's intersection methods: NewProximityIntersection and LocalMinDistance read the same two distances as
 * MinProximityIntersection; DiscreteIntersection has none (alarm and contact 0, with a warning that says so). */
START_TEST(test_intersection_methods)
{
    static const char *const names[] = {"MinProximityIntersection", "NewProximityIntersection", "LocalMinDistance",
                                        "DiscreteIntersection"};
    for (int k = 0; k < 4; k++) {
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>\n"
                 "<%s%s/>\n<CollisionResponse stiffness='50'/></Node>", names[k],
                 k < 3 ? " alarmDistance='0.3' contactDistance='0.1'" : "");
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s: %s", names[k], pf_last_error());
        const pf_scene_collision *c = pf_scene_collision_settings(s);
        ck_assert_double_eq(c->alarm_distance, k < 3 ? 0.3 : 0);
        ck_assert_double_eq(c->contact_distance, k < 3 ? 0.1 : 0);
        ck_assert_int_eq(r.warnings, k < 3 ? 0 : 1);
        if (k == 3) ck_assert_msg(strstr(r.last, "t.xml:2:") && strstr(r.last, "DiscreteIntersection"), "%s", r.last);
        pf_scene_destroy(s);
    }
}
END_TEST

/* PlaneForceField: two points of 1 kg fall onto the plane z = 0 (stiffness 1000, damping 20) and rest at the
 * penalty equilibrium z = -m g / k; a third, 10 m up, falls freely for its first second (the implicit-Euler
 * recurrence); a zero normal is refused. */
START_TEST(test_plane_force_field)
{
    const char *xml = "<Node dt='0.01' gravity='0 0 -9.81'>\n<Node name='p'><EulerImplicitSolver/>"
                      "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>\n"
                      "<MechanicalObject position='0 0 0.05  1 0 0.02  0 5 10'/><UniformMass vertexMass='1'/>\n"
                      "<PlaneForceField normal='0 0 2' d='0' stiffness='1000' damping='20' showPlane='1'/>"
                      "</Node></Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_world *w = pf_scene_world(s);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "p", &o), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
    const double *x = pf_world_positions(w, o, NULL);
    double v = 0, z = 10; /* the third point, still above the plane after 1 s: implicit Euler free fall */
    for (int k = 0; k < 100; k++) v -= 0.01 * 9.81, z += 0.01 * v;
    ck_assert_msg(z > 0 && fabs(x[8] - z) < 1e-9 * (10 - z), "free point at %g, free fall %g", x[8], z);
    ck_assert_int_eq(pf_world_step(w, 300), PF_OK);
    x = pf_world_positions(w, o, NULL);
    ck_assert_msg(fabs(x[2] + 9.81 / 1000) < 1e-6 && fabs(x[5] + 9.81 / 1000) < 1e-6, "rest at %g, %g", x[2], x[5]);
    pf_scene_destroy(s);
    const char *zero = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0'/>\n"
                       "<PlaneForceField normal='0 0 0'/></Node></Node>";
    ck_assert_int_eq(load(&d, zero, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "normal"), "%s", pf_last_error());
}
END_TEST

/* SphereForceField: a point of 1 kg on top of the sphere (centre 0 0 0, radius 1, stiffness 1000, damping 20) rests
 * at the penalty equilibrium z = r - m g / k; one 3 m off its side falls freely for its first second (the
 * implicit-Euler recurrence: the field leaves outside points alone); a radius <= 0 is refused. */
START_TEST(test_sphere_force_field)
{
    const char *xml = "<Node dt='0.01' gravity='0 0 -9.81'>\n<Node name='p'><EulerImplicitSolver/>"
                      "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>\n"
                      "<MechanicalObject position='0 0 1.02  3 0 10'/><UniformMass vertexMass='1'/>\n"
                      "<SphereForceField center='0 0 0' radius='1' stiffness='1000' damping='20'/>"
                      "</Node></Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(r.warnings == 0, "%s", r.last);
    pf_world *w = pf_scene_world(s);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "p", &o), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
    const double *x = pf_world_positions(w, o, NULL);
    double v = 0, z = 10;
    for (int k = 0; k < 100; k++) v -= 0.01 * 9.81, z += 0.01 * v;
    ck_assert_msg(fabs(x[5] - z) < 1e-9 * (10 - z), "free point at %g, free fall %g", x[5], z);
    ck_assert_int_eq(pf_world_step(w, 400), PF_OK);
    x = pf_world_positions(w, o, NULL);
    ck_assert_msg(fabs(x[2] - (1 - 9.81 / 1000)) < 1e-6 && fabs(x[0]) < 1e-12 && fabs(x[1]) < 1e-12,
                  "rest at %g %g %g", x[0], x[1], x[2]);
    pf_scene_destroy(s);
    const char *bad = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0'/>\n"
                      "<SphereForceField radius='0'/></Node></Node>";
    ck_assert_int_eq(load(&d, bad, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "radius must be > 0"), "%s",
                  pf_last_error());
}
END_TEST

/* LinearMovementProjectiveConstraint (SOFA's findKeyTimes and interpolatePosition): at each step's start t the
 * listed points sit at x0 + m(t), m linear between the key displacements, and are held through the step; outside
 * [first key, last key) they are free. Oracle: the closed form of m at the last step's start; the free point falls
 * under gravity once the movement ends, and another point never moves; absolute movements put the points at m. */
static const double *moved_after_reported(pf_scene **s, const char *attrs, int steps, reports *r)
{
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node dt='0.1' gravity='0 0 -1'>\n<Node name='p'><EulerImplicitSolver/>"
             "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>\n"
             "<MechanicalObject position='0 0 0  5 5 5  7 0 0'/><UniformMass vertexMass='1'/>\n"
             "<FixedProjectiveConstraint indices='1'/>\n<LinearMovementProjectiveConstraint %s/></Node></Node>",
             attrs);
    if (r) {
        pf_scene_load_def d = quiet_def(r);
        ck_assert_msg(load(&d, xml, s) == PF_OK, "%s", pf_last_error());
    } else
        *s = load_clean(xml);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(*s, "p", &o), PF_OK);
    ck_assert_int_eq(pf_world_step(pf_scene_world(*s), (uint32_t)steps), PF_OK);
    return pf_world_positions(pf_scene_world(*s), o, NULL);
}

/* The same, asserting the scene loads without a warning. */
static const double *moved_after(pf_scene **s, const char *attrs, int steps)
{
    return moved_after_reported(s, attrs, steps, NULL);
}

/* Loads xml (quiet reports, `warnings` expected), steps it n times and returns the state hash. */
static uint64_t hash_after(const char *xml, int warnings, int n)
{
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(r.warnings == warnings, "%d warnings, want %d; last: %s", r.warnings, warnings, r.last);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), (uint32_t)n), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

/* The projective constraints' names before SOFA v23.06 are those constraints (the same state bit for bit), and a
 * MeshSpringForceField over a MeshTopology with no element makes no spring, as in SOFA, with a warning: the chain
 * falls as one with no force field at all. */
START_TEST(test_older_names_and_empty_spring_mesh)
{
    static const char *const fmt = "<Node dt='0.01' gravity='0 0 -9.81'><Node name='p'><EulerImplicitSolver/>"
                                   "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>"
                                   "<MechanicalObject position='0 0 0  1 0 0  2 0 0'/><UniformMass vertexMass='1'/>"
                                   "%s</Node></Node>";
    static const char *const pairs[][2] = {
        {"<FixedPlaneProjectiveConstraint direction='0 0 1' dmin='-0.5' dmax='0.5'/>",
         "<FixedPlaneConstraint direction='0 0 1' dmin='-0.5' dmax='0.5'/>"},
        {"<PartialFixedProjectiveConstraint indices='1' fixedDirections='0 0 1'/>",
         "<PartialFixedConstraint indices='1' fixedDirections='0 0 1'/>"},
        {"<MeshTopology edges='0 1  1 2'/><MeshSpringForceField stiffness='0'/>",
         "<MeshTopology/><MeshSpringForceField stiffness='100'/>"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, fmt, pairs[k][0]);
        snprintf(b, sizeof b, fmt, pairs[k][1]);
        uint64_t ha = hash_after(a, 0, 20), hb = hash_after(b, k == 2, 20);
        ck_assert_msg(ha == hb, "%s: %016llx, %s: %016llx", pairs[k][0], (unsigned long long)ha, pairs[k][1],
                      (unsigned long long)hb);
    }
}
END_TEST

/* Fewer velocities than points: SOFA's MechanicalObject::init gives the rest the last one (its Pendulum tutorial
 * writes velocity="0 0 0" for three points). Oracle: the velocities as loaded, before any step. */
START_TEST(test_velocities_padded_with_the_last)
{
    static const struct {
        const char *velocity;
        double want[9];
    } cases[] = {{"1 0 0", {1, 0, 0, 1, 0, 0, 1, 0, 0}}, {"1 0 0  0 2 0", {1, 0, 0, 0, 2, 0, 0, 2, 0}}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0  1 0 "
                 "0  2 0 0' velocity='%s'/><UniformMass vertexMass='1'/></Node></Node>", cases[k].velocity);
        pf_scene *s = load_clean(xml);
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "p", &o), PF_OK);
        uint32_t n = 0;
        const double *v = pf_world_velocities(pf_scene_world(s), o, &n);
        ck_assert_uint_eq(n, 3);
        for (int i = 0; i < 9; i++)
            ck_assert_msg(v[i] == cases[k].want[i], "velocity='%s': v[%d] = %g, want %g", cases[k].velocity, i, v[i],
                          cases[k].want[i]);
        pf_scene_destroy(s);
    }
}
END_TEST

/* SOFA's reader takes a raw '<' or '&' in an attribute value (its examples write template="Data<int>" and
 * responseParams="mu=0.5&epsilon=10"); PhysFlow reads them as the characters, with one warning at the first, and
 * leaves references (&amp; &#65;), comments and valid files alone; lines keep their numbers. */
START_TEST(test_raw_lt_and_amp_in_attributes)
{
    const char *xml = "<Node dt='0.01'>\n<!-- a comment with 'quotes\" and < & -->\n"
                      "<CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/><CollisionResponse "
                      "response='PenalityContactForceField' responseParams='mu=0.25&mu=0.25'/>\n"
                      "<MinProximityIntersection alarmDistance='0.1' contactDistance='0.05'/>\n"
                      "<Node name='p'><EulerImplicitSolver/><MechanicalObject name='dofs<1>&amp;&#65;' "
                      "position='0 0 0'/><UniformMass vertexMass='1'/></Node>\n</Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "t.xml:3:") && strstr(r.last, "2 raw '<' or '&'"), "%s", r.last);
    ck_assert(pf_scene_collision_settings(s)->friction == 0.25);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "p", &o), PF_OK);
    pf_scene_destroy(s);
    r = (reports){0};
    ck_assert_msg(load(&d, "<Node>\n<Node name='a&amp;b' tag='&#x41;'/>\n</Node>", &s) == PF_OK, "%s",
                  pf_last_error());
    ck_assert_int_eq(r.warnings, 1); /* Node's unknown attribute 'tag' only */
    ck_assert_msg(!strstr(r.last, "raw"), "%s", r.last);
    pf_scene_destroy(s);
    ck_assert_int_eq(load(&d, "<Node>\n<Node name='a<b'/>\n\n<NoSuchThing/>\n</Node>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:4:") && strstr(pf_last_error(), "NoSuchThing"), "%s",
                  pf_last_error());
}
END_TEST

START_TEST(test_linear_movement)
{
    const char *keys = "indices='0 2' keyTimes='0 1 2' movements='0 0 0  1 0 0  1 2 0'";
    static const struct {
        int steps;
        double m[3]; /* m at the last step's start, (steps - 1) * dt */
    } at[] = {{6, {0.5, 0, 0}}, {16, {1, 1, 0}}, {20, {1, 1.8, 0}}};
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
        pf_scene *s = NULL;
        const double *x = moved_after(&s, keys, at[k].steps);
        for (int a = 0; a < 3; a++) {
            ck_assert_msg(fabs(x[a] - at[k].m[a]) < 1e-12, "%d steps: point 0 [%d] at %g, want %g", at[k].steps, a,
                          x[a], at[k].m[a]);
            ck_assert_msg(fabs(x[6 + a] - (a == 0 ? 7 : 0) - at[k].m[a]) < 1e-12, "%d steps: point 2 [%d] at %g",
                          at[k].steps, a, x[6 + a]);
            ck_assert_msg(x[3 + a] == 5, "the fixed point moved");
        }
        pf_scene_destroy(s);
    }
    pf_scene *s = NULL; /* past the last key: free, falling from where the movement left it */
    const double *x = moved_after(&s, keys, 30);
    ck_assert_msg(fabs(x[0] - 1) < 1e-12 && fabs(x[1] - 1.8) < 1e-9 && x[2] < -0.01, "released at %g %g %g", x[0],
                  x[1], x[2]);
    pf_scene_destroy(s);
    x = moved_after(&s, "indices='2' keyTimes='0 1' movements='1 1 1  3 1 1' relativeMovements='false'", 6);
    ck_assert_msg(fabs(x[6] - 2) < 1e-12 && fabs(x[7] - 1) < 1e-12 && fabs(x[8] - 1) < 1e-12, "absolute: %g %g %g",
                  x[6], x[7], x[8]);
    pf_scene_destroy(s);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    const char *bad = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0'/>\n"
                      "<LinearMovementProjectiveConstraint keyTimes='0 1' movements='0 0 0'/></Node></Node>";
    ck_assert_int_eq(load(&d, bad, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "need 6 numbers"), "%s",
                  pf_last_error());
    /* more displacements than keys (rows of 6, as a Rigid3 scene writes them, in a Vec3 one): SOFA reads one per
     * key and never the rest, so the points move as with the first three alone, and a warning says so */
    r = (reports){0};
    double want[9];
    x = moved_after(&s, keys, 16);
    memcpy(want, x, sizeof want);
    pf_scene_destroy(s);
    x = moved_after_reported(&s, "indices='0 2' keyTimes='0 1 2' movements='0 0 0  1 0 0  1 2 0  9 9 9  4 4 4'", 16,
                             &r);
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "t.xml:5:") && strstr(r.last, "ignored"), "%s", r.last);
    for (int i = 0; i < 9; i++) ck_assert_msg(x[i] == want[i], "coordinate %d: %.17g, want %.17g", i, x[i], want[i]);
    pf_scene_destroy(s);
}
END_TEST

/* AffineMovementProjectiveConstraint (SOFA's projectPosition): the points held, moving linearly in time from x0 to
 * xf = R x0 + translation over (begin, end], then at xf. Oracle: the closed form at the last step's start; the
 * rotation in SOFA's matrix syntax with brackets. */
START_TEST(test_affine_movement)
{
    const char *affine = "AffineMovementProjectiveConstraint indices='0 2' rotation='[0 -1 0,1 0 0,0 0 1]' "
                         "translation='1 0 0' beginConstraintTime='0' endConstraintTime='1'";
    char xml[1024];
    static const struct {
        int steps;
        double s; /* the share of the motion done at the last step's start */
    } at[] = {{1, 0}, {6, 0.5}, {20, 1}};
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
        snprintf(xml, sizeof xml, "<Node dt='0.1' gravity='0 0 -1'>\n<Node name='p'><EulerImplicitSolver/>"
                 "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>\n"
                 "<MechanicalObject position='1 0 0  5 5 5  7 0 0'/><UniformMass vertexMass='1'/>\n<%s/></Node></Node>",
                 affine);
        pf_scene *s = load_clean(xml);
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "p", &o), PF_OK);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), (uint32_t)at[k].steps), PF_OK);
        const double *x = pf_world_positions(pf_scene_world(s), o, NULL);
        const double x0[2][3] = {{1, 0, 0}, {7, 0, 0}}, xf[2][3] = {{1, 1, 0}, {1, 7, 0}};
        for (int p = 0; p < 2; p++)
            for (int a = 0; a < 3; a++) {
                double want = x0[p][a] + (xf[p][a] - x0[p][a]) * at[k].s;
                ck_assert_msg(fabs(x[6 * p + a] - want) < 1e-12, "%d steps: point %d [%d] at %g, want %g",
                              at[k].steps, 2 * p, a, x[6 * p + a], want);
            }
        ck_assert_msg(x[5] < 5, "the free point does not fall");
        pf_scene_destroy(s);
    }
}
END_TEST

/* SOFA's integration schemes under their v26.06 names and BDF1 (one Newton iteration, NewtonRaphsonSolver's
 * default), BDF1OdeSolver and BDFOdeSolver of order 1 (its default): the same state, bit for bit, after 30 steps of
 * a spring bar as the solver they name. */
static uint64_t bar_hash(const char *integrator)
{
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node dt='0.002' gravity='0 0 -9.81'><Node name='bar'>%s"
             "<CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>"
             "<RegularGridTopology n='4 2 2' min='0 0 0' max='0.3 0.1 0.1'/><MechanicalObject/>"
             "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='500'/>"
             "<FixedConstraint indices='0 4 8 12'/></Node></Node>", integrator);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s: %s", integrator, pf_last_error());
    ck_assert_msg(r.warnings == 0, "%s: %s", integrator, r.last);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_integration_scheme_names)
{
    uint64_t implicit = bar_hash("<EulerImplicitSolver rayleighMass='0.1' rayleighStiffness='0.05'/>");
    ck_assert(implicit == bar_hash("<BDF1 rayleighMass='0.1' rayleighStiffness='0.05'/><NewtonRaphsonSolver/>"));
    ck_assert(implicit ==
              bar_hash("<BDF1OdeSolver rayleighMass='0.1' rayleighStiffness='0.05'/><NewtonRaphsonSolver/>"));
    ck_assert(implicit == bar_hash("<BDFOdeSolver order='1' rayleighMass='0.1' rayleighStiffness='0.05'/>"
                                   "<NewtonRaphsonSolver/>"));
    ck_assert(implicit ==
              bar_hash("<BDFOdeSolver rayleighMass='0.1' rayleighStiffness='0.05'/><NewtonRaphsonSolver/>"));
    ck_assert(implicit == bar_hash("<EulerImplicitIntegrationScheme rayleighMass='0.1' rayleighStiffness='0.05'/>"));
    ck_assert(implicit != bar_hash("<EulerImplicitSolver/>"));
    uint64_t explicit_ = bar_hash("<EulerExplicitSolver/>");
    ck_assert(explicit_ == bar_hash("<EulerExplicitIntegrationScheme/>"));
    ck_assert(explicit_ != implicit);
    uint64_t rk4 = bar_hash("<RungeKutta4Solver/>");
    ck_assert(rk4 == bar_hash("<RungeKutta4IntegrationScheme/>"));
    ck_assert(rk4 != explicit_);
}
END_TEST

/* SOFA's dynamic topology containers read as the mesh they start from: a quad and a triangle set give the same
 * surface as MeshTopology does (two triangles per quad); their modifiers and geometry algorithms are accepted
 * without a word, drawing attributes and all. */
START_TEST(test_topology_containers)
{
    static const char *const bodies[] = {
        "<MeshTopology position='0 0 0 1 0 0 1 1 0 0 1 0' quads='0 1 2 3'/>",
        "<QuadSetTopologyContainer position='0 0 0 1 0 0 1 1 0 0 1 0' quads='0 1 2 3'/>"
        "<QuadSetTopologyModifier/><QuadSetGeometryAlgorithms template='Vec3d' drawQuads='1'/>",
        "<TriangleSetTopologyContainer position='0 0 0 1 0 0 1 1 0 0 1 0' triangles='0 1 2 0 2 3'/>"
        "<TriangleSetTopologyModifier/><TriangleSetGeometryAlgorithms template='Vec3d' drawTriangles='1'/>"};
    uint32_t want[6] = {0};
    for (int k = 0; k < 3; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node><Node name='sheet'><EulerImplicitSolver/>%s<MechanicalObject/>"
                 "<MeshSpringForceField stiffness='10'/><TriangleCollisionModel/></Node></Node>", bodies[k]);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%d: %s", k, pf_last_error());
        ck_assert_msg(r.warnings == 0, "%d: %s", k, r.last);
        const pf_scene_collision_model *m;
        ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
        uint32_t nt;
        const uint32_t *tri = pf_world_surface_triangles(pf_scene_world(s), m[0].surface, &nt);
        ck_assert_uint_eq(nt, 2);
        if (k == 0) memcpy(want, tri, sizeof want);
        ck_assert_mem_eq(tri, want, sizeof want);
        pf_scene_destroy(s);
    }
    /* a tetrahedron set reads its tetrahedra (kept for the volume FEM); its companions are quiet too */
    const char *tet = "<Node><Node name='v'><EulerImplicitSolver/>"
                      "<TetrahedronSetTopologyContainer position='0 0 0 1 0 0 0 1 0 0 0 1' tetrahedra='0 1 2 3'/>"
                      "<TetrahedronSetTopologyModifier/><TetrahedronSetGeometryAlgorithms template='Vec3d'/>"
                      "<MechanicalObject/></Node></Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, tet, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(r.warnings == 0, "%s", r.last);
    pf_scene_destroy(s);
    const char *bad = "<Node><Node name='v'><EulerImplicitSolver/>\n"
                      "<TetrahedronSetTopologyContainer position='0 0 0 1 0 0 0 1 0 0 0 1' tetrahedra='0 1 2 4'/>"
                      "<MechanicalObject/></Node></Node>";
    ck_assert_int_lt(load(&d, bad, &s), 0);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:"), "%s", pf_last_error());
}
END_TEST

/* PCGLinearSolver solves the same system as CGLinearSolver: the same state, bit for bit, with a warning that the
 * preconditioner is not applied (one for the solver, one for the JacobiPreconditioner or WarpPreconditioner). */
START_TEST(test_pcg_is_cg)
{
    static const char *const solvers[] = {
        "<CGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12'/>",
        "<PCGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12' preconditioners='@jac' "
        "use_precond='1'/><JacobiPreconditioner name='jac' template='CompressedRowSparseMatrixd'/>",
        "<PCGLinearSolver iterations='40' tolerance='1e-10' threshold='1e-12' preconditioner='@warp'/>"
        "<RotationMatrixSystem name='rot'/><WarpPreconditioner name='warp' linearSystem='@rot'/>"};
    uint64_t hash[3];
    for (int k = 0; k < 3; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node dt='0.01'><Node name='bar'><EulerImplicitSolver/>%s"
                 "<RegularGridTopology n='4 2 2' min='0 0 0' max='0.3 0.1 0.1'/><MechanicalObject/>"
                 "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='500'/>"
                 "<FixedConstraint indices='0 4 8 12'/></Node></Node>", solvers[k]);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%d: %s", k, pf_last_error());
        ck_assert_int_eq(r.warnings, k ? 2 : 0);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
        hash[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    ck_assert(hash[0] == hash[1] && hash[0] == hash[2]);
}
END_TEST

/* Gravity as a component replaces the root's; BoxConstraint fixes what FixedConstraint with the same points
 * fixes (the same state after 30 steps), and says so when its boxes hold no point. */
START_TEST(test_gravity_and_box_constraint)
{
    static const char *const fix[] = {"<FixedConstraint indices='0 4 8 12'/>",
                                      "<BoxConstraint box='-0.01 -0.01 -0.01 0.01 0.11 0.11'/>"};
    uint64_t hash[2];
    for (int k = 0; k < 2; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node dt='0.01' gravity='0 0 -9.81'><Gravity gravity='0 -5 0'/>\n"
                 "<Node name='bar'><EulerImplicitSolver/><CGLinearSolver iterations='40' tolerance='1e-10'/>"
                 "<RegularGridTopology n='4 2 2' min='0 0 0' max='0.3 0.1 0.1'/><MechanicalObject/>"
                 "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='500'/>%s</Node></Node>",
                 fix[k]);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%d: %s", k, pf_last_error());
        double g[3];
        ck_assert_int_eq(pf_world_get_gravity(pf_scene_world(s), g), PF_OK);
        ck_assert(g[0] == 0 && g[1] == -5 && g[2] == 0);
        pf_scene_summary sum;
        ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
        ck_assert_uint_eq(sum.fixed_points, 4);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
        hash[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    ck_assert(hash[0] == hash[1]);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    const char *empty = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0'/>\n"
                        "<BoxConstraint box='1 1 1 2 2 2'/></Node></Node>";
    ck_assert_msg(load(&d, empty, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(strstr(r.last, "t.xml:2:") && strstr(r.last, "fixes no point"), "%s", r.last);
    pf_scene_destroy(s);
    const char *bad = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0'/>\n"
                      "<BoxConstraint box='1 1 1 2 2'/></Node></Node>";
    ck_assert_int_eq(load(&d, bad, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "6 numbers"), "%s", pf_last_error());
}
END_TEST

/* A mesh loader's scale3d, scale, rotation (degrees: R = Rz Ry Rx, x first, as SOFA's MeshLoader) and
 * translation: p' = t + R (s p). With rotation 90 0 90, scale 2 and translation 0 0 5, (1 0 0) goes to (0 2 5),
 * (0 1 0) to (0 0 7) and (0 0 1) to (2 0 5); the same for the OBJ and the STL loader. */
START_TEST(test_loader_transform)
{
    char dir[] = "/tmp/pf_sofa_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char obj[512], stl[512];
    snprintf(obj, sizeof obj, "%s/t.obj", dir);
    write_file(obj, "v 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n");
    snprintf(stl, sizeof stl, "%s/t.stl", dir);
    write_file(stl, "solid t\nfacet normal 0 0 0\nouter loop\nvertex 1 0 0\nvertex 0 1 0\nvertex 0 0 1\n"
                    "endloop\nendfacet\nendsolid t\n");
    static const char *const loaders[] = {"MeshObjLoader filename='t.obj' scale3d='2 2 2'",
                                          "MeshSTLLoader filename='t.stl' scale='2'"};
    static const double want[9] = {0, 2, 5, 0, 0, 7, 2, 0, 5};
    for (int k = 0; k < 2; k++) {
        char scene[512], text[512];
        snprintf(scene, sizeof scene, "%s/s%d.xml", dir, k);
        snprintf(text, sizeof text, "<Node><EulerImplicitSolver/><Node name='t'>\n<%s rotation='90 0 90' "
                 "translation='0 0 5'/>\n<MechanicalObject/></Node></Node>\n", loaders[k]);
        write_file(scene, text);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(pf_scene_load_file(&d, scene, &s) == PF_OK, "%s", pf_last_error());
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "t", &o), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_uint_eq(n, 3);
        for (int i = 0; i < 9; i++)
            ck_assert_msg(fabs(x[i] - want[i]) < 1e-12, "%s: coordinate %d is %.17g, want %g", loaders[k], i, x[i],
                          want[i]);
        ck_assert_int_eq(r.warnings, 0);
        pf_scene_destroy(s);
        unlink(scene);
    }
    unlink(obj);
    unlink(stl);
    rmdir(dir);
}
END_TEST

/* A scene naming "mesh/tetra.obj" as SOFA does, the mesh in a data folder elsewhere. */
START_TEST(test_data_path)
{
    char dir[] = "/tmp/pf_sofa_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p[512], scene[512], data[512];
    snprintf(p, sizeof p, "%s/scenes", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(data, sizeof data, "%s/share", dir);
    ck_assert_int_eq(mkdir(data, 0700), 0);
    snprintf(p, sizeof p, "%s/share/mesh", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/share/mesh/tetra.obj", dir);
    write_file(p, tetra_obj);
    snprintf(scene, sizeof scene, "%s/scenes/s.xml", dir);
    write_file(scene, "<Node><EulerImplicitSolver/><Node name='t'>\n<MeshObjLoader filename='mesh/tetra.obj'/>\n"
                      "<MechanicalObject/></Node></Node>\n");
    unsetenv("PHYSFLOW_DATA_PATH");
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    /* not found: the message lists where it looked */
    ck_assert_int_eq(pf_scene_load_file(&d, scene, &s), PF_EIO);
    char want[1200];
    snprintf(want, sizeof want, "%s:2: MeshObjLoader: cannot open mesh file 'mesh/tetra.obj': not found (looked "
             "in '%s/scenes/'", scene, dir);
    ck_assert_msg(strstr(pf_last_error(), want), "%s\nlacks %s", pf_last_error(), want);
    /* the load def's folders, in turn (an empty entry and a missing folder are passed over) */
    char list[1100];
    snprintf(list, sizeof list, "%s/nowhere::%s", dir, data);
    d.data_path = list;
    ck_assert_msg(pf_scene_load_file(&d, scene, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.points, 4);
    pf_scene_destroy(s);
    d.data_path = NULL;
    snprintf(list, sizeof list, "%s/nowhere", dir);
    d.data_path = list;
    ck_assert_int_eq(pf_scene_load_file(&d, scene, &s), PF_EIO);
    snprintf(want, sizeof want, "'%s/scenes/', '%s/nowhere'; more folders", dir, dir);
    ck_assert_msg(strstr(pf_last_error(), want), "%s\nlacks %s", pf_last_error(), want);
    /* the environment's */
    setenv("PHYSFLOW_DATA_PATH", data, 1);
    ck_assert_msg(pf_scene_load_file(&d, scene, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_destroy(s);
    unsetenv("PHYSFLOW_DATA_PATH");
    /* a file beside the scene comes first */
    snprintf(p, sizeof p, "%s/scenes/mesh", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/scenes/mesh/tetra.obj", dir);
    write_file(p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    d.data_path = data;
    ck_assert_msg(pf_scene_load_file(&d, scene, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.points, 3);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_include)
{
    char dir[] = "/tmp/pf_sofa_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p[512], scene[512], data[512];
    snprintf(data, sizeof data, "%s/share", dir);
    ck_assert_int_eq(mkdir(data, 0700), 0);
    snprintf(p, sizeof p, "%s/share/Objects", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    /* SOFA's "Group" root: its children are inserted; another root: inserted itself */
    snprintf(p, sizeof p, "%s/share/Objects/body.xml", dir);
    write_file(p, "<Node name='Group'>\n<Node name='body'><MechanicalObject position='0 0 0  1 0 0'/>"
                  "<UniformMass vertexMass='1'/></Node>\n<Node name='other'><MechanicalObject name='mo' position='0 0 1'/>"
                  "</Node>\n</Node>\n");
    snprintf(p, sizeof p, "%s/share/Objects/single.xml", dir);
    write_file(p, "<Node name='single'>\n<MechanicalObject position='0 0 2'/>\n<include href='leaf.xml'/></Node>\n");
    snprintf(p, sizeof p, "%s/share/Objects/leaf.xml", dir); /* found beside the file that includes it */
    write_file(p, "<Node name='leaf'><MechanicalObject position='0 0 3'/></Node>\n");
    snprintf(scene, sizeof scene, "%s/s.xml", dir);
    write_file(scene, "<Node><EulerImplicitSolver/>\n<include href='Objects/body.xml'/>\n"
                      "<include href='Objects/single.xml'/></Node>\n");
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    d.data_path = data;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_file(&d, scene, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.objects, 4);
    ck_assert_uint_eq(sum.points, 5);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "body", &o), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(s, "single/leaf", &o), PF_OK);
    pf_scene_destroy(s);
    /* the include's attributes replace those the inserted elements have ("position"), or set one on the elements
     * named before the dot ("mo.velocity"); one nobody has is a warning */
    write_file(scene, "<Node><EulerImplicitSolver/>\n<include href='Objects/body.xml' position='0 0 5  1 0 5  2 0 5' "
                      "mo.velocity='0 0 -1  0 0 -1  0 0 -1' mystery='1'/></Node>\n");
    r = (reports){0};
    ck_assert_msg(pf_scene_load_file(&d, scene, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.points, 6); /* both bodies' 3 points */
    ck_assert_int_eq(pf_scene_find_object(s, "other", &o), PF_OK);
    uint32_t np;
    const double *v = pf_world_velocities(pf_scene_world(s), o, &np);
    ck_assert_uint_eq(np, 3);
    ck_assert_double_eq(v[2], -1);
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "s.xml:2: warning: include: attribute 'mystery' is not applied"), "%s", r.last);
    pf_scene_destroy(s);
    write_file(scene, "<Node><EulerImplicitSolver/>\n<include href='Objects/body.xml'/>\n"
                      "<include href='Objects/single.xml'/></Node>\n");
    /* an error inside an included file names that file and its line; a warning too */
    snprintf(p, sizeof p, "%s/share/Objects/single.xml", dir);
    write_file(p, "<Node name='single'>\n<MechanicalObject position='0 0 2' showIndices='1'/>\n"
                  "<UniformMass totalMass='-1'/></Node>\n");
    ck_assert_int_eq(pf_scene_load_file(&d, scene, &s), PF_EINVAL);
    char want[1200];
    snprintf(want, sizeof want, "%s/share/Objects/single.xml:3: ", dir);
    ck_assert_msg(strstr(pf_last_error(), want) == pf_last_error(), "%s\nlacks %s", pf_last_error(), want);
    snprintf(want, sizeof want, "%s/share/Objects/single.xml:2: warning: MechanicalObject: unknown attribute", dir);
    ck_assert_msg(strstr(r.last, want), "%s\nlacks %s", r.last, want);
    /* malformed XML in an included file */
    write_file(p, "<Node name='single'>\n<MechanicalObject position='0 0 2'>\n</Node>\n");
    ck_assert_int_eq(pf_scene_load_file(&d, scene, &s), PF_EPARSE);
    snprintf(want, sizeof want, "%s/share/Objects/single.xml:3: malformed XML", dir);
    ck_assert_msg(strstr(pf_last_error(), want), "%s\nlacks %s", pf_last_error(), want);
    /* a cycle: single includes loop, which includes single */
    write_file(p, "<Node name='single'>\n<include href='loop.xml'/></Node>\n");
    snprintf(p, sizeof p, "%s/share/Objects/loop.xml", dir);
    write_file(p, "<Node name='Group'>\n\n<include href='single.xml'/></Node>\n");
    ck_assert_int_eq(pf_scene_load_file(&d, scene, &s), PF_EPARSE);
    snprintf(want, sizeof want, "%s/share/Objects/loop.xml:3: include: '%s/share/Objects/single.xml' includes "
             "itself (an include cycle)", dir, dir);
    ck_assert_msg(strstr(pf_last_error(), want), "%s\nlacks %s", pf_last_error(), want);
    /* the scene including itself; an include without href; one not found */
    write_file(scene, "<Node>\n<include href='s.xml'/></Node>\n");
    ck_assert_int_eq(pf_scene_load_file(&d, scene, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "s.xml:2: include:") && strstr(pf_last_error(), "include cycle"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load(&d, "<Node>\n<include/></Node>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: include: attribute 'href'"), "%s", pf_last_error());
    ck_assert_int_eq(load(&d, "<Node>\n<include href='nowhere/x.xml'/></Node>", &s), PF_EIO);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: include: cannot open included file 'nowhere/x.xml': not found"),
                  "%s", pf_last_error());
}
END_TEST

/* SOFA's links: src="@loader", position="@loader.position", @../Container, @../mstate.rest_position. */
START_TEST(test_links)
{
    char obj[] = "/tmp/pf_sofa_XXXXXX.obj";
    int fd = mkstemps(obj, 4);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, tetra_obj, sizeof tetra_obj - 1), (ssize_t)(sizeof tetra_obj - 1));
    close(fd);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    d.strict = 1; /* a link followed is no unknown attribute */
    pf_scene *s = NULL;
    pf_scene_summary sum;
    char xml[1024];
    /* within the node: the loader's mesh is the node's; a topology container linked to it is that mesh */
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>\n<MeshObjLoader name='loader' "
             "filename='%s'/>\n<MeshTopology src='@loader'/><MechanicalObject src='@loader' "
             "position='@loader.position'/><TriangleCollisionModel/></Node></Node>", obj);
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.points, 4);
    ck_assert_uint_eq(sum.collision_models, 1);
    ck_assert_int_eq(r.warnings, 0);
    pf_scene_destroy(s);
    /* from the parent: its loader's mesh (a container named as SOFA's scenes do), its state's positions */
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='p'>\n<MeshObjLoader name='Container' "
             "filename='%s'/>\n<Node name='c'><MechanicalObject src='@../Container'/><TriangleCollisionModel/>"
             "</Node></Node>\n<Node name='m'><MechanicalObject name='mstate' position='0 0 0  1 0 0'/>\n"
             "<Node name='q'><MechanicalObject position='@../mstate.rest_position'/></Node></Node></Node>", obj);
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.objects, 3);
    ck_assert_uint_eq(sum.points, 2 + 4 + 2);
    pf_scene_destroy(s);
    /* a grid */
    const char *grid = "<Node><EulerImplicitSolver/><RegularGridTopology name='grid' n='2 3 2' min='0 0 0' "
                       "max='1 1 1'/>\n<Node name='g'><MechanicalObject src='@../grid'/></Node></Node>";
    ck_assert_msg(load(&d, grid, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.points, 12);
    pf_scene_destroy(s);
    /* a dangling link; SOFA's links by position */
    ck_assert_int_eq(load(&d, "<Node><Node>\n<MechanicalObject src='@nowhere'/></Node></Node>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: MechanicalObject: attribute 'src': dangling link '@nowhere'"),
                  "%s", pf_last_error());
    ck_assert_int_eq(load(&d, "<Node><Node>\n<MechanicalObject position='@[-1].position'/></Node></Node>", &s),
                     PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "dangling link '@[-1].position'"),
                  "%s", pf_last_error());
    /* SOFA's links by position: @[-1] is the component just before, in the same node */
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>\n<MeshObjLoader filename='%s'/>"
             "<MechanicalObject position='@[-1].position'/></Node></Node>", obj);
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.points, 4);
    pf_scene_destroy(s);
    unlink(obj);
}
END_TEST

/* A loader only gives data (SOFA): two in a node load; the node's points are those of the loader a container or
 * MechanicalObject links, the first one's when none links any. */
START_TEST(test_two_loaders)
{
    char tet[] = "/tmp/pf_sofa_XXXXXX.obj", tri[] = "/tmp/pf_sofa_XXXXXX.obj";
    static const char tri_obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    int fd = mkstemps(tet, 4);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, tetra_obj, sizeof tetra_obj - 1), (ssize_t)(sizeof tetra_obj - 1));
    close(fd);
    fd = mkstemps(tri, 4);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, tri_obj, sizeof tri_obj - 1), (ssize_t)(sizeof tri_obj - 1));
    close(fd);
    /* what links which loader -> points of the object (tetra: 4, triangle: 3) */
    static const struct {
        const char *body;
        uint64_t points;
    } cases[] = {
        {"<MechanicalObject/>", 4},                                   /* none linked: the first loader's */
        {"<MechanicalObject src='@b'/>", 3},                          /* the state links the second */
        {"<MeshTopology src='@b'/><MechanicalObject/>", 3},           /* a container links the second */
        {"<MechanicalObject src='@a'/><MeshTopology src='@a'/>", 4},  /* both link the first */
        {"<TriangleSetTopologyContainer src='@b'/><MechanicalObject src='@b'/>", 3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='n'><MeshObjLoader name='a' filename='%s'/>"
                 "<MeshObjLoader name='b' filename='%s'/>%s</Node></Node>", tet, tri, cases[k].body);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%zu: %s", k, pf_last_error());
        pf_scene_summary sum;
        pf_scene_get_summary(s, &sum);
        ck_assert_msg(sum.points == cases[k].points, "%zu: %llu points", k, (unsigned long long)sum.points);
        pf_scene_destroy(s);
    }
    /* the state on one loader, the container on another with a different count: refused, naming both counts */
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='n'><MeshObjLoader name='a' filename='%s'/>"
             "<MeshObjLoader name='b' filename='%s'/>\n<MechanicalObject src='@a'/><MeshTopology src='@b'/></Node>"
             "</Node>", tet, tri);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, xml, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "4 positions but the topology has 3"),
                  "%s", pf_last_error());
    unlink(tet);
    unlink(tri);
}
END_TEST

/* SOFA's MechanicalObject with one position (its default) and a grid: the grid's points, the one velocity given
 * copied to all of them. */
START_TEST(test_state_on_grid)
{
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    const char *xml = "<Node><EulerImplicitSolver/><Node name='g'><RegularGridTopology n='2 3 2' min='0 0 0' "
                      "max='1 1 1'/><MechanicalObject position='0 0 0' velocity='1 2 3'/></Node></Node>";
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "g", &o), PF_OK);
    uint32_t n;
    const double *v = pf_world_velocities(pf_scene_world(s), o, &n);
    ck_assert_uint_eq(n, 12);
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) ck_assert_double_eq(v[3 * i + a], a + 1);
    pf_scene_destroy(s);
    /* more than one position: they are the points, and a grid giving others is refused */
    xml = "<Node><Node name='g'><RegularGridTopology n='2 3 2' min='0 0 0' max='1 1 1'/>\n"
          "<MechanicalObject position='0 0 0 1 1 1'/></Node></Node>";
    ck_assert_int_eq(load(&d, xml, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:"), "%s", pf_last_error());
}
END_TEST

/* A grid cube's surface through two topological mappings (hexahedra -> tetrahedra -> boundary triangles), in
 * child nodes without a state of their own: the 12 triangles of the cube's 6 faces, facing out, on the cube's
 * object; dropped on a fixed floor it rests on it, and falls through it when the child has no collision model. */
START_TEST(test_mapped_surface_collides)
{
    static const char fmt[] =
        "<Node dt='0.005'><CollisionPipeline/><BruteForceBroadPhase/><MinProximityIntersection alarmDistance='0.05' "
        "contactDistance='0.02'/><CollisionResponse stiffness='20000'/>\n"
        "<Node name='floor'><EulerImplicitSolver/><MeshTopology position='-5 -5 0 5 -5 0 5 5 0 -5 5 0' "
        "triangles='0 1 2 0 2 3'/><MechanicalObject/><UniformMass totalMass='1'/>"
        "<FixedConstraint indices='0 1 2 3'/><TriangleCollisionModel/></Node>\n"
        "<Node name='cube'><EulerImplicitSolver/><RegularGridTopology name='grid' n='2 2 2' min='0 0 0.1' "
        "max='1 1 1.1'/><MechanicalObject/><UniformMass totalMass='1'/>"
        "<RegularGridSpringForceField stiffness='1000'/>\n"
        "<Node name='tet'><TetrahedronSetTopologyContainer name='Container'/><TetrahedronSetTopologyModifier/>"
        "<Hexa2TetraTopologicalMapping input='@../grid' output='@Container'/>\n"
        "<Node name='tri'><TriangleSetTopologyContainer name='Container'/>"
        "<Tetra2TriangleTopologicalMapping input='@../Container' output='@Container'/>%s</Node></Node></Node></Node>";
    for (int collide = 1; collide >= 0; collide--) {
        char xml[2048];
        snprintf(xml, sizeof xml, fmt, collide ? "<TriangleCollisionModel/>" : "");
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
        ck_assert_msg(r.warnings == 0, "%s", r.last);
        pf_world *w = pf_scene_world(s);
        pf_object_id cube;
        ck_assert_int_eq(pf_scene_find_object(s, "cube", &cube), PF_OK);
        const pf_scene_collision_model *m;
        ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1u + (uint32_t)collide);
        if (collide) {
            ck_assert_uint_eq(m[1].object.index, cube.index);
            uint32_t nt, np;
            const uint32_t *tri = pf_world_surface_triangles(w, m[1].surface, &nt);
            const double *x = pf_world_positions(w, cube, &np);
            ck_assert_uint_eq(nt, 12);
            ck_assert_uint_eq(np, 8);
            for (uint32_t k = 0; k < nt; k++) {
                const double *a = x + 3 * tri[3 * k], *b = x + 3 * tri[3 * k + 1], *c = x + 3 * tri[3 * k + 2];
                double u[3], v[3], out[3];
                for (int i = 0; i < 3; i++)
                    u[i] = b[i] - a[i], v[i] = c[i] - a[i], out[i] = (a[i] + b[i] + c[i]) / 3 - (i < 2 ? 0.5 : 0.6);
                double nx = u[1] * v[2] - u[2] * v[1], ny = u[2] * v[0] - u[0] * v[2], nz = u[0] * v[1] - u[1] * v[0];
                ck_assert_msg(nx * out[0] + ny * out[1] + nz * out[2] > 0, "triangle %u faces in", k);
            }
        }
        ck_assert_int_eq(pf_world_step(w, 400), PF_OK); /* 2 s: a free fall would be 19.6 m down */
        uint32_t np;
        const double *x = pf_world_positions(w, cube, &np);
        double low = x[2];
        for (uint32_t k = 1; k < np; k++) low = x[3 * k + 2] < low ? x[3 * k + 2] : low;
        if (collide)
            ck_assert_msg(low > -0.05 && low < 0.1, "the cube's lowest point at %g: not resting on the floor", low);
        else
            ck_assert_msg(low < -5, "without a collision model the cube falls through: lowest point %g", low);
        pf_scene_destroy(s);
    }
    /* a container left empty (no mapping fills it) is still an error at its line */
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, "<Node><Node name='a'>\n<TetrahedronSetTopologyContainer/></Node></Node>", &s),
                     PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "no topological mapping"), "%s",
                  pf_last_error());
}
END_TEST

/* SphereLoader: a .sph file's centres are the points and its radii the spheres' (SOFA's scenes link them by
 * position); different radii share the largest, with a warning. */
START_TEST(test_sphere_loader)
{
    char sph[] = "/tmp/pf_sofa_XXXXXX.sph";
    static const char text[] = "sph 1.0\nnums 3\nsphe 1 0 0 0 0.25\nsphe 2 1 0 0 0.25\nsphe 3 0 1 0 0.5\n";
    int fd = mkstemps(sph, 4);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node><CollisionPipeline/><EulerImplicitSolver/><Node name='s'>"
             "<SphereLoader filename='%s' translation='0 0 2'/>\n<MechanicalObject position='@[-1].position'/>"
             "<SphereCollisionModel listRadius='@[-2].listRadius'/></Node></Node>", sph);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "s", &o), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    static const double want[9] = {0, 0, 2, 1, 0, 2, 0, 1, 2};
    ck_assert_uint_eq(n, 3);
    ck_assert_mem_eq(x, want, sizeof want);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    ck_assert_int_eq(m[0].kind, PF_COLLIDE_SPHERE);
    ck_assert_double_eq(m[0].radius, 0.5);
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "radii from 0.25 to 0.5"), "%s", r.last);
    pf_scene_destroy(s);
    /* radii written out, all equal: that radius, no warning */
    r = (reports){0};
    ck_assert_msg(load(&d, "<Node><EulerImplicitSolver/><Node name='s'><MechanicalObject position='0 0 0 1 0 0'/>"
                  "<SphereCollisionModel listRadius='0.2 0.2'/></Node></Node>", &s) == PF_OK, "%s", pf_last_error());
    pf_scene_collision_models(s, &m);
    ck_assert_double_eq(m[0].radius, 0.2);
    ck_assert_int_eq(r.warnings, 0);
    pf_scene_destroy(s);
    /* a listRadius link to something without radii */
    ck_assert_int_eq(load(&d, "<Node><Node name='s'><MechanicalObject position='0 0 0'/>\n"
                     "<SphereCollisionModel listRadius='@[-1].listRadius'/></Node></Node>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "no SphereLoader"), "%s",
                  pf_last_error());
    unlink(sph);
}
END_TEST

/* SphereROI and PlaneROI select the grid points a brute-force test over the grid finds; FixedConstraint links
 * them. PointProjectiveConstraint moves its points to `point` and holds them there. PartialFixed with some axes
 * and FixedPlane are refused, saying why. */
static uint32_t fixed_by(const char *roi)
{
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='g'><RegularGridTopology n='3 3 3' min='0 0 0' "
             "max='2 2 2'/><MechanicalObject/>%s<FixedConstraint indices='@roi.indices'/></Node></Node>", roi);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s: %s", roi, pf_last_error());
    ck_assert_msg(r.warnings == 0, "%s", r.last);
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    pf_scene_destroy(s);
    return (uint32_t)sum.fixed_points;
}

START_TEST(test_rois_and_projective)
{
    /* brute force over the grid points (i, j, k) in {0, 1, 2}^3 */
    uint32_t in_sphere = 0, in_plane = 0, in_quarter = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                in_sphere += (i - 2) * (i - 2) + (j - 1) * (j - 1) + (k - 1) * (k - 1) <= 1;
                in_plane += k == 1;
                in_quarter += k == 1 && i <= 1 && j <= 1;
            }
    ck_assert_uint_eq(fixed_by("<SphereROI name='roi' centers='2 1 1' radii='1'/>"), in_sphere);
    ck_assert_uint_eq(fixed_by("<PlaneROI name='roi' plane='0 0 1  2 0 1  2 2 1  0.5'/>"), in_plane);
    ck_assert_uint_eq(fixed_by("<PlaneROI name='roi' plane='0 0 1  1 0 1  1 1 1  0.5'/>"), in_quarter);
    ck_assert_uint_eq(fixed_by("<PlaneROI name='roi' plane='0 0 1  1 0 1  1 1 1  0'/>"), in_plane); /* SOFA's depth 0 */
    ck_assert_uint_eq(fixed_by("<SphereROI name='roi' centers='0 0 0  2 2 2' radii='0.1 0.1'/>"), 2);
    /* BoxROI: bounds written max first are put in order, axis by axis, as SOFA's BoxROI::roiInit does: the box
     * x in [0.5, 2.5], y in [-1, 0.5], z in [1.5, 3] holds the points i in {1, 2}, j = 0, k = 2 */
    ck_assert_uint_eq(fixed_by("<BoxROI name='roi' box='0.5 -1 1.5  2.5 0.5 3'/>"), 2);
    ck_assert_uint_eq(fixed_by("<BoxROI name='roi' box='2.5 0.5 3  0.5 -1 1.5'/>"), 2);
    ck_assert_uint_eq(fixed_by("<BoxROI name='roi' box='0.5 0.5 1.5  2.5 -1 3'/>"), 2);
    /* PairBoxROI: inside the inclusive box and not inside the included one (bounds included, put in order), a
     * brute force over the grid */
    uint32_t shell = 0, rowless = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                shell += !(i == 1 && j == 1 && k == 1);
                rowless += !(j == 0 && k == 0);
            }
    ck_assert_uint_eq(fixed_by("<PairBoxROI name='roi' inclusiveBox='-0.5 -0.5 -0.5 2.5 2.5 2.5' "
                               "includedBox='0.5 0.5 0.5 1.5 1.5 1.5'/>"), shell);
    ck_assert_uint_eq(fixed_by("<PairBoxROI name='roi' inclusiveBox='2.5 2.5 2.5 -0.5 -0.5 -0.5' "
                               "includedBox='1.5 0.5 1.5 0.5 1.5 0.5'/>"), shell);
    ck_assert_uint_eq(fixed_by("<PairBoxROI name='roi' inclusiveBox='0 0 0 2 2 2' includedBox='0 0 0 2 0 0'/>"),
                      rowless);

    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    const char *point = "<Node><EulerImplicitSolver/><Node name='g'><RegularGridTopology n='2 2 2' min='0 0 0' "
                        "max='1 1 1'/><MechanicalObject/><UniformMass totalMass='1'/>"
                        "<PointProjectiveConstraint point='5 6 7' indices='0 3'/></Node></Node>";
    ck_assert_msg(load(&d, point, &s) == PF_OK, "%s", pf_last_error());
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "g", &o), PF_OK);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    for (int a = 0; a < 3; a++) {
        ck_assert_double_eq(x[a], 5 + a);
        ck_assert_double_eq(x[9 + a], 5 + a);
    }
    ck_assert_double_lt(x[3 * 1 + 2], 0); /* a free point fell */
    pf_scene_destroy(s);

    const char *partial = "<Node><Node name='g'><MechanicalObject position='0 0 0 1 0 0'/>\n"
                          "<PartialFixedProjectiveConstraint indices='0' fixedDirections='%s'/></Node></Node>";
    char xml[512];
    snprintf(xml, sizeof xml, partial, "1 1 1");
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.fixed_points, 1);
    pf_scene_destroy(s);
    ck_assert_int_eq(load(&d, "<Node><Node name='g'><MechanicalObject position='0 0 0'/>\n"
                     "<SphereROI centers='0 0 0' radii='1 2'/></Node></Node>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: SphereROI: 'radii'"), "%s", pf_last_error());
}
END_TEST

/* GridMeshCreator: SOFA's grid over the unit square, scaled and moved; its triangles as SOFA's patterns make
 * them (hand-written for 3 x 2 points: point (x, y) is x + 3 y). */
START_TEST(test_grid_mesh_creator)
{
    static const struct {
        int pattern;
        uint32_t tris[12];
    } cases[] = {
        {1, {0, 1, 4, 0, 4, 3, 1, 2, 4, 2, 5, 4}}, /* alternating: cell (1, 0) the other way */
        {2, {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4}}, /* upward */
        {3, {0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4}}, /* downward */
        {0, {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4}}, /* quads, split as MeshTopology splits them */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='g'><GridMeshCreator filename='nofile' "
                 "resolution='3 2' trianglePattern='%d' scale='2 4 1' translation='0 0 1'/><MechanicalObject/>"
                 "<TriangleCollisionModel/></Node></Node>", cases[k].pattern);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%d: %s", cases[k].pattern, pf_last_error());
        ck_assert_msg(r.warnings == 0, "%s", r.last);
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "g", &o), PF_OK);
        uint32_t n, nt;
        const double *x = pf_world_positions(pf_scene_world(s), o, &n);
        ck_assert_uint_eq(n, 6);
        for (uint32_t p = 0; p < 6; p++) {
            ck_assert_double_eq(x[3 * p], (p % 3) * 1.0);
            ck_assert_double_eq(x[3 * p + 1], (p / 3) * 4.0);
            ck_assert_double_eq(x[3 * p + 2], 1);
        }
        const pf_scene_collision_model *m;
        ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
        const uint32_t *tri = pf_world_surface_triangles(pf_scene_world(s), m[0].surface, &nt);
        ck_assert_uint_eq(nt, 4);
        ck_assert_msg(!memcmp(tri, cases[k].tris, sizeof cases[k].tris), "pattern %d", cases[k].pattern);
        pf_scene_destroy(s);
    }
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, "<Node><Node>\n<GridMeshCreator resolution='1 3'/></Node></Node>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: GridMeshCreator: resolution"), "%s", pf_last_error());
}
END_TEST

/* TransformEngine: the linked positions scaled, turned (degrees, z last), then moved; a MechanicalObject takes them
 * through output_position, in its node or another. */
START_TEST(test_transform_engine)
{
    char obj[] = "/tmp/pf_sofa_XXXXXX.obj";
    int fd = mkstemps(obj, 4);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, tetra_obj, sizeof tetra_obj - 1), (ssize_t)(sizeof tetra_obj - 1));
    close(fd);
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'><MeshObjLoader name='loader' filename='%s'/>"
             "<TransformEngine name='t' input_position='@loader.position' scale='2 2 2' rotation='0 0 90' "
             "translation='1 2 3'/></Node>\n<Node name='b'><MechanicalObject position='@../a/t.output_position'/>"
             "</Node></Node>", obj);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(r.warnings == 0, "%s", r.last);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "b", &o), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    /* (x, y, z) -> 2 (-y, x, z) + (1, 2, 3) for the points 0, 0.1 x, 0.1 y, 0.1 z */
    static const double want[12] = {1, 2, 3, 1, 2.2, 3, 0.8, 2, 3, 1, 2, 3.2};
    ck_assert_uint_eq(n, 4);
    for (int k = 0; k < 12; k++) ck_assert_double_eq_tol(x[k], want[k], 1e-15);
    pf_scene_destroy(s);
    ck_assert_int_eq(load(&d, "<Node><Node name='a'>\n<TransformEngine input_position='@nothing.position'/>"
                     "</Node></Node>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:"), "%s", pf_last_error());
    unlink(obj);
}
END_TEST

START_TEST(test_unknown_components)
{
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, "<Node>\n<Node><MeshObjloader filename='x.obj'/></Node></Node>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: unknown component 'MeshObjloader' (did you mean MeshObjLoader?)"),
                  "%s", pf_last_error());
    ck_assert_int_eq(load(&d, "<Node>\n<EulerImplicitSolvr/></Node>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "(did you mean EulerImplicitSolver?)"), "%s", pf_last_error());
    /* SOFA's other spelling of a component is that component */
    char obj[] = "/tmp/pf_sofa_XXXXXX.obj";
    int fd = mkstemps(obj, 4);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, tetra_obj, sizeof tetra_obj - 1), (ssize_t)(sizeof tetra_obj - 1));
    close(fd);
    char alias[400];
    snprintf(alias, sizeof alias, "<Node><EulerImplicitSolver/><Node><MeshOBJLoader filename='%s'/>"
             "<MechanicalObject/></Node></Node>", obj);
    ck_assert_msg(load(&d, alias, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_destroy(s);
    unlink(obj);
    /* nothing near: no suggestion */
    ck_assert_int_eq(load(&d, "<Node>\n<HausdorffDistance/></Node>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: unknown component 'HausdorffDistance'") &&
                  !strstr(pf_last_error(), "did you mean"), "%s", pf_last_error());
    /* SOFA's constraint-based pipeline: one clear error */
    static const char *const constraint[] = {"FreeMotionAnimationLoop", "GenericConstraintSolver",
                                             "LCPConstraintSolver", "UncoupledConstraintCorrection"};
    for (int k = 0; k < 4; k++) {
        char xml[200];
        snprintf(xml, sizeof xml, "<Node>\n<%s/></Node>", constraint[k]);
        ck_assert_int_eq(load(&d, xml, &s), PF_ENOTSUP);
        ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") &&
                      strstr(pf_last_error(), "constraint-based pipeline") &&
                      strstr(pf_last_error(), "does not support"), "%s", pf_last_error());
    }
    /* draw- or log-only components: skipped with one note each */
    const char *xml = "<Node>\n<BlenderExporter filename='x' exportEveryNumberOfSteps='3'/>\n<VisualModelImpl/>"
                      "\n<VisualVectorField vector='@DoFs.velocity'/></Node>";
    r = (reports){0};
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.notes, 3);
    ck_assert_msg(strstr(r.last_note, "t.xml:4: note: VisualVectorField only draws or logs: skipped"), "%s",
                  r.last_note);
    pf_scene_destroy(s);
    xml = "<Node>\n<OglLabel label='x'/><VTKExporter filename='out'/>\n<Replicate count='3 1 1'>"
          "<Node name='n'><OglLabel/><MechanicalObject position='0 0 0'/></Node></Replicate></Node>";
    r = (reports){0};
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.notes, 3);
    ck_assert_msg(strstr(r.last_note, "t.xml:3: note: OglLabel only draws or logs: skipped"), "%s", r.last_note);
    pf_scene_destroy(s);
}
END_TEST

/* The integrators' components set the node's solver (read back through the API); a Newton iteration count above
 * one is a warning: one iteration per step here. */
START_TEST(test_solver_components)
{
    static const struct {
        const char *xml;
        pf_solver_kind kind;
        int warnings;
    } cases[] = {{"<EulerExplicitSolver symplectic='0'/>", PF_SOLVER_FORWARD_EULER, 0},
                 {"<EulerExplicitSolver symplectic='true'/>", PF_SOLVER_EXPLICIT_EULER, 0},
                 {"<RungeKutta4Solver/>", PF_SOLVER_RUNGE_KUTTA4, 0},
                 {"<StaticSolver newton_iterations='3'/><CGLinearSolver iterations='50'/>", PF_SOLVER_STATIC, 1},
                 {"<NewtonRaphsonSolver name='newton' maxNbIterationsNewton='1'/>"
                  "<StaticSolver newtonSolver='@newton'/><CGLinearSolver/>", PF_SOLVER_STATIC, 1},
                 {"<EulerImplicitSolver/><SparseLDLSolver template='CompressedRowSparseMatrixMat3x3d'/>"
                  "<NaturalOrderingMethod/>", PF_SOLVER_IMPLICIT_EULER, 0},
                 {"<StaticSolver/><EigenSimplicialLDLT template='CompressedRowSparseMatrixMat3x3d'/>",
                  PF_SOLVER_STATIC, 0},
                 {"<EulerImplicitSolver/><EigenCholmodSupernodalLLT template='CompressedRowSparseMatrixMat3x3'/>",
                  PF_SOLVER_IMPLICIT_EULER, 0}};
    static const pf_linear_solver linear[] = {PF_LINEAR_CG,     PF_LINEAR_CG,     PF_LINEAR_CG,    PF_LINEAR_CG,
                                              PF_LINEAR_CG,     PF_LINEAR_DIRECT, PF_LINEAR_DIRECT, PF_LINEAR_DIRECT};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node dt='0.001'><Node name='bar'>%s"
                 "<RegularGridTopology n='4 2 2' min='0 0 0' max='0.3 0.1 0.1'/><MechanicalObject/>"
                 "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='500'/>"
                 "<FixedConstraint indices='0 4 8 12'/></Node></Node>", cases[k].xml);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%zu: %s", k, pf_last_error());
        ck_assert_msg(r.warnings == cases[k].warnings, "%zu: %d warnings, last: %s", k, r.warnings, r.last);
        pf_solver_def sd;
        ck_assert_int_eq(pf_world_get_solver(pf_scene_world(s), (pf_object_id){0}, &sd), PF_OK);
        ck_assert_int_eq(sd.kind, cases[k].kind);
        ck_assert_int_eq(sd.linear_solver, linear[k]);
        ck_assert_msg(pf_world_step(pf_scene_world(s), 10) == PF_OK, "%zu: %s", k, pf_last_error());
        pf_scene_destroy(s);
    }
}
END_TEST

/* ---------- masses measured on the node's mesh (scenes/component_mass.c) ---------- */

/* The point masses of the object of node `path`, into m (cap values); returns the point count. */
static uint32_t point_masses(pf_scene *s, const char *path, double *m, uint32_t cap)
{
    pf_object_id o;
    ck_assert_msg(pf_scene_find_object(s, path, &o) == PF_OK, "%s", pf_last_error());
    uint32_t n = 0;
    ck_assert_int_eq(pf_world_get_point_masses(pf_scene_world(s), o, m, cap, &n), PF_OK);
    ck_assert_uint_le(n, cap);
    return n;
}

static double sum(const double *m, uint32_t n)
{
    double t = 0;
    for (uint32_t i = 0; i < n; i++) t += m[i];
    return t;
}

/* The project's scene files: each mass's total against volume x density, and points by hand. */
START_TEST(test_mass_scene_files)
{
    double m[128];
    /* DiagonalMass on a 5 x 3 x 2 grid of a 2 x 1 x 0.5 m box, 800 kg/m^3: cells of 0.125 m^3, 12.5 kg per cell
       corner; point (i, j, 0) has 1 cell (a corner), 2 (an edge) or 4 */
    pf_scene *s = load_test_scene("mass_diagonal_grid.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    uint32_t n = point_masses(s, "box", m, 128);
    ck_assert_uint_eq(n, 30);
    ck_assert_msg(fabs(sum(m, n) - 800) <= 1e-12 * 800, "total %.17g, volume x density 800", sum(m, n));
    ck_assert_double_eq_tol(m[0], 12.5, 1e-12);
    ck_assert_double_eq_tol(m[1], 25, 1e-12);
    ck_assert_double_eq_tol(m[6], 50, 1e-12);  /* (1, 1, 0) */
    ck_assert_double_eq_tol(m[15 + 4], 12.5, 1e-12); /* (4, 0, 1) */
    pf_scene_destroy(s);
    /* MeshMatrixMass totalMass 3 on five tetrahedra of a cube: 3/24 kg at the corners of one corner tetrahedron,
       15/24 at those of the middle one */
    s = load_test_scene("mass_tetra_cube.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    n = point_masses(s, "cube", m, 128);
    ck_assert_uint_eq(n, 8);
    ck_assert_double_eq_tol(sum(m, n), 3, 1e-14);
    for (uint32_t i = 0; i < 8; i++) {
        int middle = i == 1 || i == 2 || i == 4 || i == 7;
        ck_assert_msg(fabs(m[i] - (middle ? 15.0 : 3.0) / 24) <= 1e-14, "point %u: %.17g kg", i, m[i]);
    }
    pf_scene_destroy(s);
    /* FEMMass with a NodalMassDensity of 1100 on the hexahedra of a 0.02 x 0.02 x 0.2 m beam */
    s = load_test_scene("mass_fem_hexa.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    n = point_masses(s, "", m, 128);
    ck_assert_uint_eq(n, 99);
    double want = 0.02 * 0.02 * 0.2 * 1100;
    ck_assert_msg(fabs(sum(m, n) - want) <= 1e-12 * want, "total %.17g, volume x density %.17g", sum(m, n), want);
    ck_assert_double_eq_tol(m[0], want / 40 / 8, 1e-12 * want); /* a corner of one of the 2 x 2 x 10 cells */
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
    pf_scene_destroy(s);
}
END_TEST

/* SOFA's rules: totalMass over massDensity over vertexMass (warned), a short vertexMass list repeats its last
 * value, the topology link, lumping="false" warned; and what PhysFlow refuses, with the reason. */
START_TEST(test_mass_rules)
{
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    double m[16];
    char xml[2048];
    /* a unit square of two triangles, area 1, its diagonal 0-2 */
    const char *square = "<MeshTopology position='0 0 0 1 0 0 1 1 0 0 1 0' triangles='0 1 2 0 2 3'/>";
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>%s<MechanicalObject/>\n"
             "<DiagonalMass totalMass='6' massDensity='100' vertexMass='1 2'/></Node></Node>", square);
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(point_masses(s, "a", m, 16), 4);
    ck_assert(fabs(m[0] - 2) < 1e-14 && fabs(m[1] - 1) < 1e-14 && fabs(m[2] - 2) < 1e-14 && fabs(m[3] - 1) < 1e-14);
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "t.xml:2: warning: DiagonalMass: totalMass overrides massDensity"), "%s", r.last);
    pf_scene_destroy(s);
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>%s<MechanicalObject/>"
             "<DiagonalMass massDensity='3' vertexMass='1 2'/></Node></Node>", square);
    r = (reports){0};
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    point_masses(s, "a", m, 16);
    ck_assert(fabs(m[0] - 1) < 1e-14 && fabs(m[1] - 0.5) < 1e-14);
    ck_assert_int_eq(r.warnings, 1);
    pf_scene_destroy(s);
    /* vertexMass alone: a short list repeats its last value; no warning */
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>%s<MechanicalObject/>"
             "<DiagonalMass vertexMass='0.5 0.25'/></Node></Node>", square);
    r = (reports){0};
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    point_masses(s, "a", m, 16);
    ck_assert(m[0] == 0.5 && m[1] == 0.25 && m[2] == 0.25 && m[3] == 0.25);
    ck_assert_int_eq(r.warnings, 0);
    pf_scene_destroy(s);
    /* nothing given: SOFA's totalMass 1; the topology of another node through the link */
    snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='t'>%s</Node><Node name='a'>"
             "<MechanicalObject position='0 0 0 1 0 0 1 1 0 0 1 0'/><MeshMatrixMass topology='@../t' "
             "lumping='false'/></Node></Node>", square);
    r = (reports){0};
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    point_masses(s, "a", m, 16);
    ck_assert(fabs(m[0] - 1.0 / 3) < 1e-15 && fabs(m[1] - 1.0 / 6) < 1e-15);
    ck_assert_int_eq(r.warnings, 1);
    ck_assert_msg(strstr(r.last, "lumping=\"false\": the consistent mass matrix is lumped"), "%s", r.last);
    pf_scene_destroy(s);
    /* refused, with the reason and the line */
    static const struct {
        const char *mass, *message;
    } bad[] = {
        {"<UniformMass totalMass='1'/><DiagonalMass/>", "t.xml:2: a second mass in node 'a'"},
        {"<DiagonalMass massDensity='-1'/>", "massDensity[0] must be > 0"},
        {"<DiagonalMass vertexMass='1 1 1 1 1'/>", "vertexMass has 5 values for 4 points"},
        {"<MeshMatrixMass massDensity='1 2 3'/>", "massDensity has 3 values: give one, or one per element (2 "
                                                  "triangles)"},
        {"<DiagonalMass template='Rigid3d'/>", "template 'Rigid3d' is not supported"},
        {"<DiagonalMass filename='m.xs3'/>", "mass files"},
        {"<FEMMass template='Vec3,Tetrahedron'/>", "no NodalMassDensity in node 'a' or above"},
        {"<NodalMassDensity property='2 3'/><FEMMass/>", "varies from point to point"},
        {"<NodalMassDensity/><FEMMass template='Vec3,Tetrahedron'/>", "has no tetrahedra to measure the mass on"},
        {"<FEMMass template='Vec3,Prism'/>", "element 'Prism' is not supported"},
        {"<DiagonalMass geometryState='@..'/>", "geometryState = '@..' is not the state of the topology's node 'a'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        snprintf(xml, sizeof xml, "<Node><EulerImplicitSolver/><Node name='a'>%s<MechanicalObject/>\n%s</Node>"
                 "</Node>", square, bad[k].mass);
        s = (pf_scene *)1;
        ck_assert_msg(load(&d, xml, &s) < 0, "%s loaded", bad[k].mass);
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(pf_last_error(), bad[k].message), "%s: '%s'", bad[k].mass, pf_last_error());
    }
    /* a point in no triangle would weigh nothing */
    const char *orphan = "<Node><Node name='a'><MeshTopology position='0 0 0 1 0 0 1 1 0 5 5 5' triangles='0 1 2'/>"
                         "<MechanicalObject/><DiagonalMass massDensity='1'/></Node></Node>";
    ck_assert_int_lt(load(&d, orphan, &s), 0);
    ck_assert_msg(strstr(pf_last_error(), "point 3 of node 'a' is in none of its triangles"), "%s", pf_last_error());
    /* the mass after its MechanicalObject and topology, as SOFA's scenes write it */
    const char *early = "<Node><Node name='a'><DiagonalMass/><MechanicalObject position='0 0 0'/></Node></Node>";
    ck_assert_int_lt(load(&d, early, &s), 0);
    ck_assert_msg(strstr(pf_last_error(), "has no MechanicalObject before it"), "%s", pf_last_error());
}
END_TEST

/* BarycentricMapping onto a parent's tetrahedra: the child's collision surface is carried by them; in free fall
 * every point of the body moves alike, so each surface vertex moves as the body's points do */
START_TEST(test_barycentric_mapping_on_tetrahedra)
{
    static const char xml[] =
        "<Node dt='0.01' gravity='0 0 -9.81'><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>"
        "<MinProximityIntersection alarmDistance='0.01' contactDistance='0.005'/><CollisionResponse/>"
        "<Node name='body'><EulerImplicitSolver/><CGLinearSolver/>"
        "<MeshTopology position='0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1' "
        "tetrahedra='0 1 3 5  0 3 2 6  0 5 4 6  3 6 5 7  0 3 5 6'/>"
        "<MechanicalObject/><UniformMass totalMass='1'/><TetrahedronFEMForceField youngModulus='1000'/>"
        "<Node name='surf'><MeshTopology position='0.2 0.2 0.2  0.8 0.3 0.2  0.5 0.8 0.3  0.5 0.5 0.9' "
        "triangles='0 2 1  0 1 3  1 2 3  0 3 2'/><MechanicalObject/><TriangleCollisionModel/>"
        "<BarycentricMapping/></Node></Node></Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_world *w = pf_scene_world(s);
    ck_assert_uint_eq(pf_world_surfaces(w), 1);
    pf_object_id obj;
    uint32_t nverts;
    ck_assert_int_eq(pf_world_get_surface_info(w, (pf_surface_id){0}, &obj, &nverts, NULL), PF_OK);
    ck_assert_uint_eq(nverts, 4); /* the child's mesh, carried by the body's tetrahedra */
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    uint32_t n;
    double drop = pf_world_positions(w, obj, &n)[2]; /* point 0 started at z = 0 */
    const double *p = pf_world_surface_positions(w, (pf_surface_id){0}, &n);
    static const double z0[4] = {0.2, 0.2, 0.3, 0.9};
    for (int v = 0; v < 4; v++)
        ck_assert_msg(fabs(p[3 * v + 2] - (z0[v] + drop)) < 1e-12, "vertex %d at %.15g, expected %.15g", v,
                      p[3 * v + 2], z0[v] + drop);
    ck_assert_double_lt(drop, -0.1);
    pf_scene_destroy(s);
}
END_TEST

/* Projective constraints on some directions (pf_world_fix_directions): under gravity along -y and -z, a point held
 * along x and y (PartialFixed "1 1 0") falls along z only; one held along z (FixedPlane, selected by dmin/dmax
 * or by indices) along y only; one projected onto the y axis (LineProjective) starts on it and stays on it; one projected onto
 * the plane z = 0 (PlaneProjective) starts on it and stays in it; one held on the line along y through where it
 * starts (DirectionProjective) falls along y only. The other point falls freely. */
START_TEST(test_directional_projective)
{
    static const struct {
        const char *el;
        double start[3];
        int held[3]; /* axes along which point 0 must not move */
    } cases[] = {{"<PartialFixedProjectiveConstraint indices='0' fixedDirections='1 1 0'/>", {1, 2, 3}, {1, 1, 0}},
                 {"<FixedPlaneProjectiveConstraint direction='0 0 1' dmin='2.5' dmax='3.5'/>", {1, 2, 3}, {0, 0, 1}},
                 {"<FixedPlaneProjectiveConstraint direction='0 0 1' indices='0'/>", {1, 2, 3}, {0, 0, 1}},
                 {"<LineProjectiveConstraint indices='0' origin='0 0 0' direction='0 2 0'/>", {0, 2, 0}, {1, 0, 1}},
                 {"<PlaneProjectiveConstraint indices='0' origin='0 0 1' normal='0 0 3'/>", {1, 2, 1}, {0, 0, 1}},
                 {"<DirectionProjectiveConstraint indices='0' direction='0 3 0'/>", {1, 2, 3}, {1, 0, 1}}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node dt='0.01' gravity='0 -9.81 -9.81'><Node name='g'><EulerImplicitSolver/>"
                 "<CGLinearSolver/><MechanicalObject position='1 2 3  5 5 5'/><UniformMass vertexMass='1'/>%s"
                 "</Node></Node>", cases[k].el);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%zu: %s", k, pf_last_error());
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &n);
        for (int a = 0; a < 3; a++) {
            if (cases[k].held[a])
                ck_assert_msg(fabs(x[a] - cases[k].start[a]) < 1e-12, "%zu: axis %d at %.15g, held at %g", k, a,
                              x[a], cases[k].start[a]);
            else if (a > 0)
                ck_assert_msg(x[a] < cases[k].start[a] - 0.01, "%zu: axis %d should fall: %g", k, a, x[a]);
        }
        ck_assert_double_lt(x[3 + 1], 5 - 0.01); /* point 1 falls along y and z */
        ck_assert_double_lt(x[3 + 2], 5 - 0.01);
        pf_scene_destroy(s);
    }
}
END_TEST

/* TetrahedronFEMForceField on a RegularGridTopology of 2 x 1 x 1 cells, and on the same two cells as hexahedra of a
 * MeshTopology, is the FEM on SOFA's split written out by hand as tetrahedra (cell 0's corners mirrored along x,
 * cell 1's not): the same state, bit for bit, after 20 steps under gravity, both methods. */
START_TEST(test_tetra_fem_on_hexahedra)
{
    static const char pos[] = "position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0 0 0 1 1 0 1 2 0 1 0 1 1 1 1 1 2 1 1'";
    static const char *const topo[] = {
        "<RegularGridTopology n='3 2 2' min='0 0 0' max='2 1 1'/><MechanicalObject/>",
        "<MeshTopology %s hexahedra='0 1 4 3 6 7 10 9  1 2 5 4 7 8 11 10'/><MechanicalObject/>",
        "<MeshTopology %s tetrahedra='1 6 0 9  1 0 4 9  0 4 9 3  9 4 1 10  9 10 1 6  10 6 7 1 "
        "1 8 2 11  1 2 4 11  2 4 11 5  11 4 1 10  11 10 1 8  10 8 7 1'/><MechanicalObject/>"};
    static const char *const method[] = {"small", "large"};
    for (int m = 0; m < 2; m++) {
        uint64_t hash[3];
        for (int k = 0; k < 3; k++) {
            char t[512], xml[1024];
            snprintf(t, sizeof t, topo[k], pos);
            snprintf(xml, sizeof xml, "<Node dt='0.01' gravity='0 -9.81 0'><Node name='b'><EulerImplicitSolver/>"
                     "<CGLinearSolver iterations='100' tolerance='1e-12' threshold='1e-14'/>%s"
                     "<UniformMass totalMass='1'/><FixedConstraint indices='0 3 6 9'/>"
                     "<TetrahedronFEMForceField youngModulus='1000' poissonRatio='0.3' method='%s'/></Node></Node>",
                     t, method[m]);
            reports r = {0};
            pf_scene_load_def d = quiet_def(&r);
            pf_scene *s = NULL;
            ck_assert_msg(load(&d, xml, &s) == PF_OK, "%d %d: %s", m, k, pf_last_error());
            ck_assert_int_eq(pf_world_step(pf_scene_world(s), 20), PF_OK);
            hash[k] = pf_world_state_hash(pf_scene_world(s));
            uint32_t n;
            const double *x = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &n);
            ck_assert_double_lt(x[3 * 11 + 1], 1 - 1e-4); /* the free end sags */
            pf_scene_destroy(s);
        }
        ck_assert_msg(hash[0] == hash[2] && hash[1] == hash[2], "%s", method[m]);
    }
    /* a grid one cell thin has no cells: the error says so */
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, "<Node><Node name='b'>\n<RegularGridTopology n='3 1 2'/><MechanicalObject/>"
                              "<TetrahedronFEMForceField/></Node></Node>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: TetrahedronFEMForceField needs tetrahedra or hexahedra") &&
                  strstr(pf_last_error(), "3 x 1 x 2 points"), "%s", pf_last_error());
}
END_TEST

/* RegularGridTopology p0: SOFA's first point when given, the steps still (max - min) / (n - 1): the grid 3 x 2 x 2
 * over [0 2] x [0 1] x [0 1] from p0 = (5 -1 2) has its points at p0 + (i, j, k), hand-listed; a flat axis sits at
 * p0 too */
START_TEST(test_grid_p0)
{
    static const char *const xml[2] = {
        "<Node><Node name='g'><EulerImplicitSolver/><RegularGridTopology n='3 2 2' min='0 0 0' max='2 1 1' "
        "p0='5 -1 2'/><MechanicalObject/></Node></Node>",
        "<Node><Node name='g'><EulerImplicitSolver/><RegularGridTopology n='3 1 2' min='0 0 0' max='2 1 1' "
        "p0='5 -1 2'/><MechanicalObject/></Node></Node>"};
    for (int k = 0; k < 2; k++) {
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml[k], &s) == PF_OK, "%s", pf_last_error());
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &n);
        ck_assert_uint_eq(n, k ? 6 : 12);
        uint32_t p = 0;
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < (k ? 1 : 2); b++)
                for (int a = 0; a < 3; a++, p++) {
                    const double want[3] = {5.0 + a, -1.0 + b, 2.0 + c};
                    for (int e = 0; e < 3; e++)
                        ck_assert_msg(x[3 * p + e] == want[e], "%d: point %u axis %d: %g, want %g", k, p, e,
                                      x[3 * p + e], want[e]);
                }
        pf_scene_destroy(s);
    }
}
END_TEST

/* CylinderGridTopology: a 3 x 3 x 2 grid of radius 1 and length 2 around the axis y from (1 2 3): the points
 * hand-computed from SOFA's rule (the square [-1, 1]^2 pulled onto the disc: corners at 1/sqrt 2, edge middles
 * kept; frame x = world x, y = z x x = -world z for the axis y), numbered as a grid; its 4 hexahedra carry
 * MeshSpringForceField's 33 grid lines, TetrahedronFEMForceField (SOFA's split) and HexahedronFEMForceField; nz = 1
 * gives quads. */
START_TEST(test_cylinder_grid_topology)
{
    const double h = sqrt(0.5);
    const double sq[9][2] = {{-h, -h}, {0, -1}, {h, -h}, {-1, 0}, {0, 0}, {1, 0}, {-h, h}, {0, 1}, {h, h}};
    double want[18][3];
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 9; p++) {
            double *w = want[9 * k + p];
            w[0] = 1 + sq[p][0];     /* x: the square's x */
            w[1] = 2 + 2.0 * k;      /* y: along the axis */
            w[2] = 3 - sq[p][1];     /* z: the square's y along -z */
        }
    static const char *const forces[] = {"<MeshSpringForceField stiffness='10'/>",
                                         "<TetrahedronFEMForceField youngModulus='100' poissonRatio='0.3'/>",
                                         "<HexahedronFEMForceField youngModulus='100' poissonRatio='0.3'/>"};
    for (int f = 0; f < 3; f++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node dt='0.01' gravity='0 -9.81 0'><Node name='c'><EulerImplicitSolver/>"
                 "<CGLinearSolver iterations='50'/><MechanicalObject/>"
                 "<CylinderGridTopology n='3 3 2' axis='0 1 0' center='1 2 3' radius='1' length='2'/>"
                 "<UniformMass totalMass='1'/><FixedConstraint indices='0 1 2'/>%s</Node></Node>", forces[f]);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%d: %s", f, pf_last_error());
        ck_assert_int_eq(r.warnings, 0);
        uint32_t n;
        const double *x = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &n);
        ck_assert_uint_eq(n, 18);
        for (uint32_t p = 0; p < n; p++)
            for (int a = 0; a < 3; a++)
                ck_assert_msg(fabs(x[3 * p + a] - want[p][a]) < 1e-12, "point %u axis %d: %g, want %g", p, a,
                              x[3 * p + a], want[p][a]);
        pf_scene_summary summary;
        ck_assert_int_eq(pf_scene_get_summary(s, &summary), PF_OK);
        if (f == 0) ck_assert_uint_eq(summary.springs, 33);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 5), PF_OK);
        pf_scene_destroy(s);
    }
    /* one layer: a disc of quads (a membrane takes its triangles); too few points across, a zero axis: errors */
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, "<Node><Node name='c'><EulerImplicitSolver/><MechanicalObject/>"
                           "<CylinderGridTopology n='4 4 1'/><UniformMass totalMass='1'/>"
                           "<TriangularFEMForceField/><QuadularBendingSprings/></Node></Node>", &s) == PF_OK,
                  "%s", pf_last_error());
    pf_scene_destroy(s);
    static const char *const bad[][2] = {{"n='1 3 2'", "1 points along axis x"},
                                         {"axis='0 0 0'", "axis must be a nonzero vector"},
                                         {"radius='-1'", "radius must be > 0"}};
    for (int k = 0; k < 3; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><Node name='c'>\n<CylinderGridTopology %s/><MechanicalObject/></Node></Node>",
                 bad[k][0]);
        s = NULL;
        ck_assert_int_eq(load(&d, xml, &s), PF_EINVAL);
        ck_assert_msg(strstr(pf_last_error(), "t.xml:2: CylinderGridTopology") &&
                      strstr(pf_last_error(), bad[k][1]), "%s", pf_last_error());
    }
}
END_TEST

/* RegularGridTopology with max below min along an axis: SOFA steps from min down to max (RegularGridTopology::setPos),
 * points numbered as any grid's. Its points against the closed form min + i (max - min) / (n - 1); its
 * RegularGridSpringForceField against the same grid written ascending, point (i, j, k) there being point
 * (n - 1 - i, j, k) here: the same number of springs and, one corner fixed and the rest falling 20 steps, the same
 * positions point for point. */
static pf_scene *load_grid(const char *grid, const char *fixed, const char *forces)
{
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node dt='0.01' gravity='0 0 -9.81'><Node name='g'><EulerImplicitSolver/>"
             "<CGLinearSolver iterations='500' tolerance='1e-20' threshold='1e-30'/><MechanicalObject/>%s"
             "<UniformMass totalMass='1'/>%s<FixedConstraint indices='%s'/></Node></Node>", grid, forces, fixed);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s: %s", grid, pf_last_error());
    return s;
}

START_TEST(test_grid_max_below_min)
{
    pf_scene *down = load_grid("<RegularGridTopology n='3 2 2' min='0 0 0' max='-2 1 1'/>", "0",
                               "<RegularGridSpringForceField stiffness='500' damping='1'/>");
    pf_scene *up = load_grid("<RegularGridTopology n='3 2 2' min='-2 0 0' max='0 1 1'/>", "2",
                             "<RegularGridSpringForceField stiffness='500' damping='1'/>");
    uint32_t n, m;
    const double *x = pf_world_positions(pf_scene_world(down), (pf_object_id){0}, &n);
    ck_assert_uint_eq(n, 12);
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t j = 0; j < 2; j++)
            for (uint32_t i = 0; i < 3; i++) {
                const double *p = x + 3 * (i + 3 * (j + 2 * k));
                ck_assert(p[0] == -(double)i && p[1] == (double)j && p[2] == (double)k);
            }
    pf_scene_summary a, b;
    pf_scene_get_summary(down, &a);
    pf_scene_get_summary(up, &b);
    ck_assert_uint_eq(a.springs, b.springs);
    ck_assert_uint_gt(a.springs, 0);
    ck_assert_int_eq(pf_world_step(pf_scene_world(down), 20), PF_OK);
    ck_assert_int_eq(pf_world_step(pf_scene_world(up), 20), PF_OK);
    x = pf_world_positions(pf_scene_world(down), (pf_object_id){0}, &n);
    const double *y = pf_world_positions(pf_scene_world(up), (pf_object_id){0}, &m);
    ck_assert_uint_eq(n, m);
    double moved = 0;
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t j = 0; j < 2; j++)
            for (uint32_t i = 0; i < 3; i++) {
                const double *p = x + 3 * (i + 3 * (j + 2 * k)), *q = y + 3 * ((2 - i) + 3 * (j + 2 * k));
                for (int c = 0; c < 3; c++) ck_assert_msg(fabs(p[c] - q[c]) < 1e-9, "%g %g", p[c], q[c]);
                moved = fmax(moved, fabs(p[2] - (double)k));
            }
    ck_assert(moved > 1e-3); /* the grid fell: the comparison compared motion */
    pf_scene_destroy(down);
    pf_scene_destroy(up);
    /* the same length both ways is still an error */
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, "<Node><Node name='g'><MechanicalObject/>\n<RegularGridTopology n='2 2 2' "
                              "min='0 0 0' max='1 0 1'/></Node></Node>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: RegularGridTopology: max 0 equals min along axis y"), "%s",
                  pf_last_error());
}
END_TEST

/* QuadBendingSprings: on a sheet of a x b points (flat grid, here one running down x) one spring between every two
 * points two steps apart along a grid line, each pair once (SOFA's spring set): b (a - 2) + a (b - 2) springs, a
 * brute-force count over the grid. */
START_TEST(test_quad_bending_springs)
{
    static const int sizes[][2] = {{3, 3}, {4, 3}, {5, 2}};
    for (int t = 0; t < 3; t++) {
        int a = sizes[t][0], b = sizes[t][1];
        uint32_t want = 0;
        for (int i = 0; i < a; i++)
            for (int j = 0; j < b; j++) want += (i + 2 < a) + (j + 2 < b);
        for (int down = 0; down < 2; down++) {
            char grid[256];
            snprintf(grid, sizeof grid, "<RegularGridTopology n='%d 1 %d' min='%d 0 0' max='%d 0 %d'/>", a, b,
                     down ? a - 1 : 0, down ? 0 : a - 1, b - 1);
            pf_scene *s = load_grid(grid, "0", "<QuadBendingSprings/>");
            pf_scene_summary sum;
            pf_scene_get_summary(s, &sum);
            ck_assert_msg(sum.springs == want, "%dx%d: %u springs, want %u", a, b, (unsigned)sum.springs, want);
            ck_assert_int_eq(pf_world_step(pf_scene_world(s), 5), PF_OK);
            pf_scene_destroy(s);
        }
    }
}
END_TEST

/* TetrahedronCollisionModel under a proximity intersection finds no contacts (SOFA has no tetrahedron intersector
 * there): a cube of tetrahedra falling through a point model's points ends as it does without the model, with one
 * warning saying so; under DiscreteIntersection (points inside tetrahedra in SOFA) it is refused. */
START_TEST(test_tetrahedron_collision_model)
{
    static const char xml[] =
        "<Node dt='0.01' gravity='0 0 -9.81'><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>%s"
        "<CollisionResponse/><EulerImplicitSolver/><CGLinearSolver/><Node name='body'>"
        "<MeshTopology position='0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1' "
        "tetrahedra='0 1 3 5  0 3 2 6  0 5 4 6  3 6 5 7  0 3 5 6'/>"
        "<MechanicalObject/><UniformMass totalMass='1'/><TetrahedronFEMForceField youngModulus='1000'/>%s</Node>"
        "<Node name='pts'><MechanicalObject position='0.5 0.5 -0.2  0.3 0.6 -0.5'/><FixedConstraint fixAll='true'/>"
        "<UniformMass totalMass='1'/><PointCollisionModel/></Node></Node>";
    static const char prox[] = "<MinProximityIntersection alarmDistance='0.1' contactDistance='0.05'/>";
    uint64_t hash[2];
    for (int k = 0; k < 2; k++) {
        char text[2048];
        snprintf(text, sizeof text, xml, prox, k ? "\n<TetrahedronCollisionModel/>" : "");
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, text, &s) == PF_OK, "%d: %s", k, pf_last_error());
        ck_assert_int_eq(r.warnings, k);
        if (k) ck_assert_msg(strstr(r.last, "t.xml:2: warning: TetrahedronCollisionModel finds no contacts"), "%s",
                             r.last);
        const pf_scene_collision_model *models;
        ck_assert_uint_eq(pf_scene_collision_models(s, &models), 1); /* the points' */
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 40), PF_OK);
        hash[k] = pf_world_state_hash(pf_scene_world(s));
        uint32_t n;
        pf_object_id o;
        ck_assert_int_eq(pf_scene_find_object(s, "body", &o), PF_OK);
        ck_assert_double_lt(pf_world_positions(pf_scene_world(s), o, &n)[2], -0.5); /* fell through the points */
        pf_scene_destroy(s);
    }
    ck_assert(hash[0] == hash[1]);
    char text[2048];
    snprintf(text, sizeof text, xml, "<DiscreteIntersection/>", "\n<TetrahedronCollisionModel/>");
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, text, &s), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: TetrahedronCollisionModel is not supported with "
                                          "DiscreteIntersection"), "%s", pf_last_error());
}
END_TEST

/* Index lists read as SOFA reads them: "A-B" from A to B (either way), "A-B-S" by steps of S: the same state as the
 * indices written out; a malformed range and a step away from the end are errors naming the attribute. */
START_TEST(test_index_ranges)
{
    static const char *const fix[] = {"1 2 3 7 6 5 0 4 8", "1-3 7-5 0-8-4", "1-3,7-5 , 0-8-4"};
    uint64_t hash[3];
    for (int k = 0; k < 3; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<Node dt='0.01' gravity='0 0 -9.81'><Node name='g'><EulerImplicitSolver/>"
                 "<CGLinearSolver iterations='40' tolerance='1e-10'/><RegularGridTopology n='3 3 2' min='0 0 0' "
                 "max='1 1 1'/><MechanicalObject/><UniformMass totalMass='1'/>"
                 "<RegularGridSpringForceField stiffness='100'/><FixedConstraint indices='%s'/></Node></Node>", fix[k]);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%d: %s", k, pf_last_error());
        pf_scene_summary sum;
        pf_scene_get_summary(s, &sum);
        ck_assert_uint_eq(sum.fixed_points, 9);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK);
        hash[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    ck_assert(hash[0] == hash[1] && hash[0] == hash[2]);
    static const struct {
        const char *indices, *msg;
    } bad[] = {{"1-x", "'1-x' is not an index or a range of indices (A-B, A-B-step)"},
               {"0-4-0", "'0-4-0' is not an index or a range of indices"},
               {"0-4--1", "the range '0-4--1' steps away from its end"},
               {"-1", "-1 is not an index (an integer >= 0)"},
               {"a", "'a' is not a number"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<Node><Node name='g'><MechanicalObject position='0 0 0 1 0 0'/>\n"
                 "<FixedConstraint indices='%s'/></Node></Node>", bad[k].indices);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_int_lt(load(&d, xml, &s), 0);
        ck_assert_msg(strstr(pf_last_error(), "t.xml:2: FixedConstraint: attribute 'indices': ") &&
                      strstr(pf_last_error(), bad[k].msg), "%s", pf_last_error());
    }
}
END_TEST

/* MeshSpringForceField on a tetrahedral mesh: a spring on every edge of its tetrahedra, each once (a cube cut into
 * 5 tetrahedra has its 12 edges and 6 face diagonals: 18) */
START_TEST(test_mesh_springs_on_tetrahedra)
{
    static const char xml[] = "<Node><Node name='b'><EulerImplicitSolver/><CGLinearSolver/>"
                              "<MeshTopology position='0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1' "
                              "tetrahedra='0 1 3 5  0 3 2 6  0 5 4 6  3 6 5 7  0 3 5 6'/>"
                              "<MechanicalObject/><UniformMass totalMass='1'/><MeshSpringForceField stiffness='100'/>"
                              "</Node></Node>";
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_uint_eq(sum.springs, 18);
    pf_scene_destroy(s);
}
END_TEST

/* MechanicalObject template="Vec1": one coordinate per point (position, velocity, rest_position, and a topology
 * container's position in its node). A Vec1 spring of stiffness k at rest_position 0 under gravity's x (its y and
 * z, which Vec1 does not have, held) follows backward Euler's recurrence v' = (m v + h (m g - k x)) / (m + h^2 k),
 * x' = x + h v', with the direct solver and with BDF1OdeSolver under a NewtonRaphsonSolver (one iteration), the two
 * bit for bit */
START_TEST(test_vec1_spring_backward_euler)
{
    const char *fmt = "<Node dt='0.01' gravity='-1 5 7'><Node name='n'>%s<SparseLDLSolver/>"
                      "<MechanicalObject template='Vec1' position='1' velocity='0.5' rest_position='0'/>"
                      "<PointSetTopologyContainer position='1'/><UniformMass totalMass='2'/>"
                      "<RestShapeSpringsForceField points='0' stiffness='3'/></Node></Node>";
    const char *solvers[2] = {"<EulerImplicitSolver/>", "<BDF1OdeSolver/><NewtonRaphsonSolver/>"};
    uint64_t hash[2];
    for (int k = 0; k < 2; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml, fmt, solvers[k]);
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
        const double h = 0.01, m = 2, kk = 3, g = -1;
        double x = 1, v = 0.5;
        for (int n = 1; n <= 50; n++) {
            ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
            v = (m * v + h * (m * g - kk * x)) / (m + h * h * kk);
            x += h * v;
            uint32_t np;
            const double *p = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &np);
            ck_assert_uint_eq(np, 1);
            ck_assert_msg(fabs(p[0] - x) <= 1e-12, "step %d: x %.17g, backward Euler %.17g", n, p[0], x);
            ck_assert_msg(p[1] == 0 && p[2] == 0, "step %d: y %g z %g", n, p[1], p[2]);
        }
        hash[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    ck_assert(hash[0] == hash[1]);
}
END_TEST

/* template="Vec2" is the Vec3 object of the same points held along z (PartialFixedProjectiveConstraint
 * fixedDirections 0 0 1 on every point), bit for bit; coordinates that do not come in twos, and a mesh off the
 * plane, are refused */
START_TEST(test_vec2_is_held_vec3)
{
    const char *fmt = "<Node dt='0.01' gravity='1 -9.81 4'><Node name='n'><EulerImplicitSolver/>"
                      "<CGLinearSolver iterations='50' tolerance='1e-12' threshold='1e-14'/>"
                      "<MechanicalObject %s/><MeshTopology %s edges='0 1  1 2  2 0'/><UniformMass totalMass='1'/>"
                      "<MeshSpringForceField stiffness='200'/><FixedConstraint indices='0'/>%s</Node></Node>";
    char xml[1024];
    uint64_t hash[2];
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            snprintf(xml, sizeof xml, fmt, "template='Vec2' position='0 0  1 0  1 1'", "position='0 0  1 0  1 1'", "");
        else
            snprintf(xml, sizeof xml, fmt, "position='0 0 0  1 0 0  1 1 0'", "position='0 0 0  1 0 0  1 1 0'",
                     "<PartialFixedProjectiveConstraint fixAll='true' fixedDirections='0 0 1'/>");
        reports r = {0};
        pf_scene_load_def d = quiet_def(&r);
        pf_scene *s = NULL;
        ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s", pf_last_error());
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 40), PF_OK);
        uint32_t np;
        const double *p = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &np);
        ck_assert_msg(p[4] < -0.01 && p[8] == 0, "the points fall in the plane: y %g, z %g", p[4], p[8]);
        hash[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    ck_assert(hash[0] == hash[1]);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    snprintf(xml, sizeof xml, fmt, "template='Vec2' position='0 0  1 0  1'", "", "");
    ck_assert_int_eq(load(&d, xml, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:1:") && strstr(pf_last_error(), "2 numbers per point"), "%s",
                  pf_last_error());
    const char *grid = "<Node><Node name='g'><EulerImplicitSolver/><MechanicalObject template='Vec2d'/>"
                       "<RegularGridTopology n='2 2 2' min='0 0 0' max='1 1 0.5'/></Node></Node>";
    ck_assert_int_eq(load(&d, grid, &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "point 4 has coordinate z = 0.5"), "%s", pf_last_error());
}
END_TEST

/* MinResLinearSolver is PhysFlow's CG under its iterations and tolerance (SOFA's defaults 25 and 1e-5), with a
 * warning that says so: bit for bit the CGLinearSolver given them; a fractional iteration count names the line */
static uint64_t linear_solver_hash(const char *solver, int *warnings)
{
    char xml[1024];
    snprintf(xml, sizeof xml, "<Node dt='0.002' gravity='0 0 -9.81'><Node name='bar'><EulerImplicitSolver/>%s"
             "<RegularGridTopology n='4 2 2' min='0 0 0' max='0.3 0.1 0.1'/><MechanicalObject/>"
             "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='500'/>"
             "<FixedConstraint indices='0 4 8 12'/></Node></Node>", solver);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_msg(load(&d, xml, &s) == PF_OK, "%s: %s", solver, pf_last_error());
    *warnings = r.warnings;
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_minres_is_cg)
{
    int wm, wc;
    uint64_t minres = linear_solver_hash("<MinResLinearSolver iterations='40' tolerance='1e-10'/>", &wm);
    ck_assert(minres == linear_solver_hash("<CGLinearSolver iterations='40' tolerance='1e-10'/>", &wc));
    ck_assert_int_eq(wm, 1);
    ck_assert_int_eq(wc, 0);
    uint64_t defaults = linear_solver_hash("<MinResLinearSolver/>", &wm);
    ck_assert(defaults == linear_solver_hash("<CGLinearSolver iterations='25' tolerance='1e-5'/>", &wc));
    ck_assert(defaults != minres);
    reports r = {0};
    pf_scene_load_def d = quiet_def(&r);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(&d, "<Node><Node name='n'>\n<MinResLinearSolver iterations='2.5'/></Node></Node>", &s),
                     PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2:") && strstr(pf_last_error(), "not an integer"), "%s",
                  pf_last_error());
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_sofa");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_unknown_attribute_warns);
    tcase_add_test(tc, test_node_without_solver_stays);
    tcase_add_test(tc, test_response_spellings);
    tcase_add_test(tc, test_intersection_methods);
    tcase_add_test(tc, test_plane_force_field);
    tcase_add_test(tc, test_sphere_force_field);
    tcase_add_test(tc, test_integration_scheme_names);
    tcase_add_test(tc, test_vec1_spring_backward_euler);
    tcase_add_test(tc, test_vec2_is_held_vec3);
    tcase_add_test(tc, test_minres_is_cg);
    tcase_add_test(tc, test_topology_containers);
    tcase_add_test(tc, test_pcg_is_cg);
    tcase_add_test(tc, test_solver_components);
    tcase_add_test(tc, test_mesh_springs_on_tetrahedra);
    tcase_add_test(tc, test_directional_projective);
    tcase_add_test(tc, test_barycentric_mapping_on_tetrahedra);
    tcase_add_test(tc, test_gravity_and_box_constraint);
    tcase_add_test(tc, test_loader_transform);
    tcase_add_test(tc, test_data_path);
    tcase_add_test(tc, test_include);
    tcase_add_test(tc, test_links);
    tcase_add_test(tc, test_unknown_components);
    tcase_add_test(tc, test_mass_scene_files);
    tcase_add_test(tc, test_mass_rules);
    tcase_add_test(tc, test_two_loaders);
    tcase_add_test(tc, test_state_on_grid);
    tcase_add_test(tc, test_mapped_surface_collides);
    tcase_add_test(tc, test_sphere_loader);
    tcase_add_test(tc, test_rois_and_projective);
    tcase_add_test(tc, test_grid_mesh_creator);
    tcase_add_test(tc, test_transform_engine);
    tcase_add_test(tc, test_tetra_fem_on_hexahedra);
    tcase_add_test(tc, test_cylinder_grid_topology);
    tcase_add_test(tc, test_grid_p0);
    tcase_add_test(tc, test_tetrahedron_collision_model);
    tcase_add_test(tc, test_index_ranges);
    tcase_add_test(tc, test_grid_max_below_min);
    tcase_add_test(tc, test_quad_bending_springs);
    tcase_add_test(tc, test_linear_movement);
    tcase_add_test(tc, test_velocities_padded_with_the_last);
    tcase_add_test(tc, test_raw_lt_and_amp_in_attributes);
    tcase_add_test(tc, test_older_names_and_empty_spring_mesh);
    tcase_add_test(tc, test_affine_movement);
    suite_add_tcase(s, tc);
    return s;
}
