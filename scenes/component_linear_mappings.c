/* SOFA's IdentityMapping and SubsetMapping: a node whose points are those of a node above, one for one or a
 * subset of them. The node has no object of its own: its collision models are surfaces of the input's object
 * (scenes/bodies.c) and, through an IdentityMapping, its force fields act on the input's points. */
#include "components.h"
#include "topological_mappings.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* The mapping's input: `input` (a link to a node above, or to a component of one) or the parent. */
static int mapping_input(pf_scene_component *c, sc_node **out)
{
    sc_node *n = c->node, *in = n->parent;
    const char *link = pf_scene_component_string(c, "input");
    pf_scene_component_string(c, "output"); /* the node's own state or a visual: what PhysFlow maps anyway */
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "mapForces");
    pf_scene_component_ignore(c, "mapConstraints");
    pf_scene_component_ignore(c, "mapMasses");
    pf_scene_component_ignore(c, "applyRestPosition");
    if (link && link[0] == '@' && link[1]) {
        xmlNode *comp;
        const char *field;
        int rc = sc_resolve_link(c, "input", link, &in, &comp, &field);
        if (rc) return rc;
    }
    int above = 0;
    for (sc_node *p = n->parent; p && !above; p = p->parent) above = p == in;
    if (!above)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: its input must be a node above node '%s' (input=\"@..\"), "
                                        "got %s", TYPE(c), n->name, in == n ? "the node itself" :
                                        in ? "a node beside or below it" : "none (the root node has no parent)");
    if (n->mapping_line)
        return pf_scene_component_error(c, PF_EPARSE, "%s: node '%s' already has a mapping (line %d)", TYPE(c),
                                        n->name, n->mapping_line);
    if (in->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: the input node '%s' is a Rigid3d body, whose state is a "
                                        "frame, not points: RigidMapping carries points on it", TYPE(c), in->name);
    *out = in;
    return PF_OK;
}

int sc_identity_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sc_node *in;
    int rc = mapping_input(c, &in);
    if (rc) return rc;
    c->node->mapping = SC_MAP_IDENTITY;
    c->node->mapping_line = pf_scene_component_line(c);
    c->node->map_input = in;
    return PF_OK;
}

/* SubsetMapping: indices="i0 i1 ..." (the input point of each of the node's points), first/last (a run of
 * them), or none: each point of the node matched to the nearest input point closer than `radius` (SOFA's
 * SubsetMapping::init, done once the objects exist: sc_linear_mapping_finish). */
int sc_subset_mapping(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sc_node *n = c->node, *in;
    int rc = mapping_input(c, &in);
    if (rc) return rc;
    double radius = 1e-5, first = -1, last = -1;
    int ignore_not_found = 0;
    if ((rc = pf_scene_component_real(c, "radius", 0, 1e300, &radius)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "first", 0, 4294967295.0, &first)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "last", 0, 4294967295.0, &last)) < 0) return rc;
    if ((rc = sc_parse_bool(c, "ignoreNotFound", &ignore_not_found)) < 0) return rc;
    pf_scene_component_ignore(c, "handleTopologyChange");
    pf_scene_component_ignore(c, "resizeToModel");
    pf_scene_component_ignore(c, "topology");
    if (ignore_not_found)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: ignoreNotFound=\"true\" keeps the points not found as "
                                        "points of their own, fixed, which PhysFlow's mapped nodes cannot hold",
                                        TYPE(c));
    uint32_t *idx = NULL;
    size_t m = 0;
    if ((rc = sc_parse_uints(c, "indices", &idx, &m)) < 0) return rc;
    if (m == 0 && first >= 0) { /* SOFA clamps last to the input's last point: done once the objects exist */
        if (first != floor(first) || (last >= 0 && (last != floor(last) || last < first)))
            return pf_scene_component_error(c, PF_EINVAL, "%s: first %g and last %g must be integers, first <= last",
                                            TYPE(c), first, last);
    }
    n->mapping = SC_MAP_SUBSET;
    n->mapping_line = pf_scene_component_line(c);
    n->map_input = in;
    n->subset = m ? idx : NULL;
    n->nsubset = (uint32_t)m;
    if (!m) pf_free(idx);
    n->subset_radius = radius;
    n->subset_first = m == 0 && first >= 0 ? (int64_t)first : -1;
    n->subset_last = (int64_t)last;
    return PF_OK;
}

int sc_identity_inherit_mesh(sc_node *n)
{
    if (n->mapping != SC_MAP_IDENTITY || n->topology != SC_TOPO_NONE || n->map_input->topology != SC_TOPO_MESH)
        return PF_OK;
    PF_TRY(sc_mesh_copy(&n->mesh, &n->map_input->mesh));
    n->topology = SC_TOPO_MESH;
    n->topology_line = n->map_input->topology_line;
    return PF_OK;
}

/* The node's own points (before the mapping places them): its MechanicalObject's, its mesh's or its grid's, moved
 * by its offset; *out pf_malloc'ed. */
