/* Scene loading for the physflow commands: built-in names first, then files. */
#include "scene_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int scene_cli_load(const char *cmd, const char *arg, const pf_world_def *wd, double dt, pf_scene **out)
{
    pf_scene_load_def def = pf_scene_default_load_def();
    def.world = *wd;
    def.dt = dt;
    return scene_cli_load_def(cmd, arg, &def, out);
}

int scene_cli_load_def(const char *cmd, const char *arg, const pf_scene_load_def *def, pf_scene **out)
{
    int rc;
    if (pf_scene_builtin(arg, NULL)) {
        rc = pf_scene_load_builtin(def, arg, out);
    } else if (access(arg, R_OK) != 0) {
        fprintf(stderr, "%s: '%s' is neither a built-in scene (%s) nor a readable file\n", cmd, arg,
                pf_scene_builtin_names());
        return 2;
    } else {
        rc = pf_scene_load_file(def, arg, out);
    }
    if (rc == PF_OK) return 0;
    fprintf(stderr, "%s\n", pf_last_error());
    return rc == PF_ENOMEM ? 1 : 2;
}

int scene_cli_dt(const char *cmd, const char *text, double *dt)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    /* the range pf_scene_load_def.dt accepts: > 0 and below 1e300 */
    if (errno || end == text || *end || !isfinite(v) || !(v > 0) || !(v < SCENE_CLI_DT_MAX)) {
        fprintf(stderr, "%s: --dt: expected a time step in seconds in (0, %g), got '%s'\n", cmd, SCENE_CLI_DT_MAX,
                text);
        return 2;
    }
    *dt = v;
    return 0;
}
