/* Polynomial rest-shape springs (SOFA PolynomialRestShapeSpringsForceField): each listed point is pulled back to
 * its rest position by a force whose magnitude is a polynomial of the strain s = |x - r| / L, along SOFA's smoothed
 * direction (x - r) / sqrt(|x - r|^2 + exp(shift - scale |x - r|^2)). Its stiffness is SOFA's: the diagonal that
 * SOFA's ComputeJacobian gives, one value per axis and point (not the full derivative), refreshed with the force. */
#include "world_guard.h"
#include "assembly.h"
#include "force_field.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

typedef struct poly_springs {
    uint32_t *points; /* NULL: every point of the object, in order */
    uint32_t npoints;
    double *rest;     /* 3 per listed point, m */
    double *length;   /* L per listed point, m */
    uint32_t *first;  /* per listed point: its polynomial's first coefficient in coef */
    uint32_t *degree; /* per listed point */
    double *coef;     /* c_1 .. c_d of each polynomial, N */
    double shift, scale;
    double *jac; /* 3 per listed point: SOFA's diagonal stiffness as of the latest force with want_jac, N/m */
} poly_springs;

static uint32_t point_at(const poly_springs *p, uint32_t k)
{
    return p->points ? p->points[k] : k;
}

/* sum_{j=1..d} c_j s^j, summed from j = 1 up as SOFA's PolynomialValue */
static double poly_value(const double *c, uint32_t d, double s)
{
    double h = 1, r = 0;
    for (uint32_t j = 0; j < d; j++) {
        h *= s;
        r += c[j] * h;
    }
    return r;
}

/* its derivative in s, as SOFA's PolynomialDerivativeValue */
static double poly_derivative(const double *c, uint32_t d, double s)
{
    double h = 1, r = 0;
    for (uint32_t j = 0; j < d; j++) {
        r += (double)(j + 1) * c[j] * h;
        h *= s;
    }
    return r;
}

static void poly_force_range(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                             double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v;
    poly_springs *ps = ff->state;
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t k = pf_range_elem(r, j), p = point_at(ps, k);
        size_t row = 3 * (size_t)*pf_range_rows(r, j, &p, 1, &p);
        const double *xp = x + 3 * (size_t)p, *rp = ps->rest + 3 * (size_t)k, *c = ps->coef + ps->first[k];
        double dx[3] = {xp[0] - rp[0], xp[1] - rp[1], xp[2] - rp[2]};
        double n2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
        double s = sqrt(n2) / ps->length[k], force = poly_value(c, ps->degree[k], s);
        double e = exp(ps->shift - ps->scale * n2), len = sqrt(n2 + e); /* SOFA's smoothed length */
        double w[3] = {dx[0] / len, dx[1] / len, dx[2] / len};
        for (int d = 0; d < 3; d++) out[row + (size_t)d] -= force * w[d];
        if (!want_jac) continue;
        /* SOFA's ComputeJacobian: (P'(s) / L - P / len) (1 - scale e) w_d^2 + P / len, per axis */
        double pf = force / len, pd = poly_derivative(c, ps->degree[k], s) / ps->length[k];
        double ed = 1.0 - ps->scale * e, *jk = ps->jac + 3 * (size_t)k;
        for (int d = 0; d < 3; d++) jk[d] = (pd - pf) * ed * w[d] * w[d] + pf;
    }
}

static void poly_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx, double *out,
                              double kfact, const pf_elem_range *r)
{
    (void)o;
    const poly_springs *ps = ff->state;
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t k = pf_range_elem(r, j), p = point_at(ps, k);
        size_t i = 3 * (size_t)p, row = 3 * (size_t)*pf_range_rows(r, j, &p, 1, &p);
        const double *jk = ps->jac + 3 * (size_t)k;
        for (int d = 0; d < 3; d++) out[row + (size_t)d] -= jk[d] * dx[i + (size_t)d] * kfact;
    }
}

