/* The mesh readers' shared parts: a growing mesh, a line-counting text cursor, binary fields, whole-file reads. */
#include "mesh_build.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the growing mesh ---- */

/* Appends k indices to one of the builder's index arrays (given by its parts: the arrays' types differ). */
static int push_items(uint32_t **arr, size_t *n, size_t *cap, const uint32_t *v, size_t k)
{
    if (*n / k >= SC_MESH_MAX_ITEMS) return pf_error(PF_ENOMEM, "more than %u elements", SC_MESH_MAX_ITEMS);
    if (pf_array_reserve((void **)arr, cap, *n + k, sizeof **arr)) return pf_error(PF_ENOMEM, "out of memory");
    memcpy(*arr + *n, v, k * sizeof *v);
    *n += k;
    return PF_OK;
}
#define push(a, items, k) push_items(&(a)->v, &(a)->n, &(a)->cap, (items), (k))

int sc_mb_point(sc_mesh_builder *b, const double p[3])
{
    if (b->points.n / 3 >= SC_MESH_MAX_ITEMS) return pf_error(PF_ENOMEM, "more than %u points", SC_MESH_MAX_ITEMS);
    if (pf_vec_reserve(&b->points, b->points.n + 3)) return pf_error(PF_ENOMEM, "out of memory");
    memcpy(b->points.v + b->points.n, p, 3 * sizeof *p);
    b->points.n += 3;
    return PF_OK;
}

int sc_mb_edge(sc_mesh_builder *b, const uint32_t v[2]) { return push(&b->edges, v, 2); }
int sc_mb_tri(sc_mesh_builder *b, const uint32_t v[3]) { return push(&b->tris, v, 3); }
int sc_mb_tetra(sc_mesh_builder *b, const uint32_t v[4]) { return push(&b->tetra, v, 4); }
int sc_mb_hexa(sc_mesh_builder *b, const uint32_t v[8]) { return push(&b->hexa, v, 8); }

