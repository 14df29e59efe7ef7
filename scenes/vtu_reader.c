/* VTK XML unstructured grids and poly data for MeshVTKLoader (.vtu, .vtp), after "VTK File Formats", XML file
 * formats: <VTKFile type="UnstructuredGrid"><UnstructuredGrid><Piece NumberOfPoints NumberOfCells> with
 * <Points> (one 3-component DataArray) and <Cells> (DataArrays connectivity, offsets, types); or <VTKFile
 * type="PolyData"> <PolyData><Piece NumberOfPoints NumberOfLines NumberOfStrips NumberOfPolys ...> with
 * <Points> and <Lines>, <Strips>, <Polys> (connectivity, offsets). Only format="ascii" DataArrays are read;
 * binary and appended data are refused with a message. Pieces are concatenated. Cell types as in the legacy
 * reader (sc_mb_vtk_cell). */
#include "mesh_build.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* libxml2's first error (its last one is often a consequence, at the end of the file) */
typedef struct first_error {
    int set, line;
    char msg[200];
} first_error;

static void keep_first_error(void *ctx, xmlErrorPtr err)
{
    xmlParserCtxtPtr ctxt = ctx;
    first_error *fe = ctxt->_private;
    if (fe->set || !err || err->level < XML_ERR_ERROR) return;
    fe->set = 1;
    fe->line = err->line;
    snprintf(fe->msg, sizeof fe->msg, "%s", err->message ? err->message : "not well-formed");
    size_t ml = strlen(fe->msg);
    while (ml && (fe->msg[ml - 1] == '\n' || fe->msg[ml - 1] == ' ')) fe->msg[--ml] = 0; /* it ends with a newline */
}

typedef struct vtu {
    const char *name;
    sc_mesh_builder b;
} vtu;

static int el_error(const vtu *u, const xmlNode *el, int code, const char *fmt, const char *a, const char *b)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, a, b);
    return pf_error(code, "%s:%ld: %s", u->name, el ? xmlGetLineNo(el) : 0L, msg);
}

static int is(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static const xmlNode *child(const xmlNode *el, const char *name)
{
    for (const xmlNode *c = el->children; c; c = c->next)
        if (is(c, name)) return c;
    return NULL;
}

/* The DataArray of `parent` named `name` (NULL: the first one). */
static const xmlNode *data_array(const xmlNode *parent, const char *name)
{
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (!is(c, "DataArray")) continue;
        if (!name) return c;
        xmlChar *n = xmlGetProp(c, (const xmlChar *)"Name");
        int match = n && !strcmp((const char *)n, name);
        xmlFree(n);
        if (match) return c;
    }
    return NULL;
}

static int count_attr(const vtu *u, const xmlNode *el, const char *attr, size_t *out)
{
    xmlChar *s = xmlGetProp(el, (const xmlChar *)attr);
    if (!s) return el_error(u, el, PF_EPARSE, "<%s> needs attribute '%s'", (const char *)el->name, attr);
    char *end;
    errno = 0;
    long long v = strtoll((const char *)s, &end, 10);
    int bad = end == (char *)s || *end || errno || v < 0 || v > SC_MESH_MAX_ITEMS;
    xmlFree(s);
    if (bad) return el_error(u, el, PF_EPARSE, "%s of <%s> is not a count", attr, (const char *)el->name);
    *out = (size_t)v;
    return PF_OK;
}

/* The numbers of an ascii DataArray: exactly n of them (doubles, or integers when ints != NULL). */
static int read_array(const vtu *u, const xmlNode *el, const char *what, size_t n, double *reals, int64_t *ints)
{
    if (!el) return el_error(u, NULL, PF_EPARSE, "no DataArray for %s%s", what, "");
    xmlChar *fmt = xmlGetProp(el, (const xmlChar *)"format");
    int ascii = fmt && !strcmp((const char *)fmt, "ascii");
    if (!ascii) {
        char f[40];
        snprintf(f, sizeof f, "%s", fmt ? (const char *)fmt : "(none)");
        xmlFree(fmt);
        return el_error(u, el, PF_EPARSE, "DataArray %s has format '%s': only format=\"ascii\" is read", what, f);
    }
    xmlFree(fmt);
    xmlChar *text = xmlNodeGetContent(el);
    if (!text) return pf_error(PF_ENOMEM, "out of memory");
    const char *p = (const char *)text;
    long line = xmlGetLineNo(el);
    size_t k = 0;
    int rc = PF_OK;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') line += *p++ == '\n';
        if (!*p) break;
        char *end;
        errno = 0;
        if (k == n) {
            rc = pf_error(PF_EPARSE, "%s:%ld: DataArray %s has more than the %zu values expected", u->name, line, what, n);
            break;
        }
        if (ints) {
            long long v = strtoll(p, &end, 10);
            if (end == p || errno || (*end && !strchr(" \t\r\n", *end))) {
                rc = pf_error(PF_EPARSE, "%s:%ld: DataArray %s: '%.20s' is not an integer", u->name, line, what, p);
                break;
            }
            ints[k++] = v;
        } else {
            double v = strtod(p, &end);
            if (end == p || !isfinite(v) || (*end && !strchr(" \t\r\n", *end))) {
                rc = pf_error(PF_EPARSE, "%s:%ld: DataArray %s: '%.20s' is not a finite number", u->name, line, what, p);
                break;
            }
            reals[k++] = v;
        }
        p = end;
    }
    if (!rc && k != n)
        rc = pf_error(PF_EPARSE, "%s:%ld: DataArray %s has %zu values, %zu expected", u->name, xmlGetLineNo(el), what,
                      k, n);
    xmlFree(text);
    return rc;
}

