/* RestShapeSpringsForceField: springs pulling the node's points (all, or `points`) back to where they start, with
 * one `stiffness` or one per point. SOFA can also take the rest shape from another state (`external_rest_shape`):
 * PhysFlow does not, and says so. */
#include "components.h"

#include "base/alloc.h"

#define TYPE(c) pf_scene_component_type(c)

int sc_rest_shape_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    if (pf_scene_component_string(c, "external_rest_shape") || pf_scene_component_string(c, "external_points"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: a rest shape from another state (external_rest_shape, "
                                        "external_points) is not supported: the rest shape is the node's own "
                                        "starting positions", TYPE(c));
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a rigid body is not supported yet", TYPE(c));
    static const char *const ignored[] = {"angularStiffness", "drawSpring", "springColor", "recompute_indices",
                                          "activeDirections", "listening", "template"};
    SC_IGNORE_ATTRS(c, ignored);
    pf_object_id o;
    int rc = pf_scene_component_object(c, &o);
    if (rc) return rc;
    uint32_t *idx = NULL, n = 0;
    double *k = NULL;
    size_t m = 0, nk = 0;
    pf_world_positions(pf_scene_component_world(c), o, &n);
    if ((rc = sc_parse_uints(c, "points", &idx, &m)) < 0 || (rc = sc_parse_reals(c, "stiffness", &k, &nk)) < 0) {
        pf_free(idx), pf_free(k);
        return rc;
    }
    size_t listed = m ? m : n;
    pf_rest_shape_springs_def d = pf_rest_shape_springs_default_def();
    d.points = idx, d.npoints = (uint32_t)m;
    rc = PF_OK;
    if (nk == 1)
        d.stiffness = k[0];
    else if (nk == listed)
        d.stiffnesses = k;
    else if (nk > 1)
        rc = pf_scene_component_error(c, PF_EINVAL, "%s: 'stiffness' has %zu values: give one, or one per point "
                                      "(%zu)", TYPE(c), nk, listed);
    if (!rc) rc = pf_world_add_rest_shape_springs(pf_scene_component_world(c), o, &d, NULL);
    if (!rc) c->L->scene->summary.force_fields++;
    pf_free(idx), pf_free(k);
    return rc;
}
