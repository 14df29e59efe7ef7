/* SOFA's TaitSurfacePressureForceField: a closed surface holding a fluid whose pressure follows Tait's equation of
 * the volume it encloses, P = p0 - B ((V / v0)^gamma - 1), acting on the surface's triangles as P dV/dx (each
 * triangle's area normal over 6 to each of its corners), its stiffness dP/dV dV/dx dV/dxᵀ + P d²V/dx² in the
 * implicit solve; v0 the initial volume plus the volume injected so far, brought to `injectedVolume` at no more
 * than `maxInjectionRate` per second, at the start of each step (SOFA's AnimateBeginEvent). Checked against SOFA's
 * TaitSurfacePressureForceField.inl (addForce, addDForce, computePressureAndStiffness, computeMeshVolumeAndArea).
 * Built on the public custom force field (pf_world_add_force_field) and a step hook; the scene frees its state. */
#include "components.h"
#include "step_hooks.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

typedef struct tait {
    double p0, B, gamma, injected, max_rate;
    double initial_volume, current_injected; /* v0 = initial_volume + current_injected */
    uint32_t *tris, ntris, npoints;
    double *grad_f, *grad_df; /* dV/dx at the step's positions: add_force's, add_dforce's (3 per point) */
} tait;

static void tait_free(void *state)
{
    tait *t = state;
    pf_free(t->tris);
    pf_free(t->grad_f);
    pf_free(t->grad_df);
    pf_free(t);
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The enclosed volume: the triangles' signed tetrahedra with the points' mean (SOFA's centre; any point gives the
 * same for a closed surface). */
static double enclosed_volume(const tait *t, const double *x, uint32_t points)
{
    double centre[3] = {0, 0, 0};
    for (uint32_t i = 0; i < points; i++)
        for (int a = 0; a < 3; a++) centre[a] += x[3 * (size_t)i + a];
    for (int a = 0; a < 3; a++) centre[a] /= (double)points;
    double volume6 = 0;
    for (uint32_t k = 0; k < t->ntris; k++) {
        const uint32_t *v = t->tris + 3 * (size_t)k;
        double p[3][3], n[3];
        for (int j = 0; j < 3; j++)
            for (int a = 0; a < 3; a++) p[j][a] = x[3 * (size_t)v[j] + a] - centre[a];
        cross(p[0], p[1], n);
        volume6 += n[0] * p[2][0] + n[1] * p[2][1] + n[2] * p[2][2];
    }
    return volume6 / 6;
}

/* SOFA's computePressureAndStiffness: P and dP/dV at volume V */
static void pressure_and_stiffness(const tait *t, double V, double *P, double *K)
{
    double v0 = t->initial_volume + t->current_injected;
    if (t->B == 0 || t->gamma == 0 || v0 == 0) {
        *K = 0;
        *P = t->p0;
    } else if (t->gamma == 1) {
        *K = -t->B / v0;
        *P = t->p0 - t->B * (V / v0 - 1);
    } else {
        double r = pow(V / v0, t->gamma);
        *K = V == 0 ? 0 : -t->B * t->gamma * r / V;
        *P = t->p0 - t->B * (r - 1);
    }
}

/* grad: dV/dx, each triangle's (x1 - x0) x (x2 - x0) / 6 added to its three corners */
static void volume_gradient(const tait *t, const double *x, uint32_t points, double *grad)
{
    memset(grad, 0, (size_t)points * 3 * sizeof *grad);
    for (uint32_t k = 0; k < t->ntris; k++) {
        const uint32_t *v = t->tris + 3 * (size_t)k;
        double ab[3], ac[3], n[3];
        for (int a = 0; a < 3; a++) {
            ab[a] = x[3 * (size_t)v[1] + a] - x[3 * (size_t)v[0] + a];
            ac[a] = x[3 * (size_t)v[2] + a] - x[3 * (size_t)v[0] + a];
        }
        cross(ab, ac, n);
        for (int j = 0; j < 3; j++)
            for (int a = 0; a < 3; a++) grad[3 * (size_t)v[j] + a] += n[a];
    }
    for (size_t i = 0; i < (size_t)points * 3; i++) grad[i] /= 6;
}

static void tait_add_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)v;
    tait *t = ctx;
    double P, K;
    pressure_and_stiffness(t, enclosed_volume(t, x, points), &P, &K);
    volume_gradient(t, x, points, t->grad_f);
    for (size_t i = 0; i < (size_t)points * 3; i++) f[i] += t->grad_f[i] * P;
}

