/* SOFA's selection engines, evaluated once at load (PhysFlow's scenes are static): PointsFromIndices (the points
 * of a list of indices) and SubsetTopology (a topology split by boxes or spheres into what lies in them and what
 * does not). Their outputs are linked by name ("@engine.indices_position", "@engine.trianglesInROI"). */
#include "components.h"
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* PointsFromIndices: indices_position[k] = position[indices[k]]. */
int sc_points_from_indices(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_scene_component_ignore(c, "template");
    const char *link = sc_raw_attr(c, "indices");
    if (link && link[strspn(link, " \t\r\n")] == '@')
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: indices from a link ('%s') are not supported: list "
                                        "them", TYPE(c), link);
    uint32_t *idx = NULL;
    size_t n = 0;
    int rc = sc_parse_uints(c, "indices", &idx, &n);
    if (rc < 0) return rc;
    sc_mesh in, out = {0};
    if ((rc = sc_engine_input(c, "position", &in))) {
        pf_free(idx);
        return rc;
    }
    for (size_t k = 0; k < n && !rc; k++)
        if (idx[k] >= in.npoints)
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: indices[%zu] = %u is out of range (%u points)", TYPE(c),
                                          k, idx[k], in.npoints);
    if (!rc && !(out.points = pf_malloc((n * 3 + 1) * sizeof *out.points))) rc = pf_error(PF_ENOMEM, "out of memory");
    for (size_t k = 0; k < n && !rc; k++) memcpy(out.points + 3 * k, in.points + 3 * (size_t)idx[k], 3 * sizeof(double));
    out.npoints = (uint32_t)n;
    pf_free(idx);
    sc_mesh_free(&in);
    if (rc) {
        sc_mesh_free(&out);
        return rc;
    }
    return sc_engine_provide_as(c, &out, "indices_position", NULL);
}

/* ---- SubsetTopology ---- */

typedef struct roi {
    double *boxes; /* 6 per box, each axis ordered (min <= max) */
    size_t nboxes;
    double *centers, *radii; /* spheres, used when centers is given */
    size_t nspheres;
} roi;

static int point_in(const roi *r, size_t k, const double *p)
{
    if (r->nspheres) {
        const double *c = r->centers + 3 * k;
        double d2 = 0;
        for (int a = 0; a < 3; a++) d2 += (p[a] - c[a]) * (p[a] - c[a]);
        return d2 <= r->radii[k] * r->radii[k];
    }
    const double *b = r->boxes + 6 * k;
    return p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] && p[2] <= b[5];
}

static size_t roi_count(const roi *r)
{
    return r->nspheres ? r->nspheres : r->nboxes;
}

/* an element of k corners is in the ROI when all its corners are in one same box or sphere */
static int element_in(const roi *r, const double *x, const uint32_t *e, int k)
{
    for (size_t b = 0; b < roi_count(r); b++) {
        int all = 1;
        for (int j = 0; j < k && all; j++) all = point_in(r, b, x + 3 * (size_t)e[j]);
        if (all) return 1;
    }
    return 0;
}

static int read_roi(pf_scene_component *c, roi *r)
{
    memset(r, 0, sizeof *r);
    size_t n;
    int rc = sc_parse_reals(c, "box", &r->boxes, &n);
    if (rc < 0) return rc;
    if (rc == 0) { /* SOFA's default box */
        if (!(r->boxes = pf_malloc(6 * sizeof *r->boxes))) return pf_error(PF_ENOMEM, "out of memory");
        const double unit[6] = {0, 0, 0, 1, 1, 1};
        memcpy(r->boxes, unit, sizeof unit);
        n = 6;
    }
    if (n == 0 || n % 6)
        return pf_scene_component_error(c, PF_EPARSE, "%s: 'box' needs 6 numbers per box (xmin ymin zmin xmax ymax "
                                        "zmax), got %zu", TYPE(c), n);
    r->nboxes = n / 6;
    for (size_t b = 0; b < r->nboxes; b++)
        for (int a = 0; a < 3; a++) {
            double *lo = r->boxes + 6 * b + a, *hi = lo + 3;
            if (*lo > *hi) {
                double t = *lo;
                *lo = *hi, *hi = t;
            }
        }
    size_t nc, nr;
    if ((rc = sc_parse_reals(c, "centers", &r->centers, &nc)) < 0) return rc;
    if ((rc = sc_parse_reals(c, "radii", &r->radii, &nr)) < 0) return rc;
    if (r->centers) {
        if (nc == 0 || nc % 3 || nr != nc / 3)
            return pf_scene_component_error(c, PF_EPARSE, "%s: 'centers' (3 numbers each) and 'radii' (one each) "
                                            "must give the same spheres, got %zu and %zu numbers", TYPE(c), nc, nr);
        r->nspheres = nr;
    }
    return PF_OK;
}

