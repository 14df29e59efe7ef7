/* Faces and edges derived from a volume mesh as SOFA's topology containers derive them (see topology_derived.h). */
#include "topology_derived.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

/* SOFA's sofa/core/topology/Topology.cpp: trianglesOrientationInTetrahedronArray, quadsOrientationInHexahedronArray
 * (the faces QuadUpdate and createQuadSetArray take, in that order), edgesInTetrahedronArray, edgesInHexahedronArray */
static const int tetra_faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};
static const int hexa_faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
static const int tetra_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const int hexa_edges[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                      {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};

/* A candidate element: its corners as SOFA stores them, and the key that finds its twin (either orientation). */
typedef struct candidate {
    uint32_t v[4], key[4];
    size_t order; /* position among all candidates: the first met is kept */
} candidate;

static int candidate_cmp(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    for (int k = 0; k < 4; k++)
        if (x->key[k] != y->key[k]) return x->key[k] < y->key[k] ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int order_cmp(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Corners v (k of them) started at the smallest, turn kept (SOFA's "sort v such that v[0] is the smallest one"); the
 * key is the smaller, value by value, of that and the reversed turn (v0 vk-1 ... v1), so a face met from its other
 * side matches. An edge is stored smaller index first and keyed the same way. */
static void make_candidate(candidate *c, const uint32_t *v, int k, size_t order)
{
    uint32_t r[4] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    int first = 0;
    for (int a = 1; a < k; a++)
        if (v[a] < v[first]) first = a;
    for (int a = 0; a < k; a++) r[a] = v[(first + a) % k];
    uint32_t back[4] = {r[0], UINT32_MAX, UINT32_MAX, UINT32_MAX};
    for (int a = 1; a < k; a++) back[a] = r[k - a];
    int reversed = 0;
    for (int a = 0; a < k; a++)
        if (back[a] != r[a]) {
            reversed = back[a] < r[a];
            break;
        }
    memcpy(c->v, r, sizeof r);
    memcpy(c->key, reversed ? back : r, sizeof r);
    c->order = order;
}

/* Keeps the first of each group of candidates with one key, in the order met: *n becomes the number kept. */
static void keep_first(candidate *c, size_t *n)
{
    qsort(c, *n, sizeof *c, candidate_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (i == 0 || memcmp(c[i].key, c[i - 1].key, sizeof c[i].key)) c[kept++] = c[i];
    qsort(c, kept, sizeof *c, order_cmp);
    *n = kept;
}

/* The candidates of every element of `count` (each `corners` indices in `elems`) through `table` (`per` local
 * elements of k corners each), appended at c + *n. */
static void add_candidates(candidate *c, size_t *n, const uint32_t *elems, uint32_t count, int corners,
                           const int *table, int per, int k)
{
    for (uint32_t e = 0; e < count; e++)
        for (int f = 0; f < per; f++) {
            uint32_t v[4];
            for (int a = 0; a < k; a++) v[a] = elems[(size_t)corners * e + (size_t)table[k * f + a]];
            make_candidate(&c[*n], v, k, *n);
            (*n)++;
        }
}

int sc_derive_volume_faces(sc_mesh *m)
{
    if (m->ntris || m->nquads || (!m->ntetra && !m->nhexa)) return 0;
    size_t nt = (size_t)m->ntetra * 4, nq = (size_t)m->nhexa * 6;
    candidate *c = pf_malloc((nt + nq + 1) * sizeof *c);
    if (!c) return pf_error(PF_ENOMEM, "out of memory for a volume's faces");
    /* the triangles (from tetrahedra) and the quads (from hexahedra) are two lists, each deduplicated alone */
    nt = nq = 0;
    add_candidates(c, &nt, m->tetra, m->ntetra, 4, &tetra_faces[0][0], 4, 3);
    keep_first(c, &nt);
    size_t q0 = nt;
    add_candidates(c + q0, &nq, m->hexa, m->nhexa, 8, &hexa_faces[0][0], 6, 4);
    keep_first(c + q0, &nq);
    uint32_t *tris = pf_malloc((3 * nt + 6 * nq + 1) * sizeof *tris), *quads = pf_malloc((4 * nq + 1) * sizeof *quads);
    if (!tris || !quads) {
        pf_free(c), pf_free(tris), pf_free(quads);
        return pf_error(PF_ENOMEM, "out of memory for a volume's faces");
    }
    for (size_t i = 0; i < nt; i++) memcpy(tris + 3 * i, c[i].v, 3 * sizeof *tris);
    for (size_t i = 0; i < nq; i++) {
        const uint32_t *q = c[q0 + i].v;
        memcpy(quads + 4 * i, q, 4 * sizeof *quads);
        /* PhysFlow's two triangles of a quad (0 1 2) (0 2 3): SOFA's TriangleCollisionModel takes (1 2 0) (3 0 2),
         * the same triangles turned the same way */
        uint32_t *d = tris + 3 * nt + 6 * i;
        d[0] = q[0], d[1] = q[1], d[2] = q[2], d[3] = q[0], d[4] = q[2], d[5] = q[3];
    }
    pf_free(c);
    pf_free(m->tris);
    pf_free(m->quads);
    m->tris = tris;
    m->ntris = (uint32_t)(nt + 2 * nq);
    m->quads = quads;
    m->nquads = (uint32_t)nq;
    return (int)(nt + nq);
}

int sc_derive_volume_edges(sc_mesh *m)
{
    if (m->nedges || (!m->ntetra && !m->nhexa)) return 0;
    size_t total = (size_t)m->ntetra * 6 + (size_t)m->nhexa * 12, n = 0;
    candidate *c = pf_malloc((total + 1) * sizeof *c);
    if (!c) return pf_error(PF_ENOMEM, "out of memory for a volume's edges");
    add_candidates(c, &n, m->tetra, m->ntetra, 4, &tetra_edges[0][0], 6, 2);
    add_candidates(c, &n, m->hexa, m->nhexa, 8, &hexa_edges[0][0], 12, 2);
    keep_first(c, &n);
    uint32_t *edges = pf_malloc((2 * n + 1) * sizeof *edges);
    if (!edges) {
        pf_free(c);
        return pf_error(PF_ENOMEM, "out of memory for a volume's edges");
    }
    for (size_t i = 0; i < n; i++) edges[2 * i] = c[i].v[0], edges[2 * i + 1] = c[i].v[1];
    pf_free(c);
    pf_free(m->edges);
    m->edges = edges;
    m->nedges = (uint32_t)n;
    return (int)n;
}
