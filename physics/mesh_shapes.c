/* Closed triangle meshes of simple solids (outward, counter-clockwise triangles): a box and an icosphere, the
 * surfaces of rigid boxes and spheres and test solids for mass properties. */
#include "physflow/physics.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

void pf_mesh_free(pf_mesh *m)
{
    if (!m) return;
    pf_free(m->positions);
    pf_free(m->indices);
    *m = (pf_mesh){0};
}

static int mesh_alloc(pf_mesh *m, size_t nv, size_t nt)
{
    *m = (pf_mesh){0};
    m->positions = pf_malloc(3 * nv * sizeof *m->positions);
    m->indices = pf_malloc(3 * nt * sizeof *m->indices);
    if (!m->positions || !m->indices) {
        pf_mesh_free(m);
        return pf_error(PF_ENOMEM, "out of memory for a mesh of %zu vertices", nv);
    }
    return PF_OK;
}

int pf_mesh_box(const double half_extents[3], pf_mesh *out)
{
    static const char fn[] = "pf_mesh_box";
    PF_TRY(pf_check_given(out, fn, "out"));
    PF_TRY(pf_check_given(half_extents, fn, "half_extents"));
    const double *e = half_extents;
    PF_TRY(pf_check_positive(e[0], fn, "half_extents[0]"));
    PF_TRY(pf_check_positive(e[1], fn, "half_extents[1]"));
    PF_TRY(pf_check_positive(e[2], fn, "half_extents[2]"));
    int rc = mesh_alloc(out, 8, 12);
    if (rc) return rc;
    for (int k = 0; k < 8; k++) /* corner k at (±e0, ±e1, ±e2), bit d set: + on axis d */
        for (int d = 0; d < 3; d++) out->positions[3 * k + d] = (k >> d & 1) ? e[d] : -e[d];
    static const uint32_t t[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                   2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    memcpy(out->indices, t, sizeof t);
    out->vertices = 8;
    out->triangles = 12;
    return PF_OK;
}

/* Edge -> midpoint vertex, open addressing over the key lo * 2^32 + hi (each edge is met from both sides). */
typedef struct edge_map {
    uint64_t *key;
    uint32_t *val;
    size_t cap;
} edge_map;

static uint32_t midpoint(edge_map *em, pf_mesh *m, uint32_t a, uint32_t b, double r)
{
    uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (em->cap - 1);
    while (em->key[i] != UINT64_MAX && em->key[i] != key) i = (i + 1) & (em->cap - 1);
    if (em->key[i] == key) return em->val[i];
    double p[3], n = 0;
    for (int d = 0; d < 3; d++) {
        p[d] = 0.5 * (m->positions[3 * (size_t)a + d] + m->positions[3 * (size_t)b + d]);
        n += p[d] * p[d];
    }
    n = sqrt(n);
    for (int d = 0; d < 3; d++) m->positions[3 * (size_t)m->vertices + d] = r * p[d] / n;
    em->key[i] = key;
    return em->val[i] = m->vertices++;
}

int pf_mesh_icosphere(double radius, int level, pf_mesh *out)
{
    static const char fn[] = "pf_mesh_icosphere";
    PF_TRY(pf_check_given(out, fn, "out"));
    PF_TRY(pf_check_positive(radius, fn, "radius"));
    PF_TRY(pf_check_int_range(level, 0, 7, fn, "level"));
    size_t nv = 12, nt = 20;
    for (int l = 0; l < level; l++) nv += nt * 3 / 2, nt *= 4;
    int rc = mesh_alloc(out, nv, nt);
    if (rc) return rc;
    double t = (1 + sqrt(5.0)) / 2, n = sqrt(1 + t * t);
    const double v[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                             {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const uint32_t f[60] = {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4,
                                   11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8,
                                   3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1};
    for (int i = 0; i < 12; i++)
        for (int d = 0; d < 3; d++) out->positions[3 * i + d] = radius * v[i][d] / n;
    memcpy(out->indices, f, sizeof f);
    out->vertices = 12;
    out->triangles = 20;
    uint32_t *next = pf_malloc(3 * nt * sizeof *next);
    edge_map em = {NULL, NULL, 64};
    while (em.cap < 2 * nt) em.cap *= 2; /* > twice the edges of the finest level: short probes */
    em.key = pf_malloc(em.cap * sizeof *em.key);
    em.val = pf_malloc(em.cap * sizeof *em.val);
    if (!next || !em.key || !em.val) {
        rc = pf_error(PF_ENOMEM, "out of memory for an icosphere");
        goto done;
    }
    for (int l = 0; l < level; l++) {
        memset(em.key, 0xff, em.cap * sizeof *em.key);
        for (uint32_t k = 0; k < out->triangles; k++) { /* each triangle into 4 */
            const uint32_t *c = out->indices + 3 * (size_t)k;
            uint32_t ab = midpoint(&em, out, c[0], c[1], radius), bc = midpoint(&em, out, c[1], c[2], radius),
                     ca = midpoint(&em, out, c[2], c[0], radius);
            uint32_t q[12] = {c[0], ab, ca, c[1], bc, ab, c[2], ca, bc, ab, bc, ca};
            memcpy(next + 12 * (size_t)k, q, sizeof q);
        }
        out->triangles *= 4;
        memcpy(out->indices, next, 3 * (size_t)out->triangles * sizeof *next);
    }
done:
    pf_free(next);
    pf_free(em.key);
    pf_free(em.val);
    if (rc) pf_mesh_free(out);
    return rc;
}
