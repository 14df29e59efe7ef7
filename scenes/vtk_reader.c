/* Legacy VTK meshes for MeshVTKLoader (.vtk), after "The VTK User's Guide", "VTK File Formats", simple legacy
 * formats: header, title, ASCII or BINARY (big-endian), DATASET POLYDATA or UNSTRUCTURED_GRID with POINTS and the
 * cells, in the classic "n k i0 .. ik-1" layout or version 5.1's OFFSETS / CONNECTIVITY arrays. Kept: lines and
 * polylines (edges), triangles, strips and polygons (fanned), quads and pixels (two triangles), tetrahedra,
 * hexahedra and voxels; vertices add nothing; other cell types are skipped with a note. POINT_DATA / CELL_DATA
 * end the reading: the physics takes none of the attributes. */
#include "mesh_build.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vtk {
    sc_text t;
    sc_mesh_builder b;
    int binary;
    uint32_t npoints;
    int have_points;
    /* UNSTRUCTURED_GRID: the cells (offsets, one more than cells, and connectivity) until their types come */
    int64_t *off, *conn;
    size_t ncells, nconn;
    int cells_line;
} vtk;

/* An integer array of `n` items: ASCII numbers or big-endian binary of `width` bytes (4 or 8). */
static int read_ints(vtk *v, size_t n, int width, const char *what, int64_t *out)
{
    if (v->binary) {
        sc_text_next_line(&v->t);
        if ((size_t)(v->t.end - v->t.p) / (size_t)width < n)
            return sc_byte_error(&v->t, v->t.p, PF_EPARSE, "file ends inside %s (%zu values of %d bytes)", what, n,
                                 width);
        for (size_t k = 0; k < n; k++, v->t.p += width)
            out[k] = width == 4 ? (int64_t)(int32_t)sc_be32(v->t.p) : (int64_t)sc_be64(v->t.p);
        return PF_OK;
    }
    for (size_t k = 0; k < n; k++) {
        long x;
        int rc = sc_text_long(&v->t, what, -0x7fffffffL - 1, 0x7fffffffL, &x);
        if (rc) return rc;
        out[k] = x;
    }
    return PF_OK;
}

/* A count on a keyword line, bounded by what the rest of the file can hold at `min_bytes` per item. */
static int count(vtk *v, const char *what, size_t min_bytes, size_t *out)
{
    long n;
    int rc = sc_text_long(&v->t, what, 0, SC_MESH_MAX_ITEMS, &n);
    if (rc) return rc;
    if ((size_t)n > (size_t)(v->t.end - v->t.p) / min_bytes)
        return sc_text_error(&v->t, PF_EPARSE, "%s %ld is more than the file holds", what, n);
    *out = (size_t)n;
    return PF_OK;
}

static int read_points(vtk *v)
{
    if (v->have_points) return sc_text_error(&v->t, PF_EPARSE, "a second POINTS section");
    size_t n = 0;
    char type[32];
    int rc = count(v, "the number of points", v->binary ? 12 : 6, &n);
    if (rc) return rc;
    if (sc_text_token_on_line(&v->t, type, sizeof type) <= 0)
        return sc_text_error(&v->t, PF_EPARSE, "POINTS needs a data type (float or double)");
    int width = !strcmp(type, "float") ? 4 : !strcmp(type, "double") ? 8 : 0;
    if (!width) return sc_text_error(&v->t, PF_EPARSE, "POINTS of type '%s' (float or double expected)", type);
    if (v->binary) {
        sc_text_next_line(&v->t);
        if ((size_t)(v->t.end - v->t.p) / (3 * (size_t)width) < n)
            return sc_byte_error(&v->t, v->t.p, PF_EPARSE, "file ends inside the %zu points", n);
    }
    for (size_t k = 0; k < n; k++) {
        double p[3];
        for (int d = 0; d < 3; d++) {
            if (v->binary) {
                p[d] = width == 4 ? sc_bits_float(sc_be32(v->t.p)) : sc_bits_double(sc_be64(v->t.p));
                if (!isfinite(p[d]))
                    return sc_byte_error(&v->t, v->t.p, PF_EPARSE, "point %zu: coordinate is not finite", k);
                v->t.p += width;
            } else if ((rc = sc_text_real(&v->t, "a coordinate", &p[d]))) {
                return rc;
            }
        }
        if ((rc = sc_mb_point(&v->b, p))) return rc;
    }
    v->npoints = (uint32_t)n;
    v->have_points = 1;
    return PF_OK;
}

