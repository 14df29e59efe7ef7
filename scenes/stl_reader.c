/* STL meshes for MeshSTLLoader: binary (80-byte header, little-endian triangle count, 50 bytes per triangle: normal,
 * three corners as 32-bit floats, a 16-bit attribute) or ASCII ("solid", then "facet normal / outer loop / 3 vertex /
 * endloop / endfacet" blocks, "endsolid"). STL repeats every corner in each triangle: corners with exactly equal
 * coordinates become one point (numbered in order of first appearance), so the surface is connected. Triangles
 * that merging makes degenerate (two equal corners) are dropped with a note. */
#include "mesh_build.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

typedef struct stl {
    sc_text t;
    sc_mesh_builder b;
    uint32_t *slots; /* hash table of point indices + 1 (0: empty), keyed by the exact coordinates */
    size_t nslots;
    uint64_t degenerate;
} stl;

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_point(const double p[3])
{
    uint64_t h = 0;
    for (int d = 0; d < 3; d++) {
        uint64_t bits;
        memcpy(&bits, &p[d], sizeof bits);
        h = mix(h ^ bits) + (uint64_t)d;
    }
    return h;
}

static int grow(stl *s)
{
    size_t n = s->nslots ? 2 * s->nslots : 1024;
    uint32_t *slots = pf_malloc(n * sizeof *slots);
    if (!slots) return pf_error(PF_ENOMEM, "out of memory");
    memset(slots, 0, n * sizeof *slots);
    for (size_t k = 0; k < s->nslots; k++)
        if (s->slots[k]) {
            size_t i = hash_point(s->b.points.v + 3 * (size_t)(s->slots[k] - 1)) & (n - 1);
            while (slots[i]) i = (i + 1) & (n - 1);
            slots[i] = s->slots[k];
        }
    pf_free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return PF_OK;
}

/* The index of the point at p, added when new. -0.0 counts as 0.0: the coordinates are equal. */
static int point_index(stl *s, double p[3], uint32_t *out)
{
    for (int d = 0; d < 3; d++)
        if (p[d] == 0) p[d] = 0;
    size_t npoints = s->b.points.n / 3;
    if (2 * (npoints + 1) > s->nslots) {
        int rc = grow(s);
        if (rc) return rc;
    }
    size_t i = hash_point(p) & (s->nslots - 1);
    for (; s->slots[i]; i = (i + 1) & (s->nslots - 1)) {
        const double *q = s->b.points.v + 3 * (size_t)(s->slots[i] - 1);
        if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) {
            *out = s->slots[i] - 1;
            return PF_OK;
        }
    }
    int rc = sc_mb_point(&s->b, p);
    if (rc) return rc;
    s->slots[i] = (uint32_t)npoints + 1;
    *out = (uint32_t)npoints;
    return PF_OK;
}

static int add_triangle(stl *s, double c[3][3])
{
    uint32_t v[3];
    for (int k = 0; k < 3; k++) {
        int rc = point_index(s, c[k], &v[k]);
        if (rc) return rc;
    }
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) {
        s->degenerate++;
        return PF_OK;
    }
    return sc_mb_tri(&s->b, v);
}

static int read_binary(stl *s)
{
    size_t length = (size_t)(s->t.end - s->t.start);
    if (length < 84) return sc_byte_error(&s->t, s->t.end, PF_EPARSE, "a binary STL needs 84 bytes of header and count");
    uint32_t n = sc_le32(s->t.start + 80);
    if (n == 0) return sc_byte_error(&s->t, s->t.start + 80, PF_EPARSE, "no triangles");
    if ((length - 84) / 50 != n || (length - 84) % 50)
        return sc_byte_error(&s->t, s->t.start + 80, PF_EPARSE, "%u triangles announced: %llu bytes expected, the file "
                             "has %zu", n, 84ULL + 50ULL * n, length);
    if (n > SC_MESH_MAX_ITEMS) return sc_byte_error(&s->t, s->t.start + 80, PF_EPARSE, "%u triangles is too many", n);
    for (uint32_t k = 0; k < n; k++) {
        const char *p = s->t.start + 84 + 50 * (size_t)k;
        double c[3][3];
        for (int j = 0; j < 9; j++) {
            c[j / 3][j % 3] = sc_le_float(p + 12 + 4 * j);
            if (!isfinite(c[j / 3][j % 3]))
                return sc_byte_error(&s->t, p + 12 + 4 * j, PF_EPARSE, "triangle %u: coordinate is not finite", k);
        }
        int rc = add_triangle(s, c);
        if (rc) return rc;
    }
    return PF_OK;
}

static int expect(stl *s, const char *word)
{
    char buf[64];
    int n = sc_text_token(&s->t, buf, sizeof buf);
    if (n < 0) return PF_EPARSE;
    if (strcmp(buf, word))
        return sc_text_error(&s->t, PF_EPARSE, "'%s' expected, found '%s'", word, n ? buf : "the end of the file");
    return PF_OK;
}

static int read_ascii(stl *s)
{
    char buf[64];
    int rc;
    if ((rc = expect(s, "solid"))) return rc;
    sc_text_next_line(&s->t); /* the solid's name */
    for (;;) {
        int n = sc_text_token(&s->t, buf, sizeof buf);
        if (n < 0) return PF_EPARSE;
        if (n == 0) return sc_text_error(&s->t, PF_EPARSE, "the file ends without 'endsolid'");
        if (!strcmp(buf, "endsolid")) break;
        if (strcmp(buf, "facet")) return sc_text_error(&s->t, PF_EPARSE, "'facet' or 'endsolid' expected, found '%s'", buf);
        double c[3][3], normal;
        if ((rc = expect(s, "normal"))) return rc;
        for (int d = 0; d < 3; d++)
            if ((rc = sc_text_real(&s->t, "a normal component", &normal))) return rc;
        if ((rc = expect(s, "outer")) || (rc = expect(s, "loop"))) return rc;
        for (int k = 0; k < 3; k++) {
            if ((rc = expect(s, "vertex"))) return rc;
            for (int d = 0; d < 3; d++)
                if ((rc = sc_text_real(&s->t, "a coordinate", &c[k][d]))) return rc;
        }
        if ((rc = expect(s, "endloop")) || (rc = expect(s, "endfacet")) || (rc = add_triangle(s, c))) return rc;
    }
    if (s->b.tris.n == 0 && s->degenerate == 0) return sc_text_error(&s->t, PF_EPARSE, "no facets");
    return PF_OK;
}

/* ASCII when the file starts with "solid", is not exactly the size its binary count says, and has no NUL byte
 * among its first 134 (binary headers may start with "solid" too; a binary count below 2^24 holds a zero byte). */
static int is_ascii(const char *data, size_t length)
{
    if (length < 5 || memcmp(data, "solid", 5)) return 0;
    if (length >= 84 && (length - 84) % 50 == 0 && (length - 84) / 50 == sc_le32(data + 80)) return 0;
    return !memchr(data, 0, length < 134 ? length : 134);
}

int sc_parse_stl(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size)
{
    stl s = {0};
    sc_text_init(&s.t, name, data, length);
    int rc = is_ascii(data, length) ? read_ascii(&s) : read_binary(&s);
    pf_free(s.slots);
    if (rc) {
        sc_mb_free(&s.b);
        memset(out, 0, sizeof *out);
        return rc;
    }
    if (s.degenerate) {
        sc_mb_skip(&s.b, "triangle with two equal corners");
        s.b.skipped = s.degenerate;
    }
    return sc_mb_finish(&s.b, name, out, note, note_size);
}
