/* A constant force on chosen points (SOFA ConstantForceField): f_i += F, the same vector on every listed point,
 * with no stiffness (df = 0). Gravity is the world's; this is for loads, pulls and pushes. On a rigid body its
 * point 0 takes a force at the com and its point 1 a torque (rigid.h: f holds both). */
#include "world_guard.h"
#include "force_field.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

typedef struct constant_force {
    uint32_t *points; /* NULL: every point of the object */
    uint32_t npoints;
    double force[3]; /* N per point */
} constant_force;

/* ---- its points as one-corner elements, for blocks (decompose.c) ---- */

static uint32_t constant_elements(const pf_force_field *ff, uint32_t *corners)
{
    const constant_force *c = ff->state;
    *corners = 1;
    return c->npoints; /* the object's points when points is NULL */
}

static void constant_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    const constant_force *c = ff->state;
    nodes[0] = c->points ? c->points[e] : e;
}

static void constant_add_range(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                               double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)x, (void)v, (void)want_jac;
    const constant_force *c = ff->state;
    for (uint32_t k = 0; k < r->n; k++) {
        uint32_t e = pf_range_elem(r, k), p = c->points ? c->points[e] : e;
        double *fi = out + 3 * (size_t)*pf_range_rows(r, k, &p, 1, &p);
        fi[0] += c->force[0];
        fi[1] += c->force[1];
        fi[2] += c->force[2];
    }
}

static void constant_add(const pf_force_field *ff, const pf_object *o, const double *x, const double *v, double *f,
                         int want_jac)
{
    const constant_force *c = ff->state;
    constant_add_range(ff, o, x, v, f, want_jac, &(pf_elem_range){.n = c->npoints});
}

static double constant_cost(const pf_force_field *ff)
{
    return 2.0 * ((const constant_force *)ff->state)->npoints;
}

static void constant_destroy(void *state)
{
    constant_force *c = state;
    if (c) pf_free(c->points);
    pf_free(c);
}

const pf_force_field_ops pf_constant_force_field = {
    .name = "constant force",
    .force = constant_add,
    .elements = constant_elements,
    .element = constant_element,
    .force_range = constant_add_range,
    .dforce = NULL, /* a constant force has no stiffness */
    .register_data = NULL,
    .cost = constant_cost,
    .df_cost = NULL,
    .df_reads_x = 0,
    .destroy = constant_destroy,
};

pf_constant_force_def pf_constant_force_default_def(void)
{
    return (pf_constant_force_def){.points = NULL, .npoints = 0, .force = {0, 0, 0}};
}

static int check_constant_force(const pf_world *w, uint32_t object, const pf_constant_force_def *def)
{
    static const char fn[] = "pf_world_add_constant_force";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, object, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    const pf_object *o = w->obj.v[object];
    /* "every point" of a rigid body or a beam would add one vector both as a force and as a torque, in two units */
    if (o->kind != PF_OBJECT_POINTS && !def->npoints)
        return pf_error(PF_EINVAL, "%s: object %u is %s: def.points must name the points the force acts on (a force on "
                        "a position, a torque on a rotation); an empty list means every point only for objects of "
                        "points", fn, object, pf_object_kind_noun(o->kind));
    if (!isfinite(def->force[0]) || !isfinite(def->force[1]) || !isfinite(def->force[2]))
        return pf_error(PF_EINVAL, "%s: def.force (%g, %g, %g) N on object %u is not finite", fn, def->force[0],
                        def->force[1], def->force[2], object);
    if (def->npoints && !def->points)
        return pf_error(PF_EINVAL, "%s: def.points is NULL: def.npoints = %u points announced but no point list", fn,
                        def->npoints);
    for (uint32_t k = 0; k < def->npoints; k++)
        if (def->points[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: def.points[%u] = %u: point %u out of range (object %u has %u points)", fn,
                            k, def->points[k], def->points[k], object, o->n);
    return PF_OK;
}

int pf_world_add_constant_force(pf_world *w, pf_object_id object, const pf_constant_force_def *def,
                                pf_force_field_id *out)
{
    int rc = check_constant_force(w, object.index, def);
    if (rc) return rc;
    pf_object *o = w->obj.v[object.index];
    constant_force *c = pf_calloc(1, sizeof *c);
    if (c && def->npoints) c->points = pf_malloc((size_t)def->npoints * sizeof *c->points);
    if (!c || (def->npoints && !c->points)) {
        constant_destroy(c);
        return pf_error(PF_ENOMEM, "out of memory for a constant force on %u points", def->npoints);
    }
    if (def->npoints) memcpy(c->points, def->points, (size_t)def->npoints * sizeof *c->points);
    c->npoints = def->npoints ? def->npoints : o->n;
    memcpy(c->force, def->force, sizeof c->force);
    if ((rc = pf_object_add_force_field(w, o, PF_FORCE_CONSTANT, c, out))) constant_destroy(c);
    return rc;
}
