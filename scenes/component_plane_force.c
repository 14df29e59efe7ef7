/* SOFA's PlaneForceField: a half-space that pushes the object's points out of it. A point x with penetration
 * p = x·n - d < 0 gets f = (-k p - c v·n) n, and its stiffness K = -k n nᵀ enters the implicit solve; points above
 * the plane feel nothing. Built on the public custom force field (pf_world_add_force_field); the scene frees its
 * state. */
#include "components.h"

#include "base/alloc.h"

#include <math.h>

#define TYPE(c) pf_scene_component_type(c)

typedef struct plane_force {
    double n[3], d, stiffness, damping;
} plane_force;

/* how far below the plane point x is (negative: inside the half-space the field pushes out of) */
static double penetration(const plane_force *p, const double *x)
{
    return x[0] * p->n[0] + x[1] * p->n[1] + x[2] * p->n[2] - p->d;
}

static void plane_add_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    const plane_force *p = ctx;
    for (uint32_t i = 0; i < points; i++) {
        const double *xi = x + 3 * (size_t)i, *vi = v + 3 * (size_t)i;
        double pen = penetration(p, xi);
        if (!(pen < 0)) continue;
        double vn = vi[0] * p->n[0] + vi[1] * p->n[1] + vi[2] * p->n[2];
        double mag = -p->stiffness * pen - p->damping * vn;
        for (int a = 0; a < 3; a++) f[3 * (size_t)i + a] += mag * p->n[a];
    }
}

static void plane_add_dforce(const double *x, const double *dx, double *df, double kfact, uint32_t points, void *ctx)
{
    const plane_force *p = ctx;
    for (uint32_t i = 0; i < points; i++) {
        if (!(penetration(p, x + 3 * (size_t)i) < 0)) continue;
        const double *di = dx + 3 * (size_t)i;
        double g = -kfact * p->stiffness * (di[0] * p->n[0] + di[1] * p->n[1] + di[2] * p->n[2]);
        for (int a = 0; a < 3; a++) df[3 * (size_t)i + a] += g * p->n[a];
    }
}

int sc_plane_force_field(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    plane_force pf = {{0, 1, 0}, 0, 500, 5}; /* SOFA's defaults */
    int rc;
    if ((rc = pf_scene_component_reals(c, "normal", 3, pf.n)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "d", -1e300, 1e300, &pf.d)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "stiffness", 0, 1e300, &pf.stiffness)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "damping", 0, 1e300, &pf.damping)) < 0) return rc;
    double len = sqrt(pf.n[0] * pf.n[0] + pf.n[1] * pf.n[1] + pf.n[2] * pf.n[2]);
    if (!(len > 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: 'normal' must not be zero", TYPE(c));
    for (int a = 0; a < 3; a++) pf.n[a] /= len;
    static const char *const drawn[] = {"template", "showPlane", "planeColor", "showPlaneSize", "draw", "drawSize"};
    SC_IGNORE_ATTRS(c, drawn);
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a rigid body is not supported yet", TYPE(c));
    plane_force *state = pf_malloc(sizeof *state);
    if (!state) return pf_scene_component_error(c, PF_ENOMEM, "%s: out of memory", TYPE(c));
    *state = pf;
    if ((rc = pf_scene_component_on_destroy(c, pf_free, state))) return rc; /* on failure it was freed */
    pf_force_field_def d = pf_force_field_default_def();
    d.add_force = plane_add_force;
    d.add_dforce = plane_add_dforce;
    d.ctx = state;
    if ((rc = pf_world_add_force_field(c->L->scene->world, o, &d, NULL))) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}
