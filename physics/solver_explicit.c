/* Explicit symplectic Euler (paper 004 algorithm 1): forces, then per object v += dt f/m and x += dt v, with
 * fixed points held still. */
#include "world.h"

#include "rigid.h"

typedef struct integrate_args {
    const pf_object *o;
    double h;
} integrate_args;

static void t_integrate(const pf_task_ctx *c)
{
    const integrate_args *a = c->args;
    const pf_object *o = a->o;
    const double *f = c->data[0];
    double *v = c->data[1], *x = c->data[2];
    pf_gather_links(o, c->data + 3, c->data[0]); /* f += the interactions' forces */
    if (o->kind == PF_OBJECT_RIGID) {
        pf_rigid_integrate_explicit(o, a->h, f, v, x);
        return;
    }
    double hm = a->h / o->mass;
    for (size_t i = 0; i < 3 * (size_t)o->n; i++) v[i] += hm * f[i];
    for (uint32_t k = 0; k < o->nfixed; k++) {
        size_t i = 3 * (size_t)o->fixed_list[k];
        v[i] = v[i + 1] = v[i + 2] = 0;
    }
    for (size_t i = 0; i < 3 * (size_t)o->n; i++) x[i] += a->h * v[i];
}

int pf_record_explicit(pf_world *w, pf_group *gr)
{
    int rc = pf_record_forces(w, gr, 0);
    for (uint32_t k = 0; k < gr->nobjs && !rc; k++) {
        const pf_object *o = w->obj[gr->objs[k]];
        pf_access acc[PF_MAX_ACCESSES] = {{o->df, o->linked ? PF_READWRITE : PF_READ},
                                          {o->dv_, PF_READWRITE},
                                          {o->dx, PF_READWRITE}};
        uint32_t na = 3;
        rc = pf_link_reads(o, PF_PHASE_FORCE, acc, &na);
        integrate_args args = {o, w->def.dt};
        if (!rc)
            rc = pf_group_task(w, gr, &(pf_task_def){t_integrate, "integrate", &args, sizeof args, acc, na, 2.0 * o->n});
    }
    return rc;
}
