/* SOFA's hyperelastic materials (Sofa/Component/SolidMechanics/FEM/HyperElastic/.../material/ headers) as
 * strain energies W(I1, I2, J) and their derivatives (hyperelastic_materials.h); the stress S = 2 dW/dC and
 * its variation follow from them in fem_hyperelastic.c, the same for every material. */
#include "hyperelastic_materials.h"
#include "rotation.h"

#include <math.h>
#include <string.h>

/* W += a x^p J^q, x = I1 (which 1) or I2 (which 2), p an integer in 0..5 */
static void term_pow(pf_hyper_derivs *d, int which, double a, double x, int p, double J, double q)
{
    double xp[6] = {1};
    for (int k = 1; k < 6; k++)
        xp[k] = xp[k - 1] * x;
    double jq = q == 0 ? 1 : pow(J, q);
    double w = a * xp[p] * jq;
    double wx = p ? a * p * xp[p - 1] * jq : 0;
    double wxx = p > 1 ? a * p * (p - 1) * xp[p - 2] * jq : 0;
    d->w += w;
    d->wj += q * w / J;
    d->wjj += q * (q - 1) * w / (J * J);
    if (which == 1) {
        d->w1 += wx;
        d->w11 += wxx;
        d->w1j += q * wx / J;
    } else {
        d->w2 += wx;
        d->w22 += wxx;
        d->w2j += q * wx / J;
    }
}

/* W += a ln J */
static void term_log(pf_hyper_derivs *d, double a, double J)
{
    d->w += a * log(J);
    d->wj += a / J;
    d->wjj -= a / (J * J);
}

/* W += a/2 (ln J)^2: the volumetric term of NeoHookean, MooneyRivlin and ArrudaBoyce */
static void term_log2(pf_hyper_derivs *d, double a, double J)
{
    double L = log(J);
    d->w += 0.5 * a * L * L;
    d->wj += a * L / J;
    d->wjj += a * (1 - L) / (J * J);
}

/* ArrudaBoyce's series in the isochoric I1 (J^-2/3 I1), SOFA's BoyceAndArruda.h with its chain length N = 8:
 * the coefficients 1/2, 1/(20 N), 11/(1050 N^2), 19/(7000 N^3), 519/(673750 N^4) */
static const double arruda_boyce_c[5] = {0.5, 1.0 / 160.0, 11.0 / (1050.0 * 8 * 8),
                                         19.0 / (7000.0 * 8 * 8 * 8), 519.0 / (673750.0 * 8 * 8 * 8 * 8)};

void pf_hyper_material_derivs(pf_hyperelastic_material m, const double *p, double I1, double I2, double J,
                              pf_hyper_derivs *d)
{
    memset(d, 0, sizeof *d);
    switch (m) {
    case PF_HYPER_ST_VENANT_KIRCHHOFF: {
        /* SOFA's STVenantKirchhoff.h: W = lambda/2 (tr E)^2 + mu E:E with E = (C - I)/2, written on I1, I2
         * (tr C^2 = I1^2 - 2 I2), plus the constant that makes W 0 at rest */
        double mu = p[0], lambda = p[1];
        term_pow(d, 1, mu / 4 + lambda / 8, I1, 2, J, 0);
        term_pow(d, 1, -(3 * lambda / 4 + mu / 2), I1, 1, J, 0);
        term_pow(d, 2, -mu / 2, I2, 1, J, 0);
        d->w += 9 * lambda / 8 + 3 * mu / 4;
        break;
    }
    case PF_HYPER_NEO_HOOKEAN: /* SOFA's NeoHookean.h (Bonet & Wood 2008): mu/2 (I1 - 3) - mu ln J + lambda/2
                                  ln^2 J */
        term_pow(d, 1, p[0] / 2, I1, 1, J, 0);
        d->w -= 1.5 * p[0];
        term_log(d, -p[0], J);
        term_log2(d, p[1], J);
        break;
    case PF_HYPER_MOONEY_RIVLIN:
        /* SOFA's MooneyRivlin.h: c1 (J^-2/3 I1 - 3) + c2 (J^-4/3 I2 - 3) + k0/2 ln^2 J (its getStrainEnergy
         * writes the exponents -2/3 and -4/3 in integers, which C++ makes 0; its stress and tangent, which
         * the simulation uses, are those of the exponents written here) */
        term_pow(d, 1, p[0], I1, 1, J, -2.0 / 3.0);
        term_pow(d, 2, p[1], I2, 1, J, -4.0 / 3.0);
        d->w -= 3 * (p[0] + p[1]);
        term_log2(d, p[2], J);
        break;
    case PF_HYPER_ARRUDA_BOYCE: {
        /* SOFA's BoyceAndArruda.h: mu sum_i c_i ((J^-2/3 I1)^i - 3^i) + k0/2 ln^2 J */
        double three = 1;
        for (int i = 1; i <= 5; i++) {
            three *= 3;
            term_pow(d, 1, p[0] * arruda_boyce_c[i - 1], I1, i, J, -2.0 * i / 3.0);
            d->w -= p[0] * arruda_boyce_c[i - 1] * three;
        }
        term_log2(d, p[1], J);
        break;
    }
    case PF_HYPER_OGDEN: /* the volumetric term here; the isochoric one on C's eigenvalues (pf_ogden_*) */
        term_log2(d, p[2], J);
        break;
    default:
        break;
    }
}

