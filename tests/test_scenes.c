/* Scene loader: the built-in XML scenes equal the scenes built in code (same state hash), every built-in scene
 * runs, attributes reach the world (positions, velocities, dt, gravity, collision settings), Replicate moves its
 * copies, the registry is an extensible object, and bad scenes return the documented error codes with file:line. */
#include "check_main.h"
#include "scene_files.h"
#include "physics_scenes.h"

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

/* Collects notes and warnings. */
typedef struct reports {
    int notes, warnings;
    char last[512];
} reports;

static void collect(pf_scene_severity sev, const char *msg, void *ctx)
{
    reports *r = ctx;
    if (sev == PF_SCENE_NOTE)
        r->notes++;
    else
        r->warnings++;
    snprintf(r->last, sizeof r->last, "%s", msg);
}

static int load_text(const char *text, pf_scene **out, reports *r)
{
    pf_scene_load_def d = quiet_def();
    if (r) {
        d.report = collect;
        d.report_ctx = r;
    }
    return pf_scene_load_memory(&d, "t.xml", text, strlen(text), NULL, out);
}

/* ---- built-in scenes vs the scenes built in code ---- */

static uint64_t code_hash(int which, uint32_t steps)
{
    pf_world_def wd = quiet_def().world;
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(&wd, &w), PF_OK); /* default dt 0.01, gravity (0, 0, -9.81) */
    if (which == 0)
        ck_assert_int_eq(scene_bars(w, 64, 16, 4, 4, 25, PF_FEM_LARGE), PF_OK);
    else
        ck_assert_int_eq(scene_springgrid(w, which, 4, 25), PF_OK);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

static uint64_t builtin_hash(const char *name, uint32_t steps)
{
    pf_scene_load_def d = quiet_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_builtin(&d, name, &s) == PF_OK, "%s: %s", name, pf_last_error());
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), steps), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_bars64_equals_code)
{
    uint64_t a = code_hash(0, 5), b = builtin_hash("bars64", 5);
    ck_assert_msg(a == b, "bars64: code %016llx, XML %016llx", (unsigned long long)a, (unsigned long long)b);
}
END_TEST

START_TEST(test_springgrid_equals_code)
{
    static const int sizes[2] = {128, 256};
    char name[32];
    snprintf(name, sizeof name, "springgrid%d", sizes[_i]);
    uint64_t a = code_hash(sizes[_i], 5), b = builtin_hash(name, 5);
    ck_assert_msg(a == b, "%s: code %016llx, XML %016llx", name, (unsigned long long)a, (unsigned long long)b);
}
END_TEST

/* Every built-in scene loads, runs 5 steps and moves (gravity pulls every scene down). */
START_TEST(test_every_builtin_runs)
{
    const char *names = pf_scene_builtin_names();
    char buf[256];
    snprintf(buf, sizeof buf, "%s", names);
    int count = 0;
    for (char *save, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        pf_scene_load_def d = quiet_def();
        pf_scene *s = NULL;
        ck_assert_msg(pf_scene_load_builtin(&d, tok, &s) == PF_OK, "%s: %s", tok, pf_last_error());
        pf_world *w = pf_scene_world(s);
        uint64_t h0 = pf_world_state_hash(w);
        ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
        ck_assert_msg(pf_world_state_hash(w) != h0, "%s did not move", tok);
        pf_scene_summary sum;
        ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
        ck_assert_uint_eq(sum.objects, pf_world_objects(w));
        ck_assert_uint_gt(sum.fixed_points, 0);
        pf_scene_destroy(s);
        count++;
    }
    ck_assert_int_ge(count, 4);
}
END_TEST

/* ---- attributes reach the world ---- */

