/* SOFA's engines on whole meshes, evaluated once at load: MergeMeshes (several meshes as one, SOFA's
 * engine/generate/MergeMeshes.inl) and MeshBoundaryROI (the points on a triangle/quad mesh's boundary,
 * engine/select/MeshBoundaryROI.cpp). Their inputs are SOFA's lists: a quad is not also two triangles there, so the
 * two triangles PhysFlow's meshes keep beside each quad are left out of a linked `triangles`. */
#include "components.h"
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

enum { LIST_EDGES, LIST_TRIANGLES, LIST_QUADS, LIST_TETRAHEDRA, LIST_HEXAHEDRA, LISTS };
static const char *const list_names[LISTS] = {"edges", "triangles", "quads", "tetrahedra", "hexahedra"};
static const uint32_t list_corners[LISTS] = {2, 3, 4, 4, 8};

/* The triangles of m as SOFA lists them: m->tris without the two halves (0 1 2) (0 2 3) of each quad, which
 * PhysFlow's readers and containers append in the quads' order. *out owned by the caller. */
static int sofa_triangles(const sc_mesh *m, uint32_t **out, uint32_t *n)
{
    *n = 0;
    if (!(*out = pf_malloc(((size_t)m->ntris * 3 + 1) * sizeof **out))) return pf_error(PF_ENOMEM, "out of memory");
    uint32_t q = 0;
    for (uint32_t t = 0; t < m->ntris; t++) {
        const uint32_t *a = m->tris + 3 * (size_t)t, *v = q < m->nquads ? m->quads + 4 * (size_t)q : NULL;
        if (v && t + 1 < m->ntris && a[0] == v[0] && a[1] == v[1] && a[2] == v[2] && a[3] == v[0] && a[4] == v[2] &&
            a[5] == v[3]) {
            t++, q++;
            continue;
        }
        memcpy(*out + 3 * (size_t)*n, a, 3 * sizeof *a);
        (*n)++;
    }
    return PF_OK;
}

/* List `l` of the mesh or grid a link names: a loader's or engine's mesh, a node's mesh, or a RegularGridTopology's
 * elements (a flat grid's quads, a 3D grid's hexahedra; its triangles only when computeTriangleList="false" makes
 * them none). *out owned by the caller. */
static int linked_list(pf_scene_component *c, const char *attr, const char *value, int l, uint32_t **out,
                       uint32_t *n)
{
    sc_node *from;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, attr, value, &from, &comp, &field);
    if (rc) return rc;
    if (!field || strcmp(field, list_names[l]))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: '%s' = '%s': a link to a mesh's %s ('@loader.%s') is "
                                        "supported", TYPE(c), attr, value, list_names[l], list_names[l]);
    const sc_mesh *m = sc_loaded_mesh(from, comp);
    if (!m && from->topology == SC_TOPO_MESH) m = &from->mesh;
    if (!m && from->topology == SC_TOPO_GRID && !from->sparse) {
        const int *g = from->def.grid;
        int flat = (g[0] == 1) + (g[1] == 1) + (g[2] == 1) == 1;
        *out = NULL, *n = 0;
        if (l == LIST_QUADS) return sc_grid_quads(g, out, n);
        if (l == LIST_HEXAHEDRA && !flat) {
            sc_mesh grid;
            PF_TRY(sc_grid_mesh(g, from->def.grid_min, from->def.grid_max, &grid));
            *out = grid.hexa, *n = grid.nhexa;
            grid.hexa = NULL;
            sc_mesh_free(&grid);
            return PF_OK;
        }
        xmlChar *tl = comp ? xmlGetProp(comp, (const xmlChar *)"computeTriangleList") : NULL;
        int none = tl && (!xmlStrcmp(tl, (const xmlChar *)"false") || !xmlStrcmp(tl, (const xmlChar *)"0"));
        xmlFree(tl);
        if (l == LIST_TRIANGLES && none) return PF_OK;
        if (l == LIST_EDGES || l == LIST_TRIANGLES)
            return pf_scene_component_error(c, PF_ENOTSUP, "%s: '%s' = '%s': a RegularGridTopology's %s are not "
                                            "listed by PhysFlow (its quads or hexahedra are)", TYPE(c), attr, value,
                                            list_names[l]);
        return PF_OK; /* a flat grid's hexahedra, a 3D grid's quads: none in SOFA's GridTopology lists either */
    }
    if (!m)
        return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' = '%s': node '%s' has no mesh (yet: links are "
                                        "followed in document order)", TYPE(c), attr, value, from->name);
    if (l == LIST_TRIANGLES) return sofa_triangles(m, out, n);
    const uint32_t *src[LISTS] = {m->edges, m->tris, m->quads, m->tetra, m->hexa};
    const uint32_t cnt[LISTS] = {m->nedges, m->ntris, m->nquads, m->ntetra, m->nhexa};
    size_t k = (size_t)cnt[l] * list_corners[l];
    if (!(*out = pf_malloc((k + 1) * sizeof **out))) return pf_error(PF_ENOMEM, "out of memory");
    if (k) memcpy(*out, src[l], k * sizeof **out);
    *n = cnt[l];
    return PF_OK;
}

