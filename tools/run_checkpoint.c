/* physflow run --checkpoint / --resume: the world's state (pf_world_save_state, written atomically) with a note
 * naming the scene and the settings that shape its trajectory (dt, broad phase), so that `--resume FILE`
 * rebuilds the same world, restores the state and goes on — bit for bit the uninterrupted run. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include "physflow/scene.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int run_checkpoint_write(pf_world *w, const run_opts *o, const char *path)
{
    /* a scene file is named by its absolute path, so a resume works from another folder */
    char full[PATH_MAX];
    const char *scene = o->scene;
    if (!pf_scene_builtin(scene, NULL) && realpath(scene, full)) scene = full;
    char note[PATH_MAX + 128];
    snprintf(note, sizeof note, "scene=%s\ndt=%.17g\nbroadphase=%d\n", scene, o->dt, o->broadphase);
    if (pf_world_save_state(w, path, note) == PF_OK) return 0;
    fprintf(stderr, "physflow run: %s\n", pf_last_error());
    return 1;
}

int run_checkpoint_scene(const char *path, run_opts *o, char **scene)
{
    char note[PATH_MAX + 128];
    if (pf_state_file_note(path, note, sizeof note)) {
        fprintf(stderr, "physflow run: --resume: %s\n", pf_last_error());
        return 2;
    }
    char *name = strstr(note, "scene="), *dt = strstr(note, "\ndt="), *bp = strstr(note, "\nbroadphase=");
    if (!name || !dt || !bp) {
        fprintf(stderr, "physflow run: --resume: %s: no scene recorded in the checkpoint\n", path);
        return 2;
    }
    *dt = 0; /* ends the scene's name */
    *scene = strdup(name + 6);
    if (!*scene) return 1;
    o->scene = *scene;
    o->dt = strtod(dt + 4, NULL);
    o->broadphase = (int)strtol(bp + 12, NULL, 10);
    return 0;
}