START_TEST(test_grid_and_replicate_positions)
{
    const char *xml = "<Node dt='0.005' gravity='0 -9.81 0'>\n"
                      "  <EulerExplicitSolver/>\n"
                      "  <Replicate count='2 3 1' step='10 20 0'>\n"
                      "    <Node name='b'>\n"
                      "      <MechanicalObject/>\n"
                      "      <RegularGridTopology nx='3' ny='2' nz='2' xmin='-1' xmax='1' ymin='0' ymax='0.5' "
                      "zmin='2' zmax='4'/>\n"
                      "      <UniformMass vertexMass='0.5'/>\n"
                      "    </Node>\n"
                      "  </Replicate>\n"
                      "</Node>\n";
    pf_scene *s = NULL;
    ck_assert_msg(load_text(xml, &s, NULL) == PF_OK, "%s", pf_last_error());
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_double_eq(sum.dt, 0.005);
    ck_assert_double_eq(sum.gravity[1], -9.81);
    ck_assert_uint_eq(sum.objects, 6);
    ck_assert_uint_eq(sum.points, 6 * 12);
    pf_world *w = pf_scene_world(s);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 2; i++) {
            char path[32];
            snprintf(path, sizeof path, "b_%d_%d_0", i, j);
            pf_object_id o;
            ck_assert_msg(pf_scene_find_object(s, path, &o) == PF_OK, "%s", path);
            ck_assert_uint_eq(o.index, (uint32_t)(i + 2 * j)); /* copies in lattice order, x fastest */
            uint32_t n;
            const double *x = pf_world_positions(w, o, &n);
            ck_assert_uint_eq(n, 12);
            for (int c = 0; c < 2; c++)
                for (int b = 0; b < 2; b++)
                    for (int a = 0; a < 3; a++) {
                        const double *p = x + 3 * (a + 3 * (b + 2 * c));
                        ck_assert_double_eq_tol(p[0], -1 + a + 10.0 * i, 1e-12);
                        ck_assert_double_eq_tol(p[1], 0.5 * b + 20.0 * j, 1e-12);
                        ck_assert_double_eq_tol(p[2], 2 + 2.0 * c, 1e-12);
                    }
        }
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_mesh_positions_velocities_fixed)
{
    const char *xml = "<Node dt='0.01' gravity='0 0 -10'>\n"
                      "  <EulerImplicitSolver/><CGLinearSolver iterations='50' tolerance='1e-12' threshold='1e-30'/>\n"
                      "  <Node name='m'>\n"
                      "    <MechanicalObject position='0 0 0  1 0 0  1 1 0  0 1 0' velocity='1 2 -3  0 0 0  0 0 0  4 5 6'/>\n"
                      "    <MeshTopology position='9 9 9  9 9 9  9 9 9  9 9 9' triangles='0 1 2  0 2 3'/>\n"
                      "    <UniformMass totalMass='2'/>\n"
                      "    <MeshSpringForceField stiffness='50' damping='0.1'/>\n"
                      "    <FixedConstraint indices='1 2'/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    pf_scene *s = NULL;
    ck_assert_msg(load_text(xml, &s, NULL) == PF_OK, "%s", pf_last_error());
    pf_world *w = pf_scene_world(s);
    uint32_t n;
    const double *x = pf_world_positions(w, (pf_object_id){0}, &n),
                 *v = pf_world_velocities(w, (pf_object_id){0}, &n);
    static const double px[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, pv[12] = {1, 2, -3, 0, 0, 0, 0, 0, 0, 4, 5, 6};
    ck_assert_uint_eq(n, 4);
    for (int k = 0; k < 12; k++) {
        ck_assert_double_eq(x[k], px[k]); /* MechanicalObject position wins over the topology's */
        ck_assert_double_eq(v[k], pv[k]);
    }
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.springs, 5); /* unique edges of two triangles sharing the diagonal */
    ck_assert_uint_eq(sum.fixed_points, 2);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    x = pf_world_positions(w, (pf_object_id){0}, &n);
    for (int k = 3; k < 9; k++) ck_assert_double_eq(x[k], px[k]); /* fixed points stay */
    ck_assert_double_lt(x[2], 0);                                    /* free points fall */
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_collision_settings_parsed)
{
    const char *xml = "<Node>\n"
                      "  <DefaultPipeline depth='6'/>\n"
                      "  <BroadPhase method='sap'/>\n"
                      "  <BVHNarrowPhase/>\n"
                      "  <MinProximityIntersection alarmDistance='0.3' contactDistance='0.1'/>\n"
                      "  <DefaultContactManager response='PenaltyContactForceField' stiffness='250'/>\n"
                      "  <EulerImplicitSolver/>\n"
                      "  <Node name='s'>\n"
                      "    <MechanicalObject position='0 0 0 1 0 0'/>\n"
                      "    <UniformMass vertexMass='1'/>\n"
                      "    <SphereCollisionModel radius='0.25'/>\n"
                      "    <PointCollisionModel/>\n"
                      "  </Node>\n"
                      "  <Node name='t'>\n"
                      "    <MeshTopology position='0 0 1 1 0 1 0 1 1' triangles='0 1 2'/>\n"
                      "    <MechanicalObject/>\n"
                      "    <UniformMass vertexMass='1'/>\n"
                      "    <TriangleCollisionModel/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    pf_scene *s = NULL;
    reports r = {0};
    ck_assert_msg(load_text(xml, &s, &r) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.warnings, 1); /* DefaultPipeline depth: accepted, ignored */
    ck_assert_msg(strstr(r.last, "t.xml:2: warning:") && strstr(r.last, "depth"), "%s", r.last);
    const pf_scene_collision *c = pf_scene_collision_settings(s);
    ck_assert_int_eq(c->enabled, 1);
    ck_assert_int_eq(c->broadphase, PF_BP_SAP);
    ck_assert_double_eq(c->alarm_distance, 0.3);
    ck_assert_double_eq(c->contact_distance, 0.1);
    ck_assert_double_eq(c->stiffness, 250);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 3);
    ck_assert_int_eq(m[0].kind, PF_COLLIDE_SPHERE);
    ck_assert_double_eq(m[0].radius, 0.25);
    ck_assert_uint_eq(m[0].object.index, 0);
    ck_assert_int_eq(m[1].kind, PF_COLLIDE_POINT);
    ck_assert_int_eq(m[2].kind, PF_COLLIDE_TRIANGLE);
    ck_assert_uint_eq(m[2].object.index, 1);
    ck_assert_uint_eq(m[2].ntriangles, 1);
    ck_assert_uint_eq(m[2].triangles[2], 2);
    ck_assert_int_eq(m[2].line, 18);
    pf_scene_destroy(s);
}
END_TEST

