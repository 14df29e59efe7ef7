/* Strain-energy functions of the hyperelastic tetrahedra (fem_hyperelastic.c), SOFA's materials of
 * TetrahedronHyperelasticityFEMForceField (material/ headers): each written on the invariants I1 = tr C,
 * I2 = (I1^2 - tr C^2) / 2 and J = det F of the right Cauchy-Green tensor C = F^T F, with its first and
 * second partial derivatives, from which the element takes its stress and its tangent. */
#ifndef PF_PHYSICS_HYPERELASTIC_MATERIALS_H
#define PF_PHYSICS_HYPERELASTIC_MATERIALS_H

#include "physflow/physics.h"

/* W(I1, I2, J) per unit rest volume (J/m^3) and its partial derivatives */
typedef struct pf_hyper_derivs {
    double w;
    double w1, w2, wj;
    double w11, w22, wjj, w12, w1j, w2j;
} pf_hyper_derivs;

/* W and its derivatives for material m with parameters p (pf_hyperelastic_parameter_count of them) at (I1,
 * I2, J); J > 0 (J <= 0, an inverted element, gives what ln and pow give: not finite values) */
void pf_hyper_material_derivs(pf_hyperelastic_material m, const double *p, double I1, double I2, double J,
                              pf_hyper_derivs *d);

/* Ogden's isochoric term (SOFA's Ogden.h, one term: mu, alpha, k0), which is no function of I1, I2:
 * W_iso = mu / alpha^2 (J^(-alpha/3) tr C^(alpha/2) - 3), on the eigenvalues lam_i (columns v_i of V) of C */
typedef struct pf_ogden_state {
    double lam[3], V[9];
    double ca1[9]; /* C^(alpha/2 - 1) */
    double fj, tr; /* J^(-alpha/3), tr C^(alpha/2) */
    double w;      /* W_iso */
} pf_ogden_state;

/* the state at F (C = F^T F, J = det F > 0) */
void pf_ogden_state_at(const double *p, const double F[9], double J, pf_ogden_state *s);
/* S += 2 dW_iso/dC; dS += its variation for dC (row-major 3x3; Cinv = C^-1) */
void pf_ogden_stress(const double *p, const pf_ogden_state *s, const double Cinv[9], double S[9]);
void pf_ogden_stress_variation(const double *p, const pf_ogden_state *s, const double Cinv[9],
                               const double dC[9], double dS[9]);

#endif
