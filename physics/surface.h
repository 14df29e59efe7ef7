/* Surfaces carried by objects through a mapping (SOFA IdentityMapping, BarycentricMapping on a grid, RigidMapping):
 * the vertex positions and velocities follow the object's state x, v, and a force applied on the surface goes back
 * onto the object's force vector through the transposed Jacobian (virtual work: f · J dq = (J^T f) · dq).
 *
 * Every function takes the object and its vectors explicitly (x of the full size, with a rigid body's
 * orientation), so a task may call it on the data the runtime hands it. A point on the surface is a vertex or a
 * barycentric point of a triangle (pf_surface_point). The mappings:
 *   IDENTITY   vertex i = x[idx[i]]                          J constant (a selection)
 *   TRILINEAR  vertex i = sum_k wt[8i+k] x[idx[8i+k]]        J constant (weights fixed at rest; the 8 corners
 *                                                            of a grid cell or of a hexahedron, surface_hexa.c)
 *   RIGID      vertex i = com + R local[i]                   J dq = dq_lin + dq_ang x (R local): J depends on R */
#ifndef PF_PHYSICS_SURFACE_H
#define PF_PHYSICS_SURFACE_H

#include "world.h"

typedef struct pf_surface {
    uint32_t object;
    pf_surface_mapping mapping;
    uint32_t nv, nt;
    uint32_t *tri;     /* 3 per triangle */
    uint32_t *idx;     /* IDENTITY: 1 object point per vertex; TRILINEAR: 8 corners per vertex; BARYCENTRIC: 4
                          corners then 4 unused */
    double *wt;        /* TRILINEAR, BARYCENTRIC: 8 weights per vertex (sum 1) */
    double *local;     /* RIGID: 3 per vertex, body frame, relative to the com */
    double *pos, *vel; /* 3 per vertex: written by pf_surface_positions / pf_surface_velocities */
    double radius;     /* > 0: its vertices are spheres */
    int closed;        /* its triangles bound a solid, wound counter-clockwise seen from outside
                          (surface_orientation.c): contacts against it are one-sided */
    double friction;   /* Coulomb coefficient of its contacts; < 0: the collision stage's */
    double contact_stiffness; /* SOFA contactStiffness (> 0); < 0: the collision stage's stiffness (contacts.c) */
    /* lines and self-collision (surface_edges.c); the arrays are built only while lines are on */
    int lines, self_collision;
    uint32_t ne;
    uint32_t *edge;        /* 2 per edge, the smaller vertex first, sorted */
    uint8_t *edge_on_tri;  /* per edge: 1 for an edge of a triangle (vertex–triangle tests cover its points) */
    uint8_t *vert_on_tri;  /* per vertex: 1 for a vertex of a triangle */
} pf_surface;

/* A point of the surface: sum_k w[k] vertex v[k]. */
typedef struct pf_surface_point {
    uint32_t v[3];
    double w[3];
} pf_surface_point;

/* Builds a surface (allocating it) after checking the definition against the object; the caller frees it. */
int pf_surface_create(const pf_object *o, const pf_surface_def *def, pf_surface **out);
void pf_surface_free(pf_surface *s);
/* A TRILINEAR definition's hexahedra checked against object o (indices in range, no flat cell), in the terms of
 * the public call fn (surface_hexa.c). */
int pf_surface_check_hexa(const pf_object *o, const pf_surface_def *d, const char *fn);
/* The corners (idx) and trilinear weights (wt), 8 per vertex, of d's vertices in d's hexahedra at the object's
 * positions o->x (surface_hexa.c); PF_ENOMEM when out of memory. */
int pf_surface_hexa_weights(const pf_object *o, const pf_surface_def *d, uint32_t *idx, double *wt);
/* The hexahedron of the list (nh of them, corners at x) that each of the n points p is located in, as
 * pf_surface_hexa_weights chooses it: PF_OK or PF_ENOMEM (surface_hexa.c; its test's brute force compares). */
int pf_hexa_locate(const double *x, const uint32_t *hexa, uint32_t nh, const double *p, size_t n, uint32_t *cell);
/* The projected Newton that locate uses in one hexahedron h (8 corners at x), from its centre: the coordinates u in
 * [0,1]^3 of its point nearest p that the method finds, and that point's distance to p. */
