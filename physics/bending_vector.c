/* Volino's bending vectors (SOFA FastTriangularBendingSprings; Volino and Magnenat-Thalmann, "Simple linear bending
 * stiffness in particle systems", SCA 2006): for every edge CD shared by exactly two triangles, CDA and DCB, the
 * bending vector R = a_A x_A + a_B x_B + a_C x_C + a_D x_D with weights fixed at rest,
 *   a_A = |N_B| / (|N_A| + |N_B|), a_B = |N_A| / (|N_A| + |N_B|), a_C = -|N_D| / (|N_C| + |N_D|), a_D = -|N_C| / (...)
 * (|N_P| twice the area of the triangle the other three points make with P as in SOFA: N_A = (A - C) x (A - D), ...),
 * which vanishes while the hinge is flat; the energy lambda/2 |R|^2, lambda = 2/3 (h_A + h_B) / (h_A^2 h_B^2) |CD| k
 * (h the rest heights of A and B over CD, k the bending stiffness). The force f_P = -lambda a_P R is linear in x:
 * dforce is the same map on dx. A hinge whose rest |AB| or |CD| is not above `min_distance` has no vector (SOFA), nor
 * one where A or B lies on the line CD (its lambda would be infinite). */
#include "world_guard.h"
#include "force_field.h"
#include "objects.h"
#include "rotation.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pf_bending_vector {
    uint32_t n;
    uint32_t *pts;  /* 4 per hinge: A B C D */
    double *coef;   /* 5 per hinge: a_A a_B a_C a_D lambda */
} pf_bending_vector;

static double norm3(const double *a)
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* |(p - q) x (p - r)| */
static double cross_norm(const double *p, const double *q, const double *r)
{
    double u[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]}, v[3] = {p[0] - r[0], p[1] - r[1], p[2] - r[2]}, c[3];
    pf_cross(u, v, c);
    return norm3(c);
}

/* one side of an edge in a triangle: the edge (lo, hi), the triangle, its corner opposite the edge */
typedef struct side {
    uint32_t lo, hi, tri, opposite;
} side;

static int cmp_side(const void *a, const void *b)
{
    const side *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return x->tri < y->tri ? -1 : x->tri > y->tri;
}

/* the hinges of the triangles (edges of exactly two triangles, in the order of their (lo, hi)) with their rest
 * weights; a hinge too short or too narrow is left out, as SOFA leaves it */
static int build_hinges(pf_bending_vector *b, const double *x, const uint32_t *tris, uint32_t nt, double k,
                        double min_distance)
{
    size_t ns = 3 * (size_t)nt;
    side *s = pf_malloc(ns * sizeof *s);
    b->pts = pf_malloc(ns / 2 * 4 * sizeof *b->pts + 1);
    b->coef = pf_malloc(ns / 2 * 5 * sizeof *b->coef + 1);
    if (!s || !b->pts || !b->coef) {
        pf_free(s);
        return pf_error(PF_ENOMEM, "out of memory for the hinges of %u triangles", nt);
    }
    for (uint32_t t = 0; t < nt; t++)
        for (int c = 0; c < 3; c++) {
            uint32_t p = tris[3 * t + (c + 1) % 3], q = tris[3 * t + (c + 2) % 3];
            s[3 * (size_t)t + c] = (side){p < q ? p : q, p < q ? q : p, t, tris[3 * t + c]};
        }
    qsort(s, ns, sizeof *s, cmp_side);
    double eps2 = min_distance * min_distance;
    for (size_t i = 0; i < ns;) {
        size_t j = i;
        while (j < ns && s[j].lo == s[i].lo && s[j].hi == s[i].hi) j++;
        if (j - i == 2) {
            uint32_t A = s[i].opposite, B = s[i + 1].opposite, C = s[i].lo, D = s[i].hi;
            const double *pa = x + 3 * (size_t)A, *pb = x + 3 * (size_t)B, *pc = x + 3 * (size_t)C,
                         *pd = x + 3 * (size_t)D;
            double ab[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]},
                   cd[3] = {pd[0] - pc[0], pd[1] - pc[1], pd[2] - pc[2]};
            double l = norm3(cd);
            double nA = cross_norm(pa, pc, pd), nB = cross_norm(pb, pd, pc), nC = cross_norm(pc, pb, pa),
                   nD = cross_norm(pd, pa, pb);
            /* the heights of A and B over CD: twice their triangles' areas over |CD| */
            double ha = l > 0 ? nA / l : 0, hb = l > 0 ? nB / l : 0;
            if (ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2] > eps2 && l * l > eps2 && ha > 0 && hb > 0 &&
                nC + nD > 0) {
                uint32_t *p = b->pts + 4 * (size_t)b->n;
                double *c = b->coef + 5 * (size_t)b->n;
                p[0] = A, p[1] = B, p[2] = C, p[3] = D;
                c[0] = nB / (nA + nB);
                c[1] = nA / (nA + nB);
                c[2] = -nD / (nC + nD);
                c[3] = -nC / (nC + nD);
                c[4] = 2.0 / 3.0 * (ha + hb) / (ha * ha * hb * hb) * l * k;
                b->n++;
            }
        }
        i = j;
    }
    pf_free(s);
    return PF_OK;
}

