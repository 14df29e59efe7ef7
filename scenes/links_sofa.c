/* SOFA's data links on the components PhysFlow has: `src="@loader"` (a component takes its data from a loader or
 * topology) and `position="@loader.position"` / `@../mstate.rest_position`. In PhysFlow a loader or topology gives
 * its node's mesh, so a link within the node is already satisfied; a link to another node copies that node's mesh
 * or grid (or a MechanicalObject's positions) into this one when it has none of its own. */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

/* Marks attribute a as taken by a link: the constructor sees it absent, the attribute check sees it used. */
static void take(pf_scene_component *c, const xmlAttr *a)
{
    if (c->nlinked < sizeof c->linked / sizeof c->linked[0]) c->linked[c->nlinked++] = a;
}

static int copy_array(void **dst, const void *src, size_t bytes)
{
    *dst = NULL;
    if (!bytes) return 0;
    if (!(*dst = pf_malloc(bytes))) return -1;
    memcpy(*dst, src, bytes);
    return 0;
}

int sc_mesh_copy(sc_mesh *to, const sc_mesh *from)
{
    memset(to, 0, sizeof *to);
    if (copy_array((void **)&to->points, from->points, (size_t)from->npoints * 3 * sizeof *from->points) ||
        copy_array((void **)&to->edges, from->edges, (size_t)from->nedges * 2 * sizeof *from->edges) ||
        copy_array((void **)&to->tris, from->tris, (size_t)from->ntris * 3 * sizeof *from->tris) ||
        copy_array((void **)&to->quads, from->quads, (size_t)from->nquads * 4 * sizeof *from->quads) ||
        copy_array((void **)&to->tetra, from->tetra, (size_t)from->ntetra * 4 * sizeof *from->tetra) ||
        copy_array((void **)&to->hexa, from->hexa, (size_t)from->nhexa * 8 * sizeof *from->hexa) ||
        (from->radii && copy_array((void **)&to->radii, from->radii, (size_t)from->npoints * sizeof *from->radii))) {
        sc_mesh_free(to);
        return pf_error(PF_ENOMEM, "out of memory copying a linked mesh");
    }
    to->npoints = from->npoints;
    to->nedges = from->nedges;
    to->ntris = from->ntris;
    to->nquads = from->nquads;
    to->ntetra = from->ntetra;
    to->nhexa = from->nhexa;
    return PF_OK;
}

int sc_loader_provide(pf_scene_component *c, sc_mesh *m)
{
    sc_node *n = c->node;
    if (pf_vec_push(&n->loaded, ((sc_loaded){.el = c->el, .mesh = *m}))) {
        sc_mesh_free(m);
        return pf_error(PF_ENOMEM, "out of memory for a loaded mesh");
    }
    if (n->topology != SC_TOPO_NONE) return PF_OK; /* only data, for the links that name it */
    int rc = sc_mesh_copy(&n->mesh, m);
    if (rc) return rc;
    n->topology = SC_TOPO_MESH;
    n->topology_line = pf_scene_component_line(c);
    n->topology_loader = c->el;
    return PF_OK;
}

int sc_engine_provide_as(pf_scene_component *c, sc_mesh *m, const char *points_field, const char *elements_suffix)
{
    if (pf_vec_push(&c->node->loaded, ((sc_loaded){c->el, *m, 1, points_field, elements_suffix}))) {
        sc_mesh_free(m);
        return pf_error(PF_ENOMEM, "out of memory for an engine's output");
    }
    return PF_OK;
}

int sc_engine_provide(pf_scene_component *c, sc_mesh *m)
{
    return sc_engine_provide_as(c, m, "output_position", NULL);
}

const char *sc_raw_attr(const pf_scene_component *c, const char *name)
{
    const xmlAttr *a = xmlHasProp(c->el, (const xmlChar *)name);
    return a && a->children && a->children->type == XML_TEXT_NODE ? (const char *)a->children->content : NULL;
}