/* A cell section: "KEY n size" + n records "k i0 .. ik-1" (legacy), or "KEY noffsets nconn" + OFFSETS and
 * CONNECTIVITY arrays (version 5.1). Leaves offsets and connectivity in v->off / v->conn, indices checked. */
static int read_cells(vtk *v, int v51)
{
    size_t n = 0, size = 0;
    int rc;
    if ((rc = count(v, "the number of cells", v->binary ? 4 : 2, &n)) ||
        (rc = count(v, "the size of the cell list", v->binary ? 4 : 2, &size)))
        return rc;
    pf_free(v->off), pf_free(v->conn);
    v->off = v->conn = NULL;
    v->cells_line = (int)v->t.line;
    if (v51) {
        char kw[32], type[32];
        if (n == 0) return sc_text_error(&v->t, PF_EPARSE, "a 5.1 cell section needs at least one offset");
        if (!(v->off = pf_malloc(n * sizeof *v->off)) || !(v->conn = pf_malloc((size + 1) * sizeof *v->conn)))
            return pf_error(PF_ENOMEM, "out of memory");
        for (int part = 0; part < 2; part++) {
            const char *want = part ? "CONNECTIVITY" : "OFFSETS";
            if (sc_text_token(&v->t, kw, sizeof kw) < 0) return PF_EPARSE;
            if (strcmp(kw, want)) return sc_text_error(&v->t, PF_EPARSE, "'%s' expected, found '%s'", want, kw);
            if (sc_text_token_on_line(&v->t, type, sizeof type) < 0) return PF_EPARSE;
            int width = !strcmp(type, "vtktypeint64") ? 8 : !strcmp(type, "vtktypeint32") ? 4 : 0;
            if (!width) return sc_text_error(&v->t, PF_EPARSE, "%s of type '%s' (vtktypeint64 or vtktypeint32)", want, type);
            if ((rc = read_ints(v, part ? size : n, width, part ? "a point index" : "an offset", part ? v->conn : v->off)))
                return rc;
        }
        if (v->off[0] != 0 || v->off[n - 1] != (int64_t)size)
            return sc_text_error(&v->t, PF_EPARSE, "offsets must run from 0 to the connectivity's size %zu", size);
        for (size_t k = 1; k < n; k++)
            if (v->off[k] < v->off[k - 1]) return sc_text_error(&v->t, PF_EPARSE, "offsets decrease at cell %zu", k);
        v->ncells = n - 1;
        v->nconn = size;
    } else {
        int64_t *raw = pf_malloc((size + 1) * sizeof *raw);
        if (!raw || !(v->off = pf_malloc((n + 1) * sizeof *v->off))) {
            pf_free(raw);
            return pf_error(PF_ENOMEM, "out of memory");
        }
        const char *at = v->t.p;
        if ((rc = read_ints(v, size, 4, "a cell list value", raw))) {
            pf_free(raw);
            return rc;
        }
        /* compact the records into offsets + connectivity, in place */
        size_t r = 0, w = 0;
        for (size_t c = 0; c < n; c++) {
            if (r >= size || raw[r] < 0 || (size_t)raw[r] > size - r - 1) {
                pf_free(raw);
                if (v->binary) return sc_byte_error(&v->t, at, PF_EPARSE, "cell %zu overruns the cell list of size %zu", c, size);
                return sc_text_error(&v->t, PF_EPARSE, "cell %zu overruns the cell list of size %zu", c, size);
            }
            size_t k = (size_t)raw[r++];
            v->off[c] = (int64_t)w;
            memmove(raw + w, raw + r, k * sizeof *raw);
            w += k, r += k;
        }
        v->off[n] = (int64_t)w;
        if (r != size) {
            pf_free(raw);
            return sc_text_error(&v->t, PF_EPARSE, "%zu cells use %zu values, but the size given is %zu", n, r, size);
        }
        v->conn = raw;
        v->ncells = n;
        v->nconn = w;
    }
    for (size_t k = 0; k < v->nconn; k++)
        if (v->conn[k] < 0 || v->conn[k] >= (int64_t)v->npoints)
            return sc_text_error(&v->t, PF_EPARSE, "point index %lld is out of range (%u points) in the cells of line %d",
                                 (long long)v->conn[k], v->npoints, v->cells_line);
    return PF_OK;
}

