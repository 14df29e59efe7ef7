/* The scene API against wrong calls: every public function of physflow/scene.h given NULL, out-of-range, NaN and
 * wrong arguments, components that fail wrongly, mesh folders with and without a trailing '/', and the loader's
 * documented defaults for dt and gravity (docs/scenes.md: 0.01 s, 0 0 -9.81 m/s²). */
#include "check_main.h"

#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void assert_message(const char *fn, const char *what)
{
    const char *m = pf_last_error();
    if (fn) ck_assert_msg(strstr(m, fn), "message '%s' should name %s", m, fn);
    if (what) ck_assert_msg(strstr(m, what), "message '%s' should name %s", m, what);
    static const char *const bad[] = {"&&", "||", "->", "!=", "==", "!(", "invalid argument"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        ck_assert_msg(!strstr(m, bad[k]), "message '%s' contains '%s'", m, bad[k]);
}

/* a call refused with a negative code and a message naming fn and what */
#define REFUSED(call, fn, what)                                                                              \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        ck_assert_msg(rc_ < 0, "%s returned %d", #call, rc_);                                                \
        assert_message(fn, what);                                                                            \
    } while (0)

static void quiet_report(pf_scene_severity sev, const char *msg, void *ctx)
{
    (void)sev;
    (void)msg;
    (void)ctx;
}

static pf_scene_load_def load_def(void)
{
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    d.report = quiet_report;
    return d;
}

static const char *const POINT_SCENE =
    "<Node name='root'>\n"
    "  <Node name='a'>\n"
    "    <EulerImplicitSolver/>\n"
    "    <MechanicalObject position='0 0 0 1 0 0'/>\n"
    "  </Node>\n"
    "</Node>\n";
enum { POINT_SCENE_ELEMENTS = 4 }; /* two Nodes, a solver, a MechanicalObject */

static int load_text(const pf_scene_load_def *d, const char *text, const char *dir, pf_scene **out)
{
    return pf_scene_load_memory(d, "t.xml", text, strlen(text), dir, out);
}

