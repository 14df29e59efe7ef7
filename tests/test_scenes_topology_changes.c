/* SOFA's TopologicalChangeProcessor in the project's own scenes (tests/scenes/topo_remove_*.xml and their command
 * files): the elements leave the force field at the step whose start time reaches their T= (with the processor's
 * shift), renumbered as SOFA's rule says (written plainly here, applied to the field's list at load); the scenes
 * run on; bad command files are load errors naming the file and line, an index out of range when its command
 * runs is dropped with a warning (as SOFA's modifiers drop it); the masses and derived surfaces are warned about. */
#include "check_main.h"
#include "scene_files.h"

#include "physics/force_field.h"
#include "physics/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the elements of the first force field of the object at `path` (count returned, corners in *corners) */
static uint32_t elements_of(pf_scene *s, const char *path, uint32_t *out, uint32_t *corners)
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, path, &o), PF_OK);
    const pf_object *obj = pf_scene_world(s)->obj.v[o.index];
    if (obj->ff.n == 0) return 0;
    const pf_force_field *ff = &obj->ff.v[0];
    const pf_force_field_ops *ops = pf_force_field_kinds[ff->kind];
    uint32_t n = ops->elements(ff, corners);
    for (uint32_t e = 0; out && e < n; e++) ops->element(ff, e, out + (size_t)e * *corners);
    return n;
}

/* SOFA's rule: the indices taken in decreasing order, each slot given the list's last element */
static uint32_t sofa_remove(uint32_t *elems, uint32_t m, uint32_t corners, const uint32_t *rm, uint32_t nrm)
{
    uint32_t d[16];
    memcpy(d, rm, nrm * sizeof *d);
    for (uint32_t i = 0; i < nrm; i++)
        for (uint32_t j = i + 1; j < nrm; j++)
            if (d[j] > d[i]) {
                uint32_t t = d[i];
                d[i] = d[j], d[j] = t;
            }
    for (uint32_t i = 0; i < nrm; i++, m--)
        memmove(elems + (size_t)d[i] * corners, elems + (size_t)(m - 1) * corners, corners * sizeof *elems);
    return m;
}

/* Steps the scene one step at a time; after `steps` steps, the field holds want (m elements). */
static void expect_after(pf_scene *s, const char *path, uint32_t *stepped, uint32_t steps, const uint32_t *want,
                         uint32_t m, uint32_t corners)
{
    uint32_t got[64 * 8], c;
    for (; *stepped < steps; ++*stepped) {
        uint32_t before = elements_of(s, path, NULL, &c);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
        /* no change before the last step of the stretch */
        if (*stepped + 1 < steps) ck_assert_uint_eq(elements_of(s, path, NULL, &c), before);
    }
    ck_assert_uint_eq(elements_of(s, path, got, &c), m);
    ck_assert_uint_eq(c, corners);
    ck_assert(memcmp(got, want, (size_t)m * corners * sizeof *got) == 0);
}

