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

/* columns of a row-major 3x3 matrix */
static double col_dot(const double M[9], int p, int q)
{
    return M[p] * M[q] + M[3 + p] * M[3 + q] + M[6 + p] * M[6 + q];
}

/* columns p and q of M <- (c Mp - s Mq, s Mp + c Mq) */
static void col_rotate(double M[9], int p, int q, double c, double s)
{
    for (int r = 0; r < 9; r += 3) {
        double a = M[r + p], b = M[r + q];
        M[r + p] = c * a - s * b;
        M[r + q] = s * a + c * b;
    }
}

static double det3(const double M[9])
{
    return M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
           M[2] * (M[3] * M[7] - M[4] * M[6]);
}

void pf_mat3_svd(const double A[9], double U[9], double s[3], double V[9])
{
    /* one-sided Jacobi (Hestenes): rotate the columns of W = A V until they are orthogonal */
    double W[9];
    for (int i = 0; i < 9; i++) {
        W[i] = A[i];
        V[i] = (i % 4 == 0) ? 1.0 : 0.0;
    }
    static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int sweep = 0; sweep < 30; sweep++) {
        int rotated = 0;
        for (int k = 0; k < 3; k++) {
            int p = pairs[k][0], q = pairs[k][1];
            double alpha = col_dot(W, p, p), beta = col_dot(W, q, q), gamma = col_dot(W, q, p);
            if (!(fabs(gamma) > 1e-15 * sqrt(alpha * beta))) continue;
            double zeta = (beta - alpha) / (2 * gamma);
            double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
            double c = 1 / sqrt(1 + t * t), sn = c * t;
            col_rotate(W, p, q, c, sn);
            col_rotate(V, p, q, c, sn);
            rotated = 1;
        }
        if (!rotated) break;
    }
    if (det3(V) < 0) /* make V proper: W = A V follows */
        for (int r = 0; r < 9; r += 3) V[r + 2] = -V[r + 2], W[r + 2] = -W[r + 2];
    double n[3];
    int o[3] = {0, 1, 2}; /* columns by decreasing norm */
    for (int i = 0; i < 3; i++) n[i] = sqrt(col_dot(W, i, i));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (n[o[j + 1]] > n[o[j]]) {
                int t = o[j];
                o[j] = o[j + 1];
                o[j + 1] = t;
            }
    /* U's columns: the two largest normalised, the third their cross product (U proper); A V = U diag(s) with V's
     * columns in the same order, the third singular value signed */
    double u[3][3];
    for (int k = 0; k < 2; k++) {
        int c = o[k];
        if (n[c] > 0) {
            for (int r = 0; r < 3; r++) u[k][r] = W[3 * r + c] / n[c];
        } else if (k == 0) { /* A = 0 */
            u[0][0] = 1, u[0][1] = 0, u[0][2] = 0;
        } else { /* rank 1: a unit vector normal to the first */
            double e[3] = {0, 0, 0};
            int m = fabs(u[0][0]) <= fabs(u[0][1]) ? (fabs(u[0][0]) <= fabs(u[0][2]) ? 0 : 2)
                                                  : (fabs(u[0][1]) <= fabs(u[0][2]) ? 1 : 2);
            e[m] = 1;
            pf_cross(u[0], e, u[1]);
            double l = sqrt(u[1][0] * u[1][0] + u[1][1] * u[1][1] + u[1][2] * u[1][2]);
            for (int r = 0; r < 3; r++) u[1][r] /= l;
        }
    }
    pf_cross(u[0], u[1], u[2]);
    double Vs[9];
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 3; r++) {
            U[3 * r + k] = u[k][r];
            Vs[3 * r + k] = V[3 * r + o[k]];
        }
    s[0] = n[o[0]];
    s[1] = n[o[1]];
    s[2] = u[2][0] * W[o[2]] + u[2][1] * W[3 + o[2]] + u[2][2] * W[6 + o[2]];
    /* an odd reordering made V improper: its last column flips, and with it the last singular value */
    int odd = (o[0] > o[1]) + (o[0] > o[2]) + (o[1] > o[2]);
    if (odd & 1) {
        for (int r = 0; r < 3; r++) Vs[3 * r + 2] = -Vs[3 * r + 2];
        s[2] = -s[2];
    }
    for (int i = 0; i < 9; i++) V[i] = Vs[i];
}

/* U diag(1, 1, sign) V^T */
static void svd_compose(const double U[9], const double V[9], double sign, double R[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = U[3 * i] * V[3 * j] + U[3 * i + 1] * V[3 * j + 1] + sign * U[3 * i + 2] * V[3 * j + 2];
}

void pf_mat3_svd_rotation(const double A[9], double R[9])
{
    double U[9], s[3], V[9];
    pf_mat3_svd(A, U, s, V);
    svd_compose(U, V, 1.0, R);
}

void pf_mat3_polar(const double A[9], double Q[9])
{
    double U[9], s[3], V[9];
    pf_mat3_svd(A, U, s, V);
    svd_compose(U, V, s[2] < 0 ? -1.0 : 1.0, Q);
}
