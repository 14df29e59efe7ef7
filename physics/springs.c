/* Springs (SOFA StiffSpringForceField): forces with damping along the spring, and the stiffness blocks that the
 * implicit solver's matrix-free product uses (Baraff & Witkin 1998 §5). */
#include "world_guard.h"
#include "assembly.h"
#include "force_field.h"
#include "interaction.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

static void springset_free(pf_springset *s);

static int springset_init(pf_springset *s, uint32_t oa, uint32_t ob, const pf_spring *springs, uint32_t n,
                      const double *xa, const double *xb)
{
    memset(s, 0, sizeof *s);
    s->oa = oa;
    s->ob = ob;
    s->n = n;
    /* never empty: a datum of 0 bytes cannot be registered */
    s->s = pf_malloc((size_t)(n ? n : 1) * sizeof *s->s);
    s->jac = pf_calloc((size_t)n * 6 + 1, sizeof(double));
    /* interactions: per-spring outputs of the three phases (force, rhs, df), each 3n for a then 3n for b */
    if (oa != ob) s->out = pf_calloc(PF_PHASES * ((size_t)n * 6 + 1), sizeof(double));
    if (!s->s || !s->jac || (oa != ob && !s->out)) {
        springset_free(s);
        return pf_error(PF_ENOMEM, "out of memory for %u springs", n);
    }
    for (uint32_t k = 0; k < n; k++) {
        s->s[k] = springs[k];
        if (springs[k].rest_length < 0) {
            const double *a = xa + 3 * (size_t)springs[k].a, *b = xb + 3 * (size_t)springs[k].b;
            double d0 = b[0] - a[0], d1 = b[1] - a[1], d2 = b[2] - a[2];
            s->s[k].rest_length = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
        }
    }
    return PF_OK;
}

static void springset_free(pf_springset *s)
{
    pf_free(s->s);
    pf_free(s->jac);
    pf_free(s->out);
    s->s = NULL;
    s->jac = NULL;
    s->out = NULL;
}

/* One spring's force on its end a, g (the force on b is -g), and when jac its stiffness block J (6 values:
 * xx yy zz xy yz zx). pa, pb, va, vb: the ends' positions and velocities. */
static inline void spring_force(const pf_spring *sp, const double *pa, const double *pb, const double *va,
                                const double *vb, double g[3], double *J)
{
    double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (l < 1e-12) { /* coincident points: no direction, no force */
        g[0] = g[1] = g[2] = 0;
        if (J) memset(J, 0, 6 * sizeof *J);
        return;
    }
    double inv = 1.0 / l;
    u[0] *= inv;
    u[1] *= inv;
    u[2] *= inv;
    double dv = (vb[0] - va[0]) * u[0] + (vb[1] - va[1]) * u[1] + (vb[2] - va[2]) * u[2];
    double mag = sp->stiffness * (l - sp->rest_length) + sp->damping * dv;
    g[0] = mag * u[0];
    g[1] = mag * u[1];
    g[2] = mag * u[2];
    if (J) {
        /* K = k [ (1 - l0/l)(I - u u^T) + u u^T ]; the transverse term is clamped at 0 under compression so
         * that K stays negative semidefinite and the CG matrix SPD (Baraff & Witkin 1998 §5.2 drop it too) */
        double t = 1.0 - sp->rest_length * inv;
        if (t < 0) t = 0;
        double kt = sp->stiffness * t, kl = sp->stiffness - kt;
        J[0] = kt + kl * u[0] * u[0];
        J[1] = kt + kl * u[1] * u[1];
        J[2] = kt + kl * u[2] * u[2];
        J[3] = kl * u[0] * u[1];
        J[4] = kl * u[1] * u[2];
        J[5] = kl * u[2] * u[0];
    }
}

/* g = kfact J d: one spring's df on end a for the relative displacement d = dx_b - dx_a */
static inline void spring_dforce(const double *J, const double d[3], double kfact, double g[3])
{
    g[0] = kfact * (J[0] * d[0] + J[3] * d[1] + J[5] * d[2]);
    g[1] = kfact * (J[3] * d[0] + J[1] * d[1] + J[4] * d[2]);
    g[2] = kfact * (J[5] * d[0] + J[4] * d[1] + J[2] * d[2]);
}

/* K's blocks: per spring df_a = J (dx_b - dx_a), df_b = -df_a */
static void springs_assemble(const pf_springset *s, uint32_t base_a, uint32_t base_b, pf_blocks *k)
{
    for (uint32_t i = 0; i < s->n; i++)
        pf_blocks_add_pair(k, base_a + s->s[i].a, base_b + s->s[i].b, s->jac + 6 * (size_t)i);
}