/* df += kfact (K (gradV · dx) gradV + P/6 sum over triangles of d((x1 - x0) x (x2 - x0)) to each corner) */
static void tait_add_dforce(const double *x, const double *dx, double *df, double kfact, uint32_t points, void *ctx)
{
    tait *t = ctx;
    double P, K;
    pressure_and_stiffness(t, enclosed_volume(t, x, points), &P, &K);
    volume_gradient(t, x, points, t->grad_df);
    double dV = 0;
    for (size_t i = 0; i < (size_t)points * 3; i++) dV += t->grad_df[i] * dx[i];
    double s1 = kfact * K * dV, s2 = kfact * P / 6;
    for (size_t i = 0; i < (size_t)points * 3; i++) df[i] += t->grad_df[i] * s1;
    for (uint32_t k = 0; k < t->ntris; k++) {
        const uint32_t *w = t->tris + 3 * (size_t)k;
        double ab[3], ac[3], dab[3], dac[3], n1[3], n2[3];
        for (int a = 0; a < 3; a++) {
            ab[a] = x[3 * (size_t)w[1] + a] - x[3 * (size_t)w[0] + a];
            ac[a] = x[3 * (size_t)w[2] + a] - x[3 * (size_t)w[0] + a];
            dab[a] = dx[3 * (size_t)w[1] + a] - dx[3 * (size_t)w[0] + a];
            dac[a] = dx[3 * (size_t)w[2] + a] - dx[3 * (size_t)w[0] + a];
        }
        cross(dab, ac, n1);
        cross(ab, dac, n2);
        for (int j = 0; j < 3; j++)
            for (int a = 0; a < 3; a++) df[3 * (size_t)w[j] + a] += (n1[a] + n2[a]) * s2;
    }
}

/* SOFA's handleEvent(AnimateBeginEvent): the injected volume moves toward `injectedVolume` by at most
 * maxInjectionRate dt */
static int tait_inject(pf_world *w, double time, void *ctx)
{
    (void)time;
    tait *t = ctx;
    if (t->injected == t->current_injected) return PF_OK;
    double dt;
    PF_TRY(pf_world_get_dt(w, &dt));
    double most = t->max_rate * dt;
    if (fabs(t->injected - t->current_injected) <= most)
        t->current_injected = t->injected;
    else
        t->current_injected += t->injected < t->current_injected ? -most : most;
    return PF_OK;
}

int sc_tait_surface_pressure(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    tait p = {.max_rate = 1000}; /* SOFA's defaults: p0, B, gamma, injectedVolume 0 */
    int rc;
    if ((rc = pf_scene_component_real(c, "p0", -1e300, 1e300, &p.p0)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "B", 0, 1e300, &p.B)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "gamma", 0, 1e300, &p.gamma)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "injectedVolume", -1e300, 1e300, &p.injected)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "maxInjectionRate", 0, 1e300, &p.max_rate)) < 0) return rc;
    static const char *const drawn[] = {"template", "topology", "drawForceScale", "drawForceColor"};
    SC_IGNORE_ATTRS(c, drawn);
    sc_node *n = c->node;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    if (n->rigid) return pf_scene_component_error(c, PF_ENOTSUP, "%s on a rigid body is not supported", TYPE(c));
    /* SOFA's pressure triangles: the topology's triangles (PhysFlow's readers already hold each quad as its two) */
    if (n->topology != SC_TOPO_MESH || !n->mesh.ntris)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs the triangles of a closed surface in node '%s' (a "
                                        "topology or mesh loader with triangles or quads)", TYPE(c), n->name);
    uint32_t npoints;
    const double *x = pf_world_positions(c->L->scene->world, o, &npoints);
    if (!x) return pf_scene_component_error(c, PF_EINVAL, "%s: %s", TYPE(c), pf_last_error());
    tait *t = pf_calloc(1, sizeof *t);
    if (!t) return pf_error(PF_ENOMEM, "out of memory");
    *t = p;
    t->ntris = n->mesh.ntris;
    t->npoints = npoints;
    t->tris = pf_malloc((size_t)t->ntris * 3 * sizeof *t->tris);
    t->grad_f = pf_malloc((size_t)npoints * 3 * sizeof *t->grad_f);
    t->grad_df = pf_malloc((size_t)npoints * 3 * sizeof *t->grad_df);
    if (!t->tris || !t->grad_f || !t->grad_df) {
        tait_free(t);
        return pf_error(PF_ENOMEM, "out of memory for %u triangles", n->mesh.ntris);
    }
    memcpy(t->tris, n->mesh.tris, (size_t)t->ntris * 3 * sizeof *t->tris);
    for (size_t k = 0; k < (size_t)t->ntris * 3; k++)
        if (t->tris[k] >= npoints) {
            uint32_t bad = t->tris[k];
            tait_free(t);
            return pf_scene_component_error(c, PF_EINVAL, "%s: triangle point %u is out of range (node '%s' has %u "
                                            "points)", TYPE(c), bad, n->name, npoints);
        }
    if ((rc = pf_scene_component_on_destroy(c, tait_free, t))) return rc; /* on failure it was freed */
    /* SOFA's initialVolume: the surface's volume at rest, the initial positions */
    t->initial_volume = enclosed_volume(t, x, npoints);
    pf_force_field_def d = pf_force_field_default_def();
    d.add_force = tait_add_force;
    d.add_dforce = tait_add_dforce;
    d.ctx = t;
    if ((rc = pf_world_add_force_field(c->L->scene->world, o, &d, NULL))) return rc;
    if ((rc = sc_add_step_hook(c, tait_inject, t))) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}
