/* PhysFlow narrow phase: sphere–sphere, sphere–triangle, point–triangle and segment–segment proximity with SOFA's
 * alarm and contact distances, the closest points on a triangle and between two segments, and the object pairs
 * that start or stop interacting. */
#ifndef PHYSFLOW_NARROWPHASE_H
#define PHYSFLOW_NARROWPHASE_H

#include "physflow/base.h"
#include "physflow/collision.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Proximity settings, in SOFA's MinProximityIntersection vocabulary. Requires
/// 0 <= contact_distance <= alarm_distance, both finite.
typedef struct pf_proximity_def {
    double alarm_distance;   ///< m; a contact is reported when the features are closer than this (strictly)
    double contact_distance; ///< m; the separation the response keeps: depth = contact_distance - distance
} pf_proximity_def;

/// A sphere of a collision model (a DEM particle, a sphere-tree node). A point is a sphere of radius 0.
typedef struct pf_sphere {
    double center[3]; ///< m
    double radius;    ///< m, >= 0
    uint32_t object;  ///< id of the object the sphere belongs to
    uint32_t element; ///< index of the sphere within its object's collision model
} pf_sphere;

/// A point of a collision model (a mesh vertex).
typedef struct pf_point {
    double p[3];      ///< m
    uint32_t object;  ///< id of the object the point belongs to
    uint32_t element; ///< index of the point within its object's collision model
} pf_point;

/// A triangle of a collision model. Its face normal is (v1 - v0) x (v2 - v0), normalised (counter-clockwise).
typedef struct pf_triangle {
    double v[3][3];   ///< m; the three vertices v[0], v[1], v[2]
    uint32_t object;  ///< id of the object the triangle belongs to
    uint32_t element; ///< index of the triangle within its object's collision model
} pf_triangle;

/// A segment of a collision model (a mesh edge, a line of SOFA's LineCollisionModel); a capsule when its radius
/// is positive.
typedef struct pf_segment {
    double v[2][3];   ///< m; the two end points v[0], v[1] (equal: a point)
    double radius;    ///< m, >= 0
    uint32_t object;  ///< id of the object the segment belongs to
    uint32_t element; ///< index of the segment within its object's collision model
} pf_segment;

/// One proximity between feature A (the first argument: a sphere, point or segment) and feature B (the second).
typedef struct pf_contact {
    double normal[3];   ///< unit vector from B towards A: moving A along +normal separates the features
    double point_a[3];  ///< m; point of A closest to B (on the sphere's or capsule's surface; the point itself)
    double point_b[3];  ///< m; point of B closest to A (on the sphere's surface; on the triangle)
    double distance;    ///< m; signed gap between the surfaces (negative when they interpenetrate)
    double depth;       ///< m; contact_distance - distance; negative while only within the alarm distance
    uint32_t object_a;  ///< object id of A
    uint32_t object_b;  ///< object id of B
    uint32_t element_a; ///< element id of A within its object
    uint32_t element_b; ///< element id of B within its object
} pf_contact;

/// The feature of a triangle that holds the closest point to a query point (Ericson, RTCD §5.1.5 regions).
typedef enum pf_triangle_feature {
    PF_TRI_VERTEX_0 = 0, ///< the closest point is vertex v[0]
    PF_TRI_VERTEX_1,     ///< vertex v[1]
    PF_TRI_VERTEX_2,     ///< vertex v[2]
    PF_TRI_EDGE_01,      ///< the interior of edge v[0]v[1]
    PF_TRI_EDGE_12,      ///< the interior of edge v[1]v[2]
    PF_TRI_EDGE_20,      ///< the interior of edge v[2]v[0]
    PF_TRI_FACE          ///< the interior of the face
} pf_triangle_feature;

/// Closest point `q` to `p` on the closed triangle (a, b, c), by Voronoi-region tests (Ericson, Real-Time
/// Collision Detection §5.1.5). Degenerate triangles (collinear or coincident vertices) are handled as the
/// union of their edges, without division by zero. Returns the feature that holds q, or PF_EINVAL for a NULL
/// or non-finite argument.
PF_API int pf_triangle_closest_point(const double p[3], const double a[3], const double b[3], const double c[3],
                                     double q[3]);

/// Closest points of segment P = [p0, p1] and segment Q = [q0, q1] (Ericson, Real-Time Collision Detection
/// §5.1.9), checked against the four end point–segment pairs so that a rounding in the general case never gives a
/// farther pair. st[0] = s and st[1] = t, both in [0, 1], give the points cp = p0 + s (p1 - p0) and
/// cq = q0 + t (q1 - q0); an end point is exactly 0 or 1. Parallel segments (sin² of their angle below 1e-12),
/// whose closest pairs are many when their projections overlap, get the pair at the middle of the overlap (when
/// only nearly parallel, an end of the overlap instead if it is closer by more than rounding). A zero-length
/// segment is a point. cp and cq may be NULL. Returns PF_OK, or PF_EINVAL for a NULL (p0, p1, q0, q1, st) or
/// non-finite argument.
PF_API int pf_segment_closest_points(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                                     double st[2], double cp[3], double cq[3]);