static void roi_free(roi *r)
{
    pf_free(r->boxes);
    pf_free(r->centers);
    pf_free(r->radii);
}

/* The input: the elements of the mesh `src` links (else the node's own topology), at the positions
 * `rest_position` links (else the node's MechanicalObject's, else the mesh's points). */
static int subset_input(pf_scene_component *c, sc_mesh *m, double **x, uint32_t *nx)
{
    sc_node *n = c->node, *from = n;
    xmlNode *comp = NULL;
    const char *field, *src = sc_raw_attr(c, "src");
    int rc;
    memset(m, 0, sizeof *m);
    *x = NULL;
    if (src && src[0] == '@' && (rc = sc_resolve_link(c, "src", src, &from, &comp, &field))) return rc;
    const sc_mesh *loaded = sc_loaded_mesh(from, comp);
    if (loaded) rc = sc_mesh_copy(m, loaded);
    else if (from->topology == SC_TOPO_MESH) rc = sc_mesh_copy(m, &from->mesh);
    else if (from->topology == SC_TOPO_GRID && !from->sparse)
        rc = sc_grid_mesh(from->def.grid, from->def.grid_min, from->def.grid_max, m);
    else
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' has no topology to select from (a loader, a "
                                        "container or a grid before it, or src=\"@loader\")", TYPE(c), from->name);
    if (rc) return rc;
    const char *rest = sc_raw_attr(c, "rest_position");
    if (rest && rest[0] == '@') {
        sc_mesh p;
        if ((rc = sc_engine_input(c, "rest_position", &p))) return rc;
        *x = p.points, *nx = p.npoints;
    } else if (n->positions && from == n) {
        if (!(*x = pf_malloc((size_t)n->npositions * 3 * sizeof **x))) return pf_error(PF_ENOMEM, "out of memory");
        memcpy(*x, n->positions, (size_t)n->npositions * 3 * sizeof **x);
        *nx = n->npositions;
    } else {
        if (!(*x = pf_malloc(((size_t)m->npoints * 3 + 1) * sizeof **x))) return pf_error(PF_ENOMEM, "out of memory");
        memcpy(*x, m->points, (size_t)m->npoints * 3 * sizeof **x);
        *nx = m->npoints;
    }
    const uint32_t *lists[] = {m->edges, m->tris, m->quads, m->tetra, m->hexa};
    const size_t sizes[] = {2 * (size_t)m->nedges, 3 * (size_t)m->ntris, 4 * (size_t)m->nquads,
                            4 * (size_t)m->ntetra, 8 * (size_t)m->nhexa};
    for (int l = 0; l < 5; l++)
        for (size_t i = 0; i < sizes[l]; i++)
            if (lists[l][i] >= *nx)
                return pf_scene_component_error(c, PF_EINVAL, "%s: the topology names point %u but the positions "
                                                "have %u points", TYPE(c), lists[l][i], *nx);
    return PF_OK;
}

/* SubsetTopology's element lists given apart (tetrahedra="@Container.tetrahedra", or written out): SOFA's input
 * Data, which src="@loader" would otherwise fill. Without src SOFA's lists not given stay empty; with it, those
 * given replace src's. Each must name points below nx. */
