/* The run viewer's writer as a host calls it (physflow/html.h): its defaults, wrong calls refused in the caller's
 * terms, an existing page never replaced without def.force, the frame stride, the scripts inlined from def.three_dir
 * (a stand-in folder here, so the test does not depend on the installed three.js), and a run that is the same with
 * and without the writer (oracle: the state hash of a world stepped alone). The page itself, in a browser:
 * tests/test_html_browser.py. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void assert_refused(int rc, int want, const char *fn, const char *what)
{
    ck_assert_msg(rc == want, "%s returned %d, expected %d (%s)", fn, rc, want, pf_last_error());
    ck_assert_msg(strstr(pf_last_error(), fn), "message '%s' should name %s", pf_last_error(), fn);
    ck_assert_msg(strstr(pf_last_error(), what), "message '%s' should say '%s'", pf_last_error(), what);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* The whole file, NUL-terminated (free it). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

/* A stand-in for Debian's libjs-three folder: the two files the page inlines, each a marker line. */
static void make_three_dir(const char *root, const char *orbit_text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/examples/js/controls", root);
    char cmd[320];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/three.min.js", root);
    write_file(p, "var THREE = {}; /* three stand-in */\n");
    snprintf(p, sizeof p, "%s/examples/js/controls/OrbitControls.js", root);
    write_file(p, orbit_text);
}

static pf_world *two_cubes_world(void)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 2);
    pf_object_def o = pf_object_default_def();
    for (int a = 0; a < 3; a++) o.grid[a] = 3, o.grid_min[a] = 0, o.grid_max[a] = 1;
    pf_object_id id;
    for (int k = 0; k < 2; k++) {
        o.grid_min[2] = 2.0 * k, o.grid_max[2] = 2.0 * k + 1;
        ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_springs(w, id, 100, 0, NULL, NULL), PF_OK);
    }
    return w;
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf_html_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(defaults_and_wrong_calls)
{
    pf_html_def def = pf_html_default_def();
    ck_assert_uint_eq(def.every, 0);
    ck_assert_uint_eq(def.max_bytes, (size_t)16 << 20);
    ck_assert_uint_eq(def.max_contacts, 4000);
    ck_assert_int_eq(def.force, 0);
    ck_assert_str_eq(def.title, "PhysFlow run");
    ck_assert_str_eq(def.three_dir, "/usr/share/javascript/three");
    char three[128], page[128];
    snprintf(three, sizeof three, "%s/three", dir);
    snprintf(page, sizeof page, "%s/page.html", dir);
    make_three_dir(three, "/* orbit stand-in */\n");
    def.three_dir = three;
    pf_world *w = two_cubes_world(), *other = two_cubes_world();
    pf_html_writer *h = (pf_html_writer *)&def; /* refusals set it to NULL */
    assert_refused(pf_html_begin(page, w, &def, NULL), PF_EINVAL, "pf_html_begin", "out");
    assert_refused(pf_html_begin(NULL, w, &def, &h), PF_EINVAL, "pf_html_begin", "path");
    ck_assert_ptr_null(h);
    assert_refused(pf_html_begin(page, NULL, &def, &h), PF_EINVAL, "pf_html_begin", "w");
    assert_refused(pf_html_begin(page, w, NULL, &h), PF_EINVAL, "pf_html_begin", "def");
    assert_refused(pf_html_begin("", w, &def, &h), PF_EINVAL, "pf_html_begin", "empty");
    pf_html_def bad = def;
    bad.max_bytes = 1000;
    assert_refused(pf_html_begin(page, w, &bad, &h), PF_EINVAL, "pf_html_begin", "def.max_bytes");
    bad.every = 5; /* a fixed stride needs no budget */
    bad.title = NULL;
    assert_refused(pf_html_begin(page, w, &bad, &h), PF_EINVAL, "pf_html_begin", "def.title");
    bad = def;
    bad.three_dir = NULL;
    assert_refused(pf_html_begin(page, w, &bad, &h), PF_EINVAL, "pf_html_begin", "def.three_dir");
    bad.three_dir = "/nonexistent/three";
    assert_refused(pf_html_begin(page, w, &bad, &h), PF_EIO, "pf_html_begin", "libjs-three");
    assert_refused(pf_html_begin(dir, w, &def, &h), PF_EIO, "pf_html_begin", "folder");
    assert_refused(pf_html_begin("/nonexistent/dir/page.html", w, &def, &h), PF_EIO, "pf_html_begin",
                   "/nonexistent/dir/page.html");
    ck_assert_ptr_null(h);
    ck_assert_int_eq(access(page, F_OK), -1); /* nothing written by the refusals */

    ck_assert_int_eq(pf_html_begin(page, w, &def, &h), PF_OK);
    assert_refused(pf_html_add_frame(NULL, w), PF_EINVAL, "pf_html_add_frame", "h");
    assert_refused(pf_html_add_frame(h, NULL), PF_EINVAL, "pf_html_add_frame", "w");
    assert_refused(pf_html_add_frame(h, other), PF_EINVAL, "pf_html_add_frame", "world the writer began with");
    assert_refused(pf_html_end(NULL), PF_EINVAL, "pf_html_end", "h");
    pf_html_discard(NULL);
    pf_html_discard(h); /* nothing written, the world's tracing given back */
    ck_assert_int_eq(access(page, F_OK), -1);
    ck_assert_int_eq(pf_runtime_trace_stop(pf_world_runtime(w)), PF_OK);
    ck_assert_int_lt(pf_runtime_trace_drain(pf_world_runtime(w), NULL, NULL), 0);

    /* a script that would end its <script> element early is refused, and nothing is written */
    make_three_dir(three, "var s = '</script>';\n");
    ck_assert_int_eq(pf_html_begin(page, w, &def, &h), PF_OK);
    assert_refused(pf_html_end(h), PF_EIO, "pf_html_end", "</script");
    ck_assert_int_eq(access(page, F_OK), -1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls '%s' | grep tmp)\"", dir); /* no temporary file left */
    ck_assert_int_eq(system(cmd), 0);
    pf_world_destroy(other);
    pf_world_destroy(w);
}
END_TEST