/* Interaction springs across nodes (links) join the two objects into one solver group. */
START_TEST(test_links_join_groups)
{
    const char *xml = "<Node><EulerImplicitSolver/>\n"
                      "  <Node name='g'><Node name='a'><MechanicalObject position='0 0 0'/></Node></Node>\n"
                      "  <Node name='b'><MechanicalObject name='mo' position='1 0 0'/>\n"
                      "    <StiffSpringForceField object1='@../g/a' object2='@mo' spring='0 0 10 0 -1'/>\n"
                      "  </Node>\n"
                      "  <Node name='c'><MechanicalObject position='5 0 0'/></Node>\n"
                      "</Node>\n";
    pf_scene *s = NULL;
    ck_assert_msg(load_text(xml, &s, NULL) == PF_OK, "%s", pf_last_error());
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "g/a", &o), PF_OK);
    ck_assert_uint_eq(o.index, 0);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
    pf_world_stats st;
    pf_world_get_stats(pf_scene_world(s), &st);
    ck_assert_uint_eq(st.groups, 2); /* {a, b} and {c} */
    pf_scene_destroy(s);
}
END_TEST

/* An OBJ mesh relative to the scene file: points, a quad fanned into two triangles, negative indices. */
START_TEST(test_obj_loader)
{
    char dir[] = "/tmp/pf_scene_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char obj[256], xmlp[256];
    snprintf(obj, sizeof obj, "%s/quad.obj", dir);
    snprintf(xmlp, sizeof xmlp, "%s/s.xml", dir);
    FILE *f = fopen(obj, "w");
    fprintf(f, "# quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 -1//1\n");
    fclose(f);
    f = fopen(xmlp, "w");
    fprintf(f, "<Node><EulerImplicitSolver/><Node name='q'>\n<MeshObjLoader name='l' filename='quad.obj' "
               "translation='0 0 2'/>\n<MechanicalObject/><UniformMass vertexMass='1'/>"
               "<MeshSpringForceField stiffness='1' damping='0'/><TriangleCollisionModel/></Node></Node>\n");
    fclose(f);
    pf_scene_load_def d = quiet_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_file(&d, xmlp, &s) == PF_OK, "%s", pf_last_error());
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), (pf_object_id){0}, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_double_eq(x[3 * 2 + 0], 1);
    ck_assert_double_eq(x[3 * 3 + 2], 2);
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.springs, 5);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    ck_assert_uint_eq(m[0].ntriangles, 2);
    pf_scene_destroy(s);
    unlink(obj);
    /* the same scene without its mesh file: PF_EIO naming the scene line */
    ck_assert_int_eq(pf_scene_load_file(&d, xmlp, &s), PF_EIO);
    char want[300];
    snprintf(want, sizeof want, "%s:2:", xmlp);
    ck_assert_msg(strstr(pf_last_error(), want), "%s", pf_last_error());
    unlink(xmlp);
    rmdir(dir);
}
END_TEST

