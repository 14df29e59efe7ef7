/* SOFA's topology containers read a mesh file themselves when given one (BaseMeshTopology's `filename`, alias
 * `fileTopology`, loaded by the mesh reader of its extension): MeshTopology fileTopology="mesh/liver.msh". The
 * file is found as every file of a scene (beside it, then the data path) and read by the loaders' parsers. */
#include "components.h"
#include "mesh_build.h"

#include "base/error.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define TYPE(c) pf_scene_component_type(c)

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcasecmp(s + n - m, tail);
}

int sc_topology_file(pf_scene_component *c, sc_mesh *m)
{
    const char *a = pf_scene_component_string(c, "filename"), *b = pf_scene_component_string(c, "fileTopology");
    const char *file = a && a[0] ? a : b;
    if (!file || !file[0]) return 0; /* absent or empty (SOFA's included Objects files write fileTopology="") */
    if (a && a[0] && b && b[0] && strcmp(a, b))
        pf_scene_component_warning(c, "%s: filename '%s' and fileTopology '%s' name one file (SOFA's alias): "
                                   "filename taken", TYPE(c), a, b);
    static const struct {
        const char *ext;
        sc_mesh_parse_fn parse;
    } formats[] = {{".obj", sc_parse_obj}, {".msh", sc_parse_msh}, {".vtk", sc_parse_vtk_any},
                   {".vtu", sc_parse_vtk_any}, {".stl", sc_parse_stl}};
    size_t k = 0;
    while (k < sizeof formats / sizeof *formats && !ends_with(file, formats[k].ext)) k++;
    if (k == sizeof formats / sizeof *formats)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: mesh file '%s': PhysFlow reads .obj, .msh, .vtk, .vtu "
                                        "and .stl files", TYPE(c), file);
    char note[256] = "";
    int rc = k == 0 ? sc_read_scene_mesh(c->L, file, m)
                    : sc_read_scene_mesh_as(c->L, file, formats[k].parse, m, note, sizeof note);
    if (rc) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: %s", TYPE(c), copy);
    }
    if (note[0]) sc_report(c->L, PF_SCENE_NOTE, pf_scene_component_line(c), "%s: %s", TYPE(c), note);
    return 1;
}