static int subset_lists_apart(pf_scene_component *c, sc_mesh *m, uint32_t nx)
{
    static const char *const names[] = {"edges", "triangles", "quads", "tetrahedra", "hexahedra"};
    static const uint32_t per[] = {2, 3, 4, 4, 8};
    uint32_t **lists[] = {&m->edges, &m->tris, &m->quads, &m->tetra, &m->hexa};
    uint32_t *counts[] = {&m->nedges, &m->ntris, &m->nquads, &m->ntetra, &m->nhexa};
    int any = 0, rc;
    for (int l = 0; l < 5; l++) any |= sc_raw_attr(c, names[l]) != NULL;
    if (!any) return PF_OK;
    int keep = sc_raw_attr(c, "src") != NULL;
    for (int l = 0; l < 5; l++) {
        const char *v = sc_raw_attr(c, names[l]);
        if (!v && keep) continue;
        uint32_t *list = NULL;
        size_t n = 0;
        if (v && v[0] == '@') {
            sc_node *from;
            xmlNode *comp;
            const char *field;
            if ((rc = sc_resolve_link(c, names[l], v, &from, &comp, &field))) return rc;
            if (!field || strcmp(field, names[l]))
                return pf_scene_component_error(c, PF_ENOTSUP, "%s: '%s' = '%s': a link to a topology's %s "
                                                "('@Container.%s') is supported", TYPE(c), names[l], v, names[l],
                                                names[l]);
            const sc_mesh *src = sc_loaded_mesh(from, comp);
            if (!src && from->topology == SC_TOPO_MESH) src = &from->mesh;
            if (!src)
                return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' = '%s': node '%s' has no mesh (yet: links are "
                                                "followed in document order)", TYPE(c), names[l], v, from->name);
            const uint32_t *sl[] = {src->edges, src->tris, src->quads, src->tetra, src->hexa};
            const uint32_t sn[] = {src->nedges, src->ntris, src->nquads, src->ntetra, src->nhexa};
            n = (size_t)sn[l] * per[l];
            if (!(list = pf_malloc(n * sizeof *list + 1))) return pf_error(PF_ENOMEM, "out of memory");
            if (n) memcpy(list, sl[l], n * sizeof *list);
        } else if (v) {
            if ((rc = sc_parse_uints(c, names[l], &list, &n)) < 0) return rc;
            if (n % per[l]) {
                pf_free(list);
                return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' needs %u indices per element, got %zu",
                                                TYPE(c), names[l], per[l], n);
            }
        }
        for (size_t i = 0; i < n; i++)
            if (list[i] >= nx) {
                uint32_t bad = list[i];
                pf_free(list);
                return pf_scene_component_error(c, PF_EINVAL, "%s: '%s' names point %u but the positions have %u "
                                                "points", TYPE(c), names[l], bad, nx);
            }
        pf_free(*lists[l]);
        *lists[l] = list;
        *counts[l] = (uint32_t)(n / per[l]);
    }
    return PF_OK;
}

/* SOFA's localIndices: the points of elements straddling the first box or sphere that lie in it (the border),
 * taken from the tetrahedra, else the triangles; flag[v] = 1 for them. Returns their count. */
static uint32_t mark_border(const roi *r, const double *x, uint32_t nx, const sc_mesh *m, uint8_t *flag)
{
    const uint32_t *e = m->ntetra ? m->tetra : m->tris;
    uint32_t ne = m->ntetra ? m->ntetra : m->ntris, k = m->ntetra ? 4 : 3, count = 0;
    memset(flag, 0, nx);
    for (uint32_t i = 0; i < ne; i++) {
        int in = 0, out = 0;
        for (uint32_t j = 0; j < k; j++) point_in(r, 0, x + 3 * (size_t)e[k * i + j]) ? in++ : out++;
        if (!in || !out) continue;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t v = e[k * i + j];
            if (!flag[v] && point_in(r, 0, x + 3 * (size_t)v)) flag[v] = 1, count++;
        }
    }
    return count;
}

/* Splits the elements of one list (k corners each) into in[] and out[] (renumbered by local[] when given). */
static int split_list(const roi *r, const double *x, const uint32_t *e, uint32_t ne, int k, const uint32_t *local,
                      sc_mesh *in, sc_mesh *out, int list)
{
    uint32_t **din[] = {&in->edges, &in->tris, &in->quads, &in->tetra, &in->hexa};
    uint32_t **dout[] = {&out->edges, &out->tris, &out->quads, &out->tetra, &out->hexa};
    uint32_t *nin[] = {&in->nedges, &in->ntris, &in->nquads, &in->ntetra, &in->nhexa};
    uint32_t *nout[] = {&out->nedges, &out->ntris, &out->nquads, &out->ntetra, &out->nhexa};
    size_t bytes = ((size_t)ne * (size_t)k + 1) * sizeof(uint32_t);
    if (!(*din[list] = pf_malloc(bytes)) || !(*dout[list] = pf_malloc(bytes)))
        return pf_error(PF_ENOMEM, "out of memory for a subset");
    for (uint32_t i = 0; i < ne; i++) {
        const uint32_t *v = e + (size_t)k * i;
        int inside = element_in(r, x, v, k);
        uint32_t *to = (inside ? *din[list] : *dout[list]) + (size_t)k * (inside ? *nin[list] : *nout[list]);
        for (int j = 0; j < k; j++) to[j] = local ? local[v[j]] : v[j];
        ++*(inside ? nin[list] : nout[list]);
    }
    return PF_OK;
}