/// Sphere A against sphere B. Returns 1 and fills `*out` when the surfaces are closer than the alarm distance,
/// 0 (leaving `*out` untouched) when not, PF_EINVAL for invalid arguments (NULL, NaN, negative radius, a bad
/// def). Coincident centres get the normal +z.
PF_API int pf_narrow_sphere_sphere(const pf_proximity_def *def, const pf_sphere *a, const pf_sphere *b,
                                   pf_contact *out);

/// Sphere A against triangle B; as pf_narrow_sphere_sphere. The triangle is two-sided: the normal points from
/// the closest point on the triangle to the centre; a centre lying on the triangle gets the face normal (for a
/// degenerate triangle, a unit vector perpendicular to its longest edge, or +z when it is a point).
PF_API int pf_narrow_sphere_triangle(const pf_proximity_def *def, const pf_sphere *a, const pf_triangle *b,
                                     pf_contact *out);

/// Point A against triangle B: pf_narrow_sphere_triangle with a radius-0 sphere.
PF_API int pf_narrow_point_triangle(const pf_proximity_def *def, const pf_point *a, const pf_triangle *b,
                                    pf_contact *out);

/// Segment A against segment B (pf_segment_closest_points): returns 1 and fills `*out` when the capsules' gap,
/// |cp - cq| - a.radius - b.radius, is below the alarm distance, 0 (leaving `*out` and `st` untouched) when not,
/// PF_EINVAL for invalid arguments (NULL, NaN, negative radius, a bad def). The normal points from B's closest
/// point to A's; segments that meet get a.v[1] - a.v[0] x b.v[1] - b.v[0] normalised (the sign carries no
/// meaning), parallel ones that meet a unit vector perpendicular to them, two coincident points +z. `st` (may be
/// NULL) receives the closest points' parameters s on A and t on B.
PF_API int pf_narrow_segment_segment(const pf_proximity_def *def, const pf_segment *a, const pf_segment *b,
                                     pf_contact *out, double st[2]);

/// Batch over broad-phase candidates. Sphere–sphere: pair (i, j) tests spheres[i] (A) against spheres[j] (B).
/// Writes the contacts to `out` (room for `npairs` needed) in the order of `pairs`, so the output is as
/// deterministic as the pairs; `*ncontacts` receives their number. PF_EINVAL on an index out of range or an
/// invalid element (the message names it: `pairs[4].j`, `spheres[3].center[1]`), and for a bad def, a NULL
/// `ncontacts`, NULL arrays when npairs > 0 (all may be NULL when it is 0) or counts whose arrays could not fit
/// in memory; `out` is then partly written and `*ncontacts` is 0.
PF_API int pf_narrow_spheres(const pf_proximity_def *def, const pf_sphere *spheres, size_t nspheres,
                             const pf_pair *pairs, size_t npairs, pf_contact *out, size_t *ncontacts);

/// Batch sphere–triangle: pair (i, j) tests spheres[i] (A) against triangles[j] (B); otherwise as
/// pf_narrow_spheres.
PF_API int pf_narrow_spheres_triangles(const pf_proximity_def *def, const pf_sphere *spheres, size_t nspheres,
                                       const pf_triangle *triangles, size_t ntriangles, const pf_pair *pairs,
                                       size_t npairs, pf_contact *out, size_t *ncontacts);

/// Batch point–triangle: pair (i, j) tests points[i] (A) against triangles[j] (B); otherwise as
/// pf_narrow_spheres.
PF_API int pf_narrow_points_triangles(const pf_proximity_def *def, const pf_point *points, size_t npoints,
                                      const pf_triangle *triangles, size_t ntriangles, const pf_pair *pairs,
                                      size_t npairs, pf_contact *out, size_t *ncontacts);

/// Two objects that interact, by id, with a <= b (a == b for an object in contact with itself).
typedef struct pf_object_pair {
    uint32_t a; ///< the smaller object id
    uint32_t b; ///< the larger object id
} pf_object_pair;

/// The set of object pairs that `n` contacts link: writes them to `out` (room for `n` needed), sorted by
/// (a, b) and unique, and their number to `*nout`. PF_EINVAL on NULL arguments (contacts/out may be NULL
/// when n is 0).
PF_API int pf_contact_object_pairs(const pf_contact *contacts, size_t n, pf_object_pair *out, size_t *nout);

/// Which object pairs started and stopped interacting between two consecutive steps: `started` receives the
/// pairs linked by `cur` and not by `prev`, `stopped` those linked by `prev` and not by `cur`, each sorted by
/// (a, b) and unique. `started` needs room for `ncur` pairs and `stopped` for `nprev` (their capacities are
/// checked: PF_EINVAL when smaller). Self pairs (a == b) are included; a caller that only regroups solvers
/// may skip them. Allocates nothing; O((nprev + ncur) log).
PF_API int pf_contact_changes(const pf_contact *prev, size_t nprev, const pf_contact *cur, size_t ncur,
                              pf_object_pair *started, size_t started_cap, size_t *nstarted,
                              pf_object_pair *stopped, size_t stopped_cap, size_t *nstopped);

#ifdef __cplusplus
}
#endif
#endif