static const sc_loaded *loaded_entry(const sc_node *n, const xmlNode *el)
{
    for (uint32_t k = 0; el && k < n->loaded.n; k++)
        if (n->loaded.v[k].el == el) return &n->loaded.v[k];
    return NULL;
}

const sc_mesh *sc_loaded_mesh(const sc_node *n, const xmlNode *el)
{
    const sc_loaded *e = loaded_entry(n, el);
    return e ? &e->mesh : NULL;
}

static const char *const element_lists[] = {"edges", "triangles", "quads", "tetrahedra", "hexahedra"};

static int is_element_list(const char *field)
{
    for (size_t k = 0; k < sizeof element_lists / sizeof *element_lists; k++)
        if (!strcmp(field, element_lists[k])) return 1;
    return 0;
}

/* The element list (index in element_lists) that field names as `list` + suffix, or -1. */
static int suffixed_list(const char *field, const char *suffix)
{
    size_t n = strlen(field), m = strlen(suffix);
    for (size_t k = 0; n > m && k < sizeof element_lists / sizeof *element_lists; k++)
        if (strlen(element_lists[k]) == n - m && !strncmp(field, element_lists[k], n - m) && !strcmp(field + n - m,
                                                                                                   suffix))
            return (int)k;
    return -1;
}

/* Engine el of node n: the output `field` names (NULL: its first); *list: the element list it names, -1 for its
 * points. NULL when el is no engine of n; *found = 0 when it is but gives no such output. */
static const sc_loaded *engine_output(const sc_node *n, const xmlNode *el, const char *field, int *list, int *found)
{
    *found = 0;
    *list = -1;
    const sc_loaded *any = NULL;
    for (uint32_t k = 0; el && k < n->loaded.n; k++) {
        const sc_loaded *e = &n->loaded.v[k];
        if (e->el != el || !e->engine) continue;
        any = e;
        if (!field && e->points_field) return *found = 1, e;
        if (field && e->points_field && !strcmp(field, e->points_field)) return *found = 1, e;
        if (field && e->elements_suffix && (*list = suffixed_list(field, e->elements_suffix)) >= 0)
            return *found = 1, e;
    }
    return any;
}

/* The engine output's element list `list` (and its points) becomes node n's topology. */
static int take_engine_elements(pf_scene_component *c, const sc_loaded *e, int list, const char *attr,
                                const char *value)
{
    sc_node *n = c->node;
    const sc_mesh *from = &e->mesh;
    /* the same component's position link brought the points (a container's position="@../mstate.position"),
     * or the node's MechanicalObject's did (position="@../loader.position", which gives SOFA's state its
     * points only): the engine's elements replace the ones copied with them */
    int by_link =
        n->topology_line == pf_scene_component_line(c) || (n->mo_line && n->topology_line == n->mo_line);
    int on_points = n->topology == SC_TOPO_MESH && by_link && n->mesh.npoints == from->npoints;
    if (n->topology != SC_TOPO_NONE && !on_points)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: attribute '%s' = '%s': node '%s' already has a topology "
                                        "(line %d); an engine's elements make the topology of a node without one",
                                        pf_scene_component_type(c), attr, value, n->name, n->topology_line);
    if (on_points) sc_mesh_free(&n->mesh);
    sc_mesh m = {0};
    static const size_t per[] = {2, 3, 4, 4, 8};
    const uint32_t *src[] = {from->edges, from->tris, from->quads, from->tetra, from->hexa};
    const uint32_t count[] = {from->nedges, from->ntris, from->nquads, from->ntetra, from->nhexa};
    uint32_t **dst[] = {&m.edges, &m.tris, &m.quads, &m.tetra, &m.hexa};
    uint32_t *ndst[] = {&m.nedges, &m.ntris, &m.nquads, &m.ntetra, &m.nhexa};
    if (copy_array((void **)&m.points, from->points, (size_t)from->npoints * 3 * sizeof *from->points) ||
        copy_array((void **)dst[list], src[list], (size_t)count[list] * per[list] * sizeof(uint32_t))) {
        sc_mesh_free(&m);
        return pf_error(PF_ENOMEM, "out of memory copying an engine's elements");
    }
    m.npoints = from->npoints;
    *ndst[list] = count[list];
    n->mesh = m;
    n->topology = SC_TOPO_MESH;
    n->topology_line = pf_scene_component_line(c);
    return PF_OK;
}

