/* Tensor-mass membrane on triangles (SOFA TriangularTensorMassForceField; Cotin, Delingette and Ayache, "A hybrid
 * elastic model for real-time cutting, deformations and force feedback", 2000): linear elasticity on the points'
 * displacements u = x - x_rest, not rotated. In a triangle, the edge opposite corner j (from corner k = j+1 to
 * l = j+2) carries the 3x3 tensor
 *   T_j = lambda/(4 A0) (p_j - p_k)(p_j - p_l)^T + mu/(8 A0) (p_j - p_l)(p_j - p_k)^T - cot_j (lambda + mu)/2 I
 * (rest corners p, rest cotangent cot_j, SOFA's lambda = E nu / (1 - nu^2), mu = E (1 - nu) / (1 - nu^2)), and with
 * d = u_k - u_l adds T_j d to corner k and -T_j^T d to corner l. In the triangle's plane this is the linear
 * plane-stress triangle of E and nu (unit thickness); across it, (lambda + mu)/2 times the cotangent Laplacian. The
 * force is linear in x: dforce is the same map on dx. */
#include "world_guard.h"
#include "force_field.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

enum { T_STRIDE = 27, REST_STRIDE = 9 }; /* per element: T_0 T_1 T_2 (row-major); the corners' rest positions */

typedef struct pf_tensor_mass {
    uint32_t nelem;
    uint32_t *tri;
    double *T;
    double *rest;
} pf_tensor_mass;

static void tensor_mass_free(pf_tensor_mass *t)
{
    pf_free(t->tri);
    pf_free(t->T);
    pf_free(t->rest);
    t->tri = NULL;
    t->T = t->rest = NULL;
}

static int tensor_mass_init(pf_tensor_mass *tm, const pf_object *o, const pf_tensor_mass_def *def, const char *fn)
{
    memset(tm, 0, sizeof *tm);
    double nu = def->poisson_ratio, E = def->young_modulus;
    double lambda = E * nu / (1 - nu * nu), mu = E * (1 - nu) / (1 - nu * nu);
    tm->nelem = def->ntriangles;
    tm->tri = pf_malloc((size_t)tm->nelem * 3 * sizeof *tm->tri);
    tm->T = pf_malloc((size_t)tm->nelem * T_STRIDE * sizeof *tm->T);
    tm->rest = pf_malloc((size_t)tm->nelem * REST_STRIDE * sizeof *tm->rest);
    if (!tm->tri || !tm->T || !tm->rest) {
        tensor_mass_free(tm);
        return pf_error(PF_ENOMEM, "out of memory for %u triangles", tm->nelem);
    }
    memcpy(tm->tri, def->triangles, (size_t)tm->nelem * 3 * sizeof *tm->tri);
    for (uint32_t e = 0; e < tm->nelem; e++) {
        const uint32_t *t = tm->tri + 3 * (size_t)e;
        double *p = tm->rest + REST_STRIDE * (size_t)e, L2[3], sum = 0, heron = 0;
        for (int c = 0; c < 3; c++) memcpy(p + 3 * c, o->x + 3 * (size_t)t[c], 3 * sizeof *p);
        for (int j = 0; j < 3; j++) {
            const double *a = p + 3 * ((j + 1) % 3), *b = p + 3 * ((j + 2) % 3);
            L2[j] = 0;
            for (int d = 0; d < 3; d++) L2[j] += (a[d] - b[d]) * (a[d] - b[d]);
            sum += L2[j];
        }
        /* SOFA's rest area, by Heron's formula on the squared lengths */
        for (int j = 0; j < 3; j++) heron += L2[j] * (L2[(j + 1) % 3] + L2[(j + 2) % 3] - L2[j]);
        double A0 = sqrt(heron) / 4;
        if (!(A0 > 1e-12 * sum)) {
            int rc = pf_error(PF_EINVAL,
                              "%s: triangle %u (points %u %u %u) has zero area: its tensors (over its area) are "
                              "undefined",
                              fn, e, t[0], t[1], t[2]);
            tensor_mass_free(tm);
            return rc;
        }
        double ls = lambda / (4 * A0), ms = mu / (8 * A0);
        for (int j = 0; j < 3; j++) {
            int k = (j + 1) % 3, l = (j + 2) % 3;
            double cot = (L2[k] + L2[l] - L2[j]) / (4 * A0), dpl[3], dpk[3];
            double *T = tm->T + T_STRIDE * (size_t)e + 9 * j;
            for (int d = 0; d < 3; d++) dpl[d] = p[3 * j + d] - p[3 * k + d], dpk[d] = p[3 * j + d] - p[3 * l + d];
            for (int u = 0; u < 3; u++)
                for (int v = 0; v < 3; v++)
                    T[3 * u + v] = ls * dpl[u] * dpk[v] + ms * dpk[u] * dpl[v] - (u == v ? cot * (lambda + mu) / 2 : 0);
        }
    }
    return PF_OK;
}

