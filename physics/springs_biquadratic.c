/* Biquadratic and quadratic springs on triangles (SOFA TriangularBiquadraticSpringsForceField and
 * TriangularQuadraticSpringsForceField; Delingette, "Triangular springs for modeling nonlinear membranes", IEEE TVCG
 * 14(2), 2008). In a triangle, edge j is opposite corner j (from corner j+1 to corner j+2).
 * Biquadratic, a St Venant-Kirchhoff membrane on the squared lengths: with D_j = l_j^2 - L_j^2,
 *   W = sum_j k_j/4 D_j^2 + 1/2 sum_j g_j D_(j+1) D_(j+2)                      (the cross terms: "angular springs")
 *     + 3 (lambda + mu) A0 (J - 1)^4 / 4 while J = A / A0 < 1                   (the area term: "compressible")
 * k_j = (2 cot_j^2 (lambda + mu) + mu) / (16 A0), g_j = (2 cot_(j+1) cot_(j+2) (lambda + mu) - mu) / (16 A0), cot_j
 * the rest cotangent at corner j, lambda = E nu / (1 - nu^2), mu = E (1 - nu) / (1 - nu^2): SOFA's coefficients. As in
 * SOFA, the area term comes with the cross terms only, and its gradient is taken along the normal SOFA keeps: the
 * current one, turned back when it flips against the last valid one, which stands in below J = 0.01.
 * Quadratic, the same on the lengths (d_j = l_j - L_j; no area term), SOFA's coefficients:
 *   W = sum_j s_j/2 d_j^2 + sum_j h_j d_(j+1) d_(j+2), s_j = 2 L_j^2 k_j, h_j = 2 L_(j+1) L_(j+2) g_j.
 * Both are W = sum_j a_j/2 d_j^2 + sum_j b_j d_(j+1) d_(j+2) in their measure d. The force is -grad W (SOFA's, summed
 * triangle by triangle); dforce is its exact derivative. */
#include "world_guard.h"
#include "force_field.h"
#include "objects.h"
#include "rotation.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

/* per element, at rest: a_j, b_j, the rest measure (L_j^2 or L_j), A0 */
enum { R_A = 0, R_B = 3, R_L = 6, R_A0 = 9, REST_STRIDE = 10 };
/* per element, written by each force evaluation (dforce reads it; the next force reads S_LAST): the edge vectors
 * (x_(j+2) - x_(j+1)), D_j, the unit normal, the normal the area term used, A, J, the area term's mode (NO_AREA,
 * +1 or -1: the normal times that, FROZEN: the last valid normal) and the last valid normal */
enum { S_DP = 0, S_D = 9, S_N = 12, S_NU = 15, S_A = 18, S_J = 19, S_MODE = 20, S_LAST = 21, STATE_STRIDE = 24 };
enum { NO_AREA = 0, FROZEN = 2 };

typedef struct pf_biquadratic {
    uint32_t nelem;
    uint32_t *tri;   /* 3 point indices per element */
    double *rest;    /* REST_STRIDE per element */
    double *state;   /* STATE_STRIDE per element */
    double area_k;   /* 3 (lambda + mu), the area term's stiffness */
    int angular, compressible, quadratic;
} pf_biquadratic;

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void biquadratic_free(pf_biquadratic *b)
{
    pf_free(b->tri);
    pf_free(b->rest);
    pf_free(b->state);
    b->tri = NULL;
    b->rest = b->state = NULL;
}

/* the edge vectors of triangle t at x: dp[j] = x_(j+2) - x_(j+1) */
static void edges_of(const double *x, const uint32_t *t, double dp[9])
{
    for (int j = 0; j < 3; j++) {
        const double *p = x + 3 * (size_t)t[(j + 1) % 3], *q = x + 3 * (size_t)t[(j + 2) % 3];
        for (int d = 0; d < 3; d++) dp[3 * j + d] = q[d] - p[d];
    }
}

