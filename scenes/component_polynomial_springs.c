/* PolynomialRestShapeSpringsForceField (pf_world_add_polynomial_springs): SOFA's attributes and defaults, read from
 * its PolynomialRestShapeSpringsForceField.inl. The springs rest at the MechanicalObject's rest_position when it
 * writes one out, else at the initial positions; a rest shape from another state is refused, as for
 * RestShapeSpringsForceField. */
#include "components.h"

#include "base/alloc.h"

#include <stdio.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* polynomialDegree (default 1) and polynomialStiffness (default 100): SOFA gives point i polynomial i when there is
 * one per point, else the first to every point (with a warning); their coefficients must all be there */
static int polynomials(pf_scene_component *c, size_t listed, pf_polynomial_springs_def *d, uint32_t **deg,
                       double **coef)
{
    size_t nd = 0, nc = 0;
    int rc;
    if ((rc = sc_parse_uints(c, "polynomialDegree", deg, &nd)) < 0) return rc;
    if ((rc = sc_parse_reals(c, "polynomialStiffness", coef, &nc)) < 0) return rc;
    if (nd) {
        if (nd != listed) {
            if (nd > 1)
                pf_scene_component_warning(c, "%s: %zu polynomialDegree values for %zu points: the first polynomial "
                                           "acts on every point (as in SOFA)", TYPE(c), nd, listed);
            nd = 1;
        }
        d->degrees = *deg, d->npolynomials = (uint32_t)nd;
    }
    size_t need = 0;
    for (size_t k = 0; k < d->npolynomials; k++) {
        if (d->degrees[k] < 1 || d->degrees[k] > 64)
            return pf_scene_component_error(c, PF_EINVAL, "%s: polynomialDegree must be in [1, 64], got %u", TYPE(c),
                                            d->degrees[k]);
        need += d->degrees[k];
    }
    if (nc) d->coefficients = *coef;
    if ((nc ? nc : 1) < need)
        return pf_scene_component_error(c, PF_EINVAL, "%s: polynomialStiffness has %zu coefficients, its "
                                        "polynomials' degrees need %zu", TYPE(c), nc ? nc : 1, need);
    return PF_OK;
}

int sc_polynomial_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    if (pf_scene_component_string(c, "external_rest_shape") || pf_scene_component_string(c, "external_points"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: a rest shape from another state (external_rest_shape, "
                                        "external_points) is not supported: the rest shape is the node's own",
                                        TYPE(c));
    if (c->node->rigid) return pf_scene_component_error(c, PF_ENOTSUP, "%s on a rigid body is not supported", TYPE(c));
    static const char *const ignored[] = {"drawSpring", "springColor", "showIndicesScale", "recompute_indices",
                                          "listening", "template"};
    SC_IGNORE_ATTRS(c, ignored);
    pf_object_id o;
    int rc = pf_scene_component_object(c, &o);
    if (rc) return rc;
    pf_polynomial_springs_def d = pf_polynomial_springs_default_def();
    if ((rc = pf_scene_component_real(c, "smoothShift", -1e300, 1e300, &d.smooth_shift)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "smoothScale", -1e300, 1e300, &d.smooth_scale)) < 0) return rc;
    uint32_t *idx = NULL, *deg = NULL, np = 0;
    double *len = NULL, *coef = NULL, *rest = NULL;
    size_t m = 0, nl = 0, listed;
    pf_world_positions(pf_scene_component_world(c), o, &np);
    if ((rc = sc_parse_uints(c, "points", &idx, &m)) < 0) goto done;
    listed = m ? m : np;
    d.points = idx, d.npoints = (uint32_t)m;
    if ((rc = polynomials(c, listed, &d, &deg, &coef))) goto done;
    /* initialLength: SOFA takes value i for point i where there is one, else the first */
    if ((rc = sc_parse_reals(c, "initialLength", &len, &nl)) < 0) goto done;
    rc = PF_OK;
    if (nl == 1)
        d.initial_length = len[0];
    else if (nl == listed)
        d.initial_lengths = len;
    else if (nl > 1)
        rc = pf_scene_component_error(c, PF_EINVAL, "%s: 'initialLength' has %zu values: give one, or one per "
                                      "point (%zu)", TYPE(c), nl, listed);
    if (!rc && (rc = sc_rest_positions(c, o, idx, m, &rest)) == PF_OK) {
        d.rest_positions = rest;
        if ((rc = pf_world_add_polynomial_springs(pf_scene_component_world(c), o, &d, NULL))) {
            char copy[400];
            snprintf(copy, sizeof copy, "%s", pf_last_error());
            rc = pf_scene_component_error(c, rc, "%s: %s", TYPE(c), copy);
        } else {
            c->L->scene->summary.force_fields++;
        }
    }
done:
    pf_free(idx), pf_free(deg), pf_free(len), pf_free(coef), pf_free(rest);
    return rc;
}