/* Counts "\"step\":" entries of the frames and checks each listed step. */
static int frames_of(const char *page, const long *steps, int n)
{
    int found = 0;
    for (const char *p = strstr(page, "{\"step\":"); p; p = strstr(p + 1, "{\"step\":")) found++;
    for (int k = 0; k < n; k++) {
        char key[48];
        snprintf(key, sizeof key, "{\"step\":%ld,", steps[k]);
        ck_assert_msg(strstr(page, key), "no frame of step %ld", steps[k]);
    }
    return found;
}

START_TEST(page_written_whole_and_never_over_a_file)
{
    char three[128], page[128];
    snprintf(three, sizeof three, "%s/three", dir);
    snprintf(page, sizeof page, "%s/page.html", dir);
    make_three_dir(three, "/* orbit stand-in */\n");
    pf_html_def def = pf_html_default_def();
    def.three_dir = three;
    def.every = 2;
    def.title = "two <cubes>";
    pf_world *w = two_cubes_world(), *alone = two_cubes_world();
    pf_html_writer *h = NULL;
    ck_assert_int_eq(pf_html_begin(page, w, &def, &h), PF_OK);
    for (int s = 0; s < 7; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        ck_assert_int_eq(pf_html_add_frame(h, w), PF_OK);
    }
    ck_assert_int_eq(pf_html_end(h), PF_OK);
    ck_assert_int_eq(pf_world_step(alone, 7), PF_OK);
    ck_assert_uint_eq(pf_world_state_hash(w), pf_world_state_hash(alone)); /* the writer only looks */
    ck_assert_int_lt(pf_runtime_trace_drain(pf_world_runtime(w), NULL, NULL), 0); /* tracing given back */

    char *text = read_file(page);
    const long steps[] = {0, 2, 4, 6};
    ck_assert_int_eq(frames_of(text, steps, 4), 4);
    ck_assert_ptr_nonnull(strstr(text, "var THREE = {}; /* three stand-in */"));
    ck_assert_ptr_nonnull(strstr(text, "/* orbit stand-in */"));
    ck_assert_ptr_nonnull(strstr(text, "<title>two &lt;cubes&gt;</title>"));
    ck_assert_ptr_nonnull(strstr(text, "\"workers\":2,\"objects\":2,"));
    ck_assert_ptr_null(strstr(text, "@@")); /* every marker of the template replaced */

    /* a second page at the same path: refused at begin, the first unchanged; with def.force it is replaced */
    def.every = 3;
    assert_refused(pf_html_begin(page, w, &def, &h), PF_EIO, "pf_html_begin", "exists");
    char *again = read_file(page);
    ck_assert_str_eq(again, text);
    free(again);
    def.force = 1;
    ck_assert_int_eq(pf_html_begin(page, w, &def, &h), PF_OK);
    for (int s = 0; s < 3; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        ck_assert_int_eq(pf_html_add_frame(h, w), PF_OK);
    }
    ck_assert_int_eq(pf_html_end(h), PF_OK);
    char *forced = read_file(page);
    const long steps2[] = {0, 3};
    ck_assert_int_eq(frames_of(forced, steps2, 2), 2);
    free(forced);
    free(text);
    pf_world_destroy(alone);
    pf_world_destroy(w);
}
END_TEST

/* def.every = 0 under a 1 MiB budget: a world of 40000 points (240 kB a frame, 320 kB in base64) keeps every step
 * at first, then every 2nd, 4th ...: the frames left are exactly the multiples of the final stride. */
START_TEST(automatic_stride_thins_the_frames)
{
    char three[128], page[128];
    snprintf(three, sizeof three, "%s/three", dir);
    snprintf(page, sizeof page, "%s/page.html", dir);
    make_three_dir(three, "/* orbit */\n");
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 40, o.grid[1] = 40, o.grid[2] = 25;
    o.grid_max[0] = o.grid_max[1] = o.grid_max[2] = 1;
    ck_assert_int_eq(pf_world_add_object(w, &o, NULL), PF_OK);
    pf_html_def def = pf_html_default_def();
    def.three_dir = three;
    def.max_bytes = (size_t)1 << 20;
    pf_html_writer *h = NULL;
    ck_assert_int_eq(pf_html_begin(page, w, &def, &h), PF_OK);
    for (int s = 0; s < 20; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        ck_assert_int_eq(pf_html_add_frame(h, w), PF_OK);
    }
    ck_assert_int_eq(pf_html_end(h), PF_OK);
    char *text = read_file(page);
    const char *e = strstr(text, "\"every\":");
    ck_assert_ptr_nonnull(e);
    long every = strtol(e + 8, NULL, 10);
    /* 320 kB frames: 3 fit in 1 MiB, a 4th halves them (0 1 2 3 -> 0 2, then 0 2 4 6 -> 0 4, 0 4 8 12 -> 0 8):
       after 20 steps the stride is 8 and the frames are those of steps 0, 8 and 16 */
    ck_assert_int_eq(every, 8);
    const long steps[] = {0, 8, 16};
    ck_assert_int_eq(frames_of(text, steps, 3), 3);
    free(text);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("api_html");
    TCase *tc = tcase_create("html");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, defaults_and_wrong_calls);
    tcase_add_test(tc, page_written_whole_and_never_over_a_file);
    tcase_add_test(tc, automatic_stride_thins_the_frames);
    suite_add_tcase(s, tc);
    return s;
}