static int biquadratic_init(pf_biquadratic *b, const pf_object *o, const pf_biquadratic_springs_def *def,
                            const char *fn)
{
    memset(b, 0, sizeof *b);
    double nu = def->poisson_ratio, E = def->young_modulus;
    double lambda = E * nu / (1 - nu * nu), mu = E * (1 - nu) / (1 - nu * nu);
    b->nelem = def->ntriangles;
    b->area_k = 3 * (lambda + mu);
    b->angular = def->angular_springs != 0;
    b->quadratic = def->quadratic != 0;
    b->compressible = def->compressible != 0 && !b->quadratic;
    b->tri = pf_malloc((size_t)b->nelem * 3 * sizeof *b->tri);
    b->rest = pf_malloc((size_t)b->nelem * REST_STRIDE * sizeof *b->rest);
    b->state = pf_calloc((size_t)b->nelem * STATE_STRIDE, sizeof *b->state);
    if (!b->tri || !b->rest || !b->state) {
        biquadratic_free(b);
        return pf_error(PF_ENOMEM, "out of memory for %u triangles", b->nelem);
    }
    memcpy(b->tri, def->triangles, (size_t)b->nelem * 3 * sizeof *b->tri);
    for (uint32_t e = 0; e < b->nelem; e++) {
        const uint32_t *t = b->tri + 3 * (size_t)e;
        double *r = b->rest + REST_STRIDE * (size_t)e, *s = b->state + STATE_STRIDE * (size_t)e, dp[9];
        edges_of(o->x, t, dp);
        double L2[3], sum = 0, heron = 0;
        for (int j = 0; j < 3; j++) L2[j] = dot3(dp + 3 * j, dp + 3 * j), sum += L2[j];
        /* SOFA's rest area, by Heron's formula on the squared lengths */
        for (int j = 0; j < 3; j++) heron += L2[j] * (L2[(j + 1) % 3] + L2[(j + 2) % 3] - L2[j]);
        double A0 = sqrt(heron) / 4;
        if (!(A0 > 1e-12 * sum)) {
            int rc = pf_error(PF_EINVAL,
                              "%s: triangle %u (points %u %u %u) has zero area: its springs' stiffness (over its "
                              "area) is undefined",
                              fn, e, t[0], t[1], t[2]);
            biquadratic_free(b);
            return rc;
        }
        r[R_A0] = A0;
        double cot[3];
        for (int j = 0; j < 3; j++) cot[j] = (L2[(j + 1) % 3] + L2[(j + 2) % 3] - L2[j]) / (4 * A0);
        for (int j = 0; j < 3; j++) {
            int k = (j + 1) % 3, l = (j + 2) % 3;
            double kj = 2 * cot[j] * cot[j] * (lambda + mu) + mu, gj = 2 * cot[k] * cot[l] * (lambda + mu) - mu;
            if (b->quadratic) {
                r[R_A + j] = L2[j] * kj / (8 * A0);
                r[R_B + j] = sqrt(L2[k]) * sqrt(L2[l]) * gj / (8 * A0);
                r[R_L + j] = sqrt(L2[j]);
            } else {
                r[R_A + j] = kj / (32 * A0);
                r[R_B + j] = gj / (32 * A0);
                r[R_L + j] = L2[j];
            }
        }
        /* the rest normal is the first valid one */
        pf_cross(dp + 3, dp + 6, s + S_LAST);
        for (int d = 0; d < 3; d++) s[S_LAST + d] /= 2 * A0;
    }
    return PF_OK;
}

/* dW/dd_j of one triangle (d its measures) or its variation (d their variations) */
static void edge_coefficients(const pf_biquadratic *b, const double *r, const double d[3], double c[3])
{
    for (int j = 0; j < 3; j++) {
        int k = (j + 1) % 3, l = (j + 2) % 3;
        c[j] = r[R_A + j] * d[j];
        if (b->angular) c[j] += r[R_B + k] * d[l] + r[R_B + l] * d[k];
    }
}

/* g = dd_j/dx_(j+2) (= -dd_j/dx_(j+1)) for edge vector dp: 2 dp (squared length) or dp / l (length) */
static void measure_gradient(const pf_biquadratic *b, const double *dp, double g[3])
{
    double s = b->quadratic ? 1 / sqrt(dot3(dp, dp)) : 2;
    for (int d = 0; d < 3; d++) g[d] = s * dp[d];
}