enum { K_VERTEX = 1, K_LINE = 3, K_POLYLINE = 4, K_TRIANGLE = 5, K_STRIP = 6, K_POLYGON = 7, K_PIXEL = 8,
       K_QUAD = 9, K_TETRA = 10, K_VOXEL = 11, K_HEXA = 12 };

int sc_mb_vtk_cell(sc_mesh_builder *b, long type, const int64_t *p, size_t k)
{
    static const int fixed[13] = {0, 1, 0, 2, 0, 3, 0, 0, 4, 4, 4, 8, 8};
    uint32_t u[8];
    if (type >= 0 && type <= 12 && fixed[type] && k != (size_t)fixed[type]) return -1;
    if ((type == K_POLYGON && k < 3) || (type == K_POLYLINE && k < 2)) return -1;
    int rc = PF_OK;
    switch (type) {
    case K_VERTEX: return PF_OK;
    case K_LINE:
    case K_POLYLINE:
        for (size_t j = 0; j + 1 < k && !rc; j++) rc = sc_mb_edge(b, (uint32_t[2]){(uint32_t)p[j], (uint32_t)p[j + 1]});
        return rc;
    case K_TRIANGLE:
    case K_POLYGON: /* fanned from the first corner, as OBJ faces are */
        for (size_t j = 2; j < k && !rc; j++)
            rc = sc_mb_tri(b, (uint32_t[3]){(uint32_t)p[0], (uint32_t)p[j - 1], (uint32_t)p[j]});
        return rc;
    case K_STRIP: /* every second triangle turned so that the strip keeps one winding */
        for (size_t j = 2; j < k && !rc; j++)
            rc = j % 2 ? sc_mb_tri(b, (uint32_t[3]){(uint32_t)p[j - 1], (uint32_t)p[j - 2], (uint32_t)p[j]})
                       : sc_mb_tri(b, (uint32_t[3]){(uint32_t)p[j - 2], (uint32_t)p[j - 1], (uint32_t)p[j]});
        return rc;
    case K_QUAD:
    case K_PIXEL: /* a pixel's corners go in x-then-y order: 0 1 3 2 around */
        for (int j = 0; j < 4; j++) u[j] = (uint32_t)p[type == K_PIXEL ? (int[4]){0, 1, 3, 2}[j] : j];
        return sc_mb_quad(b, u);
    case K_TETRA:
        for (int j = 0; j < 4; j++) u[j] = (uint32_t)p[j];
        return sc_mb_tetra(b, u);
    case K_HEXA:
    case K_VOXEL: /* a voxel's corners go in x-y-z order */
        for (int j = 0; j < 8; j++) u[j] = (uint32_t)p[type == K_VOXEL ? (int[8]){0, 1, 3, 2, 4, 5, 7, 6}[j] : j];
        return sc_mb_hexa(b, u);
    default: {
        char what[32];
        snprintf(what, sizeof what, "VTK cell type %ld", type);
        sc_mb_skip(b, what);
        return PF_OK;
    }
    }
}

static int add_cells(vtk *v, long type, const int64_t *types)
{
    for (size_t c = 0; c < v->ncells; c++) {
        long ty = types ? (long)types[c] : type;
        size_t k = (size_t)(v->off[c + 1] - v->off[c]);
        int rc = sc_mb_vtk_cell(&v->b, ty, v->conn + v->off[c], k);
        if (rc < 0) return sc_text_error(&v->t, PF_EPARSE, "cell %zu of type %ld cannot have %zu points", c, ty, k);
        if (rc) return rc;
    }
    return PF_OK;
}

