/* Scenes a test writes as XML text, loaded from memory as "t.xml" with quiet_load_def (scene_files.h) and the
 * loader's reports dropped: load, load_ok (a failure fails the test with the loader's message) and expect_error. */
#ifndef PF_TESTS_SCENE_TEXT_H
#define PF_TESTS_SCENE_TEXT_H

#include "scene_files.h"

#include <string.h>

static inline void ignore_reports(pf_scene_severity sev, const char *msg, void *ctx)
{
    (void)sev, (void)msg, (void)ctx;
}

/* quiet_load_def with the loader's warnings and notes dropped */
static inline pf_scene_load_def silent_load_def(void)
{
    pf_scene_load_def d = quiet_load_def();
    d.report = ignore_reports;
    return d;
}

static inline int load(const char *xml, pf_scene **s)
{
    pf_scene_load_def d = silent_load_def();
    return pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, s);
}

static inline pf_scene *load_ok(const char *xml)
{
    pf_scene *s = NULL;
    ck_assert_msg(load(xml, &s) == PF_OK, "%s\n%s", pf_last_error(), xml);
    return s;
}

/* The load fails with code, no scene, and a message holding each of the two texts. */
static inline void expect_error(const char *xml, int code, const char *a, const char *b)
{
    pf_scene *s = NULL;
    ck_assert_int_eq(load(xml, &s), code);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(pf_last_error(), a) && strstr(pf_last_error(), b), "%s", pf_last_error());
}

#endif
