/* SOFA's topological mappings as components (Hexa2TetraTopologicalMapping, ...): the node's topology computed
 * from the input node's (`input`, default the parent), on the input's points; the container of the node, written
 * before the mapping as SOFA's scenes do, is what it fills (scenes/topological_mappings.c does the splitting). */
#include "components.h"
#include "topological_mappings.h"

#include "base/error.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

typedef enum mapping_kind { HEXA2TETRA, TETRA2TRIANGLE, HEXA2QUAD, QUAD2TRIANGLE, TRIANGLE2EDGE } mapping_kind;

/* The input node (linked by `input`, else the parent) and its elements as a mesh (a grid's built: its hexahedra,
 * or a flat grid's quads); *grid_cells gets a regular grid's cells per row and column (0 0 for another mesh);
 * *is_grid: the input is the grid component itself (named by the link, or the parent's), not a container that
 * linked its data (SOFA's mappings read a grid's shape only from a GridTopology input). */
static int input_mesh(pf_scene_component *c, sc_node **from, sc_mesh *own, const sc_mesh **m, int cells[2],
                      int *is_grid)
{
    const char *in = pf_scene_component_string(c, "input");
    sc_node *n = c->node->parent;
    xmlNode *comp = NULL;
    if (in && in[0] == '@' && in[1]) {
        const char *field;
        int rc = sc_resolve_link(c, "input", in, &n, &comp, &field);
        if (rc) return rc;
    }
    *is_grid = 0;
    /* the node's own RegularGridTopology, its container written before the mapping, empty or linked to the grid's
     * points (SOFA's scenes with a grid, a TetrahedronSetTopologyContainer position="@grid.position" and
     * Hexa2TetraTopologicalMapping input="@grid" in one node) */
    int own_grid = n == c->node && n->topology == SC_TOPO_GRID && !n->sparse &&
                   (n->pending_container || n->grid_container);
    if (!n || (n == c->node && !own_grid))
        return pf_scene_component_error(c, PF_EPARSE, "%s: its input must be the topology of a node above node "
                                        "'%s' (input=\"@../name\"), or its own RegularGridTopology with a "
                                        "container before the mapping, empty or linked to the grid's points",
                                        TYPE(c), c->node->name);
    *from = n;
    cells[0] = cells[1] = 0;
    if (n->topology == SC_TOPO_GRID && n->sparse)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: the input node '%s' is a SparseGridTopology, whose "
                                        "cells PhysFlow does not list: a RegularGridTopology or a mesh is supported",
                                        TYPE(c), n->name);
    const int *grid = NULL;
    const double *gmin = NULL, *gmax = NULL;
    int grid_comp = comp && !xmlStrcmp(comp->name, (const xmlChar *)"RegularGridTopology");
    if (n->topology == SC_TOPO_GRID) {
        grid = n->def.grid, gmin = n->def.grid_min, gmax = n->def.grid_max;
    } else if (grid_comp && n->mapped_grid[0]) { /* the grid itself, its node's mesh made by a mapping */
        grid = n->mapped_grid, gmin = n->mapped_grid_min, gmax = n->mapped_grid_max;
    }
    if (grid) {
        int rc = sc_grid_mesh(grid, gmin, gmax, own);
        /* a flat grid (one axis of 1 point) is a sheet of quads, as SOFA's GridTopology lists it */
        if (!rc) rc = sc_grid_quads(grid, &own->quads, &own->nquads);
        if (rc) {
            sc_mesh_free(own);
            return rc;
        }
        cells[0] = grid[0] - 1;
        cells[1] = grid[1] - 1;
        *is_grid = !comp || grid_comp;
        *m = own;
        return PF_OK;
    }
    if (n->topology != SC_TOPO_MESH)
        return pf_scene_component_error(c, PF_EPARSE, "%s: the input node '%s' has no topology (a container, a "
                                        "loader or a grid before this mapping)", TYPE(c), n->name);
    *m = &n->mesh;
    cells[0] = n->grid_cells[0]; /* a CylinderGridTopology's mesh: a grid's pattern, as SOFA's GridTopology */
    cells[1] = n->grid_cells[1];
    return PF_OK;
}

/* whether two meshes list the same elements, in the same order */
static int same_elements(const sc_mesh *a, const sc_mesh *b)
{
    const uint32_t *la[5] = {a->edges, a->tris, a->quads, a->tetra, a->hexa};
    const uint32_t *lb[5] = {b->edges, b->tris, b->quads, b->tetra, b->hexa};
    const uint32_t na[5] = {a->nedges, a->ntris, a->nquads, a->ntetra, a->nhexa};
    const uint32_t nb[5] = {b->nedges, b->ntris, b->nquads, b->ntetra, b->nhexa};
    static const size_t per[5] = {2, 3, 4, 4, 8};
    for (int k = 0; k < 5; k++)
        if (na[k] != nb[k] || (na[k] && memcmp(la[k], lb[k], na[k] * per[k] * sizeof *la[k]))) return 0;
    return 1;
}