static int read_body(vtk *v, int v51, int unstructured)
{
    char kw[64];
    int rc, have_cells = 0;
    for (;;) {
        int n = sc_text_token(&v->t, kw, sizeof kw);
        if (n < 0) return PF_EPARSE;
        if (n == 0 || !strcmp(kw, "POINT_DATA") || !strcmp(kw, "CELL_DATA")) break;
        if (!strcmp(kw, "POINTS")) {
            rc = read_points(v);
        } else if (!strcmp(kw, "METADATA")) { /* 5.1: INFORMATION / COMPONENT_NAMES lines up to a blank line */
            sc_text_next_line(&v->t);
            while (v->t.p < v->t.end && *v->t.p != '\n' && *v->t.p != '\r') sc_text_next_line(&v->t);
            rc = PF_OK;
        } else if (!v->have_points) {
            return sc_text_error(&v->t, PF_EPARSE, "'%s' before POINTS", kw);
        } else if (unstructured && !strcmp(kw, "CELLS")) {
            rc = read_cells(v, v51);
            have_cells = 1;
        } else if (unstructured && !strcmp(kw, "CELL_TYPES")) {
            size_t n2 = 0;
            if (!have_cells) return sc_text_error(&v->t, PF_EPARSE, "CELL_TYPES before CELLS");
            if ((rc = count(v, "the number of cell types", v->binary ? 4 : 2, &n2))) return rc;
            if (n2 != v->ncells)
                return sc_text_error(&v->t, PF_EPARSE, "%zu cell types for %zu cells", n2, v->ncells);
            int64_t *types = pf_malloc((n2 + 1) * sizeof *types);
            if (!types) return pf_error(PF_ENOMEM, "out of memory");
            if (!(rc = read_ints(v, n2, 4, "a cell type", types))) rc = add_cells(v, 0, types);
            pf_free(types);
            have_cells = 0;
        } else if (!unstructured && (!strcmp(kw, "VERTICES") || !strcmp(kw, "LINES") || !strcmp(kw, "POLYGONS") ||
                                     !strcmp(kw, "TRIANGLE_STRIPS"))) {
            long type = kw[0] == 'V' ? K_VERTEX : kw[0] == 'L' ? K_POLYLINE : kw[0] == 'P' ? K_POLYGON : K_STRIP;
            if (!(rc = read_cells(v, v51))) rc = add_cells(v, type, NULL);
        } else {
            return sc_text_error(&v->t, PF_EPARSE, "unknown keyword '%s' in a %s", kw,
                                 unstructured ? "UNSTRUCTURED_GRID" : "POLYDATA");
        }
        if (rc) return rc;
    }
    if (!v->have_points) return pf_error(PF_EPARSE, "%s: no POINTS", v->t.name);
    if (have_cells) return pf_error(PF_EPARSE, "%s:%d: CELLS without CELL_TYPES", v->t.name, v->cells_line);
    return PF_OK;
}

static int read_file(vtk *v)
{
    static const char magic[] = "# vtk DataFile Version ";
    if ((size_t)(v->t.end - v->t.p) < sizeof magic - 1 || memcmp(v->t.p, magic, sizeof magic - 1))
        return sc_text_error(&v->t, PF_EPARSE, "not a legacy VTK file (it must start with '# vtk DataFile Version')");
    v->t.p += sizeof magic - 1;
    double version;
    int rc = sc_text_real(&v->t, "the version", &version);
    if (rc) return rc;
    sc_text_next_line(&v->t);
    sc_text_next_line(&v->t); /* the title */
    char kw[64], type[64];
    if (sc_text_token(&v->t, kw, sizeof kw) < 0) return PF_EPARSE;
    if (strcmp(kw, "ASCII") && strcmp(kw, "BINARY"))
        return sc_text_error(&v->t, PF_EPARSE, "'ASCII' or 'BINARY' expected on line 3, found '%s'", kw);
    v->binary = kw[0] == 'B';
    if (sc_text_token(&v->t, kw, sizeof kw) < 0 || sc_text_token_on_line(&v->t, type, sizeof type) < 0) return PF_EPARSE;
    if (strcmp(kw, "DATASET")) return sc_text_error(&v->t, PF_EPARSE, "'DATASET' expected, found '%s'", kw);
    int unstructured = !strcmp(type, "UNSTRUCTURED_GRID");
    if (!unstructured && strcmp(type, "POLYDATA"))
        return sc_text_error(&v->t, PF_EPARSE, "dataset '%s' is not read (POLYDATA or UNSTRUCTURED_GRID)", type);
    return read_body(v, version >= 5, unstructured);
}

int sc_parse_vtk(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size)
{
    vtk v = {0};
    sc_text_init(&v.t, name, data, length);
    int rc = read_file(&v);
    pf_free(v.off);
    pf_free(v.conn);
    if (rc) {
        sc_mb_free(&v.b);
        memset(out, 0, sizeof *out);
        return rc;
    }
    return sc_mb_finish(&v.b, name, out, note, note_size);
}