static void poly_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v, double *f,
                       int want_jac)
{
    poly_force_range(ff, o, x, v, f, want_jac, &(pf_elem_range){.n = ((const poly_springs *)ff->state)->npoints});
}

static void poly_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df, double kfact)
{
    poly_dforce_range(ff, o, dx, df, kfact, &(pf_elem_range){.n = ((const poly_springs *)ff->state)->npoints});
}

static void poly_assemble(const pf_force_field *ff, const pf_object *o, uint32_t base, pf_blocks *blocks)
{
    (void)o;
    const poly_springs *ps = ff->state;
    for (uint32_t k = 0; k < ps->npoints; k++) {
        const double *jk = ps->jac + 3 * (size_t)k, blk[9] = {jk[0], 0, 0, 0, jk[1], 0, 0, 0, jk[2]};
        pf_blocks_add(blocks, base + point_at(ps, k), base + point_at(ps, k), blk, -blocks->kfact);
    }
}

/* ---- its points as one-corner elements, for blocks (decompose.c) ---- */

static uint32_t poly_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 1;
    return ((const poly_springs *)ff->state)->npoints;
}

static void poly_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    nodes[0] = point_at(ff->state, e);
}

static int poly_register_range(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r, uint32_t owner,
                               pf_data_id *out)
{
    return pf_register_element_span(g, ((const poly_springs *)ff->state)->jac, 3, r, owner, out);
}

/* the diagonal stiffness, which the force task writes and df reads */
static int poly_register(pf_graph *g, pf_force_field *ff, uint32_t owner)
{
    poly_springs *ps = ff->state;
    return pf_graph_data(g, ps->jac, 3 * (size_t)ps->npoints * sizeof(double), owner, NULL, &ff->dcache);
}

static double poly_cost(const pf_force_field *ff)
{
    return 40.0 * ((const poly_springs *)ff->state)->npoints;
}

static double poly_df_cost(const pf_force_field *ff)
{
    return 4.0 * ((const poly_springs *)ff->state)->npoints;
}

static void poly_destroy(void *state)
{
    poly_springs *p = state;
    if (p)
        pf_free(p->points), pf_free(p->rest), pf_free(p->length), pf_free(p->first), pf_free(p->degree),
            pf_free(p->coef), pf_free(p->jac);
    pf_free(p);
}

const pf_force_field_ops pf_polynomial_springs_force_field = {
    .name = "polynomial rest-shape springs",
    .force = poly_force,
    .dforce = poly_dforce,
    .register_data = poly_register,
    .cost = poly_cost,
    .df_cost = poly_df_cost,
    .assemble = poly_assemble,
    .elements = poly_elements,
    .element = poly_element,
    .force_range = poly_force_range,
    .dforce_range = poly_dforce_range,
    .register_range = poly_register_range,
    .df_reads_x = 0,
    .destroy = poly_destroy,
};

/* ---- the public calls ---- */

pf_polynomial_springs_def pf_polynomial_springs_default_def(void)
{
    /* SOFA's defaults: polynomialStiffness 100, polynomialDegree 1, initialLength 1, smoothShift 0, smoothScale 1 */
    static const uint32_t degree = 1;
    static const double coefficient = 100;
    return (pf_polynomial_springs_def){.degrees = &degree,
                                       .npolynomials = 1,
                                       .coefficients = &coefficient,
                                       .initial_length = 1,
                                       .smooth_shift = 0,
                                       .smooth_scale = 1};
}

