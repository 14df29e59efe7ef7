/* SOFA's EdgePressureForceField in its constant form: a nonzero `pressure` (a vector, N/m) gives each selected edge
 * the force pressure x its rest length, half to each end (EdgePressureForceField::initEdgeInformation and
 * addForce) — constant per-point forces (sc_add_point_forces). Without it, `p_intensity` is a load along each edge's
 * current normal, which turns with the edge: refused. The edges are the node's topology's: those `edges` lists
 * (pairs matched in the same order, or a link to the node's own container's edges: all of them), else
 * `edgeIndices`, else those with both ends strictly between `dmin` and `dmax` along `normal` at rest (SOFA applies
 * the three in that order, the last given replacing the others). */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* the follower form's message, as the refused models word theirs */
static int refuse_follower(pf_scene_component *c)
{
    for (const xmlAttr *a = c->el->properties; a; a = a->next) /* read: the error says why they are not used */
        (void)pf_scene_component_string(c, (const char *)a->name);
    return pf_scene_component_error(c, PF_ENOTSUP, "%s is not supported: its p_intensity is a follower load (each "
                                    "edge's force turned with the edge at every step), which PhysFlow's forces are "
                                    "not; its constant form, a nonzero 'pressure' (a vector) x each edge's rest "
                                    "length, is", TYPE(c));
}

/* `edges`: pairs of points, each the index of the topology's edge with those ends in that order; or a link to the
 * edges of the node's own topology container (all of them). *sel owned. */
static int listed_edges(pf_scene_component *c, const char *text, uint32_t **sel, uint32_t *count)
{
    const sc_mesh *m = &c->node->mesh;
    const char *t = text + strspn(text, " \t\r\n");
    if (t[0] == '@') {
        sc_node *node;
        xmlNode *comp;
        const char *field;
        int rc = sc_resolve_link(c, "edges", t, &node, &comp, &field);
        if (rc) return rc;
        if (node != c->node || !field || strcmp(field, "edges"))
            return pf_scene_component_error(c, PF_ENOTSUP, "%s: edges = '%s': only a link to the edges of the "
                                            "node's own topology is supported", TYPE(c), t);
        *sel = pf_malloc(((size_t)m->nedges + 1) * sizeof **sel);
        if (!*sel) return pf_error(PF_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < m->nedges; k++) (*sel)[k] = k;
        *count = m->nedges;
        return PF_OK;
    }
    uint32_t *pairs;
    size_t n;
    int rc = sc_parse_uints(c, "edges", &pairs, &n);
    if (rc < 0) return rc;
    if (n % 2) {
        pf_free(pairs);
        return pf_scene_component_error(c, PF_EPARSE, "%s: edges needs 2 indices per edge, got %zu", TYPE(c), n);
    }
    *sel = pf_malloc((n / 2 + 1) * sizeof **sel);
    if (!*sel) {
        pf_free(pairs);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < n / 2; k++) {
        uint32_t j = 0;
        const uint32_t *want = pairs + 2 * k;
        while (j < m->nedges && (m->edges[2 * (size_t)j] != want[0] || m->edges[2 * (size_t)j + 1] != want[1])) j++;
        if (j == m->nedges) { /* SOFA would take edge 0 for it */
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: edge %u %u is not an edge of the topology of node "
                                          "'%s' (in that order)", TYPE(c), pairs[2 * k], pairs[2 * k + 1],
                                          c->node->name);
            pf_free(pairs);
            pf_free(*sel);
            *sel = NULL;
            return rc;
        }
        (*sel)[k] = j;
    }
    pf_free(pairs);
    *count = (uint32_t)(n / 2);
    return PF_OK;
}

/* the edges whose two ends lie strictly between dmin and dmax along normal (its dot product, as SOFA's) */
static int plane_edges(pf_scene_component *c, const double *x, const double normal[3], double dmin, double dmax,
                       uint32_t **sel, uint32_t *count)
{
    const sc_mesh *m = &c->node->mesh;
    *sel = pf_malloc(((size_t)m->nedges + 1) * sizeof **sel);
    if (!*sel) return pf_error(PF_ENOMEM, "out of memory");
    *count = 0;
    for (uint32_t k = 0; k < m->nedges; k++) {
        int in = 1;
        for (int e = 0; e < 2 && in; e++) {
            const double *p = x + 3 * (size_t)m->edges[2 * (size_t)k + (size_t)e];
            double d = p[0] * normal[0] + p[1] * normal[1] + p[2] * normal[2];
            in = d > dmin && d < dmax;
        }
        if (in) (*sel)[(*count)++] = k;
    }
    return PF_OK;
}

