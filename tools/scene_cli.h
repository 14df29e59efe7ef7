/* Scene loading shared by physflow run and physflow check: a built-in name or a file path, errors on stderr. */
#ifndef PF_TOOLS_SCENE_CLI_H
#define PF_TOOLS_SCENE_CLI_H

#include "physflow/scene.h"

/* Loads `arg` (a built-in scene name, else a file) into *out with world settings `wd` and, when dt > 0, that
 * time step. Returns 0, or the exit code after a message on stderr: 2 for bad input (file:line: message),
 * 1 when out of memory. */
int scene_cli_load(const char *cmd, const char *arg, const pf_world_def *wd, double dt, pf_scene **out);
/* Same with every load setting given. */
int scene_cli_load_def(const char *cmd, const char *arg, const pf_scene_load_def *def, pf_scene **out);
/* Parses a --dt value in (0, SCENE_CLI_DT_MAX) seconds, the scene loader's range; 0, or 2 after a message naming
 * the option, the value and the range. */
#define SCENE_CLI_DT_MAX 1e300
int scene_cli_dt(const char *cmd, const char *text, double *dt);

#endif