/* One link attribute: resolved (a dangling one is an error), then the data it names brought into the node. */
static int follow(pf_scene_component *c, const xmlAttr *a, const char *value)
{
    sc_node *n = c->node, *from;
    xmlNode *comp;
    const char *field;
    const char *attr = (const char *)a->name;
    if (!strcmp(value, "@")) { /* SOFA's empty link: nothing linked */
        take(c, a);
        return PF_OK;
    }
    int rc = sc_resolve_link(c, attr, value, &from, &comp, &field);
    if (rc) return rc;
    int list, found;
    const sc_loaded *engine = engine_output(from, comp, field, &list, &found);
    if (engine) { /* an engine's positions: the node's points when it has none; its elements: its topology */
        if (!found)
            return pf_scene_component_error(c, PF_ENOTSUP, "%s: attribute '%s' = '%s': the engine gives no '%s' "
                                            "(it gives '%s'%s%s)", pf_scene_component_type(c), attr, value, field ? field : "",
                                            engine->points_field ? engine->points_field : "",
                                            engine->elements_suffix ? " and element lists ending in " : "",
                                            engine->elements_suffix ? engine->elements_suffix : "");
        take(c, a);
        if (list >= 0) return take_engine_elements(c, engine, list, attr, value);
        if (n->positions) return PF_OK;
        size_t bytes = (size_t)engine->mesh.npoints * 3 * sizeof *engine->mesh.points;
        if (copy_array((void **)&n->positions, engine->mesh.points, bytes))
            return pf_error(PF_ENOMEM, "out of memory copying an engine's positions");
        n->npositions = engine->mesh.npoints;
        return PF_OK;
    }
    if (field && strcmp(field, "position") && strcmp(field, "rest_position") && !is_element_list(field))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: attribute '%s' = '%s': only a link to a position "
                                        "(.position, .rest_position) or an element list (.edges, .triangles, .quads, "
                                        ".tetrahedra, .hexahedra) is supported", pf_scene_component_type(c), attr,
                                        value);
    take(c, a);
    const sc_mesh *loaded = sc_loaded_mesh(from, comp);
    if (from == n && loaded && n->topology_loader && n->topology_loader != comp) {
        int state = c->entry && c->entry->fn == sc_mechanical_object;
        if (state && n->topology_linked) { /* a container took another loader's mesh: the points from this one */
            if (n->positions) return PF_OK;
            size_t bytes = (size_t)loaded->npoints * 3 * sizeof *loaded->points;
            if (copy_array((void **)&n->positions, loaded->points, bytes))
                return pf_error(PF_ENOMEM, "out of memory copying linked positions");
            n->npositions = loaded->npoints;
            return PF_OK;
        }
        if (n->mo_line && n->topology_linked && !n->positions) { /* the state linked the mesh being replaced */
            size_t bytes = (size_t)n->mesh.npoints * 3 * sizeof *n->mesh.points;
            if (copy_array((void **)&n->positions, n->mesh.points, bytes))
                return pf_error(PF_ENOMEM, "out of memory copying linked positions");
            n->npositions = n->mesh.npoints;
        }
        sc_mesh m; /* the mesh of another loader than the one taken for want of a container */
        if ((rc = sc_mesh_copy(&m, loaded))) return rc;
        sc_mesh_free(&n->mesh);
        n->mesh = m;
        n->topology_loader = comp;
        n->topology_linked = 1;
        n->topology_line = pf_scene_component_line(c);
        return PF_OK;
    }
    if (from == n && loaded && n->topology_loader == comp) n->topology_linked = 1;
    if (from == n || n->topology != SC_TOPO_NONE || n->positions) return PF_OK; /* the node's own data */
    if (loaded || from->topology == SC_TOPO_MESH) {
        if ((rc = sc_mesh_copy(&n->mesh, loaded ? loaded : &from->mesh))) return rc;
        n->topology = SC_TOPO_MESH;
        n->topology_line = pf_scene_component_line(c);
        return PF_OK;
    }
    if (from->topology == SC_TOPO_GRID) { /* a RegularGridTopology: the same grid */
        memcpy(n->def.grid, from->def.grid, sizeof n->def.grid);
        memcpy(n->def.grid_min, from->def.grid_min, sizeof n->def.grid_min);
        memcpy(n->def.grid_max, from->def.grid_max, sizeof n->def.grid_max);
        n->topology = SC_TOPO_GRID;
        n->topology_line = pf_scene_component_line(c);
        return PF_OK;
    }
    if (from->positions) {
        size_t bytes = (size_t)from->npositions * 3 * sizeof *from->positions;
        if (copy_array((void **)&n->positions, from->positions, bytes))
            return pf_error(PF_ENOMEM, "out of memory copying linked positions");
        n->npositions = from->npositions;
        return PF_OK;
    }
    return pf_scene_component_error(c, PF_ENOTSUP, "%s: attribute '%s' = '%s': node '%s' has no mesh, grid or "
                                    "positions (yet: links are followed in document order) to take",
                                    pf_scene_component_type(c), attr, value, from->name);
}