/* ---- the registry ---- */

typedef struct host_ctx {
    int calls;
    double sum;
} host_ctx;

static int host_component(pf_scene_component *c, void *ctx)
{
    host_ctx *h = ctx;
    double v = 0;
    int rc = pf_scene_component_real(c, "value", 0, 100, &v);
    if (rc < 0) return rc;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    h->calls++;
    h->sum += v;
    uint32_t first = 0;
    return pf_world_fix_points(pf_scene_component_world(c), o, &first, 1);
}

START_TEST(test_host_registers_component)
{
    const char *xml = "<Node><EulerImplicitSolver/>\n<Replicate count='3 1 1' step='1 0 0'><Node name='p'>"
                      "<MechanicalObject position='0 0 0 0 0 1'/><Pin value='2.5'/></Node></Replicate></Node>\n";
    pf_scene *s = NULL;
    /* unknown to the built-in registry */
    ck_assert_int_eq(load_text(xml, &s, NULL), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: unknown component 'Pin'"), "%s", pf_last_error());
    pf_scene_registry *base, *mine;
    ck_assert_int_eq(pf_scene_registry_create(&base), PF_OK);
    ck_assert_int_eq(pf_scene_registry_copy(base, &mine), PF_OK);
    host_ctx h = {0};
    pf_scene_component_def def = {"Pin", PF_SCENE_STAGE_FORCES, host_component, &h};
    ck_assert_int_eq(pf_scene_register(mine, &def), PF_OK);
    ck_assert_ptr_null(pf_scene_registry_find(base, "Pin")); /* the copy is independent */
    ck_assert_ptr_nonnull(pf_scene_registry_find(mine, "Pin"));
    pf_scene_load_def d = quiet_def();
    d.registry = mine;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(h.calls, 3);
    ck_assert_double_eq(h.sum, 7.5);
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    ck_assert_uint_eq(sum.objects, 3);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 3), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), (pf_object_id){2}, &n);
    ck_assert_double_eq(x[0], 2); /* point 0 pinned by the host component, at its replicated place */
    ck_assert_double_lt(x[5], 1);
    pf_scene_destroy(s);
    /* its attributes are checked like a built-in's */
    d.strict = 1;
    const char *bad = "<Node><Node><MechanicalObject position='0 0 0'/><Pin valeu='1'/></Node></Node>";
    ck_assert_int_eq(pf_scene_load_memory(&d, "t.xml", bad, strlen(bad), NULL, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "unknown attribute 'valeu'"), "%s", pf_last_error());
    /* a host may also override a built-in name */
    pf_scene_component_def over = {"UniformMass", PF_SCENE_STAGE_FORCES, host_component, &h};
    ck_assert_int_eq(pf_scene_register(mine, &over), PF_OK);
    ck_assert(pf_scene_registry_find(mine, "UniformMass")->fn == host_component);
    pf_scene_registry_destroy(mine);
    pf_scene_registry_destroy(base);
}
END_TEST

/* ---- error codes and file:line ---- */

static void expect_error(const char *xml, int code, const char *where, const char *what)
{
    pf_scene *s = (pf_scene *)1;
    int rc = load_text(xml, &s, NULL);
    ck_assert_msg(rc == code, "expected %s, got %s: %s\n%s", pf_status_name(code), pf_status_name(rc),
                  pf_last_error(), xml);
    ck_assert_ptr_null(s);
    ck_assert_msg(strncmp(pf_last_error(), where, strlen(where)) == 0 && strstr(pf_last_error(), what),
                  "message '%s' lacks '%s' ... '%s'", pf_last_error(), where, what);
}

