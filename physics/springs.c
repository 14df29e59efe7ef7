/* Springs (SOFA StiffSpringForceField): forces with damping along the spring, and the stiffness blocks that the
 * implicit solver's matrix-free product uses (Baraff & Witkin 1998 §5). */
#include "interaction.h"
#include "world.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

int pf_springset_init(pf_springset *s, uint32_t oa, uint32_t ob, const pf_spring *springs, uint32_t n,
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
        pf_springset_free(s);
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

void pf_springset_free(pf_springset *s)
{
    const pf_interaction_ops *ops = pf_interaction_of(s);
    if (ops->destroy) ops->destroy(s);
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

void pf_springs_force(const pf_springset *s, const double *xa, const double *xb, const double *va,
                      const double *vb, double *fa, double *fb, int want_jac)
{
    for (uint32_t k = 0; k < s->n; k++) {
        const pf_spring *sp = &s->s[k];
        size_t ia = 3 * (size_t)sp->a, ib = 3 * (size_t)sp->b;
        double g[3];
        spring_force(sp, xa + ia, xb + ib, va + ia, vb + ib, g, want_jac ? s->jac + 6 * (size_t)k : NULL);
        for (int c = 0; c < 3; c++) {
            fa[ia + c] += g[c];
            fb[ib + c] -= g[c];
        }
    }
}

void pf_springs_dforce(const pf_springset *s, const double *dxa, const double *dxb, double *dfa, double *dfb,
                       double kfact)
{
    for (uint32_t k = 0; k < s->n; k++) {
        const pf_spring *sp = &s->s[k];
        size_t ia = 3 * (size_t)sp->a, ib = 3 * (size_t)sp->b;
        double d[3] = {dxb[ib] - dxa[ia], dxb[ib + 1] - dxa[ia + 1], dxb[ib + 2] - dxa[ia + 2]}, g[3];
        spring_dforce(s->jac + 6 * (size_t)k, d, kfact, g);
        for (int c = 0; c < 3; c++) {
            dfa[ia + c] += g[c];
            dfb[ib + c] -= g[c];
        }
    }
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
static void springs_gather(const pf_springset *s, int side, const pf_object *o, const void *out_datum, double *vec)
{
    (void)o;
    const double *out = (const double *)out_datum + (side ? 3 * (size_t)s->n : 0);
    for (uint32_t k = 0; k < s->n; k++) {
        size_t i = 3 * (size_t)(side ? s->s[k].b : s->s[k].a);
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
    .df_reads_x = 0,
    .destroy = NULL,
};

void pf_gather_links(const pf_object *o, void *const *outs, double *vec)
{
    for (uint32_t j = 0; j < o->nlinks; j++) {
        const pf_springset *s = o->links[j].s;
        pf_interaction_of(s)->gather(s, o->links[j].side, o, outs[j], vec);
    }
}
