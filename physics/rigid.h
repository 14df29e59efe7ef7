/* Rigid bodies (6 DOF) inside the world's object layout. A rigid object has 2 "points": point 0 is the linear
 * part (x: centre of mass, v: its velocity, f: force), point 1 the angular part (v: angular velocity omega in the
 * world frame, f: torque about the com; its x stays 0). The orientation, a unit quaternion (w, x, y, z), follows
 * in x at PF_RIGID_QUAT (o->xextra = 4), so every task that reads or writes x sees it, and the state hash covers
 * it. Mass matrix: blocks m I and I_w = R I_body R^T. */
#ifndef PF_PHYSICS_RIGID_H
#define PF_PHYSICS_RIGID_H

#include "rotation.h"
#include "world.h"

enum { PF_RIGID_QUAT = 6, PF_RIGID_XLEN = 10 };

/* R of the orientation held in x (inline: the surfaces' rigid mapping reads it without depending on rigid.c,
 * which builds the shape surfaces) */
static inline void pf_rigid_rotation(const double *x, double R[9])
{
    pf_quat_to_mat(x + PF_RIGID_QUAT, R);
}
/* world inertia I_w = R I_body R^T and its inverse at the orientation held in x */
void pf_rigid_world_inertia(const pf_object *o, const double *x, double Iw[9], double Iw_inv[9]);
/* f = (m g, 0): gravity acts on the com and has no torque */
void pf_rigid_force(const pf_object *o, const double g[3], double *f);
/* implicit rhs: b = h f - h rM M v (no internal stiffness) */
void pf_rigid_rhs(const pf_object *o, double h, double rm, const double *f, const double *v, double *b);
/* q = mfact M p */
void pf_rigid_matvec(const pf_object *o, double mfact, const double *p, double *q);
/* symplectic Euler: v += h M^-1 f, then the com moves by h v and the orientation rotates (see rigid.c) */
void pf_rigid_integrate_explicit(const pf_object *o, double h, const double *f, double *v, double *x);
/* implicit Euler: v += dv, then the same position update */
void pf_rigid_integrate_implicit(const pf_object *o, double h, const double *dv, double *v, double *x);

#endif
