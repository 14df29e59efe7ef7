/* SOFA's data path: where a file a scene names (a mesh, an <include>) is found. A relative name is looked up
 * beside the scene, then in each folder of pf_scene_load_def.data_path, then of PHYSFLOW_DATA_PATH, then of
 * the scene's AddDataRepository components, so that a scene written for SOFA ("mesh/liver.msh", found in
 * SOFA's share/) loads unchanged. */
#include "scene_internal.h"

#include "base/alloc.h"
#include "base/error.h"

#include <libxml/xpath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Joins folder (len bytes, may lack its '/') and file into path; 0, or -1 when it does not fit. */
static int join(const char *folder, size_t len, const char *file, char *path, size_t cap)
{
    const char *sep = len && folder[len - 1] != '/' ? "/" : "";
    int w = snprintf(path, cap, "%.*s%s%s", (int)len, folder, sep, file);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

/* Appends "folder" to the list of places looked in (for the message when nothing is found). */
static void note_place(char *looked, size_t cap, const char *folder, size_t len)
{
    size_t used = strlen(looked);
    if (used + 8 >= cap) return;
    snprintf(looked + used, cap - used, "%s'%.*s'", used ? ", " : "", (int)(len ? len : 1), len ? folder : ".");
}

/* Tries file in each folder of the ':' separated list; 1 when found (path set). */
static int try_list(const char *list, const char *file, char *path, size_t cap, char *looked, size_t lcap)
{
    if (!list) return 0;
    for (const char *p = list; *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len) { /* an empty entry ("a::b", a trailing ':') names no folder */
            note_place(looked, lcap, p, len);
            if (!join(p, len, file, path, cap) && access(path, R_OK) == 0) return 1;
        }
        if (!colon) break;
        p = colon + 1;
    }
    return 0;
}

int sc_resolve_scene_file(const sc_loader *L, const char *dir, const char *file, const char *what, char *path,
                          size_t cap)
{
    if (file[0] == '/') {
        if (snprintf(path, cap, "%s", file) >= (int)cap)
            return pf_error(PF_EINVAL, "%s path '%s' is longer than %zu bytes", what, file, cap - 1);
        return PF_OK; /* the reader says why it cannot be opened */
    }
    char looked[1024] = "";
    const char *here = dir ? dir : L->dir;
    note_place(looked, sizeof looked, here, strlen(here));
    if (join(here, strlen(here), file, path, cap))
        return pf_error(PF_EINVAL, "%s path '%s%s' is longer than %zu bytes", what, here, file, cap - 1);
    if (access(path, R_OK) == 0) return PF_OK;
    char first[2048];
    snprintf(first, sizeof first, "%s", path);
    if (try_list(L->def->data_path, file, path, cap, looked, sizeof looked) ||
        try_list(getenv("PHYSFLOW_DATA_PATH"), file, path, cap, looked, sizeof looked))
        return PF_OK;
    for (uint32_t k = 0; k < L->repositories.n; k++) {
        /* SOFA reads the scene's elements in document order, each AddDataRepository adding its folder then */
        if (!L->el_at || xmlXPathCmpNodes((xmlNode *)L->repositories.v[k].el, (xmlNode *)L->el_at) != 1)
            continue;
        const char *r = L->repositories.v[k].folder;
        note_place(looked, sizeof looked, r, strlen(r));
        if (!join(r, strlen(r), file, path, cap) && access(path, R_OK) == 0) return PF_OK;
    }
    /* the first place keeps the reader's message ("cannot open ...") when no data path is set */
    snprintf(path, cap, "%s", first);
    return pf_error(PF_EIO, "cannot open %s '%s': not found (looked in %s; more folders: --data-path or "
                    "PHYSFLOW_DATA_PATH)", what, file, looked);
}

/* SOFA's BaseAddResourceRepository::updateRepositoryPath: a relative path is taken from the current folder,
 * which SOFA's XML loader sets to the scene's while it reads it, and the folder is added last to the
 * DataRepository; a path that is no folder is an error message there and adds nothing, the scene going on: a
 * warning here (a file then not found is the error). */
int sc_add_data_repository(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *p = pf_scene_component_string(c, "path");
    if (!p || !p[0])
        return pf_scene_component_error(c, PF_EPARSE,
                                        "AddDataRepository: attribute 'path' (a folder) is missing");
    char folder[4096];
    const char *here = c->L->dir;
    if (p[0] == '/' ? snprintf(folder, sizeof folder, "%s", p) >= (int)sizeof folder
                    : join(here, strlen(here), p, folder, sizeof folder))
        return pf_scene_component_error(c, PF_EINVAL, "AddDataRepository: path '%s' is too long", p);
    struct stat st;
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        pf_scene_component_warning(c, "AddDataRepository: '%s' is not a folder: nothing added (as SOFA does)",
                                   folder);
        return PF_OK;
    }
    size_t len = strlen(folder) + 1;
    char *copy = pf_malloc(len);
    if (!copy) return pf_error(PF_ENOMEM, "out of memory for a data repository");
    memcpy(copy, folder, len);
    if (pf_vec_push(&c->L->repositories, ((sc_repository){copy, c->el}))) {
        pf_free(copy);
        return pf_error(PF_ENOMEM, "out of memory for a data repository");
    }
    return PF_OK;
}