static int subset_split(pf_scene_component *c, const roi *r, const sc_mesh *m, const double *x, uint32_t nx,
                        int local)
{
    sc_mesh in = {0}, out = {0}, pin = {0}, pout = {0};
    uint32_t *lidx = NULL;
    uint8_t *flag = NULL;
    int rc = PF_OK;
    size_t bytes = ((size_t)nx * 3 + 1) * sizeof(double);
    if (!(pin.points = pf_malloc(bytes)) || !(pout.points = pf_malloc(bytes)) ||
        !(lidx = pf_malloc(((size_t)nx + 1) * sizeof *lidx)) || !(flag = pf_malloc((size_t)nx + 1)))
        rc = pf_error(PF_ENOMEM, "out of memory for a subset");
    /* points: the border first (in both lists, ascending), then each list in order */
    uint32_t nb = rc ? 0 : local ? mark_border(r, x, nx, m, flag) : 0, cb = 0;
    if (!rc && !local) memset(flag, 0, nx);
    pin.npoints = pout.npoints = nb;
    for (uint32_t i = 0; i < nx && !rc; i++) {
        const double *p = x + 3 * (size_t)i;
        if (flag[i]) {
            memcpy(pin.points + 3 * (size_t)cb, p, 3 * sizeof *p);
            memcpy(pout.points + 3 * (size_t)cb, p, 3 * sizeof *p);
            lidx[i] = cb++;
            continue;
        }
        int inside = 0;
        for (size_t b = 0; b < roi_count(r) && !inside; b++) inside = point_in(r, b, p);
        sc_mesh *to = inside ? &pin : &pout;
        memcpy(to->points + 3 * (size_t)to->npoints, p, 3 * sizeof *p);
        lidx[i] = to->npoints++;
    }
    const uint32_t *lists[] = {m->edges, m->tris, m->quads, m->tetra, m->hexa};
    const uint32_t counts[] = {m->nedges, m->ntris, m->nquads, m->ntetra, m->nhexa};
    static const int corners[] = {2, 3, 4, 4, 8};
    for (int l = 0; l < 5 && !rc; l++)
        rc = split_list(r, x, lists[l], counts[l], corners[l], local ? lidx : NULL, &in, &out, l);
    pf_free(lidx);
    pf_free(flag);
    if (!rc && local) { /* the elements on their own points */
        in.points = pin.points, in.npoints = pin.npoints, pin.points = NULL;
        out.points = pout.points, out.npoints = pout.npoints, pout.points = NULL;
    } else if (!rc) { /* the elements on the input's points; the points in and out apart */
        if (!(in.points = pf_malloc(bytes)) || !(out.points = pf_malloc(bytes)))
            rc = pf_error(PF_ENOMEM, "out of memory for a subset");
        else {
            memcpy(in.points, x, (size_t)nx * 3 * sizeof *x), memcpy(out.points, x, (size_t)nx * 3 * sizeof *x);
            in.npoints = out.npoints = nx;
        }
    }
    if (rc) {
        sc_mesh_free(&in), sc_mesh_free(&out), sc_mesh_free(&pin), sc_mesh_free(&pout);
        return rc;
    }
    if (local) {
        if ((rc = sc_engine_provide_as(c, &in, "pointsInROI", "InROI"))) {
            sc_mesh_free(&out);
            return rc;
        }
        return sc_engine_provide_as(c, &out, "pointsOutROI", "OutROI");
    }
    if ((rc = sc_engine_provide_as(c, &pin, "pointsInROI", NULL))) {
        sc_mesh_free(&pout), sc_mesh_free(&in), sc_mesh_free(&out);
        return rc;
    }
    if ((rc = sc_engine_provide_as(c, &pout, "pointsOutROI", NULL))) {
        sc_mesh_free(&in), sc_mesh_free(&out);
        return rc;
    }
    if ((rc = sc_engine_provide_as(c, &in, NULL, "InROI"))) {
        sc_mesh_free(&out);
        return rc;
    }
    return sc_engine_provide_as(c, &out, NULL, "OutROI");
}

/* SubsetTopology (SOFA's engine): the points in any box (or sphere: centers, radii) and the elements with all
 * their corners in one same box, apart from the rest (the elements of the topology, src's or the node's, or the
 * lists given apart: subset_lists_apart); localIndices numbers each part's elements on its own points,
 * the border points (in the first box, on elements that straddle it) first in both. */
int sc_subset_topology(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"template", "drawROI", "drawPoints", "drawEdges", "drawTriangle",
                                          "drawTetrahedra", "drawSize", "direction", "normal", "edgeAngle",
                                          "triAngle"};
    SC_IGNORE_ATTRS(c, ignored);
    if (sc_raw_attr(c, "tetrahedraInput"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: 'tetrahedraInput' (a list of tetrahedra to keep) is not "
                                        "supported: select by box or sphere", TYPE(c));
    int local = 0, rc;
    if ((rc = sc_parse_bool(c, "localIndices", &local)) < 0) return rc;
    roi r;
    sc_mesh m = {0};
    double *x = NULL;
    uint32_t nx = 0;
    if (!(rc = read_roi(c, &r)) && !(rc = subset_input(c, &m, &x, &nx)) && !(rc = subset_lists_apart(c, &m, nx)))
        rc = subset_split(c, &r, &m, x, nx, local);
    roi_free(&r);
    sc_mesh_free(&m);
    pf_free(x);
    return rc;
}