/* out -= the elements' forces at x; r picks the elements and the rows of out they add into (force_field.h) */
static void biquadratic_force(pf_biquadratic *b, const double *x, double *out, const pf_elem_range *rg)
{
    for (uint32_t i = 0; i < rg->n; i++) {
        uint32_t e = pf_range_elem(rg, i), rb[3];
        const uint32_t *t = b->tri + 3 * (size_t)e, *row = pf_range_rows(rg, i, t, 3, rb);
        const double *r = b->rest + REST_STRIDE * (size_t)e;
        double *s = b->state + STATE_STRIDE * (size_t)e, *dp = s + S_DP, *D = s + S_D, c[3];
        edges_of(x, t, dp);
        for (int j = 0; j < 3; j++) {
            double m = dot3(dp + 3 * j, dp + 3 * j);
            D[j] = (b->quadratic ? sqrt(m) : m) - r[R_L + j];
        }
        edge_coefficients(b, r, D, c);
        for (int j = 0; j < 3; j++) {
            double *fk = out + 3 * (size_t)row[(j + 1) % 3], *fl = out + 3 * (size_t)row[(j + 2) % 3], g[3];
            measure_gradient(b, dp + 3 * j, g);
            for (int d = 0; d < 3; d++) {
                fl[d] -= c[j] * g[d];
                fk[d] += c[j] * g[d];
            }
        }
        /* the area term (SOFA: with the cross terms only), along the normal SOFA keeps */
        double N[3], *n = s + S_N, *nu = s + S_NU, *last = s + S_LAST;
        pf_cross(dp + 3, dp + 6, N);
        double A = sqrt(dot3(N, N)) / 2, J = A / r[R_A0];
        for (int d = 0; d < 3; d++) n[d] = A > 0 ? N[d] / (2 * A) : 0;
        s[S_A] = A;
        s[S_J] = J;
        s[S_MODE] = NO_AREA;
        if (!(b->angular && b->compressible && J < 1)) continue;
        if (J < 1e-2) {
            s[S_MODE] = FROZEN; /* too flat for its own normal */
            memcpy(nu, last, 3 * sizeof *nu);
        } else if (dot3(n, last) > -0.5) {
            s[S_MODE] = 1;
            memcpy(last, n, 3 * sizeof *last);
            memcpy(nu, n, 3 * sizeof *nu);
        } else { /* flipped: pushed back along the last valid side */
            s[S_MODE] = -1;
            for (int d = 0; d < 3; d++) nu[d] = -n[d];
        }
        double v = b->area_k * (J - 1) * (J - 1) * (J - 1);
        for (int m = 0; m < 3; m++) {
            double a[3], *fm = out + 3 * (size_t)row[m];
            pf_cross(nu, dp + 3 * m, a);
            for (int d = 0; d < 3; d++) fm[d] -= 0.5 * v * a[d];
        }
    }
}