START_TEST(test_error_codes)
{
    expect_error("<Node>\n<Node>\n</Nod>", PF_EPARSE, "t.xml:3:", "malformed XML");
    expect_error("<Node>\n<Bogus/></Node>", PF_EPARSE, "t.xml:2:", "unknown component 'Bogus'");
    expect_error("<Node>\n<Node><MechanicalObject position='0 0 0'/>\n<UniformMass totalMass='-1'/></Node></Node>",
                 PF_EINVAL, "t.xml:3:", "totalMass");
    expect_error("<Node dt='0'/>", PF_EINVAL, "t.xml:1:", "dt");
    expect_error("<Node>\n<Node><MechanicalObject decompose='blocks'/></Node></Node>", PF_EPARSE, "t.xml:2:",
                 "decompose must be auto, on or off, got 'blocks'");
    expect_error("<Node>\n<Node><MechanicalObject blockElements='12.5'/></Node></Node>", PF_EPARSE, "t.xml:2:",
                 "blockElements must be a whole number");
    expect_error("<Node>\n<Node>\n<MechanicalObject blockElements='0'/></Node></Node>", PF_EINVAL, "t.xml:3:",
                 "blockElements");
    expect_error("<Node>\n<Node><RegularGridTopology n='4 4 4'/><MechanicalObject/>\n"
                 "<HexahedronFEMForceField poissonRatio='0.5'/></Node></Node>",
                 PF_EINVAL, "t.xml:3:", "poissonRatio");
    expect_error("<Node>\n<Node><MechanicalObject template='Rigid3d' position='0 0 0'/></Node></Node>", PF_EPARSE,
                 "t.xml:2:", "needs 7 numbers");
    expect_error("<Node>\n<Node><MechanicalObject position='0 0 0'/>\n"
                 "<StiffSpringForceField object1='@../nowhere' spring='0 0 1 0 1'/></Node></Node>",
                 PF_EINVAL, "t.xml:3:", "dangling link");
    expect_error("<Node>\n<Node><MechanicalObject position='0 0 x'/></Node></Node>", PF_EPARSE, "t.xml:2:",
                 "not a number");
    /* an unknown attribute is an error under strict only (a warning otherwise: tests/test_scenes_sofa.c) */
    const char *colour = "<Node>\n<EulerImplicitSolver rayleighMass='0.1' colour='red'/></Node>";
    pf_scene_load_def strict = quiet_def();
    strict.strict = 1;
    pf_scene *s = NULL;
    ck_assert_int_eq(pf_scene_load_memory(&strict, "t.xml", colour, strlen(colour), NULL, &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:2: EulerImplicitSolver: unknown attribute 'colour'"), "%s",
                  pf_last_error());
    expect_error("<!DOCTYPE n [<!ENTITY a 'aaaa'>]>\n<Node/>", PF_EPARSE, "t.xml:1:", "DOCTYPE");
}
END_TEST

START_TEST(test_visual_note_once)
{
    const char *xml = "<Node><RequiredPlugin name='x'/>\n<Replicate count='4 1 1' step='1 0 0'><Node name='n'>"
                      "<MechanicalObject position='0 0 0' printLog='true'/><OglModel/></Node></Replicate></Node>";
    pf_scene *s = NULL;
    reports r = {0};
    ck_assert_msg(load_text(xml, &s, &r) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(r.notes, 2);    /* RequiredPlugin, OglModel: once each, not once per copy */
    ck_assert_int_eq(r.warnings, 2); /* printLog ignored; no solver above the objects */
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes");
    TCase *tc = tcase_create("builtin");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_bars64_equals_code);
    tcase_add_loop_test(tc, test_springgrid_equals_code, 0, 2);
    tcase_add_test(tc, test_every_builtin_runs);
    suite_add_tcase(s, tc);
    TCase *ta = tcase_create("attributes");
    tcase_set_timeout(ta, 60);
    tcase_add_test(ta, test_grid_and_replicate_positions);
    tcase_add_test(ta, test_mesh_positions_velocities_fixed);
    tcase_add_test(ta, test_collision_settings_parsed);
    tcase_add_test(ta, test_links_join_groups);
    tcase_add_test(ta, test_obj_loader);
    tcase_add_test(ta, test_host_registers_component);
    tcase_add_test(ta, test_error_codes);
    tcase_add_test(ta, test_visual_note_once);
    suite_add_tcase(s, ta);
    return s;
}
