/* A surface's lines and self-collision (SOFA LineCollisionModel, selfCollision): its edges — the unique edges of
 * its triangles and its explicit segments — with, per edge and per vertex, whether a triangle holds it (a vertex
 * against a triangle's edge is a vertex–triangle contact already), and the public calls that set and read them. */
#include "surface.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

void pf_surface_free_edges(pf_surface *s)
{
    pf_free(s->edge);
    pf_free(s->edge_on_tri);
    pf_free(s->vert_on_tri);
    s->edge = NULL;
    s->edge_on_tri = s->vert_on_tri = NULL;
    s->ne = 0;
}

static int by_key(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* key of edge (a, b): smaller vertex, larger vertex, then 1 for a triangle's edge; vertices < 2^28 (checked at
 * creation), so the key fits */
static uint64_t edge_key(uint32_t a, uint32_t b, int tri)
{
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    return lo << 33 | hi << 1 | (uint64_t)tri;
}

static int check_edges(const pf_surface *s, const pf_surface_def *d, const char *fn)
{
    if (d->nedges > (1u << 28))
        return pf_error(PF_EINVAL, "%s: def.nedges = %u is too many (at most %u)", fn, d->nedges, 1u << 28);
    if (d->nedges) PF_TRY(pf_check_given(d->edges, fn, "def.edges"));
    for (size_t k = 0; k < 2 * (size_t)d->nedges; k++)
        if (d->edges[k] >= s->nv)
            return pf_error(PF_EINVAL, "%s: def.edges[%zu] = %u (edge %zu): vertex out of range (%u vertices)", fn, k,
                            d->edges[k], k / 2, s->nv);
    for (size_t k = 0; k < d->nedges; k++)
        if (d->edges[2 * k] == d->edges[2 * k + 1])
            return pf_error(PF_EINVAL, "%s: def.edges[%zu] and def.edges[%zu] (edge %zu) both are vertex %u: an edge "
                            "joins two vertices", fn, 2 * k, 2 * k + 1, k, d->edges[2 * k]);
    return PF_OK;
}

int pf_surface_set_collision(pf_surface *s, const pf_surface_def *d, const char *fn)
{
    if (d->lines) PF_TRY(check_edges(s, d, fn));
    uint32_t *edge = NULL, ne = 0;
    uint8_t *on_tri = NULL, *vert = NULL;
    if (d->lines) {
        size_t n = 3 * (size_t)s->nt + d->nedges;
        uint64_t *keys = pf_malloc((n ? n : 1) * sizeof *keys);
        vert = pf_calloc(s->nv, 1);
        if (!keys || !vert) {
            pf_free(keys);
            pf_free(vert);
            return pf_error(PF_ENOMEM, "out of memory for the edges of a surface");
        }
        size_t m = 0;
        for (size_t t = 0; t < s->nt; t++)
            for (int k = 0; k < 3; k++) {
                uint32_t a = s->tri[3 * t + k], b = s->tri[3 * t + (k + 1) % 3];
                vert[a] = 1;
                if (a != b) keys[m++] = edge_key(a, b, 1); /* a degenerate triangle's collapsed side is no edge */
            }
        for (size_t k = 0; k < d->nedges; k++) keys[m++] = edge_key(d->edges[2 * k], d->edges[2 * k + 1], 0);
        qsort(keys, m, sizeof *keys, by_key);
        size_t u = 0; /* unique edges, their triangle flags or-ed */
        for (size_t k = 0; k < m; k++) {
            if (u && keys[u - 1] >> 1 == keys[k] >> 1)
                keys[u - 1] |= keys[k] & 1;
            else
                keys[u++] = keys[k];
        }
        edge = pf_malloc((u ? 2 * u : 1) * sizeof *edge);
        on_tri = pf_malloc(u ? u : 1);
        if (!edge || !on_tri) {
            pf_free(keys);
            pf_free(vert);
            pf_free(edge);
            pf_free(on_tri);
            return pf_error(PF_ENOMEM, "out of memory for the edges of a surface");
        }
        for (size_t k = 0; k < u; k++) {
            edge[2 * k] = (uint32_t)(keys[k] >> 33);
            edge[2 * k + 1] = (uint32_t)(keys[k] >> 1 & 0xffffffffu);
            on_tri[k] = (uint8_t)(keys[k] & 1);
        }
        ne = (uint32_t)u;
        pf_free(keys);
    }
    pf_surface_free_edges(s);
    s->edge = edge;
    s->edge_on_tri = on_tri;
    s->vert_on_tri = vert;
    s->ne = ne;
    s->lines = d->lines != 0;
    s->self_collision = d->self_collision != 0;
    return PF_OK;
}

pf_surface_point pf_surface_line_point(const pf_surface *s, uint32_t feature, double t)
{
    if (feature >= s->ne) {
        uint32_t v = feature - s->ne;
        return (pf_surface_point){{v, v, v}, {1, 0, 0}};
    }
    const uint32_t *e = s->edge + 2 * (size_t)feature;
    return (pf_surface_point){{e[0], e[1], e[1]}, {1 - t, t, 0}};
}

/* ---- public API ---- */

int pf_world_set_surface_collision(pf_world *w, pf_surface_id id, const pf_surface_def *def)
{
    static const char fn[] = "pf_world_set_surface_collision";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_index(id.index, w->surf.n, fn, "surface"));
    PF_TRY(pf_check_given(def, fn, "def"));
    return pf_surface_set_collision(w->surf.v[id.index], def, fn);
}

const uint32_t *pf_world_surface_edges(const pf_world *w, pf_surface_id id, uint32_t *edges)
{
    static const char fn[] = "pf_world_surface_edges";
    if (pf_world_check_given(w, fn) || pf_check_index(id.index, w->surf.n, fn, "surface")) return NULL;
    const pf_surface *s = w->surf.v[id.index];
    if (edges) *edges = s->ne;
    static const uint32_t none[2] = {0, 0};
    return s->edge ? s->edge : none;
}
