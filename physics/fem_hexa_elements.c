/* Hexahedral elements of any rest shape (fem_hexa.h): their stiffness by 2x2x2 Gauss quadrature, their corner
 * quality, and the polar/SVD frames of the corotational methods. */
#include "fem_hexa.h"
#include "rotation.h"

#include <math.h>
#include <string.h>

const int pf_hexa_sofa_corner[8] = {0, 1, 3, 2, 4, 5, 7, 6};

/* the corner's parametric signs */
static double sgn(int k, int axis) { return (k >> axis & 1) ? 1.0 : -1.0; }

int pf_hexa_stiffness(const double X[24], double E, double nu, double ke[576])
{
    double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    memset(ke, 0, 576 * sizeof *ke);
    const double g = 1.0 / sqrt(3.0);
    for (int gp = 0; gp < 8; gp++) {
        double xi[3] = {sgn(gp, 0) * g, sgn(gp, 1) * g, sgn(gp, 2) * g};
        /* dN_k/dxi_j of the trilinear shape functions N_k = prod (1 + s_a xi_a) / 8 */
        double dn[8][3];
        for (int k = 0; k < 8; k++)
            for (int j = 0; j < 3; j++) {
                double p = sgn(k, j) / 8.0;
                for (int a = 0; a < 3; a++)
                    if (a != j) p *= 1 + sgn(k, a) * xi[a];
                dn[k][j] = p;
            }
        double J[9] = {0}; /* J[c][j] = dX_c / dxi_j */
        for (int k = 0; k < 8; k++)
            for (int c = 0; c < 3; c++)
                for (int j = 0; j < 3; j++) J[3 * c + j] += X[3 * k + c] * dn[k][j];
        double Ji[9], detj = pf_mat3_inverse(J, Ji);
        if (!(detj > 0)) return gp;
        /* dN_k/dx_c = sum_j dN_k/dxi_j dxi_j/dx_c */
        double q[8][3];
        for (int k = 0; k < 8; k++)
            for (int c = 0; c < 3; c++) q[k][c] = dn[k][0] * Ji[c] + dn[k][1] * Ji[3 + c] + dn[k][2] * Ji[6 + c];
        /* block (a, b) of B^T D B: lambda q_a q_b^T + mu (q_b q_a^T + (q_a . q_b) I) */
        for (int a = 0; a < 8; a++)
            for (int b = 0; b < 8; b++) {
                double dot = q[a][0] * q[b][0] + q[a][1] * q[b][1] + q[a][2] * q[b][2];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        double v = lambda * q[a][i] * q[b][j] + mu * q[a][j] * q[b][i] + (i == j ? mu * dot : 0.0);
                        ke[(3 * a + i) * 24 + 3 * b + j] += v * detj;
                    }
            }
    }
    return -1;
}

double pf_hexa_corner_quality(const double X[24], int *corner)
{
    double worst = INFINITY;
    *corner = 0;
    for (int k = 0; k < 8; k++) {
        double e[3][3], len = 1;
        for (int a = 0; a < 3; a++) {
            int nb = k ^ (1 << a);
            /* the edge along +xi_a: from the corner to its neighbour, or back when the corner is on the + side */
            for (int d = 0; d < 3; d++) e[a][d] = -sgn(k, a) * (X[3 * nb + d] - X[3 * k + d]);
            len *= sqrt(e[a][0] * e[a][0] + e[a][1] * e[a][1] + e[a][2] * e[a][2]);
        }
        double c[3];
        pf_cross(e[0], e[1], c);
        double q = (c[0] * e[2][0] + c[1] * e[2][1] + c[2] * e[2][2]) / len;
        if (q < worst || isnan(q)) {
            worst = q;
            *corner = k;
            if (isnan(q)) break; /* a zero-length edge: nothing is worse */
        }
    }
    return worst;
}

void pf_hexa_edge_matrix(const double x[24], double A[9])
{
    for (int a = 0; a < 3; a++) {
        double s[3] = {0, 0, 0};
        for (int k = 0; k < 8; k++) {
            if (k >> a & 1) continue;
            int nb = k | 1 << a;
            for (int d = 0; d < 3; d++) s[d] += x[3 * nb + d] - x[3 * k + d];
        }
        for (int d = 0; d < 3; d++) A[3 * a + d] = s[d];
    }
}

void pf_hexa_frame_polar(const double x[24], int svd, double R[9])
{
    double A[9];
    pf_hexa_edge_matrix(x, A);
    if (svd)
        pf_mat3_svd_rotation(A, R);
    else
        pf_mat3_polar(A, R);
}
