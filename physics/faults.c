/* Numerical faults (NaN, infinity, exploding velocities) are caught in the step they appear: each object's
 * integrate task keeps the state it overwrites and checks the new one; after the run, a fault restores every
 * object to the state before the step — never half a step — and names the object, and the force field whose
 * force at that state is already not finite when there is one. */
#include "faults.h"

#include "decompose.h"
#include "force_field.h"
#include "solver_direct.h"

#include "base/error.h"

#include <math.h>
#include <string.h>

void pf_state_save(pf_object *o, const double *x, const double *v)
{
    size_t n3 = 3 * (size_t)o->n;
    memcpy(o->x_prev, x, (n3 + o->xextra) * sizeof *x);
    memcpy(o->v_prev, v, n3 * sizeof *v);
    o->fault = 0;
}

void pf_state_check(pf_object *o, const double *x, const double *v, double max_speed)
{
    double m2 = max_speed * max_speed;
    for (uint32_t i = 0; i < o->n; i++) {
        const double *p = x + 3 * (size_t)i, *u = v + 3 * (size_t)i;
        double s2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        /* written so that NaN fails every test */
        if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) && s2 <= m2)) {
            o->fault = i + 1;
            return;
        }
    }
    for (uint32_t k = 0; k < o->xextra; k++)
        if (!isfinite(x[3 * (size_t)o->n + k])) {
            o->fault = 1;
            return;
        }
}

int pf_world_check_faults(pf_world *w)
{
    uint32_t bad = UINT32_MAX;
    for (uint32_t i = 0; i < w->obj.n; i++) {
        pf_object *o = w->obj.v[i];
        if (!o || !o->registered) continue;
        uint32_t blocks = pf_decomp_take_fault(o->decomp); /* a decomposed object's blocks check their points */
        if (blocks && (!o->fault || blocks < o->fault)) o->fault = blocks;
        if (o->fault && bad == UINT32_MAX) bad = i;
    }
    if (bad == UINT32_MAX) return PF_OK;
    const pf_object *o = w->obj.v[bad];
    uint32_t point = o->fault - 1;
    const double *v = o->v + 3 * (size_t)point, *x = o->x + 3 * (size_t)point;
    double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    int finite = isfinite(speed) && isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
    uint32_t unsolved = UINT32_MAX; /* a group whose direct solve failed: its lowest object */
    for (uint32_t gi = 0; gi < w->ngroups; gi++) /* every flag read (and cleared), the first named */
        if (pf_direct_failed(w->groups[gi].direct) && unsolved == UINT32_MAX) unsolved = w->groups[gi].first;
    for (uint32_t i = 0; i < w->obj.n; i++) {
        pf_object *p = w->obj.v[i];
        if (!p || !p->registered) continue; /* removed, or not yet stepped */
        memcpy(p->x, p->x_prev, (3 * (size_t)p->n + p->xextra) * sizeof *p->x);
        memcpy(p->v, p->v_prev, 3 * (size_t)p->n * sizeof *p->v);
        p->fault = 0;
    }
    /* the solver's vectors are scratch: f serves to evaluate each field at the restored state */
    const char *field = o->kind == PF_OBJECT_POINTS ? pf_force_fields_not_finite(o, o->f) : NULL;
    if (field)
        return pf_error(PF_ENUMERIC,
                        "step %llu: object %u: its %s force is not finite at the last good state; the world keeps "
                        "that state",
                        (unsigned long long)w->steps + 1, bad, field);
    if (unsolved != UINT32_MAX)
        return pf_error(PF_ENUMERIC, "step %llu: the direct solver could not factorise the system of object %u's "
                        "group (singular or not positive definite: a static step needs every object held, and a "
                        "spring at rest length has no lateral stiffness); the world keeps the last good state",
                        (unsigned long long)w->steps + 1, unsolved);
    if (!finite)
        return pf_error(PF_ENUMERIC, "step %llu: object %u: the state became NaN or infinite (point %u); the world "
                        "keeps the last good state", (unsigned long long)w->steps + 1, bad, point);
    return pf_error(PF_ENUMERIC,
                    "step %llu: object %u: point %u reached %.3g m/s (max_speed %.3g): the simulation is blowing up "
                    "(time step too large for its stiffness?); the world keeps the last good state",
                    (unsigned long long)w->steps + 1, bad, point, speed, w->def.max_speed);
}
