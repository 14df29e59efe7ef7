/* StringMeshCreator (SOFA's): a loader whose mesh is a string of `resolution` points evenly spread from (0, 0, 0)
 * to (1, 0, 0), each joined to the next by an edge, then moved as a mesh loader's (scale, rotation,
 * translation). */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#define TYPE(c) pf_scene_component_type(c)

int sc_string_mesh_creator(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double res = 2; /* SOFA's default: the two ends */
    int rc;
    if ((rc = pf_scene_component_real(c, "resolution", -1e300, 1e300, &res)) < 0) return rc;
    (void)pf_scene_component_string(c, "filename"); /* a loader's, read for nothing: the mesh is made here */
    /* one point would sit at 0 / 0 in SOFA: at least the two ends */
    if (res < 2 || res > 1e7 || res != (double)(uint32_t)res)
        return pf_scene_component_error(c, PF_EINVAL, "%s: resolution (points) must be an integer in [2, 1e7], "
                                        "got %g", TYPE(c), res);
    uint32_t n = (uint32_t)res;
    sc_mesh m = {0};
    m.points = pf_malloc((size_t)n * 3 * sizeof *m.points);
    m.edges = pf_malloc((size_t)(n - 1) * 2 * sizeof *m.edges);
    if (!m.points || !m.edges) {
        sc_mesh_free(&m);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    for (uint32_t x = 0; x < n; x++) { /* SOFA's x * 1/(n-1) */
        m.points[3 * (size_t)x] = (double)x * (1.0 / (double)(n - 1));
        m.points[3 * (size_t)x + 1] = 0;
        m.points[3 * (size_t)x + 2] = 0;
    }
    m.npoints = n;
    for (uint32_t e = 1; e < n; e++) {
        m.edges[2 * (size_t)(e - 1)] = e - 1;
        m.edges[2 * (size_t)(e - 1) + 1] = e;
    }
    m.nedges = n - 1;
    if ((rc = sc_mesh_loader_transform(c, &m))) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_loader_provide(c, &m);
}
