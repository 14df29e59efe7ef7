/* The scenes built into the library (scenes/ XML files, embedded at build time by scenes/embed_scenes.py). */
#include "scene_internal.h"

#include "base/check.h"
#include "base/error.h"

#include <stdio.h>
#include <string.h>

const char *pf_scene_builtin(const char *name, size_t *length)
{
    for (size_t k = 0; name && k < sc_builtin_scene_count; k++)
        if (!strcmp(sc_builtin_scenes[k].name, name)) {
            if (length) *length = sc_builtin_scenes[k].length;
            return sc_builtin_scenes[k].text;
        }
    return NULL;
}

const char *pf_scene_builtin_names(void)
{
    return sc_builtin_scene_names;
}

int pf_scene_load_builtin(const pf_scene_load_def *def, const char *name, pf_scene **out)
{
    PF_TRY(pf_check_given(out, "pf_scene_load_builtin", "out"));
    *out = NULL;
    PF_TRY(pf_check_given(name, "pf_scene_load_builtin", "name"));
    size_t len;
    const char *text = pf_scene_builtin(name, &len);
    if (!text) return pf_error(PF_EINVAL, "pf_scene_load_builtin: unknown built-in scene '%s' (known: %s)", name, pf_scene_builtin_names());
    char label[128];
    snprintf(label, sizeof label, "%s.xml", name);
    return sc_load_memory(def, label, text, len, NULL, 1, "pf_scene_load_builtin", out);
}
