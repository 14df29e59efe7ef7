/* MeshGmshLoader, MeshVTKLoader, MeshSTLLoader, SphereLoader: a file read into the node's mesh, with MeshObjLoader's
 * attributes and meaning (filename resolved as its files are; scale, rotation and translation as SOFA's
 * MeshLoader applies them, sc_mesh_loader_transform). And the older SOFA's generic MeshLoader, which reads a file by
 * its extension. */
#include "components.h"
#include "mesh_build.h"

#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* SOFA's MeshLoader transform (MeshLoader::reinit): p' = translation + R (scale3d ⊙ scale p), R from `rotation`
 * (degrees) as createQuaterFromEuler's default order builds it: R = Rz Ry Rx, the x angle applied first. */
void sc_euler_rotation(const double deg[3], double R[9])
{
    const double *r = deg;
    double cx = cos(r[0] * M_PI / 180), sx = sin(r[0] * M_PI / 180), cy = cos(r[1] * M_PI / 180),
           sy = sin(r[1] * M_PI / 180), cz = cos(r[2] * M_PI / 180), sz = sin(r[2] * M_PI / 180);
    const double M[9] = {cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
                         sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
                         -sy,     cy * sx,                cy * cx};
    memcpy(R, M, sizeof M);
}

int sc_mesh_loader_transform(pf_scene_component *c, sc_mesh *m)
{
    double t[3] = {0, 0, 0}, s[3] = {1, 1, 1}, r[3] = {0, 0, 0}, uniform = 1;
    int rc;
    if ((rc = pf_scene_component_reals(c, "translation", 3, t)) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "rotation", 3, r)) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "scale3d", 3, s)) < 0) return rc;
    double *sv; /* `scale`: one number (uniform) or three (per axis, as SOFA's loaders also take it) */
    size_t ns;
    if ((rc = sc_parse_reals(c, "scale", &sv, &ns)) < 0) return rc;
    if (rc == 1 && ns != 1 && ns != 3) {
        pf_free(sv);
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute 'scale' needs 1 or 3 numbers, got %zu",
                                        pf_scene_component_type(c), ns);
    }
    if (rc == 1 && ns == 1) uniform = sv[0];
    for (size_t a = 0; rc == 1 && ns == 3 && a < 3; a++) s[a] *= sv[a];
    if (rc == 1) pf_free(sv);
    double R[9];
    sc_euler_rotation(r, R);
    int turn = r[0] != 0 || r[1] != 0 || r[2] != 0;
    for (size_t i = 0; i < m->npoints; i++) {
        double *p = m->points + 3 * i, q[3];
        for (int a = 0; a < 3; a++) q[a] = p[a] * s[a] * uniform;
        for (int a = 0; a < 3; a++)
            p[a] = (turn ? R[3 * a] * q[0] + R[3 * a + 1] * q[1] + R[3 * a + 2] * q[2] : q[a]) + t[a];
    }
    return PF_OK;
}

/* .vtu (XML) or legacy .vtk, told apart by content as SOFA's MeshVTKLoader does: XML starts with '<'. */
int sc_parse_vtk_any(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size)
{
    size_t k = 0;
    if (length >= 3 && !memcmp(data, "\xef\xbb\xbf", 3)) k = 3; /* UTF-8 byte-order mark */
    while (k < length && (data[k] == ' ' || data[k] == '\t' || data[k] == '\r' || data[k] == '\n')) k++;
    if (k < length && data[k] == '<') return sc_parse_vtu(name, data, length, out, note, note_size);
    return sc_parse_vtk(name, data, length, out, note, note_size);
}

static int load(pf_scene_component *c, sc_mesh_parse_fn parse)
{
    const char *type = pf_scene_component_type(c);
    const char *file = pf_scene_component_string(c, "filename");
    if (!file || !file[0]) return pf_scene_component_error(c, PF_EPARSE, "%s: attribute 'filename' is missing", type);
    int rc;
    pf_scene_component_ignore(c, "triangulate");
    pf_scene_component_ignore(c, "flipNormals");
    sc_mesh m = {0};
    char note[256];
    if ((rc = sc_read_scene_mesh_as(c->L, file, parse, &m, note, sizeof note))) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: %s", type, copy);
    }
    if (note[0]) sc_report(c->L, PF_SCENE_NOTE, pf_scene_component_line(c), "%s: %s", type, note);
    if ((rc = sc_mesh_loader_transform(c, &m))) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_loader_provide(c, &m);
}

int sc_mesh_gmsh_loader(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return load(c, sc_parse_msh);
}

int sc_mesh_vtk_loader(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return load(c, sc_parse_vtk_any);
}

/* SphereLoader: SOFA's .sph file; the centres are the points (moved like a mesh's: SOFA's transform applies to
 * positions only), the radii kept for SphereCollisionModel's listRadius="@loader.listRadius". */
int sc_sphere_loader(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return load(c, sc_parse_sph);
}

int sc_mesh_stl_loader(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return load(c, sc_parse_stl);
}

/* SOFA 1.0's MeshLoader ("Generic Mesh Loader", sofa/component/container/MeshLoader.cpp): `filename` read by
 * MeshTopologyLoader, which picks the reader by the file's extension; no transform (that loader had none: its
 * `translation`, `rotation`, `scale` would be unknown attributes); `triangulate` splits quads into two triangles,
 * which PhysFlow's meshes already hold beside them; `fillMState` (fill the node's state) is what a loader's mesh
 * does here. The node's MeshTopology then takes this mesh without a link, as that SOFA's did
 * (scenes/links_sofa.c). */
int sc_generic_mesh_loader(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    const char *type = pf_scene_component_type(c), *file = pf_scene_component_string(c, "filename");
    if (!file || !file[0]) return pf_scene_component_error(c, PF_EPARSE, "%s: attribute 'filename' is missing", type);
    pf_scene_component_ignore(c, "triangulate");
    pf_scene_component_ignore(c, "fillMState");
    static const struct {
        const char *ext;
        sc_mesh_parse_fn parse; /* NULL: MeshObjLoader's own reading */
    } formats[] = {{".obj", NULL}, {".msh", sc_parse_msh}, {".vtk", sc_parse_vtk_any}, {".vtu", sc_parse_vtk_any},
                   {".stl", sc_parse_stl}};
    size_t k = 0, n = strlen(file);
    while (k < sizeof formats / sizeof *formats &&
           (n < strlen(formats[k].ext) || strcasecmp(file + n - strlen(formats[k].ext), formats[k].ext)))
        k++;
    if (k == sizeof formats / sizeof *formats)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: mesh file '%s': PhysFlow reads .obj, .msh, .vtk, .vtu "
                                        "and .stl files", type, file);
    sc_mesh m = {0};
    char note[256] = "";
    int rc = formats[k].parse ? sc_read_scene_mesh_as(c->L, file, formats[k].parse, &m, note, sizeof note)
                              : sc_read_scene_mesh(c->L, file, &m);
    if (rc) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: %s", type, copy);
    }
    if (note[0]) sc_report(c->L, PF_SCENE_NOTE, pf_scene_component_line(c), "%s: %s", type, note);
    return sc_loader_provide(c, &m);
}
