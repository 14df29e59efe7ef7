/* SOFA's topological mappings: a child node's elements computed from its parent's topology, on the same points
 * (Hexa2TetraTopologicalMapping, Tetra2TriangleTopologicalMapping, Hexa2QuadTopologicalMapping,
 * Quad2TriangleTopologicalMapping, Triangle2EdgeTopologicalMapping), and a regular grid's hexahedra. */
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"
#include "physics/rotation.h"

#include <stdlib.h>
#include <string.h>

/* out: a copy of in's points and nothing else */
static int copy_points(const sc_mesh *in, sc_mesh *out)
{
    memset(out, 0, sizeof *out);
    size_t bytes = (size_t)in->npoints * 3 * sizeof *in->points;
    if (!(out->points = pf_malloc(bytes ? bytes : 1))) return pf_error(PF_ENOMEM, "out of memory for a mesh");
    memcpy(out->points, in->points, bytes);
    out->npoints = in->npoints;
    return PF_OK;
}

static uint32_t *alloc_indices(size_t n)
{
    return pf_malloc((n ? n : 1) * sizeof(uint32_t));
}

int sc_grid_mesh(const int n[3], const double lo[3], const double hi[3], sc_mesh *out)
{
    memset(out, 0, sizeof *out);
    size_t np = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    size_t nh = (size_t)(n[0] - 1) * (size_t)(n[1] - 1) * (size_t)(n[2] - 1);
    if (!(out->points = pf_malloc(np * 3 * sizeof *out->points)) || !(out->hexa = alloc_indices(8 * nh))) {
        sc_mesh_free(out);
        return pf_error(PF_ENOMEM, "out of memory for a grid's mesh");
    }
    /* point (i, j, k) is i + nx (j + ny k), as PhysFlow's grid objects and SOFA's RegularGridTopology number them */
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                const int c[3] = {i, j, k};
                double *p = out->points + 3 * ((size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k));
                for (int a = 0; a < 3; a++)
                    p[a] = n[a] > 1 ? lo[a] + (hi[a] - lo[a]) * (double)c[a] / (double)(n[a] - 1) : lo[a];
            }
    /* hexahedron (i, j, k): bottom face counterclockwise seen from +z, then the top face above it (GridTopology) */
    uint32_t *h = out->hexa;
    for (int k = 0; k + 1 < n[2]; k++)
        for (int j = 0; j + 1 < n[1]; j++)
            for (int i = 0; i + 1 < n[0]; i++) {
                uint32_t p = (uint32_t)i + (uint32_t)n[0] * ((uint32_t)j + (uint32_t)n[1] * (uint32_t)k);
                uint32_t dy = (uint32_t)n[0], dz = (uint32_t)n[0] * (uint32_t)n[1];
                const uint32_t v[8] = {p, p + 1, p + 1 + dy, p + dy, p + dz, p + 1 + dz, p + 1 + dy + dz, p + dy + dz};
                memcpy(h, v, sizeof v);
                h += 8;
            }
    out->npoints = (uint32_t)np;
    out->nhexa = (uint32_t)nh;
    return PF_OK;
}

int sc_grid_quads(const int g[3], uint32_t **out, uint32_t *nq)
{
    *out = NULL;
    *nq = 0;
    int flat = -1, ones = 0;
    for (int a = 0; a < 3; a++)
        if (g[a] == 1) flat = a, ones++;
    if (ones != 1) return PF_OK;
    int u = flat == 0 ? 1 : 0, v = flat == 2 ? 1 : 2; /* the two axes of the sheet, in order */
    const uint32_t stride[3] = {1, (uint32_t)g[0], (uint32_t)(g[0] * g[1])};
    uint32_t n = (uint32_t)((g[u] - 1) * (g[v] - 1));
    uint32_t *q = pf_malloc((size_t)n * 4 * sizeof *q);
    if (!q) return pf_error(PF_ENOMEM, "out of memory for %u quads", n);
    uint32_t k = 0;
    for (int j = 0; j + 1 < g[v]; j++)
        for (int i = 0; i + 1 < g[u]; i++, k++) {
            uint32_t p = (uint32_t)i * stride[u] + (uint32_t)j * stride[v];
            q[4 * k] = p;
            q[4 * k + 1] = p + stride[u];
            q[4 * k + 2] = p + stride[u] + stride[v];
            q[4 * k + 3] = p + stride[v];
        }
    *out = q;
    *nq = n;
    return PF_OK;
}