/* Element list `l` from attribute attr: a link, or indices written out (k per element); absent: none. */
static int element_list(pf_scene_component *c, const char *attr, int l, uint32_t **out, uint32_t *n)
{
    *out = NULL, *n = 0;
    const char *v = pf_scene_component_string(c, attr);
    if (!v) v = sc_raw_attr(c, attr);
    if (!v) return PF_OK;
    if (v[strspn(v, " \t\r\n")] == '@') return linked_list(c, attr, v + strspn(v, " \t\r\n"), l, out, n);
    size_t k;
    int rc = sc_parse_uints(c, attr, out, &k);
    if (rc < 0) return rc;
    if (k % list_corners[l]) {
        pf_free(*out);
        *out = NULL;
        return pf_scene_component_error(c, PF_EPARSE, "%s: '%s' needs %u indices per element, got %zu", TYPE(c), attr,
                                        list_corners[l], k);
    }
    *n = (uint32_t)(k / list_corners[l]);
    return PF_OK;
}

/* MergeMeshes nbMeshes="n" position1 ... positionN, edges1, triangles1, quads1, tetrahedra1, hexahedra1, ...: the
 * points one mesh after the other, each mesh's elements renumbered by the points before it (mergeInputDataVector).
 * Outputs "@name.position" and "@name.<list>". */
