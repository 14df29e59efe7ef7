/* SOFA's CubeTopology: the surface of a box as a mesh of quads on nx x ny x nz grid points (sofa/component/topology/
 * container/constant/CubeTopology.cpp): its points, numbered as SOFA numbers them, its edges and its quads. */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* A box's grid: n points per axis from p0 by steps d; split: each face has its own points (SOFA's splitNormals);
 * inner: every grid point, inside ones included (internalPoints). */
typedef struct cube {
    int n[3];
    double p0[3], d[3];
    int split, inner;
} cube;

enum { PLANE_UNKNOWN = -1, PLANE_X0, PLANE_X1, PLANE_Y0, PLANE_Y1, PLANE_Z0, PLANE_Z1 };

/* CubeTopology::setSize: the number of points */
static uint64_t cube_points(const cube *q)
{
    uint64_t nx = (uint64_t)q->n[0], ny = (uint64_t)q->n[1], nz = (uint64_t)q->n[2];
    if (q->split) return nx * ny * (nz > 1 ? 2 : 1) + ny * nz * (nx > 1 ? 2 : 1) + nz * nx * (ny > 1 ? 2 : 1);
    if (!q->inner && nx > 1 && ny > 1 && nz > 1) return nx * ny * 2 + (nz - 2) * (2 * nx + 2 * ny - 4);
    return nx * ny * nz;
}

/* CubeTopology::point: the index of grid point (x, y, z), on face p when the faces have their own points */
static uint32_t cube_index(const cube *q, int x, int y, int z, int p)
{
    const int nx = q->n[0], ny = q->n[1], nz = q->n[2];
    if (q->split) {
        if (p == PLANE_UNKNOWN)
            p = x == 0 ? PLANE_X0 : x == nx - 1 ? PLANE_X1 : y == 0 ? PLANE_Y0 : y == ny - 1 ? PLANE_Y1
                : z == 0 ? PLANE_Z0 : PLANE_Z1;
        switch (p) {
        case PLANE_X0: return (uint32_t)(y + ny * z);
        case PLANE_X1: return (uint32_t)(ny * nz + nx * nz + nx * ny + y + ny * z);
        case PLANE_Y0: return (uint32_t)(ny * nz + x + nx * z);
        case PLANE_Y1: return (uint32_t)(2 * ny * nz + nx * nz + nx * ny + x + nx * z);
        case PLANE_Z0: return (uint32_t)(ny * nz + nx * nz + x + nx * y);
        default: return (uint32_t)(2 * ny * nz + 2 * nx * nz + nx * ny + x + nx * y);
        }
    }
    if (!q->inner && nx > 1 && ny > 1 && nz > 1) {
        if (z == 0) return (uint32_t)(x + nx * y);
        if (z == nz - 1) return (uint32_t)(x + nx * (y + ny));
        int base = nx * ny * 2 + (2 * nx + 2 * ny - 4) * (z - 1);
        if (y == 0) return (uint32_t)(base + x);
        if (y == ny - 1) return (uint32_t)(base + x + nx);
        if (x == 0) return (uint32_t)(base + 2 * nx + (y - 1));
        return (uint32_t)(base + 2 * nx + (ny - 2) + (y - 1));
    }
    return (uint32_t)(x + nx * (y + ny * z));
}

/* CubeTopology::getPoint(i): the grid coordinates of point i */
static void cube_coords(const cube *q, uint32_t index, int g[3])
{
    const int nx = q->n[0], ny = q->n[1], nz = q->n[2];
    int i = (int)index, x = 0, y = 0, z = 0;
    if (q->split) {
        if (i >= ny * nz + nx * nz + nx * ny) { /* the faces at the far ends */
            i -= ny * nz + nx * nz + nx * ny;
            x = nx - 1, y = ny - 1, z = nz - 1;
        }
        if (i < ny * nz) {
            y = i % ny, z = i / ny;
        } else if ((i -= ny * nz) < nx * nz) {
            x = i % nx, z = i / nx;
        } else {
            i -= nx * nz;
            x = i % nx, y = i / nx;
        }
    } else if (!q->inner && nx > 1 && ny > 1 && nz > 1) {
        if (i < 2 * nx * ny) {
            z = i < nx * ny ? 0 : nz - 1;
            i %= nx * ny;
            x = i % nx, y = i / nx;
        } else {
            i -= 2 * nx * ny;
            int ring = 2 * nx + 2 * (ny - 2);
            z = i / ring + 1;
            i %= ring;
            if (i < nx) x = i, y = 0;
            else if (i < 2 * nx) x = i - nx, y = ny - 1;
            else if (i < 2 * nx + ny - 2) x = 0, y = 1 + i - 2 * nx;
            else x = nx - 1, y = 1 + i - 2 * nx - (ny - 2);
        }
    } else {
        x = i % nx, y = i / nx % ny, z = i / (nx * ny);
    }
    g[0] = x, g[1] = y, g[2] = z;
}