/* The nc cells of section `cells` (<Cells>, or PolyData's <Verts>, <Lines>, <Strips>, <Polys>): its
 * DataArrays connectivity and offsets, and types when type < 0 (else every cell is of that VTK type); point
 * indices are of the piece's np points, numbered from base in the builder. */
static int read_cells(vtu *u, const xmlNode *cells, size_t np, size_t base, size_t nc, long type)
{
    int rc;
    const xmlNode *ca = data_array(cells, "connectivity"), *oa = data_array(cells, "offsets"),
                  *ta = type < 0 ? data_array(cells, "types") : cells;
    if (!ca || !oa || !ta)
        return el_error(u, cells, PF_EPARSE, "<%s> needs DataArrays connectivity, offsets%s",
                        (const char *)cells->name, type < 0 ? " and types" : "");
    int64_t *off = pf_malloc((nc + 1) * sizeof *off), *types = pf_malloc((nc + 1) * sizeof *types), *conn = NULL;
    if (!off || !types) {
        rc = pf_error(PF_ENOMEM, "out of memory");
        goto done;
    }
    off[0] = 0;
    if ((rc = read_array(u, oa, "offsets", nc, NULL, off + 1))) goto done;
    if (type < 0 && (rc = read_array(u, ta, "types", nc, NULL, types))) goto done;
    for (size_t c = 0; type >= 0 && c < nc; c++)
        types[c] = type;
    for (size_t c = 0; c < nc; c++)
        if (off[c + 1] < off[c] || off[c + 1] - off[c] > 64) {
            rc = el_error(u, oa, PF_EPARSE, "offsets must increase by 1..64 from one cell to the next%s%s", "", "");
            goto done;
        }
    size_t nconn = (size_t)off[nc];
    if (nconn > 64 * (size_t)SC_MESH_MAX_ITEMS || !(conn = pf_malloc((nconn + 1) * sizeof *conn))) {
        rc = pf_error(PF_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = read_array(u, ca, "connectivity", nconn, NULL, conn))) goto done;
    for (size_t k = 0; k < nconn; k++) {
        if (conn[k] < 0 || (size_t)conn[k] >= np) {
            char a[64], b[32];
            snprintf(a, sizeof a, "%lld", (long long)conn[k]);
            snprintf(b, sizeof b, "%zu", np);
            rc = el_error(u, ca, PF_EPARSE, "point index %s is out of range (%s points)", a, b);
            goto done;
        }
        conn[k] += (int64_t)base;
    }
    for (size_t c = 0; c < nc && !rc; c++) {
        size_t k = (size_t)(off[c + 1] - off[c]);
        rc = sc_mb_vtk_cell(&u->b, (long)types[c], conn + off[c], k);
        if (rc < 0) {
            char a[64];
            snprintf(a, sizeof a, "cell %zu of type %lld has %zu points", c, (long long)types[c], k);
            rc = el_error(u, ta, PF_EPARSE, "%s%s", a, ": not a valid count for its type");
        }
    }
done:
    pf_free(off);
    pf_free(types);
    pf_free(conn);
    return rc;
}

/* PolyData's sections of cells, each of one VTK cell type: polylines (edges), triangle strips and polygons
 * (fanned into triangles), as the legacy reader's POLYDATA; its <Verts> add nothing and are not read */
static const struct {
    const char *section, *count;
    long type;
} poly_sections[3] = {
    {"Lines", "NumberOfLines", 4}, {"Strips", "NumberOfStrips", 6}, {"Polys", "NumberOfPolys", 7}};

