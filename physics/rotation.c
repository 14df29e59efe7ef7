/* Small 3-vector, 3x3-matrix and unit-quaternion helpers of the rigid bodies and their mappings. */
#include "rotation.h"

#include <math.h>

void pf_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

void pf_mat3_vec(const double M[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++) out[i] = M[3 * i] * v[0] + M[3 * i + 1] * v[1] + M[3 * i + 2] * v[2];
}

void pf_mat3_rotate_tensor(const double R[9], const double A[9], double out[9])
{
    double RA[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) RA[3 * i + j] = R[3 * i] * A[j] + R[3 * i + 1] * A[3 + j] + R[3 * i + 2] * A[6 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = RA[3 * i] * R[3 * j] + RA[3 * i + 1] * R[3 * j + 1] + RA[3 * i + 2] * R[3 * j + 2];
}

double pf_mat3_inverse(const double A[9], double out[9])
{
    double c[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                   A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                   A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    double det = A[0] * c[0] + A[1] * c[3] + A[2] * c[6];
    if (det == 0) return 0;
    for (int i = 0; i < 9; i++) out[i] = c[i] / det;
    return det;
}

void pf_quat_to_mat(const double q[4], double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z);
    R[1] = 2 * (x * y - w * z);
    R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);
    R[4] = 1 - 2 * (x * x + z * z);
    R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);
    R[7] = 2 * (y * z + w * x);
    R[8] = 1 - 2 * (x * x + y * y);
}

int pf_quat_normalize(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n)) return 0;
    for (int i = 0; i < 4; i++) q[i] /= n;
    return 1;
}

void pf_quat_integrate(double q[4], const double omega[3], double h)
{
    double wn = sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
    if (wn == 0) return;
    /* exact exponential map of a constant angular velocity over the step: no first-order drift off the unit
     * sphere, only rounding, which the renormalisation removes */
    double half = 0.5 * h * wn, s = sin(half) / wn;
    double d[4] = {cos(half), s * omega[0], s * omega[1], s * omega[2]};
    double r[4] = {d[0] * q[0] - d[1] * q[1] - d[2] * q[2] - d[3] * q[3],
                   d[0] * q[1] + d[1] * q[0] + d[2] * q[3] - d[3] * q[2],
                   d[0] * q[2] - d[1] * q[3] + d[2] * q[0] + d[3] * q[1],
                   d[0] * q[3] + d[1] * q[2] - d[2] * q[1] + d[3] * q[0]};
    for (int i = 0; i < 4; i++) q[i] = r[i];
    pf_quat_normalize(q);
}