/* SOFA 1.0's MeshTopology without data of its own took the mesh of its node's generic MeshLoader (which offered
 * its lists for that: getPoints, getTriangles, ...): a MeshTopology giving no file, points nor elements, in a node
 * whose mesh is a MeshLoader's, is that mesh. Only for that older loader: today's SOFA links a loader (src). */
static int takes_generic_loader(const pf_scene_component *c)
{
    static const char *const data[] = {"filename", "fileTopology", "position", "points", "edges", "lines",
                                       "triangles", "quads", "tetrahedra", "tetras", "hexahedra", "hexas"};
    const sc_node *n = c->node;
    if (!c->entry || c->entry->fn != sc_mesh_topology || n->topology != SC_TOPO_MESH || !n->topology_loader ||
        xmlStrcmp(n->topology_loader->name, (const xmlChar *)"MeshLoader"))
        return 0;
    for (size_t k = 0; k < sizeof data / sizeof *data; k++)
        if (xmlHasProp(c->el, (const xmlChar *)data[k])) return 0;
    return 1;
}

int sc_follow_links(pf_scene_component *c, int *skip)
{
    static const char *const attrs[] = {"src",       "position", "rest_position", "edges",
                                        "triangles", "quads",    "tetrahedra",    "hexahedra"};
    *skip = 0;
    int linked = 0;
    for (size_t k = 0; k < sizeof attrs / sizeof *attrs; k++) {
        const xmlAttr *a = xmlHasProp(c->el, (const xmlChar *)attrs[k]);
        const char *v = a && a->children && a->children->type == XML_TEXT_NODE ? (const char *)a->children->content
                                                                                 : NULL;
        if (!v || v[0] != '@') continue;
        int rc = follow(c, a, v);
        if (rc) return rc;
        linked = 1;
    }
    /* a topology container linked to a loader or a grid is that loader's mesh or grid, which the node already has */
    *skip = linked && c->entry && c->entry->fn == sc_mesh_topology && c->node->topology != SC_TOPO_NONE;
    if (*skip && c->node->topology == SC_TOPO_GRID && !c->node->sparse && !c->node->grid_container)
        c->node->grid_container = c->el;
    if (!linked && takes_generic_loader(c)) *skip = 1, c->node->topology_linked = 1;
    return PF_OK;
}
