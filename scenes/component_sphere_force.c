/* SOFA's SphereForceField: a sphere that pushes the object's points out of it (SphereForceField.inl). A point x at
 * distance l = |x - c| < r from the centre gets f = k (r - l) u - c_d (r - l) v, u = (x - c) / l: a spring of
 * stiffness k to the surface and a damping that grows with the depth; its stiffness, as SOFA's addDForce writes it,
 * K dx = -k (u (dx·u) r/l + dx (1 - r/l)), enters the implicit solve. With `bilateral` every point is pulled to the
 * surface, inside or out. Built on the public custom force field (pf_world_add_force_field); the scene frees its
 * state. The sphere stays where the scene puts it (a replicated copy's, as PlaneForceField's plane, does not move). */
#include "components.h"

#include "base/alloc.h"

#include <math.h>

#define TYPE(c) pf_scene_component_type(c)

typedef struct sphere_force {
    double center[3], radius, stiffness, damping;
    int bilateral;
} sphere_force;

/* point x's distance to the centre in *len and unit direction from it in u; 0 when the field leaves it alone
 * (outside, unless bilateral; at the centre, where no direction is defined) */
static int touching(const sphere_force *s, const double *x, double u[3], double *len)
{
    double d[3] = {x[0] - s->center[0], x[1] - s->center[1], x[2] - s->center[2]};
    double l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (!(l2 < s->radius * s->radius || s->bilateral) || !(l2 > 0)) return 0;
    double l = sqrt(l2);
    for (int a = 0; a < 3; a++) u[a] = d[a] / l;
    *len = l;
    return 1;
}

static void sphere_add_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    const sphere_force *s = ctx;
    for (uint32_t i = 0; i < points; i++) {
        double u[3], l;
        if (!touching(s, x + 3 * (size_t)i, u, &l)) continue;
        double depth = s->radius - l; /* SOFA's -d */
        const double *vi = v + 3 * (size_t)i;
        for (int a = 0; a < 3; a++) f[3 * (size_t)i + a] += s->stiffness * depth * u[a] - s->damping * depth * vi[a];
    }
}

static void sphere_add_dforce(const double *x, const double *dx, double *df, double kfact, uint32_t points, void *ctx)
{
    const sphere_force *s = ctx;
    for (uint32_t i = 0; i < points; i++) {
        double u[3], l;
        if (!touching(s, x + 3 * (size_t)i, u, &l)) continue;
        const double *di = dx + 3 * (size_t)i;
        double fact = s->radius / l, g = -kfact * s->stiffness, dn = di[0] * u[0] + di[1] * u[1] + di[2] * u[2];
        for (int a = 0; a < 3; a++) df[3 * (size_t)i + a] += g * (u[a] * dn * fact + di[a] * (1 - fact));
    }
}

int sc_sphere_force_field(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sphere_force sf = {{0, 0, 0}, 1, 500, 5, 0}; /* SOFA's defaults */
    int rc;
    if ((rc = pf_scene_component_reals(c, "center", 3, sf.center)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "radius", -1e300, 1e300, &sf.radius)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "stiffness", 0, 1e300, &sf.stiffness)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "damping", 0, 1e300, &sf.damping)) < 0) return rc;
    if ((rc = sc_parse_bool(c, "bilateral", &sf.bilateral)) < 0) return rc;
    if (!(sf.radius > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: radius must be > 0, got %g", TYPE(c), sf.radius);
    if (pf_scene_component_string(c, "localRange"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: localRange is not supported: the field acts on every "
                                        "point of the object", TYPE(c));
    static const char *const drawn[] = {"template", "color", "draw"};
    SC_IGNORE_ATTRS(c, drawn);
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a rigid body is not supported yet", TYPE(c));
    sphere_force *state = pf_malloc(sizeof *state);
    if (!state) return pf_scene_component_error(c, PF_ENOMEM, "%s: out of memory", TYPE(c));
    *state = sf;
    if ((rc = pf_scene_component_on_destroy(c, pf_free, state))) return rc; /* on failure it was freed */
    pf_force_field_def d = pf_force_field_default_def();
    d.add_force = sphere_add_force;
    d.add_dforce = sphere_add_dforce;
    d.ctx = state;
    if ((rc = pf_world_add_force_field(c->L->scene->world, o, &d, NULL))) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}
