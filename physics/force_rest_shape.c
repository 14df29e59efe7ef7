/* Springs that pull chosen points back to rest positions (SOFA RestShapeSpringsForceField): f_i += -k_i (x_i - r_i),
 * a stiffness K = -k_i I per point, no damping (the solver's Rayleigh damping applies). Anchors a body softly where
 * fixed points would hold it rigidly. */
#include "world_guard.h"
#include "assembly.h"
#include "force_field.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

typedef struct rest_shape {
    uint32_t *points; /* NULL: every point of the object, in order */
    uint32_t npoints;
    double *k;    /* N/m per listed point */
    double *rest; /* 3 per listed point, m */
} rest_shape;

static uint32_t point_at(const rest_shape *r, uint32_t k)
{
    return r->points ? r->points[k] : k;
}

static void rest_assemble(const pf_force_field *ff, const pf_object *o, uint32_t base, pf_blocks *blocks)
{
    (void)o;
    const rest_shape *r = ff->state;
    for (uint32_t k = 0; k < r->npoints; k++) {
        const double kk = r->k[k], blk[9] = {kk, 0, 0, 0, kk, 0, 0, 0, kk};
        pf_blocks_add(blocks, base + point_at(r, k), base + point_at(r, k), blk, -blocks->kfact);
    }
}

/* ---- its points as one-corner elements, for blocks (decompose.c) ---- */

static uint32_t rest_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 1;
    return ((const rest_shape *)ff->state)->npoints;
}

static void rest_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    nodes[0] = point_at(ff->state, e);
}

static void rest_force_range(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                             double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v, (void)want_jac;
    const rest_shape *rs = ff->state;
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t k = pf_range_elem(r, j), p = point_at(rs, k);
        size_t i = 3 * (size_t)p, row = 3 * (size_t)*pf_range_rows(r, j, &p, 1, &p);
        for (int d = 0; d < 3; d++)
            out[row + (size_t)d] -= rs->k[k] * (x[i + (size_t)d] - rs->rest[3 * (size_t)k + (size_t)d]);
    }
}

static void rest_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx, double *out,
                              double kfact, const pf_elem_range *r)
{
    (void)o;
    const rest_shape *rs = ff->state;
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t k = pf_range_elem(r, j), p = point_at(rs, k);
        size_t i = 3 * (size_t)p, row = 3 * (size_t)*pf_range_rows(r, j, &p, 1, &p);
        for (int d = 0; d < 3; d++) out[row + (size_t)d] -= kfact * rs->k[k] * dx[i + (size_t)d];
    }
}

static void rest_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v, double *f,
                       int want_jac)
{
    const rest_shape *r = ff->state;
    rest_force_range(ff, o, x, v, f, want_jac, &(pf_elem_range){.n = r->npoints});
}

static void rest_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df, double kfact)
{
    const rest_shape *r = ff->state;
    rest_dforce_range(ff, o, dx, df, kfact, &(pf_elem_range){.n = r->npoints});
}

static double rest_cost(const pf_force_field *ff)
{
    return 4.0 * ((const rest_shape *)ff->state)->npoints;
}

static void rest_destroy(void *state)
{
    rest_shape *r = state;
    if (r) pf_free(r->points), pf_free(r->k), pf_free(r->rest);
    pf_free(r);
}

const pf_force_field_ops pf_rest_shape_force_field = {
    .name = "rest-shape springs",
    .force = rest_force,
    .elements = rest_elements,
    .element = rest_element,
    .force_range = rest_force_range,
    .dforce_range = rest_dforce_range,
    .dforce = rest_dforce,
    .register_data = NULL, /* its stiffness does not change: no cache */
    .cost = rest_cost,
    .df_cost = rest_cost,
    .assemble = rest_assemble,
    .df_reads_x = 0,
    .destroy = rest_destroy,
};

pf_rest_shape_springs_def pf_rest_shape_springs_default_def(void)
{
    return (pf_rest_shape_springs_def){.points = NULL, .npoints = 0, .stiffness = 1, .stiffnesses = NULL,
                                       .rest_positions = NULL};
}

static int check_rest_shape(const pf_world *w, uint32_t object, const pf_rest_shape_springs_def *def)
{
    static const char fn[] = "pf_world_add_rest_shape_springs";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, object, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_world_check_point_list(w, object, def->points, def->npoints, fn, "rest-shape springs act on points"));
    const pf_object *o = w->obj.v[object];
    uint32_t n = def->npoints ? def->npoints : o->n;
    if (def->stiffnesses) {
        for (uint32_t k = 0; k < n; k++)
            if (!(def->stiffnesses[k] >= 0) || !isfinite(def->stiffnesses[k]))
                return pf_error(PF_EINVAL, "%s: def.stiffnesses[%u] must be finite and >= 0, got %g", fn, k,
                                def->stiffnesses[k]);
    } else if (!(def->stiffness >= 0) || !isfinite(def->stiffness)) {
        return pf_error(PF_EINVAL, "%s: def.stiffness must be finite and >= 0, got %g", fn, def->stiffness);
    }
    if (def->rest_positions) PF_TRY(pf_check_finite_n(def->rest_positions, 3 * (size_t)n, fn, "def.rest_positions"));
    return PF_OK;
}

int pf_world_add_rest_shape_springs(pf_world *w, pf_object_id object, const pf_rest_shape_springs_def *def,
                                    pf_force_field_id *out)
{
    int rc = check_rest_shape(w, object.index, def);
    if (rc) return rc;
    pf_object *o = w->obj.v[object.index];
    uint32_t n = def->npoints ? def->npoints : o->n;
    rest_shape *r = pf_calloc(1, sizeof *r);
    if (r) {
        r->npoints = n;
        r->k = pf_malloc((size_t)n * sizeof *r->k);
        r->rest = pf_malloc(3 * (size_t)n * sizeof *r->rest);
        if (def->npoints) r->points = pf_malloc((size_t)n * sizeof *r->points);
    }
    if (!r || !r->k || !r->rest || (def->npoints && !r->points)) {
        rest_destroy(r);
        return pf_error(PF_ENOMEM, "out of memory for rest-shape springs on %u points", n);
    }
    if (def->npoints) memcpy(r->points, def->points, (size_t)n * sizeof *r->points);
    for (uint32_t k = 0; k < n; k++) {
        r->k[k] = def->stiffnesses ? def->stiffnesses[k] : def->stiffness;
        const double *from = def->rest_positions ? def->rest_positions + 3 * (size_t)k
                                                 : o->x + 3 * (size_t)point_at(r, k);
        memcpy(r->rest + 3 * (size_t)k, from, 3 * sizeof *from);
    }
    if ((rc = pf_object_add_force_field(w, o, PF_FORCE_REST_SHAPE, r, out))) rest_destroy(r);
    return rc;
}
