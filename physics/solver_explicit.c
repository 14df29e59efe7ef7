/* Explicit Euler: forces, then per object the symplectic update (Hermann et al. 2009 algorithm 1) v += dt f/m and
 * x += dt v, or the forward one (SOFA EulerExplicitSolver symplectic="0"): x += dt v with the velocity of the
 * step's start. Fixed points held still. */
#include "solver_explicit.h"

#include "faults.h"
#include "forces.h"
#include "interaction.h"
#include "objects.h"

#include "rigid.h"

typedef struct integrate_args {
    pf_object *o;
    double h, max_speed;
    int forward;
} integrate_args;

static void integrate(const pf_object *o, double h, int forward, const double *f, double *v, double *x)
{
    if (o->kind == PF_OBJECT_RIGID) {
        pf_rigid_integrate_explicit(o, h, f, v, x);
        return;
    }
    if (forward) /* a fixed point's velocity is 0: it stays */
        for (size_t i = 0; i < 3 * (size_t)o->n; i++) x[i] += h * v[i];
    if (o->pmass) {
        for (uint32_t i = 0; i < o->n; i++) {
            double hm = h / o->pmass[i];
            for (size_t d = 3 * (size_t)i; d < 3 * (size_t)i + 3; d++) v[d] += hm * f[d];
        }
    } else {
        double hm = h / o->mass;
        for (size_t i = 0; i < 3 * (size_t)o->n; i++) v[i] += hm * f[i];
    }
    for (uint32_t k = 0; k < o->fixed_list.n; k++) {
        size_t i = 3 * (size_t)o->fixed_list.v[k];
        v[i] = v[i + 1] = v[i + 2] = 0;
    }
    pf_project_directions(o, v);
    if (!forward)
        for (size_t i = 0; i < 3 * (size_t)o->n; i++) x[i] += h * v[i];
}

static void t_integrate(const pf_task_ctx *c)
{
    const integrate_args *a = c->args;
    double *v = c->data[1], *x = c->data[2];
    pf_gather_links(a->o, c->data + 3, c->data[0], NULL); /* f += the interactions' forces */
    pf_state_save(a->o, x, v);
    integrate(a->o, a->h, a->forward, c->data[0], v, x);
    pf_state_check(a->o, x, v, a->max_speed);
}

int pf_record_explicit(pf_world *w, pf_group *gr, const pf_task_recorder *rec)
{
    int forward = w->obj.v[gr->first]->solver.kind == PF_SOLVER_FORWARD_EULER;
    int rc = forward ? pf_group_refuse_rigid(w, gr, "forward Euler") : PF_OK;
    if (!rc) rc = pf_record_forces(w, gr, 0, rec);
    for (uint32_t k = 0; k < gr->nobjs && !rc; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        pf_access acc[PF_MAX_ACCESSES] = {{o->df, o->linked ? PF_READWRITE : PF_READ},
                                          {o->dv_, PF_READWRITE},
                                          {o->dx, PF_READWRITE}};
        uint32_t na = 3;
        rc = pf_link_reads(o, PF_PHASE_FORCE, acc, &na);
        integrate_args args = {w->obj.v[gr->objs[k]], w->def.dt, w->def.max_speed, forward};
        if (!rc)
            rc = rec->record(rec->ctx, &(pf_task_def){t_integrate, "integrate", &args, sizeof args, acc, na, 2.0 * o->n});
    }
    return rc;
}