int sc_mb_quad(sc_mesh_builder *b, const uint32_t v[4])
{
    const uint32_t t[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
    int rc = push(&b->tris, t, 6);
    return rc ? rc : push(&b->quads, v, 4);
}

void sc_mb_skip(sc_mesh_builder *b, const char *what)
{
    b->skipped++;
    size_t len = strlen(b->skipped_what), wl = strlen(what);
    /* listed once: look for it as a whole item of the ", "-separated list */
    for (const char *s = b->skipped_what; (s = strstr(s, what)); s += wl)
        if ((s == b->skipped_what || s[-1] == ' ') && (s[wl] == ',' || s[wl] == 0)) return;
    if (len + wl + 3 < sizeof b->skipped_what)
        snprintf(b->skipped_what + len, sizeof b->skipped_what - len, "%s%s", len ? ", " : "", what);
}

void sc_mb_free(sc_mesh_builder *b)
{
    pf_vec_free(&b->points);
    pf_vec_free(&b->edges);
    pf_vec_free(&b->tris);
    pf_vec_free(&b->quads);
    pf_vec_free(&b->tetra);
    pf_vec_free(&b->hexa);
}

int sc_mb_finish(sc_mesh_builder *b, const char *name, sc_mesh *out, char *note, size_t note_size)
{
    memset(out, 0, sizeof *out);
    if (b->points.n == 0) {
        sc_mb_free(b);
        return pf_error(PF_EPARSE, "%s: no points", name);
    }
    out->points = b->points.v, out->npoints = (uint32_t)(b->points.n / 3);
    out->edges = b->edges.v, out->nedges = (uint32_t)(b->edges.n / 2);
    out->tris = b->tris.v, out->ntris = (uint32_t)(b->tris.n / 3);
    out->quads = b->quads.v, out->nquads = (uint32_t)(b->quads.n / 4);
    out->tetra = b->tetra.v, out->ntetra = (uint32_t)(b->tetra.n / 4);
    out->hexa = b->hexa.v, out->nhexa = (uint32_t)(b->hexa.n / 8);
    if (note && note_size) {
        note[0] = 0;
        if (b->skipped)
            snprintf(note, note_size, "%s: %llu element(s) skipped (%s: not used by the physics)", name,
                     (unsigned long long)b->skipped, b->skipped_what);
    }
    memset(b, 0, sizeof *b);
    return PF_OK;
}

/* ---- text cursor ---- */

void sc_text_init(sc_text *t, const char *name, const char *data, size_t length)
{
    t->name = name;
    t->start = t->p = data;
    t->end = data + length;
    t->line = 1;
}

static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f'; }

static int take(sc_text *t, char *buf, size_t size)
{
    const char *s = t->p;
    while (t->p < t->end && !is_space(*t->p)) t->p++;
    size_t n = (size_t)(t->p - s);
    if (n >= size) return sc_text_error(t, PF_EPARSE, "token '%.20s...' is too long", s), -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return (int)n;
}

int sc_text_token(sc_text *t, char *buf, size_t size)
{
    long line = t->line;
    while (t->p < t->end && is_space(*t->p)) {
        if (*t->p == '\n') t->line++;
        t->p++;
    }
    buf[0] = 0;
    if (t->p == t->end) t->line = line; /* at the end, errors name the last line that held something */
    return take(t, buf, size);
}

int sc_text_token_on_line(sc_text *t, char *buf, size_t size)
{
    while (t->p < t->end && is_space(*t->p) && *t->p != '\n') t->p++;
    buf[0] = 0;
    return take(t, buf, size);
}

void sc_text_next_line(sc_text *t)
{
    while (t->p < t->end && *t->p != '\n') t->p++;
    if (t->p < t->end) t->p++, t->line++;
}

int sc_text_real(sc_text *t, const char *what, double *out)
{
    char buf[64], *end;
    int n = sc_text_token(t, buf, sizeof buf);
    if (n < 0) return PF_EPARSE;
    if (n == 0) return sc_text_error(t, PF_EPARSE, "file ends where %s was expected", what);
    errno = 0;
    *out = strtod(buf, &end);
    if (*end || !isfinite(*out)) return sc_text_error(t, PF_EPARSE, "%s '%s' is not a finite number", what, buf);
    return PF_OK;
}

int sc_text_long(sc_text *t, const char *what, long lo, long hi, long *out)
{
    char buf[64], *end;
    int n = sc_text_token(t, buf, sizeof buf);
    if (n < 0) return PF_EPARSE;
    if (n == 0) return sc_text_error(t, PF_EPARSE, "file ends where %s was expected", what);
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end || errno) return sc_text_error(t, PF_EPARSE, "%s '%s' is not an integer", what, buf);
    if (v < lo || v > hi) return sc_text_error(t, PF_EPARSE, "%s %ld is out of range (%ld..%ld)", what, v, lo, hi);
    *out = v;
    return PF_OK;
}

int sc_text_error(const sc_text *t, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pf_error(code, "%s:%ld: %s", t->name, t->line, msg);
}

int sc_byte_error(const sc_text *t, const char *at, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pf_error(code, "%s: byte %lld: %s", t->name, (long long)(at - t->start), msg);
}

/* ---- binary fields ---- */

uint32_t sc_le32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

uint32_t sc_be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[3] | (uint32_t)u[2] << 8 | (uint32_t)u[1] << 16 | (uint32_t)u[0] << 24;
}

uint64_t sc_le64(const char *p) { return (uint64_t)sc_le32(p) | (uint64_t)sc_le32(p + 4) << 32; }
uint64_t sc_be64(const char *p) { return (uint64_t)sc_be32(p) << 32 | (uint64_t)sc_be32(p + 4); }

double sc_bits_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

float sc_bits_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

float sc_le_float(const char *p) { return sc_bits_float(sc_le32(p)); }

/* ---- whole files ---- */

int sc_read_mesh_path(const char *path, sc_mesh_parse_fn parse, sc_mesh *out, char *note, size_t note_size)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return pf_error(PF_EIO, "cannot open mesh file '%s'", path);
    char *data = NULL;
    size_t n = 0, cap = 0;
    int rc = PF_OK;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 1 << 16;
            char *d = ncap > ((size_t)1 << 34) ? NULL : pf_realloc(data, cap, ncap);
            if (!d) {
                rc = pf_error(PF_ENOMEM, "%s: file too large to read", path);
                break;
            }
            data = d, cap = ncap;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) rc = pf_error(PF_EIO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (rc == PF_OK) rc = parse(path, data, n, out, note, note_size);
    pf_free(data);
    return rc;
}