/* CubeTopology::updateEdges and updateQuads, in SOFA's order; quads also as two triangles (0 1 2) (0 2 3) each, as
 * PhysFlow's meshes keep them. */
static int cube_elements(const cube *q, sc_mesh *m)
{
    const int nx = q->n[0], ny = q->n[1], nz = q->n[2];
    size_t ne = 0, nq = 0;
    for (int pass = 0; pass < 2; pass++) {
        ne = 0;
        for (int z = 0; z < nz; z++)
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++) {
                    /* SOFA's lines along x, then y, then z from each point, on the box's surface only */
                    const int along[3] = {x < nx - 1 && (y == 0 || y == ny - 1 || z == 0 || z == nz - 1),
                                          y < ny - 1 && (x == 0 || x == nx - 1 || z == 0 || z == nz - 1),
                                          z < nz - 1 && (x == 0 || x == nx - 1 || y == 0 || y == ny - 1)};
                    for (int a = 0; a < 3; a++) {
                        if (!along[a]) continue;
                        if (pass) {
                            m->edges[2 * ne] = cube_index(q, x, y, z, PLANE_UNKNOWN);
                            m->edges[2 * ne + 1] = cube_index(q, x + (a == 0), y + (a == 1), z + (a == 2),
                                                              PLANE_UNKNOWN);
                        }
                        ne++;
                    }
                }
        nq = 0;
        /* each face: its plane, the grid axes (u, v) it spans and its fixed coordinate, and its corners in turn as
         * steps (du, dv) from (u, v) */
        static const struct {
            int plane, u, v, w, far, turn[4][2];
        } faces[6] = {
            {PLANE_Z0, 0, 1, 2, 0, {{0, 0}, {0, 1}, {1, 1}, {1, 0}}},
            {PLANE_Z1, 0, 1, 2, 1, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}},
            {PLANE_Y0, 0, 2, 1, 0, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}},
            {PLANE_Y1, 0, 2, 1, 1, {{0, 0}, {0, 1}, {1, 1}, {1, 0}}},
            {PLANE_X0, 1, 2, 0, 0, {{0, 0}, {0, 1}, {1, 1}, {1, 0}}},
            {PLANE_X1, 1, 2, 0, 1, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}},
        };
        for (int f = 0; f < 6; f++) {
            const int u = faces[f].u, v = faces[f].v, w = faces[f].w;
            if (faces[f].far && q->n[w] <= 1) continue; /* SOFA: the far face only when the box has depth */
            for (int b = 0; b < q->n[v] - 1; b++)
                for (int a = 0; a < q->n[u] - 1; a++, nq++) {
                    if (!pass) continue;
                    uint32_t corner[4];
                    for (int k = 0; k < 4; k++) {
                        int g[3];
                        g[u] = a + faces[f].turn[k][0];
                        g[v] = b + faces[f].turn[k][1];
                        g[w] = faces[f].far ? q->n[w] - 1 : 0;
                        corner[k] = cube_index(q, g[0], g[1], g[2], faces[f].plane);
                    }
                    memcpy(m->quads + 4 * nq, corner, sizeof corner);
                    const uint32_t t[6] = {corner[0], corner[1], corner[2], corner[0], corner[2], corner[3]};
                    memcpy(m->tris + 6 * nq, t, sizeof t);
                }
        }
        if (!pass && (!(m->edges = pf_malloc((2 * ne + 1) * sizeof *m->edges)) ||
                      !(m->quads = pf_malloc((4 * nq + 1) * sizeof *m->quads)) ||
                      !(m->tris = pf_malloc((6 * nq + 1) * sizeof *m->tris))))
            return pf_error(PF_ENOMEM, "out of memory for a cube's elements");
    }
    m->nedges = (uint32_t)ne;
    m->nquads = (uint32_t)nq;
    m->ntris = (uint32_t)(2 * nq);
    return PF_OK;
}