/* Six tetrahedra per hexahedron; `oriented`: a mirrored cell takes the mirrored split (the mapping's), else the
 * plain one (the FEM's, some tetrahedra then inverted) */
static int split_hexahedra(const sc_mesh *in, int nx, int ny, int swapping, int oriented, sc_mesh *out)
{
    PF_TRY(copy_points(in, out));
    if (!(out->tetra = alloc_indices((size_t)in->nhexa * 24))) {
        sc_mesh_free(out);
        return pf_error(PF_ENOMEM, "out of memory for tetrahedra");
    }
    /* SOFA's Hexa2TetraTopologicalMapping::init: six tetrahedra around the diagonal c0-c6; with `swapping`, the
     * corners mirrored along x on even columns, y on odd rows and z on odd layers (nx, ny: cells per row and
     * column of a grid; 2 and 1 otherwise, as SOFA takes them) */
    static const int plain[6][4] = {{0, 5, 1, 6}, {0, 1, 3, 6}, {1, 3, 6, 2}, {6, 3, 0, 7}, {6, 7, 0, 5}, {7, 5, 4, 0}};
    static const int mirrored[6][4] = {{0, 5, 6, 1}, {0, 1, 6, 3}, {1, 3, 2, 6},
                                       {6, 3, 7, 0}, {6, 7, 5, 0}, {7, 5, 0, 4}};
    for (uint32_t i = 0; i < in->nhexa; i++) {
        uint32_t c[8];
        memcpy(c, in->hexa + 8 * (size_t)i, sizeof c);
        int swapped = 0;
        if (swapping) {
            uint32_t t;
#define SWAP(a, b) (t = c[a], c[a] = c[b], c[b] = t)
            if (!((i % (uint32_t)nx) & 1)) {
                SWAP(0, 1), SWAP(3, 2), SWAP(4, 5), SWAP(7, 6);
                swapped = !swapped;
            }
            if (((i / (uint32_t)nx) % (uint32_t)ny) & 1) {
                SWAP(0, 3), SWAP(1, 2), SWAP(4, 7), SWAP(5, 6);
                swapped = !swapped;
            }
            if ((i / ((uint32_t)nx * (uint32_t)ny)) & 1) {
                SWAP(0, 4), SWAP(1, 5), SWAP(2, 6), SWAP(3, 7);
                swapped = !swapped;
            }
#undef SWAP
        }
        const int(*split)[4] = swapped && oriented ? mirrored : plain;
        for (int t = 0; t < 6; t++)
            for (int v = 0; v < 4; v++) out->tetra[24 * (size_t)i + 4 * (size_t)t + (size_t)v] = c[split[t][v]];
    }
    out->ntetra = in->nhexa * 6;
    return PF_OK;
}

int sc_hexa_to_tetra(const sc_mesh *in, int nx, int ny, int swapping, sc_mesh *out)
{
    return split_hexahedra(in, nx, ny, swapping, 1, out);
}

int sc_hexa_to_tetra_fem(const sc_mesh *in, int nx, int ny, sc_mesh *out)
{
    /* SOFA's TetrahedronFEMForceField::init on a topology without tetrahedra: the corners always swapped as the
     * mapping's `swapping` does, then the plain six (its element frames follow this corner order) */
    return split_hexahedra(in, nx, ny, 1, 0, out);
}

/* ---- boundaries: the faces met once ---- */

typedef struct face_key {
    uint32_t v[4]; /* sorted corners (the 4th UINT32_MAX for a triangle or an edge's 3rd and 4th) */
    size_t index;  /* position among all faces */
} face_key;