/* out += kfact (df/dx) dx over the elements, at the state of the latest force evaluation */
static void biquadratic_dforce(const pf_biquadratic *b, const double *dx, double *out, double kfact,
                               const pf_elem_range *rg)
{
    for (uint32_t i = 0; i < rg->n; i++) {
        uint32_t e = pf_range_elem(rg, i), rb[3];
        const uint32_t *t = b->tri + 3 * (size_t)e, *row = pf_range_rows(rg, i, t, 3, rb);
        const double *r = b->rest + REST_STRIDE * (size_t)e, *s = b->state + STATE_STRIDE * (size_t)e;
        const double *dp = s + S_DP;
        double ddp[9], dD[3], c[3], dc[3], g[9], dg[9];
        edges_of(dx, t, ddp);
        /* g_j = dd_j/dx_l and its variation: 2 dp, 2 ddp (squared length); dp / l, ddp / l - dp (dp . ddp) / l^3 */
        for (int j = 0; j < 3; j++) {
            const double *p = dp + 3 * j, *q = ddp + 3 * j;
            measure_gradient(b, p, g + 3 * j);
            double il = b->quadratic ? 1 / sqrt(dot3(p, p)) : 0, pq = dot3(p, q);
            for (int d = 0; d < 3; d++) dg[3 * j + d] = b->quadratic ? il * q[d] - p[d] * pq * il * il * il : 2 * q[d];
            dD[j] = dot3(g + 3 * j, q);
        }
        edge_coefficients(b, r, s + S_D, c);
        edge_coefficients(b, r, dD, dc);
        /* f_l = -c_j g_j: df_l = -(dc_j g_j + c_j dg_j), and the opposite at corner k */
        for (int j = 0; j < 3; j++) {
            double *fk = out + 3 * (size_t)row[(j + 1) % 3], *fl = out + 3 * (size_t)row[(j + 2) % 3];
            for (int d = 0; d < 3; d++) {
                double v = kfact * (dc[j] * g[3 * j + d] + c[j] * dg[3 * j + d]);
                fl[d] -= v;
                fk[d] += v;
            }
        }
        int mode = (int)s[S_MODE];
        if (mode == NO_AREA) continue;
        /* f_m = -1/2 v nu x dp_m, v = area_k (J - 1)^3: its variation through v (dA = sum_m 1/2 (n x dp_m) . dx_m),
         * through nu (the unit normal's, dN = ddp_1 x dp_2 + dp_1 x ddp_2; none when frozen) and through dp_m */
        const double *n = s + S_N, *nu = s + S_NU;
        double J = s[S_J], A = s[S_A], dA = 0, a[3], b1[3], dnu[3] = {0, 0, 0};
        for (int m = 0; m < 3; m++) {
            pf_cross(n, dp + 3 * m, a);
            dA += 0.5 * dot3(a, dx + 3 * (size_t)t[m]);
        }
        if (mode != FROZEN) {
            double dN[3];
            pf_cross(ddp + 3, dp + 6, dN);
            pf_cross(dp + 3, ddp + 6, b1);
            for (int d = 0; d < 3; d++) dN[d] += b1[d];
            double nd = dot3(n, dN);
            for (int d = 0; d < 3; d++) dnu[d] = mode * (dN[d] - n[d] * nd) / (2 * A);
        }
        double v = b->area_k * (J - 1) * (J - 1) * (J - 1);
        double dv = 3 * b->area_k * (J - 1) * (J - 1) * dA / r[R_A0];
        for (int m = 0; m < 3; m++) {
            double a1[3], a2[3], a3[3], *fm = out + 3 * (size_t)row[m];
            pf_cross(nu, dp + 3 * m, a1);
            pf_cross(dnu, dp + 3 * m, a2);
            pf_cross(nu, ddp + 3 * m, a3);
            for (int d = 0; d < 3; d++) fm[d] -= kfact * 0.5 * (dv * a1[d] + v * (a2[d] + a3[d]));
        }
    }
}

/* ---- as a force field (force_field.h) ---- */

static void biquadratic_ff_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                                 double *f, int want_jac)
{
    (void)o, (void)v, (void)want_jac; /* the state dforce reads is refreshed on every evaluation */
    pf_biquadratic *b = ff->state;
    biquadratic_force(b, x, f, &(pf_elem_range){.n = b->nelem});
}

static void biquadratic_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                                  double kfact)
{
    (void)o;
    const pf_biquadratic *b = ff->state;
    biquadratic_dforce(b, dx, df, kfact, &(pf_elem_range){.n = b->nelem});
}

/* ---- its elements, for blocks (decompose.c) ---- */

static uint32_t biquadratic_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 3;
    return ((const pf_biquadratic *)ff->state)->nelem;
}

static void biquadratic_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    memcpy(nodes, ((const pf_biquadratic *)ff->state)->tri + 3 * (size_t)e, 3 * sizeof *nodes);
}

static void biquadratic_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x,
                                       const double *v, double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v, (void)want_jac;
    biquadratic_force(ff->state, x, out, r);
}

static void biquadratic_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx,
                                        double *out, double kfact, const pf_elem_range *r)
{
    (void)o;
    biquadratic_dforce(ff->state, dx, out, kfact, r);
}

static int biquadratic_ff_register_range(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r,
                                         uint32_t owner, pf_data_id *out)
{
    return pf_register_element_span(g, ((const pf_biquadratic *)ff->state)->state, STATE_STRIDE, r, owner, out);
}