/* CubeTopology nx ny nz (points per axis), min max (its corners; or xmin ... zmax, all six, times `scale`, read as
 * SOFA's parse reads them: in single precision), internalPoints, splitNormals. */
int sc_cube_topology(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double n[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, axis[6], scale = 1;
    int rc, inner = 0, split = 0, given = 0;
    static const char *const ns[3] = {"nx", "ny", "nz"}, *const ends[6] = {"xmin", "ymin", "zmin", "xmax", "ymax",
                                                                         "zmax"};
    for (int d = 0; d < 3; d++)
        if ((rc = pf_scene_component_reals(c, ns[d], 1, &n[d])) < 0) return rc;
    if ((rc = pf_scene_component_reals(c, "min", 3, lo)) < 0 || (rc = pf_scene_component_reals(c, "max", 3, hi)) < 0 ||
        (rc = pf_scene_component_real(c, "scale", -1e300, 1e300, &scale)) < 0 ||
        (rc = sc_parse_bool(c, "internalPoints", &inner)) < 0 || (rc = sc_parse_bool(c, "splitNormals", &split)) < 0)
        return rc;
    for (int k = 0; k < 6; k++) {
        if ((rc = pf_scene_component_reals(c, ends[k], 1, &axis[k])) < 0) return rc;
        given += rc;
    }
    static const char *const drawn[] = {"drawEdges", "drawTriangles", "drawQuads", "drawTetrahedra", "drawHexahedra"};
    SC_IGNORE_ATTRS(c, drawn);
    if (given == 6) /* SOFA's parse: (float)(xmin * scale) in single precision, replacing min and max */
        for (int k = 0; k < 3; k++) {
            lo[k] = (double)((float)axis[k] * (float)scale);
            hi[k] = (double)((float)axis[3 + k] * (float)scale);
        }
    else if (given)
        pf_scene_component_warning(c, "%s: xmin ... zmax are read only all six together (SOFA's parse): min and max "
                                   "are used", TYPE(c));
    cube q = {.split = split, .inner = inner};
    for (int d = 0; d < 3; d++) {
        if (n[d] < 1 || n[d] != floor(n[d]) || n[d] > (1 << 16))
            return pf_scene_component_error(c, PF_EINVAL, "%s: %s must be an integer in [1, %d], got %g (SOFA's "
                                            "default 0 makes an empty topology)", TYPE(c), ns[d], 1 << 16, n[d]);
        q.n[d] = (int)n[d];
        q.p0[d] = lo[d];
        q.d[d] = q.n[d] > 1 ? (hi[d] - lo[d]) / (q.n[d] - 1) : 0; /* CubeTopology::setPos */
    }
    uint64_t np = cube_points(&q);
    if (np > (1u << 26)) return pf_scene_component_error(c, PF_EINVAL, "%s: %llu points is too many", TYPE(c),
                                                         (unsigned long long)np);
    sc_mesh m = {0};
    if (!(m.points = pf_malloc((size_t)np * 3 * sizeof *m.points))) return pf_error(PF_ENOMEM, "out of memory");
    m.npoints = (uint32_t)np;
    for (uint32_t i = 0; i < m.npoints; i++) {
        int g[3];
        cube_coords(&q, i, g);
        for (int a = 0; a < 3; a++) /* p0 + dx x + dy y + dz z, each step along its own axis */
            m.points[3 * (size_t)i + (size_t)a] = q.p0[a] + q.d[a] * g[a];
    }
    if ((rc = cube_elements(&q, &m)) || (rc = sc_claim_topology(c, SC_TOPO_MESH))) {
        sc_mesh_free(&m);
        return rc;
    }
    c->node->mesh = m;
    return PF_OK;
}