static int key_cmp(const void *a, const void *b)
{
    const face_key *x = a, *y = b;
    for (int k = 0; k < 4; k++)
        if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* once[f] = 1 for the faces (per corners each, `per` of them per face) that no other face shares. */
static int faces_met_once(const uint32_t *faces, size_t nfaces, int per, unsigned char **once)
{
    face_key *keys = pf_malloc((nfaces ? nfaces : 1) * sizeof *keys);
    *once = pf_calloc(nfaces ? nfaces : 1, 1);
    if (!keys || !*once) {
        pf_free(keys);
        pf_free(*once);
        *once = NULL;
        return pf_error(PF_ENOMEM, "out of memory for a boundary");
    }
    for (size_t f = 0; f < nfaces; f++) {
        face_key *k = &keys[f];
        for (int a = 0; a < 4; a++) k->v[a] = a < per ? faces[(size_t)per * f + (size_t)a] : UINT32_MAX;
        for (int a = 1; a < per; a++) /* insertion sort of at most 4 */
            for (int b = a; b > 0 && k->v[b - 1] > k->v[b]; b--) {
                uint32_t t = k->v[b];
                k->v[b] = k->v[b - 1];
                k->v[b - 1] = t;
            }
        k->index = f;
    }
    qsort(keys, nfaces, sizeof *keys, key_cmp);
    for (size_t a = 0; a < nfaces;) {
        size_t b = a + 1;
        while (b < nfaces && !memcmp(keys[a].v, keys[b].v, sizeof keys[a].v)) b++;
        if (b == a + 1) (*once)[keys[a].index] = 1;
        a = b;
    }
    pf_free(keys);
    return PF_OK;
}

static void sub(const double *a, const double *b, double *d)
{
    for (int k = 0; k < 3; k++) d[k] = a[k] - b[k];
}

int sc_tetra_to_triangles(const sc_mesh *in, sc_mesh *out)
{
    PF_TRY(copy_points(in, out));
    size_t nf = (size_t)in->ntetra * 4;
    uint32_t *faces = alloc_indices(nf * 3);
    if (!faces) {
        sc_mesh_free(out);
        return pf_error(PF_ENOMEM, "out of memory for triangles");
    }
    /* face f of a tetrahedron is the one opposite its corner f, turned so that its normal (by the right hand)
     * points away from that corner: outward */
    static const int opposite[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    const double *P = in->points;
    for (uint32_t t = 0; t < in->ntetra; t++) {
        const uint32_t *v = in->tetra + 4 * (size_t)t;
        for (int f = 0; f < 4; f++) {
            uint32_t *d = faces + 3 * (4 * (size_t)t + (size_t)f);
            for (int k = 0; k < 3; k++) d[k] = v[opposite[f][k]];
            double e1[3], e2[3], nrm[3], out_dir[3];
            sub(P + 3 * (size_t)d[1], P + 3 * (size_t)d[0], e1);
            sub(P + 3 * (size_t)d[2], P + 3 * (size_t)d[0], e2);
            pf_cross(e1, e2, nrm);
            sub(P + 3 * (size_t)d[0], P + 3 * (size_t)v[f], out_dir);
            if (nrm[0] * out_dir[0] + nrm[1] * out_dir[1] + nrm[2] * out_dir[2] < 0) { /* an inverted tetrahedron */
                uint32_t s = d[1];
                d[1] = d[2];
                d[2] = s;
            }
        }
    }
    unsigned char *once;
    int rc = faces_met_once(faces, nf, 3, &once);
    size_t keep = 0;
    for (size_t f = 0; !rc && f < nf; f++) keep += once[f];
    if (!rc && !(out->tris = alloc_indices(keep * 3))) rc = pf_error(PF_ENOMEM, "out of memory for triangles");
    for (size_t f = 0; !rc && f < nf; f++)
        if (once[f]) memcpy(out->tris + 3 * (size_t)out->ntris++, faces + 3 * f, 3 * sizeof *faces);
    if (!rc) pf_free(once);
    pf_free(faces);
    if (rc) sc_mesh_free(out);
    return rc;
}

/* The two triangles of quad q as PhysFlow's quad meshes take them (MeshTopology): 0 1 2 and 0 2 3. */
static void quad_halves(const uint32_t *q, uint32_t *d)
{
    d[0] = q[0], d[1] = q[1], d[2] = q[2], d[3] = q[0], d[4] = q[2], d[5] = q[3];
}

int sc_hexa_to_quads(const sc_mesh *in, sc_mesh *out)
{
    PF_TRY(copy_points(in, out));
    size_t nf = (size_t)in->nhexa * 6;
    uint32_t *faces = alloc_indices(nf * 4);
    if (!faces) {
        sc_mesh_free(out);
        return pf_error(PF_ENOMEM, "out of memory for quads");
    }
    /* the six faces of a hexahedron (bottom 0-3, top 4-7 above), each counterclockwise seen from outside when the
     * top is above the bottom by the right hand; turned over for a hexahedron given the other way */
    static const int face[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
    const double *P = in->points;
    for (uint32_t h = 0; h < in->nhexa; h++) {
        const uint32_t *v = in->hexa + 8 * (size_t)h;
        double centre[3] = {0, 0, 0};
        for (int c = 0; c < 8; c++)
            for (int a = 0; a < 3; a++) centre[a] += P[3 * (size_t)v[c] + (size_t)a] / 8;
        for (int f = 0; f < 6; f++) {
            uint32_t *d = faces + 4 * (6 * (size_t)h + (size_t)f);
            for (int k = 0; k < 4; k++) d[k] = v[face[f][k]];
            double d1[3], d2[3], nrm[3], out_dir[3];
            sub(P + 3 * (size_t)d[2], P + 3 * (size_t)d[0], d1);
            sub(P + 3 * (size_t)d[3], P + 3 * (size_t)d[1], d2);
            pf_cross(d1, d2, nrm);
            sub(P + 3 * (size_t)d[0], centre, out_dir);
            if (nrm[0] * out_dir[0] + nrm[1] * out_dir[1] + nrm[2] * out_dir[2] < 0) {
                uint32_t s = d[1];
                d[1] = d[3];
                d[3] = s;
            }
        }
    }
    unsigned char *once;
    int rc = faces_met_once(faces, nf, 4, &once);
    size_t keep = 0;
    for (size_t f = 0; !rc && f < nf; f++) keep += once[f];
    if (!rc && (!(out->quads = alloc_indices(keep * 4)) || !(out->tris = alloc_indices(keep * 6))))
        rc = pf_error(PF_ENOMEM, "out of memory for quads");
    for (size_t f = 0; !rc && f < nf; f++)
        if (once[f]) {
            memcpy(out->quads + 4 * (size_t)out->nquads, faces + 4 * f, 4 * sizeof *faces);
            quad_halves(faces + 4 * f, out->tris + 3 * (size_t)out->ntris);
            out->nquads++;
            out->ntris += 2;
        }
    if (!rc) pf_free(once);
    pf_free(faces);
    if (rc) sc_mesh_free(out);
    return rc;
}

int sc_quads_to_triangles(const sc_mesh *in, int scale, sc_mesh *out)
{
    PF_TRY(copy_points(in, out));
    if (!(out->tris = alloc_indices((size_t)in->nquads * 6))) {
        sc_mesh_free(out);
        return pf_error(PF_ENOMEM, "out of memory for triangles");
    }
    /* SOFA's Quad2TriangleTopologicalMapping::init: the diagonal alternates like a chessboard over rows of `scale`
     * quads (a grid's cells per row; 2 otherwise) */
    for (uint32_t i = 0; i < in->nquads; i++) {
        const uint32_t *q = in->quads + 4 * (size_t)i;
        uint32_t *d = out->tris + 6 * (size_t)i;
        if (((i % (uint32_t)scale) ^ (i / (uint32_t)scale)) & 1) {
            d[0] = q[0], d[1] = q[1], d[2] = q[3], d[3] = q[2], d[4] = q[3], d[5] = q[1];
        } else {
            d[0] = q[1], d[1] = q[2], d[2] = q[0], d[3] = q[3], d[4] = q[0], d[5] = q[2];
        }
    }
    out->ntris = 2 * in->nquads;
    return PF_OK;
}

int sc_triangles_to_edges(const sc_mesh *in, sc_mesh *out)
{
    PF_TRY(copy_points(in, out));
    size_t ne = (size_t)in->ntris * 3;
    uint32_t *edges = alloc_indices(ne * 2);
    if (!edges) {
        sc_mesh_free(out);
        return pf_error(PF_ENOMEM, "out of memory for edges");
    }
    for (size_t t = 0; t < in->ntris; t++)
        for (int k = 0; k < 3; k++) {
            edges[2 * (3 * t + (size_t)k)] = in->tris[3 * t + (size_t)k];
            edges[2 * (3 * t + (size_t)k) + 1] = in->tris[3 * t + (size_t)(k + 1) % 3];
        }
    unsigned char *once;
    int rc = faces_met_once(edges, ne, 2, &once);
    size_t keep = 0;
    for (size_t e = 0; !rc && e < ne; e++) keep += once[e];
    if (!rc && !(out->edges = alloc_indices(keep * 2))) rc = pf_error(PF_ENOMEM, "out of memory for edges");
    for (size_t e = 0; !rc && e < ne; e++)
        if (once[e]) memcpy(out->edges + 2 * (size_t)out->nedges++, edges + 2 * e, 2 * sizeof *edges);
    if (!rc) pf_free(once);
    pf_free(edges);
    if (rc) sc_mesh_free(out);
    return rc;
}