/* out += scale * (-lambda a_P R(y)) over the hinges r picks (rows: r->rows) */
static void bending_apply(const pf_bending_vector *b, const double *y, double scale, double *out,
                          const pf_elem_range *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t e = pf_range_elem(r, i), rb[4];
        const uint32_t *p = b->pts + 4 * (size_t)e, *row = pf_range_rows(r, i, p, 4, rb);
        const double *c = b->coef + 5 * (size_t)e;
        double R[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++)
            for (int d = 0; d < 3; d++) R[d] += c[k] * y[3 * (size_t)p[k] + d];
        for (int k = 0; k < 4; k++)
            for (int d = 0; d < 3; d++) out[3 * (size_t)row[k] + d] -= scale * c[4] * c[k] * R[d];
    }
}

/* ---- as a force field (force_field.h) ---- */

static void bending_ff_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                             double *f, int want_jac)
{
    (void)o, (void)v, (void)want_jac;
    const pf_bending_vector *b = ff->state;
    bending_apply(b, x, 1.0, f, &(pf_elem_range){.n = b->n});
}

static void bending_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                              double kfact)
{
    (void)o;
    const pf_bending_vector *b = ff->state;
    bending_apply(b, dx, kfact, df, &(pf_elem_range){.n = b->n});
}

static uint32_t bending_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 4;
    return ((const pf_bending_vector *)ff->state)->n;
}

static void bending_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    memcpy(nodes, ((const pf_bending_vector *)ff->state)->pts + 4 * (size_t)e, 4 * sizeof *nodes);
}

static void bending_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                                   double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v, (void)want_jac;
    bending_apply(ff->state, x, 1.0, out, r);
}

static void bending_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx, double *out,
                                    double kfact, const pf_elem_range *r)
{
    (void)o;
    bending_apply(ff->state, dx, kfact, out, r);
}

static double bending_ff_cost(const pf_force_field *ff)
{
    return 30.0 * ((const pf_bending_vector *)ff->state)->n;
}

static void bending_ff_destroy(void *state)
{
    pf_bending_vector *b = state;
    pf_free(b->pts);
    pf_free(b->coef);
    pf_free(b);
}

const pf_force_field_ops pf_bending_vector_force_field = {
    .name = "bending vectors",
    .force = bending_ff_force,
    .dforce = bending_ff_dforce,
    .elements = bending_ff_elements,
    .element = bending_ff_element,
    .force_range = bending_ff_force_range,
    .dforce_range = bending_ff_dforce_range,
    .cost = bending_ff_cost,
    .df_cost = bending_ff_cost,
    .df_reads_x = 0,
    .destroy = bending_ff_destroy,
};

/* ---- the public calls ---- */

pf_bending_vectors_def pf_bending_vectors_default_def(void)
{
    return (pf_bending_vectors_def){.bending_stiffness = 1, .min_distance = 1e-6};
}

int pf_world_add_bending_vectors(pf_world *w, pf_object_id id, const pf_bending_vectors_def *def, uint32_t *hinges,
                                 pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_bending_vectors";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    if (!(def->bending_stiffness >= 0 && isfinite(def->bending_stiffness)))
        return pf_error(PF_EINVAL, "%s: def.bending_stiffness must be >= 0 and finite, got %g", fn,
                        def->bending_stiffness);
    if (!(def->min_distance >= 0 && isfinite(def->min_distance)))
        return pf_error(PF_EINVAL, "%s: def.min_distance must be >= 0 and finite, got %g", fn, def->min_distance);
    if (def->ntriangles == 0) return pf_error(PF_EINVAL, "%s: def.ntriangles is 0: no triangles", fn);
    PF_TRY(pf_check_given(def->triangles, fn, "def.triangles"));
    PF_TRY(pf_check_size(def->ntriangles, 12 * sizeof(double), fn, "def.ntriangles"));
    pf_object *o = w->obj.v[id.index];
    PF_TRY(pf_object_check_points(o, fn, "bending vectors act on points"));
    for (uint32_t k = 0; k < 3 * def->ntriangles; k++)
        if (def->triangles[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: def.triangles[%u] = %u: point out of range (object %u has %u points)",
                            fn, k, def->triangles[k], id.index, o->n);
    pf_bending_vector *b = pf_calloc(1, sizeof *b);
    if (!b) return pf_error(PF_ENOMEM, "out of memory");
    int rc = build_hinges(b, o->x, def->triangles, def->ntriangles, def->bending_stiffness, def->min_distance);
    if (!rc && hinges) *hinges = b->n;
    /* no hinge (no edge of two triangles): no field */
    if (rc || b->n == 0) {
        bending_ff_destroy(b);
        return rc;
    }
    if ((rc = pf_object_add_force_field(w, o, PF_FORCE_BENDING_VECTORS, b, out))) bending_ff_destroy(b);
    return rc;
}