static int own_points(const sc_node *n, double **out, uint32_t *count)
{
    sc_mesh grid = {0};
    const double *p = NULL;
    uint32_t np = 0;
    if (n->positions) {
        p = n->positions, np = n->npositions;
    } else if (n->topology == SC_TOPO_MESH) {
        p = n->mesh.points, np = n->mesh.npoints;
    } else if (n->topology == SC_TOPO_GRID && !n->sparse) {
        PF_TRY(sc_grid_mesh(n->def.grid, n->def.grid_min, n->def.grid_max, &grid));
        p = grid.points, np = grid.npoints;
    }
    *out = NULL;
    *count = np;
    if (np && !(*out = pf_malloc((size_t)np * 3 * sizeof **out))) {
        sc_mesh_free(&grid);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < (size_t)np * 3; k++) (*out)[k] = p[k] + n->offset[k % 3];
    sc_mesh_free(&grid);
    return PF_OK;
}

/* SOFA's SubsetMapping::init without indices: point i of the node is the input point nearest to it among those
 * closer than the radius (the first of equals); one not found is an error. */
static int subset_by_positions(sc_loader *L, sc_node *n, const double *in, uint32_t nin)
{
    double *out;
    uint32_t nout;
    int rc = own_points(n, &out, &nout);
    if (rc) return sc_error(L, n->mapping_line, rc, "SubsetMapping in node '%s': out of memory", n->name);
    if (!nout)
        return sc_error(L, n->mapping_line, PF_EPARSE, "SubsetMapping in node '%s': no indices, and the node has no "
                        "points to match with its input's (a MechanicalObject with positions or a topology)", n->name);
    if (!(n->subset = pf_malloc((size_t)nout * sizeof *n->subset))) {
        pf_free(out);
        return sc_error(L, n->mapping_line, PF_ENOMEM, "out of memory");
    }
    n->nsubset = nout;
    for (uint32_t i = 0; i < nout; i++) {
        double best = n->subset_radius;
        int found = 0;
        for (uint32_t j = 0; j < nin; j++) {
            double d[3];
            for (int a = 0; a < 3; a++) d[a] = out[3 * (size_t)i + (size_t)a] - in[3 * (size_t)j + (size_t)a];
            double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (r < best) {
                best = r;
                n->subset[i] = j;
                found = 1;
            }
        }
        if (!found) {
            double p[3] = {out[3 * (size_t)i], out[3 * (size_t)i + 1], out[3 * (size_t)i + 2]};
            pf_free(out);
            return sc_error(L, n->mapping_line, PF_EINVAL, "SubsetMapping in node '%s': point %u (%g %g %g) has no "
                            "point of node '%s' within radius %g", n->name, i, p[0], p[1], p[2], n->map_input->name,
                            n->subset_radius);
        }
    }
    pf_free(out);
    return PF_OK;
}

int sc_linear_mapping_finish(sc_loader *L, sc_node *n)
{
    const char *type = n->mapping == SC_MAP_IDENTITY ? "IdentityMapping" : "SubsetMapping";
    sc_node *on = sc_carrier(n);
    if (!on->has_object || on->rigid)
        return sc_error(L, n->mapping_line, PF_EPARSE, "%s in node '%s': the input node '%s' has no MechanicalObject "
                        "of points (nor takes its points from one above)", type, n->name, n->map_input->name);
    if (n->mass_line)
        return sc_error(L, n->mass_line, PF_ENOTSUP, "a mass in node '%s', whose points are mapped by %s: SOFA adds it "
                        "to the input's masses, PhysFlow does not (give the mass in node '%s')", n->name, type,
                        on->name);
    uint32_t npts = 0;
    const double *x = pf_world_positions(L->scene->world, on->object, &npts);
    if (n->mapping == SC_MAP_SUBSET && !n->subset && n->subset_first >= 0) {
        uint32_t first = n->subset_first < npts ? (uint32_t)n->subset_first : 0;
        uint32_t last = n->subset_last >= 0 && n->subset_last < npts ? (uint32_t)n->subset_last : npts - 1;
        if (first > last) first = 0;
        if (!(n->subset = pf_malloc(((size_t)last - first + 1) * sizeof *n->subset)))
            return sc_error(L, n->mapping_line, PF_ENOMEM, "out of memory");
        for (uint32_t k = first; k <= last; k++) n->subset[n->nsubset++] = k;
    } else if (n->mapping == SC_MAP_SUBSET && !n->subset) {
        PF_TRY(subset_by_positions(L, n, x, npts));
    }
    for (uint32_t k = 0; k < n->nsubset; k++)
        if (n->subset[k] >= npts)
            return sc_error(L, n->mapping_line, PF_EINVAL, "SubsetMapping in node '%s': index %u is out of range (node "
                            "'%s' has %u points)", n->name, n->subset[k], on->name, npts);
    uint32_t want = n->mapping == SC_MAP_IDENTITY ? npts : n->nsubset;
    uint32_t own = n->topology == SC_TOPO_MESH ? n->mesh.npoints
                   : n->topology == SC_TOPO_GRID && !n->sparse
                       ? (uint32_t)n->def.grid[0] * (uint32_t)n->def.grid[1] * (uint32_t)n->def.grid[2]
                       : want;
    if (own != want)
        return sc_error(L, n->mapping_line, PF_EINVAL, "%s in node '%s': the node's topology has %u points, the mapping "
                        "gives %u (of node '%s')", type, n->name, own, want, on->name);
    return PF_OK;
}
