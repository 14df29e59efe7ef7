/* Force tasks of a step: per object f = M g + internal force fields (a write of f), per interaction a cumulative
 * write into both objects' f (Hermann et al. 2009, §3.1-3.2, figure 2: "interaction force"). */
#include "forces.h"

#include "decompose.h"

#include "force_field.h"
#include "interaction.h"

#include "rigid.h"

#include "base/error.h"

#include <stddef.h>
#include <string.h>

typedef struct object_force_args {
    pf_object *o;
    double g[3];
    int jac;
} object_force_args;

static void t_object_force(const pf_task_ctx *c)
{
    const object_force_args *a = c->args;
    pf_object *o = a->o;
    const double *x = c->data[0], *v = c->data[1];
    double *f = c->data[2];
    if (o->kind == PF_OBJECT_RIGID) {
        pf_rigid_force(o, a->g, f);
        pf_force_fields_force(o, x, v, f, a->jac); /* constant forces and torques only (force_constant.c) */
        return;
    }
    if (o->pmass) {
        for (uint32_t i = 0; i < o->n; i++)
            for (int d = 0; d < 3; d++) f[3 * i + d] = o->pmass[i] * a->g[d];
    } else {
        double mg[3] = {o->mass * a->g[0], o->mass * a->g[1], o->mass * a->g[2]};
        for (uint32_t i = 0; i < o->n; i++) {
            f[3 * i] = mg[0];
            f[3 * i + 1] = mg[1];
            f[3 * i + 2] = mg[2];
        }
    }
    pf_force_fields_force(o, x, v, f, a->jac);
}

typedef struct inter_force_args {
    const pf_springset *s;
    const pf_object *a, *b; /* its objects (the same within one) */
    uint32_t out;           /* the index of its output among the task's data */
    int jac;
} inter_force_args;

/* data: the two objects' x and v (or their blocks' x: their vectors are read through the objects), then out
 * (force phase), jac */
static void t_inter_force(const pf_task_ctx *c)
{
    const inter_force_args *a = c->args;
    pf_interaction_of(a->s)->force(a->s, a->a->x, a->b->x, a->a->v, a->b->v, c->data[a->out], a->jac);
}

/* estimated ns of an object's force task (the runtime replaces it with measured costs) */
static double object_force_cost(const pf_object *o)
{
    return pf_force_fields_cost(o, 2.0 * o->n);
}

int pf_record_forces(pf_world *w, pf_group *gr, int want_jac, const pf_task_recorder *rec)
{
    int rc = PF_OK;
    for (uint32_t k = 0; k < gr->nobjs && !rc; k++) {
        pf_object *o = w->obj.v[gr->objs[k]];
        if (o->in_blocks) continue; /* its blocks record their forces (solver_blocks.c) */
        pf_access acc[PF_MAX_ACCESSES] = {{o->dx, PF_READ}, {o->dv_, PF_READ}, {o->df, PF_WRITE}};
        if (3 + pf_force_fields_caches(o) > PF_MAX_ACCESSES)
            return pf_error(PF_EINVAL, "object %u has too many force fields", o->id);
        uint32_t na = pf_force_fields_cache_accesses(o, PF_WRITE, acc, 3);
        object_force_args args = {o, {w->def.gravity[0], w->def.gravity[1], w->def.gravity[2]}, want_jac};
        rc = rec->record(rec->ctx,
                         &(pf_task_def){t_object_force, "force", &args, sizeof args, acc, na, object_force_cost(o)});
    }
    for (uint32_t k = 0; k < gr->ninter && !rc; k++) {
        const pf_springset *s = gr->inter[k];
        const pf_object *a = w->obj.v[s->oa], *b = w->obj.v[s->ob];
        pf_access acc[PF_MAX_ACCESSES];
        uint32_t na = 0;
        /* an object cut into blocks: its blocks' x (their integrate tasks write x and v together, so reading x
         * orders this task as reading v would) */
        rc = pf_decomp_accesses(a, offsetof(pf_block, dx), a->dx, PF_READ, acc, &na);
        if (!rc && b != a) rc = pf_decomp_accesses(b, offsetof(pf_block, dx), b->dx, PF_READ, acc, &na);
        if (rc) return rc;
        if (!a->in_blocks) acc[na++] = (pf_access){a->dv_, PF_READ};
        if (b != a && !b->in_blocks) acc[na++] = (pf_access){b->dv_, PF_READ};
        if (na + 2 > PF_MAX_ACCESSES) return pf_error(PF_EINVAL, "interaction between objects %u and %u: too many "
                                                     "blocks for one task", a->id, b->id);
        inter_force_args args = {s, a, b, na, want_jac};
        acc[na++] = (pf_access){s->dout[PF_PHASE_FORCE], PF_WRITE};
        acc[na++] = (pf_access){s->djac, PF_WRITE};
        rc = rec->record(rec->ctx, &(pf_task_def){t_inter_force, "interaction force", &args, sizeof args, acc, na,
                                                 pf_interaction_of(s)->cost(s)});
    }
    return rc;
}
