/* Host force fields (pf_force_field_def): plain sequential callbacks run inside the object's force task, after the
 * built-in fields (Hermann et al.'s (2009) "non-invasive" promise). */
#include "world_guard.h"
#include "force_field.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>

static void custom_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v, double *f,
                         int want_jac)
{
    (void)want_jac;
    const pf_force_field_def *d = ff->state;
    d->add_force(x, v, f, o->n, d->ctx);
}

/* x: the step's positions, which the df tasks read (df_reads_x) */
static void custom_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df, double kfact)
{
    const pf_force_field_def *d = ff->state;
    if (d->add_dforce) d->add_dforce(o->x, dx, df, kfact, o->n, d->ctx);
}

static double custom_cost(const pf_force_field *ff)
{
    return ((const pf_force_field_def *)ff->state)->cost_ns;
}

const pf_force_field_ops pf_custom_force_field = {
    .name = "custom force field",
    .force = custom_force,
    .dforce = custom_dforce,
    .register_data = NULL,
    .cost = custom_cost,
    .df_cost = NULL,
    .df_reads_x = 1,
    .destroy = pf_free,
};

pf_force_field_def pf_force_field_default_def(void)
{
    return (pf_force_field_def){0};
}

int pf_world_add_force_field(pf_world *w, pf_object_id id, const pf_force_field_def *def,
                             pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_force_field";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    if (!def->add_force) return pf_error(PF_EINVAL, "%s: def.add_force is required (NULL given)", fn);
    PF_TRY(pf_check_nonnegative(def->cost_ns, fn, "def.cost_ns"));
    pf_object *o = w->obj.v[id.index];
    PF_TRY(pf_object_check_points(o, fn, "a custom force field acts on an object of points"));
    pf_force_field_def *copy = pf_malloc(sizeof *copy);
    if (!copy) return pf_error(PF_ENOMEM, "out of memory");
    *copy = *def;
    int rc = pf_object_add_force_field(w, o, PF_FORCE_CUSTOM, copy, out);
    if (rc) pf_free(copy);
    return rc;
}