START_TEST(load_calls)
{
    pf_scene_load_def d = load_def();
    pf_scene *s = NULL;
    REFUSED(pf_scene_load_memory(&d, "t.xml", POINT_SCENE, strlen(POINT_SCENE), NULL, NULL), "pf_scene_load_memory", "out");
    REFUSED(pf_scene_load_memory(&d, "t.xml", NULL, 10, NULL, &s), "pf_scene_load_memory", "text");
    ck_assert_ptr_null(s);
    const double bad_dt[] = {NAN, -1, INFINITY, 1e300};
    for (size_t k = 0; k < 4; k++) {
        d.dt = bad_dt[k];
        REFUSED(load_text(&d, POINT_SCENE, NULL, &s), "pf_scene_load_memory", "def.dt");
        ck_assert_msg(strstr(pf_last_error(), "(0, 1e300)"), "%s", pf_last_error());
    }
    d = load_def();
    d.override_broadphase = 1;
    d.broadphase = (pf_broadphase_method)99;
    REFUSED(load_text(&d, POINT_SCENE, NULL, &s), "pf_scene_load_memory", "def.broadphase");
    d.broadphase = PF_BP_KD_RAW;
    REFUSED(load_text(&d, POINT_SCENE, NULL, &s), "pf_scene_load_memory", "def.broadphase");
    d = load_def();
    d.override_broadphase = 2;
    REFUSED(load_text(&d, POINT_SCENE, NULL, &s), "pf_scene_load_memory", "def.override_broadphase");
    d = load_def();
    d.world.runtime.workers = -3;
    REFUSED(load_text(&d, POINT_SCENE, NULL, &s), "pf_scene_load_memory", "def.world.runtime.workers");
    d = load_def();
    d.world.runtime.executor = (pf_executor)77;
    REFUSED(load_text(&d, POINT_SCENE, NULL, &s), "pf_scene_load_memory", "def.world.runtime.executor");

    REFUSED(pf_scene_load_file(NULL, NULL, &s), "pf_scene_load_file", "path");
    REFUSED(pf_scene_load_file(NULL, "x.xml", NULL), "pf_scene_load_file", "out");
    REFUSED(pf_scene_load_builtin(NULL, NULL, &s), "pf_scene_load_builtin", "name");
    REFUSED(pf_scene_load_builtin(NULL, "bars64", NULL), "pf_scene_load_builtin", "out");
    ck_assert_int_eq(pf_scene_load_builtin(NULL, "no-such-scene", &s), PF_EINVAL);
    assert_message("pf_scene_load_builtin", "no-such-scene");
    ck_assert_ptr_null(pf_scene_builtin(NULL, NULL));
    ck_assert_ptr_null(pf_scene_builtin("no-such-scene", NULL));
    ck_assert_ptr_nonnull(pf_scene_builtin_names());

    /* the scene accessors given NULL */
    pf_object_id id;
    pf_scene_summary sum;
    REFUSED(pf_scene_find_object(NULL, "a", &id), "pf_scene_find_object", "scene");
    REFUSED(pf_scene_get_summary(NULL, &sum), "pf_scene_get_summary", "scene");
    ck_assert_ptr_null(pf_scene_world(NULL));
    ck_assert_ptr_null(pf_scene_release_world(NULL));
    ck_assert_ptr_null(pf_scene_collision_settings(NULL));
    const pf_scene_collision_model *models = (const void *)1;
    ck_assert_uint_eq(pf_scene_collision_models(NULL, &models), 0);
    pf_scene_destroy(NULL);
    const pf_scene_kind *kinds = (const void *)1;
    ck_assert_uint_eq(pf_scene_kinds(NULL, &kinds), 0);
    ck_assert_ptr_null(kinds);

    d = load_def();
    ck_assert_int_eq(load_text(&d, POINT_SCENE, NULL, &s), PF_OK);
    REFUSED(pf_scene_find_object(s, NULL, &id), "pf_scene_find_object", "path");
    REFUSED(pf_scene_find_object(s, "a", NULL), "pf_scene_find_object", "out");
    ck_assert_int_eq(pf_scene_find_object(s, "nobody", &id), PF_EINVAL);
    assert_message("pf_scene_find_object", "nobody");
    REFUSED(pf_scene_get_summary(s, NULL), "pf_scene_get_summary", "out");
    /* every element of the scene is one kind's element; the counts add up to the file's elements */
    uint32_t nk = pf_scene_kinds(s, &kinds), total = 0;
    ck_assert_uint_gt(nk, 0);
    ck_assert_uint_eq(pf_scene_kinds(s, NULL), nk); /* out may be NULL: only the count */
    for (uint32_t k = 0; k < nk; k++) {
        ck_assert_ptr_nonnull(kinds[k].mapped_to);
        total += kinds[k].count;
    }
    ck_assert_uint_eq(total, POINT_SCENE_ELEMENTS);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(registry_calls)
{
    pf_scene_registry *r = NULL;
    REFUSED(pf_scene_registry_create(NULL), "pf_scene_registry_create", "out");
    REFUSED(pf_scene_registry_copy(NULL, &r), "pf_scene_registry_copy", "src");
    ck_assert_ptr_null(r);
    ck_assert_int_eq(pf_scene_registry_create(&r), PF_OK);
    pf_scene_registry *copy;
    REFUSED(pf_scene_registry_copy(r, NULL), "pf_scene_registry_copy", "out");
    pf_scene_component_def def = {.name = NULL, .stage = PF_SCENE_STAGE_FORCES};
    REFUSED(pf_scene_register(r, &def), "pf_scene_register", "def.name");
    def.name = "";
    REFUSED(pf_scene_register(r, &def), "pf_scene_register", "def.name");
    def.name = "X";
    def.stage = (pf_scene_stage)5;
    REFUSED(pf_scene_register(r, &def), "pf_scene_register", "def.stage");
    REFUSED(pf_scene_register(NULL, &def), "pf_scene_register", "registry");
    REFUSED(pf_scene_register(r, NULL), "pf_scene_register", "def");
    ck_assert_ptr_null(pf_scene_registry_find(r, "X"));
    ck_assert_ptr_null(pf_scene_registry_find(NULL, "X"));
    ck_assert_ptr_null(pf_scene_registry_find(r, NULL));
    ck_assert_int_eq(pf_scene_registry_copy(r, &copy), PF_OK);
    pf_scene_registry_destroy(copy);
    pf_scene_registry_destroy(r);
    pf_scene_registry_destroy(NULL);

    /* component calls given NULL (outside a constructor) */
    double x;
    REFUSED(pf_scene_component_real(NULL, "a", 0, 1, &x), "pf_scene_component_real", "component");
    REFUSED(pf_scene_component_reals(NULL, "a", 1, &x), "pf_scene_component_reals", "component");
    REFUSED(pf_scene_component_error(NULL, PF_EINVAL, "%s", "x"), "pf_scene_component_error", "component");
    pf_object_id id;
    REFUSED(pf_scene_component_object(NULL, &id), "pf_scene_component_object", "component");
    REFUSED(pf_scene_component_link_object(NULL, "a", &id), "pf_scene_component_link_object", "component");
    ck_assert_ptr_null(pf_scene_component_string(NULL, "a"));
    ck_assert_ptr_null(pf_scene_component_object_def(NULL));
    ck_assert_ptr_null(pf_scene_component_world(NULL));
    ck_assert_int_eq(pf_scene_component_line(NULL), 0);
    ck_assert_str_eq(pf_scene_component_type(NULL), "");
    pf_scene_component_ignore(NULL, "a");
    pf_scene_component_warning(NULL, "%s", "x");
}
END_TEST

/* ---- components that fail wrongly ---- */

typedef struct probe {
    int mode;
    int results[8];
} probe;

static int odd_component(pf_scene_component *c, void *ctx)
{
    probe *p = ctx;
    double x, v[2];
    pf_object_id id;
    switch (p->mode) {
    case 0: return 1; /* not a PhysFlow status */
    case 1: return PF_EINVAL; /* no message */
    case 2: /* wrong calls from inside a constructor */
        p->results[0] = pf_scene_component_real(c, "a", 1, 0, &x);
        p->results[1] = pf_scene_component_real(c, "a", NAN, 1, &x);
        p->results[2] = pf_scene_component_reals(c, "a", 2, NULL);
        p->results[3] = pf_scene_component_reals(c, NULL, 2, v);
        p->results[4] = pf_scene_component_object(c, NULL);
        p->results[5] = pf_scene_component_link_object(c, NULL, &id);
        p->results[6] = pf_scene_component_reals(c, "a", (size_t)-8, v);
        return PF_OK;
    default: return PF_OK;
    }
}

static int load_with(probe *p)
{
    pf_scene_registry *r;
    ck_assert_int_eq(pf_scene_registry_create(&r), PF_OK);
    pf_scene_component_def def = {.name = "Odd", .stage = PF_SCENE_STAGE_FORCES, .fn = odd_component, .ctx = p};
    ck_assert_int_eq(pf_scene_register(r, &def), PF_OK);
    pf_scene_load_def d = load_def();
    d.registry = r;
    const char *text = "<Node name='root'>\n"
                       "  <Node name='a'>\n"
                       "    <EulerImplicitSolver/>\n"
                       "    <MechanicalObject position='0 0 0 1 0 0'/>\n"
                       "    <Odd/>\n"
                       "  </Node>\n"
                       "</Node>\n";
    pf_scene *s = NULL;
    int rc = pf_scene_load_memory(&d, "odd.xml", text, strlen(text), NULL, &s);
    pf_scene_destroy(s);
    pf_scene_registry_destroy(r);
    return rc;
}

/* Finding: a component returning 1 made the loader return 1. */
START_TEST(component_returning_one)
{
    probe p = {.mode = 0};
    int rc = load_with(&p);
    REFUSED(rc, "odd.xml:5", "Odd");
}
END_TEST

/* Finding: a component failing without a message left an unrelated older one. */
START_TEST(component_failing_silently)
{
    pf_scene_load_builtin(NULL, "no-such-scene", &(pf_scene *){NULL}); /* an older, unrelated message */
    probe p = {.mode = 1};
    ck_assert_int_eq(load_with(&p), PF_EINVAL);
    assert_message("odd.xml:5", "Odd");
    ck_assert_msg(!strstr(pf_last_error(), "no-such-scene"), "%s", pf_last_error());
}
END_TEST

static void forget(void *state)
{
    (void)state;
}

START_TEST(component_wrong_calls)
{
    probe p = {.mode = 2};
    ck_assert_int_eq(load_with(&p), PF_OK);
    for (int k = 0; k < 7; k++) ck_assert_msg(p.results[k] < 0, "call %d returned %d", k, p.results[k]);
    /* outside a constructor there is no component to hang a destructor on */
    REFUSED(pf_scene_component_on_destroy(NULL, forget, NULL), "pf_scene_component_on_destroy", "component");
}
END_TEST

/* ---- files ---- */

/* Finding: a missing scene file reported line 0 and no reason. */
START_TEST(missing_file_message)
{
    pf_scene *s = NULL;
    ck_assert_int_eq(pf_scene_load_file(NULL, "/nonexistent/dir/scene.xml", &s), PF_EIO);
    assert_message("pf_scene_load_file", "/nonexistent/dir/scene.xml");
    ck_assert_msg(strstr(pf_last_error(), "No such file"), "no reason in '%s'", pf_last_error());
    ck_assert_msg(!strstr(pf_last_error(), ":0:"), "line 0 in '%s'", pf_last_error());
}
END_TEST

static const char *const TET_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

/* Finding: dir "meshes" and file "tet.obj" opened "meshestet.obj". */
START_TEST(dir_join)
{
    char base[] = "/tmp/pf_api_scenes_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(base));
    char dir[256], file[300];
    snprintf(dir, sizeof dir, "%s/meshes", base);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(file, sizeof file, "%s/tet.obj", dir);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fputs(TET_OBJ, f);
    fclose(f);
    const char *text = "<Node name='root'>\n"
                       "  <Node name='a'>\n"
                       "    <EulerImplicitSolver/>\n"
                       "    <MeshObjLoader filename='tet.obj'/>\n"
                       "    <MechanicalObject/>\n"
                       "  </Node>\n"
                       "</Node>\n";
    pf_scene_load_def d = load_def();
    char slash[300];
    snprintf(slash, sizeof slash, "%s/", dir);
    const char *dirs[2] = {dir, slash};
    for (int k = 0; k < 2; k++) {
        pf_scene *s = NULL;
        int rc = load_text(&d, text, dirs[k], &s);
        ck_assert_msg(rc == PF_OK, "dir '%s': %s", dirs[k], pf_last_error());
        pf_scene_summary sum;
        ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
        ck_assert_uint_eq(sum.points, 4);
        pf_scene_destroy(s);
    }
    unlink(file);
    rmdir(dir);
    rmdir(base);
}
END_TEST

/* Finding: the loader's dt and gravity came from the host's world def when the scene's root omits them. */
START_TEST(loader_defaults)
{
    pf_scene_load_def d = load_def();
    d.world.gravity[0] = 5, d.world.gravity[1] = 6, d.world.gravity[2] = 7;
    d.world.dt = 0.5;
    pf_scene *s = NULL;
    ck_assert_int_eq(load_text(&d, POINT_SCENE, NULL, &s), PF_OK);
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    /* the documented defaults (docs/scenes.md, "Scene files"), written out here as the oracle */
    ck_assert(sum.dt == 0.01);
    ck_assert(sum.gravity[0] == 0 && sum.gravity[1] == 0 && sum.gravity[2] == -9.81);
    pf_scene_destroy(s);
    /* a scene that sets them keeps its own */
    const char *own = "<Node name='root' dt='0.002' gravity='1 2 3'>\n"
                      "  <Node name='a'><EulerImplicitSolver/><MechanicalObject position='0 0 0'/></Node>\n"
                      "</Node>\n";
    ck_assert_int_eq(load_text(&d, own, NULL, &s), PF_OK);
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert(sum.dt == 0.002 && sum.gravity[0] == 1 && sum.gravity[1] == 2 && sum.gravity[2] == 3);
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("api_scenes");
    TCase *tc = tcase_create("api_scenes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, load_calls);
    tcase_add_test(tc, registry_calls);
    tcase_add_test(tc, component_returning_one);
    tcase_add_test(tc, component_failing_silently);
    tcase_add_test(tc, component_wrong_calls);
    tcase_add_test(tc, missing_file_message);
    tcase_add_test(tc, dir_join);
    tcase_add_test(tc, loader_defaults);
    suite_add_tcase(s, tc);
    return s;
}
