/* SOFA's hyperelastic materials (Sofa/Component/SolidMechanics/FEM/HyperElastic/.../material/ headers) as strain
 * energies W(I1, I2, J) and their derivatives (hyperelastic_materials.h); the stress S = 2 dW/dC and its
 * variation follow from them in fem_hyperelastic.c, the same for every material. */
#include "hyperelastic_materials.h"

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
static const double arruda_boyce_c[5] = {0.5, 1.0 / 160.0, 11.0 / (1050.0 * 8 * 8), 19.0 / (7000.0 * 8 * 8 * 8),
                                         519.0 / (673750.0 * 8 * 8 * 8 * 8)};

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
    case PF_HYPER_NEO_HOOKEAN: /* SOFA's NeoHookean.h (Bonet & Wood 2008): mu/2 (I1 - 3) - mu ln J + lambda/2 ln^2 J */
        term_pow(d, 1, p[0] / 2, I1, 1, J, 0);
        d->w -= 1.5 * p[0];
        term_log(d, -p[0], J);
        term_log2(d, p[1], J);
        break;
    case PF_HYPER_MOONEY_RIVLIN:
        /* SOFA's MooneyRivlin.h: c1 (J^-2/3 I1 - 3) + c2 (J^-4/3 I2 - 3) + k0/2 ln^2 J (its getStrainEnergy
         * writes the exponents -2/3 and -4/3 in integers, which C++ makes 0; its stress and tangent, which the
         * simulation uses, are those of the exponents written here) */
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
    default:
        break;
    }
}
