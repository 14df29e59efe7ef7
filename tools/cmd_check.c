/* physflow check: loads and validates a scene without running it; a summary line, then what the loader did with
 * each kind of component (mapped to what, warnings, skipped) and the warnings with their file:line. */
#include "cli_args.h"
#include "commands.h"
#include "scene_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The warnings of a load, kept for the report (and written to stderr as they come, as without a callback). */
typedef struct warnings {
    char **v;
    size_t n, cap;
} warnings;

static void keep_report(pf_scene_severity sev, const char *message, void *ctx)
{
    fprintf(stderr, "%s\n", message);
    warnings *w = ctx;
    if (sev != PF_SCENE_WARNING) return;
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        char **v = realloc(w->v, cap * sizeof *v);
        if (!v) return; /* the report then lists fewer; the load itself is unaffected */
        w->v = v;
        w->cap = cap;
    }
    char *copy = strdup(message);
    if (copy) w->v[w->n++] = copy;
}

static void warnings_free(warnings *w)
{
    for (size_t k = 0; k < w->n; k++) free(w->v[k]);
    free(w->v);
}

/* The table "component | count | mapped to | warnings | skipped", columns sized to their contents. */
static void print_kinds(const pf_scene *s, const warnings *w)
{
    const pf_scene_kind *k;
    uint32_t n = pf_scene_kinds(s, &k);
    int wt = (int)strlen("component"), wm = (int)strlen("mapped to");
    for (uint32_t i = 0; i < n; i++) {
        int lt = (int)strlen(k[i].type), lm = (int)strlen(k[i].mapped_to[0] ? k[i].mapped_to : "-");
        wt = lt > wt ? lt : wt;
        wm = lm > wm ? lm : wm;
    }
    printf("\n%-*s | count | %-*s | warnings | skipped\n", wt, "component", wm, "mapped to");
    for (uint32_t i = 0; i < n; i++)
        printf("%-*s | %5u | %-*s | %8u | %7u\n", wt, k[i].type, k[i].count, wm,
               k[i].mapped_to[0] ? k[i].mapped_to : "-", k[i].warnings, k[i].skipped);
    if (w->n) printf("\nwarnings (%zu):\n", w->n);
    for (size_t i = 0; i < w->n; i++) printf("  %s\n", w->v[i]);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow check SCENE [--dt S] [--data-path DIR:DIR] [--strict]\n"
                 "  Loads SCENE (a built-in scene: %s; or an XML scene file) and validates it without\n"
                 "  simulating: exit 0, a summary line and a table of what each kind of component was mapped to\n"
                 "  (with its warnings and skipped count), then the warnings; or 'file:line: message' on stderr\n"
                 "  and exit 2.\n"
                 "  An attribute no component knows is a warning ('file:line: warning: ...'), as in SOFA;\n"
                 "  --strict makes it an error. A relative file name (mesh, <include href>) is looked up beside\n"
                 "  the scene, then in each folder of --data-path and of PHYSFLOW_DATA_PATH (':' separated).\n",
            pf_scene_builtin_names());
}

int cmd_check(int argc, char **argv)
{
    const char *scene = NULL, *data_path = NULL;
    double dt = 0;
    int strict = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--dt")) {
            if (i + 1 == argc) {
                fprintf(stderr, "physflow check: option '--dt' needs a value\n");
                usage(stderr);
                return 2;
            }
            if (scene_cli_dt("physflow check", argv[++i], &dt)) return 2;
        } else if (!strcmp(argv[i], "--strict")) {
            strict = 1;
        } else if (!strcmp(argv[i], "--data-path")) {
            if (i + 1 == argc) {
                fprintf(stderr, "physflow check: option '--data-path' needs a value\n");
                usage(stderr);
                return 2;
            }
            data_path = argv[++i];
        } else if (argv[i][0] == '-') {
            return cli_unknown_option("check", argv[i], usage);
        } else if (scene) {
            fprintf(stderr, "physflow check: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            scene = argv[i];
        }
    }
    if (!scene) {
        usage(stderr);
        return 2;
    }
    /* validation needs no parallel team: one unpinned worker */
    pf_world_def wd = pf_world_default_def();
    wd.runtime.workers = 1;
    wd.runtime.executor = PF_EXEC_SEQ;
    wd.runtime.bind = 0;
    wd.runtime.quiet = 1;
    pf_scene *s = NULL;
    pf_scene_load_def def = pf_scene_default_load_def();
    def.world = wd;
    def.dt = dt;
    def.strict = strict;
    def.data_path = data_path;
    warnings w = {0};
    def.report = keep_report;
    def.report_ctx = &w;
    int rc = scene_cli_load_def("physflow check", scene, &def, &s);
    if (rc) {
        warnings_free(&w);
        return rc;
    }
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    printf("%s: ok: %u objects, %llu points, %u force fields (%llu springs), %u constraints (%llu fixed points), "
           "%u collision models (%u surfaces%s), dt %g s\n",
           scene, sum.objects, (unsigned long long)sum.points, sum.force_fields, (unsigned long long)sum.springs,
           sum.constraints, (unsigned long long)sum.fixed_points, sum.collision_models, sum.surfaces,
           pf_scene_collision_settings(s)->enabled ? ", collision on" : "", sum.dt);
    print_kinds(s, &w);
    warnings_free(&w);
    pf_scene_destroy(s);
    return 0;
}