START_TEST(tetrahedra_leave_at_their_times)
{
    pf_scene *s = load_test_scene("topo_remove_tetra.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    uint32_t list[30 * 4], c, stepped = 0;
    ck_assert_uint_eq(elements_of(s, "beam", list, &c), 30);
    /* T= 0.05: the steps start at 0, 0.01, ...: the sixth step's start (after 5) removes 0 and 29 */
    expect_after(s, "beam", &stepped, 5, list, 30, 4);
    uint32_t m = sofa_remove(list, 30, 4, (const uint32_t[]){0, 29}, 2);
    expect_after(s, "beam", &stepped, 6, list, m, 4);
    ck_assert_uint_eq(m, 28);
    /* T= 0.1: the eleventh step's start; indices in the numbering after the first removal */
    expect_after(s, "beam", &stepped, 10, list, m, 4);
    m = sofa_remove(list, m, 4, (const uint32_t[]){5, 1, 27}, 3);
    expect_after(s, "beam", &stepped, 11, list, m, 4);
    ck_assert_uint_eq(m, 25);
    /* and it runs on, sagging under gravity with its loose end */
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 40), PF_OK);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(hexahedra_leave_with_the_shift)
{
    pf_scene *s = load_test_scene("topo_remove_hexa.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    uint32_t list[12 * 8], c, stepped = 0;
    ck_assert_uint_eq(elements_of(s, "block", list, &c), 12);
    /* SOFA's RegularGridTopology numbers its cells x fastest: cell 11 is the last one, at (2, 1, 1) */
    ck_assert_uint_eq(list[8 * 11], 2 + 4 * (1 + 3 * 1));
    /* T= 0.03 less the shift of 0.01: the third step's start */
    expect_after(s, "block", &stepped, 2, list, 12, 8);
    uint32_t m = sofa_remove(list, 12, 8, (const uint32_t[]){11, 2}, 2);
    expect_after(s, "block", &stepped, 3, list, m, 8);
    expect_after(s, "block", &stepped, 4, list, m, 8);
    m = sofa_remove(list, m, 8, (const uint32_t[]){0}, 1);
    expect_after(s, "block", &stepped, 5, list, m, 8);
    ck_assert_uint_eq(m, 9);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
    pf_scene_destroy(s);
}
END_TEST

/* the same scene, removals included, on the static executor with 2 workers: the sequential hash */
START_TEST(executors_agree_across_removals)
{
    uint64_t h[2];
    for (int k = 0; k < 2; k++) {
        pf_scene *s = load_test_scene("topo_remove_tetra.xml", k ? PF_EXEC_STATIC : PF_EXEC_SEQ, PF_PART_OWNER,
                                      k ? 2 : 1);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 15), PF_OK);
        h[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    ck_assert_uint_eq(h[0], h[1]);
}
END_TEST

typedef struct reports {
    int warnings;
    char all[2048];
} reports;

static void collect(pf_scene_severity sev, const char *msg, void *ctx)
{
    reports *r = ctx;
    if (sev != PF_SCENE_NOTE) r->warnings++;
    size_t n = strlen(r->all);
    snprintf(r->all + n, sizeof r->all - n, "%s\n", msg);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A scene of two tetrahedra with a processor reading `changes` (written beside it), `extra` components before it
 * (on the FEM's line): its load's return code. */
static int load_with_extra(const char *changes, const char *extra, reports *r, pf_scene **s)
{
    char dir[] = "/tmp/pf_topo_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/c.txt", dir);
    write_file(path, changes);
    const char *xml = "<Node dt='0.01'>\n<EulerImplicitSolver/><CGLinearSolver/>\n"
                      "<TetrahedronSetTopologyContainer position='0 0 0 1 0 0 0 1 0 0 0 1 1 1 1' "
                      "tetrahedra='0 1 2 3 1 2 3 4'/>\n<MechanicalObject/>\n<DiagonalMass massDensity='1'/>\n"
                      "<TetrahedronFEMForceField youngModulus='100' poissonRatio='0.3'/>%s\n"
                      "<TopologicalChangeProcessor filename='c.txt'/>\n</Node>\n";
    char scene[256], text[1024];
    snprintf(scene, sizeof scene, "%s/s.xml", dir);
    snprintf(text, sizeof text, xml, extra);
    write_file(scene, text);
    pf_scene_load_def d = quiet_load_def();
    d.report = collect;
    d.report_ctx = r;
    *s = NULL;
    int rc = pf_scene_load_file(&d, scene, s);
    unlink(path);
    unlink(scene);
    rmdir(dir);
    return rc;
}

static int load_with(const char *changes, reports *r, pf_scene **s)
{
    return load_with_extra(changes, "", r, s);
}

static void expect_refused(const char *changes, int code, const char *where, const char *what)
{
    reports r = {0};
    pf_scene *s;
    ck_assert_int_eq(load_with(changes, &r, &s), code);
    ck_assert_ptr_null(s);
    const char *m = pf_last_error();
    ck_assert_msg(strstr(m, where) && strstr(m, what), "message '%s' should say '%s' and '%s'", m, where, what);
    ck_assert_msg(strstr(m, "s.xml:7: TopologicalChangeProcessor"), "message '%s' should name the scene's line", m);
}

START_TEST(bad_command_files)
{
    expect_refused("T= 0.1\nADD= Tetrahedron 1\n0 1 2 3\n", PF_ENOTSUP, "c.txt:2:", "ADD= is not supported");
    expect_refused("T= 0.1\nINCISE= 2\n0 0 0 1 1 1\n", PF_ENOTSUP, "c.txt:2:", "INCISE= is not supported");
    expect_refused("T= soon\n", PF_EPARSE, "c.txt:1:", "T= needs a time in s, got 'soon'");
    expect_refused("\nT= 0.1\nREMOVE= 1\nx\n", PF_EPARSE, "c.txt:4:", "'x' is not an element index");
    expect_refused("T= 0.1\nREMOVE= 2\n1 1\n", PF_EPARSE, "c.txt:3:", "element 1 is removed twice");
    expect_refused("T= 0.1\nREMOVE= 3\n1\n", PF_EPARSE, "c.txt:2:", "gives 1 indices");
    expect_refused("T= 0.1\nREMOVE= 1\n", PF_EPARSE, "c.txt:2:", "the file ends");
    expect_refused("T= 0.1\nMOVE= 1\n0\n", PF_EPARSE, "c.txt:2:", "unknown command 'MOVE='");
}
END_TEST

/* An index out of range when its command runs (2 tetrahedra, then 1) is dropped with a warning naming the line,
 * the command's others removed: SOFA's modifiers filter such indices out ("is out of bound and won't be
 * removed"). */
START_TEST(out_of_range_skipped)
{
    static const struct {
        const char *changes, *where, *what;
        uint32_t left; /* tetrahedra after 30 steps */
    } cases[] = {{"T= 0.1\nREMOVE= 1\n2\n", "c.txt:3:", "element 2 is out of range", 2},
                 {"T= 0.1\nREMOVE= 1\n0\nT= 0.2\nREMOVE= 1\n1\n", "c.txt:6:", "has 1 tetrahedra", 1},
                 {"T= 0.1\nREMOVE= 2\n0 5\n", "c.txt:3:", "element 5 is out of range", 1}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        reports r = {0};
        pf_scene *s;
        ck_assert_int_eq(load_with(cases[k].changes, &r, &s), PF_OK);
        ck_assert_msg(strstr(r.all, cases[k].where) && strstr(r.all, cases[k].what) && strstr(r.all, "not removed"),
                      "%s", r.all);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 30), PF_OK);
        uint32_t c;
        ck_assert_uint_eq(elements_of(s, "", NULL, &c), cases[k].left);
        pf_scene_destroy(s);
    }
}
END_TEST

