/* TransformEngine (SOFA's engine, evaluated once: PhysFlow's scenes are static at load): input_position scaled,
 * rotated, then translated, as output_position for a MechanicalObject's position="@engine.output_position". */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"
#include "topological_mappings.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* The points a link attribute names: a loader's or engine's, a MechanicalObject's positions, a node's mesh or
 * grid. (An attribute the loader followed as a link, "position", is read raw: its link names the input.) */
int sc_engine_input(pf_scene_component *c, const char *attr, sc_mesh *out)
{
    memset(out, 0, sizeof *out);
    const char *in = pf_scene_component_string(c, attr);
    if (!in) in = sc_raw_attr(c, attr);
    if (!in)
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s' is missing (a link: "
                                        "\"@loader.position\")", TYPE(c), attr);
    if (in[0] != '@')
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: %s must be a link (\"@loader.position\"), "
                                        "not numbers", TYPE(c), attr);
    sc_node *from;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, attr, in, &from, &comp, &field);
    if (rc) return rc;
    const sc_mesh *m = sc_loaded_mesh(from, comp);
    const double *p = m ? m->points : NULL;
    uint32_t n = m ? m->npoints : 0;
    if (!p && from->positions && comp && !xmlStrcmp(comp->name, (const xmlChar *)"MechanicalObject")) {
        p = from->positions;
        n = from->npositions;
    } else if (!p && from->topology == SC_TOPO_MESH) {
        p = from->mesh.points;
        n = from->mesh.npoints;
    } else if (!p && from->topology == SC_TOPO_GRID && !from->sparse) {
        return sc_grid_mesh(from->def.grid, from->def.grid_min, from->def.grid_max, out);
    }
    if (!p)
        return pf_scene_component_error(c, PF_EINVAL, "%s: %s '%s' names no positions (yet: links are "
                                        "followed in document order)", TYPE(c), attr, in);
    if (!(out->points = pf_malloc(((size_t)n * 3 + 1) * sizeof *out->points)))
        return pf_error(PF_ENOMEM, "out of memory");
    memcpy(out->points, p, (size_t)n * 3 * sizeof *p);
    out->npoints = n;
    return PF_OK;
}

int sc_transform_engine(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int inverse = 0, rc;
    if ((rc = sc_parse_bool(c, "inverse", &inverse)) < 0) return rc;
    if (inverse)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: inverse=\"true\" is not supported", TYPE(c));
    if (pf_scene_component_string(c, "quaternion"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: 'quaternion' is not supported: give 'rotation' "
                                        "(degrees about x, y, z)", TYPE(c));
    pf_scene_component_ignore(c, "template");
    (void)pf_scene_component_string(c, "output_position"); /* what it gives, named for its users */
    sc_mesh m;
    if ((rc = sc_engine_input(c, "input_position", &m))) return rc;
    /* SOFA's order: scale, rotation (Euler degrees, as the mesh loaders'), translation */
    if ((rc = sc_mesh_loader_transform(c, &m))) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_engine_provide(c, &m);
}