int sc_merge_meshes(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double nb = 2;
    int rc = pf_scene_component_real(c, "nbMeshes", -1e300, 1e300, &nb);
    if (rc < 0) return rc;
    if (nb < 1 || nb > 1000 || nb != (double)(int)nb)
        return pf_scene_component_error(c, PF_EINVAL, "%s: nbMeshes must be an integer in [1, 1000], got %g", TYPE(c),
                                        nb);
    pf_scene_component_ignore(c, "template");
    static const char *const outputs[] = {"position", "npoints", "edges", "triangles", "quads", "polygons",
                                          "tetrahedra", "hexahedra"};
    SC_IGNORE_ATTRS(c, outputs); /* what it gives, named for its users */
    PF_VEC(double) points = {0};
    PF_VEC(uint32_t) lists[LISTS] = {{0}};
    rc = PF_OK;
    for (int i = 1; i <= (int)nb && !rc; i++) {
        char attr[32];
        snprintf(attr, sizeof attr, "position%d", i);
        sc_mesh in = {0};
        const char *v = pf_scene_component_string(c, attr);
        if (v) {
            if (v[strspn(v, " \t\r\n")] == '@') {
                rc = sc_engine_input(c, attr, &in);
            } else {
                size_t k;
                if ((rc = sc_parse_reals(c, attr, &in.points, &k)) >= 0 && k % 3)
                    rc = pf_scene_component_error(c, PF_EPARSE, "%s: '%s' needs 3 numbers per point, got %zu",
                                                  TYPE(c), attr, k);
                in.npoints = (uint32_t)(k / 3);
                rc = rc < 0 ? rc : PF_OK;
            }
        }
        uint32_t base = (uint32_t)(points.n / 3);
        for (uint32_t k = 0; !rc && k < 3 * in.npoints; k++)
            if (pf_vec_push(&points, in.points[k])) rc = pf_error(PF_ENOMEM, "out of memory");
        for (int l = 0; l < LISTS && !rc; l++) {
            snprintf(attr, sizeof attr, "%s%d", list_names[l], i);
            uint32_t *e, ne;
            if ((rc = element_list(c, attr, l, &e, &ne))) break;
            for (size_t k = 0; k < (size_t)ne * list_corners[l] && !rc; k++) {
                if (e[k] >= in.npoints)
                    rc = pf_scene_component_error(c, PF_EINVAL, "%s: '%s' names point %u but position%d has %u points",
                                                  TYPE(c), attr, e[k], i, in.npoints);
                else if (pf_vec_push(&lists[l], base + e[k]))
                    rc = pf_error(PF_ENOMEM, "out of memory");
            }
            pf_free(e);
        }
        sc_mesh_free(&in);
    }
    sc_mesh m = {0};
    uint32_t nq = rc ? 0 : (uint32_t)(lists[LIST_QUADS].n / 4), nt = rc ? 0 : (uint32_t)(lists[LIST_TRIANGLES].n / 3);
    /* PhysFlow's mesh: each quad also two triangles (0 1 2) (0 2 3), after SOFA's triangles */
    if (!rc && !(m.tris = pf_malloc(((size_t)nt * 3 + (size_t)nq * 6 + 1) * sizeof *m.tris)))
        rc = pf_error(PF_ENOMEM, "out of memory");
    if (!rc) {
        if (nt) memcpy(m.tris, lists[LIST_TRIANGLES].v, (size_t)nt * 3 * sizeof *m.tris);
        for (uint32_t q = 0; q < nq; q++) {
            const uint32_t *v = lists[LIST_QUADS].v + 4 * (size_t)q;
            const uint32_t h[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
            memcpy(m.tris + 3 * (size_t)nt + 6 * (size_t)q, h, sizeof h);
        }
        m.ntris = nt + 2 * nq;
        m.points = points.v, m.npoints = (uint32_t)(points.n / 3), points.v = NULL;
        uint32_t **dst[LISTS] = {&m.edges, NULL, &m.quads, &m.tetra, &m.hexa};
        uint32_t *cnt[LISTS] = {&m.nedges, NULL, &m.nquads, &m.ntetra, &m.nhexa};
        for (int l = 0; l < LISTS; l++)
            if (dst[l]) *dst[l] = lists[l].v, *cnt[l] = (uint32_t)(lists[l].n / list_corners[l]), lists[l].v = NULL;
        if (!m.points && !(m.points = pf_malloc(sizeof *m.points))) rc = pf_error(PF_ENOMEM, "out of memory");
    }
    pf_free(points.v);
    for (int l = 0; l < LISTS; l++) pf_free(lists[l].v);
    if (rc) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_engine_provide_as(c, &m, "position", "");
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* MeshBoundaryROI triangles quads [inputROI]: the points of the edges that one element only has (among the
 * elements with every corner in inputROI, or all when it is empty), in increasing order, for "@name.indices". */
int sc_mesh_boundary_roi(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    (void)pf_scene_component_string(c, "indices"); /* what it gives */
    uint32_t *tris = NULL, *quads = NULL, *roi = NULL, nt = 0, nq = 0;
    size_t nroi = 0;
    int rc = element_list(c, "triangles", LIST_TRIANGLES, &tris, &nt);
    if (!rc) rc = element_list(c, "quads", LIST_QUADS, &quads, &nq);
    if (!rc) {
        int r = sc_parse_uints(c, "inputROI", &roi, &nroi);
        rc = r < 0 ? r : PF_OK;
    }
    if (rc) {
        pf_free(tris), pf_free(quads), pf_free(roi);
        return rc;
    }
    if (nroi) qsort(roi, nroi, sizeof *roi, cmp_u32);
    /* every element's sides, each as (smaller, larger), then counted by sorting */
    size_t ne = 0;
    uint32_t *e = pf_malloc(((size_t)nt * 3 + (size_t)nq * 4 + 1) * 2 * sizeof *e);
    if (!e) rc = pf_error(PF_ENOMEM, "out of memory");
    for (int kind = 0; kind < 2 && !rc; kind++) {
        const uint32_t *list = kind ? quads : tris, count = kind ? nq : nt, k = kind ? 4 : 3;
        for (uint32_t i = 0; i < count; i++) {
            const uint32_t *v = list + (size_t)k * i;
            int in = 1;
            for (uint32_t j = 0; j < k && nroi; j++) in &= bsearch(&v[j], roi, nroi, sizeof *roi, cmp_u32) != NULL;
            for (uint32_t j = 0; j < k && in; j++, ne++) {
                uint32_t a = v[j], b = v[(j + 1) % k];
                e[2 * ne] = a < b ? a : b, e[2 * ne + 1] = a < b ? b : a;
            }
        }
    }
    uint32_t *idx = rc ? NULL : pf_malloc((2 * ne + 1) * sizeof *idx), n = 0;
    if (!rc && !idx) rc = pf_error(PF_ENOMEM, "out of memory");
    if (!rc) {
        uint64_t *keys = pf_malloc((ne + 1) * sizeof *keys);
        if (!keys) rc = pf_error(PF_ENOMEM, "out of memory");
        for (size_t i = 0; !rc && i < ne; i++) keys[i] = (uint64_t)e[2 * i] << 32 | e[2 * i + 1];
        if (!rc) qsort(keys, ne, sizeof *keys, cmp_u64);
        for (size_t i = 0; !rc && i < ne;) {
            size_t j = i + 1;
            while (j < ne && keys[j] == keys[i]) j++;
            if (j == i + 1) idx[n++] = (uint32_t)(keys[i] >> 32), idx[n++] = (uint32_t)keys[i];
            i = j;
        }
        pf_free(keys);
    }
    pf_free(e), pf_free(tris), pf_free(quads), pf_free(roi);
    if (!rc) { /* SOFA's std::set: sorted, each once */
        qsort(idx, n, sizeof *idx, cmp_u32);
        uint32_t u = 0;
        for (uint32_t i = 0; i < n; i++)
            if (u == 0 || idx[u - 1] != idx[i]) idx[u++] = idx[i];
        n = u;
    }
    if (!rc && pf_vec_push(&c->L->boxes, ((sc_box_cache){c->node, c->el, idx, n})))
        rc = pf_error(PF_ENOMEM, "out of memory");
    if (rc) pf_free(idx);
    return rc;
}