static int read_piece(vtu *u, const xmlNode *piece, int polydata)
{
    size_t np, nc = 0;
    int rc;
    if ((rc = count_attr(u, piece, "NumberOfPoints", &np)) ||
        (!polydata && (rc = count_attr(u, piece, "NumberOfCells", &nc))))
        return rc;
    const xmlNode *points = child(piece, "Points"), *cells = child(piece, "Cells");
    if (!points) return el_error(u, piece, PF_EPARSE, "<Piece> has no <Points>%s%s", "", "");
    const xmlNode *pa = data_array(points, NULL);
    if (pa) {
        xmlChar *nco = xmlGetProp(pa, (const xmlChar *)"NumberOfComponents");
        int three = nco && !strcmp((const char *)nco, "3");
        xmlFree(nco);
        if (!three)
            return el_error(u, pa, PF_EPARSE, "the points' DataArray needs NumberOfComponents=\"3\"%s%s", "",
                            "");
    }
    size_t base = u->b.points.n / 3;
    if (base + np > SC_MESH_MAX_ITEMS) return el_error(u, piece, PF_EPARSE, "too many points%s%s", "", "");
    double *x = pf_malloc((3 * np + 1) * sizeof *x);
    if (!x) return pf_error(PF_ENOMEM, "out of memory");
    if (!(rc = read_array(u, pa, "of points", 3 * np, x, NULL)))
        for (size_t k = 0; k < np && !rc; k++)
            rc = sc_mb_point(&u->b, x + 3 * k);
    pf_free(x);
    if (rc) return rc;
    if (polydata) {
        for (int k = 0; k < 3 && !rc; k++) {
            xmlChar *has = xmlGetProp(piece, (const xmlChar *)poly_sections[k].count);
            int given = has != NULL;
            xmlFree(has);
            if (!given) continue; /* an absent count: none of these cells */
            if ((rc = count_attr(u, piece, poly_sections[k].count, &nc)) || nc == 0) continue;
            const xmlNode *sec = child(piece, poly_sections[k].section);
            if (!sec)
                return el_error(u, piece, PF_EPARSE, "<Piece> has %s but no <%s>", poly_sections[k].count,
                                poly_sections[k].section);
            rc = read_cells(u, sec, np, base, nc, poly_sections[k].type);
        }
        return rc;
    }
    if (nc == 0) return PF_OK;
    if (!cells) return el_error(u, piece, PF_EPARSE, "<Piece> has cells but no <Cells>%s%s", "", "");
    return read_cells(u, cells, np, base, nc, -1);
}

static int read_doc(vtu *u, const xmlDoc *doc)
{
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !is(root, "VTKFile")) return el_error(u, root, PF_EPARSE, "the root element is not <VTKFile>%s%s", "", "");
    xmlChar *type = xmlGetProp(root, (const xmlChar *)"type");
    int ug = type && !strcmp((const char *)type, "UnstructuredGrid");
    int poly = type && !strcmp((const char *)type, "PolyData");
    char t[40];
    snprintf(t, sizeof t, "%s", type ? (const char *)type : "(none)");
    xmlFree(type);
    if (!ug && !poly)
        return el_error(u, root, PF_EPARSE,
                        "VTKFile type '%s' is not read (UnstructuredGrid and PolyData are)%s", t, "");
    const xmlNode *grid = child(root, ug ? "UnstructuredGrid" : "PolyData");
    if (!grid) return el_error(u, root, PF_EPARSE, "no <%s>%s", ug ? "UnstructuredGrid" : "PolyData", "");
    int pieces = 0;
    for (const xmlNode *c = grid->children; c; c = c->next)
        if (is(c, "Piece")) {
            int rc = read_piece(u, c, poly);
            if (rc) return rc;
            pieces++;
        }
    if (!pieces) return el_error(u, grid, PF_EPARSE, "no <Piece>%s%s", "", "");
    return PF_OK;
}

int sc_parse_vtu(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size)
{
    vtu u = {0};
    u.name = name;
    memset(out, 0, sizeof *out);
    if (length > 0x7fffffff) return pf_error(PF_EPARSE, "%s: file too large for the XML parser", name);
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) return pf_error(PF_ENOMEM, "out of memory for the XML parser");
    first_error fe = {0};
    ctxt->_private = &fe;
    ctxt->sax->serror = keep_first_error;
    /* NONET: never fetch; no NOENT / DTDLOAD: entities are not expanded (the scene loader's settings) */
    xmlDoc *doc = xmlCtxtReadMemory(ctxt, data, (int)length, name, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    int rc = PF_OK;
    if (!doc || !ctxt->wellFormed || fe.set) {
        rc = pf_error(PF_EPARSE, "%s:%d: malformed XML: %s", name, fe.line, fe.set ? fe.msg : "not well-formed");
    } else if (doc->intSubset || doc->extSubset) {
        rc = pf_error(PF_EPARSE, "%s:1: DOCTYPE declarations are not allowed in mesh files", name);
    } else {
        rc = read_doc(&u, doc);
    }
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    if (rc) {
        sc_mb_free(&u.b);
        return rc;
    }
    return sc_mb_finish(&u.b, name, out, note, note_size);
}
