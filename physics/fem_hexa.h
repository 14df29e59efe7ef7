/* The elements of the hexahedral FEM (fem_hexa.c): their stiffness on any rest shape, their quality, their
 * corotational frames. Inside PhysFlow an element's corner k sits at (k&1, k>>1&1, k>>2&1) of its parametric cube
 * ("bit order", the order of a regular grid's cells); arrays of 24 hold the 8 corners' x, y, z in that order. */
#ifndef PF_PHYSICS_FEM_HEXA_H
#define PF_PHYSICS_FEM_HEXA_H

/* bit-order corner k is corner pf_hexa_sofa_corner[k] of SOFA's (and VTK's, Gmsh's) order: bottom face 0 1 2 3
 * counter-clockwise seen from above, top face 4 5 6 7 above them */
extern const int pf_hexa_sofa_corner[8];

/* ke (24x24, rows and columns corner*3 + axis, bit order) = sum over the 2x2x2 Gauss points of B^T D B det(J) of
 * the trilinear hexahedron with corners X (isotropic material E, nu). Returns the first Gauss point (0..7) where
 * det(J) <= 0, or -1 when there is none (ke then valid). */
int pf_hexa_stiffness(const double X[24], double E, double nu, double ke[576]);

/* the worst corner of the hexahedron X: min over corners of det(its three edges) / (product of their lengths),
 * signed by the parametric orientation; <= 0: inverted or flat there (NaN with a zero-length edge). *corner
 * receives that corner (bit order). */
double pf_hexa_corner_quality(const double X[24], int *corner);

/* A: rows = the element's edges summed along each parametric axis (4 edges each; SOFA's averaged edges times 4),
 * x its 8 corners */
void pf_hexa_edge_matrix(const double x[24], double A[9]);

/* the rotation of SOFA's "polar" method: the orthogonal factor of A's polar decomposition (pf_mat3_polar); with
 * svd, the rotation of A's sign-corrected SVD instead (pf_mat3_svd_rotation: a proper rotation for inverted
 * elements too). Rows: the element frame's axes in world coordinates (frame coordinates = R x). */
void pf_hexa_frame_polar(const double x[24], int svd, double R[9]);

#endif
