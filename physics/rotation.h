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
/* rotation matrix of the unit quaternion q = (w, x, y, z) */
void pf_quat_to_mat(const double q[4], double R[9]);
/* q <- exp(h omega / 2) * q, renormalised: a rotation by the angle h |omega| about omega (world frame) */
void pf_quat_integrate(double q[4], const double omega[3], double h);
/* q / |q|; returns 0 when |q| is not a positive finite number */
int pf_quat_normalize(double q[4]);

#endif
