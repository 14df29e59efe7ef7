/* The element lists SOFA's topology containers derive from a volume mesh when the scene gives none
 * (scenes/topology_derived.c): what a collision model reads from a node with only tetrahedra or hexahedra. */
#ifndef PF_SCENES_TOPOLOGY_DERIVED_H
#define PF_SCENES_TOPOLOGY_DERIVED_H

#include "scene_internal.h"

/* Mesh m with tetrahedra or hexahedra and no triangles (nor quads): every face of its volume elements, as SOFA's
 * MeshTopology (TriangleUpdate, QuadUpdate) and Tetrahedron/HexahedronSetTopologyContainer (createTriangleSetArray,
 * createQuadSetArray) list them: each face once, shared inner faces included, in the order first met, turned as in
 * the element that first has it and started at its smallest index. The tetrahedra's faces go to m->tris; the
 * hexahedra's to m->quads and, two triangles each, to m->tris. A mesh that already has triangles, or no volume
 * element, is left as it is. Returns the number of faces added, or PF_ENOMEM. */
int sc_derive_volume_faces(sc_mesh *m);
/* Mesh m with tetrahedra or hexahedra and no edges: every edge of its volume elements (SOFA's EdgeUpdate from a
 * volume), each once, smaller index first, the tetrahedra's then the hexahedra's in the order first met. Returns the
 * number of edges added, or PF_ENOMEM. */
int sc_derive_volume_edges(sc_mesh *m);

#endif
