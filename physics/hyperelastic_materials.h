/* Strain-energy functions of the hyperelastic tetrahedra (fem_hyperelastic.c), SOFA's materials of
 * TetrahedronHyperelasticityFEMForceField (material/ headers): each written on the invariants I1 = tr C,
 * I2 = (I1^2 - tr C^2) / 2 and J = det F of the right Cauchy-Green tensor C = F^T F, with its first and second
 * partial derivatives, from which the element takes its stress and its tangent. */
#ifndef PF_PHYSICS_HYPERELASTIC_MATERIALS_H
#define PF_PHYSICS_HYPERELASTIC_MATERIALS_H

#include "physflow/physics.h"

/* W(I1, I2, J) per unit rest volume (J/m^3) and its partial derivatives */
typedef struct pf_hyper_derivs {
    double w;
    double w1, w2, wj;
    double w11, w22, wjj, w12, w1j, w2j;
} pf_hyper_derivs;

/* W and its derivatives for material m with parameters p (pf_hyperelastic_parameter_count of them) at (I1, I2,
 * J); J > 0 (J <= 0, an inverted element, gives what ln and pow give: not finite values) */
void pf_hyper_material_derivs(pf_hyperelastic_material m, const double *p, double I1, double I2, double J,
                              pf_hyper_derivs *d);

#endif
