/* The boundary surface of a grid object: its boundary points under the IDENTITY mapping, two triangles per
 * boundary cell face with outward normals (the collision surface of a mass-spring or FEM grid). */
#include "world_guard.h"
#include "surface.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

/* point index of grid coordinates c */
static uint32_t grid_point(const int *n, const int c[3])
{
    return (uint32_t)c[0] + (uint32_t)n[0] * ((uint32_t)c[1] + (uint32_t)n[1] * (uint32_t)c[2]);
}

/* Appends the two triangles of each cell face in the plane c[d] = layer, axes a = d+1, b = d+2 (cyclic, so
 * e_a x e_b = e_d): normal +e_d when outward > 0, -e_d otherwise. Triangles hold point indices. */
static uint32_t face_triangles(const int *n, int d, int layer, int outward, uint32_t *tri)
{
    int a = (d + 1) % 3, b = (d + 2) % 3;
    uint32_t m = 0;
    for (int j = 0; j + 1 < n[b]; j++)
        for (int i = 0; i + 1 < n[a]; i++) {
            int c00[3], c10[3], c11[3], c01[3];
            c00[d] = c10[d] = c11[d] = c01[d] = layer;
            c00[a] = c01[a] = i;
            c10[a] = c11[a] = i + 1;
            c00[b] = c10[b] = j;
            c01[b] = c11[b] = j + 1;
            uint32_t p00 = grid_point(n, c00), p10 = grid_point(n, c10), p11 = grid_point(n, c11),
                     p01 = grid_point(n, c01);
            uint32_t q[6] = {p00, p10, p11, p00, p11, p01};
            if (!outward) q[1] = p11, q[2] = p10, q[4] = p01, q[5] = p11;
            for (int k = 0; k < 6; k++) tri[6 * m + k] = q[k];
            m++;
        }
    return 2 * m;
}

int pf_world_add_grid_surface(pf_world *w, pf_object_id id, pf_surface_id *out)
{
    static const char fn[] = "pf_world_add_grid_surface";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    const pf_object *o = w->obj.v[id.index];
    const int *n = o->grid;
    if (o->kind != PF_OBJECT_POINTS || n[0] < 1)
        return pf_error(PF_EINVAL, "%s: object %u is not a grid", fn, id.index);
    int flat = -1, nflat = 0;
    for (int d = 0; d < 3; d++)
        if (n[d] == 1) flat = d, nflat++;
    if (nflat > 1)
        return pf_error(PF_EINVAL, "%s: object %u is a grid line, which has no surface", fn, id.index);
    size_t quads = 0;
    for (int d = 0; d < 3; d++) {
        size_t f = (size_t)(n[(d + 1) % 3] - 1) * (size_t)(n[(d + 2) % 3] - 1);
        quads += flat < 0 ? 2 * f : (d == flat ? f : 0);
    }
    uint32_t *tri = pf_malloc(6 * quads * sizeof *tri), *vmap = pf_malloc((size_t)o->n * sizeof *vmap),
             *points = pf_malloc((size_t)o->n * sizeof *points);
    int rc = PF_OK;
    if (!tri || !vmap || !points) {
        rc = pf_error(PF_ENOMEM, "out of memory for a grid surface");
        goto done;
    }
    uint32_t nt = 0;
    for (int d = 0; d < 3; d++) {
        if (flat >= 0 && d != flat) continue;
        nt += face_triangles(n, d, n[d] - 1, 1, tri + 3 * (size_t)nt);
        if (flat < 0) nt += face_triangles(n, d, 0, 0, tri + 3 * (size_t)nt);
    }
    /* vertices: the points the triangles use, in increasing point order */
    for (uint32_t i = 0; i < o->n; i++) vmap[i] = UINT32_MAX;
    for (size_t k = 0; k < 3 * (size_t)nt; k++) vmap[tri[k]] = 0;
    uint32_t nv = 0;
    for (uint32_t i = 0; i < o->n; i++)
        if (vmap[i] == 0) points[nv] = i, vmap[i] = nv++;
    for (size_t k = 0; k < 3 * (size_t)nt; k++) tri[k] = vmap[tri[k]];
    pf_surface_def sd = pf_surface_default_def();
    sd.vertices = nv;
    sd.points = points;
    sd.indices = tri;
    sd.triangles = nt;
    rc = pf_world_add_surface(w, id, &sd, out);
done:
    pf_free(tri);
    pf_free(vmap);
    pf_free(points);
    return rc;
}
