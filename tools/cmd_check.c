/* physflow check: loads and validates a scene without running it; one summary line. */
#include "cli_args.h"
#include "commands.h"
#include "scene_cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow check SCENE [--dt S] [--data-path DIR:DIR] [--strict]\n"
                 "  Loads SCENE (a built-in scene: %s; or an XML scene file) and validates it without\n"
                 "  simulating: exit 0 and one summary line, or 'file:line: message' on stderr and exit 2.\n"
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
    int rc = scene_cli_load_def("physflow check", scene, &def, &s);
    if (rc) return rc;
    pf_scene_summary sum;
    pf_scene_get_summary(s, &sum);
    printf("%s: ok: %u objects, %llu points, %u force fields (%llu springs), %u constraints (%llu fixed points), "
           "%u collision models (%u surfaces%s), dt %g s\n",
           scene, sum.objects, (unsigned long long)sum.points, sum.force_fields, (unsigned long long)sum.springs,
           sum.constraints, (unsigned long long)sum.fixed_points, sum.collision_models, sum.surfaces,
           pf_scene_collision_settings(s)->enabled ? ", collision on" : "", sum.dt);
    pf_scene_destroy(s);
    return 0;
}