/* The interaction forms write per-spring results into `out` (3n values for the a ends, then 3n for the b ends)
 * instead of adding into whole force vectors: the object's own task gathers them (pf_gather_links), so an
 * interaction of a few springs costs what its springs cost, not two vector-sized reductions. */
static void springs_force_out(const pf_springset *s, const double *xa, const double *xb, const double *va,
                              const double *vb, void *out_datum, int want_jac)
{
    double *out = out_datum, *oa = out, *ob = out + 3 * (size_t)s->n;
    for (uint32_t k = 0; k < s->n; k++) {
        const pf_spring *sp = &s->s[k];
        size_t ia = 3 * (size_t)sp->a, ib = 3 * (size_t)sp->b;
        double g[3];
        spring_force(sp, xa + ia, xb + ib, va + ia, vb + ib, g, want_jac ? s->jac + 6 * (size_t)k : NULL);
        for (int c = 0; c < 3; c++) {
            oa[3 * k + c] = g[c];
            ob[3 * k + c] = -g[c];
        }
    }
}

static void springs_dforce_out(const pf_springset *s, const double *dxa, const double *dxb, void *out_datum,
                              int phase, double kfact)
{
    (void)phase; /* the stiffness blocks are the same for every phase */
    double *out = out_datum, *oa = out, *ob = out + 3 * (size_t)s->n;
    for (uint32_t k = 0; k < s->n; k++) {
        const pf_spring *sp = &s->s[k];
        size_t ia = 3 * (size_t)sp->a, ib = 3 * (size_t)sp->b;
        double d[3] = {dxb[ib] - dxa[ia], dxb[ib + 1] - dxa[ia + 1], dxb[ib + 2] - dxa[ia + 2]}, g[3];
        spring_dforce(s->jac + 6 * (size_t)k, d, kfact, g);
        for (int c = 0; c < 3; c++) {
            oa[3 * k + c] = g[c];
            ob[3 * k + c] = -g[c];
        }
    }
}

/* vec += the side's per-spring results (springs always join two objects: side 0 or 1) */
static void springs_gather(const pf_springset *s, int side, const pf_object *o, const void *out_datum, double *vec,
                           const pf_point_filter *keep)
{
    (void)o;
    const double *out = (const double *)out_datum + (side ? 3 * (size_t)s->n : 0);
    for (uint32_t k = 0; k < s->n; k++) {
        uint32_t p = side ? s->s[k].b : s->s[k].a;
        if (!pf_point_kept(keep, p)) continue;
        size_t i = 3 * (size_t)p;
        vec[i] += out[3 * k];
        vec[i + 1] += out[3 * k + 1];
        vec[i + 2] += out[3 * k + 2];
    }
}

/* the stiffness blocks (djac) and the per-phase outputs (dout), slices of s->jac and s->out */
static int springs_register(pf_graph *g, pf_springset *s, uint32_t owner)
{
    size_t per = 6 * (size_t)s->n + 1;
    int rc = pf_graph_data(g, s->jac, per * sizeof(double), owner, NULL, &s->djac);
    for (int ph = 0; ph < PF_PHASES && !rc; ph++)
        rc = pf_graph_data(g, s->out + ph * per, per * sizeof(double), owner, NULL, &s->dout[ph]);
    return rc;
}

static double springs_cost(const pf_springset *s)
{
    return 20.0 * s->n;
}

const pf_interaction_ops pf_springs_interaction = {
    .name = "springs",
    .force = springs_force_out,
    .dforce = springs_dforce_out,
    .gather = springs_gather,
    .register_data = springs_register,
    .cost = springs_cost,
    .assemble = springs_assemble,
    .df_reads_x = 0,
    .destroy = springset_free,
};

/* ---- a spring set within one object as a force field (force_field.h) ---- */

/* spring k of range r: its index e, the offsets of its ends' values (ia, ib) and of their output rows (oa, ob) */
static inline const pf_spring *range_spring(const pf_springset *s, const pf_elem_range *r, uint32_t k, uint32_t *e,
                                            size_t *ia, size_t *ib, size_t *oa, size_t *ob)
{
    *e = pf_range_elem(r, k);
    const pf_spring *sp = &s->s[*e];
    *ia = 3 * (size_t)sp->a, *ib = 3 * (size_t)sp->b;
    *oa = 3 * (size_t)(r->rows ? r->rows[2 * (size_t)k] : sp->a - r->row_shift);
    *ob = 3 * (size_t)(r->rows ? r->rows[2 * (size_t)k + 1] : sp->b - r->row_shift);
    return sp;
}