/* out += scale * the elements' map on y, y the displacements (x minus the rest positions: `rest` set) or dx */
static void tensor_mass_apply(const pf_tensor_mass *tm, const double *y, int rest, double scale, double *out,
                              const pf_elem_range *rg)
{
    for (uint32_t i = 0; i < rg->n; i++) {
        uint32_t e = pf_range_elem(rg, i), rb[3];
        const uint32_t *t = tm->tri + 3 * (size_t)e, *row = pf_range_rows(rg, i, t, 3, rb);
        const double *p = tm->rest + REST_STRIDE * (size_t)e;
        for (int j = 0; j < 3; j++) {
            int k = (j + 1) % 3, l = (j + 2) % 3;
            const double *T = tm->T + T_STRIDE * (size_t)e + 9 * j;
            double d[3];
            for (int a = 0; a < 3; a++) {
                d[a] = y[3 * (size_t)t[k] + a] - y[3 * (size_t)t[l] + a];
                if (rest) d[a] -= p[3 * k + a] - p[3 * l + a];
            }
            double *fk = out + 3 * (size_t)row[k], *fl = out + 3 * (size_t)row[l];
            for (int a = 0; a < 3; a++) {
                fk[a] += scale * (T[3 * a] * d[0] + T[3 * a + 1] * d[1] + T[3 * a + 2] * d[2]);
                fl[a] -= scale * (T[a] * d[0] + T[3 + a] * d[1] + T[6 + a] * d[2]);
            }
        }
    }
}

/* ---- as a force field (force_field.h) ---- */

static void tensor_mass_ff_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                                 double *f, int want_jac)
{
    (void)o, (void)v, (void)want_jac;
    const pf_tensor_mass *tm = ff->state;
    tensor_mass_apply(tm, x, 1, 1.0, f, &(pf_elem_range){.n = tm->nelem});
}

static void tensor_mass_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                                  double kfact)
{
    (void)o;
    const pf_tensor_mass *tm = ff->state;
    tensor_mass_apply(tm, dx, 0, kfact, df, &(pf_elem_range){.n = tm->nelem});
}

/* ---- its elements, for blocks (decompose.c) ---- */

static uint32_t tensor_mass_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 3;
    return ((const pf_tensor_mass *)ff->state)->nelem;
}

static void tensor_mass_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    memcpy(nodes, ((const pf_tensor_mass *)ff->state)->tri + 3 * (size_t)e, 3 * sizeof *nodes);
}

static void tensor_mass_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x,
                                       const double *v, double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v, (void)want_jac;
    tensor_mass_apply(ff->state, x, 1, 1.0, out, r);
}

static void tensor_mass_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx,
                                        double *out, double kfact, const pf_elem_range *r)
{
    (void)o;
    tensor_mass_apply(ff->state, dx, 0, kfact, out, r);
}

static double tensor_mass_ff_cost(const pf_force_field *ff)
{
    return 60.0 * ((const pf_tensor_mass *)ff->state)->nelem;
}

/* the triangles desc[0 .. n) removed, SOFA's way (force_field.h) */
static void tensor_mass_ff_remove_elements(pf_force_field *ff, const uint32_t *desc, uint32_t n)
{
    pf_tensor_mass *tm = ff->state;
    pf_remove_slots(tm->tri, 3 * sizeof *tm->tri, tm->nelem, desc, n);
    pf_remove_slots(tm->T, T_STRIDE * sizeof *tm->T, tm->nelem, desc, n);
    pf_remove_slots(tm->rest, REST_STRIDE * sizeof *tm->rest, tm->nelem, desc, n);
    tm->nelem -= n;
}

static void tensor_mass_ff_destroy(void *state)
{
    tensor_mass_free(state);
    pf_free(state);
}

const pf_force_field_ops pf_tensor_mass_force_field = {
    .name = "tensor-mass membrane",
    .force = tensor_mass_ff_force,
    .dforce = tensor_mass_ff_dforce,
    .elements = tensor_mass_ff_elements,
    .element = tensor_mass_ff_element,
    .force_range = tensor_mass_ff_force_range,
    .dforce_range = tensor_mass_ff_dforce_range,
    .cost = tensor_mass_ff_cost,
    .df_cost = tensor_mass_ff_cost,
    .df_reads_x = 0,
    .destroy = tensor_mass_ff_destroy,
    .remove_elements = tensor_mass_ff_remove_elements,
};

/* ---- the public calls ---- */

pf_tensor_mass_def pf_tensor_mass_default_def(void)
{
    return (pf_tensor_mass_def){.young_modulus = 1000, .poisson_ratio = 0.3};
}

int pf_world_add_tensor_mass(pf_world *w, pf_object_id id, const pf_tensor_mass_def *def, pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_tensor_mass";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_positive(def->young_modulus, fn, "def.young_modulus"));
    if (!(def->poisson_ratio > -1 && def->poisson_ratio < 1))
        return pf_error(PF_EINVAL, "%s: def.poisson_ratio must be in (-1, 1), got %g", fn, def->poisson_ratio);
    if (def->ntriangles == 0) return pf_error(PF_EINVAL, "%s: def.ntriangles is 0: no triangles", fn);
    PF_TRY(pf_check_given(def->triangles, fn, "def.triangles"));
    PF_TRY(pf_check_size(def->ntriangles, (3 + T_STRIDE + REST_STRIDE) * sizeof(double), fn, "def.ntriangles"));
    pf_object *o = w->obj.v[id.index];
    PF_TRY(pf_object_check_points(o, fn, "a tensor-mass membrane acts on points"));
    for (uint32_t k = 0; k < 3 * def->ntriangles; k++)
        if (def->triangles[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: def.triangles[%u] = %u: point out of range (object %u has %u points)",
                            fn, k, def->triangles[k], id.index, o->n);
    pf_tensor_mass *tm = pf_calloc(1, sizeof *tm);
    if (!tm) return pf_error(PF_ENOMEM, "out of memory");
    int rc = tensor_mass_init(tm, o, def, fn);
    if (rc || (rc = pf_object_add_force_field(w, o, PF_FORCE_TENSOR_MASS, tm, out))) tensor_mass_ff_destroy(tm);
    return rc;
}
