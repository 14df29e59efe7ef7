/* Beams of rigid frames (SOFA MechanicalObject<Rigid3d> of several frames + BeamFEMForceField). A beam object has
 * 2 points per frame: point 2k is frame k's position (v: linear velocity), point 2k+1 its angular part (x stays
 * 0, v: angular velocity in the world frame), so that v holds the 6 degrees of freedom of each frame in order.
 * The frames' orientations, unit quaternions (w, x, y, z), follow in x from PF_BEAM_QUAT(frames) (o->xextra =
 * 4 frames): every generic reader of x (state hash, checkpoints, fault check) covers them. The beam is stepped
 * by one task per step (beam_step.c): forces, assembly of its banded 6N x 6N system, Cholesky, integration. */
#ifndef PF_PHYSICS_BEAM_H
#define PF_PHYSICS_BEAM_H

#include "world.h"

/* where frame 0's quaternion starts in x */
#define PF_BEAM_QUAT(frames) (6 * (size_t)(frames))

/* One element: SOFA's Euler-Bernoulli beam, corotational in the frame its node a carries. */
typedef struct pf_beam_element {
    uint32_t a, b;
    double length;    /* rest length, m */
    double ca[9];     /* the element's rest frame in node a's body frame: E = R_a ca (columns: axis, y, z) */
    double cb[9];     /* the same carried by node b: E_b = R_b cb; E_b = E at rest */
    double k[144];    /* local stiffness (SOFA BeamFEMForceField::computeStiffness), dofs (u_a, th_a, u_b, th_b) */
} pf_beam_element;

typedef struct pf_beam {
    uint32_t frames, nelem;
    pf_beam_element *elem;
    double *mass;     /* per frame, kg */
    double *inertia;  /* 9 per frame: body-frame inertia tensor, kg·m² */
    uint32_t bw;      /* half bandwidth of the 6N system */
    double *band;     /* 6N x (bw + 1): the lower band of the system, row-major (row i holds columns i-bw..i) */
    double *rhs;      /* 6N */
    double *erot;     /* 9 per element: its current frame E, refreshed with the forces, read by the assembly */
} pf_beam;

void pf_beam_free(pf_beam *b);

/* beam_element.c: the local stiffness of an element of length L (SOFA's k_loc, phi = 0) */
void pf_beam_local_stiffness(double E, double nu, double r, double rin, double L, double k[144]);
/* f += the elastic forces and torques of element e at the frames' state (x positions of the 2N points, q the
 * quaternions), E receives its current frame */
void pf_beam_element_force(const pf_beam_element *e, const double *x, const double *q, double *f, double E[9]);
/* the rotation vector of R (axis times angle, angle in [0, pi]) */
void pf_rotation_log(const double R[9], double out[3]);

/* beam_step.c: records the step of a group made of one beam */
int pf_record_beam(pf_world *w, pf_group *gr, const pf_task_recorder *rec);

#endif