/* within one object: f (rows per r) += the force of r's springs at (x, v) (force_field.h) */
static void springs_force_range(const pf_springset *s, const double *x, const double *v, double *f, int want_jac,
                                const pf_elem_range *r)
{
    for (uint32_t k = 0; k < r->n; k++) {
        uint32_t e;
        size_t ia, ib, oa, ob;
        const pf_spring *sp = range_spring(s, r, k, &e, &ia, &ib, &oa, &ob);
        double g[3];
        spring_force(sp, x + ia, x + ib, v + ia, v + ib, g, want_jac ? s->jac + 6 * (size_t)e : NULL);
        for (int c = 0; c < 3; c++) {
            f[oa + c] += g[c];
            f[ob + c] -= g[c];
        }
    }
}

static void springs_dforce_range(const pf_springset *s, const double *dx, double *df, double kfact,
                                 const pf_elem_range *r)
{
    for (uint32_t k = 0; k < r->n; k++) {
        uint32_t e;
        size_t ia, ib, oa, ob;
        range_spring(s, r, k, &e, &ia, &ib, &oa, &ob);
        double d[3] = {dx[ib] - dx[ia], dx[ib + 1] - dx[ia + 1], dx[ib + 2] - dx[ia + 2]}, g[3];
        spring_dforce(s->jac + 6 * (size_t)e, d, kfact, g);
        for (int c = 0; c < 3; c++) {
            df[oa + c] += g[c];
            df[ob + c] -= g[c];
        }
    }
}

static void springs_ff_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                             double *f, int want_jac)
{
    (void)o;
    const pf_springset *s = ff->state;
    springs_force_range(s, x, v, f, want_jac, &(pf_elem_range){.n = s->n});
}

static void springs_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                              double kfact)
{
    (void)o;
    const pf_springset *s = ff->state;
    springs_dforce_range(s, dx, df, kfact, &(pf_elem_range){.n = s->n});
}

/* ---- its springs as elements, for blocks (decompose.c) ---- */

static uint32_t springs_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 2;
    return ((const pf_springset *)ff->state)->n;
}

static void springs_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    const pf_spring *sp = &((const pf_springset *)ff->state)->s[e];
    nodes[0] = sp->a;
    nodes[1] = sp->b;
}

static void springs_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                                   double *out, int want_jac, const pf_elem_range *r)
{
    (void)o;
    springs_force_range(ff->state, x, v, out, want_jac, r);
}

static void springs_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx, double *out,
                                    double kfact, const pf_elem_range *r)
{
    (void)o;
    springs_dforce_range(ff->state, dx, out, kfact, r);
}

static int springs_ff_register_range(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r, uint32_t owner,
                                     pf_data_id *out)
{
    return pf_register_element_span(g, ((const pf_springset *)ff->state)->jac, 6, r, owner, out);
}

static void springs_ff_assemble(const pf_force_field *ff, const pf_object *o, uint32_t base, pf_blocks *k)
{
    (void)o;
    springs_assemble(ff->state, base, base, k);
}

/* the stiffness blocks, which the force task writes and df reads */
static int springs_ff_register(pf_graph *g, pf_force_field *ff, uint32_t owner)
{
    pf_springset *s = ff->state;
    return pf_graph_data(g, s->jac, 6 * (size_t)s->n * sizeof(double) + 8, owner, NULL, &ff->dcache);
}

static double springs_ff_cost(const pf_force_field *ff)
{
    return 15.0 * ((const pf_springset *)ff->state)->n;
}

static double springs_ff_df_cost(const pf_force_field *ff)
{
    return 6.0 * ((const pf_springset *)ff->state)->n;
}

/* the springs desc[0 .. n) removed, SOFA's way for edges (force_field.h) */
static void springs_ff_remove_elements(pf_force_field *ff, const uint32_t *desc, uint32_t n)
{
    pf_springset *s = ff->state;
    pf_remove_slots(s->s, sizeof *s->s, s->n, desc, n);
    pf_remove_slots(s->jac, 6 * sizeof *s->jac, s->n, desc, n);
    s->n -= n;
}

static void springs_ff_destroy(void *state)
{
    springset_free(state);
    pf_free(state);
}

const pf_force_field_ops pf_springs_force_field = {
    .name = "springs",
    .elements = springs_ff_elements,
    .element = springs_ff_element,
    .force_range = springs_ff_force_range,
    .dforce_range = springs_ff_dforce_range,
    .register_range = springs_ff_register_range,
    .force = springs_ff_force,
    .dforce = springs_ff_dforce,
    .register_data = springs_ff_register,
    .cost = springs_ff_cost,
    .df_cost = springs_ff_df_cost,
    .assemble = springs_ff_assemble,
    .df_reads_x = 0,
    .destroy = springs_ff_destroy,
    .remove_elements = springs_ff_remove_elements,
};

/* ---- the public calls ---- */

