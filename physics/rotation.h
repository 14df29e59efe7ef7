/* Small 3-vector, 3x3-matrix (row-major) and unit-quaternion helpers of the rigid bodies and their mappings. */
#ifndef PF_PHYSICS_ROTATION_H
#define PF_PHYSICS_ROTATION_H

/* out = a x b (out may not alias a or b) */
void pf_cross(const double a[3], const double b[3], double out[3]);
/* out = M v (out may not alias v) */
void pf_mat3_vec(const double M[9], const double v[3], double out[3]);
/* out = R A R^T: a body-frame tensor seen in the world frame */
void pf_mat3_rotate_tensor(const double R[9], const double A[9], double out[9]);
/* out = A^-1; returns the determinant (out untouched when it is 0) */
double pf_mat3_inverse(const double A[9], double out[9]);
/* A = U diag(s) V^T with U and V proper rotations (det +1) and s[0] >= s[1] >= |s[2]|: only the smallest singular
 * value carries the sign of det A (the "invertible" SVD of Irving et al. 2004, §4, robust to inverted elements);
 * one-sided Jacobi, a fixed order of plane rotations (deterministic). */
void pf_mat3_svd(const double A[9], double U[9], double s[3], double V[9]);
/* the rotation of A's SVD: U V^T (pf_mat3_svd); a proper rotation for every A, inverted or singular */
void pf_mat3_svd_rotation(const double A[9], double R[9]);
/* the orthogonal factor Q of the polar decomposition A = Q S (S symmetric positive semi-definite): U V^T with
 * the sign of the smallest singular value kept, so a reflection (det -1) when det A < 0, as in the classical
 * polar decomposition; a proper rotation when det A >= 0 */
void pf_mat3_polar(const double A[9], double Q[9]);
/* rotation matrix of the unit quaternion q = (w, x, y, z) */
void pf_quat_to_mat(const double q[4], double R[9]);
/* q <- exp(h omega / 2) * q, renormalised: a rotation by the angle h |omega| about omega (world frame) */
void pf_quat_integrate(double q[4], const double omega[3], double h);
/* q / |q|; returns 0 when |q| is not a positive finite number */
int pf_quat_normalize(double q[4]);

#endif