START_TEST(read_as_sofa_reads)
{
    /* one index short: SOFA's stream reads 0 for it; before any T=: at once; the masses warned about */
    reports r = {0};
    pf_scene *s;
    ck_assert_int_eq(load_with("REMOVE= 2\n1\n", &r, &s), PF_OK);
    ck_assert_msg(strstr(r.all, "the missing one is read as 0"), "%s", r.all);
    ck_assert_msg(strstr(r.all, "masses of node"), "%s", r.all);
    uint32_t c;
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK);
    /* both went: the field with them */
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "", &o), PF_OK);
    ck_assert_uint_eq(pf_scene_world(s)->obj.v[o.index]->ff.n, 0);
    (void)c;
    pf_scene_destroy(s);
    /* several blocks come in one step: only the last one's commands run, as SOFA's reader drops the others */
    ck_assert_int_eq(load_with("T= 0.001\nREMOVE= 1\n0\nT= 0.002\nREMOVE= 1\n1\n", &r, &s), PF_OK);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK); /* t = 0: nothing yet */
    ck_assert_uint_eq(elements_of(s, "", NULL, &c), 2);
    uint32_t one[4];
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK); /* t = 0.01: the T= 0.002 block only */
    ck_assert_uint_eq(elements_of(s, "", one, &c), 1);
    ck_assert(one[0] == 0 && one[1] == 1 && one[2] == 2 && one[3] == 3);
    pf_scene_destroy(s);
}
END_TEST

/* Collision triangles and lines on the tetrahedra (the faces and edges their container derives) stay as loaded when
 * tetrahedra leave: warned, as SOFA's container would drop those of the removed ones. */
START_TEST(collision_faces_warned)
{
    reports r = {0};
    pf_scene *s;
    ck_assert_int_eq(load_with_extra("T= 0.1\nREMOVE= 1\n0\n", "<TriangleCollisionModel/>", &r, &s), PF_OK);
    ck_assert_msg(strstr(r.all, "collision triangles and lines of node") && strstr(r.all, "removed tetrahedra"), "%s",
                  r.all);
    pf_scene_destroy(s);
    reports q = {0};
    ck_assert_int_eq(load_with("T= 0.1\nREMOVE= 1\n0\n", &q, &s), PF_OK);
    ck_assert_ptr_null(strstr(q.all, "collision triangles"));
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_topology_changes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, tetrahedra_leave_at_their_times);
    tcase_add_test(tc, hexahedra_leave_with_the_shift);
    tcase_add_test(tc, executors_agree_across_removals);
    tcase_add_test(tc, bad_command_files);
    tcase_add_test(tc, out_of_range_skipped);
    tcase_add_test(tc, read_as_sofa_reads);
    tcase_add_test(tc, collision_faces_warned);
    suite_add_tcase(s, tc);
    return s;
}