void pf_ogden_state_at(const double *p, const double F[9], double J, pf_ogden_state *s)
{
    double U[9], sv[3], a = 0.5 * p[1];
    pf_mat3_svd(F, U, sv, s->V); /* F = U diag(sv) V^T: C = V diag(sv^2) V^T */
    s->tr = 0;
    double f[3];
    for (int i = 0; i < 3; i++) {
        s->lam[i] = sv[i] * sv[i];
        s->tr += pow(s->lam[i], a);
        f[i] = pow(s->lam[i], a - 1);
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double m = 0;
            for (int i = 0; i < 3; i++)
                m += f[i] * s->V[3 * r + i] * s->V[3 * c + i];
            s->ca1[3 * r + c] = m;
        }
    s->fj = pow(J, -p[1] / 3);
    s->w = p[0] / (p[1] * p[1]) * (s->fj * s->tr - 3);
}

/* S_iso = mu/alpha J^(-alpha/3) (C^(alpha/2 - 1) - tr C^(alpha/2) C^-1 / 3), as SOFA's deriveSPKTensor */
void pf_ogden_stress(const double *p, const pf_ogden_state *s, const double Cinv[9], double S[9])
{
    double k = p[0] / p[1] * s->fj;
    for (int q = 0; q < 9; q++)
        S[q] += k * (s->ca1[q] - s->tr / 3 * Cinv[q]);
}

/* The derivative of f(C) = C^(alpha/2 - 1) along dC, spectrally: sum_ij th_ij (v_i.dC v_j) v_i v_j^T with
 * th_ii = f'(lam_i) and th_ij the divided difference (f(lam_i) - f(lam_j)) / (lam_i - lam_j), or f' at their
 * mean where they (nearly) coincide; then the product rule on S_iso's factors (dJ^(-alpha/3) = -alpha/6
 * J^(-alpha/3) C^-1:dC, d tr C^(alpha/2) = alpha/2 C^(alpha/2 - 1):dC, dC^-1 = -C^-1 dC C^-1). */
void pf_ogden_stress_variation(const double *p, const pf_ogden_state *s, const double Cinv[9],
                               const double dC[9], double dS[9])
{
    double a = 0.5 * p[1], f[3], th[3][3], h[3][3];
    const double *V = s->V;
    for (int i = 0; i < 3; i++)
        f[i] = pow(s->lam[i], a - 1);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double li = s->lam[i], lj = s->lam[j];
            if (fabs(li - lj) > 1e-6 * fmax(li, lj))
                th[i][j] = (f[i] - f[j]) / (li - lj);
            else
                th[i][j] = (a - 1) * pow(0.5 * (li + lj), a - 2);
            /* h_ij = v_i . dC v_j */
            double m = 0;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    m += V[3 * r + i] * dC[3 * r + c] * V[3 * c + j];
            h[i][j] = m;
        }
    double dca1[9], T[9], CdCC[9], cinvdc = 0, ca1dc = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double m = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    m += th[i][j] * h[i][j] * V[3 * r + i] * V[3 * c + j];
            dca1[3 * r + c] = m;
        }
    for (int q = 0; q < 9; q++) {
        cinvdc += Cinv[q] * dC[q];
        ca1dc += s->ca1[q] * dC[q];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            T[3 * i + j] = dC[3 * i] * Cinv[j] + dC[3 * i + 1] * Cinv[3 + j] + dC[3 * i + 2] * Cinv[6 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            CdCC[3 * i + j] = Cinv[3 * i] * T[j] + Cinv[3 * i + 1] * T[3 + j] + Cinv[3 * i + 2] * T[6 + j];
    double k = p[0] / p[1], dfj = -p[1] / 6 * s->fj * cinvdc, dtr = a * ca1dc;
    for (int q = 0; q < 9; q++)
        dS[q] += k * (dfj * (s->ca1[q] - s->tr / 3 * Cinv[q]) +
                      s->fj * (dca1[q] - dtr / 3 * Cinv[q] + s->tr / 3 * CdCC[q]));
}
