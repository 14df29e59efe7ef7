/* RestShapeSpringsForceField: springs pulling the node's points (all, or `points`) back to their rest positions (the
 * MechanicalObject's rest_position when written out, as SOFA's restPosition, else where they start), with one
 * `stiffness` or one per point. SOFA can also take the rest shape from another state (`external_rest_shape`):
 * PhysFlow does not, and says so. */
#include "components.h"

#include "base/alloc.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

int sc_rest_positions(pf_scene_component *c, pf_object_id o, const uint32_t *idx, size_t m, double **out)
{
    const sc_node *n = c->node;
    *out = NULL;
    if (!n->rest_positions) return PF_OK;
    uint32_t np = 0;
    pf_world_positions(pf_scene_component_world(c), o, &np);
    if (n->nrest_positions != np || n->offset[0] != 0 || n->offset[1] != 0 || n->offset[2] != 0)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: the MechanicalObject's rest_position (%u points) is "
                                        "taken for a node of %u points with no translation only", TYPE(c),
                                        n->nrest_positions, np);
    size_t listed = m ? m : np;
    for (size_t k = 0; k < m; k++)
        if (idx[k] >= np) return PF_OK; /* the springs' call names the point out of range */
    double *r = pf_malloc(3 * listed * sizeof *r);
    if (!r) return pf_scene_component_error(c, PF_ENOMEM, "%s: out of memory", TYPE(c));
    for (size_t k = 0; k < listed; k++) memcpy(r + 3 * k, n->rest_positions + 3 * (size_t)(m ? idx[k] : k), 24);
    *out = r;
    return PF_OK;
}

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
    double *rest = NULL;
    if (!rc && !(rc = sc_rest_positions(c, o, idx, m, &rest))) {
        d.rest_positions = rest;
        rc = pf_world_add_rest_shape_springs(pf_scene_component_world(c), o, &d, NULL);
    }
    if (!rc) c->L->scene->summary.force_fields++;
    pf_free(idx), pf_free(k), pf_free(rest);
    return rc;
}

/* FixedWeakConstraint (SOFA's FixedWeakConstraint.inl): f_i = -k (x_i - x_i(0)) on each of `indices` (an ROI's
 * "@box.indices" too; none: no spring), x_i(0) the point's starting position (SOFA's resetPosition, not
 * rest_position): rest-shape springs at the initial positions, pf_world_add_rest_shape_springs. */
int sc_fixed_weak_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"angularStiffness", "drawSpring", "springColor", "template", "topology"};
    SC_IGNORE_ATTRS(c, ignored);
    double k = 1; /* SOFA's default */
    int rc;
    if ((rc = pf_scene_component_real(c, "stiffness", 0, 1e300, &k)) < 0) return rc;
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a rigid body is not supported yet", TYPE(c));
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    uint32_t np = 0, n = 0, *owned = NULL;
    const uint32_t *idx = NULL;
    pf_world_positions(pf_scene_component_world(c), o, &np);
    if ((rc = sc_point_indices(c, np, 0, &idx, &n, &owned))) return rc;
    if (n) {
        pf_rest_shape_springs_def d = pf_rest_shape_springs_default_def();
        d.points = idx, d.npoints = n, d.stiffness = k; /* rest_positions NULL: where the points start */
        rc = pf_world_add_rest_shape_springs(pf_scene_component_world(c), o, &d, NULL);
        if (!rc) c->L->scene->summary.force_fields++;
    }
    pf_free(owned);
    return rc;
}
