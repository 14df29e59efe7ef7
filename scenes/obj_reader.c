/* Wavefront OBJ meshes for MeshObjLoader: `v` points and `f` faces, polygons fanned into triangles; a face of 4
 * corners is also kept whole as a quad. A `v` line may hold fewer than 3 numbers (SOFA's files use OBJ to store a
 * scalar per point, "v 0.25") or more (colours after the coordinates): read as SOFA's MeshOBJLoader reads them. */
#include "mesh_build.h"
#include "scene_internal.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_mesh_free(sc_mesh *m)
{
    pf_free(m->points);
    pf_free(m->edges);
    pf_free(m->tris);
    pf_free(m->quads);
    pf_free(m->tetra);
    pf_free(m->hexa);
    pf_free(m->radii);
    memset(m, 0, sizeof *m);
}

/* One face corner "i", "i/t", "i//n" or "i/t/n": the point index (1-based, negative = from the end). */
static int corner(const char *tok, long npoints, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (end == tok || errno || (*end && *end != '/')) return -1;
    if (v < 0) v = npoints + v + 1;
    if (v < 1) return -1;
    *out = v - 1;
    return 0;
}

static int read_lines(FILE *f, const char *path, sc_mesh *m)
{
    char line[4096];
    /* the arrays grow here, 3 items per vertex and per triangle; m names them all along (so that the caller frees
     * them on an error) and counts vertices and triangles */
    PF_VEC(double) points = {0};
    PF_VEC(uint32_t) tris = {0};
    PF_VEC(uint32_t) quads = {0};
    long lineno = 0;
    double last[3] = {0, 0, 0};
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f))
            return pf_error(PF_EPARSE, "%s:%ld: line longer than %zu characters", path, lineno, sizeof line - 1);
        char *save, *kw = strtok_r(line, " \t\r\n", &save);
        if (!kw || kw[0] == '#') continue;
        if (!strcmp(kw, "v")) {
            /* SOFA streams "x y z" into one vector kept from line to line: a coordinate a line leaves out is the
             * previous vertex's (0 before the first); numbers after the third (colours) are not read */
            double *p = last;
            for (int d = 0; d < 3; d++) {
                char *tok = strtok_r(NULL, " \t\r\n", &save), *end;
                if (!tok && d > 0) break;
                double c = tok ? strtod(tok, &end) : NAN;
                if (!tok || *end || !isfinite(c))
                    return pf_error(PF_EPARSE, "%s:%ld: a vertex needs 1 to 3 finite numbers (x y z)", path,
                                    lineno);
                p[d] = c;
            }
            if (m->npoints >= (1u << 28) || pf_vec_reserve(&points, points.n + 3))
                return pf_error(PF_ENOMEM, "%s:%ld: too many vertices", path, lineno);
            m->points = points.v;
            memcpy(points.v + points.n, p, sizeof last);
            points.n += 3;
            m->npoints++;
        } else if (!strcmp(kw, "f")) {
            long first = -1, prev = -1, count = 0;
            uint32_t corners[4];
            for (char *tok; (tok = strtok_r(NULL, " \t\r\n", &save));) {
                long v;
                if (corner(tok, m->npoints, &v) || v >= (long)m->npoints)
                    return pf_error(PF_EPARSE, "%s:%ld: face corner '%s' is not a vertex index (1..%u)", path, lineno,
                                    tok, m->npoints);
                if (count < 4) corners[count] = (uint32_t)v;
                if (count == 0) first = v;
                if (count >= 2) { /* fan: (first, prev, v) */
                    if (pf_vec_reserve(&tris, tris.n + 3))
                        return pf_error(PF_ENOMEM, "%s:%ld: out of memory", path, lineno);
                    m->tris = tris.v;
                    uint32_t *t = tris.v + tris.n;
                    tris.n += 3;
                    m->ntris++;
                    t[0] = (uint32_t)first, t[1] = (uint32_t)prev, t[2] = (uint32_t)v;
                }
                prev = v;
                count++;
            }
            if (count < 3) return pf_error(PF_EPARSE, "%s:%ld: a face needs at least 3 vertices", path, lineno);
            /* a quad stays whole too (as SOFA's loader keeps it, for quad topologies); its fan above is the split
             * (0 1 2) (0 2 3) every reader gives a quad's triangles */
            if (count == 4) {
                if (pf_vec_reserve(&quads, quads.n + 4))
                    return pf_error(PF_ENOMEM, "%s:%ld: out of memory", path, lineno);
                m->quads = quads.v;
                memcpy(quads.v + quads.n, corners, sizeof corners);
                quads.n += 4;
                m->nquads++;
            }
        } /* vt, vn, o, g, s, usemtl, mtllib, l: not needed by the physics */
    }
    if (ferror(f)) return pf_error(PF_EIO, "%s: read error", path);
    /* SOFA's loaders refuse an empty file too ("cannot read first line") */
    if (m->npoints == 0)
        return pf_error(PF_EPARSE, "%s: no vertices%s", path, lineno ? "" : " (the file is empty)");
    return PF_OK;
}

int sc_read_obj(const char *path, sc_mesh *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) return pf_error(PF_EIO, "cannot open mesh file '%s'", path);
    int rc = read_lines(f, path, out);
    fclose(f);
    if (rc) sc_mesh_free(out);
    return rc;
}

int sc_read_obj_memory(const char *name, const char *text, size_t length, sc_mesh *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = length ? fmemopen((void *)text, length, "r") : NULL;
    if (!f) return pf_error(PF_EIO, "cannot read mesh '%s'", name);
    int rc = read_lines(f, name, out);
    fclose(f);
    if (rc) sc_mesh_free(out);
    return rc;
}

int sc_parse_obj(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size)
{
    if (note && note_size) note[0] = 0;
    if (length == 0) {
        memset(out, 0, sizeof *out);
        return pf_error(PF_EPARSE, "%s: no vertices (the file is empty)", name);
    }
    return sc_read_obj_memory(name, data, length, out);
}

int sc_read_scene_mesh(const sc_loader *L, const char *file, sc_mesh *out)
{
    return sc_read_scene_mesh_as(L, file, NULL, out, NULL, 0);
}

/* parse = NULL: an OBJ file, read line by line from the file itself */
int sc_read_scene_mesh_as(const sc_loader *L, const char *file, sc_mesh_parse_fn parse, sc_mesh *out, char *note,
                          size_t note_size)
{
    if (note && note_size) note[0] = 0;
    if (L->builtin && file[0] != '/') {
        for (size_t k = 0; k < sc_builtin_file_count; k++)
            if (!strcmp(sc_builtin_files[k].name, file))
                return (parse ? parse : sc_parse_obj)(file, sc_builtin_files[k].text, sc_builtin_files[k].length, out,
                                                      note, note_size);
        memset(out, 0, sizeof *out);
        return pf_error(PF_EIO, "no mesh file '%s' among the built-in ones", file);
    }
    char path[2048];
    memset(out, 0, sizeof *out);
    int rc = sc_resolve_scene_file(L, NULL, file, "mesh file", path, sizeof path);
    if (rc) return rc;
    return parse ? sc_read_mesh_path(path, parse, out, note, note_size) : sc_read_obj(path, out);
}