static int check_polynomial_springs(const pf_world *w, uint32_t object, const pf_polynomial_springs_def *def,
                                    size_t *ncoef)
{
    static const char fn[] = "pf_world_add_polynomial_springs";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, object, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_world_check_point_list(w, object, def->points, def->npoints, fn, "polynomial springs act on points"));
    const pf_object *o = w->obj.v[object];
    uint32_t n = def->npoints ? def->npoints : o->n;
    if (def->npolynomials != 1 && def->npolynomials != n)
        return pf_error(PF_EINVAL, "%s: def.npolynomials must be 1 (every point's) or %u (one per point), got %u", fn,
                        n, def->npolynomials);
    PF_TRY(pf_check_given(def->degrees, fn, "def.degrees"));
    PF_TRY(pf_check_given(def->coefficients, fn, "def.coefficients"));
    *ncoef = 0;
    for (uint32_t k = 0; k < def->npolynomials; k++) {
        if (def->degrees[k] < 1 || def->degrees[k] > 64)
            return pf_error(PF_EINVAL, "%s: def.degrees[%u] must be in [1, 64], got %u", fn, k, def->degrees[k]);
        *ncoef += def->degrees[k];
    }
    PF_TRY(pf_check_finite_n(def->coefficients, *ncoef, fn, "def.coefficients"));
    if (def->initial_lengths) {
        for (uint32_t k = 0; k < n; k++)
            if (!(def->initial_lengths[k] > 0) || !isfinite(def->initial_lengths[k]))
                return pf_error(PF_EINVAL, "%s: def.initial_lengths[%u] must be finite and > 0, got %g", fn, k,
                                def->initial_lengths[k]);
    } else {
        PF_TRY(pf_check_positive(def->initial_length, fn, "def.initial_length"));
    }
    PF_TRY(pf_check_finite(def->smooth_shift, fn, "def.smooth_shift"));
    PF_TRY(pf_check_finite(def->smooth_scale, fn, "def.smooth_scale"));
    if (def->rest_positions) PF_TRY(pf_check_finite_n(def->rest_positions, 3 * (size_t)n, fn, "def.rest_positions"));
    return PF_OK;
}

int pf_world_add_polynomial_springs(pf_world *w, pf_object_id object, const pf_polynomial_springs_def *def,
                                    pf_force_field_id *out)
{
    size_t ncoef = 0;
    int rc = check_polynomial_springs(w, object.index, def, &ncoef);
    if (rc) return rc;
    pf_object *o = w->obj.v[object.index];
    uint32_t n = def->npoints ? def->npoints : o->n;
    poly_springs *p = pf_calloc(1, sizeof *p);
    if (p) {
        p->npoints = n;
        p->rest = pf_malloc(3 * (size_t)n * sizeof *p->rest);
        p->jac = pf_calloc(3 * (size_t)n, sizeof *p->jac);
        p->length = pf_malloc((size_t)n * sizeof *p->length);
        p->first = pf_malloc((size_t)n * sizeof *p->first);
        p->degree = pf_malloc((size_t)n * sizeof *p->degree);
        p->coef = pf_malloc(ncoef * sizeof *p->coef);
        if (def->npoints) p->points = pf_malloc((size_t)n * sizeof *p->points);
    }
    if (!p || !p->rest || !p->jac || !p->length || !p->first || !p->degree || !p->coef ||
        (def->npoints && !p->points)) {
        poly_destroy(p);
        return pf_error(PF_ENOMEM, "out of memory for polynomial springs on %u points", n);
    }
    if (def->npoints) memcpy(p->points, def->points, (size_t)n * sizeof *p->points);
    memcpy(p->coef, def->coefficients, ncoef * sizeof *p->coef);
    p->shift = def->smooth_shift;
    p->scale = def->smooth_scale;
    uint32_t first = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t q = def->npolynomials == 1 ? 0 : k;
        p->degree[k] = def->degrees[q];
        p->first[k] = def->npolynomials == 1 ? 0 : first;
        first += def->degrees[q];
        p->length[k] = def->initial_lengths ? def->initial_lengths[k] : def->initial_length;
        const double *from = def->rest_positions ? def->rest_positions + 3 * (size_t)k
                                                 : o->x + 3 * (size_t)point_at(p, k);
        memcpy(p->rest + 3 * (size_t)k, from, 3 * sizeof *from);
    }
    if ((rc = pf_object_add_force_field(w, o, PF_FORCE_POLYNOMIAL_SPRINGS, p, out))) poly_destroy(p);
    return rc;
}
