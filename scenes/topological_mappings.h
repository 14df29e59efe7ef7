/* SOFA's topological mappings on PhysFlow's meshes (scenes/topological_mappings.c): each output holds a copy of the
 * input's points and the elements computed from it, on the same point indices. PF_ENOMEM. */
#ifndef PF_SCENES_TOPOLOGICAL_MAPPINGS_H
#define PF_SCENES_TOPOLOGICAL_MAPPINGS_H

#include "scene_internal.h"

/* A regular grid's points (i fastest) and hexahedra (bottom face 0-3, top 4-7): n points per axis over [lo, hi]. */
int sc_grid_mesh(const int n[3], const double lo[3], const double hi[3], sc_mesh *out);
/* The quads of a regular grid with exactly one dimension of 1 (SOFA's GridTopology: a flat grid is a quad mesh),
 * corners in turn around each cell (*out owned by the caller); *nq = 0 for a grid of another shape. */
int sc_grid_quads(const int g[3], uint32_t **out, uint32_t *nq);
/* Hexa2TetraTopologicalMapping: six tetrahedra per hexahedron; swapping mirrors alternate cells (nx, ny: a grid's
 * cells per row and column; 2 and 1 for another mesh, as SOFA takes them). */
int sc_hexa_to_tetra(const sc_mesh *in, int nx, int ny, int swapping, sc_mesh *out);
/* TetrahedronFEMForceField on hexahedra only (a grid, a hexahedral mesh): SOFA's own split, six tetrahedra per
 * hexahedron with alternate cells' corners mirrored as above but the same corner pattern in every cell, so the
 * mirrored cells' tetrahedra are inverted (the FEM takes |volume|). */
int sc_hexa_to_tetra_fem(const sc_mesh *in, int nx, int ny, sc_mesh *out);
/* Tetra2TriangleTopologicalMapping: the boundary triangles (faces of one tetrahedron only), turned outward. */
int sc_tetra_to_triangles(const sc_mesh *in, sc_mesh *out);
/* Hexa2QuadTopologicalMapping: the boundary quads, turned outward, and their triangles (two per quad). */
int sc_hexa_to_quads(const sc_mesh *in, sc_mesh *out);
/* Quad2TriangleTopologicalMapping: two triangles per quad, the diagonal alternating over rows of `scale` quads. */
int sc_quads_to_triangles(const sc_mesh *in, int scale, sc_mesh *out);
/* Triangle2EdgeTopologicalMapping: the boundary edges (sides of one triangle only). */
int sc_triangles_to_edges(const sc_mesh *in, sc_mesh *out);

#endif
