/* Springs (SOFA StiffSpringForceField): forces with damping along the spring, and the stiffness blocks that the
 * implicit solver's matrix-free product uses (Baraff & Witkin 1998 §5). */
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
    if (!s->s || !s->jac) {
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
    pf_free(s->s);
    pf_free(s->jac);
    s->s = NULL;
    s->jac = NULL;
}

void pf_springs_force(const pf_springset *s, const double *xa, const double *xb, const double *va,
                      const double *vb, double *fa, double *fb, int want_jac)
{
    for (uint32_t k = 0; k < s->n; k++) {
        const pf_spring *sp = &s->s[k];
        size_t ia = 3 * (size_t)sp->a, ib = 3 * (size_t)sp->b;
        double u[3] = {xb[ib] - xa[ia], xb[ib + 1] - xa[ia + 1], xb[ib + 2] - xa[ia + 2]};
        double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        double *J = s->jac + 6 * (size_t)k;
        if (l < 1e-12) { /* coincident points: no direction, no force */
            if (want_jac) memset(J, 0, 6 * sizeof *J);
            continue;
        }
        double inv = 1.0 / l;
        u[0] *= inv;
        u[1] *= inv;
        u[2] *= inv;
        double dv = (vb[ib] - va[ia]) * u[0] + (vb[ib + 1] - va[ia + 1]) * u[1] + (vb[ib + 2] - va[ia + 2]) * u[2];
        double mag = sp->stiffness * (l - sp->rest_length) + sp->damping * dv;
        for (int c = 0; c < 3; c++) {
            fa[ia + c] += mag * u[c];
            fb[ib + c] -= mag * u[c];
        }
        if (want_jac) {
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
}

void pf_springs_dforce(const pf_springset *s, const double *dxa, const double *dxb, double *dfa, double *dfb,
                       double kfact)
{
    for (uint32_t k = 0; k < s->n; k++) {
        const pf_spring *sp = &s->s[k];
        size_t ia = 3 * (size_t)sp->a, ib = 3 * (size_t)sp->b;
        const double *J = s->jac + 6 * (size_t)k;
        double d0 = dxb[ib] - dxa[ia], d1 = dxb[ib + 1] - dxa[ia + 1], d2 = dxb[ib + 2] - dxa[ia + 2];
        double g0 = kfact * (J[0] * d0 + J[3] * d1 + J[5] * d2);
        double g1 = kfact * (J[3] * d0 + J[1] * d1 + J[4] * d2);
        double g2 = kfact * (J[5] * d0 + J[4] * d1 + J[2] * d2);
        dfa[ia] += g0;
        dfa[ia + 1] += g1;
        dfa[ia + 2] += g2;
        dfb[ib] -= g0;
        dfb[ib + 1] -= g1;
        dfb[ib + 2] -= g2;
    }
}
