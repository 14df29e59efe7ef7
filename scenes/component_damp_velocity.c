/* DampVelocitySolver (SOFA's): an ODE solver run after the node's time integrator (SOFA runs every solver of a
 * node in turn) that scales the velocities by exp(-rate dt) and sets to zero those of a point slower than
 * `threshold` (SOFA's defaults: rate 0.99 1/s, threshold 0 m/s: none). PhysFlow's integrators have no such
 * stage: a step hook of the scene does it at the start of each step but the first, to the velocities the
 * previous step ended with, so every step starts from SOFA's velocities; the velocities read after the last step
 * are those before its damping. It acts on the objects of its node and of the nodes below (SOFA's solver
 * visits the subtree); rigid bodies are left out, with a warning. */
#include "components.h"
#include "step_hooks.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"
#include "base/vec.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

typedef struct damp_velocity {
    PF_VEC(pf_object_id) objects;
    double rate, threshold; /* 1/s, m/s */
    double *v;              /* a copy of the largest object's velocities */
    uint32_t cap;           /* points v holds */
} damp_velocity;

static void damp_free(void *state)
{
    damp_velocity *d = state;
    pf_vec_free(&d->objects);
    pf_free(d->v);
    pf_free(d);
}

static int damp(pf_world *w, double time, void *ctx)
{
    damp_velocity *d = ctx;
    if (time == 0) return PF_OK; /* SOFA damps at the end of each step: the first starts undamped */
    double dt;
    int rc = pf_world_get_dt(w, &dt);
    if (rc) return rc;
    const double f = exp(-d->rate * dt), t2 = d->threshold * d->threshold;
    for (size_t k = 0; k < d->objects.n; k++) {
        uint32_t n;
        const double *v = pf_world_velocities(w, d->objects.v[k], &n);
        if (!v) continue; /* removed */
        if (n > d->cap) {
            double *g = pf_realloc(d->v, (size_t)d->cap * 3 * sizeof *g, (size_t)n * 3 * sizeof *g);
            if (!g) return pf_error(PF_ENOMEM, "DampVelocitySolver: out of memory");
            d->v = g;
            d->cap = n;
        }
        for (uint32_t p = 0; p < n; p++) {
            double *u = d->v + 3 * (size_t)p;
            for (int a = 0; a < 3; a++) u[a] = v[3 * (size_t)p + a] * f;
            /* SOFA's vThreshold: a point's velocity whose squared norm is below threshold^2 is zeroed */
            if (u[0] * u[0] + u[1] * u[1] + u[2] * u[2] < t2) u[0] = u[1] = u[2] = 0;
        }
        if ((rc = pf_world_set_state(w, d->objects.v[k], NULL, d->v))) return rc;
    }
    return PF_OK;
}

/* the objects of node n and of the nodes below it, rigid bodies apart (counted in *rigid) */
static int gather(const sc_node *n, damp_velocity *d, int *rigid)
{
    if (n->has_object) {
        if (n->rigid)
            (*rigid)++;
        else if (pf_vec_push(&d->objects, n->object))
            return pf_error(PF_ENOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < n->children.n; k++) PF_TRY(gather(n->children.v[k], d, rigid));
    return PF_OK;
}

int sc_damp_velocity(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double rate = 0.99, threshold = 0;
    int rc;
    if ((rc = pf_scene_component_real(c, "rate", 0, 1e300, &rate)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "threshold", 0, 1e300, &threshold)) < 0) return rc;
    damp_velocity *d = pf_calloc(1, sizeof *d);
    if (!d) return pf_error(PF_ENOMEM, "out of memory");
    if ((rc = pf_scene_component_on_destroy(c, damp_free, d))) {
        pf_free(d);
        return rc;
    }
    d->rate = rate;
    d->threshold = threshold;
    int rigid = 0;
    if ((rc = gather(c->node, d, &rigid))) return rc;
    if (rigid)
        pf_scene_component_warning(c, "%s: %d rigid bod%s in node '%s' or below not damped (objects of points only)",
                                   TYPE(c), rigid, rigid > 1 ? "ies" : "y", c->node->name);
    if (!d->objects.n)
        return pf_scene_component_error(c, PF_EPARSE, "%s: no MechanicalObject of points in node '%s' or below to "
                                        "damp", TYPE(c), c->node->name);
    return sc_add_step_hook(c, damp, d);
}
