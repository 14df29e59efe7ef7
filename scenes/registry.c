/* The component registry: an object mapping element names to constructors; a default one holds the built-in
 * components, and a host copies and extends it (no global mutable state). */
#include "scene_internal.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <string.h>

void pf_scene_registry_destroy(pf_scene_registry *r)
{
    if (!r) return;
    for (size_t k = 0; k < r->entries.n; k++) pf_free((void *)r->entries.v[k].name);
    pf_vec_free(&r->entries);
    pf_free(r);
}

static pf_scene_component_def *find_entry(const pf_scene_registry *r, const char *name)
{
    for (size_t k = 0; k < r->entries.n; k++)
        if (!strcmp(r->entries.v[k].name, name)) return &r->entries.v[k];
    return NULL;
}

const pf_scene_component_def *pf_scene_registry_find(const pf_scene_registry *r, const char *name)
{
    return r && name ? find_entry(r, name) : NULL;
}

int pf_scene_register(pf_scene_registry *r, const pf_scene_component_def *def)
{
    static const char fn[] = "pf_scene_register";
    PF_TRY(pf_check_given(r, fn, "registry"));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_given(def->name, fn, "def.name"));
    if (!def->name[0]) return pf_error(PF_EINVAL, "%s: def.name is empty", fn);
    PF_TRY(pf_check_enum((int)def->stage, 2, fn, "def.stage"));
    pf_scene_component_def *e = find_entry(r, def->name);
    if (e) { /* replace, keeping the owned name */
        const char *name = e->name;
        *e = *def;
        e->name = name;
        return PF_OK;
    }
    size_t len = strlen(def->name) + 1;
    char *name = pf_malloc(len);
    if (!name || pf_vec_reserve(&r->entries, r->entries.n + 1)) {
        pf_free(name);
        return pf_error(PF_ENOMEM, "out of memory registering '%s'", def->name);
    }
    memcpy(name, def->name, len);
    r->entries.v[r->entries.n] = *def;
    r->entries.v[r->entries.n++].name = name;
    return PF_OK;
}

int pf_scene_registry_copy(const pf_scene_registry *src, pf_scene_registry **out)
{
    PF_TRY(pf_check_given(out, "pf_scene_registry_copy", "out"));
    *out = NULL;
    PF_TRY(pf_check_given(src, "pf_scene_registry_copy", "src"));
    pf_scene_registry *r = pf_calloc(1, sizeof *r);
    if (!r) return pf_error(PF_ENOMEM, "out of memory for a registry");
    for (size_t k = 0; k < src->entries.n; k++) {
        int rc = pf_scene_register(r, &src->entries.v[k]);
        if (rc) {
            pf_scene_registry_destroy(r);
            return rc;
        }
    }
    *out = r;
    return PF_OK;
}

int pf_scene_registry_create(pf_scene_registry **out)
{
    PF_TRY(pf_check_given(out, "pf_scene_registry_create", "out"));
    pf_scene_registry builtin = {
        {(pf_scene_component_def *)sc_builtin_components, sc_builtin_component_count, sc_builtin_component_count}};
    return pf_scene_registry_copy(&builtin, out);
}

pf_scene_load_def pf_scene_default_load_def(void)
{
    pf_scene_load_def d;
    memset(&d, 0, sizeof d);
    d.world = pf_world_default_def();
    d.override_broadphase = 0;
    d.broadphase = PF_BP_KD;
    return d;
}
