/* The beam element of SOFA's BeamFEMForceField: a 12x12 Euler-Bernoulli stiffness in the element's frame
 * (computeStiffness, with SOFA's shear areas of 0, hence phi = 0), corotational in the frame its first node
 * carries (accumulateForceLarge): node a is the origin, its frame the reference; node b's displacement u and
 * rotation th are measured in it, and the local forces k (0, 0, u, th) are turned back to the world by that frame.
 * SOFA takes the node's own frame as the element's, so its beams must run along their nodes' x axes; here the
 * element's rest frame (x along the beam) is kept in each node's body frame (ca, cb), which is SOFA's frame when
 * the nodes' x axes run along the beam, and any orientation of the nodes otherwise. */
#include "beam.h"

#include "rotation.h"

#include <math.h>
#include <string.h>

void pf_beam_local_stiffness(double E, double nu, double r, double rin, double L, double k[144])
{
    double G = E / (2.0 * (1.0 + nu));
    double Iz = M_PI * (r * r * r * r - rin * rin * rin * rin) / 4.0, Iy = Iz, J = Iz + Iy;
    double A = M_PI * (r * r - rin * rin);
    double L2 = L * L, L3 = L2 * L, EIy = E * Iy, EIz = E * Iz;
#define K(i, j) k[12 * (i) + (j)]
    memset(k, 0, 144 * sizeof *k);
    K(6, 6) = K(0, 0) = E * A / L;
    K(7, 7) = K(1, 1) = 12.0 * EIz / L3;
    K(8, 8) = K(2, 2) = 12.0 * EIy / L3;
    K(9, 9) = K(3, 3) = G * J / L;
    K(10, 10) = K(4, 4) = 4.0 * EIy / L;
    K(11, 11) = K(5, 5) = 4.0 * EIz / L;
    K(4, 2) = -6.0 * EIy / L2;
    K(5, 1) = 6.0 * EIz / L2;
    K(6, 0) = -K(0, 0);
    K(7, 1) = -K(1, 1);
    K(7, 5) = -K(5, 1);
    K(8, 2) = -K(2, 2);
    K(8, 4) = -K(4, 2);
    K(9, 3) = -K(3, 3);
    K(10, 2) = K(4, 2);
    K(10, 4) = 2.0 * EIy / L;
    K(10, 8) = -K(4, 2);
    K(11, 1) = K(5, 1);
    K(11, 5) = 2.0 * EIz / L;
    K(11, 7) = -K(5, 1);
    for (int i = 0; i < 12; i++)
        for (int j = i + 1; j < 12; j++) K(i, j) = K(j, i);
#undef K
}

void pf_rotation_log(const double R[9], double out[3])
{
    /* the quaternion of R (Shepperd: from the largest of w, x, y, z), then axis x angle */
    double q[4], t = R[0] + R[4] + R[8];
    if (t >= R[0] && t >= R[4] && t >= R[8]) {
        double s = 2.0 * sqrt(1.0 + t);
        q[0] = 0.25 * s, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s, q[3] = (R[3] - R[1]) / s;
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s, q[1] = 0.25 * s, q[2] = (R[1] + R[3]) / s, q[3] = (R[2] + R[6]) / s;
    } else if (R[4] >= R[8]) {
        double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = 0.25 * s, q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s, q[2] = (R[5] + R[7]) / s, q[3] = 0.25 * s;
    }
    if (q[0] < 0) /* the shorter of the two rotations: angle in [0, pi] */
        for (int i = 0; i < 4; i++) q[i] = -q[i];
    double vn = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double scale = vn > 1e-12 ? 2.0 * atan2(vn, q[0]) / vn : 2.0 / q[0];
    for (int i = 0; i < 3; i++) out[i] = scale * q[i + 1];
}

/* C = A B (3x3) */
static void mul(const double A[9], const double B[9], double C[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* C = A^T B (3x3) */
static void mul_tn(const double A[9], const double B[9], double C[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

void pf_beam_element_force(const pf_beam_element *e, const double *x, const double *q, double *f, double E[9])
{
    double Ra[9], Rb[9], Eb[9], rel[9];
    pf_quat_to_mat(q + 4 * (size_t)e->a, Ra);
    pf_quat_to_mat(q + 4 * (size_t)e->b, Rb);
    mul(Ra, e->ca, E);
    mul(Rb, e->cb, Eb);
    const double *xa = x + 6 * (size_t)e->a, *xb = x + 6 * (size_t)e->b;
    double d[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    double depl[6]; /* node b's translation and rotation in E; node a's are 0 by construction */
    for (int i = 0; i < 3; i++) depl[i] = E[i] * d[0] + E[3 + i] * d[1] + E[6 + i] * d[2];
    depl[0] -= e->length;
    mul_tn(E, Eb, rel);
    pf_rotation_log(rel, depl + 3);
    double F[12];
    for (int i = 0; i < 12; i++) {
        double s = 0;
        for (int j = 0; j < 6; j++) s += e->k[12 * i + 6 + j] * depl[j];
        F[i] = s;
    }
    /* back to the world by E, with SOFA's sign: f = -K u */
    double *fa = f + 6 * (size_t)e->a, *fb = f + 6 * (size_t)e->b;
    for (int blk = 0; blk < 4; blk++) {
        double *t = (blk < 2 ? fa : fb) + 3 * (blk & 1);
        const double *l = F + 3 * blk;
        for (int i = 0; i < 3; i++) t[i] -= E[3 * i] * l[0] + E[3 * i + 1] * l[1] + E[3 * i + 2] * l[2];
    }
}
