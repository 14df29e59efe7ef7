/* SOFA's TrianglePressureForceField with its default useConstantForce: on each listed triangle the pressure vector
 * times the triangle's area at rest, a third to each corner — a constant force per point, which PhysFlow's
 * constant force fields hold (pf_world_add_constant_force). The variant that follows the deforming triangles
 * (useConstantForce="false", cauchyStress on the current normals) is refused, not approximated. */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The triangles a BoxROI of this node selects (SOFA's default strict mode: all three corners in its boxes), as
 * indices into the node's triangles; *out owned. */
static int roi_triangles(pf_scene_component *c, const char *link, uint32_t **out, uint32_t *count)
{
    sc_node *node;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, "triangleList", link, &node, &comp, &field);
    if (rc) return rc;
    if (!comp || xmlStrcmp(comp->name, (const xmlChar *)"BoxROI") || !field || strcmp(field, "triangleIndices"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: triangleList link '%s' must name a BoxROI's "
                                        "triangleIndices ('@box.triangleIndices')", TYPE(c), link);
    if (node != c->node)
        return pf_scene_component_error(c, PF_EPARSE, "%s: the BoxROI '%s' is in another node", TYPE(c), link);
    xmlChar *strict = xmlGetProp(comp, (const xmlChar *)"strict");
    int loose = strict && (!xmlStrcmp(strict, (const xmlChar *)"0") || !xmlStrcmp(strict, (const xmlChar *)"false"));
    xmlFree(strict);
    if (loose)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: the BoxROI '%s' has strict=\"false\" (a triangle in by "
                                        "its centre), which PhysFlow's BoxROI does not select", TYPE(c), link);
    const uint32_t *idx;
    uint32_t n;
    if ((rc = sc_box_indices(c, node, comp, &idx, &n))) return rc;
    const sc_mesh *m = &c->node->mesh;
    uint32_t *t = pf_malloc(((size_t)m->ntris + 1) * sizeof *t);
    if (!t) return pf_error(PF_ENOMEM, "out of memory");
    *count = 0;
    for (uint32_t k = 0; k < m->ntris; k++) {
        int in = 1;
        for (int v = 0; v < 3 && in; v++) /* idx is sorted (sc_box_roi) */
            in = n && bsearch(&m->tris[3 * (size_t)k + (size_t)v], idx, n, sizeof *idx, by_u32) != NULL;
        if (in) t[(*count)++] = k;
    }
    *out = t;
    return PF_OK;
}

int sc_add_point_forces(pf_scene_component *c, pf_object_id o, const double *f, unsigned char *done, uint32_t np)
{
    pf_world *w = c->L->scene->world;
    uint32_t *pts = pf_malloc(((size_t)np + 1) * sizeof *pts);
    if (!pts) return pf_error(PF_ENOMEM, "out of memory");
    int rc = PF_OK;
    /* one constant force field per distinct force, on its points in increasing order */
    uint32_t fields = 0;
    for (uint32_t i = 0; i < np && !rc; i++) {
        if (done[i] != 1) continue;
        uint32_t m = 0;
        for (uint32_t j = i; j < np; j++)
            if (done[j] == 1 && !memcmp(f + 3 * (size_t)j, f + 3 * (size_t)i, 3 * sizeof *f)) {
                pts[m++] = j;
                done[j] = 2;
            }
        pf_constant_force_def d = pf_constant_force_default_def();
        memcpy(d.force, f + 3 * (size_t)i, sizeof d.force);
        d.points = pts;
        d.npoints = m;
        rc = pf_world_add_constant_force(w, o, &d, NULL);
        fields++;
    }
    pf_free(pts);
    if (!rc) c->L->scene->summary.force_fields += fields > 0;
    return rc;
}

int sc_triangle_pressure(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double p[3] = {0, 0, 0};
    int rc, constant = 1;
    if ((rc = pf_scene_component_reals(c, "pressure", 3, p)) < 0) return rc;
    if ((rc = sc_parse_bool(c, "useConstantForce", &constant)) < 0) return rc;
    (void)pf_scene_component_string(c, "cauchyStress"); /* used by the refused variant only */
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "showForces");
    pf_scene_component_ignore(c, "topology");
    if (!constant)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: useConstantForce=\"false\" applies cauchyStress to the "
                                        "deforming triangles' current normals, a force that follows the motion, "
                                        "which PhysFlow's constant forces cannot hold", TYPE(c));
    for (int a = 0; a < 3; a++)
        if (!isfinite(p[a]))
            return pf_scene_component_error(c, PF_EINVAL, "%s: pressure must be finite", TYPE(c));
    sc_node *n = c->node;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (n->topology != SC_TOPO_MESH || !n->mesh.ntris)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs triangles: a topology with triangles in node '%s'",
                                        TYPE(c), n->name);
    const char *list = pf_scene_component_string(c, "triangleList");
    uint32_t *tl = NULL, nt = 0;
    if (list && list[strspn(list, " \t\r\n")] == '@') {
        rc = roi_triangles(c, list + strspn(list, " \t\r\n"), &tl, &nt);
    } else {
        size_t m = 0;
        rc = sc_parse_uints(c, "triangleList", &tl, &m);
        rc = rc < 0 ? rc : PF_OK;
        nt = (uint32_t)m;
    }
    for (uint32_t k = 0; k < nt && !rc; k++)
        if (tl[k] >= n->mesh.ntris)
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: triangle %u is out of range (%u triangles)", TYPE(c),
                                          tl[k], n->mesh.ntris);
    if (rc || nt == 0) { /* SOFA applies nothing without a list */
        if (!rc) pf_scene_component_warning(c, "%s: no triangle listed: no force", TYPE(c));
        pf_free(tl);
        return rc;
    }
    uint32_t np;
    const double *x = pf_world_positions(c->L->scene->world, o, &np);
    double *f = pf_calloc((size_t)np * 3 + 1, sizeof *f);
    unsigned char *done = pf_calloc((size_t)np + 1, 1);
    if (!f || !done) {
        pf_free(f), pf_free(done), pf_free(tl);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    /* each corner's sum over the listed triangles, in list order: pressure x rest area / 3 */
    for (uint32_t k = 0; k < nt; k++) {
        const uint32_t *t = n->mesh.tris + 3 * (size_t)tl[k];
        const double *a = x + 3 * (size_t)t[0], *b = x + 3 * (size_t)t[1], *d = x + 3 * (size_t)t[2];
        double u[3], v[3];
        for (int i = 0; i < 3; i++) u[i] = b[i] - a[i], v[i] = d[i] - a[i];
        double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2], cz = u[0] * v[1] - u[1] * v[0];
        double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++) f[3 * (size_t)t[j] + (size_t)i] += p[i] * area / 3;
        for (int j = 0; j < 3; j++) done[t[j]] = 1;
    }
    pf_free(tl);
    rc = sc_add_point_forces(c, o, f, done, np);
    pf_free(f), pf_free(done);
    return rc;
}
