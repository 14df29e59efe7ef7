/* GridMeshCreator (SOFA's): a loader whose mesh is a grid of resolution nx x ny points over the unit square
 * (z = 0), in quads or triangles by `trianglePattern`, then moved as a mesh loader's (scale, rotation,
 * translation). */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

static int edge_cmp(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* SOFA's edge set: each side once, in the orientation first met, ordered by (first, second) point. */
static int unique_edges(sc_mesh *m, const uint32_t *polys, uint32_t count, int corners)
{
    size_t n = (size_t)count * (size_t)corners;
    uint32_t *e = pf_malloc((n ? n : 1) * 2 * sizeof *e);
    if (!e) return pf_error(PF_ENOMEM, "out of memory for edges");
    /* a side met again in either direction is dropped: sort a copy by its unordered key to find the first */
    uint32_t *key = pf_malloc((n ? n : 1) * 3 * sizeof *key);
    if (!key) {
        pf_free(e);
        return pf_error(PF_ENOMEM, "out of memory for edges");
    }
    for (size_t k = 0; k < n; k++) {
        const uint32_t *p = polys + (k / (size_t)corners) * (size_t)corners;
        uint32_t a = p[k % (size_t)corners], b = p[(k + 1) % (size_t)corners];
        key[3 * k] = a < b ? a : b;
        key[3 * k + 1] = a < b ? b : a;
        key[3 * k + 2] = (uint32_t)k;
    }
    qsort(key, n, 3 * sizeof *key, edge_cmp); /* by the unordered pair; ties keep no order, resolved below */
    size_t u = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a, first = key[3 * a + 2];
        while (b < n && key[3 * b] == key[3 * a] && key[3 * b + 1] == key[3 * a + 1]) {
            if (key[3 * b + 2] < first) first = key[3 * b + 2];
            b++;
        }
        const uint32_t *p = polys + (first / (size_t)corners) * (size_t)corners;
        e[2 * u] = p[first % (size_t)corners];
        e[2 * u + 1] = p[(first + 1) % (size_t)corners];
        u++;
        a = b;
    }
    pf_free(key);
    qsort(e, u, 2 * sizeof *e, edge_cmp);
    m->edges = e;
    m->nedges = (uint32_t)u;
    return PF_OK;
}

int sc_grid_mesh_creator(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double res[2] = {2, 2}, pattern = 2;
    int rc;
    if ((rc = pf_scene_component_reals(c, "resolution", 2, res)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "trianglePattern", 0, 3, &pattern)) < 0) return rc;
    (void)pf_scene_component_string(c, "filename"); /* read for nothing: SOFA's scenes give a dummy one */
    for (int a = 0; a < 2; a++)
        if (res[a] < 2 || res[a] > 4096 || res[a] != (double)(int)res[a])
            return pf_scene_component_error(c, PF_EINVAL, "%s: resolution along %c must be an integer in [2, 4096], "
                                            "got %g", TYPE(c), "xy"[a], res[a]);
    if (pattern != (double)(int)pattern)
        return pf_scene_component_error(c, PF_EINVAL, "%s: trianglePattern must be 0, 1, 2 or 3, got %g", TYPE(c),
                                        pattern);
    uint32_t nx = (uint32_t)res[0], ny = (uint32_t)res[1], cells = (nx - 1) * (ny - 1);
    int pat = (int)pattern;
    sc_mesh m = {0};
    m.points = pf_malloc((size_t)nx * ny * 3 * sizeof *m.points);
    m.tris = pf_malloc((size_t)cells * 6 * sizeof *m.tris);
    if (pat == 0) m.quads = pf_malloc((size_t)cells * 4 * sizeof *m.quads);
    if (!m.points || !m.tris || (pat == 0 && !m.quads)) {
        sc_mesh_free(&m);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    for (uint32_t y = 0; y < ny; y++) /* point (x, y) is x + nx y */
        for (uint32_t x = 0; x < nx; x++) {
            double *p = m.points + 3 * ((size_t)x + (size_t)nx * y);
            p[0] = (double)x * (1.0 / (double)(nx - 1));
            p[1] = (double)y * (1.0 / (double)(ny - 1));
            p[2] = 0;
        }
    m.npoints = nx * ny;
    for (uint32_t y = 0; y + 1 < ny; y++)
        for (uint32_t x = 0; x + 1 < nx; x++) {
            uint32_t a = x + nx * y, b = a + 1, d = a + nx, e = d + 1; /* (x,y) (x+1,y) (x,y+1) (x+1,y+1) */
            uint32_t *t = m.tris + 3 * (size_t)m.ntris;
            /* SOFA's patterns: 0 quads, 1 alternating, 2 upward, 3 downward */
            int up = pat == 2 || (pat == 1 && (x + y) % 2 == 0) || pat == 0;
            if (pat == 0) {
                uint32_t *q = m.quads + 4 * (size_t)m.nquads++;
                q[0] = a, q[1] = b, q[2] = e, q[3] = d;
            }
            if (up) /* (a b e) (a e d); a quad splits the same way, as MeshTopology splits quads */
                t[0] = a, t[1] = b, t[2] = e, t[3] = a, t[4] = e, t[5] = d;
            else /* (a b d) (b e d) */
                t[0] = a, t[1] = b, t[2] = d, t[3] = b, t[4] = e, t[5] = d;
            m.ntris += 2;
        }
    rc = pat == 0 ? unique_edges(&m, m.quads, m.nquads, 4) : unique_edges(&m, m.tris, m.ntris, 3);
    if (!rc) rc = sc_mesh_loader_transform(c, &m);
    if (rc) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_loader_provide(c, &m);
}