/* springs[0..n) of `fn`: ends a among na points, b among nb; messages name springs[k].field */
static int check_springs(const pf_spring *s, uint32_t n, uint32_t na, uint32_t nb, const char *fn)
{
    if (n > 0) PF_TRY(pf_check_given(s, fn, "springs"));
    PF_TRY(pf_check_size(n, sizeof *s, fn, "springs"));
    for (uint32_t k = 0; k < n; k++) {
        char f[64];
        if (s[k].a >= na)
            return pf_error(PF_EINVAL, "%s: springs[%u].a = %u: point out of range (the object has %u points)", fn, k,
                            s[k].a, na);
        if (s[k].b >= nb)
            return pf_error(PF_EINVAL, "%s: springs[%u].b = %u: point out of range (the object has %u points)", fn, k,
                            s[k].b, nb);
        snprintf(f, sizeof f, "springs[%u].stiffness", k);
        PF_TRY(pf_check_nonnegative(s[k].stiffness, fn, f));
        snprintf(f, sizeof f, "springs[%u].damping", k);
        PF_TRY(pf_check_nonnegative(s[k].damping, fn, f));
        snprintf(f, sizeof f, "springs[%u].rest_length", k);
        PF_TRY(pf_check_finite(s[k].rest_length, fn, f));
    }
    return PF_OK;
}

int pf_world_add_springs(pf_world *w, pf_object_id id, const pf_spring *springs, uint32_t n,
                         pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_springs";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    pf_object *o = w->obj.v[id.index];
    PF_TRY(pf_object_check_points(o, fn, "springs need points"));
    int rc = check_springs(springs, n, o->n, o->n, fn);
    if (rc) return rc;
    pf_springset *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory");
    if ((rc = springset_init(s, id.index, id.index, springs, n, o->x, o->x)) ||
        (rc = pf_object_add_force_field(w, o, PF_FORCE_SPRINGS, s, out)))
        springs_ff_destroy(s);
    return rc;
}

int pf_world_add_grid_springs(pf_world *w, pf_object_id id, double stiffness, double damping, uint32_t *count,
                              pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_grid_springs";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    pf_object *o = w->obj.v[id.index];
    if (o->grid[0] < 1) return pf_error(PF_EINVAL, "%s: object %u is not a regular grid", fn, id.index);
    PF_TRY(pf_check_nonnegative(stiffness, fn, "stiffness"));
    PF_TRY(pf_check_nonnegative(damping, fn, "damping"));
    int n0 = o->grid[0], n1 = o->grid[1], n2 = o->grid[2];
    /* lines along the 3 axes and both diagonals of the faces of the 3 planes */
    static const int off[9][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, -1, 0},
                                  {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};
    size_t cap = (size_t)o->n * 9;
    pf_spring *s = pf_malloc(cap * sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for grid springs");
    uint32_t m = 0;
    for (int k = 0; k < n2; k++)
        for (int j = 0; j < n1; j++)
            for (int i = 0; i < n0; i++)
                for (int t = 0; t < 9; t++) {
                    int a = i + off[t][0], b = j + off[t][1], c = k + off[t][2];
                    if (a < 0 || a >= n0 || b < 0 || b >= n1 || c < 0 || c >= n2) continue;
                    s[m++] = (pf_spring){(uint32_t)(i + n0 * (j + n1 * k)), (uint32_t)(a + n0 * (b + n1 * c)),
                                         stiffness, damping, -1.0};
                }
    int rc = pf_world_add_springs(w, id, s, m, out);
    pf_free(s);
    if (rc == PF_OK && count) *count = m;
    return rc;
}

int pf_world_add_interaction_springs(pf_world *w, pf_object_id oa, pf_object_id ob, const pf_spring *springs,
                                     uint32_t n, pf_interaction_id *out)
{
    static const char fn[] = "pf_world_add_interaction_springs";
    uint32_t a = oa.index, b = ob.index;
    PF_TRY(pf_world_check_pair(w, a, b, fn, "springs inside one object are added with pf_world_add_springs"));
    PF_TRY(pf_object_check_points(w->obj.v[a], fn, "interaction springs join points of objects of points"));
    PF_TRY(pf_object_check_points(w->obj.v[b], fn, "interaction springs join points of objects of points"));
    int rc = check_springs(springs, n, w->obj.v[a]->n, w->obj.v[b]->n, fn);
    if (rc) return rc;
    PF_TRY(pf_world_reserve_interaction(w, fn));
    pf_springset *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory");
    if ((rc = springset_init(s, a, b, springs, n, w->obj.v[a]->x, w->obj.v[b]->x))) {
        pf_free(s);
        return rc;
    }
    pf_world_push_interaction(w, s, out);
    return PF_OK;
}