/* the elements' state, which the force task writes and df reads */
static int biquadratic_ff_register(pf_graph *g, pf_force_field *ff, uint32_t owner)
{
    pf_biquadratic *b = ff->state;
    return pf_graph_data(g, b->state, STATE_STRIDE * (size_t)b->nelem * sizeof(double), owner, NULL, &ff->dcache);
}

static double biquadratic_ff_cost(const pf_force_field *ff)
{
    return 150.0 * ((const pf_biquadratic *)ff->state)->nelem;
}

static double biquadratic_ff_df_cost(const pf_force_field *ff)
{
    return 120.0 * ((const pf_biquadratic *)ff->state)->nelem;
}

/* the triangles desc[0 .. n) removed, SOFA's way (force_field.h) */
static void biquadratic_ff_remove_elements(pf_force_field *ff, const uint32_t *desc, uint32_t n)
{
    pf_biquadratic *b = ff->state;
    pf_remove_slots(b->tri, 3 * sizeof *b->tri, b->nelem, desc, n);
    pf_remove_slots(b->rest, REST_STRIDE * sizeof *b->rest, b->nelem, desc, n);
    pf_remove_slots(b->state, STATE_STRIDE * sizeof *b->state, b->nelem, desc, n);
    b->nelem -= n;
}

static void biquadratic_ff_destroy(void *state)
{
    biquadratic_free(state);
    pf_free(state);
}

const pf_force_field_ops pf_biquadratic_springs_force_field = {
    .name = "biquadratic springs",
    .force = biquadratic_ff_force,
    .dforce = biquadratic_ff_dforce,
    .elements = biquadratic_ff_elements,
    .element = biquadratic_ff_element,
    .force_range = biquadratic_ff_force_range,
    .dforce_range = biquadratic_ff_dforce_range,
    .register_range = biquadratic_ff_register_range,
    .register_data = biquadratic_ff_register,
    .cost = biquadratic_ff_cost,
    .df_cost = biquadratic_ff_df_cost,
    .df_reads_x = 0,
    .destroy = biquadratic_ff_destroy,
    .remove_elements = biquadratic_ff_remove_elements,
};

/* ---- the public calls ---- */

pf_biquadratic_springs_def pf_biquadratic_springs_default_def(void)
{
    return (pf_biquadratic_springs_def){
        .young_modulus = 1000, .poisson_ratio = 0.3, .angular_springs = 1, .compressible = 1};
}

int pf_world_add_biquadratic_springs(pf_world *w, pf_object_id id, const pf_biquadratic_springs_def *def,
                                     pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_biquadratic_springs";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_positive(def->young_modulus, fn, "def.young_modulus"));
    if (!(def->poisson_ratio > -1 && def->poisson_ratio < 1))
        return pf_error(PF_EINVAL, "%s: def.poisson_ratio must be in (-1, 1), got %g", fn, def->poisson_ratio);
    if (def->ntriangles == 0) return pf_error(PF_EINVAL, "%s: def.ntriangles is 0: no triangles", fn);
    PF_TRY(pf_check_given(def->triangles, fn, "def.triangles"));
    PF_TRY(pf_check_size(def->ntriangles, (3 + REST_STRIDE + STATE_STRIDE) * sizeof(double), fn, "def.ntriangles"));
    pf_object *o = w->obj.v[id.index];
    PF_TRY(pf_object_check_points(o, fn, "triangle springs act on points"));
    for (uint32_t k = 0; k < 3 * def->ntriangles; k++)
        if (def->triangles[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: def.triangles[%u] = %u: point out of range (object %u has %u points)",
                            fn, k, def->triangles[k], id.index, o->n);
    pf_biquadratic *b = pf_calloc(1, sizeof *b);
    if (!b) return pf_error(PF_ENOMEM, "out of memory");
    int rc = biquadratic_init(b, o, def, fn);
    if (rc || (rc = pf_object_add_force_field(w, o, PF_FORCE_BIQUADRATIC_SPRINGS, b, out)))
        biquadratic_ff_destroy(b);
    return rc;
}
