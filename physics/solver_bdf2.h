/* BDF2, the backward differentiation formula of order 2 (SOFA BDFOdeSolver order="2"), as a variant of the implicit
 * solver's step (solver_implicit.c): each object keeps its previous step's state (pf_object.xb, vb), which the
 * right-hand side and the position update read. */
#ifndef PF_PHYSICS_SOLVER_BDF2_H
#define PF_PHYSICS_SOLVER_BDF2_H

#include "world.h"

/* the history vectors of o (zero, no history yet) when it has none; PF_ENOMEM */
int pf_bdf2_prepare(pf_object *o);
/* the factor of h f in the step about to run: 2/3 h with a history, h (backward Euler, the first step) without */
double pf_bdf2_beta(const pf_object *o, double h);
/* b += M (v - vb) / 3 + beta K (x - xb) / 3, the terms the previous step adds to the step's right-hand side
 * (nothing without a history); tmp: 3n doubles of scratch */
void pf_bdf2_rhs_history(const pf_object *o, double beta, const double *x, const double *v, double *tmp, double *b);
/* x_{n+1} = x_n + (x_n - xb) / 3 + 2/3 h v_{n+1} (x_n + h v_{n+1} without a history), fixed points left where they
 * are; xb = x_n, and from now on o has a history. v is v_{n+1}; the caller saved v_n in vb. */
void pf_bdf2_positions(pf_object *o, double h, const double *v, double *x);

#endif