double pf_hexa_project(const double *x, const uint32_t *h, const double p[3], double u[3]);
/* *closed = 1 when the nt triangles tri form a closed, consistently wound mesh (PF_ENOMEM when out of memory) */
int pf_surface_orientation_closed(const uint32_t *tri, uint32_t nt, int *closed);

/* Collision options of def (edges, nedges, lines, self_collision) onto s, checked in the terms of the public call
 * fn; s keeps its old options on failure (surface_edges.c). */
int pf_surface_set_collision(pf_surface *s, const pf_surface_def *def, const char *fn);
void pf_surface_free_edges(pf_surface *s);
/* The point of a line feature (collide_edges.c's numbering): edge `feature` < s->ne at parameter t from its first
 * vertex to its second, or vertex `feature` - s->ne. */
pf_surface_point pf_surface_line_point(const pf_surface *s, uint32_t feature, double t);

/* the point of vertex v */
pf_surface_point pf_surface_vertex(uint32_t v);
/* the point of triangle t at barycentric coordinates bary (sum 1) */
pf_surface_point pf_surface_triangle_point(const pf_surface *s, uint32_t t, const double bary[3]);

/* s->pos = every vertex's position from x (returned) */
const double *pf_surface_positions(pf_surface *s, const pf_object *o, const double *x);
/* s->vel = every vertex's velocity from x and v (returned) */
const double *pf_surface_velocities(pf_surface *s, const pf_object *o, const double *x, const double *v);
/* The same for vertices lo .. hi - 1 only: each vertex is computed on its own, so slices of a surface give the
 * values of the whole. */
void pf_surface_positions_range(pf_surface *s, const pf_object *o, const double *x, uint32_t lo, uint32_t hi);
void pf_surface_velocities_range(pf_surface *s, const pf_object *o, const double *x, const double *v, uint32_t lo,
                                 uint32_t hi);

/* the point as a weighted sum of object points, sum_k w[k] x[idx[k]] (k < the count returned, at most 24), for
 * the IDENTITY, TRILINEAR and BARYCENTRIC mappings; 0 for RIGID (J depends on the orientation) */
uint32_t pf_surface_point_terms(const pf_surface *s, const pf_surface_point *pt, uint32_t idx[24], double w[24]);
/* position of a point from x */
void pf_surface_point_position(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                               double out[3]);
/* J dq at a point: the point's velocity for dq = v, its displacement for a small dq = dx (rigid: dq's angular
 * part is a rotation vector dtheta, linearised at the orientation in x: dx_point = dx_com + dtheta x r) */
void pf_surface_point_apply(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                            const double *dq, double out[3]);
/* fobj += J^T f: a force f (N) applied at a point, onto the object's force vector (3n values; rigid: force on the
 * com and torque r x f), at the points `keep` keeps (world.h; NULL: all) */
void pf_surface_add_force(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                          const double f[3], double *fobj, const pf_point_filter *keep);
/* The same J and J^T with a rigid body's arm r (from the com to the point, world frame) computed once, for a
 * solver that applies them many times at one orientation: pf_surface_point_arm sets r and returns 1 for a RIGID
 * surface (0 otherwise: the others take no arm, r is ignored). Bitwise the results of the functions above. */
int pf_surface_point_arm(const pf_surface *s, const double *x, const pf_surface_point *pt, double r[3]);
void pf_surface_point_apply_arm(const pf_surface *s, const pf_surface_point *pt, const double r[3], const double *dq,
                                double out[3]);
void pf_surface_add_force_arm(const pf_surface *s, const pf_surface_point *pt, const double r[3], const double f[3],
                              double *fobj);
/* dfobj += kfact J^T K J dq: the implicit solver's product for a force at a point whose 3x3 stiffness is
 * K = df/dx_point (row-major). For a rigid body J is taken at the current orientation; the geometric term of
 * the torque (d(r x f)/dtheta, non-symmetric) is left out, as SOFA's RigidMapping does by default, so the CG
 * matrix stays symmetric. */
void pf_surface_add_dforce(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                           const double K[9], double kfact, const double *dq, double *dfobj);

/* the surface s of world w, NULL for an invalid id */
pf_surface *pf_world_surface(const pf_world *w, pf_surface_id s);
/* appends a built surface to the world (taking it) */
int pf_world_take_surface(pf_world *w, pf_surface *s, pf_surface_id *out);

#endif