int sc_edge_pressure(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double p[3] = {0, 0, 0}, normal[3] = {0, 0, 0}, dmin = 0, dmax = 0;
    int rc;
    if ((rc = pf_scene_component_reals(c, "pressure", 3, p)) < 0) return rc;
    int has_intensity = pf_scene_component_string(c, "p_intensity") != NULL;
    if (!(p[0] != 0 || p[1] != 0 || p[2] != 0)) {
        if (has_intensity) return refuse_follower(c);
        pf_scene_component_warning(c, "%s: no pressure (nor p_intensity): no force, as in SOFA", TYPE(c));
        for (const xmlAttr *a = c->el->properties; a; a = a->next)
            (void)pf_scene_component_string(c, (const char *)a->name);
        return PF_OK;
    }
    if ((rc = pf_scene_component_reals(c, "normal", 3, normal)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "dmin", -1e300, 1e300, &dmin)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "dmax", -1e300, 1e300, &dmax)) < 0) return rc;
    /* the follower form's data, unused once a pressure is given (SOFA's order); drawing */
    static const char *const unused[] = {"p_intensity", "binormal", "arrowSizeCoef", "showForces", "template",
                                         "topology", "mstate"};
    for (size_t k = 0; k < sizeof unused / sizeof *unused; k++) (void)pf_scene_component_string(c, unused[k]);
    sc_node *n = c->node;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (n->topology != SC_TOPO_MESH || !n->mesh.nedges)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs edges: a topology with edges in node '%s' (an "
                                        "EdgeSetTopologyContainer, a Triangle2EdgeTopologicalMapping)", TYPE(c),
                                        n->name);
    uint32_t np;
    const double *x = pf_world_positions(c->L->scene->world, o, &np); /* at load: the rest positions */
    for (uint32_t k = 0; k < 2 * n->mesh.nedges; k++)
        if (n->mesh.edges[k] >= np)
            return pf_scene_component_error(c, PF_EINVAL, "%s: an edge of node '%s' names point %u of %u", TYPE(c),
                                            n->name, n->mesh.edges[k], np);
    const char *edges = pf_scene_component_string(c, "edges");
    uint32_t *sel = NULL, ns = 0;
    if (edges) {
        rc = listed_edges(c, edges, &sel, &ns);
    } else if (pf_scene_component_string(c, "edgeIndices")) {
        const char *t = pf_scene_component_string(c, "edgeIndices");
        if (t[strspn(t, " \t\r\n")] == '@')
            return pf_scene_component_error(c, PF_ENOTSUP, "%s: edgeIndices = '%s': a link (an ROI's edges) is not "
                                            "supported: list the indices", TYPE(c), t);
        size_t m = 0;
        rc = sc_parse_uints(c, "edgeIndices", &sel, &m);
        rc = rc < 0 ? rc : PF_OK;
        ns = (uint32_t)m;
        for (uint32_t k = 0; k < ns && !rc; k++)
            if (sel[k] >= n->mesh.nedges)
                rc = pf_scene_component_error(c, PF_EINVAL, "%s: edge %u is out of range (%u edges)", TYPE(c), sel[k],
                                              n->mesh.nedges);
    } else if (dmin != dmax) {
        rc = plane_edges(c, x, normal, dmin, dmax, &sel, &ns);
    }
    if (rc || ns == 0) {
        if (!rc) pf_scene_component_warning(c, "%s: no edge selected (edges, edgeIndices or dmin < dmax along "
                                            "normal): no force", TYPE(c));
        pf_free(sel);
        return rc;
    }
    double *f = pf_calloc((size_t)np * 3 + 1, sizeof *f);
    unsigned char *done = pf_calloc((size_t)np + 1, 1);
    if (!f || !done) {
        pf_free(f), pf_free(done), pf_free(sel);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < ns; k++) { /* each end's sum over the edges, in selection order */
        const uint32_t *e = n->mesh.edges + 2 * (size_t)sel[k];
        const double *a = x + 3 * (size_t)e[0], *b = x + 3 * (size_t)e[1];
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int j = 0; j < 2; j++) {
            for (int i = 0; i < 3; i++) f[3 * (size_t)e[j] + (size_t)i] += p[i] * len / 2;
            done[e[j]] = 1;
        }
    }
    pf_free(sel);
    rc = sc_add_point_forces(c, o, f, done, np);
    pf_free(f), pf_free(done);
    return rc;
}