static int topological_mapping(pf_scene_component *c, mapping_kind kind)
{
    sc_node *n = c->node;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "flipNormals");
    pf_scene_component_ignore(c, "noNewTriangles");
    pf_scene_component_ignore(c, "noInitialTriangles");
    const char *out = pf_scene_component_string(c, "output");
    if (out && out[0] == '@' && out[1]) {
        sc_node *to;
        xmlNode *comp;
        const char *field;
        int rc = sc_resolve_link(c, "output", out, &to, &comp, &field);
        if (rc) return rc;
        if (to != n)
            return pf_scene_component_error(c, PF_ENOTSUP, "%s: output '%s' is in another node: PhysFlow fills the "
                                            "topology of the mapping's own node '%s'", TYPE(c), out, n->name);
    }
    int swapping = 0, rc;
    if (kind == HEXA2TETRA && (rc = sc_parse_bool(c, "swapping", &swapping)) < 0) return rc;
    /* SOFA's topological mappings clear their output container and fill it (Tetra2TriangleTopologicalMapping::init:
     * toModel->clear()): a mesh the node's container read or linked is replaced; a grid, which is no container, or
     * a second mapping's output is an error */
    sc_node *from = NULL;
    sc_mesh grid = {0}, res = {0};
    const sc_mesh *m = NULL;
    int cells[2], is_grid;
    if ((rc = input_mesh(c, &from, &grid, &m, cells, &is_grid))) return rc;
    /* the node's grid came by a link to the input's grid (its MechanicalObject's position="@../grid.position"):
     * the same grid, which the mapping's elements turn into the node's mesh as its own grid would be */
    int linked_grid = n->topology == SC_TOPO_GRID && from != n && from->topology == SC_TOPO_GRID && !n->sparse &&
                      !from->sparse && !memcmp(n->def.grid, from->def.grid, sizeof n->def.grid) &&
                      !memcmp(n->def.grid_min, from->def.grid_min, sizeof n->def.grid_min) &&
                      !memcmp(n->def.grid_max, from->def.grid_max, sizeof n->def.grid_max);
    int refill = n->topology_source == from; /* a second mapping from the same input: checked below */
    if ((n->topology == SC_TOPO_GRID && from != n && !linked_grid) || (n->topology_source && !refill)) {
        sc_mesh_free(&grid);
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' already has a topology (line %d)%s", TYPE(c),
                                        n->name, n->topology_line,
                                        n->topology_source ? ", filled by another topological mapping" :
                                        ": a RegularGridTopology, which no mapping fills");
    }
    static const char *const needs[] = {"hexahedra", "tetrahedra", "hexahedra", "quads", "triangles"};
    uint32_t have = kind == HEXA2TETRA || kind == HEXA2QUAD ? m->nhexa
                    : kind == TETRA2TRIANGLE                ? m->ntetra
                    : kind == QUAD2TRIANGLE                 ? m->nquads
                                                            : m->ntris;
    if (!have) {
        sc_mesh_free(&grid);
        return pf_scene_component_error(c, PF_EPARSE, "%s: the input node '%s' has no %s", TYPE(c), from->name,
                                        needs[kind]);
    }
    switch (kind) {
    case HEXA2TETRA: /* SOFA's counts: a grid's cells per row and column, else 2 and 1 */
        rc = sc_hexa_to_tetra(m, cells[0] ? cells[0] : 2, cells[0] ? (cells[1] ? cells[1] : 1) : 1, swapping, &res);
        break;
    case TETRA2TRIANGLE: rc = sc_tetra_to_triangles(m, &res); break;
    case HEXA2QUAD: rc = sc_hexa_to_quads(m, &res); break;
    case QUAD2TRIANGLE: /* SOFA's rows of quads: a GridTopology input's nx - 1 (ny - 1 when nx is 1), else 2 */
        rc = sc_quads_to_triangles(m, is_grid ? (cells[0] ? cells[0] : cells[1]) : 2, &res);
        break;
    case TRIANGLE2EDGE: rc = sc_triangles_to_edges(m, &res); break;
    }
    sc_mesh_free(&grid);
    if (rc) return rc;
    if (refill) { /* SOFA's init clears the output and fills it again: the same elements, or an error here */
        int same = same_elements(&n->mesh, &res);
        sc_mesh_free(&res);
        if (!same)
            return pf_scene_component_error(c, PF_EPARSE,
                                            "%s: node '%s' already has a topology (line %d), filled "
                                            "by another topological mapping",
                                            TYPE(c), n->name, n->topology_line);
        pf_scene_component_warning(c,
                                   "%s: node '%s' was filled with these elements already (line %d): the same "
                                   "again, as SOFA's mapping refills its output",
                                   TYPE(c), n->name, n->topology_line);
        return PF_OK;
    }
    sc_mesh_free(&n->mesh);
    n->topology_loader = NULL;
    n->mesh = res;
    n->topology_line = pf_scene_component_line(c);
    if (from == n || linked_grid) { /* the node's grid becomes its mesh: the grid's points, the mapping's elements */
        pf_object_def *d = &n->def;
        if (from == n) {
            memcpy(n->mapped_grid, d->grid, sizeof n->mapped_grid);
            memcpy(n->mapped_grid_min, d->grid_min, sizeof n->mapped_grid_min);
            memcpy(n->mapped_grid_max, d->grid_max, sizeof n->mapped_grid_max);
        }
        memset(d->grid, 0, sizeof d->grid);
        memset(d->grid_min, 0, sizeof d->grid_min);
        memset(d->grid_max, 0, sizeof d->grid_max);
        n->grid_cells[0] = cells[0];
        n->grid_cells[1] = cells[1];
    } else {
        n->topology_source = from;
    }
    n->topology = SC_TOPO_MESH;
    n->pending_container = NULL;
    n->grid_container = NULL;
    return PF_OK;
}

int sc_hexa2tetra_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return topological_mapping(c, HEXA2TETRA);
}

int sc_tetra2triangle_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return topological_mapping(c, TETRA2TRIANGLE);
}

int sc_hexa2quad_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return topological_mapping(c, HEXA2QUAD);
}

int sc_quad2triangle_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return topological_mapping(c, QUAD2TRIANGLE);
}

int sc_triangle2edge_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return topological_mapping(c, TRIANGLE2EDGE);
}
